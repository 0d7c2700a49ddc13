"""tabletop photo attacked as a hostile user would (stop 44): odd files, odd corners, odd table sizes, two analyses at
once. Real bugs found are pinned as strict xfails (main stays green; the day one is fixed, its xfail must go)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tabletop.photo import cli as photo_cli  # noqa: E402
from tabletop.photo import uncertainty  # noqa: E402
from tabletop.photo.imageio import load_image  # noqa: E402
from tabletop.photo.pipeline import analyse_image  # noqa: E402
from tabletop.photo.synth import synth_photo  # noqa: E402
from tabletop.photo.values import LoadedImage, PhotoError  # noqa: E402

INCH = 25.4


def _confidently_wrong(result: object, truth_xy_mm: np.ndarray) -> list[tuple[float, float]]:
    """(error mm, sigma mm) of every base reported confident that is > 1 mm and > 3 sigma from its nearest true base."""
    wrong = []
    for b in result.bases:  # type: ignore[attr-defined]
        error = float(np.min(np.hypot(truth_xy_mm[:, 0] - b.x_mm, truth_xy_mm[:, 1] - b.y_mm)))
        if b.confident and error > 1.0 and error > 3 * b.sigma_mm:
            wrong.append((error, b.sigma_mm))
    return wrong


@pytest.mark.parametrize("shape", [(1, 1600), (1200, 1), (1200, 60), (48, 64)])
def test_slivers_and_thumbnails_are_refused_by_name(tmp_path: Path, shape: tuple[int, int]) -> None:
    path = tmp_path / "sliver.png"
    assert cv2.imwrite(str(path), np.full((*shape, 3), 128, np.uint8))
    with pytest.raises(PhotoError, match="sliver.png: .*too small"):
        load_image(path)


def test_a_decompression_bomb_is_refused_by_name(tmp_path: Path) -> None:
    from PIL import Image

    path = tmp_path / "bomb.png"
    Image.new("L", (30000, 30000)).save(path)  # 900 MP of zeros: under a megabyte on disc
    with pytest.raises(PhotoError, match="bomb.png: too many pixels"):
        load_image(path)


@pytest.mark.parametrize("kind", [
    "plain",
    pytest.param("noise", marks=pytest.mark.xfail(strict=True, reason="uniform noise (1600x1200, not JPEG-compressed) "
                 "gives an outline at confidence 0.30, just at TABLE_CONFIDENT: accepted (exit 0, doubt noted, no bases) "
                 "instead of refused; the same before stop 43")),
    "gradient",
])
def test_a_photo_without_a_table_is_refused_not_answered(kind: str) -> None:
    rng = np.random.default_rng(0)
    if kind == "plain":
        pixels = np.full((1200, 1600, 3), (40, 120, 60), np.uint8)
    elif kind == "noise":
        pixels = rng.integers(0, 256, (1200, 1600, 3), dtype=np.uint8)
    else:
        ramp = np.tile(np.linspace(0, 255, 1600), (1200, 1)).astype(np.uint8)
        pixels = np.dstack([ramp] * 3)
    with pytest.raises(PhotoError, match="give its corners"):
        analyse_image(LoadedImage(pixels, f"{kind}.jpg", (1600, 1200)), (48 * INCH, 48 * INCH))


@pytest.mark.parametrize("height", ["-5", "nan", "inf", "-inf", "1000"])
def test_a_base_height_out_of_range_is_an_error_not_a_traceback(tmp_path: Path, height: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.png"
    assert cv2.imwrite(str(path), np.full((600, 800, 3), 90, np.uint8))
    assert photo_cli.main([str(path), "--table", "48x48in", f"--base-height={height}"]) == 2
    err = capsys.readouterr().err
    assert "--base-height" in err and "Traceback" not in err


def test_the_shared_kernel_grid_is_the_same_from_many_threads_at_once() -> None:
    """Area fits on two photos at once grow the shared grid while another thread crops it (or replaces it with a
    smaller one): every kernel must equal the one worked out alone."""
    radii = [3.2 + 7.7 * i for i in range(24)]  # half-widths crossing several growth steps of the shared grid
    reach = np.linspace(0.0, 2.0, 360)
    uncertainty._GRID.clear()
    alone = [(uncertainty._disc_kernel(r), uncertainty._disc_kernel(r, reach)) for r in radii]
    failures: list[str] = []
    barrier = threading.Barrier(6)

    def work(order: list[int]) -> None:
        barrier.wait()
        for i in order:
            plain, outlined = uncertainty._disc_kernel(radii[i]), uncertainty._disc_kernel(radii[i], reach)
            if not (np.array_equal(plain, alone[i][0]) and np.array_equal(outlined, alone[i][1])):
                failures.append(f"radius {radii[i]}")

    for _ in range(3):
        uncertainty._GRID.clear()
        rng = np.random.default_rng(len(failures))
        threads = [threading.Thread(target=work, args=(list(rng.permutation(len(radii))),)) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not failures


def test_an_upside_down_photo_finds_the_same_table() -> None:
    """A phone held upside down: the outline is the same four corners (labelled from the photo's own near side)."""
    photo = synth_photo(3, size=(2400, 1800), n_bases=12)
    upside = np.ascontiguousarray(photo.image[::-1, ::-1])
    result = analyse_image(LoadedImage(upside, "upside.jpg", (2400, 1800)), photo.table_mm, base_height_mm=0.0)
    truth = np.array([(2399 - x, 1799 - y) for x, y in photo.corners_px])
    found = np.asarray(result.corners_px)
    assert max(float(np.min(np.hypot(*(truth - f).T))) for f in found) <= 4.0


@pytest.mark.xfail(strict=True, reason="a table size off by 30 mm on one side (1189x1219 for a 1219x1219 table) gives "
                   "confident bases 12-23 mm off at sigma 0.21 mm, with no note; the same before stop 43. The corners' perspective "
                   "measures the sides' ratio only to about 1 % (median; 3.8 % at the 90th percentile) on the generator's "
                   "right tables and 17 % on synth.py's (not pinhole views), so a 2.5 % typo cannot be told from a right "
                   "table (measured, docs/photo.md)")
def test_a_wrong_table_aspect_is_not_answered_confidently() -> None:
    photo = synth_photo(7, size=(4000, 3000), n_bases=12)
    width, depth = photo.table_mm
    corners = tuple((float(x), float(y)) for x, y in photo.corners_px)
    result = analyse_image(LoadedImage(photo.image, "typo.jpg", (4000, 3000)), (width - 30.0, depth), corners=corners)  # type: ignore[arg-type]
    truth = np.array([(b.x_mm, b.y_mm) for b in photo.bases])
    assert _confidently_wrong(result, truth) == []


def test_a_photo_given_as_the_camera_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo = tmp_path / "table.jpg"
    assert cv2.imwrite(str(photo), np.full((600, 800, 3), 90, np.uint8))
    code = photo_cli.main([str(photo), "--table", "48x48in", "--camera", str(photo)])
    err = capsys.readouterr().err
    assert code == 2 and "--camera" in err and "table.jpg" in err and "Traceback" not in err
