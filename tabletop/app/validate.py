"""What the user types in the app is checked like a file: sane ranges per field, then the
edited table written out as a document and read back through the loader's own validation.

Pure: no pygame.
"""

from __future__ import annotations

import math
from typing import Any

from tabletop.model import Scenario
from tabletop.scenario_io import ScenarioError, scenario_from_data, scenario_to_data

MAX_LENGTH_MM = 100_000.0  # 100 m: longer than any table
MAX_HEADING_DEG = 1e6
MAX_SEED = 2**63 - 1


def check_length(value_mm: float, field: str, *, positive: bool = True) -> float:
    """``value_mm`` if it is a finite length no table exceeds (and > 0 when ``positive``). Raises ValueError."""
    if not math.isfinite(value_mm):
        raise ValueError(f"{field}: must be finite")
    if abs(value_mm) > MAX_LENGTH_MM:
        raise ValueError(f"{field}: {value_mm:g} mm is longer than any table (at most {MAX_LENGTH_MM:g} mm)")
    if positive and not value_mm > 0:
        raise ValueError(f"{field}: must be positive")
    return value_mm


def check_heading(text: str) -> float:
    """A heading typed in degrees. Raises ValueError."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"Heading: {text!r} is not a number") from None
    if not math.isfinite(value) or abs(value) > MAX_HEADING_DEG:
        raise ValueError(f"Heading: {text!r} must be a finite angle in degrees")
    return value


def check_seed(text: str) -> int:
    """A seed typed in the Seed box: a whole number 0 … 2**63-1. Raises ValueError."""
    text = text.strip() or "1"
    if len(text) > 20 or not text.isdigit():
        raise ValueError("The seed is a whole number from 0 to 2**63-1")
    value = int(text)
    if value > MAX_SEED:
        raise ValueError("The seed is a whole number from 0 to 2**63-1")
    return value


def document_problem(scenario: Scenario, before: Scenario | None = None) -> str | None:
    """None when ``scenario``, written as a file, loads back; else the loader's first messages.

    ``before``: the table before the edit; problems it already had do not refuse the edit (a table put
    under a rules file whose stats its models lack is mended one field at a time).
    """
    problems = _problems(scenario)
    if problems and before is not None:
        had = {(p.path, p.message) for p in _problems(before) if hasattr(p, "path")}
        problems = [p for p in problems if not hasattr(p, "path") or (p.path, p.message) not in had]
    return "; ".join(str(p) for p in problems[:3]) or None


def _problems(scenario: Scenario) -> list[Any]:
    try:
        scenario_from_data(scenario_to_data(scenario), "<edit>")
    except ScenarioError as exc:
        return [p for p in exc.problems if not p.warning] or [str(exc)]
    except Exception as exc:  # noqa: BLE001 - whatever the writer or the loader chokes on refuses the edit
        return [f"the table could not be written and read back ({type(exc).__name__}: {exc})"[:300]]
    return []


__all__ = ["MAX_LENGTH_MM", "MAX_SEED", "check_heading", "check_length", "check_seed", "document_problem"]
