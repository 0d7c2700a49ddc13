"""Given corners the table's edges refine (stop 51): a typed corner a pixel or two off that the fit puts back keeps the
fit's sigma, and what stays unsolved: true corners refined onto the foot of a thin front face, reported as sure.

Stop 51 tried to widen a refined corner's sigma by the part of its move its given error does not explain
(docs/photo.md, "A given corner's disagreement with the edge fit: measured and not kept"). On the measure set, where
the given corners are exact, it took confidently wrong bases from 5 to 2; but a user's corner is not exact, and a
typed corner 2 px off that the fit put back to 0.05 px then made every base of the photo unsure."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.photo.pipeline import analyse_image
from tabletop.photo.values import LoadedImage

from .test_photo_camera import _slab_seen_from_the_front


def _analysed(img: np.ndarray, corners: tuple[tuple[float, float], ...]):  # noqa: ANN202
    return analyse_image(LoadedImage(img, "slab.png", (2400, 1800)), (1200.0, 1200.0), corners=corners,  # type: ignore[arg-type]
                         base_height_mm=0.0)


@pytest.mark.parametrize("off_px", [1.0, 2.0, 2.9])
def test_a_typed_corner_the_fit_puts_back_keeps_the_fits_sigma(off_px: float) -> None:
    """A drawn 2,400 x 1,800 photo of a 1,200 mm table whose pale front face is 30 mm deep (18.5 px: the fit finds the
    top's edge, not the face's foot). Its lower-left corner typed ``off_px`` wide of where the fit puts it: the fit puts
    it back within 0.1 px, and the calibration's sigma is the fit's, 0.11 mm, as with the corner typed exactly. Under
    the rule tried at stop 51 (review r52) it was 0.55 mm at 2 px and 0.99 mm at 2.9 px: a right answer made unsure."""
    img, top, _, _ = _slab_seen_from_the_front(30.0)
    exact = _analysed(img, top)
    fitted = exact.corners_px
    typed = ((fitted[0][0] - off_px, fitted[0][1]),) + tuple(fitted[1:])
    result = _analysed(img, typed)  # type: ignore[arg-type]
    assert np.max(np.linalg.norm(np.asarray(result.corners_px) - np.asarray(fitted), axis=1)) < 0.1
    assert result.calibration_rms_mm == pytest.approx(exact.calibration_rms_mm, abs=0.02)
    assert result.calibration_rms_mm < 0.3


@pytest.mark.xfail(strict=True, reason="not solved (issue 34): the face is drawn nearly the mat's colour (a step of about "
                   "2 grey levels in the median along the side), so nothing in the photo tells the top's edge from the "
                   "face; the edge fit follows the face's foot, within the 3 px a given corner may move, its sigma the "
                   "fit's own, and a given corner's disagreement alone cannot tell a typo from a face (docs/photo.md). "
                   "A face unlike the mat is told from it since stop 52 (test_photo_mat_edge52)")
def test_true_corners_refined_onto_a_thin_faces_foot_are_not_sure() -> None:
    """The same table with a 3 mm face (under 2 px below its near side, the floor-to-face edge far stronger than the
    mat-to-face one), its true corners given. The edge fit moves the near corners 2.8-2.9 px onto the face's foot, about
    4 mm on the table at 1.6 mm a pixel there, and the calibration's sigma is the fit's, 0.10 mm."""
    img, top, _, _ = _slab_seen_from_the_front(3.0)
    result = _analysed(img, top)
    moves = np.linalg.norm(np.asarray(result.corners_px) - np.asarray(top), axis=1)
    assert np.all(moves[:2] > 2.5) and np.all(moves[2:] < 1.0)  # on the face's foot
    assert result.calibration_rms_mm > 1.0
