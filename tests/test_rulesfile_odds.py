"""Odds of rules files: exact enumeration where the dice allow (the same fractions as the built-in it
restates), and the vectorised batch path agreeing with ``resolve`` row by row (random tables too)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from tabletop.adjudicate import settings_for
from tabletop.coverage import table_geometry
from tabletop.model import Scenario
from tabletop.odds import compute_odds
from tabletop.odds.batch import _ArrayDice, _check_batch, draw_batch_rolls
from tabletop.odds.tree import _Explorer
from tabletop.scenario_io import load

from .conftest import SCENARIOS
from .test_rulesfile_equivalence import ROBOTECH, robotech_tables, under

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "rules"


def _rows_agree(s: Scenario, rows: int, seed: int = 5, changed: dict[str, object] | None = None) -> int:
    """Draw ``rows`` rows of dice for every template, resolve them in bulk and one by one; the rows checked."""
    checked = 0
    for t in s.templates:
        ex = _Explorer(s, t, table_geometry(s), settings_for(s, changed), 1.0, False)
        sampler = ex.ruleset.sample_batch(ex._context(_ArrayDice({}, {})))  # type: ignore[misc]
        if sampler is None:
            continue
        values = draw_batch_rolls(sampler.rolls, rows, np.random.default_rng(seed), {})
        _check_batch(ex, sampler, values, sampler.resolve(values), rows)  # raises on the first row that differs
        checked += rows
    return checked


@pytest.mark.parametrize("name", ["robotech-hit", "robotech-scatter"])
def test_exact_odds_are_the_built_ins_fractions(name: str) -> None:
    s = load(SCENARIOS / f"{name}.toml")
    built = compute_odds(s, keep_fixed_rolls=False)
    filed = compute_odds(under(s, ROBOTECH), keep_fixed_rolls=False)
    a, b = built.templates[0], filed.templates[0]
    assert a.exact and b.exact
    for mid, m in a.models.items():
        assert (b.models[mid].fraction, b.models[mid].damage_fraction) == (m.fraction, m.damage_fraction), mid


@pytest.mark.parametrize("name", ["club-blast", "club-flamer"])
def test_batch_agrees_with_resolve_on_the_examples(name: str) -> None:
    assert _rows_agree(load(EXAMPLES / f"{name}.toml"), 3000) == 3000


@pytest.mark.parametrize("name", ["robotech-hit", "robotech-scatter"])
def test_batch_agrees_with_resolve_on_robotech(name: str) -> None:
    s = under(load(SCENARIOS / f"{name}.toml"), ROBOTECH)
    assert _rows_agree(s, 3000) == 3000
    assert _rows_agree(s, 1000, changed={"roll_with_impact_needs": 4, "range_measure": "edge"}) == 1000


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(robotech_tables())
def test_batch_agrees_with_resolve_on_random_tables(case: tuple[Scenario, dict[str, object], int]) -> None:
    s, changed, seed = case
    s = dataclasses.replace(under(s, ROBOTECH), templates=tuple(dataclasses.replace(t, rolls={}) for t in s.templates))
    _rows_agree(s, 300, seed, changed)


def test_sampled_odds_use_the_batch_and_match_the_slow_path() -> None:
    """The club blast's tree is too big to enumerate: sampled through the batch path, within the
    intervals of the one-sample-at-a-time path (both with 20,000 samples). The batch path goes the
    whole way (the enumeration tried and given up first); the other skips straight to sampling, as
    a second failed enumeration (~10 s of CPU) would only repeat the first."""
    s = load(EXAMPLES / "club-blast.toml")
    fast = compute_odds(s, samples=20_000, keep_fixed_rolls=False).templates[0]
    slow = compute_odds(s, samples=20_000, keep_fixed_rolls=False, batch=False, exact_limit=0).templates[0]
    assert not fast.exact
    for mid, m in fast.models.items():
        lo, hi = slow.models[mid].ci95 or (0.0, 1.0)
        assert lo - 0.01 <= m.p_affected <= hi + 0.01, mid
