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
_LENGTH = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(mm|cm|in|inch|inches|\"|″)?\s*$")


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
        match = _LENGTH.match(value)
        if not match:
            raise LengthError(f"cannot read {value!r} as a length (write e.g. 25mm, 1.5in, 3cm or 2\")")
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


def length_for_file(mm: float, unit: str) -> float | str:
    """The value to write for ``mm`` in a file whose bare numbers are ``unit``.

    A bare number when it reads back to exactly ``mm``; otherwise a string in mm,
    so that saving and loading never changes a length by even one bit.
    """
    mm = float(mm)
    factor = MM_PER_UNIT[unit]
    number = mm / factor
    # The shortest decimal that reads back to the very same millimetres.
    for digits in range(0, 13):
        candidate = round(number, digits)
        if digits > 4 and unit != "mm" and round(mm, 2) == mm and float(f"{mm!r}") == mm:
            # 25 mm in an inch file reads better as "25mm" than as 0.984251968503937.
            return f"{int(mm) if mm.is_integer() else mm!r}mm"
        if candidate * factor == mm:
            return int(candidate) if candidate.is_integer() and abs(candidate) < 2**53 else candidate
    if number * factor == mm:
        return number
    return f"{mm!r}mm"


def format_length(mm: float, unit: str = "in", digits: int = 2) -> str:
    """Human-readable length, e.g. ``'3.00"'`` or ``'76.2 mm'``."""
    if unit == "in":
        return f'{to_units(mm, "in"):.{digits}f}"'
    return f"{to_units(mm, unit):.{digits}f} {unit}"
