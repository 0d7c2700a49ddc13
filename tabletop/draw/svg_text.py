"""The SVG's words and panels, through the one label layout: every label requested as the PNG asks
for it (``label_requests``), the inch rulers, the title and the legend docked with
:func:`~tabletop.label_layout.dock_overlays`, and the fitted view (``_viewport``). Pure: no pygame.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple
from xml.sax.saxutils import quoteattr

import numpy as np

from tabletop.draw.plan import action_box, fit_box, hidden_words, legend_rows, scale_bar, title_lines
from tabletop.draw.scene import _Scene, _inch_label, _top_middle, refusal_lines
from tabletop.draw.style import CHECK_BADGE_RADIUS, CHECK_INK, INCH, STATUS_COLOURS, Colour, DrawOptions
from tabletop.draw.svg_primitives import _arrow_path, _rgb, _text
from tabletop.label_layout import LabelRequest, Overlay, Placement, Rect, base_boxes, dock_overlays, layout_labels
from tabletop.marks import BADGE_BACK, ROSE, TEXT, TEXT_DIM
from tabletop.viewport import Viewport, nice_grid_step

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
                lines.extend(Line(line, 14, TEXT) for line in refusal_lines(t.reason))
            k = int(np.argmax(ring[:, 1]))
            text = word + (f": {t.reason}" if t.reason else "")
            out.append(_label(f"refusal:{t.id}", (float(ring[k, 0]), float(ring[k, 1])), lines, REFUSAL_BACK, PRIORITY["refusal"], ("below", "below_right", "below_left", "right", "left"), 2.0, True, "refusal", text))
    if art is not None:
        for k, lab in enumerate(art.badges):
            ax, ay = vp.to_screen(*lab.anchor)
            lines = [Line(text, 14 if n == 0 else 13, colour, n == 0) for n, (text, colour) in enumerate(lab.lines)]
            w, h = _block(lines)
            kind = "dice" if lab.dice else "badge"
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
    """The "+n labels hidden" note, as a still PNG words it (an SVG is always a still)."""
    return hidden_words(count, live=False)


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
        elif kind == "check":  # the mark's badge itself
            out.append(f'<circle cx="{cx}" cy="{cy}" r="{CHECK_BADGE_RADIUS}" fill="{_rgb(colour)}" stroke="{_rgb(CHECK_INK)}" stroke-width="2"/>')
            out.append(_text(cx, cy + 5, "!", 15, CHECK_INK, bold=True, halo=False))
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
