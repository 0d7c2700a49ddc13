"""The one world↔screen transform. Pure: no pygame.

World: millimetres, origin at the table's lower-left corner, y up.
Screen: pixels, origin at the window's top-left corner, y down.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

MIN_SCALE = 0.05  # px per mm: a 6' table in about 90 px
MAX_SCALE = 400.0  # px per mm: 0.0025 mm per pixel, for the loupe


@dataclass(frozen=True)
class Viewport:
    """Which world point sits at the middle of ``rect`` and how many pixels a millimetre takes."""

    centre: tuple[float, float]
    scale: float
    rect: tuple[int, int, int, int]  # left, top, width, height in screen pixels

    @property
    def screen_centre(self) -> tuple[float, float]:
        left, top, w, h = self.rect
        return (left + w / 2, top + h / 2)

    def to_screen(self, x: float, y: float) -> tuple[float, float]:
        """World mm → screen px."""
        sx, sy = self.screen_centre
        return (sx + (x - self.centre[0]) * self.scale, sy - (y - self.centre[1]) * self.scale)

    def to_world(self, sx: float, sy: float) -> tuple[float, float]:
        """Screen px → world mm."""
        cx, cy = self.screen_centre
        return (self.centre[0] + (sx - cx) / self.scale, self.centre[1] - (sy - cy) / self.scale)

    def to_screen_array(self, points: ArrayLike) -> NDArray[np.float64]:
        """World (N, 2) → screen (N, 2)."""
        p = np.asarray(points, dtype=float).reshape(-1, 2)
        sx, sy = self.screen_centre
        out = np.empty_like(p)
        out[:, 0] = sx + (p[:, 0] - self.centre[0]) * self.scale
        out[:, 1] = sy - (p[:, 1] - self.centre[1]) * self.scale
        return out

    def length_to_screen(self, mm: float) -> float:
        return mm * self.scale

    def length_to_world(self, px: float) -> float:
        return px / self.scale

    def zoomed(self, factor: float, about: tuple[float, float] | None = None) -> Viewport:
        """Zoom by ``factor`` keeping the world point under screen point ``about`` fixed."""
        scale = min(MAX_SCALE, max(MIN_SCALE, self.scale * factor))
        if about is None:
            return replace(self, scale=scale)
        wx, wy = self.to_world(*about)
        cx, cy = self.screen_centre
        # After zooming, (wx, wy) must still map to ``about``.
        centre = (wx - (about[0] - cx) / scale, wy + (about[1] - cy) / scale)
        return Viewport(centre, scale, self.rect)

    def panned(self, dx_px: float, dy_px: float) -> Viewport:
        """Move the view so the table follows a drag of (dx, dy) screen pixels."""
        return replace(self, centre=(self.centre[0] - dx_px / self.scale, self.centre[1] + dy_px / self.scale))

    def resized(self, rect: tuple[int, int, int, int]) -> Viewport:
        """Same centre and scale in a new screen rectangle."""
        return replace(self, rect=rect)

    def visible_world_bounds(self) -> tuple[float, float, float, float]:
        """(xmin, ymin, xmax, ymax) of the world shown."""
        left, top, w, h = self.rect
        x0, y1 = self.to_world(left, top)
        x1, y0 = self.to_world(left + w, top + h)
        return (x0, y0, x1, y1)

    @staticmethod
    def fit(width_mm: float, depth_mm: float, rect: tuple[int, int, int, int], margin_px: int = 24) -> Viewport:
        """A view showing the whole table inside ``rect``."""
        _, _, w, h = rect
        usable_w = max(1, w - 2 * margin_px)
        usable_h = max(1, h - 2 * margin_px)
        scale = min(usable_w / width_mm, usable_h / depth_mm)
        scale = min(MAX_SCALE, max(MIN_SCALE, scale))
        return Viewport((width_mm / 2, depth_mm / 2), scale, rect)


def nice_grid_step(scale: float, min_px: float = 24.0) -> float:
    """Grid spacing in mm: a whole number of inches (or fractions) at least ``min_px`` apart."""
    for inches in (0.125, 0.25, 0.5, 1, 2, 3, 6, 12, 24):
        if inches * 25.4 * scale >= min_px:
            return inches * 25.4
    return 48 * 25.4


def angle_deg(dx: float, dy: float) -> float:
    """Heading of a world vector in degrees CCW from +x."""
    return math.degrees(math.atan2(dy, dx))
