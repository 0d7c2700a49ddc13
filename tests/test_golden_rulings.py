"""Every ruling on every bundled scenario, under every setting, is the one frozen in tests/golden/rulings.json.

See ``tests/golden_rulings.py`` for what a ruling holds and how to regenerate it on purpose.
"""

from __future__ import annotations

import json

import pytest

from tests.golden_rulings import RULINGS, cases, first_difference, plain, ruling

EXPECTED: dict[str, object] = json.loads(RULINGS.read_text(encoding="utf-8"))


def test_every_case_has_a_frozen_ruling() -> None:
    assert sorted(EXPECTED) == sorted(cases())


def test_the_cases_move_every_setting() -> None:
    # Each ruleset with settings has a case per non-default value, so a rule behind a setting is frozen too.
    keys = cases()
    assert "infinity-hellcat/vertical_model=\"cylinder\"" in keys
    assert "robotech-hit/whole_volley_miss_damage=\"half\"" in keys
    assert "increments-wall/distance=\"euclidean\"" in keys
    assert "r:robotech-volleys/inescapable_counts=\"radius\"" in keys  # the judge's tables (issue 32) too
    assert "r:catastrophic-chain-default/chain_reactions=false" in keys
    assert "wwpd-battery-t/even_battery_centre=\"template\"" in keys


def test_plain_rounds_to_a_tenth_of_a_micrometre() -> None:
    assert plain({"b": (1.23456789, -0.00001), "a": {2, 1}}) == {"a": [1, 2], "b": [1.2346, 0.0]}


def test_first_difference_names_the_path() -> None:
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == "/a[1]/b: expected 2, got 3"


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_ruling_is_unchanged(key: str) -> None:
    got = json.loads(json.dumps(ruling(key), sort_keys=True, ensure_ascii=False))
    moved = first_difference(EXPECTED[key], got)
    assert moved is None, f"{key}: {moved} (if meant: python -m tests.golden_rulings --update, and review the diff)"
