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
from typing import NamedTuple
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from tabletop.adjudicate import Adjudication
from tabletop.draw.plan import action_box, fit_box, legend_rows, scale_bar, title_lines
from tabletop.draw.scene import _Scene, _inch_label, _scene, _top_middle
from tabletop.draw.style import (
    PATTERN_INK,
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
from tabletop.label_layout import LabelRequest, Overlay, Placement, Rect, base_boxes, dock_overlays, layout_labels
from tabletop.marks import BADGE_BACK, ROSE, ROSE_HOT, TEMPLATE_EDGE, TEXT, TEXT_DIM, Marks
from tabletop.model import PlacedTemplate
from tabletop.scenario_io import atomic_write
from tabletop.shapes import base_outline, template_polygon
from tabletop.viewport import Viewport, nice_grid_step

REGIONS = ("table", "action")
FONT = "Noto Sans, DejaVu Sans, Arial, sans-serif"


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
    vp = _viewport(scene, size, options, region)
    s = vp.scale
    out: list[str] = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{FONT}">',
        f"<title>{escape(scene.scenario.title or 'Tabletop')}</title>",
        f'<rect id="tabletop.background" x="0" y="0" width="{width}" height="{height}" fill="{_rgb(BACKGROUND)}"/>',
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
    regions: list[Rect] = []
    if art is not None:
        marks, discs = _marks_over(art, vp, s)
        out += marks
        regions += discs
    if options.show_rulers:
        ruler_svg, ruler_rects = _rulers(scene, vp)
        out += ruler_svg
        regions += ruler_rects
    labels, chrome = _texts(scene, vp, options, size, regions)
    out += labels
    out += chrome
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
        out += _status_pattern(scene.worst[i] if scene.worst else status, cx, cy, r)
        a = math.radians(m.facing)
        out.append(
            f'<line x1="{cx:.2f}" y1="{cy:.2f}" x2="{cx + r * math.cos(a):.2f}" y2="{cy - r * math.sin(a):.2f}" stroke="#101216" stroke-width="2"/>'
        )
        out.append("</g>")
    return out


def _status_pattern(status: str | None, cx: float, cy: float, r: float) -> list[str]:
    """The PNG's status patterns (``models._draw_status_patterns``), readable without colour:
    a cross on an affected base, three 45° chords on one in total cover, nothing outside."""
    if r < 6 or status not in ("affected", "total_cover"):
        return []
    ink = _rgb(PATTERN_INK)
    width = max(2, min(4, round(r * 0.09)))
    if status == "affected":
        k = r * 0.42
        d = f"M{cx - k:.2f},{cy - k:.2f} L{cx + k:.2f},{cy + k:.2f} M{cx - k:.2f},{cy + k:.2f} L{cx + k:.2f},{cy - k:.2f}"
        return [f'<path class="pattern affected" d="{d}" stroke="{ink}" stroke-width="{width}" fill="none"/>']
    parts = []
    for off in (-0.45, 0.0, 0.45):
        o = off * r
        half = math.sqrt(max(0.0, (0.8 * r) ** 2 - o * o))
        ox = oy = o * 0.7071
        x1, y1 = cx + ox - half * 0.7071, cy - oy - half * 0.7071
        x2, y2 = cx + ox + half * 0.7071, cy - oy + half * 0.7071
        parts.append(f"M{x1:.2f},{y1:.2f} L{x2:.2f},{y2:.2f}")
    return [f'<path class="pattern total-cover" d="{" ".join(parts)}" stroke="{ink}" stroke-width="{max(1, width - 1)}" fill="none"/>']


def _marks_under(art: Marks, vp: Viewport) -> list[str]:
    return [_stroke(st, vp) for st in art.strokes if not st.above]


def _stroke(st: object, vp: Viewport) -> str:
    pts = vp.to_screen_array(st.points)  # type: ignore[attr-defined]
    tag = "polygon" if st.closed else "polyline"  # type: ignore[attr-defined]
    dash = ' stroke-dasharray="8 6"' if st.dashed else ""  # type: ignore[attr-defined]
    return f'<{tag} points="{_pts(pts)}" fill="none" stroke="{_rgb(st.colour)}" stroke-width="{st.width}"{dash}/>'  # type: ignore[attr-defined]


def _marks_over(art: Marks, vp: Viewport, scale: float) -> tuple[list[str], list[Rect]]:
    """Strokes, arrows, roses and cells over the bases (their words go through the label layout);
    the SVG and the rects of the roses' numbered discs (labels keep off them)."""
    out = ['<g class="ruleset-marks">']
    discs: list[Rect] = []
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
            discs.append((int(dx) - 11, int(dy) - 11, 23, 23))
            out.append(f'<circle cx="{dx:.2f}" cy="{dy:.2f}" r="10" fill="{_rgb(ROSE_HOT) if hot else "#343842"}" stroke="#0f0f0f"/>')
            out.append(_text(dx, dy + 5, str(k), 13, (15, 15, 15) if hot else TEXT, bold=True, halo=False))
    for cell in art.cells:
        cx, cy = vp.to_screen(*cell.centre)
        side = cell.side * scale
        if side >= 14:
            out.append(_text(cx, cy + min(side * 0.3, 6), cell.text, min(16.0, side * 0.5), (20, 20, 20) if cell.dark else TEXT, halo=False))
    out.append("</g>")
    return out, discs


# --------------------------------------------------------------------------- text through the one layout

#: As ``draw/labels.py`` (which needs pygame): what survives a crowded table first. A test keeps them equal.
PRIORITY = {"refusal": 95.0, "title": 85.0, "dice": 75.0, "badge": 60.0, "tag": 55.0, "name": 50.0, "arrow": 45.0, "terrain": 50.0}
BASE_PAD = 2.0
FOCUS_PAD = 12.0
NAME_MIN_PX = 5.0
NAME_SIDES = ("below", "above", "right", "left", "below_right", "below_left", "above_right", "above_left")
PREFER = {
    "right": ("right", "above_right", "below_right", "left", "above", "below"),
    "left": ("left", "above_left", "below_left", "right", "above", "below"),
    "above": ("above", "above_right", "above_left", "below", "right", "left"),
    "below": ("below", "below_right", "below_left", "above", "right", "left"),
}
RULER_BAND = 22
RULER_SIDE = 36
PILL_BACK: Colour = (14, 16, 20)
TITLE_BACK: Colour = (14, 16, 20)
TITLE_INK: Colour = (255, 236, 170)
TITLE_REFUSED: Colour = (255, 110, 110)
REFUSAL_BACK: Colour = (178, 24, 24)

# Advance widths in em by character class. Measured with pygame on mixed label text, the bundled Noto
# Sans averages 0.47 em (regular) and 0.51 em (bold); DejaVu Sans, what a viewer without Noto falls
# back to (rsvg-convert here), is 8 % (regular) and 17 % (bold) wider still. The estimate is sized
# for DejaVu, so a label's box holds its text in either font (Noto leaves a little slack).
_NARROW = frozenset("iljtfrI.,:;'!|()[] ·\"-")
_WIDE = frozenset("MWmw@%—")
LINE_EM = 1.4  # line height of Noto Sans (ascent + descent) in em


def text_size(text: str, size: float, bold: bool = False) -> tuple[int, int]:
    """Estimated (width, height) px of ``text`` set in the bundled sans at ``size`` px."""
    em = 0.0
    for ch in text:
        if ch in _NARROW:
            em += 0.32
        elif ch in _WIDE:
            em += 0.92
        elif ch.isupper() or ch.isdigit():
            em += 0.64
        else:
            em += 0.58
    em *= 1.27 if bold else 1.10
    return (math.ceil(em * size) + 2, round(size * LINE_EM))


class Line(NamedTuple):
    text: str
    size: float
    colour: Colour
    bold: bool = False


class SvgLabel(NamedTuple):
    """A label request and how to draw it: its lines on a backing (``back``), bordered by ``accent``."""

    request: LabelRequest
    lines: tuple[Line, ...]
    back: Colour | None
    accent: Colour | None = None
    align: str = "middle"
    pad_x: float = 0.0


def _block(lines: Sequence[Line], pad_x: float = 0.0) -> tuple[int, int]:
    sizes = [text_size(ln.text, ln.size, ln.bold) for ln in lines]
    return (max(w for w, _ in sizes) + round(2 * pad_x), sum(h for _, h in sizes))


def _label(rid: str, anchor: tuple[float, float], lines: Sequence[Line], back: Colour | None, priority: float, sides: tuple[str, ...], clear: float, leader: bool, kind: str, text: str, pad_x: float = 0.0) -> SvgLabel:
    w, h = _block(lines, pad_x)
    return SvgLabel(LabelRequest(rid, anchor, (w, h), priority, sides, clear, leader, kind, text), tuple(lines), back, pad_x=pad_x)


def label_requests(scene: _Scene, vp: Viewport, options: DrawOptions, canvas: tuple[int, int, int, int]) -> list[SvgLabel]:
    """Every text on the table as the PNG asks for it (same ids, anchors, sides, priorities, order)."""
    out: list[SvgLabel] = []
    art = scene.art
    if art is not None:
        for k, p in enumerate(art.arrows):
            a, b = np.array(vp.to_screen(*p.a)), np.array(vp.to_screen(*p.b))
            length = float(np.hypot(*(b - a)))
            if length < 2 or not p.tag:
                continue
            u = (b - a) / length
            a2 = a + u * (p.trim_a * vp.scale + (3 if p.trim_a else 0))
            b2 = b - u * (p.trim_b * vp.scale + (3 if p.trim_b else 0))
            mid = (a2 + b2) / 2
            line = Line(p.tag, 13, (15, 15, 15), True)
            out.append(_label(f"arrow:{k}", (float(mid[0]), float(mid[1])), [line], p.colour, PRIORITY["arrow"], ("right", "left", "above", "below"), 3.0, True, "arrow", p.tag, 4))
        for k, (point, text, colour) in enumerate(art.tags):
            x, y = vp.to_screen(*point)
            out.append(_label(f"tag:{k}", (x, y), [Line(text, 14, colour, True)], (15, 15, 15), PRIORITY["tag"], ("right", "left", "above", "below"), 2.0, True, "tag", text, 4))
    if options.show_names and scene.models:
        left, top, w, h = canvas
        sc = vp.to_screen_array(scene.centres)
        r = scene.radii * vp.scale
        shown = (r >= NAME_MIN_PX) & (sc[:, 0] >= left) & (sc[:, 0] <= left + w) & (sc[:, 1] >= top) & (sc[:, 1] <= top + h)
        sizes = np.clip(np.rint(r * 0.8), 12, 16).astype(int).tolist()
        for i in np.nonzero(shown)[0].tolist():
            m = scene.models[i]
            x, y = sc[i].tolist()
            pad = max(3, sizes[i] // 3)
            out.append(_label(f"name:{m.id}", (x, y), [Line(m.label, sizes[i], TEXT, True)], PILL_BACK, PRIORITY["name"], NAME_SIDES, float(r[i]) + BASE_PAD, True, "name", m.label, pad))
    if options.show_names and scene.terrain:
        centres = vp.to_screen_array(scene.terrain_centroids).tolist()
        bb = scene.terrain_bbox
        size = 13 if vp.scale < 1.5 else 16
        for i, t in enumerate(scene.terrain):
            if art is not None and t.id in art.name_at:
                centres[i] = list(vp.to_screen(*art.name_at[t.id]))
            w_px = (bb[i, 2] - bb[i, 0]) * vp.scale
            line = Line(t.label, size, (235, 235, 235), True)
            tw, th = _block([line], 2)
            if w_px < 30 or tw > w_px * 1.6:
                continue
            x, y = centres[i]
            out.append(_label(f"terrain:{t.id}", (x, y - th / 2 - 1), [line], (30, 30, 34), PRIORITY["terrain"], ("below", "above", "right", "left"), 0.0, False, "terrain", t.label, 2))
    for t in scene.templates:
        true = art.outlines.get(t.id) if art is not None else None
        ring = vp.to_screen_array(true if true is not None else t.outline(t.placed, vp.scale))
        x0, y0 = _top_middle(ring)
        lines = [Line(t.label, 19, TITLE_INK if t.allowed else TITLE_REFUSED, True)]
        if t.sublabel:
            lines.append(Line(t.sublabel, 13, TEXT_DIM))
        text = t.label + (f" · {t.sublabel}" if t.sublabel else "")
        out.append(_label(f"title:{t.id}", (x0, y0), lines, TITLE_BACK, PRIORITY["title"], ("above", "above_right", "above_left", "right", "left"), 2.0, True, "title", text))
        if not t.allowed:
            word = "NULLIFIED" if t.reason and "nullif" in t.reason.lower() else "NOT ALLOWED"
            lines = [Line(word, 22, (255, 255, 255), True)]
            if t.reason:
                lines.append(Line(t.reason if len(t.reason) <= 60 else t.reason[:57] + "...", 14, TEXT))
            k = int(np.argmax(ring[:, 1]))
            text = word + (f": {t.reason}" if t.reason else "")
            out.append(_label(f"refusal:{t.id}", (float(ring[k, 0]), float(ring[k, 1])), lines, REFUSAL_BACK, PRIORITY["refusal"], ("below", "below_right", "below_left", "right", "left"), 2.0, True, "refusal", text))
    if art is not None:
        for k, lab in enumerate(art.badges):
            ax, ay = vp.to_screen(*lab.anchor)
            lines = [Line(text, 14 if n == 0 else 13, colour, n == 0) for n, (text, colour) in enumerate(lab.lines)]
            w, h = _block(lines)
            kind = "dice" if lab.clear_px else "badge"
            request = LabelRequest(
                f"badge:{k}", (ax, ay), (w + 12, h + 10 - 2 * (len(lines) - 1)), PRIORITY[kind] + lab.priority, PREFER.get(lab.prefer, PREFER["right"]),
                max(lab.clear * vp.scale, lab.clear_px), lab.leader, kind, " / ".join(t for t, _ in lab.lines),
            )
            out.append(SvgLabel(request, tuple(lines), BADGE_BACK, lab.accent, "start", 6))
    return out


def _draw_label(lab: SvgLabel, rect: Sequence[float], leader: bool = False) -> list[str]:
    """A label's backing and lines in ``rect``; the group carries the layout (``data-rect``, anchor,
    clear, leader) so a test can check it with :func:`~tabletop.label_layout.check_layout`."""
    x, y, w, h = (float(v) for v in rect)
    r = lab.request
    ax, ay = r.anchor
    out = [
        f'<g class="label" data-id={quoteattr(r.id)} data-kind="{r.kind}" data-rect="{x:g} {y:g} {w:g} {h:g}" '
        f'data-anchor="{ax:.2f} {ay:.2f}" data-clear="{r.clear:.2f}" data-leader="{int(leader)}">'
    ]
    if lab.back is not None:
        border = f' stroke="{_rgb(lab.accent)}" stroke-width="2"' if lab.accent is not None else ""
        out.append(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{6 if lab.accent else 4}" fill="{_rgb(lab.back)}"{border}/>')
    heights = [text_size(ln.text, ln.size, ln.bold)[1] for ln in lab.lines]
    yy = y + (h - sum(heights)) / 2
    for ln, lh in zip(lab.lines, heights):
        tx = x + w / 2 if lab.align == "middle" else x + lab.pad_x
        out.append(_text(tx, yy + lh * 0.5 + ln.size * 0.36, ln.text, ln.size, ln.colour, anchor=lab.align, bold=ln.bold, halo=False))
        yy += lh
    out.append("</g>")
    return out


def _leader(p: Placement) -> str:
    a, b = p.leader_line()
    if a == b:
        return ""
    return (
        f'<g class="leader" data-id={quoteattr(p.id)}><line x1="{a[0]:.1f}" y1="{a[1]:.1f}" x2="{b[0]:.1f}" y2="{b[1]:.1f}" stroke="#0f0f0f" stroke-width="4"/>'
        f'<line x1="{a[0]:.1f}" y1="{a[1]:.1f}" x2="{b[0]:.1f}" y2="{b[1]:.1f}" stroke="#e1e1e1" stroke-width="2"/>'
        f'<circle cx="{a[0]:.1f}" cy="{a[1]:.1f}" r="3" fill="#e1e1e1"/></g>'
    )


def hidden_note(count: int) -> str:
    """The "+n labels hidden" note, as the PNG words it."""
    return f"+{count} label{'s' if count != 1 else ''} hidden · hover a model or zoom in"


def _rulers(scene: _Scene, vp: Viewport) -> tuple[list[str], list[Rect]]:
    """Inch rulers along the bottom and left edges (as ``chrome.py`` draws them); the SVG and the rects they take."""
    out = ['<g id="tabletop.rulers">']
    drawn: list[Rect] = []
    left, top, w, h = vp.rect
    view = vp.visible_world_bounds()
    tick_in = nice_grid_step(vp.scale, 7.0) / INCH
    label_x = max(tick_in, nice_grid_step(vp.scale, 44.0) / INCH)
    label_y = max(tick_in, nice_grid_step(vp.scale, 26.0) / INCH)
    deepest = math.floor(min(scene.depth, view[3]) / INCH)
    while label_y < 1 and text_size(_inch_label(deepest + 1 - label_y), 13)[0] > RULER_SIDE - 10:
        label_y *= 2
    x_edge, y_edge = vp.to_screen(0.0, 0.0)
    x_end, y_end = vp.to_screen(scene.width, scene.depth)
    by = int(min(max(y_edge + 3, top), top + h - RULER_BAND))
    bx = int(max(min(x_edge - 3 - RULER_SIDE, left + w - RULER_SIDE), left))
    x_lo, x_hi = max(0.0, view[0]), min(scene.width, view[2])
    y_lo, y_hi = max(0.0, view[1]), min(scene.depth, view[3])
    back, fg = "#14161a", _rgb((220, 220, 210))
    ticks: list[str] = []
    if x_hi >= x_lo:
        sx0, sx1 = max(left, int(x_edge)), min(left + w, int(x_end) + 1)
        out.append(f'<rect x="{sx0}" y="{by}" width="{max(0, sx1 - sx0)}" height="{RULER_BAND}" fill="{back}"/>')
        drawn.append((sx0, by, max(0, sx1 - sx0), RULER_BAND))
        for k in range(math.ceil(x_lo / INCH / tick_in - 1e-9), math.floor(x_hi / INCH / tick_in + 1e-9) + 1):
            inches = k * tick_in
            sx = round(vp.to_screen(inches * INCH, 0.0)[0])
            major = abs(inches / label_x - round(inches / label_x)) < 1e-6
            ticks.append(f"M{sx},{by} V{by + (7 if major else 4)}")
            if major:
                out.append(_text(sx, by + 19, _inch_label(inches), 13, (220, 220, 210), halo=False))
    if y_hi >= y_lo:
        sy0, sy1 = max(top, int(y_end)), min(top + h, int(y_edge) + 1)
        out.append(f'<rect x="{bx}" y="{sy0}" width="{RULER_SIDE}" height="{max(0, sy1 - sy0)}" fill="{back}"/>')
        drawn.append((bx, sy0, RULER_SIDE, max(0, sy1 - sy0)))
        edge = bx + RULER_SIDE - 1
        for k in range(math.ceil(y_lo / INCH / tick_in - 1e-9), math.floor(y_hi / INCH / tick_in + 1e-9) + 1):
            inches = k * tick_in
            sy = round(vp.to_screen(0.0, inches * INCH)[1])
            major = abs(inches / label_y - round(inches / label_y)) < 1e-6
            ticks.append(f"M{edge},{sy} H{edge - (7 if major else 4)}")
            if major:
                out.append(_text(edge - 8, sy + 5, _inch_label(inches), 13, (220, 220, 210), anchor="end", halo=False))
    if ticks:
        out.append(f'<path d="{" ".join(ticks)}" stroke="{fg}" stroke-width="1" fill="none"/>')
    out.append("</g>")
    return out, drawn


def _title_panel(scene: _Scene) -> tuple[tuple[int, int], list[Line]]:
    title, line = title_lines(scene)
    lines = [Line(title, 24, (250, 250, 250), True), Line(line, 14, TEXT_DIM)]
    w, h = _block(lines)
    return (w, h + 2), lines


def _draw_title(lines: list[Line], rect: Rect) -> list[str]:
    x, y = rect[0], rect[1]
    out = ['<g id="tabletop.title">']
    for ln in lines:
        w, h = text_size(ln.text, ln.size, ln.bold)
        out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{_rgb(TITLE_BACK)}"/>')
        out.append(_text(x, y + h * 0.5 + ln.size * 0.36, ln.text, ln.size, ln.colour, anchor="start", bold=ln.bold, halo=False))
        y += h + 2
    out.append("</g>")
    return out


_LEG_PAD, _LEG_SW, _LEG_GAP, _LEG_ROW = 10, 22, 8, 24


def _legend_size(scene: _Scene, scale: float) -> tuple[int, int]:
    rows, side_rows = legend_rows(scene)
    _, bar_px, bar_label = scale_bar(scale)
    head_w, head_h = text_size("Legend", 16, True)
    width = max([head_w, bar_px + 10 + text_size(bar_label, 13)[0]] + [_LEG_SW + _LEG_GAP + text_size(t, 14)[0] for _, t, _ in rows + side_rows]) + 2 * _LEG_PAD
    sides_h = text_size("Sides", 14, True)[1] + 6 if side_rows else 0
    height = _LEG_PAD + head_h + 6 + _LEG_ROW * len(rows) + sides_h + _LEG_ROW * len(side_rows) + 30 + _LEG_PAD
    return width, height


def _draw_legend(scene: _Scene, scale: float, rect: Rect) -> list[str]:
    """The legend panel: the PNG's rows (statuses, the ruleset's entries, sides) and a scale bar."""
    x, y, w, h = rect
    rows, side_rows = legend_rows(scene)
    _, bar_px, bar_label = scale_bar(scale)
    out = [
        f'<g id="tabletop.legend" data-rect="{x:g} {y:g} {w:g} {h:g}">',
        f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="8" fill="#1c1e24" fill-opacity="0.92" stroke="#6e6e6e"/>',
    ]
    pad = _LEG_PAD
    head_h = text_size("Legend", 16, True)[1]
    out.append(_text(x + pad, y + pad + head_h * 0.5 + 6, "Legend", 16, (250, 250, 250), anchor="start", bold=True, halo=False))
    yy = y + pad + head_h + 6

    def row(kind: str, text: str, colour: Colour, yy: float) -> None:
        cx, cy = x + pad + _LEG_SW / 2, yy + _LEG_ROW / 2
        if kind in ("fill", "affected", "total_cover", "side"):
            fill = "#c8c8c8" if kind == "side" else _rgb(colour)
            stroke = f'stroke="{_rgb(colour)}" stroke-width="4"' if kind == "side" else 'stroke="#141414"'
            out.append(f'<circle cx="{cx}" cy="{cy}" r="{7 if kind == "side" else 9}" fill="{fill}" {stroke}/>')
            if kind == "affected":
                out.append(f'<path d="M{cx - 4},{cy - 4} L{cx + 4},{cy + 4} M{cx - 4},{cy + 4} L{cx + 4},{cy - 4}" stroke="#141414" stroke-width="2"/>')
            elif kind == "total_cover":
                out.append(f'<path d="M{cx - 5},{cy - 5} L{cx + 5},{cy + 5} M{cx - 1},{cy - 9} L{cx + 9},{cy + 1} M{cx - 9},{cy - 1} L{cx + 1},{cy + 9}" stroke="#141414" stroke-width="1"/>')
        elif kind == "contested":
            out.append(f'<circle cx="{cx}" cy="{cy}" r="6" fill="{_rgb(STATUS_COLOURS["outside"])}"/>')
            out.append(f'<circle cx="{cx}" cy="{cy}" r="9.5" fill="none" stroke="{_rgb(colour)}" stroke-width="3" stroke-dasharray="4 4"/>')
        elif kind in ("line", "link", "dash"):
            dash = ' stroke-dasharray="5 3"' if kind == "dash" else ""
            out.append(f'<path d="M{x + pad},{cy} H{x + pad + _LEG_SW}" stroke="{_rgb(colour)}" stroke-width="3"{dash}/>')
        elif kind == "arrow":
            out.append(f'<path d="{_arrow_path((x + pad, cy), (x + pad + _LEG_SW, cy), 9)}" stroke="{_rgb(colour)}" stroke-width="3" fill="none"/>')
        elif kind == "rose":
            for k in range(6):
                a = math.radians(90 - 60 * k)
                end = (cx + 9 * math.cos(a), cy - 9 * math.sin(a))
                out.append(f'<line x1="{cx}" y1="{cy}" x2="{end[0]:.1f}" y2="{end[1]:.1f}" stroke="{_rgb(colour if k == 1 else ROSE)}" stroke-width="{2 if k == 1 else 1}"/>')
        else:
            fill = "none" if kind in ("outline", "null", "swatch") else _rgb(colour)
            out.append(f'<rect x="{x + pad}" y="{cy - 8}" width="{_LEG_SW}" height="16" fill="{fill}" stroke="{_rgb(colour)}" stroke-width="2"/>')
        out.append(_text(x + pad + _LEG_SW + _LEG_GAP, cy + 5, text, 14, TEXT, anchor="start", halo=False))
        out[-1] = out[-1].replace("<text ", '<text class="legend-entry" ', 1)

    for kind, text, colour in rows:
        row(kind, text, colour, yy)
        yy += _LEG_ROW
    if side_rows:
        yy += 4
        sh = text_size("Sides", 14, True)[1]
        out.append(_text(x + pad, yy + sh * 0.5 + 5, "Sides", 14, TEXT_DIM, anchor="start", bold=True, halo=False))
        yy += sh + 2
        for kind, text, colour in side_rows:
            row(kind, text, colour, yy)
            yy += _LEG_ROW
    yy += 10
    out.append(f'<rect x="{x + pad}" y="{yy}" width="{bar_px}" height="6" fill="#f0f0f0"/>')
    out.append(_text(x + pad + bar_px + 10, yy + 8, bar_label, 13, TEXT_DIM, anchor="start", halo=False))
    out.append("</g>")
    return out


def _viewport(scene: _Scene, size: tuple[int, int], options: DrawOptions, region: str) -> Viewport:
    """The PNG's view (``png.render_frame``): the box fitted clear of the title band, the legend and the rulers."""
    width, height = size
    box: Sequence[float] = (0.0, 0.0, scene.width, scene.depth)
    if region == "action":
        box = action_box(scene) or box
    top = 70 if options.show_title else 8
    side, band = (RULER_SIDE + 4, RULER_BAND + 4) if options.show_rulers else (0, 0)

    def area_for(right: int) -> tuple[int, int, int, int]:
        return (side, top, max(1, width - side - right), max(1, height - top - band))

    right = _legend_size(scene, 1.0)[0] + 16 if options.show_legend else 0
    area = area_for(right)
    centre, scale = fit_box(box, area, scene.width, scene.depth)
    if options.show_legend:
        legend_w = _legend_size(scene, scale)[0] + 16
        if legend_w != right:
            area = area_for(legend_w)
            centre, scale = fit_box(box, area, scene.width, scene.depth)
    ax, ay = area[0] + area[2] / 2, area[1] + area[3] / 2
    return Viewport(centre, scale, (0, 0, width, height)).panned(ax - width / 2, ay - height / 2)


def _texts(scene: _Scene, vp: Viewport, options: DrawOptions, size: tuple[int, int], regions: list[Rect]) -> tuple[list[str], list[str]]:
    """Dock the title and legend, lay every label out at once (as ``labels.place_and_paint``); the
    SVG of the labels with their leaders, and of the panels and the hidden-label note."""
    canvas = (0, 0, size[0], size[1])
    table = tuple(_screen_box(vp, scene))
    sc = vp.to_screen_array(scene.centres) if len(scene.models) else np.zeros((0, 2))
    radii = scene.radii * vp.scale
    on = (sc[:, 0] + radii >= 0) & (sc[:, 0] - radii <= size[0]) & (sc[:, 1] + radii >= 0) & (sc[:, 1] - radii <= size[1])
    bases = base_boxes(sc[on], radii[on], BASE_PAD) if len(sc) else np.zeros((0, 4))
    art = scene.art
    foci = np.asarray([vp.to_screen(*t.placed.focus) for t in scene.templates if not (art is not None and t.id in art.replaced)], dtype=float).reshape(-1, 2)
    panels: list[Overlay] = []
    title_size, title_text = _title_panel(scene)
    if options.show_title:
        panels.append(Overlay("title", title_size, "top_left"))
    if options.show_legend:
        panels.append(Overlay("legend", _legend_size(scene, vp.scale), "top_right"))
    docked = dock_overlays(canvas, table, bases, panels, margin=8, avoid=regions) if panels else {}
    overlays = {k: v for k, v in docked.items() if v is not None}
    fixed = [*regions, *overlays.values()]
    labels = label_requests(scene, vp, options, canvas)
    requests = [lab.request for lab in labels]
    layout = layout_labels(canvas, requests, bases=bases, foci=foci, regions=fixed, focus_pad=FOCUS_PAD)
    pill_at: Rect | None = None
    if layout.hidden:
        pw, ph = _block([Line(hidden_note(len(layout.hidden)), 13, TEXT, True)], 5)
        taken = [*fixed, *(p.rect for p in layout.placements)]
        pill_at = dock_overlays(canvas, table, bases, [Overlay("hidden", (pw, ph), "bottom_right")], margin=8, avoid=taken)["hidden"]
        if pill_at is None:
            ww, wh = _block([Line(hidden_note(len(labels)), 13, TEXT, True)], 5)
            spot = dock_overlays(canvas, table, bases, [Overlay("hidden", (ww, wh), "bottom_right")], margin=8, avoid=fixed)["hidden"]
            if spot is not None:
                pill_at = spot
                layout = layout_labels(canvas, requests, bases=bases, foci=foci, regions=[*fixed, pill_at], focus_pad=FOCUS_PAD)
    by_id = {lab.request.id: lab for lab in labels}
    table_out = ['<g id="tabletop.labels">']
    table_out += [line for p in layout.placements if p.leader for line in [_leader(p)] if line]
    for p in layout.placements:
        table_out += _draw_label(by_id[p.id], p.rect, p.leader)
    table_out.append("</g>")
    chrome: list[str] = []
    if "title" in overlays:
        chrome += _draw_title(title_text, overlays["title"])
    if "legend" in overlays:
        chrome += _draw_legend(scene, vp.scale, overlays["legend"])
    if layout.hidden and pill_at is not None:
        note = SvgLabel(LabelRequest("hidden", (0, 0), (1, 1)), (Line(hidden_note(len(layout.hidden)), 13, TEXT, True),), PILL_BACK, pad_x=5)
        chrome += [s.replace('class="label"', 'id="tabletop.hidden" class="note"', 1) for s in _draw_label(note, pill_at)]
    return table_out, chrome


def _screen_box(vp: Viewport, scene: _Scene) -> Rect:
    (x0, y1), (x1, y0) = vp.to_screen(0.0, 0.0), vp.to_screen(scene.width, scene.depth)
    return (round(x0), round(y0), round(x1 - x0), round(y1 - y0))

