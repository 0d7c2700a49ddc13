"""A rules file's ``resolve``: aim, checks, to hit, scatter, who is under it, what each suffers, saves.

Dice are taken from ``ctx.dice`` in one documented order (docs/rules-files.md, "Order of the
dice"): to hit; the scatter die, direction, distance and the roll after a scatter; partial rolls
(models in table order); then each save in the file's order, model by model.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from tabletop.coverage import Coverage, ModelCoverage
from tabletop.model import PlacedTemplate, Scenario, Status
from tabletop.resolution import Context, Resolution, Step, with_statuses
from tabletop.rulesfile.aim import Aim, friends, refusal, take_aim
from tabletop.rulesfile.compile import RollRule, Rules
from tabletop.rulesfile.effects import Outcome, effects
from tabletop.rulesfile.values import Stats, Weapon, judged_under
from tabletop.rulesfile.cover import cover_rules
from tabletop.units import MM_PER_UNIT, to_units

def step(kind: str, text: str, rule: str | None, placed: PlacedTemplate | None = None, **data: Any) -> Step:
    """A step naming the rule it applies (``Step.rule``: an id of the file's rules, see :class:`.compile.RuleText`)."""
    return Step(kind, text, placed, data, rule=rule)


def pt(p: tuple[float, float], units: str) -> list[float]:
    return [round(to_units(p[0], units), 6) + 0.0, round(to_units(p[1], units), 6) + 0.0]


def take(ctx: Context, rule: RollRule, env: dict[str, Any], note: str) -> tuple[int, Any]:
    """Roll ``rule`` (again once on a reroll total): (dice total, value with modifiers)."""
    face = ctx.dice.roll(rule.name, rule.spec, note)
    if face in rule.reroll:
        face = ctx.dice.roll(rule.name, rule.spec, f"{note} (rolled again)")
    return face, rule.value(env, face)


def _same(a: PlacedTemplate, b: PlacedTemplate) -> bool:
    return a.focus == b.focus and a.heading == b.heading and a.shape == b.shape and a.user == b.user


def judged(rules: Rules, ctx: Context, placed: PlacedTemplate) -> tuple[Coverage, set[str], list[str], dict[str, bool], dict[str, Any]]:
    """One template's coverage with the file's rules of who is under it and of cover applied:
    (coverage with statuses, ids under, ids only touching, wholly covered by id, cover facts)."""
    cov = dataclasses.replace(ctx.coverage, placed=placed) if _same(placed, ctx.placed) else ctx.cover(placed)
    models = ctx.scenario.models_by_id()
    under, touching, whole = judged_under(rules, cov, models)
    facts = cover_rules(rules, ctx, placed, under)
    under -= set(facts["blocked"])
    statuses: dict[str, Status] = {}
    for mid in cov.affected:
        if mid not in under:
            statuses[mid] = "total_cover" if mid in facts["blocked"] else "outside"
    return (with_statuses(cov, statuses) if statuses else cov), under, touching, whole, facts


def missed(j: tuple[Coverage, set[str], list[str], dict[str, bool], dict[str, Any]]) -> tuple[Coverage, set[str], list[str], dict[str, bool], dict[str, Any]]:
    """What :func:`judged` says of a template that missed and lands nowhere: no one under it, nothing contested."""
    cov = j[0]
    models = {mid: c._replace(status="outside" if c.status == "affected" else c.status, contested=False) for mid, c in cov.models.items()}
    return dataclasses.replace(cov, models=models, terrain_affected=()), set(), [], {}, {"blocked": {}, "in_cover": {}, "rule": {}}


def combine(covers: list[Coverage], primary: PlacedTemplate, scenario: Scenario, tolerance_mm: float) -> Coverage:
    """One coverage for a battery: affected when under any member; the margin is the deepest."""
    models: dict[str, ModelCoverage] = {}
    for m in scenario.models:
        covs = [c.models[m.id] for c in covers]
        status = "affected" if any(c.status == "affected" for c in covs) else covs[0].status
        margin = max(c.margin_mm for c in covs)
        models[m.id] = ModelCoverage(status, margin, status != "user" and abs(margin) <= tolerance_mm)
    hit = {t for c in covers for t in c.terrain_affected}
    return Coverage(primary, models, tuple(t.id for t in scenario.terrain if t.id in hit), None, tolerance_mm)


def _place_steps(rules: Rules, aim: Aim, units: str) -> list[Step]:
    out = []
    n = len(aim.placed)
    for k, p in enumerate(aim.placed):
        rule = "place" if n == 1 else "battery_centre" if k == aim.primary else "battery_line"
        where = f"({to_units(p.focus[0], units):g}, {to_units(p.focus[1], units):g}) {units}"
        out.append(step("place", f"template {p.id} laid at {where}, axis {p.heading:.1f}°", rule, p))
    return out


def resolve(rules: Rules, ctx: Context) -> Resolution:
    """What ``rules`` make of one template (see the module's docstring for the order of the dice)."""
    scenario, units = ctx.scenario, ctx.scenario.units
    models = scenario.models_by_id()
    spec = rules.spec
    aim = take_aim(rules, ctx)
    steps = _place_steps(rules, aim, units)
    per = [judged(rules, ctx, p) for p in aim.placed]
    why = refusal(rules, ctx, aim, [j[0] for j in per], [j[1] for j in per])
    if aim.sight is not None:
        steps.append(step("note", f"line of sight: {aim.sight['reason']}", "sight", model=aim.target.id if aim.target else None))
    if aim.range_info is not None:
        steps.append(step("note", f"range: {aim.range_info['text']}", "range", model=aim.target.id if aim.target else None))
    details: dict[str, Any] = {
        "target": aim.target.id if aim.target is not None else None,
        "line_of_fire": round(aim.fire, 6),
        "line_of_sight": aim.sight,
        "range": aim.range_info,
    }
    if spec.battery is not None:
        details["battery"] = len(aim.placed)
        details["templates"] = [{"id": p.id, "focus": pt(p.focus, units), "heading": round(p.heading, 6)} for p in aim.placed]
    if why is not None:
        rule_id, reason = why
        steps.append(step("note", f"Not allowed: {reason}", rule_id, ctx.placed))
        coverage = per[0][0] if len(per) == 1 else combine([j[0] for j in per], aim.placed[aim.primary], scenario, ctx.tolerance_mm)
        counts = {mid: sum(mid in j[1] for j in per) for mid in sorted({m for j in per for m in j[1]})}
        details.update(allowed=False, under=counts, damage={}, impact_point=pt(aim.placed[aim.primary].focus, units))
        return Resolution(coverage, coverage.affected, False, reason, details, {}, tuple(steps), _others(aim, None))

    weapon = Weapon(rules, ctx.template.weapon, ctx.template.id)
    env: dict[str, Any] = {
        "attacker": Stats(rules, aim.firer, "attacker"), "target": Stats(rules, aim.target, "target"), "weapon": weapon,
        "range": aim.range_mm if aim.range_mm is not None else 0.0, "hit": True, "scattered": False, "strike": 0,
        "primary": False, "in_cover": False, "partial": False, "squares": 0, "templates": 1,
    }
    hit, strike = True, None
    if spec.to_hit is not None:
        rule = rules.rolls[spec.to_hit.name or "to_hit"]
        face, total = take(ctx, rule, env, "to hit")
        assert rule.needs is not None
        needs = rule.needs(env)
        hit, strike = bool(total >= needs), total
        details["to_hit"] = {"roll": face, "total": _num(total), "needs": _num(needs), "hit": hit}
        shown = f"{rule.dice.label()} rolls {face}" + (f", {_num(total)} in all" if total != face else "")
        steps.append(step("roll", f"To hit: {shown}, needs {_num(needs)}: {'hit' if hit else 'miss'}", "to_hit", aim.placed[0], roll=face, total=_num(total)))
    scattered, landing, dud = False, aim.placed[0], False
    sc = spec.scatter
    if spec.to_hit is not None and not hit and sc is None and spec.to_hit.miss == "nothing":
        steps.append(step("note", "Missed, and nothing scatters it: the template lands nowhere, no one is harmed", "to_hit", aim.placed[0]))
        per = [missed(j) for j in per]
        details["missed"] = True
    if sc is not None and (sc.when == "always" or not hit):
        env.update(hit=hit, strike=strike if strike is not None else 0)
        landing, scattered, hit, info, dud, new_strike, more = _scatter(rules, ctx, aim, env, hit)
        steps += more
        details["scatter"] = info
        if new_strike is not None:
            strike = new_strike
        if scattered:
            per[0] = judged(rules, ctx, landing)
    details.update(hit=hit, strike=_num(strike) if strike is not None else None, scattered=scattered, dud=dud)
    env.update(hit=hit, scattered=scattered, strike=strike if strike is not None else 0)
    for p, j in zip([landing, *aim.placed[1:]], per):
        if j[2]:
            names = ", ".join(j[2])
            steps.append(step("note", f"template {p.id}: {names} only {'touches' if len(j[2]) == 1 else 'touch'} its edge: not under it", "touching", models=list(j[2])))
        for mid, terrain in j[4]["blocked"].items():
            steps.append(step("note", f"{mid} is behind {', '.join(terrain)}: the template does not reach it", j[4]["rule"].get(mid, "sight_focus"), model=mid))
    coverage = per[0][0] if len(per) == 1 else combine([j[0] for j in per], aim.placed[aim.primary], scenario, ctx.tolerance_mm)
    outcome: Outcome = effects(rules, ctx, aim, env, per, landing, dud)
    steps += outcome.steps
    details.update(outcome.details)
    details["impact_point"] = pt(landing.focus, units)
    return Resolution(coverage, coverage.affected, True, None, details, outcome.model_details, tuple(steps), _others(aim, landing if scattered else None))


def _others(aim: Aim, landing: PlacedTemplate | None) -> tuple[PlacedTemplate, ...]:
    """Templates drawn besides the main one: the aim a template scattered from, a battery's other members."""
    if landing is not None:
        a = aim.placed[0]
        return (dataclasses.replace(a, id=f"{a.id}.aim"),)
    return tuple(p for k, p in enumerate(aim.placed) if k != aim.primary)


def _num(x: Any) -> Any:
    if isinstance(x, bool) or x is None:
        return x
    f = float(x)
    return int(f) if f.is_integer() else round(f, 6)


def scatter_heading(first: str, turn: str, sides: int, fire: float, face: int) -> float:
    """Heading (degrees) of direction ``face``: face 1 ``first``, the others ``360 / sides`` apart."""
    base = {"away": fire, "towards": fire + 180.0, "north": 90.0, "clock": fire}[first]
    step_deg = 360.0 / sides * (face if first == "clock" else face - 1)
    return base - step_deg if turn == "clockwise" else base + step_deg


def scatter_distance_mm(rules: Rules, env: dict[str, Any], rolled: int, cap_mm: float | None) -> tuple[float, bool]:
    """(distance in mm, capped) of a scatter that rolled ``rolled``."""
    d = rules.spec.scatter
    assert d is not None
    dist = d.distance
    unit = MM_PER_UNIT[dist.unit]
    minus = rules.exprs.get("scatter.distance.minus")
    value = rolled - (minus(env) if minus is not None else 0)
    mm = max(float(value), dist.min) * unit
    if cap_mm is not None and mm > cap_mm:
        return cap_mm, True
    return mm, False


def scatter_cap(rules: Rules, ctx: Context, aim: Aim) -> float | None:
    """The most a scatter may move (mm), or None."""
    sc = rules.spec.scatter
    assert sc is not None
    value = rules.lengths.get("scatter.distance.max")
    if value is None:
        return None
    if value == "range":
        return aim.range_mm
    from tabletop.rulesfile.aim import weapon_length

    return weapon_length(rules, value, ctx.template.weapon, ctx.scenario.units)


def _scatter(rules: Rules, ctx: Context, aim: Aim, env: dict[str, Any], hit: bool) -> tuple[PlacedTemplate, bool, bool, dict[str, Any], bool, Any, list[Step]]:
    """(landing, scattered, hit, report, dud, new strike or None, steps) of one scatter."""
    sc = rules.spec.scatter
    assert sc is not None
    out: list[Step] = []
    info: dict[str, Any] = {}
    aimed = aim.placed[0]
    if sc.die is not None:
        die = rules.rolls[sc.die.name]
        face, _ = take(ctx, die, env, "scatter die")
        info["die"] = face
        if face in sc.die.hit:
            out.append(step("roll", f"Scatter die: {face}, HIT: the template stays where it was aimed", "scatter_die", aimed, roll=face))
            return aimed, False, True, info, False, None, out
        out.append(step("roll", f"Scatter die: {face}, an arrow: the template scatters", "scatter_die", aimed, roll=face))
    direction = rules.rolls[sc.direction.name]
    d_face, _ = take(ctx, direction, env, "scatter direction")
    rolled, _ = take(ctx, rules.rolls[sc.distance.name], env, "scatter distance")
    cap = scatter_cap(rules, ctx, aim)
    mm, capped = scatter_distance_mm(rules, env, rolled, cap)
    heading = scatter_heading(sc.direction.first, sc.direction.turn, direction.dice.sides, aim.fire, d_face)
    a = math.radians(heading)
    landing = dataclasses.replace(aimed, focus=(aimed.focus[0] + mm * math.cos(a), aimed.focus[1] + mm * math.sin(a)))
    units = ctx.scenario.units
    info.update(
        direction=d_face, faces=direction.dice.sides, turn=sc.direction.turn, heading=round(heading, 6), distance_rolled=rolled, distance=round(to_units(mm, sc.distance.unit), 6),
        capped=capped, **{"from": pt(aimed.focus, units), "to": pt(landing.focus, units)},
    )
    new_strike, dud, then_text = None, False, ""
    if sc.then is not None:
        then = rules.rolls[sc.then.name or "scatter_strike"]
        face, total = take(ctx, then, env, "roll after the scatter")
        new_strike = total
        info.update(strike_roll=face, strike=_num(total))
        then_text = f"; new roll {face}: {_num(total)}"
        if then.needs is not None:
            needs = then.needs(env)
            dud = not bool(total >= needs)
            info["needs"] = _num(needs)
            then_text += f" against {_num(needs)}: {'a dud' if dud else 'it goes off'}"
    cap_text = " (capped)" if capped else ""
    out.append(step(
        "scatter", f"Scatters: direction {d_face}, {info['distance']:g}{sc.distance.unit}{cap_text}{then_text}",
        "scatter_cap" if capped else "scatter", landing, **info,
    ))
    return landing, True, hit, info, dud, new_strike, out


__all__ = ["resolve", "step", "combine", "judged", "missed", "friends", "scatter_heading", "scatter_distance_mm", "scatter_cap"]
