"""The checks of single fields: plain functions, each raising ValueError with the message a user sees.

The pydantic schema (:mod:`.schema`) calls them as before-validators; the fast path
(:mod:`.fast`) calls the same functions. A message that names a place below the field
carries it with :func:`_at`. No pydantic at run time.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tabletop.scenario_io.limits import (
    _ID,
    MAX_ANGLE_DEG,
    MAX_EXACT_INT,
    MAX_FREE_DEPTH,
    MAX_GRID_SQUARES,
    MAX_IMAGE_PX,
    MAX_ITEMS,
    MAX_ROLL,
    MAX_SIGMA_MM,
    MAX_STAT,
    MAX_VERTICES,
    MIN_GRID_MM,
    STAT_COUNTS,
    WEAPON_COUNTS,
    _shown,
)
from tabletop.units import MAX_NAME_CHARS, MAX_TEXT_CHARS, MIN_TEMPLATE_MM, LengthError, parse_length, printable

if TYPE_CHECKING:
    from pydantic import ValidationInfo


def _units(info: ValidationInfo) -> str:
    ctx = info.context or {}
    return str(ctx.get("units", "in"))


def _length(value: Any, info: ValidationInfo) -> float:
    try:
        return parse_length(value, _units(info))
    except LengthError as exc:
        raise ValueError(str(exc)) from None


def _positive_length(value: Any, info: ValidationInfo) -> float:
    mm = _length(value, info)
    if not mm > 0:
        raise ValueError(f"must be a positive length, got {_shown(value)}")
    if mm < MIN_TEMPLATE_MM:
        raise ValueError(f"must be at least {MIN_TEMPLATE_MM} mm, got {_shown(value)}")
    return mm


def _non_negative_length(value: Any, info: ValidationInfo) -> float:
    mm = _length(value, info)
    if mm < 0:
        raise ValueError(f"must not be negative, got {_shown(value)}")
    return mm


def _sigma(value: Any, info: ValidationInfo) -> float:
    mm = _non_negative_length(value, info)
    if mm > MAX_SIGMA_MM:
        raise ValueError(f"a position uncertainty must be at most {MAX_SIGMA_MM:g} mm, got {_shown(value)}")
    return mm


def _pixel_corners(value: Any) -> tuple[tuple[float, float], ...]:
    if not isinstance(value, list) or len(value) != 4:
        raise ValueError(f"must be 4 image points [[x, y], ...] (lower-left, lower-right, upper-right, upper-left), got {_shown(value)}")
    out = []
    for i, p in enumerate(value):
        if not isinstance(p, list) or len(p) != 2:
            raise ValueError(_at(str(i), f"must be a point [x, y] in image pixels, got {_shown(p)}"))
        try:
            x, y = _finite(p[0]), _finite(p[1])
        except ValueError as exc:
            raise ValueError(_at(str(i), str(exc))) from None
        if abs(x) > MAX_IMAGE_PX or abs(y) > MAX_IMAGE_PX:
            raise ValueError(_at(str(i), f"must be within ±{MAX_IMAGE_PX:,.0f} pixels, got {_shown(p)}"))
        out.append((x, y))
    return tuple(out)


def _image_path(value: Any) -> str:
    text = _text(MAX_TEXT_CHARS)(value)
    if not text.strip():
        raise ValueError("must name an image file (a path relative to the scenario file)")
    return text


def _grid(value: Any, info: ValidationInfo) -> float:
    mm = _length(value, info)
    if not mm >= MIN_GRID_MM:
        raise ValueError(f"a grid square must be at least {MIN_GRID_MM:g} mm, got {_shown(value)}")
    return mm


def _finite(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"must be a number, got {_shown(value)}")
    if isinstance(value, int) and abs(value) > MAX_EXACT_INT:
        raise ValueError(f"number too large, got {_shown(value)}")
    if not math.isfinite(value):
        raise ValueError(f"must be finite, got {value!r}")
    return float(value)


def _angle(value: Any) -> float:
    degrees = _finite(value)
    if abs(degrees) > MAX_ANGLE_DEG:
        raise ValueError(f"must be an angle within ±{MAX_ANGLE_DEG:g} degrees, got {_shown(value)}")
    return degrees


def _identifier(value: Any) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise ValueError(f"must be letters, digits, '-' or '_', got {_shown(value)}")
    if len(value) > MAX_NAME_CHARS:
        raise ValueError(f"must be at most {MAX_NAME_CHARS} characters, got {len(value)}")
    return value


def _text(limit: int) -> Any:
    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise ValueError(f"must be text, got {_shown(value)}")
        if len(value) > limit:
            raise ValueError(f"must be at most {limit} characters, got {len(value)}")
        if not printable(value):
            raise ValueError(f"must not hold control characters, got {_shown(value)}")
        return value

    return check


def _strict_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"must be a whole number, got {_shown(value)}")
    return value


def _strict_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, got {_shown(value)}")
    return value


def _point(value: Any, info: ValidationInfo) -> tuple[float, float]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"must be a point [x, y], got {_shown(value)}")
    return (_length(value[0], info), _length(value[1], info))


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"must be a list of strings, got {_shown(value)}")
    if len(value) > MAX_ITEMS:
        raise ValueError(f"at most {MAX_ITEMS} entries, got {len(value)}")
    for v in value:
        _text(MAX_NAME_CHARS)(v)
    return tuple(value)


def _stats(value: Any) -> dict[str, float]:
    if not isinstance(value, dict):
        raise ValueError(f"must be a table of numbers, got {_shown(value)}")
    out: dict[str, float] = {}
    for k, v in value.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(_at(str(k), f"must be a finite number, got {_shown(v)}"))
        limit = STAT_COUNTS.get(str(k), MAX_STAT)
        if abs(v) > limit:
            raise ValueError(_at(str(k), f"must be within ±{limit:,}, got {_shown(v)}"))
        out[str(k)] = v
    return out


def _free_problem(value: Any, where: str, depth: int, counts: Mapping[str, int]) -> tuple[str, str] | None:
    """(sub-path, message) of what is out of range in a free-form table (weapon, rolls), or None."""
    if depth > MAX_FREE_DEPTH:
        return where, f"nested more than {MAX_FREE_DEPTH} deep"
    if isinstance(value, dict):
        for k, v in value.items():
            here = f"{where}.{k}" if where else str(k)
            if depth == 0 and str(k) in counts and not isinstance(v, bool) and isinstance(v, (int, float)) and abs(v) > counts[str(k)]:
                return here, f"at most {counts[str(k)]:,} (more than any table fields), got {_shown(v)}"
            found = _free_problem(v, here, depth + 1, {})
            if found:
                return found
        return None
    if isinstance(value, list):
        if len(value) > MAX_ITEMS:
            return where, f"at most {MAX_ITEMS} entries, got {len(value)}"
        for i, v in enumerate(value):
            found = _free_problem(v, f"{where}[{i}]", depth + 1, {})
            if found:
                return found
        return None
    if value is None:
        # JSON's null: TOML has none, and a ruleset reading weapon.damage must not get one.
        return where, "must not be null (leave the key out instead)"
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return where, f"must be finite, got {value!r}"
        if abs(value) > MAX_STAT:
            return where, f"must be within ±{MAX_STAT:,}, got {_shown(value)}"
        return None
    if isinstance(value, str) and (len(value) > MAX_TEXT_CHARS or not printable(value)):
        return where, f"text must be printable and at most {MAX_TEXT_CHARS} characters"
    return None


_SUB = "\x1f"  # marks a sub-path inside a validator's message (pydantic cannot extend the location)


def _at(sub_path: str, message: str) -> str:
    return f"{_SUB}{sub_path}{_SUB}{message}" if sub_path else message


def _split_sub(message: str) -> tuple[tuple[Any, ...], str]:
    if not message.startswith(_SUB):
        return (), message
    sub, rest = message[1:].split(_SUB, 1)
    parts = tuple(int(p) if p.isdigit() else p for p in re.split(r"[.\[\]]+", sub) if p)
    return parts, rest


def _weapon(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"must be a table, got {_shown(value)}")
    found = _free_problem(value, "", 0, WEAPON_COUNTS)
    if found:
        raise ValueError(_at(*found))
    return dict(value)


def _base(value: Any, info: ValidationInfo) -> Any:
    if isinstance(value, dict):
        return value
    _positive_length(value, info)  # a bare length: report problems at `base` itself
    return {"shape": "round", "length": value}


def _points(value: Any, info: ValidationInfo) -> tuple[tuple[float, float], ...]:
    if not isinstance(value, list):
        raise ValueError(f"must be a list of points [[x, y], ...], got {_shown(value)}")
    if len(value) < 3:
        raise ValueError(f"a polygon needs at least 3 points, got {len(value)}")
    if len(value) > MAX_VERTICES:
        raise ValueError(f"a terrain outline has at most {MAX_VERTICES:,} points, got {len(value):,}")
    out = []
    for i, p in enumerate(value):
        try:
            out.append(_point(p, info))
        except ValueError as exc:
            raise ValueError(_at(str(i), str(exc))) from None
    return tuple(out)


def _shape(value: Any) -> Any:
    if isinstance(value, (str, dict)):
        return value
    raise ValueError(f"must be a catalogue name or a shape table, got {_shown(value)}")


def _rolls(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"must be a table of fixed die results, got {_shown(value)}")
    for k, v in value.items():
        values = v if isinstance(v, list) else [v]
        if not values or any(isinstance(x, bool) or not isinstance(x, int) for x in values):
            raise ValueError(_at(str(k), f"must be a whole number or a list of them, got {_shown(v)}"))
        if len(values) > MAX_ITEMS or any(abs(x) > MAX_ROLL for x in values):
            raise ValueError(_at(str(k), f"at most {MAX_ITEMS} results, each within ±{MAX_ROLL}, got {_shown(v)}"))
    return dict(value)


def _format(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError(f"must be 1, got {value!r}")
    return value


def _known_ruleset(name: str) -> str:
    """``name`` if it is a registered ruleset that loads; else ValueError with the nearest name.

    A registered plug-in that fails to load raises :class:`~tabletop.rulesets.BadPlugin`."""
    from tabletop import rulesets  # the registry imports the core; import late to keep this module light

    if not rulesets.is_registered(name):
        hint = rulesets.suggest(name)
        known = ", ".join(repr(n) for n in rulesets.names())
        raise ValueError(f'unknown ruleset {name!r}: did you mean "{hint}"?' if hint else f"unknown ruleset {name!r} (known: {known})")
    rulesets.get(name)  # a plug-in that fails to load raises BadPlugin: its fault, not the file's
    return name


# Checks across the fields of one table, run once its fields are valid.


def _one_outline(points: object, rect: object) -> None:
    if (points is None) == (rect is None):
        raise ValueError("give exactly one of points or rect")


def _base_sides(shape: str, width: object) -> None:
    if shape != "round" and width is None:
        raise ValueError(f"a {shape} base needs both length and width (a round base takes length alone)")


def _one_aim(target: object, at: object) -> None:
    if (target is None) == (at is None):
        raise ValueError("give exactly one of target or at")


def _one_placement(placements: Mapping[str, object], shape: object) -> None:
    """``placements``: at, impact, direct, explosion (in that order), each None when not given."""
    given = [k for k, v in placements.items() if v is not None]
    if len(given) != 1:
        found = ", ".join(given) or "none"
        raise ValueError(f"give exactly one placement of at, impact, direct, explosion (found {found})")
    if shape is None and placements["explosion"] is None:
        raise ValueError("shape is required (a catalogue name or a shape table)")


def _grid_squares(width: float, depth: float, grid: float | None) -> None:
    if grid is not None:
        squares = math.ceil(width / grid) * math.ceil(depth / grid)
        if squares > MAX_GRID_SQUARES:
            raise ValueError(f"grid of {grid:g} mm makes {squares:,} squares; at most {MAX_GRID_SQUARES:,} (use a coarser grid)")


#: The fields of each table of the format, as the schema (:mod:`.schema`) declares them; a
#: test holds the two equal. Reading them here spares a valid file the schema's import.
FIELDS: dict[str, tuple[str, ...]] = {
    "ScenarioIn": ("format", "title", "ruleset", "units", "table", "model", "terrain", "template", "backdrop"),
    "TableIn": ("width", "depth", "grid"),
    "BackdropIn": ("image", "corners"),
    "BaseIn": ("shape", "length", "width"),
    "ModelIn": ("id", "name", "side", "unit", "x", "y", "base", "facing", "z", "height", "stats", "tags", "engaged", "sigma"),
    "RectIn": ("x", "y", "length", "width", "rotation"),
    "TerrainIn": ("id", "name", "kind", "points", "rect", "height", "blocks_los", "stats", "tags"),
    "ImpactIn": ("attacker", "target", "at"),
    "DirectIn": ("attacker", "heading"),
    "ExplosionIn": ("model",),
    "TemplateIn": ("id", "shape", "at", "impact", "direct", "explosion", "heading", "battery", "weapon", "rolls"),
}
#: (table, field) -> the table that field holds.
NESTED: dict[tuple[str, str], str] = {
    ("ScenarioIn", "table"): "TableIn",
    ("ScenarioIn", "backdrop"): "BackdropIn",
    ("ScenarioIn", "model"): "ModelIn",
    ("ScenarioIn", "terrain"): "TerrainIn",
    ("ScenarioIn", "template"): "TemplateIn",
    ("ModelIn", "base"): "BaseIn",
    ("TerrainIn", "rect"): "RectIn",
    ("TemplateIn", "impact"): "ImpactIn",
    ("TemplateIn", "direct"): "DirectIn",
    ("TemplateIn", "explosion"): "ExplosionIn",
}
