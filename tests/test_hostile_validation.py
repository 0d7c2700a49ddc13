"""A hostile user against the loader and the command line: each attack that gave a wrong answer,
a wrong line or a traceback, kept as a test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabletop import cli, scenario_io

BARE = {"format": 1, "title": "t", "units": "in", "table": {"width": 24, "depth": 18},
        "model": [{"id": "a", "x": 5, "y": 5, "base": "25mm"}],
        "template": [{"id": "b", "shape": "small_blast", "at": [5, 5]}]}


def _problems(text: str, name: str = "t.json") -> list[str]:
    with pytest.raises(scenario_io.ScenarioError) as info:
        scenario_io.loads(text, name)
    return [str(p) for p in info.value.problems]


def test_a_json_key_given_twice_is_refused_where_it_is() -> None:
    """JSON parsers keep the last of two equal keys without a word: `"units": "in"` then `"units": "mm"`
    read the whole table in mm and `check` answered (exit 0). TOML refuses a repeated key; JSON now too."""
    text = json.dumps(BARE, indent=1).replace('"units": "in"', '"units": "in",\n "units": "mm"')
    assert _problems(text) == ["t.json:5: units: given twice in one object (first on line 4); JSON would keep only the last: give it once"]
    # A whole list given twice: said once, for the key (not again for each field under it).
    text = json.dumps(BARE, indent=1).replace('"model": [', '"model": [{"id": "z", "x": 1, "y": 1, "base": 1}],\n "model": [')
    assert _problems(text) == ["t.json:10: model: given twice in one object (first on line 9); JSON would keep only the last: give it once"]
    # An escaped spelling of the same key is the same key; keys of different objects are not repeats.
    text = json.dumps(BARE).replace('"title": "t"', '"title": "t", "\\u0074itle": "u"')
    assert len(_problems(text)) == 1 and "title: given twice" in _problems(text)[0]
    scenario_io.loads(json.dumps(BARE | {"model": [{"id": "a", "x": 5, "y": 5, "base": "25mm"}, {"id": "b", "x": 7, "y": 5, "base": "25mm"}]}), "t.json")


def test_check_refuses_a_json_table_with_a_repeated_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(BARE, indent=1).replace('"units": "in"', '"units": "in",\n "units": "mm"'), encoding="utf-8")
    assert cli.main(["check", str(path)]) == 2
    assert capsys.readouterr().err == f"{path}:5: units: given twice in one object (first on line 4); JSON would keep only the last: give it once\n"


BARE_TOML = 'format = 1\ntitle = "t"\n[table]\nwidth = 24\ndepth = 18\n'


def test_did_you_mean_is_blind_to_case() -> None:
    """`X = 5` for `x`: difflib finds nothing alike in "X" and "x", so the message said only 'is required'."""
    assert _problems(BARE_TOML + '[[model]]\nid = "a"\nX = 5\ny = 5\nbase = 1\n', "t.toml") == [
        "t.toml:6: model[0].x: is required (the unknown key 'X' looks like a misspelling of 'x')",
    ]
    text = BARE_TOML + '[[model]]\nid = "sgt"\nx = 5\ny = 5\nbase = 1\nengaged = ["SGT2"]\nSide = "red"\n[[model]]\nid = "sgt2"\nx = 9\ny = 5\nbase = 1\n'
    assert _problems(text, "t.toml") == [
        "t.toml:11: model[0].engaged: engaged model 'SGT2' is not a model on this table (did you mean 'sgt2'?)",
        "t.toml:12: warning: model[0].Side: unknown key 'Side' is kept but not used (did you mean 'side'?)",
    ]
