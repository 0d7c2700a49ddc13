"""Helpers for a ruleset's results-panel lines. Pure: no pygame.

A ruleset's ``panel_lines(scenario, result)`` hook returns ``(style, text)`` pairs; the
window colours them by style (``head``, ``good``, ``bad``, ``warn``, ``note``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tabletop.model import Scenario

Line = tuple[str, str]
STYLES = ("head", "good", "bad", "warn", "note")


def num(x: Any) -> str:
    """A number as short text: 3, 2.5, 0.33."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    if isinstance(x, float):
        return f"{x:.2f}".rstrip("0").rstrip(".")
    return str(x)


def display_names(scenario: Scenario) -> dict[str, str]:
    """Display label of every model and terrain piece, by id."""
    out = {m.id: m.label for m in scenario.models}
    out.update({t.id: t.label for t in scenario.terrain})
    return out


def named(ids: Iterable[str], names: Mapping[str, str]) -> str:
    """``ids`` as a step's text names them, comma separated: "Fusilier 1 (fus1)", or the bare id when it has no
    other name ("" when empty). The id stays beside the name because two models may share a name."""
    return ", ".join(f"{names[i]} ({i})" if names.get(i, i) != i else i for i in ids)


def id_list(ids: Sequence[str], names: Mapping[str, str]) -> str:
    """Labels of ``ids``, comma separated ("none" when empty)."""
    return ", ".join(names.get(i, i) for i in ids) or "none"
