"""Catastrophic Damage: its lines in the results panel, from ``resolution.details``, ``model_details`` and ``steps``."""

from __future__ import annotations

from tabletop.plugin import PanelLine, Scenario, TemplateResult, display_names, id_list, num


def panel_lines(scenario: Scenario, result: TemplateResult) -> list[PanelLine]:
    """Explodes or not, RAV and AOE, the chain reaction and the victory points."""
    res = result.resolution
    d = res.details
    names = display_names(scenario)
    out: list[PanelLine] = []
    if not res.allowed:
        out.append(("bad", f"NOT ALLOWED: {res.reason}"))
    if "critical_damage" in d:
        out.append(("note", f"Critical Hit {num(d['critical_damage'])} vs threshold {num(d.get('threshold'))}"
                            + (f"; second attack roll {d['second_attack_roll']}" if "second_attack_roll" in d else "")))
    if d.get("catastrophic_failure"):
        out.append(("warn", "Catastrophic Failure: no Defensive Fire this activation"))
    if d.get("explodes"):
        out.append(("bad", f"EXPLODES ({str(d.get('cause', '')).replace('_', ' ')}): RAV {num(d.get('rav'))}, AOE/{num(d.get('aoe'))}"
                           + (" (+1 Martyr)" if d.get("martyr_bonus") else "")))
    elif "explodes" in d:
        out.append(("good", "does not explode"))
    chain = d.get("chain", []) or []
    for k, link in enumerate(chain):
        who = names.get(link.get("model"), link.get("model"))
        by = f" (set off by {names.get(link['caused_by'], link['caused_by'])})" if link.get("caused_by") else ""
        arrow = "→" if k else "•"
        out.append(("warn" if k else "note", f"{arrow} {who}{by}: RAV {num(link.get('rav'))}, AOE/{num(link.get('aoe'))}, "
                                             f"catches {id_list(link.get('caught', ()), names)}"))
    for vp in d.get("victory_points", []) or []:
        martyr = names.get(vp.get("martyr"), vp.get("martyr"))
        out.append(("note", f"VP: {martyr} counts as destroyed by {vp.get('martyr_awarded_to')}"))
        caught = vp.get("caught_awarded_to", {}) or {}
        for victim, side in caught.items():
            out.append(("note", f"VP: {names.get(victim, victim)} scores for {side if side else 'no one'}"))
    return out
