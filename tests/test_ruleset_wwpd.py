"""The ``wwpd`` ruleset: templates over the target, the battery T, counts per unit, friendly fire."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tabletop import rulesets
from tabletop.adjudicate import adjudicate
from tabletop.report import report_json
from tabletop.scenario_io import load, loads

from .conftest import SCENARIOS

IN = 25.4


def check(path_or_text: str, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """The first template's entry of the ``check --json`` report."""
    scenario = load(SCENARIOS / path_or_text) if path_or_text.endswith(".toml") else loads(path_or_text)
    adj = adjudicate(scenario, settings=settings)
    return report_json(adj)["templates"][0]


def table(models: str, template: str) -> str:
    """A 48" wwpd table with the given models and one template."""
    return f'format = 1\nruleset = "wwpd"\n[table]\nwidth = 48\ndepth = 48\n{models}\n[[template]]\n{template}\n'


def model(mid: str, x: float, y: float, side: str = "blue", unit: str | None = None, base: float = 1) -> str:
    u = f'unit = "{unit}"\n' if unit else ""
    return f'[[model]]\nid = "{mid}"\nside = "{side}"\n{u}x = {x}\ny = {y}\nbase = {base}\n'


# ------------------------------------------------------------------ battery T


def test_battery_t_counts_a_model_under_both_templates_twice() -> None:
    t = check("wwpd-battery-t.toml")
    res = t["resolution"]
    # Line of fire gun1 (24, 4) -> t (24, 24): straight up, 90°; the T's bar runs at 90 + 90 = 180°.
    assert res["line_of_fire"] == 90.0
    # Two 3" circles touching: pitch 3", centres at ±1.5" from t along the bar. Member 1 sits on
    # the firer's right (-1.5" along 180° = +1.5" in x): (25.5, 24); member 2 at (22.5, 24).
    assert [m["id"] for m in res["templates"]] == ["barrage#1", "barrage#2"]
    assert res["templates"][0]["focus"] == [25.5, 24.0]
    assert res["templates"][1]["focus"] == [22.5, 24.0]
    assert res["templates"][0]["heading"] == 180.0
    # t (r 0.5") is 1.5" from both centres = on both edges: under both, margin 0.5" = 12.7 mm.
    # a2 (26.5, 24.5): sqrt(1 + 0.25) = 1.118034" from #1 -> under #1; 4.03" from #2 -> not.
    # b1 (21, 25): sqrt(2.25 + 1) = 1.802776" from #2 -> 0.302776" outside its edge < r 0.5 -> under #2.
    # b2 (28.5, 24): 3" from #1 -> 1.5" from its edge > 0.5 -> outside.
    assert t["models"]["t"]["templates"] == 2
    assert t["models"]["t"]["under"] == ["barrage#1", "barrage#2"]
    assert t["models"]["a2"]["templates"] == 1
    assert t["models"]["b1"]["templates"] == 1
    assert t["models"]["b2"]["templates"] == 0
    # Counts per unit, once per template: squad_a = t 2 + a2 1 = 3; squad_b = b1 1.
    assert res["counts"] == {"squad_a": 3, "squad_b": 1}
    assert res["covered"] == {"squad_a": ["a2", "t"], "squad_b": ["b1"]}
    assert t["affected"] == ["a2", "b1", "t"]
    assert res["leadership_test"] is False
    assert res["friendly_covered"] == []


def test_battery_t_margins_are_the_deepest_member() -> None:
    t = check("wwpd-battery-t.toml")
    m = t["models"]
    assert m["t"]["margin_mm"] == pytest.approx(0.5 * IN, abs=1e-4)  # 12.7
    # a2: 0.5 - (1.118034 - 1.5) = 0.881966" = 22.4019 mm
    assert m["a2"]["margin_mm"] == pytest.approx((0.5 - (math.sqrt(1.25) - 1.5)) * IN, abs=1e-4)
    # b1: 0.5 - (1.802776 - 1.5) = 0.197224" = 5.0095 mm
    assert m["b1"]["margin_mm"] == pytest.approx((0.5 - (math.sqrt(3.25) - 1.5)) * IN, abs=1e-4)
    # b2: 0.5 - (3 - 1.5) = -1" = -25.4 mm
    assert m["b2"]["margin_mm"] == pytest.approx(-25.4, abs=1e-4)
    assert m["b2"]["status"] == "outside"


def test_battery_draws_the_other_members() -> None:
    scenario = load(SCENARIOS / "wwpd-battery-t.toml")
    res = adjudicate(scenario).results[0].resolution
    # The primary (reported) template is member 1; member 2 is drawn alongside it.
    assert res.placed.id == "barrage#1"
    assert [p.id for p in res.also_drawn] == ["barrage#2"]
    assert res.also_drawn[0].focus == pytest.approx((22.5 * IN, 24 * IN))


def test_battery_of_three_puts_the_target_under_the_middle_template() -> None:
    # Attacker (4, 24) -> target (24, 24): line of fire 0°, bar at 90° (up). 2" circles, pitch 2":
    # centres at y = 24 - 2, 24, 24 + 2 = 22, 24, 26.
    text = table(
        model("a", 4, 24, "red") + model("t", 24, 24, unit="u") + model("top", 24, 27.4, unit="u")
        + model("low", 24, 20.6, unit="v"),
        'id = "b3"\nshape = { kind = "circle", diameter = 2 }\nimpact = { attacker = "a", target = "t" }\nbattery = 3',
    )
    t = check(text)
    res = t["resolution"]
    assert [m["focus"] for m in res["templates"]] == [[24.0, 22.0], [24.0, 24.0], [24.0, 26.0]]
    # t is 2" from the outer centres: 2 - 1 = 1" from their edges > 0.5 -> under the middle only.
    assert t["models"]["t"]["templates"] == 1
    # top (24, 27.4): 1.4" from (24, 26) -> 0.4" outside its edge < 0.5 -> under #3.
    # low (24, 20.6): 1.4" from (24, 22) -> under #1.
    assert t["models"]["top"]["under"] == ["b3#3"]
    assert t["models"]["low"]["under"] == ["b3#1"]
    assert res["counts"] == {"u": 2, "v": 1}


def test_even_battery_centre_setting_puts_a_template_on_the_target() -> None:
    text = table(
        model("a", 4, 24, "red") + model("t", 24, 24, unit="u"),
        'id = "b2"\nshape = { kind = "circle", diameter = 2 }\nimpact = { attacker = "a", target = "t" }\nbattery = 2',
    )
    # Default 'between': centres at 24 ∓ 1 along the bar (90°): y = 23, 25; t touches both.
    between = check(text)["resolution"]
    assert [m["focus"] for m in between["templates"]] == [[24.0, 23.0], [24.0, 25.0]]
    assert between["counts"] == {"u": 2}
    # 'template': shifted +pitch/2 = +1": y = 24 (on t) and 26 (firer's left); t (r 0.5) is
    # 2 - 1 = 1" from the second's edge -> under one template only.
    on = check(text, {"even_battery_centre": "template"})["resolution"]
    assert [m["focus"] for m in on["templates"]] == [[24.0, 24.0], [24.0, 26.0]]
    assert on["counts"] == {"u": 1}


def test_battery_overlap_setting_brings_the_templates_closer() -> None:
    text = table(
        model("a", 24, 4, "red") + model("t", 24, 24, unit="u"),
        'id = "b"\nshape = "small_blast"\nimpact = { attacker = "a", target = "t" }\nbattery = 2',
    )
    # Overlap 0.5 of a 3" circle: pitch 1.5", centres at ±0.75" along 180°: x = 24.75, 23.25.
    res = check(text, {"battery_overlap": 0.5})["resolution"]
    assert [m["focus"] for m in res["templates"]] == [[24.75, 24.0], [23.25, 24.0]]


# ------------------------------------------------------------------ orientation


def test_rect_lies_with_its_length_across_the_line_of_fire() -> None:
    t = check("wwpd-friendly-fire.toml")
    # hq (10, 2) -> e1 (10, 20): fire 90°, the 6" length lies at 180°, centred on e1.
    assert t["focus"] == [10.0, 20.0]
    assert t["heading"] == 180.0
    # e1 at the centre: 1" (half width) from the long edges, + r 0.5 = 1.5" = 38.1 mm.
    assert t["models"]["e1"]["margin_mm"] == pytest.approx(38.1, abs=1e-4)
    # r1 (12.5, 20.5): 0.5" inside both the end (x 13) and the long edge (y 21): 0.5 + 0.5 = 1" = 25.4 mm.
    assert t["models"]["r1"]["margin_mm"] == pytest.approx(25.4, abs=1e-4)
    # tank (7, 18.8): level with the end x = 7, 0.2" below y = 19: 0.5 - 0.2 = 0.3" = 7.62 mm.
    assert t["models"]["tank"]["margin_mm"] == pytest.approx(7.62, abs=1e-4)


def test_rect_on_a_diagonal_line_of_fire() -> None:
    # a (0.5, 0.5) -> t (12.5, 9.5), offset (12, 9): fire atan2(9, 12) = 36.8699°; the 6" x 1" rect lies at 126.8699°.
    text = table(
        model("a", 0.5, 0.5, "red") + model("t", 12.5, 9.5, unit="u")
        # The bar's direction is (cos, sin) 126.8699° = (-0.6, 0.8); 2.8" along it from t:
        # (12.5 - 2.8 * 0.6, 9.5 + 2.8 * 0.8) = (10.82, 11.74): inside.
        + model("along", 10.82, 11.74, unit="u")
        # 2.8" along the line of fire (0.8, 0.6) from t: (12.5 + 2.24, 9.5 + 1.68): 2.8 - 0.5 = 2.3" off the edge.
        + model("beyond", 14.74, 11.18, unit="u"),
        'id = "r"\nshape = { kind = "rect", length = 6, width = 1 }\nimpact = { attacker = "a", target = "t" }',
    )
    t = check(text)
    assert t["heading"] == pytest.approx(math.degrees(math.atan2(9, 12)) + 90, abs=1e-6)
    assert t["models"]["along"]["templates"] == 1
    # along: 3 - 2.8 = 0.2" inside the end, 0.5" from each long edge -> depth 0.2 + r 0.5 = 0.7".
    assert t["models"]["along"]["margin_mm"] == pytest.approx(0.7 * IN, abs=1e-4)
    assert t["models"]["beyond"]["templates"] == 0
    # beyond: 2.8 - 0.5 = 2.3" from the long edge, - r 0.5 = -1.8".
    assert t["models"]["beyond"]["margin_mm"] == pytest.approx(-1.8 * IN, abs=1e-4)


def test_teardrop_is_centred_on_the_target_across_the_line_of_fire() -> None:
    # a (4, 24) -> t (24, 24): fire 0°, axis 90°. Teardrop 8" long: its centre is 4" from the tip,
    # so the tip lies at (24, 24 - 4) = (24, 20) and the wide end reaches (24, 28).
    text = table(
        model("a", 4, 24, "red") + model("t", 24, 24, unit="u") + model("far", 24, 28.4, unit="u"),
        'id = "f"\nshape = { kind = "teardrop", length = 8, tip_width = 1, end_width = 3 }\n'
        'impact = { attacker = "a", target = "t" }',
    )
    t = check(text)
    assert t["focus"] == [24.0, 20.0]
    assert t["heading"] == 90.0
    # far (24, 28.4): 0.4" beyond the wide end's far edge at y 28, r 0.5 -> margin 0.1" = 2.54 mm.
    assert t["models"]["far"]["margin_mm"] == pytest.approx(2.54, abs=1e-4)
    assert t["resolution"]["counts"] == {"u": 2}


def test_wide_cone_keeps_its_axis_on_the_line_of_fire() -> None:
    # A 120° cone 4" long is 2 * 4 * sin 60° = 6.93" wide > 4" long: the width is its longest
    # dimension and already lies across the axis, so the axis stays on the line of fire (0°).
    # Its bounding box centre (2" from the apex) sits on t: apex at (24 - 2, 24) = (22, 24).
    text = table(
        model("a", 4, 24, "red") + model("t", 24, 24, unit="u"),
        'id = "c"\nshape = { kind = "cone", length = 4, angle = 120 }\nimpact = { attacker = "a", target = "t" }',
    )
    t = check(text)
    assert t["focus"] == [22.0, 24.0]
    assert t["heading"] == 0.0


# ------------------------------------------------------------------ friendly fire


def test_friendly_model_covered_calls_for_a_leadership_test() -> None:
    t = check("wwpd-friendly-fire.toml")
    res = t["resolution"]
    assert res["counts"] == {"raiders": 1, "assault": 1, "tank": 1}
    assert res["covered"] == {"raiders": ["e1"], "assault": ["r1"], "tank": ["tank"]}
    assert res["leadership_test"] is True
    assert res["leadership_unit"] == "mortars"
    assert res["friendly_covered"] == ["r1"]
    # Friendly fire is penalised, not forbidden.
    assert t["allowed"] is True
    # The lone tank (no unit) is a unit of its own, named by its id.
    assert t["models"]["tank"]["unit"] == "tank"


def test_neutral_and_sideless_models_are_nobodys_friends() -> None:
    text = table(
        model("a", 24, 4, "neutral") + model("t", 24, 24, "neutral", unit="u"),
        'id = "s"\nshape = "small_blast"\nimpact = { attacker = "a", target = "t" }',
    )
    res = check(text)["resolution"]
    assert res["counts"] == {"u": 1}
    assert res["leadership_test"] is False


def test_point_aim_is_not_allowed_unless_the_setting_says_so() -> None:
    text = table(
        model("a", 24, 4, "red") + model("t", 24, 24, unit="u"),
        'id = "p"\nshape = "small_blast"\nat = [24, 24]',
    )
    t = check(text)
    assert t["allowed"] is False
    assert "nominated target" in t["reason"]
    # The geometry is still reported: t is under the template.
    assert t["resolution"]["counts"] == {"u": 1}
    assert check(text, {"allow_point_aim": True})["allowed"] is True


def test_ruleset_is_registered_without_visibility_or_dice() -> None:
    rs = rulesets.get("wwpd")
    assert rs.uses_visibility is False
    assert dict(rs.rolls) == {}
    assert set(rs.settings) == {"battery_overlap", "even_battery_centre", "allow_point_aim", "check_line_of_sight", "range_measure"}
    assert rs.doc_path is not None
    doc = rs.doc_path.read_text(encoding="utf-8")
    for setting, (default, why) in rs.settings.items():
        assert why and f"`{setting}`" in doc


def test_terrain_does_not_shelter_models_under_a_wwpd_template() -> None:
    # V = T: a wall between the template centre and a model does not protect it.
    text = table(
        model("a", 24, 4, "red") + model("t", 24, 24, unit="u") + model("hid", 25.2, 24, unit="u")
        + '[[terrain]]\nid = "wall"\nrect = { x = 24.7, y = 24, length = 0.1, width = 2 }\n',
        'id = "s"\nshape = "small_blast"\nimpact = { attacker = "a", target = "t" }',
    )
    t = check(text)
    assert t["models"]["hid"]["status"] == "affected"
    assert t["resolution"]["counts"] == {"u": 2}


# ------------------------------------------------------------------ "a target model in range and line of site" (issue 15)

GUN = model("gun", 24, 4, side="red", unit="mortars")
TARGET = model("t", 24, 24, unit="squad")
SHOT = 'id = "shot"\nshape = "small_blast"\nimpact = { attacker = "gun", target = "t" }\n'


def building(x0: float, y0: float, x1: float, y1: float, label: str = "Ruined building") -> str:
    return f'[[terrain]]\nid = "b1"\nname = "{label}"\npoints = [[{x0}, {y0}], [{x1}, {y0}], [{x1}, {y1}], [{x0}, {y1}]]\n'


def test_a_shot_at_a_target_behind_a_building_that_blocks_all_sight_is_refused() -> None:
    # The building (x 20-28, y 12-16) stands across every line from the gun's 1" base to the target's.
    t = check(table(GUN + TARGET + building(20, 12, 28, 16), SHOT))
    assert t["allowed"] is False
    assert "not in line of sight" in t["reason"] and "Ruined building (b1)" in t["reason"]
    sight = t["resolution"]["line_of_sight"]
    assert sight["kind"] == "none" and sight["seen"] is False and sight["blocked_by"] == ["b1"]
    # The template is still laid and counted, so the table shows what the shot would have done.
    assert t["resolution"]["counts"] == {"squad": 1}


@pytest.mark.parametrize(
    ("terrain", "kind"),
    [
        ("", "full"),
        # A building over the right half of the line (x 24-30): the left part of the target is in view.
        (building(24, 12, 30, 16), "partial"),
    ],
)
def test_a_target_in_some_line_of_sight_may_be_fired_at(terrain: str, kind: str) -> None:
    t = check(table(GUN + TARGET + terrain, SHOT))
    assert t["allowed"] is True and t["reason"] is None
    assert t["resolution"]["line_of_sight"]["kind"] == kind


def test_line_of_sight_check_can_be_turned_off() -> None:
    t = check(table(GUN + TARGET + building(20, 12, 28, 16), SHOT), settings={"check_line_of_sight": False})
    assert t["allowed"] is True and t["resolution"]["line_of_sight"] is None


def test_terrain_that_does_not_block_sight_does_not_refuse() -> None:
    hedge = building(20, 12, 28, 16) + "blocks_los = false\n"
    assert check(table(GUN + TARGET + hedge, SHOT))["allowed"] is True


@pytest.mark.parametrize(
    ("weapon_range", "measure", "allowed"),
    [
        # Centres 20" apart, 1" bases: 19" base edge to base edge.
        (19, "edge", True),
        (18.99, "edge", False),
        (20, "centre", True),
        (19.99, "centre", False),
        ('"48.26cm"', "edge", True),  # 19" as a length with a unit
        ('"48.2cm"', "edge", False),
    ],
)
def test_weapon_range(weapon_range: Any, measure: str, allowed: bool) -> None:
    shot = SHOT + f"weapon = {{ range = {weapon_range} }}\n"
    t = check(table(GUN + TARGET, shot), settings={"range_measure": measure})
    assert t["allowed"] is allowed
    rng = t["resolution"]["range"]
    assert rng["measure"] == measure and rng["in_range"] is allowed
    assert rng["distance"] == pytest.approx(19.0 if measure == "edge" else 20.0)
    if not allowed:
        assert "out of range" in t["reason"] and "beyond the weapon's range" in t["reason"]


def test_no_range_given_means_no_range_check() -> None:
    t = check(table(GUN + TARGET, SHOT))
    assert t["resolution"]["range"] is None and t["allowed"] is True


def test_an_unreadable_range_is_a_validation_problem() -> None:
    from tabletop.scenario_io import ScenarioError

    with pytest.raises(ScenarioError, match=r"weapon\.range"):
        loads(table(GUN + TARGET, SHOT + 'weapon = { range = "far" }\n'))


def test_a_point_aim_needs_line_of_sight_to_the_point() -> None:
    shot = 'id = "shot"\nshape = "small_blast"\nimpact = { attacker = "gun", at = [24, 24] }\n'
    open_table = check(table(GUN + TARGET, shot), settings={"allow_point_aim": True})
    assert open_table["allowed"] is True
    hidden = check(table(GUN + TARGET + building(20, 12, 28, 16), shot), settings={"allow_point_aim": True})
    assert hidden["allowed"] is False and "the point aimed at is not in line of sight" in hidden["reason"]


def test_the_bundled_scenario_behind_a_building_is_refused() -> None:
    t = check("wwpd-behind-building.toml")
    assert t["allowed"] is False and "Ruined building (b1)" in t["reason"]
    assert t["resolution"]["range"]["in_range"] is True  # 19" edge to edge, within 36"
