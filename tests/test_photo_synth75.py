"""tabletop/photo/synth.py draws its full-size steps a band of rows at a time (stop 75): the photo must not depend on
the band's height, nor on where the bands fall."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.photo import synth
from tabletop.photo.synth import synth_photo


@pytest.mark.parametrize("rows", [1, 7, 100_000])
def test_a_synthetic_photo_is_the_same_whatever_the_band_height(monkeypatch: pytest.MonkeyPatch, rows: int) -> None:
    """640x480, 8 bases: bands of 1 and 7 rows (a band boundary falls on rows a photo's 64-row bands do not) and one
    band over everything (the whole-image arithmetic it replaced) give the photo the default bands give, bit for bit;
    so do its corners and its bases. A band that read the next band's random numbers, drew a row twice or skipped
    one, would differ here."""
    expected = synth_photo(11, size=(640, 480), n_bases=8)
    monkeypatch.setattr(synth, "BAND_ROWS", rows)
    photo = synth_photo(11, size=(640, 480), n_bases=8)
    assert np.array_equal(photo.image, expected.image)
    assert photo.corners_px == expected.corners_px
    assert photo.bases == expected.bases


def test_bands_cover_every_row_once() -> None:
    """The bands of 130 rows at 64 a band: 0-63, 64-127, 128-129."""
    assert synth._bands(130) == [slice(0, 64), slice(64, 128), slice(128, 130)]
    assert synth._bands(0) == []
