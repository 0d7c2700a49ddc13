"""The rulesets' small rules against answers worked by hand from their rules texts
(written to kill mutmut's survivors; the resolve() paths are in tests/test_ruleset_*.py)."""

from __future__ import annotations


import pytest

from tabletop.model import TemplateShape
from tabletop.rulesets.increments.rules import block_start, gap, measure, save_dc
from tabletop.rulesets.wwpd.rules import battery_offsets, local_extent


@pytest.mark.parametrize(
    ("origin", "n", "start"),
    [(5, 1, 5), (5, 2, 5), (5, 3, 4), (5, 4, 4), (5, 5, 3), (0, 3, -1)],  # centred, the extra square up/right
)
def test_increments_ground_zero_block_starts(origin: int, n: int, start: int) -> None:
    assert block_start(origin, n) == start


@pytest.mark.parametrize(("i", "want"), [(1, 2), (2, 1), (3, 0), (4, 0), (5, 0), (6, 1), (9, 4)])
def test_increments_gap_to_the_block_3_to_5(i: int, want: int) -> None:
    assert gap(i, 3, 5) == want


@pytest.mark.parametrize(
    ("gaps", "rule", "want"),
    [
        ((3, 4), "euclidean", 5.0),
        ((3, 4), "alternating", 4 + 3 // 2),  # every second diagonal counts double: 5
        ((4, 4), "alternating", 6),
        ((1, 1, 1), "alternating", 2),  # 1 + (1 + 1) // 2
        ((3, 4), "chebyshev", 4.0),
        ((0, 0), "alternating", 0),
    ],
)
def test_increments_distance_in_squares(gaps: tuple[int, ...], rule: str, want: float) -> None:
    assert measure(gaps, rule) == want


@pytest.mark.parametrize(
    ("damage", "rule", "dc"),
    [(7, "dc_10_plus_half_damage", 13), (8, "dc_10_plus_half_damage", 14), (7, "d20_plus_save_vs_damage", 7)],
)
def test_increments_save_dc(damage: int, rule: str, dc: int) -> None:
    assert save_dc(damage, rule) == dc


@pytest.mark.parametrize(
    ("n", "even_centre", "want"),
    [
        (1, "template", [0.0]),
        (3, "gap", [-50.0, 0.0, 50.0]),
        (2, "gap", [-25.0, 25.0]),  # the aim point falls in the gap between two
        (2, "template", [0.0, 50.0]),  # ... or on a template's centre, the other to the left
        (4, "template", [-50.0, 0.0, 50.0, 100.0]),
    ],
)
def test_wwpd_battery_offsets_at_a_50_mm_pitch(n: int, even_centre: str, want: list[float]) -> None:
    assert battery_offsets(n, 50.0, even_centre) == want


@pytest.mark.parametrize(
    ("shape", "want"),
    [
        (TemplateShape.circle(100.0), (-50.0, 50.0, 50.0)),
        (TemplateShape("rect", length=80.0, width=30.0), (-40.0, 40.0, 15.0)),
        (TemplateShape.teardrop(200.0, 20.0, 60.0), (0.0, 200.0, 30.0)),
        (TemplateShape("cone", length=100.0, angle=60.0), (0.0, 100.0, 50.0)),  # 100 sin 30
        (TemplateShape("cone", length=100.0, angle=180.0), (0.0, 100.0, 100.0)),
    ],
)
def test_wwpd_local_extent(shape: TemplateShape, want: tuple[float, float, float]) -> None:
    assert local_extent(shape) == pytest.approx(want, abs=1e-12)
