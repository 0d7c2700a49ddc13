"""The vectorised path: a circular template against round bases, chunk by chunk; the heat of landings; the Wilson interval."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from tabletop.coverage import CONTACT_EPS_MM
from tabletop.model import PlacedTemplate
from tabletop.odds.limits import CHUNK, Z95
from tabletop.shapes import template_sdf


def circle_hit_probability(
    centres: ArrayLike,
    radii: ArrayLike,
    focus_samples: ArrayLike,
    radius: float,
    weights: ArrayLike | None = None,
    chunk: int = CHUNK,
) -> NDArray[np.float64]:
    """Chance that each round base (centres (N, 2), radii (N,)) meets a circle of ``radius``
    centred on one of ``focus_samples`` (S, 2): the share of samples (or of their ``weights``)
    within ``radius + r`` of the base centre, contact included."""
    c = np.asarray(centres, dtype=float).reshape(-1, 2)
    r = np.asarray(radii, dtype=float).reshape(-1)
    f = np.asarray(focus_samples, dtype=float).reshape(-1, 2)
    n, s = len(c), len(f)
    if n == 0 or s == 0:
        return np.zeros(n)
    limit = ((r + radius + CONTACT_EPS_MM) ** 2)[:, None]
    cx, cy = c[:, 0, None], c[:, 1, None]
    fx, fy = np.ascontiguousarray(f[:, 0]), np.ascontiguousarray(f[:, 1])
    w = None if weights is None else np.asarray(weights, dtype=float).reshape(-1)
    # Bases along axis 0, samples contiguous along axis 1; the buffers are reused so each
    # chunk stays in cache and nothing is allocated per chunk but the comparison.
    chunk = max(1, min(chunk, s))
    dx = np.empty((n, chunk))
    dy = np.empty((n, chunk))
    hits = np.zeros(n, dtype=np.int64) if w is None else np.zeros(n)
    for start in range(0, s, chunk):
        stop = min(start + chunk, s)
        a, b = dx[:, : stop - start], dy[:, : stop - start]
        np.subtract(fx[None, start:stop], cx, out=a)
        np.subtract(fy[None, start:stop], cy, out=b)
        a *= a
        b *= b
        a += b
        inside = a <= limit
        if w is None:
            hits += np.count_nonzero(inside, axis=1)
        else:
            hits += inside @ w[start:stop]
    total = float(s) if w is None else float(w.sum())
    return hits / total if total > 0 else np.zeros(n)


def scatter_foci(
    aim: tuple[float, float],
    samples: int,
    distance_mm: tuple[float, float],
    *,
    seed: int = 1,
) -> NDArray[np.float64]:
    """``samples`` continuous scatters of ``aim`` (S, 2): a uniform direction, a distance uniform in ``distance_mm``."""
    rng = np.random.default_rng(seed)
    angle = rng.uniform(0.0, 2 * math.pi, samples)
    dist = rng.uniform(distance_mm[0], distance_mm[1], samples)
    return np.stack([aim[0] + dist * np.cos(angle), aim[1] + dist * np.sin(angle)], axis=-1)


def landing_heat(landings: Sequence[tuple[PlacedTemplate, float]], points: ArrayLike) -> NDArray[np.float64]:
    """Chance that each point (M, 2) ends under one of the weighted placements ``landings``."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    out = np.zeros(len(pts))
    if not landings:
        return out
    circles = [(p, w) for p, w in landings if p.shape.kind == "circle"]
    by_radius: dict[float, list[tuple[PlacedTemplate, float]]] = {}
    for p, w in circles:
        by_radius.setdefault(p.shape.diameter / 2, []).append((p, w))
    for radius, group in by_radius.items():
        foci = np.array([p.focus for p, _ in group])
        weights = np.array([w for _, w in group])
        out += circle_hit_probability(pts, np.zeros(len(pts)), foci, radius, weights) * weights.sum()
    for p, w in landings:
        if p.shape.kind != "circle":
            out += w * (template_sdf(p, pts) <= CONTACT_EPS_MM)
    return np.minimum(out, 1.0)


def wilson_interval(successes: float, n: int) -> tuple[float, float]:
    """The Wilson score 95% interval of a proportion."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))
