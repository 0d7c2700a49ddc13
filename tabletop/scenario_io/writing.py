"""Writing: a :class:`~tabletop.model.Scenario` to the file structure, TOML people can read, or JSON; atomically."""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import tomli_w

from tabletop.atomic import atomic_write as _atomic_write
from tabletop.model import At, Direct, Impact, Scenario, TemplateShape
from tabletop.scenario_io.limits import _shown
from tabletop import units

#: Numbers with at most this many decimals are taken as typed by hand.
_HAND_DECIMALS = 6
#: How far (in units in the last place) a length may be from a short decimal of the file's unit and
#: still be that decimal: the noise of the arithmetic that made it (33 in -> 838.2 mm, snapped, halved).
_FLOAT_NOISE_ULPS = 4


def length_for_file(mm: float, unit: str) -> float | str:
    """The value to write for ``mm`` in a file whose bare numbers are ``unit``.

    A length that is a short decimal in the file's unit (at most six decimals), up to the noise
    of float arithmetic, is written as that number: 838.2 mm in an inch file is ``33``, never
    ``"838.2mm"`` beside ``y = 32``. Otherwise as :func:`tabletop.units.length_for_file`: ``"40mm"``
    for a length of at most three decimals in mm that no short inch number gives back exactly (a
    base sold in mm), else the shortest decimal within 0.0005 mm.
    """
    mm = float(mm)
    factor = units.MM_PER_UNIT[unit]
    number = mm / factor
    noise = _FLOAT_NOISE_ULPS * math.ulp(mm)
    for digits in range(_HAND_DECIMALS + 1):
        candidate = round(number, digits)
        if abs(candidate * factor - mm) <= noise:
            return int(candidate) if candidate.is_integer() and abs(candidate) < 2**53 else candidate
    return units.length_for_file(mm, unit)


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _tomlable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _tomlable(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_tomlable(v) for v in value if v is not None]
    return value


def _name_finds(name: str, shape: Any, ruleset: str) -> bool:
    """Whether reading the file back finds ``shape`` under ``name``: in the ruleset's rules file's own
    templates, else the catalogue. A name from a rules file the table no longer uses is written out
    in full instead, or the file could not be opened again."""
    from tabletop import rulesfile
    from tabletop.catalogue import default_catalogue

    rules = rulesfile.rules_of(ruleset)
    if rules is not None and name in rules.shapes:
        return bool(rules.shapes[name] == shape)
    entry = default_catalogue().get(name)
    return entry is not None and entry.shape == shape


def scenario_to_data(s: Scenario) -> dict[str, Any]:
    """The file structure for ``s`` (lengths in its units, to 0.001 mm: :func:`length_for_file`)."""
    u = s.units

    def L(mm: float) -> float | str:
        return length_for_file(mm, u)

    out: dict[str, Any] = {"format": s.format}
    if s.title:
        out["title"] = s.title
    out["ruleset"] = s.ruleset
    out["units"] = u
    for k, v in s.extra.items():
        out[k] = v
    out["table"] = _drop_none({"width": L(s.table.width), "depth": L(s.table.depth), "grid": None if s.table.grid is None else L(s.table.grid), **s.table.extra})
    if s.backdrop is not None:
        out["backdrop"] = {"image": s.backdrop.image, "corners": [[x, y] for x, y in s.backdrop.corners], **s.backdrop.extra}

    models = []
    for m in s.models:
        extra = dict(m.extra)
        base_extra = extra.pop("base_extra", {})
        if m.base.shape == "round" and not base_extra:
            base: Any = L(m.base.length)
        else:
            base = {"shape": m.base.shape, "length": L(m.base.length), "width": L(m.base.width), **base_extra}
        d: dict[str, Any] = {"id": m.id, "name": m.name, "side": m.side, "unit": m.unit, "x": L(m.x), "y": L(m.y), "base": base}
        if m.facing != 90.0:
            d["facing"] = m.facing
        d["z"] = None if m.z is None else L(m.z)
        d["height"] = None if m.height is None else L(m.height)
        d["sigma"] = None if m.sigma is None else L(m.sigma)
        if m.stats:
            d["stats"] = dict(m.stats)
        if m.tags:
            d["tags"] = list(m.tags)
        if m.engaged:
            d["engaged"] = list(m.engaged)
        d.update(extra)
        models.append(_drop_none(d))

    terrain = []
    for piece in s.terrain:
        d = {"id": piece.id, "name": piece.name, "kind": piece.kind}
        if piece.rect is not None:
            d["rect"] = {"x": L(piece.rect.x), "y": L(piece.rect.y), "length": L(piece.rect.length), "width": L(piece.rect.width), "rotation": piece.rect.rotation}
        else:
            d["points"] = [[L(x), L(y)] for x, y in piece.polygon]
        d["height"] = None if piece.height is None else L(piece.height)
        if not piece.blocks_los:
            d["blocks_los"] = False
        if piece.stats:
            d["stats"] = dict(piece.stats)
        if piece.tags:
            d["tags"] = list(piece.tags)
        d.update(piece.extra)
        terrain.append(_drop_none(d))

    templates = []
    for tpl in s.templates:
        extra = dict(tpl.extra)
        shape_extra = extra.pop("shape_extra", {})
        use_radius = extra.pop("shape_radius", False)
        sub_extra = {k: extra.pop(f"{k}_extra", {}) for k in ("impact", "direct", "explosion")}
        d = {"id": tpl.id}
        if tpl.shape_name is not None and (tpl.shape is None or _name_finds(tpl.shape_name, tpl.shape, s.ruleset)):
            d["shape"] = tpl.shape_name
        elif tpl.shape is not None:
            d["shape"] = shape_to_data(tpl.shape, u, use_radius) | shape_extra
        p = tpl.placement
        if isinstance(p, At):
            d["at"] = [L(p.x), L(p.y)]
            if p.heading != 0.0:
                d["heading"] = p.heading
        elif isinstance(p, Impact):
            aim: dict[str, Any] = {"attacker": p.attacker}
            if p.target is not None:
                aim["target"] = p.target
            else:
                assert p.point is not None
                aim["at"] = [L(p.point[0]), L(p.point[1])]
            d["impact"] = aim | sub_extra["impact"]
        elif isinstance(p, Direct):
            d["direct"] = {"attacker": p.attacker, "heading": p.heading} | sub_extra["direct"]
        else:
            d["explosion"] = {"model": p.model} | sub_extra["explosion"]
        if tpl.battery != 1:
            d["battery"] = tpl.battery
        if tpl.weapon:
            d["weapon"] = dict(tpl.weapon)
        if tpl.rolls:
            d["rolls"] = dict(tpl.rolls)
        d.update(extra)
        templates.append(d)

    if models:
        out["model"] = models
    if terrain:
        out["terrain"] = terrain
    if templates:
        out["template"] = templates
    return _tomlable(out)


def shape_to_data(shape: TemplateShape, units: str, use_radius: bool = False) -> dict[str, Any]:
    """A shape table for the file."""
    d: dict[str, Any] = {"kind": shape.kind}
    if shape.kind == "circle":
        if use_radius:
            d["radius"] = length_for_file(shape.diameter / 2, units)
        else:
            d["diameter"] = length_for_file(shape.diameter, units)
    elif shape.kind == "teardrop":
        d |= {"length": length_for_file(shape.length, units), "tip_width": length_for_file(shape.tip_width, units), "end_width": length_for_file(shape.end_width, units)}
    elif shape.kind == "rect":
        d |= {"length": length_for_file(shape.length, units), "width": length_for_file(shape.width, units)}
    else:
        d |= {"length": length_for_file(shape.length, units), "angle": shape.angle}
    if shape.label:
        d["label"] = shape.label
    if shape.size_uncertainty:
        d["size_uncertainty"] = length_for_file(shape.size_uncertainty, units)
    return d


def dumps(s: Scenario) -> str:
    """The scenario as TOML text: lengths to 0.001 mm, a point per line (:func:`toml_text`)."""
    return toml_text(scenario_to_data(s))


#: A flat array longer than this is written one item per line (tomli_w's own limit).
_TOML_LINE = 100
_INDENT = "    "


def _toml_key(key: str, cache: dict[str, str]) -> str:
    if key not in cache:
        cache[key] = tomli_w.dumps({key: 0})[: -len(" = 0\n")]  # bare or quoted, as tomli_w writes it
    return cache[key]


def _toml_inline(value: Any, keys: dict[str, str]) -> str:
    """Any value on one line (inside an inline table or array nothing may span lines)."""
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{_toml_key(str(k), keys)} = {_toml_inline(v, keys)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_inline(v, keys) for v in value) + "]"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)  # as tomli_w writes numbers
    return tomli_w.dumps({"v": value})[4:-1]


def _toml_array(items: Sequence[Any], indent: str, keys: dict[str, str]) -> str:
    """An array after ``key = ``: on one line when it holds no array and fits, else one item per line."""
    inline = _toml_inline(items, keys)
    nested = any(isinstance(v, (list, tuple, Mapping)) for v in items)
    if not items or (not nested and len(indent) + len(inline) <= _TOML_LINE):
        return inline
    inner = indent + _INDENT
    lines = [inner + (_toml_array(v, inner, keys) if isinstance(v, (list, tuple)) else _toml_inline(v, keys)) + "," for v in items]
    return "[\n" + "\n".join(lines) + "\n" + indent + "]"


def _is_table_array(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _toml_table(table: Mapping[str, Any], name: str, in_array: bool, keys: dict[str, str], out: list[str]) -> None:
    literals = [(k, v) for k, v in table.items() if not isinstance(v, Mapping) and not _is_table_array(v)]
    tables = [(k, v) for k, v in table.items() if isinstance(v, Mapping) or _is_table_array(v)]
    if in_array or (name and (literals or not tables)):
        out.append(f"[[{name}]]\n" if in_array else f"[{name}]\n")
    for k, v in literals:
        value = _toml_array(v, "", keys) if isinstance(v, (list, tuple)) else _toml_inline(v, keys)
        out.append(f"{_toml_key(str(k), keys)} = {value}\n")
    for k, v in tables:
        path = f"{name}.{_toml_key(str(k), keys)}" if name else _toml_key(str(k), keys)
        for sub, is_item in ([(t, True) for t in v] if _is_table_array(v) else [(v, False)]):
            if out and out[-1] != "\n":
                out.append("\n")
            _toml_table(sub, path, is_item, keys, out)


def toml_text(data: Mapping[str, Any]) -> str:
    """``data`` as TOML that people can read: every table and array of tables as a section
    (``[table]``, ``[[model]]``), an array of numbers or strings on one line
    (``at = [6, 9]``), an array of arrays one inner array per line (a polygon's
    ``points``, one point a line). Keys and strings are written by tomli_w, numbers as
    ``str`` writes them; ``tomllib.loads`` gives ``data`` back."""
    out: list[str] = []
    _toml_table(data, "", False, {}, out)
    return "".join(out)


def atomic_write(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never half of one.

    Temp file, fsync, rename, fsync of the folder (:mod:`tabletop.atomic`); through a
    symbolic link the target is written and the link kept. Raises ``OutputError``
    (an OSError) naming the path.
    """
    _atomic_write(path, data)


def _json_default(value: Any) -> Any:
    """TOML dates and times among kept keys: JSON has none, so they are written as ISO 8601 text."""
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    raise TypeError(f"cannot write {type(value).__name__} {_shown(value)} as JSON")


def save(s: Scenario, path: Path | str) -> None:
    """Save as TOML atomically (a ``.json`` path gets JSON of the same structure)."""
    path = Path(path)
    document = scenario_to_data(s)  # (shape names checked against the rules file as the table names it)
    if s.ruleset.lower().endswith(".toml"):  # a rules file: written relative to the scenario (docs/rules-files.md)
        from tabletop.rulesfile import relative_to

        document["ruleset"] = relative_to(s.ruleset, path)
    if path.suffix.lower() == ".json":
        data = json.dumps(document, indent=2, ensure_ascii=False, default=_json_default).encode("utf-8")
    else:
        data = toml_text(document).encode("utf-8")
    atomic_write(path, data)
