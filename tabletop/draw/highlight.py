"""What one explained step touches, drawn over the normal scene (pygame): the template where the
step puts it, the scatter arrow, every base in its status after the step, the sight lines from the
blast focus and the explosion; and its words (each changed status, its dice, each die named), which
go through the table's label layout (:func:`beat_words`). Presenter mode and the animation draw it
on top of :func:`tabletop.draw.draw_scene`.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pygame

from tabletop.draw.labels import BASE_PAD, Label, paint_leaders
from tabletop.draw.style import STATUS_COLOURS, status_colour
from tabletop.explain import Beat
from tabletop.label_layout import LabelRequest, Layout, Placement, base_boxes, layout_labels
from tabletop.model import Model, PlacedTemplate, Scenario
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


#: Priorities among a step's own words (laid out apart from the table's, before them).
STATUS_PRIORITY = 90.0
DICE_PRIORITY = 80.0
_STATUS_SIDES = ("right", "left", "below", "above", "below_right", "above_right", "below_left", "above_left")
_DICE_SIDES = ("right", "above_right", "below_right", "left", "above", "below", "above_left", "below_left")
_KIND_WORDS = {"roll": "Roll", "scatter": "Scatter"}


def ring_radius(base_px: float, text_px: int) -> float:
    """Screen radius of the outer ring drawn round a base the step changes (its words keep outside it)."""
    return base_px + 3 * max(2, text_px // 7) + 8


def dice_text(beat: Beat) -> str:
    """What the step rolled, in words: ``Scatter: direction 2 · distance 6 · Strike 4``."""
    names = beat.dice_names if len(beat.dice_names) == len(beat.dice) else ("",) * len(beat.dice)
    rolled = " · ".join(f"{name} {face}" if name else str(face) for name, face in zip(names, beat.dice))
    return f"{_KIND_WORDS.get(beat.kind, 'Dice')}: {rolled}"


def _die_face(face: int, side: int) -> pygame.Surface:
    die = pygame.Surface((side + 4, side + 4), pygame.SRCALPHA)
    radius = max(3, side // 6)
    pygame.draw.rect(die, INK, die.get_rect(), border_radius=radius)
    pygame.draw.rect(die, (250, 250, 245), die.get_rect().inflate(-4, -4), border_radius=radius)
    img = font(max(10, int(side * 0.68)), bold=True).render(str(face), True, INK)
    die.blit(img, img.get_rect(center=die.get_rect().center))
    return die


def dice_surface(beat: Beat, text_px: int) -> pygame.Surface:
    """The step's dice as one panel: what was rolled (the step's kind), then each die's name and face,
    in type of ``text_px`` px with dice a little taller."""
    names = beat.dice_names if len(beat.dice_names) == len(beat.dice) else ("",) * len(beat.dice)
    side = round(text_px * 1.45)
    gap = max(4, text_px // 3)
    pad = max(5, text_px // 3)
    parts: list[tuple[pygame.Surface, int]] = [(font(text_px, bold=True).render(_KIND_WORDS.get(beat.kind, "Dice"), True, ACCENT), gap * 2)]
    for name, face in zip(names, beat.dice):
        if name:
            parts.append((font(text_px).render(name, True, (225, 228, 232)), gap // 2 + 2))
        parts.append((_die_face(face, side), gap * 2))
    width = sum(p.get_width() + g for p, g in parts) - parts[-1][1] + 2 * pad
    height = max(p.get_height() for p, _ in parts) + 2 * pad
    out = pygame.Surface((width, height), pygame.SRCALPHA)
    pygame.draw.rect(out, (16, 18, 22, 235), out.get_rect(), border_radius=max(4, text_px // 3))
    pygame.draw.rect(out, ACCENT, out.get_rect(), 2, border_radius=max(4, text_px // 3))
    x = pad
    for part, g in parts:
        out.blit(part, (x, (height - part.get_height()) // 2))
        x += part.get_width() + g
    return out


def _pill(text: str, size: int, colour: tuple[int, int, int]) -> pygame.Surface:
    img = font(size, bold=True).render(text, True, colour)
    pad_x, pad_y = max(5, size // 3), max(3, size // 6)
    out = pygame.Surface((img.get_width() + 2 * pad_x, img.get_height() + 2 * pad_y), pygame.SRCALPHA)
    pygame.draw.rect(out, (16, 18, 22, 225), out.get_rect(), border_radius=max(3, size // 4))
    out.blit(img, (pad_x, pad_y))
    return out


@dataclass(frozen=True)
class BeatWords:
    """A step's words as label requests, and what they keep off: the bases on screen (``bases``, (N, 4)
    boxes), the rings drawn round the bases the step is about (``regions``, x, y, w, h) and the
    template's focus (``foci``)."""

    labels: tuple[Label, ...]
    bases: np.ndarray
    regions: tuple[tuple[int, int, int, int], ...]
    foci: tuple[tuple[float, float], ...]

    def layout(self, canvas: Sequence[int]) -> Layout:
        """The words laid out on ``canvas`` (x, y, w, h) by the table's label layout."""
        return layout_labels(canvas, [lab.request for lab in self.labels], bases=self.bases, foci=self.foci or None, regions=self.regions)


def beat_words(vp: Viewport, scenario: Scenario, beat: Beat, text_px: int) -> BeatWords:
    """What ``beat`` writes on the table: each base whose status it changes, named with its status
    after the step, and its dice (what was rolled, each die named) beside the template where the step
    puts it. Sized from ``text_px``; a label away from its anchor gets a leader like any other."""
    models = {m.id: m for m in scenario.models}
    labels: list[Label] = []
    regions: list[tuple[int, int, int, int]] = []
    for mid in _shown(beat, models):
        m = models[mid]
        cx, cy = vp.to_screen(m.x, m.y)
        r = ring_radius(m.base.bounding_radius * vp.scale, text_px)
        regions.append((math.floor(cx - r), math.floor(cy - r), math.ceil(2 * r) + 1, math.ceil(2 * r) + 1))
        if mid in beat.changed:
            word = beat.statuses.get(mid, "outside").replace("_", " ")
            text = f"{m.label}: {word}"
            surf = _pill(text, text_px, CHANGE if word != "outside" else TOUCH)
            labels.append(Label(LabelRequest(f"step:{mid}", (cx, cy), surf.get_size(), STATUS_PRIORITY, _STATUS_SIDES, r, True, "step", text), surf))
    foci: list[tuple[float, float]] = []
    if beat.placed is not None:
        fx, fy = vp.to_screen(*beat.placed.focus)
        foci.append((fx, fy))
        if beat.dice:
            surf = dice_surface(beat, text_px)
            reach = beat.placed.shape.reach * vp.scale
            labels.append(Label(LabelRequest("step:dice", (fx, fy), surf.get_size(), DICE_PRIORITY, _DICE_SIDES, reach, True, "dice", dice_text(beat)), surf))
    centres = np.array([vp.to_screen(m.x, m.y) for m in scenario.models], dtype=float).reshape(-1, 2)
    radii = np.array([m.base.bounding_radius * vp.scale for m in scenario.models], dtype=float)
    bases = base_boxes(centres, radii, BASE_PAD)
    return BeatWords(tuple(labels), bases, tuple(regions), tuple(foci))


def paint_words(surface: pygame.Surface, placements: Sequence[Placement], words: BeatWords) -> None:
    """The step's words where the layout put them, with their leaders."""
    surfaces = {lab.request.id: lab.surface for lab in words.labels}
    paint_leaders(surface, placements)
    surface.fblits([(surfaces[p.id], p.rect[:2]) for p in placements if p.id in surfaces])


def _shown(beat: Beat, models: dict[str, Model]) -> list[str]:
    """The bases a step draws: those it is about (touched or changed), then every other one its
    statuses put under the template."""
    ids = [*beat.touched, *beat.changed, *(mid for mid, s in beat.statuses.items() if s != "outside")]
    return [mid for mid in dict.fromkeys(ids) if mid in models]


def draw_beat(
    surface: pygame.Surface,
    vp: Viewport,
    scenario: Scenario,
    beat: Beat,
    progress: float = 1.0,
    text_px: int = 20,
    earlier: Sequence[PlacedTemplate] = (),
) -> None:
    """Highlight what ``beat`` touches over the scene already drawn in ``vp.rect``: the template where
    the step puts it, a scatter's path, the sight lines, and every base in its status after the step
    (a ring on each the step is about, a second on each it changes). ``earlier``: where the template
    was at the steps before (a chain's earlier explosions), outlined faintly. Its words are
    :func:`beat_words`, laid out and painted by the caller.

    ``progress`` (0..1) moves a scattering template from where it was to where it lands and grows an explosion.
    """
    clip = pygame.Rect(vp.rect).clip(surface.get_clip() or surface.get_rect())
    old_clip = surface.get_clip()
    surface.set_clip(clip)
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
        px = max(2, text_px // 7)
        for was in earlier:
            ring = _ring(was, vp)
            if len(ring) >= 3 and was != beat.previous:
                pygame.draw.lines(layer, (*ACCENT, 150), True, ring, max(1, px - 1))
        surface.blit(layer, clip.topleft, area=clip)

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

        # A scatter: where it was aimed (dashed), the arrow to where it lands.
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

        # The bases: their status after this step; a ring on each the step is about, a second on each it changes.
        about = set(beat.touched) | set(beat.changed)
        for mid in _shown(beat, models):
            m = models[mid]
            outline = vp.to_screen_array(base_outline(m.base, m.x, m.y, m.facing, segments=64))
            pygame.draw.polygon(surface, status_colour(beat.statuses.get(mid, "outside")), outline)
            if mid not in about:
                continue
            cx, cy = vp.to_screen(m.x, m.y)
            grow = outline - np.array([cx, cy])
            norm = np.maximum(np.hypot(grow[:, 0], grow[:, 1]), 1e-9)[:, None]
            pygame.draw.lines(surface, TOUCH, True, outline + grow / norm * (px + 2), px + 1)
            if mid in beat.changed:
                pygame.draw.lines(surface, CHANGE, True, outline + grow / norm * (3 * px + 6), px + 1)
    finally:
        surface.set_clip(old_clip)


__all__ = ("BeatWords", "beat_words", "dice_surface", "dice_text", "draw_beat", "font", "interpolate", "paint_words", "ring_radius", "STATUS_COLOURS")
