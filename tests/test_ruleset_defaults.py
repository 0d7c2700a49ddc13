"""A ruleset given no settings rules exactly as under its declared defaults.

``resolve_template`` (public: the app's live path and plugins call it) takes ``settings=None`` and
hands the ruleset an empty mapping, so every ``ctx.settings.get(name, default)`` in a ruleset must
fall back to the default it declares in ``Ruleset.settings``. A fallback that drifted from the
declared default (``"edge"`` in one place, ``"centre"`` in another) would rule differently for a
plugin caller than for ``check``; this compares the two on every bundled scenario and golden table
(``tests/golden/tables``), at its own seed and on a jittered table (models moved, aims turned), and the side views likewise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tabletop import rulesets
from tabletop.adjudicate import resolve_template
from tabletop.dice import Dice
from tabletop.coverage import table_geometry
from tabletop.scenario_io import load

from .golden_rulings import SCENARIOS, TABLES, first_difference, jittered, plain

PATHS = sorted(SCENARIOS.glob("*.toml")) + sorted(TABLES.glob("*.toml"))


def _rulings(scenario: Any, settings: dict[str, Any] | None) -> list[Any]:
    ruleset = rulesets.get(scenario.ruleset)
    geometry = table_geometry(scenario)
    dice = Dice(1)
    out = []
    for t in scenario.templates:
        result = resolve_template(scenario, t, geometry, dice, settings=settings)
        entry: dict[str, Any] = {"resolution": plain(result.resolution), "rolls": plain(result.rolls)}
        if ruleset.side_view is not None:
            entry["side_view"] = plain(ruleset.side_view(scenario, result, settings or {}))
        out.append(entry)
    return out


@pytest.mark.parametrize("jitter", [0, 1])
@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_no_settings_rule_as_the_declared_defaults(path: Path, jitter: int) -> None:
    scenario = load(path)
    if jitter:
        scenario = jittered(scenario, jitter)
    declared = {name: default for name, (default, _why) in rulesets.get(scenario.ruleset).settings.items()}
    want = _rulings(scenario, declared)
    got = _rulings(scenario, None)
    assert first_difference(want, got) is None, first_difference(want, got)
