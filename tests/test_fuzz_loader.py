"""Fuzzing the scenario loader: any input is loaded or rejected with named problems — never a crash."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop import cli, scenario_io
from tabletop.adjudicate import AdjudicationError, adjudicate

from .conftest import SCENARIOS

VALID = tomllib.loads((SCENARIOS / "default.toml").read_text())
# No deadline: the profile (tests/conftest.py) has none; a deadline is a timing assertion.
FUZZ = settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

scalars = st.one_of(
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 0.0, -0.0, 1e308, -1e308, 1e-320, "", "25mm", "-3in", "abc", "1e999in", "nan", "inf", "∞", "\u0000", "🙂"]),
    st.text(max_size=12),
    st.booleans(),
)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)), max_leaves=12)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


PATHS = _paths(VALID)


def _mutate(data: dict[str, Any], path: tuple[Any, ...], action: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    parent: Any = data
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if action == "replace":
        parent[last] = value
    elif action == "delete":
        del parent[last]
    elif action == "duplicate" and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[last]))
    elif action == "nest":
        nested: Any = parent[last]
        for _ in range(60):
            nested = [nested]
        parent[last] = nested
    return data


def _assert_clean(path: Path) -> None:
    try:
        s = scenario_io.load(path)
    except scenario_io.ScenarioError as exc:
        assert exc.problems, "a rejection must say why"
        for p in exc.problems:
            assert p.file == str(path) and p.message
        return
    # Whatever loads must also adjudicate (or be refused with a readable error).
    try:
        adjudicate(s)
    except AdjudicationError as exc:
        assert str(exc).strip() and "Traceback" not in str(exc), "a refusal must say why"


@FUZZ
@given(st.sampled_from(PATHS), st.sampled_from(["replace", "replace", "replace", "delete", "duplicate", "nest"]), values)
def test_mutated_scenarios_load_or_fail_cleanly(tmp_path_factory: Any, path: tuple[Any, ...], action: str, value: Any) -> None:
    data = _mutate(VALID, path, action, value)
    folder = tmp_path_factory.mktemp("fuzz")
    as_json = folder / "s.json"
    as_json.write_text(json.dumps(data, allow_nan=True))
    _assert_clean(as_json)
    try:
        text = tomli_w.dumps(data)
    except (TypeError, ValueError):
        return  # not expressible in TOML (NaN keys, None, ...)
    as_toml = folder / "s.toml"
    as_toml.write_text(text)
    _assert_clean(as_toml)


@FUZZ
@given(st.binary(max_size=400))
def test_arbitrary_bytes_are_rejected_cleanly(tmp_path_factory: Any, blob: bytes) -> None:
    folder = tmp_path_factory.mktemp("bytes")
    for name in ("s.toml", "s.json"):
        path = folder / name
        path.write_bytes(blob)
        _assert_clean(path)


@FUZZ
@given(st.dictionaries(st.sampled_from(["format", "title", "ruleset", "units", "table", "model", "terrain", "template", "seed"]), values, max_size=8))
def test_random_top_levels_are_rejected_cleanly(tmp_path_factory: Any, data: dict[str, Any]) -> None:
    path = tmp_path_factory.mktemp("top") / "s.json"
    path.write_text(json.dumps(data, allow_nan=True))
    _assert_clean(path)


@pytest.mark.parametrize(("bad", "shown"), [("1e400", "inf"), ("inf", "inf"), ("-inf", "-inf"), ("nan", "nan")])
def test_huge_numbers_and_infinities(tmp_path: Path, capsys: Any, bad: str, shown: str) -> None:
    """TOML reads 1e400 as inf; JSON too: either way one line naming the file, its line (TOML) and the field."""
    path = tmp_path / "s.toml"
    path.write_text(f"format = 1\n[table]\nwidth = {bad}\ndepth = 48\n")
    assert cli.main(["check", str(path)]) == 2
    assert capsys.readouterr().err == f"{path}:3: table.width: length must be finite, got {shown}\n"
    if bad in ("1e400", "-inf"):
        js = tmp_path / "s.json"
        js.write_text(f'{{"format": 1, "table": {{"width": {"1e400" if bad == "1e400" else "-1e400"}, "depth": 48}}}}')
        assert cli.main(["check", str(js)]) == 2
        assert capsys.readouterr().err == f"{js}:1: table.width: length must be finite, got {shown}\n"
