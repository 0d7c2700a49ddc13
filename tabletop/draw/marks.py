"""Paints a ruleset's marks (tabletop.marks): tints, hatching, strokes, arrows, roses, grid numbers,
tags and badges. Knows the vocabulary, never the ruleset."""

from __future__ import annotations

import math

import numpy as np
import pygame

from tabletop.draw.labels import PRIORITY, Label
from tabletop.draw.primitives import _arrow, _dashed
from tabletop.draw.scene import _Scene, _bbox_visible
from tabletop.draw.text import _badge, _blit_centred, _text
from tabletop.label_layout import LabelRequest
from tabletop.marks import ROSE, ROSE_HOT, ROSE_MIN_PX, TEXT, Marks, Rose, Stroke
from tabletop.placement import place
from tabletop.viewport import Viewport


_ROSE_MAX_PX = 120.0


def _rose_length(vp: Viewport, rose: Rose) -> float:
    """Length (px) of a rose's arrows: most of the template's radius, within readable bounds."""
    return max(ROSE_MIN_PX, min(_ROSE_MAX_PX, 0.62 * rose.reach * vp.scale))


def _draw_ruleset_tints(overlay: pygame.Surface, vp: Viewport, art: Marks, view: tuple[float, float, float, float]) -> pygame.Rect | None:
    """Translucent boxes (heat per grid square) on the shared overlay; returns the screen area touched."""
    if art.tint_boxes is None or art.tint_bbox is None or not _bbox_visible(art.tint_bbox, view):
        return None
    b = art.tint_boxes
    # Rect fills, clipped to the view: a polygon fill of a square 10 000 px wide (the loupe) costs milliseconds.
    corners = vp.to_screen_array(np.concatenate([b[:, [0, 3]], b[:, [2, 1]]]))
    k = len(b)
    clip = pygame.Rect(vp.rect).inflate(4, 4)
    x0, y0 = np.floor(corners[:k, 0]), np.floor(corners[:k, 1])
    x1, y1 = np.floor(corners[k:, 0]), np.floor(corners[k:, 1])
    touched: pygame.Rect | None = None
    for (ax, ay, bx, by), (_, colour, alpha) in zip(np.stack([x0, y0, x1, y1], axis=-1).tolist(), art.tints):
        rect = pygame.Rect(int(ax), int(ay), int(bx - ax), int(by - ay)).clip(clip)
        if rect.width > 0 and rect.height > 0:
            overlay.fill((*colour, alpha), rect)
            touched = rect if touched is None else touched.union(rect)
    return touched


def _draw_stroke(surface: pygame.Surface, vp: Viewport, stroke: Stroke) -> None:
    pts = vp.to_screen_array(stroke.points)
    if len(pts) < 2:
        return
    if stroke.dashed:
        _dashed(surface, pts, (15, 15, 15), stroke.width + 2, 10, 7, closed=stroke.closed)
        _dashed(surface, pts, stroke.colour, stroke.width, 10, 7, closed=stroke.closed)
        return
    pygame.draw.lines(surface, (15, 15, 15), stroke.closed, pts.tolist(), stroke.width + 3)
    pygame.draw.lines(surface, stroke.colour, stroke.closed, pts.tolist(), stroke.width)


def _draw_ruleset_under(surface: pygame.Surface, vp: Viewport, art: Marks) -> None:
    """Hatching, strokes and grid numbers: under the bases."""
    for segments, colour in art.hatches:
        for a, b in vp.to_screen_array(segments.reshape(-1, 2)).reshape(-1, 2, 2).tolist():
            pygame.draw.line(surface, colour, a, b, 1)
    for stroke in art.strokes:
        if not stroke.above:
            _draw_stroke(surface, vp, stroke)
    if art.cells:
        batch = []
        for cell in art.cells:
            px = cell.side * vp.scale
            if px < 16:
                continue  # too small to read: the heat says it
            size = int(max(10, min(22, px * 0.36)))
            text = _cell_text(cell.text, size, cell.dark)
            x, y = vp.to_screen(*cell.centre)
            batch.append((text, (int(x - text.get_width() / 2), int(y - text.get_height() / 2))))
        surface.fblits(batch)


#: Ink of a grid number, and the halo round it: mid-tone heat squares read with neither ink alone,
#: so each number carries a 1 px halo of the other tone (WCAG AA against its halo).
CELL_DARK_INK: tuple[int, int, int] = (30, 20, 10)
CELL_LIGHT_INK: tuple[int, int, int] = (250, 250, 250)
CELL_DARK_HALO: tuple[int, int, int] = (15, 15, 15)
CELL_LIGHT_HALO: tuple[int, int, int] = (255, 246, 220)
_cell_texts: dict[tuple[str, int, bool, float], pygame.Surface] = {}


def _cell_text(text: str, size: int, dark: bool) -> pygame.Surface:
    """A grid number with a halo (cached)."""
    from tabletop.draw.style import ui_scale

    key = (text, size, dark, ui_scale())
    surf = _cell_texts.get(key)
    if surf is None:
        ink, halo = (CELL_DARK_INK, CELL_LIGHT_HALO) if dark else (CELL_LIGHT_INK, CELL_DARK_HALO)
        glyphs, rim = _text(text, size, ink, bold=True), _text(text, size, halo, bold=True)
        surf = pygame.Surface((glyphs.get_width() + 2, glyphs.get_height() + 2), pygame.SRCALPHA)
        for dx, dy in ((0, 1), (2, 1), (1, 0), (1, 2), (0, 0), (2, 2), (0, 2), (2, 0)):
            surf.blit(rim, (dx, dy))
        surf.blit(glyphs, (1, 1))
        if len(_cell_texts) > 512:
            _cell_texts.clear()
        _cell_texts[key] = surf
    return surf


def _draw_ruleset_over(surface: pygame.Surface, vp: Viewport, art: Marks) -> tuple[list[Label], list[tuple[int, int, int, int]]]:
    """Strokes, arrows, links and roses over the bases; returns their text as labels (arrow tags, tags)
    and the rects the roses' numbered discs occupy (labels keep off them)."""
    labels: list[Label] = []
    regions: list[tuple[int, int, int, int]] = []
    for stroke in art.strokes:
        if stroke.above:
            _draw_stroke(surface, vp, stroke)
    for k, p in enumerate(art.arrows):
        a, b = np.array(vp.to_screen(*p.a)), np.array(vp.to_screen(*p.b))
        length = float(np.hypot(*(b - a)))
        if length < 2:
            continue
        u = (b - a) / length
        a2 = a + u * (p.trim_a * vp.scale + (3 if p.trim_a else 0))
        b2 = b - u * (p.trim_b * vp.scale + (3 if p.trim_b else 0))
        if p.head:
            _arrow(surface, tuple(a2), tuple(b2), (15, 15, 15), 7, 20)
            _arrow(surface, tuple(a2), tuple(b2), p.colour, 3, 16)
        else:
            pygame.draw.line(surface, (15, 15, 15), a2, b2, 8)
            pygame.draw.line(surface, p.colour, a2, b2, 4)
        if p.tag:
            mid = (a2 + b2) / 2
            tag = _text(p.tag, 13, (15, 15, 15), p.colour, bold=True)
            req = LabelRequest(f"arrow:{k}", (float(mid[0]), float(mid[1])), tag.get_size(), PRIORITY["arrow"], ("right", "left", "above", "below"), 3.0, True, "arrow", p.tag)
            labels.append(Label(req, tag))
    for rose in art.roses:
        regions.extend(_draw_rose(surface, vp, rose))
    for k, (point, text, colour) in enumerate(art.tags):
        x, y = vp.to_screen(*point)
        tag = _text(text, 14, colour, (15, 15, 15), bold=True)
        req = LabelRequest(f"tag:{k}", (x, y), tag.get_size(), PRIORITY["tag"], ("right", "left", "above", "below"), 2.0, True, "tag", text)
        labels.append(Label(req, tag))
    return labels, regions


def _draw_rose(surface: pygame.Surface, vp: Viewport, rose: Rose) -> list[tuple[int, int, int, int]]:
    cx, cy = vp.to_screen(*rose.centre)
    length = _rose_length(vp, rose)
    disc = 10
    discs: list[tuple[int, int, int, int]] = []
    for k in range(1, 7):
        h = math.radians(rose.first - 60.0 * (k - 1))
        ux, uy = math.cos(h), -math.sin(h)  # screen y points down
        hot = k in rose.rolled
        a = (cx + ux * 12, cy + uy * 12)
        b = (cx + ux * length, cy + uy * length)
        _arrow(surface, a, b, (15, 15, 15), 7 if hot else 5, 15)
        _arrow(surface, a, b, ROSE_HOT if hot else ROSE, 4 if hot else 2, 12)
        dx, dy = cx + ux * (length + disc + 2), cy + uy * (length + disc + 2)
        pygame.draw.circle(surface, (15, 15, 15), (dx, dy), disc + 1)
        pygame.draw.circle(surface, ROSE_HOT if hot else (52, 56, 66), (dx, dy), disc)
        _blit_centred(surface, _text(str(k), 14, (15, 15, 15) if hot else TEXT, bold=True), dx, dy)
        discs.append((int(dx) - disc - 1, int(dy) - disc - 1, 2 * disc + 3, 2 * disc + 3))
    return discs


def _badge_labels(vp: Viewport, scene: _Scene, art: Marks) -> list[Label]:
    """Every badge as a label request: clear of its anchor's base or template, on its preferred side first."""
    if not art.badges:
        return []
    anchors = vp.to_screen_array([lab.anchor for lab in art.badges]).tolist()
    owner_at = {(round(m.x, 6), round(m.y, 6)): m.id for m in scene.models}
    out: list[Label] = []
    for k, (lab, (ax, ay)) in enumerate(zip(art.badges, anchors)):
        badge = _badge(lab.lines, lab.accent)
        clear = max(lab.clear * vp.scale, lab.clear_px)
        sides = _PREFER.get(lab.prefer, _PREFER["right"])
        kind = "dice" if lab.dice else "badge"
        priority = PRIORITY[kind] + lab.priority
        text = " / ".join(t for t, _ in lab.lines)
        req = LabelRequest(f"badge:{k}", (ax, ay), badge.get_size(), priority, sides, clear, lab.leader, kind, text)
        out.append(Label(req, badge, owner_at.get((round(lab.anchor[0], 6), round(lab.anchor[1], 6)))))
    return out


_PREFER = {
    "right": ("right", "above_right", "below_right", "left", "above", "below"),
    "left": ("left", "above_left", "below_left", "right", "above", "below"),
    "above": ("above", "above_right", "above_left", "below", "right", "left"),
    "below": ("below", "below_right", "below_left", "above", "right", "left"),
}
