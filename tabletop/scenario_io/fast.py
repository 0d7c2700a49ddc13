"""The fast path of validation: a valid document read without building the pydantic schema.

It runs the same field checks (:mod:`.fields`) the schema runs, in the same order of
meaning, and gives the reader the same values. It only ever says yes: at the first thing
it is not sure of (a bad value, a type pydantic would convert, a ``None`` where the
schema might read it differently) it returns None and the reader asks the schema, which
accepts or names every problem in the file's words. So it cannot accept what the schema
rejects; tests compare the two on random and hostile documents. Importing pydantic and
building the schema costs a `tabletop check` more than reading a 300-model table does.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

from tabletop.scenario_io.fields import (
    FIELDS,
    _angle,
    _base,
    _base_sides,
    _format,
    _grid,
    _grid_squares,
    _identifier,
    _image_path,
    _known_ruleset,
    _length,
    _non_negative_length,
    _one_aim,
    _one_outline,
    _one_placement,
    _pixel_corners,
    _point,
    _points,
    _positive_length,
    _rolls,
    _shape,
    _sigma,
    _stats,
    _strict_bool,
    _strict_int,
    _strings,
    _text,
    _weapon,
)
from tabletop.scenario_io.limits import MAX_BATTERY, MAX_MODELS, MAX_TEMPLATES, MAX_TERRAIN
from tabletop.units import MAX_NAME_CHARS, MAX_TITLE_CHARS


class Unsure(Exception):
    """Raised inside the fast path: leave this document to the schema."""


class Parsed(SimpleNamespace):
    """One validated table: its fields as attributes and ``model_extra``, as a schema model has."""

    model_extra: dict[str, Any]


_MISSING = object()


def _exact_str(check: Any) -> Any:
    """``check`` for text, sure only of a plain str (pydantic may convert a subclass)."""

    def run(value: Any) -> str:
        if type(value) is not str:
            raise Unsure
        return check(value)  # type: ignore[no-any-return]

    return run


_name = _exact_str(_text(MAX_NAME_CHARS))
_title = _exact_str(_text(MAX_TITLE_CHARS))
_id = _exact_str(_identifier)


def _strs(value: Any) -> tuple[str, ...]:
    out = _strings(value)
    if any(type(v) is not str for v in out):
        raise Unsure
    return out


def _table(value: Any, kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(fields given, extra keys) of a table; Unsure unless it is a plain dict with text keys."""
    if type(value) is not dict or any(type(k) is not str for k in value):
        raise Unsure
    known = FIELDS[kind]
    return value, {k: v for k, v in value.items() if k not in known}


def _float(value: Any) -> float:
    if type(value) is not float and type(value) is not int:
        raise Unsure
    number = float(value)
    if not math.isfinite(number):
        raise Unsure
    return number


def _opt(d: dict[str, Any], key: str, check: Any, *args: Any) -> Any:
    """An optional field: None when absent; a None value is left to the schema."""
    value = d.get(key, _MISSING)
    if value is _MISSING:
        return None
    if value is None:
        raise Unsure
    return check(value, *args)


def _req(d: dict[str, Any], key: str, check: Any, *args: Any) -> Any:
    value = d.get(key, _MISSING)
    if value is _MISSING:
        raise Unsure
    return check(value, *args)


def _flen(check: Any) -> Any:
    return lambda value, info: _float(check(value, info))


_L = _flen(_length)
_PL = _flen(_positive_length)
_NNL = _flen(_non_negative_length)
_GL = _flen(_grid)
_SIG = _flen(_sigma)


def _ang(value: Any) -> float:
    return _float(_angle(value))


def _pt(value: Any, info: Any) -> tuple[float, float]:
    x, y = _point(value, info)
    return (_float(x), _float(y))


def _pts(value: Any, info: Any) -> tuple[tuple[float, float], ...]:
    return tuple((_float(x), _float(y)) for x, y in _points(value, info))


def _str_keys(d: dict[str, Any]) -> dict[str, Any]:
    if any(type(k) is not str for k in d):
        raise Unsure
    return d


def _base_in(value: Any, info: Any) -> Parsed:
    d, extra = _table(_base(value, info), "BaseIn")
    shape = d.get("shape", "round")
    if type(shape) is not str or shape not in ("round", "oval", "rect"):
        raise Unsure
    out = Parsed(shape=shape, length=_req(d, "length", _PL, info), width=_opt(d, "width", _PL, info), model_extra=extra)
    _base_sides(out.shape, out.width)
    return out


def _model_in(value: Any, info: Any) -> Parsed:
    d, extra = _table(value, "ModelIn")
    return Parsed(
        id=_req(d, "id", _id),
        name=_opt(d, "name", _name),
        side=_opt(d, "side", _name),
        unit=_opt(d, "unit", _name),
        x=_req(d, "x", _L, info),
        y=_req(d, "y", _L, info),
        base=_req(d, "base", _base_in, info),
        facing=_ang(d["facing"]) if "facing" in d else 90.0,
        z=_opt(d, "z", _L, info),
        height=_opt(d, "height", _PL, info),
        stats={k: _float(v) for k, v in _stats(d["stats"]).items()} if "stats" in d else {},
        tags=_strs(d["tags"]) if "tags" in d else (),
        engaged=_strs(d["engaged"]) if "engaged" in d else (),
        sigma=_opt(d, "sigma", _SIG, info),
        model_extra=extra,
    )


def _rect_in(value: Any, info: Any) -> Parsed:
    d, extra = _table(value, "RectIn")
    return Parsed(
        x=_req(d, "x", _L, info),
        y=_req(d, "y", _L, info),
        length=_req(d, "length", _PL, info),
        width=_req(d, "width", _PL, info),
        rotation=_ang(d["rotation"]) if "rotation" in d else 0.0,
        model_extra=extra,
    )


def _terrain_in(value: Any, info: Any) -> Parsed:
    d, extra = _table(value, "TerrainIn")
    out = Parsed(
        id=_req(d, "id", _id),
        name=_opt(d, "name", _name),
        kind=_opt(d, "kind", _name),
        points=_opt(d, "points", _pts, info),
        rect=_opt(d, "rect", _rect_in, info),
        height=_opt(d, "height", _NNL, info),
        blocks_los=_strict_bool(d["blocks_los"]) if "blocks_los" in d else True,
        stats={k: _float(v) for k, v in _stats(d["stats"]).items()} if "stats" in d else {},
        tags=_strs(d["tags"]) if "tags" in d else (),
        model_extra=extra,
    )
    _one_outline(out.points, out.rect)
    return out


def _impact_in(value: Any, info: Any) -> Parsed:
    d, extra = _table(value, "ImpactIn")
    out = Parsed(attacker=_req(d, "attacker", _id), target=_opt(d, "target", _id), at=_opt(d, "at", _pt, info), model_extra=extra)
    _one_aim(out.target, out.at)
    return out


def _direct_in(value: Any) -> Parsed:
    d, extra = _table(value, "DirectIn")
    return Parsed(attacker=_req(d, "attacker", _id), heading=_ang(d["heading"]) if "heading" in d else 0.0, model_extra=extra)


def _explosion_in(value: Any) -> Parsed:
    d, extra = _table(value, "ExplosionIn")
    return Parsed(model=_req(d, "model", _id), model_extra=extra)


def _shape_in(value: Any) -> str | dict[str, Any]:
    shape = _shape(value)
    if type(shape) is dict:
        return _str_keys(shape)
    if type(shape) is not str:
        raise Unsure
    return shape


def _battery(value: Any) -> int:
    n = _strict_int(value)
    if not 1 <= n <= MAX_BATTERY:
        raise Unsure
    return n


def _template_in(value: Any, info: Any) -> Parsed:
    d, extra = _table(value, "TemplateIn")
    out = Parsed(
        id=_req(d, "id", _id),
        shape=_opt(d, "shape", _shape_in),
        at=_opt(d, "at", _pt, info),
        impact=_opt(d, "impact", _impact_in, info),
        direct=_opt(d, "direct", _direct_in),
        explosion=_opt(d, "explosion", _explosion_in),
        heading=_ang(d["heading"]) if "heading" in d else 0.0,
        battery=_battery(d["battery"]) if "battery" in d else 1,
        weapon=_str_keys(_weapon(d["weapon"])) if "weapon" in d else {},
        rolls=_str_keys(_rolls(d["rolls"])) if "rolls" in d else {},
        model_extra=extra,
    )
    _one_placement({"at": out.at, "impact": out.impact, "direct": out.direct, "explosion": out.explosion}, out.shape)
    return out


def _table_in(value: Any, info: Any) -> Parsed:
    d, extra = _table(value, "TableIn")
    out = Parsed(width=_req(d, "width", _PL, info), depth=_req(d, "depth", _PL, info), grid=_opt(d, "grid", _GL, info), model_extra=extra)
    _grid_squares(out.width, out.depth, out.grid)
    return out


def _backdrop_in(value: Any) -> Parsed:
    d, extra = _table(value, "BackdropIn")
    corners = tuple((_float(x), _float(y)) for x, y in _req(d, "corners", _pixel_corners))
    return Parsed(image=_req(d, "image", _exact_str(_image_path)), corners=corners, model_extra=extra)


def _items(d: dict[str, Any], key: str, limit: int, read: Any, info: Any) -> list[Parsed]:
    items = d.get(key, _MISSING)
    if items is _MISSING:
        return []
    if type(items) is not list or len(items) > limit:
        raise Unsure
    return [read(item, info) for item in items]


def validate(data: Any, units: str) -> Parsed | None:
    """The document as the schema would give it (``ScenarioIn``), or None: ask the schema."""
    info = SimpleNamespace(context={"units": units})
    try:
        d, extra = _table(data, "ScenarioIn")
        fmt = _req(d, "format", _format)
        if type(fmt) is not int or fmt != 1:
            raise Unsure
        ruleset = d.get("ruleset", "none")
        if "ruleset" in d:
            if type(ruleset) is not str:
                raise Unsure
            _known_ruleset(ruleset)
        file_units = d.get("units", "in")
        if type(file_units) is not str or file_units not in ("in", "mm", "cm"):
            raise Unsure
        return Parsed(
            format=fmt,
            title=_title(d["title"]) if "title" in d else "",
            ruleset=ruleset,
            units=file_units,
            table=_req(d, "table", _table_in, info),
            model=_items(d, "model", MAX_MODELS, _model_in, info),
            terrain=_items(d, "terrain", MAX_TERRAIN, _terrain_in, info),
            template=_items(d, "template", MAX_TEMPLATES, _template_in, info),
            backdrop=_opt(d, "backdrop", _backdrop_in),
            model_extra=extra,
        )
    except (Unsure, ValueError, TypeError, LookupError, AttributeError, OverflowError):
        return None
