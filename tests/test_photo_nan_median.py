"""``values.nan_median``: numpy's nanmedian to the bit, without its "All-NaN slice" warning (the markers' and ovals'
fits run in the app's threads, where ``warnings.catch_warnings`` is not safe)."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tabletop.photo.values import nan_median

values = arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 9), st.integers(1, 3)),
                elements=st.one_of(st.just(np.nan), st.floats(-1e6, 1e6, width=64)))


@given(values, st.integers(0, 2))
def test_nan_median_is_numpys_to_the_bit_and_warns_nothing(a: np.ndarray, axis: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.nanmedian(a, axis=axis)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = nan_median(a, axis)
    assert got.dtype == expected.dtype and np.array_equal(got, expected, equal_nan=True)


def test_an_all_nan_row_is_nan_and_the_others_their_median() -> None:
    # Worked: row 0 all NaN -> NaN; row 1 (3, NaN, 1) -> median of 1 and 3 = 2.0; float32 stays float32.
    a = np.array([[np.nan, np.nan, np.nan], [3.0, np.nan, 1.0]], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = nan_median(a, axis=1)
    assert got.dtype == np.float32 and np.isnan(got[0]) and got[1] == 2.0


def test_no_photo_fit_silences_warnings_itself() -> None:
    """The analysis (run in the app's threads) raises no warning it would have to silence: only the command line's
    entry and the image loader (called on the app's main thread) filter warnings."""
    from pathlib import Path

    import tabletop.photo as photo

    filtering = sorted(p.name for p in Path(photo.__file__).parent.glob("*.py") if "catch_warnings" in p.read_text()
                       and p.name not in ("cli.py", "imageio.py", "values.py"))
    assert filtering == []
