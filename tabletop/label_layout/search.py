"""The layout itself: :func:`layout_labels` (greedy by priority over the fixed candidates, stable
with ``previous``, evicting lower priorities when a label finds no room). Pure: no pygame."""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from tabletop.label_layout.geometry import _canvas, _fixed_obstacles, _free, _Grid
from tabletop.label_layout.requests import _NEAR, _NEAR_ORDERS, LEADER_RINGS, LabelRequest, Layout, Placement, Rect, _order, _ring, _slot_rect, away, candidate_rects


#: Start value of the last-blocker memo: a box left of nothing. (An empty box at 0 would "meet" every
#: candidate with 0 strictly inside it, on a canvas whose origin is left of or above 0.)
_NO_BLOCKER = 1 << 62


def _search(
    grid: _Grid, ax: float, ay: float, c: float, w: int, h: int, order: tuple[int, ...], leader: bool, bounds: tuple[int, int, int, int]
) -> tuple[int, int, bool, int] | None:
    """The first free candidate (same order and slots as :func:`candidate_rects`): x, y, leader, slot.

    The hot loop of the layout, written out flat: one grid walk per candidate, no tuples built for
    candidates that are not taken.
    """
    cx0, cy0, cx1, cy1 = bounds
    cs, gx, gy, nx, cells = grid.cell, grid.x0, grid.y0, grid.nx, grid.cells
    near = _NEAR_ORDERS.get(order)
    if near is None:
        near = _NEAR_ORDERS[order] = (*order, 8, 9, 10, 11)
    la0 = lb0 = la1 = lb1 = _NO_BLOCKER  # the last blocker (none to start)
    slot = 0
    for n, g in enumerate((_NEAR, *LEADER_RINGS) if leader else (_NEAR,)):
        right = math.ceil(ax + c + g)
        left = math.floor(ax - c - g) - w
        top = math.floor(ay - c - g) - h
        bottom = math.ceil(ay + c + g)
        mid_x = round(ax - w / 2)
        mid_y = round(ay - h / 2)
        if n == 0:
            from_left = math.floor(ax - c)
            from_right = math.ceil(ax + c) - w
            xs: tuple[int, ...] = (mid_x, right, mid_x, left, right, right, left, left, from_left, from_right, from_left, from_right)
            ys: tuple[int, ...] = (bottom, mid_y, top, mid_y, bottom, top, bottom, top, bottom, bottom, top, top)
            seq = near
        else:
            xs = (mid_x, right, mid_x, left, right, right, left, left)
            ys = (bottom, mid_y, top, mid_y, bottom, top, bottom, top)
            seq = order
        for idx in seq:
            x0 = xs[idx]
            y0 = ys[idx]
            x1 = x0 + w
            y1 = y0 + h
            # The last blocker often blocks the next candidate too: one test instead of a grid walk.
            if cx0 <= x0 and cy0 <= y0 and x1 <= cx1 and y1 <= cy1 and not (la0 < x1 and x0 < la1 and lb0 < y1 and y0 < lb1):
                i0 = (x0 - gx) // cs
                i1 = (x1 - 1 - gx) // cs + 1
                for j in range((y0 - gy) // cs, (y1 - 1 - gy) // cs + 1):
                    row = j * nx
                    for i in range(row + i0, row + i1):
                        for a0, b0, a1, b1, _ in cells[i]:
                            if a0 < x1 and x0 < a1 and b0 < y1 and y0 < b1:
                                la0, lb0, la1, lb1 = a0, b0, a1, b1
                                break
                        else:
                            continue
                        break
                    else:
                        continue
                    break
                else:
                    return x0, y0, n > 0 or away((ax, ay), c, (x0, y0, w, h)), slot
            slot += 1
    return None


# --------------------------------------------------------------------------- layout

#: Whether a layout given its own last frame takes the incremental path (tests compare both paths).
_INCREMENTAL = True


def layout_labels(
    canvas: Sequence[float],
    requests: Sequence[LabelRequest],
    bases: Any = None,
    foci: Any = None,
    regions: Iterable[Sequence[float]] = (),
    previous: Layout | None = None,
    focus_pad: float = 4.0,
    cell: int = 48,
) -> Layout:
    """Place ``requests`` on ``canvas`` ((w, h) or (x, y, w, h) px) clear of each other and of the obstacles.

    ``bases``: (N, 4) screen boxes x0, y0, x1, y1 (see :func:`base_boxes`); ``foci``: (M, 2) template
    focus points, kept free by a ``focus_pad`` px box; ``regions``: fixed (x, y, w, h) rects such as docked
    overlays. ``previous``: the last frame's layout, for stability while dragging. Ids must be unique.
    """
    box = _canvas(canvas)
    cx0, cy0 = box[0], box[1]
    cx1, cy1 = box[0] + box[2], box[1] + box[3]
    limits = (cx0, cy0, cx1, cy1)
    fixed_arr = _fixed_obstacles(bases, foci, focus_pad, regions)
    prev = previous._by_id if previous is not None else {}
    # The last frame's own layout on the same canvas: its placements are inside the canvas, clear of
    # each other and of its obstacles, and its grid holds exactly those, so a label asking the same
    # keeps its rect unless an obstacle that is new this frame meets it, with no grid walk, and the
    # grid is that grid with what changed taken out and put in (what pass 1 below decides, the fast way).
    incremental = _INCREMENTAL and previous is not None and previous._canvas == box and previous._grid is not None and previous._cell == cell and bool(prev)
    fixed: list[list[int]] = []
    new_fixed: list[tuple[int, int, int, int]] = []  # obstacles new and gone since the last frame (incremental path)
    gone_fixed: list[tuple[int, int, int, int]] = []
    if incremental:
        assert previous is not None
        fixed_set, new_fixed, gone_fixed = _obstacles_since(previous, fixed_arr)
    else:
        fixed = fixed_arr.tolist()
        fixed_set = frozenset(map(tuple, fixed))
    if previous is None and _FRESH:
        return _layout_fresh(box, requests, fixed, fixed_set, fixed_arr, cell)

    n = len(requests)
    neg = [-r.priority for r in requests]
    order = sorted(range(n), key=neg.__getitem__)  # stable: ties keep request order
    rank = [0] * n
    for m, k in enumerate(order):
        rank[k] = m
    placed: dict[int, tuple[Rect, bool, int]] = {}
    offscreen: list[int] = []
    todo: list[int] = []
    kept_from: dict[int, Placement] = {}
    repriced: set[str] = set()  # kept labels whose priority changed (incremental path)
    # Last frame's placements not kept this frame (incremental path; evicted ones join them).
    released: list[Placement] = []

    # Pass 1: unchanged labels keep their rects.
    if incremental:
        assert previous is not None and previous._grid is not None
        grid = _Grid(box, cell, previous._grid)
        # Last frame's labels under an obstacle new this frame: the grid holds them all.
        blocked = {o for b in new_fixed for o in grid.hits(*b) if o is not None}
        for b in gone_fixed:
            grid.remove((*b, None))
        grid.fill(new_fixed)
        prev_get = prev.get
        for k in order:
            r = requests[k]
            anchor = r.anchor
            ax, ay = anchor
            p = prev_get(r.id)
            if not (cx0 <= ax <= cx1 and cy0 <= ay <= cy1):
                offscreen.append(k)
                if p is not None:
                    released.append(p)
                continue
            if p is not None:
                if p.anchor == anchor and p.clear == r.clear and p.rect[2:] == r.wh and (r.leader or p.slot < 12) and p.id not in blocked:
                    placed[k] = (p.rect, p.leader, p.slot)
                    kept_from[k] = p
                    if p.priority != r.priority:
                        repriced.add(p.id)
                    continue
                released.append(p)
            todo.append(k)
        if len(kept_from) + len(released) != len(prev):  # some of last frame's labels are not asked for
            kept = {p.id for p in kept_from.values()}
            released = [p for p in previous.placements if p.id not in kept]
        for p in released:
            x, y, w, h = p.rect
            grid.remove((x, y, x + w, y + h, p.id))
    else:
        grid = _Grid(box, cell)
        grid.fill(fixed)
        for k in order:
            r = requests[k]
            ax, ay = r.anchor
            if not (cx0 <= ax <= cx1 and cy0 <= ay <= cy1):
                offscreen.append(k)
                continue
            if prev:
                p = prev.get(r.id)
                if p is not None and p.anchor == r.anchor and p.clear == r.clear and p.rect[2:] == r.wh and (r.leader or p.slot < 12):
                    x, y, w, h = p.rect
                    if cx0 <= x and cy0 <= y and x + w <= cx1 and y + h <= cy1 and _free(grid, x, y, x + w, y + h):
                        grid.add(x, y, x + w, y + h, r.id)
                        placed[k] = (p.rect, p.leader, p.slot)
                        continue
            todo.append(k)
    # Only labels kept in pass 1 can be of lower priority than one placed later (pass 2 goes by
    # priority), so eviction is worth looking for only above the lowest kept priority.
    kept_min = min((requests[k].priority for k in placed), default=math.inf)
    where: dict[str, int] = {}  # request index by id, for evictions (built on the first)
    # Space freed since the last frame: its labels that were not kept, its obstacles that are gone.
    # A label hidden last frame, asking the same, with none of that space within its reach, stays hidden:
    # every candidate is blocked by what blocked it then (obstacles, or labels kept at the same place
    # and priority; every candidate of a hidden label meets one, or one of at least its priority).
    # By the same token only its candidates meeting freed space can be free now: on the incremental
    # path it looks at those alone (the full pass looks at all, and a property compares the two).
    def still_hidden() -> dict[str, list[tuple[int, Rect, bool]]]:
        """Labels hidden last frame that ask the same, each with the only candidates (slot, rect,
        leader) that may be free now (none: it stays hidden); the full pass lists no candidates and
        leaves out the labels whose reach meets freed space."""
        if previous is None or previous._canvas != box or not previous.hidden:
            return {}
        # (a kept label whose priority changed counts as freed: it may now be evicted)
        if incremental:
            freed = [p.rect for p in released] + [prev[i].rect for i in repriced]
        else:
            kept_ids = {requests[k].id for k in placed if prev[requests[k].id].priority == requests[k].priority}
            freed = [p.rect for p in previous.placements if p.id not in kept_ids]
        freed += [(a, b, c - a, d - b) for a, b, c, d in (gone_fixed if incremental else previous._fixed - fixed_set)]
        freed_boxes = [(fx, fy, fx + fw, fy + fh) for fx, fy, fw, fh in freed]
        reach = LEADER_RINGS[-1] + 2
        out: dict[str, list[tuple[int, Rect, bool]]] = {}
        for k in todo:
            r = requests[k]
            asked = previous._asked.get(r.id)
            if asked is None or asked != (r.anchor, r.wh, r.clear, r.leader, r.sides, r.priority):
                continue
            w, h = r.wh
            c = max(r.clear, 0.0) + (reach if r.leader else _NEAR + 1)
            x0, y0, x1, y1 = r.anchor[0] - c - w, r.anchor[1] - c - h, r.anchor[0] + c + w, r.anchor[1] + c + h
            if not any(fx0 < x1 and x0 < fx1 and fy0 < y1 and y0 < fy1 for fx0, fy0, fx1, fy1 in freed_boxes):
                out[r.id] = []
            elif incremental:
                out[r.id] = _reopened(r, freed_boxes)
        return out

    still = still_hidden()

    # Pass 2: the rest, by priority; evicted labels come back through a heap merged into that order.
    # A label looked at before an eviction did not see the room it freed (its old side, say, held by a
    # kept label evicted later): if one could reach it, pass 2 starts again at once with the evicted
    # labels no longer kept, so in the pass that stands every place that ends free was free when
    # looked at. Each start keeps fewer labels, so this ends.
    while True:
        evicted: list[tuple[int, int]] = []
        dropped: set[int] = set()
        gone: list[int] = []  # kept labels evicted in this round
        fresh: list[int] = []  # labels placed in this round
        seen: list[int] = []  # labels looked at in this round
        restart = False
        t = 0
        while t < len(todo) or evicted:
            if evicted and (t >= len(todo) or evicted[0][0] < rank[todo[t]]):
                k = heapq.heappop(evicted)[1]
            else:
                k = todo[t]
                t += 1
            r = requests[k]
            reopened = still.get(r.id) if still else None
            if reopened is not None and not reopened:
                dropped.add(k)
                seen.append(k)
                continue
            w, h = r.wh
            spot = None
            p = prev.get(r.id) if prev else None
            retried: Rect | None = None  # its last slot at the new anchor, if tried
            if p is not None and p.slot > 0 and p.rect[2:] == (w, h):
                again = _slot_rect(r, p.slot)
                if again is not None:
                    retried = again[0]
                    x, y = again[0][0], again[0][1]
                    if cx0 <= x and cy0 <= y and x + w <= cx1 and y + h <= cy1 and _free(grid, x, y, x + w, y + h):
                        spot = (again[0], again[1], p.slot)
            if reopened is not None:  # (hidden last frame: no last slot to retry)
                for slot, rect, lead in reopened:
                    x, y = rect[0], rect[1]
                    if cx0 <= x and cy0 <= y and x + w <= cx1 and y + h <= cy1 and _free(grid, x, y, x + w, y + h):
                        spot = (rect, lead, slot)
                        break
            elif spot is None:
                found = _search(grid, r.anchor[0], r.anchor[1], r.clear if r.clear > 0 else 0.0, w, h, _order(r.sides), r.leader, limits)
                if found is not None:
                    spot = ((found[0], found[1], w, h), found[2], found[3])
            if spot is None and kept_min < r.priority:
                if not where:
                    where = {q.id: i for i, q in enumerate(requests)}
                spot, evict = _eviction(grid, box, requests, k, where)
                if evict:
                    # Its own last slot counts too: freed by this eviction, a start again would take it.
                    freed_now = [placed[e][0] for e in evict]
                    restart = _reached(requests, seen, freed_now) or (retried is not None and _meets_any(retried, freed_now))
                    still.clear()  # room freed this frame: the rest must look again
                for e in evict:
                    (x, y, ew, eh) = placed.pop(e)[0]
                    grid.remove((x, y, x + ew, y + eh, requests[e].id))
                    was = kept_from.pop(e, None)
                    if was is not None:
                        released.append(was)
                    heapq.heappush(evicted, (rank[e], e))
                    assert e not in fresh  # only kept labels can be of lower priority than one placed later
                    gone.append(e)
                if restart:
                    break  # the rest of this round would be thrown away
            seen.append(k)
            if spot is None:
                dropped.add(k)
                continue
            (x, y, w, h), lead, slot = spot
            grid.add_inside(x, y, x + w, y + h, r.id)
            placed[k] = ((x, y, w, h), lead, slot)
            fresh.append(k)
        if not restart:
            break
        for k in fresh:
            (x, y, w, h) = placed.pop(k)[0]
            grid.remove((x, y, x + w, y + h, requests[k].id))
        todo = sorted([*todo, *gone], key=rank.__getitem__)
        kept_min = min((requests[k].priority for k in placed), default=math.inf)
        still = still_hidden()  # the evicted labels' rects are freed space now

    placements = []
    for k in order:
        got = placed.get(k)
        if got is not None:
            r = requests[k]
            p = kept_from.get(k)
            if p is not None and p.kind == r.kind and p.text == r.text and p.priority == r.priority:
                placements.append(p)  # the same value: reused
            else:
                placements.append(Placement(r.id, got[0], got[1], got[2], r.anchor, r.clear, r.kind, r.text, r.priority))
    hidden = tuple(requests[k].id for k in order if k in dropped)
    asked = {requests[k].id: (requests[k].anchor, requests[k].wh, requests[k].clear, requests[k].leader, requests[k].sides, requests[k].priority) for k in dropped}
    return Layout(
        tuple(placements), hidden, tuple(requests[k].id for k in offscreen),
        _canvas=box, _fixed=fixed_set, _asked=asked, _grid=grid.cells, _cell=cell, _fixed_arr=fixed_arr,
    )


def _eviction(grid: _Grid, canvas: Rect, requests: Sequence[LabelRequest], k: int, where: dict[str, int]) -> tuple[tuple[Rect, bool, int] | None, set[int]]:
    """The best candidate of request ``k`` blocked only by strictly lower-priority labels, and those labels
    (request indices; ``where``: index by id)."""
    pri = requests[k].priority
    cx0, cy0, cx1, cy1 = canvas[0], canvas[1], canvas[0] + canvas[2], canvas[1] + canvas[3]
    best: tuple[tuple[int, int], tuple[Rect, bool, int], set[int]] | None = None
    for slot, (rect, lead) in enumerate(candidate_rects(requests[k])):
        x, y, w, h = rect
        if not (cx0 <= x and cy0 <= y and x + w <= cx1 and y + h <= cy1):
            continue
        hit = set(grid.hits(x, y, x + w, y + h))
        if None in hit:
            continue
        owners = {where[o] for o in hit if o is not None}
        if any(requests[o].priority >= pri for o in owners):
            continue
        cost = (len(owners), slot)
        if best is None or cost < best[0]:
            best = (cost, (rect, lead, slot), owners)
    if best is None:
        return None, set()
    return best[1], best[2]


def _reached(requests: Sequence[LabelRequest], seen: Sequence[int], rects: Sequence[Rect]) -> bool:
    """Whether a candidate of one of the ``seen`` requests can meet one of ``rects`` (x, y, w, h)."""
    for k in seen:
        x0, y0, x1, y1 = _hull(requests[k])
        if _meets_any((x0, y0, x1 - x0, y1 - y0), rects):
            return True
    return False


def _meets_any(rect: Rect, rects: Sequence[Rect]) -> bool:
    """Whether ``rect`` shares interior with one of ``rects`` (all x, y, w, h)."""
    x0, y0, w0, h0 = rect
    return any(x < x0 + w0 and x0 < x + w and y < y0 + h0 and y0 < y + h for x, y, w, h in rects)


def _obstacles_since(previous: Layout, fixed: np.ndarray) -> tuple[frozenset[tuple[int, int, int, int]], list[tuple[int, int, int, int]], list[tuple[int, int, int, int]]]:
    """The set of the obstacles ``fixed`` (N, 4), and the boxes new and gone since ``previous``."""
    last = previous._fixed_arr
    if last is not None and last.shape == fixed.shape:
        changed = np.flatnonzero((last != fixed).any(axis=1))
        if not len(changed):
            return previous._fixed, [], []
        if len(changed) <= 8:  # a model or two dragged: from the rows that changed, not a new set
            # A row that changed is gone only if no row has it now, new only if no row had it.
            gone = {tuple(b) for b in last[changed].tolist() if not bool((fixed == b).all(axis=1).any())}
            new = {tuple(b) for b in fixed[changed].tolist()} - previous._fixed
            return (previous._fixed - gone) | new, list(new), list(gone)
    now = frozenset(map(tuple, fixed.tolist()))
    return now, list(now - previous._fixed), list(previous._fixed - now)


def _reopened(r: LabelRequest, freed: Sequence[tuple[int, int, int, int]]) -> list[tuple[int, Rect, bool]]:
    """The candidates of ``r`` (slot, rect, leader), in slot order, that meet one of the ``freed`` boxes (x0, y0, x1, y1)."""
    ax, ay = r.anchor
    c = r.clear if r.clear > 0 else 0.0
    w, h = r.wh
    order = _order(r.sides)
    out: list[tuple[int, Rect, bool]] = []
    slot = 0
    for n, g in enumerate((_NEAR, *LEADER_RINGS) if r.leader else (_NEAR,)):
        # Every candidate of this ring lies in the box (x0, y0)-(x1, y1) and outside the open square
        # anchor ± (c + g): a freed box elsewhere, or within that square, meets none of them.
        e0, e1, f0, f1 = ax - c - g, ax + c + g, ay - c - g, ay + c + g
        x0, x1, y0, y1 = math.floor(e0) - w, math.ceil(e1) + w, math.floor(f0) - h, math.ceil(f1) + h
        near = [b for b in freed if b[0] < x1 and x0 < b[2] and b[1] < y1 and y0 < b[3] and not (e0 <= b[0] and b[2] <= e1 and f0 <= b[1] and b[3] <= f1)]
        if near:
            for m, rect in enumerate(_ring(ax, ay, c, w, h, g, order, n == 0)):
                rx, ry = rect[0], rect[1]
                rx1, ry1 = rx + w, ry + h
                for a0, b0, a1, b1 in near:
                    if a0 < rx1 and rx < a1 and b0 < ry1 and ry < b1:
                        out.append((slot + m, rect, n > 0 or away(r.anchor, c, rect)))
                        break
        slot += 12 if n == 0 else 8
    return out


def _hull(r: LabelRequest) -> tuple[int, int, int, int]:
    """A box (x0, y0, x1, y1) holding every candidate rect of ``r`` (with a pixel to spare for rounding)."""
    w, h = r.wh
    c = (r.clear if r.clear > 0 else 0.0) + (LEADER_RINGS[-1] if r.leader else _NEAR)
    ax, ay = r.anchor
    return (math.floor(ax - c - w) - 2, math.floor(ay - c - h) - 2, math.ceil(ax + c + w) + 2, math.ceil(ay + c + h) + 2)


#: Whether a layout without ``previous`` takes :func:`_layout_fresh` (tests compare it with the general path).
_FRESH = True


def _layout_fresh(
    box: Rect, requests: Sequence[LabelRequest], fixed: list[list[int]], fixed_set: frozenset[tuple[int, int, int, int]], fixed_arr: np.ndarray, cell: int
) -> Layout:
    """:func:`layout_labels` without ``previous``: plain greedy by priority, nothing kept, nothing evicted.

    The same answer as the general path (a hypothesis property compares them), written as one flat
    loop: the candidate search of :func:`_search` inlined, ring edges from sums computed once per
    label, the grid insert inlined, each Placement built once, in its final order.
    """
    cx0, cy0 = box[0], box[1]
    cx1, cy1 = cx0 + box[2], cy0 + box[3]
    grid = _Grid(box, cell)
    grid.fill(fixed)
    cs, gx, gy, nx, cells = cell, grid.x0, grid.y0, grid.nx, grid.cells
    neg = [-r.priority for r in requests]
    order = sorted(range(len(requests)), key=neg.__getitem__)  # stable: ties keep request order
    placements: list[Placement] = []
    hidden: list[str] = []
    offscreen: list[str] = []
    asked: dict[str, tuple[object, ...]] = {}
    seqs: dict[object, tuple[tuple[int, ...], tuple[int, ...]]] = {}
    ceil, floor = math.ceil, math.floor
    leader_rings = LEADER_RINGS
    for k in order:
        r = requests[k]
        anchor = r.anchor
        ax, ay = anchor
        if not (cx0 <= ax <= cx1 and cy0 <= ay <= cy1):
            offscreen.append(r.id)
            continue
        w, h = r.wh
        clear = r.clear
        c = clear if clear > 0 else 0.0
        sides = r.sides
        pair = seqs.get(sides)
        if pair is None:
            o = _order(sides)
            pair = seqs[sides] = ((*o, 8, 9, 10, 11), o)
        near, order8 = pair
        # The same float operations as _search, in the same order: (ax + c) + g is ax + c + g.
        axc = ax + c
        axm = ax - c
        ayc = ay + c
        aym = ay - c
        mid_x = round(ax - w / 2)
        mid_y = round(ay - h / 2)
        right = ceil(axc + _NEAR)
        left = floor(axm - _NEAR) - w
        top = floor(aym - _NEAR) - h
        bottom = ceil(ayc + _NEAR)
        from_left = floor(axm)
        from_right = ceil(axc) - w
        xs: tuple[int, ...] = (mid_x, right, mid_x, left, right, right, left, left, from_left, from_right, from_left, from_right)
        ys: tuple[int, ...] = (bottom, mid_y, top, mid_y, bottom, top, bottom, top, bottom, bottom, top, top)
        seq = near
        la0 = lb0 = la1 = lb1 = _NO_BLOCKER  # the last blocker (none to start)
        slot = 0
        ring = 0
        lead = r.leader
        while True:
            for idx in seq:
                x0 = xs[idx]
                y0 = ys[idx]
                x1 = x0 + w
                y1 = y0 + h
                if cx0 <= x0 and cy0 <= y0 and x1 <= cx1 and y1 <= cy1 and not (la0 < x1 and x0 < la1 and lb0 < y1 and y0 < lb1):
                    i0 = (x0 - gx) // cs
                    i1 = (x1 - 1 - gx) // cs + 1
                    j0 = (y0 - gy) // cs
                    j1 = (y1 - 1 - gy) // cs + 1
                    for j in range(j0, j1):
                        row = j * nx
                        for i in range(row + i0, row + i1):
                            for a0, b0, a1, b1, _ in cells[i]:
                                if a0 < x1 and x0 < a1 and b0 < y1 and y0 < b1:
                                    la0, lb0, la1, lb1 = a0, b0, a1, b1
                                    break
                            else:
                                continue
                            break
                        else:
                            continue
                        break
                    else:
                        item = (x0, y0, x1, y1, r.id)
                        for j in range(j0, j1):
                            row = j * nx
                            for i in range(row + i0, row + i1):
                                cells[i] += (item,)
                        placements.append(Placement(r.id, (x0, y0, w, h), ring > 0 or away(anchor, c, (x0, y0, w, h)), slot, anchor, clear, r.kind, r.text, r.priority))
                        break
                slot += 1
            else:
                if lead and ring < len(leader_rings):
                    g = leader_rings[ring]
                    ring += 1
                    right = ceil(axc + g)
                    left = floor(axm - g) - w
                    top = floor(aym - g) - h
                    bottom = ceil(ayc + g)
                    xs = (mid_x, right, mid_x, left, right, right, left, left)
                    ys = (bottom, mid_y, top, mid_y, bottom, top, bottom, top)
                    seq = order8
                    continue
                hidden.append(r.id)
                asked[r.id] = (anchor, r.wh, clear, lead, sides, r.priority)
            break
    return Layout(
        tuple(placements), tuple(hidden), tuple(offscreen), _canvas=box, _fixed=fixed_set, _asked=asked, _grid=cells, _cell=cell, _fixed_arr=fixed_arr
    )
