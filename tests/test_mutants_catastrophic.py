"""The ``catastrophic`` ruleset's small rules, panel lines and marks against answers worked by hand from the
seed (/work/shared/seeds/catastrophic-damage.txt) and the ruleset's README: written to kill mutmut's
survivors (the bundled scenarios are in tests/test_ruleset_catastrophic.py and tests/golden/rulings.json)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tabletop import rulesets
from tabletop.adjudicate import Adjudication, TemplateResult, adjudicate, resolve_template
from tabletop.coverage import table_geometry
from tabletop.dice import Dice
from tabletop.model import At, Base, Explosion, Model, Scenario, Table, Template
from tabletop.plugin import CHAIN, HIGHLIGHT, ROSE, TEXT, TEXT_DIM, Badge, ring_top
from tabletop.resolution import Resolution, Step
from tabletop.rulesets.catastrophic.marks import marks
from tabletop.rulesets.catastrophic.panel import panel_lines
from tabletop.rulesets.catastrophic.rules import (
    Trigger,
    _caught_explodes,
    _martyr_awarded_to,
    critical_of,
    explosion_shape,
    trigger,
    validate,
)

IN = 25.4
BASE = Base.round(40.0)


def model(id_: str, *, side: str | None = "red", tracks: float | None = 2, tags: tuple[str, ...] = (),
          name: str | None = None, x: float = 0.0, y: float = 0.0) -> Model:
    stats = {} if tracks is None else {"damage_tracks": tracks}
    return Model(id_, x * IN, y * IN, BASE, name=name, side=side, stats=stats, tags=tags)


def table(*models: Model, weapon: dict[str, Any] | None = None, roll: int = 3,
          templates: tuple[Template, ...] = ()) -> Scenario:
    """A 48" table with ``models`` and one explosion of the first model (second Attack Roll ``roll``)."""
    t = Template("boom", None, Explosion(models[0].id), weapon=weapon or {}, rolls={"second_attack_roll": roll})
    return Scenario(Table(48 * IN, 48 * IN), models=models, templates=templates or (t,), ruleset="catastrophic")


# ---------------------------------------------------------------- trigger: does the template's model explode?

NO_CRIT = 'give weapon.critical_damage or weapon.extra_damage (a Critical Hit), or specialty_action = "self_destruct"'
SELF = "self_destruct"


@pytest.mark.parametrize(
    ("m", "weapon", "want"),
    [
        # Martyr upgrade, Specialty Action: "Resolve the AOE attack using the Model's current number of Damage Tracks".
        (model("a", tracks=2, tags=("martyr",)), {"specialty_action": SELF}, Trigger(True, 2, 2, 2, SELF, rule="self_destruct")),
        (model("a", tracks=1, tags=("martyr",)), {"specialty_action": SELF}, Trigger(True, 1, 1, 1, SELF, rule="self_destruct")),
        (model("a", tracks=0, tags=("martyr",), name="Zed"), {"specialty_action": SELF},
         Trigger(False, 0, None, None, SELF, reason="Zed has no damage tracks left (stats.damage_tracks)", rule="self_destruct_refused")),
        (model("a", tracks=None, tags=("martyr",)), {"specialty_action": SELF},
         Trigger(False, None, None, None, SELF, reason="a has no damage tracks left (stats.damage_tracks)", rule="self_destruct_refused")),
        (model("a", tracks=3, name="Bruce's Ranger"), {"specialty_action": SELF},
         Trigger(False, 3, None, None, SELF, reason="Bruce's Ranger has no Martyr upgrade to self-destruct with", rule="self_destruct_refused")),
        # "Availability: All except Infantry".
        (model("a", tracks=3, tags=("martyr", "infantry")), {"specialty_action": SELF},
         Trigger(False, 3, None, None, SELF, reason="infantry cannot take the Martyr upgrade", rule="infantry")),
        # No Critical Hit given at all.
        (model("a", tracks=3), {}, Trigger(False, 3, None, None, "none", reason=NO_CRIT)),
        # "Infantry Models can not suffer Catastrophic Explosions".
        (model("a", tracks=3, tags=("infantry",)), {"critical_damage": 9},
         Trigger(False, 3, None, None, "critical", reason="infantry models never suffer Catastrophic Explosions", rule="infantry")),
        (model("a", tracks=0, name="Wreck"), {"critical_damage": 9},
         Trigger(False, 0, None, None, "critical", reason="Wreck has no damage tracks (stats.damage_tracks)")),
        (model("a", tracks=None), {"critical_damage": 9},
         Trigger(False, None, None, None, "critical", reason="a has no damage tracks (stats.damage_tracks)")),
        # One track: a Critical Hit of 2 is twice it.
        (model("a", tracks=1), {"critical_damage": 2}, Trigger(True, 1, 1, 1, "critical", rule="explode")),
        # 4 < 2 x 3, and 4 + 1 < 6 too: no hint about extra_damage.
        (model("a", tracks=3), {"critical_damage": 4},
         Trigger(False, 3, None, None, "critical", reason="critical damage 4 is less than twice 3 damage tracks (6)")),
        (model("a", tracks=3), {"extra_damage": 4},
         Trigger(False, 3, None, None, "critical", reason="1 + 4 extra = 5 damage is less than twice 3 damage tracks (6)")),
        # Example 2: a Martyr on 3 tracks caught by a Critical Hit of 7: RAV 3 + 1.
        (model("a", tracks=3, tags=("martyr",)), {"critical_damage": 7}, Trigger(True, 3, 4, 4, "critical", martyr_bonus=True, rule="martyr_bonus")),
    ],
)
def test_trigger(m: Model, weapon: dict[str, Any], want: Trigger) -> None:
    assert trigger(table(m, weapon=weapon).templates[0], table(m)) == want


def test_trigger_needs_an_explosion_placement() -> None:
    s = table(model("a"))
    t = Template("boom", None, At(24 * IN, 24 * IN), weapon={"critical_damage": 9})
    assert trigger(t, s) == Trigger(False, None, None, None, "none", reason="a catastrophic explosion is placed with explosion = {model}")


@pytest.mark.parametrize(
    ("m", "weapon", "aoe"),
    [
        (model("a", tracks=3), {"critical_damage": 6}, 3),  # explodes: AOE/3
        (model("a", tracks=3), {"critical_damage": 5}, 3),  # would-be size: the model's 3 tracks
        (model("a", tracks=None), {"critical_damage": 5}, 1),  # no tracks: any positive size, 1"
        (model("a", tracks=0), {"critical_damage": 5}, 1),
    ],
)
def test_explosion_shape_is_a_circle_of_radius_aoe_inches(m: Model, weapon: dict[str, Any], aoe: int) -> None:
    s = table(m, weapon=weapon)
    shape = explosion_shape(s.templates[0], s)
    assert (shape.kind, shape.diameter, shape.label) == ("circle", pytest.approx(2 * aoe * IN), f"AOE/{aoe}")


@pytest.mark.parametrize(
    ("data", "want"),
    [
        ({"critical_damage": 6}, (6, "critical damage 6")),
        ({"extra_damage": 5}, (6, "1 + 5 extra = 6 damage")),  # the seed: 5 extra, 6 total
        ({"extra_damage": 5, "hit_damage": 2}, (7, "2 + 5 extra = 7 damage")),
        ({"extra_damage": 5, "hit_damage": "2"}, (6, "1 + 5 extra = 6 damage")),  # not a number: the default hit
        ({"extra_damage": 5, "hit_damage": True}, (6, "1 + 5 extra = 6 damage")),
        ({"critical_damage": True}, (None, "")),
        ({}, (None, "")),
    ],
)
def test_critical_of(data: dict[str, Any], want: tuple[int | None, str]) -> None:
    assert critical_of(data) == want


# ---------------------------------------------------------------- a caught model exploding in turn


@pytest.mark.parametrize(
    ("m", "data", "settings", "want"),
    [
        (model("v", tags=("infantry",)), {"critical_damage": 9}, {}, (False, "infantry never explode")),
        (model("v", tracks=None), {"critical_damage": 9}, {}, (False, "no damage tracks")),
        (model("v", tracks=0), {"destroyed": True}, {"chain_trigger": "destroyed"}, (False, "no damage tracks")),
        (model("v", tracks=1), {"critical_damage": 2}, {}, (True, "a Critical Hit of critical damage 2 >= twice 1 damage tracks")),
        (model("v", tracks=2), {"critical_damage": 3}, {}, (False, "critical damage 3 < 4")),
        (model("v", tracks=2), {"extra_damage": 2}, {}, (False, "1 + 2 extra = 3 damage < 4")),
        (model("v", tracks=2), {}, {}, (False, "no Critical Hit of twice its damage tracks")),
        (model("v", tracks=2), {"destroyed": True}, {}, (False, "no Critical Hit of twice its damage tracks")),
        (model("v", tracks=1), {"destroyed": True}, {"chain_trigger": "destroyed"}, (True, "destroyed by the explosion")),
        (model("v", tracks=1), {"critical_damage": 9}, {"chain_trigger": "destroyed"}, (False, "not destroyed")),
    ],
)
def test_caught_explodes(m: Model, data: dict[str, Any], settings: dict[str, Any], want: tuple[bool, str]) -> None:
    assert _caught_explodes(m, data, settings) == want


# ---------------------------------------------------------------- who scores the Martyr


def test_martyr_points_with_one_or_no_other_side() -> None:
    martyr = model("m", side="bruce", tags=("martyr",), x=10, y=10)
    friend = model("f", side="bruce", x=11, y=10)
    far_enemy = model("e", side="alan", x=40, y=40)
    neutral = model("n", side="neutral", x=10, y=11)
    # "considered destroyed by the opposing player": the one other side, wherever its models stand,
    # even when the setting would let the Martyr's own side score (that is for several sides only).
    for settings in ({}, {"martyr_points_to_closest_enemy": False}):
        assert _martyr_awarded_to(martyr, table(martyr, friend, far_enemy), settings) == "alan"
        assert _martyr_awarded_to(martyr, table(martyr, friend, far_enemy, neutral), settings) == "alan"  # neutral: no side
    assert _martyr_awarded_to(martyr, table(martyr, friend), {}) is None
    assert _martyr_awarded_to(martyr, table(martyr, neutral), {}) is None
    assert _martyr_awarded_to(martyr, table(martyr), {}) is None


def test_martyr_points_with_several_sides_go_to_the_closest() -> None:
    martyr = model("m", side="bruce", tags=("martyr",), x=10, y=10)
    friend = model("f", side="bruce", x=11, y=10)  # 1"
    neutral = model("n", side="neutral", x=10, y=11.5)  # 1.5": never scores
    alan = model("a", side="alan", x=13, y=10)  # 3"
    cara = model("c", side="cara", x=10, y=14)  # 4"
    s = table(martyr, friend, neutral, alan, cara)
    assert _martyr_awarded_to(martyr, s, {}) == "alan"  # the setting's default: the closest enemy
    assert _martyr_awarded_to(martyr, s, {"martyr_points_to_closest_enemy": True}) == "alan"
    assert _martyr_awarded_to(martyr, s, {"martyr_points_to_closest_enemy": False}) == "bruce"


# ---------------------------------------------------------------- resolve


def ruling(s: Scenario, **settings: Any) -> Resolution:
    return adjudicate(s, settings=settings).results[0].resolution


def texts(res: Resolution) -> list[tuple[str, str]]:
    return [(st.kind, st.text) for st in res.steps]


def test_resolve_extra_damage_details_and_no_tracks_threshold() -> None:
    s = table(model("a", tracks=3), model("b", x=1), weapon={"extra_damage": 5, "hit_damage": 2})
    d = ruling(s).details
    assert (d["critical_damage"], d["extra_damage"], d["hit_damage"], d["threshold"], d["explodes"]) == (7, 5, 2, 6, True)
    d = ruling(table(model("a", tracks=3), weapon={"extra_damage": 5})).details
    assert (d["critical_damage"], d["hit_damage"]) == (6, 1)
    res = ruling(table(model("a", tracks=None), model("b", x=1), weapon={"critical_damage": 9}))
    assert res.details["threshold"] is None and res.details["explodes"] is False
    assert res.details["chain"] == [] and res.details["caught"] == []
    # The would-be AOE (1", from its tracks or 1) still reaches b: a step says nobody there is affected.
    assert texts(res)[-1] == ("note", "No Catastrophic Explosion: a has no damage tracks (stats.damage_tracks); "
                                      "nobody in the would-be AOE is affected (b)")
    assert res.steps[-1].rule == "no_explosion" and res.steps[-1].data == {"models": ["b"]}
    # Nothing explodes: the model itself stays the template's user, every other model is outside.
    assert {i: c.status for i, c in res.coverage.models.items()} == {"a": "user", "b": "outside"}


def test_catastrophic_failure_says_natural_or_auto_ten() -> None:
    s = table(model("a", tracks=3), weapon={"critical_damage": 6}, roll=10)
    want = "Catastrophic Failure (natural 10): the target returns no Defensive Fire this activation"
    assert texts(ruling(s))[0] == ("note", want)
    t = dataclasses.replace(s.templates[0], weapon={"critical_damage": 6, "auto_10": True}, rolls={"second_attack_roll": 3})
    assert texts(ruling(dataclasses.replace(s, templates=(t,))))[0] == ("note", want.replace("natural 10", "Auto 10"))


def test_explode_step_texts_with_and_without_the_martyr_bonus() -> None:
    s = table(model("a", tracks=3, tags=("martyr",), name="Patrick's Martyr"), weapon={"critical_damage": 7})
    res = ruling(s)
    assert texts(res)[0] == ("explode", "Patrick's Martyr explodes: RAV 4, AOE/4 (its 3 damage tracks, +1: Martyr explosives)")
    assert res.steps[0].rule == "martyr_bonus"
    s = table(model("a", tracks=3, name="Dictator"), weapon={"critical_damage": 7})
    res = ruling(s)
    assert texts(res)[0] == ("explode", "Dictator explodes: RAV 3, AOE/3 (its 3 damage tracks)")
    assert res.steps[0].rule == "explode"
    # The Martyr's Specialty Action: "using the Model's current number of Damage Tracks".
    s = table(model("a", tracks=2, tags=("martyr",), name="Assassin"), weapon={"specialty_action": SELF})
    res = ruling(s)
    assert texts(res)[0] == ("explode", "Assassin explodes: RAV 2, AOE/2 (its current 2 damage tracks)")
    assert res.steps[0].rule == "self_destruct"


def chain_table(**settings: Any) -> Scenario:
    """A (2 tracks) explodes; it catches b (no damage given), c (falls short) and d (explodes, a Martyr);
    d's explosion catches a (already exploded), e (explodes) and f (explodes); names sort a..f."""
    ms = (
        model("a", side="red", x=10, y=24),
        model("b", side="red", x=8.5, y=24),  # within A's 2" only
        model("c", side="red", x=10, y=22.5),  # within A's 2" only
        model("d", side="blue", x=11.5, y=24, tags=("martyr",), name="Bomber"),  # within A's 2"; 3 + 1
        model("e", side="blue", x=14.5, y=24),  # 3" from D, 4.5" from A
        model("f", side="red", x=11.5, y=27),  # 3" from D, 3.35" from A
    )
    weapon = {"critical_damage": 4, "caught": {"c": {"critical_damage": 3}, "d": {"critical_damage": 4},
                                               "e": {"critical_damage": 4}, "f": {"destroyed": True, "critical_damage": 4}}}
    s = table(*ms, weapon=weapon)
    return dataclasses.replace(s, extra={"settings": settings}) if settings else s


def test_a_chain_passes_over_models_that_do_not_explode() -> None:
    adj = adjudicate(chain_table(chain_reactions=True))
    res = adj.results[0].resolution
    assert [c["caught"] for c in res.details["chain"]] == [["b", "c", "d"], ["a", "b", "c", "e", "f"], [], []]
    assert res.details["exploded"] == ["a", "d", "e", "f"]
    assert [(p.id, p.shape.label, p.heading, p.user) for p in res.also_drawn] == [
        ("boom.d", "AOE/3", 0.0, "d"), ("boom.e", "AOE/2", 0.0, "e"), ("boom.f", "AOE/2", 0.0, "f")]
    assert [t for k, t in texts(res) if k == "explode"] == [
        "a explodes: RAV 2, AOE/2 (its 2 damage tracks)",
        "Chain reaction, link 1: Bomber, caught by a's explosion (a Critical Hit of critical damage 4 >= twice 2 damage tracks), "
        "explodes: RAV 3, AOE/3 (+1: Martyr explosives)",
        "Chain reaction, link 2: e, caught by Bomber's explosion (a Critical Hit of critical damage 4 >= twice 2 damage tracks), "
        "explodes: RAV 2, AOE/2",
        "Chain reaction, link 2: f, caught by Bomber's explosion (a Critical Hit of critical damage 4 >= twice 2 damage tracks), "
        "explodes: RAV 2, AOE/2",
    ]
    # Every link is a step of its own, and so is each caught model that does not explode, with the reason.
    assert [(st.rule, st.data.get("model")) for st in res.steps if st.rule in ("chain", "chain_martyr", "no_explosion")] == [
        ("no_explosion", "c"), ("chain_martyr", "d"), ("chain", "e"), ("chain", "f")]
    assert ("note", "c, caught by a's explosion, does not explode: critical damage 3 < 4") in texts(res)
    # The Bomber (blue) counts as destroyed by red; what it damages scores for blue (a exploded before it:
    # not the Bomber's), its own side's e for nobody.
    assert res.details["victory_points"] == [
        {"martyr": "d", "martyr_awarded_to": "red", "caught_awarded_to": {"b": "blue", "c": "blue", "e": None, "f": "blue"}}]


def test_chains_off_name_every_model_that_would_explode() -> None:
    res = ruling(chain_table(chain_reactions=False))
    assert res.details["exploded"] == ["a"]
    assert texts(res)[-1] == ("note", "Chain reactions are off (setting chain_reactions): Bomber (d) would explode in turn")
    weapon = {"critical_damage": 4, "caught": {"b": {"critical_damage": 4}, "d": {"critical_damage": 4}}}
    s = chain_table(chain_reactions=False)
    s = dataclasses.replace(s, templates=(dataclasses.replace(s.templates[0], weapon=weapon),))
    assert texts(ruling(s))[-1] == ("note", "Chain reactions are off (setting chain_reactions): b, Bomber (d) would explode in turn")


def test_a_chain_stops_at_its_depth_with_a_step() -> None:
    # chain_table: a (link 0) -> Bomber (link 1) -> e, f (link 2). A depth of 1 stops e and f.
    res = ruling(chain_table(chain_depth=1))
    assert res.details["exploded"] == ["a", "d"] and res.details["chain_stopped"] == ["e", "f"]
    stops = [st for st in res.steps if st.rule == "chain_stops"]
    assert [st.data["model"] for st in stops] == ["e", "f"]
    assert stops[0].text == ("e, caught by Bomber's explosion (a Critical Hit of critical damage 4 >= twice 2 damage tracks), "
                             "would explode as link 2 of the chain: beyond the setting chain_depth = 1, the chain stops here")
    assert ruling(chain_table(chain_depth=2)).details["exploded"] == ["a", "d", "e", "f"]


def test_resolve_template_without_settings_uses_the_defaults() -> None:
    s = chain_table()
    r = resolve_template(s, s.templates[0], table_geometry(s), Dice(1)).resolution
    assert r.details["chain_reactions"] is True and r.details["chain_depth"] == 5
    assert r.details["exploded"] == ["a", "d", "e", "f"]


def test_caught_data_that_is_not_a_table_is_read_as_none() -> None:
    # The loader refuses it (validate); a scenario made in code still resolves, as if nothing were given.
    s = chain_table(chain_reactions=True)
    s = dataclasses.replace(s, templates=(dataclasses.replace(s.templates[0], weapon={"critical_damage": 4, "caught": ["d"]}),))
    assert ruling(s).details["exploded"] == ["a"]
    s = dataclasses.replace(s, templates=(dataclasses.replace(s.templates[0], weapon={"critical_damage": 4, "caught": {"d": 4}}),))
    assert ruling(s).details["exploded"] == ["a"]


def test_a_martyr_with_no_enemy_is_scored_by_nobody() -> None:
    s = table(model("a", side="bruce", tags=("martyr",), name="Assassin"), model("b", side="bruce", x=1),
              weapon={"specialty_action": SELF})
    res = ruling(s)
    # Its own side's b scores for nobody: no step gives points for what it caught.
    assert texts(res)[-1] == ("note", "Victory points: Assassin counts as destroyed by nobody (the opposing player)")
    assert res.steps[-1].rule == "points_two_sides"
    assert res.details["victory_points"] == [{"martyr": "a", "martyr_awarded_to": None, "caught_awarded_to": {"b": None}}]
    # Drawn: the badge says nobody scores it, and who the caught friend scores for.
    adj = adjudicate(s)
    badge = marks(adj).badges[0]
    assert badge.lines == (("boom", TEXT), ("Victory points", HIGHLIGHT), ("Assassin (Martyr): nobody scores it", TEXT),
                           ("b: own side: nobody scores", TEXT_DIM))
    assert badge.accent == CHAIN and badge.prefer == "right"


# ---------------------------------------------------------------- validate


def problems(weapon: dict[str, Any], *more: dict[str, Any]) -> list[tuple[str, str]]:
    ts = tuple(Template(f"t{i}", None, Explosion("a"), weapon=w) for i, w in enumerate((weapon, *more)))
    return validate(table(model("a"), model("b"), templates=ts))


def test_validate_damage_keys() -> None:
    assert problems({"critical_damage": 0}) == []
    assert problems({"extra_damage": 4, "hit_damage": 0}) == []
    [(where, why)] = problems({"critical_damage": True})
    assert where == "template[0].weapon.critical_damage" and why.startswith("must be a whole number of damage points, 0 or more, got True")
    [(where, why)] = problems({"extra_damage": 4, "hit_damage": -1})
    assert where == "template[0].weapon.hit_damage" and why.startswith("must be a whole number of damage points, 0 or more, got -1")


def test_validate_adds_up_every_template_and_every_caught_model() -> None:
    got = problems({"critical_damage": 1.5}, {"critical_damage": 2, "caught": {"b": {"extra_damage": -2}, "zz": {}}})
    assert [where for where, _ in got] == [
        "template[0].weapon.critical_damage", "template[1].weapon.caught.b.extra_damage", "template[1].weapon.caught.zz"]
    assert got[2][1] == "'zz' is not a model on this table"
    got = problems({"critical_damage": 1.5, "caught": {"b": {"extra_damage": -2}}})
    assert [where for where, _ in got] == ["template[0].weapon.critical_damage", "template[0].weapon.caught.b.extra_damage"]


@pytest.mark.parametrize("weapon", [{"critical_damage": 6, "specialty_action": SELF}, {"extra_damage": 5, "specialty_action": SELF}])
def test_validate_a_critical_hit_and_a_specialty_action_together(weapon: dict[str, Any]) -> None:
    assert problems(weapon) == [("template[0].weapon", "give critical_damage (or extra_damage) or specialty_action, not both")]


def test_validate_caught_must_be_a_table() -> None:
    assert problems({"critical_damage": 6, "caught": ["b"]}) == [
        ("template[0].weapon.caught", "must be a table {model id = {critical_damage = N, destroyed = bool}}")]


# ---------------------------------------------------------------- panel lines and marks from given details


def result(s: Scenario, **change: Any) -> TemplateResult:
    r = adjudicate(s).results[0]
    return dataclasses.replace(r, resolution=dataclasses.replace(r.resolution, **change))


def test_panel_lines_name_models_not_on_the_table_by_their_ids() -> None:
    s = table(model("a", name="Alpha"), model("b", name="Beta", x=1), weapon={"critical_damage": 4})
    details = {
        "explodes": True, "rav": 2, "aoe": 2,
        "chain": [{"model": "ghost", "rav": 2, "aoe": 2, "caught": ["b", "spook"]},
                  {"model": "b", "rav": 2, "aoe": 2, "caused_by": "ghost", "caught": []},
                  {"model": "a", "rav": 2, "aoe": 2, "caused_by": "b", "caught": []}],
        "victory_points": [{"martyr": "ghost", "martyr_awarded_to": "red", "caught_awarded_to": {"spook": "blue", "b": None}}],
    }
    assert panel_lines(s, result(s, details=details)) == [
        ("bad", "EXPLODES (): RAV 2, AOE/2"),
        ("note", "• ghost: RAV 2, AOE/2, catches Beta, spook"),
        ("warn", "→ Beta (set off by ghost): RAV 2, AOE/2, catches none"),
        ("warn", "→ Alpha (set off by Beta): RAV 2, AOE/2, catches none"),
        ("note", "VP: ghost counts as destroyed by red"),
        ("note", "VP: spook scores for blue"),
        ("note", "VP: Beta scores for no one"),
    ]
    [(style, line)] = panel_lines(s, result(s, details={"chain": [{"model": "a"}]}))
    assert (style, line[:8], line[-12:]) == ("note", "• Alpha:", "catches none")


def test_panel_lines_when_refused_or_without_a_second_roll() -> None:
    s = table(model("a"), weapon={"critical_damage": 4})
    assert panel_lines(s, result(s, allowed=False, reason="why not", details={})) == [("bad", "NOT ALLOWED: why not")]
    assert panel_lines(s, result(s, details={"critical_damage": 3, "threshold": 4, "explodes": False})) == [
        ("note", "Critical Hit 3 vs threshold 4"), ("good", "does not explode")]
    assert panel_lines(s, result(s, details={})) == []


def test_panel_lines_of_a_refused_self_destruct() -> None:
    s = table(model("a", name="Ranger"), weapon={"specialty_action": SELF})
    assert panel_lines(s, adjudicate(s).results[0]) == [("good", "does not explode")]


def adjudication(s: Scenario, *changes: dict[str, Any]) -> Adjudication:
    adj = adjudicate(s)
    r = adj.results[0]
    results = tuple(dataclasses.replace(r, resolution=dataclasses.replace(r.resolution, **c)) for c in changes)
    return dataclasses.replace(adj, results=results)


def test_marks_of_given_resolutions() -> None:
    s = table(model("a", name="Alpha", x=10, y=10), model("b", name="Beta", x=12, y=10), weapon={"critical_damage": 4})
    res = adjudicate(s).results[0].resolution
    placed = res.placed
    b_placed = dataclasses.replace(placed, focus=(12 * IN, 10 * IN), user="b")
    seventy = "No Catastrophic Explosion: " + "x" * 43
    art = marks(adjudication(
        s,
        # Explosions of models not on the table, a step that is no explosion though it has a placement.
        {"details": {"explodes": True}, "steps": (
            Step("explode", "", placed, {"model": "ghost", "rav": 2, "aoe": 2}),
            Step("scatter", "", placed, {"model": "a"}),
            Step("explode", "", b_placed, {"model": "b", "rav": 3, "aoe": 3, "caused_by": "spook"}),
        )},
        # No explosion and no step saying why; a reason of exactly 70 characters is kept whole.
        {"details": {"explodes": False}, "steps": ()},
        {"details": {"explodes": False}, "steps": (Step("note", seventy),)},
        {"details": {"explodes": False}, "steps": (Step("note", seventy + "y"),)},
        # A Victory-point entry that is no table is passed over; a Martyr not on the table by its id.
        {"details": {"explodes": True, "victory_points": ["junk", {"martyr": "ghost", "martyr_awarded_to": "red"}]}, "steps": ()},
    ))
    assert art.sublabels == {"boom": "ghost explodes: RAV 2 \u00b7 AOE 2"}
    assert art.arrows == []  # "spook" set off Beta, but is not on the table: no arrow
    assert art.badges[0] == Badge(ring_top(b_placed), (("RAV 3 \u00b7 AOE 3", HIGHLIGHT), ("Beta explodes", TEXT_DIM)), CHAIN, prefer="above")
    assert [b.lines for b in art.badges[1:]] == [
        (("boom", TEXT), ("no explosion", TEXT_DIM)),
        (("boom", TEXT), (seventy, TEXT_DIM)),
        (("boom", TEXT), (seventy[:67] + "...", TEXT_DIM)),
        (("boom", TEXT), ("Victory points", HIGHLIGHT), ("ghost (Martyr): red scores it", TEXT)),
    ]
    assert [b.accent for b in art.badges[1:]] == [ROSE, ROSE, ROSE, CHAIN]
    assert [entry[1:] for entry in art.legend] == [("chain reaction (in order)", CHAIN)]


def test_marks_of_an_explosion_with_nothing_more_to_say_draw_no_badge() -> None:
    s = table(model("a"), weapon={"critical_damage": 4})
    assert marks(adjudication(s, {"details": {"explodes": True}, "steps": ()})).badges == []


def test_marks_of_a_refused_self_destruct_and_of_a_long_reason() -> None:
    s = table(model("a", name="Ranger"), weapon={"specialty_action": SELF})
    [badge] = marks(adjudicate(s)).badges
    assert badge.lines == (("boom", TEXT), ("No Catastrophic Explosion: Ranger has no Martyr upgrade to self-des...", TEXT_DIM))
    assert badge.accent == ROSE
    s = table(model("a", name="A", tracks=None), weapon={"critical_damage": 4})
    [badge] = marks(adjudicate(s)).badges
    # 71 characters: cut to 67 and "...".
    assert badge.lines[-1] == ("No Catastrophic Explosion: A has no damage tracks (stats.damage_tra...", TEXT_DIM)


def test_a_martyr_among_several_sides_quotes_the_multi_side_sentence() -> None:
    # Three sides: the Martyr's own points go to the owner of the closest model of another side (alan, 3" away);
    # its step quotes the multi-side sentence, not the two-player one; what it catches scores for bruce.
    martyr = model("m", side="bruce", tags=("martyr",), x=10, y=10, tracks=2, name="Bomber")
    s = table(martyr, model("a", side="alan", x=11.5, y=10), model("c", side="cara", x=10, y=14),
              weapon={"specialty_action": SELF})
    res = ruling(s)
    vp = [st for st in res.steps if st.text.startswith("Victory points")]
    assert [(st.rule, st.text) for st in vp] == [
        ("points_multi_side", "Victory points: Bomber counts as destroyed by alan (the owner of the closest model: several sides are playing)"),
        ("points_caught", "Victory points: the models Bomber's explosion damages or destroys (a) score for bruce"),
    ]
    quote = rulesets.get("catastrophic").step_rule(vp[0])  # type: ignore[misc]
    assert quote is not None and "multiple sides" in quote[1]
