"""Worked answers for the loader's fast path with a backdrop, the lazy schema names and the ruleset
registry's small helpers (written to kill mutmut's survivors in scenario_io and rulesets/__init__)."""

from __future__ import annotations

import copy
import dataclasses
import os
import os.path
import tomllib
from pathlib import Path
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


def test_schema_names_are_served_lazily_from_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(vars(scenario_io), "RectIn", raising=False)
    assert scenario_io.RectIn is schema.RectIn
    assert vars(scenario_io)["RectIn"] is schema.RectIn  # kept: the next read costs nothing
    assert scenario_io.RectIn is schema.RectIn
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


# --------------------------------------------------------------------------- field checks, exact words

SMALL = """format = 1
units = "mm"
[table]
width = 600
depth = 400
[[model]]
id = "a"
x = 100
y = 100
base = "25mm"{model}
[[terrain]]
id = "wall"
rect = {{ x = 300, y = 200, length = 50, width = 20 }}{terrain}
[[template]]
id = "blast"
shape = {shape}
at = [200, 150]{template}
{tail}"""


def _small(model: str = "", terrain: str = "", shape: str = '{ kind = "circle", diameter = 76.2 }', template: str = "", tail: str = "") -> str:
    return SMALL.format(model=model, terrain=terrain, shape=shape, template=template, tail=tail)


def _error(text: str, name: str | None = "x.toml") -> str:
    """The message a document is refused with, read as if from a file called ``name``
    (None: under ``loads``' own default name, which the message then shows)."""
    with pytest.raises(scenario_io.ScenarioError) as err:
        if name is None:
            scenario_io.loads(text)
        else:
            scenario_io.loads(text, name)
    return str(err.value)


def _file_error(path: Path, text: str) -> str:
    """The message ``text``, written to ``path``, is refused with, the path shown as F."""
    path.write_text(text, encoding="utf-8")
    with pytest.raises(scenario_io.ScenarioError) as err:
        scenario_io.load(path)
    return str(err.value).replace(str(path), "F")


@pytest.mark.parametrize(
    ("corners", "message"),
    [
        ("[[0, 0], [1, 0], [1, 1]]", "backdrop.corners: must be 4 image points [[x, y], ...] (lower-left, lower-right, upper-right, upper-left), got [[0, 0], [1, 0], [1, 1]]"),
        ("[[0, 0], [1, 0], [1, 1], [0]]", "backdrop.corners[3]: must be a point [x, y] in image pixels, got [0]"),
        ('[[0, 0], "ab", [1, 1], [0, 1]]', "backdrop.corners[1]: must be a point [x, y] in image pixels, got 'ab'"),
        ("[[0, 0], [1, 0], [1, 1], [0, 2e6]]", "backdrop.corners[3]: must be within ±1,000,000 pixels, got [0, 2000000.0]"),
        ("[[0, 0], [1, 0], [-1000001, 1], [0, 1]]", "backdrop.corners[2]: must be within ±1,000,000 pixels, got [-1000001, 1]"),
    ],
)
def test_a_bad_backdrop_corner_is_named_with_its_index(corners: str, message: str) -> None:
    text = _small(tail=f'[backdrop]\nimage = "a.jpg"\ncorners = {corners}\n')
    assert _error(text) == f"x.toml:20: {message}"


def test_backdrop_corners_may_reach_a_million_pixels_exactly() -> None:
    text = _small(tail='[backdrop]\nimage = "a.jpg"\ncorners = [[0, 0], [1000000, 0], [1000000, -1000000], [0, 1]]\n')
    assert scenario_io.loads(text, "x.toml").backdrop.corners[2] == (1_000_000.0, -1_000_000.0)


def test_a_battery_of_one_to_fifty_is_read_on_the_fast_path() -> None:
    for n in (1, 50):
        data = tomllib.loads(_small(template=f"\nbattery = {n}"))
        quick = fast.validate(data, "mm")
        assert quick is not None and quick.template[0].battery == n
    assert fast.validate(tomllib.loads(_small(template="\nbattery = 51")), "mm") is None
    assert _error(_small(template="\nbattery = 51"))== "x.toml:18: template[0].battery: Input should be less than or equal to 50"
    assert _error(_small(template="\nbattery = 1.5")) == "x.toml:18: template[0].battery: must be a whole number, got 1.5"


def test_a_terrain_height_of_zero_is_allowed_and_a_negative_one_named() -> None:
    assert scenario_io.loads(_small(terrain="\nheight = 0"), "x.toml").terrain[0].height == 0.0
    assert _error(_small(terrain="\nheight = -1")).split(": ", 1)[1] == "terrain[0].height: must not be negative, got -1"


def test_a_position_uncertainty_of_a_metre_is_the_most() -> None:
    assert scenario_io.loads(_small(model="\nsigma = 1000"), "x.toml").models[0].sigma == 1000.0
    assert _error(_small(model="\nsigma = 1000.5")).split(": ", 1)[1] == "model[0].sigma: a position uncertainty must be at most 1000 mm, got 1000.5"


def test_a_circle_given_by_its_radius_is_saved_by_its_radius_with_its_label() -> None:
    text = _small(shape='{ kind = "circle", radius = 38.1, label = "3\\" blast" }')
    scenario = scenario_io.loads(text, "x.toml")
    assert scenario.templates[0].shape.diameter == pytest.approx(76.2)
    shape = tomllib.loads(scenario_io.dumps(scenario))["template"][0]["shape"]
    assert shape == {"kind": "circle", "radius": 38.1, "label": '3" blast'}
    assert scenario_io.shape_to_data(scenario.templates[0].shape, "mm") == {"kind": "circle", "diameter": 76.2, "label": '3" blast'}
    # 38.1 / 25.4 is not exactly 1.5 in floats, but 1.5 in it is (to the float noise): one unit in the file.
    assert scenario_io.shape_to_data(scenario.templates[0].shape, "in", True) == {"kind": "circle", "radius": 1.5, "label": '3" blast'}


def test_a_relative_backdrop_is_found_beside_its_file_and_nowhere_without_one(tmp_path: Any) -> None:
    from tabletop.model import Backdrop

    backdrop = Backdrop("photo.jpg", ((0.0, 0.0),) * 4)
    assert scenario_io.backdrop_path(backdrop, tmp_path / "t.toml") == tmp_path / "photo.jpg"
    assert scenario_io.backdrop_path(backdrop, "<scenario>") is None
    assert scenario_io.backdrop_path(backdrop, None) is None
    assert scenario_io.backdrop_path(backdrop, "tables/<odd>.toml") == Path("tables/photo.jpg")


# --------------------------------------------------------------------------- messages, locations, lines


def test_pydantic_errors_in_the_files_words() -> None:
    from tabletop.scenario_io.checks import _message

    assert _message({}) == "invalid"
    assert _message({"type": "missing", "msg": "Field required"}) == "is required"
    assert _message({"type": "value_error", "msg": "Value error, must be round"}) == "must be round"
    assert _message({"type": "assertion_error", "msg": "Assertion failed, no"}) == "no"
    assert _message({"type": "literal_error", "msg": "Input should be 'in' or 'mm'", "input": "ft"}) == "input should be 'in' or 'mm', got 'ft'"
    too_many = {"type": "too_long", "msg": "List should have at most 2000 items", "loc": ("model",), "ctx": {"max_length": 2000, "actual_length": 2001}}
    assert _message(too_many) == "at most 2,000 [[model]] tables, got 2,001"
    assert _message({**too_many, "loc": ("model", 0, "tags")}) == "List should have at most 2000 items"
    assert _message({**too_many, "loc": ["model"]}) == "List should have at most 2000 items"
    assert _message({**too_many, "ctx": {}}) == "List should have at most 2000 items"
    assert _message({"type": "too_long", "msg": "too long"}) == "too long"


def test_locations_lose_validator_and_union_names() -> None:
    from tabletop.scenario_io.checks import _clean_loc

    loc = ("model", 0, "function-before[_base(), str]", "str", "dict[str,any]", "base", "list[int]", "x")
    assert _clean_loc(loc) == ("model", 0, "base", "x")
    assert _clean_loc(("a[", 3, "strs", "dicts")) == (3, "strs", "dicts")


def test_a_sub_path_travels_inside_a_message() -> None:
    from tabletop.scenario_io.fields import _at, _split_sub

    assert _at("", "bad") == "bad"
    marked = _at("corners[2].x", "bad: a\x1fb")
    assert _split_sub(marked) == (("corners", 2, "x"), "bad: a\x1fb")
    assert _split_sub("plain") == ((), "plain")


def test_toml_lines_map_headers_keys_and_quoted_names() -> None:
    from tabletop.scenario_io.lines import _line_for, toml_lines

    text = "\n".join(
        [
            "format = 1",  # 1
            "[table]",  # 2
            "width = 24",  # 3
            "[[model]]",  # 4
            "id = 'a'",  # 5
            '"my key" = 2',  # 6
            "[[ 'model' ]]",  # 7
            "id = 'b'",  # 8
            '[model."x.y"]',  # 9: a sub-table of the last model, its quoted name one key
            "z = 1",  # 10
        ]
    )
    lines = toml_lines(text)
    assert lines[("format",)] == 1 and lines[("table",)] == 2 and lines[("table", "width")] == 3
    assert lines[("model", 0)] == 4 and lines[("model", 0, "id")] == 5 and lines[("model", 0, "my key")] == 6
    assert lines[("model", 1)] == 7 and lines[("model", 1, "id")] == 8
    assert lines[("model", 1, "x.y")] == 9 and lines[("model", 1, "x.y", "z")] == 10
    assert _line_for(lines, ("table", "depth")) == 2  # the nearest enclosing table
    assert _line_for(lines, ("model", 1, "base", "diameter")) == 7
    assert _line_for(lines, ("seed",)) is None


def test_problems_print_file_line_path_and_message() -> None:
    from tabletop.scenario_io.problems import Problem, ScenarioError

    assert str(Problem("t.toml", "model[0].x", "must be a number", 7)) == "t.toml:7: model[0].x: must be a number"
    assert str(Problem("t.toml", "", "is not TOML")) == "t.toml: is not TOML"
    assert str(Problem("t.toml", "seed", "unused", 2, warning=True)) == "t.toml:2: warning: seed: unused"
    err = ScenarioError([Problem("a", "", "one"), Problem("a", "x", "two", 3)])
    assert str(err) == "a: one\na:3: x: two"


def test_a_backdrop_on_another_drive_stays_absolute(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.model import Backdrop

    scenario = scenario_io.loads(_small(), "x.toml")
    scenario = dataclasses.replace(scenario, backdrop=Backdrop("photo.jpg", ((0.0, 0.0),) * 4))
    old = tmp_path / "a" / "t.toml"

    def other_drive(path: str, start: str = "") -> str:
        raise ValueError("path is on mount 'D:', start on mount 'C:'")

    monkeypatch.setattr(os.path, "relpath", other_drive)
    moved = scenario_io.rebase_backdrop(scenario, old, tmp_path / "b" / "t.toml")
    assert moved.backdrop.image == (tmp_path / "a" / "photo.jpg").as_posix()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", "7", "must be text, got 7"),
        ("name", '"' + "n" * 201 + '"', "must be at most 200 characters, got 201"),
        ("name", '"a\\u0007b"', "must not hold control characters, got 'a\\x07b'"),
        ("tags", '"solo"', "must be a list of strings, got 'solo'"),
    ],
)
def test_text_fields_say_what_is_wrong(field: str, value: str, message: str) -> None:
    assert _error(_small(model=f"\n{field} = {value}")) == f"x.toml:{11}: model[0].{field}: {message}"


def test_a_name_of_exactly_the_limit_and_the_smallest_grid_are_allowed() -> None:
    from tabletop.scenario_io.limits import MIN_GRID_MM
    from tabletop.units import MAX_NAME_CHARS

    scenario = scenario_io.loads(_small(model=f'\nname = "{"n" * MAX_NAME_CHARS}"').replace("depth = 400", f"depth = 400\ngrid = {MIN_GRID_MM}"), "x.toml")
    assert len(scenario.models[0].name) == MAX_NAME_CHARS and scenario.table.grid == MIN_GRID_MM
    assert _error(_small().replace("depth = 400", "depth = 400\ngrid = 0.5")) == f"x.toml:6: table.grid: a grid square must be at least {MIN_GRID_MM:g} mm, got 0.5"


def test_an_explosion_keeps_its_unknown_keys_on_the_fast_path() -> None:
    data = tomllib.loads(_small().replace("at = [200, 150]", 'explosion = { model = "a", note = "boom" }'))
    quick = fast.validate(data, "mm")
    assert quick is not None and quick.template[0].explosion.model_extra == {"note": "boom"}


def test_a_list_limit_with_only_its_maximum_known_keeps_pydantics_words() -> None:
    from tabletop.scenario_io.checks import _message

    half = {"type": "too_long", "msg": "too long", "loc": ("model",), "ctx": {"max_length": 2000}}
    assert _message(half) == "too long"
    assert _message({**half, "ctx": {"actual_length": 2001}}) == "too long"


def test_toml_lines_keep_x_letters_of_quoted_names() -> None:
    from tabletop.scenario_io.lines import toml_lines

    lines = toml_lines('[["Xmodel"]]\n"Xray" = 1\n')
    assert lines[("Xmodel", 0)] == 1 and lines[("Xmodel", 0, "Xray")] == 2


def test_a_sub_path_is_split_at_the_marker_not_at_spaces() -> None:
    from tabletop.scenario_io.fields import _at, _split_sub

    assert _split_sub(_at("corners[2]", "must be a point, got 'a b'")) == (("corners", 2), "must be a point, got 'a b'")


def test_tags_may_hold_exactly_the_most_entries() -> None:
    from tabletop.scenario_io.fields import _strings
    from tabletop.scenario_io.limits import MAX_ITEMS

    assert len(_strings(["t"] * MAX_ITEMS)) == MAX_ITEMS


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        ('[settings]\n"\\u0007bad" = 1\n', "key '\\x07bad' must be printable and at most 200 characters"),
        (f'[settings]\n"{"k" * 201}" = 1\n', "must be printable and at most 200 characters"),
        ('title = "a\\ud800"\n', "lone UTF-16 surrogate"),
    ],
)
def test_document_limits_hold_anywhere(tail: str, message: str) -> None:
    from tabletop.scenario_io.checks import _document_problems

    data = tomllib.loads(tail) if "ud800" not in tail else {"title": "a\ud800"}
    problems = _document_problems(data)
    assert problems and any(message in text or message == loc[0] for loc, text in problems), problems


def test_the_first_character_past_the_surrogates_is_text() -> None:
    from tabletop.scenario_io.checks import _document_problems

    assert _document_problems({"title": "a\ue000\udfff"}) != [] and _document_problems({"title": "a\ue000"}) == []


def test_whole_numbers_up_to_two_to_the_53_are_exact_and_one_more_is_refused() -> None:
    from tabletop.scenario_io.checks import _document_problems
    from tabletop.scenario_io.limits import MAX_EXACT_INT

    assert _document_problems({"model": [{"stats": {"points": MAX_EXACT_INT}}]}) == []
    assert [loc for loc, _ in _document_problems({"model": [{"stats": {"points": MAX_EXACT_INT + 1}}]})] == [("model", 0, "stats", "points")]


def test_a_long_points_list_is_a_terrain_outline_not_a_giant_list() -> None:
    from tabletop.scenario_io.checks import _document_problems
    from tabletop.scenario_io.limits import MAX_ITEMS

    outline = [[float(i % 7), float(i % 5)] for i in range(MAX_ITEMS + 1)]
    found = _document_problems({"terrain": [{"points": outline}]})
    assert all("entries" not in text for _, text in found), found
    found = _document_problems({"model": [{"tags": ["t"] * (MAX_ITEMS + 1)}]})
    assert found == [(("model", 0, "tags"), f"at most {MAX_ITEMS:,} entries, got {MAX_ITEMS + 1:,}")]


def test_a_bad_fixed_roll_is_named_at_its_template_and_roll() -> None:
    text = _small().replace('format = 1\n', 'format = 1\nruleset = "robotech"\n') + "rolls = { strike = 9 }\n"
    message = _error(text.replace("at = [200, 150]\nrolls", "at = [200, 150]\nrolls"))
    assert "template[0].rolls.strike:" in message, message


def test_values_quoted_in_messages_are_short() -> None:
    from tabletop.scenario_io.limits import MAX_EXACT_INT, _shown

    # Whole numbers past 2**53 (which a float cannot hold) are described, not printed: 10**30 has 31 digits.
    assert _shown(10**30) == "a 31-digit number"
    assert _shown(-(10**30)) == "a 31-digit number"
    assert _shown(2**64) == "a 20-digit number"  # 18446744073709551616
    assert _shown(MAX_EXACT_INT) == repr(MAX_EXACT_INT)  # 2**53 itself is exact: printed
    assert _shown(MAX_EXACT_INT + 1) == "a 16-digit number"  # 9007199254740993 (was "17": an estimate)
    assert _shown(10**16 - 1) == "a 16-digit number" and _shown(10**16) == "a 17-digit number"
    assert _shown(True) == "True"
    # Text up to 60 characters is quoted whole; longer text is cut to 57 and "...".
    assert _shown("x" * 58) == repr("x" * 58)  # 60 with the quotes
    assert _shown("x" * 59) == repr("x" * 59)[:57] + "..."
    assert len(_shown("y" * 1000)) == 60


# ------------------------------------------------------------------ free-form tables (weapon, stats, rolls), fifth round


def _nested(levels: int, leaf: Any, kind: str = "dict") -> Any:
    for _ in range(levels):
        leaf = {"k": leaf} if kind == "dict" else [leaf]
    return leaf


@pytest.mark.parametrize(
    ("value", "where", "counts", "problem"),
    [
        ({"a": 1e99}, "", {}, ("a", "must be within ±1,000,000, got 1e+99")),  # no path yet: the key alone
        ({"a": {"b": -2_000_000}}, "weapon", {}, ("weapon.a.b", "must be within ±1,000,000, got -2000000")),
        ({"a": 1_000_000, "b": -1_000_000}, "weapon", {}, None),
        ({"a": float("inf")}, "w", {}, ("w.a", "must be finite, got inf")),
        ({"a": float("nan")}, "w", {}, ("w.a", "must be finite, got nan")),
        ({"b": True, "c": False}, "w", {}, None),
        ({"b": True, "a": None}, "w", {}, ("w.a", "must not be null (leave the key out instead)")),  # JSON's null
        ({"a": "x" * 10_000}, "w", {}, None),
        ({"a": "x" * 10_001}, "w", {}, ("w.a", "text must be printable and at most 10000 characters")),
        ({"a": "bell\x07"}, "w", {}, ("w.a", "text must be printable and at most 10000 characters")),
        # A count named at the top is held to its own limit; deeper, the same key is not a count.
        ({"burst": 101}, "weapon", {"burst": 100}, ("weapon.burst", "at most 100 (more than any table fields), got 101")),
        ({"burst": -101}, "weapon", {"burst": 100}, ("weapon.burst", "at most 100 (more than any table fields), got -101")),
        ({"burst": 100}, "weapon", {"burst": 100}, None),
        ({"burst": True}, "weapon", {"burst": 0}, None),
        ({"x": {"burst": 101}}, "weapon", {"burst": 100}, None),
        ([1, [2, 1e99]], "rolls", {}, ("rolls[1][1]", "must be within ±1,000,000, got 1e+99")),
        (list(range(10_000)), "rolls", {}, None),
        (list(range(10_001)), "rolls", {}, ("rolls", "at most 10000 entries, got 10001")),
        (_nested(6, 1), "w", {}, None),
        (_nested(7, 1), "w", {}, ("w.k.k.k.k.k.k.k", "nested more than 6 deep")),
        (_nested(6, 1, "list"), "w", {}, None),
        (_nested(7, 1, "list"), "w", {}, ("w[0][0][0][0][0][0][0]", "nested more than 6 deep")),
        ({"a": [_nested(5, 1)]}, "w", {}, ("w.a[0].k.k.k.k.k", "nested more than 6 deep")),
    ],
)
def test_free_form_values_are_checked_to_their_path(value: Any, where: str, counts: dict[str, int], problem: Any) -> None:
    from tabletop.scenario_io.fields import _free_problem

    assert _free_problem(value, where, 0, counts) == problem


_STATS_TABLE = 'format = 1\nruleset = "none"\n[table]\nwidth = 12\ndepth = 12\n[[model]]\nid = "m"\nx = 1\ny = 1\nbase = 1\n'


@pytest.mark.parametrize(
    ("stats", "message"),
    [
        ("stats = 5", "<scenario>.toml:11: model[0].stats: must be a table of numbers, got 5"),
        ("stats = { PH = true }", "<scenario>.toml:11: model[0].stats.PH: must be a finite number, got True"),
        ('stats = { PH = "ten" }', "<scenario>.toml:11: model[0].stats.PH: must be a finite number, got 'ten'"),
        ("stats = { PH = 2000000 }", "<scenario>.toml:11: model[0].stats.PH: must be within ±1,000,000, got 2000000"),
        ("stats = { damage_tracks = 1001 }", "<scenario>.toml:11: model[0].stats.damage_tracks: must be within ±1,000, got 1001"),
        ("stats = { damage_tracks = 1000, PH = -1000000 }", None),
    ],
)
def test_stats_messages_word_for_word(stats: str, message: str | None) -> None:
    if message is None:
        assert scenario_io.loads(_STATS_TABLE + stats + "\n").models[0].stats["PH"] == -1_000_000
        return
    assert _error(_STATS_TABLE + stats + "\n", None) == message


_ROLLS_TABLE = 'format = 1\nruleset = "none"\n[table]\nwidth = 12\ndepth = 12\n[[template]]\nid = "t"\nshape = "small_blast"\nat = [5, 5]\n'


@pytest.mark.parametrize(
    ("rolls", "message"),
    [
        ("rolls = 5", "template[0].rolls: must be a table of fixed die results, got 5"),
        ("rolls = { d = true }", "template[0].rolls.d: must be a whole number or a list of them, got True"),
        ("rolls = { d = [] }", "template[0].rolls.d: must be a whole number or a list of them, got []"),
        ("rolls = { d = [1, 2.5] }", "template[0].rolls.d: must be a whole number or a list of them, got [1, 2.5]"),
        ("rolls = { d = 1001 }", "template[0].rolls.d: at most 10000 results, each within ±1000, got 1001"),
        ("rolls = { d = [1, -1001] }", "template[0].rolls.d: at most 10000 results, each within ±1000, got [1, -1001]"),
        ("rolls = { d = [1000, -1000] }", None),
    ],
)
def test_fixed_rolls_messages_word_for_word(rolls: str, message: str | None) -> None:
    if message is None:
        assert scenario_io.loads(_ROLLS_TABLE + rolls + "\n").templates[0].rolls == {"d": [1000, -1000]}
        return
    assert _error(_ROLLS_TABLE + rolls + "\n", None) == "<scenario>.toml:10: " + message


def test_as_many_fixed_rolls_as_the_limit_and_one_more() -> None:
    many = "[" + ", ".join(["1"] * 10_000) + "]"
    assert len(scenario_io.loads(_ROLLS_TABLE + f"rolls = {{ d = {many} }}\n").templates[0].rolls["d"]) == 10_000
    # One more is refused by the general list limit, before the rolls' own check.
    with pytest.raises(scenario_io.ScenarioError, match=r"rolls\.d: at most 10,000 entries, got 10,001"):
        scenario_io.loads(_ROLLS_TABLE + "rolls = { d = [" + ", ".join(["1"] * 10_001) + "] }\n")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("name = 5", "model[0].name: must be text, got 5"),
        ('name = "a\\u0007b"', "model[0].name: must not hold control characters, got 'a\\x07b'"),
        ('name = "' + "x" * 201 + '"', "model[0].name: must be at most 200 characters, got 201"),
        ('name = "' + "x" * 200 + '"', None),
    ],
)
def test_name_messages_word_for_word(line: str, message: str | None) -> None:
    if message is None:
        assert scenario_io.loads(_STATS_TABLE + line + "\n").models[0].name == "x" * 200
        return
    assert _error(_STATS_TABLE + line + "\n", None) == "<scenario>.toml:11: " + message


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("weapon = 5", "template[0].weapon: must be a table, got 5"),
        ("weapon = { damage = 1e99 }", "template[0].weapon.damage: at most 100,000 (more than any table fields), got 1e+99"),
        ("weapon = { extra = { deep = 1e99 } }", "template[0].weapon.extra.deep: must be within ±1,000,000, got 1e+99"),
    ],
)
def test_weapon_messages_word_for_word(line: str, message: str) -> None:
    assert _error(_ROLLS_TABLE + line + "\n", None) == "<scenario>.toml:10: " + message


def test_loads_reads_json_by_the_name_and_uses_the_catalogue_given() -> None:
    import json

    from tabletop.catalogue import Entry
    from tabletop.model import TemplateShape

    doc = {"format": 1, "ruleset": "none", "table": {"width": 12, "depth": 12},
           "template": [{"id": "t", "shape": "house_blast", "at": [5, 5]}]}
    house = {"house_blast": Entry("house_blast", TemplateShape("circle", diameter=50.0, label="House"))}
    s = scenario_io.loads(json.dumps(doc), "table.JSON", catalogue=house)
    assert s.templates[0].shape.diameter == 50.0 and s.templates[0].shape.label == "House"
    refused = _error(json.dumps(doc), "table.json")
    assert refused.startswith("table.json") and "house_blast" in refused


def test_a_shapes_size_uncertainty_is_written_in_the_files_units() -> None:
    text = _ROLLS_TABLE.replace('units = "in"\n', "").replace('shape = "small_blast"', 'shape = { kind = "circle", diameter = 3, size_uncertainty = 0.05 }')
    s = scenario_io.loads(text)
    assert s.templates[0].shape.size_uncertainty == pytest.approx(0.05 * 25.4)
    written = scenario_io.dumps(s)
    assert "size_uncertainty = 0.05" in written
    assert scenario_io.loads(written).templates[0].shape.size_uncertainty == pytest.approx(0.05 * 25.4)


_BARE = 'format = 1\nruleset = "none"\n[table]\nwidth = 12\ndepth = 12\n'
_AIMER = '[[model]]\nid = "a"\nx = 1\ny = 1\nbase = 1\n[[template]]\nid = "t"\nshape = "small_blast"\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[backdrop]\nimage = "  "\ncorners = [[0, 0], [1, 0], [1, 1], [0, 1]]\n',
         "<scenario>.toml:7: backdrop.image: must name an image file (a path relative to the scenario file)"),
        ('[backdrop]\nimage = "a.png"\ncorners = [[0, 0], [1, "x"], [1, 1], [0, 1]]\n',
         "<scenario>.toml:8: backdrop.corners[1]: must be a number, got 'x'"),
        (_AIMER + 'impact = { attacker = "a" }\n', "<scenario>.toml:14: template[0].impact: give exactly one of target or at"),
        (_AIMER + 'impact = { attacker = "a", target = "a", at = [1, 1] }\n', "<scenario>.toml:14: template[0].impact: give exactly one of target or at"),
    ],
)
def test_backdrop_and_aim_messages_word_for_word(text: str, message: str) -> None:
    assert _error(_BARE + text, None) == message


def test_save_as_elsewhere_keeps_the_backdrop_found(tmp_path: Path) -> None:
    from tabletop.scenario_io.reading import rebase_backdrop

    s = scenario_io.loads(_BARE + '[backdrop]\nimage = "photos/table.jpg"\ncorners = [[0, 0], [1, 0], [1, 1], [0, 1]]\n')
    moved = rebase_backdrop(s, tmp_path / "table.toml", tmp_path / "saves" / "copy.toml")
    assert moved.backdrop is not None and moved.backdrop.image == "../photos/table.jpg"
    assert rebase_backdrop(s, tmp_path / "table.toml", tmp_path / "other.toml") is s  # same folder: unchanged


def test_a_syntax_error_names_the_file_given() -> None:
    assert _error("format = = 1\n", "club night.toml").startswith("club night.toml:1: TOML syntax")


ROUNDTRIP = Path(__file__).parent / "data" / "roundtrip-everything.toml"


def test_every_optional_part_survives_a_save_in_either_format(tmp_path: Path) -> None:
    s = scenario_io.loads(ROUNDTRIP.read_text(encoding="utf-8"))
    text = scenario_io.dumps(s)
    for line in ('image = "photos/table.jpg"', 'opacity_note = "kept"', "facing = 91.0", "sigma = 0.02", 'colour = "grey"',
                 'paint = "green"', "size_uncertainty = 0.05", 'maker = "acme"', "at = [8, 9]", 'note = "guess"',
                 "heading = 30.0", 'why = "test"'):
        assert line in text.splitlines(), line
    assert scenario_io.loads(text) == s
    assert "\n\n\n" not in text and not text.startswith("\n")  # one blank line between tables, none doubled
    for name in ("copy.toml", "copy.json"):
        scenario_io.save(s, tmp_path / name)
        assert scenario_io.load(tmp_path / name) == s


def test_extra_keys_are_written_back_where_they_were_read() -> None:
    import tomllib

    s = scenario_io.loads(ROUNDTRIP.read_text(encoding="utf-8"))
    data = tomllib.loads(scenario_io.dumps(s))
    sq, rd = data["model"]
    assert sq["base"] == {"shape": "rect", "length": 1.5, "width": 1, "colour": "grey"} and "base_extra" not in sq
    assert rd["base"] == {"shape": "round", "length": 1, "width": 1, "paint": "green"} and "base_extra" not in rd
    spec, direct = data["template"]
    assert spec["shape"]["maker"] == "acme" and "shape_extra" not in spec
    assert spec["impact"] == {"attacker": "sq", "at": [8, 9], "note": "guess"} and "impact_extra" not in spec
    assert direct["direct"] == {"attacker": "rd", "heading": 30.0, "why": "test"} and "direct_extra" not in direct


@pytest.mark.parametrize(("heading", "written"), [(0.0, None), (1.0, 1.0), (-90.0, -90.0)])
def test_a_template_laid_at_a_point_keeps_its_heading_only_when_turned(heading: float, written: float | None) -> None:
    import tomllib

    s = scenario_io.loads(_ROLLS_TABLE.replace("at = [5, 5]", f"at = [5, 5]\nheading = {heading}"))
    assert s.templates[0].placement.heading == heading
    tpl = tomllib.loads(scenario_io.dumps(s))["template"][0]
    assert tpl.get("heading") == written


def test_a_plain_round_base_is_written_as_its_diameter() -> None:
    text = scenario_io.dumps(scenario_io.loads(_STATS_TABLE.replace('units = "in"\n', "")))
    assert "base = 1" in text.splitlines() and "[model.base]" not in text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[terrain]]\nid = "w"\npoints = 5\n', "<scenario>.toml:8: terrain[0].points: must be a list of points [[x, y], ...], got 5"),
        ('[[terrain]]\nid = "w"\npoints = [[0, 0], [1, 1]]\n', "<scenario>.toml:8: terrain[0].points: a polygon needs at least 3 points, got 2"),
        ('[[terrain]]\nid = "w"\npoints = [[0, 0], [1, "a"], [2, 2]]\n',
         "<scenario>.toml:8: terrain[0].points[1]: cannot read 'a' as a length (write e.g. 25mm, 1.5in, 3cm or 2\")"),
        ('[[terrain]]\nid = "w"\nblocks_los = 1\npoints = [[0, 0], [1, 0], [1, 1]]\n', "<scenario>.toml:8: terrain[0].blocks_los: must be true or false, got 1"),
        ('[[model]]\nid = "m"\nx = 1\ny = 1\nbase = 1\nfacing = 36001\n', "<scenario>.toml:11: model[0].facing: must be an angle within ±36000 degrees, got 36001"),
    ],
)
def test_terrain_and_angle_messages_word_for_word(text: str, message: str) -> None:
    assert _error(_BARE + text, None) == message


def test_the_largest_angle_and_outline_allowed_load() -> None:
    import math

    def ring(n: int) -> str:
        return ", ".join(f"[{6 + 5 * math.cos(2 * math.pi * i / n):.6f}, {6 + 5 * math.sin(2 * math.pi * i / n):.6f}]" for i in range(n))

    s = scenario_io.loads(_BARE + f'[[model]]\nid = "m"\nx = 1\ny = 1\nbase = 1\nfacing = -36000\n[[terrain]]\nid = "w"\npoints = [{ring(10_000)}]\n')
    assert s.models[0].facing == -36000 and len(s.terrain[0].polygon) == 10_000
    with pytest.raises(scenario_io.ScenarioError, match=r"terrain\[0\]\.points: a terrain outline has at most 10,000 points, got 10,001"):
        scenario_io.loads(_BARE + f'[[terrain]]\nid = "w"\npoints = [{ring(10_001)}]\n')


def test_the_largest_exact_whole_number_reaches_the_fields_own_range_check() -> None:
    # 2**53 passes the reader's "number too large" (above 2**53) and is judged by the field: out of an image's range.
    assert _error(_BARE + '[backdrop]\nimage = "a.png"\ncorners = [[9007199254740992, 0], [1, 0], [1, 1], [0, 1]]\n', None) == "<scenario>.toml:8: backdrop.corners[0]: must be within ±1,000,000 pixels, got [9007199254740992, 0]"


def test_unknown_keys_are_each_named_where_they_are_with_the_nearest_known_one() -> None:
    from tabletop.scenario_io.checks import _collect_unknown

    data = {
        "format": 1, "ruleset": "none", "settings": {}, "seed": 3, "catalogue": "x", "formt": 1,
        "table": {"width": 1, "depth": 1, "depht": 2, "zzz": 1},
        "backdrop": {"imag": "a"},
        "model": [{"id": "m", "bse": 1, "base": {"shape": "round", "lenght": 1}}],
        "template": [{"id": "t", "shape": {"kind": "circle", "diamter": 3}, "impact": {"attacker": "m", "targt": "x"}}],
    }
    kept = "is kept but not used"
    assert _collect_unknown(data) == [
        (("formt",), f"unknown key 'formt' {kept} (did you mean 'format'?)"),
        (("table", "depht"), f"unknown key 'depht' {kept} (did you mean 'depth'?)"),
        (("table", "zzz"), f"unknown key 'zzz' {kept}"),
        (("backdrop", "imag"), f"unknown key 'imag' {kept} (did you mean 'image'?)"),
        (("model", 0, "bse"), f"unknown key 'bse' {kept} (did you mean 'base'?)"),
        (("model", 0, "base", "lenght"), f"unknown key 'lenght' {kept} (did you mean 'length'?)"),
        (("template", 0, "impact", "targt"), f"unknown key 'targt' {kept} (did you mean 'target'?)"),
        (("template", 0, "shape", "diamter"), f"unknown key 'diamter' {kept} (did you mean 'diameter'?)"),
    ]


_RULESET_TABLE = (
    'format = 1\nruleset = "{ruleset}"\nunits = "in"\n{settings}[table]\nwidth = 24\ndepth = 24\n'
    '[[model]]\nid = "a"\nside = "x"\nx = 2\ny = 2\nbase = 1\nstats = {{ DF = 5, GN = 1 }}\n'
    '[[model]]\nid = "b"\nside = "y"\nx = 8\ny = 8\nbase = 1\nstats = {{ DF = 5 }}\n'
)
_BLAST = '[[template]]\nid = "t"\nshape = "robotech_blast"\nimpact = {{ attacker = "a", target = "b" }}\nweapon = {{ md = 10 }}\nrolls = {{ {rolls} }}\n'


@pytest.mark.parametrize(
    ("ruleset", "settings", "template", "message"),
    [
        ("robotech", "", _BLAST.format(rolls="strike = 9"), "<scenario>.toml:26: template[0].rolls.strike: D6 shows 1–6, got 9"),
        ("none", "", '[[template]]\nid = "t"\nexplosion = { model = "a" }\n', "<scenario>.toml:21: template[0].shape: ruleset none does not size explosions: give a shape"),
        ("none", "[settings]\nbogus = 1\n", "", "<scenario>.toml:5: settings.bogus: unknown setting 'bogus': ruleset none has no settings"),
        ("infinity", "", '[[template]]\nid = "t"\nshape = "infinity_circular"\nimpact = { attacker = "a", target = "b" }\nweapon = { burst = 0 }\n',
         "<scenario>.toml:25: template[0].weapon.burst: must be a whole number >= 1, got 0"),
    ],
)
def test_a_rulesets_own_checks_at_load_word_for_word(ruleset: str, settings: str, template: str, message: str) -> None:
    assert _error(_RULESET_TABLE.format(ruleset=ruleset, settings=settings) + template, None) == message


def test_a_roll_the_ruleset_does_not_take_is_a_warning_naming_the_ones_it_does(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(_RULESET_TABLE.format(ruleset="robotech", settings="") + _BLAST.format(rolls="nonsense = 3, strike = 4"), encoding="utf-8")
    scenario, warnings = scenario_io.load_with_warnings(path)
    assert scenario.templates[0].rolls == {"nonsense": 3, "strike": 4}
    texts = [str(w) for w in warnings]
    assert len(texts) == 1 and texts[0].endswith(
        "template[0].rolls.nonsense: ruleset robotech has no roll 'nonsense' "
        "(it rolls dodge, roll_with_impact, scatter_direction, scatter_distance, scatter_strike, shoot_down, strike)"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[terrain]]\nid = "w"\npoints = [[0, 0], [1, 0], 5]\n', "<scenario>.toml:8: terrain[0].points[2]: must be a point [x, y], got 5"),
        ('[[terrain]]\nid = "w"\n', "<scenario>.toml:6: terrain[0]: give exactly one of points or rect"),
        ('[backdrop]\nimage = "a.png"\ncorners = [[nan, 0], [1, 0], [1, 1], [0, 1]]\n', "<scenario>.toml:8: backdrop.corners[0]: must be finite, got nan"),
    ],
)
def test_outline_and_point_messages_word_for_word(text: str, message: str) -> None:
    assert _error(_BARE + text, None) == message


def test_an_unknown_top_key_without_a_near_one_and_a_terrain_key_are_named() -> None:
    from tabletop.scenario_io.checks import _collect_unknown

    assert _collect_unknown({"zzz": 1, "terrain": [{"id": "w", "hieght": 1}]}) == [
        (("zzz",), "unknown key 'zzz' is kept but not used"),
        (("terrain", 0, "hieght"), "unknown key 'hieght' is kept but not used (did you mean 'height'?)"),
    ]


def test_settings_that_are_not_a_table_are_named_at_settings() -> None:
    assert _error('format = 1\nruleset = "none"\nsettings = 5\n[table]\nwidth = 12\ndepth = 12\n', None) == "<scenario>.toml:3: settings: must be a table of setting = value, got 5"


_ONE_MODEL = '[[model]]\nid = "a"\nx = 1\ny = 1\nbase = 1\n'


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ('shape = 5\nat = [1, 1]\n', "<scenario>.toml:13: template[0].shape: must be a catalogue name or a shape table, got 5"),
        ('shape = "small_blast"\nat = [1, 1]\ndirect = { attacker = "a" }\n',
         "<scenario>.toml:11: template[0]: give exactly one placement of at, impact, direct, explosion (found at, direct)"),
        ('shape = "small_blast"\n', "<scenario>.toml:11: template[0]: give exactly one placement of at, impact, direct, explosion (found none)"),
        ("at = [1, 1]\n", "<scenario>.toml:11: template[0]: shape is required (a catalogue name or a shape table)"),
    ],
)
def test_template_shape_and_placement_messages_word_for_word(template: str, message: str) -> None:
    assert _error(_BARE + _ONE_MODEL + '[[template]]\nid = "t"\n' + template, None) == message


def test_an_unknown_shape_key_without_a_near_one_is_named_plainly() -> None:
    from tabletop.scenario_io.checks import _collect_unknown

    assert _collect_unknown({"template": [{"id": "t", "shape": {"kind": "circle", "diameter": 3, "zzz": 1}}]}) == [
        (("template", 0, "shape", "zzz"), "unknown key 'zzz' is kept but not used"),
    ]


def test_loading_a_file_uses_the_catalogue_given_and_names_the_file(tmp_path: Path) -> None:
    from tabletop.catalogue import Entry
    from tabletop.model import TemplateShape

    path = tmp_path / "house.toml"
    path.write_text(_BARE + '[[template]]\nid = "t"\nshape = "house_blast"\nat = [5, 5]\n', encoding="utf-8")
    house = {"house_blast": Entry("house_blast", TemplateShape("circle", diameter=50.0, label="House"))}
    assert scenario_io.load(path, house).templates[0].shape.diameter == 50.0
    assert scenario_io.load_with_warnings(path, house)[0].templates[0].shape.label == "House"
    with pytest.raises(scenario_io.ScenarioError) as err:
        scenario_io.load(path)
    assert str(err.value).startswith(f"{path}:")


def test_a_file_over_the_size_limit_is_named_with_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_bytes(b"#" * (10 * 1024 * 1024 + 1))
    with pytest.raises(scenario_io.ScenarioError) as err:
        scenario_io.load(path)
    # One byte over: the sizes in bytes, so the message gives a reason (10 MB is 10,485,760 bytes).
    assert str(err.value) == f"{path}: file is 10,485,761 bytes; scenarios are limited to 10 MB (10,485,760 bytes)"
    path.write_bytes(b"#" * (11 * 1024 * 1024))
    with pytest.raises(scenario_io.ScenarioError) as err:
        scenario_io.load(path)
    assert str(err.value) == f"{path}: file is 11 MB; scenarios are limited to 10 MB"


def test_an_unknown_ruleset_is_named_with_the_nearest_or_all_the_known_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(name: str) -> str:
        return _error(f'format = 1\nruleset = "{name}"\n[table]\nwidth = 12\ndepth = 12\n', None)

    assert refused("infinty") == '<scenario>.toml:2: ruleset: unknown ruleset \'infinty\': did you mean "infinity"?'
    known = ", ".join(repr(n) for n in rulesets.names())
    assert refused("zzzzzz") == f"<scenario>.toml:2: ruleset: unknown ruleset 'zzzzzz' (known: {known})"
    # A registered ruleset that does not load: its own message, as the plug-in's fault (not a problem of the file).
    def broken(name: str) -> Any:
        raise rulesets.BadPlugin("ruleset 'wwpd' could not be loaded: boom")

    monkeypatch.setattr(rulesets, "get", broken)
    with pytest.raises(rulesets.BadPlugin, match="ruleset 'wwpd' could not be loaded: boom"):
        refused("wwpd")


_GHOST = '[[model]]\nid = "ghost"\nx = 1\ny = 1\nbase = 1\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[terrain]]\nid = "w"\npoints = [[0, 0], [2, 2], [2, 0], [0, 2]]\n', "F:8: terrain[0].points: polygon is not simple (Self-intersection[25.4 25.4])"),
        (_GHOST + '[[template]]\nid = "t"\nshape = "smal_blast"\nat = [1, 1]\n',
         "F:13: template[0].shape: no template named 'smal_blast' in the catalogue (did you mean 'small_blast'?)"),
        (_GHOST + '[[template]]\nid = "t"\nshape = "zzzzzzzz"\nat = [1, 1]\n',
         "F:13: template[0].shape: no template named 'zzzzzzzz' in the catalogue (known: aoe_4in, apocalypse_blast, blast_strip_1x6, "
         "cone_90, flamer, fow_double_template, fow_template, infinity_circular, infinity_large_teardrop, infinity_small_teardrop, "
         "large_blast, robotech_blast, small_blast)"),
        (_GHOST + '[[template]]\nid = "t"\nshape = "small_blast"\ndirect = { attacker = "ghst" }\n',
         "F:14: template[0].direct.attacker: attacker 'ghst' is not a model on this table (did you mean 'ghost'?)"),
        (_GHOST + '[[template]]\nid = "t"\nshape = "small_blast"\ndirect = { attacker = "zzzz" }\n',
         "F:14: template[0].direct.attacker: attacker 'zzzz' is not a model on this table"),
        ('[[model]]\nid = "m"\nx = 1\ny = 1\nbase = 1\nengaged = ["m"]\n', "F:11: model[0].engaged: a model cannot be engaged with itself"),
        ('[[model]]\nid = "m"\nx = 1\ny = 1\nbase = 1\nengaged = ["gost"]\n', "F:11: model[0].engaged: engaged model 'gost' is not a model on this table"),
        (_GHOST + '[[terrain]]\nid = "ghost"\npoints = [[3, 3], [4, 3], [4, 4]]\n', "F:12: terrain[0].id: id 'ghost' is already used by a model"),
        (_GHOST + '[[template]]\nid = "t"\nshape = "small_blast"\nat = [1, 1]\n[[template]]\nid = "t"\nshape = "small_blast"\nat = [2, 2]\n',
         "F:16: template[1].id: template id 't' is used twice"),
        ('[[template]]\nid = "t"\nshape = { kind = "circle", diameter = -1 }\nat = [1, 1]\n', "F:8: template[0].shape.diameter: must be positive, got -25.4 mm"),
    ],
)
def test_reading_messages_word_for_word(tmp_path: Path, text: str, message: str) -> None:
    assert _file_error(tmp_path / "t.toml", _BARE + text) == message


def test_reading_warnings_and_what_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(_BARE + (
        '[[model]]\nid = "far"\nx = 20\ny = 1\nbase = 1\n'
        '[[model]]\nid = "r"\nx = 1\ny = 1\nbase = { shape = "round", length = 1, width = 2 }\n'
        '[[terrain]]\nid = "w"\ntags = ["ruin"]\npoints = [[3, 3], [4, 3], [4, 4]]\n'
        '[[template]]\nid = "d"\nshape = "small_blast"\ndirect = { attacker = "r" }\nheading = 30\n'
        '[[template]]\nid = "c"\nshape = { kind = "circle", radius = 1.5 }\nat = [5, 5]\n'
    ), encoding="utf-8")
    s, warnings = scenario_io.load_with_warnings(path)
    assert [str(w).replace(str(path), "F") for w in warnings] == [
        "F:24: warning: template[0].heading: heading is only used with at (direct takes its own heading)",
        "F:6: warning: model[0]: model 'far' stands off the table",
    ]
    assert s.models[0].x == pytest.approx(20 * 25.4)  # no units given: inches
    assert s.models[1].base.width == s.models[1].base.length == pytest.approx(25.4)  # a round base is as wide as long
    assert s.terrain[0].tags == ("ruin",)
    assert s.templates[1].shape.diameter == pytest.approx(3 * 25.4)
    assert "radius = 1.5" in scenario_io.dumps(s).splitlines()  # written back as it was given


@pytest.mark.parametrize(
    ("raw", "name", "message"),
    [
        (b"a = 1\n\xff\xfe = 2\n", "n.toml", "n.toml:2: not valid UTF-8 (byte 6)"),
        (b'{"a": 1,}', "n.json", "n.json:1: JSON syntax: Expecting property name enclosed in double quotes (column 9)"),
        (b"a = = 1\n", "n.toml", "n.toml:1: TOML syntax: Invalid value"),
        (b"\n\nformat = \n", "n.toml", "n.toml:3: TOML syntax: Invalid value"),
        (b"[" * 100_000 + b"]" * 100_000, "n.json", "n.json: nested too deeply to be a scenario"),
        (b"[1, 2]", "n.json", "n.json: the top level must be a table/object"),
        (b'{"a": 1' + b"0" * 5000 + b"}", "n.json",
         "n.json: cannot parse: Exceeds the limit (4300 digits) for integer string conversion: value has 5001 digits; "
         "use sys.set_int_max_str_digits() to increase the limit"),
    ],
)
def test_unreadable_documents_are_named_with_their_line(raw: bytes, name: str, message: str) -> None:
    from tabletop.scenario_io.reading import parse_document

    with pytest.raises(scenario_io.ScenarioError) as err:
        parse_document(raw, name, json_syntax=name.endswith(".json"))
    assert str(err.value) == message


def test_a_byte_order_mark_is_skipped() -> None:
    from tabletop.scenario_io.reading import parse_document

    assert parse_document(b"\xef\xbb\xbfformat = 1\n", "n.toml") == ({"format": 1}, "format = 1\n")


def test_document_limits_anywhere_in_a_file() -> None:
    from tabletop.scenario_io.checks import _document_problems

    def nest(n: int) -> Any:
        x: Any = 1
        for _ in range(n):
            x = {"k": x}
        return x

    assert _document_problems(nest(12)) == []
    assert _document_problems(nest(13)) == [(("k",) * 12, "nested more than 12 deep")]
    assert _document_problems({"x": "x" * 10_000, "y": [1] * 10_000, "m": 2**53, "seed": 2**63}) == []  # the seed's range: _seed_problem
    assert _document_problems({"a\x07": 1, "ok": [1] * 10_001, "pts": {"points": [[0, 0]] * 10_001}}) == [
        ((), "key 'a\\x07' must be printable and at most 200 characters"),
        (("ok",), "at most 10,000 entries, got 10,001"),
        (("pts", "points"), "a terrain outline has at most 10,000 points, got 10,001"),
    ]
    assert sorted(_document_problems({"seed": 2**63 + 1, "n": 2**53 + 1, "t": "x" * 10_001, "s": "\ud800"})) == sorted([
        (("n",), "number too large, got a 16-digit number (whole numbers are at most 9,007,199,254,740,992)"),
        (("t",), "text of 10,001 characters; at most 10,000"),
        (("s",), "holds a lone UTF-16 surrogate (not valid text): '\\ud800'"),
    ])
    assert len(_document_problems({f"k{i}": 2**60 for i in range(30)})) == 20  # at most 20 named


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_BARE + '[[model]]\nid = "a b"\nx = 1\ny = 1\nbase = 1\n', "<scenario>.toml:7: model[0].id: must be letters, digits, '-' or '_', got 'a b'"),
        (_BARE + '[[model]]\nid = "' + "a" * 201 + '"\nx = 1\ny = 1\nbase = 1\n', "<scenario>.toml:7: model[0].id: must be at most 200 characters, got 201"),
        (_BARE + '[[model]]\nid = "' + "a" * 200 + '"\nx = 1\ny = 1\nbase = 1\n', None),
        (_BARE + '[[model]]\nid = "a"\nx = 1\ny = 1\nbase = -1\n', "<scenario>.toml:10: model[0].base: must be a positive length, got -1"),
        ('format = 1\nruleset = "none"\n[table]\nwidth = "2000mm"\ndepth = "2000mm"\ngrid = "1mm"\n', None),
        ('format = 1\nruleset = "none"\n[table]\nwidth = "2000mm"\ndepth = "2001mm"\ngrid = "1mm"\n',
         "<scenario>.toml:3: table: grid of 1 mm makes 4,002,000 squares; at most 4,000,000 (use a coarser grid)"),
        ('format = true\nruleset = "none"\n[table]\nwidth = 1\ndepth = 1\n', "<scenario>.toml:1: format: must be 1, got True"),
        ('format = 1\nruleset = "none"\nunits = "ft"\n[table]\nwidth = 1\ndepth = 1\n', "<scenario>.toml:3: units: input should be 'in', 'mm' or 'cm', got 'ft'"),
    ],
)
def test_field_messages_word_for_word(text: str, message: str | None) -> None:
    if message is None:
        scenario_io.loads(text)
        return
    assert _error(text, None) == message


def test_a_json_file_is_named_with_its_own_line_numbers() -> None:
    import json

    doc = {"format": 1, "ruleset": "none", "table": {"width": 12, "depth": 12}, "model": [{"id": "m", "x": "far", "y": 1, "base": 1}]}
    for name in ("t.json", "T.JSON"):
        # Line 11 of the indented JSON holds "x": "far" (its TOML lines would be other ones).
        assert json.dumps(doc, indent=2).splitlines()[10].strip() == '"x": "far",'
        assert _error(json.dumps(doc, indent=2), name) == f"{name}:11: model[0].x: cannot read 'far' as a length (write e.g. 25mm, 1.5in, 3cm or 2\")"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_GHOST + '[[template]]\nid = "t"\nshape = "small_blast"\nimpact = { attacker = "ghost", target = "ghost" }\n',
         "F:14: template[0].impact.target: a model cannot aim at itself"),
        (_GHOST + '[[template]]\nid = "t"\nshape = "small_blast"\nimpact = { attacker = "ghost", target = "zzzz" }\n',
         "F:14: template[0].impact.target: target 'zzzz' is not a model on this table"),
        (_GHOST + '[[template]]\nid = "t"\nshape = "small_blast"\nimpact = { attacker = "zzzz", target = "ghost" }\n',
         "F:14: template[0].impact.attacker: attacker 'zzzz' is not a model on this table"),
        (_GHOST + '[[template]]\nid = "t"\nshape = "small_blast"\nexplosion = { model = "zzzz" }\n',
         "F:14: template[0].explosion.model: model 'zzzz' is not a model on this table"),
    ],
)
def test_reference_messages_word_for_word(tmp_path: Path, text: str, message: str) -> None:
    assert _file_error(tmp_path / "t.toml", _BARE + text) == message


def test_a_missing_backdrop_image_is_a_warning_and_a_folder_is_not_an_image(tmp_path: Path) -> None:
    (tmp_path / "folder.png").mkdir()
    path = tmp_path / "t.toml"
    for image, what in (("nope.png", "not found"), ("folder.png", "is not a file (a folder, device or pipe)")):
        path.write_text(_BARE + f'[backdrop]\nimage = "{image}"\ncorners = [[0, 0], [1, 0], [1, 1], [0, 1]]\n', encoding="utf-8")
        s, warnings = scenario_io.load_with_warnings(path)
        assert s.backdrop is not None and s.backdrop.image == image
        assert [str(w) for w in warnings] == [
            f"{path}:7: warning: backdrop.image: image '{image}' {what} (looked for {tmp_path / image}); the table opens without it"
        ]


def test_a_model_on_the_tables_edge_is_on_it_and_all_outlines_together_are_limited(tmp_path: Path) -> None:
    import math

    path = tmp_path / "t.toml"
    path.write_text(_BARE + '[[model]]\nid = "a"\nx = 12\ny = 0\nbase = 1\n[[model]]\nid = "b"\nx = 0\ny = 12\nbase = 1\n', encoding="utf-8")
    assert scenario_io.load_with_warnings(path)[1] == []

    def ring(n: int, cx: float) -> str:
        return ", ".join(f"[{cx + 0.4 * math.cos(2 * math.pi * i / n):.6f}, {6 + 0.4 * math.sin(2 * math.pi * i / n):.6f}]" for i in range(n))

    under = "".join(f'[[terrain]]\nid = "w{k}"\npoints = [{ring(5000, 1 + k)}]\n' for k in range(4))  # 20,000 in all
    assert len(scenario_io.loads(_BARE + under).terrain) == 4
    over = under + f'[[terrain]]\nid = "w9"\npoints = [{ring(3, 9)}]\n'
    assert _error(_BARE + over, None) == "<scenario>.toml:6: terrain: 20,003 outline points in all; at most 20,000 (simplify the outlines)"
