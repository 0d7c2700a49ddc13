"""Answers (:class:`Sight`, :class:`SightLine`), blockers as values, and the footprints and bodies of models."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import shapely
from numpy.typing import NDArray

from tabletop.model import Model
from tabletop.shapes import base_outline, base_polygon, to_world


FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
SightKind = Literal["full", "partial", "none"]
Point3 = tuple[float, float, float]
#: A model's vertical extent (bottom, top) in mm, or None when its height is unknown.
SpanFn = Callable[[Model], "tuple[float, float] | None"]

#: Blockers are closed and grown by this much (mm): a line touching one is blocked. Critical
#: lines pass CRITICAL_CLEARANCE_MM from what they touch, so floating point (~1e-10 mm) cannot flip them.
GRAZE_MM = 1e-7
CRITICAL_CLEARANCE_MM = 10 * GRAZE_MM
#: Points on each footprint's boundary; the area gets about twice as many (target) or a third (viewer).
DEFAULT_SAMPLES = 24
#: Segments of the polygons standing in for oval outlines (a gap of r(1 - cos(pi/n)) ~ 0.015 mm at 25 mm).
OVAL_SEGMENTS = 64
_GOLDEN = math.pi * (3.0 - math.sqrt(5.0))


@dataclass(frozen=True)
class SightLine:
    """One line from a point of the viewer's silhouette to one of the target's (mm, with heights)."""

    start: Point3
    end: Point3
    clear: bool
    blocked_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sight:
    """What the viewer sees of the target.

    ``kind``: ``full`` when no sampled line (bottoms and tops, every pair of sample points) is
    blocked, ``partial`` when some line is clear and some blocked, ``none`` when none is clear.
    ``visible_fraction``: share of the target's base area over which some point of its
    silhouette is seen from some point of the viewer's. ``clear_fraction``: share of the sampled
    lines that are clear at their best heights. ``blocked_by``: ids of what blocks lines, most
    blocking first. ``exact``: the seen / not seen decision is exact (every blocker in the way
    is taller than both silhouettes or of unlimited height), not only sampled. ``contested``:
    the answer flips when every blocker grows (or shrinks) by the tolerance, in plan and height.
    """

    kind: SightKind
    visible_fraction: float
    clear_fraction: float
    blocked_by: tuple[str, ...]
    lines: tuple[SightLine, ...]
    reason: str
    exact: bool
    contested: bool = False

    @property
    def seen(self) -> bool:
        return self.kind != "none"


@dataclass(frozen=True, eq=False)
class Blocker:
    """Something that blocks sight: convex pieces (a polygon) or a disc, from ``bottom`` to ``top`` (mm)."""

    id: str
    label: str
    bottom: float
    top: float
    outline: shapely.Polygon
    pieces: tuple[FloatArray, ...] = ()
    disc: tuple[float, float, float] | None = None  # (x, y, radius)
    corners: FloatArray | None = None

    @property
    def name(self) -> str:
        return self.label if self.label == self.id else f"{self.label} ({self.id})"


def model_span(model: Model) -> tuple[float, float] | None:
    """(z, z + height) of a model with a height; None when its height is unknown."""
    if model.height is None:
        return None
    z = model.z or 0.0
    return (z, z + model.height)


# --------------------------------------------------------------------------- footprints


@dataclass(frozen=True, eq=False)
class _Footprint:
    """A footprint in plan: a disc, an ellipse or a convex polygon.

    ``ring`` (counter-clockwise, not closed) is the polygon used to clip critical lines: exact
    for a polygon, circumscribed for an ellipse, None for a disc. ``frame`` is (half length,
    half width, facing) for an ellipse or a rectangle, whose area is sampled in its own frame.
    """

    centre: FloatArray
    radius: float
    ring: FloatArray | None
    kind: Literal["disc", "ellipse", "polygon"]
    frame: tuple[float, float, float] | None = None

    @property
    def is_disc(self) -> bool:
        return self.kind == "disc"

    def boundary_points(self, k: int) -> FloatArray:
        cx, cy = float(self.centre[0]), float(self.centre[1])
        ang = (np.arange(k) + 0.5) * (2 * math.pi / k)
        if self.kind == "disc":
            return np.stack([cx + self.radius * np.cos(ang), cy + self.radius * np.sin(ang)], axis=-1)
        if self.kind == "ellipse":
            assert self.frame is not None
            a, b, facing = self.frame
            return to_world(a * np.cos(ang), b * np.sin(ang), (cx, cy), facing)
        assert self.ring is not None
        ring = self.ring
        edges = np.roll(ring, -1, axis=0) - ring
        lengths = np.hypot(edges[:, 0], edges[:, 1])
        # Every corner, then the rest of the k points spread along the perimeter.
        s = (np.arange(k) + 0.5) * (lengths.sum() / k)
        cum = np.concatenate([[0.0], np.cumsum(lengths)])
        idx = np.clip(np.searchsorted(cum, s, side="right") - 1, 0, len(ring) - 1)
        t = (s - cum[idx]) / np.where(lengths[idx] > 0, lengths[idx], 1.0)
        along = ring[idx] + edges[idx] * t[:, None]
        return np.concatenate([ring, along])

    def area_points(self, n: int) -> FloatArray:
        """About ``n`` points spread evenly over the area (each stands for an equal share)."""
        cx, cy = float(self.centre[0]), float(self.centre[1])
        if self.kind in ("disc", "ellipse"):
            a, b, facing = self.frame if self.frame is not None else (self.radius, self.radius, 0.0)
            i = np.arange(n)
            rho = np.sqrt((i + 0.5) / n)  # Vogel's spiral: equal area per point
            th = i * _GOLDEN
            return to_world(a * rho * np.cos(th), b * rho * np.sin(th), (cx, cy), facing)
        if self.frame is not None:  # a rectangle: a grid in its own frame
            a, b, facing = self.frame
            nx = max(1, round(math.sqrt(n * a / b)))
            ny = max(1, round(n / nx))
            u = ((np.arange(nx) + 0.5) / nx - 0.5) * 2 * a
            v = ((np.arange(ny) + 0.5) / ny - 0.5) * 2 * b
            uu, vv = np.meshgrid(u, v)
            return to_world(uu.ravel(), vv.ravel(), (cx, cy), facing)
        assert self.ring is not None
        lo, hi = self.ring.min(axis=0), self.ring.max(axis=0)
        area = float(shapely.area(shapely.Polygon(self.ring)))
        step = math.sqrt(max(area, 1e-12) / n)
        xs = np.arange(lo[0] + step / 2, hi[0], step)
        ys = np.arange(lo[1] + step / 2, hi[1], step)
        gx, gy = np.meshgrid(xs, ys)
        pts = np.column_stack([gx.ravel(), gy.ravel()])
        normals, offsets = _halfplanes(self.ring)
        inside = np.all(pts @ normals.T <= offsets[None, :], axis=1)
        pts = pts[inside]
        return pts if len(pts) else self.ring.mean(axis=0, keepdims=True)

    def features(self) -> FloatArray:
        """Circles (x, y, r) whose tangents bound the lines meeting this footprint (r = 0: a corner)."""
        if self.is_disc:
            return np.array([[self.centre[0], self.centre[1], self.radius]])
        assert self.ring is not None
        return np.column_stack([self.ring, np.zeros(len(self.ring))])

    def clip(self, origin: FloatArray, direction: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Parameters [s0, s1] where the lines origin + s * direction (unit) cross the footprint; NaN if they miss."""
        if self.is_disc:
            rel = self.centre[None, :] - origin
            sc = np.einsum("ij,ij->i", rel, direction)
            off2 = np.einsum("ij,ij->i", rel, rel) - sc * sc
            slack = self.radius * self.radius - off2
            half = np.sqrt(np.maximum(slack, 0.0))
            miss = slack < -1e-9 * max(self.radius, 1.0)
            return np.where(miss, np.nan, sc - half), np.where(miss, np.nan, sc + half)
        assert self.ring is not None
        normals, offsets = _halfplanes(self.ring)
        num = offsets[None, :] - origin @ normals.T
        den = direction @ normals.T
        return _clip_params(num, den, -np.inf, np.inf)


def _footprint(model: Model) -> _Footprint:
    base = model.base
    centre = np.array([model.x, model.y], dtype=float)
    if base.is_round:
        return _Footprint(centre, base.length / 2, None, "disc")
    frame = (base.length / 2, base.width / 2, model.facing)
    if base.shape == "rect":
        ring = np.asarray(base_outline(base, model.x, model.y, model.facing), dtype=float)
        return _Footprint(centre, base.bounding_radius, _ccw(ring), "polygon", frame)
    ring = np.asarray(base_outline(base, model.x, model.y, model.facing, OVAL_SEGMENTS, outer=True), dtype=float)
    return _Footprint(centre, base.bounding_radius, _ccw(ring), "ellipse", frame)


@dataclass(frozen=True, eq=False)
class _Body:
    """One end of the sight lines: a footprint, its outline polygon and its vertical span."""

    id: str
    label: str
    footprint: _Footprint
    outline: shapely.Polygon  # contains the true footprint
    span: tuple[float, float] | None

    @property
    def centre(self) -> tuple[float, float]:
        return float(self.footprint.centre[0]), float(self.footprint.centre[1])


def _model_body(model: Model, span: SpanFn) -> _Body:
    outline = base_polygon(model, 4 if model.base.shape == "rect" else 256, outer=True)
    return _Body(model.id, model.label, _footprint(model), outline, span(model))


def _ccw(ring: FloatArray) -> FloatArray:
    x, y = ring[:, 0], ring[:, 1]
    area2 = float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
    return ring if area2 > 0 else ring[::-1].copy()


def _halfplanes(ring: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Outward unit normals and offsets (inside: n . x <= c) of a counter-clockwise convex ring."""
    edge = np.roll(ring, -1, axis=0) - ring
    length = np.hypot(edge[:, 0], edge[:, 1])
    keep = length > 1e-12
    normals = np.stack([edge[keep, 1], -edge[keep, 0]], axis=-1) / length[keep, None]
    offsets = np.einsum("ij,ij->i", normals, ring[keep])
    return normals, offsets


def _clip_params(num: FloatArray, den: FloatArray, lo: float, hi: float) -> tuple[FloatArray, FloatArray]:
    """Cyrus-Beck: the parameter range where t * den <= num holds for every column; NaN when empty."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = num / den  # den == 0 (parallel) is settled by the sign of num below
    enter = np.max(np.where(den < 0.0, ratio, -np.inf), axis=-1)
    leave = np.min(np.where(den > 0.0, ratio, np.inf), axis=-1)
    outside = np.any((den == 0.0) & (num < 0.0), axis=-1)
    t0, t1 = np.maximum(enter, lo), np.minimum(leave, hi)
    bad = outside | (t1 < t0)
    t0[bad] = np.nan
    t1[bad] = np.nan
    return t0, t1
