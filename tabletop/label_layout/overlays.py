"""Fixed overlays (title, legend, side view, hints) docked outside the table or in its emptiest
corner, never over a base: :func:`dock_overlays`. Pure: no pygame."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop.label_layout.geometry import _canvas
from tabletop.label_layout.requests import Rect


@dataclass(frozen=True)
class Overlay:
    """A fixed overlay to dock (title, legend, side view, hints): ``size`` (w, h) px and its preferred
    ``corner``: ``"top_left"``, ``"top_right"``, ``"bottom_left"`` or ``"bottom_right"``. ``required``: shown because
    someone asked for it (the legend, K), so where it fits nowhere clear it goes in its corner over what is there."""

    id: str
    size: tuple[float, float]
    corner: str = "top_left"
    required: bool = False


_CORNERS = ("top_left", "top_right", "bottom_left", "bottom_right")


def _meets(a: Rect, b: Sequence[float]) -> bool:
    """Rect ``a`` (x, y, w, h) and box ``b`` (x0, y0, x1, y1) share interior."""
    return a[0] < b[2] and b[0] < a[0] + a[2] and a[1] < b[3] and b[1] < a[1] + a[3]


def _at_corner(corner: str, area: Rect, w: int, h: int, margin: int) -> Rect:
    x0, y0, aw, ah = area
    x = x0 + margin if corner.endswith("left") else x0 + aw - margin - w
    y = y0 + margin if corner.startswith("top") else y0 + ah - margin - h
    return (x, y, w, h)


def dock_overlays(
    canvas: Sequence[float],
    table: Sequence[float],
    bases: Any,
    overlays: Sequence[Overlay],
    margin: int = 8,
    avoid: Iterable[Sequence[float]] = (),
) -> dict[str, Rect | None]:
    """Where each overlay goes, in order (earlier ones choose first); None when it fits nowhere without covering a base,
    unless it is ``required`` (then its preferred corner of the canvas).

    First choice: outside ``table`` (the table's screen rect, x, y, w, h) in the canvas margins, at its
    preferred corner first. Otherwise on the table, at the corner with the fewest bases near it, sliding
    along the edges away from the corner when the corner itself would cover a base. Never over a base box
    (``bases``: (N, 4) x0, y0, x1, y1), an ``avoid`` rect (x, y, w, h) or another overlay.
    """
    area = _canvas(canvas)
    tx, ty, tw, th = (float(v) for v in table)
    table_box = (tx, ty, tx + tw, ty + th)
    base_arr = np.asarray(bases, dtype=float).reshape(-1, 4) if bases is not None else np.zeros((0, 4))
    taken_l: list[tuple[float, float, float, float]] = [(r[0], r[1], r[0] + r[2], r[1] + r[3]) for r in avoid]
    out: dict[str, Rect | None] = {}
    ax0, ay0, ax1, ay1 = area[0], area[1], area[0] + area[2], area[1] + area[3]
    # One array of everything a panel must not cover (bases first), tested in one numpy call per spot.
    blocked = np.concatenate([base_arr, np.asarray(taken_l, dtype=float).reshape(-1, 4)])
    bx0, by0, bx1, by1 = blocked[:, 0], blocked[:, 1], blocked[:, 2], blocked[:, 3]
    cx0, cy0, cx1, cy1 = base_arr[:, 0], base_arr[:, 1], base_arr[:, 2], base_arr[:, 3]

    def ok(rect: Rect) -> bool:
        x, y, w, h = rect
        if x < ax0 or y < ay0 or x + w > ax1 or y + h > ay1:
            return False
        return not bool(np.any((bx0 < x + w) & (x < bx1) & (by0 < y + h) & (y < by1)))

    def crowding(rect: Rect) -> int:
        grow = max(rect[2], rect[3]) / 2
        n0, m0, n1, m1 = rect[0] - grow, rect[1] - grow, rect[0] + rect[2] + grow, rect[1] + rect[3] + grow
        return int(np.count_nonzero((cx0 < n1) & (n0 < cx1) & (cy0 < m1) & (m0 < cy1)))

    for ov in overlays:
        w, h = max(1, math.ceil(ov.size[0])), max(1, math.ceil(ov.size[1]))
        prefs = tuple(dict.fromkeys([ov.corner, *_CORNERS]))
        choice: Rect | None = None
        # Outside the table: canvas corners, then hugging each table edge from outside.
        outside: list[Rect] = [_at_corner(c, area, w, h, margin) for c in prefs]
        for c in prefs:
            x = area[0] + margin if c.endswith("left") else area[0] + area[2] - margin - w
            y = area[1] + margin if c.startswith("top") else area[1] + area[3] - margin - h
            outside.append((x, math.floor(ty) - margin - h if c.startswith("top") else math.ceil(ty + th) + margin, w, h))
            outside.append((math.floor(tx) - margin - w if c.endswith("left") else math.ceil(tx + tw) + margin, y, w, h))
        for rect in outside:
            if not _meets(rect, table_box) and ok(rect):
                choice = rect
                break
        if choice is None:
            # On the table: the emptiest corner of the visible table, sliding inward off any base.
            vis = (max(ax0, math.floor(tx)), max(ay0, math.floor(ty)))
            vis_rect = (vis[0], vis[1], min(ax1, math.ceil(tx + tw)) - vis[0], min(ay1, math.ceil(ty + th)) - vis[1])
            scored = []
            for n, c in enumerate(prefs):
                base = _at_corner(c, vis_rect if vis_rect[2] > 0 and vis_rect[3] > 0 else area, w, h, margin)
                sx = 1 if c.endswith("left") else -1
                sy = 1 if c.startswith("top") else -1
                steps = [(0, 0)] + [(i, j) for d in range(1, 9) for i, j in ((d, 0), (0, d), (d, d))]
                for m, (i, j) in enumerate(steps):
                    rect = (base[0] + sx * i * max(8, w // 4), base[1] + sy * j * max(8, h // 4), w, h)
                    if ok(rect):
                        scored.append((m > 0, crowding(rect), m, n, rect))
                        break
            if scored:
                choice = min(scored)[4]
        if choice is None and ov.required:
            choice = _at_corner(ov.corner, area, w, h, margin)
        out[ov.id] = choice
        if choice is not None:
            blocked = np.concatenate([blocked, np.array([[choice[0], choice[1], choice[0] + choice[2], choice[1] + choice[3]]], dtype=float)])
            bx0, by0, bx1, by1 = blocked[:, 0], blocked[:, 1], blocked[:, 2], blocked[:, 3]
    return out
