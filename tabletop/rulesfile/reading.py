"""Reading a rules file: TOML to a validated :class:`~.schema.RulesFile`, every problem with its line.

Problems are :class:`tabletop.scenario_io.Problem` values (file, field path, line, message), as a
scenario's are, and :class:`RulesFileError` is a :class:`~tabletop.scenario_io.ScenarioError`, so the
command line prints them the same way and exits 2.
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from tabletop.rulesfile.schema import RulesFile
from tabletop.scenario_io.lines import _line_for, format_path, toml_lines
from tabletop.rulesfile.errors import SUFFIX, RulesFileError  # noqa: F401 - SUFFIX is part of this module's names
from tabletop.scenario_io.problems import Problem, ScenarioError
from tabletop.scenario_io.reading import parse_document
from tabletop.atomic import InputError, read_regular

#: Largest rules file read.
MAX_RULES_BYTES = 256 * 1024
class Located:
    """Turns field paths of one file into located problems (the line map is built on first use)."""

    def __init__(self, name: str, text: str | None) -> None:
        self.name = name
        self.text = text
        self._lines: dict[tuple[Any, ...], int] | None = None
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []

    def line(self, loc: Sequence[Any]) -> int | None:
        if self._lines is None:
            self._lines = toml_lines(self.text) if self.text is not None else {}
        return _line_for(self._lines, loc)

    def add(self, loc: Sequence[Any], message: str, warning: bool = False) -> None:
        p = Problem(self.name, format_path(loc), message, self.line(loc), warning)
        (self.warnings if warning else self.problems).append(p)

    def raise_if_any(self) -> None:
        if self.problems:
            raise RulesFileError(self.problems)


def _model_at(loc: Sequence[Any]) -> type[BaseModel] | None:
    """The pydantic model of the table at ``loc`` (keys of dicts and list indices skipped)."""
    model: type[BaseModel] | None = RulesFile
    annotation: Any = None
    for part in loc:
        if model is not None:
            info = next((f for n, f in model.model_fields.items() if part in (n, f.alias)), None)
            if info is None:
                return None
            annotation, model = info.annotation, None
        elif isinstance(part, (int, str)):
            pass  # a list index or a dict key: the annotation's item type follows
        annotation = _inner(annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            model = annotation
    return model


def _inner(annotation: Any) -> Any:
    """The model inside Optional[...], list[...], dict[..., ...] (one level), else the annotation."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            if isinstance(arg, type) and issubclass(arg, BaseModel):
                return arg
        return annotation
    if origin in (list, dict):
        args = typing.get_args(annotation)
        return args[-1] if args else annotation
    if origin is typing.Annotated:
        return typing.get_args(annotation)[0]
    return annotation


def _known_keys(loc: Sequence[Any]) -> list[str]:
    model = _model_at(loc)
    if model is None:
        return []
    return [f.alias or n for n, f in model.model_fields.items()]


def _message(err: Any) -> tuple[tuple[Any, ...], str]:
    """(location, message) of one pydantic error, in the file's words."""
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and (p.startswith("function-") or p in ("str", "int", "float", "list[...]", "constrained-str"))))
    kind = err["type"]
    if kind == "extra_forbidden":
        key = loc[-1] if loc else "?"
        known = _known_keys(loc[:-1])
        guess = difflib.get_close_matches(str(key), known, n=1, cutoff=0.5)
        hint = f' (did you mean "{guess[0]}"?)' if guess else ""
        where = format_path(loc[:-1]) or "the top level"
        return loc, f"unknown key {key!r} in {where}{hint}; it knows {', '.join(known)}"
    if kind == "missing":
        return loc, "required: this table must give it"
    if kind in ("literal_error", "enum"):
        options = re.findall(r"'([^']*)'", str(err.get("ctx", {}).get("expected", "")))
        given = err.get("input")
        guess = difflib.get_close_matches(str(given), options, n=1, cutoff=0.5) if isinstance(given, str) else []
        hint = f' (did you mean "{guess[0]}"?)' if guess else ""
        return loc, f"{given!r} is not one of {', '.join(options)}{hint}"
    if kind == "string_pattern_mismatch":
        return loc, f"{err.get('input')!r}: a name of letters, digits, _ and - starting with a letter"
    return loc, f"{err['msg']} (got {_shown(err.get('input'))})"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _dedupe(errors: list[Any]) -> list[Any]:
    """Of a union's alternatives' errors at one place, keep the first (they say the same in other words)."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for err in errors:
        key = tuple(p for p in err["loc"] if not (isinstance(p, str) and p in ("str", "int", "float", "constrained-str")))
        if key in seen and err["type"] != "extra_forbidden":
            continue
        seen.add(key)
        out.append(err)
    return out


def read_text(path: Path | str) -> tuple[str, bytes]:
    """The file's name as given and its bytes; raises RulesFileError."""
    name = str(path)
    try:
        return name, read_regular(Path(path), MAX_RULES_BYTES)
    except InputError as exc:
        raise RulesFileError([Problem(name, "", str(exc))]) from None


def parse(raw: bytes, name: str) -> tuple[RulesFile, Located]:
    """Validate a rules file's bytes against the schema; raises RulesFileError naming every problem."""
    try:
        data, text = parse_document(raw, name)
    except ScenarioError as exc:
        raise RulesFileError(exc.problems) from None
    where = Located(name, text)
    try:
        spec = RulesFile.model_validate(data)
    except ValidationError as exc:
        errors = [_message(err) for err in _dedupe(exc.errors())]
        # A misspelt key is also a missing one: say it once, as the misspelling.
        meant = {(*loc[:-1], m.group(1)) for loc, message in errors if (m := re.search(r'did you mean "([^"]+)"', message)) and "unknown key" in message}
        for loc, message in errors:
            if message.startswith("required") and loc in meant:
                continue
            where.add(loc, message)
        error = RulesFileError(where.problems)
        error.repaired = _repaired(data, exc.errors())  # type: ignore[attr-defined]
        raise error from None
    return spec, where


def _repaired(data: dict[str, Any], errors: list[Any]) -> tuple[RulesFile, dict[str, Any]] | None:
    """The file read as if its unknown keys were what they nearly spell (or absent), so that its other
    problems can be found in the same run; None when it has problems of other kinds too."""
    import copy

    fixed = copy.deepcopy(data)
    for err in errors:
        if err["type"] == "missing":
            continue  # a misspelt key's "missing" twin; a truly missing key fails the validation below
        if err["type"] != "extra_forbidden":
            return None
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and (p.startswith("function-") or p in ("str", "int", "float", "list[...]", "constrained-str"))))
        parent: Any = fixed
        try:
            for part in loc[:-1]:
                parent = parent[part]
        except (KeyError, IndexError, TypeError):
            return None
        if not isinstance(parent, dict) or loc[-1] not in parent:
            return None
        guess = difflib.get_close_matches(str(loc[-1]), _known_keys(loc[:-1]), n=1, cutoff=0.5)
        value = parent.pop(loc[-1])
        if guess and guess[0] not in parent:
            parent[guess[0]] = value
    try:
        return RulesFile.model_validate(fixed), fixed
    except ValidationError:
        return None
