"""The rulesets' small rules against answers worked by hand from their rules texts
(written to kill mutmut's survivors; the resolve() paths are in tests/test_ruleset_*.py)."""

from __future__ import annotations


import math

import pytest

from tabletop.model import Base, Model, TemplateShape
from tabletop.rulesets.catastrophic.rules import critical_of
from tabletop.rulesets.infinity.rules import close_combats, has_no_damage, in_front_arc, relation, silhouette_span
from tabletop.rulesets.robotech.rules import scatter_point
from tabletop.rulesets.increments.rules import block_start, gap, measure, save_dc
from tabletop.rulesets.wwpd.rules import battery_offsets


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
    assert shape.local_extent() == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(
    ("direction", "want"),
    [
        # firer at (0, 0), aim at (100, 0): direction 1 carries on away from the firer, then 60 deg clockwise each
        (1, (110.0, 0.0)),
        (2, (105.0, -5 * math.sqrt(3))),  # 60 deg clockwise of +x
        (3, (95.0, -5 * math.sqrt(3))),
        (4, (90.0, 0.0)),  # straight back toward the firer
        (5, (95.0, 5 * math.sqrt(3))),
        (6, (105.0, 5 * math.sqrt(3))),
    ],
)
def test_robotech_scatter_10_mm_in_each_direction(direction: int, want: tuple[float, float]) -> None:
    assert scatter_point((100.0, 0.0), (0.0, 0.0), direction, 10.0) == pytest.approx(want, abs=1e-12)


def test_robotech_scatter_follows_the_line_of_fire() -> None:
    """Firer (0, 0), aim (0, 50): direction 1 is +y, direction 2 is 60 deg clockwise of it (30 deg above +x)."""
    assert scatter_point((0.0, 50.0), (0.0, 0.0), 1, 20.0) == pytest.approx((0.0, 70.0), abs=1e-12)
    assert scatter_point((0.0, 50.0), (0.0, 0.0), 2, 20.0) == pytest.approx((10 * math.sqrt(3), 60.0), abs=1e-12)
    # firer standing on the aim point: heading 0 (+x)
    assert scatter_point((5.0, 5.0), (5.0, 5.0), 1, 3.0) == pytest.approx((8.0, 5.0), abs=1e-12)


def trooper(id_: str, side: str | None = None, tags: tuple[str, ...] = (), **kw: object) -> Model:
    return Model(id_, 0.0, 0.0, Base.round(25.0), side=side, tags=tags, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("model", "want"),
    [
        (trooper("a", "pano"), "attacker"),
        (trooper("n", "Neutral"), "neutral"),  # any case
        (trooper("f", "pano"), "friendly"),
        (trooper("e", "yu"), "enemy"),
        (trooper("i", "yu", ("impersonation",)), "friendly"),  # FAQ: Impersonation counts as friendly
        (trooper("x"), "enemy"),  # no side
    ],
)
def test_infinity_relation_to_the_shooting_side(model: Model, want: str) -> None:
    assert relation(model, "pano", "a") == want


def test_infinity_relation_without_a_shooting_side() -> None:
    assert relation(trooper("f", "pano"), None, "a") == "enemy"
    assert relation(trooper("x"), None, None) == "enemy"


@pytest.mark.parametrize(
    ("weapon", "want"),
    [
        ({"ammo": "Smoke"}, True),
        ({"ammo": "NIMBUS", "damage": 13}, True),
        ({"ammo": "eclipse"}, True),
        ({"damage": 0}, True),
        ({"damage": "-"}, True),
        ({"damage": False}, True),
        ({"damage": 13}, False),
        ({}, False),  # no damage key: a normal weapon
        ({"ammo": "DA", "damage": 14}, False),
    ],
)
def test_infinity_weapons_without_damage(weapon: dict[str, object], want: bool) -> None:
    assert has_no_damage(weapon) is want


@pytest.mark.parametrize(
    ("model", "settings", "span"),
    [
        (trooper("h", height=30.0, z=10.0), {}, (10.0, 40.0, "height")),
        (trooper("s", stats={"S": 5}), {}, (0.0, 45.0, "S5")),
        (trooper("d"), {}, (0.0, 40.0, "S2 (default)")),
        (trooper("d"), {"default_silhouette": 7}, (0.0, 67.0, "S7 (default)")),
        (trooper("p", stats={"S": 3}, tags=("prone",)), {}, (0.0, 12.5, "S3, prone")),
        (trooper("p", height=10.0, tags=("prone",)), {}, (0.0, 10.0, "height")),  # already lower than prone
        (trooper("p", stats={"S": 1}, tags=("prone",)), {"prone_height_mm": 20.0}, (0.0, 20.0, "S1, prone")),
    ],
)
def test_infinity_silhouette_span(model: Model, settings: dict[str, object], span: tuple[float, float, str]) -> None:
    got = silhouette_span(model, settings)
    assert (got.bottom, got.top, got.source) == span


def test_infinity_front_arc_is_the_half_plane_ahead_plus_the_other_base() -> None:
    """A trooper at the origin facing +y (90 deg); a 25 mm base (r = 12.5) counts while its centre is
    more than 12.5 mm behind the line through the trooper across its facing."""
    me = Model("me", 0.0, 0.0, Base.round(25.0), facing=90.0)
    assert in_front_arc(me, Model("o", 40.0, 1.0, Base.round(25.0)))
    assert in_front_arc(me, Model("o", 40.0, -12.0, Base.round(25.0)))  # overlaps the line by 0.5
    assert not in_front_arc(me, Model("o", 40.0, -13.0, Base.round(25.0)))
    assert not in_front_arc(me, Model("o", 0.0, -12.5, Base.round(25.0)))  # just touching the line: not in
    assert in_front_arc(Model("me", 0.0, 0.0, Base.round(25.0), facing=0.0), Model("o", -12.0, 500.0, Base.round(25.0)))


def test_infinity_close_combat_groups_follow_links_both_ways() -> None:
    ms = [
        Model("a", 0, 0, Base.round(25.0), engaged=("b",)),
        Model("c", 0, 0, Base.round(25.0), engaged=("b", "d")),
        Model("e", 0, 0, Base.round(25.0), engaged=("f",)),
        Model("g", 0, 0, Base.round(25.0)),
    ]
    assert close_combats(ms) == [{"a", "b", "c", "d"}, {"e", "f"}]
    assert close_combats([]) == []


@pytest.mark.parametrize(
    ("data", "want"),
    [
        ({"critical_damage": 6}, (6, "critical damage 6")),
        ({"critical_damage": 6.0, "extra_damage": 1}, (6, "critical damage 6")),
        ({"extra_damage": 5}, (6, "1 + 5 extra = 6 damage")),  # the seed: 5 extra, 6 total
        ({"extra_damage": 5, "hit_damage": 2}, (7, "2 + 5 extra = 7 damage")),
        ({"extra_damage": 5, "hit_damage": True}, (6, "1 + 5 extra = 6 damage")),  # a bool is no number
        ({"critical_damage": True}, (None, "")),
        ({"extra_damage": "5"}, (None, "")),
        ({}, (None, "")),
    ],
)
def test_catastrophic_critical_damage(data: dict[str, object], want: tuple[int | None, str]) -> None:
    assert critical_of(data) == want
