"""The plumb-line cost for many trial lenses at once (``straight.plumb_costs``) gives, bit for bit, what the cost
one lens at a time gave (written out here as ``camera.plumb_line`` had it)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.photo.camera import Distortion, _line_residuals, no_distortion, plumb_line
from tabletop.photo.straight import plumb_costs


def _one_cost(base: Distortion, k: float, sides: list[np.ndarray]) -> float:
    lens = replace(base, k1=k)
    whole = lens.remove(np.concatenate(sides), iterations=6)
    ends = np.cumsum([len(p) for p in sides])
    return sum(float(np.sum(_line_residuals(whole[end - len(p):end].copy()) ** 2)) for p, end in zip(sides, ends))


def _sides(rng: np.random.Generator, size: tuple[int, int], count: int, noise: float, quarter: bool) -> list[np.ndarray]:
    sides = []
    for _ in range(count):
        n = int(rng.integers(8, 300))
        a, b = (rng.uniform(0, 1, 2) * size for _ in range(2))
        p = a + np.sort(rng.uniform(0, 1, n))[:, None] * (b - a) + rng.normal(0, noise, (n, 2))
        sides.append(np.round(p * 4) / 4 if quarter else p)
    return sides


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(4032, 3024), (1600, 1200), (3024, 4032)]), st.integers(2, 4),
       st.sampled_from([0.3, 2.0, 15.0]), st.booleans())
def test_many_lenses_at_once_are_each_lens_alone(seed: int, size: tuple[int, int], count: int, noise: float,
                                                 quarter: bool) -> None:
    rng = np.random.default_rng(seed)
    base = no_distortion(size)
    sides = _sides(rng, size, count, noise, quarter)
    ks = [*np.linspace(-0.5, 0.5, 21), *rng.uniform(-0.5, 0.5, 3), 0.0, -0.0]  # 0: the identity lens, returned as is
    many = plumb_costs(base, sides, ks)
    assert many == [_one_cost(base, float(k), sides) for k in ks]
    assert plumb_costs(base, sides, [ks[-3]]) == [_one_cost(base, float(ks[-3]), sides)]


def test_plumb_line_finds_the_lens_that_bent_the_sides() -> None:
    # Four sides of a rectangle bent by k1 = -0.06: the search straightens them again, to well under its sigma's reach.
    size = (4032, 3024)
    lens = replace(no_distortion(size), k1=-0.06)
    t = np.linspace(0, 1, 200)[:, None]
    corners = np.array([[500.0, 2600.0], [3500.0, 2600.0], [3300.0, 500.0], [700.0, 500.0]])
    sides = [lens.apply(corners[i] + t * (corners[(i + 1) % 4] - corners[i])) for i in range(4)]
    found, rms, sigma = plumb_line(sides, size)
    assert abs(found.k1 + 0.06) < 1e-4 and rms < 0.01 and math.isfinite(sigma)


def _plumb_line_one_at_a_time(sides: list[np.ndarray], size: tuple[int, int], trim: float = 3.0) -> tuple[Distortion, float, float]:
    """``camera.plumb_line`` as it was: every cost alone, the search made again on the kept points whatever was kept."""
    from tabletop.photo.camera import MAX_KAPPA, straightness

    base = no_distortion(size)
    sides = [np.asarray(p, dtype=np.float64) for p in sides if len(p) >= 8]
    if len(sides) < 2:
        return base, 0.0, math.inf

    def search(pts: list[np.ndarray]) -> float:
        lo, hi = -MAX_KAPPA, MAX_KAPPA
        ks = np.linspace(lo, hi, 21)
        costs = [_one_cost(base, float(k), pts) for k in ks]
        i = int(np.argmin(costs))
        lo, hi = float(ks[max(0, i - 1)]), float(ks[min(len(ks) - 1, i + 1)])
        golden = (math.sqrt(5) - 1) / 2
        a, b = hi - golden * (hi - lo), lo + golden * (hi - lo)
        fa, fb = _one_cost(base, a, pts), _one_cost(base, b, pts)
        for _ in range(30):
            if fa < fb:
                hi, b, fb = b, a, fa
                a = hi - golden * (hi - lo)
                fa = _one_cost(base, a, pts)
            else:
                lo, a, fa = a, b, fb
                b = lo + golden * (hi - lo)
                fb = _one_cost(base, b, pts)
        return (lo + hi) / 2

    k = search(sides)
    lens = replace(base, k1=k)
    kept = []
    for p in sides:
        r = _line_residuals(lens.remove(p))
        mad = 1.4826 * float(np.median(np.abs(r))) + 0.05
        kept.append(p[np.abs(r) <= trim * mad])
    kept = [p for p in kept if len(p) >= 8]
    if len(kept) >= 2:
        k = search(kept)
        lens = replace(base, k1=k)
    n = sum(len(p) for p in kept)
    rms = straightness(kept, lens)
    h = 1e-3
    curv = (_one_cost(base, k + h, kept) - 2 * _one_cost(base, k, kept) + _one_cost(base, k - h, kept)) / (h * h)
    eff = max(1.0, n / 10.0) / max(1, n)
    sigma = math.sqrt(2 * max(rms, 0.05) ** 2 / max(curv * eff, 1e-12))
    return lens, rms, sigma


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 4), st.sampled_from([0.0, -0.07, 0.04]), st.booleans())
def test_plumb_line_is_the_search_one_lens_at_a_time(seed: int, count: int, k1: float, outliers: bool) -> None:
    # Bent sides, with or without points far off them (a base on the edge: trimmed, so the search is made again).
    rng = np.random.default_rng(seed)
    size = (4032, 3024)
    lens = replace(no_distortion(size), k1=k1)
    sides = [lens.apply(p) for p in _sides(rng, size, count, 0.4, False)]
    if outliers:
        sides[0][: len(sides[0]) // 10] += rng.normal(0, 30, (len(sides[0]) // 10, 2))
    assert repr(plumb_line(sides, size)) == repr(_plumb_line_one_at_a_time(sides, size))
