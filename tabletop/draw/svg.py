"""Writing an SVG: the same drawing as the PNG, as vectors, crisp at any zoom. Pure: no pygame.

The table, grid, terrain, templates (with the region the blast focus sees and its shadows,
scatter paths and ghosts), bases coloured by status with their side rings and names, and the
ruleset's marks (tints, hatching, strokes, arrows, roses, cells, tags, badges). Every base is a
group whose ``id`` is the model's id and every template one whose ``id`` is the template's
(the scenario contract; terrain likewise; a template id that a model or terrain piece already
uses becomes ``template.<id>``, an extra drawn template ``<id>.<n>``: scenario ids hold no "."), so a rules FAQ can link or style them;
the drawing's own elements are ``tabletop.*``, which no scenario id can be. Geometry comes from the pure scene (``scene.py``) through the same
:class:`~tabletop.viewport.Viewport` transform as the PNG.

This module writes the document and the picture layers; ``svg_text.py`` lays out and writes the
words and panels (labels, rulers, title, legend) and ``svg_primitives.py`` holds the element helpers.
"""

from __future__ import annotations

import math
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from tabletop.adjudicate import Adjudication
from tabletop.draw.scene import _Scene, _scene
from tabletop.draw.style import (
    CHECK_BADGE_MIN_BASE_PX,
    CHECK_BADGE_RADIUS,
    CHECK_COLOUR,
    CHECK_DASH_PX,
    CHECK_INK,
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
    check_badge_centre,
)
from tabletop.label_layout import Rect
from tabletop.marks import ROSE, ROSE_HOT, TEMPLATE_EDGE, TEXT, Marks
from tabletop.model import PlacedTemplate
from tabletop.scenario_io import atomic_write
from tabletop.shapes import base_outline, template_polygon
from tabletop.viewport import Viewport

from tabletop.draw.svg_primitives import FONT, _arrow_path, _poly_path, _pts, _rgb, _text
from tabletop.draw.svg_text import (  # re-exported: the PNG's tests compare them
    BASE_PAD,
    FOCUS_PAD,
    NAME_MIN_PX,
    NAME_SIDES,
    PREFER,
    PRIORITY,
    _rulers,
    _texts,
    _viewport,
    hidden_note,
    label_requests,
    text_size,
)

REGIONS = ("table", "action")
__all__ = ["render_svg", "svg_document", "label_requests", "text_size", "hidden_note", "PRIORITY", "BASE_PAD", "FOCUS_PAD", "NAME_MIN_PX", "NAME_SIDES", "PREFER", "FONT"]


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
    to_check = set(scene.to_check)
    for i, m in enumerate(scene.models):
        fill, ring = scene.fills[i], scene.rings[i]
        status = "outside"
        for name, colour in STATUS_COLOURS.items():
            if colour == fill:
                status = name
        checked = ' data-check="true"' if i in to_check else ""
        out.append(f'<g id={quoteattr(m.id)} class="model" data-status="{status}"{checked}>')
        doubt = " (found on a photo, not sure: check this base)" if i in to_check else ""
        out.append(f"<title>{escape(m.label)}: {_STATUS_WORDS.get(status, status)}{doubt}</title>")
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
        if i in to_check:
            out += _check_mark(shape, cx, cy, r)
        out.append("</g>")
    return out


def _check_mark(shape: str, cx: float, cy: float, r: float) -> list[str]:
    """A base to check (``draw.checks``): ``shape`` (an SVG element's opening, its outline) in ink, dashed orange, and
    the "!" badge at its upper right, or a dot there where the base is drawn too small for a badge."""
    dash = f"{CHECK_DASH_PX:g} {CHECK_DASH_PX:g}"
    out = [f'{shape} class="check" fill="none" stroke="{_rgb(CHECK_INK)}" stroke-width="4"/>',
           f'{shape} class="check" fill="none" stroke="{_rgb(CHECK_COLOUR)}" stroke-width="2" stroke-dasharray="{dash}"/>']
    bx, by = check_badge_centre((cx, cy), r)
    if r < CHECK_BADGE_MIN_BASE_PX:
        return [*out, f'<circle class="check" cx="{bx:.2f}" cy="{by:.2f}" r="3" fill="{_rgb(CHECK_COLOUR)}" stroke="{_rgb(CHECK_INK)}"/>']
    out.append(f'<circle class="check" cx="{bx:.2f}" cy="{by:.2f}" r="{CHECK_BADGE_RADIUS}" fill="{_rgb(CHECK_COLOUR)}" '
               f'stroke="{_rgb(CHECK_INK)}" stroke-width="2"/>')
    out.append(_text(bx, by + 5, "!", 15, CHECK_INK, bold=True, halo=False))
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
