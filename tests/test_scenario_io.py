"""Scenario files: lengths, validation messages, round trips, atomic saves."""

from __future__ import annotations

import dataclasses
import os
import tomllib
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tabletop import cli, scenario_io
from tabletop.model import Base, Impact, Model, RectSpec, Scenario, Table, Template, TemplateShape, Terrain, At
from tabletop.units import MM_PER_UNIT, WRITE_RESOLUTION_MM, LengthError, length_for_file, parse_length

from .conftest import SCENARIOS
from .scenario_compare import differences

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


@pytest.mark.parametrize("bad", ["ten", "", "3 feet", True, None, [1], "nan", "1e400in", "\u0663mm", "\uff13mm", "1e\u0663mm"])
def test_bad_lengths(bad: object) -> None:
    with pytest.raises(LengthError):
        parse_length(bad, "in")


@given(st.floats(min_value=-1e5, max_value=1e5, allow_nan=False), st.sampled_from(["in", "mm", "cm"]))
def test_saved_lengths_read_back_within_half_the_write_resolution(mm: float, unit: str) -> None:
    written = length_for_file(mm, unit)
    again = parse_length(written, unit)
    assert abs(again - mm) <= WRITE_RESOLUTION_MM / 2
    assert length_for_file(again, unit) == written  # saving a saved file changes nothing


@given(st.integers(-(10**11), 10**11), st.integers(0, 6), st.sampled_from(["in", "mm", "cm"]))
def test_short_decimals_are_written_back_exactly(units_e6: int, decimals: int, unit: str) -> None:
    # A number typed by hand (up to six decimals) comes back as the same number, not a neighbour.
    typed = round(units_e6 / 10**6, decimals) + 0.0  # no "-0.0"
    assume(abs(typed) * MM_PER_UNIT[unit] <= 1e5)
    written = length_for_file(parse_length(typed, unit), unit)
    assert isinstance(written, (int, float)) and written == typed and repr(float(written)) == repr(typed)


@pytest.mark.parametrize(
    ("mm", "unit", "written"),
    [
        (2.6013986013986004 * 25.4, "in", 2.6014),  # a dragged model: the shortest within 0.0005 mm
        (2.6013986013986004, "mm", 2.601),
        (1 / 3, "cm", 0.0333),
        (1 / 3, "mm", 0.333),
        (25.0, "in", "25mm"),  # round mm in an inch file stay in mm
        (1.625, "in", "1.625mm"),
        (32.0, "cm", 3.2),
        (63.5, "in", 2.5),
        (10.0004, "mm", 10.0004),  # finer than the resolution but typed: kept
        (3.0, "in", "3mm"),
        (3 * 25.4, "in", 3),
        (76.2, "in", "76.2mm"),  # 76.2 is not 3 * 25.4 in binary
    ],
)
def test_lengths_as_written(mm: float, unit: str, written: float | str) -> None:
    assert length_for_file(mm, unit) == written
    assert type(length_for_file(mm, unit)) is type(written)


def test_a_dragged_position_is_saved_short_and_points_one_per_line() -> None:
    s = dataclasses.replace(
        _sample(),
        models=(Model("a", 2.6013986013986004 * 25.4, 2.6013986013986004 * 25.4, Base.round(25.0)),),
        terrain=(Terrain("wall", points=((9 * 25.4, 4 * 25.4), (12 * 25.4, 4 * 25.4), (12 * 25.4, 4.5 * 25.4))),),
        templates=(Template("t", TemplateShape.circle(127.0), At(6 * 25.4, 9 * 25.4)),),
    )
    text = scenario_io.dumps(s)
    assert "\nx = 2.6014\ny = 2.6014\n" in text
    assert "\npoints = [\n    [9, 4],\n    [12, 4],\n    [12, 4.5],\n]\n" in text
    assert "\nat = [6, 9]\n" in text
    assert differences(scenario_io.loads(text), s) == []


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
    # Lengths typed in mm that are whole inches (1219.2 mm) come back as inches: the same to the float's last digit.
    assert differences(scenario_io.load(path), s, tolerance=1e-9) == []
    once, twice = tmp_path / f"once{suffix}", tmp_path / f"twice{suffix}"
    scenario_io.save(scenario_io.load(path), once)
    scenario_io.save(scenario_io.load(once), twice)
    assert twice.read_bytes() == once.read_bytes()  # saving a saved file changes nothing


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
    text = scenario_io.dumps(s)
    back = scenario_io.loads(text)
    assert differences(back, s) == []
    again = scenario_io.dumps(back)
    assert scenario_io.dumps(scenario_io.loads(again)) == again  # a saved file saves to itself


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


_SCALARS = (
    st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.booleans()
    | st.dates()
    | st.datetimes()
)
_KEYS = st.text(max_size=8)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300)
@given(st.dictionaries(_KEYS, _VALUES, max_size=6))
def test_toml_text_reads_back_to_the_same_document(document: dict[str, object]) -> None:
    assert tomllib.loads(scenario_io.toml_text(document)) == document


def test_toml_text_layout() -> None:
    text = scenario_io.toml_text({"at": [6, 9], "points": [[9, 4], [12, 4]], "t": {"tags": ["a", "b"]}, "model": [{"x": 1}, {"x": 2}]})
    assert text == 'at = [6, 9]\npoints = [\n    [9, 4],\n    [12, 4],\n]\n\n[t]\ntags = ["a", "b"]\n\n[[model]]\nx = 1\n\n[[model]]\nx = 2\n'
    long = {"tags": [f"tag{i}" for i in range(30)]}
    assert scenario_io.toml_text(long).count("\n") == 32  # too long for one line: one per line
    assert tomllib.loads(scenario_io.toml_text(long)) == long


def _leaves(value: object, where: tuple[object, ...] = ()) -> dict[tuple[object, ...], object]:
    if isinstance(value, dict):
        return {p: v for k, item in value.items() for p, v in _leaves(item, (*where, k)).items()}
    if isinstance(value, list):
        return {p: v for i, item in enumerate(value) for p, v in _leaves(item, (*where, i)).items()}
    return {where: value}


def test_a_bundled_scenario_saved_unchanged_keeps_every_number(tmp_path: Path) -> None:
    # Typed by hand: saving must not turn 10.5 into a neighbour, nor "25mm" into inches.
    compared = 0
    for f in sorted(SCENARIOS.glob("*.toml")):
        s = scenario_io.load(f)
        scenario_io.save(s, tmp_path / f.name)
        back = scenario_io.load(tmp_path / f.name)
        assert differences(back, s) == [], f.name
        before = _leaves(tomllib.loads(f.read_text(encoding="utf-8")))
        after = _leaves(tomllib.loads((tmp_path / f.name).read_text(encoding="utf-8")))
        for where, value in before.items():
            if isinstance(value, bool) or where not in after:
                continue  # defaults (facing = 90, blocks_los = true) are not written
            if isinstance(value, (int, float)) or (isinstance(value, str) and value[:1].isdigit()):
                # The very same text, except that a whole number may lose or gain its ".0".
                same = repr(after[where]) == repr(value) or (not isinstance(value, str) and float(value).is_integer() and after[where] == value)
                assert same, (f.name, where, value, after[where])
                compared += 1
    assert compared > 300


def test_a_saved_inch_table_keeps_inches_for_what_is_inches() -> None:
    """Issue 33: a rebuilt table was saved with x = "838.2mm" beside y = 32. Lengths that are short
    decimals of the file's unit, up to float noise (a centre snapped to 0.1 mm, 6 in computed in mm),
    are written in it; only a whole-mm size with no short inch form (a 40 mm base) stays "40mm"."""
    s = Scenario(
        Table(48 * 25.4, 48 * 25.4),
        (Model("a", 838.2, 812.8, Base.round(40.0)), Model("b", 33 * 25.4, round(32 * 25.4, 1), Base.round(25.4))),
        (Terrain("house", rect=RectSpec(round(10.5 * 25.4, 1), 304.8, 152.4, 101.6, 0.0)),),
        (Template("t", TemplateShape.circle(203.2), At(457.2, 609.6)),),
        units="in",
    )
    text = scenario_io.dumps(s)
    assert '[[model]]\nid = "a"\nx = 33\ny = 32\nbase = "40mm"\n' in text
    assert '[[model]]\nid = "b"\nx = 33\ny = 32\nbase = 1\n' in text
    assert "[terrain.rect]\nx = 10.5\ny = 12\nlength = 6\nwidth = 4\n" in text
    assert 'at = [18, 24]\n\n[template.shape]\nkind = "circle"\ndiameter = 8\n' in text
    assert text.count("mm") == 1  # the 40 mm base alone
    assert differences(scenario_io.loads(text), s, tolerance=1e-9) == []
    assert scenario_io.dumps(scenario_io.loads(text)) == text
