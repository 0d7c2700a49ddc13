"""Each ruleset names the rule every step applies and quotes the seed sentence it rests on."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

from tabletop import rulesets
from tabletop.adjudicate import adjudicate
from tabletop.plugin import Step, StepRule, rule_for
from tabletop.scenario_io import load
from tabletop.step_rules import missing_quotes

from .conftest import ROOT, SCENARIOS

def _seeds_folder() -> Path:
    """The seed texts: $TABLETOP_SEEDS, else ``shared/seeds`` beside the checkout (as CI lays it out)."""
    if os.environ.get("TABLETOP_SEEDS"):
        return Path(os.environ["TABLETOP_SEEDS"])
    beside = ROOT.parent / "shared" / "seeds"
    return beside if beside.is_dir() else Path("/work/shared/seeds")


SEEDS = _seeds_folder()
WITH_RULES = ("infinity", "robotech", "wwpd", "increments", "catastrophic")
BUNDLED = sorted(p for p in SCENARIOS.glob("*.toml"))

needs_seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason=f"seed texts not found in {SEEDS}")


def _seed_text(ruleset: str) -> str:
    module = importlib.import_module(f"tabletop.rulesets.{ruleset}.rules_text")
    return (SEEDS / module.SEED).read_text(encoding="utf-8")


@needs_seeds
@pytest.mark.parametrize("name", WITH_RULES)
def test_every_quote_is_verbatim_in_the_seed(name: str) -> None:
    module = importlib.import_module(f"tabletop.rulesets.{name}.rules_text")
    assert module.STEP_RULES
    assert missing_quotes(module.STEP_RULES, _seed_text(name)) == []


@needs_seeds
@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_every_step_of_every_bundled_scenario_has_a_rule_and_a_seed_quote(path: Path) -> None:
    scenario = load(path)
    adj = adjudicate(scenario)
    steps = [s for r in adj.results for s in r.resolution.steps]
    ruleset = rulesets.get(scenario.ruleset)
    if scenario.ruleset == "none":
        assert steps == [] and ruleset.step_rule is None  # geometry only: nothing to quote
        return
    assert steps, f"{path.name} resolves with no steps"
    seed = _seed_text(scenario.ruleset)
    assert ruleset.step_rule is not None
    for step in steps:
        found = ruleset.step_rule(step)
        assert found is not None, f"{path.name}: no rule for step {step.kind}: {step.text}"
        rule, quote = found
        assert rule.strip()
        assert quote in seed
        assert quote.count(". ") <= 1  # short: one sentence


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        (Step("note", "x: Leadership"), "lead"),
        (Step("note", "rate of fire 2"), "rof"),
        (Step("explode", "boom", data={"caused_by": "a"}), "chain"),
        (Step("explode", "boom"), "first"),
        (Step("roll", "Leadership"), None),
    ],
)
def test_first_fitting_entry_names_the_rule(step: Step, expected: str | None) -> None:
    table = (
        StepRule("note", "lead", "q1", match="Leadership"),
        StepRule("note", "rof", "q2"),
        StepRule("explode", "chain", "q3", data_key="caused_by"),
        StepRule("explode", "first", "q4"),
    )
    found = rule_for(table, step)
    assert (found[0] if found else None) == expected
