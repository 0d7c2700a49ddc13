"""Writing a PNG: the table or the action around the templates fitted to the image (pygame)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pygame

from tabletop.adjudicate import Adjudication
from tabletop.draw.chrome import RULER_BAND, RULER_SIDE
from tabletop.draw.compose import _apply_settings, draw_scene
from tabletop.draw.frame import Frame
from tabletop.draw.legend import _legend_surface
from tabletop.draw.scene import _Scene, _scene
from tabletop.draw.style import DrawOptions, INCH
from tabletop.shapes import template_polygon
from tabletop.viewport import MAX_SCALE, MIN_SCALE, Viewport

if TYPE_CHECKING:
    from tabletop.odds import OddsResult


def render_png(
    adjudication: Adjudication,
    path: str | Path,
    size: tuple[int, int] = (1600, 1000),
    options: DrawOptions | None = None,
    region: str = "table",
    odds: OddsResult | None = None,
    layout_json: str | Path | None = None,
) -> Viewport:
    """Draw ``adjudication`` headless into a ``size`` image and save it as PNG at ``path``.

    ``region="table"`` fits the whole table; ``"action"`` zooms on the templates, where
    they scattered from and the models they affect. ``odds`` adds the odds overlay
    (heat map, landing points, chances). ``layout_json``: also write what was drawn (labels, bases,
    hidden count, in screen px; :meth:`Frame.to_json`) there. Returns the viewport drawn.
    """
    surface, vp, frame = render_frame(adjudication, size, options, region, odds)
    pygame.image.save(surface, str(path))
    if layout_json is not None:
        Path(layout_json).write_text(json.dumps(frame.to_json(), indent=1) + "\n", encoding="utf-8")
    return vp


def render_frame(
    adjudication: Adjudication,
    size: tuple[int, int] = (1600, 1000),
    options: DrawOptions | None = None,
    region: str = "table",
    odds: OddsResult | None = None,
) -> tuple[pygame.Surface, Viewport, Frame]:
    """:func:`render_png` without the file: the surface, the viewport and the :class:`Frame` drawn."""
    if region not in REGIONS:
        raise ValueError(f"region must be one of {', '.join(REGIONS)}, got {region!r}")
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    if not pygame.font.get_init():
        pygame.font.init()
    options = options or DrawOptions()
    _apply_settings(options)
    scene = _scene(adjudication)
    width, height = size
    table = adjudication.scenario.table
    box = (0.0, 0.0, table.width, table.depth)
    if region == "action":
        box = _action_box(scene) or box
        if odds is not None:
            landings = [(x, y) for t in odds.templates for x, y, p in t.landing_points if p > 0]
            if landings:
                xs, ys = zip(*landings)
                pad = 2 * INCH  # room for the landing discs and their labels
                box = (
                    max(0.0, min(box[0], min(xs) - pad)),
                    max(0.0, min(box[1], min(ys) - pad)),
                    min(table.width, max(box[2], max(xs) + pad)),
                    min(table.depth, max(box[3], max(ys) + pad)),
                )
    # Keep the table clear of the title band, the legend panel and the rulers.
    top = 70 if options.show_title else 8
    side, band = (RULER_SIDE + 4, RULER_BAND + 4) if options.show_rulers else (0, 0)

    def area_for(right: int) -> tuple[int, int, int, int]:
        return (side, top, max(1, width - side - right), max(1, height - top - band))

    right = _legend_surface(scene, 1.0).get_width() + 16 if options.show_legend else 0
    area = area_for(right)
    centre, scale = _fit_box(box, area, table.width, table.depth)
    if options.show_legend:
        legend_w = _legend_surface(scene, scale).get_width() + 16
        if legend_w != right:
            area = area_for(legend_w)
            centre, scale = _fit_box(box, area, table.width, table.depth)
    # The box's centre at the middle of the area left free.
    ax, ay = area[0] + area[2] / 2, area[1] + area[3] / 2
    vp = Viewport(centre, scale, (0, 0, width, height)).panned(ax - width / 2, ay - height / 2)
    surface = pygame.Surface(size)
    frame = draw_scene(surface, vp, adjudication, options)
    if odds is not None:
        from tabletop.draw.odds import draw_odds

        frame = draw_odds(surface, vp, adjudication.scenario, odds, frame=frame)
    return surface, vp, frame


REGIONS = ("table", "action")


#: Around the action: a fraction of its size, at least an inch; never a box under 4".
ACTION_MARGIN = 0.12


ACTION_MIN_MARGIN_MM = INCH


ACTION_MIN_SIZE_MM = 4 * INCH


def _action_box(scene: _Scene) -> tuple[float, float, float, float] | None:
    """World box of every template (final, also drawn, scatter origins) and the models and terrain they affect, with a margin."""
    boxes: list[Sequence[float]] = []
    for art in scene.templates:
        boxes.append(art.bbox)
        for g in art.ghosts:
            boxes.append(template_polygon(g, segments=32, outer=True).bounds)
        for path in art.paths:
            boxes.append((*path.min(axis=0), *path.max(axis=0)))
    if scene.art is not None:
        boxes.extend(scene.art.extent)
    if scene.terrain_hit:
        for k, t in enumerate(scene.terrain):
            if t.id in scene.terrain_hit:
                boxes.append(scene.terrain_bbox[k].tolist())
    affected = {m for r in scene.adjudication.results for m in r.resolution.affected}
    for model_id in affected:
        i = scene.model_index.get(model_id)
        if i is not None:
            (x, y), r = scene.centres[i], scene.radii[i]
            boxes.append((x - r, y - r, x + r, y + r))
    if not boxes:
        return None
    b = np.asarray(boxes, dtype=float)
    x0, y0, x1, y1 = float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max())
    margin = max(ACTION_MARGIN * max(x1 - x0, y1 - y0), ACTION_MIN_MARGIN_MM)
    x0, y0, x1, y1 = x0 - margin, y0 - margin, x1 + margin, y1 + margin
    for lo, hi, axis in ((x0, x1, 0), (y0, y1, 1)):
        grow = max(0.0, ACTION_MIN_SIZE_MM - (hi - lo)) / 2
        if axis == 0:
            x0, x1 = lo - grow, hi + grow
        else:
            y0, y1 = lo - grow, hi + grow
    x0, y0 = max(0.0, x0), max(0.0, y0)
    x1, y1 = min(scene.width, x1), min(scene.depth, y1)
    if x1 <= x0 or y1 <= y0:
        return None
    return (x0, y0, x1, y1)


def _fit_box(box: Sequence[float], area: tuple[int, int, int, int], width: float, depth: float, margin_px: int = 12) -> tuple[tuple[float, float], float]:
    """(world centre, scale) showing ``box`` in ``area``, kept on the table when the view is smaller than it."""
    x0, y0, x1, y1 = box
    usable_w, usable_h = max(1, area[2] - 2 * margin_px), max(1, area[3] - 2 * margin_px)
    scale = min(usable_w / max(x1 - x0, 1e-9), usable_h / max(y1 - y0, 1e-9))
    scale = min(MAX_SCALE, max(MIN_SCALE, scale))
    centre = []
    for lo, hi, size, px in ((x0, x1, width, area[2]), (y0, y1, depth, area[3])):
        c = (lo + hi) / 2
        half = (px - 2 * margin_px) / scale / 2
        # The view is wider than the box: spend the slack on the table, not on the void past its edge.
        c = size / 2 if 2 * half >= size else min(max(c, half), size - half)
        centre.append(c)
    return (centre[0], centre[1]), scale
