"""Increments: its lines in the results panel, from ``resolution.details``, ``model_details`` and ``steps``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.plugin import PanelLine, Scenario, TemplateResult, display_names, id_list, num


def panel_lines(scenario: Scenario, result: TemplateResult) -> list[PanelLine]:
    """Damage per model (with its ring), cover saves and containment."""
    res = result.resolution
    d = res.details
    names = display_names(scenario)
    out: list[PanelLine] = []
    if not res.allowed:
        out.append(("bad", f"NOT ALLOWED: {res.reason}"))
    if d.get("base_damage") is not None:
        out.append(("note", f"{d.get('shape')} blast, {num(d.get('base_damage'))} damage, increment {num(d.get('increment'))}"))
    md = res.model_details
    damage: Mapping[str, Any] = d.get("damage", {}) or {}
    for mid in sorted(damage, key=lambda i: (-float(damage[i]), i)):
        info = md.get(mid, {})
        if damage[mid]:
            out.append(("bad", f"{names.get(mid, mid)}: {num(damage[mid])} damage (ring {info.get('ring')})"))
        elif info.get("blocked_by"):
            out.append(("good", f"{names.get(mid, mid)}: 0 — blocked by {id_list(info['blocked_by'], names)}"))
    zero = [mid for mid in damage if not damage[mid] and not md.get(mid, {}).get("blocked_by")]
    if zero:
        out.append(("note", f"untouched: {id_list(sorted(zero), names)}"))
    for piece, c in (d.get("cover", {}) or {}).items():
        if isinstance(c, Mapping):
            holds = "holds" if c.get("holds") else "fails"
            roll = f"save {c.get('roll')} vs {c.get('dc')}" if c.get("roll") is not None else "cannot fail"
            out.append(("note", f"cover {names.get(piece, piece)}: {roll}: {holds}"))
    contained = d.get("contained")
    if isinstance(contained, Mapping):
        state = "breached" if contained.get("breached") else "holds"
        out.append(("warn", f"contained by {names.get(contained.get('enclosure'), contained.get('enclosure'))} ({state}): "
                            f"+{num(contained.get('bonus', 0))} damage inside"))
    if d.get("smothered_by"):
        out.append(("note", f"smothered by {names.get(d['smothered_by'], d['smothered_by'])}"))
    return out
