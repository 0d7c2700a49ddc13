"""Validate at the boundary: every problem of a file at once, each naming file, field and the line
the parser saw (issue 33 "Command line", issue 37 items 10, 11 and 18)."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tabletop import cli, report, scenario_io
from tabletop.adjudicate import adjudicate
from tabletop.explain import explain_text
from tabletop.odds import compute_odds
from tabletop.scenario_io.limits import MAX_PROBLEMS, MAX_SEED
from tabletop.scenario_io.lines import json_lines, toml_lines

from .conftest import SCENARIOS

BARE = 'format = 1\n[table]\nwidth = 24\ndepth = 24\n'


def _problems(text: str, name: str = "t.toml") -> list[str]:
    with pytest.raises(scenario_io.ScenarioError) as err:
        scenario_io.loads(text, name)
    return [str(p) for p in err.value.problems]


# --------------------------------------------------------------------------- line numbers (37.10)


def test_a_line_separator_in_a_comment_moves_no_line() -> None:
    # U+2028 ends a line for str.splitlines, not for TOML: the bad base is on line 10.
    text = 'format = 1\n# a note\u2028with a line separator\n[table]\nwidth = 24\ndepth = 24\n[[model]]\nid = "a"\nx = 1\ny = 1\nbase = -1\n'
    assert text.split("\n")[9] == "base = -1"
    assert _problems(text) == ["t.toml:10: model[0].base: must be a positive length, got -1"]


def test_a_multiline_string_holding_a_header_is_skipped() -> None:
    text = 'format = 1\nnotes = """\n[[model]]\nbase = 7\n"""\n[table]\nwidth = 24\ndepth = 24\n[[model]]\nid = "a"\nx = 1\ny = 1\nbase = -1\n'
    assert text.split("\n")[12] == "base = -1"
    problems = _problems(text)
    assert "t.toml:13: model[0].base: must be a positive length, got -1" in problems
    literal = text.replace('"""', "'''")
    assert "t.toml:13: model[0].base: must be a positive length, got -1" in _problems(literal)


def test_windows_line_ends_and_other_breaks_count_as_toml_counts_them() -> None:
    text = 'format = 1\r\ntitle = "a\\u2029b"\r\n# \x85 \u2028 \u2029\r\n[table]\r\nwidth = 24\r\ndepth = -1\r\n'
    assert _problems(text) == ["t.toml:6: table.depth: must be a positive length, got -1"]


def test_the_line_map_follows_the_toml_grammar() -> None:
    text = "\n".join(
        [
            "format = 1",  # 1
            "a.b.c = 1  # a dotted key",  # 2
            "s = 'it''s' # not one string: tomllib reads two",  # 3 (never parsed: only mapped)
        ]
    )
    lines = toml_lines(text)
    assert lines[("a",)] == 2 and lines[("a", "b", "c")] == 2
    text = "\n".join(
        [
            "[[model]]",  # 1
            'id = "a"',  # 2
            "points = [  # comment [[model]]",  # 3
            "  [1, 2],",  # 4
            '  "]",',  # 5: a string holding a bracket
            "  [3, 4],",  # 6
            "]",  # 7
            "[model.base]",  # 8: a table of the last model
            "length = 1",  # 9
            "[[model]]",  # 10
            "base = { shape = 'rect', length = 2, width = 1 }",  # 11
            "[[model.arms]]",  # 12: an array of tables in model[1]
            "k = 1",  # 13
        ]
    )
    tomllib.loads(text)
    lines = toml_lines(text)
    assert lines[("model", 0, "points", 0)] == 4 and lines[("model", 0, "points", 2)] == 6
    assert lines[("model", 0, "base", "length")] == 9
    assert lines[("model", 1)] == 10 and lines[("model", 1, "base", "width")] == 11
    assert lines[("model", 1, "arms", 0, "k")] == 13


def test_json_files_get_line_numbers_too() -> None:
    text = '{\n  "format": 1,\n  "table": {"width": 24,\n    "depth": "x"},\n  "model": [\n    {"id": "a", "x": 1, "y": 1, "base": 1},\n    {"id": "b", "x": 1, "y": 1,\n     "base": -1}\n  ]\n}\n'
    assert json_lines(text)[("model", 1)] == 7
    assert _problems(text, "t.json") == [
        "t.json:4: table.depth: cannot read 'x' as a length (write e.g. 25mm, 1.5in, 3cm or 2\")",
        "t.json:8: model[1].base: must be a positive length, got -1",
    ]


# --------------------------------------------------------------------------- all problems at once (33)


def test_every_problem_of_a_file_is_named_at_once() -> None:
    text = (
        'format = 1\nruleset = "robotek"\n[table]\nwidth = 24\ndepth = 24\n'
        '[[model]]\nid = "a"\nx = 1\ny = 1\nbsae = 1\n'
        '[[template]]\nid = "t"\nshape = "smal_blast"\nat = [1, 1]\n'
        '[[template]]\nid = "u"\nshape = { kind = "circle", diameter = -2 }\nimpact = { attacker = "aa", target = "a" }\n'
    )
    assert _problems(text) == [
        't.toml:2: ruleset: unknown ruleset \'robotek\': did you mean "robotech"?',
        # line 10, the misspelt key's own line (its [[model]] header is line 6): the line a player edits
        "t.toml:10: model[0].base: is required (the unknown key 'bsae' looks like a misspelling of 'base')",
        "t.toml:13: template[0].shape: no template named 'smal_blast' in the catalogue (did you mean 'small_blast'?)",
        "t.toml:17: template[1].shape.diameter: must be positive, got -50.8 mm",
        "t.toml:18: template[1].impact.attacker: attacker 'aa' is not a model on this table (did you mean 'a'?)",
    ]


def test_an_unknown_key_gets_its_did_you_mean_even_when_the_file_is_bad() -> None:
    text = BARE + '[[model]]\nid = "a"\nx = 1\ny = -1e9\nbase = 1\nnmae = "Bob"\n'
    assert _problems(text) == [
        "t.toml:8: model[0].y: length -1000000000.0 is beyond what a table can hold (at most 100 m)",
        "t.toml:10: warning: model[0].nmae: unknown key 'nmae' is kept but not used (did you mean 'name'?)",
    ]


def test_the_problems_named_are_bounded(tmp_path: Path) -> None:
    text = BARE + "".join(f'[[model]]\nid = "m{i}"\nx = 1\ny = 1\nbase = -1\n' for i in range(200))
    problems = _problems(text)
    assert len(problems) == MAX_PROBLEMS
    assert problems[0] == "t.toml:9: model[0].base: must be a positive length, got -1"
    assert problems[-1] == f"t.toml: ... and {200 - MAX_PROBLEMS + 1:,} more problems (fix these and check again)"
    path = tmp_path / "many.toml"
    path.write_text(text, encoding="utf-8")
    assert cli.main(["check", str(path)]) == 2


# --------------------------------------------------------------------------- null in every field (37.11)


def _paths(node: Any, loc: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for k, v in items:
        out.append((*loc, k))
        out += _paths(v, (*loc, k))
    return out


def _with(data: dict[str, Any], loc: tuple[Any, ...], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    node: Any = data
    for part in loc[:-1]:
        node = node[part]
    if value is _DROP:
        del node[loc[-1]]
    else:
        node[loc[-1]] = value
    return data


_DROP = object()
BUNDLED = sorted(SCENARIOS.glob("*.toml"))


def _runs_clean(scenario: Any) -> None:
    """What check, explain and odds do with a table that loaded: no exception of any kind."""
    adj = adjudicate(scenario)
    report.report_text(adj)
    report.dumps(adj)
    explain_text(adj)
    explain_text(adj, markdown=True)
    compute_odds(scenario, samples=100, exact_limit=64)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_null_in_every_field_is_a_clean_load_or_a_located_error(path: Path) -> None:
    """JSON null in every field of the table (and, TOML having no null, the same None handed to the
    loader beside the TOML text, and the key left out of the TOML): each is a table that check,
    explain and odds resolve, or problems that each name the file, a field and a line."""
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    loaded = errors = 0
    for loc in _paths(data):
        trials: list[tuple[str, Any]] = [
            ("json", lambda: scenario_io.loads(json.dumps(_with(data, loc, None), indent=1), "t.json")),
            ("toml-null", lambda: scenario_io.scenario_from_data(_with(data, loc, None), "t.toml", text)[0]),
            ("toml-left-out", lambda: scenario_io.loads(scenario_io.toml_text(_with(data, loc, _DROP)), "t.toml")),
        ]
        for how, load in trials:
            try:
                scenario = load()
            except scenario_io.ScenarioError as exc:
                errors += 1
                for p in exc.problems:
                    assert p.file == "t.json" if how == "json" else p.file == "t.toml"
                    if "more problems" in p.message:
                        continue
                    assert p.path, (how, loc, str(p))
                    # Every problem has its line, but a top-level key left out, which has none.
                    assert p.line is not None or (how == "toml-left-out" and (p.path,) == loc), (how, loc, str(p))
                continue
            loaded += 1
            try:
                _runs_clean(scenario)
            except Exception as exc:  # noqa: BLE001 - the point: nothing may escape
                pytest.fail(f"{path.name} {how} {loc}: {type(exc).__name__}: {exc}")
    assert loaded and errors


@pytest.mark.parametrize("key", ["damage", "increment", "max_damage"])
def test_a_null_weapon_number_is_refused_where_it_is(key: str) -> None:
    data = tomllib.loads((SCENARIOS / "increments-circle.toml").read_text(encoding="utf-8"))
    data["template"][0]["weapon"][key] = None
    text = json.dumps(data, indent=2)
    line = next(n for n, ln in enumerate(text.split("\n"), 1) if f'"{key}": null' in ln)
    assert _problems(text, "t.json") == [f"t.json:{line}: template[0].weapon.{key}: must not be null (leave the key out instead)"]


# --------------------------------------------------------------------------- one seed range; settings once; rect bases (37.18)


@pytest.mark.parametrize("seed", ["-1", str(MAX_SEED + 1), "1.5", '"7"', "true"])
def test_a_seed_outside_the_one_range_is_refused_in_the_file_and_on_the_command_line(seed: str, tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "s.toml"
    path.write_text(f"format = 1\nseed = {seed}\n[table]\nwidth = 24\ndepth = 24\n", encoding="utf-8")
    assert cli.main(["check", str(path)]) == 2
    shown = {"true": "True", '"7"': "'7'"}.get(seed, seed)
    assert capsys.readouterr().err == f"{path}:2: seed: must be a whole number from 0 to 2**63-1 ({MAX_SEED:,}), got {shown}\n"
    if seed in ("-1", str(MAX_SEED + 1)):
        good = tmp_path / "g.toml"
        good.write_text(BARE, encoding="utf-8")
        assert cli.main(["check", str(good), "--seed", seed]) == 2
        assert "must be a whole number 0 <= N <= 2**63-1" in capsys.readouterr().err


def test_the_largest_seed_is_taken_by_both(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "s.toml"
    path.write_text(f"format = 1\nseed = {MAX_SEED}\n[table]\nwidth = 24\ndepth = 24\n", encoding="utf-8")
    assert cli.main(["check", str(path)]) == 0
    assert f"seed {MAX_SEED}," in capsys.readouterr().out
    assert cli.main(["check", str(path), "--seed", str(MAX_SEED), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == MAX_SEED


def test_an_infinity_setting_out_of_range_is_said_once(tmp_path: Path, capsys: Any) -> None:
    text = (SCENARIOS / "infinity-hellcat.toml").read_text(encoding="utf-8").replace("[table]", "[settings]\ndefault_silhouette = 9\n\n[table]", 1)
    path = tmp_path / "inf.toml"
    path.write_text(text, encoding="utf-8")
    assert cli.main(["check", str(path)]) == 2
    line = text.split("\n").index("default_silhouette = 9") + 1
    assert capsys.readouterr().err == f"{path}:{line}: settings.default_silhouette: must be a whole number 1 <= value <= 8, got 9\n"


@pytest.mark.parametrize("shape", ["rect", "oval"])
def test_a_rect_or_oval_base_needs_both_sides(shape: str) -> None:
    text = BARE + f'[[model]]\nid = "a"\nx = 1\ny = 1\nbase = {{ shape = "{shape}", length = 2 }}\n'
    assert _problems(text) == [f"t.toml:9: model[0].base: a {shape} base needs both length and width (a round base takes length alone)"]
    both = scenario_io.loads(text.replace("length = 2", "length = 2, width = 1"), "t.toml")
    assert (both.models[0].base.length, both.models[0].base.width) == (50.8, 25.4)


def test_a_misspelt_required_key_is_named_at_its_own_line_in_json() -> None:
    """The player edits the misspelt key, so its line is given, not the line that opens its object."""
    text = '{"format": 1, "table": {"width": 24, "depth": 24},\n "model": [{"id": "a", "x": 1, "y": 1,\n   "bsae": "25mm"}]}'
    assert _problems(text, "t.json") == [
        "t.json:3: model[0].base: is required (the unknown key 'bsae' looks like a misspelling of 'base')",
    ]
