"""The fast path of validation (tabletop.scenario_io.fast) against the pydantic schema.

The fast path reads a valid file without building the schema; it must never accept a
document the schema rejects, and what it accepts it must read exactly as the schema does.
Here both judge every bundled table, every hostile file of tests/bad_scenarios, and
random mutations of valid tables.
"""

from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop import scenario_io
from tabletop.scenario_io import fast, schema
from tabletop.scenario_io.fields import FIELDS, NESTED
from tabletop.units import MM_PER_UNIT

from .conftest import ROOT, SCENARIOS

BAD = Path(__file__).parent / "bad_scenarios"
VALID_FILES = sorted(SCENARIOS.glob("*.toml"))
FUZZ = settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])


def _units(data: Any) -> str:
    units = data.get("units", "in") if isinstance(data, dict) else "in"
    return units if isinstance(units, str) and units in MM_PER_UNIT else "in"


def _by_schema(data: Any) -> Any:
    try:
        return schema.ScenarioIn.model_validate(data, context={"units": _units(data)})
    except schema.ValidationError:
        return None


def _dump(value: Any) -> Any:
    """A value with every type spelled out (1 and 1.0 differ), tables as plain dicts."""
    if hasattr(value, "model_extra"):
        names = type(value).model_fields if isinstance(value, schema.BaseModel) else [k for k in vars(value) if k != "model_extra"]
        return {"fields": {n: _dump(getattr(value, n)) for n in names}, "extra": _dump(value.model_extra or {})}
    if isinstance(value, dict):
        return ("dict", [(_dump(k), _dump(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_dump(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def _agree(data: Any) -> Any:
    """Assert the fast path accepts only what the schema accepts, read the same; return its answer."""
    quick = fast.validate(copy.deepcopy(data), _units(data))
    if quick is not None:
        reference = _by_schema(copy.deepcopy(data))
        assert reference is not None, "the fast path accepted a document the schema rejects"
        assert _dump(quick) == _dump(reference)
    return quick


def test_field_tables_are_the_schema_fields() -> None:
    for kind, names in FIELDS.items():
        assert names == tuple(getattr(schema, kind).model_fields), kind
    for (kind, key), sub in NESTED.items():
        annotation = getattr(schema, kind).model_fields[key].annotation
        assert getattr(schema, sub) is annotation or getattr(schema, sub) in getattr(annotation, "__args__", ()), (kind, key)


@pytest.mark.parametrize("path", VALID_FILES, ids=lambda p: p.name)
def test_valid_tables_take_the_fast_path(path: Path) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert _agree(data) is not None


def test_the_big_table_takes_the_fast_path() -> None:
    from benchmarks.__main__ import big_table

    data = scenario_io.scenario_to_data(big_table(300, 60, 6))
    assert _agree(data) is not None
    assert _agree(json.loads(json.dumps(data))) is not None


@pytest.mark.parametrize("path", sorted(BAD.iterdir()), ids=lambda p: p.name)
def test_hostile_files_never_pass_the_fast_path_alone(path: Path) -> None:
    try:
        data, _ = scenario_io.read_document(path)
    except scenario_io.ScenarioError:
        return  # refused before validation
    _agree(data)


def test_a_valid_file_is_read_the_same_with_and_without_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    for path in VALID_FILES:
        quick = scenario_io.load_with_warnings(path)
        with monkeypatch.context() as m:
            m.setattr(fast, "validate", lambda data, units: None)
            assert scenario_io.load_with_warnings(path) == quick, path.name


def test_unknown_keys_of_a_base_are_warned_once() -> None:
    text = 'format = 1\n[table]\nwidth = 10\ndepth = 10\n[[model]]\nid = "a"\nx = 1\ny = 1\nbase = { length = 1, colour = "red" }\n'
    data, text = scenario_io.parse_document(text.encode(), "s.toml")
    _, warnings = scenario_io.scenario_from_data(data, "s.toml", text)
    assert [str(w) for w in warnings] == ["s.toml:9: warning: model[0].base.colour: unknown key 'colour' is kept but not used"]


def test_check_of_a_valid_file_does_not_import_pydantic() -> None:
    code = (
        "import sys, io, contextlib\nfrom tabletop import cli\n"
        f"with contextlib.redirect_stdout(io.StringIO()): rc = cli.main(['check', {str(SCENARIOS / 'default.toml')!r}, '--json'])\n"
        "print(rc, 'pydantic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout.split()
    assert out == ["0", "False"]


# --------------------------------------------------------------------------- random documents

BASES = [tomllib.loads(p.read_text(encoding="utf-8")) for p in VALID_FILES]
scalars = st.one_of(
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([
        None, True, False, 0, 1, 2, 50, 51, -1, 0.0, 1.0, -0.0, 1e-9, 1e308, "", "25mm", "1in", "-3in", "2cm", "abc", "1e999in",
        "nan", "round", "oval", "rect", "circle", "in", "mm", "cm", "none", "infinity", "infinty", "a", "m0", "t1", "\u0000", "🙂",
    ]),
    st.text(max_size=8),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(sorted({f for fs in FIELDS.values() for f in fs} | {"kind", "diameter", "zz"})), inner, max_size=4)),
    max_leaves=10,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


@FUZZ
@given(st.data())
def test_random_mutations_of_valid_tables(data: st.DataObject) -> None:
    doc = copy.deepcopy(data.draw(st.sampled_from(BASES)))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(doc)))
        parent: Any = doc
        for key in path[:-1]:
            parent = parent[key]
        action = data.draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "replace":
            parent[path[-1]] = data.draw(values)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[data.draw(st.sampled_from(sorted({f for fs in FIELDS.values() for f in fs} | {"zz"})))] = data.draw(values)
    _agree(doc)


@FUZZ
@given(st.dictionaries(st.sampled_from([*FIELDS["ScenarioIn"], "seed", "zz"]), values, max_size=8))
def test_random_documents(doc: dict[str, Any]) -> None:
    _agree(doc)


def test_an_impact_at_a_point_with_an_extra_key_takes_the_fast_path() -> None:
    # A speculative impact (a point, not a model), in inches, with a key the schema keeps as extra.
    data = {
        "format": 1, "ruleset": "none", "units": "in", "table": {"width": 12, "depth": 12},
        "model": [{"id": "a", "x": 1, "y": 1, "base": 1}],
        "template": [{"id": "t", "shape": "small_blast", "impact": {"attacker": "a", "at": [5, 6], "note": "guess"}}],
    }
    quick = _agree(data)
    assert quick is not None
    impact = quick.template[0].impact
    assert impact.at == (5 * 25.4, 6 * 25.4) and impact.model_extra == {"note": "guess"}


@pytest.mark.parametrize("heading", [None, 30])
def test_a_direct_placement_with_an_extra_key_takes_the_fast_path(heading: int | None) -> None:
    direct: dict[str, Any] = {"attacker": "a", "why": "test"}
    if heading is not None:
        direct["heading"] = heading
    data = {
        "format": 1, "ruleset": "none", "table": {"width": 12, "depth": 12},
        "model": [{"id": "a", "x": 1, "y": 1, "base": 1}],
        "template": [{"id": "t", "shape": "small_blast", "direct": direct}],
    }
    quick = _agree(data)
    assert quick is not None
    d = quick.template[0].direct
    assert d.heading == (0.0 if heading is None else 30.0) and d.model_extra == {"why": "test"}


def test_terrain_heights_and_rect_extras_take_the_fast_path() -> None:
    data = {
        "format": 1, "ruleset": "none", "units": "in", "table": {"width": 12, "depth": 12},
        "terrain": [{"id": "w", "height": 2, "rect": {"x": 1, "y": 1, "length": 2, "width": 1, "note": "crate"}}],
    }
    quick = _agree(data)
    assert quick is not None
    t = quick.terrain[0]
    assert t.height == 2 * 25.4 and t.rect.model_extra == {"note": "crate"}


@pytest.mark.parametrize("units", ["in", "mm", "cm", None])
def test_every_optional_model_field_takes_the_fast_path(units: str | None) -> None:
    data: dict[str, Any] = {
        "format": 1, "ruleset": "none", "table": {"width": 100, "depth": 100, "grid": 2},
        "model": [
            {"id": "a", "x": 1, "y": 1, "base": {"shape": "rect", "length": 2, "width": 1}, "height": 3, "sigma": 0.1, "engaged": ["b"]},
            {"id": "b", "x": 4, "y": 4, "base": {"length": 2}},
        ],
    }
    if units is not None:
        data["units"] = units
    quick = _agree(data)
    assert quick is not None
    a, b = quick.model
    scale = {"in": 25.4, "mm": 1.0, "cm": 10.0, None: 25.4}[units]
    assert a.height == pytest.approx(3 * scale) and a.sigma == pytest.approx(0.1 * scale) and a.engaged == ("b",)
    assert a.base.shape == "rect" and b.base.shape == "round"
