"""What each model under a rules file's template suffers: partial rolls, bands, saves, friendly fire.

Called by :mod:`.engine` once the template has landed; takes the partial rolls (models in table
order) and then the saves (the file's order; within a save, its ``who`` order) from ``ctx.dice``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from tabletop.model import Model, PlacedTemplate, Terrain
from tabletop.resolution import Context, Step
from tabletop.rulesfile.aim import Aim, friends
from tabletop.rulesfile.compile import Rules
from tabletop.rulesfile.values import Stats, grid_ring, terrain_centre


@dataclass
class Outcome:
    details: dict[str, Any] = field(default_factory=dict)
    model_details: dict[str, dict[str, Any]] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)


BAND_WORDS = {"full": "in full", "half": "half, rounded down", "none": "nothing"}


def band_of(rules: Rules, primary: bool, hit: bool, scattered: bool) -> tuple[str, str]:
    """(band, rule id) of one model: after a scatter, the scattered band; the aimed-at target of a hit, the primary's."""
    e = rules.spec.effect
    if e.primary == e.others == e.scattered:
        return e.others, "effect"
    if scattered:
        return e.scattered, "effect_scattered"
    if primary and hit:
        return e.primary, "effect_primary"
    return e.others, "effect_others"


def amount_in_band(amount: int, band: str) -> int:
    return amount if band == "full" else amount // 2 if band == "half" else 0


def who_list(who: str, weapon: Any, candidates: list[str]) -> list[str]:
    """The models a save's ``who`` names among ``candidates``: all (by id), or a weapon key's list (its order) or "all"."""
    if who == "all":
        return sorted(candidates)
    value = weapon[who.split(".", 1)[1]]
    if value == "all":
        return sorted(candidates)
    if isinstance(value, list):
        keep = set(candidates)
        return [str(v) for v in value if str(v) in keep]
    return []


def effects(rules: Rules, ctx: Context, aim: Aim, env: dict[str, Any], per: list[Any], landing: PlacedTemplate, dud: bool) -> Outcome:
    from tabletop.rulesfile.engine import _num, step, take

    spec = rules.spec
    e = spec.effect
    out = Outcome()
    scenario = ctx.scenario
    models = scenario.models_by_id()
    order = [m.id for m in scenario.models]
    counts: dict[str, int] = {}
    whole: dict[str, bool] = {}
    in_cover: dict[str, bool] = {}
    for j in per:
        for mid in j[1]:
            counts[mid] = counts.get(mid, 0) + 1
            whole[mid] = whole.get(mid, False) or bool(j[3].get(mid, False))
        for mid in j[4]["in_cover"]:
            in_cover[mid] = True
    under = [mid for mid in order if mid in counts]
    target_id = aim.target.id if aim.target is not None else None
    hit, scattered = bool(env["hit"]), bool(env["scattered"])
    focus = landing.focus

    failed: dict[str, int] = {}
    if spec.under.partial is not None:
        rule = rules.rolls[spec.under.partial.name]
        for mid in under:
            if whole[mid]:
                continue
            local = {**env, "model": Stats(rules, models[mid], "model"), "primary": mid == target_id, "partial": True, "in_cover": in_cover.get(mid, False)}
            face, total = take(ctx, rule, local, f"{mid} partly under the template")
            assert rule.needs is not None
            needs = rule.needs(local)
            ok = bool(total >= needs)
            out.steps.append(step("roll", f"{mid} is partly under it: rolls {face}" + (f", {_num(total)} in all" if total != face else "") + f", needs {_num(needs)}: {'hit' if ok else 'missed'}", "partial", model=mid, roll=face))
            if not ok:
                failed[mid] = face

    suffers: dict[str, int] = {}
    hit_by: dict[str, bool] = {}
    why: dict[str, str] = {}
    none_if = rules.exprs.get("effect.none_if")
    amount_e = rules.exprs["effect.amount"]
    things: list[tuple[str, Model | Terrain, int, bool]] = [(mid, models[mid], counts[mid], False) for mid in under]
    if e.structures is not None:
        hit_terrain: dict[str, int] = {}
        for j in per:
            for tid in j[0].terrain_affected:
                hit_terrain[tid] = hit_terrain.get(tid, 0) + 1
        for t in scenario.terrain:
            if t.id in hit_terrain and e.structures in t.stats:
                things.append((t.id, t, hit_terrain[t.id], True))
    for mid, thing, k, structure in things:
        centre = thing.centre if isinstance(thing, Model) else terrain_centre(thing)
        squares = grid_ring(scenario, focus, centre) if e.halve_per_square else 0
        local = {
            **env, "model": Stats(rules, thing, "model"), "primary": mid == target_id, "partial": not whole.get(mid, True),
            "in_cover": in_cover.get(mid, False), "squares": squares, "templates": k,
        }
        if mid in failed:
            suffers[mid], hit_by[mid], why[mid] = 0, False, "partial roll failed"
            continue
        if dud:
            suffers[mid], hit_by[mid], why[mid] = 0, False, "a dud"
            continue
        if none_if is not None and bool(none_if(local)):
            suffers[mid], hit_by[mid], why[mid] = 0, False, "none_if"
            out.steps.append(step("note", f"{mid}: {e.none_if}: suffers nothing", "effect_none", model=mid))
            continue
        band, rule_id = band_of(rules, mid == target_id, hit, scattered)
        amount = max(0, int(amount_e(local))) * k  # less than nothing is nothing (docs/rules-files.md, [effect])
        how = [BAND_WORDS[band]] if band != "full" or rule_id != "effect" else []
        if k > 1:
            how.append(f"× {k} templates")
        if e.halve_per_square:
            amount = amount >> squares if squares < 63 else 0
            rule_id = "effect_square" if squares else "effect_ground"
            how.append(f"{squares} square{'s' if squares != 1 else ''} from the blast's: halved {squares} time{'s' if squares != 1 else ''}" if squares else "in the blast's square")
        value = amount_in_band(amount, band)
        suffers[mid], hit_by[mid], why[mid] = value, True, band
        what = "structure " if structure else ""
        detail = f" ({', '.join(how)})" if how else ""
        out.steps.append(step("note", f"{what}{mid}: {value} {e.unit}{detail}", rule_id, model=mid, amount=value))

    final = dict(suffers)
    saves_report: dict[str, dict[str, Any]] = {}
    cancelled_by: str | None = None
    spent: dict[str, float] = {}
    weapon = env["weapon"]
    for key, sv in spec.saves.items():
        rule = rules.rolls[sv.name or key]
        only = rules.exprs.get(f"saves.{key}.only_if")
        if only is not None and not bool(only(env)):
            continue
        for mid in who_list(sv.who, weapon, under):
            if cancelled_by is not None:
                break
            if sv.attempt == "damaged" and final.get(mid, 0) <= 0:
                continue
            if sv.attempt == "hit" and not hit_by.get(mid, False):
                continue
            m = models[mid]
            local = {**env, "model": Stats(rules, m, "model"), "primary": mid == target_id, "partial": not whole.get(mid, True), "in_cover": in_cover.get(mid, False), "templates": counts[mid]}
            if sv.costs is not None:
                pool = spent.setdefault(mid, _pool(rules, m, sv.costs))
                if pool < 1:
                    saves_report.setdefault(mid, {})[key] = f"no {sv.costs} left"
                    out.steps.append(step("note", f"{mid} cannot try {key.replace('_', ' ')}: no {sv.costs} left", f"save.{key}", model=mid))
                    continue
                spent[mid] = pool - 1
            assert rule.needs is not None
            needs = rule.needs(local)
            entry: dict[str, Any] = {"needs": _num(needs)}
            if needs == 0:
                ok = True
                entry["automatic"] = True
                shown = "automatic"
            else:
                face, total = take(ctx, rule, local, f"{mid}: {key.replace('_', ' ')} (needs {_num(needs)})")
                ok = bool(total >= needs)
                entry.update(roll=face, total=_num(total))
                shown = f"rolls {face}" + (f", {_num(total)} in all" if total != face else "") + f", needs {_num(needs)}"
            entry["success"] = ok
            before = final.get(mid, 0)
            if ok and sv.success == "none":
                final[mid] = 0
            elif ok and sv.success == "half":
                final[mid] = before // 2
            elif ok:
                cancelled_by = mid
                final = dict.fromkeys(final, 0)
            saves_report.setdefault(mid, {})[key] = entry
            result = {"none": f"suffers nothing (instead of {before})", "half": f"{before} halved to {final.get(mid, 0)}", "cancel": "the attack harms no one"}[sv.success] if ok else f"{before} {e.unit} stand"
            out.steps.append(step("roll" if "roll" in entry else "note", f"{mid} tries {key.replace('_', ' ')}: {shown}: {'success' if ok else 'fails'}, {result}", f"save.{key}", model=mid, **({"roll": entry["roll"]} if "roll" in entry else {})))

    f = spec.friendly_fire
    friendly = [
        mid for mid in under
        if friends(rules, aim.firer, models[mid]) and (f.exempt is None or f.exempt not in models[mid].tags)
    ]
    out.details.update(
        under={mid: counts[mid] for mid in sorted(counts)},
        damage=dict(sorted(suffers.items())),
        final_damage=dict(sorted(final.items())),
        unit=e.unit,
        friendly=friendly,
    )
    if saves_report:
        out.details["saves"] = saves_report
    if cancelled_by is not None:
        out.details["cancelled_by"] = cancelled_by
    if f.rule == "test":
        unit = (aim.firer.unit or aim.firer.id) if aim.firer is not None else None
        out.details["test"] = bool(friendly)
        out.details["test_unit"] = unit if friendly else None
        if friendly:
            out.steps.append(step("note", f"friendly model(s) {', '.join(friendly)} under it: {unit} takes {f.test}", "friendly", models=friendly))
    if e.per_unit:
        per_unit: dict[str, int] = {}
        covered: dict[str, list[str]] = {}
        for mid in under:
            u = models[mid].unit or mid
            per_unit[u] = per_unit.get(u, 0) + counts[mid]
            covered.setdefault(u, []).append(mid)
        out.details["counts"] = per_unit
        out.details["covered"] = {u: sorted(v) for u, v in covered.items()}
        for u, n in per_unit.items():
            out.steps.append(step("note", f"unit {u}: {n} {e.unit} (only on {', '.join(covered[u])})", "effect", models=covered[u]))
    for mid in under:
        got, kept = suffers.get(mid, 0), final.get(mid, 0)
        words = [f"not hit ({why.get(mid)})" if not hit_by.get(mid, False) else f"{got} {e.unit}" + (f", {kept} after saves" if kept != got else "")]
        if counts[mid] > 1:
            words.append(f"under {counts[mid]} templates")
        if not whole.get(mid, False):
            words.append("partly under")
        if in_cover.get(mid, False):
            words.append("in cover")
        md: dict[str, Any] = {"why": ", ".join(words), "suffers": got, "final": kept}
        if spec.battery is not None or counts[mid] > 1:
            md["templates"] = counts[mid]
        if mid in saves_report:
            md["saves"] = saves_report[mid]
        out.model_details[mid] = md
    return out


def _pool(rules: Rules, m: Model, stat: str) -> float:
    if stat in m.stats:
        return float(m.stats[stat])
    decl = rules.spec.stats.get(stat)
    return float(decl.default) if decl is not None and decl.default is not None else math.inf
