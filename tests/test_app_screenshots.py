"""``make screenshots`` makes every README picture, and its comparison tolerates antialiasing but not a new layout."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from . import screenshots
from .conftest import ROOT


def test_every_readme_picture_is_made_by_the_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pictures = set(re.findall(r"docs/images/([\w.-]+\.(?:png|gif))", readme))
    assert pictures and pictures <= set(screenshots.SHOTS), pictures - set(screenshots.SHOTS)
    assert "screenshots:" in (ROOT / "Makefile").read_text()


def _save(pixels: np.ndarray, path: Path) -> Path:
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(path)
    return path


@pytest.fixture()
def picture(tmp_path: Path) -> np.ndarray:
    """A stand-in for a screenshot: panels, and lines of 'text' (thin strokes) over them."""
    rng = np.random.default_rng(7)
    img = np.full((400, 640, 3), 30, dtype=np.int16)
    img[:40] = (45, 50, 60)  # toolbar
    img[40:, 460:] = (35, 40, 48)  # side panel
    img[60:380, 20:440] = (60, 105, 70)  # table
    for y in range(60, 380, 24):  # text-like strokes
        xs = rng.integers(480, 620, 40)
        img[y : y + 10, xs] = 230
    return img


def test_antialiasing_and_a_changed_number_pass(picture: np.ndarray, tmp_path: Path) -> None:
    a = _save(picture, tmp_path / "a.png")
    softer = picture.copy()
    softer[:, 1:] = (picture[:, 1:] * 3 + picture[:, :-1]) // 4  # another antialiasing: strokes a quarter pixel wider
    noisy = softer + np.random.default_rng(1).integers(-12, 13, picture.shape)
    noisy[385:395, 10:60] = 200  # the status bar's "frame 12.3 ms" became "frame 45.6 ms"
    assert screenshots.differs(a, _save(noisy, tmp_path / "b.png")) is None


def test_a_moved_panel_or_another_size_fails(picture: np.ndarray, tmp_path: Path) -> None:
    a = _save(picture, tmp_path / "a.png")
    moved = picture.copy()
    moved[40:, 400:] = (35, 40, 48)  # the side panel 60 px wider, over the table
    assert "changed" in (screenshots.differs(a, _save(moved, tmp_path / "b.png")) or "")
    assert "px" in (screenshots.differs(a, _save(picture[:, :600], tmp_path / "c.png")) or "")
