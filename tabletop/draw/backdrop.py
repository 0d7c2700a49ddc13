"""The photo under the table (issue 17): a rectified image laid on the table through the Viewport.

The app rectifies the photo once (``tabletop.app.backdrop``) and hands the result here with
:func:`show_backdrop` before it draws; ``render`` and ``check`` never set one. Only the part of
the image in view is scaled, so a deep zoom costs no more than the window's pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pygame

from tabletop.viewport import Viewport


@dataclass(eq=False)
class BackdropLayer:
    """A top-down image of the whole table (row 0 = the far edge, y = depth) and its opacity (0–1)."""

    surface: pygame.Surface
    table_mm: tuple[float, float]
    opacity: float = 1.0


_current: list[BackdropLayer] = []
# The last scaled piece: (key, surface, position) — a dragged template redraws the same view.
_scaled: list[tuple[tuple[object, ...], pygame.Surface, tuple[int, int]]] = []


def show_backdrop(layer: BackdropLayer | None) -> None:
    """Draw ``layer`` under the table from the next frame on (None: no backdrop)."""
    _current[:] = [layer] if layer is not None and layer.opacity > 0 else []


def backdrop_key() -> tuple[object, ...]:
    """What the board's cached pixels depend on from the backdrop."""
    if not _current:
        return ()
    layer = _current[0]
    return (id(layer.surface), layer.table_mm, round(layer.opacity, 3))


def draw_backdrop(surface: pygame.Surface, vp: Viewport, clip: pygame.Rect) -> None:
    """Blit the current backdrop's visible part, scaled to the view, onto ``surface``."""
    if not _current:
        return
    layer = _current[0]
    width, depth = layer.table_mm
    src_w, src_h = layer.surface.get_size()
    if width <= 0 or depth <= 0 or src_w == 0 or src_h == 0:
        return
    x0, y0, x1, y1 = vp.visible_world_bounds()
    x0, x1 = max(0.0, x0), min(width, x1)
    y0, y1 = max(0.0, y0), min(depth, y1)
    if x1 <= x0 or y1 <= y0:
        return
    ppx, ppy = src_w / width, src_h / depth
    # Whole source pixels covering the view; their exact world extent sets the destination.
    c0, c1 = max(0, math.floor(x0 * ppx)), min(src_w, math.ceil(x1 * ppx))
    r0, r1 = max(0, math.floor((depth - y1) * ppy)), min(src_h, math.ceil((depth - y0) * ppy))
    if c1 <= c0 or r1 <= r0:
        return
    left, top = vp.to_screen(c0 / ppx, depth - r0 / ppy)
    right, bottom = vp.to_screen(c1 / ppx, depth - r1 / ppy)
    pos = (round(left), round(top))
    size = (max(1, round(right) - pos[0]), max(1, round(bottom) - pos[1]))
    key = (id(layer.surface), c0, c1, r0, r1, size, round(layer.opacity, 3))
    if _scaled and _scaled[0][0] == key:
        piece = _scaled[0][1]
    else:
        part = layer.surface.subsurface(pygame.Rect(c0, r0, c1 - c0, r1 - r0))
        shrink = size[0] < part.get_width()
        piece = pygame.transform.smoothscale(part, size) if shrink and part.get_bitsize() >= 24 else pygame.transform.scale(part, size)
        if layer.opacity < 1:
            piece.set_alpha(round(255 * layer.opacity))
        _scaled[:] = [(key, piece, pos)]
    old = surface.get_clip()
    surface.set_clip(clip.clip(old) if old else clip)
    surface.blit(piece, pos)
    surface.set_clip(old)
