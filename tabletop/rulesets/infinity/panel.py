"""Infinity: its lines in the results panel, from ``resolution.details``, ``model_details`` and ``steps``."""

from __future__ import annotations

from collections.abc import Mapping

from tabletop.plugin import PanelLine, Scenario, TemplateResult, display_names, num


def panel_lines(scenario: Scenario, result: TemplateResult) -> list[PanelLine]:
    """Shot number, placement, nullification, and each affected enemy's Dodge with the reason."""
    res = result.resolution
    d, md = res.details, res.model_details
    names = display_names(scenario)
    out: list[PanelLine] = []
    shot = f"shot {d.get('shot', 1)} of burst {d.get('burst', 1)}" if d.get("burst", 1) != 1 else "single shot"
    target = d.get("main_target")
    where = f"{d.get('placement', '?')}" + (f" on {names.get(target, target)}" if target else "")
    out.append(("note", f"{shot} · {where}" + (" (speculative)" if d.get("speculative") else "")))
    if d.get("nullified"):
        out.append(("bad", f"NULLIFIED: {res.reason}"))
    elif not res.allowed:
        out.append(("bad", f"FAILS: {res.reason}"))
    dodge: Mapping[str, str] = d.get("dodge", {}) or {}
    for mid, what in dodge.items():
        info = md.get(mid, {})
        target_no = info.get("dodge_target")
        value = f"{what} ({target_no})" if target_no is not None else what
        back = "may shoot back" if info.get("can_shoot_back") else "cannot shoot back"
        out.append(("good" if what == "PH" else "warn", f"{names.get(mid, mid)}: dodge {value} — {info.get('why', '')}; {back}"))
    for mid, info in md.items():
        if "aro" in info:
            back = "can shoot back" if info.get("can_shoot_back") else "cannot shoot back"
            out.append(("note", f"{names.get(mid, mid)}: {info['aro']} ({back})"))
    for mid, info in md.items():
        status = res.coverage.models[mid].status if mid in res.coverage.models else None
        if status in ("outside", "total_cover") and "why" in info and mid not in dodge:
            out.append(("note", f"{names.get(mid, mid)}: {info['why']}"))
    out.append(("note", f"focus at {num(d.get('focus_z_mm', 0))} mm ({d.get('focus_z_from', '')}); "
                        f"height ±{num(d.get('template_height_mm', 0))} mm, vertical model {d.get('vertical_model', 'x')}"))
    if d.get("expendable_use_spent"):
        out.append(("warn", "expendable: the use is spent"))
    return out
