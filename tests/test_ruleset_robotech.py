"""The ``robotech`` ruleset: every outcome from fixed rolls, through adjudicate and the report."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

from tabletop import rulesets
from tabletop.adjudicate import adjudicate
from tabletop.model import Impact, Scenario, Terrain
from tabletop.report import report_json, report_text
from tabletop.rulesets.robotech.rules import scatter_point
from tabletop.scenario_io import ScenarioError, load, load_with_warnings, loads

from .conftest import SCENARIOS

IN = 25.4


def scenario(name: str) -> Scenario:
    return load(SCENARIOS / f"robotech-{name}.toml")


def change(
    s: Scenario,
    *,
    rolls: dict[str, Any] | None = None,
    weapon: dict[str, Any] | None = None,
    placement: Any = None,
    models: dict[str, dict[str, Any]] | None = None,
    terrain: tuple[Terrain, ...] | None = None,
) -> Scenario:
    """The scenario with its (only) template's rolls/weapon/placement and some models changed."""
    t = s.templates[0]
    t = dataclasses.replace(
        t,
        rolls=t.rolls if rolls is None else rolls,
        weapon={**t.weapon, **(weapon or {})},
        placement=t.placement if placement is None else placement,
    )
    ms = tuple(dataclasses.replace(m, **(models or {}).get(m.id, {})) for m in s.models)
    return dataclasses.replace(s, templates=(t,), models=ms, terrain=s.terrain if terrain is None else terrain)


def run(s: Scenario, **settings: Any) -> dict[str, Any]:
    adj = adjudicate(s, settings=settings)
    report_text(adj)  # the text report must render every outcome
    return report_json(adj)["templates"][0]


def roll_names(t: dict[str, Any]) -> list[str]:
    return [r["name"] for r in t["resolution"]["dice"]]


# ---------------------------------------------------------------- a hit


def test_hit_full_md_to_target_half_to_others_structure_unreduced() -> None:
    t = run(scenario("hit"))
    r = t["resolution"]
    assert t["allowed"] is True
    # strike 4 + GN 1 = 5 >= 5: a hit on the point of impact.
    assert (r["strike"], r["hit"], r["scattered"]) == (5, True, False)
    assert r["impact_point"] == [30.0, 10.0]
    # Target DF 4 <= 5: full MD 10; pod2 (DF 3), Cyclone (DF 4), Bunker (DF 2): 10 // 2 = 5;
    # Officer DF 6 > 5: nothing.
    assert r["damage"] == {"bunker": 5, "cyclone": 5, "officer": 0, "pod1": 10, "pod2": 5}
    assert t["terrain_affected"] == ["bunker"]
    assert t["affected"] == ["cyclone", "officer", "pod1", "pod2"]


def test_hit_reactions_dodge_and_roll_with_impact() -> None:
    r = run(scenario("hit"))["resolution"]
    # pod1 dodges 6 + PI 0 = 6 >= 5: no damage; pod2 dodges 2 + PI 1 = 3 < 5, then 5 // 2 = 2.
    assert r["reactions"]["pod1"]["dodge"] == {"roll": 6, "pi": 0, "total": 6, "needs": 5, "success": True}
    assert r["reactions"]["pod2"]["dodge"]["success"] is False
    assert r["reactions"]["pod2"]["roll_with_impact"] == {"before": 5, "after": 2}
    # Structures can neither Dodge nor Roll with Impact; unlisted mecha keep the full amount.
    assert r["final_damage"] == {"bunker": 5, "cyclone": 5, "officer": 0, "pod1": 0, "pod2": 2}


def test_a_successful_dodge_does_not_move_the_template() -> None:
    t = run(scenario("hit"))
    assert t["focus"] == [30.0, 10.0] and t["resolution"]["scattered"] is False
    assert "scatter_direction" not in roll_names(t)


def test_primary_target_with_df_above_the_strike_takes_nothing() -> None:
    # strike 4 + GN 1 = 5 hits the point of impact, but the target's DF 6 > 5.
    s = change(scenario("hit"), models={"pod1": {"stats": {"DF": 6}}}, rolls={"strike": 4, "dodge": [1, 1]})
    r = run(s)["resolution"]
    assert r["hit"] is True and r["damage"]["pod1"] == 0 and r["damage"]["pod2"] == 5


def test_strike_six_reaches_df_six() -> None:
    # strike 5 + GN 1 = 6 >= the Officer's DF 6: half MD 5.
    r = run(change(scenario("hit"), rolls={"strike": 5, "dodge": [1, 1]}))["resolution"]
    assert r["strike"] == 6 and r["damage"]["officer"] == 5


def test_command_points_run_out() -> None:
    # pod1 has CP 1: it Dodges (1 + PI 0 = 1 < 5, fails) and has none left to Roll with Impact.
    s = change(scenario("hit"), weapon={"dodge": ["pod1"], "roll_with_impact": ["pod1"]}, rolls={"strike": 4, "dodge": 1})
    r = run(s)["resolution"]
    assert r["reactions"]["pod1"] == {
        "dodge": {"roll": 1, "pi": 0, "total": 1, "needs": 5, "success": False},
        "roll_with_impact": "no Command Point left",
    }
    assert r["final_damage"]["pod1"] == 10


def test_roll_with_impact_roll_setting() -> None:
    s = change(scenario("hit"), weapon={"dodge": [], "roll_with_impact": ["pod1", "pod2"]}, rolls={"strike": 4, "roll_with_impact": [3, 4]})
    r = run(s, roll_with_impact_needs=4)["resolution"]
    # pod1 rolls 3 < 4: keeps 10; pod2 rolls 4 >= 4: 5 // 2 = 2.
    assert r["final_damage"]["pod1"] == 10 and r["final_damage"]["pod2"] == 2
    r = run(s)["resolution"]  # default: Roll with Impact always halves, no roll
    assert r["final_damage"]["pod1"] == 5 and "roll_with_impact" not in [d["name"] for d in r["dice"]]


# ---------------------------------------------------------------- targeting


def test_friendly_mecha_without_life_is_cheap_forbids_the_attack() -> None:
    s = change(scenario("hit"), models={"valkyrie": {"x": 31 * IN, "y": 8 * IN}})
    t = run(s)
    assert t["allowed"] is False
    assert "Valkyrie" in t["reason"] and "Life is Cheap" in t["reason"]
    assert t["resolution"]["dice"] == [] and t["resolution"]["damage"] == {}


def test_friendly_with_life_is_cheap_is_allowed_and_without_it_is_not() -> None:
    assert run(scenario("hit"))["allowed"] is True  # the Cyclone under it has Life is Cheap
    t = run(change(scenario("hit"), models={"cyclone": {"tags": ()}}))
    assert t["allowed"] is False and "Cyclone" in t["reason"]


def test_only_enemy_mecha_may_be_targeted() -> None:
    s = change(scenario("hit"), placement=Impact("destroid", target="valkyrie"))
    t = run(s)
    assert t["allowed"] is False and "not an enemy" in t["reason"]


def test_spot_on_the_ground_needs_indirect_fire() -> None:
    spot = Impact("destroid", point=(28 * IN, 12 * IN))
    t = run(change(scenario("hit"), placement=spot, rolls={"strike": 4}))
    assert t["allowed"] is False and "Indirect Fire" in t["reason"]
    s = change(scenario("hit"), placement=spot, weapon={"abilities": ["blast", "indirect_fire"], "dodge": []}, rolls={"strike": 4})
    t = run(s)
    r = t["resolution"]
    # No primary target: everything under the template takes half MD (DF <= 5).
    assert t["allowed"] is True and r["hit"] is True and r["impact_point"] == [28.0, 12.0]
    assert r["damage"] == {"bunker": 5, "cyclone": 5, "pod1": 5}


def test_range_is_checked_centre_to_centre() -> None:
    # 20" from the attacker's centre to the target's; range 19" refuses, 20" allows.
    assert run(change(scenario("hit"), weapon={"range": 19}))["allowed"] is False
    assert run(change(scenario("hit"), weapon={"range": 20}))["allowed"] is True


def test_line_of_sight_blocked_by_a_wall() -> None:
    wall = Terrain("wall", points=((20 * IN, 5 * IN), (21 * IN, 5 * IN), (21 * IN, 15 * IN), (20 * IN, 15 * IN)), kind="wall")
    s = change(scenario("hit"), terrain=(*scenario("hit").terrain, wall))
    t = run(s)
    assert t["allowed"] is False and "line of sight" in t["reason"]
    assert run(s, check_line_of_sight=False)["allowed"] is True


def test_indirect_fire_needs_a_spotter() -> None:
    wall = Terrain("wall", points=((20 * IN, 0), (21 * IN, 0), (21 * IN, 48 * IN), (20 * IN, 48 * IN)), kind="wall")
    w = {"abilities": ["blast", "indirect_fire"], "dodge": []}
    s = change(scenario("hit"), terrain=(*scenario("hit").terrain, wall), weapon=w, rolls={"strike": 4})
    # The Cyclone (friendly, beyond the wall) sees the target: Indirect Fire may shoot over the wall.
    assert run(s)["allowed"] is True
    s2 = change(s, models={"cyclone": {"x": 5 * IN, "y": 40 * IN}})  # now nobody friendly sees it
    t = run(s2)
    assert t["allowed"] is False and "line of sight" in t["reason"]


def test_structure_as_primary_target_takes_full_md() -> None:
    s = change(
        scenario("hit"),
        placement=Impact("destroid", point=(30 * IN, 13 * IN)),
        weapon={"target_structure": "bunker", "dodge": []},
        rolls={"strike": 4},
    )
    r = run(s)["resolution"]
    # Bunker DF 2 <= 5: full MD 10, no reduction; pod1 is now a bystander: 5.
    assert r["damage"]["bunker"] == 10 and r["damage"]["pod1"] == 5 and r["final_damage"]["bunker"] == 10


def test_a_template_without_an_attacker_is_refused() -> None:
    s = loads(
        """
format = 1
ruleset = "robotech"
[table]
width = 24
depth = 24
[[model]]
id = "a"
x = 10
y = 10
base = 1
[[template]]
id = "t"
shape = "robotech_blast"
at = [10, 10]
"""
    )
    t = run(s)
    assert t["allowed"] is False and "attacker" in t["reason"]


# ---------------------------------------------------------------- scatter


def test_scatter_moves_the_template_and_strikes_again() -> None:
    t = run(scenario("scatter"))
    r = t["resolution"]
    # strike 2 + GN 1 = 3 < 5: miss. Direction 2 = 60° clockwise of "away from the firer" (0°): -60°.
    # 2D6 = 6": centre (30 + 6 cos 60°, 10 - 6 sin 60°) = (33, 4.803848).
    assert (r["strike"], r["hit"], r["scattered"]) == (3, False, True)
    assert r["scatter_direction"] == 2 and r["scatter_distance"] == 6.0 and r["scatter_capped"] is False
    assert r["impact_point"] == pytest.approx([33.0, 10 - 6 * math.sin(math.radians(60))], abs=1e-6)
    assert t["focus"] == r["impact_point"]
    # New Strike 4 + 1 = 5, no GN. Half MD 10 // 2 = 5 for DF <= 5, friendly Spartan included;
    # Officer DF 6 > 5: nothing; the original target is no longer under the template.
    assert r["scatter_strike"] == 5
    assert r["damage"] == {"officer": 0, "pod3": 5, "spartan": 5}
    assert t["models"]["pod1"]["status"] == "outside"
    assert r["dud"] is False
    assert roll_names(t) == ["strike", "scatter_direction", "scatter_distance", "scatter_strike"]


def test_scatter_is_animated_and_the_aim_is_drawn() -> None:
    adj = adjudicate(scenario("scatter"))
    res = adj.results[0].resolution
    slides = [s for s in res.steps if s.kind == "scatter"]
    assert len(slides) == 1 and slides[0].placed is not None
    assert slides[0].placed.focus == res.placed.focus
    assert [p.focus for p in res.also_drawn] == [(30 * IN, 10 * IN)]


def test_scatter_never_hits_the_primary_target_with_full_md() -> None:
    # Direction 1 (straight away), 2D6 = 2": centre (32, 10); pod1 at (30, 10) is still under it
    # but no longer the primary target: half MD.
    s = change(scenario("scatter"), rolls={"strike": 2, "scatter_direction": 1, "scatter_distance": 2, "scatter_strike": 6})
    r = run(s)["resolution"]
    assert r["impact_point"] == [32.0, 10.0] and r["scatter_strike"] == 7 and r["damage"]["pod1"] == 5


def test_scatter_distance_is_capped_at_the_range_to_the_target() -> None:
    # Attacker 4" from the target; 2D6 = 12 is capped at 4"; direction 4 points back at the firer:
    # the centre lands on the attacker's own centre (26, 10).
    s = change(
        scenario("scatter"),
        models={"destroid": {"x": 26 * IN}},
        rolls={"strike": 1, "scatter_direction": 4, "scatter_distance": 12, "scatter_strike": 3},
    )
    r = run(s)["resolution"]
    assert r["scatter_capped"] is True and r["scatter_distance"] == 4.0
    assert r["impact_point"] == pytest.approx([26.0, 10.0], abs=1e-6)
    # The firer itself (DF 5 > 1 + 3 = 4) is under its own scattered Blast and takes nothing.
    assert r["damage"] == {"destroid": 0}
    assert r["dud"] is True


def test_scatter_strike_reaching_no_df_is_a_dud() -> None:
    # New Strike 1 + 1 = 2 < every DF under the template (3, 5, 6): a dud, no second scatter.
    s = change(scenario("scatter"), rolls={"strike": 2, "scatter_direction": 2, "scatter_distance": 6, "scatter_strike": 1})
    t = run(s)
    r = t["resolution"]
    assert r["dud"] is True and set(r["damage"].values()) == {0}
    assert roll_names(t).count("scatter_direction") == 1


@pytest.mark.parametrize(
    ("direction", "angle"),
    [(1, 0.0), (2, -60.0), (3, -120.0), (4, 180.0), (5, 120.0), (6, 60.0)],
)
def test_scatter_directions_clockwise_from_away(direction: int, angle: float) -> None:
    # Firer due south of the aim point: direction 1 points north (90°), then clockwise.
    aim, firer = (0.0, 0.0), (0.0, -10.0)
    x, y = scatter_point(aim, firer, direction, 1.0)
    want = math.radians(90.0 + angle)
    assert (x, y) == pytest.approx((math.cos(want), math.sin(want)), abs=1e-12)


# ---------------------------------------------------------------- volleys


def test_four_missiles_are_inescapable() -> None:
    t = run(scenario("volley"))
    r = t["resolution"]
    # Strikes 3, 4, 5, 3 + GN 2 = 5, 6, 7, 5: all hit. pod1 (DF 4): 4 x 6 = 24; pod2 (DF 3): 4 x 3 = 12.
    assert r["strikes"] == [5, 6, 7, 5] and r["strike"] == 7 and r["hit"] is True
    assert r["damage"] == {"pod1": 24, "pod2": 12}
    assert r["reactions"]["pod1"]["dodge"] == {"inescapable": True, "missiles": 4}
    assert r["reactions"]["pod2"]["dodge"] == {"inescapable": True, "missiles": 4}
    # One Roll with Impact for the whole volley: 24 // 2 = 12.
    assert r["reactions"]["pod1"]["roll_with_impact"] == {"before": 24, "after": 12}
    assert r["final_damage"] == {"pod1": 12, "pod2": 12}
    assert "dodge" not in roll_names(t)


def test_three_missiles_one_dodge_against_the_highest_strike() -> None:
    # Strikes 5, 6, 7 hit; 1 + 2 = 3 misses and scatters on its own: direction 4 (back), 8" -> (22, 10),
    # where nobody stands. pod1 Dodges all three with one roll: 6 + PI 1 = 7 >= 7.
    # pod2 rolls 1 + 1 = 2 < 7: takes 3 x 3 = 9.
    s = change(
        scenario("volley"),
        rolls={"strike": [3, 4, 5, 1], "scatter_direction": 4, "scatter_distance": 8, "scatter_strike": 3, "dodge": [6, 1]},
        weapon={"roll_with_impact": []},
    )
    t = run(s)
    r = t["resolution"]
    assert r["damage"] == {"pod1": 18, "pod2": 9}
    assert r["reactions"]["pod1"]["dodge"]["needs"] == 7 and r["reactions"]["pod1"]["dodge"]["success"] is True
    assert r["final_damage"] == {"pod1": 0, "pod2": 9}
    assert roll_names(t).count("dodge") == 2
    m4 = r["missiles"][3]
    assert m4["scattered"] is True and m4["impact_point"] == [22.0, 10.0] and m4["damage"] == {}
    assert len(adjudicate(s).results[0].resolution.also_drawn) == 1  # the stray missile's template


def test_a_dodge_of_six_fails_against_seven() -> None:
    s = change(scenario("volley"), rolls={"strike": [3, 4, 5, 1], "scatter_distance": 8, "scatter_direction": 4, "dodge": [5, 6]})
    r = run(s)["resolution"]
    # pod1: 5 + 1 = 6 < 7 fails; pod2: 6 + 1 = 7 succeeds.
    assert r["reactions"]["pod1"]["dodge"]["success"] is False and r["reactions"]["pod2"]["dodge"]["success"] is True


def test_whole_volley_miss_scatters_once_with_one_missile() -> None:
    # Strikes 1, 1, 2, 2 + GN 2 = 3, 3, 4, 4: all miss. One scatter: direction 1, 2" -> (32, 10).
    # New Strike 5 + 1 = 6: "it only inflicts the full MD of one missile", 6, to pod1 (DF 4) and pod2 (DF 3).
    rolls = {"strike": [1, 1, 2, 2], "scatter_direction": 1, "scatter_distance": 2, "scatter_strike": 5}
    s = change(scenario("volley"), rolls=rolls, weapon={"dodge": [], "roll_with_impact": []})
    t = run(s)
    r = t["resolution"]
    assert r["hit"] is False and r["whole_volley_missed"] is True and r["impact_point"] == [32.0, 10.0]
    assert r["damage"] == {"pod1": 6, "pod2": 6}
    assert roll_names(t).count("scatter_direction") == 1
    # Like any other scatter (the setting): half of one missile's MD, 6 // 2 = 3.
    assert run(s, whole_volley_miss_damage="half")["resolution"]["damage"] == {"pod1": 3, "pod2": 3}


def test_shooting_down_the_missiles_needs_a_six() -> None:
    w = {"shoot_down": ["pod2"], "dodge": [], "roll_with_impact": []}
    r = run(change(scenario("volley"), weapon=w, rolls={"strike": [3, 4, 5, 3], "shoot_down": 6}))["resolution"]
    # A 6: all four missiles would hit pod2 (Strikes 5, 6, 7, 5 >= its DF 3): all are destroyed, they damage no one.
    assert r["damage"] == {"pod1": 24, "pod2": 12}
    assert r["final_damage"] == {"pod1": 0, "pod2": 0}
    assert all(m["shot_down_by"] == "pod2" for m in r["missiles"])
    r = run(change(scenario("volley"), weapon=w, rolls={"strike": [3, 4, 5, 3], "shoot_down": 5}))["resolution"]
    assert r["reactions"]["pod2"]["shoot_down"] == {"roll": 5, "success": False, "missiles": [1, 2, 3, 4]}
    assert r["final_damage"] == {"pod1": 24, "pod2": 12}


def test_shoot_down_only_for_missiles() -> None:
    w = {"abilities": ["blast"], "shoot_down": ["pod2"], "dodge": [], "roll_with_impact": []}
    t = run(change(scenario("volley"), weapon=w, rolls={"strike": [3, 4, 5, 3], "shoot_down": 6}))
    assert "shoot_down" not in roll_names(t) and t["resolution"]["final_damage"]["pod2"] == 12


def test_split_volley_uses_a_template_per_missile() -> None:
    s = change(scenario("volley"), weapon={"volley": 3, "targets": ["pod1", "pod1", "pod3"], "dodge": [], "roll_with_impact": []},
               rolls={"strike": [3, 3, 3]})
    pod3 = dataclasses.replace(s.models[1], id="pod3", x=30 * IN, y=30 * IN, name="far pod")
    s = dataclasses.replace(s, models=(*s.models, pod3))
    adj = adjudicate(s)
    r = report_json(adj)["templates"][0]["resolution"]
    # Two missiles on pod1 (2 x 6 full, pod2 2 x 3 half), one on pod3 (full 6).
    assert r["damage"] == {"pod1": 12, "pod2": 6, "pod3": 6}
    assert [p.focus for p in adj.results[0].resolution.also_drawn] == [(30 * IN, 30 * IN)]


def test_split_volley_missiles_scatter_separately() -> None:
    s = change(scenario("volley"), weapon={"volley": 2, "targets": ["pod1", "pod2"], "dodge": [], "roll_with_impact": []},
               rolls={"strike": [1, 1], "scatter_direction": [1, 1], "scatter_distance": [12, 12], "scatter_strike": [6, 6]})
    t = run(s)
    assert roll_names(t).count("scatter_direction") == 2 and t["resolution"].get("whole_volley_missed") is None


# ---------------------------------------------------------------- files and contract


def test_bundled_scenarios_load_cleanly() -> None:
    for name in ("hit", "scatter", "volley"):
        _s, warnings = load_with_warnings(SCENARIOS / f"robotech-{name}.toml")
        assert warnings == []


def test_contract_names() -> None:
    rs = rulesets.get("robotech")
    assert rs.uses_visibility is False
    assert {"strike", "scatter_direction", "scatter_distance", "scatter_strike"} <= set(rs.rolls)
    assert (rs.rolls["strike"].count, rs.rolls["strike"].sides) == (1, 6)
    assert (rs.rolls["scatter_distance"].count, rs.rolls["scatter_distance"].sides) == (2, 6)


def test_bad_weapon_is_a_problem_at_load() -> None:
    text = (SCENARIOS / "robotech-volley.toml").read_text().replace("volley = 4", "volley = 0")
    with pytest.raises(ScenarioError) as err:
        loads(text)
    assert "volley" in str(err.value)


def _free_rolls(seed: int) -> list[tuple[str, list[int]]]:
    s = change(scenario("hit"), rolls={})
    dice = report_json(adjudicate(s, seed=seed))["templates"][0]["resolution"]["dice"]
    assert not any(d["fixed"] for d in dice)
    return [(d["name"], d["faces"]) for d in dice]


def test_unfixed_rolls_come_from_the_seed() -> None:
    s = change(scenario("hit"), rolls={})
    a, b = report_json(adjudicate(s, seed=7)), report_json(adjudicate(s, seed=7))
    assert a == b
    # The exact rolls of a seed are pinned (random.Random(seed), faces in roll order): a seed that
    # were ignored, or drawn from the clock, would not give these.
    assert _free_rolls(7) == [("strike", [3]), ("scatter_direction", [2]), ("scatter_distance", [4, 6]), ("scatter_strike", [1])]
    assert _free_rolls(5) == [("strike", [5]), ("dodge", [3]), ("dodge", [6])]
    # Different seeds, different rolls and a different outcome: 7 misses and scatters, 5 hits.
    t7 = report_json(adjudicate(s, seed=7))["templates"][0]
    t5 = report_json(adjudicate(s, seed=5))["templates"][0]
    assert (t7["resolution"]["hit"], t5["resolution"]["hit"]) == (False, True)
    assert t7["focus"] == pytest.approx([35.0, 10 - 10 * math.sin(math.radians(60))], abs=1e-6)  # direction 2, 10"
    assert t5["resolution"]["final_damage"] == {"bunker": 5, "cyclone": 5, "officer": 5, "pod1": 10, "pod2": 0}


def test_fixed_rolls_are_used_and_the_rest_come_from_the_seed() -> None:
    s = change(scenario("hit"), rolls={"strike": 4})
    dice = report_json(adjudicate(s, seed=5))["templates"][0]["resolution"]["dice"]
    assert [(d["name"], d["faces"], d["fixed"]) for d in dice][0] == ("strike", [4], True)
    assert all(not d["fixed"] for d in dice[1:]) and [d["name"] for d in dice[1:]] == ["dodge", "dodge"]


# ---------------------------------------------------------------- odd MD: half damage rounds down


@pytest.mark.parametrize(("md", "half", "quarter"), [(5, 2, 1), (7, 3, 1), (9, 4, 2), (3, 1, 0)])
def test_half_md_rounds_down_for_odd_md(md: int, half: int, quarter: int) -> None:
    r = run(change(scenario("hit"), weapon={"md": md}))["resolution"]
    # Target: full MD; DF <= 5 bystanders and the structure: MD // 2; the Officer (DF 6): nothing.
    assert r["damage"] == {"bunker": half, "cyclone": half, "officer": 0, "pod1": md, "pod2": half}
    # pod2 fails its Dodge and Rolls with Impact: half of the half, rounded down again.
    assert r["reactions"]["pod2"]["roll_with_impact"] == {"before": half, "after": quarter}
    assert r["final_damage"] == {"bunker": half, "cyclone": half, "officer": 0, "pod1": 0, "pod2": quarter}


def test_roll_with_impact_on_an_odd_full_md_rounds_down() -> None:
    # pod1 (target, MD 7) fails its Dodge (1 + PI 0 < 5) and Rolls with Impact: 7 // 2 = 3.
    s = change(scenario("hit"), models={"pod1": {"stats": {"DF": 4, "PI": 0, "CP": 2}}},
               weapon={"md": 7, "dodge": ["pod1"], "roll_with_impact": ["pod1"]}, rolls={"strike": 4, "dodge": 1})
    r = run(s)["resolution"]
    assert r["reactions"]["pod1"]["roll_with_impact"] == {"before": 7, "after": 3}
    assert r["final_damage"]["pod1"] == 3


def test_scatter_with_odd_md_halves_down() -> None:
    # The scatter test's rolls with MD 7: half 3 to DF <= 5 under the scattered template.
    r = run(change(scenario("scatter"), weapon={"md": 7}))["resolution"]
    assert r["damage"] == {"officer": 0, "pod3": 3, "spartan": 3}


def test_whole_volley_miss_with_odd_md() -> None:
    rolls = {"strike": [1, 1, 2, 2], "scatter_direction": 1, "scatter_distance": 2, "scatter_strike": 5}
    s = change(scenario("volley"), rolls=rolls, weapon={"dodge": [], "roll_with_impact": [], "md": 7})
    assert run(s)["resolution"]["damage"] == {"pod1": 7, "pod2": 7}  # the full MD of one missile
    assert run(s, whole_volley_miss_damage="half")["resolution"]["damage"] == {"pod1": 3, "pod2": 3}  # 7 // 2


# ---------------------------------------------------------------- issue 15: sight, range measure, Inescapable


def test_a_wall_hiding_only_the_centre_line_does_not_block_line_of_sight() -> None:
    # A 0.2" wall on the centre line between the Destroid (10, 10) and pod1 (30, 10), both 1.5" bases:
    # the centre segment crosses it, but lines from the rest of the base pass beside it.
    post = Terrain("post", points=((20 * IN, 9.9 * IN), (21 * IN, 9.9 * IN), (21 * IN, 10.1 * IN), (20 * IN, 10.1 * IN)), kind="wall")
    t = run(change(scenario("hit"), terrain=(*scenario("hit").terrain, post)))
    assert t["allowed"] is True


def test_line_of_sight_refusal_names_the_blocker() -> None:
    wall = Terrain("wall", points=((20 * IN, 5 * IN), (21 * IN, 5 * IN), (21 * IN, 15 * IN), (20 * IN, 15 * IN)), kind="wall", name="Long wall")
    t = run(change(scenario("hit"), terrain=(*scenario("hit").terrain, wall)))
    assert t["allowed"] is False
    assert t["reason"] == "Battlepod (target) (pod1) is not in the attacker's line of sight: blocked by Long wall (wall)"


def test_a_structure_target_needs_line_of_sight_to_some_part_of_it() -> None:
    aim = {"placement": Impact("destroid", point=(30 * IN, 13 * IN)), "weapon": {"target_structure": "bunker", "dodge": []}, "rolls": {"strike": 4}}
    # A wall (x 20-21", y 11-12.5") hides the bunker's lower part only: the rest is in view.
    low = Terrain("low", points=((20 * IN, 11 * IN), (21 * IN, 11 * IN), (21 * IN, 12.5 * IN), (20 * IN, 12.5 * IN)), kind="wall")
    assert run(change(scenario("hit"), terrain=(*scenario("hit").terrain, low), **aim))["allowed"] is True
    # A wall from y 5" to 20" hides all of it.
    high = Terrain("high", points=((20 * IN, 5 * IN), (21 * IN, 5 * IN), (21 * IN, 20 * IN), (20 * IN, 20 * IN)), kind="wall")
    t = run(change(scenario("hit"), terrain=(*scenario("hit").terrain, high), **aim))
    assert t["allowed"] is False and "Bunker (bunker) is not in the attacker's line of sight: blocked by high" in t["reason"]


@pytest.mark.parametrize(
    ("measure", "weapon_range", "allowed"),
    [
        # Centres 20" apart, 1.5" bases: 18.5" edge to edge.
        ("centre", 20, True),
        ("centre", 19.9, False),
        ("edge", 18.5, True),
        ("edge", 18.4, False),
    ],
)
def test_range_measure_setting(measure: str, weapon_range: float, allowed: bool) -> None:
    t = run(change(scenario("hit"), weapon={"range": weapon_range}), range_measure=measure)
    assert t["allowed"] is allowed
    if not allowed:
        how = "edge to edge" if measure == "edge" else "centre to centre"
        assert f"beyond the weapon's range of {weapon_range}\" (measured {how})" in t["reason"]


def test_scatter_cap_follows_the_range_measure() -> None:
    # Attacker 4" from the target centre to centre, 2.5" edge to edge (1.5" bases): 2D6 = 12 is capped
    # at 2.5"; direction 4 points back at the firer: the centre lands at (30 - 2.5, 10).
    s = change(
        scenario("scatter"),
        models={"destroid": {"x": 26 * IN}},
        rolls={"strike": 1, "scatter_direction": 4, "scatter_distance": 12, "scatter_strike": 3},
    )
    r = run(s, range_measure="edge")["resolution"]
    assert r["scatter_capped"] is True and r["scatter_distance"] == pytest.approx(2.5)
    assert r["impact_point"] == pytest.approx([27.5, 10.0], abs=1e-6)


def test_inescapable_counts_setting() -> None:
    # pod1 at DF 6; Strikes 3, 4, 5, 4 + GN 2 = 5, 6, 7, 6: all four hit the aim point (DF 5) and their
    # templates cover pod1, but the first (5) does not reach pod1's DF 6.
    s = change(scenario("volley"), models={"pod1": {"stats": {"DF": 6, "PI": 1}}}, rolls={"strike": [3, 4, 5, 4], "dodge": [6]})
    radius = run(s, inescapable_counts="radius")["resolution"]
    # Summary of Changes 6 (the setting): 'in the Blast radius of 4 missiles' -> Inescapable.
    assert radius["reactions"]["pod1"]["dodge"] == {"inescapable": True, "missiles": 4}
    hits = run(s)["resolution"]
    # The rule text (the default): 'If 4 missiles from the same volley hit any given mecha' -> only 3 hit pod1:
    # it may dodge (6 + PI 1 = 7 >= the highest Strike of those that hit it, 7: dodged). pod2 (DF 3) is hit by
    # all four either way.
    assert hits["reactions"]["pod1"]["dodge"]["success"] is True
    assert hits["reactions"]["pod2"]["dodge"] == {"inescapable": True, "missiles": 4}
    assert hits["final_damage"]["pod1"] == 0


# ---------------------------------------------------------------- the batch path (odds) agrees with resolve

EXTRA_MODELS = """
[[model]]
id = "glaug"
name = "Glaug (rect base)"
side = "zentraedi"
x = 33.6
y = 8.4
base = { shape = "rect", length = 2, width = 1.2 }
facing = 30
stats = { DF = 4, PI = 2, CP = 1 }

[[model]]
id = "regult"
name = "Regult (oval base)"
side = "zentraedi"
x = 27.0
y = 12.5
base = { shape = "oval", length = 2, width = 1.4 }
stats = { DF = 2, PI = 0 }
"""

#: (name, file, weapon changes, settings): volleys, reactions, settings and bases the batch must follow.
BATCH_CASES: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
    ("volley as bundled", "volley", {}, {}),
    ("shot down, CP, rolled impact, counted hits", "volley",
     {"shoot_down": ["pod2", "glaug"], "dodge": "all", "roll_with_impact": "all"},
     {"roll_with_impact_needs": 4, "inescapable_counts": "hits"}),
    ("whole miss at full MD, edge range, shaped bases", "volley",
     {"dodge": ["glaug", "pod2", "glaug"], "roll_with_impact": ["pod1", "regult"]},
     {"whole_volley_miss_damage": "full", "range_measure": "edge"}),
    ("split volley", "volley",
     {"volley": 3, "targets": ["pod1", "pod2", "pod1"], "shoot_down": "all", "dodge": ["pod2", "pod2"]}, {}),
    ("single blast with a structure", "hit", {}, {}),
    ("single blast that scatters", "scatter", {"dodge": "all", "roll_with_impact": "all"}, {}),
]


def _batch_scenario(name: str, weapon: dict[str, Any]) -> Scenario:
    text = (SCENARIOS / f"robotech-{name}.toml").read_text()
    if name == "volley":
        # The firer closer in and with GN 0: many misses, scatters capped at a short range, some back onto it.
        text = text.replace("x = 10\ny = 10", "x = 24\ny = 11").replace("GN = 2", "GN = 0")
        text = text.replace("[[template]]", EXTRA_MODELS + "\n[[template]]")
    return change(loads(text, f"robotech-{name}.toml"), weapon=weapon, rolls={})


def _contexts(s: Scenario, settings: dict[str, Any]) -> Any:
    """A maker of contexts for ``s``'s template sharing one table geometry and a memo of coverages
    (the same placements recur: resolving thousands of dice stays quick)."""
    from tabletop.adjudicate import settings_for
    from tabletop.coverage import cover, table_geometry
    from tabletop.placement import place
    from tabletop.resolution import Context

    t = s.templates[0]
    geometry = table_geometry(s)
    placed = place(t, s)
    memo: dict[Any, Any] = {}

    class Memo(Context):
        def cover(self, placed: Any, **kw: Any) -> Any:
            key = (placed, tuple(sorted(kw.items())))
            if key not in memo:
                memo[key] = super().cover(placed, **kw)
            return memo[key]

    first = cover(placed, geometry, use_visibility=False)
    return lambda dice: Memo(s, t, placed, first, geometry, dice, settings=settings_for(s, settings), uses_visibility=False)


@pytest.mark.parametrize(("case", "name", "weapon", "settings"), BATCH_CASES, ids=[c[0] for c in BATCH_CASES])
def test_sample_batch_agrees_with_resolve_on_the_same_dice(case: str, name: str, weapon: dict[str, Any], settings: dict[str, Any]) -> None:
    """Random rows of dice (fixed seed) through the batch and through ``resolve`` one by one: the same
    affected models, final damage, contested flags and landing point, sample by sample."""
    import numpy as np

    from tabletop.dice import Dice
    from tabletop.odds import draw_batch_rolls

    rs = rulesets.get("robotech")
    s = _batch_scenario(name, weapon)
    assert rs.sample_batch is not None
    context = _contexts(s, settings)
    sampler = rs.sample_batch(context(Dice()))
    assert sampler is not None
    n = 2000 if name == "volley" else 600
    rolls = draw_batch_rolls(sampler.rolls, n, np.random.default_rng(20260 + len(case)))
    out = sampler.resolve(rolls)
    assert out.affected.shape == out.damage.shape == out.contested.shape == (n, len(sampler.ids))
    seen_damage: set[float] = set()
    for j in range(n):
        dice = Dice(0, {k: v[j].tolist() for k, v in rolls.items()})
        res = rs.resolve(context(dice))
        assert all(r.fixed for r in dice.log), "resolve took a roll the batch does not provide"
        assert res.allowed
        want_affected = {i for i in res.affected if i in s.models_by_id()}
        want_damage = {k: float(v) for k, v in res.details["final_damage"].items() if v and k in s.models_by_id()}
        want_contested = {i for i in s.models_by_id() if res.coverage.models[i].contested}
        got = out.affected[j], out.damage[j], out.contested[j]
        assert {sampler.ids[c] for c in np.nonzero(got[0])[0]} == want_affected, (j, rolls)
        assert {sampler.ids[c]: float(got[1][c]) for c in np.nonzero(got[1])[0]} == want_damage, j
        assert {sampler.ids[c] for c in np.nonzero(got[2])[0]} == want_contested, j
        landing = sampler.landings[int(out.landing[j])]
        assert (landing.focus, landing.heading) == (res.placed.focus, res.placed.heading), j
        seen_damage.update(want_damage.values())
    # The dice reached more than one outcome: the comparison was not of a constant.
    assert len({(tuple(a), tuple(d)) for a, d in zip(out.affected.tolist(), out.damage.tolist())}) > 3
    assert len(seen_damage) > 1


def test_sample_batch_declines_a_refused_attack() -> None:
    from tabletop.dice import Dice

    s = change(scenario("volley"), weapon={"range": 5})  # the target is 20" away
    assert rulesets.get("robotech").sample_batch(_contexts(s, {})(Dice())) is None


def _random_volley(data: Any) -> tuple[Scenario, dict[str, Any]]:
    from hypothesis import strategies as st

    coord = st.floats(4, 44, allow_nan=False).map(lambda v: round(v, 2))
    ax, ay = data.draw(coord), data.draw(coord)
    # The target 4-14" away (closer, the attacker would be under its own template: refused).
    far = data.draw(st.floats(4, 14)) * data.draw(st.sampled_from([-1, 1]))
    tx, ty = round(far, 2), round(data.draw(st.floats(-3, 3)), 2)
    gn = data.draw(st.integers(0, 4))
    dfs = [data.draw(st.integers(0, 7)) for _ in range(3)]
    pis = [data.draw(st.integers(0, 3)) for _ in range(3)]
    cps = [data.draw(st.sampled_from(["", ", CP = 0", ", CP = 1", ", CP = 2"])) for _ in range(3)]
    ids = ["pod1", "pod2", "pod3"]
    who = st.one_of(st.just("all"), st.lists(st.sampled_from(ids), max_size=4))
    weapon: dict[str, Any] = {
        "md": data.draw(st.integers(0, 13)),
        "volley": data.draw(st.integers(1, 6)),
        "abilities": data.draw(st.sampled_from([["blast"], ["blast", "missile"]])),
        "dodge": data.draw(who), "roll_with_impact": data.draw(who), "shoot_down": data.draw(who),
    }
    if data.draw(st.booleans()):
        weapon["range"] = data.draw(st.integers(5, 40))
    settings = {
        "inescapable_counts": data.draw(st.sampled_from(["radius", "hits"])),
        "whole_volley_miss_damage": data.draw(st.sampled_from(["half", "full"])),
        "roll_with_impact_needs": data.draw(st.integers(0, 6)),
        "range_measure": data.draw(st.sampled_from(["centre", "edge"])),
    }
    tgt = (min(46.0, max(2.0, ax + tx)), min(46.0, max(2.0, ay + ty)))
    models = "".join(
        f'[[model]]\nid = "{i}"\nside = "zentraedi"\nx = {tgt[0] + dx}\ny = {tgt[1] + dy}\nbase = 1.5\n'
        f"stats = {{ DF = {dfs[k]}, PI = {pis[k]}{cps[k]} }}\n"
        for k, (i, dx, dy) in enumerate(zip(ids, (0.0, 1.5, -2.0), (0.0, 1.0, 2.5)))
    )
    text = (
        f'format = 1\nruleset = "robotech"\nunits = "in"\n[table]\nwidth = 48\ndepth = 48\n'
        f'[[model]]\nid = "attacker"\nside = "udf"\nx = {ax}\ny = {ay}\nbase = 1.5\nstats = {{ DF = 5, GN = {gn} }}\n'
        f'{models}[[template]]\nid = "t"\nshape = "robotech_blast"\nimpact = {{ attacker = "attacker", target = "pod1" }}\n'
    )
    s = loads(text, "random.toml")
    return change(s, weapon=weapon), settings


def test_sample_batch_agrees_with_resolve_on_random_volleys() -> None:
    """Random tables, weapons and settings (hypothesis), 40 random rows of dice each: batch == resolve."""
    import numpy as np
    from hypothesis import given, settings as hsettings, strategies as st

    from tabletop.dice import Dice
    from tabletop.odds import draw_batch_rolls

    rs = rulesets.get("robotech")
    assert rs.sample_batch is not None
    sample_batch = rs.sample_batch
    checked: list[int] = []

    @hsettings(max_examples=30, deadline=None)
    @given(st.data())
    def agree(data: Any) -> None:
        s, settings = _random_volley(data)
        context = _contexts(s, settings)
        sampler = sample_batch(context(Dice()))
        if sampler is None:  # refused (out of range, ...): resolve refuses too, without dice
            res = rs.resolve(context(Dice()))
            assert not res.allowed and res.steps and not any(step.kind == "roll" for step in res.steps)
            return
        rolls = draw_batch_rolls(sampler.rolls, 40, np.random.default_rng(data.draw(st.integers(0, 2**32))))
        out = sampler.resolve(rolls)
        ids = set(s.models_by_id())
        for j in range(40):
            dice = Dice(0, {k: v[j].tolist() for k, v in rolls.items()})
            res = rs.resolve(context(dice))
            assert all(r.fixed for r in dice.log)
            assert {sampler.ids[c] for c in np.nonzero(out.affected[j])[0]} == {i for i in res.affected if i in ids}
            want = {k: float(v) for k, v in res.details["final_damage"].items() if v and k in ids}
            assert {sampler.ids[c]: float(out.damage[j, c]) for c in np.nonzero(out.damage[j])[0]} == want
            assert {sampler.ids[c] for c in np.nonzero(out.contested[j])[0]} == {i for i in ids if res.coverage.models[i].contested}
            assert sampler.landings[int(out.landing[j])].focus == res.placed.focus
        checked.append(1)

    agree()
    assert len(checked) >= 10  # most random volleys were allowed and compared
