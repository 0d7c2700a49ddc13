"""Ruleset settings, read strictly: known names, typed values, allowed choices.

A ruleset declares ``settings: name -> (default, explanation)``. The type of a
setting is the type of its default; a text setting's choices are the quoted
words its explanation lists (``'x' (default) ... 'cylinder' ...``) or an
``a | b | c`` list. Numbers are bounded: by :data:`NUMBER_RANGES` where a rule
gives the range, else by a ``(1-8)`` range in the explanation, else by
:data:`MAX_MAGNITUDE`. Every failure is a :class:`SettingError` whose message
names the setting, what it allows and, for a misspelt name, a did-you-mean.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: The largest magnitude of a numeric setting without a stated range.
MAX_MAGNITUDE = 1e6
#: Longest text value of a setting.
MAX_TEXT = 200
#: Ranges the rules give: name -> (low, high, high_inclusive).
NUMBER_RANGES: dict[str, tuple[float, float, bool]] = {
    "battery_overlap": (0.0, 1.0, False),  # a fraction of a template's extent; 1 would stack them
    "roll_with_impact_needs": (0, 6, True),  # a D6 result; 0 = no roll
    "default_silhouette": (1, 8, True),
    "prone_height_mm": (0.0, 1000.0, True),
}

_QUOTED = re.compile(r"'([A-Za-z0-9_\-]+)'")
_PIPES = re.compile(r"\b([A-Za-z0-9_\-]+(?:\s*\|\s*[A-Za-z0-9_\-]+)+)\b")
_RANGE = re.compile(r"\((-?\d+(?:\.\d+)?)\s*[-–]\s*(-?\d+(?:\.\d+)?)\)")
_INT = re.compile(r"[+-]?\d{1,15}")
_FLOAT = re.compile(r"[+-]?(?:\d{1,15}(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,3})?")


class SettingError(ValueError):
    """A setting name or value that the ruleset does not accept."""

    def __init__(self, name: str, message: str) -> None:
        self.name = name
        super().__init__(message)


@dataclass(frozen=True)
class SettingSpec:
    """What one setting accepts, inferred from its default and explanation."""

    name: str
    default: Any
    kind: str  # "bool", "int", "float", "choice" or "text"
    choices: tuple[str, ...] = ()
    low: float = -MAX_MAGNITUDE
    high: float = MAX_MAGNITUDE
    high_inclusive: bool = True

    def allowed(self) -> str:
        """What the setting accepts, in words."""
        if self.kind == "bool":
            return "true or false"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "text":
            return f"text of at most {MAX_TEXT} characters"
        what = "a whole number" if self.kind == "int" else "a number"
        upper = "<=" if self.high_inclusive else "<"
        return f"{what} {_num(self.low)} <= value {upper} {_num(self.high)}"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def spec_for(name: str, default: Any, explanation: str) -> SettingSpec:
    """The spec of one declared setting."""
    if isinstance(default, bool):
        return SettingSpec(name, default, "bool")
    if isinstance(default, (int, float)):
        kind = "int" if isinstance(default, int) else "float"
        if name in NUMBER_RANGES:
            low, high, inclusive = NUMBER_RANGES[name]
        else:
            m = _RANGE.search(explanation)
            low, high, inclusive = (float(m.group(1)), float(m.group(2)), True) if m else (-MAX_MAGNITUDE, MAX_MAGNITUDE, True)
        return SettingSpec(name, default, kind, low=low, high=high, high_inclusive=inclusive)
    if isinstance(default, str):
        choices: list[str] = []
        for word in _QUOTED.findall(explanation):
            if word not in choices:
                choices.append(word)
        if default not in choices:
            choices = []
            for group in _PIPES.findall(explanation):
                words = [w.strip() for w in group.split("|")]
                if default in words:
                    choices = words
                    break
        if default in choices:
            return SettingSpec(name, default, "choice", tuple(choices))
        return SettingSpec(name, default, "text")
    return SettingSpec(name, default, "text")


def specs(declared: Mapping[str, tuple[Any, str]]) -> dict[str, SettingSpec]:
    """Specs of a ruleset's declared settings (``Ruleset.settings``)."""
    return {name: spec_for(name, default, why) for name, (default, why) in declared.items()}


def unknown_name_message(name: str, known: Iterable[str], ruleset: str) -> str:
    """``unknown setting 'x' for ruleset y (did you mean ...?; settings: a, b)``."""
    names = sorted(known)
    if not names:
        return f"unknown setting {_shown(name)}: ruleset {ruleset} has no settings"
    guess = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    hint = f"did you mean {guess[0]!r}? " if guess else ""
    return f"unknown setting {_shown(name)} for ruleset {ruleset} ({hint}settings: {', '.join(names)})"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_value(spec: SettingSpec, value: Any) -> Any:
    """``value`` (already typed: TOML, JSON or Python) if ``spec`` accepts it; else SettingError."""
    bad = SettingError(spec.name, f"setting {spec.name}: must be {spec.allowed()}, got {_shown(value)}")
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise bad
        return value
    if spec.kind in ("int", "float"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad
        if isinstance(value, int) and abs(value) > 2**53:
            raise bad
        if isinstance(value, float) and not math.isfinite(value):
            raise bad
        if spec.kind == "int" and not (isinstance(value, int) or float(value).is_integer()):
            raise bad
        if value < spec.low or value > spec.high or (value == spec.high and not spec.high_inclusive):
            raise bad
        return int(value) if spec.kind == "int" else float(value)
    if spec.kind == "choice":
        if not isinstance(value, str) or value not in spec.choices:
            guess = difflib.get_close_matches(value, spec.choices, n=1, cutoff=0.5) if isinstance(value, str) else []
            hint = f" (did you mean {guess[0]!r}?)" if guess else ""
            raise SettingError(spec.name, f"setting {spec.name}: must be {spec.allowed()}, got {_shown(value)}{hint}")
        return value
    if not isinstance(value, str) or len(value) > MAX_TEXT or any(ord(c) < 32 for c in value):
        raise bad
    return value


def parse_text(spec: SettingSpec, raw: str) -> Any:
    """A ``--set`` value (text from the command line) read as ``spec``'s type."""
    text = raw.strip()
    if spec.kind == "bool":
        lowered = text.lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        return check_value(spec, raw)  # raises, naming the setting
    if spec.kind in ("int", "float"):
        if _INT.fullmatch(text):
            return check_value(spec, int(text))
        if spec.kind == "float" and _FLOAT.fullmatch(text):
            return check_value(spec, float(text))
        return check_value(spec, raw)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    return check_value(spec, text)


def parse_pairs(pairs: Iterable[str], declared: Mapping[str, tuple[Any, str]], ruleset: str) -> dict[str, Any]:
    """``["name=value", ...]`` from ``--set`` checked against a ruleset's settings."""
    known = specs(declared)
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise SettingError("", f"--set expects NAME=VALUE, got {_shown(pair)}")
        name, raw = pair.split("=", 1)
        name = name.strip()
        if name not in known:
            raise SettingError(name, unknown_name_message(name, known, ruleset))
        out[name] = parse_text(known[name], raw)
    return out


def check_mapping(values: Any, declared: Mapping[str, tuple[Any, str]], ruleset: str) -> list[tuple[str, str]]:
    """Problems of a ``[settings]`` table as (setting name or "", message) pairs."""
    if not isinstance(values, Mapping):
        return [("", f"must be a table of setting = value, got {_shown(values)}")]
    known = specs(declared)
    problems: list[tuple[str, str]] = []
    for name, value in values.items():
        if name not in known:
            message = unknown_name_message(str(name), known, ruleset)
            if isinstance(value, Mapping):  # [settings.<ruleset>]: a table per ruleset, as some formats have
                example = next((str(k) for k in value if k in known), next(iter(sorted(known)), "name"))
                message += f"; [settings] holds the settings themselves (write {example} = … under [settings]), not a table per ruleset"
            problems.append((str(name), message))
            continue
        try:
            check_value(known[name], value)
        except SettingError as exc:
            problems.append((str(name), str(exc).removeprefix(f"setting {name}: ")))
    return problems


def checked(values: Mapping[str, Any], declared: Mapping[str, tuple[Any, str]], ruleset: str) -> dict[str, Any]:
    """``values`` with each one checked (and ints widened to float settings); raises SettingError."""
    known = specs(declared)
    out: dict[str, Any] = {}
    for name, value in values.items():
        if name not in known:
            raise SettingError(str(name), unknown_name_message(str(name), known, ruleset))
        out[name] = check_value(known[name], value)
    return out
