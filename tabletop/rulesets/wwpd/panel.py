"""WWPD: its lines in the results panel, from ``resolution.details``, ``model_details`` and ``steps``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tabletop.plugin import PanelLine, Scenario, TemplateResult, display_names, id_list


def panel_lines(scenario: Scenario, result: TemplateResult) -> list[PanelLine]:
    """Hits (models covered) per unit and the Leadership test."""
    res = result.resolution
    d = res.details
    names = display_names(scenario)
    out: list[PanelLine] = []
    if not res.allowed:
        out.append(("bad", f"NOT ALLOWED: {res.reason}"))
    battery = d.get("battery", 1)
    if battery and battery != 1:
        out.append(("note", f"battery of {battery} templates"))
    covered: Mapping[str, Sequence[str]] = d.get("covered", {}) or {}
    for unit, count in (d.get("counts", {}) or {}).items():
        out.append(("bad", f"unit {unit}: {count} hit{'s' if count != 1 else ''} (only on {id_list(covered.get(unit, ()), names)})"))
    if d.get("leadership_test"):
        friends = id_list(d.get("friendly_covered", ()), names)
        out.append(("warn", f"Leadership test for {d.get('leadership_unit')}: friendly {friends} covered"))
    elif "leadership_test" in d:
        out.append(("good", "no Leadership test (no friendly model covered)"))
    return out
