"""Draw odds over a table: a heat map of where each template can end, the landing points
sized by chance, a label per model (chance to be affected, expected damage) and a legend.

``draw_odds(surface, viewport, scenario, odds)`` reads only its arguments, so the app and
``tabletop render --odds`` share it. Everything world↔screen goes through ``Viewport``.
"""

from __future__ import annotations

import importlib.util
import math
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pygame

from tabletop.draw.frame import Frame
from tabletop.label_layout import LabelRequest, Overlay
from tabletop.model import Scenario
from tabletop.odds import OddsResult, OddsTemplate
from tabletop.viewport import Viewport

Colour = tuple[int, int, int]

#: Disc radius (px) of a landing point with chance 1: area grows with the chance.
DISC_PX_AT_1 = 30.0
DISC_MIN_PX = 2.5
#: Heat-map cells along the longer side of the area the templates can reach.
HEAT_CELLS = 200
#: Chances below this are not labelled (0 after rounding).
LABEL_MIN_P = 0.0005
INK: Colour = (20, 22, 26)
PAPER: Colour = (245, 245, 240)
LABEL_BG = (20, 22, 26, 225)

_fonts: dict[tuple[int, bool], pygame.font.Font] = {}
_heat_cache: OrderedDict[int, tuple[OddsResult, tuple[float, float, float, float], np.ndarray] | None] = OrderedDict()
_scaled_cache: OrderedDict[tuple[int, Viewport, tuple[int, int, int, int]], tuple[OddsResult, pygame.Surface | None, tuple[int, int]]] = OrderedDict()


# --------------------------------------------------------------------------- text


def _font(size: int, bold: bool = False) -> pygame.font.Font:
    font = _fonts.get((size, bold))
    if font is None:
        if not pygame.font.get_init():
            pygame.font.init()
        path: Path | None = None
        spec = importlib.util.find_spec("pygame_gui")  # Noto Sans: has the ·, →, ± we print
        if spec is not None and spec.origin:
            candidate = Path(spec.origin).parent / "data" / f"NotoSans-{'Bold' if bold else 'Regular'}.ttf"
            path = candidate if candidate.is_file() else None
        font = pygame.font.Font(str(path), size) if path else pygame.font.Font(None, int(size * 1.3))
        _fonts[(size, bold)] = font
    return font


def percent(p: float) -> str:
    """A chance as a label: ``63%``, ``<1%``, ``>99%``, ``100%``."""
    if p >= 1.0 - 1e-12:
        return "100%"
    if p >= 0.995:
        return ">99%"
    if p < 0.005:
        return "<1%"
    return f"{p * 100:.0f}%"


def damage_unit(ruleset: str) -> str:
    """What the ruleset's damage is counted in (its ``damage_unit``; "dmg" for an unknown one)."""
    from tabletop import rulesets

    try:
        return rulesets.get(ruleset).damage_unit
    except rulesets.UnknownRuleset:
        return "dmg"


def model_label(scenario: Scenario, odds: OddsResult, model_id: str) -> list[str]:
    """The label lines of one model: ``63% · 4.2 MD`` (one line per template with a chance,
    prefixed by the template id when the scenario has several); empty when no template can affect it."""
    lines: list[str] = []
    several = len(odds.templates) > 1
    unit = damage_unit(scenario.ruleset)
    for t in odds.templates:
        m = t.models.get(model_id)
        if m is None or m.p_affected < LABEL_MIN_P:
            continue
        text = percent(m.p_affected)
        if m.expected_damage >= 0.05:
            text += f" · {m.expected_damage:.1f} {unit}"
        lines.append(f"{t.id} {text}" if several else text)
    return lines


# --------------------------------------------------------------------------- colours


def heat_colour(p: float) -> Colour:
    """Pale yellow (unlikely) → orange → deep red (certain)."""
    stops = ((0.0, (255, 236, 120)), (0.5, (255, 140, 30)), (1.0, (200, 20, 30)))
    p = min(1.0, max(0.0, p))
    for (a, ca), (b, cb) in zip(stops, stops[1:], strict=False):
        if p <= b:
            t = (p - a) / (b - a)
            return tuple(round(ca[i] + (cb[i] - ca[i]) * t) for i in range(3))  # type: ignore[return-value]
    return stops[-1][1]


def _ramp(values: np.ndarray) -> np.ndarray:
    """``heat_colour`` over an array (…,) → (…, 3) uint8."""
    v = np.clip(values, 0.0, 1.0)
    lo = np.array([255, 236, 120], dtype=float)
    mid = np.array([255, 140, 30], dtype=float)
    hi = np.array([200, 20, 30], dtype=float)
    t1 = np.clip(v / 0.5, 0.0, 1.0)[..., None]
    t2 = np.clip((v - 0.5) / 0.5, 0.0, 1.0)[..., None]
    rgb = np.where(v[..., None] <= 0.5, lo + (mid - lo) * t1, mid + (hi - mid) * t2)
    return rgb.astype(np.uint8)


# --------------------------------------------------------------------------- the heat field


def _spread(templates: Sequence[OddsTemplate]) -> bool:
    """Is there anything to map: some template can end in more than one place?"""
    return any(len(t.landings) > 1 for t in templates)


def heat_grid(odds: OddsResult, cells: int = HEAT_CELLS) -> tuple[tuple[float, float, float, float], np.ndarray] | None:
    """(world box (x0, y0, x1, y1), grid (nx, ny)) of the chance a point ends under some template
    (templates taken as independent); None when no template can end in more than one place."""
    key = id(odds)
    hit = _heat_cache.get(key)
    if hit is not None and hit[0] is odds:
        _heat_cache.move_to_end(key)
        return hit[1], hit[2]
    templates = [t for t in odds.templates if t.landings]
    if not _spread(templates):
        return None
    reach = [(p.focus, p.shape.reach) for t in templates for p, _w in t.landings]
    x0 = min(f[0] - r for f, r in reach)
    x1 = max(f[0] + r for f, r in reach)
    y0 = min(f[1] - r for f, r in reach)
    y1 = max(f[1] + r for f, r in reach)
    step = max(x1 - x0, y1 - y0) / cells
    nx, ny = max(2, math.ceil((x1 - x0) / step)), max(2, math.ceil((y1 - y0) / step))
    xs = x0 + (np.arange(nx) + 0.5) * step
    ys = y0 + (np.arange(ny) + 0.5) * step
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    pts = np.stack([gx.ravel(), gy.ravel()], axis=-1)
    miss = np.ones(len(pts))
    for t in templates:
        miss *= 1.0 - t.heat(pts)
    grid = (1.0 - miss).reshape(nx, ny)
    box = (x0, y0, x0 + nx * step, y0 + ny * step)
    _heat_cache[key] = (odds, box, grid)
    while len(_heat_cache) > 4:
        _heat_cache.popitem(last=False)
    return box, grid


def _heat_surface(odds: OddsResult, viewport: Viewport, clip: pygame.Rect) -> tuple[pygame.Surface | None, tuple[int, int]]:
    """The heat field scaled to the screen, cropped to ``clip`` (cached per odds and view)."""
    key = (id(odds), viewport, (clip.x, clip.y, clip.w, clip.h))
    hit = _scaled_cache.get(key)
    if hit is not None and hit[0] is odds:
        return hit[1], hit[2]
    out: tuple[pygame.Surface | None, tuple[int, int]] = (None, (0, 0))
    field = heat_grid(odds)
    if field is not None:
        (x0, y0, x1, y1), grid = field
        nx, ny = grid.shape
        left, top = viewport.to_screen(x0, y1)
        right, bottom = viewport.to_screen(x1, y0)
        screen = pygame.Rect(math.floor(left), math.floor(top), max(1, math.ceil(right - left)), max(1, math.ceil(bottom - top)))
        shown = screen.clip(clip)
        if shown.w > 0 and shown.h > 0:
            # Crop the grid to the visible part before scaling (zoomed in, the whole field is huge).
            fx0 = (shown.left - screen.left) / screen.w * nx
            fx1 = (shown.right - screen.left) / screen.w * nx
            fy0 = (shown.top - screen.top) / screen.h * ny
            fy1 = (shown.bottom - screen.top) / screen.h * ny
            i0, i1 = max(0, math.floor(fx0)), min(nx, math.ceil(fx1))
            j0, j1 = max(0, math.floor(fy0)), min(ny, math.ceil(fy1))
            sub = grid[i0:i1, ::-1][:, j0:j1]  # rows flipped: screen y grows downwards
            if sub.size:
                img = pygame.Surface(sub.shape, pygame.SRCALPHA)
                rgb = pygame.surfarray.pixels3d(img)
                rgb[...] = _ramp(sub)
                del rgb
                alpha = pygame.surfarray.pixels_alpha(img)
                alpha[...] = np.clip(185 * np.sqrt(np.clip(sub, 0.0, 1.0)), 0, 185).astype(np.uint8)
                del alpha
                cell_w, cell_h = screen.w / nx, screen.h / ny
                dest = pygame.Rect(round(screen.left + i0 * cell_w), round(screen.top + j0 * cell_h),
                                   max(1, round((i1 - i0) * cell_w)), max(1, round((j1 - j0) * cell_h)))
                out = (pygame.transform.smoothscale(img, dest.size), dest.topleft)
    _scaled_cache[key] = (odds, *out)
    while len(_scaled_cache) > 4:
        _scaled_cache.popitem(last=False)
    return out


# --------------------------------------------------------------------------- drawing


def disc_radius(p: float) -> float:
    """Screen radius of a landing point with chance ``p``: area proportional to the chance."""
    return max(DISC_MIN_PX, DISC_PX_AT_1 * math.sqrt(max(0.0, p)))


def draw_odds(
    surface: pygame.Surface,
    viewport: Viewport,
    scenario: Scenario,
    odds: OddsResult,
    *,
    legend: bool = True,
    note: str | None = None,
    legend_corner: str = "bottomleft",
    frame: Frame | None = None,
) -> Frame:
    """Heat map, landing points, a label per model with a chance, and a legend (``note`` heads it;
    ``legend_corner``: ``bottomleft`` or ``topright`` of the clip area, the preferred corner).

    ``frame``: what the table under it holds (``draw_scene``'s return): the labels go through the
    label layout clear of its labels, bases and panels, the legend docks where it covers none of
    them. Returns the frame with the odds labels and legend added."""
    clip = surface.get_clip() or surface.get_rect()
    layer = pygame.Surface(clip.size, pygame.SRCALPHA)
    heat, at = _heat_surface(odds, viewport, clip)
    if heat is not None:
        layer.blit(heat, (at[0] - clip.left, at[1] - clip.top))
    for t in odds.templates:
        single = len(t.landings) == 1
        for x, y, p in sorted(t.landing_points, key=lambda e: e[2]):
            if p <= 0:
                continue
            sx, sy = viewport.to_screen(x, y)
            cx, cy = sx - clip.left, sy - clip.top
            if single:
                # One place only: a small ring, not a disc over the models it lands on.
                pygame.draw.circle(layer, (*heat_colour(p), 230), (cx, cy), 7, 3)
                continue
            r = disc_radius(p)
            if not (-r <= cx <= clip.w + r and -r <= cy <= clip.h + r):
                continue
            a = round(110 + 130 * min(1.0, math.sqrt(p)))
            pygame.draw.circle(layer, (*heat_colour(p), a), (cx, cy), r)
            pygame.draw.circle(layer, (*INK, min(255, a + 20)), (cx, cy), r, 1 if r < 6 else 2)
    # The table's labels and panels stay crisp over the shade: their pixels go back on top of it.
    kept = []
    if frame is not None:
        for r in frame.taken():
            box = pygame.Rect(r).clip(clip)
            if box.width > 0 and box.height > 0:
                kept.append((surface.subsurface(box).copy(), box.topleft))
    surface.blit(layer, clip.topleft)
    if kept:
        surface.fblits(kept)
    frame = frame if frame is not None else Frame(surface.get_size())
    if legend:
        box = legend_box(odds, note, clip, legend_corner)
        corner = "bottom_left" if legend_corner == "bottomleft" else "top_right"
        spot = frame.dock([Overlay("odds_legend", box.size, corner)], canvas=(clip.left, clip.top, clip.width, clip.height))["odds_legend"]
        if spot is not None:
            box.topleft = spot[:2]
            frame = frame.adding(overlays={"odds_legend": (box.x, box.y, box.w, box.h)})
        draw_legend(surface, odds, note, clip, legend_corner, at=box)
    return _draw_labels(surface, viewport, scenario, odds, clip, frame)


def _draw_labels(surface: pygame.Surface, viewport: Viewport, scenario: Scenario, odds: OddsResult, clip: pygame.Rect, frame: Frame) -> Frame:
    """A label per model with a chance (above its base first), laid over ``frame``."""
    from tabletop.draw.labels import PRIORITY, Label, place_over

    font = _font(17, True)
    labels: list[Label] = []
    for m in scenario.models:
        lines = model_label(scenario, odds, m.id)
        if not lines:
            continue
        p = max(t.models[m.id].p_affected for t in odds.templates if m.id in t.models)
        imgs = [font.render(line, True, PAPER) for line in lines]
        w = max(i.get_width() for i in imgs) + 12
        h = sum(i.get_height() for i in imgs) + 4
        box = pygame.Surface((w, h))
        box.fill(LABEL_BG[:3])
        pygame.draw.rect(box, heat_colour(p), box.get_rect(), 2, border_radius=3)
        y = 2
        for img in imgs:
            box.blit(img, (6, y))
            y += img.get_height()
        cx, cy = viewport.to_screen(m.x, m.y)
        r = viewport.length_to_screen(m.base.bounding_radius)
        # Likelier first: they keep the best spots.
        request = LabelRequest(f"odds:{m.id}", (cx, cy), (w, h), PRIORITY["odds"] + p, ("above", "right", "left", "below"), r + 2, True, "odds", " ".join(lines))
        labels.append(Label(request, box, m.id))
    return place_over(surface, frame, labels, clip)


def _method(t: OddsTemplate) -> str:
    if t.exact:
        return f"{t.id}: exact, {t.outcomes:,} outcome{'s' if t.outcomes != 1 else ''}"
    return f"{t.id}: {t.samples:,} draws, ±{_half_width(t.samples or 1):.0f}% (95%)"


def _half_width(n: int) -> float:
    return 100 * 1.96 * math.sqrt(0.25 / n)


def _legend_rows(odds: OddsResult, note: str | None) -> tuple[list[pygame.Surface], int, int, int, int]:
    title_f, body_f, small_f = _font(17, True), _font(14), _font(13)
    unit = damage_unit(odds.scenario.ruleset)
    title = "Odds" + (f" — {note}" if note else "")
    rows: list[pygame.Surface] = [title_f.render(title, True, (255, 214, 90))]
    rows.append(body_f.render(f"label: chance to be affected · expected {unit}", True, PAPER))
    rows.append(body_f.render("dots: where the template's centre lands (bigger = likelier)", True, PAPER))
    rows.append(body_f.render("shade: chance a point ends under a template", True, PAPER))
    rows += [small_f.render(_method(t), True, (185, 192, 200)) for t in odds.templates[:4]]
    if len(odds.templates) > 4:
        rows.append(small_f.render(f"… and {len(odds.templates) - 4} more templates", True, (185, 192, 200)))
    disc_w = round(2 * DISC_PX_AT_1 * math.sqrt(0.5)) + 2
    ramp_h = 12
    w = max(max(r.get_width() for r in rows), 3 * disc_w + 140) + 20
    h = sum(r.get_height() for r in rows) + disc_w + ramp_h + 34
    return rows, disc_w, ramp_h, w, h


def legend_box(odds: OddsResult, note: str | None, clip: pygame.Rect, corner: str = "bottomleft") -> pygame.Rect:
    """Where the odds legend goes in ``corner`` of ``clip`` when nothing else decides."""
    _, _, _, w, h = _legend_rows(odds, note)
    box = pygame.Rect(clip.left + 12, clip.bottom - h - 46, w, h)
    if corner == "topright":
        box.topright = (clip.right - 12, clip.top + 64)  # below a title band
    box.clamp_ip(clip)
    return box


def draw_legend(
    surface: pygame.Surface, odds: OddsResult, note: str | None, clip: pygame.Rect | None = None, corner: str = "bottomleft", at: pygame.Rect | None = None
) -> pygame.Rect:
    """The key to the odds drawing in a corner of ``clip`` (``bottomleft``, ``topright``) or at ``at``; returns its rect."""
    clip = clip or surface.get_clip() or surface.get_rect()
    box = at if at is not None else legend_box(odds, note, clip, corner)
    rows, disc_w, ramp_h, w, _ = _legend_rows(odds, note)
    small_f = _font(13)
    sample = f"63% · 4.2 {damage_unit(odds.scenario.ruleset)}"
    back = pygame.Surface(box.size, pygame.SRCALPHA)
    back.fill((24, 27, 32, 230))
    surface.blit(back, box.topleft)
    pygame.draw.rect(surface, (90, 95, 105), box, 1, border_radius=4)
    y = box.top + 6
    surface.blit(rows[0], (box.left + 10, y))
    y += rows[0].get_height() + 2
    for row in rows[1:4]:
        surface.blit(row, (box.left + 10, y))
        y += row.get_height()
    # Reference discs: 50%, 10%, 1%.
    x = box.left + 10
    cy = y + 4 + disc_w // 2
    for p in (0.5, 0.1, 0.01):
        r = disc_radius(p)
        pygame.draw.circle(surface, heat_colour(p), (x + disc_w // 2, cy), r)
        pygame.draw.circle(surface, INK, (x + disc_w // 2, cy), r, 1)
        lab = small_f.render(percent(p), True, PAPER)
        surface.blit(lab, lab.get_rect(midleft=(x + disc_w // 2 + r + 4, cy)))
        x += disc_w + 28
    sample_img = _font(15, True).render(sample, True, PAPER)
    srect = sample_img.get_rect(midleft=(x + 6, cy)).inflate(10, 4)
    pygame.draw.rect(surface, INK, srect)
    pygame.draw.rect(surface, heat_colour(0.63), srect, 2, border_radius=3)
    surface.blit(sample_img, sample_img.get_rect(center=srect.center))
    y += disc_w + 8
    # The shade ramp, 0 → 100%.
    ramp_w = w - 80
    vals = np.linspace(0.0, 1.0, ramp_w)
    strip = pygame.Surface((ramp_w, ramp_h))
    strip_rgb = pygame.surfarray.pixels3d(strip)
    strip_rgb[...] = _ramp(vals)[:, None, :]
    del strip_rgb
    surface.blit(strip, (box.left + 30, y))
    surface.blit(small_f.render("0", True, PAPER), (box.left + 14, y - 2))
    surface.blit(small_f.render("100%", True, PAPER), (box.left + 34 + ramp_w, y - 2))
    y += ramp_h + 6
    for row in rows[4:]:
        surface.blit(row, (box.left + 10, y))
        y += row.get_height()
    return box
