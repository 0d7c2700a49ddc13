"""Read and write scenario files (TOML, or JSON of the same structure).

Validation happens here, at the boundary: every problem becomes one
:class:`Problem` naming the file, the field's path (``model[3].base``) and the
line where known, never a traceback. Keys the format does not know are kept
(with a did-you-mean warning) and written back on save. Saving is atomic.
"""

from __future__ import annotations

import datetime
import difflib
import json
import math
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import shapely
import tomli_w
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from tabletop.atomic import InputError, read_regular
from tabletop.atomic import atomic_write as _atomic_write
from tabletop.catalogue import Entry, default_catalogue, shape_from_table
from tabletop.dice import check_fixed_rolls
from tabletop.settings import check_mapping as check_settings
from tabletop.model import (
    At,
    Backdrop,
    Base,
    Direct,
    Explosion,
    Impact,
    Model,
    RectSpec,
    Scenario,
    Table,
    Template,
    TemplateShape,
    Terrain,
)
from tabletop.units import (
    MAX_NAME_CHARS,
    MAX_TEXT_CHARS,
    MAX_TITLE_CHARS,
    MIN_TEMPLATE_MM,
    MM_PER_UNIT,
    LengthError,
    length_for_file,
    parse_length,
    printable,
)

MAX_FILE_BYTES = 10 * 1024 * 1024
_ID = re.compile(r"[A-Za-z0-9_-]+")
#: Limits a real table can hold (docs/limits.md); lengths are bounded in :mod:`tabletop.units`.
MAX_ANGLE_DEG = 36_000.0  # a hundred turns: headings past that are typing errors
MAX_STAT = 1_000_000  # |a stat|, a weapon number, a setting without a stated range
MAX_EXACT_INT = 2**53  # larger whole numbers do not survive a float
MAX_SEED = 2**63
MIN_GRID_MM = 1.0
MAX_GRID_SQUARES = 4_000_000  # a 6' x 4' table on a 1 mm grid is 2.2 million squares
MAX_VERTICES = 10_000  # points of one terrain outline
MAX_TOTAL_VERTICES = 20_000  # points of all outlines: a blast over 20,000 takes about 9 s of shadow casting
MAX_ITEMS = 10_000  # models, terrain pieces, templates, list entries
MAX_BATTERY = 50
# Models x templates bounds the work of a check: 5,000 models under 100 table-wide templates take about 9 s.
MAX_MODELS = 5_000
MAX_TERRAIN = 1_000
MAX_TEMPLATES = 100
MAX_DEPTH = 12  # nesting of tables and lists anywhere in a scenario (the format itself needs 4)
MAX_FREE_DEPTH = 6  # nesting inside weapon, stats, rolls
MAX_ROLL = 1000  # a fixed die result
MAX_SIGMA_MM = 1000.0  # a position error beyond a metre is no measurement
MAX_IMAGE_PX = 1_000_000.0  # |a backdrop corner| in image pixels
#: Keys of an inline template shape table.
SHAPE_KEYS = frozenset({"kind", "diameter", "radius", "length", "width", "tip_width", "end_width", "angle", "label", "size_uncertainty"})
#: Weapon counts the rulesets turn into work, with the most a table can field.
WEAPON_COUNTS: dict[str, int] = {"volley": 1000, "burst": 100, "increment": 1000, "damage": 100_000, "max_damage": 100_000, "md": 100_000}
#: Stats the rulesets turn into work.
STAT_COUNTS: dict[str, int] = {"damage_tracks": 1000}


@dataclass(frozen=True)
class Problem:
    """One thing wrong (or suspicious) in a file."""

    file: str
    path: str
    message: str
    line: int | None = None
    warning: bool = False

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        field_path = f" {self.path}:" if self.path else ""
        kind = " warning:" if self.warning else ""
        return f"{where}:{kind}{field_path} {self.message}"


class ScenarioError(ValueError):
    """A scenario that cannot be loaded; ``problems`` has one entry per problem."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


# --------------------------------------------------------------------------- schema


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


def _shown(value: Any) -> str:
    """A value quoted in a message: short, and never 4 MB of it."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_EXACT_INT:
        return f"a {int(abs(value).bit_length() * 0.30103) + 1}-digit number"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


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
    if isinstance(value, bool) or value is None:
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


Length = Annotated[float, BeforeValidator(_length)]
PositiveLength = Annotated[float, BeforeValidator(_positive_length)]
Number = Annotated[float, BeforeValidator(_finite)]
Angle = Annotated[float, BeforeValidator(_angle)]
Name = Annotated[str, BeforeValidator(_text(MAX_NAME_CHARS))]
Title = Annotated[str, BeforeValidator(_text(MAX_TITLE_CHARS))]
StrictInt = Annotated[int, BeforeValidator(_strict_int)]
StrictBool = Annotated[bool, BeforeValidator(_strict_bool)]
GridLength = Annotated[float, BeforeValidator(_grid)]
NonNegativeLength = Annotated[float, BeforeValidator(_non_negative_length)]
Identifier = Annotated[str, BeforeValidator(_identifier)]
PointIn = Annotated[tuple[float, float], BeforeValidator(_point)]
Strings = Annotated[tuple[str, ...], BeforeValidator(_strings)]
Stats = Annotated[dict[str, float], BeforeValidator(_stats)]


class _In(BaseModel):
    model_config = ConfigDict(extra="allow", allow_inf_nan=False, frozen=True)


class BaseIn(_In):
    shape: Literal["round", "oval", "rect"] = "round"
    length: PositiveLength
    width: PositiveLength | None = None


def _base(value: Any, info: ValidationInfo) -> Any:
    if isinstance(value, dict):
        return value
    _positive_length(value, info)  # a bare length: report problems at `base` itself
    return {"shape": "round", "length": value}


class ModelIn(_In):
    id: Identifier
    name: Name | None = None
    side: Name | None = None
    unit: Name | None = None
    x: Length
    y: Length
    base: Annotated[BaseIn, BeforeValidator(_base)]
    facing: Angle = 90.0
    z: Length | None = None
    height: PositiveLength | None = None
    stats: Stats = Field(default_factory=dict)
    tags: Strings = ()
    engaged: Strings = ()
    sigma: Annotated[float, BeforeValidator(_sigma)] | None = None


class BackdropIn(_In):
    image: Annotated[str, BeforeValidator(_image_path)]
    corners: Annotated[tuple[tuple[float, float], ...], BeforeValidator(_pixel_corners)]


class RectIn(_In):
    x: Length
    y: Length
    length: PositiveLength
    width: PositiveLength
    rotation: Angle = 0.0


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


class TerrainIn(_In):
    id: Identifier
    name: Name | None = None
    kind: Name | None = None
    points: Annotated[tuple[tuple[float, float], ...], BeforeValidator(_points)] | None = None
    rect: RectIn | None = None
    height: NonNegativeLength | None = None
    blocks_los: StrictBool = True
    stats: Stats = Field(default_factory=dict)
    tags: Strings = ()

    @model_validator(mode="after")
    def _one_outline(self) -> TerrainIn:
        if (self.points is None) == (self.rect is None):
            raise ValueError("give exactly one of points or rect")
        return self


class ImpactIn(_In):
    attacker: Identifier
    target: Identifier | None = None
    at: PointIn | None = None

    @model_validator(mode="after")
    def _one_aim(self) -> ImpactIn:
        if (self.target is None) == (self.at is None):
            raise ValueError("give exactly one of target or at")
        return self


class DirectIn(_In):
    attacker: Identifier
    heading: Angle = 0.0


class ExplosionIn(_In):
    model: Identifier


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


class TemplateIn(_In):
    id: Identifier
    shape: Annotated[str | dict[str, Any], BeforeValidator(_shape)] | None = None
    at: PointIn | None = None
    impact: ImpactIn | None = None
    direct: DirectIn | None = None
    explosion: ExplosionIn | None = None
    heading: Angle = 0.0
    battery: Annotated[StrictInt, Field(ge=1, le=MAX_BATTERY)] = 1
    weapon: Annotated[dict[str, Any], BeforeValidator(_weapon)] = Field(default_factory=dict)
    rolls: Annotated[dict[str, Any], BeforeValidator(_rolls)] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_placement(self) -> TemplateIn:
        given = [k for k in ("at", "impact", "direct", "explosion") if getattr(self, k) is not None]
        if len(given) != 1:
            found = ", ".join(given) or "none"
            raise ValueError(f"give exactly one placement of at, impact, direct, explosion (found {found})")
        if self.shape is None and self.explosion is None:
            raise ValueError("shape is required (a catalogue name or a shape table)")
        return self


class TableIn(_In):
    width: PositiveLength
    depth: PositiveLength
    grid: GridLength | None = None

    @model_validator(mode="after")
    def _squares(self) -> TableIn:
        if self.grid is not None:
            squares = math.ceil(self.width / self.grid) * math.ceil(self.depth / self.grid)
            if squares > MAX_GRID_SQUARES:
                raise ValueError(
                    f"grid of {self.grid:g} mm makes {squares:,} squares; at most {MAX_GRID_SQUARES:,} (use a coarser grid)"
                )
        return self


def _format(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError(f"must be 1, got {value!r}")
    return value


class ScenarioIn(_In):
    format: Annotated[Literal[1], BeforeValidator(_format)]
    title: Title = ""
    ruleset: str = "none"  # any registered ruleset: checked by _known_ruleset
    units: Literal["in", "mm", "cm"] = "in"
    table: TableIn
    model: Annotated[list[ModelIn], Field(max_length=MAX_MODELS)] = Field(default_factory=list)
    terrain: Annotated[list[TerrainIn], Field(max_length=MAX_TERRAIN)] = Field(default_factory=list)
    template: Annotated[list[TemplateIn], Field(max_length=MAX_TEMPLATES)] = Field(default_factory=list)
    backdrop: BackdropIn | None = None

    @field_validator("ruleset")
    @classmethod
    def _known_ruleset(cls, name: str) -> str:
        from tabletop import rulesets  # the registry imports the core; import late to keep this module light

        if not rulesets.is_registered(name):
            hint = rulesets.suggest(name)
            known = ", ".join(repr(n) for n in rulesets.names())
            raise ValueError(f'unknown ruleset {name!r}: did you mean "{hint}"?' if hint else f"unknown ruleset {name!r} (known: {known})")
        try:
            rulesets.get(name)
        except rulesets.BadPlugin as exc:
            raise ValueError(str(exc)) from None
        return name

# --------------------------------------------------------------------------- lines


_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_\-]+)\s*(?:\.\s*[A-Za-z0-9_\-"']+\s*)*=""")


def toml_lines(text: str) -> dict[tuple[Any, ...], int]:
    """Map field paths (``("model", 3, "base")``) to 1-based line numbers of a TOML text."""
    lines: dict[tuple[Any, ...], int] = {}
    counts: dict[tuple[Any, ...], int] = {}
    current: tuple[Any, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            parts = tuple(p.strip().strip("\"'") for p in header.group(2).split("."))
            if header.group(1) == "[[":
                index = counts.get(parts, 0)
                counts[parts] = index + 1
                current = (*parts, index)
            else:
                current = parts
            lines.setdefault(current, number)
            continue
        key = _KEY.match(line)
        if key:
            lines.setdefault((*current, key.group(1).strip("\"'")), number)
    return lines


def _line_for(lines: Mapping[tuple[Any, ...], int], path: Sequence[Any]) -> int | None:
    for n in range(len(path), 0, -1):
        if tuple(path[:n]) in lines:
            return lines[tuple(path[:n])]
    return None


def format_path(loc: Sequence[Any]) -> str:
    """``("model", 3, "base")`` -> ``model[3].base``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


# --------------------------------------------------------------------------- reading


def read_document(path: Path | str) -> tuple[dict[str, Any], str]:
    """Parse a TOML or JSON file into a dict; returns (data, text). Raises ScenarioError."""
    path = Path(path)
    name = str(path)
    try:
        raw = read_regular(path, MAX_FILE_BYTES)
    except InputError as exc:
        message = str(exc)
        if message.startswith("file is"):
            message = message.replace("the limit is", "scenarios are limited to")
        raise ScenarioError([Problem(name, "", message)]) from None
    return parse_document(raw, name, json_syntax=path.suffix.lower() == ".json")


def parse_document(raw: bytes, name: str, json_syntax: bool = False) -> tuple[dict[str, Any], str]:
    """Parse bytes of TOML (or JSON) into a dict; raises ScenarioError naming the line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ScenarioError([Problem(name, "", f"not valid UTF-8 (byte {exc.start})", line)]) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        if json_syntax:
            data = json.loads(text)
        else:
            data = tomllib.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError([Problem(name, "", f"JSON syntax: {exc.msg} (column {exc.colno})", exc.lineno)]) from None
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        at_line = int(m.group(1)) if m else None
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg)
        raise ScenarioError([Problem(name, "", f"TOML syntax: {msg}", at_line)]) from None
    except RecursionError:
        raise ScenarioError([Problem(name, "", "nested too deeply to be a scenario")]) from None
    except ValueError as exc:  # e.g. JSON numbers too large to convert
        raise ScenarioError([Problem(name, "", f"cannot parse: {exc}")]) from None
    if not isinstance(data, dict):
        raise ScenarioError([Problem(name, "", "the top level must be a table/object")])
    return data, text


def _known_fields(cls: type[BaseModel]) -> list[str]:
    return list(cls.model_fields)


_EXTRA_ALIASES = {"radius"}


def _unknown_key_warnings(raw: Any, cls: type[BaseModel], loc: tuple[Any, ...], out: list[tuple[tuple[Any, ...], str]]) -> None:
    if not isinstance(raw, dict):
        return
    known = _known_fields(cls)
    for key, value in raw.items():
        if key not in known:
            guess = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
            hint = f" (did you mean {guess[0]!r}?)" if guess else ""
            out.append(((*loc, key), f"unknown key {key!r} is kept but not used{hint}"))
            continue
        for sub in _nested_models(cls, key):
            _unknown_key_warnings(value, sub, (*loc, key), out)


_NESTED: dict[tuple[type[BaseModel], str], tuple[type[BaseModel], ...]] = {}


def _nested_models(cls: type[BaseModel], key: str) -> tuple[type[BaseModel], ...]:
    """The input models a field of ``cls`` may hold (looked up once per class and key)."""
    found = _NESTED.get((cls, key))
    if found is None:
        annotation = cls.model_fields[key].annotation
        subs = [
            sub for sub in (BaseIn, RectIn, ImpactIn, DirectIn, ExplosionIn, TableIn, BackdropIn)
            if annotation is sub or sub in getattr(annotation, "__args__", ())
        ]
        if key == "base":
            subs.append(BaseIn)
        found = _NESTED[(cls, key)] = tuple(subs)
    return found


def _collect_unknown(data: dict[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    out: list[tuple[tuple[Any, ...], str]] = []
    known_top = _known_fields(ScenarioIn) + ["settings", "seed", "catalogue"]
    for key in data:
        if key not in known_top:
            guess = difflib.get_close_matches(str(key), known_top, n=1, cutoff=0.6)
            hint = f" (did you mean {guess[0]!r}?)" if guess else ""
            out.append(((key,), f"unknown key {key!r} is kept but not used{hint}"))
    _unknown_key_warnings(data.get("table"), TableIn, ("table",), out)
    _unknown_key_warnings(data.get("backdrop"), BackdropIn, ("backdrop",), out)
    for key, cls in (("model", ModelIn), ("terrain", TerrainIn), ("template", TemplateIn)):
        items = data.get(key)
        if isinstance(items, list):
            for i, item in enumerate(items):
                if isinstance(item, dict):
                    _unknown_key_warnings(item, cls, (key, i), out)
                    if key == "template" and isinstance(item.get("shape"), dict):
                        shape_keys = SHAPE_KEYS
                        for sk in item["shape"]:
                            if sk not in shape_keys:
                                guess = difflib.get_close_matches(str(sk), sorted(shape_keys), n=1, cutoff=0.6)
                                hint = f" (did you mean {guess[0]!r}?)" if guess else ""
                                out.append(((key, i, "shape", sk), f"unknown key {sk!r} is kept but not used{hint}"))
    return out


def _extra(obj: BaseModel) -> dict[str, Any]:
    return dict(obj.model_extra or {})


def _clean_loc(loc: Sequence[Any]) -> tuple[Any, ...]:
    # pydantic adds validator and union-member names to locations; field paths have neither.
    return tuple(p for p in loc if isinstance(p, int) or ("[" not in str(p) and str(p) not in {"str", "dict[str,any]"}))


def _message(err: Mapping[str, Any]) -> str:
    msg = str(err.get("msg", "invalid"))
    msg = re.sub(r"^(Value error|Assertion failed), ", "", msg)
    if err.get("type") == "missing":
        return "is required"
    if err.get("type") == "literal_error":
        return msg[0].lower() + msg[1:] + f", got {err.get('input')!r}"
    if err.get("type") == "too_long" and isinstance(err.get("loc"), tuple) and len(err["loc"]) == 1:
        # A top-level table list (model, terrain, template): name the limit in the file's words.
        limit = (err.get("ctx") or {}).get("max_length")
        got = (err.get("ctx") or {}).get("actual_length")
        return f"at most {limit:,} [[{err['loc'][0]}]] tables, got {got:,}" if limit is not None and got is not None else msg
    return msg


def _document_problems(data: Any) -> list[tuple[tuple[Any, ...], str]]:
    """Limits that hold anywhere in a document, kept keys included: nesting, huge whole numbers,
    lone surrogates, giant texts and lists. One problem per offending field (at most 20)."""
    out: list[tuple[tuple[Any, ...], str]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack and len(out) < 20:
        node, loc = stack.pop()
        if len(loc) > MAX_DEPTH:
            out.append((loc[:MAX_DEPTH], f"nested more than {MAX_DEPTH} deep"))
            continue
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(key, str) and (not printable(key) or len(key) > MAX_NAME_CHARS):
                    out.append((loc, f"key {_shown(key)} must be printable and at most {MAX_NAME_CHARS} characters"))
                    continue
                stack.append((value, (*loc, key)))
        elif isinstance(node, list):
            if len(node) > MAX_ITEMS and loc[-1:] != ("points",):
                out.append((loc, f"at most {MAX_ITEMS:,} entries, got {len(node):,}"))
                continue
            if len(node) > MAX_VERTICES:
                out.append((loc, f"a terrain outline has at most {MAX_VERTICES:,} points, got {len(node):,}"))
                continue
            stack.extend((v, (*loc, i)) for i, v in reversed(list(enumerate(node))))
        elif isinstance(node, int) and not isinstance(node, bool):
            limit = MAX_SEED if loc == ("seed",) else MAX_EXACT_INT
            if abs(node) > limit:
                out.append((loc, f"number too large, got {_shown(node)} (whole numbers are at most {limit:,})"))
        elif isinstance(node, str):
            if len(node) > MAX_TEXT_CHARS:
                out.append((loc, f"text of {len(node):,} characters; at most {MAX_TEXT_CHARS:,}"))
            elif any(0xD800 <= ord(c) <= 0xDFFF for c in node):
                out.append((loc, f"holds a lone UTF-16 surrogate (not valid text): {_shown(node)}"))
    out.reverse()
    return sorted(out, key=lambda item: [str(p) for p in item[0]])


def scenario_from_data(
    data: dict[str, Any],
    name: str = "<scenario>",
    text: str | None = None,
    catalogue: Mapping[str, Entry] | None = None,
) -> tuple[Scenario, list[Problem]]:
    """Validate parsed data and build a Scenario; returns it with warnings. Raises ScenarioError."""
    problems: list[Problem] = []
    warnings: list[Problem] = []
    line_map: list[dict[tuple[Any, ...], int]] = []  # built at the first problem: a clean file never needs it

    def problem(loc: Sequence[Any], message: str, warning: bool = False) -> None:
        if not line_map:
            line_map.append(toml_lines(text) if text is not None and not name.lower().endswith(".json") else {})
        p = Problem(name, format_path(loc), message, _line_for(line_map[0], loc), warning)
        (warnings if warning else problems).append(p)

    for loc, message in _document_problems(data):
        problem(loc, message)
    if problems:
        raise ScenarioError(problems)

    units = data.get("units", "in")
    if not isinstance(units, str) or units not in MM_PER_UNIT:
        units = "in"  # validation below reports the bad value; read lengths as inches meanwhile
    catalogue = catalogue if catalogue is not None else default_catalogue()

    try:
        parsed = ScenarioIn.model_validate(data, context={"units": units})
    except ValidationError as exc:
        for err in exc.errors():
            sub, message = _split_sub(_message(err))
            problem((*_clean_loc(err["loc"]), *sub), message)
        raise ScenarioError(problems) from None

    for loc, message in _collect_unknown(data):
        problem(loc, message, warning=True)

    table = Table(parsed.table.width, parsed.table.depth, parsed.table.grid, _extra(parsed.table))

    models: list[Model] = []
    for min_ in parsed.model:
        b = min_.base
        width = b.width if b.width is not None else b.length
        if b.shape == "round" and b.width is not None and b.width != b.length:
            width = b.length
        base = Base(b.shape, b.length, width)
        extra = _extra(min_)
        if _extra(b):
            extra["base_extra"] = _extra(b)
        models.append(
            Model(
                id=min_.id, x=min_.x, y=min_.y, base=base, name=min_.name, side=min_.side, unit=min_.unit, facing=min_.facing,
                z=min_.z, height=min_.height, stats=dict(min_.stats), tags=min_.tags, engaged=min_.engaged, extra=extra,
                sigma=min_.sigma,
            )
        )

    terrain: list[Terrain] = []
    for i, tin in enumerate(parsed.terrain):
        rect = RectSpec(tin.rect.x, tin.rect.y, tin.rect.length, tin.rect.width, tin.rect.rotation) if tin.rect else None
        piece = Terrain(
            id=tin.id, points=tin.points, rect=rect, name=tin.name, kind=tin.kind, height=tin.height,
            blocks_los=tin.blocks_los, stats=dict(tin.stats), tags=tin.tags, extra=_extra(tin),
        )
        poly = shapely.Polygon(piece.polygon)
        if not poly.is_valid:
            problem(("terrain", i, "points"), f"polygon is not simple ({shapely.is_valid_reason(poly)})")
        elif not poly.area > 0:
            problem(("terrain", i, "points"), "polygon has zero area")
        terrain.append(piece)

    total_vertices = sum(len(piece.polygon) for piece in terrain)
    if total_vertices > MAX_TOTAL_VERTICES:
        problem(("terrain",), f"{total_vertices:,} outline points in all; at most {MAX_TOTAL_VERTICES:,} (simplify the outlines)")

    templates: list[Template] = []
    for i, tpl_in in enumerate(parsed.template):
        shape: TemplateShape | None = None
        shape_name: str | None = None
        if isinstance(tpl_in.shape, str):
            entry = catalogue.get(tpl_in.shape)
            if entry is None:
                guess = difflib.get_close_matches(tpl_in.shape, list(catalogue), n=1, cutoff=0.5)
                hint = f" (did you mean {guess[0]!r}?)" if guess else f" (known: {', '.join(sorted(catalogue))})"
                problem(("template", i, "shape"), f"no template named {tpl_in.shape!r} in the catalogue{hint}")
            else:
                shape, shape_name = entry.shape, tpl_in.shape
        elif isinstance(tpl_in.shape, dict):
            shape, shape_problems_ = shape_from_table(tpl_in.shape, units)
            for field_name, message in shape_problems_:
                problem(("template", i, "shape", *([field_name] if field_name else [])), message)
            if shape is not None:
                label = tpl_in.shape.get("label")
                shape = TemplateShape(**{**shape.__dict__, "label": label if isinstance(label, str) else None})
        placement: At | Impact | Direct | Explosion
        if tpl_in.at is not None:
            placement = At(tpl_in.at[0], tpl_in.at[1], tpl_in.heading)
        elif tpl_in.impact is not None:
            placement = Impact(tpl_in.impact.attacker, tpl_in.impact.target, tpl_in.impact.at)
        elif tpl_in.direct is not None:
            placement = Direct(tpl_in.direct.attacker, tpl_in.direct.heading)
        else:
            assert tpl_in.explosion is not None
            placement = Explosion(tpl_in.explosion.model)
        if tpl_in.at is None and "heading" in (data["template"][i] if isinstance(data.get("template"), list) else {}):
            problem(("template", i, "heading"), "heading is only used with at (direct takes its own heading)", warning=True)
        extra = _extra(tpl_in)
        for sub_name, sub in (("impact", tpl_in.impact), ("direct", tpl_in.direct), ("explosion", tpl_in.explosion)):
            if sub is not None and _extra(sub):
                extra[f"{sub_name}_extra"] = _extra(sub)
        if isinstance(tpl_in.shape, dict):
            shape_extra = {k: v for k, v in tpl_in.shape.items() if k not in SHAPE_KEYS}
            if shape_extra:
                extra["shape_extra"] = shape_extra
            if "radius" in tpl_in.shape and "diameter" not in tpl_in.shape:
                extra["shape_radius"] = True
        templates.append(Template(tpl_in.id, shape, placement, shape_name, tpl_in.battery, dict(tpl_in.weapon), dict(tpl_in.rolls), extra))

    # Identity and references.
    seen: dict[str, str] = {}
    named = [("model", i, m.id) for i, m in enumerate(models)] + [("terrain", i, p.id) for i, p in enumerate(terrain)]
    for kind, i, item_id in named:
        if item_id in seen:
            problem((kind, i, "id"), f"id {item_id!r} is already used by a {seen[item_id]}")
        else:
            seen[item_id] = kind
    template_ids: set[str] = set()
    for i, tpl in enumerate(templates):
        if tpl.id in template_ids:
            problem(("template", i, "id"), f"template id {tpl.id!r} is used twice")
        template_ids.add(tpl.id)
    model_ids = {m.id for m in models}

    def ref(loc: tuple[Any, ...], model_id: str | None, role: str) -> None:
        if model_id is not None and model_id not in model_ids:
            guess = difflib.get_close_matches(model_id, sorted(model_ids), n=1, cutoff=0.5)
            hint = f" (did you mean {guess[0]!r}?)" if guess else ""
            problem(loc, f"{role} {model_id!r} is not a model on this table{hint}")

    for i, m in enumerate(models):
        for other in m.engaged:
            ref(("model", i, "engaged"), other, "engaged model")
            if other == m.id:
                problem(("model", i, "engaged"), "a model cannot be engaged with itself")
        if not (0 <= m.x <= table.width and 0 <= m.y <= table.depth):
            problem(("model", i), f"model {m.id!r} stands off the table", warning=True)
    for i, tpl in enumerate(templates):
        p = tpl.placement
        if isinstance(p, Impact):
            ref(("template", i, "impact", "attacker"), p.attacker, "attacker")
            ref(("template", i, "impact", "target"), p.target, "target")
            if p.target is not None and p.target == p.attacker:
                problem(("template", i, "impact", "target"), "a model cannot aim at itself")
        elif isinstance(p, Direct):
            ref(("template", i, "direct", "attacker"), p.attacker, "attacker")
        elif isinstance(p, Explosion):
            ref(("template", i, "explosion", "model"), p.model, "model")

    backdrop: Backdrop | None = None
    if parsed.backdrop is not None:
        c = parsed.backdrop.corners
        backdrop = Backdrop(parsed.backdrop.image, (c[0], c[1], c[2], c[3]), _extra(parsed.backdrop))
        image = backdrop_path(backdrop, name)
        if image is not None and not image.is_file():
            problem(("backdrop", "image"), f"image {backdrop.image!r} not found (looked for {image}); the table opens without it", warning=True)

    extra_top = _extra(parsed)
    scenario = Scenario(
        table=table, models=tuple(models), terrain=tuple(terrain), templates=tuple(templates),
        title=parsed.title, ruleset=parsed.ruleset, units=parsed.units, format=parsed.format, extra=extra_top,
        backdrop=backdrop,
    )
    if not problems:
        _ruleset_checks(scenario, problem)
    if problems:
        raise ScenarioError(problems)
    return scenario, warnings


def backdrop_path(backdrop: Backdrop, scenario_path: Path | str | None) -> Path | None:
    """Where the backdrop's image is: its path read relative to the scenario file's folder.

    None when the scenario has no file (``<scenario>``-style names) and the path is relative.
    """
    image = Path(os.path.expanduser(backdrop.image))
    if image.is_absolute():
        return image
    if scenario_path is None or str(scenario_path).startswith("<"):
        return None
    return Path(scenario_path).parent / image


def rebase_backdrop(scenario: Scenario, old_path: Path | str | None, new_path: Path | str) -> Scenario:
    """``scenario`` with its backdrop's image path made relative to ``new_path`` (a Save As elsewhere)."""
    b = scenario.backdrop
    if b is None:
        return scenario
    image = backdrop_path(b, old_path)
    if image is None:
        return scenario
    try:
        rel = os.path.relpath(os.path.abspath(image), os.path.abspath(Path(new_path).parent))
    except ValueError:  # another drive (Windows): keep it absolute
        rel = os.path.abspath(image)
    rel = Path(rel).as_posix()
    if rel == b.image:
        return scenario
    from dataclasses import replace

    return replace(scenario, backdrop=replace(b, image=rel))


def _ruleset_checks(scenario: Scenario, problem: Any) -> None:
    from tabletop import rulesets  # rulesets import the core; import late to keep this module light

    ruleset = rulesets.get(scenario.ruleset)
    for i, t in enumerate(scenario.templates):
        for roll, message in check_fixed_rolls(t.rolls, ruleset.rolls):
            problem(("template", i, "rolls", roll), message)
        for roll in t.rolls:
            if ruleset.rolls and roll not in ruleset.rolls:
                known = ", ".join(sorted(ruleset.rolls))
                problem(("template", i, "rolls", roll), f"ruleset {scenario.ruleset} has no roll {roll!r} (it rolls {known})", True)
        if t.shape is None and ruleset.explosion_shape is None:
            problem(("template", i, "shape"), f"ruleset {scenario.ruleset} does not size explosions: give a shape")
    if "settings" in scenario.extra:
        for name, message in check_settings(scenario.extra["settings"], ruleset.settings, ruleset.name):
            problem(("settings", name) if name else ("settings",), message)
    if ruleset.validate is not None:
        for path, message in ruleset.validate(scenario):
            loc = tuple(int(p) if p.isdigit() else p for p in re.split(r"[.\[\]]+", path) if p)
            problem(loc, message)


def load_with_warnings(path: Path | str, catalogue: Mapping[str, Entry] | None = None) -> tuple[Scenario, list[Problem]]:
    """Load a scenario file; returns it with its warnings. Raises ScenarioError."""
    data, text = read_document(path)
    return scenario_from_data(data, str(path), text, catalogue)


def load(path: Path | str, catalogue: Mapping[str, Entry] | None = None) -> Scenario:
    """Load a scenario file. Raises ScenarioError with one Problem per problem."""
    return load_with_warnings(path, catalogue)[0]


def loads(text: str, name: str = "<scenario>.toml", catalogue: Mapping[str, Entry] | None = None) -> Scenario:
    """Load a scenario from TOML (or, for a ``.json`` name, JSON) text."""
    data, text = parse_document(text.encode("utf-8"), name, json_syntax=name.lower().endswith(".json"))
    return scenario_from_data(data, name, text, catalogue)[0]


# --------------------------------------------------------------------------- writing


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _tomlable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _tomlable(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_tomlable(v) for v in value if v is not None]
    return value


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
        if tpl.shape_name is not None:
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
    if path.suffix.lower() == ".json":
        data = json.dumps(scenario_to_data(s), indent=2, ensure_ascii=False, default=_json_default).encode("utf-8")
    else:
        data = dumps(s).encode("utf-8")
    atomic_write(path, data)
