"""What the blast focus sees inside its template past blocking terrain.

Shadow casting: each blocking polygon near the template casts the region of
points whose segment from the focus crosses its interior; that region is built
as the polygon plus one "extruded" piece per edge, all with straight edges, so
the only approximation left is the template's own curve, which we bracket.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Point as ShapelyPoint
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from tabletop.model import PlacedTemplate, Point
from tabletop.shapes import DEFAULT_SEGMENTS, template_polygon

_ARC_STEPS = 4
_DEGENERATE = 1e-12
SHADOW_GRID_MM = 1e-9
"""The edge pieces of a concave building's shadow are unioned snapped to this grid (a nanometre, far below any distance a
ruling reads): GEOS's floating union of pieces that meet at near-degenerate angles (the focus on
one of the building's edges) can drop a sliver of the shadow, and snap rounding is robust where it is not."""


@dataclass(frozen=True)
class VisibleRegion:
    """V bracketed: ``inner`` ⊆ V ⊆ ``outer``; ``shadow`` is what terrain hides near the template."""

    inner: BaseGeometry
    outer: BaseGeometry
    shadow: BaseGeometry | None
    buried: bool = False  # the focus is inside a blocking piece: it sees only itself


def shadow_pieces(focus: Point, ring: np.ndarray, far: float) -> np.ndarray:
    """The polygon and one extruded piece per edge; their union is :func:`shadow_polygon`."""
    fx, fy = focus
    a = np.asarray(ring, dtype=float)
    b = np.roll(a, -1, axis=0)
    ax, ay = a[:, 0] - fx, a[:, 1] - fy
    bx, by = b[:, 0] - fx, b[:, 1] - fy
    radius = max(far, float(np.hypot(ax, ay).max()) * 1.01 + 1.0)
    cross = ax * by - ay * bx
    scale = np.maximum(1.0, np.maximum(ax * ax + ay * ay, bx * bx + by * by))
    keep = np.abs(cross) > _DEGENERATE * scale  # an edge on a line through the focus only grazes
    ta = np.arctan2(ay[keep], ax[keep])
    tb = np.arctan2(by[keep], bx[keep])
    sweep = (tb - ta + math.pi) % (2 * math.pi) - math.pi  # signed, |sweep| < pi
    # A fixed number of arc steps keeps every piece the same size (one array call); the
    # arc's radius grows so that each chord still stays ``radius`` away from the focus.
    steps = np.arange(_ARC_STEPS + 1) / _ARC_STEPS
    angles = tb[:, None] - sweep[:, None] * steps[None, :]  # from b's ray back to a's
    reach = radius / np.cos(np.abs(sweep) / (2 * _ARC_STEPS))
    arc = np.stack([fx + reach[:, None] * np.cos(angles), fy + reach[:, None] * np.sin(angles)], axis=-1)
    coords = np.concatenate([a[keep][:, None, :], b[keep][:, None, :], arc], axis=1)
    pieces = shapely.polygons(coords) if len(coords) else np.empty(0, dtype=object)
    return np.concatenate([[shapely.polygons(a)], pieces])


def is_convex(ring: np.ndarray) -> bool:
    """Is the simple polygon ``ring`` (no closing vertex) convex? Collinear vertices allowed."""
    a = np.asarray(ring, dtype=float)
    e = np.roll(a, -1, axis=0) - a
    f = np.roll(e, -1, axis=0)
    cross = e[:, 0] * f[:, 1] - e[:, 1] * f[:, 0]
    scale = _DEGENERATE * float(np.max(np.abs(e))) ** 2
    return bool(np.all(cross >= -scale) or np.all(cross <= scale))


def convex_shadow(focus: Point, ring: np.ndarray, far: float) -> BaseGeometry:
    """:func:`shadow_polygon` for a convex ``ring``, as one convex hull instead of a union.

    The shadow of a convex polygon is the hull of the polygon and the far arc between the two
    rays that graze it: the near side of the hull is the polygon's own front chain.
    """
    fx, fy = focus
    a = np.asarray(ring, dtype=float)
    dx, dy = a[:, 0] - fx, a[:, 1] - fy
    radius = max(far, float(np.hypot(dx, dy).max()) * 1.01 + 1.0)
    cx, cy = float(a[:, 0].mean()) - fx, float(a[:, 1].mean()) - fy  # strictly inside the angular span
    ref = math.atan2(cy, cx)
    offsets = (np.arctan2(dy, dx) - ref + math.pi) % (2 * math.pi) - math.pi
    offsets = offsets[np.hypot(dx, dy) > _DEGENERATE * radius]  # a vertex at the focus has no direction
    lo, hi = float(offsets.min()), float(offsets.max())
    angles = ref + lo + (hi - lo) * np.arange(_ARC_STEPS + 1) / _ARC_STEPS
    reach = radius / math.cos((hi - lo) / (2 * _ARC_STEPS))  # every chord stays ``radius`` away
    arc = np.stack([fx + reach * np.cos(angles), fy + reach * np.sin(angles)], axis=-1)
    return shapely.convex_hull(shapely.multipoints(np.concatenate([a, arc])))


def shadow_polygon(focus: Point, ring: np.ndarray, far: float) -> BaseGeometry:
    """Points whose segment from ``focus`` crosses the interior of polygon ``ring``, out to ``far``.

    ``focus`` must not lie in the polygon's interior.
    """
    if is_convex(ring):
        return convex_shadow(focus, ring, far)
    return shapely.union_all(shadow_pieces(focus, ring, far), grid_size=SHADOW_GRID_MM)


def visible_region(
    placed: PlacedTemplate,
    obstacles: Sequence[Polygon],
    segments: int = DEFAULT_SEGMENTS,
    inner_t: Polygon | None = None,
    outer_t: Polygon | None = None,
) -> VisibleRegion:
    """Bracket V, the part of the template seen from its focus past ``obstacles``.

    ``inner_t``/``outer_t``: the template's bracketing polygons at ``segments``, when the caller has them.
    """
    inner_t = inner_t if inner_t is not None else template_polygon(placed, segments, outer=False)
    outer_t = outer_t if outer_t is not None else template_polygon(placed, segments, outer=True)
    focus = ShapelyPoint(placed.focus)
    near = shapely.intersects(np.asarray(obstacles, dtype=object), outer_t) if len(obstacles) else np.zeros(0, dtype=bool)
    relevant = [o for o, hit in zip(obstacles, near) if hit]
    if not relevant:
        return VisibleRegion(inner_t, outer_t, None)
    for o in relevant:
        if o.contains_properly(focus):
            return VisibleRegion(focus, focus, outer_t.difference(focus), buried=True)
    far = placed.shape.reach * 1.1 + 1.0
    cast = [shadow_polygon(placed.focus, shapely.get_coordinates(o.exterior)[:-1], far) for o in relevant]
    shadows = cast[0] if len(cast) == 1 else shapely.union_all(cast)
    inner = inner_t.difference(shadows)
    outer = outer_t.difference(shadows)
    return VisibleRegion(inner, outer, inner_t.intersection(shadows))
