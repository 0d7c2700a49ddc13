"""One label layout for the app and ``tabletop render``: every text on the table placed in screen pixels.

Pure code (no pygame). Every text on the table (model names, template titles, ruleset badges and
numbers, odds labels, dice boxes, ruler readouts, tooltips, refusal banners) is a :class:`LabelRequest`:
an anchor (screen px), a size, a priority, preferred sides, a ``clear`` radius kept free around the
anchor (a base's radius for its name), whether a leader line is allowed, and a kind for styling.
:func:`layout_labels` returns a :class:`Layout`: one integer rect per placed label, whether a leader
line is drawn, and the ids of the labels dropped for lack of room (the hidden count).

Algorithm
---------
* The anchor's clear region is the square ``anchor ± clear`` (round bases are treated by their box,
  as the layout JSON checker does). Each label has a fixed, small candidate set (:func:`candidate_rects`):
  the *near ring*, slots 0..11, touching that square at a 1 px gap: its 8 sides and corners (preferred
  sides first), then 4 slides along its bottom and top edges; then, if the request allows a leader,
  5 *leader rings* of 8 positions each (slots 12..51), 12, 28, 52, 84 and 124 px out from the square.
* Obstacles are snapped outward to integers and put in a uniform grid (a spatial hash, ``cell`` px
  cells): base boxes, template foci (a ``focus_pad`` px box around each point), fixed regions (docked
  overlays). Label rects are integers, so the snapped test "do they share interior" is exact.
* Requests are taken by priority (highest first; ties in request order). Each takes its first
  candidate that lies inside the canvas and meets no obstacle and no label placed so far (a flat Python
  loop over the few grid cells it touches: cheaper at this size than any per-candidate numpy call),
  else it is dropped (``Layout.hidden``).
* Stable from frame to frame: given ``previous`` (the last frame's Layout), a label whose id, anchor,
  size, clear radius and leader permission are unchanged first keeps its old rect, if that rect is
  still inside the canvas and clear of the obstacles and of the labels kept before it (by priority).
  The others are then placed as above, trying their previous slot (the same side of the moved anchor)
  first, so a dragged model's name travels with it. A label that finds no room may evict *strictly
  lower-priority* kept labels from the best candidate (fewest evicted, then nearest) they alone block;
  those are placed again afterwards, by priority.
  Kept labels do not drift back towards their anchors when room frees up nearby: while dragging that
  is what we want; lay out without ``previous`` when the interaction ends to let everything settle.

Guarantees (hypothesis properties on crowded random tables at three canvas sizes, tests/test_label_layout.py)
-----------------------------------------------------------------------------------------------------------
* No two placed rects overlap (touching edges is not overlap); none meets a base box, a focus box or a
  fixed region; all lie inside the canvas.
* A placement without a leader lies within :data:`NEAR_GAP` (4) px of its anchor's clear square
  (Euclidean distance between the two rects); leader placements are at least 12 px out.
* Lowest priorities are dropped first: for a dropped label, every candidate is outside the canvas,
  meets an obstacle, or meets a placed label of equal or higher priority (with or without ``previous``).
* With ``previous``: the same input gives the same layout; when one label moves far away (off the
  canvas, or into empty space) every other label keeps its rect exactly, except labels its new base
  now covers and, when the freed room lets a label hidden last frame come back, labels of lower
  priority than that one (pushed out, as the priority rule requires).
* Deterministic: the same input gives the same output. Anchors outside the canvas are not laid out
  (``Layout.offscreen``) and not counted as hidden.

Speed (``python -m benchmarks.labels``): about 3.7 ms of CPU for 300 names among 300 bases on the
300-model sample table at 1920×1080, where half the names need a leader (9–15× the all-pairs
baseline); about 1.2 ms when most names fit beside their bases; a dragging frame with ``previous``
(one label moved) 1.3–1.9 ms. The issue's 1 ms target is met by neither full layout on those tables.

:func:`dock_overlays` places fixed overlays (title, legend, side view, hints) outside the table area if
there is room, else in the emptiest corner, never over a base; pass the rects it returns to
:func:`layout_labels` as ``regions``. :func:`layout_json` and :func:`check_layout` define and check
the ``render --layout-json`` document.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

#: Most px between a leader-less label and its anchor's clear square.
NEAR_GAP = 4.0
#: Gap (px) between the clear square and a near-ring label.
_NEAR = 1.0
#: Extra distances (px beyond the clear square) of the leader rings.
LEADER_RINGS: tuple[float, ...] = (12.0, 28.0, 52.0, 84.0, 124.0)

SIDES: tuple[str, ...] = ("below", "right", "above", "left", "below_right", "above_right", "below_left", "above_left")

Rect = tuple[int, int, int, int]
"""x, y, w, h in integer screen px (pygame.Rect(*rect) takes it)."""


@dataclass(frozen=True)
class LabelRequest:
    """One text to place.

    ``anchor``: the screen point it belongs to. ``size``: (w, h) px, rounded up. ``priority``: higher is
    kept first. ``sides``: preferred sides of the anchor, from :data:`SIDES`, tried first in each ring.
    ``clear``: half-size (px) of the square around the anchor the label must stay outside (a base's
    screen radius for its name; 0 for a point). ``leader``: whether it may be moved further out with a
    leader line. ``kind``: a style group (``"name"``, ``"title"``, ``"badge"``, ``"tooltip"``...), and
    ``text`` the words, carried through to the layout JSON.
    """

    id: str
    anchor: tuple[float, float]
    size: tuple[float, float]
    priority: float = 0.0
    sides: tuple[str, ...] = ()
    clear: float = 0.0
    leader: bool = True
    kind: str = "label"
    text: str = ""

    @property
    def wh(self) -> tuple[int, int]:
        """The integer size of the rect placed for it."""
        return (max(1, math.ceil(self.size[0])), max(1, math.ceil(self.size[1])))


class Placement(NamedTuple):
    """Where a request went: ``rect`` (x, y, w, h int px), ``leader`` (draw a line to the anchor), ``slot``
    (index in :func:`candidate_rects`), with the request's id, anchor, clear, kind, text and priority.

    An immutable NamedTuple rather than a frozen dataclass: a frame builds hundreds, and a frozen
    dataclass costs five times as much to build (a third of the 1 ms budget at 300 labels).
    """

    id: str
    rect: Rect
    leader: bool
    slot: int
    anchor: tuple[float, float]
    clear: float
    kind: str
    text: str
    priority: float

    def leader_line(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """The leader segment: from the anchor's clear ring (circle of radius ``clear``) to the nearest point of the rect."""
        x, y, w, h = self.rect
        ax, ay = self.anchor
        nx, ny = min(max(ax, x), x + w), min(max(ay, y), y + h)
        d = math.hypot(nx - ax, ny - ay)
        if d <= self.clear or d == 0:
            return ((nx, ny), (nx, ny))
        k = self.clear / d
        return ((ax + (nx - ax) * k, ay + (ny - ay) * k), (nx, ny))


@dataclass(frozen=True)
class Layout:
    """The result: placements in priority order, ids dropped for lack of room, ids whose anchor is off the canvas."""

    placements: tuple[Placement, ...]
    hidden: tuple[str, ...] = ()
    offscreen: tuple[str, ...] = ()
    _by_id: dict[str, Placement] = field(default_factory=dict, compare=False, repr=False)
    # For the next frame: the canvas, the fixed obstacles and what each hidden label asked for
    # (a hidden label whose neighbourhood did not change stays hidden without a search).
    _canvas: tuple[int, int, int, int] | None = field(default=None, compare=False, repr=False)
    _fixed: frozenset[tuple[int, int, int, int]] = field(default=frozenset(), compare=False, repr=False)
    _asked: dict[str, tuple[object, ...]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_id.update({p.id: p for p in self.placements})

    @property
    def hidden_count(self) -> int:
        """How many labels were dropped (shown as "+n hidden")."""
        return len(self.hidden)

    def get(self, label_id: str) -> Placement | None:
        """The placement of ``label_id``, or None if it was dropped or off screen."""
        return self._by_id.get(label_id)


# --------------------------------------------------------------------------- candidates


_SIDE_INDEX = {s: n for n, s in enumerate(SIDES)}
_NEAR_ORDERS: dict[tuple[int, ...], tuple[int, ...]] = {}
_ORDERS: dict[tuple[str, ...], tuple[int, ...]] = {}


def _order(preferred: Sequence[str]) -> tuple[int, ...]:
    """Indices into :data:`SIDES`: the preferred sides first, then the rest in the default order."""
    order = _ORDERS.get(tuple(preferred))
    if order is None:
        names = dict.fromkeys([*(s for s in preferred if s in _SIDE_INDEX), *SIDES])
        order = _ORDERS[tuple(preferred)] = tuple(_SIDE_INDEX[s] for s in names)
    return order


def _ring(ax: float, ay: float, c: float, w: int, h: int, g: float, order: tuple[int, ...], slides: bool) -> list[Rect]:
    """The 8 rects around the square ``anchor ± c`` at ``g`` px from it (snapped outward), in ``order``;
    with ``slides``, then the 4 along its bottom and top edges starting at its left or right edge."""
    right = math.ceil(ax + c + g)
    left = math.floor(ax - c - g) - w
    top = math.floor(ay - c - g) - h
    bottom = math.ceil(ay + c + g)
    mid_x = round(ax - w / 2)
    mid_y = round(ay - h / 2)
    # Same order as SIDES: below, right, above, left, below_right, above_right, below_left, above_left.
    rects = (
        (mid_x, bottom, w, h),
        (right, mid_y, w, h),
        (mid_x, top, w, h),
        (left, mid_y, w, h),
        (right, bottom, w, h),
        (right, top, w, h),
        (left, bottom, w, h),
        (left, top, w, h),
    )
    out = [rects[i] for i in order]
    if slides:
        from_left = math.floor(ax - c)
        from_right = math.ceil(ax + c) - w
        out += [(from_left, bottom, w, h), (from_right, bottom, w, h), (from_left, top, w, h), (from_right, top, w, h)]
    return out


def _rings(request: LabelRequest) -> Iterator[tuple[list[Rect], bool]]:
    """The candidate rings of ``request``, nearest first, each with whether it needs a leader (built lazily)."""
    ax, ay = request.anchor
    c = request.clear if request.clear > 0 else 0.0
    w, h = request.wh
    order = _order(request.sides)
    yield _ring(ax, ay, c, w, h, _NEAR, order, True), False
    if request.leader:
        for extra in LEADER_RINGS:
            yield _ring(ax, ay, c, w, h, extra, order, False), True


def candidate_rects(request: LabelRequest) -> list[tuple[Rect, bool]]:
    """Every place tried for ``request``, best first, each with whether it needs a leader line.

    Slots 0..11: the near ring (no leader; the 8 sides in preferred order, then 4 slides); then, if
    ``request.leader``, 8 per leader ring. A placement's ``slot`` indexes this list.
    """
    return [(rect, lead) for ring, lead in _rings(request) for rect in ring]


def _slot_rect(request: LabelRequest, slot: int) -> tuple[Rect, bool] | None:
    """Candidate number ``slot`` of ``request`` (None if it has no such slot)."""
    ax, ay = request.anchor
    c = request.clear if request.clear > 0 else 0.0
    w, h = request.wh
    order = _order(request.sides)
    if slot < 12:
        return _ring(ax, ay, c, w, h, _NEAR, order, True)[slot], False
    ring = (slot - 12) // 8
    if not request.leader or ring >= len(LEADER_RINGS):
        return None
    return _ring(ax, ay, c, w, h, LEADER_RINGS[ring], order, False)[(slot - 12) % 8], True


# --------------------------------------------------------------------------- obstacles


def _boxes(values: Any) -> list[tuple[float, float, float, float]]:
    """(x0, y0, x1, y1) float boxes from an (N, 4) array-like."""
    if values is None:
        return []
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return []
    return [tuple(b) for b in arr.reshape(-1, 4).tolist()]  # type: ignore[misc]


def base_boxes(centres: Any, radii: Any, pad: float = 0.0) -> np.ndarray:
    """Square screen boxes (N, 4: x0, y0, x1, y1) of bases at ``centres`` (N, 2) with half-sizes ``radii`` (+ ``pad``)."""
    c = np.asarray(centres, dtype=float).reshape(-1, 2)
    r = np.broadcast_to(np.asarray(radii, dtype=float), (len(c),)) + pad
    return np.column_stack([c[:, 0] - r, c[:, 1] - r, c[:, 0] + r, c[:, 1] + r])


def rect_box_gap(rect: Sequence[float], box: Sequence[float]) -> float:
    """Euclidean distance between rect (x, y, w, h) and box (x0, y0, x1, y1); 0 when they meet."""
    x, y, w, h = rect
    dx = max(box[0] - (x + w), x - box[2], 0.0)
    dy = max(box[1] - (y + h), y - box[3], 0.0)
    return math.hypot(dx, dy)


def _canvas(bounds: Sequence[float]) -> Rect:
    if len(bounds) == 2:
        return (0, 0, int(bounds[0]), int(bounds[1]))
    x, y, w, h = bounds
    return (int(x), int(y), int(w), int(h))


class _Grid:
    """Uniform-grid spatial hash of integer rects, each with an owner (-1: a fixed obstacle)."""

    __slots__ = ("x0", "y0", "nx", "ny", "cell", "cells")

    def __init__(self, canvas: Rect, cell: int) -> None:
        self.x0, self.y0 = canvas[0], canvas[1]
        self.cell = cell
        self.nx = max(1, -(-canvas[2] // cell))
        self.ny = max(1, -(-canvas[3] // cell))
        self.cells: list[list[tuple[int, int, int, int, int]]] = [[] for _ in range(self.nx * self.ny)]

    def _span(self, x0: int, y0: int, x1: int, y1: int) -> tuple[int, int, int, int] | None:
        c = self.cell
        i0 = max(0, (x0 - self.x0) // c)
        i1 = min(self.nx - 1, (x1 - 1 - self.x0) // c)
        j0 = max(0, (y0 - self.y0) // c)
        j1 = min(self.ny - 1, (y1 - 1 - self.y0) // c)
        if i0 > i1 or j0 > j1:
            return None
        return i0, i1, j0, j1

    def add(self, x0: int, y0: int, x1: int, y1: int, owner: int) -> tuple[int, int, int, int, int]:
        item = (x0, y0, x1, y1, owner)
        span = self._span(x0, y0, x1, y1)
        if span is not None:
            i0, i1, j0, j1 = span
            nx, cells = self.nx, self.cells
            for j in range(j0, j1 + 1):
                row = j * nx
                for i in range(i0, i1 + 1):
                    cells[row + i].append(item)
        return item

    def add_inside(self, x0: int, y0: int, x1: int, y1: int, owner: int) -> tuple[int, int, int, int, int]:
        """:meth:`add` for a rect inside the canvas (no clamping)."""
        item = (x0, y0, x1, y1, owner)
        c, gx, gy, nx, cells = self.cell, self.x0, self.y0, self.nx, self.cells
        i0 = (x0 - gx) // c
        i1 = (x1 - 1 - gx) // c + 1
        for j in range((y0 - gy) // c, (y1 - 1 - gy) // c + 1):
            row = j * nx
            for i in range(row + i0, row + i1):
                cells[i].append(item)
        return item

    def fill(self, boxes: Iterable[Sequence[int]]) -> None:
        """Add every box (x0, y0, x1, y1) as a fixed obstacle (owner -1); the loop of :meth:`add`, written out."""
        c, gx, gy, nx, ny, cells = self.cell, self.x0, self.y0, self.nx, self.ny, self.cells
        for x0, y0, x1, y1 in boxes:
            i0 = (x0 - gx) // c
            i1 = (x1 - 1 - gx) // c
            j0 = (y0 - gy) // c
            j1 = (y1 - 1 - gy) // c
            if i0 < 0:
                i0 = 0
            if j0 < 0:
                j0 = 0
            if i1 >= nx:
                i1 = nx - 1
            if j1 >= ny:
                j1 = ny - 1
            item = (x0, y0, x1, y1, -1)
            for j in range(j0, j1 + 1):
                row = j * nx
                for i in range(row + i0, row + i1 + 1):
                    cells[i].append(item)

    def remove(self, item: tuple[int, int, int, int, int]) -> None:
        span = self._span(item[0], item[1], item[2], item[3])
        if span is not None:
            i0, i1, j0, j1 = span
            for j in range(j0, j1 + 1):
                for i in range(i0, i1 + 1):
                    self.cells[j * self.nx + i].remove(item)

    def hits(self, x0: int, y0: int, x1: int, y1: int) -> list[int]:
        """Owners of every rect meeting (x0, y0)-(x1, y1), with repeats."""
        out: list[int] = []
        span = self._span(x0, y0, x1, y1)
        if span is None:
            return out
        i0, i1, j0, j1 = span
        for j in range(j0, j1 + 1):
            row = j * self.nx
            for i in range(i0, i1 + 1):
                for a0, b0, a1, b1, o in self.cells[row + i]:
                    if a0 < x1 and x0 < a1 and b0 < y1 and y0 < b1:
                        out.append(o)
        return out


def _free(grid: _Grid, x0: int, y0: int, x1: int, y1: int) -> bool:
    """No rect in ``grid`` meets (x0, y0)-(x1, y1); the rect is inside the canvas (the caller checked)."""
    c, gx, gy, nx, cells = grid.cell, grid.x0, grid.y0, grid.nx, grid.cells
    i0 = (x0 - gx) // c
    i1 = (x1 - 1 - gx) // c
    for j in range((y0 - gy) // c, (y1 - 1 - gy) // c + 1):
        row = j * nx
        for i in range(row + i0, row + i1 + 1):
            for a0, b0, a1, b1, _ in cells[i]:
                if a0 < x1 and x0 < a1 and b0 < y1 and y0 < b1:
                    return False
    return True


def _fixed_obstacles(bases: Any, foci: Any, focus_pad: float, regions: Iterable[Sequence[float]]) -> list[list[int]]:
    """Every fixed obstacle as an integer box covering it (snapped outward), empty ones left out."""
    parts = []
    if bases is not None and np.size(bases):
        parts.append(np.asarray(bases, dtype=float).reshape(-1, 4))
    if foci is not None and np.size(foci):
        pts = np.asarray(foci, dtype=float).reshape(-1, 2)
        parts.append(np.hstack([pts - focus_pad, pts + focus_pad]))
    rects = [tuple(r) for r in regions]
    if rects:
        r = np.asarray(rects, dtype=float).reshape(-1, 4)
        parts.append(np.hstack([r[:, :2], r[:, :2] + r[:, 2:]]))
    if not parts:
        return []
    b = np.concatenate(parts)
    snapped = np.hstack([np.floor(b[:, :2]), np.ceil(b[:, 2:])]).astype(np.int64)
    keep = (snapped[:, 2] > snapped[:, 0]) & (snapped[:, 3] > snapped[:, 1])
    return snapped[keep].tolist()  # type: ignore[no-any-return]


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
    la0 = lb0 = la1 = lb1 = 0  # the last blocker (empty to start)
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
                    return x0, y0, n > 0, slot
            slot += 1
    return None


# --------------------------------------------------------------------------- layout


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
    grid = _Grid(box, cell)
    fixed = _fixed_obstacles(bases, foci, focus_pad, regions)
    grid.fill(fixed)
    fixed_set = frozenset(map(tuple, fixed))

    n = len(requests)
    neg = [-r.priority for r in requests]
    order = sorted(range(n), key=neg.__getitem__)  # stable: ties keep request order
    rank = [0] * n
    for m, k in enumerate(order):
        rank[k] = m
    placed: dict[int, tuple[Rect, bool, int, tuple[int, int, int, int, int]]] = {}
    offscreen: list[int] = []
    todo: list[int] = []
    prev = previous._by_id if previous is not None else {}

    # Pass 1: unchanged labels keep their rects.
    for k in order:
        r = requests[k]
        ax, ay = r.anchor
        if not (cx0 <= ax <= cx1 and cy0 <= ay <= cy1):
            offscreen.append(k)
            continue
        if prev:
            p = prev.get(r.id)
            if p is not None and p.anchor == r.anchor and p.clear == r.clear and p.rect[2:] == r.wh and (r.leader or not p.leader):
                x, y, w, h = p.rect
                if cx0 <= x and cy0 <= y and x + w <= cx1 and y + h <= cy1 and _free(grid, x, y, x + w, y + h):
                    placed[k] = (p.rect, p.leader, p.slot, grid.add(x, y, x + w, y + h, k))
                    continue
        todo.append(k)
    # Only labels kept in pass 1 can be of lower priority than one placed later (pass 2 goes by
    # priority), so eviction is worth looking for only above the lowest kept priority.
    kept_min = min((requests[k].priority for k in placed), default=math.inf)
    # Space freed since the last frame: its labels that were not kept, its obstacles that are gone.
    # A label hidden last frame, asking the same, with none of that space within its reach, stays hidden:
    # every candidate is blocked by what blocked it then (obstacles, or labels kept at the same place).
    still: set[str] = set()
    if previous is not None and previous._canvas == box and previous.hidden:
        # (a kept label whose priority changed counts as freed: it may now be evicted)
        kept_ids = {requests[k].id for k in placed if prev[requests[k].id].priority == requests[k].priority}
        freed = [p.rect for p in previous.placements if p.id not in kept_ids]
        freed += [(a, b, c - a, d - b) for a, b, c, d in previous._fixed - fixed_set]
        reach = LEADER_RINGS[-1] + 2
        for k in todo:
            r = requests[k]
            asked = previous._asked.get(r.id)
            if asked is None or asked != (r.anchor, r.wh, r.clear, r.leader, r.sides, r.priority):
                continue
            w, h = r.wh
            c = max(r.clear, 0.0) + (reach if r.leader else _NEAR + 1)
            x0, y0, x1, y1 = r.anchor[0] - c - w, r.anchor[1] - c - h, r.anchor[0] + c + w, r.anchor[1] + c + h
            if not any(fx < x1 and x0 < fx + fw and fy < y1 and y0 < fy + fh for fx, fy, fw, fh in freed):
                still.add(r.id)

    # Pass 2: the rest, by priority; evicted labels come back through a heap merged into that order.
    evicted: list[tuple[int, int]] = []
    dropped: set[int] = set()
    t = 0
    while t < len(todo) or evicted:
        if evicted and (t >= len(todo) or evicted[0][0] < rank[todo[t]]):
            k = heapq.heappop(evicted)[1]
        else:
            k = todo[t]
            t += 1
        r = requests[k]
        if still and r.id in still:
            dropped.add(k)
            continue
        w, h = r.wh
        spot = None
        p = prev.get(r.id) if prev else None
        if p is not None and p.slot > 0 and p.rect[2:] == (w, h):
            again = _slot_rect(r, p.slot)
            if again is not None:
                x, y = again[0][0], again[0][1]
                if cx0 <= x and cy0 <= y and x + w <= cx1 and y + h <= cy1 and _free(grid, x, y, x + w, y + h):
                    spot = (again[0], again[1], p.slot)
        if spot is None:
            found = _search(grid, r.anchor[0], r.anchor[1], r.clear if r.clear > 0 else 0.0, w, h, _order(r.sides), r.leader, limits)
            if found is not None:
                spot = ((found[0], found[1], w, h), found[2], found[3])
        if spot is None and kept_min < r.priority:
            spot, evict = _eviction(grid, box, requests, k)
            if evict:
                still.clear()  # room freed this frame: the rest must look again
            for e in evict:
                grid.remove(placed.pop(e)[3])
                heapq.heappush(evicted, (rank[e], e))
        if spot is None:
            dropped.add(k)
            continue
        (x, y, w, h), lead, slot = spot
        placed[k] = ((x, y, w, h), lead, slot, grid.add_inside(x, y, x + w, y + h, k))

    placements = []
    for k in order:
        got = placed.get(k)
        if got is not None:
            r = requests[k]
            placements.append(Placement(r.id, got[0], got[1], got[2], r.anchor, r.clear, r.kind, r.text, r.priority))
    hidden = tuple(requests[k].id for k in order if k in dropped)
    asked = {requests[k].id: (requests[k].anchor, requests[k].wh, requests[k].clear, requests[k].leader, requests[k].sides, requests[k].priority) for k in dropped}
    return Layout(tuple(placements), hidden, tuple(requests[k].id for k in offscreen), _canvas=box, _fixed=fixed_set, _asked=asked)


def _eviction(grid: _Grid, canvas: Rect, requests: Sequence[LabelRequest], k: int) -> tuple[tuple[Rect, bool, int] | None, set[int]]:
    """The best candidate of request ``k`` blocked only by strictly lower-priority labels, and those labels."""
    pri = requests[k].priority
    cx0, cy0, cx1, cy1 = canvas[0], canvas[1], canvas[0] + canvas[2], canvas[1] + canvas[3]
    best: tuple[tuple[int, int], tuple[Rect, bool, int], set[int]] | None = None
    for slot, (rect, lead) in enumerate(candidate_rects(requests[k])):
        x, y, w, h = rect
        if not (cx0 <= x and cy0 <= y and x + w <= cx1 and y + h <= cy1):
            continue
        owners = set(grid.hits(x, y, x + w, y + h))
        if -1 in owners or any(requests[o].priority >= pri for o in owners):
            continue
        cost = (len(owners), slot)
        if best is None or cost < best[0]:
            best = (cost, (rect, lead, slot), owners)
    if best is None:
        return None, set()
    return best[1], best[2]


# --------------------------------------------------------------------------- docked overlays


@dataclass(frozen=True)
class Overlay:
    """A fixed overlay to dock (title, legend, side view, hints): ``size`` (w, h) px and its preferred
    ``corner``: ``"top_left"``, ``"top_right"``, ``"bottom_left"`` or ``"bottom_right"``."""

    id: str
    size: tuple[float, float]
    corner: str = "top_left"


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
    """Where each overlay goes, in order (earlier ones choose first); None when it fits nowhere without covering a base.

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
        out[ov.id] = choice
        if choice is not None:
            blocked = np.concatenate([blocked, np.array([[choice[0], choice[1], choice[0] + choice[2], choice[1] + choice[3]]], dtype=float)])
            bx0, by0, bx1, by1 = blocked[:, 0], blocked[:, 1], blocked[:, 2], blocked[:, 3]
    return out


# --------------------------------------------------------------------------- layout JSON


@dataclass(frozen=True)
class BaseMark:
    """A base as the layout JSON records it: ``centre`` (screen px) and ``radius``, the half-width of its box."""

    id: str
    centre: tuple[float, float]
    radius: float

    @property
    def box(self) -> tuple[float, float, float, float]:
        """The square x0, y0, x1, y1 the layout keeps labels off."""
        x, y = self.centre
        return (x - self.radius, y - self.radius, x + self.radius, y + self.radius)


def _num(v: float) -> float | int:
    r = round(float(v), 3)
    return int(r) if r == int(r) else r


def layout_json(size: Sequence[float], placements: Iterable[Placement], bases: Iterable[BaseMark], hidden: int | Sequence[str]) -> dict[str, Any]:
    """The ``render --layout-json`` document of what was drawn, in screen px.

    ``{"size": [w, h], "labels": [{"text", "rect": [x, y, w, h], "anchor": [x, y], "leader": bool, "id",
    "kind", "clear"}], "bases": [{"id", "centre": [x, y], "radius"}], "hidden_labels": n}``; ``id``,
    ``kind`` and ``clear`` extend the issue's format (the checker reads ``clear`` when present).
    """
    return {
        "size": [int(size[0]), int(size[1])],
        "labels": [
            {
                "text": p.text,
                "rect": [int(v) for v in p.rect],
                "anchor": [_num(p.anchor[0]), _num(p.anchor[1])],
                "leader": bool(p.leader),
                "id": p.id,
                "kind": p.kind,
                "clear": _num(p.clear),
            }
            for p in placements
        ],
        "bases": [{"id": b.id, "centre": [_num(b.centre[0]), _num(b.centre[1])], "radius": _num(b.radius)} for b in bases],
        "hidden_labels": hidden if isinstance(hidden, int) else len(hidden),
    }


def check_layout(doc: Mapping[str, Any], gap: float = NEAR_GAP, tol: float = 0.01) -> list[str]:
    """Problems in a layout JSON document; empty when it keeps every promise.

    Reported: a label outside the canvas; two labels overlapping; a label on a base's box (centre ±
    radius); a leader-less label more than ``gap`` px from its anchor's clear square (the label's
    ``clear`` if given, else the box of a base containing the anchor, else the anchor point).
    ``tol`` px absorbs the rounding of the document's numbers.
    """
    problems: list[str] = []
    cw, ch = doc["size"]
    labels = list(doc.get("labels", []))
    bases = [BaseMark(str(b["id"]), (float(b["centre"][0]), float(b["centre"][1])), float(b["radius"])) for b in doc.get("bases", [])]

    def name(lab: Mapping[str, Any]) -> str:
        return repr(lab.get("text") or lab.get("id") or "?")

    rects = [tuple(float(v) for v in lab["rect"]) for lab in labels]
    for lab, (x, y, w, h) in zip(labels, rects):
        if x < -tol or y < -tol or x + w > cw + tol or y + h > ch + tol:
            problems.append(f"label {name(lab)} at {list(lab['rect'])} is outside the {cw}×{ch} canvas")
    by_x = sorted(range(len(rects)), key=lambda i: rects[i][0])
    for n, i in enumerate(by_x):
        x, y, w, h = rects[i]
        for j in by_x[n + 1 :]:
            u, v, p, q = rects[j]
            if u >= x + w - tol:
                break
            if v < y + h - tol and y < v + q - tol and u < x + w - tol and x < u + p - tol:
                problems.append(f"labels {name(labels[i])} and {name(labels[j])} overlap")
    for lab, (x, y, w, h) in zip(labels, rects):
        for b in bases:
            bx0, by0, bx1, by1 = b.box
            if bx0 < x + w - tol and x < bx1 - tol and by0 < y + h - tol and y < by1 - tol:
                problems.append(f"label {name(lab)} covers base {b.id!r}")
    for lab, rect in zip(labels, rects):
        if lab.get("leader"):
            continue
        axp, ayp = float(lab["anchor"][0]), float(lab["anchor"][1])
        clear = lab.get("clear")
        if clear is None:
            owners = [b.radius for b in bases if b.box[0] <= axp <= b.box[2] and b.box[1] <= ayp <= b.box[3]]
            clear = max(owners, default=0.0)
        c = float(clear)
        d = rect_box_gap(rect, (axp - c, ayp - c, axp + c, ayp + c))
        if d > gap + tol:
            problems.append(f"label {name(lab)} has no leader but lies {d:.1f} px from its anchor")
    return problems
