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
        "t.toml:8: model[0].x: is required (the unknown key 'X' looks like a misspelling of 'x')",  # X's own line
    ]
    text = BARE_TOML + '[[model]]\nid = "sgt"\nx = 5\ny = 5\nbase = 1\nengaged = ["SGT2"]\nSide = "red"\n[[model]]\nid = "sgt2"\nx = 9\ny = 5\nbase = 1\n'
    assert _problems(text, "t.toml") == [
        "t.toml:11: model[0].engaged: engaged model 'SGT2' is not a model on this table (did you mean 'sgt2'?)",
        "t.toml:12: warning: model[0].Side: unknown key 'Side' is kept but not used (did you mean 'side'?)",
    ]


# --------------------------------------------------------------------------- a plug-in misbehaving in each hook

_TABLE = 'format = 1\nruleset = "rogue"\n[table]\nwidth = 24\ndepth = 24\n[[model]]\nid = "a"\nx = 12\ny = 12\nbase = 1\n[[template]]\nid = "t"\nshape = { kind = "circle", diameter = 3 }\nat = [12, 12]\n'
_ROGUE = """
from tabletop.plugin import Resolution, Ruleset, Step
def resolve(ctx):
    return Resolution(ctx.coverage, tuple(ctx.coverage.affected), steps=(Step("note", "one step"),))
{body}
RULESET = Ruleset(name="rogue", title="Rogue", resolve=resolve, {hooks})
"""
HOOKS = {
    "marks-garbage": ("def marks(adj):\n    return 42\n", "marks=marks"),
    "marks-raises": ("def marks(adj):\n    raise RuntimeError('marks boom')\n", "marks=marks"),
    "panel-garbage": ("def panel_lines(s, r):\n    return [('head',)]\n", "panel_lines=panel_lines"),
    "panel-raises": ("def panel_lines(s, r):\n    raise RuntimeError('panel boom')\n", "panel_lines=panel_lines"),
    "step-rule-garbage": ("def step_rule(step):\n    return 5\n", "step_rule=step_rule"),
    "settings-garbage": ("", "settings={'hits': 5}"),
}


def _rogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> Path:
    from importlib.metadata import EntryPoint

    from tabletop import rulesets

    body, hooks = HOOKS[kind]
    module = f"rogue_hook_{kind.replace('-', '_')}"
    (tmp_path / f"{module}.py").write_text(_ROGUE.format(body=body, hooks=hooks), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(rulesets, "_plugins", {"rogue": EntryPoint("rogue", f"{module}:RULESET", rulesets.GROUP)})
    monkeypatch.setattr(rulesets, "_LOADED", {})
    table = tmp_path / "rogue.toml"
    table.write_text(_TABLE, encoding="utf-8")
    return table


@pytest.mark.parametrize("kind", ["marks-garbage", "marks-raises"])
def test_a_plugins_broken_marks_are_left_out_and_said_in_the_legend(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Marks that return garbage crashed `render` and the app ('internal error: 'int' object has no
    attribute 'sublabels''); marks that raise stopped the app on every frame. The table is drawn without
    them and the legend says why."""
    from tabletop.adjudicate import adjudicate
    from tabletop.draw.scene import _ruleset_art

    table = _rogue(tmp_path, monkeypatch, kind)
    art = _ruleset_art(adjudicate(scenario_io.load(table)))
    assert art is not None
    [entry] = art.legend
    assert entry.text.startswith("rogue marks not drawn: ") and ("returned a int" in entry.text or "marks boom" in entry.text)
    assert cli.main(["render", str(table), "-o", str(tmp_path / "out.png")]) == 0
    assert cli.main(["render", str(table), "-o", str(tmp_path / "out.svg")]) == 0


@pytest.mark.parametrize("kind", ["marks-garbage", "marks-raises", "panel-garbage", "panel-raises"])
def test_a_plugins_broken_hooks_do_not_stop_the_app(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.app.commands import Select
    from tabletop.app.pilot import Pilot
    from tabletop.app.state import Ref

    table = _rogue(tmp_path, monkeypatch, kind)
    p = Pilot(table)
    try:
        p.app.dispatch(Select(Ref("template", "t")))
        p.step(20)
        p.app._refresh_results(force=True)
        if kind.startswith("panel"):
            assert "rogue" in (p.app._results_text or "")  # the panel names the plug-in at fault
    finally:
        p.close()


@pytest.mark.parametrize(("kind", "command", "said"), [
    ("step-rule-garbage", "explain", "returned from step_rule 5, not a (rule, quote) pair or None"),
    ("settings-garbage", "check", "has settings that are 'hits': 5 is not (default, explanation)"),
])
def test_a_plugins_garbage_is_its_fault(kind: str, command: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A step_rule returning 5, or settings that are not (default, explanation): named as the plug-in's
    fault (exit 1), not 'internal error: TypeError: cannot unpack non-iterable int object'."""
    table = _rogue(tmp_path, monkeypatch, kind)
    assert cli.main([command, str(table)]) == 1
    err = capsys.readouterr().err
    assert said in err and "internal error" not in err


def test_presenter_mode_with_a_broken_step_rule_is_a_message_not_a_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """F5 on a table whose plug-in's step_rule returns garbage stopped the app (PluginError out of the frame loop)."""
    import pygame

    from tabletop.app.pilot import Pilot

    table = _rogue(tmp_path, monkeypatch, "step-rule-garbage")
    p = Pilot(table)
    try:
        p.post(pygame.KEYDOWN, key=pygame.K_F5, mod=0, unicode="", scancode=0)
        p.step(5)
        assert p.app.presenter is None
        assert p.app.message_is_error and "step_rule" in p.app.message
    finally:
        p.close()


def test_a_plugins_details_json_cannot_hold_are_its_fault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`check --json` on a plug-in whose details hold an object: 'internal error: TypeError: Object of type
    object is not JSON serializable'; it is the plug-in's fault, named (exit 1)."""
    HOOKS["details-object"] = ("", "")
    try:
        table = _rogue(tmp_path, monkeypatch, "details-object")
    finally:
        del HOOKS["details-object"]
    module = next(tmp_path.glob("rogue_hook_details_object.py"))
    module.write_text(module.read_text(encoding="utf-8").replace("steps=(", "details={'x': object()}, steps=("), encoding="utf-8")
    assert cli.main(["check", "--json", str(table)]) == 1
    err = capsys.readouterr().err
    assert "ruleset plug-in 'rogue' put in its resolution what JSON cannot hold" in err and "internal error" not in err


@pytest.mark.parametrize(("key", "value"), [("dodge", [[]]), ("roll_with_impact", [{}]), ("shoot_down", [None]), ("target_structure", [])])
def test_a_robotech_weapon_list_of_non_ids_is_refused_not_a_crash(key: str, value: object) -> None:
    """`dodge = [[]]` (a type sweep over every field of the bundled tables): TypeError: unhashable type:
    'list' in the ruleset's checks, an internal error."""
    import tomllib

    from .conftest import SCENARIOS

    data = tomllib.loads((SCENARIOS / "robotech-hit.toml").read_text(encoding="utf-8"))
    data["template"][0]["weapon"][key] = value
    problems = _problems(json.dumps(data, indent=1))
    assert any(f"template[0].weapon.{key}" in p for p in problems), problems


def test_a_settings_table_per_ruleset_is_told_how_settings_are_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`[settings.infinity]` said only "unknown setting 'infinity' for ruleset infinity": the user wrote
    the right setting in the wrong place, and the message should say where it goes."""
    from .conftest import SCENARIOS

    path = tmp_path / "s.toml"
    text = (SCENARIOS / "infinity-hellcat.toml").read_text(encoding="utf-8") + '\n[settings.infinity]\nvertical_model = "cylinder"\n'
    path.write_text(text, encoding="utf-8")
    assert cli.main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "settings.infinity: unknown setting 'infinity'" in err
    assert "write vertical_model = … under [settings]), not a table per ruleset" in err


def test_the_line_map_skips_what_no_problem_can_name_and_keeps_the_lines_after_it() -> None:
    """A terrain outline of 800,000 points (refused as a whole: 'at most 10,000') took 15 s to map line
    by line before the message; items past the limit are skipped (brackets in strings and comments
    still read as text), and every line after them is still right."""
    from tabletop.scenario_io.lines import json_lines, toml_lines

    items = ", ".join(['"x]"', "[1, [2]]", '{b = "}"}', "'['"] * 50_000)
    text = f'a = [{items}, """\n]]\n"""]\n# ] }}\n[[model]]\nid = "m"\n'
    lines = toml_lines(text)
    assert lines[("model", 0, "id")] == 6 and lines[("model",)] == 5
    assert ("a", 10_000) in lines and ("a", 10_001) not in lines and len(lines) < 40_000
    data = {"pts": [[1, "]"], {"k": "}"}] * 20_000, "model": [{"id": "q"}]}
    text = json.dumps(data, indent=1)
    want = text.split("\n").index('   "id": "q"') + 1
    assert json_lines(text)[("model", 0, "id")] == want


def test_mapping_lines_past_a_long_multi_line_string_takes_no_memory_to_speak_of() -> None:
    """A 7 MB multi-line string made the line map take 700 MB (each character of the string a step of a
    backtracking regex); its strings are read possessively now. 1.4 MB of text here: 150 MB before."""
    import tracemalloc

    from tabletop.scenario_io.lines import json_lines, toml_lines

    text = 'notes = """' + ('a"b\\"c\n' * 200_000) + '"""\n[[model]]\nid = "a"\n'
    tracemalloc.start()
    try:
        assert toml_lines(text)[("model", 0, "id")] == 200_003
        assert json_lines(json.dumps({"notes": "a\\\"b" * 300_000, "id": 1}, indent=1))[("id",)] == 3
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 1024 * 1024, f"{peak / 1e6:.0f} MB"


@pytest.mark.timeout(60)
def test_a_length_of_ten_thousand_digits_is_refused_at_once_and_quoted_short() -> None:
    """`x = "111…1x"` (9,000 digits): 26 s to refuse one value, the whole string quoted back; a 600 kB file
    of 120 such values would have taken an hour. The length pattern backtracked over every digit."""
    from tabletop.units import LengthError, parse_length

    with pytest.raises(LengthError) as info:
        parse_length("1" * 10_000 + "x", "in")
    assert str(info.value) == "cannot read '111111111111111111111111'… (10,001 characters) as a length (write e.g. 25mm, 1.5in, 3cm or 2\")"
    text = BARE_TOML + "".join(f'[[model]]\nid = "m{i}"\nx = "{"1" * 5000}x"\ny = "{"2" * 5000}x"\nbase = "{"3" * 5000}x"\n' for i in range(40))
    assert len(_problems(text, "t.toml")) == 50
    # Every spelling the format documents still reads.
    for written, mm in [("25mm", 25.0), (" 25 mm ", 25.0), ("1.5in", 38.1), ('2"', 50.8), ("2″", 50.8), ("2inches", 50.8), ("2inch", 50.8),
                        ("3cm", 30.0), (".5in", 12.7), ("1.", 25.4), ("1e2mm", 100.0), ("-3in", -76.2), ("+4", 101.6), ("1E-1cm", 1.0)]:
        assert parse_length(written, "in") == pytest.approx(mm), written
