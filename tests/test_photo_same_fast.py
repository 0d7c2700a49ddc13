"""The unaided outline's fast pieces against the formulas they replaced: equal to the bit, not close."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.photo import rectify


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
