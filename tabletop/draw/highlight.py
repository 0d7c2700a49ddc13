"""What one explained step touches, drawn over the normal scene (pygame): the template where the
step puts it, the scatter arrow and its dice, the bases whose status changes, the sight lines from
the blast focus and the explosion. Presenter mode and the animation draw it on top of
:func:`tabletop.draw.draw_scene`.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pygame

from tabletop.draw.style import STATUS_COLOURS, status_colour
from tabletop.explain import Beat
from tabletop.model import PlacedTemplate, Scenario
from tabletop.shapes import base_outline, template_polygon
from tabletop.viewport import Viewport

ACCENT = (255, 214, 90)
TOUCH = (255, 255, 255)
CHANGE = (0, 230, 255)
DIM = (8, 10, 14, 120)
BURST = (255, 140, 40)
INK = (16, 18, 22)
SIGHT_CLEAR = (255, 236, 170)
SIGHT_BLOCKED = (86, 180, 233)

_fonts: dict[tuple[int, bool], pygame.font.Font] = {}


def font(size: int, bold: bool = False) -> pygame.font.Font:
    """Noto Sans (the repository's, else pygame-gui's) at ``size`` px; pygame's own font if neither is there."""
    key = (size, bold)
    f = _fonts.get(key)
    if f is None:
        if not pygame.font.get_init():
            pygame.font.init()
        name = "NotoSans-Bold.ttf" if bold else "NotoSans-Regular.ttf"
        candidates = [Path(__file__).resolve().parents[2] / "assets" / "fonts" / name]
        spec = importlib.util.find_spec("pygame_gui")
        if spec is not None and spec.origin:
            candidates.append(Path(spec.origin).parent / "data" / name)
        path = next((c for c in candidates if c.is_file()), None)
        f = pygame.font.Font(str(path), size) if path else pygame.font.Font(None, int(size * 1.3))
        _fonts[key] = f
    return f


def interpolate(a: PlacedTemplate, b: PlacedTemplate, t: float) -> PlacedTemplate:
    """A placement ``t`` (0..1, eased) of the way from ``a`` to ``b``, turning the short way."""
    t = max(0.0, min(1.0, t))
    t = t * t * (3 - 2 * t)
    turn = (b.heading - a.heading + 180.0) % 360.0 - 180.0
    focus = (a.focus[0] + (b.focus[0] - a.focus[0]) * t, a.focus[1] + (b.focus[1] - a.focus[1]) * t)
    return PlacedTemplate(b.id, b.shape, focus, a.heading + turn * t, b.user)


def _ring(placed: PlacedTemplate, vp: Viewport) -> np.ndarray:
    return vp.to_screen_array(np.asarray(template_polygon(placed, segments=160).exterior.coords)[:-1])


def _dashed(surface: pygame.Surface, colour: tuple[int, int, int], pts: np.ndarray, width: int, dash: float = 12.0, closed: bool = True) -> None:
    seq = list(map(tuple, pts)) + ([tuple(pts[0])] if closed else [])
    on, left = True, dash
    for (ax, ay), (bx, by) in zip(seq, seq[1:]):
        seg = math.hypot(bx - ax, by - ay)
        pos = 0.0
        while pos < seg - 1e-9:
            step = min(left, seg - pos)
            if on:
                t0, t1 = pos / seg, (pos + step) / seg
                pygame.draw.line(surface, colour, (ax + (bx - ax) * t0, ay + (by - ay) * t0), (ax + (bx - ax) * t1, ay + (by - ay) * t1), width)
            pos += step
            left -= step
            if left <= 1e-9:
                on, left = not on, dash
    return None


def _arrow(surface: pygame.Surface, a: tuple[float, float], b: tuple[float, float], colour: tuple[int, int, int], width: int, head: float) -> None:
    ang = math.atan2(b[1] - a[1], b[0] - a[0])
    tip = b
    base = (b[0] - head * 0.8 * math.cos(ang), b[1] - head * 0.8 * math.sin(ang))
    pygame.draw.line(surface, colour, a, base, width)
    left = (b[0] - head * math.cos(ang - 0.5), b[1] - head * math.sin(ang - 0.5))
    right = (b[0] - head * math.cos(ang + 0.5), b[1] - head * math.sin(ang + 0.5))
    pygame.draw.polygon(surface, colour, [tip, left, right])


def _die(surface: pygame.Surface, centre: tuple[float, float], face: int, side: int) -> pygame.Rect:
    rect = pygame.Rect(0, 0, side, side)
    rect.center = (round(centre[0]), round(centre[1]))
    pygame.draw.rect(surface, INK, rect.inflate(4, 4), border_radius=max(3, side // 6))
    pygame.draw.rect(surface, (250, 250, 245), rect, border_radius=max(3, side // 6))
    img = font(max(10, int(side * 0.62)), bold=True).render(str(face), True, INK)
    surface.blit(img, img.get_rect(center=rect.center))
    return rect.inflate(4, 4)


def _label(surface: pygame.Surface, text: str, around: pygame.Rect, size: int, colour: tuple[int, int, int], avoid: list[pygame.Rect]) -> pygame.Rect:
    """A text pill beside ``around`` (right, left, below, above: the first spot clear of ``avoid``), kept on the clip."""
    img = font(size, bold=True).render(text, True, colour)
    clip = surface.get_clip()
    gap = 6
    w, h = img.get_width() + 10, img.get_height() + 6
    spots = [
        (around.right + gap, around.centery - h // 2),
        (around.left - gap - w, around.centery - h // 2),
        (around.centerx - w // 2, around.bottom + gap),
        (around.centerx - w // 2, around.top - gap - h),
        (around.right + gap, around.bottom + gap),
        (around.left - gap - w, around.top - gap - h),
    ]
    best = None
    for x, y in spots:
        r = pygame.Rect(x, y, w, h)
        r.clamp_ip(clip)
        if r.collidelist(avoid) < 0:
            best = r
            break
    if best is None:
        best = pygame.Rect(spots[0][0], spots[0][1], w, h).clamp(clip)
    back = pygame.Surface(best.size, pygame.SRCALPHA)
    back.fill((16, 18, 22, 215))
    surface.blit(back, best.topleft)
    surface.blit(img, (best.x + 5, best.y + 3))
    return best


def draw_beat(surface: pygame.Surface, vp: Viewport, scenario: Scenario, beat: Beat, progress: float = 1.0, text_px: int = 20) -> list[pygame.Rect]:
    """Highlight what ``beat`` touches over the scene already drawn in ``vp.rect``; returns the rects of its text and dice.

    ``progress`` (0..1) moves a scattering template from where it was to where it lands and grows an explosion.
    """
    clip = pygame.Rect(vp.rect).clip(surface.get_clip() or surface.get_rect())
    old_clip = surface.get_clip()
    surface.set_clip(clip)
    taken: list[pygame.Rect] = []
    try:
        layer = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
        layer.fill(DIM, clip)
        placed = beat.placed
        if placed is not None and beat.previous is not None and progress < 1.0:
            placed = interpolate(beat.previous, placed, progress)
        if placed is not None:
            ring = _ring(placed, vp)
            if len(ring) >= 3:
                pygame.draw.polygon(layer, (*ACCENT, 60), ring)
        surface.blit(layer, clip.topleft, area=clip)
        px = max(2, text_px // 7)

        # The explosion: rays out to the template's reach, growing with progress.
        if beat.explosion and placed is not None:
            cx, cy = vp.to_screen(*placed.focus)
            reach = placed.shape.reach * vp.scale * (0.35 + 0.65 * max(0.0, min(1.0, progress)))
            pts = []
            for k in range(32):
                a = math.pi * 2 * k / 32
                r = reach * (1.0 if k % 2 == 0 else 0.55)
                pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
            burst = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
            pygame.draw.polygon(burst, (*BURST, 110), pts)
            surface.blit(burst, clip.topleft, area=clip)
            pygame.draw.polygon(surface, BURST, pts, px)

        if placed is not None:
            pygame.draw.lines(surface, ACCENT, True, _ring(placed, vp), px + 2)
            fx, fy = vp.to_screen(*placed.focus)
            pygame.draw.circle(surface, ACCENT, (fx, fy), px + 5)
            pygame.draw.circle(surface, INK, (fx, fy), px + 5, 2)

        # A scatter: where it was aimed (dashed), the arrow to where it lands, and its dice.
        if beat.previous is not None and beat.placed is not None:
            _dashed(surface, TOUCH, _ring(beat.previous, vp), px)
            a = vp.to_screen(*beat.previous.focus)
            b = vp.to_screen(*beat.placed.focus)
            _arrow(surface, a, b, INK, px * 3 + 2, text_px * 1.6)
            _arrow(surface, a, b, TOUCH, px * 2, text_px * 1.3)

        # Sight lines from the blast focus to the bases this step is about.
        models = {m.id: m for m in scenario.models}
        if beat.sight_from is not None:
            fx, fy = vp.to_screen(*beat.sight_from)
            for mid in beat.touched:
                m = models.get(mid)
                if m is None:
                    continue
                status = beat.statuses.get(mid, "outside")
                mx, my = vp.to_screen(m.x, m.y)
                line = np.array([(fx, fy), (mx, my)], dtype=float)
                if status == "total_cover":
                    _dashed(surface, SIGHT_BLOCKED, line, px, 10.0, closed=False)
                elif status == "affected":
                    pygame.draw.line(surface, SIGHT_CLEAR, (fx, fy), (mx, my), px)

        # The bases: their status as of this step, a ring on each one touched, a second on each that changed.
        shown = [mid for mid in dict.fromkeys([*beat.touched, *beat.changed]) if mid in models]
        boxes: dict[str, pygame.Rect] = {}
        for mid in shown:
            m = models[mid]
            cx, cy = vp.to_screen(m.x, m.y)
            r = m.base.bounding_radius * vp.scale + 3 * px + 8
            boxes[mid] = pygame.Rect(round(cx - r), round(cy - r), round(2 * r), round(2 * r))
        avoid = list(boxes.values())
        for mid in shown:
            m = models.get(mid)
            if m is None:
                continue
            outline = vp.to_screen_array(base_outline(m.base, m.x, m.y, m.facing, segments=64))
            colour = status_colour(beat.statuses.get(mid, "outside"))
            pygame.draw.polygon(surface, colour, outline)
            cx, cy = vp.to_screen(m.x, m.y)
            grow = outline - np.array([cx, cy])
            norm = np.maximum(np.hypot(grow[:, 0], grow[:, 1]), 1e-9)[:, None]
            pygame.draw.lines(surface, TOUCH, True, outline + grow / norm * (px + 2), px + 1)
            if mid in beat.changed:
                pygame.draw.lines(surface, CHANGE, True, outline + grow / norm * (3 * px + 6), px + 1)
        for mid in shown:
            if mid in beat.changed:
                word = beat.statuses.get(mid, "outside").replace("_", " ")
                rect = _label(surface, f"{models[mid].label}: {word}", boxes[mid], max(12, int(text_px * 0.8)), CHANGE if word != "outside" else TOUCH, avoid)
                taken.append(rect)
                avoid.append(rect)

        # The dice of a roll or a scatter, beside the template.
        if beat.dice and placed is not None:
            ring = _ring(placed, vp)
            x = float(ring[:, 0].max()) + text_px
            y = float(ring[:, 1].min())
            side = int(text_px * 1.7)
            x = min(x, clip.right - len(beat.dice) * (side + 8) - 4)
            y = max(y, clip.top + side)
            for k, face in enumerate(beat.dice):
                taken.append(_die(surface, (x + k * (side + 8) + side / 2, y), face, side))
    finally:
        surface.set_clip(old_clip)
    return taken


__all__ = ("draw_beat", "font", "interpolate", "STATUS_COLOURS")
