"""``benchmarks.photo_measure``'s ``typed`` mode (stop 51): the true corners with a user's typing error, so that a
rule about given corners is judged on the corners a user gives, not only on exact ones."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.photo_measure import TYPED_SIGMA_PX, typed_corners
from tabletop.photo.pipeline import CLICK_SIGMA_PX

TRUE = ((100.0, 900.0), (1900.0, 880.0), (1700.0, 120.0), (300.0, 140.0))


def test_typed_corners_are_the_same_for_a_photo_and_differ_between_photos() -> None:
    assert typed_corners(TRUE, "baseline", 5000) == typed_corners(TRUE, "baseline", 5000)
    assert typed_corners(TRUE, "baseline", 5000) != typed_corners(TRUE, "baseline", 5001)
    assert typed_corners(TRUE, "baseline", 5000) != typed_corners(TRUE, "barrel", 5000)


def test_typed_corners_err_as_the_pipeline_assumes_a_typed_corner_does() -> None:
    # Over 2,000 photos (8,000 x and y errors): the RMS per axis is the pipeline's 1 px to a few percent (its standard
    # error is 1/sqrt(2 x 8,000) = 0.8 %), the mean about 0, and no error far past 4 sigma.
    assert TYPED_SIGMA_PX == CLICK_SIGMA_PX
    errors = np.array([np.subtract(typed_corners(TRUE, "steep", seed), TRUE) for seed in range(2000)]).ravel()
    assert np.sqrt(np.mean(errors ** 2)) == pytest.approx(TYPED_SIGMA_PX, rel=0.03)
    assert abs(float(np.mean(errors))) < 0.05 and float(np.max(np.abs(errors))) < 4.5 * TYPED_SIGMA_PX
