"""What a blast focus at a height sees of a silhouette past terrain of limited height.

The focus is a point ``(x, y, focus_z)``; a trooper's silhouette is the prism over its base from
its bottom to its ``top``; a terrain piece is a prism from the table up to its ``height`` (no
height: unlimited). The focus sees the trooper when some straight line from the focus to some
point of the silhouette passes no piece below the piece's top (grazing the top does not block).

For a point ``q`` of the base the highest line, the one to ``(q, top)``, is the best: at every
distance it is higher than a line to any lower point of the silhouette above ``q``. So the
question is in plan: which ``q`` does a piece hide when the line rises (or falls) from
``focus_z`` at the focus to ``top`` at ``q``? Along a line the height is linear in the fraction
``s`` of the way, so a piece of height ``h`` hides ``q`` when the segment meets it at a fraction
where the line is below ``h``:

* rising (``top > focus_z``): below ``h`` for ``s < s* = (h - focus_z) / (top - focus_z)``. The
  hidden points are the piece's plan shadow scaled about the focus by ``1 / s*``: a point is
  hidden when the point ``s*`` of the way to it lies in the piece or behind it.
* falling (``top < focus_z``): below ``h`` for ``s > s* = (focus_z - h) / (focus_z - top)``. The
  hidden points are the piece swept outward from the focus by scales 1 to ``1 / s*``: the
  piece, its copy scaled by ``1 / s*``, and the quadrilateral each edge sweeps between them.

Every region is a polygon built exactly from the piece's corners (the plan shadow's far arc
lies beyond the template), so the only approximation left is the template's own curve, which
the caller brackets (:func:`seen_part`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
import shapely.affinity
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from tabletop.model import Model, PlacedTemplate, Point
from tabletop.shapes import DEFAULT_SEGMENTS, FINE_SEGMENTS, base_polygon, template_polygon
from tabletop.visibility import shadow_polygon

#: Contact within this many mm counts as contact (the core's ``CONTACT_EPS_MM``).
_EPS = 1e-9


@dataclass(frozen=True)
class Piece:
    """A terrain piece as the focus sees it: id, plan outline, height (None: unlimited)."""

    id: str
    polygon: Polygon
    height: float | None


def _scaled(geom: BaseGeometry, focus: Point, factor: float) -> BaseGeometry:
    return shapely.affinity.scale(geom, factor, factor, origin=(focus[0], focus[1]))


def _everything(focus: Point, far: float) -> BaseGeometry:
    return shapely.Point(focus).buffer(far * 4.0, 16)


def _swept(piece: Polygon, focus: Point, factor: float) -> BaseGeometry:
    """The piece scaled about ``focus`` by every factor from 1 to ``factor``: the union of both
    ends and the quadrilateral each edge sweeps."""
    ring = np.asarray(piece.exterior.coords)[:-1]
    f = np.asarray(focus, dtype=float)
    far_ring = f + (ring - f) * factor
    quads = []
    for k in range(len(ring)):
        a, b = ring[k], ring[(k + 1) % len(ring)]
        fa, fb = far_ring[k], far_ring[(k + 1) % len(ring)]
        quad = shapely.Polygon([a, b, fb, fa])
        # An edge (nearly) on a ray from the focus sweeps a sliver that adds nothing: skip it (GEOS divides by ~0).
        if quad.area > 1e-9:
            quads.append(shapely.make_valid(quad) if not quad.is_valid else quad)
    return shapely.union_all([piece, shapely.Polygon(far_ring), *quads])


def hidden_region(piece: Piece, focus: Point, focus_z: float, top: float, far: float) -> BaseGeometry | None:
    """Plan points ``q`` whose line from the focus to ``(q, top)`` passes ``piece`` below its top.

    ``far``: how far from the focus the answer must hold (the template's reach). None: hides nothing.
    """
    inside = piece.polygon.contains_properly(shapely.Point(focus))
    h = piece.height

    def flat_shadow() -> BaseGeometry:
        if inside:
            return _everything(focus, far)
        return shadow_polygon(focus, np.asarray(piece.polygon.exterior.coords)[:-1], far)

    if h is None:
        return flat_shadow()
    if top >= focus_z:
        if h <= focus_z:
            return None  # the line never dips below the focus's level
        if h >= top:
            return flat_shadow()  # the whole line is below the piece's top
        if inside:
            return _everything(focus, far)  # the focus is inside the piece, below its top
        s_star = (h - focus_z) / (top - focus_z)
        if piece.polygon.distance(shapely.Point(focus)) > s_star * far:
            return None  # it would hide only points beyond the template's reach
        return _scaled(flat_shadow(), focus, 1.0 / s_star)
    if h >= focus_z:
        return flat_shadow()
    if h <= top:
        return None  # the line stays above the piece's top all the way down
    s_star = (focus_z - h) / (focus_z - top)
    # Scales past the template's reach change nothing within it: cap them (a tiny s* would overflow).
    nearest = piece.polygon.exterior.distance(shapely.Point(focus)) if inside else piece.polygon.distance(shapely.Point(focus))
    factor = min(1.0 / s_star, 4.0 * far / max(nearest, 1e-6))
    return _swept(piece.polygon, focus, max(factor, 1.0))


@dataclass(frozen=True)
class FocusView:
    """Whether the focus sees a trooper, and which pieces hide part of what it could see."""

    seen: bool
    hidden_by: tuple[str, ...]


def _reach_of(placed: PlacedTemplate) -> float:
    return placed.shape.reach * 1.1 + 1.0


class Hiding:
    """What the pieces hide of silhouettes topped at one height, and the template less it (bracketed).

    Troopers of one height share it; the template's polygons less the hidden part are made once
    for each number of segments asked for.
    """

    def __init__(self, placed: PlacedTemplate, regions: Sequence[tuple[str, BaseGeometry]]) -> None:
        self.placed = placed
        self.regions = tuple(regions)
        self.union = shapely.union_all([r for _, r in self.regions]) if self.regions else None
        self._left: dict[tuple[int, bool], BaseGeometry] = {}

    def left(self, segments: int, outer: bool) -> BaseGeometry:
        """The template (inscribed or circumscribed polygon at ``segments``) less what is hidden."""
        key = (segments, outer)
        if key not in self._left:
            poly = template_polygon(self.placed, segments, outer=outer)
            self._left[key] = poly if self.union is None else poly.difference(self.union)
        return self._left[key]


def hiding_regions(placed: PlacedTemplate, pieces: Sequence[Piece], focus_z: float, top: float) -> Hiding:
    """What every piece hides from silhouettes topped at ``top`` (pieces that hide nothing left out)."""
    far = _reach_of(placed)
    regions = [(p.id, hidden_region(p, placed.focus, focus_z, top, far)) for p in pieces]
    return Hiding(placed, [(i, r) for i, r in regions if r is not None and not r.is_empty])


def seen_part(
    placed: PlacedTemplate,
    model: Model,
    top: float,
    focus_z: float,
    pieces: Sequence[Piece],
    hiding: Hiding | None = None,
) -> FocusView:
    """Does the focus of ``placed`` see some point of ``model``'s silhouette inside the template?

    ``top``: the silhouette's top (mm); ``hiding``: :func:`hiding_regions` for that top, when the
    caller has it. Bracketed like the core's plan-view test: the template's inscribed polygon
    proves "seen", the circumscribed one proves "hidden", and a finer pair settles the rest;
    within about 1e-6 mm of grazing, grazing does not block.
    """
    if hiding is None:
        hiding = hiding_regions(placed, pieces, focus_z, top)
    if not hiding.regions:
        return FocusView(True, ())
    # Naming only (which pieces hide part of the base inside the template): a coarse outline is enough.
    base = base_polygon(model, 64, outer=True)
    near = base.intersection(template_polygon(placed, 64, outer=True))
    names = tuple(i for i, r in hiding.regions if r.intersects(near if not near.is_empty else base))
    for segments in (DEFAULT_SEGMENTS, FINE_SEGMENTS):
        if _meets(model, hiding.left(segments, False), outer=False):
            return FocusView(True, names)
        if not _meets(model, hiding.left(segments, True), outer=True):
            return FocusView(False, names)
    return FocusView(True, names)


def _meets(model: Model, region: BaseGeometry, outer: bool) -> bool:
    """Does ``model``'s base meet ``region`` (exact for round bases; bracketed polygons otherwise)?"""
    if region.is_empty:
        return False
    if model.base.is_round:
        return float(shapely.distance(shapely.Point(model.x, model.y), region)) <= model.base.length / 2 + _EPS
    return float(shapely.distance(base_polygon(model, 4096, outer), region)) <= _EPS
