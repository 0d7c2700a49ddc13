"""Which candidate rects a fixed obstacle blocks, decided for all requests at once (numpy), so the
greedy search of a layout from nothing walks the grid only for the candidates that may be free.

The fixed obstacles (base boxes, foci, docked regions) do not change during one layout. They are
rasterised onto a coarse grid of ``cell`` px (a cell is set if some obstacle meets it), turned into a
summed-area table. A candidate meeting no set cell is certainly clear of the obstacles; one wholly
holding a set cell certainly meets an obstacle; the rest (an obstacle meeting it only in the cells
its edges cut) are left to the exact test of the grid walk. Rects are integer and half-open, so both
decisions are exact, never approximations. Pure: no pygame.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tabletop.label_layout.requests import _NEAR, LEADER_RINGS, LabelRequest, Rect, _order

#: Leader rings decided up front (the rest, seldom reached, are left to the plain search).
RINGS = 1
#: Slots decided up front: the near ring (8 sides + 4 slides), then 8 per leader ring.
SLOTS = 12 + 8 * RINGS
_PERMS: dict[tuple[int, ...], np.ndarray] = {}

#: Status of a candidate: clear of every fixed obstacle, certainly blocked (or off the canvas), undecided.
FREE, BLOCKED, UNDECIDED = 0, 1, 2
CELL = 4


def _perm(order: tuple[int, ...]) -> np.ndarray:
    """Column of each slot in the table of :func:`_candidates` (sides in :data:`SIDES` order per ring)."""
    p = _PERMS.get(order)
    if p is None:
        cols = [*order, 8, 9, 10, 11]
        for ring in range(RINGS):
            cols += [12 + 8 * ring + side for side in order]
        p = _PERMS[order] = np.array(cols, dtype=np.intp)
    return p


def _candidates(requests: Sequence[LabelRequest]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """x, y (R, slots) of every candidate of every request in slot order, as ``_search`` computes
    them (same float operations, same rounding), with w, h (R,) and whether each slot exists (R, slots)."""
    ax = np.array([r.anchor[0] for r in requests], dtype=float)
    ay = np.array([r.anchor[1] for r in requests], dtype=float)
    c = np.array([r.clear if r.clear > 0 else 0.0 for r in requests], dtype=float)
    wh = np.array([r.wh for r in requests], dtype=np.int64).reshape(-1, 2)
    w, h = wh[:, 0], wh[:, 1]
    mid_x = np.round(ax - w / 2)
    mid_y = np.round(ay - h / 2)
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    for n, g in enumerate((_NEAR, *LEADER_RINGS[:RINGS])):
        right = np.ceil(ax + c + g)
        left = np.floor(ax - c - g) - w
        top = np.floor(ay - c - g) - h
        bottom = np.ceil(ay + c + g)
        xs += [mid_x, right, mid_x, left, right, right, left, left]
        ys += [bottom, mid_y, top, mid_y, bottom, top, bottom, top]
        if n == 0:
            from_left = np.floor(ax - c)
            from_right = np.ceil(ax + c) - w
            xs += [from_left, from_right, from_left, from_right]
            ys += [bottom, bottom, top, top]
    x = np.stack(xs, axis=1).astype(np.int64)
    y = np.stack(ys, axis=1).astype(np.int64)
    perm = np.stack([_perm(_order(r.sides)) for r in requests])
    x = np.take_along_axis(x, perm, axis=1)
    y = np.take_along_axis(y, perm, axis=1)
    exists = np.ones(x.shape, dtype=bool)
    exists[:, 12:] = np.array([r.leader for r in requests], dtype=bool)[:, None]
    return x, y, w, h, exists


def _table(fixed: np.ndarray, canvas: Rect, cell: int) -> tuple[np.ndarray, int]:
    """The summed-area table (ny + 1, nx + 1), flattened, of the cells of ``cell`` px that meet an
    obstacle of ``fixed`` clipped to ``canvas`` (1 such a cell, 0 not), and nx + 1."""
    cx, cy, cw, ch = canvas
    nx = -(-cw // cell)
    ny = -(-ch // cell)
    x0 = np.clip(fixed[:, 0] - cx, 0, cw)
    x1 = np.clip(fixed[:, 2] - cx, 0, cw)
    y0 = np.clip(fixed[:, 1] - cy, 0, ch)
    y1 = np.clip(fixed[:, 3] - cy, 0, ch)
    on = (x1 > x0) & (y1 > y0)
    i0, i1 = x0[on] // cell, (x1[on] - 1) // cell + 1
    j0, j1 = y0[on] // cell, (y1[on] - 1) // cell + 1
    stride = nx + 1
    size = (ny + 1) * stride
    plus = np.bincount(np.concatenate([j0 * stride + i0, j1 * stride + i1]), minlength=size)
    minus = np.bincount(np.concatenate([j0 * stride + i1, j1 * stride + i0]), minlength=size)
    cover = (plus - minus).reshape(ny + 1, stride).cumsum(axis=0).cumsum(axis=1)[:ny, :nx]
    sat = np.zeros((ny + 1, stride), dtype=np.int64)
    sat[1:, 1:] = (cover != 0).cumsum(axis=0).cumsum(axis=1)
    return sat.ravel(), stride


def candidate_status(requests: Sequence[LabelRequest], fixed: np.ndarray, canvas: Rect, cell: int = 4) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x, y and status (:data:`FREE`, :data:`BLOCKED`, :data:`UNDECIDED`) of every candidate slot of
    every request (R, slots); a slot the request does not have, or off the canvas, is BLOCKED.

    FREE: no cell the candidate meets meets an obstacle. BLOCKED: a cell lying wholly inside the
    candidate meets an obstacle (that obstacle then meets the candidate). Else UNDECIDED.
    """
    x, y, w, h, exists = _candidates(requests)
    cx, cy, cw, ch = canvas
    x0 = x - cx
    y0 = y - cy
    x1 = x0 + w[:, None]
    y1 = y0 + h[:, None]
    inside = exists & (x0 >= 0) & (y0 >= 0) & (x1 <= cw) & (y1 <= ch)
    if not len(fixed):
        return x, y, np.where(inside, FREE, BLOCKED).astype(np.int8)
    sat, stride = _table(fixed, canvas, cell)
    # Off-canvas candidates are BLOCKED whatever the table says; clip them to valid indices.
    nx, ny = stride - 1, len(sat) // stride - 1
    a0 = np.clip(x0 // cell, 0, nx)
    a1 = np.clip((x1 - 1) // cell + 1, 0, nx)
    b0 = np.clip(y0 // cell, 0, ny) * stride
    b1 = np.clip((y1 - 1) // cell + 1, 0, ny) * stride
    meets = sat[b1 + a1] - sat[b0 + a1] - sat[b1 + a0] + sat[b0 + a0]
    a0 = np.clip(-(-x0 // cell), 0, nx)
    a1 = np.maximum(np.clip(x1 // cell, 0, nx), a0)
    b0 = np.clip(-(-y0 // cell), 0, ny)
    b1 = np.maximum(np.clip(y1 // cell, 0, ny), b0) * stride
    b0 *= stride
    within = sat[b1 + a1] - sat[b0 + a1] - sat[b1 + a0] + sat[b0 + a0]
    status = np.where(meets == 0, FREE, np.where(within > 0, BLOCKED, UNDECIDED))
    return x, y, np.where(inside, status, BLOCKED).astype(np.int8)


class Prefiltered:
    """The candidates of some requests that no fixed obstacle certainly blocks, in slot order:
    ``rows[k]`` is the (start, end) of request ``k``'s run in ``xs``, ``ys``, ``slots``, ``undecided``."""

    __slots__ = ("rows", "xs", "ys", "slots", "undecided")

    def __init__(self, requests: Sequence[LabelRequest], keys: Sequence[int], fixed: np.ndarray, canvas: Rect, cell: int = 0) -> None:
        x, y, status = candidate_status([requests[k] for k in keys], fixed, canvas, cell or CELL)
        keep = np.flatnonzero(status.ravel() != BLOCKED)
        row = keep // SLOTS
        starts = np.searchsorted(row, np.arange(len(keys) + 1)).tolist()
        self.rows = {k: (starts[n], starts[n + 1]) for n, k in enumerate(keys)}
        self.xs: list[int] = x.ravel()[keep].tolist()
        self.ys: list[int] = y.ravel()[keep].tolist()
        self.slots: list[int] = (keep % SLOTS).tolist()
        self.undecided: list[bool] = (status.ravel()[keep] == UNDECIDED).tolist()
