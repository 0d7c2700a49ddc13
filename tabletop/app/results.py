"""What each ruleset decided, as short lines for the results panel. Pure: no pygame.

``ruleset_lines(scenario, result)`` reads ``resolution.details``,
``model_details`` and ``steps`` and returns ``(style, text)`` pairs; the window
colours them by style (``head``, ``good``, ``bad``, ``warn``, ``note``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tabletop.adjudicate import TemplateResult
from tabletop.model import Scenario

Line = tuple[str, str]


def _num(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    if isinstance(x, float):
        return f"{x:.2f}".rstrip("0").rstrip(".")
    return str(x)


def _names(scenario: Scenario) -> dict[str, str]:
    out = {m.id: m.label for m in scenario.models}
    out.update({t.id: t.label for t in scenario.terrain})
    return out


def _list(ids: Sequence[str], names: Mapping[str, str]) -> str:
    return ", ".join(names.get(i, i) for i in ids) or "none"


def infinity_lines(scenario: Scenario, result: TemplateResult) -> list[Line]:
    """Shot number, placement, nullification, and each affected enemy's Dodge with the reason."""
    res = result.resolution
    d, md = res.details, res.model_details
    names = _names(scenario)
    out: list[Line] = []
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
    out.append(("note", f"focus at {_num(d.get('focus_z_mm', 0))} mm ({d.get('focus_z_from', '')}); "
                        f"height ±{_num(d.get('template_height_mm', 0))} mm, vertical model {d.get('vertical_model', 'x')}"))
    if d.get("expendable_use_spent"):
        out.append(("warn", "expendable: the use is spent"))
    return out


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


def robotech_lines(scenario: Scenario, result: TemplateResult) -> list[Line]:
    """Strike, hit or scatter, damage per mecha before and after reactions, Command Points spent."""
    res = result.resolution
    d = res.details
    names = _names(scenario)
    out: list[Line] = []
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
        out.append(("warn", f"scatter: direction {d['scatter_direction']}, {_num(d.get('scatter_distance'))}\"{capped}; "
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
        dftext = f" (DF {_num(df)})" if df is not None else " (structure)" if unit not in md else ""
        change = f"{_num(before)} MD" if before == after else f"{_num(before)} → {_num(after)} MD"
        extra = _reaction_words(reactions.get(unit, {}))
        style = "bad" if after else "note"
        out.append((style, f"{names.get(unit, unit)}{dftext}: {change}" + (f" — {'; '.join(extra)}" if extra else "")))
    spent = _cp_spent(reactions)
    if spent:
        out.append(("note", "Command Points spent: " + ", ".join(f"{names.get(u, u)} {n}" for u, n in sorted(spent.items()))))
    elif any(m.stats.get("CP") is not None for m in scenario.models):
        out.append(("note", "Command Points spent: none"))
    return out


def wwpd_lines(scenario: Scenario, result: TemplateResult) -> list[Line]:
    """Hits (models covered) per unit and the Leadership test."""
    res = result.resolution
    d = res.details
    names = _names(scenario)
    out: list[Line] = []
    if not res.allowed:
        out.append(("bad", f"NOT ALLOWED: {res.reason}"))
    battery = d.get("battery", 1)
    if battery and battery != 1:
        out.append(("note", f"battery of {battery} templates"))
    covered: Mapping[str, Sequence[str]] = d.get("covered", {}) or {}
    for unit, count in (d.get("counts", {}) or {}).items():
        out.append(("bad", f"unit {unit}: {count} hit{'s' if count != 1 else ''} (only on {_list(covered.get(unit, ()), names)})"))
    if d.get("leadership_test"):
        friends = _list(d.get("friendly_covered", ()), names)
        out.append(("warn", f"Leadership test for {d.get('leadership_unit')}: friendly {friends} covered"))
    elif "leadership_test" in d:
        out.append(("good", "no Leadership test (no friendly model covered)"))
    return out


def increments_lines(scenario: Scenario, result: TemplateResult) -> list[Line]:
    """Damage per model (with its ring), cover saves and containment."""
    res = result.resolution
    d = res.details
    names = _names(scenario)
    out: list[Line] = []
    if not res.allowed:
        out.append(("bad", f"NOT ALLOWED: {res.reason}"))
    if d.get("base_damage") is not None:
        out.append(("note", f"{d.get('shape')} blast, {_num(d.get('base_damage'))} damage, increment {_num(d.get('increment'))}"))
    md = res.model_details
    damage: Mapping[str, Any] = d.get("damage", {}) or {}
    for mid in sorted(damage, key=lambda i: (-float(damage[i]), i)):
        info = md.get(mid, {})
        if damage[mid]:
            out.append(("bad", f"{names.get(mid, mid)}: {_num(damage[mid])} damage (ring {info.get('ring')})"))
        elif info.get("blocked_by"):
            out.append(("good", f"{names.get(mid, mid)}: 0 — blocked by {_list(info['blocked_by'], names)}"))
    zero = [mid for mid in damage if not damage[mid] and not md.get(mid, {}).get("blocked_by")]
    if zero:
        out.append(("note", f"untouched: {_list(sorted(zero), names)}"))
    for piece, c in (d.get("cover", {}) or {}).items():
        if isinstance(c, Mapping):
            holds = "holds" if c.get("holds") else "fails"
            roll = f"save {c.get('roll')} vs {c.get('dc')}" if c.get("roll") is not None else "cannot fail"
            out.append(("note", f"cover {names.get(piece, piece)}: {roll}: {holds}"))
    contained = d.get("contained")
    if isinstance(contained, Mapping):
        state = "breached" if contained.get("breached") else "holds"
        out.append(("warn", f"contained by {names.get(contained.get('enclosure'), contained.get('enclosure'))} ({state}): "
                            f"+{_num(contained.get('bonus', 0))} damage inside"))
    if d.get("smothered_by"):
        out.append(("note", f"smothered by {names.get(d['smothered_by'], d['smothered_by'])}"))
    return out


def catastrophic_lines(scenario: Scenario, result: TemplateResult) -> list[Line]:
    """Explodes or not, RAV and AOE, the chain reaction and the victory points."""
    res = result.resolution
    d = res.details
    names = _names(scenario)
    out: list[Line] = []
    if not res.allowed:
        out.append(("bad", f"NOT ALLOWED: {res.reason}"))
    if "critical_damage" in d:
        out.append(("note", f"Critical Hit {_num(d['critical_damage'])} vs threshold {_num(d.get('threshold'))}"
                            + (f"; second attack roll {d['second_attack_roll']}" if "second_attack_roll" in d else "")))
    if d.get("catastrophic_failure"):
        out.append(("warn", "Catastrophic Failure: no Defensive Fire this activation"))
    if d.get("explodes"):
        out.append(("bad", f"EXPLODES ({str(d.get('cause', '')).replace('_', ' ')}): RAV {_num(d.get('rav'))}, AOE/{_num(d.get('aoe'))}"
                           + (" (+1 Martyr)" if d.get("martyr_bonus") else "")))
    elif "explodes" in d:
        out.append(("good", "does not explode"))
    chain = d.get("chain", []) or []
    for k, link in enumerate(chain):
        who = names.get(link.get("model"), link.get("model"))
        by = f" (set off by {names.get(link['caused_by'], link['caused_by'])})" if link.get("caused_by") else ""
        arrow = "→" if k else "•"
        out.append(("warn" if k else "note", f"{arrow} {who}{by}: RAV {_num(link.get('rav'))}, AOE/{_num(link.get('aoe'))}, "
                                             f"catches {_list(link.get('caught', ()), names)}"))
    for vp in d.get("victory_points", []) or []:
        martyr = names.get(vp.get("martyr"), vp.get("martyr"))
        out.append(("note", f"VP: {martyr} counts as destroyed by {vp.get('martyr_awarded_to')}"))
        caught = vp.get("caught_awarded_to", {}) or {}
        for victim, side in caught.items():
            out.append(("note", f"VP: {names.get(victim, victim)} scores for {side if side else 'no one'}"))
    return out


RULESET_LINES: dict[str, Callable[[Scenario, TemplateResult], list[Line]]] = {
    "infinity": infinity_lines,
    "robotech": robotech_lines,
    "wwpd": wwpd_lines,
    "increments": increments_lines,
    "catastrophic": catastrophic_lines,
}


def ruleset_lines(scenario: Scenario, result: TemplateResult) -> list[Line]:
    """The ruleset's own account of one template (empty for ``none`` or an unknown ruleset)."""
    fn = RULESET_LINES.get(scenario.ruleset)
    if fn is None:
        return []
    try:
        return fn(scenario, result)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a ruleset whose details changed shape
        return [("bad", f"(cannot summarise the {scenario.ruleset} details: {exc})")]
