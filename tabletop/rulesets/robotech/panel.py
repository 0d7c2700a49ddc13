"""Robotech: its lines in the results panel, from ``resolution.details``, ``model_details`` and ``steps``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.plugin import PanelLine, Scenario, TemplateResult, display_names, num


def _cp_spent(reactions: Mapping[str, Mapping[str, Any]]) -> dict[str, int]:
    """Command Points each mecha paid: one per shoot-down, Dodge or Roll with Impact attempted."""
    spent: dict[str, int] = {}
    for unit, did in reactions.items():
        n = 0
        for what, entry in did.items():
            if not isinstance(entry, Mapping):
                continue  # "no Command Point left"
            if what == "dodge" and entry.get("inescapable"):
                continue
            n += 1
        if n:
            spent[unit] = n
    return spent


def _reaction_words(did: Mapping[str, Any]) -> list[str]:
    words: list[str] = []
    for what, entry in did.items():
        name = what.replace("_", " ")
        if not isinstance(entry, Mapping):
            words.append(f"{name}: {entry}")
        elif entry.get("inescapable"):
            words.append(f"cannot dodge ({entry.get('missiles')} missiles: Inescapable)")
        elif what == "dodge":
            words.append(f"dodge {entry.get('roll')}+{entry.get('pi')}={entry.get('total')} vs {entry.get('needs')}: "
                         + ("dodged" if entry.get("success") else "failed"))
        elif what == "shoot_down":
            words.append(f"shoot down {entry.get('roll')}: " + ("shot down" if entry.get("success") else "missed"))
        elif what == "roll_with_impact":
            if "after" in entry:
                words.append(f"rolls with impact {entry.get('before')}→{entry.get('after')}")
            else:
                words.append(f"roll with impact {entry.get('roll')}: failed")
    return words


def panel_lines(scenario: Scenario, result: TemplateResult) -> list[PanelLine]:
    """Strike, hit or scatter, damage per mecha before and after reactions, Command Points spent."""
    res = result.resolution
    d = res.details
    names = display_names(scenario)
    out: list[PanelLine] = []
    if not res.allowed:
        out.append(("bad", f"NOT ALLOWED: {res.reason}"))
        return out
    if "missiles" in d:
        for m in d["missiles"]:
            where = "hit" if m.get("hit") else ("scattered" if m.get("scattered") else "miss")
            down = f", shot down by {names.get(m['shot_down_by'], m['shot_down_by'])}" if m.get("shot_down_by") else ""
            out.append(("note", f"missile {m.get('missile')}: Strike {m.get('strike')} → {where}{down}"))
    else:
        out.append(("good" if d.get("hit") else "warn", f"Strike {d.get('strike')} (GN {d.get('gn')}): " + ("hit" if d.get("hit") else "miss")))
    if "scatter_direction" in d:
        capped = " (capped at the range)" if d.get("scatter_capped") else ""
        out.append(("warn", f"scatter: direction {d['scatter_direction']}, {num(d.get('scatter_distance'))}\"{capped}; "
                            f"new Strike {d.get('scatter_strike')}"))
    if d.get("dud"):
        out.append(("note", "dud: the scattered Blast does no damage"))
    if d.get("whole_volley_missed"):
        out.append(("warn", "the whole volley missed"))
    damage: Mapping[str, Any] = d.get("damage", {}) or {}
    final: Mapping[str, Any] = d.get("final_damage", {}) or {}
    reactions: Mapping[str, Mapping[str, Any]] = d.get("reactions", {}) or {}
    md = res.model_details
    for unit in sorted(damage, key=lambda u: (-float(final.get(u, 0)), u)):
        before, after = damage[unit], final.get(unit, damage[unit])
        df = md.get(unit, {}).get("df")
        dftext = f" (DF {num(df)})" if df is not None else " (structure)" if unit not in md else ""
        change = f"{num(before)} MD" if before == after else f"{num(before)} → {num(after)} MD"
        extra = _reaction_words(reactions.get(unit, {}))
        style = "bad" if after else "note"
        out.append((style, f"{names.get(unit, unit)}{dftext}: {change}" + (f" — {'; '.join(extra)}" if extra else "")))
    spent = _cp_spent(reactions)
    if spent:
        out.append(("note", "Command Points spent: " + ", ".join(f"{names.get(u, u)} {n}" for u, n in sorted(spent.items()))))
    elif any(m.stats.get("CP") is not None for m in scenario.models):
        out.append(("note", "Command Points spent: none"))
    return out
