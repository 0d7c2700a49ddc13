"""Layer: the mark of a base to check (tag ``check``: found on a photo, the analysis not sure of it), drawn on every
picture of the table, the app's frame and the PNG alike, so an unsure base never looks sure (pygame).

The mark is the base's outline in ink, dashed in ``CHECK_COLOUR``, and a "!" badge at its upper right (a dot where
the base is drawn too small for one). The app's photo review draws the same mark over the photo with
:func:`check_mark` (``app.review_draw``); the SVG writes the same strokes and badge itself (``draw.svg``)."""

from __future__ import annotations

import numpy as np
import pygame

from tabletop.draw.primitives import _dashed
from tabletop.draw.scene import _Scene
from tabletop.draw.style import (CHECK_BADGE_MIN_BASE_PX, CHECK_BADGE_RADIUS, CHECK_COLOUR, CHECK_DASH_PX, CHECK_INK,
                                 check_badge_centre)
from tabletop.draw.text import _text
from tabletop.shapes import base_outline
from tabletop.viewport import Viewport

OUTLINE_POINTS = 72


def badge(surface: pygame.Surface, at: tuple[float, float]) -> pygame.Rect:
    """The "!" badge centred at screen ``at``; its rect."""
    x, y = round(at[0]), round(at[1])
    pygame.draw.circle(surface, CHECK_INK, (x, y), CHECK_BADGE_RADIUS + 1)
    pygame.draw.circle(surface, CHECK_COLOUR, (x, y), CHECK_BADGE_RADIUS)
    mark = _text("!", 15, CHECK_INK, bold=True)
    surface.blit(mark, mark.get_rect(center=(x, y + 1)))
    return pygame.Rect(x - CHECK_BADGE_RADIUS - 1, y - CHECK_BADGE_RADIUS - 1, 2 * CHECK_BADGE_RADIUS + 3, 2 * CHECK_BADGE_RADIUS + 3)


def check_mark(surface: pygame.Surface, ring: np.ndarray, centre: tuple[float, float], radius_px: float) -> pygame.Rect:
    """A base's mark: its outline ``ring`` (screen, (n, 2)) in ink, dashed orange (seen on any fill, ring or halo), and
    the badge; where the base is drawn too small for one (``CHECK_BADGE_MIN_BASE_PX``), a dot in its place, so a base
    to check never looks sure at any zoom. The rect the badge or dot covers."""
    pygame.draw.lines(surface, CHECK_INK, True, ring.tolist(), 4)
    _dashed(surface, ring, CHECK_COLOUR, 2, CHECK_DASH_PX, CHECK_DASH_PX)
    at = check_badge_centre(centre, radius_px)
    if radius_px >= CHECK_BADGE_MIN_BASE_PX:
        return badge(surface, at)
    x, y = round(at[0]), round(at[1])
    pygame.draw.circle(surface, CHECK_INK, (x, y), 4)
    pygame.draw.circle(surface, CHECK_COLOUR, (x, y), 3)
    return pygame.Rect(x - 4, y - 4, 9, 9)


def draw_checks(surface: pygame.Surface, vp: Viewport, scene: _Scene) -> list[pygame.Rect]:
    """The mark of every base to check that the view shows; the badges' rects (labels keep clear of them)."""
    left, top, w, h = vp.rect
    badges: list[pygame.Rect] = []
    for i in scene.to_check:
        m = scene.models[i]
        cx, cy = vp.to_screen(m.x, m.y)
        r = float(scene.radii[i]) * vp.scale
        if cx + r + 2 * CHECK_BADGE_RADIUS < left or cx - r > left + w or cy + r < top or cy - r - 2 * CHECK_BADGE_RADIUS > top + h:
            continue
        ring = vp.to_screen_array(base_outline(m.base, m.x, m.y, m.facing, segments=OUTLINE_POINTS))
        badges.append(check_mark(surface, ring, (cx, cy), r))
    return badges
