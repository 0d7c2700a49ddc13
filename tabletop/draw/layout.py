"""Pure label placement: candidate spots around an anchor and the obstacles (bases, names, text
already drawn) they must avoid, as integer screen rectangles. No pygame.

:class:`Box` behaves like a ``pygame.Rect`` for what placement needs (and is a 4-tuple, so
pygame accepts it wherever it takes a rect); anything with ``x``, ``y``, ``w``, ``h`` can be
an obstacle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

import numpy as np

from tabletop.draw.scene import _Scene
from tabletop.draw.style import FloatArray
from tabletop.viewport import Viewport


class RectLike(Protocol):
    @property
    def x(self) -> int: ...
    @property
    def y(self) -> int: ...
    @property
    def w(self) -> int: ...
    @property
    def h(self) -> int: ...


def _meet(a: RectLike, b: RectLike) -> bool:
    """pygame's colliderect: overlapping interiors; an empty rect meets nothing."""
    if a.w == 0 or a.h == 0 or b.w == 0 or b.h == 0:
        return False
    return a.x < b.x + b.w and a.y < b.y + b.h and a.x + a.w > b.x and a.y + a.h > b.y


class Box(NamedTuple):
    """An integer screen rectangle (x, y, width, height)."""

    x: int
    y: int
    w: int
    h: int

    @property
    def left(self) -> int:
        return self.x

    @property
    def top(self) -> int:
        return self.y

    @property
    def right(self) -> int:
        return self.x + self.w

    @property
    def bottom(self) -> int:
        return self.y + self.h

    @property
    def width(self) -> int:
        return self.w

    @property
    def height(self) -> int:
        return self.h

    @property
    def topleft(self) -> tuple[int, int]:
        return (self.x, self.y)

    @property
    def centerx(self) -> int:
        return self.x + self.w // 2

    def colliderect(self, other: RectLike) -> bool:
        return _meet(self, other)

    def collidelist(self, others: Sequence[RectLike]) -> int:
        """Index of the first of ``others`` this box meets, or -1."""
        return next((k for k, o in enumerate(others) if _meet(self, o)), -1)

    def collidelistall(self, others: Sequence[RectLike]) -> list[int]:
        return [k for k, o in enumerate(others) if _meet(self, o)]

    def clip(self, other: RectLike) -> Box:
        """The intersection (an empty box at this one's corner when there is none)."""
        x0, y0 = max(self.x, other.x), max(self.y, other.y)
        x1, y1 = min(self.x + self.w, other.x + other.w), min(self.y + self.h, other.y + other.h)
        if x1 <= x0 or y1 <= y0:
            return Box(self.x, self.y, 0, 0)
        return Box(x0, y0, x1 - x0, y1 - y0)


_SIDES = {
    "right": ("right", "left", "above", "below"),
    "left": ("left", "right", "above", "below"),
    "above": ("above", "below", "right", "left"),
    "below": ("below", "above", "right", "left"),
}


def _candidates(ax: float, ay: float, w: int, h: int, clear: float, prefer: str) -> list[Box]:
    """Places for a ``w`` × ``h`` label around a circle of ``clear`` px at (ax, ay), best first."""
    out: list[Box] = []
    order = _SIDES.get(prefer, _SIDES["right"])
    for extra in (6.0, 22.0, 44.0, 76.0, 120.0):
        d = clear + extra
        spots = {
            "right": (ax + d, ay - h / 2),
            "left": (ax - d - w, ay - h / 2),
            "above": (ax - w / 2, ay - d - h),
            "below": (ax - w / 2, ay + d),
        }
        for side in order:
            x, y = spots[side]
            out.append(Box(int(x), int(y), w, h))
        k = d * 0.72
        for x, y in ((ax + k, ay - k - h), (ax + k, ay + k), (ax - k - w, ay - k - h), (ax - k - w, ay + k)):
            out.append(Box(int(x), int(y), w, h))
    return out


@dataclass(eq=False)
class _Obstacles:
    """What a label must not cover: every base and name on screen (arrays) and rects drawn so far."""

    boxes: FloatArray  # (N, 4) screen x0, y0, x1, y1
    rects: list[RectLike]

    def near(self, region: RectLike) -> list[RectLike]:
        """The obstacles meeting ``region``, as rects: one array test, then cheap rect checks per candidate."""
        b = self.boxes
        right, bottom = region.x + region.w, region.y + region.h
        hit = (b[:, 0] < right) & (b[:, 2] > region.x) & (b[:, 1] < bottom) & (b[:, 3] > region.y)
        out: list[RectLike] = [Box(int(x0), int(y0), int(x1 - x0), int(y1 - y0)) for x0, y0, x1, y1 in b[hit].tolist()]
        return out + [r for r in self.rects if _meet(r, region)]


def _overlap(rect: RectLike, others: Sequence[RectLike]) -> int:
    """Area of ``rect`` covered by ``others`` (0: free)."""
    box = Box(rect.x, rect.y, rect.w, rect.h)
    area = 0
    for k in box.collidelistall(others):
        c = box.clip(others[k])
        area += c.w * c.h
    return area


def _obstacles(scene: _Scene, vp: Viewport, rects: Sequence[RectLike], name_size: Callable[[int], FloatArray] | None = None) -> _Obstacles:
    """Bases and name pills (when ``name_size`` measures them: font size -> (N, 2) pill sizes) of
    every model, as screen boxes, plus ``rects``."""
    if not len(scene.models):
        return _Obstacles(np.zeros((0, 4)), list(rects))
    sc = vp.to_screen_array(scene.centres)
    r = scene.radii * vp.scale
    boxes = [np.stack([sc[:, 0] - r - 2, sc[:, 1] - r - 2, sc[:, 0] + r + 2, sc[:, 1] + r + 2], axis=-1)]
    if name_size is not None:
        sizes = np.clip(np.rint(r * 0.8), 12, 16).astype(int)
        shown = r >= 11
        if shown.any():
            dims = np.zeros((len(r), 2))
            for size in np.unique(sizes[shown]).tolist():
                pick = shown & (sizes == size)
                dims[pick] = name_size(size)[pick]
            x0 = sc[:, 0] - dims[:, 0] / 2
            y0 = sc[:, 1] + r + 3
            boxes.append(np.stack([x0, y0, x0 + dims[:, 0], y0 + dims[:, 1]], axis=-1)[shown])
    return _Obstacles(np.concatenate(boxes), list(rects))
