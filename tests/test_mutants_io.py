"""Worked answers for the loader's fast path with a backdrop, the lazy schema names and the ruleset
registry's small helpers (written to kill mutmut's survivors in scenario_io and rulesets/__init__)."""

from __future__ import annotations

import copy
import os.path
import tomllib
from typing import Any

import pytest

from tabletop import rulesets, scenario_io
from tabletop.scenario_io import fast, schema
from tabletop.rulesets import wwpd

from .conftest import SCENARIOS

BACKDROP = {"image": "table.jpg", "corners": [[10, 2990], [3990, 2985.5], [3995, 5], [4, 12]]}


def _with_backdrop(**changes: Any) -> dict[str, Any]:
    data = tomllib.loads((SCENARIOS / "default.toml").read_text(encoding="utf-8"))
    backdrop = {**copy.deepcopy(BACKDROP), **changes}
    data["backdrop"] = {k: v for k, v in backdrop.items() if v is not None}
    return data


def test_a_backdrop_takes_the_fast_path_read_as_the_schema_reads_it() -> None:
    data = _with_backdrop()
    quick = fast.validate(copy.deepcopy(data), "in")
    assert quick is not None
    backdrop = quick.backdrop
    assert backdrop.image == "table.jpg"
    assert backdrop.corners == ((10.0, 2990.0), (3990.0, 2985.5), (3995.0, 5.0), (4.0, 12.0))
    assert all(type(c) is float for corner in backdrop.corners for c in corner)
    assert backdrop.model_extra == {}
    reference = schema.ScenarioIn.model_validate(copy.deepcopy(data), context={"units": "in"})
    assert reference.backdrop.image == backdrop.image and tuple(map(tuple, reference.backdrop.corners)) == backdrop.corners


def test_a_backdrop_keeps_its_unknown_keys_for_the_warning() -> None:
    quick = fast.validate(_with_backdrop(note="taken by Ann"), "in")
    assert quick is not None and quick.backdrop.model_extra == {"note": "taken by Ann"}


@pytest.mark.parametrize(
    "changes",
    [
        {"image": None},  # required
        {"corners": None},
        {"image": "   "},  # names no file
        {"image": 7},
        {"corners": [[0, 0], [1, 0], [1, 1]]},  # three corners
        {"corners": [[0, 0], [1, 0], [1, 1], [0]]},
        {"corners": [[0, 0], [1, 0], [1, 1], [0, float("nan")]]},
    ],
)
def test_a_bad_backdrop_is_never_accepted_by_the_fast_path(changes: dict[str, Any]) -> None:
    data = _with_backdrop(**changes)  # a None drops the key
    assert fast.validate(copy.deepcopy(data), "in") is None
    with pytest.raises(schema.ValidationError):
        schema.ScenarioIn.model_validate(data, context={"units": "in"})


def test_a_backdrop_file_loads_through_the_fast_path(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (SCENARIOS / "default.toml").read_text(encoding="utf-8")
    path = tmp_path / "with-photo.toml"
    path.write_text(text + '\n[backdrop]\nimage = "table.jpg"\ncorners = [[10, 2990], [3990, 2985], [3995, 5], [4, 12]]\n', encoding="utf-8")
    calls: list[Any] = []
    real = schema.ScenarioIn.model_validate
    monkeypatch.setattr(schema.ScenarioIn, "model_validate", lambda *a, **k: calls.append(a) or real(*a, **k))
    scenario = scenario_io.load(path)
    assert calls == []  # the schema was never asked
    assert scenario.backdrop is not None and scenario.backdrop.corners[1] == (3990.0, 2985.0)


def test_schema_names_are_served_lazily_from_the_package() -> None:
    assert scenario_io.ScenarioIn is schema.ScenarioIn
    assert scenario_io.BackdropIn is schema.BackdropIn
    with pytest.raises(AttributeError) as err:
        scenario_io.no_such_name  # noqa: B018
    assert str(err.value) == "module 'tabletop.scenario_io' has no attribute 'no_such_name'"


@pytest.mark.parametrize(
    ("written", "nearest"),
    [("infinty", "infinity"), ("  WWPD ", "wwpd"), ("robo", "robotech"), ("rob", None), ("zzzz", None), ("catastrophy", "catastrophic")],
)
def test_suggest_the_nearest_name_at_a_six_tenths_likeness(written: str, nearest: str | None) -> None:
    assert rulesets.suggest(written) == nearest


def test_load_follows_a_dotted_attribute_path() -> None:
    assert rulesets._load("tabletop.rulesets.wwpd:RULESET") is wwpd.RULESET
    assert rulesets._load("os.path:join") is os.path.join
    assert rulesets._load("os:path.join") is os.path.join
    assert rulesets._load("os.path") is os.path


def test_get_loads_a_built_in_once_and_checks_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rulesets, "_LOADED", {})
    first = rulesets.get("wwpd")
    assert first is wwpd.RULESET and rulesets._LOADED == {"wwpd": first}
    monkeypatch.setitem(rulesets.BUILT_IN, "alias", "tabletop.rulesets.wwpd:RULESET")
    with pytest.raises(rulesets.BadPlugin) as err:
        rulesets.get("alias")
    assert str(err.value) == "ruleset plug-in registered as 'alias' calls itself 'wwpd'"
    assert "alias" not in rulesets._LOADED
