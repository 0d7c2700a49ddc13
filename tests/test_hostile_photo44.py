"""Stop 44's photo work attacked as a hostile user would: the table's surfaces (``ground.ground_map``) on mats whose
colour varies, and the review's click (``local.fit_base_at``) on roofs, prints, roads, edges, outside the table and at
the app's most zoomed-out view. Real defects are pinned as strict xfails (the day one is fixed, its xfail must go);
what holds is a normal test. Every photo is drawn here, small (a 400 x 300 mm table at 3 px/mm; ground maps at 1 px/mm).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tabletop.photo.ground import ground_map  # noqa: E402
from tabletop.photo.local import LOCAL_REACH_MM, fit_base_at  # noqa: E402
from tabletop.photo.values import Rectified  # noqa: E402
from tabletop.viewport import MIN_SCALE  # noqa: E402

GREEN = (70.0, 110.0, 80.0)  # BGR: a green felt mat
ROAD = (110.0, 115.0, 120.0)  # BGR: a printed grey road

# ---------------------------------------------------------------------------------------------- the table's surfaces

MAT_H, MAT_W = 600, 900
"""The drawn mat for the ground map: 900 x 600 mm at 1 px/mm, row 0 at the far edge (table y = 600 - row)."""


def _mat(seed: int = 0) -> np.ndarray:
    return np.broadcast_to(np.array(GREEN), (MAT_H, MAT_W, 3)).copy()


def _noisy(image: np.ndarray, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(np.round(image + rng.normal(0.0, 3.0, image.shape)), 0, 255).astype(np.uint8)


def _on_mat(top: np.ndarray, points: list[tuple[float, float]]) -> list[bool]:
    """Whether a path 16 mm outwards (+x) from each table point first meets the mat's surface."""
    surfaces = ground_map(top, 1.0, float(MAT_H))
    path = np.linspace(0.0, 16.0, 15)
    return [bool(surfaces.first_surface_is_floor((x + path)[None, :], np.full((1, 15), y))[0]) for x, y in points]


def _lamp_cast() -> np.ndarray:
    """A warm lamp's hotspot (red up 100 %, green 40 % at its heart, 80 mm sigma): a colour cast, not a surface."""
    image = _mat()
    yy, xx = np.mgrid[0:MAT_H, 0:MAT_W]
    spot = np.exp(-((xx - 450) ** 2 + (yy - 300) ** 2) / (2 * 80.0 ** 2))
    return image * (1 + np.stack([0 * spot, 0.4 * spot, 1.0 * spot], axis=2))


def _hex_print() -> np.ndarray:
    """A printed grid of dark rings (2 mm lines, 40 mm cells) over the whole mat."""
    image = _mat()
    for row, y0 in enumerate(range(0, MAT_H, 35)):
        for x0 in range(0, MAT_W, 40):
            cv2.circle(image, (x0 + (20 if row % 2 else 0), y0), 20, (40, 60, 45), 2)
    return image


def _patchy_grass() -> np.ndarray:
    """Grass whose hue wanders over ~100 mm patches (green ±10 %, red ±25 % at one sigma)."""
    rng = np.random.default_rng(1)
    low = cv2.resize(rng.normal(0, 1, (8, 12)).astype(np.float32), (MAT_W, MAT_H), interpolation=cv2.INTER_CUBIC)
    return _mat() * (1 + np.stack([0 * low, 0.1 * low, 0.25 * low], axis=2))


@pytest.mark.parametrize("draw", [_lamp_cast, _hex_print, _patchy_grass], ids=["lamp-cast", "hex-print", "patchy-grass"])
def test_one_mat_under_a_colour_cast_or_a_print_is_one_surface(draw) -> None:  # noqa: ANN001
    assert _on_mat(_noisy(draw()), [(100, 100), (455, 300), (520, 300), (700, 500), (300, 200)]) == [True] * 5


def _roads() -> np.ndarray:
    """Two printed roads 60 mm wide crossing the mat (x 300-360 mm; table y 340-400 mm): four pieces of one mat."""
    image = _mat()
    image[:, 300:360] = ROAD
    image[200:260, :] = ROAD
    return image


def _river() -> np.ndarray:
    """A blue river 40 mm wide printed across the mat from corner to corner."""
    image = _mat()
    cv2.line(image, (0, 100), (900, 500), (160, 110, 60), 40)
    return image


def _two_tone() -> np.ndarray:
    """A desert-and-grass mat: its left 45 % sand, the rest green (a printed two-tone mat, one flat surface)."""
    image = _mat()
    image[:, :405] = (120, 170, 200)
    return image


@pytest.mark.parametrize("draw", [_roads, _river, _two_tone], ids=["roads", "river", "two-tone"])
def test_a_printed_road_or_a_second_mat_colour_is_still_the_tables_plane(draw) -> None:  # noqa: ANN001
    """Every piece of the cut mat, and the road or river itself, runs along the table's edge: the table's plane (it was
    only the largest region, so a base beyond the cut counted no ground rays and was never confident)."""
    points = {"_roads": [(100, 100), (600, 100), (100, 500), (600, 500)],
              "_river": [(100, 500), (800, 100)], "_two_tone": [(100, 300), (700, 300)]}[draw.__name__]
    assert _on_mat(_noisy(draw()), points) == [True] * len(points)


@pytest.mark.xfail(strict=True, reason="a raised plateau (a hill's flat top 8 % greener than the mat) filling the right "
                   "half of the table runs along three of its edges, as a two-tone mat's second colour does, and nothing "
                   "in this image tells them apart (no side or slope band between it and the mat): it is taken for the "
                   "table's plane, so bases on it pass the ground test (bases on the road-cut mat now pass too). A hill's "
                   "top inside the table is not the mat however large: test_a_hill_top_inside_the_table_is_not_the_mat")
def test_a_hill_larger_than_each_piece_of_a_road_cut_mat_is_not_the_mat() -> None:
    image = _mat()
    image[:, 450:] = (75.0, 125.0, 85.0)  # the plateau: x 450-900 mm
    image[:, 300:320] = ROAD
    image[300:320, :450] = ROAD
    assert _on_mat(_noisy(image), [(100, 100), (700, 300)]) == [True, False]


def test_a_hill_top_inside_the_table_is_not_the_mat() -> None:
    """A hill (its top 8 % greener, 440 mm square, inside a brown slope band 20 mm wide) larger than each piece of a mat
    cut by two roads (90 000, 84 000 and 117 600 mm^2 against its top's 193 600): the roads and every piece run along
    the table's edge and are its plane; the hill's top, closed off inside, is not (it was 'the mat' as the largest
    region, the pieces not)."""
    image = _mat()
    image[60:540, 400:880] = (50.0, 70.0, 90.0)  # the slope band's outer edge: x 400-880 mm, table y 60-540 mm
    image[80:520, 420:860] = (75.0, 125.0, 85.0)  # the hill's top
    image[:, 300:320] = ROAD
    image[300:320, :450] = ROAD
    assert _on_mat(_noisy(image), [(100, 100), (100, 500), (380, 100), (310, 200), (600, 300), (700, 400)]) == \
        [True, True, True, True, False, False]


# ---------------------------------------------------------------------------------------------- the review's click

PX_PER_MM = 3.0
TABLE_MM = (400.0, 300.0)
SUPERSAMPLE = 4


def _click_photo(features: str, seed: int = 3) -> Rectified:
    """The table from straight above (3 px/mm, flat discs) on a green mat with low-frequency shading and noise.

    ``"town"``: a building (80 x 60 mm grey roof, dark walls) with a 30 mm round tower on it; a printed 40 mm ring (a
    crater or objective print, 1 mm line); a printed road (y 60-100 mm); two 32 mm bases in contact with pale tops.
    ``"road"``: a road 80 mm wide (y 60-140 mm) with a 40 mm pale-topped base and a 25 mm dark base standing on it."""
    rng = np.random.default_rng(seed)
    s = PX_PER_MM * SUPERSAMPLE
    w, h = int(TABLE_MM[0] * s), int(TABLE_MM[1] * s)
    big = np.empty((h, w, 3), np.float32)
    big[...] = GREEN
    low = cv2.resize(rng.normal(0, 8, (h // 40 + 1, w // 40 + 1)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    big += low[..., None]

    def at(x: float, y: float) -> tuple[int, int]:
        return round(x * s), round((TABLE_MM[1] - y) * s)

    def base(x: float, y: float, d: float, top: tuple[int, int, int] | None) -> None:
        cv2.circle(big, at(x, y), round(d / 2 * s), (40, 40, 45), -1, cv2.LINE_AA)
        if top is not None:
            cv2.circle(big, at(x, y), round((d / 2 - 3) * s), top, -1, cv2.LINE_AA)

    if features == "town":
        cv2.rectangle(big, at(40, 240), at(120, 180), (120, 120, 130), -1)
        cv2.rectangle(big, at(40, 240), at(120, 180), (30, 30, 30), round(1.5 * s))
        cv2.circle(big, at(80, 210), round(15 * s), (60, 60, 70), -1, cv2.LINE_AA)
        cv2.circle(big, at(250, 220), round(20 * s), (35, 50, 40), round(1.0 * s), cv2.LINE_AA)
        cv2.rectangle(big, at(0, 100), at(400, 60), ROAD, -1)
        base(300, 160, 32, (170, 180, 190))
        base(332, 160, 32, (170, 180, 190))
    else:
        cv2.rectangle(big, at(0, 140), at(400, 60), ROAD, -1)
        base(200, 100, 40, (170, 180, 190))
        base(300, 100, 25, None)
    img = cv2.resize(big, (int(TABLE_MM[0] * PX_PER_MM), int(TABLE_MM[1] * PX_PER_MM)), interpolation=cv2.INTER_AREA)
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    img += rng.normal(0, 4, img.shape).astype(np.float32)
    source = np.clip(img, 0, 255).astype(np.uint8)
    homography = np.array([[PX_PER_MM, 0, 0], [0, -PX_PER_MM, TABLE_MM[1] * PX_PER_MM], [0, 0, 1]], dtype=np.float64)
    return Rectified(source=source, homography=homography, table_mm=TABLE_MM, px_per_mm=0.0,
                     image=np.zeros((1, 1, 3), np.uint8), calibration_rms_mm=0.0, camera=None, base_height_mm=0.0)


@pytest.fixture(scope="module")
def town() -> Rectified:
    return _click_photo("town")


@pytest.mark.parametrize("where", [
    (60.0, 225.0), (80.0, 200.0), (42.0, 238.0), (40.0, 210.0),  # a roof, its middle, its corner, its wall
    (80.0, 210.0),  # the round tower on the roof
    (250.0, 220.0), (254.0, 220.0), (250.0, 238.0),  # the printed ring: its centre, 4 mm off, on its line
    (100.0, 80.0),  # the printed road
    (316.0, 160.0),  # where two bases touch
    (399.0, 150.0), (0.0, 0.0), (1.0, 280.0),  # at the table's edge and corner
    (-20.0, 100.0), (-500.0, -500.0), (420.0, 310.0),  # outside the table (and outside the photo)
    (float("nan"), 100.0), (100.0, float("inf")),
], ids=lambda p: f"{p[0]:g},{p[1]:g}")
def test_a_click_on_no_base_adds_no_sure_base(town: Rectified, where: tuple[float, float]) -> None:
    """No crash, and nothing reported sure: at most a "check this base" the user can see and delete."""
    found = fit_base_at(town, *where)
    assert found is None or not found.confident, found


@pytest.mark.parametrize("offset", [0.0, 4.0])
def test_a_click_on_a_base_in_contact_fits_that_base_not_its_neighbour(town: Rectified, offset: float) -> None:
    """The app takes a fit within 3 mm of a base on the table for that base (selected, not added twice): the fit must
    land on the base clicked, on either side of the contact."""
    for x, away in ((300.0, -1.0), (332.0, 1.0)):
        found = fit_base_at(town, x + away * offset, 160.0)
        assert found is not None and found.diameter_mm == 32.0
        assert math.hypot(found.x_mm - x, found.y_mm - 160.0) < 0.5


def test_a_click_with_no_reach_fits_the_base_under_it(town: Rectified) -> None:
    """A reach under LOCAL_MIN_REACH_MM is held at it (it raised IndexError and missed a plain base)."""
    found = fit_base_at(town, 300.0, 160.0, reach_mm=0.0)
    assert found is not None and found.diameter_mm == 32.0


def test_a_click_at_the_apps_widest_zoom_adds_no_sure_base_far_from_it(town: Rectified) -> None:
    """A reach over LOCAL_MAX_REACH_MM is held at it (a 120 mm search found a roof's tower 70 mm off, sure)."""
    reach = max(LOCAL_REACH_MM, 6 / MIN_SCALE)
    found = fit_base_at(town, 150.0, 250.0, reach_mm=reach)
    assert found is None or not found.confident or math.hypot(found.x_mm - 150.0, found.y_mm - 250.0) < 20.0, found


@pytest.fixture(scope="module")
def road() -> Rectified:
    return _click_photo("road")


@pytest.mark.parametrize("base", [(200.0, 100.0, 40.0), (300.0, 100.0, 25.0)], ids=["pale-40", "dark-25"])
def test_a_click_on_a_base_standing_on_a_printed_road_fits_it(road: Rectified, base: tuple[float, float, float]) -> None:
    """A plainly visible base standing on a printed road 80 mm wide (a 40 mm one with a pale top and dark rim, a 25 mm
    dark one): the crop's outer ring is mostly the green mat either side of the road, so nothing is found against it;
    the road, a third of the crop, is then taken for the ground (it was 'no rim found here')."""
    x, y, d = base
    found = fit_base_at(road, x, y)
    assert found is not None and found.diameter_mm == d and math.hypot(found.x_mm - x, found.y_mm - y) < 0.5


def test_a_photo_squashed_to_non_square_pixels_is_answered_without_confidence() -> None:
    """synth.py's photo squashed to three quarters of its height (a resize that kept the width): the camera's square
    pixels no longer fit; with its corners given (squashed too) or found, nothing is reported sure and wrong (measured:
    6 confident bases before the squash, none after; the same on the generator's baseline seed 1000)."""
    from tabletop.photo.pipeline import analyse_image
    from tabletop.photo.synth import synth_photo
    from tabletop.photo.values import LoadedImage

    photo = synth_photo(7, size=(2400, 1800), n_bases=12)
    squashed = cv2.resize(photo.image, (2400, 1350), interpolation=cv2.INTER_AREA)
    corners = tuple((float(x), float(y) * 0.75) for x, y in photo.corners_px)
    truth = np.array([(b.x_mm, b.y_mm) for b in photo.bases])
    for given in (corners, None):
        result = analyse_image(LoadedImage(squashed, "squashed.jpg", (2400, 1350)), photo.table_mm, corners=given,  # type: ignore[arg-type]
                               base_height_mm=0.0)
        for b in result.bases:
            error = float(np.min(np.hypot(truth[:, 0] - b.x_mm, truth[:, 1] - b.y_mm)))
            assert not (b.confident and error > 1.0 and error > 3 * b.sigma_mm), (given is None, b)


def test_a_tape_measure_along_the_far_edge_does_not_move_the_unaided_outline() -> None:
    """A yellow tape measure (20 px wide) lying along the table's far side, 4 % of the table in from it, on synth.py's
    4000 x 3000 photo, no corners given: stop 44's far-side replacement must not take the tape for the table's edge.
    Held: every corner within 1 px; the outline is doubted ("a second straight edge lies inside its upper side"), so
    its 12 confident bases all become "check" (measured; honest, not wrong)."""
    from tabletop.photo.pipeline import analyse_image
    from tabletop.photo.synth import synth_photo
    from tabletop.photo.values import LoadedImage

    photo = synth_photo(7, size=(4000, 3000), n_bases=12)
    image = photo.image.copy()
    c = np.asarray(photo.corners_px, dtype=float)  # LL, LR, UR, UL
    a, b = c[3] + (c[0] - c[3]) * 0.04, c[2] + (c[1] - c[2]) * 0.04
    a, b = a + (b - a) * 0.03, b + (a - b) * 0.03
    cv2.line(image, tuple(int(v) for v in np.round(a)), tuple(int(v) for v in np.round(b)), (40, 200, 230), 20, cv2.LINE_AA)
    result = analyse_image(LoadedImage(image, "tape.jpg", (4000, 3000)), photo.table_mm, base_height_mm=0.0)
    found = np.asarray(result.corners_px)
    assert max(float(np.min(np.hypot(*(found - t).T))) for t in c) <= 1.0
    truth = np.array([(b.x_mm, b.y_mm) for b in photo.bases])
    for base in result.bases:
        error = float(np.min(np.hypot(truth[:, 0] - base.x_mm, truth[:, 1] - base.y_mm)))
        assert not (base.confident and error > 1.0 and error > 3 * base.sigma_mm), base


# ---------------------------------------------------------------------------------------------- a generator photo


def _confident_right(result: object, truth: dict) -> int:
    xy = np.array([(b["x_mm"], b["y_mm"]) for b in truth["bases"]])
    return sum(1 for b in result.bases  # type: ignore[attr-defined]
               if b.confident and float(np.min(np.hypot(xy[:, 0] - b.x_mm, xy[:, 1] - b.y_mm))) <= 1.0)


@pytest.mark.slow
@pytest.mark.cpu
def test_a_generator_photo_with_printed_roads_keeps_its_confident_bases(monkeypatch: pytest.MonkeyPatch) -> None:
    """benchmarks.photogen's baseline seed 1000 (12 MP, felt mat, corners given) with two printed grey roads 60 mm wide
    crossing its mat: the four pieces and the roads run along the table's edge, so all are its plane. Measured: 6
    confident bases, none wrong, in both modes (the same photo without roads: 6; when the mat was the largest region
    only: 1)."""
    photogen = pytest.importorskip("benchmarks.photogen.generate")
    from tabletop.photo.pipeline import analyse_image
    from tabletop.photo.values import LoadedImage

    make_mat = photogen.make_mat

    def with_roads(kind: str, size_mm: tuple[float, float], px_per_mm: float, rng: np.random.Generator):  # noqa: ANN202
        image, mean = make_mat(kind, size_mm, px_per_mm, rng)
        h, w = image.shape[:2]
        road = round(60 * px_per_mm)
        image[:, int(w * 0.48):int(w * 0.48) + road] = (0.18, 0.18, 0.19)
        image[h // 2:h // 2 + road, :] = (0.18, 0.18, 0.19)
        return image, mean

    monkeypatch.setattr(photogen, "make_mat", with_roads)
    photo = photogen.render_photo("baseline", 1000)
    truth = photo.truth
    corners = tuple(tuple(c) for c in truth["corners_px"])
    h, w = photo.image.shape[:2]
    result = analyse_image(LoadedImage(photo.image, "roads.jpg", (w, h)), tuple(truth["table_mm"]), corners=corners)  # type: ignore[arg-type]
    assert _confident_right(result, truth) >= 5


@pytest.mark.slow
@pytest.mark.cpu
@pytest.mark.timeout(600)  # a 12 MP render: 30 s calm, over 120 s on a loaded machine
@pytest.mark.parametrize(("piece", "move_mm"), [(2, (-5.0, 0.0)), (2, (-20.0, 0.0)), (0, (5.0, 0.0)), (2, (0.0, -3.0))],
                         ids=["upper-right-5mm-along", "upper-right-20mm-along", "lower-left-5mm-along", "upper-right-3mm-in"])
def test_a_marker_laid_short_of_its_corner_is_not_a_sure_corner(monkeypatch: pytest.MonkeyPatch, piece: int,
                                                               move_mm: tuple[float, float]) -> None:
    """benchmarks.photogen's markers seed 1 (12 MP, all four markers seen) with one piece not pushed home: the upper-right
    5 or 20 mm short of its corner along the far edge, the lower-left 5 mm along the near edge, the upper-right 3 mm in
    from the far edge. Before (stop 44): that corner 8.9 / 35.9 / 11.5 / 4.4 px off at a sigma of 0.38-0.54 px, the fit
    'consistent' (the camera's free focal length absorbs the shorter side), and at 5 mm 9 of 15 confident bases 1.0-2.9 mm
    off. Now the table's edge running on past the piece's corner point leaves that piece out (``not_home``) and its
    corner is placed from the others (0.1-0.3 px off, sigma 0.7-0.8 px); no base confidently wrong."""
    import dataclasses

    photogen = pytest.importorskip("benchmarks.photogen.generate")
    scene = pytest.importorskip("benchmarks.photogen.scene")
    from tabletop.photo import markers as mk
    from tabletop.photo.pipeline import analyse_image
    from tabletop.photo.values import LoadedImage

    laid = scene._markers

    def short_of_corner(params, rng):  # noqa: ANN001, ANN202
        found = list(laid(params, rng))
        moved = found[piece]
        found[piece] = dataclasses.replace(moved, centre=(moved.centre[0] + move_mm[0], moved.centre[1] + move_mm[1]))
        return tuple(found)

    monkeypatch.setattr(scene, "_markers", short_of_corner)
    photo = photogen.render_photo("markers", 1)
    truth = photo.truth
    # The markers' fit is the one the analysis below makes (found once: it is a few seconds of a 12 MP photo). The
    # fit calls itself again without a piece not home, with the pieces it kept: only the outer call is the photo's.
    fits: list[mk.MarkerFit | None] = []
    find = mk.table_from_markers

    def recorded(image: np.ndarray, table_mm: tuple[float, float], sightings: list[mk.Sighting] | None = None,
                 *rest: object, **named: object) -> mk.MarkerFit | None:
        fit = find(image, table_mm, sightings, *rest, **named)  # type: ignore[arg-type]
        if sightings is None:
            fits.append(fit)
        return fit

    monkeypatch.setattr(mk, "table_from_markers", recorded)
    h, w = photo.image.shape[:2]
    result = analyse_image(LoadedImage(photo.image, "short.jpg", (w, h)), tuple(truth["table_mm"]))  # type: ignore[arg-type]
    assert len(fits) == 1
    fit = fits[0]
    assert fit is not None and fit.corners_px is not None and fit.corner_sigma_px is not None
    err = np.linalg.norm(np.asarray(fit.corners_px) - np.asarray(truth["corners_px"]), axis=1)
    assert not fit.consistent or np.all(err < 3 * np.asarray(fit.corner_sigma_px)), (err, fit.corner_sigma_px)
    assert fit.not_home == (piece,) and "not in its corner" in fit.note()
    xy = np.array([(b["x_mm"], b["y_mm"]) for b in truth["bases"]])
    wrong = [b for b in result.bases
             if b.confident and (e := float(np.min(np.hypot(xy[:, 0] - b.x_mm, xy[:, 1] - b.y_mm)))) > 1.0 and e > 3 * b.sigma_mm]
    assert not wrong, wrong


# ---------------------------------------------------------------------------------------------- the app's review


@pytest.fixture(scope="module")
def review_photo(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, object]:
    """The review tests' photo (``synth.py``'s 24-inch table, 3200 x 2400, 14 flat bases)."""
    from tabletop.photo.synth import synth_photo

    table = 24 * 25.4
    photo = synth_photo(6, size=(3200, 2400), n_bases=14, table_mm=(table, table))
    path = tmp_path_factory.mktemp("hostile44") / "table.jpg"
    cv2.imwrite(str(path), photo.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path, photo


def _review(tmp_path, review_photo):  # noqa: ANN001, ANN202
    """The app with the photo imported (its four corners clicked, Enter): the review open."""
    import pygame

    from tabletop import scenario_io
    from tabletop.app.pilot import Pilot
    from tabletop.model import Scenario, Table

    path, photo = review_photo
    side = photo.table_mm[0]
    table = tmp_path / "table.toml"
    scenario_io.save(Scenario(Table(side, side), title="hostile review", units="mm"), table)
    p = Pilot(table)
    assert p.app.start_photo_import(str(path))
    job = p.app.photo_import
    for c in photo.corners_px:
        p.click(tuple(round(v) for v in job.to_screen(p.app.view_rect, c)))
    p.key(pygame.K_RETURN)
    p.app.wait_photo_import()
    p.step(3)
    assert p.app.review is not None
    return p


def test_m_after_a_click_outside_the_table_adds_no_base_off_the_table(tmp_path, review_photo) -> None:  # noqa: ANN001
    """A no-rim click off the table offers no circle there (M added a base 30 mm outside it)."""
    import pygame

    p = _review(tmp_path, review_photo)
    try:
        side = review_photo[1].table_mm[0]
        before = {m.id for m in p.app.scenario.models}
        p.click(p.screen_of((-30.0, side / 2)))
        p.step(2)
        p.key(pygame.K_m, unicode="m")
        p.step(2)
        added = [m for m in p.app.scenario.models if m.id not in before]
        assert all(0.0 <= m.x <= side and 0.0 <= m.y <= side for m in added), [(m.id, m.x, m.y) for m in added]
    finally:
        p.close()


@pytest.mark.slow
def test_a_click_at_the_widest_zoom_answers_within_a_second(tmp_path, review_photo) -> None:  # noqa: ANN001
    """At the widest zoom a click asks for a closer zoom at once (it froze the window for seconds)."""
    from tabletop.viewport import MIN_SCALE

    p = _review(tmp_path, review_photo)
    try:
        side = review_photo[1].table_mm[0]
        centre = p.screen_of((side / 2, side / 2))
        for _ in range(80):
            p.wheel(-1, centre)
        p.step(2)
        assert p.app.viewport.scale == pytest.approx(MIN_SCALE)
        fits = p.app.review.last_fit_ms
        p.click(p.screen_of((-200.0, side / 2)))
        p.step(2)
        # No search at all (the guide keeps timings out of unit tests): the click asks for a closer zoom at once.
        assert "Zoom in" in p.app.message and p.app.review.last_fit_ms == fits and p.app.review.offer is None
    finally:
        p.close()


def test_a_click_on_a_base_already_proposed_selects_it_not_a_duplicate(tmp_path, review_photo) -> None:  # noqa: ANN001
    """A click 2 mm off every proposal's centre at the first zoom selects that proposal; no second base is added on it."""
    p = _review(tmp_path, review_photo)
    try:
        models = list(p.app.scenario.models)
        for m in models:
            p.click(p.screen_of((m.x + 2.0, m.y)))
            p.step(2)
            assert len(p.app.scenario.models) == len(models), (m.id, p.app.message)
            selected = p.app.state.selection
            assert selected is not None and selected.id == m.id, (m.id, selected, p.app.message)
        # Just outside its ring (2 mm past the rim, within the click's reach): the fit runs, lands on the proposal, and
        # the app says so instead of adding it twice.
        for m in models:
            p.click(p.screen_of((m.x + m.base.width / 2 + 2.0, m.y)))
            p.step(2)
            assert len(p.app.scenario.models) == len(models), (m.id, p.app.message)
    finally:
        p.close()
