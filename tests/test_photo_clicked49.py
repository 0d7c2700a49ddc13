"""A corner clicked on a photo shown scaled down may be refined as far as its click allows (stop 49): the edge fit's
move is judged against the click's own sigma, not a fixed 3 px, and a fit that moved further than 3 px is kept only
where nothing doubts its outline (the front face below a near side, the classic trap)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tabletop.photo.pipeline import (CLICK_CONSISTENT_SIGMAS, MAX_CORNER_MOVE_PX, _fit_within_reach, allowed_moves_px,
                                     click_sigma_px)
from tabletop.photo.rectify import refine_corners

from .test_photo_camera import _slab_seen_from_the_front


def test_allowed_moves_worked_by_hand() -> None:
    # Typed corners (no grain): 3 px each. A click at 9.2 file px a screen px (800x520, a 3200x2400 photo):
    # sigma sqrt(1 + (0.6 * 9.2)^2) = sqrt(31.47) = 5.610 px, three of them 16.83 px. At full size (1 px):
    # sqrt(1.36) = 1.17, three 3.5 px. At half size (a 2,000 px photo downscaled, scale 0.5): 8.4 working px.
    assert CLICK_CONSISTENT_SIGMAS == 3.0 and MAX_CORNER_MOVE_PX == 3.0
    assert allowed_moves_px(None) == (3.0,) * 4
    assert allowed_moves_px((9.2,) * 4) == pytest.approx((16.83,) * 4, abs=0.01)
    assert allowed_moves_px((1.0, 0.0, 9.2, 9.2))[:2] == pytest.approx((3 * math.sqrt(1.36), 3.0))
    assert allowed_moves_px((9.2,) * 4, scale=0.5) == pytest.approx((8.415,) * 4, abs=0.01)
    assert allowed_moves_px((9.2,)) == (3 * click_sigma_px(9.2),)


def _clicked(top: tuple[tuple[float, float], ...], down_px: float) -> tuple[tuple[float, float], ...]:
    """The top's corners, the two near ones clicked ``down_px`` lower (towards the front face's foot)."""
    return tuple((x, y + (down_px if i < 2 else 0.0)) for i, (x, y) in enumerate(top))  # type: ignore[return-value]


def test_a_coarse_click_is_refined_onto_the_top_edge_but_never_onto_the_front_faces_foot() -> None:
    """A drawn 2,400 x 1,800 photo of a 1,200 mm table seen from the front, its 30 mm top's face a pale band 18.5 px
    tall below the near side, on a grey floor (the floor-to-face edge far stronger than the cream mat-to-face one).
    Corners clicked at 9.2 file px a screen px may move 16.8 px. The near corners clicked 8 px low: the fit finds the
    top's edge 7.6 px up, consistent with the click (before: refused, further than 3 px). Clicked 12 px low: the 8 px
    search reaches the face's foot 6.5 px down and not the top's edge, and the fit lands there, 10.2 px from the
    click, within what the click allows; its outline has the face inside its near side, which the front face's test
    sees: refused (the corners used as clicked, as loose as the click). Breaks if the move's limit stays 3 px, or if a
    move within the click is taken without the outline's tests."""
    img, top, foot, _ = _slab_seen_from_the_front(30.0)
    table = (1200.0, 1200.0)
    reach = allowed_moves_px((9.2,) * 4)

    given = _clicked(top, 8.0)
    fit = refine_corners(img, given, search_px=8.0)
    moved = _fit_within_reach(img, fit, given, reach, None, table, None)
    assert moved is not None and MAX_CORNER_MOVE_PX < moved < reach[0]
    assert np.max(np.linalg.norm(np.asarray(fit.corners_px) - np.asarray(top), axis=1)) < 1.5

    given = _clicked(top, 12.0)
    fit = refine_corners(img, given, search_px=8.0)
    off_top = np.linalg.norm(np.asarray(fit.corners_px) - np.asarray(top), axis=1)
    assert off_top[0] > 15 and off_top[1] > 15  # the near corners on the face's foot
    moves = np.linalg.norm(np.asarray(fit.corners_px) - np.asarray(given), axis=1)
    assert np.all(moves < reach[0])  # the click alone would allow it
    assert _fit_within_reach(img, fit, given, reach, None, table, None) is None


def _mat_with_a_printed_line(inside_px: int) -> tuple[np.ndarray, tuple[tuple[float, float], ...]]:
    """A drawn 2,000 x 1,500 photo: a grey-green mat on a red floor, a dark line 4 px wide printed along its near side
    ``inside_px`` in (a straight edge inside the side that the unaided outline's tests take for a possible table edge),
    and the mat's true corners."""
    import cv2

    rng = np.random.default_rng(1)
    img = np.full((1500, 2000, 3), (60, 60, 170), np.float32)
    img[300:1201, 300:1701] = (150, 160, 140)
    img[1200 - inside_px - 2:1200 - inside_px + 2, 300:1701] = (90, 100, 85)
    img += rng.normal(0.0, 4.0, img.shape[:2] + (1,)).astype(np.float32)
    img = cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), 1.5)
    return img, ((299.5, 1200.5), (1700.5, 1200.5), (1700.5, 299.5), (299.5, 299.5))


@pytest.mark.parametrize("inside_px, refined", [(32, True), (14, False)])
def test_an_edge_inside_doubts_a_clicked_corners_fit_only_within_the_clicks_reach(inside_px: int, refined: bool) -> None:
    """The near corners clicked 6 px below the mat's edge at 9.2 file px a screen px (reach 16.8 px): the fit finds the
    edge, 6 px up. A line printed 32 px inside is 26 px or more from the click (32 less the 6 px move), further than
    the click allows: the click rules it out, and the fit is kept (before: refused, as an unaided outline with that
    line inside would be doubted). Printed 14 px inside it is within 8 px of the click, as consistent with it as the
    edge found: refused (the corners used as clicked, as loose as the click)."""
    from tabletop.photo.pipeline import _edges_inside

    img, top = _mat_with_a_printed_line(inside_px)
    table = (1400.0, 900.0)
    found, _ = _edges_inside(img, top, (0.2,) * 4, None, table)
    assert any(side == 0 and inside == pytest.approx(inside_px, abs=4) for test in found for side, inside in test)
    given = _clicked(top, 6.0)
    fit = refine_corners(img, given, search_px=8.0)
    assert np.max(np.linalg.norm(np.asarray(fit.corners_px) - np.asarray(top), axis=1)) < 0.5
    moved = _fit_within_reach(img, fit, given, allowed_moves_px((9.2,) * 4), None, table, None)
    assert (moved is not None) == refined
    if refined:
        assert moved == pytest.approx(6.0, abs=0.3)
