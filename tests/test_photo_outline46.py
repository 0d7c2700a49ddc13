"""The unaided outline's doubt tests (stop 46): a blurred edge's own shoulder is no rival inside it, and a front face
taller than the edge tests' band is still seen inside a side found at its foot."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from tabletop.photo.camera import Camera, camera_from_corners

from .test_photo_camera import slab_photo


def _blurred_table(blur_px: float) -> tuple[np.ndarray, tuple[tuple[float, float], ...]]:
    """A drawn photo: a grey-green mat with a texture on a red floor, its edges blurred by ``blur_px`` (a soft 12 MP
    photo's), and the mat's true corners."""
    rng = np.random.default_rng(1)
    img = np.full((1500, 2000, 3), (60, 60, 170), np.float32)
    img[300:1201, 300:1701] = (150, 160, 140)
    img += rng.normal(0.0, 4.0, img.shape[:2] + (1,)).astype(np.float32)
    img = cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), blur_px)
    return img, ((299.5, 1200.5), (1700.5, 1200.5), (1700.5, 299.5), (299.5, 299.5))


@pytest.mark.parametrize("blur_px", [2.0, 3.0, 4.0])
def test_a_blurred_edges_own_shoulder_is_no_rival_inside_it(blur_px: float) -> None:
    """Worked numbers: a Gaussian blur of sigma s leaves exp(-d²/2s²) of the edge's gradient d px inside it: at 3.5 px
    0.51 of it at s = 3 and 0.68 at s = 4, over RIVAL_RATIO; and a line aslant from 7 px inside to the edge takes the
    edge's strength by its one end. Before RIVAL_PEAK_PX and the both-ends rule every side of this right outline had a
    'rival' at 3.25 px scoring 0.40 (s = 2), 0.57 (s = 3) and 0.71 (s = 4) of its own (the generators' right outlines
    doubted at '3 px' were this). Breaks if the shoulder counted. (The steady-edge and colour-step tests, which start
    6 px in, still read the shoulder of an edge blurred by s = 3 or more as an edge: not changed.)"""
    from tabletop.photo.rectify import RIVAL_RATIO, inner_rivals

    img, top = _blurred_table(blur_px)
    assert all(ratio < RIVAL_RATIO for ratio, _ in inner_rivals(img, top))


def test_a_right_outline_round_a_soft_edge_is_not_doubtful() -> None:
    """The mat above, blurred by 2 px: no test doubts its right outline (before, the rival test did, at 3 px)."""
    from tabletop.photo.pipeline import _doubt_outline

    img, top = _blurred_table(2.0)
    assert _doubt_outline(img, top, (0.2,) * 4, None) == ((0.2,) * 4, None)


def test_a_real_edge_a_few_pixels_inside_a_blurred_side_is_still_a_rival() -> None:
    """The same blurred mat (s = 2) with a dark border 8 px wide printed round it: an outline on the border's outer edge
    has the mat's edge 8 px inside it, a peak of its own, as strong as the side's: a rival."""
    from tabletop.photo.rectify import RIVAL_RATIO, inner_rivals

    rng = np.random.default_rng(1)
    img = np.full((1500, 2000, 3), (60, 60, 170), np.float32)
    img[292:1209, 292:1709] = (40, 40, 40)
    img[300:1201, 300:1701] = (150, 160, 140)
    img += rng.normal(0.0, 4.0, img.shape[:2] + (1,)).astype(np.float32)
    img = cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), 2.0)
    border = ((291.5, 1208.5), (1708.5, 1208.5), (1708.5, 291.5), (291.5, 291.5))
    for ratio, inside in inner_rivals(img, border):
        assert ratio >= RIVAL_RATIO and inside == pytest.approx(8.0, abs=1.0)


def _slab_seen_close(thickness_mm: float, camera_x_mm: float = 300.0) -> tuple[np.ndarray, tuple[tuple[float, float], ...],
                                                                              tuple[tuple[float, float], ...], Camera]:
    """A drawn photo (2,400 x 1,800) through a camera 500 mm in front of a 600 mm table's near side and 600 mm up: a
    cream mat lit by a lamp to one side, a pale front face ``thickness_mm`` deep on a grey floor. Returns the photo, the top's corners, the outline
    whose near side is the face's foot (its corners where the foot's line meets the top's sides) and the camera."""
    return slab_photo(np.array([camera_x_mm, -500.0, 600.0]), np.array([300.0, 300.0, 0.0]), 600.0, thickness_mm)


def test_a_front_face_taller_than_the_edge_tests_band_is_seen_inside_a_side_at_its_foot() -> None:
    """Worked numbers: the camera is 781 mm from the near side's middle, 50 degrees above it, 1,900 px of focal length:
    a millimetre straight down there is about 1900 * cos(50) / 781 = 1.56 px further out (1.64 with the ray off the
    photo's axis), so a 40 mm top's face is a band of about 66 px, past the 36 px (1.2 % of the 3,000 px diagonal) the
    rival and steady-edge tests read; under the lamp the mat is darker than the face at one end and lighter at the
    other, so the colour-step test sees no steady step. Before the face test read as far as a 50 mm face reaches,
    nothing doubted the outline on the face's foot (the generator's steep photo whose near side lay on a white face's
    foot, 74 px off, was doubted only by a blurred shoulder's 'rival' on two other sides). Breaks if the face test kept
    the edge tests' band."""
    from tabletop.photo.pipeline import _doubt_outline, face_side_scale
    from tabletop.photo.rectify import side_band_px

    img, top, foot, camera = _slab_seen_close(40.0)
    table = (600.0, 600.0)
    scale = face_side_scale(camera, top, table)
    face_px = 40.0 * scale[0]
    assert face_px > side_band_px(img, 6.0) + 10
    sigmas, note = _doubt_outline(img, foot, (0.2,) * 4, None, table)
    assert note is not None and "lower" in note
    assert sigmas[0] == pytest.approx(face_px, rel=0.12) and sigmas[2:] == (0.2, 0.2)
    # At the top's edge the face is outside it: nothing doubts the right outline.
    assert camera_from_corners(top, table, (img.shape[1], img.shape[0])) is not None
    assert _doubt_outline(img, top, (0.2,) * 4, None, table) == ((0.2,) * 4, None)
