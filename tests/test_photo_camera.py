"""The camera behind a photo (issue 34): focal length and pose from the table's corners, the lens from its sides or a
ChArUco board, a tall base's footprint from its outline, ovals, the local fit, and the command's new options."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tabletop.photo import BASE_SIZES_MM  # noqa: E402
from tabletop.photo import cli as photo_cli  # noqa: E402
from tabletop.photo.camera import (Camera, Distortion, board, calibrate_board, camera_from_corners, no_distortion,  # noqa: E402
                                   plumb_line, pose_from_homography)
from tabletop.photo.imageio import parse_corners  # noqa: E402
from tabletop.photo.rays import outline_extra  # noqa: E402
from tabletop.photo.values import Rectified  # noqa: E402

SIZE = (4032, 3024)
TABLE = (1219.2, 1219.2)


def _look_at(eye: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotation (table to camera: x right, y down, z forward) and translation of a camera at ``eye`` looking at ``target``."""
    z = target - eye
    z /= np.linalg.norm(z)
    x = np.cross(z, [0.0, 0.0, 1.0])
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    r = np.stack([x, y, z])
    return r, -r @ eye


def _true_camera(k1: float = 0.0, eye: tuple[float, float, float] = (609.6, -500.0, 900.0)) -> Camera:
    f = 3100.0
    centre = ((SIZE[0] - 1) / 2, (SIZE[1] - 1) / 2)
    r, t = _look_at(np.array(eye), np.array([TABLE[0] / 2, TABLE[1] / 2, 0.0]))
    lens = Distortion.from_opencv(k1, 0.0, f, centre, 0.5 * math.hypot(*SIZE))
    return Camera(f, centre, r, t, lens)


def _corners(cam: Camera) -> tuple[tuple[float, float], ...]:
    w, d = TABLE
    return tuple(tuple(p) for p in cam.project(np.array([[0, 0], [w, 0], [w, d], [0, d]], dtype=float)))


def test_focal_length_and_pose_from_the_four_corners() -> None:
    """A phone 900 mm up and 500 mm in front of a 48" table (about 40° above it), no lens distortion: the corners alone
    give its focal length to 0.1 % and its position to a millimetre."""
    cam = _true_camera()
    found = camera_from_corners(_corners(cam), TABLE, SIZE)  # type: ignore[arg-type]
    assert found.focal_measured
    assert found.focal_px == pytest.approx(3100.0, rel=1e-3)
    assert np.allclose(found.position, [609.6, -500.0, 900.0], atol=1.0)
    point = np.array([[300.0, 400.0]])
    assert np.allclose(found.project(point, 4.0), cam.project(point, 4.0), atol=0.05)


def test_a_view_straight_down_assumes_a_typical_focal_length() -> None:
    """Straight down the corners fix no focal length: a typical phone's is assumed, and said to be."""
    w, d = TABLE
    quad = ((500.0, 2500.0), (3500.0, 2500.0), (3500.0, 500.0), (500.0, 500.0))
    found = camera_from_corners(quad, (w, w * 2000 / 3000), SIZE)
    assert not found.focal_measured and found.focal_sigma >= 0.2


def test_plumb_line_measures_barrel_distortion() -> None:
    """The table's sides seen through a lens with k1 = -0.08 (a phone's main camera at its worst): the straightness of
    the four sides gives k1 back to 0.005, with a 1-sigma that covers the error."""
    cam = _true_camera(k1=-0.08)
    w, d = TABLE
    rng = np.random.default_rng(0)
    sides = []
    for a, b in (((0, 0), (w, 0)), ((w, 0), (w, d)), ((w, d), (0, d)), ((0, d), (0, 0))):
        t = np.linspace(0.04, 0.96, 240)[:, None]
        points = np.asarray(a) + t * (np.asarray(b) - np.asarray(a))
        sides.append(cam.project(points) + rng.normal(0, 0.3, (240, 2)))
    lens, rms, sigma = plumb_line(sides, SIZE)
    k1, _ = lens.opencv(3100.0)
    assert k1 == pytest.approx(-0.08, abs=0.005)
    assert rms < 0.5 and abs(k1 + 0.08) <= 3 * max(sigma * (3100.0 / lens.scale) ** 2, 1e-4)
    flat, _, _ = plumb_line([cam.distortion.remove(s) for s in sides], SIZE)
    assert abs(flat.k1) < 0.003


def test_distortion_round_trip() -> None:
    lens = Distortion((2000.0, 1500.0), 2500.0, -0.06, 0.01)
    p = np.array([[10.0, 20.0], [2000.0, 1500.0], [4000.0, 3000.0]])
    assert np.allclose(lens.apply(lens.remove(p)), p, atol=1e-6)


def test_pose_from_homography_puts_the_camera_above_the_table() -> None:
    cam = _true_camera()
    r, t = pose_from_homography(cam.homography(0.0), cam.focal_px, cam.centre)
    assert (-r.T @ t)[2] == pytest.approx(900.0, abs=0.5)


def _board_view(rvec: np.ndarray, tvec: np.ndarray, k: np.ndarray, dist: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The printed board photographed by an OpenCV camera: each photo pixel looks up the board image through the lens."""
    from tabletop.photo.camera import BOARD_SQUARE_MM, BOARD_SQUARES

    px_per_mm = 6.0
    margin = 10.0
    image = board().generateImage((int((BOARD_SQUARES[0] * BOARD_SQUARE_MM + 2 * margin) * px_per_mm),
                                   int((BOARD_SQUARES[1] * BOARD_SQUARE_MM + 2 * margin) * px_per_mm)), marginSize=int(margin * px_per_mm))
    w, h = size
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    und = cv2.undistortPoints(np.column_stack([u.ravel(), v.ravel()])[:, None, :], k, dist)[:, 0, :]
    r, _ = cv2.Rodrigues(rvec)
    # The ray through each pixel meets the board's plane z = 0 (board mm, origin at the first square's corner).
    rays = np.column_stack([und, np.ones(len(und))]) @ r  # directions in board coordinates
    origin = -r.T @ tvec
    s = -origin[2] / rays[:, 2]
    pts = origin[None, :2] + s[:, None] * rays[:, :2]
    mx = ((pts[:, 0] + margin) * px_per_mm - 0.5).reshape(h, w).astype(np.float32)
    my = ((pts[:, 1] + margin) * px_per_mm - 0.5).reshape(h, w).astype(np.float32)
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=255)


def test_charuco_calibration_recovers_focal_length_and_k1() -> None:
    """Five photos of the printed board from different angles (1600x1200, f = 1300 px, k1 = -0.07): the calibration
    gives the focal length to 2 % and k1 to 0.02."""
    size = (1600, 1200)
    k = np.array([[1300.0, 0, 799.5], [0, 1300.0, 599.5], [0, 0, 1]])
    dist = np.array([-0.07, 0.0, 0.0, 0.0, 0.0])
    views = []
    for rx, ry, z in ((0.0, 0.0, 330.0), (0.35, 0.0, 350.0), (-0.3, 0.25, 340.0), (0.2, -0.35, 360.0), (-0.25, -0.2, 330.0)):
        rvec = np.array([rx, ry, 0.05])
        tvec = np.array([-122.0, -87.0, z])
        views.append(_board_view(rvec, tvec, k, dist, size))
    lens = calibrate_board(views)
    assert lens.photos >= 4
    assert lens.focal_px == pytest.approx(1300.0, rel=0.02)
    assert lens.k1 == pytest.approx(-0.07, abs=0.02)


def test_outline_of_a_tall_base() -> None:
    """A cylinder (no bevel) whose top rim is seen 3 mm further from the camera, along +x: its outline reaches 3 mm past
    the footprint away from the camera, none towards it, and follows the footprint sideways (a stadium)."""
    angles = np.radians([0.0, 90.0, 180.0, 270.0, 45.0])
    extra = outline_extra(angles, np.array([16.0]), np.array([[3.0, 0.0]]), np.array([16.0]))[0]
    assert extra[0] == pytest.approx(3.0, abs=1e-6)
    assert extra[1] == pytest.approx(0.0, abs=1e-3) and extra[3] == pytest.approx(0.0, abs=1e-3)
    assert extra[2] == pytest.approx(0.0, abs=1e-9)
    assert 0.0 < extra[4] < 3.0
    # Bevelled by more than the shift: the footprint is the outline all round.
    assert np.allclose(outline_extra(angles, np.array([16.0]), np.array([[1.0, 0.0]]), np.array([14.0]))[0], 0.0, atol=1e-9)


def _tall_base_photo(cam: Camera, centre: tuple[float, float], radius: float, height: float, bevel: float) -> np.ndarray:
    """A plain mat with one dark base (a bevelled cylinder) drawn by its outline: the envelope of footprint and top rim."""
    img = np.full((SIZE[1], SIZE[0], 3), (70, 110, 60), np.uint8)
    angles = np.radians(np.arange(0.0, 360.0, 0.5))
    shift = cam.rim_shift(np.array([centre]), np.array([height]))
    top = np.array([(radius - bevel) * float(cam.rim_scale(np.array([height]))[0])])
    reach = radius + outline_extra(angles, np.array([radius]), shift, top)[0]
    pts = np.column_stack([centre[0] + reach * np.cos(angles), centre[1] + reach * np.sin(angles)])
    px = cam.project(pts)
    _fill_envelope(img, px, (30.0, 30.0, 34.0))
    return cv2.GaussianBlur(img, (0, 0), 0.8)


@pytest.mark.parametrize(("height", "bevel"), [(5.0, 0.0), (3.0, 2.0)])
def test_footprint_of_a_tall_base_from_its_outline(height: float, bevel: float) -> None:
    """A 32 mm base 5 mm tall with straight sides, and one 3 mm tall with a 2 mm bevel, seen at about 40°: their top
    rims reach up to 6 mm past the footprint. Started 1 mm off with the catalogue's profile (4 mm, 1.5 mm bevel), the
    footprint fit finds the centre within 0.15 mm, and its sigma covers the error."""
    from tabletop.photo.candidates import mat_model
    from tabletop.photo.footprint import fit_footprints
    from tabletop.photo.rays import photo_scale
    from tabletop.photo.rectify import rectify

    cam = _true_camera()
    centre = (600.0, 700.0)
    image = _tall_base_photo(cam, centre, 16.0, height, bevel)
    rect = rectify(image, _corners(cam), TABLE, 1.0, camera=cam, base_height_mm=None)  # type: ignore[arg-type]
    mat = mat_model(rect.image)
    colour = np.array([[70.0, 110.0, 60.0]], dtype=np.float32)
    fit = fit_footprints(rect, np.array([[centre[0] + 0.8, centre[1] - 0.6]]), np.array([16.0]), colour, mat.whiten,
                         photo_scale(rect), np.array(BASE_SIZES_MM))
    assert fit is not None and fit.taken[0] and fit.radii[0] == 16.0
    err = math.hypot(*(fit.centres[0] - centre))
    assert err <= 0.15
    assert err <= 3 * math.sqrt(np.max(np.linalg.eigvalsh(fit.covariance[0]))) + 0.05
    assert not fit.profile_conflict[0]  # 3 and 5 mm tall, bevels 0 and 2 mm: within two sigmas of the catalogue's 4 and 1.25


def test_an_outline_seen_as_a_flat_disc_conflicts_with_the_profiles_prior() -> None:
    """Only the top rim of a 4 mm base seen (its side face towards the camera read as mat): the outline is a flat
    disc's, which the fit explains with a bevel wider than the rim's shift (or, on the generator's photos, a height near 0),
    its centre the disc's, millimetres from the footprint, at a small covariance. The profile, over two of the prior's
    sigmas from the catalogue's, marks the conflict."""
    from tabletop.photo.candidates import mat_model
    from tabletop.photo.footprint import BEVEL_PRIOR_SIGMA_MM, PROFILE_CONFLICT_SIGMAS, fit_footprints
    from tabletop.photo.rays import photo_scale
    from tabletop.photo.rectify import rectify

    cam = _true_camera()
    footprint = np.array([[600.0, 700.0]])
    # The top rim of a 4 mm base with no bevel, taken down to the table: where a flat disc's outline would be.
    top = footprint + cam.rim_shift(footprint, np.array([4.0]))
    image = _tall_base_photo(cam, (float(top[0, 0]), float(top[0, 1])), 16.0, 0.0, 0.0)
    rect = rectify(image, _corners(cam), TABLE, 1.0, camera=cam, base_height_mm=None)  # type: ignore[arg-type]
    mat = mat_model(rect.image)
    colour = np.array([[70.0, 110.0, 60.0]], dtype=np.float32)
    fit = fit_footprints(rect, top, np.array([16.0]), colour, mat.whiten, photo_scale(rect), np.array(BASE_SIZES_MM))
    assert fit is not None and fit.taken[0]
    # Explained as a base whose footprint is the whole outline: bevelled by more than the rim's shift (3.6 mm where
    # the catalogue's is 1.25), its centre the disc's, over 5 mm from the footprint.
    assert fit.bevels[0] - 1.25 > PROFILE_CONFLICT_SIGMAS * BEVEL_PRIOR_SIGMA_MM
    assert math.hypot(*(fit.centres[0] - footprint[0])) > 3.0
    assert fit.profile_conflict[0]


def _fill_envelope(img: np.ndarray, px: np.ndarray, colour: tuple[float, float, float]) -> None:
    """Fill the polygon ``px`` (photo pixels) with ``colour``, its edge pixels by their covered area (drawn 8 times finer
    and area-averaged: OpenCV fills a polygon's edge pixels whole, half a pixel too wide)."""
    k = 8
    x0, y0 = np.floor(px.min(axis=0)).astype(int) - 4
    x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 4
    fine = np.zeros(((y1 - y0) * k, (x1 - x0) * k), np.uint8)
    cv2.fillPoly(fine, [np.round((px - [x0, y0] + 0.5) * k - 0.5).astype(np.int32)], 255)
    cover = cv2.resize(fine, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255.0
    patch = img[y0:y1, x0:x1].astype(np.float32)
    img[y0:y1, x0:x1] = np.round(patch * (1 - cover) + np.array(colour, np.float32) * cover).astype(np.uint8)


def test_a_dark_side_face_on_a_mat_printed_with_shading_and_lines_is_not_taken_for_mat() -> None:
    """A light-topped 32 mm base 4.5 mm tall, its side face a mid grey, on a grey mat printed with broad shading (75 to
    225 grey levels) and dark contour lines. The table's whitening spreads 33 grey levels along the lightness, so the
    face, 90 levels below the light mat round the base, is under three of its units from the mat: fitted with it, the
    footprint fit read the face as mat and explained the top rim as a 1.8 mm tall, 2 mm bevelled base, and was not
    taken. Round this base the mat varies by a few levels: whitened by its ring, the face is not mat, and the
    footprint is found within 0.15 mm."""
    from tabletop.photo.candidates import mat_model
    from tabletop.photo.footprint import fit_footprints
    from tabletop.photo.rays import photo_scale
    from tabletop.photo.rectify import rectify

    cam = _true_camera()
    centre, radius, height = (525.0, 750.0), 16.0, 4.5
    to_table = cv2.getPerspectiveTransform(np.float32(_corners(cam)), np.float32([[0, 0], [TABLE[0], 0], TABLE, [0, TABLE[1]]]))
    ys, xs = np.mgrid[0:SIZE[1], 0:SIZE[0]].astype(np.float32)
    table_xy = cv2.perspectiveTransform(np.stack([xs.ravel(), ys.ravel()], 1)[None], to_table)[0].reshape(SIZE[1], SIZE[0], 2)
    field = np.sin(table_xy[..., 0] / 37.0) + np.sin(table_xy[..., 1] / 53.0 + 0.4 * np.sin(table_xy[..., 0] / 91.0))
    grey = np.where(np.abs(((field + 2) * 2.5) % 1.0 - 0.5) < 0.04, 85.0, 150 + 75 * np.tanh(1.5 * field))
    image = np.repeat(grey[..., None], 3, axis=2).clip(0, 255).astype(np.uint8)
    around = np.radians(np.arange(0.0, 360.0, 0.5))
    shift = cam.rim_shift(np.array([centre]), np.array([height]))
    top = np.array([radius * float(cam.rim_scale(np.array([height]))[0])])
    reach = radius + outline_extra(around, np.array([radius]), shift, top)[0]
    _fill_envelope(image, cam.project(np.column_stack([centre[0] + reach * np.cos(around), centre[1] + reach * np.sin(around)])),
                   (125, 130, 135))
    _fill_envelope(image, cam.project(np.column_stack([centre[0] + radius * np.cos(around), centre[1] + radius * np.sin(around)]),
                                      height), (170, 225, 235))
    image = cv2.GaussianBlur(image, (0, 0), 0.8)
    rect = rectify(image, _corners(cam), TABLE, 1.0, camera=cam, base_height_mm=None)  # type: ignore[arg-type]
    mat = mat_model(rect.image)
    assert 1 / float(np.min(np.linalg.eigvalsh(mat.whiten.astype(float)))) > 30  # the table's spread along the lightness
    colour = mat.near[int(TABLE[1] - centre[1]), int(centre[0])][None].astype(np.float32)
    fit = fit_footprints(rect, np.array([[centre[0] + 0.8, centre[1] - 0.6]]), np.array([16.0]), colour, mat.whiten,
                         photo_scale(rect), np.array(BASE_SIZES_MM))
    assert fit is not None and fit.taken[0] and fit.radii[0] == 16.0
    assert math.hypot(*(fit.centres[0] - centre)) <= 0.15
    assert not fit.profile_conflict[0]


def test_an_oval_base_is_fitted_and_snapped() -> None:
    """A 90x52 oval at 30° on a plain mat, seen straight down: fitted to its catalogue size, its angle within 1°."""
    from tabletop.photo.candidates import mat_model
    from tabletop.photo.ovals import fit_ovals
    from tabletop.photo.rays import photo_scale

    s = 4.0
    w, d = 200.0, 160.0
    img = np.full((int(d * s), int(w * s), 3), (60, 105, 70), np.uint8)
    cv2.ellipse(img, ((int(100 * s * 16), int((d - 80) * s * 16))), (int(45 * s * 16), int(26 * s * 16)), -30.0, 0, 360,
                (40, 40, 45), -1, cv2.LINE_AA, shift=4)
    img = cv2.GaussianBlur(img, (0, 0), 1.0)
    h = np.array([[s, 0, 0], [0, -s, d * s], [0, 0, 1]])
    rect = Rectified(source=img, homography=h, table_mm=(w, d), px_per_mm=s, image=img)
    mat = mat_model(cv2.resize(img, (int(w), int(d)), interpolation=cv2.INTER_AREA))
    (fit,) = fit_ovals(rect, np.array([[101.0, 79.0, 43.0, 27.0, 25.0]]), np.array([[60.0, 105.0, 70.0]], dtype=np.float32),
                       mat.whiten, photo_scale(rect))
    assert fit is not None and fit.size == (90.0, 52.0)
    assert abs((fit.angle_deg - 30.0 + 90) % 180 - 90) <= 1.0
    assert math.hypot(fit.x_mm - 100.0, fit.y_mm - 80.0) <= 0.3


@pytest.mark.parametrize("texts", [
    ["-326,2385 3900,2400 3500,300 400,300"],
    ["-326,2385;3900,2400;3500,300;400,300"],
    ["-326,2385,3900,2400,3500,300,400,300"],
    ["-326,2385", "3900,2400", "3500,300", "400,300"],
])
def test_a_corner_with_a_negative_coordinate(texts: list[str]) -> None:
    assert parse_corners(texts) == ((-326.0, 2385.0), (3900.0, 2400.0), (3500.0, 300.0), (400.0, 300.0))


def test_the_command_reads_a_negative_corner() -> None:
    """``--corners=-326,…`` and one quoted argument are read, not taken for an option."""
    import argparse

    p = argparse.ArgumentParser()
    photo_cli.configure(p)
    args = p.parse_args(["x.jpg", "--table", "48x48in", "--corners=-326,2385,3900,2400,3500,300,400,300"])
    assert parse_corners(args.corners)[0] == (-326.0, 2385.0)
    args = p.parse_args(["x.jpg", "--table", "48x48in", "--corners", "-326,2385 3900,2400 3500,300 400,300"])
    assert parse_corners(args.corners)[0] == (-326.0, 2385.0)


def test_demo_writes_a_photo_and_says_how_to_analyse_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo.jpg"
    assert photo_cli.main(["--demo", str(out), "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert out.stat().st_size > 100_000
    assert f"tabletop photo {out} --table 48x48in --base-height 0" in text


def test_calibrate_writes_the_board_and_refuses_too_few_photos(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "board.png"
    assert photo_cli.main(["calibrate", "--board", str(png)]) == 0
    assert png.stat().st_size > 1000
    assert photo_cli.main(["calibrate", str(png), "-o", str(tmp_path / "phone.toml")]) == 2
    assert "at least 3" in capsys.readouterr().err


def test_lens_file_round_trip_and_bad_file(tmp_path: Path) -> None:
    from tabletop.photo.camera import LensFile, load_lens, save_lens
    from tabletop.photo.values import PhotoError

    lens = LensFile((4032, 3024), 3100.0, (2015.5, 1511.5), -0.05, 0.01, 0.4, 6)
    save_lens(lens, tmp_path / "phone.toml")
    back = load_lens(tmp_path / "phone.toml")
    assert back == lens
    distortion, focal = back.for_size((2016, 1512))
    assert focal == pytest.approx(1550.0) and distortion.opencv(focal)[0] == pytest.approx(-0.05)
    (tmp_path / "bad.toml").write_text("[camera]\nfocal_px = -3\n")
    with pytest.raises(PhotoError, match="focal_px"):
        load_lens(tmp_path / "bad.toml")


def test_local_fit_finds_the_base_under_a_click() -> None:
    """The review's click: on a synthetic photo, a point 4 mm from a base's centre fits that base (its size, within
    0.5 mm)."""
    from tabletop.photo.local import fit_base_at, rectified_for
    from tabletop.photo.pipeline import analyse_image
    from tabletop.photo.synth import synth_photo
    from tabletop.photo.values import LoadedImage
    import tabletop.photo.pipeline as pipeline

    photo = synth_photo(5, size=(2400, 1800), n_bases=10)
    loaded = LoadedImage(photo.image, "local.jpg", (2400, 1800))
    real = pipeline.detect
    try:
        pipeline.detect = lambda rect, sizes: ([], [])  # type: ignore[assignment]
        result = analyse_image(loaded, photo.table_mm, photo.corners_px, base_height_mm=0.0)
    finally:
        pipeline.detect = real  # type: ignore[assignment]
    rect = rectified_for(loaded, result, base_height_mm=0.0)
    hits = 0
    for b in photo.bases[:5]:
        found = fit_base_at(rect, b.x_mm + 3.0, b.y_mm - 2.6)
        if found is not None and found.diameter_mm == b.diameter_mm and math.hypot(found.x_mm - b.x_mm, found.y_mm - b.y_mm) <= 0.5:
            hits += 1
    assert hits >= 4


def test_json_has_the_honest_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop.photo.synth import synth_photo

    photo = synth_photo(6, size=(2400, 1800), n_bases=8)
    path = tmp_path / "t.jpg"
    cv2.imwrite(str(path), photo.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    corners = " ".join(f"{x:.2f},{y:.2f}" for x, y in photo.corners_px)
    assert photo_cli.main([str(path), "--table", "48x48in", "--corners", corners, "--base-height", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"unfitted", "camera"} <= set(out)
    for b in out["bases"]:
        assert b["shape"] == "round" and isinstance(b["confident"], bool) and "diameter_mm" in b


def _table_with_front_face(face_px: int) -> tuple[np.ndarray, tuple[tuple[float, float], ...], tuple[tuple[float, float], ...]]:
    """A drawn photo: a grey room, a green mat (the table's top) and, below its lower edge, a dark front face
    ``face_px`` tall on a floor of the mat's own colour. Returns the photo, the top's corners and the outline whose
    lower side is the face's foot (what an unaided segmentation of mat-coloured floor against the face finds)."""
    img = np.full((600, 800, 3), (120, 120, 120), np.uint8)
    top = ((150.0, 450.0), (650.0, 450.0), (650.0, 100.0), (150.0, 100.0))
    img[100:451, 150:651] = (60, 140, 70)  # the mat
    img[451:451 + face_px, 150:651] = (30, 30, 40)  # the front face
    img[451 + face_px:, :] = (60, 140, 70)  # the floor, the mat's colour
    foot = ((150.0, 450.0 + face_px), (650.0, 450.0 + face_px), (650.0, 100.0), (150.0, 100.0))
    return cv2.GaussianBlur(img, (0, 0), 0.8), top, foot


def test_an_outline_on_the_front_faces_foot_has_a_rival_edge_inside_it() -> None:
    from tabletop.photo.rectify import RIVAL_RATIO, inner_rivals

    img, top, foot = _table_with_front_face(12)
    # Taken at the face's foot, the lower side has the table's real edge 12 px inside it, as strong as its own.
    ratio, inside = inner_rivals(img, foot)[0]
    assert ratio >= RIVAL_RATIO and inside == pytest.approx(12.0, abs=1.0)
    # At the table's real edge nothing lies inside it: the face and the floor are outside.
    assert all(ratio < RIVAL_RATIO for ratio, _ in inner_rivals(img, top))


def test_a_doubtful_unaided_outline_marks_every_base_and_says_what_to_do() -> None:
    from tabletop.photo.pipeline import _doubt_outline

    img, top, foot = _table_with_front_face(12)
    sigmas, note = _doubt_outline(img, foot, (0.2, 0.2, 0.2, 0.2), None)
    # Both corners of the lower side may be 12 px off: their sigmas say so; the upper ones keep theirs.
    assert sigmas[0] == pytest.approx(12.0, abs=1.0) and sigmas[1] == pytest.approx(12.0, abs=1.0)
    assert sigmas[2:] == (0.2, 0.2)
    assert note is not None and "lower" in note and "--corners" in note and "markers" in note
    assert _doubt_outline(img, top, (0.2,) * 4, None) == ((0.2,) * 4, None)


def test_a_faint_edge_steady_along_the_side_makes_an_unaided_outline_doubtful() -> None:
    from tabletop.photo.pipeline import STEADY_EDGE_SNR, _doubt_outline, steady_inner_edges
    from tabletop.photo.rectify import RIVAL_RATIO, inner_rivals

    # A cream mat with a texture, a pale grey front face 20 px tall (a faint step from the mat) on a red floor (a
    # strong step from the face): the foot's edge is so strong that the mat-to-face edge scores under RIVAL_RATIO of
    # it, but it runs the whole side, several times the mat's texture.
    rng = np.random.default_rng(3)
    img = np.full((600, 800, 3), (40, 50, 180), np.float32)  # the floor, red (BGR)
    img[100:451, 150:651] = (205, 220, 230)  # the mat, cream
    img[451:471, 150:651] = (215, 208, 200)  # the front face, pale grey
    img[100:471, 150:651] += rng.normal(0.0, 4.0, (371, 501, 1)).astype(np.float32)
    img = cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), 0.8)
    top = ((150.0, 450.0), (650.0, 450.0), (650.0, 100.0), (150.0, 100.0))
    foot = ((150.0, 470.0), (650.0, 470.0), (650.0, 100.0), (150.0, 100.0))
    assert inner_rivals(img, foot)[0][0] < RIVAL_RATIO
    snr, inside = steady_inner_edges(img, foot, None)[0]
    assert snr >= STEADY_EDGE_SNR and inside == pytest.approx(20.0, abs=1.5)
    sigmas, note = _doubt_outline(img, foot, (0.2,) * 4, None)
    assert note is not None and "lower" in note and sigmas[0] == pytest.approx(20.0, abs=1.5)
    # At the table's real edge: the mat's texture inside, nothing steady.
    assert all(snr < STEADY_EDGE_SNR for snr, _ in steady_inner_edges(img, top, None))
    assert _doubt_outline(img, top, (0.2,) * 4, None) == ((0.2,) * 4, None)


PALE_FACE = (205.0, 222.0, 222.0)
"""``slab_photo``'s front face by default: pale, about the mat's colour (BGR)."""


def _slab_seen_from_the_front(thickness_mm: float, face_bgr: tuple[float, float, float] = PALE_FACE
                              ) -> tuple[np.ndarray, tuple[tuple[float, float], ...], tuple[tuple[float, float], ...], Camera]:
    """A drawn photo through a camera 650 mm in front of a 1,200 mm table and 1,300 mm up (``slab_photo``)."""
    return slab_photo(np.array([600.0, -650.0, 1300.0]), np.array([600.0, 560.0, 0.0]), 1200.0, thickness_mm, face_bgr)


def slab_photo(place: np.ndarray, target: np.ndarray, table_mm: float, thickness_mm: float,
               face_bgr: tuple[float, float, float] = PALE_FACE) -> tuple[
        np.ndarray, tuple[tuple[float, float], ...], tuple[tuple[float, float], ...], Camera]:
    """A drawn photo (2,400 x 1,800, 1,900 px of focal length) through a camera at ``place`` looking at ``target``: a
    square table ``table_mm`` wide (a cream mat lit by a lamp to one side, darker than the front face at one end and
    lighter at the other) and its front face, a band ``thickness_mm`` deep (``face_bgr``), on a grey floor. Returns the photo, the
    top's corners, the outline whose near side is the face's foot (its corners where the foot's line meets the top's
    sides) and the camera."""
    size = (2400, 1800)
    forward = (target - place) / np.linalg.norm(target - place)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    rotation = np.array([right, np.cross(forward, right), forward])
    camera = Camera(1900.0, (1199.5, 899.5), rotation, -rotation @ place, no_distortion(size))
    w = table_mm
    top = camera.project(np.array([[0.0, 0.0], [w, 0.0], [w, w], [0.0, w]]))
    foot = camera.project(np.array([[0.0, 0.0], [w, 0.0]]), z=-thickness_mm)
    img = np.empty((size[1], size[0], 3), np.float32)
    img[:] = (120, 135, 140)  # the floor (BGR)
    cv2.fillPoly(img, [np.round(np.array([foot[0], foot[1], top[1], top[0]]) * 16).astype(np.int32)], face_bgr,
                 cv2.LINE_AA, shift=4)  # the front face
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(top * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    mask = mask.astype(np.float32) / 255
    lamp = 0.92 + 0.16 * (np.arange(size[0], dtype=np.float32) - top[0][0]) / (top[1][0] - top[0][0])
    mat = np.array((192, 218, 225), np.float32)[None, None, :] * lamp[None, :, None]
    img = img * (1 - mask[..., None]) + mat * mask[..., None]
    img += np.random.default_rng(5).normal(0.0, 3.0, img.shape[:2] + (1,)).astype(np.float32)
    img = cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), 0.8)

    def meet(p: np.ndarray, q: np.ndarray, r: np.ndarray, s: np.ndarray) -> np.ndarray:
        u = np.linalg.solve(np.array([q - p, r - s]).T, r - p)
        return p + u[0] * (q - p)

    found = (meet(foot[0], foot[1], top[3], top[0]), meet(foot[0], foot[1], top[1], top[2]), top[2], top[3])
    return (img, tuple((float(x), float(y)) for x, y in top), tuple((float(x), float(y)) for x, y in found), camera)


def test_a_front_face_inside_a_side_the_camera_faces_makes_an_unaided_outline_doubtful() -> None:
    """Worked numbers: the camera stands 650 mm in front of the near side's middle and 1,300 mm up (1,453 mm away, at
    63.4 degrees), 1,900 px of focal length; one millimetre straight down there is seen about
    1900 * cos(63.4) / 1453 = 0.58 px further out (0.63 with the ray 16 degrees off the photo's axis), so a 30 mm top's
    face is a band of about 18-19 px."""
    from tabletop.photo.pipeline import (FACE_EDGE_SNR, MAT_STEP_STEADY, STEADY_EDGE_MIN_PX, STEADY_EDGE_SLOPE_PX,
                                         STEADY_EDGE_SNR, _doubt_outline, face_side_scale, front_face_inside,
                                         steady_inner_edges)
    from tabletop.photo.rectify import RIVAL_RATIO, inner_colour_steps, inner_rivals

    img, top, foot, camera = _slab_seen_from_the_front(30.0)
    table = (1200.0, 1200.0)
    scale = face_side_scale(camera, top, table)
    assert scale[0] == pytest.approx(0.63, abs=0.02) and all(s < 0 for s in scale[1:])  # only the near side's face is seen
    # Found at the face's foot, the near side's face is inside it: the top's edge 18 px in, under the lamp a faint
    # edge that changes its colour's sign along the side, which none of the three older tests sees.
    assert inner_rivals(img, foot)[0][0] < RIVAL_RATIO and steady_inner_edges(img, foot, None)[0][0] < STEADY_EDGE_SNR
    assert inner_colour_steps(img, foot, None, STEADY_EDGE_MIN_PX, STEADY_EDGE_SLOPE_PX)[0][0] < MAT_STEP_STEADY
    assert _doubt_outline(img, foot, (0.2,) * 4, None) == ((0.2,) * 4, None)
    found = camera_from_corners(foot, table, (img.shape[1], img.shape[0]))
    faces = front_face_inside(img, foot, None, face_side_scale(found, foot, table))
    assert faces[0] is not None and faces[0][0] >= FACE_EDGE_SNR and faces[0][1] == pytest.approx(18.5, abs=1.5)
    assert faces[1:] == [None, None, None]
    sigmas, note = _doubt_outline(img, foot, (0.2,) * 4, None, table)
    assert note is not None and "lower" in note and sigmas[0] == pytest.approx(18.5, abs=1.5) and sigmas[2:] == (0.2, 0.2)
    # At the top's edge the face is outside, with its foot: the side's face is not inside it.
    assert front_face_inside(img, top, None, face_side_scale(camera_from_corners(top, table, (2400, 1800)), top, table)) == [None] * 4


def test_a_contrario_outline_on_bare_mat_is_no_base_and_a_drawn_rim_is() -> None:
    """Worked numbers: 100 points at chance 1/4 each; 25 aligned is what chance gives (tail about 0.54), 60 aligned
    has a tail near 1e-13; with 2.4e8 outlines tried (a 1,220 mm square table on a 1 mm grid, 10 sizes, 16 profiles),
    log10 NFA is about 8.4 - 0.27 > 0 (not a base) and 8.4 - 12.9 < 0 (a base)."""
    from tabletop.photo.contrario import log10_binomial_tail

    chance, rim = log10_binomial_tail(np.array([100, 100]), np.array([25, 60]))
    tests = math.log10(1220 * 1220 * 10 * 16)
    assert -0.5 < chance < -0.1 and tests + chance > 0
    assert -13.5 < rim < -12.5 and tests + rim < 0
    # The tail is exact: P[B(4, 1/4) >= 4] = 1/256.
    assert log10_binomial_tail(np.array([4]), np.array([4]))[0] == pytest.approx(math.log10(1 / 256))


def _table_below_a_wall_strip(strip_px: int) -> tuple[np.ndarray, tuple[tuple[float, float], ...], tuple[tuple[float, float], ...]]:
    """A drawn photo: a tan mat with a texture, and beyond its far side a blue strip of wall ``strip_px`` tall, then the
    grey room. Returns the photo, the top's corners and the outline whose upper side is the strip's top (the wall's
    foot, what an unaided segmentation finds when the strip is taken for the table)."""
    rng = np.random.default_rng(7)
    img = np.full((1500, 2000, 3), (150, 150, 150), np.float32)  # the room
    img[300:1201, 300:1701] = (157, 182, 195)  # the mat, tan (BGR)
    img[300 - strip_px:300, 300:1701] = (198, 178, 162)  # the wall's strip, pale blue
    img[300 - strip_px:1201, 300:1701] += rng.normal(0.0, 4.0, (901 + strip_px, 1401, 1)).astype(np.float32)
    img = cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), 0.8)
    top = ((300.0, 1200.0), (1700.0, 1200.0), (1700.0, 300.0), (300.0, 300.0))
    foot = ((300.0, 1200.0), (1700.0, 1200.0), (1700.0, 300.0 - strip_px), (300.0, 300.0 - strip_px))
    return img, top, foot


def test_a_colour_step_along_a_side_makes_an_unaided_outline_doubtful() -> None:
    """Worked numbers: the step from strip to mat is (41, -4, -33) grey levels; a pixel's texture 4 (less after the
    blur), so a step between 3-pixel means scatters at most 4 * sqrt(2 / 3) = 3.3 (4.3 with the grey level added): the
    step's median over its spread is at least sqrt((9.6² + 0.9² + 7.7²) / 3) = 7.1, over MAT_STEP_STEADY."""
    from tabletop.photo.pipeline import (MAT_STEP_STEADY, STEADY_EDGE_MIN_PX, STEADY_EDGE_SLOPE_PX, STEADY_EDGE_SNR,
                                         _doubt_outline, steady_inner_edges)
    from tabletop.photo.rectify import RIVAL_RATIO, inner_colour_steps, inner_rivals

    img, top, foot = _table_below_a_wall_strip(45)
    steps = inner_colour_steps(img, foot, None, STEADY_EDGE_MIN_PX, STEADY_EDGE_SLOPE_PX)
    steadiness, inside = steps[2]
    assert steadiness >= 7.0 and inside == pytest.approx(45.0, abs=1.5)
    # The strip is beyond the band the gradient tests search (1.2 % of the diagonal, 30 px): only the colour step sees it.
    assert inner_rivals(img, foot)[2][0] < RIVAL_RATIO and steady_inner_edges(img, foot, None)[2][0] < STEADY_EDGE_SNR
    sigmas, note = _doubt_outline(img, foot, (0.2,) * 4, None)
    assert note is not None and "upper" in note
    assert sigmas[2] == pytest.approx(45.0, abs=1.5) and sigmas[3] == pytest.approx(45.0, abs=1.5) and sigmas[:2] == (0.2, 0.2)
    # At the table's real edge: the mat's texture steps both ways and cancels in the median.
    assert all(s < MAT_STEP_STEADY / 2 for s, _ in inner_colour_steps(img, top, None, STEADY_EDGE_MIN_PX, STEADY_EDGE_SLOPE_PX))
    assert _doubt_outline(img, top, (0.2,) * 4, None) == ((0.2,) * 4, None)


ROOF = (76, 126, 86)
"""A roof a little off the mat's green (6-10 grey levels; the mat's noise is 1.5 after blur): a rim is seen against it."""


def base_on_a_roof(roof_colour: tuple[int, int, int]) -> tuple[Camera, np.ndarray, tuple[float, float], tuple[float, float], float]:
    """A drawn 12 MP photo by ``_true_camera`` (900 mm above the table): a 28 mm base 4 mm tall on a building's flat roof
    (90 mm square, ``roof_colour``) 100 mm up, another on the green mat. Returns the camera, the photo, where each base
    stands and the roof's height."""
    cam = _true_camera()
    radius, height, roof_z = 14.0, 4.0, 100.0
    on_roof, on_mat = (450.0, 800.0), (800.0, 500.0)
    image = np.empty((SIZE[1], SIZE[0], 3), np.uint8)
    image[:] = (70, 120, 80)
    square = np.array([[-45.0, -45.0], [45.0, -45.0], [45.0, 45.0], [-45.0, 45.0]])
    _fill_envelope(image, cam.project(square + on_roof, roof_z), roof_colour)
    around = np.radians(np.arange(0.0, 360.0, 0.5))
    circle = radius * np.column_stack([np.cos(around), np.sin(around)])
    for centre, z in ((on_roof, roof_z), (on_mat, 0.0)):
        for level in np.linspace(z, z + height, 9):  # the side face: the discs between footprint and top
            _fill_envelope(image, cam.project(circle + centre, float(level)), (40, 40, 45))
        _fill_envelope(image, cam.project(circle + centre, z + height), (200, 205, 210))
    noise = np.random.default_rng(7).normal(0.0, 6.0, image.shape)
    return cam, cv2.GaussianBlur(np.clip(image + noise, 0, 255).astype(np.uint8), (0, 0), 0.8), on_roof, on_mat, roof_z


def test_a_base_standing_on_a_roof_is_not_on_the_table() -> None:
    """A 28 mm base 4 mm tall standing on a building's flat roof 100 mm up (a roof 90 mm square, a little lighter than
    the green mat), seen by a camera 900 mm above the table. The analysis measures every base on the table's plane,
    where this one is seen magnified 900 / (900 - 100) = 1.125 times (31.5 mm) and 100 / 800 of its distance from the
    camera's foot further away (over 100 mm here): the footprint fit takes it as a 32 mm base on the mat, its outline
    explained to 0.15 mm. The ring round it is the roof on every ray (its colour 4-7 of the table's whitened units from
    the mat's, over the 3 the mat's own variation reaches): it does not stand on the table, so it is not confident. The
    same base on the mat has the mat all round it."""
    from tabletop.photo.candidates import mat_model
    from tabletop.photo.detect import GROUND_MIN_RAYS
    from tabletop.photo.footprint import fit_footprints
    from tabletop.photo.rays import photo_scale
    from tabletop.photo.rectify import rectify

    cam, image, on_roof, on_mat, roof_z = base_on_a_roof(ROOF)
    rect = rectify(image, _corners(cam), TABLE, 1.0, camera=cam, base_height_mm=None)  # type: ignore[arg-type]
    mat = mat_model(rect.image)
    # Where the table's plane sees each: the roof's base displaced and magnified (camera 900 mm up: 1.125 times).
    seen = cam.unproject(cam.project(np.array([on_roof, on_mat]), 0.0), 0.0)
    seen[0] = cam.unproject(cam.project(np.array([on_roof]), roof_z), 0.0)[0]
    assert math.hypot(*(seen[0] - on_roof)) > 100.0
    colour = np.float32([[70, 120, 80], [70, 120, 80]])
    fit = fit_footprints(rect, seen, np.array([16.0, 14.0]), colour, mat.whiten, photo_scale(rect), np.array(BASE_SIZES_MM))
    assert fit is not None and fit.ground_rays is not None
    assert fit.taken[0] and fit.radii[0] == 16.0 and fit.rms[0] < 0.3  # read as a clean 32 mm base
    assert fit.ground_rays[0] < GROUND_MIN_RAYS <= fit.ground_rays[1]


@pytest.mark.slow
@pytest.mark.cpu
@pytest.mark.parametrize(("condition", "seed"), [("barrel", 5004), ("clusters", 1001)])
def test_a_side_followed_onto_another_edge_leaves_the_lens_to_the_other_three(condition: str, seed: int) -> None:
    """benchmarks.photogen's barrel seed 5004 (12 MP, k1 -0.098) and clusters seed 1001 (k1 -0.030), corners given.
    One side's wide band follows another edge (barrel: the near side 58 px below the table's; clusters: the far side
    into the room), so the four wide sides straighten to 10-17 px RMS; the narrow band (8 px round the straight line
    between the corners) cannot follow a 13-21 px bow, so its points read k1 = 0 at a sigma of 0.002-0.003, and the
    analysis placed every base 3 mm (clusters) to 7.5 mm (barrel) off, radially, at sigma 0.9-1.1 mm. Without that side
    the other three straighten to 0.3-1.0 px at k1 -0.090 and -0.029."""
    from tabletop.photo.rectify import measure_lens

    photogen = pytest.importorskip("benchmarks.photogen.generate")
    photo = photogen.render_photo(condition, seed)
    truth = photo.truth
    corners = tuple(tuple(c) for c in truth["corners_px"])
    lens, rms, _ = measure_lens(photo.image, corners, None)  # type: ignore[arg-type]
    assert not lens.identity
    k1, _ = lens.opencv(truth["camera"]["focal_px"])
    assert k1 == pytest.approx(truth["camera"]["dist"][0], abs=0.012)
    assert rms < 1.5


def test_the_a_contrario_outline_looked_for_at_the_grid_places_round_a_fit_off_its_centre() -> None:
    """A 32 mm base 4 mm tall on a grey mat: its outline tested at its footprint is seen (log10 NFA < 0), tested 3 mm
    off much less so. Looked for at the grid places within 3 mm of the off centre (``nearby_log10_nfa``), the footprint
    is one of them, so the best is at least as plain as the footprint's own; within less than the grid's step only the
    place itself is tried, the plain test's value."""
    from tabletop.photo.candidates import mat_model
    from tabletop.photo.contrario import GRID_MM, log10_nfa, nearby_log10_nfa, outline_alignment
    from tabletop.photo.rectify import rectify

    cam = _true_camera()
    radius, height, centre = 16.0, 4.0, np.array([600.0, 600.0])
    image = np.empty((SIZE[1], SIZE[0], 3), np.uint8)
    image[:] = (110, 110, 110)
    around = np.radians(np.arange(0.0, 360.0, 0.5))
    circle = radius * np.column_stack([np.cos(around), np.sin(around)])
    for level in np.linspace(0.0, height, 9):
        _fill_envelope(image, cam.project(circle + centre, float(level)), (40, 40, 45))
    _fill_envelope(image, cam.project(circle + centre, height), (200, 205, 210))
    noise = np.random.default_rng(3).normal(0.0, 6.0, image.shape)
    image = cv2.GaussianBlur(np.clip(image + noise, 0, 255).astype(np.uint8), (0, 0), 0.8)
    rect = rectify(image, _corners(cam), TABLE, 1.0, camera=cam, base_height_mm=None)  # type: ignore[arg-type]
    whiten = mat_model(rect.image).whiten
    colour = np.float32([[110, 110, 110]])
    sizes = len(BASE_SIZES_MM)
    at_base = float(log10_nfa(rect, *outline_alignment(rect, centre[None], np.array([radius]), colour, whiten), sizes)[0])
    off = centre[None] + [3.0, 0.0]
    at_off = float(log10_nfa(rect, *outline_alignment(rect, off, np.array([radius]), colour, whiten), sizes)[0])
    assert at_base < 0 and at_off > at_base + 5
    nearby = nearby_log10_nfa(rect, off, np.array([radius]), colour, whiten, sizes, np.array([3.0]))
    assert nearby[0] <= at_base
    assert nearby_log10_nfa(rect, off, np.array([radius]), colour, whiten, sizes, np.array([0.9 * GRID_MM]))[0] == at_off
