"""What the layout is asked and answers: :class:`LabelRequest`, :class:`Placement`, :class:`Layout`,
and the fixed candidate rects of a request (:func:`candidate_rects`). Pure: no pygame."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

NEAR_GAP = 4.0
#: Gap (px) between the clear square and a near-ring label.
_NEAR = 1.0
#: Extra distances (px beyond the clear square) of the leader rings.
LEADER_RINGS: tuple[float, ...] = (12.0, 28.0, 52.0, 84.0, 124.0)
#: A label farther than this (px) from its anchor's round clear region gets a leader wherever it sits:
#: a near-ring corner of a large clear square (a template's dice box, a big base's name) lies as far
#: out as the first leader ring, and a reader must see what it belongs to.
AWAY = LEADER_RINGS[0]

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

    @cached_property
    def wh(self) -> tuple[int, int]:
        """The integer size of the rect placed for it (computed once: the layout asks often)."""
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
    # Its spatial hash (cells of the fixed obstacles and the placements, never changed in place; see
    # geometry._Grid), the grid's cell size and the obstacles as an (N, 4) array: the next frame starts
    # from a copy of the grid instead of filling one.
    _grid: list[Any] | None = field(default=None, compare=False, repr=False)
    _cell: int = field(default=0, compare=False, repr=False)
    _fixed_arr: Any = field(default=None, compare=False, repr=False)

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


def away(anchor: tuple[float, float], clear: float, rect: Rect) -> bool:
    """Whether ``rect`` (x, y, w, h) lies more than :data:`AWAY` px from the circle of radius ``clear``
    (0 if negative) round ``anchor``: such a label is drawn with a leader."""
    ax, ay = anchor
    x, y, w, h = rect
    dx = x - ax if ax < x else (ax - x - w if ax > x + w else 0.0)
    dy = y - ay if ay < y else (ay - y - h if ay > y + h else 0.0)
    return math.hypot(dx, dy) - (clear if clear > 0 else 0.0) > AWAY


def _near_leads(request: LabelRequest, rects: list[Rect]) -> list[tuple[Rect, bool]]:
    return [(r, away(request.anchor, request.clear, r)) for r in rects]


def _rings(request: LabelRequest) -> Iterator[list[tuple[Rect, bool]]]:
    """The candidate rings of ``request``, nearest first, each rect with whether it needs a leader (built lazily)."""
    ax, ay = request.anchor
    c = request.clear if request.clear > 0 else 0.0
    w, h = request.wh
    order = _order(request.sides)
    yield _near_leads(request, _ring(ax, ay, c, w, h, _NEAR, order, True))
    if request.leader:
        for extra in LEADER_RINGS:
            yield [(r, True) for r in _ring(ax, ay, c, w, h, extra, order, False)]


def candidate_rects(request: LabelRequest) -> list[tuple[Rect, bool]]:
    """Every place tried for ``request``, best first, each with whether it needs a leader line.

    Slots 0..11: the near ring (the 8 sides in preferred order, then 4 slides; a leader only where the
    rect lies more than :data:`AWAY` px from the anchor's clear circle); then, if ``request.leader``,
    8 per leader ring (always with a leader). A placement's ``slot`` indexes this list.
    """
    return [pair for ring in _rings(request) for pair in ring]


def _slot_rect(request: LabelRequest, slot: int) -> tuple[Rect, bool] | None:
    """Candidate number ``slot`` of ``request`` (None if it has no such slot)."""
    ax, ay = request.anchor
    c = request.clear if request.clear > 0 else 0.0
    w, h = request.wh
    order = _order(request.sides)
    if slot < 12:
        rect = _ring(ax, ay, c, w, h, _NEAR, order, True)[slot]
        return rect, away(request.anchor, request.clear, rect)
    ring = (slot - 12) // 8
    if not request.leader or ring >= len(LEADER_RINGS):
        return None
    return _ring(ax, ay, c, w, h, LEADER_RINGS[ring], order, False)[(slot - 12) % 8], True
