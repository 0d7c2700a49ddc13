"""The markers' and ovals' NaN medians: ``rays.nan_row_median`` (numpy's nanmedian to the bit, float32 too), with no
"All-NaN slice" warning to silence: the fits run in the app's threads, where ``warnings.catch_warnings`` is not safe
(one thread's filter undid the other's, and numpy's warning reached stderr)."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tabletop.photo import markers as mk
from tabletop.photo.rays import nan_row_median


def _numpys(a: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmedian(a, axis=axis)


@given(st.sampled_from([np.float32, np.float64]), st.integers(1, 6), st.integers(1, 9), st.data())
def test_nan_row_median_is_numpys_to_the_bit_in_both_widths_and_warns_nothing(dtype: type, n: int, k: int, data: st.DataObject) -> None:
    width = 32 if dtype is np.float32 else 64
    a = data.draw(arrays(dtype, (n, k), elements=st.one_of(st.just(np.nan), st.floats(-1e6, 1e6, width=width))))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = nan_row_median(a)
    expected = _numpys(a, 1)
    assert got.dtype == expected.dtype and np.array_equal(got, expected, equal_nan=True)


def test_the_markers_levels_are_numpys_nanmedians_per_profile_and_channel() -> None:
    """``_levels`` on (profiles, depths, channels) samples, some profiles with no sample in a window (NaN there): each
    level is numpy's nanmedian over the depths, bit for bit, and no warning. Worked: profile 0's step at depth 5 with
    samples 0..9 at depths 0..9 of value 10 * depth: just inside (depths 7..9 with the windows below) and just outside."""
    rng = np.random.default_rng(0)
    depth = np.arange(0.0, 40.0)
    vals = rng.normal(100, 20, (7, len(depth), 3)).astype(np.float32)
    edge = np.array([5.0, 12.0, 20.0, 39.0, 0.0, 300.0, -300.0])  # the last two: no sample either side
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = mk._levels(vals, depth, edge)
    rel = depth[None, :] - edge[:, None]
    masks = (np.broadcast_to(depth[None, :] >= depth.max() - mk.MAT_REFERENCE_PX, rel.shape),
             (rel > mk.STEP_WINDOW_PX) & (rel <= mk.STEP_WINDOW_PX + mk.STEP_LEVEL_PX),
             (rel < -mk.STEP_WINDOW_PX) & (rel >= -mk.STEP_WINDOW_PX - mk.STEP_LEVEL_PX))
    for level, mask in zip(got, masks):
        want = _numpys(np.where(mask[..., None], vals, np.nan), 1)
        assert level.dtype == want.dtype and np.array_equal(level, want, equal_nan=True)
    assert np.all(np.isnan(got[1][5:])) and np.all(np.isnan(got[2][5:]))


def test_no_photo_fit_silences_warnings_itself() -> None:
    """The analysis raises no warning it would have to silence. Two files still filter one: the command line's entry
    (its own process) and the image loader (Pillow's DecompressionBombWarning round its own open; it also runs in the
    reopened review's thread, where a filter of another thread's could be undone: a warning shown, nothing else)."""
    from pathlib import Path

    import tabletop.photo as photo

    filtering = sorted(p.name for p in Path(photo.__file__).parent.glob("*.py") if "catch_warnings(" in p.read_text()
                       and p.name not in ("cli.py", "imageio.py"))
    assert filtering == []
