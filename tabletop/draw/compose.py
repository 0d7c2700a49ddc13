"""The frame: which layers are drawn in which order, and the caches that let a settled view or a
dragged template reuse pixels (pygame)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pygame

from tabletop.adjudicate import Adjudication
import numpy as np

from tabletop.draw import labels as label_paint
from tabletop.draw.chrome import _draw_rulers, _title_surface, _titles
from tabletop.draw.frame import Frame
from tabletop.draw.checks import draw_checks
from tabletop.draw.legend import _legend_surface, _legends
from tabletop.draw.marks import _badge_labels, _draw_ruleset_over, _draw_ruleset_tints, _draw_ruleset_under
from tabletop.draw.models import _draw_marks, _draw_models, _model_names, _name_labels, _name_requests, _sprites, _sprites_view, _tooltip
from tabletop.draw.backdrop import backdrop_key, draw_backdrop
from tabletop.draw.primitives import _disjoint, _overlay_for, _screen_rect
from tabletop.draw.scene import _Scene, _bbox_visible, _coverage_art, _model_data, _scene, _scenes, _terrain_data
from tabletop.draw.style import BACKGROUND, DrawOptions, set_palette, set_ui_scale
from tabletop.draw.templates import (
    _draw_focus,
    _draw_scatter,
    _draw_template_fills,
    _draw_template_lines,
    _template_labels,
)
from tabletop.draw.terrain import _draw_table, _draw_terrain, _draw_terrain_hits, _terrain_labels, _terrain_names
from tabletop.draw.text import _KEY, _badges, _texts
from tabletop.label_layout import Layout, Overlay
from tabletop.viewport import Viewport


def _reset_caches() -> None:
    """Forget every cached layer, sprite and prepared scene (tests compare against a fresh draw)."""
    for cache in (_layer, _board, _buildings, _under, _rulers, _terrain_names, _terrain_data, _model_data, _sprites_view):
        cache.clear()
    for table in (_texts, _badges, _legends):
        table.clear()
    _titles.clear()
    label_paint._blocks.clear()
    label_paint._leaders.clear()
    label_paint._on_screen.clear()
    _sprites.clear()
    _name_labels.clear()
    _name_requests.clear()
    _scenes.clear()
    _coverage_art.clear()


@dataclass(eq=False)
class _Layer:
    """The last frame without selection and hover, reused while nothing else changes."""

    surface: pygame.Surface | None
    scene: _Scene
    key: tuple[object, ...]
    filled: bool = False
    frame: Frame | None = None  # what the static layer's labels and panels are
    labels: dict[str, label_paint.Label] = field(default_factory=dict)


_layer: list[_Layer] = []


def draw_scene(
    surface: pygame.Surface, viewport: Viewport, adjudication: Adjudication, options: DrawOptions = DrawOptions(), previous: Layout | Frame | None = None
) -> Frame:
    """Draw the table, its terrain, templates and models of ``adjudication`` into ``viewport.rect``.

    Every text goes through one label layout; returns the :class:`Frame` drawn (labels, bases,
    docked panels in screen px). Pass the last frame (or its layout) as ``previous`` while something
    is dragged, so labels whose anchors did not move keep their places.
    """
    _apply_settings(options)
    scene = _scene(adjudication)
    vp = viewport
    clip = pygame.Rect(vp.rect).clip(surface.get_rect())
    if clip.width <= 0 or clip.height <= 0:
        return Frame(surface.get_size())
    if isinstance(previous, Frame):
        previous = previous.layout
    static = replace(options, selected=None, hovered=None)
    key = (vp, tuple(clip), surface.get_size(), surface.get_bitsize(), static, backdrop_key())
    old_clip = surface.get_clip()
    surface.set_clip(clip)
    try:
        cached = _layer[0] if _layer else None
        if cached is not None and cached.scene is scene and cached.key == key and cached.filled and cached.surface is not None and cached.frame is not None:
            surface.blit(cached.surface, clip.topleft, area=clip)
            frame, labels = cached.frame, cached.labels
        else:
            frame, labels = _draw_static(surface, vp, scene, static, clip, previous)
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
            _layer[0].frame, _layer[0].labels = frame, labels
        _draw_marks(surface, vp, scene, options)
        if options.hovered is not None:
            frame = _draw_hover(surface, vp, scene, options.hovered, frame, labels, clip)
    finally:
        surface.set_clip(old_clip)
    return frame


def _apply_settings(options: DrawOptions) -> None:
    """Use ``options``' palette and UI scale (a new scale drops every cached pixel)."""
    set_palette(options.palette)
    if set_ui_scale(options.ui_scale):
        _reset_caches()


def _draw_hover(surface: pygame.Surface, vp: Viewport, scene: _Scene, hovered: str, frame: Frame, labels: dict[str, label_paint.Label], clip: pygame.Rect) -> Frame:
    """The hovered model's tooltip and its labels hidden for lack of room, laid over the frame."""
    tip = _tooltip(vp, scene, hovered)
    over: list[label_paint.Label] = []
    if tip is not None:
        over.append(tip)
    for hid in frame.layout.hidden:
        if frame.owners.get(hid) == hovered and hid in labels:
            lab = labels[hid]
            over.append(lab._replace(request=replace(lab.request, priority=lab.request.priority + label_paint.HOVER_BOOST)))
    return label_paint.place_over(surface, frame, over, clip, must=("tooltip",))


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


# The board with the buildings on it: what a settled view blits first while a template is dragged.
_under: list[_Pixels] = []


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


def _patches(layer: pygame.Surface) -> list[tuple[pygame.Rect, pygame.Surface]]:
    """The colour-keyed ``layer`` cut into one small colour-keyed sprite per connected group of its pixels."""
    out = []
    for rect in pygame.mask.from_surface(layer).get_bounding_rects():
        patch = pygame.Surface(rect.size, 0, layer)
        patch.fill(_KEY)
        patch.blit(layer, (0, 0), area=rect)
        patch.set_colorkey(_KEY, pygame.RLEACCEL)
        out.append((pygame.Rect(rect), patch))
    return out


def _draw_static(
    surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions, clip: pygame.Rect, previous: Layout | None
) -> tuple[Frame, dict[str, label_paint.Label]]:
    """Everything but selection and hover; returns the frame and its labels by id."""
    scene.names_drawn = False
    view = vp.visible_world_bounds()
    board_key = (vp, tuple(clip), surface.get_size(), surface.get_bitsize(), options.show_grid, scene.scenario.table, scene.terrain, backdrop_key())
    board, repeated = _pixels_for(_board, board_key)
    buildings, _ = _pixels_for(_buildings, board_key)
    under, _ = _pixels_for(_under, board_key)
    overlay = _overlay_for(surface.get_size())
    overlay.set_clip(clip)  # nothing may linger outside the area cleared below
    if under.surface is not None and buildings.surface is not None:
        # A settled view: the board with the buildings on it in one blit; the buildings go back on
        # top only where the terrain hits and the template tint were drawn over them.
        surface.blit(under.surface, clip.topleft, area=clip)
        redo = _draw_terrain_hits(surface, vp, scene, view, blocking=False)
        for area in _draw_template_fills(overlay, vp, scene, options, view):
            area = area.clip(clip)
            if area.width > 0 and area.height > 0:
                surface.blit(overlay, area.topleft, area=area)
                overlay.fill((0, 0, 0, 0), area)
                redo.append(area)
        if redo:
            # Whole patches: outside the redone areas the pixels are still the board with the
            # buildings on it, so putting a building back there changes nothing. (A part of the
            # full-screen run-length-encoded layer would cost more than all of it.)
            redo = _disjoint(redo)
            back = [(patch, rect.topleft) for rect, patch in under.patches if rect.collidelist(redo) >= 0]
            if back:
                surface.fblits(back)
    else:
        if board.surface is not None:
            surface.blit(board.surface, clip.topleft, area=clip)
        else:
            _draw_board(surface, vp, scene, options, clip, view)
            if repeated:
                board.surface = pygame.Surface(surface.get_size(), 0, surface)
                board.surface.blit(surface, clip.topleft, area=clip)
        _draw_terrain_hits(surface, vp, scene, view, blocking=False)
        for area in _draw_template_fills(overlay, vp, scene, options, view):
            area = area.clip(clip)
            if area.width > 0 and area.height > 0:
                surface.blit(overlay, area.topleft, area=area)
                overlay.fill((0, 0, 0, 0), area)
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
            if board.surface is not None and under.surface is None:
                under.surface = board.surface.copy()
                under.surface.blit(buildings.surface, (0, 0))
                under.patches = _patches(buildings.surface)
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
    labels: list[label_paint.Label] = []
    regions: list[tuple[int, int, int, int]] = [(r.x, r.y, r.w, r.h) for r in draw_checks(surface, vp, scene)] if scene.to_check else []
    if scene.art is not None:
        labels, over = _draw_ruleset_over(surface, vp, scene.art)
        regions += over
    if options.show_names:
        labels += _model_names(vp, scene, clip)
        labels += _terrain_labels(vp, scene, view)
    if options.show_rulers:
        ruler_key = (vp, tuple(clip), surface.get_size(), surface.get_bitsize(), scene.width, scene.depth)
        rulers, repeated = _pixels_for(_rulers, ruler_key)
        if rulers.patches:
            surface.fblits([(patch, rect) for rect, patch in rulers.patches])
            drawn = [rect for rect, _ in rulers.patches]
        else:
            drawn = _draw_rulers(surface, vp, scene, view)
            if repeated:
                # Everything a ruler draws is opaque, so its rects' pixels are the rulers alone.
                rulers.patches = [(r, surface.subsurface(r).copy()) for r in (d.clip(clip) for d in drawn) if r.width > 0 and r.height > 0]
        regions += [(r.x, r.y, r.w, r.h) for r in (pygame.Rect(d).clip(clip) for d in drawn) if r.w > 0 and r.h > 0]
    labels += _template_labels(vp, scene, view)
    if scene.art is not None:
        labels += _badge_labels(vp, scene, scene.art)
    regions += list(options.reserved)  # a slide's step words, laid out first
    panels: list[tuple[Overlay, pygame.Surface]] = []
    if options.show_title:
        title = _title_surface(scene)
        panels.append((Overlay("title", title.get_size(), "top_left"), title))
    if options.show_legend:
        legend = _legend_surface(scene, vp.scale)
        # Asked for (K, an export's option): shown in its corner over the table where it fits nowhere clear of a base.
        panels.append((Overlay("legend", legend.get_size(), "top_right", required=True), legend))
    sc = vp.to_screen_array(scene.centres) if len(scene.models) else np.zeros((0, 2))
    bases, marks = label_paint.bases_on_screen(sc, scene.radii * vp.scale, [m.id for m in scene.models], clip)
    foci = [vp.to_screen(*art.placed.focus) for art in scene.templates if _bbox_visible(art.bbox, view) and not (scene.art is not None and art.id in scene.art.replaced)]
    table = tuple(_screen_rect(vp, (0.0, 0.0, scene.width, scene.depth), pad=0))
    frame, by_id = label_paint.place_and_paint(surface, clip, table, labels, bases, marks, np.asarray(foci, dtype=float).reshape(-1, 2), panels, regions, previous, options.live)
    return frame, by_id
