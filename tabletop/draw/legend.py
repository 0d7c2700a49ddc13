"""The legend panel: statuses, sides, the ruleset's own entries and a scale bar (pygame)."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable

import pygame

from tabletop.draw.checks import badge
from tabletop.draw.primitives import _arrow, _dashed
from tabletop.draw.plan import legend_rows
from tabletop.draw.scene import _Scene, _circle_ring_screen, _inch_label
from tabletop.draw.style import (
    BUILDING_FILL,
    CONTESTED_COLOUR,
    CONTESTED_DASH,
    Colour,
    INCH,
    PANEL,
    SHADOW_FILL,
    SHADOW_HATCH,
    STATUS_COLOURS,
    palette_name,
    side_colour,
    ui_scale,
)
from tabletop.draw.text import _text
from tabletop.marks import BADGE_BACK, BLOCKED_FILL, NULLIFIED, ROSE, TEMPLATE_EDGE, TEXT, TEXT_DIM, heat_colour


_legends: OrderedDict[tuple[object, ...], pygame.Surface] = OrderedDict()


def _legend_heat(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    for k in range(box.width):
        c = heat_colour(2 ** (4 * k / max(1, box.width - 1)), 16)
        pygame.draw.line(surf, c, (box.left + k, box.top), (box.left + k, box.bottom - 1))
    pygame.draw.rect(surf, (20, 20, 20), box, 1)


def _legend_hatch(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    pygame.draw.rect(surf, BLOCKED_FILL, box)
    surf.set_clip(box)
    for k in range(-16, box.width, 5):
        pygame.draw.line(surf, colour, (box.left + k, box.bottom), (box.left + k + 16, box.top), 1)
    surf.set_clip(None)


def _legend_outline(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    pygame.draw.rect(surf, (15, 15, 15), box, 4)
    pygame.draw.rect(surf, colour, box.inflate(-1, -1), 2)


def _legend_rose(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    c = box.center
    for k in range(6):
        a = math.radians(90 - 60 * k)
        end = (c[0] + 9 * math.cos(a), c[1] - 9 * math.sin(a))
        pygame.draw.line(surf, colour if k == 1 else ROSE, c, end, 2 if k == 1 else 1)


def _legend_line(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    pygame.draw.line(surf, (15, 15, 15), box.midleft, box.midright, 5)
    pygame.draw.line(surf, colour, box.midleft, box.midright, 3)


def _legend_dash(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    for x in range(box.left, box.right, 8):
        pygame.draw.line(surf, colour, (x, box.centery), (min(x + 5, box.right), box.centery), 2)


def _legend_swatch(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    pygame.draw.rect(surf, BADGE_BACK, box, border_radius=4)
    pygame.draw.rect(surf, colour, box, 2, border_radius=4)


def _legend_arrow(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    _arrow(surf, box.midleft, box.midright, colour, 3, 9)


_LEGEND_MARKS: dict[str, Callable[[pygame.Surface, pygame.Rect, Colour], None]] = {
    "heat": _legend_heat,
    "hatch": _legend_hatch,
    "outline": _legend_outline,
    "rose": _legend_rose,
    "line": _legend_line,
    "link": _legend_line,
    "dash": _legend_dash,
    "swatch": _legend_swatch,
    "arrow": _legend_arrow,
}


def _legend_surface(scene: _Scene, scale: float) -> pygame.Surface:
    bar_in = 1.0
    for inches in (0.25, 0.5, 1, 2, 3, 6, 12, 24, 48):
        bar_in = inches
        if inches * INCH * scale >= 70:
            break
    bar_px = int(round(bar_in * INCH * scale))
    has_shadow = any(a.shadow for a in scene.templates)
    has_null = any(not a.allowed for a in scene.templates)
    extra = tuple(scene.art.legend) if scene.art is not None else ()
    key = (scene.sides, bar_px, bar_in, has_shadow, has_null, bool(scene.terrain_hit), extra, palette_name(), ui_scale())
    surf = _legends.get(key)
    if surf is not None:
        return surf
    rows, side_rows = legend_rows(scene)
    size = 14
    pad, sw, gap = 10, 22, 8
    head = _text("Legend", 16, (250, 250, 250), bold=True)
    labels = [_text(text, size, TEXT) for _, text, _ in rows + side_rows]
    sides_head = _text("Sides", 14, TEXT_DIM, bold=True) if side_rows else None
    bar_label = _text(f"{_inch_label(bar_in)} ({bar_in * INCH:g} mm)", 13, TEXT_DIM)
    row_h = max(24, round(20 * ui_scale()) + 4)
    width = max([head.get_width(), bar_px + 10 + bar_label.get_width()] + [sw + gap + s.get_width() for s in labels]) + 2 * pad
    height = pad + head.get_height() + 6 + row_h * len(rows) + (sides_head.get_height() + 6 if sides_head else 0) + row_h * len(side_rows) + 30 + pad
    surf = pygame.Surface((width, height), pygame.SRCALPHA)
    pygame.draw.rect(surf, PANEL, surf.get_rect(), border_radius=8)
    pygame.draw.rect(surf, (110, 110, 110, 255), surf.get_rect(), 1, border_radius=8)
    y = pad
    surf.blit(head, (pad, y))
    y += head.get_height() + 6

    def row(kind: str, colour: Colour, label: pygame.Surface, y: int) -> None:
        cx, cy = pad + sw // 2, y + row_h // 2
        if kind in ("fill", "affected", "total_cover"):
            pygame.draw.circle(surf, colour, (cx, cy), 9)
            pygame.draw.circle(surf, (20, 20, 20), (cx, cy), 9, 1)
            if kind == "affected":
                pygame.draw.line(surf, (20, 20, 20), (cx - 4, cy - 4), (cx + 4, cy + 4), 2)
                pygame.draw.line(surf, (20, 20, 20), (cx - 4, cy + 4), (cx + 4, cy - 4), 2)
            elif kind == "total_cover":
                for d in (-4, 0, 4):
                    pygame.draw.line(surf, (20, 20, 20), (cx - 5 + d, cy - 5 - d), (cx + 5 + d, cy + 5 - d), 1)
        elif kind == "contested":
            pygame.draw.circle(surf, STATUS_COLOURS["outside"], (cx, cy), 6)
            ring = _circle_ring_screen(cx, cy, 9.5, 24)
            pygame.draw.lines(surf, CONTESTED_COLOUR, True, ring.tolist(), 3)
            _dashed(surf, ring, CONTESTED_DASH, 3, 4, 4)
        elif kind == "check":
            badge(surf, (cx, cy))  # the mark's badge itself
        elif kind == "shadow":
            box = pygame.Rect(pad, cy - 8, sw, 16)
            pygame.draw.rect(surf, (*SHADOW_FILL, 255), box)
            surf.set_clip(box)
            for k in range(-16, sw, 5):
                pygame.draw.line(surf, SHADOW_HATCH, (pad + k, cy + 8), (pad + k + 16, cy - 8), 1)
            surf.set_clip(None)
            pygame.draw.rect(surf, (*TEMPLATE_EDGE, 255), box, 1)
        elif kind == "null":
            box = pygame.Rect(pad, cy - 8, sw, 16)
            pygame.draw.rect(surf, colour, box, 2)
            pygame.draw.line(surf, colour, box.topleft, box.bottomright, 2)
            pygame.draw.line(surf, colour, box.bottomleft, box.topright, 2)
        elif kind == "terrain":
            box = pygame.Rect(pad, cy - 8, sw, 16)
            pygame.draw.rect(surf, BUILDING_FILL, box)
            pygame.draw.rect(surf, colour, box, 2)
        elif kind in _LEGEND_MARKS:
            _LEGEND_MARKS[kind](surf, pygame.Rect(pad, cy - 8, sw, 16), colour)
        else:  # side ring
            pygame.draw.circle(surf, (200, 200, 200), (cx, cy), 9)
            pygame.draw.circle(surf, colour, (cx, cy), 9, 4)
        surf.blit(label, (pad + sw + gap, y + (row_h - label.get_height()) // 2))

    for (kind, _, colour), label in zip(rows, labels):
        row(kind, colour, label, y)
        y += row_h
    if sides_head is not None:
        y += 4
        surf.blit(sides_head, (pad, y))
        y += sides_head.get_height() + 2
        for (kind, _, colour), label in zip(side_rows, labels[len(rows) :]):
            row(kind, colour, label, y)
            y += row_h
    y += 10
    pygame.draw.rect(surf, (240, 240, 240), (pad, y, bar_px, 6))
    for k in range(0, 3):
        xx = pad + int(round(k * bar_px / 2))
        pygame.draw.line(surf, (240, 240, 240), (xx, y - 3), (xx, y + 8), 1)
    surf.blit(bar_label, (pad + bar_px + 10, y + 3 - bar_label.get_height() // 2))
    _legends[key] = surf
    while len(_legends) > 16:
        _legends.popitem(last=False)
    return surf
