"""Every candidate rect of many requests at once (numpy), and which of them lie inside the canvas
clear of every fixed obstacle: the part of a layout from nothing that does not depend on the
labels placed before. Exact, never approximate: integer rects, the same rounding as
:func:`candidate_rects`. Pure: no pygame."""

from __future__ import annotations

import numpy as np

from tabletop.label_layout.requests import _NEAR, LEADER_RINGS, Rect

#: Candidate slots of a request with a leader: the near ring (12), then 8 per leader ring.
SLOTS = 12 + 8 * len(LEADER_RINGS)
_RINGS = len(LEADER_RINGS) + 1
_GAPS = np.array((_NEAR, *LEADER_RINGS))
#: Cell (px) of the coverage table that decides most candidates; the rest are tested box by box.
CELL = 8
#: Obstacles wider than this (docked regions) are tested against every undecided candidate, not windowed.
_WIDE = 64
_COLUMNS: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}


def _columns(order: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """For a side ``order`` (see :func:`_order`): the column of each slot in the x table
    (mid, from_left, from_right, right by ring, left by ring) and in the y table (mid, bottom by
    ring, top by ring) that :func:`candidate_grid` builds."""
    got = _COLUMNS.get(order)
    if got is None:
        xs: list[int] = []
        ys: list[int] = []
        for n in range(_RINGS):
            right, left, bottom, top = 3 + n, 3 + _RINGS + n, 1 + n, 1 + _RINGS + n
            # Same order as SIDES: below, right, above, left, below_right, above_right, below_left, above_left.
            side_x = (0, right, 0, left, right, right, left, left)
            side_y = (bottom, 0, top, 0, bottom, top, bottom, top)
            xs += [side_x[i] for i in order]
            ys += [side_y[i] for i in order]
            if n == 0:
                xs += [1, 2, 1, 2]
                ys += [bottom, bottom, top, top]
        got = _COLUMNS[order] = (np.array(xs, dtype=np.intp), np.array(ys, dtype=np.intp))
    return got


def candidate_grid(
    ax: np.ndarray, ay: np.ndarray, c: np.ndarray, w: np.ndarray, h: np.ndarray, orders: list[tuple[int, ...]], which: np.ndarray, dtype: type = np.int32
) -> tuple[np.ndarray, np.ndarray]:
    """x, y (N, :data:`SLOTS`) of every candidate of N requests, in slot order.

    ``ax``, ``ay``: anchors; ``c``: clear radius (already 0 where not positive); ``w``, ``h``: integer
    sizes; request k orders its sides as ``orders[which[k]]``; ``dtype`` must hold every
    coordinate (the caller bounds them). The same float operations as
    :func:`_ring` (``ax + c + g`` is ``(ax + c) + g``), so the same integers: ``np.round`` rounds
    half to even like ``round``.
    """
    n = len(ax)
    axc, axm, ayc, aym = ax + c, ax - c, ay + c, ay - c
    tx = np.empty((n, 3 + 2 * _RINGS), dtype=dtype)
    ty = np.empty((n, 1 + 2 * _RINGS), dtype=dtype)
    tx[:, 0] = np.round(ax - w / 2)
    tx[:, 1] = np.floor(axm)
    tx[:, 2] = np.ceil(axc) - w
    tx[:, 3 : 3 + _RINGS] = np.ceil(axc[:, None] + _GAPS)
    tx[:, 3 + _RINGS :] = np.floor(axm[:, None] - _GAPS) - w[:, None]
    ty[:, 0] = np.round(ay - h / 2)
    ty[:, 1 : 1 + _RINGS] = np.ceil(ayc[:, None] + _GAPS)
    ty[:, 1 + _RINGS :] = np.floor(aym[:, None] - _GAPS) - h[:, None]
    if len(orders) == 1:
        cx, cy = _columns(orders[0])
        return np.ascontiguousarray(tx[:, cx]), np.ascontiguousarray(ty[:, cy])
    cols = [_columns(o) for o in orders]
    cx = np.stack([p[0] for p in cols])[which]
    cy = np.stack([p[1] for p in cols])[which]
    rows = np.arange(n)[:, None]
    return tx.ravel()[cx + rows * tx.shape[1]], ty.ravel()[cy + rows * ty.shape[1]]


def fixed_free(x: np.ndarray, y: np.ndarray, w: np.ndarray, h: np.ndarray, slots: np.ndarray, fixed: np.ndarray, canvas: Rect) -> np.ndarray:
    """Flat indices into ``x`` (N, :data:`SLOTS`) of the candidates that exist (slot < ``slots[k]``),
    lie inside ``canvas`` and share no interior with any box of ``fixed`` (M, 4: x0, y0, x1, y1).

    A coverage table of :data:`CELL` px cells (how many obstacles meet each cell, summed over the
    cells before) decides most: a candidate meeting no covered cell is clear, one wholly holding a
    covered cell is not (the obstacle meeting that cell meets the candidate). The rest, where an
    obstacle only reaches into the cells the candidate's edges cut, are tested against each
    obstacle near them (obstacles sorted by left edge, a window as wide as the widest).
    Arrays are kept small (int32 where the caller allows, sums in place): every large temporary
    costs page faults, more than the arithmetic on it.
    """
    cx0, cy0, cw, ch = canvas
    x0 = x - x.dtype.type(cx0)
    y0 = y - y.dtype.type(cy0)
    x1 = x0 + w[:, None]
    y1 = y0 + h[:, None]
    ok = (x0 >= 0) & (y0 >= 0) & (x1 <= cw) & (y1 <= ch)
    ok[:, 12:] &= (slots > 12)[:, None]
    if not len(fixed):
        return np.flatnonzero(ok)
    # Obstacles in canvas coordinates, cut to the canvas (candidates lie inside it), empty ones dropped.
    f = fixed - np.array([cx0, cy0, cx0, cy0])
    np.clip(f[:, 0::2], 0, cw, out=f[:, 0::2])
    np.clip(f[:, 1::2], 0, ch, out=f[:, 1::2])
    f = f[(f[:, 2] > f[:, 0]) & (f[:, 3] > f[:, 1])].astype(np.int32)
    if not len(f):
        return np.flatnonzero(ok)
    s = CELL
    nx, ny = -(-cw // s), -(-ch // s)
    stride = nx + 2
    # Coverage counts by corner events, summed twice along each axis (and the table transposed, so
    # every sum runs along contiguous rows): table[i, j] is the coverage of every cell left of
    # column i and above row j.
    i0, i1 = f[:, 0] // s + 1, (f[:, 2] - 1) // s + 2
    j0, j1 = f[:, 1] // s + 1, (f[:, 3] - 1) // s + 2
    events = np.zeros((ny + 2) * stride, dtype=np.int32)
    np.add.at(events, np.concatenate([j0 * stride + i0, j1 * stride + i1]), 1)
    np.add.at(events, np.concatenate([j0 * stride + i1, j1 * stride + i0]), -1)
    t = events.reshape(ny + 2, stride)
    np.cumsum(t, axis=1, dtype=np.int32, out=t)
    np.cumsum(t, axis=1, dtype=np.int32, out=t)
    t = np.ascontiguousarray(t.T)
    np.cumsum(t, axis=1, dtype=np.int32, out=t)
    np.cumsum(t, axis=1, dtype=np.int32, out=t)
    table = t.ravel()
    st = np.int32(ny + 2)

    def total(a0: np.ndarray, a1: np.ndarray, b0: np.ndarray, b1: np.ndarray) -> np.ndarray:
        """Coverage summed over cells [a0, a1) × [b0, b1)."""
        a0 *= st
        a1 *= st
        return table[a1 + b1] - table[a1 + b0] - table[a0 + b1] + table[a0 + b0]

    # Off-canvas candidates are decided already; clip them so their lookups stay in the table.
    np.clip(x0, 0, cw, out=x0)
    np.clip(y0, 0, ch, out=y0)
    np.clip(x1, 1, cw, out=x1)
    np.clip(y1, 1, ch, out=y1)
    clear = ok & (total(x0 // s, (x1 - 1) // s + 1, y0 // s, (y1 - 1) // s + 1) == 0)
    k0 = -(-x0 // s)
    l0 = -(-y0 // s)
    held = total(k0, np.maximum(x1 // s, k0), l0, np.maximum(y1 // s, l0)) > 0
    unsure = np.flatnonzero(ok & ~clear & ~held)
    flat = clear.ravel()
    if len(unsure):
        flat[unsure] = ~_meets_any(x0.ravel()[unsure], y0.ravel()[unsure], x1.ravel()[unsure], y1.ravel()[unsure], f, cw)
    return np.flatnonzero(flat)


def _meets_any(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray, f: np.ndarray, width: int) -> np.ndarray:
    """Whether each rect [x0, x1) × [y0, y1) shares interior with some box of ``f`` (coordinates in [0, width])."""
    hit = np.zeros(len(x0), dtype=bool)
    wide = (f[:, 2] - f[:, 0]) > _WIDE
    for a0, b0, a1, b1 in f[wide].tolist():
        hit |= (a0 < x1) & (x0 < a1) & (b0 < y1) & (y0 < b1)
    f = f[~wide]
    if not len(f):
        return hit
    f = f[np.argsort(f[:, 0], kind="stable")]
    reach = int((f[:, 2] - f[:, 0]).max())
    # before[v]: how many obstacles start left of v; a box meeting [x0, x1) starts in (x0 - reach, x1).
    before = np.zeros(width + 2, dtype=np.int32)
    np.cumsum(np.bincount(f[:, 0], minlength=width + 1), out=before[1:])
    lo = before[np.maximum(x0 - reach + 1, 0)]
    n = before[x1] - lo
    total = int(n.sum())
    if not total:
        return hit
    which = np.repeat(np.arange(len(x0), dtype=np.int32), n)
    k = np.arange(total, dtype=np.int32) + np.repeat(lo - (np.cumsum(n, dtype=np.int32) - n), n)
    meet = (f[k, 2] > x0[which]) & (f[k, 1] < y1[which]) & (f[k, 3] > y0[which])
    hit[which[meet]] = True
    return hit
