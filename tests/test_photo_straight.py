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
