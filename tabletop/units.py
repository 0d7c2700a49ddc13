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


class LengthError(ValueError):
    """A length that cannot be read."""


def parse_length(value: object, default_unit: str) -> float:
    """Return ``value`` in mm: a number in ``default_unit`` or a string such as ``"25mm"``."""
    if isinstance(value, bool):
        raise LengthError(f"expected a length, got {value!r}")
    if isinstance(value, (int, float)):
        number = float(value)
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
    return number * MM_PER_UNIT[unit]


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
