"""Layer: the table, its grid and the terrain (pygame)."""

from __future__ import annotations

import math

import numpy as np
import pygame

from tabletop.draw.primitives import _fill_ring, _screen_rect
from tabletop.draw.scene import _Scene, _bbox_visible, _hatch_cached, _hatch_spacing, _is_big
from tabletop.draw.style import (
    ui_scale,
    BUILDING_EDGE,
    BUILDING_FILL,
    DrawOptions,
    GRID_MINOR,
    GRID_SIX,
    GRID_TWELVE,
    INCH,
    SOFT_EDGE,
    SOFT_FILL,
    SOFT_HATCH,
    STATUS_COLOURS,
    TABLE_EDGE,
    TABLE_FILL,
)
from tabletop.draw.labels import PRIORITY, Label
from tabletop.draw.text import _text
from tabletop.label_layout import LabelRequest
from tabletop.model import Terrain
from tabletop.viewport import Viewport, nice_grid_step


def _draw_table(surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions, view: tuple[float, float, float, float]) -> None:
    table = _screen_rect(vp, (0.0, 0.0, scene.width, scene.depth), pad=0)
    pygame.draw.rect(surface, TABLE_FILL, table)
    if options.show_grid:
        grid = scene.scenario.table.grid
        if grid:
            step = grid * max(1, math.ceil(12.0 / max(grid * vp.scale, 1e-9)))
        else:
            step = nice_grid_step(vp.scale)
        x_lo, y_lo = max(0.0, view[0]), max(0.0, view[1])
        x_hi, y_hi = min(scene.width, view[2]), min(scene.depth, view[3])
        top, bottom = table.top, table.bottom - 1
        left, right = table.left, table.right - 1
        for axis, lo, hi in ((0, x_lo, x_hi), (1, y_lo, y_hi)):
            if hi < lo:
                continue
            first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
            for k in range(max(first, 1), last + 1):
                pos = k * step
                if pos >= (scene.width if axis == 0 else scene.depth) - 1e-6:
                    continue
                inches = pos / INCH
                colour = GRID_MINOR
                if not grid:
                    if abs(inches / 12 - round(inches / 12)) < 1e-6:
                        colour = GRID_TWELVE
                    elif abs(inches / 6 - round(inches / 6)) < 1e-6:
                        colour = GRID_SIX
                width = 2 if colour == GRID_TWELVE else 1
                # fill() of a thin rect: several times faster than draw.line for long vertical lines.
                if axis == 0:
                    sx = int(round(vp.to_screen(pos, 0.0)[0]))
                    surface.fill(colour, (sx, top, width, bottom - top + 1))
                else:
                    sy = int(round(vp.to_screen(0.0, pos)[1]))
                    surface.fill(colour, (left, sy, right - left + 1, width))
    pygame.draw.rect(surface, TABLE_EDGE, table.inflate(4, 4), 2)


def _draw_terrain(
    surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions, view: tuple[float, float, float, float], blocking: bool
) -> None:
    """Terrain pieces whose ``blocks_los`` equals ``blocking``."""
    if not scene.terrain:
        return
    screen = vp.to_screen_array(scene.terrain_all)
    off = scene.terrain_offsets
    bb = scene.terrain_bbox
    shown = ~((bb[:, 2] < view[0]) | (bb[:, 0] > view[2]) | (bb[:, 3] < view[1]) | (bb[:, 1] > view[3]))
    spacing = _hatch_spacing(vp.scale, 10.0)
    edge_w = 2 if vp.scale > 0.3 else 1
    for i in np.nonzero(shown)[0].tolist():
        t = scene.terrain[i]
        if t.blocks_los != blocking:
            continue
        pts = screen[off[i] : off[i + 1]].tolist()
        big = _is_big(bb[i], vp)
        if t.blocks_los:
            if big:
                _fill_ring(surface, vp, scene.terrain_rings[i], BUILDING_FILL)
            else:
                pygame.draw.polygon(surface, BUILDING_FILL, pts)
            pygame.draw.polygon(surface, BUILDING_EDGE, pts, edge_w + 1)
        else:
            if big:
                _fill_ring(surface, vp, scene.terrain_rings[i], SOFT_FILL)
            else:
                pygame.draw.polygon(surface, SOFT_FILL, pts)
            hatch = _hatch_cached(scene.hatches, i, scene.terrain_polys[i], vp, spacing, -45.0)
            for a, b in vp.to_screen_array(hatch.reshape(-1, 2)).reshape(-1, 2, 2).tolist():
                pygame.draw.line(surface, SOFT_HATCH, a, b, 1)
            pygame.draw.polygon(surface, SOFT_EDGE, pts, edge_w)


def _draw_terrain_hits(surface: pygame.Surface, vp: Viewport, scene: _Scene, view: tuple[float, float, float, float], blocking: bool) -> list[pygame.Rect]:
    """The outline of terrain a template affects (kept off the cached layers); the rects drawn."""
    drawn: list[pygame.Rect] = []
    for i, t in enumerate(scene.terrain):
        if t.blocks_los == blocking and t.id in scene.terrain_hit and _bbox_visible(scene.terrain_bbox[i], view):
            pts = vp.to_screen_array(scene.terrain_rings[i]).tolist()
            drawn.append(pygame.draw.polygon(surface, STATUS_COLOURS["affected"], pts, 2))
    return drawn


def _terrain_labels(vp: Viewport, scene: _Scene, view: tuple[float, float, float, float]) -> list[Label]:
    """Terrain names at their centroids (or where the ruleset moved them), as label requests."""
    if not scene.terrain:
        return []
    name_at = tuple(sorted(scene.art.name_at.items())) if scene.art is not None and scene.art.name_at else ()
    key = (vp, scene.terrain, name_at, ui_scale())
    cached = _terrain_names[0] if _terrain_names else None
    if cached is not None and cached[0] == key:
        return cached[1]
    out: list[Label] = []
    centres = vp.to_screen_array(scene.terrain_centroids).tolist()
    if name_at:
        for i, t in enumerate(scene.terrain):
            if t.id in scene.art.name_at:
                centres[i] = list(vp.to_screen(*scene.art.name_at[t.id]))
    bb = scene.terrain_bbox
    size = 13 if vp.scale < 1.5 else 16
    for i, t in enumerate(scene.terrain):
        w_px = (bb[i, 2] - bb[i, 0]) * vp.scale
        if w_px < 30 or not _bbox_visible(bb[i], view):
            continue
        label = _text(t.label, size, (235, 235, 235), (30, 30, 34), bold=True)
        if label.get_width() > w_px * 1.6:
            continue
        x, y = centres[i]
        # Centred on the piece: the near ring's "below" slot at half the label's height above.
        h = label.get_height()
        req = LabelRequest(f"terrain:{t.id}", (x, y - h / 2 - 1), label.get_size(), PRIORITY["terrain"], ("below", "above", "right", "left"), 0.0, False, "terrain", t.label)
        out.append(Label(req, label))
    _terrain_names[:] = [(key, out)]
    return out


_terrain_names: list[tuple[tuple[object, ...], list[Label]]] = []
