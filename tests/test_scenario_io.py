"""Scenario files: lengths, validation messages, round trips, atomic saves."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop import cli, scenario_io
from tabletop.model import Base, Impact, Model, RectSpec, Scenario, Table, Template, TemplateShape, Terrain, At
from tabletop.units import LengthError, length_for_file, parse_length

from .conftest import SCENARIOS

BAD = Path(__file__).parent / "bad_scenarios"
JSON_EXPECT = {
    "json-syntax.json": "JSON syntax",
    "json-wrong-type.json": "table.width",
    "json-top-array.json": "top level",
    "deep-nesting.json": "nested too deeply",
    "json-lone-surrogate.json": "title: holds a lone UTF-16 surrogate",
    "json-bigint.json": "table.grid: number too large",
    "json-inf.json": "model[0].x",
}


@pytest.mark.parametrize(
    ("text", "unit", "mm"),
    [("25mm", "in", 25.0), ("1.5in", "mm", 38.1), ("3cm", "in", 30.0), ('2"', "mm", 50.8), (2, "in", 50.8), (2.5, "mm", 2.5), ("-1in", "in", -25.4)],
)
def test_lengths(text: object, unit: str, mm: float) -> None:
    assert parse_length(text, unit) == pytest.approx(mm)


@pytest.mark.parametrize("bad", ["ten", "", "3 feet", True, None, [1], "nan", "1e400in"])
def test_bad_lengths(bad: object) -> None:
    with pytest.raises(LengthError):
        parse_length(bad, "in")


@given(st.floats(min_value=-1e5, max_value=1e5, allow_nan=False), st.sampled_from(["in", "mm", "cm"]))
def test_saved_lengths_read_back_to_the_same_bits(mm: float, unit: str) -> None:
    assert parse_length(length_for_file(mm, unit), unit) == mm


def _sample() -> Scenario:
    return Scenario(
        Table(1219.2, 914.4, grid=25.4, extra={"felt": "green"}),
        (
            Model("a", 101.6, 203.2, Base.round(25.0), name="Alpha", side="red", unit="u1", stats={"PH": 11}, tags=("camouflaged",)),
            Model("b", 300.0, 310.5, Base("oval", 60, 35), side="blue", facing=12.5, z=50.8, height=40.0, engaged=("c",)),
            Model("c", 310.0, 330.0, Base("rect", 50, 25), side="blue", engaged=("b",), extra={"note": "kept"}),
        ),
        (
            Terrain("house", rect=RectSpec(600, 400, 152.4, 101.6, 30), name="House", kind="building", height=76.2),
            Terrain("hedge", points=((10.0, 10.0), (60.0, 10.0), (60.0, 20.0)), blocks_los=False, stats={"DF": 3}),
        ),
        (
            Template("t1", TemplateShape.circle(127.0), Impact("a", "b"), shape_name=None, weapon={"md": 10, "abilities": ["blast"]}, rolls={"strike": [3, 5]}),
            Template("t2", TemplateShape.teardrop(203.2, 12.7, 63.5), At(100, 100, 45.0), battery=2),
        ),
        title="Sample",
        ruleset="none",
        units="in",
        extra={"seed": 7, "notes": {"x": 1}},
    )


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_round_trip(tmp_path: Path, suffix: str) -> None:
    s = _sample()
    path = tmp_path / f"s{suffix}"
    scenario_io.save(s, path)
    assert scenario_io.load(path) == s


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["in", "mm", "cm"]),
    st.lists(st.tuples(st.floats(0, 2000, allow_nan=False), st.floats(0, 2000, allow_nan=False), st.floats(1, 200)), min_size=0, max_size=5),
)
def test_round_trip_property(unit: str, models: list[tuple[float, float, float]]) -> None:
    s = dataclasses.replace(
        _sample(),
        units=unit,
        models=tuple(Model(f"m{i}", x, y, Base.round(d)) for i, (x, y, d) in enumerate(models)),
        templates=(),
    )
    assert scenario_io.loads(scenario_io.dumps(s)) == s


def test_every_bundled_scenario_round_trips(tmp_path: Path) -> None:
    files = sorted(SCENARIOS.glob("*.toml"))
    assert files, "no bundled scenarios"
    for f in files:
        s = scenario_io.load(f)
        scenario_io.save(s, tmp_path / f.name)
        assert scenario_io.load(tmp_path / f.name) == s, f.name


def test_unknown_keys_warn_with_a_suggestion_and_are_kept(tmp_path: Path) -> None:
    text = 'format = 1\n[table]\nwidth = 48\ndepth = 48\n[[model]]\nid = "a"\nx = 1\ny = 1\nbase = 1\nbse = 2\n'
    path = tmp_path / "s.toml"
    path.write_text(text)
    s, warnings = scenario_io.load_with_warnings(path)
    assert len(warnings) == 1
    assert "model[0].bse" in str(warnings[0]) and "did you mean 'base'" in str(warnings[0])
    assert ":10:" in str(warnings[0])  # the line of `bse = 2`
    scenario_io.save(s, path)
    assert "bse = 2" in path.read_text()


def test_messages_name_file_field_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text('format = 1\n[table]\nwidth = 48\ndepth = 48\n[[model]]\nid = "a"\nx = 1\ny = 1\nbase = 1\n[[model]]\nid = "b"\nx = 1\ny = 1\nbase = -2\n')
    with pytest.raises(scenario_io.ScenarioError) as err:
        scenario_io.load(path)
    (problem,) = err.value.problems
    assert problem.path == "model[1].base" and problem.line == 14 and problem.file == str(path)
    assert str(problem).startswith(f"{path}:14: model[1].base:")


def test_several_problems_each_get_a_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text('format = 1\n[table]\nwidth = -1\ndepth = 48\n[[model]]\nid = "a"\nx = "far"\ny = 1\nbase = 0\n')
    with pytest.raises(scenario_io.ScenarioError) as err:
        scenario_io.load(path)
    assert [p.path for p in err.value.problems] == ["table.width", "model[0].x", "model[0].base"]


def _expected(path: Path) -> str:
    if path.name in JSON_EXPECT:
        return JSON_EXPECT[path.name]
    first = path.read_bytes().split(b"\n", 1)[0].decode()
    assert first.startswith("# expect: ")
    return first.removeprefix("# expect: ")


@pytest.mark.parametrize("path", sorted(BAD.iterdir()), ids=lambda p: p.name)
def test_bad_files_exit_2_naming_the_field(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert _expected(path) in err
    assert "Traceback" not in err
    assert str(path) in err
    assert all(line.startswith(str(path)) for line in err.splitlines()), err
    assert not any(ord(c) < 32 and c != "\n" for c in err), "control characters must reach the terminal escaped"


def test_bad_corpus_is_big_enough() -> None:
    assert len(list(BAD.iterdir())) >= 50


def test_huge_file_is_refused_quickly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.toml"
    path.write_bytes(b"# " + b"x" * (20 * 1024 * 1024) + b"\nformat = 1\n")
    assert cli.main(["check", str(path)]) == 2
    assert "limited to" in capsys.readouterr().err


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert cli.main(["check", str(tmp_path / "nope.toml")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_atomic_save_keeps_the_old_file_when_writing_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.toml"
    scenario_io.save(_sample(), path)
    before = path.read_bytes()

    def explode(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", explode)
    with pytest.raises(OSError):
        scenario_io.save(dataclasses.replace(_sample(), title="changed"), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["s.toml"]  # no temp file left behind
