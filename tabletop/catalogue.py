"""The template catalogue: named shapes from ``assets/templates.toml`` and user files."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import platformdirs

from tabletop.model import TemplateShape
from tabletop.resources import data_dir
from tabletop.shapes import shape_problems
from tabletop.units import LengthError, parse_length

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
    if kind not in SHAPE_FIELDS:
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
            if isinstance(raw, bool) or not isinstance(raw, (int, float)):
                problems.append((name, f"must be a number of degrees, got {raw!r}"))
            else:
                values[name] = float(raw)
            continue
        try:
            values[name] = parse_length(raw, units)
        except LengthError as exc:
            problems.append((name, str(exc)))
    if problems:
        return None, problems
    label = table.get("label")
    shape = TemplateShape(kind, label=label if isinstance(label, str) else None, **values)
    problems += [("", p) for p in shape_problems(shape)]
    return (None if problems else shape), problems


def read_catalogue(path: Path) -> dict[str, Entry]:
    """Entries of one catalogue file (bare numbers in inches unless it sets ``units``)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CatalogueError([f"{path}: cannot read catalogue: {exc}"]) from None
    units = data.get("units", "in")
    templates = data.get("templates", {})
    if not isinstance(templates, dict):
        raise CatalogueError([f"{path}: templates: must be a table of named templates"])
    entries: dict[str, Entry] = {}
    errors: list[str] = []
    for name, table in templates.items():
        if not isinstance(table, dict):
            errors.append(f"{path}: templates.{name}: must be a table")
            continue
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
    """Where a user's own ``templates.toml`` lives."""
    return Path(platformdirs.user_config_dir("tabletop")) / "templates.toml"


def load_catalogue(extra_files: Iterable[Path] = (), include_user: bool = True) -> dict[str, Entry]:
    """Bundled entries, then the user's file, then ``extra_files``; later names replace earlier."""
    entries = read_catalogue(BUNDLED)
    files = [user_catalogue_path()] if include_user else []
    files += list(extra_files)
    for f in files:
        if f.exists():
            entries.update(read_catalogue(f))
    return entries


_DEFAULT: dict[str, Entry] | None = None


def default_catalogue() -> dict[str, Entry]:
    """The bundled and user catalogue, read once."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_catalogue()
    return _DEFAULT
