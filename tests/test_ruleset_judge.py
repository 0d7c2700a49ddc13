"""A tournament judge's rulings (issue 32): one worked table per item, answers computed by hand.

Each table is in ``tests/rulings/``; its comments work out the expected answer from the seed's words.
These tests use only ``adjudicate`` and the ``check --json`` report, so they run unchanged against an
older checkout of the code: before issue 32 every one of them failed (the old answer is in each table's
comments and in the assertions' messages below).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tabletop.adjudicate import adjudicate
from tabletop.report import report_json
from tabletop.scenario_io import load

RULINGS = Path(__file__).resolve().parent / "rulings"


def templates(name: str, **settings: Any) -> dict[str, dict[str, Any]]:
    """The report's templates of ``tests/rulings/<name>.toml``, by id."""
    report = report_json(adjudicate(load(RULINGS / f"{name}.toml"), settings=settings or None))
    return {t["id"]: t for t in report["templates"]}


def statuses(t: dict[str, Any]) -> dict[str, str]:
    return {mid: m["status"] for mid, m in t["models"].items()}


# --------------------------------------------------------------------------- 1. Infinity: line of fire in height


def test_a_low_wall_does_not_hide_a_trooper_whose_near_top_edge_it_cannot_cover() -> None:
    # The line to e's near top edge is 25 x 13 / 24 = 13.54 mm high at the 11 mm wall: it clears it.
    t = templates("infinity-low-wall")["grenade"]
    assert statuses(t)["e"] == "affected", "before: the line to the top above the centre, 8.90 mm at the wall: Total Cover"
    assert "e" in t["affected"] and "e" in t["resolution"]["dodge"]
    # Behind the 20 mm wall the best line, 13.54 mm there, is blocked: Total Cover, naming the wall.
    assert statuses(t)["f"] == "total_cover"
    assert "w2" in t["models"]["f"]["why"]
    # On a ledge 45 mm up: sqrt(17.5^2 + 45^2) = 48.3 mm > 38.1: out of the 3D reach.
    assert statuses(t)["g"] == "outside"
    assert "3D reach" in t["models"]["g"]["why"]


@pytest.mark.parametrize(
    ("height", "status"),
    [
        # The threshold is the line's height at the wall's near face, 25 x 13 / 24 = 13.542 mm.
        (13.5, "affected"),
        (13.6, "total_cover"),
    ],
)
def test_the_low_wall_threshold_is_the_line_to_the_near_top_edge(height: float, status: str) -> None:
    import dataclasses

    s = load(RULINGS / "infinity-low-wall.toml")
    terrain = tuple(dataclasses.replace(p, height=height) if p.id == "w" else p for p in s.terrain)
    t = report_json(adjudicate(dataclasses.replace(s, terrain=terrain)))["templates"][0]
    assert t["models"]["e"]["status"] == status


# --------------------------------------------------------------------------- 2. Infinity: a circle in 3D


def test_a_circular_template_reaches_up_on_every_side_of_its_focus() -> None:
    # sqrt(15.5^2 + 30^2) = 33.77 mm <= 38.1 for the three troopers 30 mm up, on and off the line of fire.
    t = templates("infinity-circle-3d")["grenade"]
    assert t["resolution"]["vertical_model"] == "x"
    assert {i: statuses(t)[i] for i in ("left", "right", "on")} == {"left": "affected", "right": "affected", "on": "affected"}, (
        "before: only the trooper on the line of fire"
    )


def test_the_literal_slice_is_a_setting() -> None:
    t = templates("infinity-circle-3d", vertical_model="x_slice")["grenade"]
    assert {i: statuses(t)[i] for i in ("left", "right", "on")} == {"left": "outside", "right": "outside", "on": "affected"}


# --------------------------------------------------------------------------- 3. Infinity: declared targets


def test_a_direct_template_aro_whose_target_is_not_under_it_is_cancelled() -> None:
    t = templates("infinity-declared-targets")["aro"]
    assert t["allowed"] is False and "cancelled" in t["reason"], "before: allowed, the bystander affected"
    assert t["affected"] == [] and statuses(t)["b"] == "outside"
    assert t["resolution"]["cancelled"] is True and t["resolution"]["dodge"] == {}


def test_a_camouflage_marker_is_refused_as_the_main_target() -> None:
    t = templates("infinity-declared-targets")["camo_target"]
    assert t["allowed"] is False, "before: the attack was allowed"
    assert "Camouflage Marker" in t["reason"] and "main target" in t["reason"]


def test_a_camouflage_marker_is_affected_as_a_bystander() -> None:
    t = templates("infinity-declared-targets")["camo_bystander"]
    assert t["allowed"] is True and t["affected"] == ["e", "m"]
    assert t["models"]["m"]["camouflage_marker"] == "affected like a trooper (FAQ)"


# --------------------------------------------------------------------------- 4-6. Robotech volleys


def test_inescapable_counts_the_missiles_that_hit_by_default() -> None:
    t = templates("robotech-volleys")["inescapable"]
    r = t["resolution"]
    # Two 6s hit DF 6 (10 + 10), two 5s do NO DAMAGE; 2 hits < 4: it Dodges, 6 >= 6.
    assert r["damage"] == {"pod_a": 20}
    assert r["reactions"]["pod_a"]["dodge"] == {"roll": 6, "pi": 0, "total": 6, "needs": 6, "success": True}
    assert r["final_damage"] == {"pod_a": 0}, "before: Inescapable under 4 templates, 20"


def test_inescapable_by_radius_is_the_summarys_setting() -> None:
    r = templates("robotech-volleys", inescapable_counts="radius")["inescapable"]["resolution"]
    assert r["reactions"]["pod_a"]["dodge"] == {"inescapable": True, "missiles": 4}
    assert r["final_damage"] == {"pod_a": 20}


def test_a_shoot_down_destroys_only_the_missiles_that_would_have_hit_the_shooter() -> None:
    r = templates("robotech-volleys")["shoot_down"]["resolution"]
    assert r["damage"] == {"pod_b": 20, "pod_c": 5}
    assert r["reactions"]["pod_c"]["shoot_down"] == {"roll": 6, "success": True, "missiles": [1]}
    assert [m["shot_down_by"] for m in r["missiles"]] == ["pod_c", None]
    assert r["final_damage"] == {"pod_b": 10, "pod_c": 0}, "before: both missiles destroyed, pod_b 0"


def test_a_whole_volley_miss_inflicts_the_full_md_of_one_missile() -> None:
    r = templates("robotech-volleys")["whole_miss"]["resolution"]
    assert r["whole_volley_missed"] is True and r["impact_point"] == [32.0, 8.0] and r["scatter_strike"] == 6
    assert r["damage"] == {"pod_d": 10}, "before: half, 5"
    half = templates("robotech-volleys", whole_volley_miss_damage="half")["whole_miss"]["resolution"]
    assert half["damage"] == {"pod_d": 5}


# --------------------------------------------------------------------------- 7. CAV chain reactions


def test_chain_reactions_happen_by_default() -> None:
    r = templates("catastrophic-chain-default")["boom"]["resolution"]
    assert r["chain_reactions"] is True
    assert r["exploded"] == ["carrier", "scout", "bomber"], "before: chains off, only the carrier"
    assert [(c["model"], c["rav"], c["caused_by"]) for c in r["chain"]] == [("carrier", 2, None), ("scout", 2, "carrier"), ("bomber", 3, "scout")]


def test_a_chain_is_bounded_by_its_depth() -> None:
    r = templates("catastrophic-chain-default", chain_depth=1)["boom"]["resolution"]
    assert r["exploded"] == ["carrier", "scout"] and r["chain_stopped"] == ["bomber"]
    off = templates("catastrophic-chain-default", chain_reactions=False)["boom"]["resolution"]
    assert off["exploded"] == ["carrier"]


# --------------------------------------------------------------------------- 8. wwpd tangency


def test_a_base_that_only_touches_a_wwpd_template_is_not_under_it() -> None:
    t = templates("wwpd-tangent")["shell"]
    assert abs(t["models"]["m"]["margin_mm"]) < 1e-6
    assert statuses(t)["m"] == "outside" and t["models"]["m"]["contested"] is True
    assert t["resolution"]["counts"] == {"squad": 2}, "before: contact counted, 3"
    assert t["resolution"]["covered"] == {"squad": ["n", "t"]}


# --------------------------------------------------------------------------- 9. increments: a radius on a grid


def test_a_blast_expands_as_a_radius_by_default() -> None:
    t = templates("increments-radius")["grenade"]
    assert t["resolution"]["damage"] == {"d22": 1, "d33": 0, "s3": 1}, "before: the square reading, 2, 1, 1"
    assert statuses(t)["d33"] == "outside"


@pytest.mark.parametrize(
    ("distance", "damage"),
    [
        ("chebyshev", {"d22": 2, "d33": 1, "s3": 1}),
        ("euclidean", {"d22": 1, "d33": 0, "s3": 1}),
    ],
)
def test_the_square_and_euclidean_readings_are_settings(distance: str, damage: dict[str, int]) -> None:
    assert templates("increments-radius", distance=distance)["grenade"]["resolution"]["damage"] == damage


# =========================================================================== a second judge's tables
# Each ``tests/rulings/judge-*.toml`` works its answers out by hand in its comments, from the seed's words.


def contested(t: dict[str, Any]) -> set[str]:
    return {mid for mid, m in t["models"].items() if m["contested"]}


def test_walls_at_the_threshold_height_are_contested_not_decided() -> None:
    # The best line, to the near top edge 24 mm away, is 25 x 12 / 24 = 12.5 mm high at the walls' near faces.
    g = templates("judge-infinity-wall-thresholds")
    g1, g2 = g["g1"], g["g2"]
    assert {i: statuses(g1)[i] for i in ("graze", "over", "deep")} == {"graze": "affected", "over": "total_cover", "deep": "total_cover"}
    assert {i: statuses(g2)[i] for i in ("low", "shaky", "steady")} == {"low": "affected", "shaky": "total_cover", "steady": "total_cover"}
    # graze (12.5: the line grazes it), over (13: 1 mm lower and the trooper 1 mm nearer, 13.04 > 12), shaky
    # (15, but sigma 0.5: a band of 2 mm, 13.64 > 13) are within the band; deep, low, steady are not.
    assert {"graze", "over"} <= contested(g1) and "deep" not in contested(g1), "before: the height test was never contested"
    assert contested(g2) & {"low", "shaky", "steady"} == {"shaky"}
    assert g1["models"]["graze"]["focus_contested"] is True and "focus_contested" not in g1["models"]["deep"]
    # Walls of unlimited height: a base 0.67 mm inside the shadow's edge, another 0.61 mm out of it.
    g3 = g["g3"]
    assert {i: statuses(g3)[i] for i in ("ka", "kb")} == {"ka": "total_cover", "kb": "affected"}
    assert contested(g3) >= {"ka", "kb"}, "before: the plan shadow was never contested either"


def test_a_contested_wall_is_explained_in_its_step() -> None:
    from tabletop.explain import explain_text

    text = explain_text(adjudicate(load(RULINGS / "judge-infinity-wall-thresholds.toml")))
    lines = [ln for ln in text.splitlines() if ln.lstrip()[:1].isdigit()]
    graze = next(ln for ln in lines if "graze:" in ln)
    over = next(ln for ln in lines if "over: Total Cover" in ln)
    deep = next(ln for ln in lines if "deep: Total Cover" in ln)
    assert "contested" in graze and "higher or wider would hide it" in graze
    assert "contested" in over and "lower, or the trooper 1 mm nearer a clear line, would show it" in over
    assert "contested" not in deep


def test_the_blast_focus_draws_line_of_fire_only_inside_the_ball() -> None:
    # tall: the ball reaches 28.75 mm over its near edge; that line is 17.25 mm high at the 20.5 mm wall.
    g = templates("judge-infinity-ball-lof")
    assert statuses(g["g1"])["tall"] == "total_cover", "before: the line to its top (24 mm at the wall, ending outside the ball): affected"
    assert statuses(g["g1"])["short"] == "affected" and not contested(g["g1"]) & {"tall", "short"}
    # From a focus 40 mm up, the falling line to an S1's top stays in the ball within 35.02 mm: 32.72 mm at the walls.
    assert {i: statuses(g["g2"])[i] for i in ("over", "under")} == {"over": "affected", "under": "total_cover"}
    assert not contested(g["g2"]) & {"over", "under"}


@pytest.mark.parametrize(
    ("vertical_model", "expected", "doubtful"),
    [
        # cylinder: the slab reaches 38.1 mm everywhere: 22.86 > 20.5 (tall); 33.31 < 34 (under).
        ("cylinder", {"tall": "affected", "short": "affected", "over": "affected", "under": "total_cover"}, {"tall", "under"}),
        # x_slice: no cap off the line of fire (tall: 24 > 20.5); over and under are off it, below the focus.
        ("x_slice", {"tall": "affected", "short": "affected", "over": "outside", "under": "outside"}, set()),
    ],
)
def test_the_other_readings_of_the_3d_area(vertical_model: str, expected: dict[str, str], doubtful: set[str]) -> None:
    g = templates("judge-infinity-ball-lof", vertical_model=vertical_model)
    got = {i: statuses(g["g1" if i in ("tall", "short") else "g2"])[i] for i in expected}
    assert got == expected
    assert (contested(g["g1"]) | contested(g["g2"])) & set(expected) == doubtful


def test_a_chain_longer_than_its_bound_with_a_martyr_and_three_sides() -> None:
    t = templates("judge-catastrophic-long-chain")["boom"]
    r = t["resolution"]
    assert r["exploded"] == ["v0", "v1", "v2", "v3", "v4", "v5"] and r["chain_stopped"] == ["v6"]
    assert (r["chain"][5]["rav"], r["chain"][5]["martyr_bonus"], r["chain"][5]["caught"]) == (3, True, ["squad", "v4", "v6"])
    assert r["victory_points"] == [{"martyr": "v5", "martyr_awarded_to": "green", "caught_awarded_to": {"squad": "blue", "v6": None}}]
    # A caught model's margin is the deepest any explosion reaches into its base, not the first template's:
    # v1 (2 + 0.7874 - 2.5) x 25.4 = 7.30 mm; v4 (3 + 0.7874 - 2.5) x 25.4 = 32.70; squad 12.5.
    margins = {i: t["models"][i]["margin_mm"] for i in ("v1", "v4", "squad")}
    assert margins == pytest.approx({"v1": 7.30, "v4": 32.70, "squad": 12.5}, abs=0.01), "before: -56.2 .. -263 mm, the first AOE's"
    assert not contested(t)
    deeper = templates("judge-catastrophic-long-chain", chain_depth=20)["boom"]["resolution"]
    assert deeper["exploded"][-1] == "v6" and deeper["chain_stopped"] == []


def test_a_chain_link_caught_at_the_edge_is_contested_and_so_is_what_follows() -> None:
    t = templates("judge-catastrophic-long-chain")["edge"]
    assert t["resolution"]["exploded"] == ["c0", "c1", "c2"]
    assert contested(t) == {"c1", "c2"}, "before: a chain victim was never contested"


def test_direct_aros_and_their_declared_targets() -> None:
    g = templates("judge-infinity-aro-targets")
    # tangent: T1's base touches the far end (x 239.5): base contact is "affected": the ARO stands.
    tangent = g["tangent"]
    assert tangent["allowed"] is True and tangent["affected"] == ["T1", "b1"] and "T1" in contested(tangent)
    # covered: T2 under the template but behind a wall from the Blast Focus: not affected: cancelled; b2 not affected.
    covered = g["covered"]
    assert covered["allowed"] is False and covered["affected"] == [] and statuses(covered)["T2"] == "total_cover"
    assert "Total Cover" in covered["reason"], "before: 'is not under the template', though it is under it"
    # camo: an ARO declared at a Camouflage Marker: refused.
    assert g["camo"]["allowed"] is False and "Camouflage Marker" in g["camo"]["reason"]
    # imp: an Impersonation Marker under a Direct Template: nullified, by the FAQ's own sentence.
    imp = g["imp"]
    assert imp["allowed"] is False and "Impersonation Marker" in imp["reason"]
    # cc: the ARO misses far5 (x 287.5 > 239.5): cancelled; close combat brings no one in.
    cc = g["cc"]
    assert cc["allowed"] is False and cc["affected"] == [] and statuses(cc)["b5"] == statuses(cc)["cc5"] == "outside"


def test_an_impersonation_marker_step_quotes_the_impersonation_faq() -> None:
    adj = adjudicate(load(RULINGS / "judge-infinity-aro-targets.toml"))
    imp = next(r for r in adj.results if r.template.id == "imp")
    step = next(s for s in imp.resolution.steps if s.text.startswith("Not allowed"))
    from tabletop import rulesets

    title, quote = rulesets.get("infinity").step_rule(step)  # type: ignore[misc]
    assert "Impersonation Marker" in quote and "counts as a friendly trooper" in quote, "before: the friendly-trooper sentence"


def test_robotech_volleys_with_mixed_hits_and_shoot_down_orders() -> None:
    g = templates("judge-robotech-mixed-volleys")
    # mixed: p 6 + 6 + 3 (scattered missile 3, new Strike 5) + 6 = 21; q only missile 4 (Strike 7 >= DF 7): 3.
    # q's shot (5) fails; p's 6 destroys all four (each reaches its DF 5): nothing left for anyone.
    r = g["mixed"]["resolution"]
    assert r["damage"] == {"p20": 21, "q20": 3} and r["final_damage"] == {"p20": 0, "q20": 0}
    assert r["reactions"]["q20"]["shoot_down"] == {"roll": 5, "success": False, "missiles": [4]}
    assert r["reactions"]["p20"]["shoot_down"] == {"roll": 6, "success": True, "missiles": [1, 2, 3, 4]}
    # order: p shoots first and destroys all; q then has no missile that would hit it: no die, no attempt.
    r = g["order"]["resolution"]
    assert r["final_damage"] == {"p44": 0, "q44": 0} and "q44" not in r["reactions"]
    # dodge: missile 3's new Strike 4 < DF 5: 3 hits on p: one Dodge against max(6, 5, 7) = 7: 6 + 1 = 7 dodges.
    r = g["dodge"]["resolution"]
    assert r["damage"] == {"p32": 18, "q32": 3} and r["final_damage"] == {"p32": 0, "q32": 3}
    assert r["reactions"]["p32"]["dodge"]["needs"] == 7 and r["reactions"]["q32"]["dodge"]["needs"] == 7
    # inescapable: the scattered missile 3 reaches p's DF (5): 4 hits: Inescapable, 21 stands.
    r = g["inescapable"]["resolution"]
    assert r["reactions"]["p8"]["dodge"] == {"inescapable": True, "missiles": 4} and r["final_damage"] == {"p8": 21}
    # untouchable: Strike 5 hits the point of impact; the primary target's DF 6 > 5: NO DAMAGE; s (DF 3) half: 4.
    assert g["untouchable"]["resolution"]["damage"] == {"r": 0, "s": 4}
    radius = templates("judge-robotech-mixed-volleys", inescapable_counts="radius")["dodge"]["resolution"]
    assert radius["final_damage"] == {"p32": 18, "q32": 3} and radius["reactions"]["q32"]["dodge"]["roll"] == 6


def test_a_mecha_that_only_touches_a_scattered_missiles_template_is_contested() -> None:
    t = templates("judge-robotech-mixed-volleys")["edge"]
    assert t["resolution"]["damage"] == {"p62": 9, "e62": 3}
    e = t["models"]["e62"]
    assert e["status"] == "affected" and abs(e["margin_mm"]) < 1e-6
    assert e["contested"] is True, "before: margin -14.4 mm from the first template, not contested"


def test_a_volley_dodge_step_says_which_missiles_set_the_number() -> None:
    adj = adjudicate(load(RULINGS / "judge-robotech-mixed-volleys.toml"))
    texts = [s.text for r in adj.results for s in r.resolution.steps if "dodges:" in s.text]
    assert "p32 dodges: 6 + PI 1 = 7 against 7, the highest Strike of missiles 1, 2, 4: dodged, no damage (instead of 18)" in texts
    assert any(t.startswith("q32 dodges:") and "against 7, the highest Strike of missile 4:" in t for t in texts), (
        "before: 'against the highest Strike of missiles 4, 7', which reads as missiles 4 and 7"
    )


def test_wwpd_batteries_count_each_template_and_never_a_tangent_base() -> None:
    g = templates("judge-wwpd-battery-edges")
    three, two = g["three"]["resolution"], g["two"]["resolution"]
    assert three["counts"] == {"squad": 4, "escort": 1} and three["covered"] == {"squad": ["d", "f", "t"], "escort": ["h"]}
    assert three["leadership_test"] is True and three["friendly_covered"] == ["h"]
    assert g["three"]["models"]["d"]["under"] == ["three#2", "three#3"]  # counted twice
    assert g["three"]["models"]["f"]["under"] == ["three#2"] and g["three"]["models"]["f"]["contested_templates"] == ["three#3"]
    assert statuses(g["three"])["e"] == statuses(g["three"])["g"] == "outside" and {"e", "g"} <= contested(g["three"])
    assert two["counts"] == {"squad": 4} and two["leadership_test"] is False
    assert g["two"]["models"]["t"]["under"] == ["two#1", "two#2"]


@pytest.mark.parametrize(
    ("distance", "g1", "g2"),
    [
        ("alternating", {"a11": 8, "a21": 4, "a22": 2, "a32": 1, "a44": 0, "a04": 1, "z1": 8}, {"b22": 4, "b31": 4, "b40": 4, "b44": 2}),
        ("euclidean", {"a11": 4, "a21": 2, "a22": 2, "a32": 1, "a44": 0, "a04": 1, "z1": 4}, {"b22": 4, "b31": 4, "b40": 4, "b44": 2}),
        ("chebyshev", {"a11": 8, "a21": 4, "a22": 4, "a32": 2, "a44": 1, "a04": 1, "z1": 8}, {"b22": 8, "b31": 4, "b40": 4, "b44": 4}),
    ],
)
def test_increments_diagonals_wide_ground_zero_and_levels(distance: str, g1: dict[str, int], g2: dict[str, int]) -> None:
    g = templates("judge-increments-diagonals", distance=distance)
    assert {k: g["g1"]["resolution"]["damage"][k] for k in g1} == g1
    assert {k: g["g2"]["resolution"]["damage"][k] for k in g2} == g2
