"""The unaided outline's fast pieces against the formulas they replaced: equal to the bit, not close."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.photo import candidates, rectify


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
