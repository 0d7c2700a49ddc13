"""Proof of expressiveness: two built-in rulesets written as rules files judge exactly as the built-ins.

``examples/rules/wwpd-battery.rules.toml`` against ``wwpd`` and ``examples/rules/robotech-blast.rules.toml``
against ``robotech`` (a single Blast: volleys are beyond the vocabulary, docs/rules-files.md says why):
every bundled scenario of the ruleset (the file's dice, then other seeds with the dice free, then
settings changed), and random tables (hypothesis). Compared: allowed or not, every model's status,
the rolls taken (name and total, in order), damage before and after reactions (Robotech), the
count of templates over each model, the counts per unit and the Leadership test (WWPD).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop import rulesfile
from tabletop.adjudicate import Adjudication, adjudicate
from tabletop.catalogue import default_catalogue
from tabletop.model import At, Base, Impact, Model, RectSpec, Scenario, Table, Template, TemplateShape, Terrain
from tabletop.scenario_io import load

from .conftest import SCENARIOS

RULES = Path(__file__).resolve().parents[1] / "examples" / "rules"
WWPD = RULES / "wwpd-battery.rules.toml"
ROBOTECH = RULES / "robotech-blast.rules.toml"
IN = 25.4
PROPERTY = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def under(s: Scenario, rules_path: Path) -> Scenario:
    return dataclasses.replace(s, ruleset=rulesfile.ruleset_for(rules_path).name)


def same_judgement(built: Adjudication, filed: Adjudication, kind: str) -> None:
    assert len(built.results) == len(filed.results)
    for a, b in zip(built.results, filed.results):
        ra, rb = a.resolution, b.resolution
        where = f"template {a.template.id}"
        assert ra.allowed == rb.allowed, (where, ra.reason, rb.reason)
        assert {m: c.status for m, c in ra.coverage.models.items()} == {m: c.status for m, c in rb.coverage.models.items()}, where
        assert set(ra.affected) == set(rb.affected), where
        assert [(r.name, r.total) for r in a.rolls] == [(r.name, r.total) for r in b.rolls], where
        da, db = ra.details, rb.details
        if kind == "robotech":
            if ra.allowed:
                assert da["damage"] == db["damage"], where
                assert da["final_damage"] == db["final_damage"], where
                assert da["hit"] == db["hit"] and da["scattered"] == db["scattered"], where
                assert da["impact_point"] == db["impact_point"], where
        else:
            templates = {m: md.get("templates", 0) for m, md in ra.model_details.items() if md.get("templates", 0)}
            assert templates == (db.get("under") or {}), where
            if ra.allowed:
                assert da["counts"] == db["counts"], where
                assert da["covered"] == db["covered"], where
                assert da["leadership_test"] == db["test"], where


def both(s: Scenario, rules_path: Path, **kwargs: Any) -> tuple[Adjudication, Adjudication]:
    return adjudicate(s, **kwargs), adjudicate(under(s, rules_path), **kwargs)


BUNDLED = sorted(p.name for p in SCENARIOS.glob("wwpd-*.toml")) + ["robotech-hit.toml", "robotech-scatter.toml"]


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_scenarios_judged_alike(name: str) -> None:
    s = load(SCENARIOS / name)
    kind = s.ruleset
    rules_path = WWPD if kind == "wwpd" else ROBOTECH
    same_judgement(*both(s, rules_path), kind)
    free = dataclasses.replace(s, templates=tuple(dataclasses.replace(t, rolls={}) for t in s.templates))
    for seed in range(1, 25):
        same_judgement(*both(free, rules_path, seed=seed), kind)


def test_the_volley_scenario_is_not_a_single_blast() -> None:
    """robotech-volley.toml fires 4 missiles: the rules file judges one Blast and is not claimed to match it."""
    s = load(SCENARIOS / "robotech-volley.toml")
    assert s.templates[0].weapon["volley"] == 4


@pytest.mark.parametrize(
    ("name", "changed"),
    [
        ("wwpd-battery-t.toml", {"battery_overlap": 0.25}),
        ("wwpd-battery-t.toml", {"even_battery_centre": "template"}),
        ("wwpd-behind-building.toml", {"check_line_of_sight": False}),
        ("wwpd-behind-building.toml", {"range_measure": "centre"}),
        ("wwpd-friendly-fire.toml", {"allow_point_aim": True}),
        ("robotech-hit.toml", {"range_measure": "edge"}),
        ("robotech-hit.toml", {"roll_with_impact_needs": 4}),
        ("robotech-hit.toml", {"check_line_of_sight": False}),
        ("robotech-scatter.toml", {"range_measure": "edge"}),
    ],
)
def test_settings_change_both_alike(name: str, changed: dict[str, Any]) -> None:
    s = load(SCENARIOS / name)
    rules_path = WWPD if s.ruleset == "wwpd" else ROBOTECH
    free = dataclasses.replace(s, templates=tuple(dataclasses.replace(t, rolls={}) for t in s.templates))
    for seed in range(1, 13):
        same_judgement(*both(free, rules_path, seed=seed, settings=changed), s.ruleset)


# --------------------------------------------------------------------------- random tables


def _point(draw: st.DrawFn, lo: float, hi: float) -> tuple[float, float]:
    return (draw(st.floats(lo, hi)) * IN, draw(st.floats(lo, hi)) * IN)


@st.composite
def robotech_tables(draw: st.DrawFn) -> tuple[Scenario, dict[str, Any], int]:
    n = draw(st.integers(2, 7))
    sides = draw(st.sampled_from([("udf", "zentraedi", "zentraedi"), ("udf", "zentraedi", "neutral"), (None,)]))
    hit_target = draw(st.integers(1, n - 1))
    models = []
    cx, cy = _point(draw, 14, 34)
    for k in range(n):
        x, y = (cx + draw(st.floats(-3, 3)) * IN, cy + draw(st.floats(-3, 3)) * IN) if k else _point(draw, 2, 46)
        stats: dict[str, float] = {}
        for stat, hi in (("DF", 6), ("GN", 2), ("PI", 2), ("CP", 2)):
            if draw(st.booleans()) or stat == "DF":
                stats[stat] = draw(st.integers(0, hi))
        tags = ("life_is_cheap",) if draw(st.integers(0, 4)) == 0 else ()
        side = sides[0] if k == 0 and sides[0] else ("zentraedi" if k == hit_target and sides[0] and draw(st.integers(0, 5)) else draw(st.sampled_from(sides)))
        models.append(Model(f"m{k}", x, y, Base.round(draw(st.sampled_from([1.0, 1.5])) * IN), side=side, stats=stats, tags=tags))
    terrain = []
    if draw(st.booleans()):
        x, y = _point(draw, 10, 38)
        terrain.append(Terrain("bunker", rect=RectSpec(x, y, 3 * IN, 1.5 * IN), kind="structure", blocks_los=False, stats={"DF": draw(st.integers(0, 6))}))
    if draw(st.booleans()):
        x, y = _point(draw, 10, 38)
        terrain.append(Terrain("wall", rect=RectSpec(x, y, 0.5 * IN, 6 * IN, draw(st.floats(0, 180)))))
    ids = [m.id for m in models]
    target = ids[hit_target]

    def who() -> Any:
        return draw(st.one_of(st.just("all"), st.lists(st.sampled_from(ids), max_size=4)))

    weapon: dict[str, Any] = {"md": draw(st.integers(0, 12)), "abilities": draw(st.sampled_from([["blast"], ["blast", "missile"]]))}
    if draw(st.booleans()):
        weapon["range"] = draw(st.integers(8, 60))
    for key in ("dodge", "roll_with_impact", "shoot_down"):
        if draw(st.booleans()):
            weapon[key] = who()
    rolls: dict[str, Any] = {}
    if draw(st.booleans()):
        rolls["strike"] = draw(st.integers(1, 6))
        if draw(st.booleans()):
            rolls.update(scatter_direction=draw(st.integers(1, 6)), scatter_distance=draw(st.integers(2, 12)), scatter_strike=draw(st.integers(1, 6)))
    shape = default_catalogue()["robotech_blast"].shape
    template = Template("blast", shape, Impact("m0", target), "robotech_blast", weapon=weapon, rolls=rolls)
    changed = {}
    if draw(st.booleans()):
        changed["range_measure"] = draw(st.sampled_from(["centre", "edge"]))
    if draw(st.booleans()):
        changed["roll_with_impact_needs"] = draw(st.integers(0, 6))
    if draw(st.integers(0, 3)) == 0:
        changed["check_line_of_sight"] = False
    s = Scenario(Table(48 * IN, 48 * IN), tuple(models), tuple(terrain), (template,), ruleset="robotech", units="in")
    return s, changed, draw(st.integers(1, 10_000))


@PROPERTY
@given(robotech_tables())
def test_random_robotech_tables_judged_alike(case: tuple[Scenario, dict[str, Any], int]) -> None:
    s, changed, seed = case
    same_judgement(*both(s, ROBOTECH, seed=seed, settings=changed), "robotech")


SHAPES = ["small_blast", "large_blast", "flamer", "rect", "wide_rect", "cone_90", "cone_120"]


def _shape(name: str) -> tuple[TemplateShape, str | None]:
    if name == "rect":
        return TemplateShape("rect", length=6 * IN, width=2 * IN), None
    if name == "wide_rect":
        return TemplateShape("rect", length=2 * IN, width=5 * IN), None
    if name == "cone_120":
        return TemplateShape("cone", length=4 * IN, angle=120.0), None
    return default_catalogue()[name].shape, name


@st.composite
def wwpd_tables(draw: st.DrawFn) -> tuple[Scenario, dict[str, Any]]:
    n = draw(st.integers(2, 9))
    cx, cy = _point(draw, 14, 34)
    models = []
    for k in range(n):
        x, y = (cx + draw(st.floats(-5, 5)) * IN, cy + draw(st.floats(-5, 5)) * IN) if k else (24 * IN, 3 * IN)
        unit = draw(st.sampled_from([None, "a", "b", "c"]))
        models.append(Model(f"m{k}", x, y, Base.round(draw(st.sampled_from([1.0, 1.5, 2.0])) * IN), side=draw(st.sampled_from(["red", "blue", "blue", "neutral"])), unit=unit))
    terrain = []
    if draw(st.booleans()):
        x, y = _point(draw, 10, 38)
        terrain.append(Terrain("house", rect=RectSpec(x, y, draw(st.floats(1, 8)) * IN, draw(st.floats(1, 8)) * IN, draw(st.floats(0, 90)))))
    shape, shape_name = _shape(draw(st.sampled_from(SHAPES)))
    target = draw(st.sampled_from([m.id for m in models[1:]]))
    how = draw(st.integers(0, 9))
    placement: Any = Impact("m0", target) if how < 7 else Impact("m0", None, (cx, cy)) if how < 9 else At(cx, cy, draw(st.floats(0, 360)))
    weapon = {"range": draw(st.integers(6, 40))} if draw(st.booleans()) else {}
    template = Template("shot", shape, placement, shape_name, battery=draw(st.integers(1, 4)), weapon=weapon)
    changed: dict[str, Any] = {}
    if draw(st.booleans()):
        changed["battery_overlap"] = draw(st.sampled_from([0.0, 0.1, 0.5]))
    if draw(st.booleans()):
        changed["even_battery_centre"] = draw(st.sampled_from(["between", "template"]))
    if draw(st.booleans()):
        changed["allow_point_aim"] = True
    if draw(st.booleans()):
        changed["range_measure"] = draw(st.sampled_from(["edge", "centre"]))
    if draw(st.integers(0, 3)) == 0:
        changed["check_line_of_sight"] = False
    return Scenario(Table(48 * IN, 48 * IN), tuple(models), tuple(terrain), (template,), ruleset="wwpd", units="in"), changed


@PROPERTY
@given(wwpd_tables())
def test_random_wwpd_tables_judged_alike(case: tuple[Scenario, dict[str, Any]]) -> None:
    s, changed = case
    same_judgement(*both(s, WWPD, settings=changed), "wwpd")


def test_the_rules_files_quote_their_seeds_verbatim() -> None:
    """Every sentence the two files quote is in the seed text they name (as tests/test_step_rules.py checks the built-ins')."""
    import os

    from .conftest import ROOT

    folder = Path(os.environ.get("TABLETOP_SEEDS") or (ROOT.parent / "shared" / "seeds"))
    folder = folder if folder.is_dir() else Path("/work/shared/seeds")
    if not folder.is_dir():
        pytest.skip("the seed texts are not beside this checkout")
    for path, seed in ((WWPD, "wwpd-template-rules-2012.txt"), (ROBOTECH, "robotech-rpg-tactics-blast-rule-2015.txt")):
        rules, _ = rulesfile.load(path)
        text = " ".join((folder / seed).read_text(encoding="utf-8").split())
        for sentence in rules.spec.source.sentences:
            assert " ".join(sentence.split()) in text, (path.name, sentence[:60])
