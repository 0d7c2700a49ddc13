"""A footprint fit started a few millimetres off its base (``footprint.refit_nearby``): the rim fit's circle can sit
3-5 mm off a base whose figure reaches over its rim, and a fit started there does not reach the base's own outline;
fits started round it do."""

from __future__ import annotations

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tabletop.photo import BASE_SIZES_MM  # noqa: E402
from tabletop.photo.candidates import mat_model  # noqa: E402
from tabletop.photo.footprint import fit_footprints, refit_nearby  # noqa: E402
from tabletop.photo.rays import photo_scale  # noqa: E402
from tabletop.photo.rectify import rectify  # noqa: E402
from tests.test_photo_camera import SIZE, TABLE, _corners, _fill_envelope, _true_camera  # noqa: E402

AT = np.array([800.0, 500.0])


def _one_base():  # noqa: ANN202
    """A 28 mm base 4 mm tall (dark side, pale top) on a green mat, a camera 900 mm above the table, 12 MP."""
    cam = _true_camera()
    image = np.empty((SIZE[1], SIZE[0], 3), np.uint8)
    image[:] = (70, 120, 80)
    around = np.radians(np.arange(0.0, 360.0, 0.5))
    circle = 14.0 * np.column_stack([np.cos(around), np.sin(around)])
    for level in np.linspace(0.0, 4.0, 9):
        _fill_envelope(image, cam.project(circle + AT, float(level)), (40, 40, 45))
    _fill_envelope(image, cam.project(circle + AT, 4.0), (200, 205, 210))
    noise = np.random.default_rng(7).normal(0.0, 6.0, image.shape)
    image = cv2.GaussianBlur(np.clip(image + noise, 0, 255).astype(np.uint8), (0, 0), 0.8)
    rect = rectify(image, _corners(cam), TABLE, 1.0, camera=cam, base_height_mm=None)  # type: ignore[arg-type]
    return rect, mat_model(rect.image)


@pytest.mark.parametrize("off", [3.0, 5.0])
def test_a_fit_started_off_its_base_finds_it_from_the_places_round(off: float) -> None:
    rect, mat = _one_base()
    start = AT[None] + np.array([[0.0, off]])
    colour = np.float32([[70, 120, 80]])
    args = (rect, start, np.array([14.0]), colour, mat.whiten, photo_scale(rect), np.array(BASE_SIZES_MM))
    first = fit_footprints(*args)
    assert first is not None
    assert not (first.taken[0] and np.hypot(*(first.centres[0] - AT)) < 0.5)  # from there, not the base's own outline
    again = refit_nearby(*args, None, None, first, np.array([0]), np.array([0.375]))
    assert again.taken[0] and again.radii[0] == 14.0 and np.hypot(*(again.centres[0] - AT)) < 0.3
    # A bar no fit meets leaves the row as it was.
    kept = refit_nearby(*args, None, None, first, np.array([0]), np.array([0.001]))
    assert np.array_equal(kept.centres, first.centres) and np.array_equal(kept.taken, first.taken)
