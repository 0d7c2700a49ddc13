"""The table's surfaces (``ground.ground_map``): a base on a roof of nearly the mat's colour does not stand on the
mat, one in a building's shadow or the lamp's fall does."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.photo.ground import GROUND_MM_PER_PX, ground_map


def _table(seed: int) -> np.ndarray:
    """A 600 x 400 mm felt mat at 1 px/mm (BGR, row 0 at the far edge): grey-white with a speckle of 3 grey levels, lit
    from the left (the light falls to 70 % across it), a shadow at half the light, and a 70 x 60 mm roof whose green is
    8 % above the mat's (a pale green top on a grey mat: 16 grey levels)."""
    rng = np.random.default_rng(seed)
    h, w = 400, 600
    mat = np.array([200.0, 204.0, 202.0])  # B, G, R
    image = np.broadcast_to(mat, (h, w, 3)).copy()
    image[100:160, 300:370] *= np.array([1.0, 1.08, 1.0])  # the roof: rows 100-160 from the far edge, x 300-370 mm
    image *= np.linspace(1.0, 0.7, w)[None, :, None]  # the lamp's fall, the same in every channel
    image[250:330, 80:200] *= 0.5  # a cast shadow of white light
    image += rng.normal(0.0, 3.0, image.shape)
    return np.clip(np.round(image), 0, 255).astype(np.uint8)


def test_a_roof_of_nearly_the_mats_colour_is_not_the_mat() -> None:
    for seed in range(3):
        surfaces = ground_map(_table(seed), 1.0, 400.0)
        # Paths outwards from three points, 16 mm each: the first surface met off an edge decides.
        path = np.linspace(0.0, 16.0, 15)
        x = np.array([[335.0], [140.0], [500.0]]) + path[None, :]
        y = np.array([[270.0], [110.0], [350.0]]) + 0.0 * path[None, :]
        # y is the table's (up from the near edge): 270 mm is 130 mm from the far edge, on the roof; 110 mm is in the
        # shadow (rows 250-330 from the far edge are y 70-150 mm); 350 mm is bare mat where the light has fallen most.
        on_mat = surfaces.first_surface_is_floor(x, y)
        assert on_mat.tolist() == [False, True, True], seed
        assert surfaces.labels.shape == (round(400 / GROUND_MM_PER_PX), round(600 / GROUND_MM_PER_PX))


def test_a_path_on_the_roofs_edge_meets_the_roof_first() -> None:
    """Starting on the edge between roof and mat and going into the roof, the first surface is the roof's; going out
    of it onto the mat, the mat's."""
    surfaces = ground_map(_table(5), 1.0, 400.0)
    into = surfaces.first_surface_is_floor(np.linspace(300.0, 316.0, 15)[None, :], np.full((1, 15), 270.0))
    out = surfaces.first_surface_is_floor(np.linspace(300.0, 284.0, 15)[None, :], np.full((1, 15), 270.0))
    assert into.tolist() == [False] and out.tolist() == [True]


def _green(h: int = 400, w: int = 600) -> np.ndarray:
    return np.broadcast_to(np.array([70.0, 110.0, 80.0]), (h, w, 3)).copy()


def _first_on_mat(image: np.ndarray, points: list[tuple[float, float]]) -> list[bool]:
    rng = np.random.default_rng(0)
    top = np.clip(np.round(image + rng.normal(0.0, 3.0, image.shape)), 0, 255).astype(np.uint8)
    surfaces = ground_map(top, 1.0, float(image.shape[0]))
    path = np.linspace(0.0, 16.0, 15)
    return [bool(surfaces.first_surface_is_floor((x + path)[None, :], np.full((1, 15), y))[0]) for x, y in points]


def test_a_roof_at_the_tables_edge_is_not_the_mat() -> None:
    """A building's roof (90 x 60 mm, brick red) whose top-down image reaches the table's far edge touches it over its
    width, short of ``EDGE_RUN_MM``: raised, not the table's plane."""
    image = _green()
    image[0:60, 250:340] = (50.0, 60.0, 110.0)
    assert _first_on_mat(image, [(290.0, 370.0), (100.0, 370.0)]) == [False, True]


def test_a_mat_inside_a_printed_frame_is_the_mat() -> None:
    """A printed frame 30 mm wide all round (another colour) runs along every edge; the mat inside it, closed off from
    the edge, is still the table's plane: it is larger than the frame."""
    image = _green()
    image[:30] = image[-30:] = image[:, :30] = image[:, -30:] = (40.0, 40.0, 40.0)
    assert _first_on_mat(image, [(300.0, 200.0), (100.0, 100.0), (2.0, 200.0)]) == [True, True, True]


def test_a_base_on_a_roof_is_seen_but_not_placed() -> None:
    """The whole detector on a drawn 12 MP photo: a 28 mm base 4 mm tall on a building's flat roof 100 mm up (90 mm
    square, brick red), another on the green mat, a camera 900 mm above the table. Every base is
    measured on the table's plane, where the roof's is seen over 100 mm from where it stands; its ring meets the roof all
    round, a surface closed off inside the table (``ground.floor_regions``), so it is reported seen but not placed
    (``detect.RAISED_MAX_FLOOR_RAYS``: an outline round where the photo shows it), never as a base. The one on the mat
    is a base."""
    import math

    pytest.importorskip("cv2")
    from tabletop.photo.detect import detect
    from tabletop.photo.rectify import rectify
    from tests.test_photo_camera import TABLE, _corners, base_on_a_roof

    cam, image, on_roof, on_mat, roof_z = base_on_a_roof((50, 60, 110))  # brick red (BGR)
    rect = rectify(image, _corners(cam), TABLE, 1.0, camera=cam, base_height_mm=None)  # type: ignore[arg-type]
    bases, unfitted = detect(rect)
    seen = cam.unproject(cam.project(np.array([on_roof]), roof_z), 0.0)[0]
    assert [(round(b.x_mm), round(b.y_mm)) for b in bases if math.hypot(b.x_mm - on_mat[0], b.y_mm - on_mat[1]) < 2.0]
    assert not any(math.hypot(b.x_mm - seen[0], b.y_mm - seen[1]) < 20.0 for b in bases), bases
    assert any(math.hypot(u.x_mm - seen[0], u.y_mm - seen[1]) < 10.0 for u in unfitted), (unfitted, seen)
