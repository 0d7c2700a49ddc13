"""Stop 45's photo work attacked as a hostile user would: the marker pieces' home check (``markers._home_gaps``,
``kept_not_home``) with pieces a few millimetres short, edges hidden, and lines or a front face beside pieces that are
home; the table's plane as every surface running along its edge (``ground.ground_map``) under a roof or a long hill at
the edge. Real defects are pinned as strict xfails whose reasons give the numbers measured (the day one is fixed, its
xfail must go); what holds is a normal test. Every photo is drawn here (the markers' drawn table of
``tests/test_photo_markers.py``; ground maps at 1 px/mm as in ``tests/test_hostile_photo44.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tabletop.photo import markers as mk  # noqa: E402
from tests.test_photo_ground import _first_on_mat  # noqa: E402
from tests.test_photo_markers import _TURNS, TABLE, _camera, _photo_of_pieces  # noqa: E402

# ------------------------------------------------------------------------------------------- the marker pieces' check

SIZE = (1800, 1350)
CAM = _camera(SIZE, -0.04)
TRUTH = CAM.project(mk.table_corners_mm(TABLE), 0.0)
W, H = TABLE


def _rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """A rectangle's outline in table mm, 50 points a side (so the lens bends its image)."""
    t = np.linspace(0.0, 1.0, 50)
    return np.concatenate([np.stack([x0 + (x1 - x0) * t, np.full(50, y0)], 1), np.stack([np.full(50, x1), y0 + (y1 - y0) * t], 1),
                           np.stack([x1 + (x0 - x1) * t, np.full(50, y1)], 1), np.stack([np.full(50, x0), y1 + (y0 - y1) * t], 1)])


def _paint(photo: np.ndarray, outline_mm: np.ndarray, grey: float) -> np.ndarray:
    """``photo`` with the table-plane polygon ``outline_mm`` filled with ``grey`` (drawn 8 times finer, averaged down)."""
    w, h = SIZE
    px = CAM.project(outline_mm, 0.0)
    fine = np.zeros((h * 8, w * 8), np.uint8)
    cv2.fillPoly(fine, [np.round((px + 0.5) * 8 - 0.5).astype(np.int32)], 255)
    a = cv2.resize(fine.astype(np.float32) / 255, (w, h), interpolation=cv2.INTER_AREA)
    return np.clip(photo * (1 - a) + grey * a, 0, 255).astype(np.uint8)


def _errors(fit: mk.MarkerFit) -> tuple[np.ndarray, np.ndarray]:
    assert fit.corners_px is not None and fit.corner_sigma_px is not None
    return np.linalg.norm(np.asarray(fit.corners_px) - TRUTH, axis=1), np.asarray(fit.corner_sigma_px)


def _no_sure_wrong_corner(fit: mk.MarkerFit) -> None:
    """The guide's rule for a corner: off by over a pixel only if called unsure, and within three of its sigmas."""
    err, sigma = _errors(fit)
    sure_and_off = (err > 1.0) & (sigma <= mk.UNSURE_CORNER_PX)
    assert not sure_and_off.any() and np.all(err < 3 * sigma + 0.5), (np.round(err, 2), np.round(sigma, 2), fit.note())


def test_a_dark_ruler_or_line_beside_home_pieces_leaves_them_home() -> None:
    """Holds: a dark ruler on the mat 10-30 mm inside the far edge, a tape measure on the floor 5-24 mm outside it and a
    dark line 5-8 mm inside it: no home piece is judged not home, every corner within 0.3 px at its sure sigma (measured
    0.03-0.21 px; the line inside gives gaps of -2.4 px, outside the table, which the check does not flag)."""
    base = _photo_of_pieces(CAM, _TURNS, SIZE, floor=True)
    for outline, grey in ((_rect(150, H - 30, W - 150, H - 10), 20), (_rect(200, H + 5, W - 100, H + 24), 20),
                          (_rect(100, H - 8, W - 100, H - 5), 15)):
        fit = mk.table_from_markers(_paint(base, outline, grey), TABLE)
        assert fit is not None and fit.not_home == () and fit.kept_not_home == () and fit.seen == (0, 1, 2, 3)
        err, sigma = _errors(fit)
        assert err.max() < 0.3 and sigma.max() < mk.UNSURE_CORNER_PX, (err, sigma)
        assert "may not be in its corner" not in fit.note() and "is not in its corner" not in fit.note()


@pytest.mark.xfail(strict=True, reason=(
    "A light front face (grey 200) showing 3-25 mm below the near edge, all four pieces home: both near pieces are judged "
    "not home (the face's foot taken for the near edge running on past them) and, two left being too few, kept with "
    "every corner's sigma widened to 3.1 px; the corners are right (0.01-0.05 px off) but all four are called unsure and "
    "the note asks to push home two pieces that are home"))
def test_a_light_front_face_below_the_near_edge_leaves_home_pieces_home() -> None:
    fit = mk.table_from_markers(_paint(_photo_of_pieces(CAM, _TURNS, SIZE, floor=True), _rect(-30, -25, W + 30, -3), 200), TABLE)
    assert fit is not None and fit.not_home == () and fit.kept_not_home == ()


def test_a_light_front_face_below_the_near_edge_gives_no_sure_wrong_corner() -> None:
    """Holds, though the pieces are wrongly doubted (the xfail above): the corners are right and, the pieces doubted,
    called unsure (measured 0.01-0.05 px off, sigma 3.1 px), not wrong and sure; the note names the two pieces. Breaks if
    kept pieces' gaps stopped widening the sigmas, or if doubted pieces were dropped (two left: no corners)."""
    fit = mk.table_from_markers(_paint(_photo_of_pieces(CAM, _TURNS, SIZE, floor=True), _rect(-30, -25, W + 30, -3), 200), TABLE)
    assert fit is not None and fit.kept_not_home == (0, 1)
    _no_sure_wrong_corner(fit)
    assert np.all(_errors(fit)[1] > mk.UNSURE_CORNER_PX)
    assert "the lower-left piece may not be in its corner" in fit.note()


@pytest.mark.parametrize("moved", [(-3.0, 0.0), (-4.0, 0.0), (0.0, -4.0), (-3.0, -3.0)])
def test_a_piece_a_few_millimetres_short_gives_no_sure_wrong_corner(moved: tuple[float, float]) -> None:
    """The upper-right piece 3-4 mm short of its corner, all four seen: the gap beyond it (1.4-2.7 px) is under HOME_SIGMAS
    of its sigma, so the piece is kept; before stop 45's last change its corner came out sure and wrong (3 mm along 2.01 px
    off at sigma 0.18 px; 4 mm along 2.68 px at 0.18). A gap over its own sigma now widens every corner's sigma."""
    fit = mk.table_from_markers(_photo_of_pieces(CAM, _TURNS, SIZE, floor=True, moved={2: moved}), TABLE)
    assert fit is not None
    _no_sure_wrong_corner(fit)


def test_a_piece_three_millimetres_short_among_three_seen_gives_no_sure_wrong_corner() -> None:
    """Three seen, the upper-right piece 3 mm short along the far edge: before, its corner 2.05 px off at sigma 0.19 px and
    the hidden one 1.65 px off at 0.72, both called sure; now every corner carries the gap."""
    fit = mk.table_from_markers(_photo_of_pieces(CAM, _TURNS, SIZE, floor=True, hide=(1,), moved={2: (-3.0, 0.0)}), TABLE)
    assert fit is not None
    _no_sure_wrong_corner(fit)


@pytest.mark.slow
@pytest.mark.cpu
@pytest.mark.timeout(600)  # a 12 MP render
def test_a_generator_piece_three_millimetres_short_in_a_half_size_photo_gives_no_sure_wrong_corner(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """benchmarks.photogen's markers seed 1, the upper-right piece 3 mm short along the far edge, the photo halved to
    2016 x 1512: the gap (2.71 px over a sigma of 1.02) is under HOME_SIGMAS, and before, that corner was 2.58 px off at
    sigma 0.21 px (12 sigmas), the note silent. Now every corner carries the gap."""
    import dataclasses

    photogen = pytest.importorskip("benchmarks.photogen.generate")
    scene = pytest.importorskip("benchmarks.photogen.scene")
    laid = scene._markers

    def short_of_corner(params, rng):  # noqa: ANN001, ANN202
        found = list(laid(params, rng))
        found[2] = dataclasses.replace(found[2], centre=(found[2].centre[0] - 3.0, found[2].centre[1]))
        return tuple(found)

    monkeypatch.setattr(scene, "_markers", short_of_corner)
    photo = photogen.render_photo("markers", 1)
    half = cv2.resize(photo.image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    fit = mk.table_from_markers(half, tuple(photo.truth["table_mm"]))
    assert fit is not None and fit.corners_px is not None and fit.corner_sigma_px is not None
    truth = (np.asarray(photo.truth["corners_px"]) + 0.5) * 0.5 - 0.5
    err = np.linalg.norm(np.asarray(fit.corners_px) - truth, axis=1)
    sigma = np.asarray(fit.corner_sigma_px)
    assert not np.any((err > 1.0) & (sigma <= mk.UNSURE_CORNER_PX)), (err, sigma, fit.note())


def test_a_piece_short_with_one_side_beyond_it_hidden_is_still_found() -> None:
    """Holds: the upper-right piece 8 mm short along the far edge, the far edge beyond it under terrain (a grey block):
    the right side still shows its edge running on past the corner point, so the piece is left out and its corner placed
    from the others (measured 0.05 px off, sigma 0.77 px)."""
    photo = _photo_of_pieces(CAM, _TURNS, SIZE, floor=True, moved={2: (-8.0, 0.0)})
    fit = mk.table_from_markers(_paint(photo, _rect(W - 400, H - 60, W - 80, H + 40), 150), TABLE)
    assert fit is not None and fit.not_home == (2,)
    _no_sure_wrong_corner(fit)
    assert "the upper-right piece is not in its corner" in fit.note()


@pytest.mark.parametrize("moved", [(-8.0, 0.0), (0.0, -8.0)])
@pytest.mark.xfail(strict=True, reason=(
    "The upper-right piece 8 mm short (along the far edge, or in from it), both sides beyond it under terrain (grey "
    "blocks over the far edge 80-400 mm from the corner and the right edge 80-400 mm): no gap is measured, the piece is "
    "trusted and its corner comes out sure and wrong: 5.48 px off at sigma 0.19 px (along), 4.19 px at 0.19 (in). The "
    "note now says that piece's place could not be checked (the test below), but its sigma is not widened: on the markers "
    "benchmark's cut photos 17 home pieces (13 photos) had no side judged, their corners sure and right, and a sigma for "
    "a shortfall nothing measures would call them all unsure (docs/photo.md, stop 46)"))
def test_a_piece_short_with_both_sides_beyond_it_hidden_gives_no_sure_wrong_corner(moved: tuple[float, float]) -> None:
    fit = mk.table_from_markers(_short_piece_both_sides_hidden(moved), TABLE)
    assert fit is not None
    _no_sure_wrong_corner(fit)


def _short_piece_both_sides_hidden(moved: tuple[float, float]) -> np.ndarray:
    photo = _photo_of_pieces(CAM, _TURNS, SIZE, floor=True, moved={2: moved})
    return _paint(_paint(photo, _rect(W - 400, H - 60, W - 80, H + 40), 150), _rect(W - 60, H - 400, W + 40, H - 80), 150)


def test_a_piece_whose_place_nothing_checks_is_named_in_the_note() -> None:
    """The upper-right piece 8 mm short along the far edge, both sides beyond it under terrain: no side is judged beside
    it, so the note names it as not checked (its corner is still trusted: the strict xfail above); the other three, each
    with a side judged, are not named."""
    fit = mk.table_from_markers(_short_piece_both_sides_hidden((-8.0, 0.0)), TABLE)
    assert fit is not None and fit.unchecked_home == (2,) and 2 not in {g[0] for g in fit.home_gaps}
    assert "the upper-right piece's place could not be checked" in fit.note()
    assert "lower-left piece's place" not in fit.note()


# ------------------------------------------------------------------------------------------------- the table's plane


def _green_mat() -> np.ndarray:
    return np.broadcast_to(np.array((70.0, 110.0, 80.0)), (600, 900, 3)).copy()  # 900 x 600 mm, green felt


def test_a_roof_in_the_tables_corner_touching_two_edges_is_not_the_mat() -> None:
    """Holds: a building's roof (130 x 130 mm, brick red) in the far-left corner touches the far edge over 130 mm and the
    left edge over 130 mm; each stretch is short of ``EDGE_RUN_MM`` (the two are not added), so it is raised. Breaks if
    the run needed were 120 mm."""
    image = _green_mat()
    image[0:130, 0:130] = (50.0, 60.0, 110.0)
    assert _first_on_mat(image, [(60.0, 540.0), (400.0, 300.0)]) == [False, True]


def test_a_long_roof_against_the_far_edge_is_not_the_mat() -> None:
    """A long building (a barracks, 220 x 70 mm roof, brick red) against the far edge: its roof runs 220 mm along the
    edge, over ``EDGE_RUN_MM`` (150 mm), and was taken for the table's plane (as a printed road is), so bases on it passed
    the ground test (a strict xfail at stop 45). It meets one side of the table only, over a quarter of it
    (``ground.ONE_SIDE_SHARE``): raised."""
    image = _green_mat()
    image[0:70, 300:520] = (50.0, 60.0, 110.0)
    assert _first_on_mat(image, [(400.0, 570.0), (100.0, 300.0)]) == [False, True]


def test_a_printed_band_along_most_of_one_side_is_the_tables_plane() -> None:
    """Holds: a printed shore (70 mm deep, 600 of the far edge's 900 mm, sand on green) meets one side only, but along
    two thirds of it: a print, the table's plane (a base on the sand has ground)."""
    image = _green_mat()
    image[0:70, 150:750] = (120.0, 170.0, 200.0)
    assert _first_on_mat(image, [(400.0, 570.0), (100.0, 300.0)]) == [True, True]


def test_a_short_roof_against_the_far_edge_is_not_the_mat() -> None:
    """Holds (the same roof 140 mm long, under ``EDGE_RUN_MM``): raised; the mat beside it is the mat."""
    image = _green_mat()
    image[0:70, 300:440] = (50.0, 60.0, 110.0)
    assert _first_on_mat(image, [(360.0, 570.0), (100.0, 300.0)]) == [False, True]


# --------------------------------------------------------------------------------- phantoms on a mat printed with rings


def _printed_rings_photo(quality: int) -> tuple[np.ndarray, tuple[tuple[float, float], ...]]:
    """A 4000 x 3000 photo (a camera 900 mm up, 500 mm before the near edge, f 2900 px: 0.4-0.85 mm of table per pixel)
    of a green mat printed on a 110 mm grid with dark rings 25 mm across (1.5 mm lines) and light rings 32 mm across
    (2 mm lines), with 24 mm coins (2 mm thick) and 16 mm dice between them; noise, blur, JPEG at ``quality``."""
    import math

    from tests.test_photo_camera import _fill_envelope, _look_at

    from tabletop.photo.camera import Camera, Distortion

    size, f = (4000, 3000), 2900.0
    r, t = _look_at(np.array([609.6, -500.0, 900.0]), np.array([W / 2, H / 2, 0.0]))
    c = ((size[0] - 1) / 2, (size[1] - 1) / 2)
    cam = Camera(f, c, r, t, Distortion.from_opencv(0.0, 0.0, f, c, 0.5 * math.hypot(*size)))
    mat = (70, 120, 80)
    img = np.empty((size[1], size[0], 3), np.uint8)
    img[:] = (40, 40, 40)
    quad = np.array([[0, 0], [W, 0], [W, H], [0, H]], float)
    _fill_envelope(img, cam.project(quad, 0.0), mat)
    rng = np.random.default_rng(3)
    around = np.radians(np.arange(0, 360, 1.0))
    unit = np.column_stack([np.cos(around), np.sin(around)])
    for i, x in enumerate(np.arange(100, W - 60, 110)):
        for j, y in enumerate(np.arange(90, H - 60, 110)):
            kind = (i + 2 * j) % 4
            if kind in (0, 1):
                radius, line, ink = (12.5, 1.5, (30, 50, 35)) if kind == 0 else (16.0, 2.0, (120, 160, 170))
                _fill_envelope(img, cam.project(unit * radius + (x, y), 0.0), ink)
                _fill_envelope(img, cam.project(unit * (radius - line) + (x, y), 0.0), mat)
            elif kind == 2:
                for z in np.linspace(0, 2.0, 4):
                    _fill_envelope(img, cam.project(unit * 12.0 + (x, y), z), (90, 95, 100))
                _fill_envelope(img, cam.project(unit * 12.0 + (x, y), 2.0), (170, 175, 180))
            else:
                a = math.radians(rng.uniform(0, 90))
                sq = np.array([[-8.0, -8.0], [8.0, -8.0], [8.0, 8.0], [-8.0, 8.0]]) @ np.array(
                    [[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
                for z in np.linspace(0, 16, 6):
                    _fill_envelope(img, cam.project(sq + (x, y), z), (150, 150, 150))
                _fill_envelope(img, cam.project(sq + (x, y), 16), (235, 235, 235))
    img = cv2.GaussianBlur(np.clip(img + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8), (0, 0), 1.0)
    img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)
    return img, tuple((float(u), float(v)) for u, v in cam.project(quad, 0.0))


def test_rings_printed_on_the_mat_are_no_confident_bases() -> None:
    """Was a strict xfail (stop 45): on a mat printed with thin rings of base sizes (JPEG 92), three printed rings near
    the near edge were CONFIDENT bases (at (100, 90) 25 mm, (650, 90) 32 mm and (320, 200) 25 mm, sigmas 0.21-0.22 mm):
    a line's two opposite steps taken for a base's one. Holds since stop 46: a printed ring's band has the mat inside it
    and is as wide towards the camera as away from it (``uncertainty.flat_rings``). Breaks if ``detect.report_bases`` did
    not call ``uncertainty.unsure_if_flat``."""
    from tabletop.photo import pipeline
    from tabletop.photo.values import LoadedImage

    img, corners = _printed_rings_photo(92)
    result = pipeline.analyse_image(LoadedImage(img, "rings.jpg", (img.shape[1], img.shape[0])), TABLE, corners)
    confident = [(round(b.x_mm), round(b.y_mm), b.diameter_mm) for b in result.bases if b.confident]
    assert confident == []


def _rings_and_raised_bases_photo() -> tuple[np.ndarray, tuple[tuple[float, float], ...], list[tuple[float, float]],
                                              list[tuple[float, float]]]:
    """The ring photo's camera over a green mat with, on a 110 mm grid, dark rings 25 mm across (1.5 mm lines) printed
    on it, and 25 mm bases 4 mm tall drawn in the same ink, their tops of the mat's colour inside a 1.5 mm rim band of
    the ink: the same colours as the rings, but raised. Returns the photo, its corners, the rings' and the bases'
    centres (mm)."""
    import math

    from tests.test_photo_camera import _fill_envelope, _look_at

    from tabletop.photo.camera import Camera, Distortion

    size, f = (4000, 3000), 2900.0
    r, t = _look_at(np.array([609.6, -500.0, 900.0]), np.array([W / 2, H / 2, 0.0]))
    c = ((size[0] - 1) / 2, (size[1] - 1) / 2)
    cam = Camera(f, c, r, t, Distortion.from_opencv(0.0, 0.0, f, c, 0.5 * math.hypot(*size)))
    mat, ink = (70, 120, 80), (30, 50, 35)
    img = np.empty((size[1], size[0], 3), np.uint8)
    img[:] = (40, 40, 40)
    quad = np.array([[0, 0], [W, 0], [W, H], [0, H]], float)
    _fill_envelope(img, cam.project(quad, 0.0), mat)
    around = np.radians(np.arange(0, 360, 1.0))
    unit = np.column_stack([np.cos(around), np.sin(around)])
    rings: list[tuple[float, float]] = []
    raised: list[tuple[float, float]] = []
    for i, x in enumerate(np.arange(100, W - 60, 110)):
        for j, y in enumerate(np.arange(90, H - 300, 110)):
            if (i + j) % 2 == 0:
                _fill_envelope(img, cam.project(unit * 12.5 + (x, y), 0.0), ink)
                _fill_envelope(img, cam.project(unit * 11.0 + (x, y), 0.0), mat)
                rings.append((float(x), float(y)))
            else:
                for z in np.linspace(0, 4.0, 6):
                    _fill_envelope(img, cam.project(unit * 12.5 + (x, y), z), ink)
                _fill_envelope(img, cam.project(unit * 11.0 + (x, y), 4.0), mat)
                raised.append((float(x), float(y)))
    rng = np.random.default_rng(5)
    img = cv2.GaussianBlur(np.clip(img + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8), (0, 0), 1.0)
    img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])[1], cv2.IMREAD_COLOR)
    return img, tuple((float(u), float(v)) for u, v in cam.project(quad, 0.0)), rings, raised


def test_a_printed_ring_is_flat_and_a_raised_base_of_the_same_colours_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """A printed ring and a raised base with a top of the mat's colour inside a rim band of the ring's ink look alike in
    colour; only the raised one's band is wider towards the camera (its side face) than away from it. Measured: the
    rings' cosine terms -0.14 to +0.08 mm, the bases' -1.3 to -3.3 mm (their tops' shift 2.3-4.5 mm): every ring flat,
    no raised base. Breaks if the band's width were not compared towards and away from the camera (every band with the
    mat inside would be flat)."""
    from tabletop.photo import base_profile, detect, pipeline
    from tabletop.photo.candidates import candidate_px_per_mm
    from tabletop.photo.uncertainty import flat_rings
    from tabletop.photo.values import LoadedImage

    img, corners, rings, raised = _rings_and_raised_bases_photo()
    seen: dict = {}
    real_detect = pipeline.detect

    def keep_rect(rect, sizes):  # noqa: ANN001, ANN202
        seen["rect"] = rect
        return real_detect(rect, sizes)

    monkeypatch.setattr(pipeline, "detect", keep_rect)
    pipeline.analyse_image(LoadedImage(img, "rings.jpg", (img.shape[1], img.shape[0])), TABLE, corners)
    rect = seen["rect"]
    trace: dict = {}
    detect.detect_bases(rect, trace=trace)
    mat = trace["mat"]
    centres = np.array(rings + raised)
    s = candidate_px_per_mm(rect)
    colours = mat.at(np.column_stack([centres[:, 0] * s, (H - centres[:, 1]) * s]), np.zeros(len(centres)))
    radii = np.full(len(centres), 12.5)
    flat = flat_rings(rect, centres, radii, colours, mat.whiten, base_profile(2 * radii)[0])
    assert flat[:len(rings)].all() and not flat[len(rings):].any()


# ----------------------------------------------------------------------------------- the lens from three wide sides

LENS_CORNERS = ((200.0, 1050.0), (1400.0, 1050.0), (1220.0, 300.0), (380.0, 300.0))


def _straight_table_beside_a_bowed_line(sides: str) -> np.ndarray:
    """A 1600 x 1200 photo with NO lens: a straight-sided table (grey 120 on a floor of 95, its cut edge ragged by 1 px
    RMS, as a frayed cloth's) and, on the floor outside it along the named ``sides`` (l: left, f: far, r: right), a dark
    line 6 px wide round a copy of the table 6 % larger, bowed as a barrel lens (k -0.06 of the half-diagonal) would bow
    it: a rug's border or a curved shelf's edge."""
    w, h = 1600, 1200
    rng = np.random.default_rng(0)
    q = np.array(LENS_CORNERS)
    middle = q.mean(axis=0)
    c, r = np.array([(w - 1) / 2, (h - 1) / 2]), 0.5 * np.hypot(w, h)

    def along(a: np.ndarray, b: np.ndarray, n: int = 400) -> np.ndarray:
        return a + np.linspace(0.0, 1.0, n)[:, None] * (b - a)

    def coverage(draw) -> np.ndarray:  # noqa: ANN001
        fine = np.zeros((h * 8, w * 8), np.uint8)
        draw(fine)
        return cv2.resize(fine.astype(np.float32) / 255, (w, h), interpolation=cv2.INTER_AREA)

    img = np.full((h, w), 95.0, np.float32)
    big = middle + (q - middle) * 1.06
    parts = {"l": along(big[0], big[3]), "f": along(big[3], big[2]), "r": along(big[2], big[1])}
    if sides:
        line = np.concatenate([parts[s] for s in sides])
        d = line - c
        line = c + d * (1 - 0.06 * (d ** 2).sum(axis=1, keepdims=True) / r ** 2)
        a = coverage(lambda fine: cv2.polylines(fine, [np.round((line + 0.5) * 8 - 0.5).astype(np.int32)], False, 255, 48))
        img = img * (1 - a) + 15 * a
    t = np.linspace(0.0, 1.0, 300, endpoint=False)[:, None]
    outline = np.concatenate([q[j] + t * (q[(j + 1) % 4] - q[j]) for j in range(4)])
    outward = (outline - middle) / np.linalg.norm(outline - middle, axis=1, keepdims=True)
    outline = outline + outward * rng.normal(0.0, 1.0, (len(outline), 1))
    a = coverage(lambda fine: cv2.fillPoly(fine, [np.round((outline + 0.5) * 8 - 0.5).astype(np.int32)], 255))
    img = cv2.GaussianBlur(img * (1 - a) + 120 * a, (0, 0), 0.8) + rng.normal(0.0, 2.0, (h, w))
    return cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)


@pytest.mark.parametrize("sides", ["", "f", "lf"])
def test_a_straight_table_with_one_or_two_sides_beside_a_bowed_line_is_given_no_lens(sides: str) -> None:
    """Holds: no line, or the bowed line beside the far side, or the left and far sides: the lens is none (measured:
    straightness 0.70-0.75 px, k1 sigma 0.003-0.005). Breaks if LENS_EVIDENCE were 0 (any bend read as a lens)."""
    from tabletop.photo.rectify import measure_lens

    lens, _, _ = measure_lens(_straight_table_beside_a_bowed_line(sides), LENS_CORNERS, None)  # type: ignore[arg-type]
    assert lens.identity


def test_a_straight_table_with_three_sides_beside_a_bowed_line_is_given_no_lens() -> None:
    """A table with NO lens, its three sides but the near one beside a dark line bowed as a barrel lens would bow them
    (drawn round a copy of the table 6 % larger, on the floor): the wide band follows the line on all three, the narrow
    band keeps the table's ragged edge (0.75 px RMS, k1 0.0007), and the three bowed sides straighten to 0.075 px and
    contradict it. Before ``SIDE_THROUGH_CORNERS`` their lens was used: k1 -0.061 at a sigma of 0.0008 (79 sigmas),
    points 100 mm inside the table moved 6.5-8.9 mm. The bowed sides run 8-21 px clear of the table's corners."""
    from tabletop.photo.rectify import measure_lens

    lens, _, _ = measure_lens(_straight_table_beside_a_bowed_line("lfr"), LENS_CORNERS, None)  # type: ignore[arg-type]
    assert lens.identity


# ------------------------------------------------------------------- the unaided far side moved out (_far_side_beyond)


def _flooded_room(image: np.ndarray) -> np.ndarray:
    """The segmentation of ``tests/test_photo_outline.py``'s wall-foot photos: the table, and a flood up the wall
    behind it (y 60-295 of the 900 x 675 copy)."""
    from tests.test_photo_outline import TABLE_SMALL

    flooded = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(flooded, [np.round(TABLE_SMALL).astype(np.int32)], 1)
    flooded[60:295, 80:820] = 1
    return flooded


def test_a_right_far_side_is_not_moved_onto_a_poster_or_a_shelf_line() -> None:
    """Holds: the far side found on the table's far edge (y = 250), the flood up the white wall behind: a poster of the
    mat's very colour 15 px up the wall (wall between), or a dark shelf line across the wall (y = 200), does not take
    it; and a far side on the wall's foot (y = 295) with that poster above is moved onto the table's edge (within 3 px),
    not onto the poster. Breaks if ``_wall_between`` said yes to every strip."""
    import tabletop.photo.rectify as rectify_module
    from tests.test_photo_outline import TABLE_SMALL, _far_at, _room_and_table

    mat = np.array((175, 160, 150), np.uint8)
    room = _room_and_table((235, 235, 235), floor_to=250)
    poster = room.copy()
    poster[150:236, 150:750] = mat
    shelf = room.copy()
    shelf[198:204, 80:820] = (40, 40, 40)
    for image in (poster, shelf):
        assert rectify_module._far_side_beyond(image, TABLE_SMALL, _flooded_room(image)) is None
    foot = _room_and_table((235, 235, 235), floor_to=295)
    foot[150:236, 150:750] = mat
    moved = rectify_module._far_side_beyond(foot, _far_at(295.0), _flooded_room(foot))
    assert moved is not None
    assert np.linalg.norm(rectify_module._order_corners(moved[0]) - TABLE_SMALL, axis=1).max() <= 3.0


@pytest.mark.parametrize("behind, fold", [((120, 110, 105), False), ((150, 140, 135), False), ((175, 160, 150), True)],
                         ids=["50-darker", "20-darker", "draped-with-fold"])
def test_a_right_far_side_is_not_moved_onto_a_second_table_behind(behind: tuple[int, int, int], fold: bool) -> None:
    """The far side found RIGHT on the table's far edge (y = 250 of the 900 px copy), the flood gone on up the wall,
    and a second table right behind it (a mat 20 or 50 grey levels darker, y 150-250, the table's width), or the mat
    draped up the wall with a fold line 60 levels darker at the true edge: before ``_line_contrast`` the far side was
    moved 100 px out onto the second table's far edge (far corners (606, 148), (292, 153)) with evidence 1.0, the table
    a third deeper than it is. The side found stands out (the colour steps across it: 35 and 87 against the wall's edge's
    162 and 213; the fold on it: 60), a line across the mat does not (the generator's photos whose far side moved:
    0.02-0.12 of the edge's step). Breaks if the side found's contrast were not compared."""
    import tabletop.photo.rectify as rectify_module
    from tests.test_photo_outline import TABLE_SMALL, _room_and_table

    image = _room_and_table((235, 235, 235), floor_to=250)
    image[150:250, 150:750] = behind
    if fold:
        image[248:252, 150:750] = (115, 100, 90)
    assert rectify_module._far_side_beyond(image, TABLE_SMALL, _flooded_room(image)) is None
