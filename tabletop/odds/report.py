"""The odds as JSON and as text."""

from __future__ import annotations

from typing import Any

from tabletop.jsonfmt import readable_json
from tabletop.odds.results import OddsResult
from tabletop.units import to_units


def _r(x: float) -> float:
    return round(float(x), 6) + 0.0


def as_dict(result: OddsResult) -> dict[str, Any]:
    """The ``odds --json`` object of the spec (plus a few documented fields)."""
    units = result.scenario.units
    templates = []
    for t in result.templates:
        models: dict[str, Any] = {}
        for i, m in t.models.items():
            models[i] = {
                "p_affected": _r(m.p_affected),
                "expected_damage": _r(m.expected_damage),
                "exact": m.exact,
                "fraction": None if m.fraction is None else str(m.fraction),
                "ci95": None if m.ci95 is None else [_r(m.ci95[0]), _r(m.ci95[1])],
                "expected_damage_fraction": None if m.damage_fraction is None else str(m.damage_fraction),
                "expected_damage_ci95": None if m.damage_ci95 is None else [_r(m.damage_ci95[0]), _r(m.damage_ci95[1])],
                "p_contested": _r(m.p_contested),
            }
        templates.append(
            {
                "id": t.id,
                "method": t.method,
                "outcomes": t.outcomes,
                "samples": t.samples,
                "free_rolls": list(t.free_rolls),
                "p_allowed": _r(t.p_allowed),
                "reasons": list(t.reasons),
                "models": models,
                "landing_points": [[_r(to_units(x, units)), _r(to_units(y, units)), _r(p)] for x, y, p in t.landing_points],
            }
        )
    return {"format": 1, "title": result.scenario.title, "ruleset": result.scenario.ruleset, "units": units,
            "seed": result.seed, "dice_free": result.dice_free, "templates": templates}


def dumps(result: OddsResult) -> str:
    """The JSON report of ``tabletop odds --json``."""
    return readable_json(as_dict(result))


def report_text(result: OddsResult) -> str:
    """A readable table: per template, each model's chance to be affected and expected damage."""
    s = result.scenario
    lines = [f"{s.title or 'Scenario'} — odds under {s.ruleset}"]
    if result.dice_free:
        lines.append("dice free: the rolls the file fixes are set aside too (--keep-fixed-rolls keeps them)")
    else:
        lines.append("the rolls the file fixes are kept; only the others are free")
    lines.append("")
    names = {m.id: m.label + ("" if m.label == m.id else f" ({m.id})") for m in s.models}
    names.update({t.id: t.label + ("" if t.label == t.id else f" ({t.id})") for t in s.terrain})
    for t in result.templates:
        if t.exact:
            how = f"exact, {t.outcomes} outcome{'s' if t.outcomes != 1 else ''}"
        else:
            how = f"sampled, {t.samples} draws ({t.outcomes} distinct outcomes), seed {result.seed}, 95% interval"
        free = ", ".join(t.free_rolls) if t.free_rolls else "none"
        lines.append(f"template {t.id} — {how}; free rolls: {free}")
        if t.p_allowed < 1:
            why = "; ".join(t.reasons)
            lines.append(f"  allowed with chance {t.p_allowed:.1%}" + (f" ({why})" if why else ""))
        width = max([5, *(len(names.get(i, i)) for i in t.models)])
        lines.append(f"  {'model':<{width}}  {'affected':>8}  {'chance':<17}  {'E[damage]':>9}")
        for i, m in sorted(t.models.items(), key=lambda kv: (-kv[1].p_affected, kv[0])):
            if m.exact:
                chance = str(m.fraction)
                dmg = f"{m.expected_damage:9.3f}"
            else:
                assert m.ci95 is not None
                chance = f"[{m.ci95[0]:.1%}, {m.ci95[1]:.1%}]"
                dmg = f"{m.expected_damage:9.3f}"
            flag = f"  (within the tolerance of an edge: {m.p_contested:.1%})" if m.p_contested >= 0.0005 else ""
            lines.append(f"  {names.get(i, i):<{width}}  {m.p_affected:>8.1%}  {chance:<17}  {dmg}{flag}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
