"""``infinity``: worked answers for what the survivors of the mutation run showed untested.

Outcomes on hand-made tables are frozen in the golden rulings (``tests/golden/tables/inf-*.toml``);
here: validation word for word, the small rules functions at their edges, and the panel of
hand-built details. Equivalents: docs/mutants/infinity.md.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from tabletop import rulesets
from tabletop.adjudicate import adjudicate
from tabletop.rulesets.infinity.rules import has_no_damage, relation, silhouette_span
from tabletop.scenario_io import loads

INF = rulesets.get("infinity")


def table(models: str, templates: str = "", extra: str = "") -> str:
    return f'format = 1\nruleset = "infinity"\nunits = "in"\n{extra}[table]\nwidth = 24\ndepth = 24\n{models}{templates}'


def trooper(mid: str, x: float, y: float, side: str = "panoceania", extra: str = "") -> str:
    return f'[[model]]\nid = "{mid}"\nside = "{side}"\nx = {x}\ny = {y}\nbase = "25mm"\n{extra}'


SHOT = '[[template]]\nid = "s"\nshape = "infinity_circular"\nimpact = { attacker = "a", target = "t" }\nweapon = { name = "Grenade" }\n'
BASIC = table(trooper("a", 4, 4, "nomads", "stats = { PH = 11, S = 2 }\n") + trooper("t", 12, 12, extra='name = "Target"\nstats = { PH = 10, S = 2 }\n'), SHOT)


# ------------------------------------------------------------------ validation, word for word


def _validate(weapon: dict[str, Any] | None = None, settings: dict[str, Any] | None = None, stats_s: Any = None) -> list[tuple[str, str]]:
    s = loads(BASIC)
    if weapon is not None:
        s = dataclasses.replace(s, templates=(dataclasses.replace(s.templates[0], weapon=weapon),))
    if settings is not None:
        s = dataclasses.replace(s, extra={**s.extra, "settings": settings})
    if stats_s is not None:
        s = dataclasses.replace(s, models=(dataclasses.replace(s.models[0], stats={"S": stats_s}), *s.models[1:]))
    return INF.validate(s)


@pytest.mark.parametrize(
    ("weapon", "problems"),
    [
        ({"target": "ghost"}, [("template[0].weapon.target", "'ghost' is not a model on this table")]),
        ({"attacker": "ghost"}, [("template[0].weapon.attacker", "'ghost' is not a model on this table")]),
        ({"burst": 0}, [("template[0].weapon.burst", "must be a whole number >= 1, got 0")]),
        ({"burst": True}, [("template[0].weapon.burst", "must be a whole number >= 1, got True")]),
        ({"burst": 1}, []),
        ({}, []),
        ({"focus_z": "high"}, [("template[0].weapon.focus_z", "not a length: 'high' (a number in the file's units, or e.g. \"1.5in\", \"40mm\")")]),
        ({"focus_z": 2}, []),
    ],
)
def test_weapon_validation_word_for_word(weapon: dict[str, Any], problems: list[tuple[str, str]]) -> None:
    got = _validate(weapon)
    if weapon.get("focus_z") == "high":
        assert [p[0] for p in got] == ["template[0].weapon.focus_z"] and "high" in got[0][1]
    else:
        assert got == problems


def test_settings_and_silhouette_validation_word_for_word() -> None:
    assert _validate(settings={"vertical_model": "tube"}) == [("settings.vertical_model", "must be one of x, cylinder, x_slice, got 'tube'")]
    assert _validate(settings={"default_silhouette": 9}) == [("settings.default_silhouette", "must be a whole number 1-8, got 9")]
    assert _validate(settings={"vertical_model": "cylinder", "default_silhouette": 3}) == []
    assert _validate(stats_s=9) == [("model[0].stats.S", "silhouette must be a whole number 1-8, got 9")]


def test_an_explosion_is_refused_by_validation() -> None:
    s = loads(table(trooper("a", 4, 4, "nomads") + trooper("t", 12, 12), '[[template]]\nid = "s"\nshape = "infinity_circular"\nat = [12, 12]\n'))
    from tabletop.model import Explosion

    s = dataclasses.replace(s, templates=(dataclasses.replace(s.templates[0], placement=Explosion("t")),))
    assert INF.validate(s) == [("template[0].explosion", "infinity has no explosion templates: use direct, impact or at")]


# ------------------------------------------------------------------ small rules, at their edges


@pytest.mark.parametrize(
    ("weapon", "none"),
    [({"ammo": "Smoke"}, True), ({"ammo": "NIMBUS"}, True), ({"ammo": "DA"}, False), ({}, False), ({"damage": False}, True),
     ({"damage": 0}, True), ({"damage": "-"}, True), ({"damage": True}, False), ({"damage": 13}, False)],
)
def test_has_no_damage(weapon: dict[str, Any], none: bool) -> None:
    assert has_no_damage(weapon) is none


def test_a_trooper_without_a_side_is_an_enemy_of_everyone() -> None:
    s = loads(table('[[model]]\nid = "x"\nx = 5\ny = 5\nbase = "25mm"\n' + trooper("a", 4, 4, "nomads")))
    assert relation(s.models[0], "nomads", "a") == "enemy"
    assert relation(s.models[1], "nomads", "a") == "attacker"


def test_a_prone_trooper_exactly_as_tall_as_prone_keeps_its_height() -> None:
    s = loads(table(trooper("p", 5, 5, extra='tags = ["prone"]\nheight = "12.5mm"\n')))
    span = silhouette_span(s.models[0], {"prone_height_mm": 12.5, "default_silhouette": 2})
    assert span.top - span.bottom == pytest.approx(12.5)
    assert "prone" not in span.source  # not lowered: it is no taller than a prone trooper


def test_the_default_silhouette_names_itself() -> None:
    s = loads(table('[[model]]\nid = "x"\nside = "nomads"\nx = 5\ny = 5\nbase = "25mm"\n'))
    span = silhouette_span(s.models[0], {"prone_height_mm": 12.5, "default_silhouette": 3})
    assert span.source == "S3 (default)" and span.top - span.bottom == pytest.approx(32.0)  # S3: 40 x 32 mm
    # A default outside the table (only a direct caller can pass one) falls back to S2's 40 mm.
    span = silhouette_span(s.models[0], {"prone_height_mm": 12.5, "default_silhouette": 9})
    assert span.source == "S9 (default)" and span.top - span.bottom == pytest.approx(40.0)


def test_focus_heights_and_their_sources() -> None:
    free = table(trooper("t", 12, 12), '[[template]]\nid = "s"\nshape = "infinity_circular"\nat = [12, 12]\nweapon = { side = "nomads" }\n')
    d = adjudicate(loads(free)).results[0].resolution.details
    assert (d["focus_z_mm"], d["focus_z_from"]) == (0.0, "the table (z = 0)")
    direct = table(trooper("a", 4, 4, "nomads") + trooper("t", 12, 12), '[[template]]\nid = "s"\nshape = "infinity_small_teardrop"\ndirect = { attacker = "a", heading = 45 }\n')
    d = adjudicate(loads(direct)).results[0].resolution.details
    assert (d["focus_z_mm"], d["focus_z_from"]) == (0.0, "the attacker a's base")
    given = table(trooper("a", 4, 4, "nomads") + trooper("t", 12, 12), SHOT.replace('name = "Grenade"', 'name = "Grenade", focus_z = "30mm"'))
    d = adjudicate(loads(given)).results[0].resolution.details
    assert (d["focus_z_mm"], d["focus_z_from"]) == (30.0, "weapon.focus_z")


def test_shots_of_one_burst_are_counted_per_attacker_and_weapon() -> None:
    two = SHOT + SHOT.replace('id = "s"', 'id = "s2"') + SHOT.replace('id = "s"', 'id = "s3"').replace("Grenade", "Other")
    adj = adjudicate(loads(table(trooper("a", 4, 4, "nomads") + trooper("t", 12, 12), two)))
    assert [r.resolution.details["shot"] for r in adj.results] == [1, 2, 1]
    # Named by weapon.attacker when the placement has none.
    free = '[[template]]\nid = "f{}"\nshape = "infinity_circular"\nat = [12, 12]\nweapon = {{ name = "Mine", attacker = "a" }}\n'
    adj = adjudicate(loads(table(trooper("a", 4, 4, "nomads") + trooper("t", 12, 12), free.format(1) + free.format(2))))
    assert [r.resolution.details["shot"] for r in adj.results] == [1, 2]


# ------------------------------------------------------------------ panel of hand-built details


def _panel(details: dict[str, Any], model_details: dict[str, Any] | None = None, allowed: bool = True, reason: str | None = None) -> list[Any]:
    adj = adjudicate(loads(BASIC))
    r = adj.results[0]
    res = dataclasses.replace(r.resolution, details=details, model_details=model_details or {}, allowed=allowed, reason=reason)
    return list(INF.panel_lines(adj.scenario, dataclasses.replace(r, resolution=res)))


def test_panel_of_bare_details() -> None:
    assert _panel({}) == [("note", "single shot · ?"), ("note", "focus at 0 mm (); height ±0 mm, vertical model x")]


def test_panel_of_a_burst_with_no_shot_number_a_named_target_and_a_spent_expendable() -> None:
    lines = _panel({"burst": 3, "main_target": "t", "placement": "impact", "speculative": True, "expendable_use_spent": True}, allowed=False, reason="no")
    assert lines == [
        ("note", "shot 1 of burst 3 · impact on Target (speculative)"),
        ("bad", "FAILS: no"),
        ("note", "focus at 0 mm (); height ±0 mm, vertical model x"),
        ("warn", "expendable: the use is spent"),
    ]
    assert _panel({"burst": 1, "shot": 1, "main_target": "ghost"})[0] == ("note", "single shot · ? on ghost")


def test_panel_of_dodges_aros_and_reasons() -> None:
    details = {"dodge": {"t": "PH-3", "ghost": "PH"}}
    md = {
        "t": {"dodge_target": 7, "why": "deployable weapon", "can_shoot_back": False},
        "a": {"aro": "Normal Roll", "can_shoot_back": False, "why": "should not show: not outside"},
    }
    assert _panel(details, md)[1:4] == [
        ("warn", "Target: dodge PH-3 (7) — deployable weapon; cannot shoot back"),
        ("good", "ghost: dodge PH — ; cannot shoot back"),
        ("note", "a: Normal Roll (cannot shoot back)"),
    ]


def test_panel_explains_troopers_left_outside() -> None:
    # The attacker is "outside" in the real coverage: its reason is listed; the target is affected: not listed.
    lines = _panel({}, {"a": {"why": "behind the template"}, "t": {"why": "not this"}})
    assert ("note", "a: behind the template") in lines and all("not this" not in text for _, text in lines)


def test_lines_of_fire_are_judged_with_the_tolerance_given() -> None:
    # A trooper midway, 0.03" (0.76 mm) off the line between the two: the lines of fire both ways
    # pass it by less than a millimetre: contested within 1 mm, not within 0.01 mm.
    text = table(
        trooper("a", 6, 6, "nomads", 'facing = 0\nstats = { PH = 11, S = 2 }\n') + trooper("contact", 10, 6.03, extra="facing = 0\n")
        + trooper("t", 14, 6, extra="facing = 180\nstats = { PH = 12, S = 2 }\n"),
        SHOT,
    )
    loose = adjudicate(loads(text), tolerance_mm=1.0).results[0].resolution
    tight = adjudicate(loads(text), tolerance_mm=0.01).results[0].resolution
    assert "[contested" in loose.details["main_target_lof"] and "[contested" not in tight.details["main_target_lof"]
    assert "[contested" in loose.model_details["t"]["why"] and "[contested" not in tight.model_details["t"]["why"]


# ------------------------------------------------------------------ lines of fire in words


def _sight(kind: str, visible: float = 0.4, clear: float = 0.5, blocked: tuple[str, ...] = (), contested: bool = False) -> Any:
    from tabletop.sight.silhouettes import Sight

    return Sight(kind, visible, clear, blocked, (), "", True, contested)  # type: ignore[arg-type]


WORDS_TABLE = table(
    trooper("a", 4, 4, "nomads", 'name = "Alpha"\n') + trooper("b", 8, 4),
    extra="",
) + '[[terrain]]\nid = "w1"\nname = "Wall"\npoints = [[5, 5], [6, 5], [6, 6], [5, 6]]\n[[terrain]]\nid = "w2"\npoints = [[7, 7], [8, 7], [8, 8], [7, 8]]\n'


@pytest.mark.parametrize(
    ("sight", "text"),
    [
        (_sight("full"), "clear line of fire to X (full: nothing in between)"),
        (_sight("partial", blocked=("w1",)), "partial line of fire to X (40% of its base in view; partly hidden by terrain Wall (w1))"),
        (_sight("partial"), "partial line of fire to X (40% of its base in view)"),
        (_sight("partial", clear=1.0, blocked=("w2", "a")), "partial line of fire to X (40% of its base in view; only lower sight lines are hidden, by terrain w2, Alpha (a))"),
        (_sight("none", blocked=("b", "ghost")), "no line of fire to X: blocked by b, ghost"),
        (_sight("none"), "no line of fire to X"),
        (_sight("full", contested=True), "clear line of fire to X (full: nothing in between) [contested: blockers 2.5 mm larger would hide it; a judge's call]"),
        (_sight("none", contested=True), "no line of fire to X [contested: blockers 2.5 mm smaller would show it; a judge's call]"),
    ],
)
def test_sight_words_in_every_case(sight: Any, text: str) -> None:
    from tabletop.rulesets.infinity.rules import sight_words

    assert sight_words(sight, "X", loads(WORDS_TABLE), 2.5) == text


def test_lines_of_fire_pass_their_tolerance_into_the_words(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.rulesets.infinity import rules

    monkeypatch.setattr(rules, "silhouette_sight", lambda *a, **k: _sight("full", contested=True))
    s = loads(table(trooper("a", 4, 4, "nomads", "facing = 0\n") + trooper("t", 12, 4, extra="facing = 180\n")))
    a, t = s.models
    assert "blockers 3 mm larger" in rules.lof_to_target(a, t, s, {}, 3.0).reason
    assert "blockers 3 mm larger" in rules.lof_to_attacker(t, a, s, {}, 3.0).reason


def test_troopers_block_lines_of_fire_unless_the_setting_says_not() -> None:
    from tabletop.rulesets.infinity.rules import silhouette_sight

    s = loads(table(trooper("a", 4, 4, "nomads") + trooper("mid", 8, 4) + trooper("t", 12, 4)))
    a, mid, t = s.models
    assert "mid" in silhouette_sight(a, t, s, {}).blocked_by  # the default: they block
    assert "mid" in silhouette_sight(a, t, s, {"models_block_lof": True}).blocked_by
    assert silhouette_sight(a, t, s, {"models_block_lof": False}).blocked_by == ()


def test_close_combat_groups_are_found_once_each() -> None:
    from tabletop.rulesets.infinity.rules import close_combats

    s = loads(table(
        trooper("a", 2, 2, extra='engaged = ["b"]\n') + trooper("b", 3, 2) + trooper("c", 8, 8, extra='engaged = ["d"]\n')
        + trooper("d", 9, 8) + trooper("e", 2, 3, extra='engaged = ["a"]\n')
    ))
    assert close_combats(s.models) == [{"a", "b", "e"}, {"c", "d"}]


def test_a_close_combat_untouched_does_not_stop_the_next_from_spreading() -> None:
    # The first close combat on the table is far from the blast; the second has a trooper inside it.
    s = loads(table(
        trooper("far1", 20, 20, extra='engaged = ["far2"]\n') + trooper("far2", 21, 20)
        + trooper("in", 12, 12, extra='engaged = ["out"]\n') + trooper("out", 12, 14.5) + trooper("a", 4, 4, "nomads"),
        '[[template]]\nid = "s"\nshape = "infinity_circular"\nat = [12, 12]\nweapon = { side = "nomads" }\n',
    ))
    res = adjudicate(s).results[0].resolution
    assert res.coverage.models["out"].status == "affected"
    assert res.model_details["out"]["why"].startswith("in close combat with in, who is affected;")
    assert res.coverage.models["far1"].status == "outside"


def test_a_direct_teardrop_slid_off_a_base_reports_the_distance_it_moved() -> None:
    # At 30°, not 45°: the focus moves unequally in x and y, so each coordinate is checked.
    import math

    from tabletop.placement import place

    text = (Path(__file__).parent / "golden" / "tables" / "inf-direct-slide.toml").read_text().replace("heading = 45", "heading = 30")
    s = loads(text)
    before = place(s.templates[0], s)
    res = adjudicate(s).results[0].resolution
    moved = math.hypot(res.placed.focus[0] - before.focus[0], res.placed.focus[1] - before.focus[1])
    assert moved > 0.2
    assert f"slid {moved:.2f} mm along its axis" in res.steps[0].text


def test_a_direct_circular_template_is_centred_on_the_attacker() -> None:
    s = loads(table(trooper("a", 4, 4, "nomads") + trooper("t", 12, 12), '[[template]]\nid = "s"\nshape = "infinity_circular"\ndirect = { attacker = "a", heading = 45 }\n'))
    place_step = next(st for st in adjudicate(s).results[0].resolution.steps if st.kind == "place")
    assert place_step.text.endswith("direct placement: centred on the attacker.")


def test_a_weapon_without_damage_or_ammo_is_named_by_its_damage() -> None:
    s = loads(table(
        trooper("a", 4, 4, "nomads") + trooper("friend", 12, 12.5, "nomads") + trooper("t", 12, 12),
        '[[template]]\nid = "s"\nshape = "infinity_circular"\nimpact = { attacker = "a", target = "t" }\nweapon = { damage = "-" }\n',
    ))
    res = adjudicate(s).results[0].resolution
    assert res.allowed
    assert any(st.text.startswith("No Damage value (damage -): allowed with friend") for st in res.steps)


def test_a_failed_attack_that_also_hits_a_friend_gives_both_reasons() -> None:
    s = loads(table(
        trooper("a", 4, 4, "nomads") + trooper("friend", 12, 12.5, "nomads") + trooper("t", 20, 20),
        '[[template]]\nid = "s"\nshape = "infinity_circular"\nat = [12, 12]\nweapon = { attacker = "a", target = "t" }\n',
    ))
    res = adjudicate(s).results[0].resolution
    assert not res.allowed
    assert res.reason == "the attack fails: the main target t is not in the area of effect; shot nullified: friend is a friendly trooper in the area of effect"


def test_a_direct_template_does_not_need_its_named_target_inside() -> None:
    s = loads(table(
        trooper("a", 4, 4, "nomads") + trooper("t", 20, 20),
        '[[template]]\nid = "s"\nshape = "infinity_small_teardrop"\ndirect = { attacker = "a", heading = 0 }\nweapon = { target = "t" }\n',
    ))
    res = adjudicate(s).results[0].resolution
    assert res.coverage.models["t"].status == "outside" and res.allowed and res.reason is None


def test_two_low_walls_are_both_named() -> None:
    # Both walls stand between the focus and the trooper but are far lower than the line to its top.
    s = loads(table(
        trooper("a", 2, 2, "nomads") + trooper("t", 13.2, 12, extra="height = 2\n"),
        '[[template]]\nid = "s"\nshape = "infinity_circular"\nat = [12, 12]\nweapon = { side = "nomads" }\n',
    ) + '[[terrain]]\nid = "w1"\nheight = 0.1\npoints = [[12.5, 11], [12.55, 11], [12.55, 13], [12.5, 13]]\n'
        + '[[terrain]]\nid = "w2"\nheight = 0.1\npoints = [[12.7, 11], [12.75, 11], [12.75, 13], [12.7, 13]]\n')
    res = adjudicate(s).results[0].resolution
    assert res.coverage.models["t"].status == "affected"
    assert res.model_details["t"]["why"].startswith("terrain w1, w2 is too low to hide it from the blast focus;")


# ------------------------------------------------------------------ the 3D reach at its edges


def _placed_at(shape: str, focus: tuple[float, float], heading: float = 0.0) -> Any:
    from tabletop.placement import place

    s = loads(table(trooper("t", 12, 12), f'[[template]]\nid = "s"\nshape = "{shape}"\nat = [12, 12]\nweapon = {{ side = "nomads" }}\n'))
    return dataclasses.replace(place(s.templates[0], s), focus=focus, heading=heading), s.models[0]


def test_a_silhouette_touching_the_template_level_or_height_is_reached() -> None:
    from tabletop.coverage import CONTACT_EPS_MM as EPS
    from tabletop.rulesets.infinity.rules import Span, vertical_reach

    placed, m = _placed_at("infinity_circular", (300.0, 300.0))
    h = placed.shape.half_width
    level = (True, "its silhouette spans the template's level")
    assert vertical_reach(placed, m, Span(EPS, 40.0, ""), 0.0, "cylinder") == level
    assert vertical_reach(placed, m, Span(-40.0, -EPS, ""), 0.0, "cylinder") == level
    within = (True, f"within the template's height (±{h:.1f} mm of the focus)")
    assert vertical_reach(placed, m, Span(h + EPS, h + 40, ""), 0.0, "cylinder") == within
    assert vertical_reach(placed, m, Span(-h - 40, -h - EPS, ""), 0.0, "cylinder") == within
    assert vertical_reach(placed, m, Span(h + 1e-6, h + 40, ""), 0.0, "cylinder")[0] is False


def test_a_base_tangent_to_the_axis_is_judged_at_its_one_point() -> None:
    # A 25 mm base whose edge just touches the axis line, 0.5 mm behind the upright circle's edge
    # and 1 mm above the focus: the upright circle misses it by sqrt((R + 0.5)^2 + 1) - R.
    import math

    from tabletop.rulesets.infinity.rules import Span, vertical_reach

    placed, m = _placed_at("infinity_circular", (300.0, 300.0))
    r = placed.shape.half_width
    tangent = dataclasses.replace(m, x=300.0 - r - 0.5, y=312.5)
    gap = math.hypot(r + 0.5, 1.0) - r
    want = (False, f"its silhouette (1.0 mm above the focus) misses the upright template by {gap:.1f} mm")
    assert vertical_reach(placed, tangent, Span(1.0, 40.0, ""), 0.0, "x_slice") == want
    # 1 mm further in, it meets.
    inside = dataclasses.replace(tangent, x=300.0 - r + 0.5)
    assert vertical_reach(placed, inside, Span(1.0, 40.0, ""), 0.0, "x_slice")[0] is True
    # The default "x" turns the upright circle about the focus: a ball of radius R. The base's nearest point is
    # hypot(R + 0.5, 12.5) - 12.5 = 28.07 mm from the focus in plan; with the 1 mm rise, 28.09 mm: inside the ball.
    plan = math.hypot(r + 0.5, 12.5) - 12.5
    assert vertical_reach(placed, tangent, Span(1.0, 40.0, ""), 0.0, "x") == (
        True,
        f"its silhouette (1.0 mm above the focus) comes within {math.hypot(plan, 1.0):.1f} mm of the Blast Focus: "
        f"inside the ball of radius {r:.1f} mm the upright circle sweeps about its centre",
    )
    # 10 mm above R (R + 10 up), even the base right under the focus is out of the ball.
    under = dataclasses.replace(m, x=300.0, y=300.0)
    assert vertical_reach(placed, under, Span(r + 10.0, r + 50.0, ""), 0.0, "x")[0] is False


def test_a_square_base_far_along_the_axis_is_crossed_in_full() -> None:
    from tabletop.rulesets.infinity.rules import _axis_interval

    placed, m = _placed_at("infinity_large_teardrop", (300.0, 300.0))
    reach = placed.shape.reach
    s = loads(table('[[model]]\nid = "sq"\nx = 1\ny = 1\nbase = { shape = "rect", length = "40mm", width = "40mm" }\n'))
    square = dataclasses.replace(s.models[0], x=300.0 + reach - 5.0, y=300.0)
    lo, hi = _axis_interval(placed, square)
    assert lo == pytest.approx(reach - 25.0, abs=1e-6) and hi == pytest.approx(reach + 15.0, abs=1e-6)


def test_a_rising_line_is_hidden_where_it_passes_below_the_piece_top() -> None:
    from shapely.geometry import Point, box

    from tabletop.sight.focus import Piece, hidden_region

    # From (0, 0) at 10 mm up to points at 50 mm: over a piece whose near face is 40 mm away on the x axis, a
    # line to (D, 0) is 10 + 40 x 40 / D mm high there. Below h = 26 when D > 100: the region hidden is the
    # plan shadow scaled by 1 / s*, s* = (26 - 10) / (50 - 10) = 0.4, so it starts at 40 / 0.4 = 100 mm.
    across = box(40, -5, 60, 5)
    hidden = hidden_region(Piece("p", across, 26.0), (0.0, 0.0), 10.0, 50.0, 300.0)
    assert hidden is not None
    assert not hidden.contains(Point(99.9, 0)) and hidden.contains(Point(100.1, 0))
    low = hidden_region(Piece("p", across, 25.9), (0.0, 0.0), 10.0, 50.0, 300.0)  # s* = 0.3975: from 100.63 mm
    assert low is not None and not low.contains(Point(100.5, 0)) and low.contains(Point(100.8, 0))
    # Beside the axis: along 10 degrees the ray enters the piece at x = 40, 40 / cos 10 = 40.62 mm out, hidden from
    # 40.62 / 0.4 = 101.54 mm.
    beside = box(40, 5, 60, 15)
    hidden = hidden_region(Piece("p", beside, 26.0), (0.0, 0.0), 10.0, 50.0, 300.0)
    c, s_ = math.cos(math.radians(10)), math.sin(math.radians(10))
    assert hidden is not None and not hidden.contains(Point(101.4 * c, 101.4 * s_)) and hidden.contains(Point(101.7 * c, 101.7 * s_))
    assert not hidden.contains(Point(150, 0))  # the ray along x never meets it
    # Never below the focus's level, a piece no taller than the focus hides nothing; taller than the top, its plan shadow.
    assert hidden_region(Piece("p", across, 10.0), (0.0, 0.0), 10.0, 50.0, 300.0) is None
    tall = hidden_region(Piece("p", across, 50.0), (0.0, 0.0), 10.0, 50.0, 300.0)
    assert tall is not None and tall.contains(Point(60.5, 0)) and not tall.contains(Point(39.5, 0))
    # A focus inside a piece, below its top, sees nothing past it.
    inside = hidden_region(Piece("p", box(-5, -5, 5, 5), 20.0), (0.0, 0.0), 10.0, 50.0, 300.0)
    assert inside is not None and inside.contains(Point(200, 100))


def test_panel_names_a_trooper_it_does_not_know_by_its_id() -> None:
    # Details a plugin or an older report may carry: an ARO for an id not on the table, a reason for one
    # the coverage never saw (not listed: only troopers left outside are explained).
    lines = _panel({}, {"ghost": {"aro": "Normal Roll", "can_shoot_back": True}, "ghost2": {"why": "somewhere"}})
    assert ("note", "ghost: Normal Roll (can shoot back)") in lines
    assert all("somewhere" not in text for _, text in lines)


# ------------------------------------------------------------------ marks


def test_each_close_combat_link_is_drawn_once() -> None:
    from tabletop.rulesets.infinity.marks import marks

    # ab and cd name each other; cd also names ef: two links, whichever side names them.
    s = loads(table(
        trooper("ab", 2, 2, extra='engaged = ["cd"]\n') + trooper("cd", 3, 2, extra='engaged = ["ab", "ef"]\n') + trooper("ef", 4, 2)
        + trooper("a", 20, 20, "nomads"),
        '[[template]]\nid = "s"\nshape = "infinity_circular"\nat = [12, 12]\nweapon = { side = "nomads" }\n',
    ))
    links = sorted(tuple(sorted((arrow.a, arrow.b))) for arrow in marks(adjudicate(s)).arrows if arrow.tag == "CC")
    m = s.models_by_id()
    assert links == sorted([tuple(sorted((m["ab"].centre, m["cd"].centre))), tuple(sorted((m["cd"].centre, m["ef"].centre)))])


def test_a_trooper_dodging_two_shots_differently_gets_a_line_for_each() -> None:
    from tabletop.rulesets.infinity.marks import DODGE_PH, DODGE_PH3, marks

    adj = adjudicate(loads(BASIC))
    r = adj.results[0]

    def shot(tid: str, md: dict[str, Any]) -> Any:
        res = dataclasses.replace(r.resolution, model_details={"t": md}, details={}, allowed=True)
        return dataclasses.replace(r, template=dataclasses.replace(r.template, id=tid), resolution=res)

    adj = dataclasses.replace(adj, results=(shot("s1", {"dodge": "PH", "can_shoot_back": True}), shot("s2", {"dodge": "PH-3", "dodge_target": 7})))
    badge = next(b for b in marks(adj).badges if any("Dodge" in text for text, _ in b.lines))
    assert badge.lines == (("s1: Dodge PH, shoot back", DODGE_PH), ("s2: Dodge PH-3 (7)", DODGE_PH3))


# ------------------------------------------------------------------ side view


@pytest.mark.parametrize(
    ("a", "b", "cut"),
    [
        ((0.0, 0.0), (10.0, 10.0), ((2.0, 2.0), (5.0, 5.0))),
        ((10.0, 10.0), (0.0, 0.0), ((5.0, 5.0), (2.0, 2.0))),  # reversed: ends kept in their order
        ((10.0, 0.0), (8.0, 0.0), None),  # reversed, wholly past the range
        ((0.0, 0.0), (1.0, 0.0), None),  # wholly before it
        ((0.0, 0.0), (2.0, 2.0), ((2.0, 2.0), (2.0, 2.0))),  # touching its start
        ((5.0, 5.0), (8.0, 8.0), ((5.0, 5.0), (5.0, 5.0))),  # touching its end
        ((3.0, 1.0), (3.0, 4.0), ((3.0, 1.0), (3.0, 1.0))),  # upright: no length along the axis
        ((2.2, 0.0), (2.7, 1.0), ((2.2, 0.0), (2.7, 1.0))),  # short, wholly inside
    ],
)
def test_side_view_cuts_segments_to_its_range(a: tuple[float, float], b: tuple[float, float], cut: Any) -> None:
    from tabletop.rulesets.infinity.side_view import _cut

    got = _cut(a, b, 2.0, 5.0)
    if cut is None:
        assert got is None
    else:
        assert got is not None and [c for p in got for c in p] == pytest.approx([c for p in cut for c in p])


def test_side_view_runs_a_margin_beyond_the_template() -> None:
    # A large teardrop's side view runs 15 % of its length beyond its tip: a long wall across the axis
    # there is drawn up to that margin.
    from tabletop.sideview import PAD_MIN_MM, PAD_SHARE

    s = loads(table(
        trooper("a", 4, 12, "nomads", "facing = 0\n"),
        '[[template]]\nid = "s"\nshape = "infinity_large_teardrop"\ndirect = { attacker = "a", heading = 0 }\n',
    ) + '[[terrain]]\nid = "w"\npoints = [[10, 11.9], [22, 11.9], [22, 12.1], [10, 12.1]]\n')
    adj = adjudicate(s)
    view = INF.side_view(s, adj.results[0], adj.settings)
    pad = max(PAD_MIN_MM, PAD_SHARE * (view.u_max - view.u_min))
    assert pad > PAD_MIN_MM
    (wall,) = view.blocks
    assert wall.u1 == pytest.approx(view.u_max + pad)


def test_the_upright_teardrop_stands_on_the_axis_unturned() -> None:
    # A base centred under the large teardrop's round end, its silhouette starting 2 mm above that end's
    # top: the upright template misses it by exactly 2 mm (turned by even a degree, by about 2.6 mm more or less).
    from tabletop.rulesets.infinity.rules import Span, vertical_reach

    placed, m = _placed_at("infinity_large_teardrop", (300.0, 300.0))
    r = placed.shape.half_width
    centre = placed.shape.reach - r
    under = dataclasses.replace(m, x=300.0 + centre, y=300.0)
    assert vertical_reach(placed, under, Span(r + 2.0, r + 40.0, ""), 0.0, "x") == (
        False, f"its silhouette ({r + 2.0:.1f} mm above the focus) misses the upright template by 2.0 mm")


def test_a_falling_line_is_hidden_between_the_piece_and_its_far_scaled_copy() -> None:
    from shapely.geometry import Point, box

    from tabletop.sight.focus import Piece, hidden_region

    # From 50 mm down to 10 mm: below h = 25.26 at fractions s > s* = (50 - 25.26) / 40 = 0.6185. The piece spans
    # 40 to 60 mm along x: a point D away is hidden when some of it lies between 0.6185 D and D along the ray,
    # i.e. for 40 <= D <= 60 / 0.6185 = 97.0 mm.
    across = box(40, -5, 60, 5)
    hidden = hidden_region(Piece("p", across, 25.26), (0.0, 0.0), 50.0, 10.0, 300.0)
    assert hidden is not None
    assert not hidden.contains(Point(39.9, 0)) and hidden.contains(Point(50, 0)) and hidden.contains(Point(96.9, 0))
    assert not hidden.contains(Point(97.2, 0))
    # No higher than the top, it hides nothing; as high as the focus, its whole plan shadow.
    assert hidden_region(Piece("p", across, 10.0), (0.0, 0.0), 50.0, 10.0, 300.0) is None
    shadow = hidden_region(Piece("p", across, 50.0), (0.0, 0.0), 50.0, 10.0, 300.0)
    assert shadow is not None and shadow.contains(Point(250, 0))
    # Without a height: the plan shadow whatever the heights.
    flat = hidden_region(Piece("p", across, None), (0.0, 0.0), 50.0, 10.0, 300.0)
    assert flat is not None and flat.contains(Point(250, 0)) and not flat.contains(Point(39.9, 0))


def test_a_piece_that_hides_nothing_does_not_end_the_search_for_blockers() -> None:
    # First on the table a hedge that blocks no sight, then a low wall (a height: the pieces are judged
    # by height), then a tall wall hiding the trooper from the focus.
    s = loads(table(
        trooper("a", 2, 2, "nomads") + trooper("t", 12, 13.5),
        '[[template]]\nid = "s"\nshape = "infinity_circular"\nat = [12, 12]\nweapon = { side = "nomads" }\n',
    ) + '[[terrain]]\nid = "hedge"\nblocks_los = false\npoints = [[3, 3], [4, 3], [4, 4], [3, 4]]\n'
        + '[[terrain]]\nid = "low"\nheight = 0.1\npoints = [[20, 20], [21, 20], [21, 21], [20, 21]]\n'
        + '[[terrain]]\nid = "tall"\npoints = [[10, 12.6], [14, 12.6], [14, 12.8], [10, 12.8]]\n')
    res = adjudicate(s).results[0].resolution
    assert res.coverage.models["t"].status == "total_cover"


def test_a_trooper_in_total_cover_above_the_template_is_out_of_reach() -> None:
    s = loads(table(
        trooper("a", 2, 2, "nomads") + trooper("t", 12, 13.5, extra="z = 6\n"),
        '[[template]]\nid = "s"\nshape = "infinity_circular"\nat = [12, 12]\nweapon = { side = "nomads" }\n',
        extra='[settings]\nvertical_model = "cylinder"\n',
    ) + '[[terrain]]\nid = "tall"\npoints = [[10, 12.6], [14, 12.6], [14, 12.8], [10, 12.8]]\n')
    res = adjudicate(s).results[0].resolution
    assert res.coverage.models["t"].status == "outside"
    assert res.model_details["t"]["why"].startswith("out of the template's 3D reach: beyond the template's height")


def test_the_attacker_engaged_with_a_trooper_it_hits_stays_the_templates_user() -> None:
    s = loads(table(
        trooper("a", 4, 4, "nomads", 'engaged = ["b"]\n') + trooper("b", 4, 4.6),
        '[[template]]\nid = "s"\nshape = "infinity_small_teardrop"\ndirect = { attacker = "a", heading = 90 }\n',
    ))
    res = adjudicate(s).results[0].resolution
    assert res.coverage.models["b"].status == "affected"
    assert res.coverage.models["a"].status == "user" and "a" not in res.affected
