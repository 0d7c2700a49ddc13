"""``tabletop.shapes`` against answers worked by hand (written to kill mutmut's survivors)."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.model import TemplateShape
from tabletop.shapes import local_sdf


@pytest.mark.parametrize(
    ("u", "v", "want"),
    [
        # rect 40 x 20 (half 20 x 10), focus at its centre
        (0.0, 0.0, -10.0),  # centre: the long sides are 10 away
        (15.0, 0.0, -5.0),  # 5 from the short side u = 20
        (0.0, 7.0, -3.0),  # 3 from the long side v = 10
        (-18.0, -9.5, -0.5),  # inside near a corner: min(2, 0.5)
        (23.0, 0.0, 3.0),  # outside past the short side
        (0.0, -14.0, 4.0),  # outside past the long side
        (23.0, 14.0, 5.0),  # off the corner (20, 10): a 3-4-5 triangle
        (-23.0, -14.0, 5.0),  # off the opposite corner
    ],
)
def test_rect_signed_distance(u: float, v: float, want: float) -> None:
    got = local_sdf(TemplateShape("rect", length=40.0, width=20.0), np.array([u]), np.array([v]))
    assert got[0] == pytest.approx(want, abs=1e-12)


def test_circle_signed_distance() -> None:
    """Diameter 20: |p| - 10 at (6, 8) (on the rim), (0, 0) (-10), (-9, 12) (+5)."""
    got = local_sdf(TemplateShape.circle(20.0), np.array([6.0, 0.0, -9.0]), np.array([8.0, 0.0, 12.0]))
    assert got.tolist() == pytest.approx([0.0, -10.0, 5.0], abs=1e-12)
