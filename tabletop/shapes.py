"""Exact template and base outlines: signed distances and bracketing polygons.

Every template kind has an analytic signed distance (negative inside), used to
decide contact exactly. Polygons are only used as *brackets*: an inscribed
polygon (inside the true curve) and a circumscribed one (containing it), so a
polygon can prove "touches" or "misses" but never silently decides a case that
lies between the two.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray
from shapely.geometry import Polygon

from tabletop.model import Base, Model, PlacedTemplate, Point, TemplateShape

FloatArray = NDArray[np.float64]

#: Segments per full turn of the bracketing polygons used every frame.
#: The gap between inner and outer circle polygons is R(1/cos(pi/n) - cos(pi/n)),
#: about 0.01 mm for a 5" template at 256.
DEFAULT_SEGMENTS = 256
#: Segments per full turn used to settle a case the default brackets leave open.
FINE_SEGMENTS = 40_000


class ShapeError(ValueError):
    """A template or base whose measurements describe no valid outline."""


def shape_problems(shape: TemplateShape) -> list[str]:
    """What is wrong with ``shape``'s measurements (empty when it is valid)."""
    problems: list[str] = []
    if shape.kind == "circle":
        if not shape.diameter > 0:
            problems.append("diameter must be positive")
    elif shape.kind == "teardrop":
        if not shape.length > 0:
            problems.append("length must be positive")
        if shape.tip_width < 0:
            problems.append("tip_width must not be negative")
        if not shape.end_width > 0:
            problems.append("end_width must be positive")
        if shape.length > 0 and not shape.length > max(shape.tip_width, shape.end_width):
            problems.append("length must exceed both widths (one end circle would swallow the other)")
    elif shape.kind == "rect":
        if not (shape.length > 0 and shape.width > 0):
            problems.append("length and width must be positive")
    elif shape.kind == "cone":
        if not shape.length > 0:
            problems.append("length must be positive")
        if not 0 < shape.angle <= 180:
            problems.append("angle must be in (0, 180] degrees")
    else:
        problems.append(f"unknown kind {shape.kind!r}")
    return problems


def to_local(points: ArrayLike, focus: Point, heading: float) -> tuple[FloatArray, FloatArray]:
    """Coordinates of ``points`` along (u) and across (v) the axis from ``focus``."""
    p = np.asarray(points, dtype=float).reshape(-1, 2)
    dx = p[:, 0] - focus[0]
    dy = p[:, 1] - focus[1]
    c, s = math.cos(math.radians(heading)), math.sin(math.radians(heading))
    return dx * c + dy * s, -dx * s + dy * c


def to_world(u: ArrayLike, v: ArrayLike, focus: Point, heading: float) -> FloatArray:
    """Inverse of :func:`to_local`; returns an (N, 2) array."""
    u = np.asarray(u, dtype=float)
    v = np.asarray(v, dtype=float)
    c, s = math.cos(math.radians(heading)), math.sin(math.radians(heading))
    out = np.empty((*np.broadcast_shapes(u.shape, v.shape), 2))
    out[..., 0] = focus[0] + u * c - v * s
    out[..., 1] = focus[1] + u * s + v * c
    return out


def local_sdf(shape: TemplateShape, u: FloatArray, v: FloatArray) -> FloatArray:
    """Exact signed distance to ``shape`` laid with its focus at the origin, axis +u."""
    if shape.kind == "circle":
        return np.hypot(u, v) - shape.diameter / 2
    if shape.kind == "rect":
        qx = np.abs(u) - shape.length / 2
        qy = np.abs(v) - shape.width / 2
        outside = np.hypot(np.maximum(qx, 0.0), np.maximum(qy, 0.0))
        return outside + np.minimum(np.maximum(qx, qy), 0.0)
    if shape.kind == "teardrop":
        # Hull of the tip circle (r1, centre at u=r1) and the end circle (r2, centre at u=L-r2).
        r1, r2 = shape.tip_width / 2, shape.end_width / 2
        h = shape.length - r1 - r2
        x = np.abs(v)
        y = u - r1
        b = (r1 - r2) / h
        a = math.sqrt(1.0 - b * b)
        k = -b * x + a * y
        near_tip = np.hypot(x, y) - r1
        near_end = np.hypot(x, y - h) - r2
        flank = a * x + b * y - r1
        return np.where(k < 0.0, near_tip, np.where(k > a * h, near_end, flank))
    if shape.kind == "cone":
        half = math.radians(shape.angle / 2)
        cx, cy = math.sin(half), math.cos(half)
        x = np.abs(v)
        y = u
        radial = np.hypot(x, y) - shape.length
        t = np.clip(x * cx + y * cy, 0.0, shape.length)
        side = np.hypot(x - cx * t, y - cy * t)
        return np.maximum(radial, side * np.sign(cy * x - cx * y))
    raise ShapeError(f"unknown template kind {shape.kind!r}")


def template_sdf(placed: PlacedTemplate, points: ArrayLike) -> FloatArray:
    """Exact signed distance (mm, negative inside) from ``points`` to the placed template."""
    u, v = to_local(points, placed.focus, placed.heading)
    return local_sdf(placed.shape, u, v)


def deepest_point(placed: PlacedTemplate) -> tuple[Point, float, Point | None]:
    """A point of greatest depth inside the template, that depth, and (for a rect) the
    other end of the segment of deepest points."""
    shape = placed.shape
    if shape.kind == "circle":
        return placed.focus, shape.diameter / 2, None
    if shape.kind == "teardrop":
        r1, r2 = shape.tip_width / 2, shape.end_width / 2
        u = r1 if r1 > r2 else shape.length - r2
        p = to_world([u], [0.0], placed.focus, placed.heading)[0]
        return (float(p[0]), float(p[1])), max(r1, r2), None
    if shape.kind == "rect":
        half_run = abs(shape.length - shape.width) / 2
        if shape.length >= shape.width:
            ends = to_world([-half_run, half_run], [0.0, 0.0], placed.focus, placed.heading)
        else:
            ends = to_world([0.0, 0.0], [-half_run, half_run], placed.focus, placed.heading)
        return (float(ends[0][0]), float(ends[0][1])), min(shape.length, shape.width) / 2, (
            float(ends[1][0]),
            float(ends[1][1]),
        )
    half = math.radians(shape.angle / 2)
    if shape.angle >= 180:
        rho = shape.length / 2
        d = rho
    else:
        rho = shape.length * math.sin(half) / (1 + math.sin(half))
        d = shape.length / (1 + math.sin(half))
    p = to_world([d], [0.0], placed.focus, placed.heading)[0]
    return (float(p[0]), float(p[1])), rho, None


def _arc(radius: float, start: float, stop: float, count: int, outer: bool) -> FloatArray:
    """Vertices bracketing a circular arc (radians, counter-clockwise) from inside or outside."""
    count = max(1, count)
    if not outer:
        angles = np.linspace(start, stop, count + 1)
        return np.stack([radius * np.cos(angles), radius * np.sin(angles)], axis=-1)
    step = (stop - start) / count
    mids = start + step * (np.arange(count) + 0.5)
    far = radius / math.cos(step / 2)
    pts = [np.array([[radius * math.cos(start), radius * math.sin(start)]])]
    pts.append(np.stack([far * np.cos(mids), far * np.sin(mids)], axis=-1))
    pts.append(np.array([[radius * math.cos(stop), radius * math.sin(stop)]]))
    return np.concatenate(pts)


def _circle_ring(cx: float, cy: float, radius: float, segments: int, outer: bool) -> FloatArray:
    angles = (np.arange(segments) + (0.5 if outer else 0.0)) * (2 * math.pi / segments)
    r = radius / math.cos(math.pi / segments) if outer else radius
    return np.stack([cx + r * np.cos(angles), cy + r * np.sin(angles)], axis=-1)


def local_outline(shape: TemplateShape, segments: int = DEFAULT_SEGMENTS, outer: bool = False) -> FloatArray:
    """Polygon vertices (local frame) inside (``outer=False``) or around the true outline."""
    return _local_outline_cached(shape, segments, outer)


@functools.lru_cache(maxsize=256)
def _local_outline_cached(shape: TemplateShape, segments: int, outer: bool) -> FloatArray:
    outline = _build_local_outline(shape, segments, outer)
    outline.setflags(write=False)
    return outline


def _build_local_outline(shape: TemplateShape, segments: int, outer: bool) -> FloatArray:
    if shape.kind == "circle":
        return _circle_ring(0.0, 0.0, shape.diameter / 2, segments, outer)
    if shape.kind == "rect":
        hl, hw = shape.length / 2, shape.width / 2
        return np.array([[-hl, -hw], [hl, -hw], [hl, hw], [-hl, hw]])
    if shape.kind == "teardrop":
        r1, r2 = shape.tip_width / 2, shape.end_width / 2
        end = _circle_ring(shape.length - r2, 0.0, r2, segments, outer)
        if r1 > 0:
            tip = _circle_ring(r1, 0.0, r1, max(16, int(segments * r1 / max(r2, r1))), outer)
        else:
            tip = np.zeros((1, 2))
        hull = shapely.convex_hull(shapely.multipoints(np.concatenate([tip, end])))
        return np.asarray(hull.exterior.coords)[:-1]
    if shape.kind == "cone":
        half = math.radians(shape.angle / 2)
        count = max(4, int(math.ceil(segments * shape.angle / 360)))
        arc = _arc(shape.length, -half, half, count, outer)
        return np.concatenate([np.zeros((1, 2)), arc])
    raise ShapeError(f"unknown template kind {shape.kind!r}")


def template_polygon(placed: PlacedTemplate, segments: int = DEFAULT_SEGMENTS, outer: bool = False) -> Polygon:
    """The placed template as a polygon inscribed in (or, ``outer``, containing) the true shape."""
    loc = local_outline(placed.shape, segments, outer)
    c, s = math.cos(math.radians(placed.heading)), math.sin(math.radians(placed.heading))
    world = loc @ np.array([[c, s], [-s, c]]) + np.asarray(placed.focus, dtype=float)
    return shapely.polygons(world)  # type: ignore[no-any-return]


def base_outline(base: Base, x: float, y: float, facing: float, segments: int = 64, outer: bool = False) -> FloatArray:
    """Vertices of a base bracketing its true outline from inside or outside."""
    if base.shape == "rect":
        hl, hw = base.length / 2, base.width / 2
        loc = np.array([[-hl, -hw], [hl, -hw], [hl, hw], [-hl, hw]])
    else:
        ring = _circle_ring(0.0, 0.0, 1.0, segments, outer)
        loc = ring * np.array([base.length / 2, base.width / 2])
    return to_world(loc[:, 0], loc[:, 1], (x, y), facing)


def base_polygon(model: Model, segments: int = 64, outer: bool = False) -> Polygon:
    """A model's base as a polygon (inscribed, or with ``outer`` circumscribed)."""
    return Polygon(base_outline(model.base, model.x, model.y, model.facing, segments, outer))


def base_edge_point(model: Model, direction_deg: float) -> Point:
    """Where a ray from the base centre along ``direction_deg`` leaves the base."""
    base = model.base
    rel = math.radians(direction_deg - model.facing)
    cu, su = math.cos(rel), math.sin(rel)
    a, b = base.length / 2, base.width / 2
    if base.shape == "rect":
        candidates = []
        if abs(cu) > 1e-15:
            candidates.append(a / abs(cu))
        if abs(su) > 1e-15:
            candidates.append(b / abs(su))
        dist = min(candidates)
    else:
        dist = 1.0 / math.sqrt((cu / a) ** 2 + (su / b) ** 2)
    d = math.radians(direction_deg)
    return (model.x + dist * math.cos(d), model.y + dist * math.sin(d))
