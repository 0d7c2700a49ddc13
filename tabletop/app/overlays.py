"""Interactive overlays drawn over the table: selection and rotation handles, the
loupe, the ruler, placement hints, the fire animation and the help screen.

Drawing only reads the values it is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import pygame

from tabletop.coverage import uncertainty_mm
from tabletop.model import Model, PlacedTemplate, Point, Scenario
from tabletop.shapes import base_outline, template_polygon
from tabletop.viewport import Viewport

from .elevation import ElevationProfile
from .hit import closest_contact, rotation_handle
from .shortcuts import SHORTCUTS

HANDLE_OFFSET_PX = 22
HANDLE_RADIUS_PX = 8
ACCENT = (255, 214, 90)
INK = (20, 22, 26)
PAPER = (245, 245, 240)
PANEL_BG = (28, 31, 36, 230)


def _font_file(bold: bool) -> str | None:
    # pygame_gui ships Noto Sans, which has the arrows, minus signs and degrees we print.
    try:
        from importlib.resources import files

        path = files("pygame_gui.data") / ("NotoSans-Bold.ttf" if bold else "NotoSans-Regular.ttf")
        return str(path) if path.is_file() else None
    except (ImportError, OSError):
        return None


@lru_cache(maxsize=32)
def font(size: int, bold: bool = False) -> pygame.font.Font:
    """Noto Sans at ``size`` px (pygame's default font if it is missing)."""
    path = _font_file(bold)
    if path is None:
        f = pygame.font.Font(None, size + 4)
        f.set_bold(bold)
        return f
    return pygame.font.Font(path, max(8, round(size * 0.78)))


def text(surface: pygame.Surface, s: str, pos: tuple[float, float], colour: tuple[int, int, int] = PAPER, size: int = 18, anchor: str = "topleft", bold: bool = False) -> pygame.Rect:
    """Blit ``s`` at ``pos`` (``anchor`` as in ``pygame.Rect``); returns its rect."""
    img = font(size, bold).render(s, True, colour)
    rect = img.get_rect(**{anchor: (round(pos[0]), round(pos[1]))})
    surface.blit(img, rect)
    return rect


def label_box(surface: pygame.Surface, lines: list[str], pos: tuple[float, float], size: int = 17) -> pygame.Rect:
    """A small dark box of text lines near ``pos``, kept inside the surface."""
    f = font(size)
    imgs = [f.render(line, True, PAPER) for line in lines]
    w = max(i.get_width() for i in imgs) + 12
    h = sum(i.get_height() for i in imgs) + 8
    x, y = pos
    bounds = surface.get_clip() or surface.get_rect()
    x = min(max(bounds.left, x), bounds.right - w)
    y = min(max(bounds.top, y), bounds.bottom - h)
    box = pygame.Surface((w, h), pygame.SRCALPHA)
    box.fill(PANEL_BG)
    surface.blit(box, (x, y))
    pygame.draw.rect(surface, (90, 95, 105), (x, y, w, h), 1)
    cy = y + 4
    for img in imgs:
        surface.blit(img, (x + 6, cy))
        cy += img.get_height()
    return pygame.Rect(x, y, w, h)


def handle_world(placed: PlacedTemplate, viewport: Viewport) -> Point:
    """The rotation handle of ``placed`` in world mm (a fixed distance in pixels past its end)."""
    return rotation_handle(placed, viewport.length_to_world(HANDLE_OFFSET_PX))


def draw_selection(surface: pygame.Surface, viewport: Viewport, scenario: Scenario, placed: dict[str, PlacedTemplate], kind: str, item_id: str) -> None:
    """Highlight the selected item; a template also gets its rotation handle."""
    if kind == "template" and item_id in placed:
        p = placed[item_id]
        pts = viewport.to_screen_array(np.asarray(template_polygon(p, 128).exterior.coords))
        pygame.draw.lines(surface, ACCENT, True, pts, 2)
        fx, fy = viewport.to_screen(*p.focus)
        hx, hy = viewport.to_screen(*handle_world(p, viewport))
        pygame.draw.line(surface, ACCENT, (fx, fy), (hx, hy), 1)
        pygame.draw.circle(surface, INK, (hx, hy), HANDLE_RADIUS_PX + 2)
        pygame.draw.circle(surface, ACCENT, (hx, hy), HANDLE_RADIUS_PX)
        _arrow_arc(surface, (hx, hy))
        pygame.draw.circle(surface, ACCENT, (fx, fy), 7, 2)
    elif kind == "model":
        try:
            m = scenario.model(item_id)
        except KeyError:
            return
        pts = viewport.to_screen_array(base_outline(m.base, m.x, m.y, m.facing, 48))
        r = max(3.0, viewport.length_to_screen(m.base.bounding_radius))
        cx, cy = viewport.to_screen(m.x, m.y)
        pygame.draw.lines(surface, ACCENT, True, pts, 2)
        for a in range(0, 360, 90):
            ang = math.radians(a + 45)
            pygame.draw.circle(surface, ACCENT, (cx + (r + 6) * math.cos(ang), cy + (r + 6) * math.sin(ang)), 3)
    elif kind == "terrain":
        try:
            t = scenario.terrain_piece(item_id)
        except KeyError:
            return
        pts = viewport.to_screen_array(t.polygon)
        pygame.draw.lines(surface, ACCENT, True, pts, 2)
        for x, y in pts:
            pygame.draw.rect(surface, ACCENT, (x - 3, y - 3, 7, 7))


def _arrow_arc(surface: pygame.Surface, centre: tuple[float, float]) -> None:
    rect = pygame.Rect(0, 0, 10, 10)
    rect.center = (round(centre[0]), round(centre[1]))
    pygame.draw.arc(surface, INK, rect, 0.3, 5.2, 2)


def draw_attacker_hint(surface: pygame.Surface, viewport: Viewport, attacker: Model, mouse: Point | None) -> None:
    """Impact mode: the picked attacker and a line of fire to the cursor."""
    cx, cy = viewport.to_screen(attacker.x, attacker.y)
    r = viewport.length_to_screen(attacker.base.bounding_radius)
    pygame.draw.circle(surface, (255, 90, 60), (cx, cy), r + 6, 3)
    if mouse is not None:
        mx, my = viewport.to_screen(*mouse)
        _dashed(surface, (255, 90, 60), (cx, cy), (mx, my))


def _dashed(surface: pygame.Surface, colour: tuple[int, int, int], a: tuple[float, float], b: tuple[float, float], dash: float = 8.0) -> None:
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    if length < 1:
        return
    n = int(length // dash)
    for i in range(0, n, 2):
        t0, t1 = i / n, min(1.0, (i + 1) / n)
        pygame.draw.line(surface, colour, (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0), (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1), 2)


@dataclass(frozen=True)
class RulerReading:
    """A measurement between two points, with the base-edge gap when both ends are on models."""

    start: Point
    end: Point
    centre_mm: float
    edge_mm: float | None


def measure(scenario: Scenario, start: Point, end: Point, start_model: str | None, end_model: str | None) -> RulerReading:
    """Centre-to-centre and (between two models) base-edge-to-base-edge distances."""
    from shapely import distance as shapely_distance

    from tabletop.shapes import base_polygon

    centre = math.hypot(end[0] - start[0], end[1] - start[1])
    edge: float | None = None
    if start_model and end_model and start_model != end_model:
        a, b = scenario.model(start_model), scenario.model(end_model)
        if a.base.is_round and b.base.is_round:
            edge = centre - a.base.length / 2 - b.base.length / 2
        else:
            edge = float(shapely_distance(base_polygon(a, 256, False), base_polygon(b, 256, False)))
            if edge == 0.0:
                edge = centre - a.base.bounding_radius - b.base.bounding_radius
    return RulerReading(start, end, centre, edge)


def draw_ruler(surface: pygame.Surface, viewport: Viewport, reading: RulerReading) -> None:
    a = viewport.to_screen(*reading.start)
    b = viewport.to_screen(*reading.end)
    pygame.draw.line(surface, INK, a, b, 5)
    pygame.draw.line(surface, (255, 255, 255), a, b, 2)
    for p in (a, b):
        pygame.draw.circle(surface, (255, 255, 255), p, 4)
    lines = [f"centre to centre  {reading.centre_mm / 25.4:.2f}\"  ({reading.centre_mm:.1f} mm)"]
    if reading.edge_mm is not None:
        lines.append(f"edge to edge  {reading.edge_mm / 25.4:.2f}\"  ({reading.edge_mm:.1f} mm)")
    mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    frame = _frame[0] if _frame else None
    if frame is None:
        label_box(surface, lines, (mid[0] + 12, mid[1] + 12))
        return
    # The readout is one more label over the frame: off the names, badges, bases and panels.
    from tabletop.draw.labels import Label, place_over
    from tabletop.label_layout import LabelRequest

    w, h = message_size(lines, 17)
    box = pygame.Surface((w, h), pygame.SRCALPHA)
    label_box(box, lines, (0, 0))
    request = LabelRequest("ruler", mid, (w, h), 100.0, ("below_right", "above_right", "below_left", "above_left"), 6.0, True, "ruler", lines[0])
    clip = surface.get_clip() or surface.get_rect()
    _frame[0] = place_over(surface, frame, [Label(request, box)], clip, must=("ruler",))


#: The frame under the overlays being drawn (set by the window each frame): readouts keep off its labels.
_frame: list[Any] = []


def set_frame(frame: Any) -> None:
    """Tell the overlays what the table frame holds (``draw_scene``'s Frame), or None."""
    _frame[:] = [] if frame is None else [frame]


@dataclass(frozen=True)
class LoupeView:
    """What the loupe magnifies: one base against one template's nearest outline point."""

    template_id: str
    model_id: str
    boundary: Point
    edge: Point
    margin_mm: float


def loupe_target(model: Model, placed: dict[str, PlacedTemplate]) -> LoupeView | None:
    """The closest contact between ``model``'s base and any template."""
    best: LoupeView | None = None
    for template_id, p in placed.items():
        boundary, edge, gap = closest_contact(model, p)
        if best is None or abs(gap) < abs(best.margin_mm):
            best = LoupeView(template_id, model.id, boundary, edge, -gap)
    return best


@lru_cache(maxsize=16)
def _fine_outline(placed: PlacedTemplate) -> np.ndarray:
    # 40 000 segments: the polygon is within ~1e-6 mm of the true curve, far below a loupe pixel.
    return np.asarray(template_polygon(placed, 40_000).exterior.coords)


def draw_loupe(surface: pygame.Surface, rect: pygame.Rect, model: Model, placed: PlacedTemplate, view: LoupeView) -> None:
    """A magnified inset around the closest contact, with the margin in mm."""
    gap = abs(view.margin_mm)
    scale = min(300.0, max(2.0, rect.width * 0.3 / max(gap, 0.05)))
    centre = ((view.boundary[0] + view.edge[0]) / 2, (view.boundary[1] + view.edge[1]) / 2)
    lv = Viewport(centre, scale, (rect.left, rect.top, rect.width, rect.height))
    old_clip = surface.get_clip()
    surface.set_clip(rect)
    surface.fill((236, 232, 220), rect)
    _shade_loupe(surface, rect, lv, model, placed)
    half_w = rect.width / 2 / scale
    pts = _fine_outline(placed)
    near = np.hypot(pts[:, 0] - centre[0], pts[:, 1] - centre[1]) < half_w * 2.5
    if near.any():
        # Keep only the stretch of outline in view so the line does not wrap around the loupe.
        idx = np.nonzero(near)[0]
        for run in np.split(idx, np.nonzero(np.diff(idx) != 1)[0] + 1):
            if len(run) >= 2:
                pygame.draw.lines(surface, (200, 90, 20), False, lv.to_screen_array(pts[run]), 3)
    base_pts = base_outline(model.base, model.x, model.y, model.facing, 2048)
    pygame.draw.lines(surface, (40, 70, 160), True, lv.to_screen_array(base_pts), 3)
    a = lv.to_screen(*view.boundary)
    b = lv.to_screen(*view.edge)
    pygame.draw.line(surface, INK, a, b, 1)
    pygame.draw.circle(surface, (200, 90, 20), a, 3)
    pygame.draw.circle(surface, (40, 70, 160), b, 3)
    bar_mm = _nice_bar(rect.width * 0.3 / scale)
    bx, by = rect.left + 10, rect.bottom - 12
    pygame.draw.line(surface, INK, (bx, by), (bx + bar_mm * scale, by), 2)
    text(surface, f"{bar_mm:g} mm", (bx, by - 4), INK, 15, "bottomleft")
    surface.set_clip(old_clip)
    pygame.draw.rect(surface, INK, rect, 2)
    inside = "into" if view.margin_mm >= 0 else "short of"
    title = f"{model.label} · {view.template_id}"
    text(surface, title, (rect.centerx, rect.top + 6), INK, 17, "midtop", bold=True)
    plus_minus = uncertainty_mm(placed.shape.size_uncertainty, model.sigma)
    spread = f" ± {plus_minus:.3f}" if plus_minus > 0 else ""
    text(surface, f"{abs(view.margin_mm):.3f}{spread} mm {inside} the template", (rect.centerx, rect.top + 22), INK, 16, "midtop")


def _shade_loupe(surface: pygame.Surface, rect: pygame.Rect, lv: Viewport, model: Model, placed: PlacedTemplate, cell: int = 2) -> None:
    """Tint the loupe: template only, base only, and their overlap, from the exact outlines."""
    from tabletop.shapes import template_sdf

    from .hit import inside_base_array

    nx, ny = rect.width // cell, rect.height // cell
    sx = rect.left + (np.arange(nx) + 0.5) * cell
    sy = rect.top + (np.arange(ny) + 0.5) * cell
    gx, gy = np.meshgrid(sx, sy, indexing="ij")
    wx = lv.centre[0] + (gx - lv.screen_centre[0]) / lv.scale
    wy = lv.centre[1] - (gy - lv.screen_centre[1]) / lv.scale
    pts = np.stack([wx.ravel(), wy.ravel()], axis=-1)
    in_t = (template_sdf(placed, pts) <= 0).reshape(nx, ny)
    in_b = inside_base_array(model, pts).reshape(nx, ny)
    rgb = np.empty((nx, ny, 3), dtype=np.uint8)
    rgb[:] = (236, 232, 220)
    rgb[in_t & ~in_b] = (250, 206, 160)
    rgb[in_b & ~in_t] = (190, 205, 240)
    rgb[in_t & in_b] = (214, 150, 205)
    img = pygame.surfarray.make_surface(rgb)
    surface.blit(pygame.transform.scale(img, (nx * cell, ny * cell)), rect.topleft)


def _nice_bar(mm: float) -> float:
    for v in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50):
        if v >= mm * 0.5:
            return v
    return 100.0


def draw_animation(surface: pygame.Surface, viewport: Viewport, placed: PlacedTemplate, caption: str, progress: float) -> None:
    """One frame of the fire animation: the template where the step puts it."""
    pts = viewport.to_screen_array(np.asarray(template_polygon(placed, 128).exterior.coords))
    layer = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
    pygame.draw.polygon(layer, (255, 120, 40, 90), pts)
    surface.blit(layer, (0, 0))
    pygame.draw.lines(surface, (255, 120, 40), True, pts, 3)
    fx, fy = viewport.to_screen(*placed.focus)
    pulse = 6 + 6 * abs(math.sin(progress * math.pi * 4))
    pygame.draw.circle(surface, (255, 240, 200), (fx, fy), pulse, 2)
    clip = surface.get_clip() or surface.get_rect()
    box = label_box(surface, [caption], (clip.left + 12, clip.bottom - 64), 20)
    # Progress bar under the caption: how far through this step we are.
    pygame.draw.rect(surface, (255, 120, 40), (box.left, box.bottom + 2, round(box.width * max(0.0, min(1.0, progress))), 4))


def interpolate(a: PlacedTemplate, b: PlacedTemplate, t: float) -> PlacedTemplate:
    """A placement ``t`` (0..1) of the way from ``a`` to ``b`` (shortest turn)."""
    t = max(0.0, min(1.0, t))
    t = t * t * (3 - 2 * t)
    turn = (b.heading - a.heading + 180.0) % 360.0 - 180.0
    focus = (a.focus[0] + (b.focus[0] - a.focus[0]) * t, a.focus[1] + (b.focus[1] - a.focus[1]) * t)
    return PlacedTemplate(b.id, b.shape, focus, a.heading + turn * t, b.user)


def wrap_text(f: pygame.font.Font, s: str, width: int) -> list[str]:
    """``s`` broken at spaces into lines no wider than ``width`` (a longer word stands alone)."""
    lines: list[str] = []
    line = ""
    for word in s.split():
        candidate = f"{line} {word}" if line else word
        if line and f.size(candidate)[0] > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    return lines + [line] if line else lines


def _columns(heights: list[int], count: int) -> list[list[int]]:
    """Indices of ``heights`` split in order into ``count`` runs of about equal total."""
    target = sum(heights) / count
    runs: list[list[int]] = [[]]
    total = 0
    for i, h in enumerate(heights):
        if runs[-1] and total + h / 2 > target * len(runs) and len(runs) < count:
            runs.append([])
        runs[-1].append(i)
        total += h
    return runs


def _fitting(heights: list[int], run: list[int], room: int) -> int:
    """How many rows of ``run`` fit, in order, in ``room`` pixels."""
    used = shown = 0
    for i in run:
        if used + heights[i] > room:
            break
        used += heights[i]
        shown += 1
    return shown


def draw_help(surface: pygame.Surface, rect: pygame.Rect) -> None:
    """The F1 overlay listing every shortcut, over ``rect`` (the window above the status bar).

    The text shrinks (19 px down to 13), wraps and spreads over two columns before any shortcut
    is cut off; only a window too small even for that shows how many were left out.
    """
    shade = pygame.Surface(rect.size, pygame.SRCALPHA)
    shade.fill((10, 12, 16, 200))
    surface.blit(shade, rect.topleft)
    fits, best = None, None
    for size in (19, 17, 15, 13):
        f, fb = font(size), font(size, True)
        line_h = f.get_linesize()
        key_w = max(fb.size(k)[0] for k, _ in SHORTCUTS) + 16
        for count in (1, 2):
            box_w = min(rect.width - 24, 780 * count)
            col_w = (box_w - 48 - (count - 1) * 28) // count
            if col_w - key_w < (150 if count == 1 else 110):
                continue
            rows = [(k, wrap_text(f, w, col_w - key_w)) for k, w in SHORTCUTS]
            heights = [len(lines) * line_h + 3 for _, lines in rows]
            runs = _columns(heights, count)
            body_h = max(sum(heights[i] for i in run) for run in runs)
            option = (size, key_w, box_w, col_w, rows, heights, runs, body_h)
            if 78 + body_h + 12 <= rect.height - 24:
                fits = option
                break
            room = rect.height - 24 - 78 - 12 - 18
            count_shown = sum(_fitting(heights, run, room) for run in runs)
            if best is None or count_shown > best[0]:
                best = (count_shown, option)
        if fits is not None:
            break
    chosen = fits or (best[1] if best else None)
    if chosen is None:
        return
    size, key_w, box_w, col_w, rows, heights, runs, body_h = chosen
    box_h = min(rect.height - 24, 78 + body_h + 12)
    box = pygame.Rect(0, 0, box_w, box_h)
    box.center = rect.center
    pygame.draw.rect(surface, (34, 38, 46), box, border_radius=8)
    pygame.draw.rect(surface, ACCENT, box, 2, border_radius=8)
    title = text(surface, "Keyboard and mouse", (box.left + 24, box.top + 14), ACCENT, 26, bold=True)
    note_w = font(16).size("F1 or Esc closes this")[0]
    if title.right + 24 + note_w <= box.right - 24:
        text(surface, "F1 or Esc closes this", (box.right - 24, box.top + 20), (170, 170, 170), 16, "topright")
    else:
        text(surface, "F1 or Esc closes this", (box.left + 24, title.bottom), (170, 170, 170), 16)
    line_h = font(size).get_linesize()
    top = box.top + 70

    def shown(bottom: int) -> list[list[int]]:
        out = []
        for run in runs:
            y, keep = top, []
            for i in run:
                if y + heights[i] > bottom:
                    break
                keep.append(i)
                y += heights[i]
            out.append(keep)
        return out

    visible = shown(box.bottom - 8)
    if sum(map(len, visible)) < len(rows):
        visible = shown(box.bottom - 26)  # room for the line saying how many are left out
    for c, run in enumerate(visible):
        x, y = box.left + 24 + c * (col_w + 28), top
        for i in run:
            keys, lines = rows[i]
            text(surface, keys, (x, y), ACCENT, size, bold=True)
            for k, line in enumerate(lines):
                text(surface, line, (x + key_w, y + k * line_h), PAPER, size)
            y += heights[i]
    left_out = len(rows) - sum(map(len, visible))
    if left_out:
        text(surface, f"… {left_out} more: enlarge the window to see every shortcut", (box.right - 16, box.bottom - 6), (255, 190, 120), 14, "bottomright")


def message_size(lines: list[str], size: int = 19) -> tuple[int, int]:
    """The size of :func:`draw_message`'s box for ``lines``."""
    if not lines:
        return (0, 0)
    f = font(size)
    return (max(f.size(line)[0] for line in lines) + 12, sum(f.size(line)[1] for line in lines) + 8)


def wrap_message(lines: list[str], max_width: int, size: int = 19) -> list[str]:
    """``lines`` of :func:`draw_message` each broken at its " · " separators into lines at most
    ``max_width`` px wide (a hint listing several gestures is wider than a small window's table)."""
    f = font(size)
    out: list[str] = []
    for line in lines:
        if f.size(line)[0] + 12 <= max_width:
            out.append(line)
            continue
        current = ""
        for part in line.split(" · "):
            joined = f"{current} · {part}" if current else part
            if current and f.size(joined)[0] + 12 > max_width:
                out.append(current)
                current = part
            else:
                current = joined
        out.append(current)
    return out


def draw_message(surface: pygame.Surface, rect: pygame.Rect, lines: list[str], at: tuple[int, int] | None = None) -> None:
    """A short note at the bottom of the table view (placement-mode hints), or at ``at`` (docked)."""
    if not lines:
        return
    label_box(surface, lines, at if at is not None else (rect.left + 12, rect.bottom - 12 - 20 * len(lines)), 19)


# --------------------------------------------------------------------------- side elevation (a ruleset's side view)


def draw_elevation(surface: pygame.Surface, rect: pygame.Rect, profile: ElevationProfile) -> None:
    """The side view of a template along its axis: its vertical reach, the silhouettes its flat
    area meets (coloured by status) and the terrain the axis crosses, at one scale for both axes."""
    from tabletop.draw import status_colour

    old_clip = surface.get_clip()
    surface.set_clip(rect)
    back = pygame.Surface(rect.size, pygame.SRCALPHA)
    back.fill((26, 29, 34, 240))
    surface.blit(back, rect.topleft)
    title = f"Side view · {profile.template_id} along its axis · vertical model '{profile.vertical_model}'"
    text(surface, title, (rect.left + 8, rect.top + 5), ACCENT, 16, bold=True)
    sub = f"focus z {profile.focus_z:g} mm ({profile.focus_z_from}) · height ±{profile.height:.1f} mm"
    text(surface, sub, (rect.left + 8, rect.top + 22), (185, 192, 200), 14)
    plot = pygame.Rect(rect.left + 40, rect.top + 44 + 34, rect.width - 52, rect.height - 44 - 34 - 24)  # 34: name rows
    u_lo, u_hi = profile.u_range
    z_lo, z_hi = profile.z_range
    # Below the table nothing can be hit: show only a little of the reach under it.
    floor = min([0.0, *(t.bottom for t in profile.troopers)])
    z_lo = max(z_lo, floor - 10.0)
    u_pad = max(8.0, 0.06 * (u_hi - u_lo))
    u_lo, u_hi = u_lo - u_pad, u_hi + u_pad
    z_lo, z_hi = z_lo - 2.0, z_hi + 6.0
    scale = min(plot.width / (u_hi - u_lo), plot.height / (z_hi - z_lo))
    # Centre the drawing in the plot at that one scale.
    ox = plot.left + (plot.width - (u_hi - u_lo) * scale) / 2 - u_lo * scale
    oy = plot.bottom - (plot.height - (z_hi - z_lo) * scale) / 2 + z_lo * scale

    def at(u: float, z: float) -> tuple[float, float]:
        return (ox + u * scale, oy - z * scale)

    layer = pygame.Surface(rect.size, pygame.SRCALPHA)
    names: list[tuple[float, float, str, tuple[int, int, int], bool]] = []  # x, bottom y, text, colour, bold

    def shifted(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(x - rect.left, y - rect.top) for x, y in points]

    ground_y = at(0.0, 0.0)[1]
    pygame.draw.rect(layer, (92, 72, 52, 150), (0, ground_y - rect.top, rect.width, rect.bottom - ground_y))
    # Terrain the axis crosses: grey blocks from the table up to their height.
    for b in profile.blocks:
        top = b.height if b.height is not None else z_hi
        x0, y0 = at(b.u0, top)
        x1, y1 = at(b.u1, 0.0)
        pygame.draw.rect(layer, (150, 150, 150, 200), (x0 - rect.left, y0 - rect.top, x1 - x0, y1 - y0))
    reach = [at(u, z) for u, z in profile.reach]
    pygame.draw.polygon(layer, (255, 150, 40, 80), shifted(reach))
    surface.blit(layer, rect.topleft)
    for b in profile.blocks:
        top = b.height if b.height is not None else z_hi
        x0, y0 = at(b.u0, top)
        x1, _ = at(b.u1, 0.0)
        pygame.draw.rect(surface, (200, 200, 200), (x0, y0, x1 - x0, ground_y - y0), 1)
        h = "any height" if b.height is None else f"{b.height:g} mm"
        names.append(((x0 + x1) / 2, y0 - 2, f"{b.label} {h}", (200, 200, 200), False))
    pygame.draw.lines(surface, (255, 150, 40), True, reach, 2)
    fx0, fy = at(profile.u_min, profile.focus_z)
    fx1, _ = at(profile.u_max, profile.focus_z)
    pygame.draw.line(surface, (255, 200, 120), (fx0, fy), (fx1, fy), 3)  # the flat template, edge on
    pygame.draw.line(surface, (205, 190, 160), (rect.left, ground_y), (rect.right, ground_y), 1)
    # Silhouettes: a box from the base's elevation up by its height, at the base's extent on the axis.
    for t in profile.troopers:
        x0, y0 = at(t.u0, t.top)
        x1, y1 = at(t.u1, t.bottom)
        box = pygame.Rect(round(x0), round(y0), max(2, round(x1 - x0)), max(2, round(y1 - y0)))
        colour = status_colour(t.status)
        fill = pygame.Surface(box.size, pygame.SRCALPHA)
        fill.fill((*colour, 170 if t.on_axis else 80))
        surface.blit(fill, box.topleft)
        if t.on_axis:
            pygame.draw.rect(surface, PAPER, box, 1)
        else:
            _dashed_rect(surface, PAPER, box)
        names.append((box.centerx, box.top - 2, t.label if t.reached else f"{t.label}: out of reach",
                      PAPER if t.reached else (255, 130, 110), True))
        tall = f"{t.top - t.bottom:g} mm" if t.silhouette.startswith("height") else t.silhouette.split(",")[0].replace(" (default)", "")
        if box.height >= 16 and font(13).size(tall)[0] <= box.width + 4:
            text(surface, tall, (box.centerx, box.bottom - 1), INK, 13, "midbottom")
    # Sight lines a ruleset reports (Infinity: each trooper's line of fire to the attacker): clear solid, blocked dashed.
    for line in getattr(profile, "sight_lines", ()):
        a, b = at(*line.start), at(*line.end)
        if line.clear:
            pygame.draw.line(surface, (86, 180, 233), a, b, 2)
        else:
            _dashed(surface, (230, 159, 0), a, b, 6.0)
    # Names above their boxes, lifted a row at a time where they would overlap.
    taken: list[pygame.Rect] = []
    for x, bottom, words, colour, bold in sorted(names, key=lambda n: -n[1]):
        w, h = font(13, bold).size(words)
        r = pygame.Rect(0, 0, w + 4, h)
        r.midbottom = (round(x), round(bottom))
        while r.collidelist(taken) >= 0 and r.top > rect.top + 40:
            r.y -= h
        taken.append(r)
        text(surface, words, r.center, colour, 13, "center", bold)
    fx, fz = at(0.0, profile.focus_z)
    pygame.draw.circle(surface, INK, (fx, fz), 5)
    pygame.draw.circle(surface, (255, 240, 200), (fx, fz), 4)
    # Axes: inches along the axis, mm up the side.
    step_in = next((s for s in (0.5, 1, 2, 3, 6, 12) if s * 25.4 * scale >= 34), 12)
    k = math.ceil(u_lo / (step_in * 25.4))
    while k * step_in * 25.4 <= u_hi:
        x, _ = at(k * step_in * 25.4, 0.0)
        pygame.draw.line(surface, (170, 176, 184), (x, plot.bottom + 6), (x, plot.bottom + 10), 1)
        text(surface, f"{k * step_in:g}\"", (x, plot.bottom + 9), (170, 176, 184), 13, "midtop")
        k += 1
    text(surface, "z mm", (rect.left + 4, plot.top - 4), (170, 176, 184), 13)
    text(surface, "from the blast focus", (rect.right - 6, rect.bottom - 4), (170, 176, 184), 13, "bottomright")
    marks = sorted({0.0, round(profile.focus_z + profile.height, 1), round(profile.focus_z - profile.height, 1)})
    for z in marks:
        x, y = at(u_lo, z)
        if plot.top - 4 <= y <= rect.bottom - 8:
            text(surface, f"{z:g}", (rect.left + 36, y), (170, 176, 184), 13, "midright")
    surface.set_clip(old_clip)
    pygame.draw.rect(surface, ACCENT, rect, 1)


def _dashed_rect(surface: pygame.Surface, colour: tuple[int, int, int], box: pygame.Rect) -> None:
    corners = [box.topleft, box.topright, box.bottomright, box.bottomleft]
    for a, b in zip(corners, corners[1:] + corners[:1], strict=True):
        _dashed(surface, colour, a, b, 4.0)
