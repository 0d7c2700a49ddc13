"""Placing bases and terrain as players measure them with a tape. Pure: no pygame.

- Exact base geometry: the signed distance to a base (round, rect: closed form; oval:
  Eberly's bisection on the normal-foot equation, to the last bit), the extent of a base
  along a direction (its support function), and the edge-to-edge gap of two bases.
- Solving a position: a base slid along the line of centres until its edge touches another
  (margin 0.000 mm), or put at a given edge-to-edge (or centre-to-centre) distance and
  bearing, or at given distances from two table edges, measured to the base's edge.
- Reading what the user typed: ``12.5" from left, 8" from bottom``,
  ``3.2" from Trooper 1, edge to edge, at 40°``, ``contact Trooper 1``, ``4 at 1.5"``.
- Terrain outlines: validity (three corners, no zero area, no self-crossing), grid snapping,
  rotation, circles as regular polygons.

Round bases take closed forms (edge to edge = centre distance - r1 - r2). For oval and
rectangular bases the gap is the least exact signed distance over one outline (convex
shapes: a bracketing refinement finds it), and the contact position is a 1-D root of
that gap along the line: never a buffered polygon.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray

from tabletop.model import Base, Model, Point, RectSpec, Scenario, Table, Terrain
from tabletop.shapes import to_local, to_world
from tabletop.units import LengthError, parse_length

FloatArray = NDArray[np.float64]

# Base sizes on Alt+1 … Alt+9: the common round bases, then two ovals (mm).
BASE_PRESETS: tuple[tuple[str, Base], ...] = (
    ("25 mm", Base.round(25.0)),
    ("32 mm", Base.round(32.0)),
    ("40 mm", Base.round(40.0)),
    ("50 mm", Base.round(50.0)),
    ("60 mm", Base.round(60.0)),
    ('1"', Base.round(25.4)),
    ('1.5"', Base.round(38.1)),
    ("oval 60×35 mm", Base("oval", 60.0, 35.0)),
    ("oval 90×52 mm", Base("oval", 90.0, 52.0)),
)

_BISECT = 200  # bisection steps: far past the 53 bits a float holds; stops early when the bracket collapses
_GRID = 17
_ROUNDS = 8  # 8**-8 of a 0.5° bracket: the minimum is flat, so its value is exact to ~1e-13 mm


class PlacementTextError(ValueError):
    """What the user typed cannot be read or does not fit the table."""


# --------------------------------------------------------------------------- exact base geometry


def _ellipse_distance(a: float, b: float, u: FloatArray, v: FloatArray) -> FloatArray:
    """Unsigned distance from points (u, v) to the ellipse (u/a)² + (v/b)² = 1 (Eberly's method)."""
    swap = a < b
    e0, e1 = (b, a) if swap else (a, b)
    y0 = np.abs(v if swap else u)
    y1 = np.abs(u if swap else v)
    out = np.empty_like(y0)
    if e0 == e1:
        return np.abs(np.hypot(y0, y1) - e0)
    # y1 > 0 and y0 > 0: the root of the foot equation (other points get harmless values here)
    with np.errstate(divide="ignore", invalid="ignore"):
        z0, z1 = y0 / e0, y1 / e1
        g = z0 * z0 + z1 * z1 - 1.0
        r0 = (e0 / e1) ** 2
        n0 = r0 * z0
        s0 = z1 - 1.0
        s1 = np.where(g < 0, 0.0, np.hypot(n0, z1) - 1.0)
        for _ in range(_BISECT):
            s = 0.5 * (s0 + s1)
            gg = (n0 / (s + r0)) ** 2 + (z1 / (s + 1.0)) ** 2 - 1.0
            done = (s == s0) | (s == s1) | (gg == 0)
            if np.all(done):
                break
            s0 = np.where((gg > 0) & ~done, s, s0)
            s1 = np.where((gg < 0) & ~done, s, s1)
        s = 0.5 * (s0 + s1)
        x0 = r0 * y0 / (s + r0)
        x1 = y1 / (s + 1.0)
        general = np.hypot(x0 - y0, x1 - y1)
    # y1 == 0: the nearest point may be off the axis
    numer = e0 * y0
    denom = e0 * e0 - e1 * e1
    xde = np.minimum(numer / denom, 1.0)
    on_axis = np.where(numer < denom, np.hypot(e0 * xde - y0, e1 * np.sqrt(np.maximum(0.0, 1.0 - xde * xde))), np.abs(y0 - e0))
    out = np.where(y1 > 0, np.where(y0 > 0, general, np.abs(y1 - e1)), on_axis)
    return out


def base_sdf(model: Model, points: ArrayLike) -> FloatArray:
    """Exact signed distance (mm, negative inside) from ``points`` to the model's base outline."""
    u, v = to_local(points, (model.x, model.y), model.facing)
    a, b = model.base.length / 2, model.base.width / 2
    if model.base.shape == "rect":
        qx, qy = np.abs(u) - a, np.abs(v) - b
        return np.hypot(np.maximum(qx, 0.0), np.maximum(qy, 0.0)) + np.minimum(np.maximum(qx, qy), 0.0)
    if model.base.is_round:
        return np.hypot(u, v) - a
    d = _ellipse_distance(a, b, u, v)
    inside = (u / a) ** 2 + (v / b) ** 2 < 1.0
    return np.where(inside, -d, d)


def base_extent(base: Base, facing: float, direction_deg: float) -> float:
    """How far the base reaches from its centre along ``direction_deg`` (its support function)."""
    rel = math.radians(direction_deg - facing)
    c, s = math.cos(rel), math.sin(rel)
    a, b = base.length / 2, base.width / 2
    if base.shape == "rect":
        return a * abs(c) + b * abs(s)
    return math.sqrt((a * c) ** 2 + (b * s) ** 2)


def _refine_min(f: object, lo: FloatArray, hi: FloatArray) -> FloatArray:
    """Least value of a unimodal ``f`` in each bracket (8× narrower per round)."""
    best = np.full(len(lo), np.inf)
    rows = np.arange(len(lo))
    grid = np.linspace(0.0, 1.0, _GRID)
    for _ in range(_ROUNDS):
        ts = lo[:, None] + (hi - lo)[:, None] * grid[None, :]
        values = f(ts)  # type: ignore[operator]
        k = np.argmin(values, axis=1)
        best = np.minimum(best, values[rows, k])
        lo = ts[rows, np.maximum(k - 1, 0)]
        hi = ts[rows, np.minimum(k + 1, _GRID - 1)]
    return best


def _min_sdf_over_outline(outline_of: Model, field: Model) -> float:
    """Least signed distance to ``field``'s base over ``outline_of``'s outline."""
    a, b = outline_of.base.length / 2, outline_of.base.width / 2
    centre = (outline_of.x, outline_of.y)
    if outline_of.base.shape == "rect":
        corners = to_world(np.array([-a, a, a, -a]), np.array([-b, -b, b, b]), centre, outline_of.facing)
        starts, ends = corners, np.roll(corners, -1, axis=0)
        d = ends - starts

        def seg(t: FloatArray) -> FloatArray:
            pts = starts[:, None, :] + d[:, None, :] * t[..., None]
            return base_sdf(field, pts.reshape(-1, 2)).reshape(t.shape)

        return float(np.min(_refine_min(seg, np.zeros(4), np.ones(4))))
    samples = 720
    step = 2 * math.pi / samples
    t = np.linspace(0.0, 2 * math.pi, samples, endpoint=False)

    def ring(ts: FloatArray) -> FloatArray:
        flat = ts.ravel()
        return base_sdf(field, to_world(a * np.cos(flat), b * np.sin(flat), centre, outline_of.facing)).reshape(ts.shape)

    values = ring(t)
    slack = max(a, b) * step
    candidates = np.nonzero(values <= values.min() + slack)[0]
    refined = _refine_min(ring, t[candidates] - step, t[candidates] + step)
    return min(float(values.min()), float(refined.min()))


def edge_gap(a: Model, b: Model) -> float:
    """Edge-to-edge distance of two bases (mm): > 0 apart, 0 touching, < 0 overlapping.

    Round: centre distance - r1 - r2. Otherwise the least exact signed distance to one base
    over the other's outline (exact for the convex outlines bases have), and an overlap
    when either centre lies in the other base.
    """
    if a.base.is_round and b.base.is_round:
        return math.hypot(a.x - b.x, a.y - b.y) - a.base.length / 2 - b.base.length / 2
    if a.base.is_round:
        return float(base_sdf(b, [(a.x, a.y)])[0]) - a.base.length / 2
    if b.base.is_round:
        return float(base_sdf(a, [(b.x, b.y)])[0]) - b.base.length / 2
    inside = min(float(base_sdf(b, [(a.x, a.y)])[0]), float(base_sdf(a, [(b.x, b.y)])[0]))
    if a.base.shape == "rect" and b.base.shape == "rect":
        gap = float(shapely.distance(shapely.Polygon(_rect_corners(a)), shapely.Polygon(_rect_corners(b))))
        if gap > 0:
            return gap
        return min(_min_sdf_over_outline(a, b), inside, -1e-300)
    outline, field = (a, b) if a.base.shape == "rect" or b.base.shape != "rect" else (b, a)
    gap = _min_sdf_over_outline(outline, field)
    return min(gap, inside) if inside <= 0 else gap


def _rect_corners(m: Model) -> FloatArray:
    a, b = m.base.length / 2, m.base.width / 2
    return to_world(np.array([-a, a, a, -a]), np.array([-b, -b, b, b]), (m.x, m.y), m.facing)


def _moved(m: Model, x: float, y: float) -> Model:
    from dataclasses import replace

    return replace(m, x=x, y=y)


def _solve_along(mover: Model, anchor: Model, direction_deg: float, gap_mm: float) -> Point:
    """Centre of ``mover`` on the ray from ``anchor``'s centre along ``direction_deg`` where the
    edge gap is ``gap_mm`` (the gap grows along the ray: bisection on its root)."""
    d = math.radians(direction_deg)
    ux, uy = math.cos(d), math.sin(d)
    if mover.base.is_round and anchor.base.is_round:
        t = gap_mm + mover.base.length / 2 + anchor.base.length / 2
        return (anchor.x + t * ux, anchor.y + t * uy)

    def f(t: float) -> float:
        return edge_gap(_moved(mover, anchor.x + t * ux, anchor.y + t * uy), anchor) - gap_mm

    lo, flo = 0.0, f(0.0)  # centres together: overlapping, so below any gap >= 0
    hi = max(gap_mm, 0.0) + mover.base.bounding_radius + anchor.base.bounding_radius + 1.0
    fhi = f(hi)
    while fhi < 0:
        lo, flo = hi, fhi
        hi *= 2
        fhi = f(hi)
    # Illinois (regula falsi that halves a stale end): the gap is nearly linear along the line,
    # so this takes a handful of exact gap evaluations where bisection takes fifty.
    side = 0
    t, ft = hi, fhi
    for _ in range(_BISECT):
        if hi - lo <= 1e-12 * max(1.0, hi):
            break
        t = (lo * fhi - hi * flo) / (fhi - flo)
        if not lo < t < hi:
            t = 0.5 * (lo + hi)
        ft = f(t)
        if ft == 0.0:
            break
        if ft < 0:
            lo, flo = t, ft
            if side == -1:
                fhi /= 2
            side = -1
        else:
            hi, fhi = t, ft
            if side == 1:
                flo /= 2
            side = 1
        if abs(ft) < 1e-11:
            break
    return (anchor.x + t * ux, anchor.y + t * uy)


def contact_position(mover: Model, anchor: Model) -> Point:
    """Where ``mover`` ends when slid along the line of centres until its edge touches ``anchor``."""
    dx, dy = mover.x - anchor.x, mover.y - anchor.y
    if math.hypot(dx, dy) < 1e-9:
        raise PlacementTextError("the two bases share a centre: there is no line to slide along")
    return _solve_along(mover, anchor, math.degrees(math.atan2(dy, dx)), 0.0)


def bearing_position(mover: Model, anchor: Model, distance_mm: float, bearing_deg: float, edge_to_edge: bool = True) -> Point:
    """Centre of ``mover`` at ``distance_mm`` from ``anchor`` (edge to edge, or centre to centre)
    along ``bearing_deg`` (degrees counter-clockwise from the table's +x, as headings)."""
    if not edge_to_edge:
        d = math.radians(bearing_deg)
        return (anchor.x + distance_mm * math.cos(d), anchor.y + distance_mm * math.sin(d))
    if distance_mm < 0:
        raise PlacementTextError("an edge-to-edge distance cannot be negative")
    return _solve_along(mover, anchor, bearing_deg, distance_mm)


EdgeX = Literal["left", "right"]
EdgeY = Literal["bottom", "top"]


def edge_position(base: Base, facing: float, table: Table, x_edge: EdgeX, x_mm: float, y_edge: EdgeY, y_mm: float) -> Point:
    """Centre of a base whose edge is ``x_mm`` from the table's left/right edge and ``y_mm``
    from its bottom/top edge (a tape from the table edge to the nearest point of the base)."""
    if x_edge == "left":
        x = x_mm + base_extent(base, facing, 180.0)
    else:
        x = table.width - x_mm - base_extent(base, facing, 0.0)
    if y_edge == "bottom":
        y = y_mm + base_extent(base, facing, 270.0)
    else:
        y = table.depth - y_mm - base_extent(base, facing, 90.0)
    return (x, y)


# --------------------------------------------------------------------------- reading what was typed


@dataclass(frozen=True)
class FromEdges:
    x_edge: EdgeX
    x_mm: float
    y_edge: EdgeY
    y_mm: float


@dataclass(frozen=True)
class FromBase:
    other: str  # model id
    distance_mm: float
    bearing_deg: float
    edge_to_edge: bool = True


@dataclass(frozen=True)
class Contact:
    other: str  # model id


@dataclass(frozen=True)
class Centre:
    """The centre at (x, y) mm from the table's bottom-left corner (the file's coordinates)."""

    x_mm: float
    y_mm: float


Placement = FromEdges | FromBase | Contact | Centre

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)"
_LEN = rf"({_NUM}\s*(?:mm|cm|in|inch|inches|\"|″|'')?)"
_EDGE_PART = re.compile(rf"^\s*{_LEN}\s+from\s+(?:the\s+)?(left|right|bottom|top)(?:\s+edge)?\s*$", re.I)
_ANGLE = re.compile(rf"^\s*(?:at|bearing)?\s*({_NUM})\s*(?:°|deg|degrees?)?\s*$", re.I)
_FROM = re.compile(rf"^\s*{_LEN}\s+from\s+(.+?)\s*$", re.I)
_CENTRE = re.compile(rf"^\s*(?:(?:centre|center|centred|centered)(?:\s+(?:at|on))?\s*:?\s*)?{_LEN}\s*[,;\s]\s*{_LEN}\s*$", re.I)
_CONTACT = re.compile(r"^\s*(?:move\s+)?(?:in(?:to)?\s+)?(?:base\s+)?contact(?:\s+with)?\s+(.+?)\s*$", re.I)


def _length(text: str, unit: str) -> float:
    t = text.strip().replace("''", '"')
    try:
        return parse_length(t, unit)
    except LengthError as exc:
        raise PlacementTextError(str(exc)) from None


def find_model(scenario: Scenario, name: str, exclude: str | None = None) -> Model:
    """The model called ``name`` (its name or id, any case); one only."""
    key = name.strip().strip("\"'").lower()
    exact = [m for m in scenario.models if m.id.lower() == key and m.id != exclude]
    if exact:
        return exact[0]
    named = [m for m in scenario.models if (m.name or "").lower() == key and m.id != exclude]
    if len(named) == 1:
        return named[0]
    if len(named) > 1:
        raise PlacementTextError(f"{len(named)} models are called {name!r}: use an id ({', '.join(m.id for m in named)})")
    raise PlacementTextError(f"no model called {name!r}")


def parse_placement(text: str, scenario: Scenario, mover_id: str | None = None, unit: str | None = None) -> Placement:
    """Read a typed placement; bare numbers are in the scenario's units. Raises PlacementTextError."""
    unit = unit or scenario.units
    t = text.strip()
    if not t:
        raise PlacementTextError("nothing typed")
    m = _CONTACT.match(t)
    if m:
        return Contact(find_model(scenario, m.group(1), mover_id).id)
    c = _CENTRE.match(t)
    if c:
        x, y = _length(c.group(1), unit), _length(c.group(2), unit)
        if not (math.isfinite(x) and math.isfinite(y)):
            raise PlacementTextError("numbers must be finite")
        return Centre(x, y)
    parts = [p for p in re.split(r"[,;]", t) if p.strip()]
    edges = [_EDGE_PART.match(p) for p in parts]
    if len(parts) == 2 and all(edges):
        got: dict[str, tuple[str, float]] = {}
        for e in edges:
            assert e is not None
            side = e.group(2).lower()
            axis = "x" if side in ("left", "right") else "y"
            if axis in got:
                raise PlacementTextError("give one distance from left or right and one from bottom or top")
            got[axis] = (side, _length(e.group(1), unit))
        if set(got) != {"x", "y"}:
            raise PlacementTextError("give one distance from left or right and one from bottom or top")
        (xe, xd), (ye, yd) = got["x"], got["y"]
        if xd < 0 or yd < 0:
            raise PlacementTextError("a distance from a table edge cannot be negative")
        return FromEdges(xe, xd, ye, yd)  # type: ignore[arg-type]
    f = _FROM.match(parts[0]) if parts else None
    if f is not None and len(parts) >= 2:
        distance = _length(f.group(1), unit)
        other = find_model(scenario, f.group(2), mover_id)
        edge_to_edge = True
        bearing: float | None = None
        for p in parts[1:]:
            words = re.sub(r"[-\s]+", " ", p.strip().lower())
            if words in ("edge to edge", "edge"):
                edge_to_edge = True
            elif words in ("centre to centre", "center to center", "centre", "center"):
                edge_to_edge = False
            else:
                a = _ANGLE.match(p)
                if a is None:
                    raise PlacementTextError(f"{p.strip()!r}: write 'edge to edge', 'centre to centre' or an angle such as 'at 40°'")
                bearing = float(a.group(1))
        if bearing is None:
            raise PlacementTextError("give the bearing, e.g. 'at 40°' (counter-clockwise from the table's right)")
        if not math.isfinite(bearing) or not math.isfinite(distance):
            raise PlacementTextError("numbers must be finite")
        return FromBase(other.id, distance, bearing, edge_to_edge)
    raise PlacementTextError(
        "write e.g. centre 10\", 20\" · 12.5\" from left, 8\" from bottom · 3.2\" from Trooper 1, edge to edge, at 40° · contact Trooper 1"
    )


def placement_position(placement: Placement, scenario: Scenario, mover: Model) -> Point:
    """The centre the typed placement puts ``mover`` at."""
    if isinstance(placement, Centre):
        return (placement.x_mm, placement.y_mm)
    if isinstance(placement, FromEdges):
        return edge_position(mover.base, mover.facing, scenario.table, placement.x_edge, placement.x_mm, placement.y_edge, placement.y_mm)
    other = scenario.model(placement.other)
    if isinstance(placement, Contact):
        return contact_position(mover, other)
    return bearing_position(mover, other, placement.distance_mm, placement.bearing_deg, placement.edge_to_edge)


@dataclass(frozen=True)
class RowSpec:
    """A row of ``count`` copies, ``spacing_mm`` apart (centre to centre, or edge to edge) along ``bearing_deg``."""

    count: int
    spacing_mm: float
    bearing_deg: float = 0.0
    edge_to_edge: bool = False


_ROW = re.compile(rf"^\s*(\d+)\s*(?:x|×|copies|bases)?\s*(?:at|,|@)\s*{_LEN}\s*(?:apart)?\s*(.*)$", re.I)


def parse_row(text: str, unit: str) -> RowSpec:
    """``4 at 1.5"`` · ``4 at 1", edge to edge, at 90°`` → a row of copies."""
    m = _ROW.match(text)
    if m is None:
        raise PlacementTextError("write e.g. 4 at 1.5\" (centre to centre) or 4 at 0.5\", edge to edge, at 90°")
    count = int(m.group(1))
    if not 1 <= count <= 100:
        raise PlacementTextError("between 1 and 100 copies")
    spacing = _length(m.group(2), unit)
    edge = False
    bearing = 0.0
    for p in [p for p in re.split(r"[,;]", m.group(3)) if p.strip()]:
        words = re.sub(r"[-\s]+", " ", p.strip().lower())
        if words in ("edge to edge", "edge"):
            edge = True
        elif words in ("centre to centre", "center to center"):
            edge = False
        else:
            a = _ANGLE.match(p)
            if a is None:
                raise PlacementTextError(f"{p.strip()!r}: write 'edge to edge' or an angle such as 'at 90°'")
            bearing = float(a.group(1))
    if spacing <= 0 or not math.isfinite(spacing):
        raise PlacementTextError("the spacing must be positive")
    return RowSpec(count, spacing, bearing, edge)


def row_positions(model: Model, row: RowSpec) -> list[Point]:
    """Centres of the copies: each the spacing from the one before along the bearing."""
    step = row.spacing_mm
    if row.edge_to_edge:
        step += base_extent(model.base, model.facing, row.bearing_deg) + base_extent(model.base, model.facing, row.bearing_deg + 180)
    d = math.radians(row.bearing_deg)
    return [(model.x + k * step * math.cos(d), model.y + k * step * math.sin(d)) for k in range(1, row.count + 1)]


# --------------------------------------------------------------------------- terrain outlines


def polygon_problem(points: tuple[Point, ...] | list[Point]) -> str | None:
    """Why ``points`` is not a usable terrain outline (None when it is)."""
    pts = list(points)
    if len(pts) < 3:
        return "a piece needs at least 3 corners"
    if any(not (math.isfinite(x) and math.isfinite(y)) for x, y in pts):
        return "a corner is not a finite number"
    for i, p in enumerate(pts):
        q = pts[(i + 1) % len(pts)]
        if math.hypot(p[0] - q[0], p[1] - q[1]) < 1e-6:
            return f"corners {i + 1} and {(i + 1) % len(pts) + 1} are the same point"
    x0, y0 = pts[0]
    span = max(math.hypot(x - x0, y - y0) for x, y in pts)
    if max(abs((x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)) for x1, y1 in pts for x, y in pts) <= 1e-9 * max(span, 1.0) ** 2:
        return "it has no area (all corners on one line)"
    if not shapely.LinearRing(pts).is_simple:
        return "its sides cross each other"
    if shapely.Polygon(pts).area < 1e-6:
        return "it has no area"
    return None


def crossing_problem(points: list[Point], new: Point) -> str | None:
    """Why adding ``new`` as the next corner of an open outline would cross it (None if fine).

    Landing on the first corner is allowed: that closes the outline.
    """
    if points and math.hypot(points[-1][0] - new[0], points[-1][1] - new[1]) < 1e-6:
        return "that corner is the last one again"
    if len(points) < 3:
        return None
    seg = shapely.LineString([points[-1], new])
    inter = seg.intersection(shapely.LineString(points[:-1]))
    if inter.is_empty:
        return None
    if inter.geom_type == "Point" and inter.distance(shapely.Point(points[0])) < 1e-9:
        return None
    return "that side would cross another side"


def snap(point: Point, step: float | None) -> Point:
    """``point`` on the nearest grid crossing (no snapping without a step)."""
    if not step:
        return point
    return (round(point[0] / step) * step, round(point[1] / step) * step)


def rotate_points(points: tuple[Point, ...], centre: Point, degrees: float) -> tuple[Point, ...]:
    """``points`` turned counter-clockwise by ``degrees`` about ``centre``."""
    r = math.radians(degrees)
    c, s = math.cos(r), math.sin(r)
    cx, cy = centre
    return tuple((cx + (x - cx) * c - (y - cy) * s, cy + (x - cx) * s + (y - cy) * c) for x, y in points)


def terrain_centre(piece: Terrain) -> Point:
    """The point a piece turns about: a rectangle's centre, else the outline's centroid."""
    if piece.rect is not None:
        return (piece.rect.x, piece.rect.y)
    c = shapely.Polygon(piece.polygon).centroid
    return (float(c.x), float(c.y))


def circle_points(centre: Point, radius: float, max_sag_mm: float = 0.1) -> tuple[Point, ...]:
    """A round piece (tree, pillar) as a regular polygon with its corners on the circle and sides
    no more than ``max_sag_mm`` inside it (16 to 256 corners)."""
    if radius <= 0:
        raise PlacementTextError("a circle needs a radius")
    ratio = min(1.0, max_sag_mm / radius)
    n = 256 if ratio >= 1.0 else math.ceil(math.pi / math.acos(1.0 - ratio))
    n = max(16, min(256, n))
    return tuple(
        (centre[0] + radius * math.cos(2 * math.pi * k / n), centre[1] + radius * math.sin(2 * math.pi * k / n)) for k in range(n)
    )


def rect_from_corners(a: Point, b: Point) -> RectSpec:
    """The axis-aligned rectangle with opposite corners ``a`` and ``b``."""
    return RectSpec((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, abs(b[0] - a[0]), abs(b[1] - a[1]), 0.0)


def parse_centre(text: str, unit: str) -> Point:
    """``centre 10", 20"`` or ``10, 20`` (the table's units) → (x, y) mm. Raises PlacementTextError."""
    c = _CENTRE.match(text.strip())
    if c is None:
        raise PlacementTextError("write the centre as x, y from the table's bottom-left corner, e.g. 10\", 20\"")
    x, y = _length(c.group(1), unit), _length(c.group(2), unit)
    if not (math.isfinite(x) and math.isfinite(y)):
        raise PlacementTextError("numbers must be finite")
    return (x, y)


def round_piece(piece: Terrain, tolerance_mm: float = 0.01) -> tuple[Point, float] | None:
    """(centre, radius) of a piece traced as a circle (a regular polygon of 16 or more corners on one
    circle, as :func:`circle_points` makes); None for any other outline."""
    if piece.rect is not None or piece.points is None or len(piece.points) < 16:
        return None
    pts = np.asarray(piece.points, dtype=float)
    centre = pts.mean(axis=0)
    r = np.hypot(pts[:, 0] - centre[0], pts[:, 1] - centre[1])
    if float(r.max() - r.min()) > tolerance_mm:
        return None
    return (float(centre[0]), float(centre[1])), float(r.mean())
