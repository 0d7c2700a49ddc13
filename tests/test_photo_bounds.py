"""Photo analysis does work bounded by the pixels it reads, and reports corners in the file's own pixels.

Found by a hostile trial (issue 37): ``photo --table 20000x20000mm`` (inside the documented 20 m) ran out of
memory, the table being rectified at 1 px/mm (400 megapixels) whatever the photo's resolution (item 13); a
1-bit dithered 1600x1200 photo took 60 s, HoughCircles fed 37 % of the top-down image as edges (item 17: the
candidates now come from EDCircles, a dithered photo's in well under a second; the candidates are capped).
And a mutation (working pixels reported instead of the file's for a downscaled photo) passed every test.

No timing here (speed is the benchmark's business): each test checks the bound itself, on the work a stage
is given, so the old code fails it quickly without doing the unbounded work.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("cv2")
import cv2  # noqa: E402
from PIL import Image  # noqa: E402

from tabletop.photo import candidates as candidates_module  # noqa: E402
from tabletop.photo import detect, pipeline  # noqa: E402
from tabletop.photo import rectify as rectify_module  # noqa: E402
from tabletop.photo.pipeline import analyse_photo  # noqa: E402
from tabletop.photo.rectify import MAX_RECTIFIED_PIXELS, rectified_px_per_mm  # noqa: E402
from tabletop.photo.synth import synth_photo  # noqa: E402

from .conftest import ROOT  # noqa: E402


@pytest.fixture(scope="module")
def photo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """A synthetic 1600x1200 photo of a 48" table (PNG) and its truth."""
    truth = synth_photo(3, size=(1600, 1200))
    path = tmp_path_factory.mktemp("bounds") / "table.png"
    cv2.imwrite(str(path), truth.image)
    return path, truth


# --------------------------------------------------------------------------- item 13: a large table


def test_a_table_up_to_2_m_square_is_rectified_at_1_px_per_mm_as_before(photo: tuple[Path, Any]) -> None:
    _, truth = photo
    for table in ((1219.2, 1219.2), (1830.0, 1220.0), (2000.0, 2000.0), (20_000.0, 100.0)):
        assert rectified_px_per_mm(truth.corners_px, table) == 1.0


def test_a_large_table_is_rectified_at_the_photos_own_resolution_within_the_budget(photo: tuple[Path, Any]) -> None:
    _, truth = photo
    c = np.asarray(truth.corners_px)
    for table in ((20_000.0, 20_000.0), (6000.0, 4000.0), (20_000.0, 1000.0)):
        s = rectified_px_per_mm(truth.corners_px, table)
        w, d = table
        assert round(w * s) * round(d * s) <= MAX_RECTIFIED_PIXELS * 1.001
        # Never finer than the photo is on the table (its finest side).
        finest = max(np.linalg.norm(c[1] - c[0]) / w, np.linalg.norm(c[2] - c[1]) / d, np.linalg.norm(c[2] - c[3]) / w, np.linalg.norm(c[3] - c[0]) / d)
        assert s <= finest + 1e-12


def test_no_stage_rectifies_a_large_table_beyond_the_budget(photo: tuple[Path, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every top-down image drawn for a 20 m table (the pipeline's and any stage's own) is within the budget: the
    size is checked before the image is made, so the old code fails here instead of allocating 1.2 GB."""
    path, _ = photo
    sizes: list[int] = []
    real = rectify_module.rectify

    def bounded(image: np.ndarray, corners: Any, table_mm: tuple[float, float], px_per_mm: float = 1.0, *a: Any, **k: Any) -> Any:
        pixels = int(round(table_mm[0] * px_per_mm)) * int(round(table_mm[1] * px_per_mm))
        assert pixels <= MAX_RECTIFIED_PIXELS * 1.001, f"a {pixels / 1e6:.0f}-megapixel top-down image"
        sizes.append(pixels)
        return real(image, corners, table_mm, px_per_mm, *a, **k)

    monkeypatch.setattr(rectify_module, "rectify", bounded)
    monkeypatch.setattr(pipeline, "rectify", bounded)
    result = analyse_photo(path, (20_000.0, 20_000.0))
    assert sizes and result.table_mm == (20_000.0, 20_000.0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as a memory ceiling: Linux")
def test_photo_of_a_20_m_table_runs_in_a_1_5_gb_address_space(photo: tuple[Path, Any]) -> None:
    path, _ = photo
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000)); "
        "from tabletop.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    run = subprocess.run([sys.executable, "-c", code, "photo", str(path), "--table", "20000x20000mm", "--json"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    assert '"table_mm": [20000.0, 20000.0]' in run.stdout


# --------------------------------------------------------------------------- item 17: a dithered photo


@pytest.fixture(scope="module")
def dithered(photo: tuple[Path, Any]) -> Path:
    path, _ = photo
    out = path.parent / "dithered.png"
    Image.open(path).convert("1").save(out)  # Floyd-Steinberg: every pixel black or white
    return out


def test_the_candidates_of_a_dithered_photo_are_few(dithered: Path, photo: tuple[Path, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stage after the candidates works per candidate: a dithered photo (every pixel black or white) offers no
    more than the cap, and far fewer than a photo of a table."""
    _, truth = photo
    counts: dict[str, int] = {}
    real_blobs, real_candidates = candidates_module._blob_candidates, detect.candidates

    def blobs(*a: Any, **k: Any) -> np.ndarray:
        found = real_blobs(*a, **k)
        counts["blobs"] = len(found)
        return found

    def candidates(*a: Any, **k: Any) -> Any:
        found = real_candidates(*a, **k)
        counts["all"] = len(found[0])
        return found

    monkeypatch.setattr(candidates_module, "_blob_candidates", blobs)
    monkeypatch.setattr(detect, "candidates", candidates)
    analyse_photo(dithered, (1219.2, 1219.2), truth.corners_px)
    assert counts["blobs"] <= candidates_module.MAX_BLOBS and counts["all"] <= 200


def test_a_peak_field_beyond_the_cap_keeps_the_widest_blobs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A blob every few pixels (a speckled mat): the widest MAX_BLOBS peaks are kept, in the order found."""
    mask = np.zeros((600, 800), np.uint8)
    for y in range(10, 590, 16):
        for x in range(10, 790, 16):
            cv2.circle(mask, (x, y), 3, 1, -1)
    mask[260:340, 360:440] = 0
    cv2.circle(mask, (400, 300), 25, 1, -1)  # one base among the specks
    top = np.where(mask[..., None] > 0, np.uint8(200), np.uint8(60)).repeat(3, axis=2).astype(np.uint8)
    mat = candidates_module.mat_model(np.full_like(top, 60))
    monkeypatch.setattr(candidates_module, "MAX_BLOBS", 50)
    found = candidates_module._blob_candidates(top, mat, 2.0, 40.0)
    assert len(found) == 50
    assert any(abs(x - 400) <= 2 and abs(y - 300) <= 2 for x, y, _ in found)
    assert list(found[:, 1]) == sorted(found[:, 1])  # row order, as np.nonzero gives


# --------------------------------------------------------------------------- corners of a downscaled photo


@pytest.mark.parametrize("given", [False, True], ids=["found", "given"])
def test_a_downscaled_photos_corners_are_reported_in_the_files_pixels(photo: tuple[Path, Any], given: bool) -> None:
    """A photo over the working size is analysed at half size (or less); its corners come back in the file's own
    pixels: reported in working pixels they would be hundreds of pixels off, and the backdrop misaligned."""
    path, truth = photo
    result = analyse_photo(path, truth.table_mm, truth.corners_px if given else None, max_pixels=480_000)
    assert any("downscaled by 2 to 800x600" in note for note in result.notes)
    assert result.image_size == (1600, 1200)
    error = np.abs(np.asarray(result.corners_px) - np.asarray(truth.corners_px)).max()
    assert error <= 1.5, error


@pytest.mark.slow
@pytest.mark.cpu
def test_a_photo_over_16_megapixels_reports_its_corners_in_the_files_pixels(tmp_path: Path) -> None:
    """The same at the real limit: a 4900x3500 (17 MP) photo is worked on at half size."""
    truth = synth_photo(7, size=(4900, 3500))
    path = tmp_path / "big.jpg"
    cv2.imwrite(str(path), truth.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    result = analyse_photo(path, truth.table_mm)
    assert any("downscaled by 2" in note for note in result.notes)
    error = np.abs(np.asarray(result.corners_px) - np.asarray(truth.corners_px)).max()
    assert error <= 3.0, error
