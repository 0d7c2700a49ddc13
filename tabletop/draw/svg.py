"""Writing an SVG: the same drawing as the PNG, as vectors, crisp at any zoom. Pure: no pygame.

The table, grid, terrain, templates (with the region the blast focus sees and its shadows,
scatter paths and ghosts), bases coloured by status with their side rings and names, and the
ruleset's marks (tints, hatching, strokes, arrows, roses, cells, tags, badges). Every base is a
group whose ``id`` is the model's id and every template one whose ``id`` is the template's
(the scenario contract; terrain likewise; a template id that a model or terrain piece already
uses becomes ``template.<id>``, an extra drawn template ``<id>.<n>``: scenario ids hold no "."), so a rules FAQ can link or style them;
the drawing's own elements are ``tabletop.*``, which no scenario id can be. Geometry comes from the pure scene (``scene.py``) through the same
:class:`~tabletop.viewport.Viewport` transform as the PNG.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from tabletop.adjudicate import Adjudication
from tabletop.draw.scene import _scene, _Scene
from tabletop.draw.style import (
    BACKGROUND,
    BUILDING_EDGE,
    BUILDING_FILL,
    CONTESTED_COLOUR,
    GRID_MINOR,
    GRID_SIX,
    GRID_TWELVE,
    INCH,
    SCATTER,
    SHADOW_FILL,
    SOFT_EDGE,
    SOFT_FILL,
    STATUS_COLOURS,
    TABLE_EDGE,
    TABLE_FILL,
    TEMPLATE_FILL,
    Colour,
    DrawOptions,
    _STATUS_WORDS,
)
from tabletop.marks import BADGE_BACK, ROSE, ROSE_HOT, TEMPLATE_EDGE, TEXT, Marks
from tabletop.model import PlacedTemplate
from tabletop.scenario_io import atomic_write
from tabletop.shapes import base_outline, template_polygon
from tabletop.viewport import Viewport

REGIONS = ("table", "action")
FONT = "Noto Sans, DejaVu Sans, Arial, sans-serif"
_TITLE_BAND = 56


def _rgb(c: Colour) -> str:
    return f"#{c[0]:02x}{c[1]:02x}{c[2]:02x}"


def _pts(points: np.ndarray) -> str:
    return " ".join(f"{x:.2f},{y:.2f}" for x, y in np.asarray(points, dtype=float).reshape(-1, 2))


def _path(rings: Iterable[np.ndarray]) -> str:
    """An SVG path of closed rings (holes cut with the even-odd rule)."""
    parts = []
    for ring in rings:
        r = np.asarray(ring, dtype=float).reshape(-1, 2)
        if len(r) >= 3:
            parts.append("M" + " L".join(f"{x:.2f},{y:.2f}" for x, y in r) + " Z")
    return " ".join(parts)


def _poly_path(vp: Viewport, polys: Sequence[object]) -> str:
    """Path data of the scene's fillable polygons (exterior and holes)."""
    rings: list[np.ndarray] = []
    for p in polys:
        geom = p.geom  # type: ignore[attr-defined]
        rings.append(vp.to_screen_array(np.asarray(geom.exterior.coords)[:-1]))
        for hole in geom.interiors:
            rings.append(vp.to_screen_array(np.asarray(hole.coords)[:-1]))
    return _path(rings)


def _text(x: float, y: float, s: str, size: float, colour: Colour = TEXT, anchor: str = "middle", bold: bool = False, halo: bool = True) -> str:
    weight = ' font-weight="bold"' if bold else ""
    stroke = ' stroke="#101216" stroke-width="3" paint-order="stroke" stroke-linejoin="round"' if halo else ""
    return (
        f'<text x="{x:.2f}" y="{y:.2f}" font-size="{size:.1f}" text-anchor="{anchor}" fill="{_rgb(colour)}"{weight}{stroke}>'
        f"{escape(s)}</text>"
    )


def _fit(box: Sequence[float], area: tuple[int, int, int, int], margin_px: int = 12) -> Viewport:
    x0, y0, x1, y1 = box
    w, h = max(1, area[2] - 2 * margin_px), max(1, area[3] - 2 * margin_px)
    scale = min(w / max(x1 - x0, 1e-9), h / max(y1 - y0, 1e-9))
    return Viewport(((x0 + x1) / 2, (y0 + y1) / 2), scale, area)


def _action_box(scene: _Scene) -> tuple[float, float, float, float]:
    """The templates (and where they scattered from) and the models they affect, with a margin."""
    boxes: list[Sequence[float]] = [t.bbox for t in scene.templates]
    for t in scene.templates:
        for path in t.paths:
            boxes.append((*path.min(axis=0), *path.max(axis=0)))
    affected = {m for r in scene.adjudication.results for m in r.resolution.affected}
    for mid in affected:
        i = scene.model_index.get(mid)
        if i is not None:
            (x, y), r = scene.centres[i], scene.radii[i]
            boxes.append((x - r, y - r, x + r, y + r))
    if not boxes:
        return (0.0, 0.0, scene.width, scene.depth)
    b = np.asarray(boxes, dtype=float)
    x0, y0, x1, y1 = float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max())
    pad = max(INCH, 0.12 * max(x1 - x0, y1 - y0))
    return (max(0.0, x0 - pad), max(0.0, y0 - pad), min(scene.width, x1 + pad), min(scene.depth, y1 + pad))


def svg_document(
    adjudication: Adjudication,
    size: tuple[int, int] = (1600, 1000),
    options: DrawOptions | None = None,
    region: str = "table",
) -> str:
    """The SVG text of ``adjudication`` drawn into a ``size`` picture (``region``: table or action)."""
    if region not in REGIONS:
        raise ValueError(f"region must be one of {', '.join(REGIONS)}, got {region!r}")
    options = options or DrawOptions()
    scene = _scene(adjudication)
    width, height = size
    top = _TITLE_BAND if options.show_title else 8
    legend_w = _legend_width(scene.art) + 4 if options.show_legend else 0
    area = (8, top, max(1, width - 16 - legend_w), max(1, height - top - 8))
    box = _action_box(scene) if region == "action" else (0.0, 0.0, scene.width, scene.depth)
    vp = _fit(box, area)
    s = vp.scale
    out: list[str] = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{FONT}">',
        f"<title>{escape(scene.scenario.title or 'Tabletop')}</title>",
        f'<rect id="tabletop.background" x="0" y="0" width="{width}" height="{height}" fill="{_rgb(BACKGROUND)}"/>',
        f'<clipPath id="tabletop.view"><rect x="{area[0]}" y="{area[1]}" width="{area[2]}" height="{area[3]}"/></clipPath>',
        '<g clip-path="url(#tabletop.view)">',
    ]
    out += _table(scene, vp, options)
    out += _terrain(scene, vp, options)
    art = scene.art
    if art is not None:
        out += _tints_and_hatches(art, vp)
    out += _templates(scene, vp, options, art)
    if art is not None:
        out += _marks_under(art, vp)
    out += _models(scene, vp, options)
    if art is not None:
        out += _marks_over(art, vp, s, _base_boxes(scene, vp), area)
    out += _template_labels(scene, vp)
    out.append("</g>")
    if options.show_title:
        title = scene.scenario.title or "Untitled table"
        out.append(_text(12, 30, title, 22, anchor="start", bold=True, halo=False))
        out.append(_text(12, 48, f"ruleset {scene.scenario.ruleset} · seed {adjudication.seed}", 13, (190, 196, 200), anchor="start", halo=False))
    if options.show_legend:
        out += _legend(scene, art, width - legend_w - 4, top)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def render_svg(
    adjudication: Adjudication,
    path: str | Path,
    size: tuple[int, int] = (1600, 1000),
    options: DrawOptions | None = None,
    region: str = "table",
) -> Viewport | None:
    """Write ``adjudication`` as an SVG file at ``path`` (atomically); the same picture as ``render_png``."""
    atomic_write(path, svg_document(adjudication, size, options, region).encode("utf-8"))
    return None


# --------------------------------------------------------------------------- layers


def _table(scene: _Scene, vp: Viewport, options: DrawOptions) -> list[str]:
    (x0, y1), (x1, y0) = vp.to_screen(0.0, 0.0), vp.to_screen(scene.width, scene.depth)
    out = [f'<rect id="tabletop.table" x="{x0:.2f}" y="{y0:.2f}" width="{x1 - x0:.2f}" height="{y1 - y0:.2f}" fill="{_rgb(TABLE_FILL)}"/>']
    if options.show_grid:
        grid = scene.scenario.table.grid
        step = grid if grid else INCH
        lines: dict[Colour, list[str]] = {}
        for axis, extent in ((0, scene.width), (1, scene.depth)):
            k = 1
            while k * step < extent - 1e-6:
                pos = k * step
                inches = pos / INCH
                colour = GRID_MINOR
                if not grid and abs(inches / 12 - round(inches / 12)) < 1e-6:
                    colour = GRID_TWELVE
                elif not grid and abs(inches / 6 - round(inches / 6)) < 1e-6:
                    colour = GRID_SIX
                if axis == 0:
                    sx = vp.to_screen(pos, 0.0)[0]
                    lines.setdefault(colour, []).append(f"M{sx:.2f},{y0:.2f} V{y1:.2f}")
                else:
                    sy = vp.to_screen(0.0, pos)[1]
                    lines.setdefault(colour, []).append(f"M{x0:.2f},{sy:.2f} H{x1:.2f}")
                k += 1
        for colour in (GRID_MINOR, GRID_SIX, GRID_TWELVE):
            if colour in lines:
                w = 2 if colour == GRID_TWELVE else 1
                out.append(f'<path class="grid" d="{" ".join(lines[colour])}" stroke="{_rgb(colour)}" stroke-width="{w}" fill="none"/>')
    out.append(f'<rect x="{x0 - 2:.2f}" y="{y0 - 2:.2f}" width="{x1 - x0 + 4:.2f}" height="{y1 - y0 + 4:.2f}" fill="none" stroke="{_rgb(TABLE_EDGE)}" stroke-width="2"/>')
    return out


def _terrain(scene: _Scene, vp: Viewport, options: DrawOptions) -> list[str]:
    out = [
        '<defs><pattern id="tabletop.soft-hatch" width="9" height="9" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        f'<line x1="0" y1="0" x2="0" y2="9" stroke="{_rgb(SOFT_EDGE)}" stroke-width="1"/></pattern>'
        '<pattern id="tabletop.shadow-hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">'
        '<line x1="0" y1="0" x2="0" y2="8" stroke="#7882aa" stroke-width="1"/></pattern></defs>'
    ]
    hit = scene.terrain_hit
    # Open terrain first (under the templates' tint), buildings on top, as in the PNG.
    for blocking in (False, True):
        for k, t in enumerate(scene.terrain):
            if t.blocks_los != blocking:
                continue
            ring = _pts(vp.to_screen_array(scene.terrain_rings[k]))
            edge = (255, 150, 60) if t.id in hit else (BUILDING_EDGE if blocking else SOFT_EDGE)
            fill = BUILDING_FILL if blocking else SOFT_FILL
            out.append(f'<g id={quoteattr(t.id)} class="terrain">')
            out.append(f'<polygon points="{ring}" fill="{_rgb(fill)}" stroke="{_rgb(edge)}" stroke-width="2"/>')
            if not blocking:
                out.append(f'<polygon points="{ring}" fill="url(#tabletop.soft-hatch)" stroke="none"/>')
            if options.show_names:
                cx, cy = vp.to_screen(*scene.terrain_centroids[k])
                if scene.art is not None and t.id in scene.art.name_at:
                    cx, cy = vp.to_screen(*scene.art.name_at[t.id])
                out.append(_text(cx, cy + 5, t.label, 13, (230, 230, 225)))
            out.append("</g>")
    return out


def _tints_and_hatches(art: Marks, vp: Viewport) -> list[str]:
    out = ['<g class="ruleset-tints">']
    for tint in art.tints:
        (x0, y1), (x1, y0) = vp.to_screen(tint.box[0], tint.box[1]), vp.to_screen(tint.box[2], tint.box[3])
        out.append(
            f'<rect x="{x0:.2f}" y="{y0:.2f}" width="{x1 - x0:.2f}" height="{y1 - y0:.2f}" fill="{_rgb(tint.colour)}" fill-opacity="{tint.alpha / 255:.3f}"/>'
        )
    for hatch in art.hatches:
        segs = vp.to_screen_array(hatch.segments.reshape(-1, 2)).reshape(-1, 2, 2)
        d = " ".join(f"M{a[0]:.2f},{a[1]:.2f} L{b[0]:.2f},{b[1]:.2f}" for a, b in segs)
        if d:
            out.append(f'<path d="{d}" stroke="{_rgb(hatch.colour)}" stroke-width="1" fill="none"/>')
    out.append("</g>")
    return out


def _outline(placed: PlacedTemplate, vp: Viewport) -> np.ndarray:
    segments = 256 if placed.shape.reach * vp.scale < 400 else 1024
    return vp.to_screen_array(np.asarray(template_polygon(placed, segments=segments).exterior.coords)[:-1])


def _arrow_path(a: tuple[float, float], b: tuple[float, float], head: float = 12.0) -> str:
    ang = math.atan2(b[1] - a[1], b[0] - a[0])
    l = (b[0] - head * math.cos(ang - 0.45), b[1] - head * math.sin(ang - 0.45))
    r = (b[0] - head * math.cos(ang + 0.45), b[1] - head * math.sin(ang + 0.45))
    return f"M{a[0]:.2f},{a[1]:.2f} L{b[0]:.2f},{b[1]:.2f} M{l[0]:.2f},{l[1]:.2f} L{b[0]:.2f},{b[1]:.2f} L{r[0]:.2f},{r[1]:.2f}"


def _templates(scene: _Scene, vp: Viewport, options: DrawOptions, art: Marks | None) -> list[str]:
    out: list[str] = []
    alpha = max(0.05, min(1.0, options.template_alpha / 255 * 1.6))
    replaced = art.replaced if art is not None else set()
    taken = {m.id for m in scene.models} | {p.id for p in scene.scenario.terrain}
    for t in scene.templates:
        element_id = t.id if t.id not in taken else f"template.{t.id}"  # "." is in no scenario id
        out.append(f'<g id={quoteattr(element_id)} class="template" data-template={quoteattr(t.id)}>')
        if t.id not in replaced:
            if options.show_visibility and t.visible is not None:
                out.append(f'<path d="{_poly_path(vp, t.visible)}" fill="{_rgb(TEMPLATE_FILL)}" fill-opacity="{alpha:.3f}" fill-rule="evenodd"/>')
                if t.shadow:
                    d = _poly_path(vp, t.shadow)
                    out.append(f'<path class="shadow" d="{d}" fill="{_rgb(SHADOW_FILL)}" fill-opacity="0.45" fill-rule="evenodd"/>')
                    out.append(f'<path d="{d}" fill="url(#tabletop.shadow-hatch)" fill-rule="evenodd"/>')
            else:
                out.append(f'<path d="{_poly_path(vp, t.fill)}" fill="{_rgb(TEMPLATE_FILL)}" fill-opacity="{alpha:.3f}" fill-rule="evenodd"/>')
            edge = TEMPLATE_EDGE if t.allowed else (235, 40, 40)
            out.append(f'<polygon class="outline" points="{_pts(_outline(t.placed, vp))}" fill="none" stroke="{_rgb(edge)}" stroke-width="2.5"/>')
            fx, fy = vp.to_screen(*t.placed.focus)
            out.append(f'<circle class="focus" cx="{fx:.2f}" cy="{fy:.2f}" r="4" fill="{_rgb(TEMPLATE_EDGE)}" stroke="#101216"/>')
        elif art is not None and t.id in art.outlines:
            out.append(f'<polygon class="outline" points="{_pts(vp.to_screen_array(art.outlines[t.id]))}" fill="none" stroke="{_rgb(TEMPLATE_EDGE)}" stroke-width="2"/>')
        for ghost in t.ghosts:
            out.append(f'<polygon class="ghost" points="{_pts(_outline(ghost, vp))}" fill="none" stroke="{_rgb(SCATTER)}" stroke-width="1.5" stroke-dasharray="8 6" opacity="0.7"/>')
        for path in t.paths:
            a, b = vp.to_screen(*path[0]), vp.to_screen(*path[1])
            out.append(f'<path class="scatter" d="{_arrow_path(a, b, 16)}" stroke="{_rgb(SCATTER)}" stroke-width="3" fill="none" stroke-linecap="round"/>')
        if t.cross is not None:
            d = " ".join(f"M{a[0]:.2f},{a[1]:.2f} L{b[0]:.2f},{b[1]:.2f}" for a, b in vp.to_screen_array(t.cross.reshape(-1, 2)).reshape(-1, 2, 2))
            out.append(f'<path class="nullified" d="{d}" stroke="#eb2828" stroke-width="4" fill="none"/>')
        out.append("</g>")
        for k, other in enumerate(t.also, start=1):
            out.append(f'<g id={quoteattr(f"{element_id}.{k}")} class="template also" data-template={quoteattr(t.id)}>')
            out.append(f'<polygon class="outline" points="{_pts(_outline(other, vp))}" fill="{_rgb(TEMPLATE_FILL)}" fill-opacity="{alpha / 2:.3f}" stroke="{_rgb(TEMPLATE_EDGE)}" stroke-width="2"/>')
            out.append("</g>")
    return out


def _template_labels(scene: _Scene, vp: Viewport) -> list[str]:
    out: list[str] = []
    for t in scene.templates:
        x0, y0, x1, y1 = t.bbox
        cx, top = vp.to_screen((x0 + x1) / 2, y1)
        out.append(f'<g class="template-label" data-template={quoteattr(t.id)}>')
        out.append(_text(cx, top - 22, t.label, 16, bold=True))
        out.append(_text(cx, top - 6, t.sublabel if t.allowed else f"{t.sublabel} — not allowed", 12, (230, 230, 225) if t.allowed else (255, 120, 110)))
        out.append("</g>")
    return out


def _models(scene: _Scene, vp: Viewport, options: DrawOptions) -> list[str]:
    out: list[str] = []
    s = vp.scale
    for i, m in enumerate(scene.models):
        fill, ring = scene.fills[i], scene.rings[i]
        status = "outside"
        for name, colour in STATUS_COLOURS.items():
            if colour == fill:
                status = name
        out.append(f'<g id={quoteattr(m.id)} class="model" data-status="{status}">')
        out.append(f"<title>{escape(m.label)}: {_STATUS_WORDS.get(status, status)}</title>")
        if scene.round_mask[i]:
            cx, cy = vp.to_screen(m.x, m.y)
            r = scene.radii[i] * s
            shape = f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="{r:.2f}"'
        else:
            ring_pts = vp.to_screen_array(base_outline(m.base, m.x, m.y, m.facing, segments=96))
            shape = f'<polygon points="{_pts(ring_pts)}"'
        out.append(f'{shape} fill="{_rgb(fill)}" stroke="{_rgb(ring)}" stroke-width="3"/>')
        if scene.contested[i]:
            out.append(f'{shape} fill="none" stroke="{_rgb(CONTESTED_COLOUR)}" stroke-width="2" stroke-dasharray="5 4"/>')
        # Facing tick: where the model looks.
        cx, cy = vp.to_screen(m.x, m.y)
        r = scene.radii[i] * s
        a = math.radians(m.facing)
        out.append(
            f'<line x1="{cx:.2f}" y1="{cy:.2f}" x2="{cx + r * math.cos(a):.2f}" y2="{cy - r * math.sin(a):.2f}" stroke="#101216" stroke-width="2"/>'
        )
        if options.show_names:
            out.append(_text(cx, cy + r + 14, m.label, 12))
        out.append("</g>")
    return out


def _marks_under(art: Marks, vp: Viewport) -> list[str]:
    return [_stroke(st, vp) for st in art.strokes if not st.above]


def _stroke(st: object, vp: Viewport) -> str:
    pts = vp.to_screen_array(st.points)  # type: ignore[attr-defined]
    tag = "polygon" if st.closed else "polyline"  # type: ignore[attr-defined]
    dash = ' stroke-dasharray="8 6"' if st.dashed else ""  # type: ignore[attr-defined]
    return f'<{tag} points="{_pts(pts)}" fill="none" stroke="{_rgb(st.colour)}" stroke-width="{st.width}"{dash}/>'  # type: ignore[attr-defined]


Box = tuple[float, float, float, float]  # screen x0, y0, x1, y1


def _base_boxes(scene: _Scene, vp: Viewport) -> list[Box]:
    """Screen boxes of the bases with their names under them: where badges should not go."""
    out: list[Box] = []
    for i, m in enumerate(scene.models):
        x, y = vp.to_screen(m.x, m.y)
        r = scene.radii[i] * vp.scale + 3
        out.append((x - r, y - r, x + r, y + r + 18))
    return out


def _overlaps(a: Box, boxes: list[Box]) -> bool:
    return any(a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3] for b in boxes)


def _inside(box: Box, area: Box) -> Box:
    dx = max(0.0, area[0] - box[0]) - max(0.0, box[2] - area[2])
    dy = max(0.0, area[1] - box[1]) - max(0.0, box[3] - area[3])
    return (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy)


def _badge_spot(anchor: tuple[float, float], clear_px: float, w: float, h: float, prefer: str, taken: list[Box], area: Box) -> Box:
    """The first of right, left, above, below the anchor (the badge's preferred side first), kept in
    ``area``, clear of ``taken``."""
    x, y = anchor
    gap = clear_px + 8
    spots = {
        "right": (x + gap, y - h / 2),
        "left": (x - gap - w, y - h / 2),
        "above": (x - w / 2, y - gap - h),
        "below": (x - w / 2, y + gap),
    }
    order = [prefer] + [k for k in ("right", "left", "above", "below") if k != prefer] if prefer in spots else list(spots)
    for step in (0.0, 1.0, 2.0):  # then the same sides a little further out
        for side in order:
            sx, sy = spots[side]
            dx = {"right": 1, "left": -1}.get(side, 0) * step * w / 2
            dy = {"above": -1, "below": 1}.get(side, 0) * step * h
            box = _inside((sx + dx, sy + dy, sx + dx + w, sy + dy + h), area)
            if not _overlaps(box, taken):
                return box
    sx, sy = spots[order[0]]
    return _inside((sx, sy, sx + w, sy + h), area)


def _marks_over(art: Marks, vp: Viewport, scale: float, taken: list[Box] | None = None, area: tuple[int, int, int, int] | None = None) -> list[str]:
    out = ['<g class="ruleset-marks">']
    out += [_stroke(st, vp) for st in art.strokes if st.above]
    for arrow in art.arrows:
        ax, ay = arrow.a
        bx, by = arrow.b
        d = math.hypot(bx - ax, by - ay) or 1.0
        ux, uy = (bx - ax) / d, (by - ay) / d
        a = vp.to_screen(ax + ux * arrow.trim_a, ay + uy * arrow.trim_a)
        b = vp.to_screen(bx - ux * arrow.trim_b, by - uy * arrow.trim_b)
        d_attr = _arrow_path(a, b) if arrow.head else f"M{a[0]:.2f},{a[1]:.2f} L{b[0]:.2f},{b[1]:.2f}"
        out.append(f'<path d="{d_attr}" stroke="{_rgb(arrow.colour)}" stroke-width="3" fill="none" stroke-linecap="round"/>')
        if arrow.tag:
            out.append(_text((a[0] + b[0]) / 2, (a[1] + b[1]) / 2 - 6, arrow.tag, 12, arrow.colour))
    for rose in art.roses:
        cx, cy = vp.to_screen(*rose.centre)
        length = max(40.0, min(120.0, 0.62 * rose.reach * scale))
        for k in range(1, 7):
            h = math.radians(rose.first - 60.0 * (k - 1))
            ux, uy = math.cos(h), -math.sin(h)
            hot = k in rose.rolled
            colour = ROSE_HOT if hot else ROSE
            out.append(f'<path d="{_arrow_path((cx + ux * 12, cy + uy * 12), (cx + ux * length, cy + uy * length), 10)}" stroke="{_rgb(colour)}" stroke-width="{4 if hot else 2}" fill="none"/>')
            dx, dy = cx + ux * (length + 12), cy + uy * (length + 12)
            out.append(f'<circle cx="{dx:.2f}" cy="{dy:.2f}" r="10" fill="{_rgb(ROSE_HOT) if hot else "#343842"}" stroke="#0f0f0f"/>')
            out.append(_text(dx, dy + 5, str(k), 13, (15, 15, 15) if hot else TEXT, bold=True, halo=False))
    for cell in art.cells:
        cx, cy = vp.to_screen(*cell.centre)
        side = cell.side * scale
        if side >= 14:
            out.append(_text(cx, cy + min(side * 0.3, 6), cell.text, min(16.0, side * 0.5), (20, 20, 20) if cell.dark else TEXT, halo=False))
    for tag in art.tags:
        x, y = vp.to_screen(*tag.point)
        out.append(_text(x, y + 5, tag.text, 13, tag.colour, bold=True))
    taken = list(taken or [])
    for rose in art.roses:
        cx, cy = vp.to_screen(*rose.centre)
        reach = max(40.0, min(120.0, 0.62 * rose.reach * scale)) + 24
        taken.append((cx - reach, cy - reach, cx + reach, cy + reach))
    bounds: Box = (-1e9, -1e9, 1e9, 1e9) if area is None else (area[0] + 4, area[1] + 4, area[0] + area[2] - 4, area[1] + area[3] - 4)
    for badge in sorted(art.badges, key=lambda b: -b.priority):
        lines = [ln for ln in badge.lines if ln[0]]
        if not lines:
            continue
        ax, ay = vp.to_screen(*badge.anchor)
        w = 10 + 6.9 * max(len(t) for t, _ in lines)
        h = 6 + 16 * len(lines)
        x0, y0, x1, y1 = _badge_spot((ax, ay), max(badge.clear * scale, badge.clear_px), w, h, badge.prefer, taken, bounds)
        taken.append((x0, y0, x1, y1))
        if badge.leader and not (x0 - 30 <= ax <= x1 + 30 and y0 - 30 <= ay <= y1 + 30):
            nx, ny = min(max(ax, x0), x1), min(max(ay, y0), y1)
            out.append(f'<line x1="{ax:.2f}" y1="{ay:.2f}" x2="{nx:.2f}" y2="{ny:.2f}" stroke="{_rgb(badge.accent)}" stroke-width="1"/>')
        out.append(f'<rect x="{x0:.2f}" y="{y0:.2f}" width="{w:.1f}" height="{h}" rx="4" fill="{_rgb(BADGE_BACK)}" fill-opacity="0.85" stroke="{_rgb(badge.accent)}"/>')
        for k, (text, colour) in enumerate(lines):
            out.append(_text(x0 + 5, y0 + 16 + 16 * k, text, 12, colour, anchor="start", halo=False))
    out.append("</g>")
    return out


def _legend_width(art: Marks | None) -> int:
    longest = max([12, *(len(e.text[:44]) for e in (art.legend if art is not None else []))])
    return int(44 + 7 * longest)


def _legend(scene: _Scene, art: Marks | None, x: float, y: float) -> list[str]:
    entries: list[tuple[str, Colour]] = [(_STATUS_WORDS.get(s, s), STATUS_COLOURS[s]) for s in ("affected", "total_cover", "user", "outside") if s in scene.statuses or s == "outside"]
    extra = [(e.text, e.colour) for e in (art.legend if art is not None else [])]
    rows = entries + extra
    h = 12 + 20 * len(rows)
    w = _legend_width(art)
    out = [f'<g id="tabletop.legend"><rect x="{x:.1f}" y="{y:.1f}" width="{w}" height="{h}" rx="6" fill="#101216" fill-opacity="0.82"/>']
    for k, (text, colour) in enumerate(rows):
        cy = y + 18 + 20 * k
        out.append(f'<rect x="{x + 10:.1f}" y="{cy - 9:.1f}" width="14" height="14" fill="{_rgb(colour)}"/>')
        out.append(_text(x + 32, cy + 3, text[:44], 12, anchor="start", halo=False))
    out.append("</g>")
    return out
