"""What a rendered picture holds besides the table, shared by the PNG and the SVG writers. Pure: no pygame.

The view fitted to the table or the action (:func:`fit_box`, :func:`action_box`), the title panel's
two lines (:func:`title_lines`) and the legend's rows (:func:`legend_rows`, :func:`scale_bar`): the
PNG renders these strings with pygame fonts, the SVG writes them as text, so both say the same.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tabletop.draw.scene import _Scene, _inch_label
from tabletop.draw.style import CHECK_COLOUR, CONTESTED_COLOUR, INCH, SHADOW_FILL, STATUS_COLOURS, Colour, side_colour
from tabletop.marks import NULLIFIED
from tabletop.shapes import template_polygon
from tabletop.viewport import MAX_SCALE, MIN_SCALE

#: Around the action: a fraction of its size, at least an inch; never a box under 4".
ACTION_MARGIN = 0.12
ACTION_MIN_MARGIN_MM = INCH
ACTION_MIN_SIZE_MM = 4 * INCH


def action_box(scene: _Scene) -> tuple[float, float, float, float] | None:
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


def fit_box(box: Sequence[float], area: tuple[int, int, int, int], width: float, depth: float, margin_px: int = 12) -> tuple[tuple[float, float], float]:
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


def title_lines(scene: _Scene) -> tuple[str, str]:
    """The title and the line under it (ruleset, templates, models affected, tolerance, seed)."""
    from tabletop import rulesets

    s = scene.scenario
    adj = scene.adjudication
    try:
        ruleset = rulesets.get(s.ruleset).title
    except Exception:
        ruleset = s.ruleset
    n_aff = len({m for r in adj.results if r.resolution.allowed for m in r.resolution.affected})
    templates = len(adj.results)
    line = (
        f"ruleset: {s.ruleset} ({ruleset})  |  {templates} template{'s' if templates != 1 else ''}, "
        f"{n_aff} model{'s' if n_aff != 1 else ''} affected  |  tolerance {adj.tolerance_mm:g} mm  |  seed {adj.seed}"
    )
    return (s.title or "Untitled table", line)


def legend_rows(scene: _Scene) -> tuple[list[tuple[str, str, Colour]], list[tuple[str, str, Colour]]]:
    """The legend's (kind, text, colour) rows: statuses and the ruleset's entries, then the sides."""
    rows: list[tuple[str, str, Colour]] = [
        ("affected", "affected (cross)", STATUS_COLOURS["affected"]),
        ("total_cover", "total cover (hatched)", STATUS_COLOURS["total_cover"]),
        ("fill", "outside (plain)", STATUS_COLOURS["outside"]),
        ("fill", "user (attacker)", STATUS_COLOURS["user"]),
        ("contested", "contested (dashed ring)", CONTESTED_COLOUR),
    ]
    if any(a.shadow for a in scene.templates):
        rows.append(("shadow", "hidden from the blast focus", SHADOW_FILL))
    if any(not a.allowed for a in scene.templates):
        rows.append(("null", "not allowed / nullified", NULLIFIED))
    if scene.terrain_hit:
        rows.append(("terrain", "terrain under a template", STATUS_COLOURS["affected"]))
    if scene.to_check:
        rows.append(("check", "not sure (photo): check it", CHECK_COLOUR))
    rows.extend(tuple(scene.art.legend) if scene.art is not None else ())
    side_rows = [("side", side if side is not None else "(no side)", side_colour(side)) for side in scene.sides[:12]]
    return rows, side_rows


def scale_bar(scale: float) -> tuple[float, int, str]:
    """The legend's scale bar at ``scale`` px/mm: its length in inches, in px, and its label."""
    bar_in = 1.0
    for inches in (0.25, 0.5, 1, 2, 3, 6, 12, 24, 48):
        bar_in = inches
        if inches * INCH * scale >= 70:
            break
    return bar_in, int(round(bar_in * INCH * scale)), f"{_inch_label(bar_in)} ({bar_in * INCH:g} mm)"


def hidden_words(count: int, live: bool) -> str:
    """The "+n labels hidden" note's words: in the app, how to see them; on a still, why they are missing."""
    hidden = f"+{count} label{'s' if count != 1 else ''} hidden"
    return f"{hidden} · hover a model or zoom in" if live else f"{hidden}: no room at this size"
