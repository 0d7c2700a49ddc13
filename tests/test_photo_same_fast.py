"""The unaided outline's fast pieces against the formulas they replaced: equal to the bit, not close."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.photo import camera, candidates, rays, rectify


def _line_scores_formula(strength: np.ndarray, slope_step: int) -> tuple[np.ndarray, np.ndarray]:
    """The whole [slopes, normals, offsets] array, averaged over the normals (the formula before it was summed one normal
    at a time)."""
    n_t, n_s = strength.shape
    reach = n_s - 1
    slopes = np.arange(-reach, reach + 1, slope_step)
    shift = np.rint(np.linspace(0.0, 1.0, n_t)[None, :] * slopes[:, None]).astype(np.intp)
    idx = np.arange(n_s)[None, None, :] + shift[:, :, None]
    inside = (idx >= 0) & (idx < n_s)
    values = strength[np.arange(n_t)[None, :, None], np.clip(idx, 0, n_s - 1)]
    score = np.where(inside, values, 0.0).mean(axis=1)
    score[~inside.all(axis=1)] = 0.0
    return score, slopes


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_t=st.integers(1, 70), n_s=st.integers(1, 130), step=st.sampled_from([1, 2, 4]),
       dtype=st.sampled_from([np.float32, np.float64]), scale=st.sampled_from([1e-3, 1.0, 255.0, 1e5]))
def test_line_scores_one_normal_at_a_time_is_the_whole_formula(seed: int, n_t: int, n_s: int, step: int, dtype: type,
                                                                scale: float) -> None:
    strength = (np.random.default_rng(seed).random((n_t, n_s)) * scale).astype(dtype)
    score, slopes = rectify._line_scores(strength, step)
    want, want_slopes = _line_scores_formula(strength, step)
    assert _same_bits(score, want)
    assert np.array_equal(slopes, want_slopes)


def test_line_scores_by_hand() -> None:
    # Two normals, three offsets: slope 0 averages each column, (1+4)/2 = 2.5, (2+5)/2 = 3.5, (3+6)/2 = 4.5; slope +1 runs
    # from offset s to s + 1: (1+5)/2 = 3 and (2+6)/2 = 4, the last start leaves the band; slope +2: (1+6)/2 = 3.5 only;
    # slope -1 from s to s - 1: the first start leaves, (2+4)/2 = 3, (3+5)/2 = 4; slope -2: (3+4)/2 = 3.5 only.
    strength = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    score, slopes = rectify._line_scores(strength, 1)
    assert slopes.tolist() == [-2, -1, 0, 1, 2]
    assert score.tolist() == [[0.0, 0.0, 3.5], [0.0, 3.0, 4.0], [2.5, 3.5, 4.5], [3.0, 4.0, 0.0], [3.5, 0.0, 0.0]]


def _not_mat_formula(top: np.ndarray, mat: candidates.MatModel) -> np.ndarray:
    """The distance as ``_blob_candidates`` and ``edge_candidates`` each computed it before they shared it."""
    diff = cv2.GaussianBlur(top.astype(np.float32) - mat.near, (0, 0), 1.0)
    z = cv2.transform(diff, mat.whiten)
    return np.sqrt(np.sum(z * z, axis=2))


def _candidate_top(seed: int) -> np.ndarray:
    """A mottled mat with a few light and dark discs of another hue."""
    rng = np.random.default_rng(seed)
    top = np.clip(rng.normal((70, 110, 60), 8, (300, 420, 3)), 0, 255).astype(np.uint8)
    for _ in range(12):
        x, y, r = int(rng.integers(30, 390)), int(rng.integers(30, 270)), int(rng.integers(10, 28))
        cv2.circle(top, (x, y), r, tuple(int(v) for v in rng.integers(0, 256, 3)), -1)
    return top


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_shared_not_mat_distance_is_each_sources_own(seed: int) -> None:
    top = _candidate_top(seed)
    mat = candidates.mat_model(top)
    dist = candidates.not_mat_distance(top, mat)
    assert _same_bits(dist, _not_mat_formula(top, mat))
    for own, shared in ((candidates._blob_candidates(top, mat, 10.0, 30.0), candidates._blob_candidates(top, mat, 10.0, 30.0, dist)),
                        *zip(candidates.edge_candidates(top, mat, 300.0, 1.0), candidates.edge_candidates(top, mat, 300.0, 1.0, dist))):
        assert _same_bits(own, shared)



def _plumb_line_formula(sides: list[np.ndarray], size: tuple[int, int], trim: float = 3.0) -> tuple[camera.Distortion, float, float]:
    """``camera.plumb_line`` as it was: each side undistorted on its own in every cost."""
    base = camera.no_distortion(size)
    sides = [np.asarray(p, dtype=np.float64) for p in sides if len(p) >= 8]
    if len(sides) < 2:
        return base, 0.0, math.inf

    def cost(k: float, pts: list[np.ndarray]) -> float:
        lens = replace(base, k1=k)
        return sum(float(np.sum(camera._line_residuals(lens.remove(p, iterations=6)) ** 2)) for p in pts)

    def search(pts: list[np.ndarray]) -> float:
        lo, hi = -camera.MAX_KAPPA, camera.MAX_KAPPA
        ks = np.linspace(lo, hi, 21)
        costs = [cost(float(k), pts) for k in ks]
        i = int(np.argmin(costs))
        lo, hi = float(ks[max(0, i - 1)]), float(ks[min(len(ks) - 1, i + 1)])
        golden = (math.sqrt(5) - 1) / 2
        a, b = hi - golden * (hi - lo), lo + golden * (hi - lo)
        fa, fb = cost(a, pts), cost(b, pts)
        for _ in range(30):
            if fa < fb:
                hi, b, fb = b, a, fa
                a = hi - golden * (hi - lo)
                fa = cost(a, pts)
            else:
                lo, a, fa = a, b, fb
                b = lo + golden * (hi - lo)
                fb = cost(b, pts)
        return (lo + hi) / 2

    k = search(sides)
    lens = replace(base, k1=k)
    kept = []
    for p in sides:
        r = camera._line_residuals(lens.remove(p))
        mad = 1.4826 * float(np.median(np.abs(r))) + 0.05
        kept.append(p[np.abs(r) <= trim * mad])
    kept = [p for p in kept if len(p) >= 8]
    if len(kept) >= 2:
        k = search(kept)
        lens = replace(base, k1=k)
    n = sum(len(p) for p in kept)
    rms = camera.straightness(kept, lens)
    # 1-sigma of k from the cost's curvature: cost = sum r^2, sigma_k^2 = 2 rms^2 / cost''. Edge points along a side
    # are correlated (blur, JPEG blocks), so count at most one in ten as independent.
    h = 1e-3
    curv = (cost(k + h, kept) - 2 * cost(k, kept) + cost(k - h, kept)) / (h * h)
    eff = max(1.0, n / 10.0) / max(1, n)
    sigma = math.sqrt(2 * max(rms, 0.05) ** 2 / max(curv * eff, 1e-12))
    return lens, rms, sigma



def _bowed_sides(seed: int, k1: float, size: tuple[int, int]) -> list[np.ndarray]:
    """A table's four sides as edge points (noisy, a few outliers) seen through a lens of ``k1``."""
    rng = np.random.default_rng(seed)
    w, h = size
    lens = replace(camera.no_distortion(size), k1=k1)
    quad = np.array([[0.1 * w, 0.9 * h], [0.92 * w, 0.85 * h], [0.8 * w, 0.15 * h], [0.15 * w, 0.2 * h]]) + rng.normal(0, 20, (4, 2))
    sides = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        t = np.sort(rng.uniform(0.05, 0.95, int(rng.integers(6, 160))))
        pts = lens.apply(a + t[:, None] * (b - a)) + rng.normal(0, 0.4, (len(t), 2))
        pts[rng.random(len(t)) < 0.05] += rng.normal(0, 15, 2)
        sides.append(pts)
    return sides


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k1=st.sampled_from([0.0, -0.08, -0.03, 0.02]),
       size=st.sampled_from([(4032, 3024), (1600, 1200)]), drop=st.integers(0, 2))
def test_plumb_line_with_the_sides_undistorted_together_is_side_by_side(seed: int, k1: float, size: tuple[int, int],
                                                                       drop: int) -> None:
    sides = _bowed_sides(seed, k1, size)[drop:]
    lens, rms, sigma = camera.plumb_line(sides, size)
    want_lens, want_rms, want_sigma = _plumb_line_formula(sides, size)
    assert (lens.k1, lens.k2, lens.centre, lens.scale) == (want_lens.k1, want_lens.k2, want_lens.centre, want_lens.scale)
    assert (rms, sigma) == (want_rms, want_sigma) or (math.isinf(sigma) and math.isinf(want_sigma) and rms == want_rms)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shape=st.lists(st.integers(1, 9), min_size=1, max_size=4), long=st.integers(1, 130),
       axis=st.integers(0, 3), dtype=st.sampled_from([np.float32, np.float64]), ties=st.booleans(),
       nan=st.floats(0.0, 0.05))
def test_sorted_median_is_numpys_median(seed: int, shape: list[int], long: int, axis: int, dtype: type, ties: bool,
                                        nan: float) -> None:
    rng = np.random.default_rng(seed)
    axis = axis % len(shape)
    shape[axis] = long
    values = rng.normal(0, 30, shape)
    if ties:
        values = np.round(values / 10) * 10 + 0.0  # + 0.0: numpy's partition and sort may order -0.0 and 0.0 apart
    values = values.astype(dtype)
    values[rng.random(shape) < nan] = np.nan
    assert _same_bits(rays.sorted_median(values, axis), np.median(values, axis=axis))


def test_sorted_median_by_hand() -> None:
    # Rows (3, 1, 2) and (4, 8, 6, 2) along axis 1 would need an even row; along axis 0 of [[3, 4], [1, 8], [2, 6]]: the
    # middles are 2 and 6; with a fourth row [0, 2]: (1 + 2) / 2 = 1.5 and (4 + 6) / 2 = 5.
    assert rays.sorted_median(np.array([[3.0, 4.0], [1.0, 8.0], [2.0, 6.0]]), 0).tolist() == [2.0, 6.0]
    assert rays.sorted_median(np.array([[3.0, 4.0], [1.0, 8.0], [2.0, 6.0], [0.0, 2.0]]), 0).tolist() == [1.5, 5.0]


def test_the_doubt_tests_on_shared_profiles_are_each_tests_own() -> None:
    """``pipeline._doubt_outline`` reads the sides' profiles once: each test of edges gives what it gives reading its own,
    on a 2400 x 1800 photo (one band for all) and on a quarter-size copy (the steady-edge tests' band the wider)."""
    from tabletop.photo.pipeline import (STEADY_EDGE_MIN_PX, face_side_scale, front_face_inside,
                                         steady_inner_edges)
    from tabletop.photo.rectify import RIVAL_MIN_PX, inner_rivals, inward_side_profiles, side_band_px

    from tests.test_photo_camera import _slab_seen_from_the_front

    img, top, foot, _ = _slab_seen_from_the_front(30.0)
    table = (1200.0, 1200.0)
    small = cv2.resize(img, (600, 450), interpolation=cv2.INTER_AREA)
    for photo, f in ((img, 1.0), (small, 0.25)):
        for corners in (top, foot):
            corners = tuple((x * f, y * f) for x, y in corners)
            scale = face_side_scale(camera.camera_from_corners(corners, table, (photo.shape[1], photo.shape[0])), corners, table)
            rival = inward_side_profiles(photo, corners, None, RIVAL_MIN_PX, 60)
            edge = inward_side_profiles(photo, corners, None, STEADY_EDGE_MIN_PX, 60)
            shared = side_band_px(photo, RIVAL_MIN_PX) == side_band_px(photo, STEADY_EDGE_MIN_PX)
            assert shared == (f == 1.0)
            if shared:
                assert all(_same_bits(a, c) and _same_bits(b, d) for (a, b), (c, d) in zip(rival, edge))
            assert inner_rivals(photo, corners, None, profiles=rival) == inner_rivals(photo, corners, None)
            assert steady_inner_edges(photo, corners, None, profiles=edge) == steady_inner_edges(photo, corners, None)
            assert front_face_inside(photo, corners, None, scale, profiles=edge) == front_face_inside(photo, corners, None, scale)


def _mat_model_formula(top: np.ndarray) -> candidates.MatModel:
    """``candidates.mat_model`` with numpy's medians (before the sorted ones)."""
    h, w = top.shape[:2]
    maps = []
    for f in (4, 8):
        small = cv2.resize(top, (max(8, w // f), max(8, h // f)), interpolation=cv2.INTER_AREA)
        maps.append(cv2.resize(cv2.medianBlur(small, 31), (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32))
    mat = maps[0]
    diff = top[::3, ::3].astype(np.float32).reshape(-1, 3) - mat[::3, ::3].reshape(-1, 3)
    centre = np.median(diff, axis=0)
    mad = 1.4826 * np.median(np.abs(diff - centre), axis=0) + 0.5
    core = np.all(np.abs(diff - centre) < 3 * mad, axis=1)
    cov = np.cov(diff[core].T) + np.eye(3) * 1.0
    vals, vecs = np.linalg.eigh(cov)
    return candidates.MatModel(maps[0], maps[1], (vecs @ np.diag(vals ** -0.5) @ vecs.T).astype(np.float32))


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_mat_model_with_sorted_medians_is_numpys(seed: int) -> None:
    top = _candidate_top(seed)
    got, want = candidates.mat_model(top), _mat_model_formula(top)
    assert _same_bits(got.near, want.near) and _same_bits(got.wide, want.wide) and _same_bits(got.whiten, want.whiten)
