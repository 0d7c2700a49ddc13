"""Layer: the rulers along the table edges and the title band (pygame)."""

from __future__ import annotations

import math

import pygame

from tabletop.draw.plan import title_lines
from tabletop.draw.scene import _Scene, _inch_label
from tabletop.draw.style import INCH, ui_scale
from tabletop.draw.text import _KEY, _blit_centred, _font, _text
from tabletop.marks import TEXT_DIM
from tabletop.viewport import Viewport, nice_grid_step


RULER_BAND = 22  # height of the bottom ruler


RULER_SIDE = 36  # width of the left ruler (labels sit inside it)


def _draw_rulers(surface: pygame.Surface, vp: Viewport, scene: _Scene, view: tuple[float, float, float, float]) -> list[pygame.Rect]:
    """Inch rulers along the bottom and left edges; returns every rect drawn (all opaque)."""
    drawn: list[pygame.Rect] = []
    left, top, w, h = vp.rect
    tick_in = nice_grid_step(vp.scale, 7.0) / INCH
    label_x = max(tick_in, nice_grid_step(vp.scale, 44.0) / INCH)
    label_y = max(tick_in, nice_grid_step(vp.scale, 26.0) / INCH)
    # Zoomed in on a deep table, '13.75"' would not fit in the side ruler: label coarser steps.
    deepest = math.floor(min(scene.depth, view[3]) / INCH)
    while label_y < 1 and _font(13).size(_inch_label(deepest + 1 - label_y))[0] > RULER_SIDE - 10:
        label_y *= 2
    x_edge, y_edge = vp.to_screen(0.0, 0.0)
    x_end, y_end = vp.to_screen(scene.width, scene.depth)
    # Pinned to the window edge when the table edge scrolls away.
    by = int(min(max(y_edge + 3, top), top + h - RULER_BAND))
    bx = int(max(min(x_edge - 3 - RULER_SIDE, left + w - RULER_SIDE), left))
    x_lo, x_hi = max(0.0, view[0]), min(scene.width, view[2])
    y_lo, y_hi = max(0.0, view[1]), min(scene.depth, view[3])
    back = (20, 22, 26)
    fg = (220, 220, 210)
    if x_hi >= x_lo:
        sx0 = max(left, int(x_edge))
        sx1 = min(left + w, int(x_end) + 1)
        drawn.append(pygame.draw.rect(surface, back, (sx0, by, max(0, sx1 - sx0), RULER_BAND)))
        k0, k1 = math.ceil(x_lo / INCH / tick_in - 1e-9), math.floor(x_hi / INCH / tick_in + 1e-9)
        comb: list[tuple[int, int]] = []
        for k in range(k0, k1 + 1):
            inches = k * tick_in
            sx = int(round(vp.to_screen(inches * INCH, 0.0)[0]))
            major = abs(inches / label_x - round(inches / label_x)) < 1e-6
            comb += [(sx, by), (sx, by + (7 if major else 4)), (sx, by)]
            if major:
                drawn.append(_blit_centred(surface, _text(_inch_label(inches), 13, fg, bg=back), sx, by + 7, "midtop"))
        if len(comb) >= 2:
            pygame.draw.lines(surface, fg, False, comb, 1)
    if y_hi >= y_lo:
        sy0 = max(top, int(y_end))
        sy1 = min(top + h, int(y_edge) + 1)
        drawn.append(pygame.draw.rect(surface, back, (bx, sy0, RULER_SIDE, max(0, sy1 - sy0))))
        k0, k1 = math.ceil(y_lo / INCH / tick_in - 1e-9), math.floor(y_hi / INCH / tick_in + 1e-9)
        comb = []
        edge = bx + RULER_SIDE - 1
        for k in range(k0, k1 + 1):
            inches = k * tick_in
            sy = int(round(vp.to_screen(0.0, inches * INCH)[1]))
            major = abs(inches / label_y - round(inches / label_y)) < 1e-6
            comb += [(edge, sy), (edge - (7 if major else 4), sy), (edge, sy)]
            if major:
                drawn.append(_blit_centred(surface, _text(_inch_label(inches), 13, fg, bg=back), edge - 8, sy, "midright"))
        if len(comb) >= 2:
            pygame.draw.lines(surface, fg, False, comb, 1)
    return drawn


def _title_surface(scene: _Scene) -> pygame.Surface:
    """The title and the line under it (ruleset, templates, models affected, tolerance, seed) as one panel (cached by its words)."""
    title, line = title_lines(scene)
    key = (title, line, ui_scale())
    if _titles and _titles[0][0] == key:
        return _titles[0][1]
    surf = _title_panel(title, line)
    _titles[:] = [(key, surf)]
    return surf


_titles: list[tuple[tuple[object, ...], pygame.Surface]] = []


def _title_panel(title: str, line: str) -> pygame.Surface:
    t1 = _text(title, 24, (250, 250, 250), TITLE_BACK, bold=True)
    t2 = _text(line, 14, TEXT_DIM, TITLE_BACK)
    surf = pygame.Surface((max(t1.get_width(), t2.get_width()), t1.get_height() + 2 + t2.get_height()))
    surf.fill(_KEY)
    surf.blit(t1, (0, 0))
    surf.blit(t2, (0, t1.get_height() + 2))
    surf.set_colorkey(_KEY, pygame.RLEACCEL)
    return surf


TITLE_BACK = (14, 16, 20)
