"""Paints a ruleset's marks (tabletop.marks): tints, hatching, strokes, arrows, roses, grid numbers,
tags and badges. Knows the vocabulary, never the ruleset."""

from __future__ import annotations

import math

import numpy as np
import pygame

from tabletop.draw.layout import Box, _candidates, _obstacles, _overlap
from tabletop.draw.primitives import _arrow, _dashed
from tabletop.draw.scene import _Scene, _bbox_visible
from tabletop.draw.text import _badge, _blit_centred, _name_sizer, _text
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
            ink = (30, 20, 10) if cell.dark else (250, 250, 250)
            text = _text(cell.text, size, ink, bold=True)
            x, y = vp.to_screen(*cell.centre)
            batch.append((text, (int(x - text.get_width() / 2), int(y - text.get_height() / 2))))
        surface.fblits(batch)


def _draw_ruleset_over(surface: pygame.Surface, vp: Viewport, art: Marks) -> list[pygame.Rect]:
    """Strokes, arrows, links and roses over the bases; returns the rects their text occupies."""
    taken: list[pygame.Rect] = []
    for stroke in art.strokes:
        if stroke.above:
            _draw_stroke(surface, vp, stroke)
    for p in art.arrows:
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
            taken.append(_blit_centred(surface, tag, float(mid[0]), float(mid[1])))
    for rose in art.roses:
        taken.append(_draw_rose(surface, vp, rose))
    for point, text, colour in art.tags:
        x, y = vp.to_screen(*point)
        taken.append(_blit_centred(surface, _text(text, 14, colour, (15, 15, 15), bold=True), x, y))
    return taken


def _draw_rose(surface: pygame.Surface, vp: Viewport, rose: Rose) -> pygame.Rect:
    cx, cy = vp.to_screen(*rose.centre)
    length = _rose_length(vp, rose)
    disc = 10
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
    reach = int(length + 2 * disc + 4)
    return pygame.Rect(int(cx) - reach, int(cy) - reach, 2 * reach, 2 * reach)


def _draw_ruleset_labels(surface: pygame.Surface, vp: Viewport, scene: _Scene, art: Marks, taken: list[pygame.Rect], bounds: pygame.Rect) -> list[pygame.Rect]:
    """Every badge, each in the first place clear of the text, bases and badges already there; returns their rects."""
    if not art.badges:
        return []
    # Higher priority first (a stable sort: equal priorities keep the ruleset's order).
    badges = sorted(art.badges, key=lambda lab: -lab.priority)
    anchors = vp.to_screen_array([lab.anchor for lab in badges])
    obstacles = _obstacles(scene, vp, taken, _name_sizer(scene))
    placed: list[tuple[pygame.Surface, pygame.Rect, tuple[float, float], float]] = []
    for lab, (ax, ay) in zip(badges, anchors.tolist()):
        if not bounds.collidepoint(ax, ay):
            continue
        badge = _badge(lab.lines, lab.accent)
        clear = max(lab.clear * vp.scale, lab.clear_px)
        w, h = badge.get_size()
        best: Box | None = None
        best_cost = math.inf
        span = int(clear + 130 + max(w, h))
        near = obstacles.near(pygame.Rect(int(ax) - span, int(ay) - span, 2 * span, 2 * span))
        for rect in _candidates(ax, ay, w, h, clear, lab.prefer):
            if not bounds.contains(rect):
                continue
            cost = _overlap(rect, near)
            if cost < best_cost:
                best, best_cost = rect, cost
                if cost == 0:
                    break
        spot = badge.get_rect(center=(int(ax), int(ay))).clamp(bounds) if best is None else pygame.Rect(best)
        obstacles.rects.append(spot)
        placed.append((badge, spot, (ax, ay), clear if lab.leader else math.inf))
    # Leaders first, so no badge is crossed by another's line.
    for badge, rect, (ax, ay), clear in placed:
        nx, ny = min(max(ax, rect.left), rect.right), min(max(ay, rect.top), rect.bottom)
        dist = math.hypot(nx - ax, ny - ay)
        if dist > clear + 36:  # nearer than that, the badge reads as the base's own
            sx, sy = ax + (nx - ax) / dist * clear, ay + (ny - ay) / dist * clear
            pygame.draw.line(surface, (15, 15, 15), (sx, sy), (nx, ny), 4)
            pygame.draw.line(surface, (225, 225, 225), (sx, sy), (nx, ny), 2)
    surface.fblits([(badge, rect.topleft) for badge, rect, _, _ in placed])
    return [rect for _, rect, _, _ in placed]
