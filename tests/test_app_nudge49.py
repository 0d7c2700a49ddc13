"""A corner placed finer than a screen pixel in a small window (stop 49), headless with real pygame events: the arrow
keys move the corner last placed one photo pixel, the loupe shows it, and the corner's grain is one photo pixel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pygame
import pytest

cv2 = pytest.importorskip("cv2")

from tabletop.app.photo_import import NUDGE_PX, loupe_box  # noqa: E402
from tabletop.app.pilot import Pilot  # noqa: E402

from .test_app_review48 import pixel_showing  # noqa: E402
from .test_app_review_again import _table  # noqa: E402

CORNERS = ((400.0, 2100.0), (2900.0, 2150.0), (2500.0, 500.0), (700.0, 450.0))


def _drawn_photo(tmp_path: Path) -> Path:
    """A 3200x2400 photo (a green table on a grey floor, corners ``CORNERS``): drawn in a fraction of a second, where
    ``synth.py``'s costs seconds; only its size matters here."""
    img = np.full((2400, 3200, 3), 110, np.uint8)
    cv2.fillPoly(img, [np.array(CORNERS, np.int32)], (70, 140, 60))
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), img)
    return path


def test_the_arrow_keys_move_the_last_corner_a_photo_pixel_and_the_loupe_shows_it(tmp_path: Path) -> None:
    """800x520: a screen pixel covers about 9 of a 3200x2400 photo's. The lower-left corner clicked a screen pixel to
    the right of the one that shows it (about 9 px off); nine presses of the left arrow bring it back within a photo
    pixel or so of the truth, its grain now one photo pixel (sigma 1.17 px, ``pipeline.click_sigma_px``, where it was
    9). The loupe is centred on it after a press, and follows the pointer again once it moves; Backspace takes the
    corner back and the arrows then move the one before. Breaks if the arrows do nothing (before: they did)."""
    path = _drawn_photo(tmp_path)
    p = Pilot(_table(tmp_path), size=(800, 520))
    app = p.app
    try:
        assert app.start_photo_import(str(path))
        job = app.photo_import
        view = app.view_rect
        _, scale = job.frame(view)
        step = 1 / scale
        truth = CORNERS
        shown = [pixel_showing(job, view, c) for c in truth]
        assert not any("arrow keys" in line for line in app.photo_hint())
        p.click((shown[0][0] + 1, shown[0][1]))
        assert any("arrow keys: move it a photo pixel" in line for line in app.photo_hint())
        start = job.clicks[0]
        assert job.active == 0 and job.steps == [pytest.approx(step)]
        presses = round(step)
        for _ in range(presses):
            p.key(pygame.K_LEFT)
        assert job.clicks[0] == pytest.approx((start[0] - presses * NUDGE_PX, start[1]))
        assert abs(job.clicks[0][0] - truth[0][0]) < step / 2 + 1 and job.steps == [NUDGE_PX]
        p.step(1)
        box = app.photo_loupe_rect
        assert box is not None and job.nudged
        # The loupe is where the pointer on the corner would put it (``loupe_box``), its middle on the corner.
        at = job.to_screen(view, job.clicks[0])
        assert box == loupe_box(view, (round(at[0]), round(at[1])))
        p.move((view.centerx, view.centery))
        assert not job.nudged
        p.step(1)
        # The next corners: each arrow moves the one just placed, never one placed before.
        p.click(shown[1])
        second = job.clicks[1]
        p.key(pygame.K_DOWN)
        assert job.clicks[1] == pytest.approx((second[0], second[1] + NUDGE_PX)) and job.clicks[0][0] == pytest.approx(start[0] - presses)
        p.key(pygame.K_BACKSPACE)
        assert len(job.clicks) == 1 and job.active == 0
        p.key(pygame.K_UP)
        assert job.clicks[0][1] == pytest.approx(start[1] - NUDGE_PX)
    finally:
        p.close()
