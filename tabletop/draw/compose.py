"""The frame: which layers are drawn in which order, and the caches that let a settled view or a
dragged template reuse pixels (pygame)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pygame

from tabletop.adjudicate import Adjudication
from tabletop.draw.backdrop import backdrop_key, draw_backdrop
from tabletop.draw.chrome import RULER_BAND, RULER_SIDE, _draw_rulers, _draw_title
from tabletop.draw.legend import _legend_surface
from tabletop.draw.marks import _draw_ruleset_labels, _draw_ruleset_over, _draw_ruleset_tints, _draw_ruleset_under
from tabletop.draw.models import _draw_marks, _draw_model_names, _draw_models, _name_labels, _sprites, _sprites_view
from tabletop.draw.primitives import _overlay_for, _screen_rect
from tabletop.draw.scene import _Scene, _coverage_art, _model_data, _scene, _scenes, _terrain_data
from tabletop.draw.style import BACKGROUND, DrawOptions
from tabletop.draw.templates import (
    _draw_focus,
    _draw_scatter,
    _draw_template_fills,
    _draw_template_labels,
    _draw_template_lines,
)
from tabletop.draw.terrain import _draw_table, _draw_terrain, _draw_terrain_hits, _draw_terrain_names, _terrain_names
from tabletop.draw.text import _KEY
from tabletop.viewport import Viewport


def _reset_caches() -> None:
    """Forget every cached layer, sprite and prepared scene (tests compare against a fresh draw)."""
    for cache in (_layer, _board, _buildings, _rulers, _terrain_names, _terrain_data, _model_data, _sprites_view):
        cache.clear()
    _sprites.clear()
    _name_labels.clear()
    _scenes.clear()
    _coverage_art.clear()


@dataclass(eq=False)
class _Layer:
    """The last frame without selection and hover, reused while nothing else changes."""

    surface: pygame.Surface | None
    scene: _Scene
    key: tuple[object, ...]
    filled: bool = False


_layer: list[_Layer] = []


def draw_scene(surface: pygame.Surface, viewport: Viewport, adjudication: Adjudication, options: DrawOptions = DrawOptions()) -> None:
    """Draw the table, its terrain, templates and models of ``adjudication`` into ``viewport.rect``."""
    scene = _scene(adjudication)
    vp = viewport
    clip = pygame.Rect(vp.rect).clip(surface.get_rect())
    if clip.width <= 0 or clip.height <= 0:
        return
    static = replace(options, selected=None, hovered=None)
    key = (vp, tuple(clip), surface.get_size(), surface.get_bitsize(), static, backdrop_key())
    old_clip = surface.get_clip()
    surface.set_clip(clip)
    try:
        cached = _layer[0] if _layer else None
        if cached is not None and cached.scene is scene and cached.key == key and cached.filled and cached.surface is not None:
            surface.blit(cached.surface, clip.topleft, area=clip)
        else:
            _draw_static(surface, vp, scene, static, clip)
            if cached is not None and cached.scene is scene and cached.key == key:
                # Second identical frame in a row: the view has settled, keep it. While
                # panning or dragging every frame differs and the copy would be wasted.
                if cached.surface is None or cached.surface.get_size() != surface.get_size() or cached.surface.get_bitsize() != surface.get_bitsize():
                    cached.surface = pygame.Surface(surface.get_size(), 0, surface)
                cached.surface.blit(surface, clip.topleft, area=clip)
                cached.filled = True
            elif cached is None:
                _layer.append(_Layer(None, scene, key))
            else:
                cached.scene, cached.key, cached.filled = scene, key, False
        _draw_marks(surface, vp, scene, options)
    finally:
        surface.set_clip(old_clip)


@dataclass(eq=False)
class _Pixels:
    """Pixels of a part of the frame that depends only on ``key`` (the view, the table)."""

    key: tuple[object, ...]
    surface: pygame.Surface | None = None
    patches: list[tuple[pygame.Rect, pygame.Surface]] = field(default_factory=list)


# While a template or model is dragged the board and the rulers do not change: their
# pixels are copied once the same view is drawn twice in a row (panning changes the key
# every frame, so nothing is copied in vain) and blitted from then on.
_board: list[_Pixels] = []


_buildings: list[_Pixels] = []


_rulers: list[_Pixels] = []


def _pixels_for(cache: list[_Pixels], key: tuple[object, ...]) -> tuple[_Pixels, bool]:
    """The entry of ``cache`` for ``key`` and whether the last frame had that key too
    (a new key replaces the entry: its pixels are kept only from the second frame on)."""
    if cache and cache[0].key == key:
        return cache[0], True
    cache[:] = [_Pixels(key)]
    return cache[0], False


def _draw_board(surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions, clip: pygame.Rect, view: tuple[float, float, float, float]) -> None:
    """Background, table, grid and open terrain: what lies under the template tint."""
    table = _screen_rect(vp, (0.0, 0.0, scene.width, scene.depth), pad=0).clip(clip)
    if table.width and table.height:
        # Only the margins: the table covers the rest, and each full-screen fill costs.
        for band in (
            (clip.left, clip.top, clip.width, table.top - clip.top),
            (clip.left, table.bottom, clip.width, clip.bottom - table.bottom),
            (clip.left, table.top, table.left - clip.left, table.height),
            (table.right, table.top, clip.right - table.right, table.height),
        ):
            if band[2] > 0 and band[3] > 0:
                surface.fill(BACKGROUND, band)
    else:
        surface.fill(BACKGROUND, clip)
    _draw_table(surface, vp, scene, options, view)
    draw_backdrop(surface, vp, clip)  # the photo of the real table, when the app has one
    # Open terrain lies under the template tint; solid buildings stand on top of it.
    _draw_terrain(surface, vp, scene, options, view, blocking=False)


def _draw_static(surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions, clip: pygame.Rect) -> None:
    """Everything but selection and hover."""
    scene.names_drawn = False
    view = vp.visible_world_bounds()
    board_key = (vp, tuple(clip), surface.get_size(), surface.get_bitsize(), options.show_grid, scene.scenario.table, scene.terrain, backdrop_key())
    board, repeated = _pixels_for(_board, board_key)
    if board.surface is not None:
        surface.blit(board.surface, clip.topleft, area=clip)
    else:
        _draw_board(surface, vp, scene, options, clip, view)
        if repeated:
            board.surface = pygame.Surface(surface.get_size(), 0, surface)
            board.surface.blit(surface, clip.topleft, area=clip)
    _draw_terrain_hits(surface, vp, scene, view, blocking=False)

    overlay = _overlay_for(surface.get_size())
    overlay.set_clip(clip)  # nothing may linger outside the area cleared below
    for area in _draw_template_fills(overlay, vp, scene, options, view):
        area = area.clip(clip)
        if area.width > 0 and area.height > 0:
            surface.blit(overlay, area.topleft, area=area)
            overlay.fill((0, 0, 0, 0), area)
    buildings, repeated = _pixels_for(_buildings, board_key)
    if buildings.surface is None and repeated:
        # Opaque buildings on a colour key: an RLE blit of the sparse layer costs far
        # less than filling sixty polygons.
        buildings.surface = pygame.Surface(surface.get_size(), 0, surface)
        buildings.surface.fill(_KEY)
        buildings.surface.set_clip(clip)
        _draw_terrain(buildings.surface, vp, scene, options, view, blocking=True)
        buildings.surface.set_colorkey(_KEY, pygame.RLEACCEL)
    if buildings.surface is not None:
        surface.blit(buildings.surface, (0, 0))
    else:
        _draw_terrain(surface, vp, scene, options, view, blocking=True)
    _draw_terrain_hits(surface, vp, scene, view, blocking=True)
    if scene.art is not None and scene.art.tints:
        # Over the buildings too: a blast's squares say what happens inside them.
        touched = _draw_ruleset_tints(overlay, vp, scene.art, view)
        if touched is not None:
            touched = touched.clip(clip)
            surface.blit(overlay, touched.topleft, area=touched)
            overlay.fill((0, 0, 0, 0), touched)

    _draw_template_lines(surface, vp, scene, options, view)
    if scene.art is not None:
        _draw_ruleset_under(surface, vp, scene.art)
    _draw_models(surface, vp, scene, options)
    _draw_scatter(surface, vp, scene)
    _draw_focus(surface, vp, scene, view)
    taken = _draw_ruleset_over(surface, vp, scene.art) if scene.art is not None else []
    if options.show_names:
        names = _draw_terrain_names(surface, vp, scene, view)
        if scene.art is not None:
            taken += names
        _draw_model_names(surface, vp, scene)
    if options.show_rulers:
        ruler_key = (vp, tuple(clip), surface.get_size(), surface.get_bitsize(), scene.width, scene.depth)
        rulers, repeated = _pixels_for(_rulers, ruler_key)
        if rulers.patches:
            surface.fblits([(patch, rect) for rect, patch in rulers.patches])
        else:
            drawn = _draw_rulers(surface, vp, scene, view)
            if repeated:
                # Everything a ruler draws is opaque, so its rects' pixels are the rulers alone.
                rulers.patches = [(r, surface.subsurface(r).copy()) for r in (d.clip(clip) for d in drawn) if r.width > 0 and r.height > 0]
    taken += _draw_template_labels(surface, vp, scene, view)
    title = _draw_title(surface, vp, scene, options.show_rulers) if options.show_title else None
    if title is not None:
        taken.append(title)
    if options.show_legend:
        legend = _legend_surface(scene, vp.scale)
        x, y = clip.right - legend.get_width() - 8, clip.top + 8
        if title is not None and title.right + 8 > x:
            y = title.bottom + 8  # a narrow window: stack the legend under the title
        taken.append(surface.blit(legend, (x, y)))
    if scene.art is not None and scene.art.badges:
        bounds = clip
        if options.show_rulers:
            bounds = pygame.Rect(clip.left + RULER_SIDE, clip.top, clip.width - RULER_SIDE, clip.height - RULER_BAND)
        _draw_ruleset_labels(surface, vp, scene, scene.art, taken, bounds)
