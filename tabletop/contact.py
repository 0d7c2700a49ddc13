"""How far a base (or terrain polygon) reaches into a template, exactly.

``margin`` > 0: the shape reaches that far into the template; < 0: that far
from touching it; 0: tangent (mere contact counts). Round bases use the closed
form r - sdf(centre); other outlines minimise the template's exact signed
distance over their area. Every template is convex, so its signed distance is a
convex function: along a straight edge a golden-section search finds the true
minimum, and a minimum inside an outline is the template's deepest point.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from numpy.typing import NDArray

from tabletop.model import Model, PlacedTemplate
from tabletop.shapes import FloatArray, base_outline, deepest_point, template_sdf, to_world

_GOLDEN = (math.sqrt(5) - 1) / 2
_ITERATIONS = 64  # 0.618**64 ~ 4e-14 of the bracket


def round_margins(placed: PlacedTemplate, centres: NDArray[np.float64], radii: NDArray[np.float64]) -> FloatArray:
    """Vectorised margins (mm) of round bases with the given centres (N, 2) and radii (N,)."""
    if len(radii) == 0:
        return np.zeros(0)
    return radii - template_sdf(placed, centres)


def _golden_min_on_segments(placed: PlacedTemplate, starts: FloatArray, ends: FloatArray) -> FloatArray:
    """Minimum of the template's signed distance along each segment (convex, so exact)."""
    lo = np.zeros(len(starts))
    hi = np.ones(len(starts))
    d = ends - starts

    def f(t: FloatArray) -> FloatArray:
        return template_sdf(placed, starts + d * t[:, None])

    for _ in range(_ITERATIONS):
        m1 = hi - _GOLDEN * (hi - lo)
        m2 = lo + _GOLDEN * (hi - lo)
        left = f(m1) < f(m2)
        hi = np.where(left, m2, hi)
        lo = np.where(left, lo, m1)
    ends_values = np.minimum(f(np.zeros(len(starts))), f(np.ones(len(starts))))
    return np.minimum(f((lo + hi) / 2), ends_values)


def _deepest_inside(placed: PlacedTemplate, ring: FloatArray) -> float | None:
    """-depth when the template's deepest point lies inside ``ring``, else None."""
    point, depth, other = deepest_point(placed)
    poly = shapely.Polygon(ring)
    geom = shapely.Point(point) if other is None else shapely.LineString([point, other])
    if poly.intersects(geom):
        return -depth
    return None


def polygon_min_sdf(placed: PlacedTemplate, ring: FloatArray) -> float:
    """Least signed distance to the template over a polygon's area (its ring, not closed)."""
    ring = np.asarray(ring, dtype=float)
    starts = ring
    ends = np.roll(ring, -1, axis=0)
    best = float(np.min(_golden_min_on_segments(placed, starts, ends)))
    inside = _deepest_inside(placed, ring)
    return best if inside is None else min(best, inside)


def _ellipse_min_sdf(placed: PlacedTemplate, model: Model) -> float:
    """Least signed distance over an oval base: dense samples, then golden refinement."""
    a, b = model.base.length / 2, model.base.width / 2
    samples = 720
    t = np.linspace(0.0, 2 * math.pi, samples, endpoint=False)
    step = 2 * math.pi / samples

    def boundary(ts: FloatArray) -> FloatArray:
        return to_world(a * np.cos(ts), b * np.sin(ts), (model.x, model.y), model.facing)

    values = template_sdf(placed, boundary(t))
    # The boundary moves at most max(a, b) per radian, so any sample whose value is within
    # that bound of the best may sit in the global minimum's basin: refine all of them.
    slack = max(a, b) * step
    candidates = np.nonzero(values <= values.min() + slack)[0]
    lo = t[candidates] - step
    hi = t[candidates] + step
    for _ in range(_ITERATIONS):
        m1 = hi - _GOLDEN * (hi - lo)
        m2 = lo + _GOLDEN * (hi - lo)
        left = template_sdf(placed, boundary(m1)) < template_sdf(placed, boundary(m2))
        hi = np.where(left, m2, hi)
        lo = np.where(left, lo, m1)
    best = min(float(values.min()), float(template_sdf(placed, boundary((lo + hi) / 2)).min()))
    inside = _deepest_inside(placed, base_outline(model.base, model.x, model.y, model.facing, 256, outer=True))
    return best if inside is None else min(best, inside)


def model_margin(placed: PlacedTemplate, model: Model) -> float:
    """Exact margin (mm) of one model's base against the placed template."""
    base = model.base
    if base.is_round:
        return base.length / 2 - float(template_sdf(placed, [(model.x, model.y)])[0])
    if base.shape == "rect":
        return -polygon_min_sdf(placed, base_outline(base, model.x, model.y, model.facing))
    return -_ellipse_min_sdf(placed, model)


def terrain_margin(placed: PlacedTemplate, polygon: FloatArray) -> float:
    """Exact margin (mm) of a terrain polygon against the placed template."""
    return -polygon_min_sdf(placed, polygon)
