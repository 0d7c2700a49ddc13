"""A hex-printed mat's cells are not bases (issue 34, stop 60): ``tabletop.photo.printed``.

Before this stop a mat printed with 1.5-inch hexes gave a "base" in nearly every cell of a catalogue size (the
generator's hex photos: 413 phantoms among 23 bases in one, 91 in another), none of them confident, but each a
base to check by hand. A cell's outline is a regular hexagon; a base's is a circle.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tabletop.photo.printed import HEX_MAX_GAP, HEX_RIPPLE, HEX_STANDOUT, NEIGHBOURS, harmonics, longest_gap  # noqa: E402

RAYS = 120
ANGLES = np.linspace(0, 2 * math.pi, RAYS, endpoint=False)
ALL = np.ones((1, RAYS), bool)


def _hexagon_radii(apothem: float, turn_deg: float = 0.0) -> np.ndarray:
    """A regular hexagon's radius on each ray: apothem / cos(angle from the nearest side's normal)."""
    u = (ANGLES - math.radians(turn_deg) + math.pi / 6) % (math.pi / 3) - math.pi / 6
    return apothem / np.cos(u)


def _standout(amplitude: np.ndarray) -> float:
    return float(amplitude[0, 6] ** 2 / np.mean(amplitude[0, list(NEIGHBOURS)] ** 2))


def test_a_hexagons_sixth_harmonic_is_the_documented_share_of_its_radius() -> None:
    """Worked: a hexagon's mean radius is (3 / pi) ln 3 = 1.0491 apothems (the mean of sec over +-30 degrees); its
    sixth harmonic, 2 x the mean of r cos(6 angle), is 0.0616 apothems, 0.0587 of the mean radius (``HEX_RIPPLE``);
    its 12th 0.0167; every other harmonic nothing. Whatever the hexagon's turn and size."""
    for apothem, turn in ((19.05, 0.0), (22.2, 17.0), (12.0, 44.0)):
        mean, amplitude = harmonics(_hexagon_radii(apothem, turn)[None], ALL, ANGLES)
        assert mean[0] == pytest.approx(3 / math.pi * math.log(3) * apothem, rel=2e-3)
        assert amplitude[0, 6] / mean[0] == pytest.approx(HEX_RIPPLE, abs=1e-3)
        assert amplitude[0, 12] / mean[0] == pytest.approx(0.0167, abs=1e-3)
        assert amplitude[0, list(NEIGHBOURS)].max() < 1e-3 * mean[0]
        assert _standout(amplitude) > 1000 * HEX_STANDOUT


def test_a_hexagon_read_with_noise_far_from_the_camera_still_stands_out() -> None:
    """A 38.1 mm cell read with 1 mm of scatter per ray (far from the camera, a thin line under a pixel wide): its
    sixth harmonic (1.18 mm) is still 0.0587 of its radius within the noise (each harmonic's about 1 x sqrt(4 / 120) =
    0.18 mm), and stands out from its neighbours by about (1.18 / 0.18)^2 = 40."""
    rng = np.random.default_rng(2)
    rho = _hexagon_radii(19.05, 8.0) + rng.normal(0, 1.0, RAYS)
    mean, amplitude = harmonics(rho[None], ALL, ANGLES)
    assert amplitude[0, 6] > 0.5 * HEX_RIPPLE * mean[0]
    assert _standout(amplitude) > HEX_STANDOUT


def test_a_circle_off_centre_with_noise_has_no_sixfold_ripple() -> None:
    """A base's outline: a circle of 16 mm, read from a centre 0.7 mm off (a first harmonic, which the fit takes out)
    with 0.2 mm of noise per ray: its sixth harmonic is the noise's, about 0.2 x sqrt(4 / 120) = 0.04 mm, far under half a
    hexagon's (0.47 mm at this size)."""
    rng = np.random.default_rng(1)
    rho = 16.0 + 0.7 * np.cos(ANGLES - 0.4) + rng.normal(0, 0.2, RAYS)
    mean, amplitude = harmonics(rho[None], ALL, ANGLES)
    assert mean[0] == pytest.approx(16.0, abs=0.05)
    assert amplitude[0, 1] == pytest.approx(0.7, abs=0.06)
    assert amplitude[0, 6] < 0.1


def test_a_figure_over_part_of_the_rim_is_no_sixfold_ripple() -> None:
    """A figure's foot over 30 degrees of a 25 mm base's rim, read 4 mm out (as far as the outline is read): a bump of
    height h and width w has harmonics (2 h / (k pi)) |sin(k w / 2)|, its sixth 4 / (3 pi) = 0.42 mm, over half a
    hexagon's (0.37 mm at this size), but its 2nd-5th 0.64, 0.60, 0.55, 0.49 mm: it does not stand out."""
    rho = np.full(RAYS, 12.5)
    rho[(ANGLES > 1.0) & (ANGLES <= 1.0 + math.pi / 6)] += 4.0
    mean, amplitude = harmonics(rho[None], ALL, ANGLES)
    assert amplitude[0, 6] > 0.5 * HEX_RIPPLE * mean[0]
    assert amplitude[0, 2:6] == pytest.approx([0.64, 0.60, 0.55, 0.49], abs=0.03)
    assert _standout(amplitude) < 2.0


def test_rays_not_usable_do_not_count() -> None:
    """The fit is on the usable rays only: a hexagon read on every ray but every third one, and with a gap of 30
    degrees, the rest wild, is still one."""
    rho = _hexagon_radii(19.05)
    for usable in (np.arange(RAYS) % 3 != 0, ~((ANGLES > 2.0) & (ANGLES <= 2.0 + math.pi / 6))):
        wild = np.where(usable, rho, 40.0)
        mean, amplitude = harmonics(wild[None], usable[None], ANGLES)
        assert amplitude[0, 6] / mean[0] == pytest.approx(HEX_RIPPLE, abs=3e-3)
        assert _standout(amplitude) > HEX_STANDOUT
        assert longest_gap(usable[None])[0] <= HEX_MAX_GAP


def test_the_longest_gap_runs_round_the_circle() -> None:
    """The rays not seen at the end and at the start of the circle are one gap; none seen is a gap of all of them."""
    usable = np.ones((3, 12), bool)
    usable[0, [0, 1, 10, 11]] = False
    usable[1, 4:9] = False
    usable[2] = False
    assert longest_gap(usable).tolist() == [4, 5, 12]


TABLE = (1219.2, 914.4)
MAT, INK = (120, 150, 160), (55, 70, 75)
BASES = ((210.0, 180.0, 25.0), (420.0, 330.0, 32.0), (655.0, 205.0, 40.0), (900.0, 420.0, 50.0), (330.0, 610.0, 40.0),
         (780.0, 690.0, 25.0), (1040.0, 170.0, 32.0))
"""Round bases (x, y, diameter in mm), 4 mm tall, their tops pale grey, their sides dark."""


def _hex_mat_photo(bases: tuple[tuple[float, float, float], ...] = BASES, hexes: bool = True, height: float = 4.0,
                   flat: float = 38.1) -> tuple[np.ndarray, tuple[tuple[float, float], ...]]:
    """A phone 55 degrees up over a mat printed with hexes ``flat`` mm flat to flat (1.5 inches; lines 0.8 mm; or plain)
    and ``bases``, ``height`` mm tall; JPEG 90. Returns the photo and the table's corners."""
    from tests.test_photo_camera import _fill_envelope, _look_at

    from tabletop.photo.camera import Camera, Distortion

    w, d = TABLE
    size, f = (4000, 3000), 3000.0
    r, t = _look_at(np.array([w / 2, -560.0, 800.0]), np.array([w / 2, d / 2, 0.0]))
    c = ((size[0] - 1) / 2, (size[1] - 1) / 2)
    cam = Camera(f, c, r, t, Distortion.from_opencv(0.0, 0.0, f, c, 0.5 * math.hypot(*size)))
    # The print drawn top-down at 3 px/mm, then laid on the table's plane by its homography.
    s = 3.0
    print_img = np.empty((int(d * s), int(w * s), 3), np.uint8)
    print_img[:] = MAT
    side = flat / math.sqrt(3)
    lines = []
    for col in range(int(w / (1.5 * side)) + 3):
        cx = col * 1.5 * side - side
        for row in range(int(d / flat) + 3):
            cy = row * flat + (col % 2) * flat / 2 - flat
            pts = [(cx + side * math.cos(math.radians(60 * k)), cy + side * math.sin(math.radians(60 * k))) for k in range(7)]
            lines.append(np.round(np.array(pts) * s * 16).astype(np.int32))
    if hexes:
        cv2.polylines(print_img, lines, False, INK, thickness=int(round(0.8 * s)), lineType=cv2.LINE_AA, shift=4)
    quad = np.array([[0, 0], [w, 0], [w, d], [0, d]], float)
    photo_quad = cam.project(quad, 0.0)
    texture_quad = np.array([[0, d * s], [w * s, d * s], [w * s, 0], [0, 0]], np.float32)
    h = cv2.getPerspectiveTransform(texture_quad, photo_quad.astype(np.float32))
    img = np.empty((size[1], size[0], 3), np.uint8)
    img[:] = (40, 40, 40)
    cv2.warpPerspective(print_img, h, size, dst=img, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT)
    around = np.radians(np.arange(0, 360, 1.0))
    unit = np.column_stack([np.cos(around), np.sin(around)])
    for x, y, diameter in bases:
        for z in np.linspace(0, height, 6):
            _fill_envelope(img, cam.project(unit * diameter / 2 + (x, y), z), (45, 45, 50))
        _fill_envelope(img, cam.project(unit * diameter / 2 + (x, y), height), (200, 205, 210))
    rng = np.random.default_rng(7)
    img = cv2.GaussianBlur(np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8), (0, 0), 0.8)
    img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1], cv2.IMREAD_COLOR)
    return img, tuple((float(u), float(v)) for u, v in photo_quad)


@pytest.fixture(scope="module")
def hex_mat():  # noqa: ANN201
    """The hex-mat photo's analysis, and its rectified table as the detector got it."""
    img, corners = _hex_mat_photo()
    with pytest.MonkeyPatch.context() as mp:
        return _analysed(img, corners, mp)


def test_on_a_hex_printed_mat_the_cells_are_not_reported_as_bases(hex_mat) -> None:  # noqa: ANN001
    """Of the print's ~750 whole cells (an apothem of 19.05 mm: a 40 mm base's size), 473 were reported as bases before
    ``printed`` (every one "check this base"); now 22, each a cell a base or the table's edge covers part of (its
    outline not seen all round, it cannot be judged). The bases are found as before: six of seven within 3 mm; the
    32 mm one at (420, 330) loses, before as now, to the cell its rim crosses (the drawn bases' confidence is low:
    0.00-0.54)."""
    found = [(b.x_mm, b.y_mm, b.diameter_mm) for b in hex_mat[0].bases]
    near = [any(math.hypot(f[0] - x, f[1] - y) < 3.0 for f in found) for x, y, _ in BASES]
    assert sum(near) >= 6, near
    others = [f for f in found if all(math.hypot(f[0] - x, f[1] - y) >= 3.0 for x, y, _ in BASES)]
    assert len(others) <= 30, len(others)


def _analysed(img: np.ndarray, corners: tuple[tuple[float, float], ...], monkeypatch: pytest.MonkeyPatch,
              detect: bool = True):  # noqa: ANN202
    """The pipeline's analysis of a drawn photo (its bases found only where ``detect``), and its rectified table as the
    detector got it (its corners refined, its camera and lens)."""
    from tabletop.photo import pipeline
    from tabletop.photo.values import LoadedImage

    seen: dict = {}
    real_detect = pipeline.detect

    def keep_rect(rect, sizes):  # noqa: ANN001, ANN202
        seen["rect"] = rect
        return real_detect(rect, sizes) if detect else ([], [])

    monkeypatch.setattr(pipeline, "detect", keep_rect)
    result = pipeline.analyse_image(LoadedImage(img, "drawn.jpg", (img.shape[1], img.shape[0])), TABLE, corners)
    return result, seen["rect"]


def _rect_of(img: np.ndarray, corners: tuple[tuple[float, float], ...], monkeypatch: pytest.MonkeyPatch):  # noqa: ANN202
    """The photo's rectified table as the pipeline builds it, no bases looked for."""
    return _analysed(img, corners, monkeypatch, detect=False)[1]


def _judged(rect, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """``printed_cells`` at these circles, with the mat's colour and whitening the detector would give it."""
    from tabletop.photo import BASE_SIZES_MM
    from tabletop.photo.candidates import candidate_px_per_mm, candidates
    from tabletop.photo.printed import printed_cells
    from tabletop.photo.rays import photo_scale

    _, mat, _ = candidates(rect, tuple(sorted(BASE_SIZES_MM)))
    s, d = candidate_px_per_mm(rect), rect.table_mm[1]
    colour = mat.at(np.column_stack([centres[:, 0] * s, (d - centres[:, 1]) * s]), radii * s)
    return printed_cells(rect, centres, radii, colour, mat.whiten, photo_scale(rect))


def test_every_cell_near_and_far_is_printed_and_no_base_is(hex_mat) -> None:  # noqa: ANN001
    """The judgement alone, at the true places: every whole cell of the print, from the near edge (0.5 mm of table per
    pixel) to the far one (0.87 mm), read as a 40 mm base's circle, is a printed cell; no base is."""
    rect = hex_mat[1]
    side = 38.1 / math.sqrt(3)
    cells = []
    for col in range(40):
        for row in range(30):
            # The print is drawn top-down: its rows run from the far edge.
            x, y = col * 1.5 * side - side, TABLE[1] - (row * 38.1 + (col % 2) * 38.1 / 2 - 38.1)
            clear = all(math.hypot(x - bx, y - by) > bd / 2 + 25 for bx, by, bd in BASES)
            if 30 < x < TABLE[0] - 30 and 30 < y < TABLE[1] - 30 and clear:
                cells.append((x, y))
    cells_arr = np.array(cells)
    judged = _judged(rect, cells_arr, np.full(len(cells_arr), 20.0))
    missed = cells_arr[~judged]
    assert len(missed) <= 0.02 * len(cells_arr), (len(missed), len(cells_arr), missed[:10].round(1).tolist())
    bases = np.array([(x, y) for x, y, _ in BASES])
    assert not _judged(rect, bases, np.array([dd / 2 for *_, dd in BASES])).any()


def _ringed(x: float, y: float, diameter: float) -> tuple[tuple[float, float, float], ...]:
    """A base and six of its size round it in contact, 60 degrees apart: the bases' outlines meet it sixfold."""
    return ((x, y, diameter),) + tuple((x + diameter * math.cos(a), y + diameter * math.sin(a), diameter)
                                       for a in np.radians(np.arange(0, 360, 60) + 15))


def test_a_base_ringed_by_six_in_contact_is_no_printed_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one place a base's outline meets something sixfold: six bases of its size round it in contact (a unit
    packed as tightly as it goes), on a plain mat and on the hex print. Neither the middle one nor any other is a
    printed cell: the contacts are six points, not a hexagon's sides."""
    ringed = _ringed(330.0, 330.0, 25.0) + _ringed(800.0, 420.0, 32.0) + _ringed(560.0, 700.0, 40.0)
    for hexes in (False, True):
        img, corners = _hex_mat_photo(ringed, hexes=hexes)
        rect = _rect_of(img, corners, monkeypatch)
        judged = _judged(rect, np.array([(x, y) for x, y, _ in ringed]), np.array([d / 2 for *_, d in ringed]))
        assert not judged.any(), (hexes, [b for b, j in zip(ringed, judged) if j])


def _cell_centre(col: int, row: int, flat: float = 38.1) -> tuple[float, float]:
    """The centre of the print's cell in column ``col`` and row ``row`` (as ``_hex_mat_photo`` draws them), table mm."""
    side = flat / math.sqrt(3)
    return col * 1.5 * side - side, TABLE[1] - (row * flat + (col % 2) * flat / 2 - flat)


def test_a_base_standing_in_a_cell_is_found_at_its_own_size() -> None:
    """Hex-and-counter games stand a base in a cell: 25 mm bases centred in five cells. Each is found within 1.5 mm,
    and at its own size in at least four (before ``printed``: in one; the cell's outline round it was a larger rim, a
    base's figure, and its size was taken; the print's other cells were bases too, 477 of them)."""
    from tabletop.photo import pipeline
    from tabletop.photo.values import LoadedImage

    in_cells = tuple((*_cell_centre(col, row), 25.0) for col, row in ((10, 10), (25, 5), (6, 20), (30, 15), (18, 8)))
    img, corners = _hex_mat_photo(in_cells)
    result = pipeline.analyse_image(LoadedImage(img, "in-cells.jpg", (img.shape[1], img.shape[0])), TABLE, corners)
    sizes = []
    for x, y, _ in in_cells:
        near = [b for b in result.bases if math.hypot(b.x_mm - x, b.y_mm - y) < 1.5]
        assert len(near) == 1, (x, y, [(b.x_mm, b.y_mm, b.diameter_mm) for b in result.bases if math.hypot(b.x_mm - x, b.y_mm - y) < 30])
        sizes.append(near[0].diameter_mm)
    assert sizes.count(25.0) >= 4, sizes
    assert len(result.bases) <= 5 + 30


@pytest.mark.parametrize(("flat", "diameter", "height"), [(25.4, 25.0, 1.0), (38.1, 40.0, 1.0), (50.8, 50.0, 2.0)])
def test_a_low_base_filling_its_cell_is_no_printed_cell(flat: float, diameter: float, height: float,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Review r60: a low base (1-2 mm, MDF) centred in a cell of its own size shows the print just outside its rim at
    the six corners, a sixfold ripple as exact as a cell's (its neighbours nothing, by symmetry): 102 of 105 such
    25 mm bases on 1-inch hexes were judged printed and dropped. Its top is inside its outline, not the mat: none is."""
    cols, rows = range(3, int(TABLE[0] / (1.5 * flat / math.sqrt(3))) - 2, 4), range(3, int(TABLE[1] / flat) - 2, 4)
    bases = tuple((*_cell_centre(c, r, flat), diameter) for c in cols for r in rows)
    img, corners = _hex_mat_photo(bases, height=height, flat=flat)
    rect = _rect_of(img, corners, monkeypatch)
    judged = _judged(rect, np.array([b[:2] for b in bases]), np.full(len(bases), diameter / 2))
    assert len(bases) >= 12 and not judged.any(), (int(judged.sum()), len(bases))


@pytest.mark.parametrize("turn", [0.0, pytest.param(30.0, marks=pytest.mark.xfail(strict=True, reason=(
    "not solved: the middle of seven 50 mm bases 2 mm tall, turned 30 degrees, is judged a printed cell. The mat's "
    "colour estimated there (a median over 124 mm) is the bases' tops, so the outline read lies on the neighbours "
    "(mean radius 27.7 mm for a 25 mm rim), with their tops on both sides of it. The detector does not find such a "
    "ring's middle base today, on main as here (review r60: 29 of 42 found on both), so no base is lost yet")))])
def test_a_low_base_ringed_by_six_on_a_plain_mat_is_no_printed_cell(turn: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """Review r60: bases 2 mm tall ringed by six in contact, turned 0 or 30 degrees, on a mat with no print: the middle
    one's outline is seen on six arcs between the contacts, its sixth harmonic stands out (standout 17-45); it was judged
    a printed cell. Its top, not the mat, is inside it."""
    ringed = []
    for x, y, d in ((330.0, 330.0, 50.0), (800.0, 420.0, 40.0), (560.0, 700.0, 32.0)):
        ringed += [(x, y, d)] + [(x + d * math.cos(a), y + d * math.sin(a), d) for a in np.radians(np.arange(0, 360, 60) + turn)]
    img, corners = _hex_mat_photo(tuple(ringed), hexes=False, height=2.0)
    rect = _rect_of(img, corners, monkeypatch)
    judged = _judged(rect, np.array([b[:2] for b in ringed]), np.array([b[2] / 2 for b in ringed]))
    assert not judged.any(), [b for b, j in zip(ringed, judged) if j]
