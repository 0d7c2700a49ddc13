"""The template catalogue: named shapes from ``assets/templates.toml`` and user files."""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any


from tabletop.atomic import InputError, read_regular
from tabletop.model import TemplateShape
from tabletop.resources import data_dir
from tabletop.shapes import shape_problems
from tabletop.units import MAX_NAME_CHARS, MAX_TEXT_CHARS, MIN_TEMPLATE_MM, MM_PER_UNIT, LengthError, parse_length, printable, too_deep

#: Largest catalogue file read.
MAX_CATALOGUE_BYTES = 1024 * 1024
#: Deepest nesting of tables in a catalogue (``templates.<name>`` is 2).
MAX_CATALOGUE_DEPTH = 4


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."

ASSETS = data_dir("assets")
BUNDLED = ASSETS / "templates.toml"


class CatalogueError(ValueError):
    """A catalogue file that cannot be read; ``problems`` holds one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Entry:
    """A catalogue entry: the shape and where its numbers come from."""

    name: str
    shape: TemplateShape
    source: str = ""
    approximate: bool = False
    note: str = ""
    origin: str = ""


SHAPE_FIELDS: dict[str, tuple[str, ...]] = {
    "circle": ("diameter",),
    "teardrop": ("length", "tip_width", "end_width"),
    "rect": ("length", "width"),
    "cone": ("length", "angle"),
}


def shape_from_table(table: Mapping[str, Any], units: str) -> tuple[TemplateShape | None, list[tuple[str, str]]]:
    """Read a shape table (``{kind = "circle", diameter = 5}``); returns the shape or (field, message) problems."""
    problems: list[tuple[str, str]] = []
    kind = table.get("kind")
    if not isinstance(kind, str) or kind not in SHAPE_FIELDS:
        return None, [("kind", f"must be one of {', '.join(SHAPE_FIELDS)}, got {kind!r}")]
    values: dict[str, float] = {}
    wanted = SHAPE_FIELDS[kind]
    if kind == "circle" and "diameter" not in table and "radius" in table:
        try:
            values["diameter"] = 2 * parse_length(table["radius"], units)
        except LengthError as exc:
            problems.append(("radius", str(exc)))
    for name in wanted:
        if name in values:
            continue
        if name not in table:
            if name == "tip_width":
                values[name] = 0.0
                continue
            problems.append((name, f"a {kind} needs {name}"))
            continue
        raw = table[name]
        if name == "angle":
            if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not (0 < raw <= 180):
                problems.append((name, f"must be a number of degrees in (0, 180], got {_shown(raw)}"))
            else:
                values[name] = float(raw)
            continue
        try:
            values[name] = parse_length(raw, units)
        except LengthError as exc:
            problems.append((name, str(exc)))
    if problems:
        return None, problems
    for name, mm in values.items():
        if name in ("angle", "size_uncertainty") or (name == "tip_width" and mm == 0):
            continue
        if mm < 0 or (mm == 0 and name != "tip_width"):
            problems.append((name, f"must be {'positive' if name != 'tip_width' else 'at least 0'}, got {mm:g} mm"))
        elif mm < MIN_TEMPLATE_MM:
            problems.append((name, f"must be at least {MIN_TEMPLATE_MM} mm, got {mm:g} mm"))
    if "size_uncertainty" in table:
        try:
            values["size_uncertainty"] = parse_length(table["size_uncertainty"], units)
        except LengthError as exc:
            problems.append(("size_uncertainty", str(exc)))
        else:
            if values["size_uncertainty"] < 0:
                problems.append(("size_uncertainty", f"must not be negative, got {values['size_uncertainty']:g} mm"))
    label = table.get("label")
    if label is not None and (not isinstance(label, str) or len(label) > MAX_NAME_CHARS or not printable(label)):
        problems.append(("label", f"must be printable text of at most {MAX_NAME_CHARS} characters"))
    if problems:
        return None, problems
    shape = TemplateShape(kind, label=label if isinstance(label, str) else None, **values)
    problems += [("", p) for p in shape_problems(shape)]
    return (None if problems else shape), problems


def read_catalogue(path: Path) -> dict[str, Entry]:
    """Entries of one catalogue file (bare numbers in inches unless it sets ``units``)."""
    try:
        raw = read_regular(path, MAX_CATALOGUE_BYTES)
    except InputError as exc:
        raise CatalogueError([f"{path}: catalogue {exc}"]) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise CatalogueError([f"{path}: catalogue is not valid UTF-8 (byte {exc.start})"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError([f"{path}: catalogue TOML syntax: {exc}"]) from None
    except RecursionError:
        raise CatalogueError([f"{path}: catalogue is nested too deeply"]) from None
    deep = too_deep(data, MAX_CATALOGUE_DEPTH)
    if deep is not None:
        raise CatalogueError([f"{path}: {deep}: nested too deeply (a catalogue is at most {MAX_CATALOGUE_DEPTH} tables deep)"])
    units = data.get("units", "in")
    if not isinstance(units, str) or units not in MM_PER_UNIT:
        raise CatalogueError([f"{path}: units: must be one of {', '.join(MM_PER_UNIT)}, got {_shown(units)}"])
    templates = data.get("templates", {})
    if not isinstance(templates, dict):
        raise CatalogueError([f"{path}: templates: must be a table of named templates"])
    entries: dict[str, Entry] = {}
    errors: list[str] = []
    for name, table in templates.items():
        if not isinstance(table, dict):
            errors.append(f"{path}: templates.{name}: must be a table")
            continue
        if len(name) > MAX_NAME_CHARS or not printable(name):
            errors.append(f"{path}: templates.{_shown(name)}: a name must be printable text of at most {MAX_NAME_CHARS} characters")
            continue
        for key, kind in (("source", str), ("note", str), ("approximate", bool)):
            if key in table and not isinstance(table[key], kind):
                errors.append(f"{path}: templates.{name}.{key}: must be {'true or false' if kind is bool else 'text'}, got {_shown(table[key])}")
            elif kind is str and key in table and len(table[key]) > MAX_TEXT_CHARS:
                errors.append(f"{path}: templates.{name}.{key}: longer than {MAX_TEXT_CHARS} characters")
        shape, problems = shape_from_table(table, units)
        for field_name, message in problems:
            where = f"templates.{name}" + (f".{field_name}" if field_name else "")
            errors.append(f"{path}: {where}: {message}")
        if shape is not None:
            entries[name] = Entry(
                name,
                replace(shape, label=shape.label or name),
                source=str(table.get("source", "")),
                approximate=bool(table.get("approximate", False)),
                note=str(table.get("note", "")),
                origin=str(path),
            )
    if errors:
        raise CatalogueError(errors)
    return entries


def user_catalogue_path() -> Path:
    """Where a user's own ``templates.toml`` lives (platformdirs' user config folder)."""
    if sys.platform.startswith("linux"):
        # platformdirs' XDG rule, without importing it on every `check` (~8 ms).
        base = os.environ.get("XDG_CONFIG_HOME", "")
        if not base.strip() or not os.path.isabs(base):
            base = os.path.expanduser("~/.config")
        return Path(base) / "tabletop" / "templates.toml"
    import platformdirs

    return Path(platformdirs.user_config_dir("tabletop")) / "templates.toml"


def load_catalogue(extra_files: Iterable[Path] = (), include_user: bool = True, missing_ok: bool = True) -> dict[str, Entry]:
    """Bundled entries, then the user's file, then ``extra_files``; later names replace earlier.

    The user's file is read only if it exists; a missing extra file is an error
    unless ``missing_ok`` (the command line passes ``missing_ok=False``).
    """
    entries = read_catalogue(BUNDLED)
    user = user_catalogue_path()
    if include_user and user.exists():
        entries.update(read_catalogue(user))
    for f in extra_files:
        if missing_ok and not Path(f).exists() and not Path(f).is_symlink():
            continue
        entries.update(read_catalogue(Path(f)))
    return entries


_DEFAULT: dict[str, Entry] | None = None


def default_catalogue() -> dict[str, Entry]:
    """The bundled and user catalogue, read once."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_catalogue()
    return _DEFAULT
