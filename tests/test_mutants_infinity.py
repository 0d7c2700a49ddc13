"""``infinity``: worked answers for what the survivors of the mutation run showed untested.

Outcomes on hand-made tables are frozen in the golden rulings (``tests/golden/tables/inf-*.toml``);
here: validation word for word, the small rules functions at their edges, and the panel of
hand-built details. Equivalents: docs/mutants/infinity.md.
"""

from __future__ import annotations

import dataclasses
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
    assert _validate(settings={"vertical_model": "tube"}) == [("settings.vertical_model", "must be one of x, cylinder, got 'tube'")]
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
