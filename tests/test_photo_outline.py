"""The table's outline found unaided (issue 34): a table whose sides the lens bends is followed through that lens; a far
side found on a flood into the wall behind the table, or across the table on the wall's foot, is replaced by the table's
edge where the strip between the two lines says which is the edge; a far side on the wall's foot across the table is
moved out onto the edge beyond it, between the sides' extensions."""

from __future__ import annotations

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

import tabletop.photo.rectify as rectify_module  # noqa: E402
from tabletop.photo.camera import Distortion  # noqa: E402

SIZE = (3000, 2250)
CORNERS_UNDISTORTED = np.array([[300.0, 2120.0], [2700.0, 2120.0], [2420.0, 380.0], [580.0, 380.0]])
"""A table seen from its near edge, filling most of the frame (LL, LR, UR, UL), as a pinhole camera would show it."""
K1 = -0.09
"""A phone lens's barrel, as the generator's ``barrel`` condition (k1 -0.05 to -0.10 per half-diagonal squared)."""


def _barrel_table() -> tuple[np.ndarray, np.ndarray]:
    """A sand mat on a dark floor drawn through a barrel lens: the photo and the table's true corners in it."""
    rng = np.random.default_rng(7)
    w, h = SIZE
    lens = Distortion(((w - 1) / 2, (h - 1) / 2), 0.5 * float(np.hypot(w, h)), K1)
    flat = np.empty((h, w, 3), np.uint8)
    flat[:] = (60, 62, 70)  # the floor (BGR)
    cv2.fillPoly(flat, [np.round(CORNERS_UNDISTORTED * 8).astype(np.int32)], (120, 170, 200), cv2.LINE_AA, 3)
    for x, y in rng.uniform((700, 700), (2300, 1900), (12, 2)):  # bases on the mat
        cv2.circle(flat, (int(x), int(y)), int(rng.uniform(25, 45)), (40, 40, 45), -1, cv2.LINE_AA)
    # Each photo pixel shows the undistorted point the lens moves there.
    grid = np.stack(np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)), axis=-1)
    source = lens.remove(grid).astype(np.float32)
    photo = cv2.remap(flat, source[..., 0], source[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    photo = cv2.GaussianBlur(photo, (0, 0), 1.0)
    photo = np.clip(photo + rng.normal(0.0, 3.0, photo.shape), 0, 255).astype(np.uint8)
    return photo, lens.apply(CORNERS_UNDISTORTED)


def test_a_table_bent_by_the_lens_is_found_through_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """k1 = -0.09 bows each side of a table filling the frame: its middle bulges outwards past the chord between its
    corners. A straight line fitted to the bowed edge lies between the two, so the straight sides meet several pixels
    off the true corners, and their residuals (the bow) sink the fit's confidence below ``TABLE_CONFIDENT``: the photo
    was refused. Measured from those sides, the lens straightens them; refined through it in a search halving from
    ``BENT_SIDE_SEARCH`` of the photo's long side (24 px here) to 8 px, the corners are found within a pixel or two,
    with confidence."""
    photo, truth = _barrel_table()
    fit = rectify_module.find_table(photo)
    err = np.linalg.norm(np.asarray(fit.corners_px) - truth, axis=1)
    assert err.max() <= 2.0, err
    assert fit.confidence >= rectify_module.TABLE_CONFIDENT

    # The straight sides alone (as before): unsure and off.
    monkeypatch.setattr(rectify_module, "follow_bent_sides", lambda image, found: None)
    straight = rectify_module.find_table(photo)
    assert straight.confidence < rectify_module.TABLE_CONFIDENT
    assert np.linalg.norm(np.asarray(straight.corners_px) - truth, axis=1).max() > 4.0


def test_a_straight_table_is_not_followed_through_a_lens() -> None:
    """Sides that do not bend show no lens (``LENS_EVIDENCE``): nothing to follow, and the straight fit stands."""
    rng = np.random.default_rng(3)
    photo = np.empty((SIZE[1], SIZE[0], 3), np.uint8)
    photo[:] = (60, 62, 70)
    cv2.fillPoly(photo, [np.round(CORNERS_UNDISTORTED * 8).astype(np.int32)], (120, 170, 200), cv2.LINE_AA, 3)
    photo = np.clip(cv2.GaussianBlur(photo, (0, 0), 1.0) + rng.normal(0.0, 3.0, photo.shape), 0, 255).astype(np.uint8)
    fit = rectify_module.find_table(photo)
    assert np.linalg.norm(np.asarray(fit.corners_px) - CORNERS_UNDISTORTED, axis=1).max() <= 1.0
    assert rectify_module.follow_bent_sides(photo, fit) is None


def test_the_analysis_of_a_barrel_bent_table_finds_it_unaided() -> None:
    """The whole unaided analysis of the drawn barrel-bent table: its outline found within 2 px (refused before:
    "could not find the table's outline with confidence"), not doubted, and the photo undistorted through the lens."""
    from tabletop.photo.pipeline import analyse_image
    from tabletop.photo.values import LoadedImage

    photo, truth = _barrel_table()
    result = analyse_image(LoadedImage(photo, "barrel-bent.jpg", SIZE), (1219.2, 914.4), base_height_mm=0.0)
    assert np.linalg.norm(np.asarray(result.corners_px) - truth, axis=1).max() <= 2.0
    assert result.table_confidence >= rectify_module.TABLE_CONFIDENT
    assert not any("doubtful" in note for note in result.notes), result.notes
    assert any("bent by the lens" in note for note in result.notes), result.notes


def test_an_outline_found_unaided_is_followed_through_a_calibrated_lens(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the phone's lens given (``--camera``), an outline found unaided as straight lines is refined through it,
    as through a lens measured on the sides: a straight fit whose corners lie 4 px out (what straight lines fitted to a
    mildly bowed edge give) comes back to the table's corners. Before, a given lens skipped that step, and the corners
    stayed where the straight fit put them (a generator photo: 5.7 px off with its own true lens, 0.4 px without)."""
    import tabletop.photo.pipeline as pipeline_module
    from tabletop.photo.camera import LensFile
    from tabletop.photo.values import LoadedImage, TableFit

    photo, truth = _barrel_table()
    w, h = SIZE
    centre = ((w - 1) / 2, (h - 1) / 2)
    lens = Distortion(centre, 0.5 * float(np.hypot(w, h)), K1)
    focal = 0.8 * w
    k1, k2 = lens.opencv(focal)
    outward = truth + 4.0 * (truth - truth.mean(axis=0)) / np.linalg.norm(truth - truth.mean(axis=0), axis=1)[:, None]
    off = tuple((float(x), float(y)) for x, y in outward)
    monkeypatch.setattr(pipeline_module, "find_table",
                        lambda image: TableFit((off[0], off[1], off[2], off[3]), 0.9, (1.0,) * 4, (0.5,) * 4))
    result = pipeline_module.analyse_image(LoadedImage(photo, "barrel-bent.jpg", SIZE), (1219.2, 914.4), base_height_mm=0.0,
                                           lens_file=LensFile(SIZE, focal, centre, k1, k2, 0.1, 10))
    assert np.linalg.norm(np.asarray(result.corners_px) - truth, axis=1).max() <= 1.5


# The far side replaced (``rectify._far_side_replaced``): on the downscaled copy find_table segments (900 px wide).
SMALL = (900, 675)
TABLE_SMALL = np.array([[100.0, 600.0], [800.0, 600.0], [650.0, 250.0], [250.0, 250.0]])
"""A table on the downscaled copy (LL, LR, UR, UL), its far edge at y = 250."""


def _far_at(y: float) -> np.ndarray:
    """``TABLE_SMALL`` with its far side moved to height ``y`` along its left and right sides."""
    quad = TABLE_SMALL.copy()
    for far, near in ((2, 1), (3, 0)):
        t = (TABLE_SMALL[near, 1] - y) / (TABLE_SMALL[near, 1] - TABLE_SMALL[far, 1])
        quad[far] = TABLE_SMALL[near] + t * (TABLE_SMALL[far] - TABLE_SMALL[near])
    return quad


def _room_and_table(wall: tuple[int, int, int], floor_to: int = 250) -> np.ndarray:
    """A blue-grey mat on the table, a wall of colour ``wall`` above y = ``floor_to`` and a brown floor below it."""
    image = np.empty((SMALL[1], SMALL[0], 3), np.uint8)
    image[:] = (70, 90, 120)  # the floor (BGR)
    image[:floor_to] = wall
    cv2.fillPoly(image, [np.round(TABLE_SMALL).astype(np.int32)], (175, 160, 150))
    return image


def test_a_far_side_found_on_a_flood_into_the_wall_is_replaced_by_the_edge_with_wall_between() -> None:
    """A wall of nearly the mat's colour behind the table: the segmentation floods into it and its far side lies 100 px
    up the wall. The strongest edge near it, the table's far edge, has wall between it and the side found (the strip is
    nearer the room's colour beyond the side than the mat's): it is the edge. A line inside the table (a terrain edge,
    a row of bases) with mat between it and a right far side is not."""
    image = _room_and_table((185, 175, 170))
    region = np.zeros(image.shape[:2], np.uint8)
    assert rectify_module._wall_between(image, region, _far_at(150.0), TABLE_SMALL)
    assert not rectify_module._wall_between(image, region, TABLE_SMALL, _far_at(330.0))
    # Lines crossing between the corners say nothing.
    crossing = TABLE_SMALL.copy()
    crossing[2, 1] -= 40.0
    crossing[3, 1] += 40.0
    assert not rectify_module._wall_between(image, region, crossing, TABLE_SMALL)
    # A wall of the mat's own colour: the strip is like both, and says nothing (``WALL_MIN_CONTRAST``).
    same = _room_and_table((175, 160, 150))
    assert not rectify_module._wall_between(same, region, _far_at(150.0), TABLE_SMALL)
    assert not rectify_module._wall_between(same, np.ones_like(region), TABLE_SMALL, _far_at(200.0))


def test_a_far_side_found_across_the_table_is_replaced_by_the_edge_beyond_it() -> None:
    """The wall's foot seen either side of the table is one straight run of the segmentation's outline, taken for the
    far side though it crosses the table 45 px in front of its far edge: the strip between it and the edge beyond is
    mat, and the segmented region (table and a flood into the wall) goes on beyond it. The edge replaces it. A right
    far side where the flood stopped (the region ends there) is not replaced by a line further out, even where the
    strip between (a floor seen behind the table) is nearer the mat's colour than the wall beyond."""
    image = _room_and_table((235, 235, 235), floor_to=200)
    flooded = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(flooded, [np.round(TABLE_SMALL).astype(np.int32)], 1)
    flooded[60:295, 80:820] = 1  # the flood into the wall, past the foot of it (y = 295) across the table
    assert rectify_module._wall_between(image, flooded, _far_at(295.0), TABLE_SMALL)

    stopped = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(stopped, [np.round(TABLE_SMALL).astype(np.int32)], 1)
    assert not rectify_module._wall_between(image, stopped, TABLE_SMALL, _far_at(200.0))


def _wall_foot_across(wall: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A table before a wall of colour ``wall`` whose foot (y = 295) is seen either side of it, 45 px in front of its far
    edge, and a segmentation that flooded the table and the wall above that foot (to y = 60)."""
    image = _room_and_table(wall, floor_to=295)
    flooded = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(flooded, [np.round(TABLE_SMALL).astype(np.int32)], 1)
    flooded[60:295, 80:820] = 1
    return image, flooded


def test_a_far_side_on_the_walls_foot_is_moved_out_onto_the_edge_beyond_it() -> None:
    """The far side found on the wall's foot across the table: between the extensions of the two sides, inside the
    flood, the strongest wall-to-mat step is the table's far edge (y = 250), the strip between it and the side found is
    mat, and the region goes on beyond the side found: the far side moves out onto the edge, the rest unchanged."""
    image, flooded = _wall_foot_across((235, 235, 235))
    moved = rectify_module._far_side_beyond(image, _far_at(295.0), flooded)
    assert moved is not None
    quad, evidence = moved
    # Within the search the full photo is refined in (five of these pixels either side).
    assert np.linalg.norm(rectify_module._order_corners(quad) - TABLE_SMALL, axis=1).max() <= 3.0
    assert evidence > 0.5


def test_a_right_far_side_is_not_moved_beyond_itself() -> None:
    """A far side on the table's edge: where the flood stopped there nothing lies beyond it to look in; where it flooded
    the wall beyond, no line there steps from the wall to the mat (the wall is one colour), or the strip between is wall,
    not mat. And a wall of the mat's own colour says nothing (``WALL_MIN_CONTRAST``)."""
    image, _ = _wall_foot_across((235, 235, 235))
    stopped = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(stopped, [np.round(TABLE_SMALL).astype(np.int32)], 1)
    assert rectify_module._far_side_beyond(image, TABLE_SMALL, stopped) is None
    wall_flooded = stopped.copy()
    wall_flooded[60:250, 80:820] = 1
    plain = cv2.GaussianBlur(_room_and_table((235, 235, 235)), (0, 0), 2.0)
    assert rectify_module._far_side_beyond(plain, TABLE_SMALL, wall_flooded) is None
    same, flooded = _wall_foot_across((175, 160, 150))
    assert rectify_module._far_side_beyond(same, _far_at(295.0), flooded) is None
