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

_ARC_STEP = math.radians(10.0)
_DEGENERATE = 1e-12


@dataclass(frozen=True)
class VisibleRegion:
    """V bracketed: ``inner`` ⊆ V ⊆ ``outer``; ``shadow`` is what terrain hides near the template."""

    inner: BaseGeometry
    outer: BaseGeometry
    shadow: BaseGeometry | None
    buried: bool = False  # the focus is inside a blocking piece: it sees only itself


def shadow_polygon(focus: Point, ring: np.ndarray, far: float) -> BaseGeometry:
    """Points whose segment from ``focus`` crosses the interior of polygon ``ring``, out to ``far``.

    ``focus`` must not lie in the polygon's interior.
    """
    fx, fy = focus
    ring = np.asarray(ring, dtype=float)
    vd = np.hypot(ring[:, 0] - fx, ring[:, 1] - fy)
    radius = max(far, float(vd.max()) * 1.01 + 1.0)
    pieces: list[BaseGeometry] = [Polygon(ring)]
    count = len(ring)
    for i in range(count):
        a = ring[i]
        b = ring[(i + 1) % count]
        ax, ay = a[0] - fx, a[1] - fy
        bx, by = b[0] - fx, b[1] - fy
        cross = ax * by - ay * bx
        if abs(cross) <= _DEGENERATE * max(1.0, ax * ax + ay * ay, bx * bx + by * by):
            continue  # edge on a line through the focus: it only grazes
        ta = math.atan2(ay, ax)
        tb = math.atan2(by, bx)
        sweep = (tb - ta + math.pi) % (2 * math.pi) - math.pi  # signed, |sweep| < pi
        steps = max(1, int(math.ceil(abs(sweep) / _ARC_STEP)))
        angles = tb - sweep * np.arange(0, steps + 1) / steps  # from b's ray back to a's
        arc = np.stack([fx + radius * np.cos(angles), fy + radius * np.sin(angles)], axis=-1)
        pieces.append(Polygon(np.concatenate([[a, b], arc])))
    return shapely.union_all(pieces)


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
    relevant = [o for o in obstacles if o.intersects(outer_t)]
    if not relevant:
        return VisibleRegion(inner_t, outer_t, None)
    for o in relevant:
        if o.contains_properly(focus):
            return VisibleRegion(focus, focus, outer_t.difference(focus), buried=True)
    far = placed.shape.reach * 1.1 + 1.0
    shadows = shapely.union_all([shadow_polygon(placed.focus, np.asarray(o.exterior.coords)[:-1], far) for o in relevant])
    inner = inner_t.difference(shadows)
    outer = outer_t.difference(shadows)
    return VisibleRegion(inner, outer, inner_t.intersection(shadows))
