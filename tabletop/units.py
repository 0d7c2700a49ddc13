"""Lengths with units: every length inside Tabletop is in millimetres."""

from __future__ import annotations

import math
import re

MM_PER_UNIT: dict[str, float] = {"mm": 1.0, "cm": 10.0, "in": 25.4}
UNIT_ALIASES: dict[str, str] = {
    "mm": "mm",
    "cm": "cm",
    "in": "in",
    '"': "in",
    "inch": "in",
    "inches": "in",
    "″": "in",
}
# ASCII digits only: Python's \d and float() would also take "٣" or "３" for 3.
# Possessive: a string of 10,000 digits and an 'x' took 10 s to refuse (each digit a backtracking step).
_LENGTH = re.compile(r"^\s*+([-+]?+(?:[0-9]++\.?+[0-9]*+|\.[0-9]++)(?:[eE][-+]?+[0-9]++)?+)\s*+(inches|inch|in|mm|cm|\"|″)?\s*+$")
#: Longer than any length anyone writes ("  -1234.5678e-3 inches  "): refused without reading it.
MAX_LENGTH_TEXT = 64


#: Limits a real table can hold (docs/limits.md). Longest length or farthest coordinate: 100 m.
MAX_LENGTH_MM = 100_000.0
#: Smallest template dimension, base size or model height.
MIN_TEMPLATE_MM = 0.1
#: Longest model, terrain or template name (also side, unit, kind).
MAX_NAME_CHARS = 200
#: Longest title.
MAX_TITLE_CHARS = 500
#: Longest other text value (notes, weapon names, unknown keys kept).
MAX_TEXT_CHARS = 10_000


class LengthError(ValueError):
    """A length that cannot be read."""


_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def printable(text: str) -> bool:
    """No control characters and no lone UTF-16 surrogates (those break terminals and encoders)."""
    return _UNPRINTABLE.search(text) is None


def too_deep(value: object, limit: int, path: str = "") -> str | None:
    """The path of the first table/list nested more than ``limit`` deep in ``value``, else None."""
    stack: list[tuple[object, str, int]] = [(value, path, 0)]
    while stack:
        node, where, depth = stack.pop()
        if isinstance(node, dict):
            items: list[tuple[str, object]] = [(f"{where}.{k}" if where else str(k), v) for k, v in node.items()]
        elif isinstance(node, list):
            items = [(f"{where}[{i}]", v) for i, v in enumerate(node)]
        else:
            continue
        if depth >= limit:
            return where or "(top level)"
        stack.extend((v, w, depth + 1) for w, v in items)
    return None


def parse_length(value: object, default_unit: str) -> float:
    """Return ``value`` in mm: a number in ``default_unit`` or a string such as ``"25mm"``."""
    if isinstance(value, bool):
        raise LengthError(f"expected a length, got {value!r}")
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:
            raise LengthError(f"length is far too large (about 10^{int(value.bit_length() * 0.30103)})") from None
        unit = default_unit
    elif isinstance(value, str):
        match = _LENGTH.match(value) if len(value) <= MAX_LENGTH_TEXT else None
        if not match:
            shown = repr(value) if len(value) <= MAX_LENGTH_TEXT else f"{value[:24]!r}… ({len(value):,} characters)"
            raise LengthError(f"cannot read {shown} as a length (write e.g. 25mm, 1.5in, 3cm or 2\")")
        number = float(match.group(1))
        unit = UNIT_ALIASES[match.group(2)] if match.group(2) else default_unit
    else:
        raise LengthError(f"expected a length, got {type(value).__name__} {value!r}")
    if not math.isfinite(number):
        raise LengthError(f"length must be finite, got {value!r}")
    mm = number * MM_PER_UNIT[unit]
    if abs(mm) > MAX_LENGTH_MM:
        raise LengthError(f"length {value!r} is beyond what a table can hold (at most {MAX_LENGTH_MM / 1000:g} m)")
    return mm


def to_units(mm: float, unit: str) -> float:
    """Convert millimetres to ``unit``."""
    return mm / MM_PER_UNIT[unit]


#: Saved lengths are rounded to this many mm at most (docs/scenario-format.md, "Saving").
WRITE_RESOLUTION_MM = 0.001
#: Numbers with at most this many decimals are taken as typed by hand and written back exactly.
_HAND_DECIMALS = 6


def _short(number: float) -> int | float:
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def length_for_file(mm: float, unit: str) -> float | str:
    """The value to write for ``mm`` in a file whose bare numbers are ``unit``.

    A number that reads back to exactly ``mm`` with at most six decimals (anything typed
    by hand) is written unchanged; ``"25mm"`` for a value with at most three decimals in mm
    in an inch or cm file; otherwise the shortest decimal within half of ``WRITE_RESOLUTION_MM``
    (2.6013986013986004 in -> 2.6014), so a file stays readable and a saved length is
    within 0.0005 mm of the one in memory.
    """
    mm = float(mm)
    factor = MM_PER_UNIT[unit]
    number = mm / factor
    for digits in range(_HAND_DECIMALS + 1):
        candidate = round(number, digits)
        if candidate * factor == mm:
            return _short(candidate)
    if unit != "mm" and round(mm, 3) == mm:
        # 25 mm in an inch file reads better as "25mm" than as 0.984251968503937, and
        # "1.625mm" typed by hand stays exact.
        return f"{_short(mm)!r}mm"
    half = WRITE_RESOLUTION_MM / 2
    for digits in range(16):
        candidate = round(number, digits)
        if abs(candidate * factor - mm) <= half:
            return _short(candidate)
    return _short(number)


def format_length(mm: float, unit: str = "in", digits: int = 2) -> str:
    """Human-readable length, e.g. ``'3.00"'`` or ``'76.2 mm'``."""
    if unit == "in":
        return f'{to_units(mm, "in"):.{digits}f}"'
    return f"{to_units(mm, unit):.{digits}f} {unit}"
