"""The review's click on a missed base (issue 35): ``fit_base_at`` searched round the click, on a photo drawn here.

The photo is drawn top-down at 3 px/mm (a 12 MP phone photo of a 4x4 ft table is about that): a textured mat, a
small (25 mm) base whose rim a figure hides on one side (its rim is seen on barely more than half the rays, as on the
bases the full analysis misses), and a 50 mm neighbour a few millimetres past it. A click lands a few millimetres off
a base's centre at the app's first zoom (a screen pixel is about 2 mm there): every such click must fit the small base
itself, not its neighbour nor its figure; a click on bare mat must say no rim is there.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tabletop.photo.local import fit_base_at  # noqa: E402
from tabletop.photo.values import Rectified  # noqa: E402

PX_PER_MM = 3.0
TABLE_MM = (300.0, 200.0)
SMALL = (140.0, 100.0, 25.0)
"""The small base: centre x, y (mm) and diameter."""
NEIGHBOUR = (140.0 + 12.5 + 6.0 + 25.0, 104.0, 50.0)
"""A 50 mm base whose rim passes 6 mm from the small one's."""
BARE = (60.0, 150.0)
"""A point on bare mat, 80 mm from every base."""
SUPERSAMPLE = 4


def _drawn_photo(seed: int = 3) -> Rectified:
    """The table seen from straight above: mat texture and noise, the two bases (flat discs, anti-aliased), the small
    one's figure (a blob reaching 5 mm past its rim over a third of it), a little blur."""
    rng = np.random.default_rng(seed)
    s = PX_PER_MM * SUPERSAMPLE
    w, h = int(TABLE_MM[0] * s), int(TABLE_MM[1] * s)
    big = np.empty((h, w, 3), np.float32)
    big[...] = (70, 110, 80)  # BGR: a green mat
    low = cv2.resize(rng.normal(0, 8, (h // 40 + 1, w // 40 + 1)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    big += low[..., None]

    def disc(cx: float, cy: float, r: float, colour: tuple[int, int, int]) -> None:
        cv2.circle(big, (round(cx * s), round((TABLE_MM[1] - cy) * s)), round(r * s), colour, -1, cv2.LINE_AA)

    x, y, d = NEIGHBOUR
    disc(x, y, d / 2, (45, 45, 50))
    x, y, d = SMALL
    # Its top painted as the mat: only its bevel shows, a dark arc on the side away from the light, the rest of the rim
    # a faint step of shade (as on the bases the analysis misses).
    disc(x, y, d / 2, (74, 116, 84))
    centre = (round(x * s), round((TABLE_MM[1] - y) * s))
    cv2.ellipse(big, centre, (round((d / 2 - 0.7) * s),) * 2, 0, 60, 280, (30, 34, 30), round(1.4 * s), cv2.LINE_AA)
    # The figure: a pale body on the base, its cloak reaching over the rim towards the upper left.
    cv2.ellipse(big, (round((x - 5) * s), round((TABLE_MM[1] - y - 5) * s)), (round(10 * s), round(5 * s)), 40, 0, 360,
                (150, 160, 175), -1, cv2.LINE_AA)
    img = cv2.resize(big, (int(TABLE_MM[0] * PX_PER_MM), int(TABLE_MM[1] * PX_PER_MM)), interpolation=cv2.INTER_AREA)
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    img += rng.normal(0, 4, img.shape).astype(np.float32)
    source = np.clip(img, 0, 255).astype(np.uint8)
    # Table mm -> photo px: x right, y up (row 0 = the far side).
    homography = np.array([[PX_PER_MM, 0, 0], [0, -PX_PER_MM, TABLE_MM[1] * PX_PER_MM], [0, 0, 1]], dtype=np.float64)
    return Rectified(source=source, homography=homography, table_mm=TABLE_MM, px_per_mm=0.0, image=np.zeros((1, 1, 3), np.uint8),
                     calibration_rms_mm=0.0, camera=None, base_height_mm=0.0)


@pytest.fixture(scope="module")
def rect() -> Rectified:
    return _drawn_photo()


@pytest.mark.parametrize("offset", [0.0, 2.0, 4.0, 6.0])
def test_a_click_off_the_centre_fits_the_small_base(rect: Rectified, offset: float) -> None:
    x, y, d = SMALL
    for k in range(8 if offset else 1):
        a = 2 * math.pi * k / 8
        found = fit_base_at(rect, x + offset * math.cos(a), y + offset * math.sin(a))
        assert found is not None, (offset, k)
        assert found.shape == "round" and found.diameter_mm == d, (offset, k, found)
        assert math.hypot(found.x_mm - x, found.y_mm - y) <= 0.5, (offset, k, found)


def test_the_neighbour_is_fitted_where_it_is_clicked(rect: Rectified) -> None:
    x, y, d = NEIGHBOUR
    found = fit_base_at(rect, x + 3.0, y - 4.0)
    assert found is not None and found.diameter_mm == d and math.hypot(found.x_mm - x, found.y_mm - y) <= 0.5, found


def test_a_click_on_bare_mat_finds_no_rim(rect: Rectified) -> None:
    for dx, dy in ((0.0, 0.0), (5.0, -3.0), (-20.0, 10.0)):
        assert fit_base_at(rect, BARE[0] + dx, BARE[1] + dy) is None
