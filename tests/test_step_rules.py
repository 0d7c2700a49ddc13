"""Every step of every ruling names the rule it applies and quotes a seed sentence that supports it.

Three checks, on every case the golden rulings hold (each bundled scenario, each hand-made table, each
judge's table of issue 32, under every setting, other seeds and jittered tables):

* every step names a rule its ruleset lists, and that rule's quote is one verbatim sentence of the seed;
* the quote holds the words that decide the step, judged here from the step's own data (a Robotech
  step giving NO DAMAGE to a DF above the Strike must quote "NO DAMAGE"; a chained explosion must quote
  the Critical Hit test; ...), independently of the rule the ruleset chose, so a step that borrowed a
  neighbour's sentence fails;
* no decided model lacks a step: every model the template affects or puts in Total Cover, and every
  model it touches but rules out (out of reach in height, only touching the edge), is named by a step.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from tabletop import rulesets
from tabletop.adjudicate import Adjudication, TemplateResult
from tabletop.coverage import CONTACT_EPS_MM
from tabletop.explain import step_models
from tabletop.plugin import Rule, Step, rule_book, rule_for, step_rule_hook
from tabletop.step_rules import DuplicateRule, missing_quotes, undecided

from .conftest import ROOT
from .golden_rulings import case_adjudication, case_path, cases


def _seeds_folder() -> Path:
    """The seed texts: $TABLETOP_SEEDS, else ``shared/seeds`` beside the checkout (as CI lays it out)."""
    if os.environ.get("TABLETOP_SEEDS"):
        return Path(os.environ["TABLETOP_SEEDS"])
    beside = ROOT.parent / "shared" / "seeds"
    return beside if beside.is_dir() else Path("/work/shared/seeds")


SEEDS = _seeds_folder()
WITH_RULES = ("infinity", "robotech", "wwpd", "increments", "catastrophic")

needs_seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason=f"seed texts not found in {SEEDS}")


def _rules_text(ruleset: str):  # type: ignore[no-untyped-def]
    return importlib.import_module(f"tabletop.rulesets.{ruleset}.rules_text")


@cache
def _seed_text(ruleset: str) -> str:
    return (SEEDS / _rules_text(ruleset).SEED).read_text(encoding="utf-8")


@cache
def _adjudication(key: str) -> Adjudication:
    return case_adjudication(key)


# --------------------------------------------------------------------------- the tables


@needs_seeds
@pytest.mark.parametrize("name", WITH_RULES)
def test_every_quote_is_one_verbatim_sentence_of_the_seed(name: str) -> None:
    rules = _rules_text(name).RULES
    assert rules
    assert missing_quotes(rules, _seed_text(name)) == []
    for rule in rules:
        assert rule.quote.count(". ") <= 1, rule.id  # short: one sentence
        assert rule.title.strip() and rule.decides, rule.id


@pytest.mark.parametrize("name", WITH_RULES)
def test_every_rule_quotes_the_words_that_decide_it(name: str) -> None:
    assert undecided(_rules_text(name).RULES) == []
    rule_book(_rules_text(name).RULES)  # ids are unique


def test_a_quote_without_its_deciding_words_is_caught() -> None:
    wrong = Rule("damage_none", "NO DAMAGE", "Every mecha ... takes half damage (rounded down).", ("NO DAMAGE",))
    assert undecided([wrong]) == ["damage_none: NO DAMAGE"]
    with pytest.raises(DuplicateRule):
        rule_book([wrong, wrong])


def test_a_step_names_its_rule_by_id_never_by_its_wording() -> None:
    book = rule_book([Rule("lead", "Leadership", "q1", ("q1",)), Rule("rof", "Rate of fire", "q2", ("q2",))])
    # The text speaks of Leadership, the step applies the rate of fire: the id decides.
    assert rule_for(book, Step("note", "x: Leadership", rule="rof")) == ("Rate of fire", "q2")
    assert rule_for(book, Step("note", "x: Leadership")) is None  # no id: no rule, whatever the text says
    assert rule_for(book, Step("note", "x", rule="ghost")) is None
    assert step_rule_hook(book.values())(Step("note", "", rule="lead")) == ("Leadership", "q1")


# --------------------------------------------------------------------------- every case


def _steps(adj: Adjudication) -> Iterator[tuple[TemplateResult, Step]]:
    for r in adj.results:
        for step in r.resolution.steps:
            yield r, step


def _ruleset_of(key: str) -> str:
    from tabletop.scenario_io import load

    return load(case_path(key.partition("/")[0])).ruleset


CASES = [k for k in cases() if _ruleset_of(k) != "none"]


@needs_seeds
@pytest.mark.parametrize("key", CASES)
def test_every_step_has_a_rule_and_a_seed_quote(key: str) -> None:
    adj = _adjudication(key)
    ruleset = rulesets.get(adj.scenario.ruleset)
    book = rule_book(_rules_text(ruleset.name).RULES)
    seed = _seed_text(ruleset.name)
    assert ruleset.step_rule is not None
    assert any(True for _ in _steps(adj)), f"{key} resolves with no steps"
    for _r, step in _steps(adj):
        assert step.rule in book, f"{key}: step names no known rule: {step.kind}: {step.text} ({step.rule!r})"
        title, quote = ruleset.step_rule(step)  # type: ignore[misc]
        assert title == book[step.rule].title and quote in seed


def test_the_geometry_only_ruleset_has_no_steps() -> None:
    adj = _adjudication("default")
    assert [s for _r, s in _steps(adj)] == [] and rulesets.get("none").step_rule is None


# --------------------------------------------------------------------------- what decides each step


def required_words(ruleset: str, result: TemplateResult, step: Step, adj: Adjudication) -> list[str]:
    """Words the quote of ``step`` must hold, judged from what the step says and carries, not from its rule id."""
    d, text = step.data, step.text
    if ruleset == "robotech":
        if "units" in d and "damage" in d and "strike" in d:
            units = d["units"]
            if all(d["df"][u] > d["strike"] for u in units):
                return ["no damage"] if d.get("scattered") else ["NO DAMAGE"]
            if any(u == d.get("primary") for u in units):
                return ["full MD"]
            if d.get("scattered") and adj.settings.get("whole_volley_miss_damage") == "full" and result.resolution.details.get("whole_volley_missed"):
                return ["full MD of one missile"]
            return ["half"]
        if "Inescapable" in text:
            return ["hit any given mecha"] if adj.settings.get("inescapable_counts") == "hits" else ["Blast radius"]
        if "shoots down" in text:
            return ["would have hit that mecha"]
        if "dodges:" in text:
            return ["Dodge", "roll to Strike"]
        if "rolls with the impact" in text:
            return ["Roll with Impact"]
        if "a dud" in text:
            return ["dud"]
        if text.startswith("Not allowed") and "friendly" in text:
            return ["friendly mecha"]
        if text.startswith("Not allowed") and ("line of sight" in text or "range" in text):
            return ["Line of Sight"]
        if step.kind == "scatter":
            return ["scatter"]
        if step.kind == "roll":
            return ["roll to Strike"]
    if ruleset == "infinity":
        if "ARO is cancelled" in text:  # before "Total Cover": the step may say why its target is not affected
            return ["cancelled"]
        if "Total Cover" in text:
            return ["Total Cover", "scenery"]
        if "3D reach" in text:
            return ["height equal to their radius"] if adj.settings.get("vertical_model") == "cylinder" else ["three-dimensional"]
        if "dodge PH-3" in text:
            return ["Deployable"] if d.get("deployable") else ["does not have LoF"]
        if ": dodge PH " in text:
            return ["PH Roll"]
        if text.startswith("In the area of effect"):
            return ["covered at least partially"]
        if "ARO is cancelled" in text:
            return ["cancelled"]
        if "Camouflage Marker" in text:
            return ["Camouflage Marker"]
        if "Impersonation Marker" in text:
            return ["Impersonation Marker", "counts as a friendly trooper"]
        if "nullified" in text:
            return ["considered null"]
        if text.startswith("Close combat"):
            return ["Close Combat"]
        if "Partial Cover" in text:
            return ["Partial Cover"]
        if "too low to hide" in text:
            return ["LoF can be drawn from the Blast Focus"]
        if text.startswith("No Damage value"):
            return ["no value in the damage attribute"]
        if step.kind == "place":
            return ["Speculative"] if "speculative" in text else ["narrow end"] if "narrow end" in text else ["center"] if "centred" in text else []
        if text.startswith("Not allowed") and "teardrop" in text:
            return ["contacting the edge of the main target's base"]
        if text.startswith("Not allowed") and "main target" in text:
            return ["main valid target"]
    if ruleset == "wwpd":
        if step.kind == "place" and "#" in (step.placed.id if step.placed else ""):
            return ["templates"]
        if step.kind == "place":
            return ["center of the template"]
        if "touch" in text and "edge" in text:
            return ["any portion of its base"]
        if "counted" in text and "times" in text:
            return ["counted multiple times"]
        if "rate of fire" in text:
            return ["RoF"]
        if text.startswith("line of sight:"):
            return ["line of site"]
        if text.startswith("range:"):
            return ["in range"]
        if "Leadership" in text:
            return ["Leadership"]
    if ruleset == "catastrophic":
        if step.kind == "explode" and "caused_by" in d:
            return ["Critical Hit", "twice"] if "Martyr" not in text else ["caused by another Model", "+1"]
        if step.kind == "explode":
            origin = adj.scenario.model(d["model"])
            if result.resolution.details.get("cause") == "self_destruct":
                return ["current number of Damage Tracks"]
            return ["+1"] if "martyr" in origin.tags else ["full number of Damage Tracks"]
        if text.startswith("Victory points:") and "counts as destroyed" in text:
            return ["multiple sides"] if "several sides" in text else ["opposing player"]
        if text.startswith("Victory points:"):
            return ["controlling the Martyr"]
        if text.startswith("Caught by"):
            return ["All Models in the AOE"]
        if "chain_depth" in text or "would explode" in text:
            return ["Critical Hit"]
        if "infantry" in text.lower() and "explode" in text:
            return ["Infantry"]
        if text.startswith("Catastrophic Failure"):
            return ["natural or Auto 10"]
        if text.startswith("No Catastrophic Explosion"):
            if result.resolution.details.get("cause") == "self_destruct":
                return ["Specialty Action"]
            return ["twice"]
    if ruleset == "increments":
        if text.startswith("In Ground Zero"):
            return ["Ground Zero", "full damage"]
        if text.startswith("Increment ") and "halved" in text:
            return ["1/2 (rounded down)", "increment"]
        if "level(s) from Ground Zero" in text:
            return ["vertically"]
        if "stopped by" in text and "stays inside" not in text:
            return ["never turns or bends"]
        if "breached" in text:
            return ["pierces the space’s containment"]
        if "Damage save" in text and step.kind == "roll":
            return ["Damage save"]
        if text.startswith("blast contained by"):
            return ["2d6 per interrupted or prevented increment"]
        if "counted outward as a radius" in text:
            return ["expands as a radius"]
        if "covers the blast with its body" in text:
            return ["Constitution score"]
        if "covers the blast: it takes the maximum" in text:
            return ["maximum possible damage"]
        if "only touches the blast's squares" in text:
            return ["measured in squares"]
        if "has no Damage save" in text:
            return ["only proceeds through cover"]
        if step.kind == "place":
            return ["Ground Zero"]
        if "does not hold the origin square" in text:
            return ["must contain the origin square"]
    return []


@needs_seeds
@pytest.mark.parametrize("key", CASES)
def test_each_quote_holds_the_words_that_decide_its_step(key: str) -> None:
    adj = _adjudication(key)
    name = adj.scenario.ruleset
    hook = rulesets.get(name).step_rule
    assert hook is not None
    for r, step in _steps(adj):
        found = hook(step)
        assert found is not None
        for word in required_words(name, r, step, adj):
            assert word.lower() in found[1].lower(), f"{key}: {step.text!r} quotes {found[1]!r}, which lacks {word!r}"


def test_a_step_that_borrows_a_neighbours_sentence_fails_the_check() -> None:
    # robotech-hit: the officer's DF 6 beats the Strike 5. Give its step the half-damage rule: the check must object.
    adj = _adjudication("robotech-hit")
    r = adj.results[0]
    step = next(s for s in r.resolution.steps if s.data.get("units") == ["officer"])
    assert required_words("robotech", r, step, adj) == ["NO DAMAGE"]
    borrowed = rule_for(rule_book(_rules_text("robotech").RULES), Step(step.kind, step.text, data=step.data, rule="damage_half"))
    assert borrowed is not None and "NO DAMAGE" not in borrowed[1]
    right = rulesets.get("robotech").step_rule(step)  # type: ignore[misc]
    assert right is not None and "NO DAMAGE" in right[1]


# --------------------------------------------------------------------------- no decided model lacks a step


def decided(result: TemplateResult) -> set[str]:
    """Models the ruleset decided about: affected or in Total Cover, and (when the attack stands) those whose
    base meets the template but whom it ruled out."""
    res = result.resolution
    out = {i for i, c in res.coverage.models.items() if c.status in ("affected", "total_cover")} | set(res.affected)
    if res.allowed:
        out |= {i for i, c in res.coverage.models.items() if c.status == "outside" and c.margin_mm >= -CONTACT_EPS_MM}
    return out


@pytest.mark.parametrize("key", CASES)
def test_no_decided_model_lacks_a_step(key: str) -> None:
    adj = _adjudication(key)
    for r in adj.results:
        named = {mid for step in r.resolution.steps for mid in step_models(step, adj.scenario)}
        missing = decided(r) - named
        assert not missing, f"{key}, template {r.template.id}: no step names {sorted(missing)}"


def test_a_model_in_total_cover_gets_a_step_naming_the_wall() -> None:
    adj = _adjudication("r:infinity-low-wall")
    (step,) = [s for s in adj.results[0].resolution.steps if s.data.get("model") == "f"]
    assert step.rule == "total_cover" and step.data["terrain"] == ["w2"]
    assert "Taller wall (w2), 20 mm high" in step.text


def test_a_model_out_of_reach_in_height_gets_a_step_naming_its_level() -> None:
    adj = _adjudication("r:infinity-low-wall")
    (step,) = [s for s in adj.results[0].resolution.steps if s.data.get("model") == "g"]
    assert step.rule == "x_reach" and "silhouette 45-85 mm" in step.text and "48.3 mm" in step.text


def test_names_in_a_step_are_whole_words() -> None:
    adj = _adjudication("r:wwpd-tangent")
    step = Step("note", "tangent: mm, gunner", data={"models": ["t", "ghost"]})
    assert step_models(step, adj.scenario) == ["t"]
    assert re.search(r"\bm\b", "tangent: mm") is None
