"""``robotech``: Robotech RPG Tactics, the revised Blast rule (Palladium, October 2015).

One template may be one Blast attack or a Blast Missile volley (``weapon.volley``,
or ``weapon.targets`` for a volley split between targets). Everything random goes
through ``ctx.dice`` in a documented order (tabletop/rulesets/robotech/README.md):
every ``strike`` (missile order), then each scatter (``scatter_direction``,
``scatter_distance``, ``scatter_strike``), then ``shoot_down`` attempts, ``dodge``
rolls and ``roll_with_impact`` rolls in the order the weapon lists the mecha.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np  # noqa: F401 - names of the batch path, kept importable from here
import shapely
from numpy.typing import NDArray  # noqa: F401

from tabletop.plugin import (
    MM_PER_UNIT,
    BatchOutcomes,
    BatchSampler,
    Context,
    Coverage,
    Impact,
    Model,
    ModelCoverage,
    PlacedTemplate,
    Point,
    Resolution,
    RollSpec,
    Ruleset,
    Scenario,
    Step,
    Terrain,
    base_line_of_sight,
    base_polygon,
    display_names,
    named,
    point_line_of_sight,
    structure_line_of_sight,
    to_units,
)

INCH_MM = MM_PER_UNIT["in"]
#: The roll to Strike is made against DF 5 to hit the point of impact.
AIM_DF = 5
#: A scattered Blast strikes again with D6 + 1 (no GN).
SCATTER_BONUS = 1
#: Hit by this many missiles of one volley, a mecha cannot Dodge (Inescapable).
INESCAPABLE = 4
#: Shooting down a Blast Missile succeeds only on a 6, Anti-Missile or not.
SHOOT_DOWN_FACE = 6

ROLLS: dict[str, RollSpec] = {
    "strike": RollSpec(1, 6, "roll to Strike (+ attacker's GN) against DF 5; one per missile"),
    "scatter_direction": RollSpec(1, 6, "scatter direction; 1 points straight away from the firer, clockwise"),
    "scatter_distance": RollSpec(2, 6, "scatter distance in inches, capped at the range to the target"),
    "scatter_strike": RollSpec(1, 6, "new roll to Strike after a scatter (+1, no GN)"),
    "shoot_down": RollSpec(1, 6, "shooting down a Blast Missile: only a 6 succeeds"),
    "dodge": RollSpec(1, 6, "Dodge (+ the mecha's PI); must equal or exceed the Strike"),
    "roll_with_impact": RollSpec(1, 6, "Roll with Impact, rolled only when the setting asks for a roll"),
}

RANGE_MEASURES = ("centre", "edge")
INESCAPABLE_COUNTS = ("radius", "hits")

SETTINGS: dict[str, tuple[Any, str]] = {
    "check_line_of_sight": (
        True,
        "Refuse a target that no straight line from any part of the attacker's base reaches without crossing "
        "terrain that blocks LOS (for Indirect Fire: from any friendly mecha or the attacker to the point of "
        "impact or the target). Other mecha never block: the seed does not say they do.",
    ),
    "range_measure": (
        "centre",
        "How 'within range' and the scatter cap ('cannot scatter a longer distance than the attacking mecha's "
        "range to the target') are measured: 'centre' (default) from the attacker's centre to the target's "
        "centre (the point of impact), or 'edge' from the attacker's base edge to the target's base or "
        "structure edge (to the point itself for a spot on the ground). The seed gives no method.",
    ),
    "inescapable_counts": (
        "hits",
        "Which missiles make a mecha Inescapable (4 or more of one volley). 'radius' follows the Summary of "
        "Changes, “For any mecha that’s in the Blast radius of 4 missiles from the same volley, they are "
        "considered Inescapable.”: every live missile whose template covers it counts. 'hits' (default) follows "
        "the rule text, “If 4 missiles from the same volley hit any given mecha, they are considered Inescapable "
        "for that mecha, and thus can’t be Dodged by it.”: only missiles whose Strike equals or exceeds its DF "
        "count. The seed settles the conflict: “In the case of any apparent conflict between the official rule "
        "text in this post, and either the Summary of Changes or the illustrated examples, the official rule text "
        "takes precedence, followed by the Summary of Changes.”",
    ),
    "whole_volley_miss_damage": (
        "full",
        "What a volley that misses entirely does when its one template scatters. 'half' treats it like any "
        "other scatter: half of one missile's MD. 'full' (default) follows the seed, “If the missile volley "
        "fails to hit at all, the Blast template scatters (as above), but then it only inflicts the full MD of "
        "one missile.”: every mecha and structure its new Strike reaches takes one missile's whole MD.",
    ),
    "roll_with_impact_needs": (
        0,
        "0: Roll with Impact always halves the MD (the rule text); N: it needs a roll_with_impact D6 of N or more.",
    ),
}


@dataclass
class Missile:
    """One missile (or the single Blast attack) from aim to final position."""

    index: int
    target: str | None
    aim: PlacedTemplate
    strike: int
    hit: bool
    placed: PlacedTemplate
    coverage: Coverage
    scattered: bool = False
    scatter: dict[str, Any] | None = None
    shot_down_by: str | None = None
    dud: bool = False

    @property
    def against_df(self) -> int:
        """The Strike total compared with each DF under the template."""
        if self.scatter is not None:
            return int(self.scatter["strike"])
        return self.strike


def _weapon_list(weapon: Mapping[str, Any], key: str) -> list[str] | str:
    value = weapon.get(key, [])
    if value == "all":
        return "all"
    return [str(v) for v in value] if isinstance(value, list) else []


def _abilities(weapon: Mapping[str, Any]) -> set[str]:
    value = weapon.get("abilities", [])
    return {str(a).lower().replace(" ", "_").replace("-", "_") for a in value} if isinstance(value, list) else set()


def _friendly(a: Model, b: Model) -> bool:
    return a.id == b.id or (a.side is not None and a.side != "neutral" and a.side == b.side)


def _enemy(a: Model, b: Model) -> bool:
    if a.side is None or b.side is None:
        return a.id != b.id  # no sides on the table: anything but oneself is fair game
    return a.side != b.side and "neutral" not in (a.side, b.side)


def _centroid(t: Terrain) -> Point:
    c = shapely.Polygon(t.polygon).centroid
    return (float(c.x), float(c.y))


def _heading(src: Point, dst: Point) -> float:
    dx, dy = dst[0] - src[0], dst[1] - src[1]
    return 0.0 if dx == 0 and dy == 0 else math.degrees(math.atan2(dy, dx))


def _edge_distance(model: Model, geom: shapely.Geometry) -> float:
    """Gap (mm) between ``model``'s base and ``geom`` (0 when they meet): exact for round bases."""
    if model.base.is_round:
        return max(0.0, float(shapely.distance(shapely.Point(model.centre), geom)) - model.base.length / 2)
    return float(shapely.distance(base_polygon(model, 1024, outer=True), geom))


def scatter_point(aim: Point, firer: Point, direction: int, distance_mm: float) -> Point:
    """Where the template's centre lands: direction 1 points away from the firer, then clockwise by 60°."""
    angle = math.radians(_heading(firer, aim) - 60.0 * (direction - 1))
    return (aim[0] + distance_mm * math.cos(angle), aim[1] + distance_mm * math.sin(angle))


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else x


def _pt(p: Point, units: str) -> list[float]:
    return [round(to_units(p[0], units), 6) + 0.0, round(to_units(p[1], units), 6) + 0.0]


class _Attack:
    """The state of one resolution: the scenario's data and what has happened so far."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.scenario = ctx.scenario
        self.template = ctx.template
        self.weapon: Mapping[str, Any] = ctx.template.weapon
        self.abilities = _abilities(self.weapon)
        self.models = ctx.scenario.models_by_id()
        self.terrain = {t.id: t for t in ctx.scenario.terrain}
        self.names = display_names(ctx.scenario)
        self.units = ctx.scenario.units
        self.md = int(self.weapon.get("md", 0))
        self.volley = 1
        self.steps: list[Step] = []

    def called(self, piece_id: str) -> str:
        """A mecha or structure as a step names it: "Battlepod (pod2)"."""
        return named([piece_id], self.names)

    # ------------------------------------------------------------------ targets

    def aims(self, attacker: Model) -> list[tuple[str | None, PlacedTemplate]]:
        """(primary target, template as aimed) for each missile."""
        p = self.template.placement
        assert isinstance(p, Impact)
        primary: str | None = p.target
        if primary is None and isinstance(self.weapon.get("target_structure"), str):
            primary = self.weapon["target_structure"]
        targets = self.weapon.get("targets")
        if isinstance(targets, list) and targets:
            out: list[tuple[str | None, PlacedTemplate]] = []
            for k, tid in enumerate(targets):
                tid = str(tid)
                if tid == primary:
                    out.append((tid, self.ctx.placed))
                    continue
                centre = self.models[tid].centre if tid in self.models else _centroid(self.terrain[tid])
                placed = PlacedTemplate(f"{self.template.id}.m{k + 1}", self.ctx.placed.shape, centre, _heading(attacker.centre, centre))
                out.append((tid, placed))
            return out
        volley = int(self.weapon.get("volley", 1))
        return [(primary, self.ctx.placed)] * volley

    def distance(self, attacker: Model, target: str | None, aim: PlacedTemplate) -> float:
        """The attacker's range to ``target`` (or the aim point), as the ``range_measure`` setting says (mm)."""
        if str(self.ctx.settings.get("range_measure", "centre")) != "edge":
            return math.dist(attacker.centre, aim.focus)
        if target in self.models:
            victim = self.models[target]
            if victim.base.is_round:  # the gap to a disc is the gap to its centre less its radius
                return max(0.0, _edge_distance(attacker, shapely.Point(victim.centre)) - victim.base.length / 2)
            return _edge_distance(attacker, base_polygon(victim, 1024, outer=True))
        if target in self.terrain:
            return _edge_distance(attacker, shapely.Polygon(self.terrain[target].polygon))
        return _edge_distance(attacker, shapely.Point(aim.focus))

    def sight_problem(self, viewer: Model, target: str | None, aim: PlacedTemplate) -> tuple[bool, str]:
        """(seen, why not): line of sight from any part of ``viewer``'s base to the target, the structure or the point."""
        terrain = self.scenario.terrain
        tol = self.ctx.tolerance_mm
        if target in self.models:
            sight = base_line_of_sight(viewer, self.models[target], terrain, tolerance_mm=tol)
        elif target in self.terrain:
            sight = structure_line_of_sight(viewer, self.terrain[target], terrain, tolerance_mm=tol)
        else:
            sight = point_line_of_sight(viewer, aim.focus, terrain, tolerance_mm=tol)
        names = {t.id: t.label if t.label == t.id else f"{t.label} ({t.id})" for t in terrain}
        blockers = ", ".join(names.get(i, i) for i in sight.blocked_by) or "terrain"
        return sight.seen, f"blocked by {blockers}"

    def target_problem(self, attacker: Model, target: str | None, aim: PlacedTemplate) -> tuple[str, str] | None:
        """Why this aim may not be chosen and the rule that says so (None when it may)."""
        los = bool(self.ctx.settings.get("check_line_of_sight", True))
        indirect = "indirect_fire" in self.abilities
        rng = self.weapon.get("range")
        if isinstance(rng, (int, float)) and self.distance(attacker, target, aim) > rng * INCH_MM + 1e-9:
            how = "edge to edge" if str(self.ctx.settings.get("range_measure", "centre")) == "edge" else "centre to centre"
            what = "the point of impact" if target is None else str(target)
            return f"{what} is beyond the weapon's range of {rng}\" (measured {how})", "range_los"
        if target is None:
            if not indirect:
                return "a Blast attack without Indirect Fire must target an enemy mecha or a structure, not a spot on the ground", "targets"
            if los:
                spotters = [m for m in self.scenario.models if _friendly(attacker, m)]
                why = [self.sight_problem(m, None, aim) for m in spotters]
                if not any(seen for seen, _ in why):
                    return (
                        f"no friendly mecha (nor the attacker) has line of sight to the point of impact ({why[0][1] if why else 'no spotter'})",
                        "range_los",
                    )
            return None
        if target in self.models:
            victim = self.models[target]
            if not _enemy(attacker, victim):
                return f"{victim.label} is not an enemy mecha", "targets"
        elif target not in self.terrain or "DF" not in self.terrain[target].stats:
            return f"{target!r} is neither a mecha nor a structure with a DF", "targets"
        if los and not indirect:
            seen, why = self.sight_problem(attacker, target, aim)
            if not seen:
                return f"{self.called(target)} is not in the attacker's line of sight: {why}", "range_los"
        if los and indirect:
            spotters = [m for m in self.scenario.models if _friendly(attacker, m)]
            looks = [self.sight_problem(m, target, aim) for m in spotters]
            if not any(seen for seen, _ in looks):
                return (
                    f"no friendly mecha (nor the attacker) has line of sight to {self.called(target)} ({looks[0][1] if looks else 'no spotter'})",
                    "range_los",
                )
        return None

    def friends_under(self, attacker: Model, coverage: Coverage) -> list[str]:
        return [
            i for i in coverage.affected
            if _friendly(attacker, self.models[i]) and "life_is_cheap" not in self.models[i].tags
        ]

    # ------------------------------------------------------------------ dice

    def scatter(self, attacker: Model, aim: PlacedTemplate, note: str, target: str | None = None) -> tuple[PlacedTemplate, dict[str, Any]]:
        dice = self.ctx.dice
        direction = dice.roll("scatter_direction", ROLLS["scatter_direction"], note)
        rolled = dice.roll("scatter_distance", ROLLS["scatter_distance"], note)
        cap_mm = self.distance(attacker, target, aim)
        distance_mm = min(rolled * INCH_MM, cap_mm)
        focus = scatter_point(aim.focus, attacker.centre, direction, distance_mm)
        face = dice.roll("scatter_strike", ROLLS["scatter_strike"], note)
        strike = face + SCATTER_BONUS
        info = {
            "direction": direction,
            "distance_rolled": rolled,
            "distance": round(to_units(distance_mm, "in"), 6),
            "capped": rolled * INCH_MM > cap_mm,
            "from": _pt(aim.focus, self.units),
            "to": _pt(focus, self.units),
            "strike_roll": face,
            "strike": strike,
        }
        return dataclasses.replace(aim, focus=focus), info

    # ------------------------------------------------------------------ damage

    def df(self, unit: str) -> float:
        stats = self.models[unit].stats if unit in self.models else self.terrain[unit].stats
        return float(stats.get("DF", 0))

    def under(self, coverage: Coverage) -> list[str]:
        """Mecha and structures (terrain with a DF) under a template."""
        structures = [t for t in coverage.terrain_affected if "DF" in self.terrain[t].stats]
        return [*coverage.affected, *structures]

    def missile_damage(self, m: Missile, whole_volley_miss_full: bool) -> dict[str, int]:
        """MD each mecha and structure under missile ``m``'s template takes from it, before any reaction."""
        return {unit: damage for unit, (damage, _rule) in self.missile_cases(m, whole_volley_miss_full).items()}

    def missile_cases(self, m: Missile, whole_volley_miss_full: bool) -> dict[str, tuple[int, str]]:
        """(MD, the rule that decides it) for each unit under missile ``m``'s template."""
        volley = self.volley > 1
        out: dict[str, tuple[int, str]] = {}
        for unit in self.under(m.coverage):
            if self.df(unit) > m.against_df:
                out[unit] = (0, "damage_none_scatter" if m.scattered else "damage_none")
            elif m.hit and unit == m.target:
                out[unit] = (self.md, "volley_full" if volley else "damage_full")
            elif m.scattered and whole_volley_miss_full:
                out[unit] = (self.md, "damage_whole_miss")
            elif m.scattered:
                out[unit] = (self.md // 2, "damage_scatter")
            else:
                out[unit] = (self.md // 2, "volley_half" if volley else "damage_half")
        return out


def _refused(ctx: Context, atk: _Attack, reason: str, rule: str) -> Resolution:
    """The refusal of an attack: no dice; a step names the rule and who is under the template as aimed."""
    under = list(ctx.coverage.affected)
    text = f"Not allowed: {reason}." + (f" Under the template as aimed, and not damaged: {', '.join(under)}." if under else "")
    return Resolution(
        coverage=ctx.coverage, affected=ctx.coverage.affected, allowed=False, reason=reason,
        details={"damage": {}, "impact_point": _pt(ctx.placed.focus, atk.units)} if rule != "needs_attacker" else {"damage": {}},
        steps=(Step("note", text, ctx.placed, {"models": under}, rule=rule),),
    )


def _prepare(ctx: Context) -> tuple[_Attack, Model, list[tuple[str | None, PlacedTemplate]], dict[str, Coverage]] | Resolution:
    """Everything decided before the first die: the attacker, each missile's aim and its coverage,
    or the refusal (no attacker, a target it may not choose, friends under the template)."""
    atk = _Attack(ctx)
    p = ctx.template.placement
    attacker_id = p.attacker if isinstance(p, Impact) else None
    if attacker_id is None or attacker_id not in atk.models:
        reason = "a Robotech Blast needs an attacker: place it with impact = {attacker, target} (or at for Indirect Fire)"
        return _refused(ctx, atk, reason, "needs_attacker")
    attacker = atk.models[attacker_id]
    aims = atk.aims(attacker)
    atk.volley = len(aims)

    # Targeting, then the friendly-fire prohibition, for every template as aimed.
    aimed_cov: dict[str, Coverage] = {ctx.placed.id: ctx.coverage}
    for target, aim in aims:
        if aim.id not in aimed_cov:
            aimed_cov[aim.id] = ctx.cover(aim)
    for target, aim in dict.fromkeys(aims):
        problem = atk.target_problem(attacker, target, aim)
        if problem is None:
            friends = atk.friends_under(attacker, aimed_cov[aim.id])
            if friends:
                names = ", ".join(atk.models[f].label for f in friends)
                problem = f"friendly mecha without Life is Cheap would be under the template: {names}", "friendly_ban"
        if problem is not None:
            return _refused(ctx, atk, *problem)
    return atk, attacker, aims, aimed_cov


_CASE_WORDS = {
    "damage_full": "its primary target, its DF reached by the Strike: the full MD",
    "volley_full": "its primary target, its DF reached by the Strike: the missile's full MD",
    "damage_half": "also caught under the template: half damage, rounded down",
    "volley_half": "also under the missile's template: half its MD, rounded down",
    "damage_scatter": "under the scattered template, its DF reached by the new Strike: half damage, rounded down",
    "damage_whole_miss": "under the whole volley's scattered template, its DF reached by the new Strike: the full MD of one missile",
    "damage_none": "its DF is higher than the Strike",
    "damage_none_scatter": "its DF is higher than the new Strike",
}


def _damage_steps(atk: _Attack, m: Missile, who: str, cases: Mapping[str, tuple[int, str]]) -> None:
    """One step per rule that decides what the units under missile ``m`` take."""
    by_rule: dict[str, list[str]] = {}
    for unit, (_dmg, rule) in cases.items():
        by_rule.setdefault(rule, []).append(unit)
    for rule in sorted(by_rule, key=list(_CASE_WORDS).index):
        units = by_rule[rule]
        listed = ", ".join(f"{atk.called(u)} (DF {_num(atk.df(u))})" for u in units)
        amounts = {cases[u][0] for u in units}
        takes = "take" if len(units) > 1 else "takes"
        if amounts == {0}:
            amount = "NO DAMAGE" if rule == "damage_none" else "no damage"
        else:
            amount = f"{'/'.join(str(a) for a in sorted(amounts))} MD" + (" each" if len(units) > 1 else "")
        atk.steps.append(Step(
            "note",
            f"{who} (Strike {m.against_df}): {listed} {takes} {amount}: {_CASE_WORDS[rule]}",
            None,
            {
                "missile": m.index if atk.volley > 1 else None, "strike": m.against_df, "units": units,
                "df": {u: _num(atk.df(u)) for u in units}, "damage": {u: cases[u][0] for u in units},
                "primary": m.target if m.hit and not m.scattered else None, "scattered": m.scattered,
            },
            rule=rule,
        ))


def resolve(ctx: Context) -> Resolution:
    """Strike, scatter, damage, and each mecha's reactions for one Blast attack or volley."""
    ready = _prepare(ctx)
    if isinstance(ready, Resolution):
        return ready
    atk, attacker, aims, aimed_cov = ready
    split = isinstance(ctx.template.weapon.get("targets"), list) and bool(ctx.template.weapon.get("targets"))
    gn = int(attacker.stats.get("GN", 0))
    dice = ctx.dice
    missiles: list[Missile] = []
    for k, (target, aim) in enumerate(aims):
        note = f"missile {k + 1} of {len(aims)}" if len(aims) > 1 else "Blast"
        face = dice.roll("strike", ROLLS["strike"], note)
        strike = face + gn
        hit = strike >= AIM_DF
        missiles.append(Missile(k + 1, target, aim, strike, hit, aim, aimed_cov[aim.id]))
        atk.steps.append(Step(
            "roll", f"{note}: Strike {face} + GN {gn} = {strike} against DF {AIM_DF}: {'hit' if hit else 'miss'}", aim,
            {"missile": k + 1 if len(aims) > 1 else None, "strike_roll": face, "strike": strike, "hit": hit},
            rule="strike_volley" if len(aims) > 1 else "strike",
        ))

    strikes = [m.strike for m in missiles]
    whole_miss = len(missiles) > 1 and not split and not any(m.hit for m in missiles)
    full_on_whole_miss = whole_miss and ctx.settings.get("whole_volley_miss_damage", SETTINGS["whole_volley_miss_damage"][0]) == "full"
    if whole_miss:
        # The whole volley scatters once, with one missile's MD.
        missiles = [missiles[0]]
    for m in missiles:
        if m.hit:
            continue
        if len(missiles) == 1:
            note, who = ("the whole volley missed", "The whole volley") if whole_miss else ("Blast", "The Blast")
        else:
            note, who = f"missile {m.index}", f"Missile {m.index}"
        moved, info = atk.scatter(attacker, m.aim, note, m.target)
        if len(missiles) > 1:
            moved = dataclasses.replace(moved, id=f"{ctx.placed.id}.m{m.index}")
        m.placed, m.scatter, m.scattered = moved, info, True
        m.coverage = ctx.cover(moved)
        capped = " (capped at the range to the target)" if info["capped"] else ""
        rule = "scatter_whole_volley" if whole_miss else "scatter_separately" if len(missiles) > 1 else "scatter"
        atk.steps.append(
            Step("scatter", f"{who} scatters: direction {info['direction']}, {info['distance']:g}\"{capped}; "
                 f"new Strike {info['strike_roll']} + {SCATTER_BONUS} = {info['strike']}", moved, info, rule=rule)
        )
        if info["capped"]:
            atk.steps.append(Step(
                "note", f"{who}'s scatter of {info['distance_rolled']}\" is cut to {info['distance']:g}\", the attacker's range to the target",
                data={"distance_rolled": info["distance_rolled"], "distance": info["distance"]}, rule="scatter_cap",
            ))

    # Damage before any reaction.
    per_missile: list[dict[str, int]] = []
    for m in missiles:
        cases = atk.missile_cases(m, full_on_whole_miss)
        dmg = {u: d for u, (d, _r) in cases.items()}
        m.dud = m.scattered and not any(atk.df(u) <= m.against_df for u in dmg)
        who = ("The whole volley" if whole_miss else "Blast") if atk.volley == 1 or whole_miss else f"Missile {m.index}"
        if m.dud:
            atk.steps.append(Step(
                "note", f"Scatter Strike {m.against_df} reaches no DF under the template: a dud", m.placed,
                {"missile": m.index if atk.volley > 1 else None, "strike": m.against_df, "units": list(dmg)}, rule="dud",
            ))
        else:
            _damage_steps(atk, m, who, cases)
        per_missile.append(dmg)
    damage: dict[str, int] = {}
    covering: dict[str, list[int]] = {}
    for i, dmg in enumerate(per_missile):
        for unit, v in dmg.items():
            damage[unit] = damage.get(unit, 0) + v
            covering.setdefault(unit, []).append(i)

    reactions, final = _reactions(atk, missiles, per_missile, covering, damage)

    # Final coverage: where the (first) Blast ended, everyone under any template marked affected.
    main = next((m for m in missiles if m.hit and m.aim.id == ctx.placed.id), missiles[0])
    main_placed = dataclasses.replace(main.placed, id=ctx.placed.id)
    coverage = _volley_coverage(dataclasses.replace(main.coverage, placed=main_placed), [m.coverage for m in missiles])
    drawn: dict[tuple[float, float], PlacedTemplate] = {}
    for m in missiles:
        if m.scattered:
            aim_id = f"{ctx.placed.id}.aim" if m.aim.id == ctx.placed.id else f"{m.aim.id}.aim"
            drawn.setdefault(m.aim.focus, dataclasses.replace(m.aim, id=aim_id))
        if m.placed.focus != main_placed.focus:
            drawn.setdefault(m.placed.focus, m.placed)
    drawn.pop(main_placed.focus, None)
    hit_any = any(m.hit for m in missiles)
    details: dict[str, Any] = {
        "strike": max(strikes),
        "hit": hit_any,
        "scattered": any(m.scattered for m in missiles),
        "impact_point": _pt(main.placed.focus, atk.units),
        "damage": dict(sorted(damage.items())),
        "final_damage": dict(sorted(final.items())),
        "md": atk.md,
        "gn": gn,
        "dud": all(m.dud for m in missiles if m.scattered) and any(m.scattered for m in missiles) and not hit_any,
    }
    if len(aims) > 1:
        details["strikes"] = strikes
    if whole_miss:
        details["whole_volley_missed"] = True
    if len(missiles) == 1 and missiles[0].scatter is not None:
        info = missiles[0].scatter
        details.update(
            scatter_direction=info["direction"], scatter_distance=info["distance"], scatter_strike=info["strike"],
            scatter_capped=info["capped"], aim_point=info["from"],
        )
    if len(aims) > 1:
        details["missiles"] = [
            {
                "missile": m.index, "target": m.target, "strike": m.strike, "hit": m.hit,
                "scattered": m.scattered, "impact_point": _pt(m.placed.focus, atk.units),
                "scatter": m.scatter, "shot_down_by": m.shot_down_by, "damage": dict(sorted(per_missile[i].items())),
            }
            for i, m in enumerate(missiles)
        ]
    if reactions:
        details["reactions"] = reactions
    model_details = {
        u: {"damage": damage[u], "final_damage": final[u], "df": _num(atk.df(u))}
        for u in damage if u in atk.models
    }
    return Resolution(
        coverage=coverage,
        affected=coverage.affected,
        details=details,
        model_details=model_details,
        steps=tuple(atk.steps),
        also_drawn=tuple(drawn.values()),
    )


def _volley_coverage(main: Coverage, covers: Sequence[Coverage]) -> Coverage:
    """One coverage for every template of the attack: a model is affected when under any of them; its margin is
    the deepest any reaches into it; it is contested unless one template surely covers it (or, when none covers
    it, when one is within the band of doing so)."""
    entries = dict(main.models)
    for i, c in main.models.items():
        if c.status == "user":
            continue
        each = [cov.models[i] for cov in covers]
        under = any(x.status == "affected" for x in each)
        sure = any(x.status == "affected" and not x.contested for x in each)
        doubt = (under and not sure) or (not under and any(x.contested for x in each))
        entries[i] = ModelCoverage("affected" if under else c.status, max(x.margin_mm for x in each), doubt)
    return dataclasses.replace(main, models=entries)


def _reactions(
    atk: _Attack,
    missiles: Sequence[Missile],
    per_missile: Sequence[Mapping[str, int]],
    covering: Mapping[str, list[int]],
    damage: Mapping[str, int],
) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    """Shoot down, Dodge and Roll with Impact, in that order; returns (what each mecha did, final MD)."""
    dice = atk.ctx.dice
    cp: dict[str, float] = {i: float(m.stats.get("CP", math.inf)) for i, m in atk.models.items()}
    reactions: dict[str, dict[str, Any]] = {}

    def listed(key: str) -> list[str]:
        value = _weapon_list(atk.weapon, key)
        mecha = [u for u in covering if u in atk.models]
        return sorted(mecha) if value == "all" else [u for u in value if u in covering and u in atk.models]

    def pay(unit: str, what: str, doing: str) -> bool:
        if cp[unit] < 1:
            reactions.setdefault(unit, {})[what] = "no Command Point left"
            atk.steps.append(Step("note", f"{atk.called(unit)} cannot {doing}: no Command Point left", data={"model": unit}, rule="no_command_point"))
            return False
        cp[unit] -= 1
        return True

    def hitting(unit: str) -> list[int]:
        """Live missiles over ``unit`` whose Strike reaches its DF: those that hit it."""
        return [i for i in covering[unit] if missiles[i].shot_down_by is None and atk.df(unit) <= missiles[i].against_df]

    def names(ids: Sequence[int]) -> str:
        return ", ".join(str(missiles[i].index) for i in ids)

    volley = atk.volley > 1
    if "missile" in atk.abilities:
        for unit in listed("shoot_down"):
            # Only the missiles that would have hit this mecha can be destroyed by its shot.
            live = hitting(unit)
            if not live or not pay(unit, "shoot_down", "shoot down the Blast Missile(s)"):
                continue
            face = dice.roll("shoot_down", ROLLS["shoot_down"], f"{atk.called(unit)} shoots at the Blast Missile(s)")
            ok = face >= SHOOT_DOWN_FACE
            reactions.setdefault(unit, {})["shoot_down"] = {"roll": face, "success": ok, "missiles": [missiles[i].index for i in live]}
            which = f"missile(s) {names(live)}" if volley else "the Blast Missile"
            if ok:
                for i in live:
                    missiles[i].shot_down_by = unit
                atk.steps.append(Step(
                    "note",
                    f"{atk.called(unit)} shoots down {which} with a 6: the missiles that would have hit it (Strike ≥ its DF "
                    f"{_num(atk.df(unit))}); they damage no one",
                    data={"model": unit, "roll": face, "missiles": [missiles[i].index for i in live]}, rule="shoot_down",
                ))
            else:
                atk.steps.append(Step(
                    "note", f"{atk.called(unit)} tries to shoot down {which}: rolls {face}, needs a 6: missed",
                    data={"model": unit, "roll": face}, rule="shoot_down_fails",
                ))

    def live_damage(unit: str) -> int:
        return sum(per_missile[i].get(unit, 0) for i in covering[unit] if missiles[i].shot_down_by is None)

    final = {u: live_damage(u) for u in damage}
    hits_only = str(atk.ctx.settings.get("inescapable_counts", SETTINGS["inescapable_counts"][0])) == "hits"
    for unit in listed("dodge"):
        live = [i for i in covering[unit] if missiles[i].shot_down_by is None]
        if final[unit] == 0:
            continue
        counted = hitting(unit) if hits_only else live
        if len(counted) >= INESCAPABLE:
            reactions.setdefault(unit, {})["dodge"] = {"inescapable": True, "missiles": len(counted)}
            how = "hit by" if hits_only else "under"
            atk.steps.append(Step(
                "note", f"{atk.called(unit)} is {how} {len(counted)} missiles of the volley ({names(counted)}): Inescapable",
                data={"model": unit, "missiles": [missiles[i].index for i in counted]},
                rule="inescapable_hits" if hits_only else "inescapable_radius",
            ))
            continue
        if not pay(unit, "dodge", "Dodge"):
            continue
        need = max(missiles[i].against_df for i in counted)
        pi = int(atk.models[unit].stats.get("PI", 0))
        face = dice.roll("dodge", ROLLS["dodge"], f"{atk.called(unit)} dodges (needs {need})")
        ok = face + pi >= need
        reactions.setdefault(unit, {})["dodge"] = {"roll": face, "pi": pi, "total": face + pi, "needs": need, "success": ok}
        which = f"missile {names(counted)}" if len(counted) == 1 else f"missiles {names(counted)}"
        against = f"{need}, the highest Strike of {which}" if volley else f"the Strike {need}"
        atk.steps.append(Step(
            "note",
            f"{atk.called(unit)} dodges: {face} + PI {pi} = {face + pi} against {against}: "
            + (f"dodged, no damage (instead of {final[unit]})" if ok else f"fails, {final[unit]} MD stands"),
            data={"model": unit, "roll": face, "total": face + pi, "needs": need, "success": ok},
            rule="dodge_volley" if volley else "dodge",
        ))
        if ok:
            final[unit] = 0
    needs = int(atk.ctx.settings.get("roll_with_impact_needs", 0) or 0)
    for unit in listed("roll_with_impact"):
        if final[unit] == 0 or not pay(unit, "roll_with_impact", "Roll with Impact"):
            continue
        entry: dict[str, Any] = {"before": final[unit]}
        if needs:
            face = dice.roll("roll_with_impact", ROLLS["roll_with_impact"], f"{atk.called(unit)} rolls with the impact (needs {needs})")
            entry.update(roll=face, success=face >= needs)
            if face < needs:
                reactions.setdefault(unit, {})["roll_with_impact"] = entry
                atk.steps.append(Step(
                    "note", f"{atk.called(unit)} tries to Roll with Impact: rolls {face}, needs {needs} (setting roll_with_impact_needs): "
                    f"{final[unit]} MD stands", data={"model": unit, "roll": face}, rule="roll_with_impact_roll",
                ))
                continue
        before = final[unit]
        final[unit] //= 2
        entry["after"] = final[unit]
        reactions.setdefault(unit, {})["roll_with_impact"] = entry
        atk.steps.append(Step(
            "note", f"{atk.called(unit)} rolls with the impact: {before} MD halved to {final[unit]}",
            data={"model": unit, "before": before, "after": final[unit]}, rule="roll_with_impact",
        ))
    return reactions, final


def validate(scenario: Scenario) -> list[tuple[str, str]]:
    """Weapon keys that cannot be read: (field path, message)."""
    problems: list[tuple[str, str]] = []
    models = {m.id for m in scenario.models}
    structures = {t.id for t in scenario.terrain}
    for i, t in enumerate(scenario.templates):
        w = t.weapon
        where = f"template[{i}].weapon"
        md = w.get("md", 0)
        if isinstance(md, bool) or not isinstance(md, int) or md < 0:
            problems.append((f"{where}.md", f"MD must be a whole number of 0 or more, got {md!r}"))
        volley = w.get("volley", 1)
        if isinstance(volley, bool) or not isinstance(volley, int) or volley < 1:
            problems.append((f"{where}.volley", f"volley must be a whole number of missiles, 1 or more, got {volley!r}"))
        targets = w.get("targets")
        if targets is not None:
            if not isinstance(targets, list) or not targets or not all(isinstance(x, str) for x in targets):
                problems.append((f"{where}.targets", "targets must be a list of ids, one per missile"))
            else:
                for x in targets:
                    if x not in models and x not in structures:
                        problems.append((f"{where}.targets", f"{x!r} is neither a model nor a terrain piece"))
                if "volley" in w and volley != len(targets):
                    problems.append((f"{where}.targets", f"{len(targets)} targets for a volley of {volley}"))
        ts = w.get("target_structure")
        if ts is not None and (not isinstance(ts, str) or ts not in structures):
            problems.append((f"{where}.target_structure", f"{ts!r} is not a terrain piece"))
        for key in ("dodge", "roll_with_impact", "shoot_down"):
            value = w.get(key)
            if value is None or value == "all":
                continue
            if not isinstance(value, list) or any(not isinstance(v, str) or v not in models for v in value):
                problems.append((f"{where}.{key}", f"{key} must be \"all\" or a list of model ids"))
    return problems


# The batch path needs the names above, and RULESET needs it: imported here, once they exist.
from tabletop.rulesets.robotech.batch import _Batch, sample_batch  # noqa: E402, F401

RULESET = Ruleset(
    name="robotech",
    title="Robotech RPG Tactics — revised Blast rule (2015)",
    resolve=resolve,
    uses_visibility=False,
    rolls=ROLLS,
    validate=validate,
    settings=SETTINGS,
    sample_batch=sample_batch,
    doc=(
        "Revised Blast rule: Strike D6 + GN against DF 5, full MD to the primary target and half to all else "
        "under the 5\" template (nothing where DF > Strike), one scatter with a D6 + 1 Strike, Dodge, Roll with "
        "Impact, shooting down Blast Missiles, volleys. See tabletop/rulesets/robotech/README.md."
    ),
)
