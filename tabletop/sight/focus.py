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
from dataclasses import dataclass, replace

import numpy as np
import shapely
import shapely.affinity
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from tabletop.model import Base, Model, PlacedTemplate, Point
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


# --------------------------------------------------------------------------- the template's 3D area


@dataclass(frozen=True)
class Volume:
    """How far the template's 3D area reaches above and below the focus over a plan point ``d`` mm from it.

    ``ball``: a ball of that radius about the focus (a circle's upright twin turned about it): up to
    ``sqrt(ball^2 - d^2)``; ``half_height``: a slab (the flat template extruded up and down by it); neither:
    no cap (the flat template and an upright sheet: the silhouette over the flat template counts whole).
    The Blast Focus draws line of fire only inside the area of effect, so where the area is a solid, the
    line must end on a part of the silhouette inside it.
    """

    ball: float | None = None
    half_height: float | None = None


def _disc(centre: Point, radius: float, segments: int, outer: bool) -> Polygon:
    """A disc as a polygon inscribed in (or, ``outer``, around) the true circle."""
    angles = (np.arange(segments) + (0.5 if outer else 0.0)) * (2 * math.pi / segments)
    r = radius / math.cos(math.pi / segments) if outer else radius
    return shapely.Polygon(np.stack([centre[0] + r * np.cos(angles), centre[1] + r * np.sin(angles)], axis=-1))


def _annulus(centre: Point, d0: float, d1: float, segments: int, outer: bool) -> BaseGeometry:
    """The ring ``d0 <= d <= d1`` about ``centre``: inside the true one, or (``outer``) around it."""
    ring = _disc(centre, d1, segments, outer)
    return ring if d0 <= 0.0 else ring.difference(_disc(centre, d0, segments, not outer))


#: Segments of the first, cheap bracket of a ball's rings (a finer one settles what it cannot).
_COARSE_SEGMENTS = 64

#: An interval of plan distances from the focus and the silhouette tops that bracket it: (d0, d1, the top
#: that proves "seen" there, the top that proves "hidden").
_Band = tuple[float, float, float, float]


class FocusSight:
    """What the Blast Focus of one template sees past ``pieces``, for any silhouette and 3D area.

    The hidden regions are made once per silhouette top (:class:`Hiding`) and shared by every trooper.
    """

    def __init__(self, placed: PlacedTemplate, focus_z: float, pieces: Sequence[Piece]) -> None:
        self.placed = placed
        self.focus_z = focus_z
        self.pieces = tuple(pieces)
        self._hiding: dict[float, Hiding] = {}
        self._rings: dict[tuple[float, float, float, int, bool], BaseGeometry] = {}

    def hiding(self, top: float) -> Hiding:
        if top not in self._hiding:
            self._hiding[top] = hiding_regions(self.placed, self.pieces, self.focus_z, top)
        return self._hiding[top]

    def adjusted(self, height_mm: float, plan_mm: float = 0.0) -> FocusSight:
        """The same view with every piece raised (or lowered) by ``height_mm`` and grown in plan by ``plan_mm``
        (mitred corners); a piece lowered to the table or shrunk away is left out."""
        out: list[Piece] = []
        for p in self.pieces:
            height = None if p.height is None else p.height + height_mm
            if height is not None and height <= 0.0:
                continue
            poly = p.polygon
            if plan_mm:
                grown = shapely.buffer(poly, plan_mm, join_style="mitre", mitre_limit=10.0)
                if grown.is_empty or grown.geom_type != "Polygon":
                    continue
                poly = grown
            out.append(Piece(p.id, poly, height))
        return FocusSight(self.placed, self.focus_z, out)

    def top_at(self, top: float, volume: Volume, d: float) -> float:
        """The highest point of a silhouette topped at ``top`` inside the 3D area, ``d`` mm from the focus in plan."""
        f = self.focus_z
        if top <= f:
            return top
        if volume.half_height is not None:
            return min(top, f + volume.half_height)
        if volume.ball is not None:
            return min(top, f + math.sqrt(max(volume.ball**2 - d * d, 0.0)))
        return top

    def view(self, model: Model, bottom: float, top: float, volume: Volume = Volume()) -> FocusView:
        """Does the focus see some part of ``model``'s silhouette (``bottom`` to ``top``) inside the 3D area?

        Over a plan point the highest part of the silhouette inside the area gives the best line. Without a
        ball that height is one number and :func:`seen_part` decides. In a ball it falls with the distance
        from the focus: plan rings bracket it (the ring's far edge proves "seen", its near edge "hidden"),
        split until one of them decides; a case left undecided is within a hair of grazing, which does not block.
        """
        f = self.focus_z
        if volume.ball is None:
            t = self.top_at(top, volume, 0.0)
            return seen_part(self.placed, model, t, f, self.pieces, self.hiding(t))
        radius = volume.ball
        if top <= f:
            gap = f - top
            if gap > radius:
                return FocusView(False, ())
            bands: list[_Band] = [(0.0, math.sqrt(radius**2 - gap**2), top, top)]
        else:
            low = max(bottom, f) - f
            if low > radius:
                return FocusView(False, ())
            d_max = math.sqrt(radius**2 - low**2)
            d_cap = math.sqrt(radius**2 - (top - f) ** 2) if top - f < radius else 0.0
            bands = [(0.0, d_cap, top, top)] if d_cap > 0.0 else []
            bands += self._split(top, volume, d_cap, d_max, 8)
        names = self._names(model, top, volume)
        # Lower tops hide more: hidden even at the highest top the area allows over the base, hidden everywhere.
        highest = self.top_at(top, volume, float(base_polygon(model, 64, outer=True).distance(shapely.Point(self.placed.focus))))
        if not seen_part(self.placed, model, highest, f, self.pieces, self.hiding(highest)).seen:
            return FocusView(False, names)
        pending = bands
        for round_ in range(14):
            undecided: list[_Band] = []
            for band in pending:
                verdict = self._bracket(model, band, _COARSE_SEGMENTS if round_ == 0 else DEFAULT_SEGMENTS)
                if verdict is True:
                    return FocusView(True, names)
                if verdict is None:
                    undecided.append(band)
            if not undecided:
                return FocusView(False, names)
            # A ring of one top only gets sharper with more segments; a ring whose top falls gets narrower.
            if len(undecided) > 64:
                return FocusView(True, names)  # a long grazing edge: the band's contest check will say so
            pending = []
            for band in undecided:
                d0, d1, t_seen, t_hidden = band
                if t_seen == t_hidden and round_ == 0:
                    pending.append(band)  # the same ring again, at the default segments
                elif t_seen == t_hidden:
                    verdict = self._bracket(model, band, FINE_SEGMENTS)
                    if verdict is True or verdict is None:
                        return FocusView(True, names)
                else:
                    pending += self._split(top, volume, d0, d1, 2)
            if not pending:
                return FocusView(False, names)
        return FocusView(True, names)

    def _split(self, top: float, volume: Volume, d0: float, d1: float, n: int) -> list[_Band]:
        edges = np.linspace(d0, d1, n + 1)
        return [(float(a), float(b), self.top_at(top, volume, float(b)), self.top_at(top, volume, float(a))) for a, b in zip(edges[:-1], edges[1:])]

    def _ring_left(self, d0: float, d1: float, top: float, segments: int, outer: bool) -> BaseGeometry:
        """The template within the ring ``d0 .. d1`` less what the pieces hide of silhouettes topped at ``top``
        (inside the true region, or around it with ``outer``); shared by every trooper of one height."""
        key = (d0, d1, top, segments, outer)
        if key not in self._rings:
            region = template_polygon(self.placed, segments, outer=outer).intersection(_annulus(self.placed.focus, d0, d1, segments, outer))
            union = self.hiding(top).union
            self._rings[key] = region if union is None else region.difference(union)
        return self._rings[key]

    def _bracket(self, model: Model, band: _Band, segments: int) -> bool | None:
        """True: seen in this ring; False: hidden all over it; None: the polygons cannot tell."""
        d0, d1, t_seen, t_hidden = band
        if _meets(model, self._ring_left(d0, d1, t_seen, segments, False), outer=False):
            return True
        return None if _meets(model, self._ring_left(d0, d1, t_hidden, segments, True), outer=True) else False

    def _names(self, model: Model, top: float, volume: Volume) -> tuple[str, ...]:
        """The pieces that hide part of the base inside the template, at the silhouette's best height over its nearest point."""
        base = base_polygon(model, 64, outer=True)
        d_near = float(base.distance(shapely.Point(self.placed.focus)))
        hiding = self.hiding(self.top_at(top, volume, d_near))
        near = base.intersection(template_polygon(self.placed, 64, outer=True))
        return tuple(i for i, r in hiding.regions if r.intersects(near if not near.is_empty else base))


def grown_base(model: Model, by_mm: float) -> Model:
    """``model`` with its base grown (or shrunk, ``by_mm`` < 0) by ``by_mm`` all round."""
    b = model.base
    return replace(model, base=Base(b.shape, max(b.length + 2 * by_mm, 1e-6), max(b.width + 2 * by_mm, 1e-6)))
