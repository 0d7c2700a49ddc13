"""Photos of every bit depth are read as the picture they hold, and photo JSON never holds a non-finite number.

Found by a hostile trial (issue 37, item 8): Pillow's ``convert("RGB")`` clips 16- and 32-bit samples at
255, so a 16-bit greyscale PNG or a 32-bit TIFF became a white sheet: corners invented at confidence 0.00,
no base, exit 0, and ``--json`` printed ``"calibration_rms_mm": Infinity`` (not JSON).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("cv2")
import cv2  # noqa: E402
from PIL import Image  # noqa: E402

from tabletop import cli  # noqa: E402
from tabletop.photo.imageio import load_image  # noqa: E402
from tabletop.photo.synth import synth_photo  # noqa: E402
from tabletop.photo.values import PhotoResult  # noqa: E402


def _strict(text: str) -> Any:
    """``json.loads`` that refuses Infinity and NaN, as every JSON reader but Python's does."""

    def refuse(name: str) -> None:
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def grey(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, Any]:
    """A synthetic photo in 8-bit grey: its folder, its pixels and the photo (corners, bases)."""
    photo = synth_photo(3, size=(1600, 1200))
    folder = tmp_path_factory.mktemp("depths")
    pixels = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)
    Image.fromarray(pixels).save(folder / "g8.png")
    return folder, pixels, photo


def _stretched(pixels: np.ndarray) -> np.ndarray:
    """An 8-bit picture scaled to fill 0-255 from its 0.01 and 99.99 percentiles (what a deeper photo becomes)."""
    lo, hi = np.percentile(pixels[::1, ::1].astype(float), (0.01, 99.99))
    return np.clip((pixels.astype(float) - lo) * 255.0 / (hi - lo) + 0.5, 0, 255)


def _deeper(kind: str, pixels: np.ndarray) -> Image.Image:
    p = pixels.astype(np.int64)
    if kind == "16-bit":
        return Image.fromarray((p * 257).astype(np.uint16))
    if kind == "12-bit in 16":  # a sensor's 12 bits in a 16-bit file: dark in a viewer, but all the picture is there
        return Image.fromarray((p * 16).astype(np.uint16))
    if kind == "32-bit":
        return Image.fromarray((p * 2**23 - 2**30).astype(np.int32))  # signed: negative values too
    assert kind == "float"
    f = (p / 255.0).astype(np.float32)
    f[0, :8] = (np.nan, np.inf, -np.inf, np.nan, 1e30 * 0, np.nan, np.inf, -np.inf)  # a few broken samples
    return Image.fromarray(f)


@pytest.mark.parametrize(("kind", "name"), [("16-bit", "g16.png"), ("12-bit in 16", "g12.png"), ("16-bit", "g16.tif"), ("32-bit", "i32.tif"), ("float", "f32.tif")])
def test_a_deep_greyscale_photo_is_its_picture_scaled_to_8_bits(kind: str, name: str, grey: tuple[Path, np.ndarray, Any]) -> None:
    folder, pixels, _ = grey
    path = folder / name
    _deeper(kind, pixels).save(path)
    loaded = load_image(path)
    got = loaded.pixels
    assert got.shape == (*pixels.shape, 3) and np.array_equal(got[..., 0], got[..., 1])
    want = _stretched(pixels)
    diff = np.abs(got[..., 0].astype(float) - want)
    diff[0, :8] = 0  # the broken samples: any value
    assert diff.max() <= 1.5, kind
    assert got[..., 0].min() == 0 and got[..., 0].max() == 255  # the whole range used, not clipped white
    assert any("greyscale photo" in note and "scaled to 8-bit grey" in note for note in loaded.notes)


def test_an_8_bit_photo_is_read_as_it_is(grey: tuple[Path, np.ndarray, Any]) -> None:
    folder, pixels, _ = grey
    loaded = load_image(folder / "g8.png")
    assert np.array_equal(loaded.pixels[..., 0], pixels) and loaded.notes == ()


def test_a_photo_of_no_finite_value_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nan.tif"
    Image.fromarray(np.full((100, 120), np.nan, dtype=np.float32)).save(path)
    assert cli.main(["photo", str(path), "--table", "48x48in"]) == 2
    assert "no finite pixel value" in capsys.readouterr().err


def test_a_16_bit_greyscale_photo_finds_the_bases_the_8_bit_one_does(grey: tuple[Path, np.ndarray, Any], capsys: pytest.CaptureFixture[str]) -> None:
    folder, pixels, photo = grey
    _deeper("16-bit", pixels).save(folder / "g16.png")
    corners = [f"{x:.1f},{y:.1f}" for x, y in photo.corners_px]
    found = {}
    for name in ("g8.png", "g16.png"):
        assert cli.main(["photo", str(folder / name), "--table", "48x48in", "--json", "--corners", *corners]) == 0
        found[name] = _strict(capsys.readouterr().out)
    assert len(found["g8.png"]["bases"]) >= 25  # of 40: grey loses the colour, not the bases
    assert len(found["g16.png"]["bases"]) >= len(found["g8.png"]["bases"]) - 3
    assert math.isfinite(found["g16.png"]["calibration_rms_mm"])


def _result(calibration: float, sigma: float = 0.4) -> PhotoResult:
    from tabletop.photo.values import Detection

    detection = Detection(x_mm=100.0, y_mm=200.0, diameter_mm=25.0, fitted_diameter_mm=25.2, confidence=0.9, sigma_mm=sigma)
    return PhotoResult(path="p.png", image_size=(1600, 1200), table_mm=(1219.2, 1219.2), corners_px=((0, 1199), (1599, 1199), (1599, 0), (0, 0)),
                       corners_given=False, table_confidence=0.0, calibration_rms_mm=calibration, bases=(detection,))


@pytest.mark.parametrize("value", [math.inf, math.nan])
def test_photo_json_holds_null_where_a_measurement_failed_never_infinity(value: float, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop.photo import pipeline

    monkeypatch.setattr(pipeline, "analyse_image", lambda *a, **k: _result(value, sigma=value))
    Image.new("L", (640, 480), 128).save(tmp_path / "p.png")  # a real file: the command checks its input first
    assert cli.main(["photo", str(tmp_path / "p.png"), "--table", "48x48in", "--json"]) == 0
    out = capsys.readouterr().out
    data = _strict(out)
    assert data["calibration_rms_mm"] is None and data["bases"][0]["sigma_mm"] is None
    assert cli.main(["photo", str(tmp_path / "p.png"), "--table", "48x48in"]) == 0
    text = capsys.readouterr().out
    assert "calibration error unknown" in text and "inf" not in text.lower().replace("info", "")
