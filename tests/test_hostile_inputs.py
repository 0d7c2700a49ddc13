"""Hostile input from every entry point: each is refused with exit 2 and one line naming file and field.

Hundreds of cases run in-process through ``cli.main``; a few dozen run each command as a
subprocess under a time limit and a memory limit (a hang or a runaway allocation fails).
"""

from __future__ import annotations

import copy
import json
import os
import resource
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop import atomic, cli, scenario_io

from .conftest import ROOT, SCENARIOS

BIG = 10**400
BASE: dict[str, Any] = {
    "format": 1,
    "title": "Hostile",
    "ruleset": "none",
    "units": "in",
    "table": {"width": 48, "depth": 48, "grid": 1},
    "model": [
        {"id": "a", "x": 10, "y": 10, "base": 1, "facing": 90, "z": 0, "height": 1.5, "stats": {"PH": 11}},
        {"id": "b", "x": 20, "y": 10, "base": {"shape": "oval", "length": 2, "width": 1}},
    ],
    "terrain": [
        {"id": "house", "rect": {"x": 30, "y": 30, "length": 6, "width": 4, "rotation": 15}, "height": 3},
        {"id": "wall", "points": [[5, 40], [9, 40], [9, 41]], "height": 1},
    ],
    "template": [
        {"id": "t1", "shape": {"kind": "circle", "diameter": 3}, "at": [12, 12], "heading": 10},
        {"id": "t2", "shape": {"kind": "teardrop", "length": 8, "tip_width": 0.5, "end_width": 2.5}, "direct": {"attacker": "a", "heading": 30}},
        {"id": "t3", "shape": {"kind": "cone", "length": 6, "angle": 60}, "impact": {"attacker": "a", "target": "b"}, "battery": 2},
        {"id": "t4", "shape": {"kind": "rect", "length": 6, "width": 1}, "impact": {"attacker": "a", "at": [25, 25]}},
    ],
}

#: Every numeric field of BASE, and whether a negative value is wrong there too.
NUMERIC: list[tuple[tuple[Any, ...], bool]] = [
    (("table", "width"), True), (("table", "depth"), True), (("table", "grid"), True),
    (("model", 0, "x"), False), (("model", 0, "y"), False), (("model", 0, "base"), True), (("model", 0, "facing"), False),
    (("model", 0, "z"), False), (("model", 0, "height"), True), (("model", 0, "stats", "PH"), False),
    (("model", 1, "base", "length"), True), (("model", 1, "base", "width"), True),
    (("terrain", 0, "rect", "x"), False), (("terrain", 0, "rect", "y"), False), (("terrain", 0, "rect", "length"), True),
    (("terrain", 0, "rect", "width"), True), (("terrain", 0, "rect", "rotation"), False), (("terrain", 0, "height"), True),
    (("terrain", 1, "points", 0, 0), False), (("terrain", 1, "points", 2, 1), False),
    (("template", 0, "shape", "diameter"), True), (("template", 0, "at", 0), False), (("template", 0, "heading"), False),
    (("template", 1, "shape", "length"), True), (("template", 1, "shape", "end_width"), True), (("template", 1, "direct", "heading"), False),
    (("template", 2, "shape", "length"), True), (("template", 2, "shape", "angle"), True), (("template", 2, "battery"), True),
    (("template", 3, "shape", "width"), True), (("template", 3, "impact", "at", 1), False),
]
#: Values no numeric field may hold (as JSON: integers of any size survive the file).
HOSTILE_NUMBERS: list[Any] = [BIG, -BIG, 1e308, -1e308, 2**62, "nan", "abc", True, [1], {"a": 1}, None]


def _set(data: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    node: Any = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


def _field(path: tuple[Any, ...]) -> str:
    return scenario_io.format_path(path)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _assert_refused(code: int, err: str, file: str, *needles: str) -> None:
    assert code == 2, err
    assert err.strip(), "a refusal must say why"
    assert "Traceback" not in err and "internal error" not in err, err
    assert file in err, err
    for needle in needles:
        assert needle in err, (needle, err)
    assert not any(ord(c) < 32 and c != "\n" for c in err)


def test_base_document_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(BASE))
    code, out, err = _run(["check", str(path)], capsys)
    assert code == 0, err


NUMERIC_CASES = [
    pytest.param(path, value, id=f"{_field(path)}={str(value)[:12]}")
    for path, _ in NUMERIC
    for value in HOSTILE_NUMBERS
] + [pytest.param(path, -1, id=f"{_field(path)}=-1") for path, negative_bad in NUMERIC if negative_bad]


@pytest.mark.parametrize(("path", "value"), NUMERIC_CASES)
def test_every_numeric_field_refuses_hostile_values(tmp_path: Path, capsys: pytest.CaptureFixture[str], path: tuple[Any, ...], value: Any) -> None:
    if path == ("model", 0, "z") and value is None:
        pytest.skip("z = null means 'on the table'")
    if path[-1] in ("height", "width") and value is None:
        pytest.skip("height = null means 'not given'")
    if path == ("table", "grid") and value is None:
        pytest.skip("grid = null means 'no grid'")
    file = tmp_path / "s.json"
    file.write_text(json.dumps(_set(BASE, path, value)))
    code, out, err = _run(["check", str(file)], capsys)
    # The field itself, or (for a value of the wrong kind in a table) its parent, is named.
    _assert_refused(code, err, str(file), _field(path[:-1]) if isinstance(path[-1], int) else _field(path))
    assert out == ""


@pytest.mark.parametrize("value", [BIG, 1e308, 2**62, -1, "abc"])
@pytest.mark.parametrize("path", [("table", "width"), ("model", 0, "x"), ("template", 0, "shape", "diameter"), ("model", 0, "stats", "PH")], ids=_field)
def test_toml_files_refuse_hostile_numbers_with_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], path: tuple[Any, ...], value: Any) -> None:
    if value == -1 and path[-1] in ("x", "PH"):
        pytest.skip("negative coordinates and stats are fine")
    file = tmp_path / "s.toml"
    file.write_text(tomli_w.dumps(_set(BASE, path, value)))
    code, _, err = _run(["check", str(file)], capsys)
    _assert_refused(code, err, f"{file}:", _field(path))


LIMITS: list[tuple[str, tuple[Any, ...], Any, str]] = [
    ("grid 0.001 mm", ("table", "grid"), "0.001mm", "table.grid"),
    ("grid too fine for the table", ("table", "grid"), "1mm", "squares"),
    ("table 1 km", ("table", "width"), "1000000mm", "table.width"),
    ("base 1e-300", ("model", 0, "base"), 1e-300, "model[0].base"),
    ("angle 1e300", ("model", 0, "facing"), 1e300, "model[0].facing"),
    ("battery 51", ("template", 2, "battery"), 51, "template[2].battery"),
    ("battery 2.0", ("template", 2, "battery"), 2.0, "template[2].battery"),
    ("stat 1e7", ("model", 0, "stats", "PH"), 1e7, "model[0].stats"),
    ("id with newline", ("model", 0, "id"), "abc\n", "model[0].id"),
    ("id 300 chars", ("model", 0, "id"), "a" * 300, "model[0].id"),
    ("name 4 MB", ("model", 0, "name"), "n" * 4_000_000, "model[0].name"),
    ("name with escape", ("model", 0, "name"), "\x1b]0;owned\x07", "model[0].name"),
    ("title 600 chars", ("title",), "t" * 600, "title"),
    ("title with NUL", ("title",), "a\x00b", "title"),
    ("side with newline", ("model", 0, "side"), "red\nblue", "model[0].side"),
    ("tag with tab", ("model", 0, "tags"), ["a\tb"], "model[0].tags"),
    ("format true", ("format",), True, "format"),
    ("format 1.0 text", ("format",), "1", "format"),
    ("blocks_los yes", ("terrain", 0, "blocks_los"), "yes", "terrain[0].blocks_los"),
    ("blocks_los 1", ("terrain", 0, "blocks_los"), 1, "terrain[0].blocks_los"),
    ("kind list", ("template", 0, "shape", "kind"), ["circle"], "template[0].shape.kind"),
    ("kind dict", ("template", 0, "shape", "kind"), {"a": 1}, "template[0].shape.kind"),
    ("cone angle 1e308", ("template", 2, "shape", "angle"), 1e308, "template[2].shape"),
    ("lone surrogate title", ("title",), "\ud800", "title"),
    ("lone surrogate name", ("model", 0, "name"), "x\udfff", "model[0].name"),
    ("surrogate key", ("model", 0, "\ud800"), 1, "model[0]"),
    ("weapon 900 deep", ("template", 0, "weapon"), None, "template[0]"),
    ("weapon volley 10^6", ("template", 0, "weapon"), {"volley": 10**6}, "template[0].weapon"),
    ("weapon damage 2^62", ("template", 0, "weapon"), {"damage": 2**62}, "template[0].weapon"),
    ("weapon damage 1e308", ("template", 0, "weapon"), {"damage": 1e308}, "template[0].weapon"),
    ("rolls 10^9", ("template", 0, "rolls"), {"scatter": 10**9}, "template[0].rolls"),
    ("unknown key 10**400", ("model", 0, "note"), BIG, "model[0].note"),
    ("unknown key 20k text", ("note",), "x" * 20_000, "note"),
    ("seed 2**70", ("seed",), 2**70, "seed"),
    ("20k models", ("model",), None, "model"),
    ("101 templates", ("template",), [{"id": f"t{i}", "shape": "small_blast", "at": [5, 5]} for i in range(101)], "template"),
]


def _limit_value(name: str, value: Any) -> Any:
    if name == "weapon 900 deep":
        deep: Any = 1
        for _ in range(900):
            deep = {"w": deep}
        return deep
    if name == "20k models":
        return [{"id": f"m{i}", "x": 1, "y": 1, "base": 1} for i in range(20_001)]
    return value


@pytest.mark.parametrize(("name", "path", "value", "needle"), LIMITS, ids=[c[0] for c in LIMITS])
def test_limits_a_table_cannot_hold(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, path: tuple[Any, ...], value: Any, needle: str) -> None:
    data = _set(BASE, path, _limit_value(name, value))
    if name == "grid too fine for the table":
        data["table"].update(width="100000mm", depth="100000mm")
    file = tmp_path / "s.json"
    file.write_text(json.dumps(data))
    code, out, err = _run(["check", str(file)], capsys)
    _assert_refused(code, err, str(file), needle)
    assert len(err) < 2000, "messages quote long values elided"


def test_star_building_with_100k_vertices_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import math

    points = [[30 + (10 if k % 2 else 4) * math.cos(k * 2 * math.pi / 100_000), 24 + (10 if k % 2 else 4) * math.sin(k * 2 * math.pi / 100_000)] for k in range(100_000)]
    file = tmp_path / "star.json"
    file.write_text(json.dumps(_set(BASE, ("terrain", 1, "points"), points)))
    code, _, err = _run(["check", str(file)], capsys)
    _assert_refused(code, err, str(file), "terrain[1].points", "10,000")


# --------------------------------------------------------------------------- settings


WWPD = SCENARIOS / "wwpd-battery-t.toml"
SET_CASES: list[tuple[str, str, str]] = [
    (str(WWPD), "battery_overlap=abc", "battery_overlap"),
    (str(WWPD), "battery_overlap=[1]", "battery_overlap"),
    (str(WWPD), "battery_overlap=1e400", "battery_overlap"),
    (str(WWPD), "battery_overlap=nan", "battery_overlap"),
    (str(WWPD), "battery_overlap=1", "0 <= value < 1"),
    (str(WWPD), "battery_overlap=-0.5", "battery_overlap"),
    (str(WWPD), "battery_overlap=" + "[" * 5000 + "]" * 5000, "battery_overlap"),
    (str(WWPD), "battery_overlap=" + "9" * 5000, "battery_overlap"),
    (str(WWPD), "noequals", "NAME=VALUE"),
    (str(WWPD), "=0.5", "NAME=VALUE"),
    (str(WWPD), "battery_overlp=0.5", "did you mean 'battery_overlap'"),
    (str(WWPD), "dodge_rule=strict", "settings: allow_point_aim, battery_overlap, check_line_of_sight, even_battery_centre, range_measure"),
    (str(WWPD), "even_battery_centre=middle", "one of between, template"),
    (str(WWPD), "even_battery_centre=", "even_battery_centre"),
    (str(WWPD), "even_battery_centre=betwen", "did you mean 'between'"),
    (str(WWPD), "allow_point_aim=yes", "true or false"),
    (str(WWPD), "allow_point_aim=1", "true or false"),
    (str(SCENARIOS / "robotech-hit.toml"), "roll_with_impact_needs=1e400", "roll_with_impact_needs"),
    (str(SCENARIOS / "robotech-hit.toml"), "roll_with_impact_needs=7", "0 <= value <= 6"),
    (str(SCENARIOS / "robotech-hit.toml"), "roll_with_impact_needs=2.5", "whole number"),
    (str(SCENARIOS / "robotech-hit.toml"), "whole_volley_miss_damage=double", "one of half, full"),
    (str(SCENARIOS / "infinity-hellcat.toml"), "vertical_model=sphere", "one of x, cylinder"),
    (str(SCENARIOS / "infinity-hellcat.toml"), "default_silhouette=9", "1 <= value <= 8"),
    (str(SCENARIOS / "increments-circle.toml"), "distance=manhattan", "chebyshev"),
    (str(SCENARIOS / "catastrophic-chain.toml"), "chain_trigger=always", "critical, destroyed"),
    (str(SCENARIOS / "default.toml"), "anything=1", "ruleset none has no settings"),
]


@pytest.mark.parametrize("command", ["check", "odds"])
@pytest.mark.parametrize(("file", "pair", "needle"), SET_CASES, ids=[c[1][:30] for c in SET_CASES])
def test_set_is_strict(capsys: pytest.CaptureFixture[str], command: str, file: str, pair: str, needle: str) -> None:
    code, out, err = _run([command, file, "--set", pair], capsys)
    assert code == 2, err
    assert needle in err and "Traceback" not in err and len(err.splitlines()) == 1, err
    assert out == ""


@pytest.mark.parametrize(
    ("file", "pair", "key", "value"),
    [
        (WWPD, "battery_overlap=0.5", "battery_overlap", 0.5),
        (WWPD, "battery_overlap=0", "battery_overlap", 0.0),
        (WWPD, "even_battery_centre=template", "even_battery_centre", "template"),
        (WWPD, 'even_battery_centre="template"', "even_battery_centre", "template"),
        (WWPD, "allow_point_aim=true", "allow_point_aim", True),
        (SCENARIOS / "robotech-hit.toml", "roll_with_impact_needs=4", "roll_with_impact_needs", 4),
    ],
)
def test_set_accepts_what_the_ruleset_declares(capsys: pytest.CaptureFixture[str], file: Path, pair: str, key: str, value: Any) -> None:
    from tabletop.cli import _parse_settings
    from tabletop.scenario_io import load

    assert _parse_settings([pair], load(file)) == {key: value}
    assert cli.main(["check", str(file), "--set", pair]) == 0
    capsys.readouterr()


def test_help_shows_only_real_settings(capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop import rulesets
    from tabletop.model import RULESET_NAMES

    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "dodge_rule" not in out
    for name in RULESET_NAMES:
        for setting in rulesets.get(name).settings:
            assert f"{name}: {setting} = " in out


def test_settings_in_a_file_name_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "s.toml"
    file.write_text(WWPD.read_text() + '\n[settings]\nbattery_overlap = 0.2\neven_battery_centre = "middle"\n')
    lines = file.read_text().splitlines()
    code, _, err = _run(["check", str(file)], capsys)
    line = lines.index('even_battery_centre = "middle"') + 1
    _assert_refused(code, err, f"{file}:{line}: settings.even_battery_centre:", "one of between, template")


# --------------------------------------------------------------------------- catalogues


CATALOGUE_CASES: list[tuple[str, str]] = [
    ('units = "furlong"\n[templates.x]\nkind = "circle"\ndiameter = 3\n', "units"),
    ('units = ["in"]\n[templates.x]\nkind = "circle"\ndiameter = 3\n', "units"),
    ('[templates.x]\nkind = ["circle"]\ndiameter = 3\n', "templates.x.kind"),
    ('[templates.x]\nkind = "circle"\ndiameter = 1e308\n', "templates.x.diameter"),
    (f'[templates.x]\nkind = "circle"\ndiameter = {BIG}\n', "templates.x.diameter"),
    ('[templates.x]\nkind = "circle"\nradius = 1e306\n', "templates.x.radius"),
    ('[templates.x]\nkind = "rect"\nlength = 1e308\nwidth = 1e308\n', "templates.x.length"),
    ('[templates.x]\nkind = "cone"\nlength = 6\nangle = 1e400\n', "templates.x.angle"),
    ('[templates.x]\nkind = "cone"\nlength = 6\nangle = true\n', "templates.x.angle"),
    ('[templates.x]\nkind = "circle"\ndiameter = 3\napproximate = "yes"\n', "templates.x.approximate"),
    ('[templates.x]\nkind = "circle"\ndiameter = 3\nlabel = "\\u001b[31m"\n', "templates.x.label"),
    ('[templates.x]\nkind = "circle"\ndiameter = "0.000001mm"\n', "templates.x.diameter"),
    ("[templates.a.b.c.d.e.f.g]\nx = 1\n", "nested too deeply"),
    ("templates = 3\n", "templates"),
    ("[templates]\nx = 3\n", "templates.x"),
    ("not toml at all [", "TOML syntax"),
]


@pytest.mark.parametrize(("text", "needle"), CATALOGUE_CASES, ids=[c[1] + str(i) for i, c in enumerate(CATALOGUE_CASES)])
def test_catalogue_files_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, needle: str) -> None:
    cat = tmp_path / "cat.toml"
    cat.write_text(text)
    code, _, err = _run(["check", str(SCENARIOS / "default.toml"), "--catalogue", str(cat)], capsys)
    _assert_refused(code, err, str(cat), needle)


def test_missing_catalogue_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["check", str(SCENARIOS / "default.toml"), "--catalogue", str(tmp_path / "nope.toml")], capsys)
    _assert_refused(code, err, "nope.toml", "no such file")


# --------------------------------------------------------------------------- special files


def _specials(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.toml"
    zero.symlink_to("/dev/zero")
    rnd = tmp_path / "random.json"
    rnd.symlink_to("/dev/urandom")
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    return {"fifo": fifo, "zero": zero, "urandom": rnd, "folder": folder, "dev-zero": Path("/dev/zero")}


@pytest.mark.parametrize("kind", ["fifo", "zero", "urandom", "folder", "dev-zero"])
@pytest.mark.parametrize("role", ["scenario", "catalogue"])
def test_special_files_are_refused_before_reading(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, role: str) -> None:
    special = _specials(tmp_path)[kind]
    argv = ["check", str(special)] if role == "scenario" else ["check", str(SCENARIOS / "default.toml"), "--catalogue", str(special)]
    code, _, err = _run(argv, capsys)
    _assert_refused(code, err, str(special), "folder" if kind == "folder" else "not a regular file")


def test_read_regular_caps_size(tmp_path: Path) -> None:
    f = tmp_path / "big"
    f.write_bytes(b"x" * 2048)
    assert atomic.read_regular(f, 4096) == b"x" * 2048
    with pytest.raises(atomic.InputError, match="limit"):
        atomic.read_regular(f, 1024)


# --------------------------------------------------------------------------- outputs


@pytest.mark.parametrize("where", ["missing-folder", "folder", "empty", "dev-full", "unwritable", "trailing-slash"])
def test_render_refuses_outputs_it_cannot_write(tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    out = {
        "missing-folder": str(tmp_path / "nope" / "x.png"),
        "folder": str(tmp_path),
        "empty": "",
        "dev-full": "/dev/full",
        "unwritable": str(locked / "x.png"),
        "trailing-slash": str(tmp_path / "x.png") + "/",
    }[where]
    if where == "unwritable" and os.access(locked, os.W_OK):
        pytest.skip("running as root: permissions do not bind")
    code, stdout, err = _run(["render", str(SCENARIOS / "default.toml"), "-o", out, "--size", "200x150"], capsys)
    assert code == 2, err
    assert (out or "empty") in err and "Traceback" not in err and len(err.splitlines()) == 1, err
    assert stdout == ""


def test_render_on_a_full_disk_keeps_the_old_png(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    png = tmp_path / "table.png"
    assert cli.main(["render", str(SCENARIOS / "default.toml"), "-o", str(png), "--size", "200x150"]) == 0
    before = png.read_bytes()
    real_fsync = os.fsync

    def full(fd: int) -> None:
        if os.fstat(fd).st_size > 0 and not os.path.isdir(f"/proc/self/fd/{fd}"):
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(atomic.os, "fsync", full)
    capsys.readouterr()
    code, _, err = _run(["render", str(SCENARIOS / "wwpd-battery-t.toml"), "-o", str(png), "--size", "300x200"], capsys)
    assert code == 2 and "No space left" in err and str(png) in err, err
    assert png.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.png"]  # no temp file left


def test_render_through_a_symlink_writes_the_target_and_keeps_the_link(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = tmp_path / "real.png"
    real.write_bytes(b"old")
    link = tmp_path / "link.png"
    link.symlink_to(real.name)
    code, out, _ = _run(["render", str(SCENARIOS / "default.toml"), "-o", str(link), "--size", "200x150"], capsys)
    assert code == 0
    assert link.is_symlink() and os.readlink(link) == "real.png"
    assert real.read_bytes().startswith(b"\x89PNG")
    assert "pygame" not in out.lower() and out.strip() == f"wrote {link}"


def test_save_through_a_symlink_writes_the_target(tmp_path: Path) -> None:
    s = scenario_io.load(SCENARIOS / "default.toml")
    real = tmp_path / "real.toml"
    real.write_text("old")
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    scenario_io.save(s, link)
    assert link.is_symlink() and scenario_io.load(real) == s


def test_atomic_write_keeps_mode_and_reports_the_path(tmp_path: Path) -> None:
    f = tmp_path / "a.toml"
    f.write_text("x")
    f.chmod(0o640)
    atomic.atomic_write(f, b"y")
    assert f.read_bytes() == b"y" and (f.stat().st_mode & 0o777) == 0o640
    with pytest.raises(atomic.OutputError, match="does not exist"):
        atomic.atomic_write(tmp_path / "no" / "a.toml", b"y")


def test_odds_samples_are_capped(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["odds", str(SCENARIOS / "robotech-volley.toml"), "--free-rolls", "--samples", "10000000"], capsys)
    assert code == 2 and "1,000,000" in err


def test_odds_memory_is_flat_in_the_sample_count() -> None:
    """The tally keeps no per-sample record: chunks are tallied and the roll tree is dropped when it grows."""
    from tabletop import odds

    s = scenario_io.load(SCENARIOS / "robotech-volley.toml")
    t = s.templates[0]
    small = odds.template_odds(s, t, samples=300, keep_fixed_rolls=False, exact_limit=0)
    assert small.samples == 300
    old = (odds.SAMPLE_CHUNK, odds.TREE_LEAVES_MAX)
    try:
        odds.SAMPLE_CHUNK, odds.TREE_LEAVES_MAX = 64, 100
        chunked = odds.template_odds(s, t, samples=600, keep_fixed_rolls=False, exact_limit=0)
    finally:
        odds.SAMPLE_CHUNK, odds.TREE_LEAVES_MAX = old
    assert chunked.samples == 600
    for model_id, m in chunked.models.items():
        lo, hi = m.ci95 or (0.0, 1.0)
        assert -1e-12 <= lo <= m.p_affected + 1e-12 and m.p_affected <= hi + 1e-12 <= 1.0 + 2e-12, model_id


# --------------------------------------------------------------------------- properties


@settings(derandomize=True, deadline=None, max_examples=120, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.text(max_size=40))
def test_any_set_value_loads_or_exits_2(capsys: pytest.CaptureFixture[str], value: str) -> None:
    for pair in (f"battery_overlap={value}", f"even_battery_centre={value}", f"allow_point_aim={value}", value):
        code = cli.main(["check", str(WWPD), "--set", pair])
        err = capsys.readouterr().err
        assert code in (0, 2), err
        if code == 2:
            assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


catalogue_values = st.recursive(
    st.one_of(st.integers(-(10**30), 10**30), st.floats(), st.booleans(), st.text(max_size=8), st.sampled_from(["circle", "cone", "rect", "teardrop", "25mm", "1e999in"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=8,
)
shape_tables = st.fixed_dictionaries(
    {"kind": st.one_of(st.sampled_from(["circle", "cone", "rect", "teardrop"]), catalogue_values)},
    optional={k: catalogue_values for k in ("diameter", "radius", "length", "width", "tip_width", "end_width", "angle", "label", "approximate", "note")},
)


@settings(derandomize=True, deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["units", "templates", "other"]), st.one_of(catalogue_values, st.dictionaries(st.text(min_size=1, max_size=6), shape_tables, max_size=3)), max_size=3))
def test_any_catalogue_loads_or_exits_2(tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str], data: dict[str, Any]) -> None:
    try:
        text = tomli_w.dumps(data)
    except (TypeError, ValueError):
        return
    cat = tmp_path_factory.mktemp("cat") / "cat.toml"
    cat.write_text(text)
    code = cli.main(["check", str(SCENARIOS / "default.toml"), "--catalogue", str(cat)])
    err = capsys.readouterr().err
    assert code in (0, 2), err
    assert "Traceback" not in err and "internal error" not in err
    if code == 2:
        assert str(cat) in err


scalars = st.one_of(
    st.integers(), st.floats(), st.booleans(), st.none(),
    st.sampled_from([BIG, -BIG, 2**62, 1e308, "25mm", "1e999in", "nan", "\ud800", "a\nb", "\x1b[2J", "", "🙂"]),
    st.text(max_size=10),
)
hostile = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)), max_leaves=10)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


BASE_PATHS = _paths(BASE)


@settings(derandomize=True, deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(BASE_PATHS), hostile), min_size=1, max_size=3), st.sampled_from(["check", "odds"]))
def test_any_scenario_document_loads_or_exits_2(tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str], edits: list[tuple[tuple[Any, ...], Any]], command: str) -> None:
    data = copy.deepcopy(BASE)
    for path, value in edits:
        try:
            data = _set(data, path, value)
        except (KeyError, IndexError, TypeError):
            continue
    file = tmp_path_factory.mktemp("doc") / "s.json"
    try:
        file.write_text(json.dumps(data), encoding="utf-8", errors="surrogatepass")
    except (ValueError, TypeError):
        return
    argv = [command, str(file)] + (["--samples", "200"] if command == "odds" else [])
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code in (0, 2), err
    assert "Traceback" not in err and "internal error" not in err, err
    if code == 2:
        assert all(str(file) in line or line.startswith("tabletop: ") for line in err.strip().splitlines()), err


# --------------------------------------------------------------------------- subprocesses under limits


TIME_LIMIT_S = 20
MEMORY_LIMIT = 2 * 1024**3


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _write_hostile(folder: Path) -> dict[str, tuple[Path, str]]:
    """name -> (file, field the message must name)."""
    out: dict[str, tuple[Path, str]] = {}
    bad = ROOT / "tests" / "bad_scenarios"
    for name, field in [
        ("increments-grid-tiny.toml", "table.grid"),
        ("increments-damage-2-62.toml", "template[0].weapon"),
        ("increments-blast-too-wide.toml", "template[0].weapon.increment"),
        ("robotech-volley-million.toml", "template[0].weapon"),
        ("template-circle-1e308.toml", "template[0].shape.diameter"),
        ("template-rect-1e308.toml", "template[0].shape.length"),
        ("terrain-length-1e306.toml", "terrain[0].rect.length"),
        ("model-damage-tracks-1e308.toml", "model[0].stats"),
        ("table-width-bigint.toml", "table.width"),
        ("template-shape-kind-list.toml", "template[0].shape.kind"),
        ("json-lone-surrogate.json", "title"),
        ("model-name-escape.toml", "model[0].name"),
    ]:
        out[name] = (bad / name, field)
    import math

    star = [[30 + (10 if k % 2 else 4) * math.cos(k * 2 * math.pi / 100_000), 24 + (10 if k % 2 else 4) * math.sin(k * 2 * math.pi / 100_000)] for k in range(100_000)]
    data = _set(BASE, ("terrain", 1, "points"), star)
    data["template"][0]["shape"] = {"kind": "circle", "diameter": "100000mm"}
    (folder / "star.json").write_text(json.dumps(data))
    out["star-100k"] = (folder / "star.json", "terrain[1].points")
    (folder / "name4mb.json").write_text(json.dumps(_set(BASE, ("model", 0, "name"), "n" * 4_000_000)))
    out["name-4mb"] = (folder / "name4mb.json", "model[0].name")
    (folder / "base1e300.json").write_text(json.dumps(_set(BASE, ("model", 0, "base"), 1e300)))
    out["base-1e300"] = (folder / "base1e300.json", "model[0].base")
    return out


def _tabletop(argv: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYGAME_HIDE_SUPPORT_PROMPT", None)  # the command itself must hide the banner
    return subprocess.run(
        [sys.executable, "-m", "tabletop.cli", *argv], capture_output=True, text=True, timeout=TIME_LIMIT_S,
        preexec_fn=_limited, env=env, cwd=ROOT,
    )


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    return _write_hostile(tmp_path_factory.mktemp("hostile"))


SUBPROCESS_FILES = [
    "increments-grid-tiny.toml", "increments-damage-2-62.toml", "increments-blast-too-wide.toml", "robotech-volley-million.toml",
    "template-circle-1e308.toml", "template-rect-1e308.toml", "terrain-length-1e306.toml", "model-damage-tracks-1e308.toml",
    "table-width-bigint.toml", "template-shape-kind-list.toml", "json-lone-surrogate.json", "model-name-escape.toml",
    "star-100k", "name-4mb", "base-1e300",
]


#: check covers the loader; render and odds run on the files that used to hang or blow up.
RUNAWAY = ["increments-grid-tiny.toml", "robotech-volley-million.toml", "increments-damage-2-62.toml", "star-100k", "template-circle-1e308.toml", "name-4mb", "base-1e300"]
SUBPROCESS_RUNS = [("check", n) for n in SUBPROCESS_FILES] + [(c, n) for c in ("render", "odds") for n in RUNAWAY]


@pytest.mark.parametrize(("command", "name"), SUBPROCESS_RUNS)
def test_commands_refuse_hostile_files_within_limits(tmp_path: Path, hostile_files: dict[str, tuple[Path, str]], name: str, command: str) -> None:
    file, field = hostile_files[name]
    extra = {"render": ["-o", str(tmp_path / "out.png"), "--size", "200x150"], "odds": ["--free-rolls", "--samples", "1000"]}.get(command, [])
    done = _tabletop([command, str(file), *extra])
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    assert str(file) in lines[0] and field in lines[0], lines[0]
    assert done.stdout == ""
    assert not (tmp_path / "out.png").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "{fifo}"],
        ["check", "{zero}"],
        ["odds", "{fifo}"],
        ["render", "{zero}", "-o", "{tmp}/o.png"],
        ["check", str(SCENARIOS / "default.toml"), "--catalogue", "{fifo}"],
        ["check", str(SCENARIOS / "default.toml"), "--catalogue", "{zero}"],
        ["render", str(SCENARIOS / "default.toml"), "-o", "/dev/full"],
        ["render", str(SCENARIOS / "default.toml"), "-o", "{tmp}/missing/o.png"],
        ["render", str(SCENARIOS / "default.toml"), "-o", ""],
        ["check", str(SCENARIOS / "wwpd-battery-t.toml"), "--set", "battery_overlap=" + "[" * 100_000],
        ["odds", str(SCENARIOS / "robotech-volley.toml"), "--free-rolls", "--samples", "10000000"],
    ],
    ids=["fifo", "zero", "odds-fifo", "render-zero", "cat-fifo", "cat-zero", "dev-full", "missing-folder", "empty-out", "set-deep", "samples"],
)
def test_special_inputs_and_outputs_within_limits(tmp_path: Path, argv: list[str]) -> None:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.toml"
    zero.symlink_to("/dev/zero")
    done = _tabletop([a.format(fifo=fifo, zero=zero, tmp=tmp_path) for a in argv])
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip() and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_render_prints_only_the_report(tmp_path: Path) -> None:
    done = _tabletop(["render", str(SCENARIOS / "default.toml"), "-o", str(tmp_path / "t.png"), "--size", "200x150"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"wrote {tmp_path / 't.png'}"


def test_what_a_table_can_hold_finishes(tmp_path: Path) -> None:
    """At the limits: a 201-square increments blast, a 100-missile volley, a 10,000-point building."""
    inc = tomllib.loads((SCENARIOS / "increments-circle.toml").read_text())
    inc["table"].update(width=72, depth=48, grid="1.5mm")
    inc["template"][0]["weapon"].update(damage=1000, increment=8)
    (tmp_path / "inc.toml").write_text(tomli_w.dumps(inc))
    vol = tomllib.loads((SCENARIOS / "robotech-volley.toml").read_text())
    vol["template"][0]["weapon"]["volley"] = 100
    (tmp_path / "vol.toml").write_text(tomli_w.dumps(vol))
    for name in ("inc.toml", "vol.toml"):
        done = _tabletop(["check", str(tmp_path / name)])
        assert done.returncode == 0, done.stderr[-2000:]


def test_toml_dates_in_kept_keys_save_as_json(tmp_path: Path) -> None:
    src = tmp_path / "s.toml"
    src.write_text("played = 2026-11-23T10:00:00\n" + (SCENARIOS / "default.toml").read_text())
    s = scenario_io.load(src)
    scenario_io.save(s, tmp_path / "s.json")
    assert json.loads((tmp_path / "s.json").read_text())["played"] == "2026-11-23T10:00:00"


def test_settings_for_is_strict_on_overrides_and_values() -> None:
    import dataclasses

    from tabletop.adjudicate import AdjudicationError, settings_for

    s = scenario_io.load(WWPD)
    assert settings_for(s, {"battery_overlap": 0.25})["battery_overlap"] == 0.25
    with pytest.raises(AdjudicationError, match="did you mean 'battery_overlap'"):
        settings_for(s, {"battery_overlp": 0.25})
    with pytest.raises(AdjudicationError, match="battery_overlap"):
        settings_for(dataclasses.replace(s, extra={**s.extra, "settings": {"battery_overlap": "abc"}}))
    # A table switched to another ruleset keeps the old ruleset's settings as data, unused.
    switched = dataclasses.replace(s, ruleset="increments", extra={**s.extra, "settings": {"battery_overlap": 0.5}})
    assert "battery_overlap" not in settings_for(switched)


def test_text_reports_escape_control_characters() -> None:
    import dataclasses

    from tabletop.adjudicate import adjudicate
    from tabletop.report import report_text

    s = scenario_io.load(SCENARIOS / "default.toml")
    s = dataclasses.replace(s, title="\x1b[2J\x1b]0;owned\x07", models=(dataclasses.replace(s.models[0], name="bell\x07"), *s.models[1:]))
    text = report_text(adjudicate(s))
    assert "\x1b" not in text and "\x07" not in text and "\\x1b[2J" in text


def test_total_outline_points_are_bounded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import math

    def star(cx: float, n: int = 7_000) -> list[list[float]]:
        return [[cx + (3 if k % 2 else 1.5) * math.cos(k * 2 * math.pi / n), 24 + (3 if k % 2 else 1.5) * math.sin(k * 2 * math.pi / n)] for k in range(n)]

    data = copy.deepcopy(BASE)
    data["terrain"] = [{"id": f"s{i}", "points": star(8 + 10 * i), "height": 2} for i in range(3)]
    file = tmp_path / "stars.json"
    file.write_text(json.dumps(data))
    code, _, err = _run(["check", str(file)], capsys)
    _assert_refused(code, err, str(file), "terrain:", "21,000 outline points", "20,000")
