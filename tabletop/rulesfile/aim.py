"""Where a rules file's template goes, and whether it may be fired there: before any die is rolled.

:func:`take_aim` reads the scenario's placement (who fires, at what), lays the template (or a
battery's T) as ``[placement]`` and ``[battery]`` say, and :func:`refusal` runs ``[target]``'s
checks (what may be aimed at, an enemy, line of sight, range) and ``[friendly_fire]``'s ban.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import shapely

from tabletop.coverage import Coverage
from tabletop.model import At, Direct, Impact, Model, PlacedTemplate, TemplateShape
from tabletop.placement import line_of_fire
from tabletop.resolution import Context
from tabletop.rulesfile.compile import Rules
from tabletop.shapes import base_edge_point, base_polygon, to_world
from tabletop.sight import base_line_of_sight, in_range, point_line_of_sight
from tabletop.units import LengthError, parse_length, to_units

NO_SIDE = ("", "neutral")


@dataclass
class Aim:
    """Who fires at what, and the templates as laid (a battery's members, the middle one primary)."""

    firer: Model | None
    target: Model | None
    point: tuple[float, float]
    fire: float
    placed: list[PlacedTemplate]
    primary: int
    bad_aim: str | None
    sight: dict[str, Any] | None = None
    range_info: dict[str, Any] | None = None
    range_mm: float | None = None  # the firer's measured range to the target or point
    extra: dict[str, Any] = field(default_factory=dict)


def lay(shape: TemplateShape, tid: str, at: tuple[float, float], fire: float, orient: str, centre: str, written: float) -> tuple[PlacedTemplate, float]:
    """``shape`` with its focus (or middle) on ``at``; returns it and its extent across the line of fire."""
    u_min, u_max, half_v = shape.local_extent()
    along, across = u_max - u_min, 2 * half_v
    if orient == "across":
        if shape.kind == "circle" or along >= across:
            heading, extent = fire + 90.0, along
        else:
            heading, extent = fire, across
    else:
        heading = fire if orient == "line_of_fire" else written
        extent = across
    u_mid = (u_min + u_max) / 2 if centre == "middle" else 0.0
    focus = to_world([-u_mid], [0.0], at, heading)[0]
    return PlacedTemplate(tid, shape, (float(focus[0]), float(focus[1])), heading), extent


def battery_offsets(n: int, pitch: float, even: str) -> list[float]:
    """Offsets of ``n`` template centres along the battery line (+ = the firer's left)."""
    offsets = [(k - (n - 1) / 2) * pitch for k in range(n)]
    if n % 2 == 0 and even == "template":
        offsets = [o + pitch / 2 for o in offsets]
    return offsets


def _aim_point(ctx: Context) -> tuple[Model | None, Model | None, tuple[float, float], float, str | None]:
    """(firer, target, point aimed at, line of fire, why it is not a firer aiming at a target model)."""
    p = ctx.template.placement
    models = ctx.scenario.models_by_id()
    if isinstance(p, Impact):
        firer = models[p.attacker]
        if p.target is not None:
            target = models[p.target]
            return firer, target, target.centre, line_of_fire(firer, target.centre), None
        assert p.point is not None
        return firer, None, p.point, line_of_fire(firer, p.point), "aimed at a point, not at a target model"
    if isinstance(p, At):
        return None, None, (p.x, p.y), p.heading, "laid at a point, not aimed by a firer at a target model"
    if isinstance(p, Direct):
        return models[p.attacker], None, ctx.placed.focus, p.heading, "laid from the firer, not aimed at a target model"
    return None, None, ctx.placed.focus, ctx.placed.heading, "an explosion is not aimed at a target model"


def weapon_length(rules: Rules, value: Any, weapon: Mapping[str, Any], units: str) -> float | None:
    """A length field in mm: a number (the file's ``mm`` already), or ``weapon.KEY`` read in the scenario's units."""
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value.startswith("weapon."):
        key = value.split(".", 1)[1]
        raw = weapon.get(key, rules.spec.weapon[key].default if key in rules.spec.weapon else None)
        if raw is None:
            return None
        try:
            return parse_length(raw, units)
        except LengthError:
            return None
    return None


def take_aim(rules: Rules, ctx: Context) -> Aim:
    """Lay the template(s) as the rules file says."""
    spec = rules.spec
    pl = spec.placement
    firer, target, point, fire, bad_aim = _aim_point(ctx)
    shape = ctx.placed.shape
    written = ctx.placed.heading
    if pl.on == "as_written":
        first = ctx.placed
        extent = 2 * shape.local_extent()[2]
        if pl.orient != "as_written" or pl.centre != "focus":
            first, extent = lay(shape, ctx.placed.id, ctx.placed.focus, fire, pl.orient, pl.centre, written)
    else:
        at = point
        if pl.on == "target" and target is not None:
            at = target.centre
        elif pl.on == "firer_edge" and firer is not None:
            back, front, _ = shape.local_extent()
            u_min = back if pl.centre == "focus" else (back - front) / 2
            edge = base_edge_point(firer, fire)
            at = (edge[0] - u_min * math.cos(math.radians(fire)), edge[1] - u_min * math.sin(math.radians(fire)))
        elif pl.on == "range" and firer is not None:
            reach = weapon_length(rules, rules.lengths.get("placement.distance"), ctx.template.weapon, ctx.scenario.units) or 0.0
            at = (firer.x + reach * math.cos(math.radians(fire)), firer.y + reach * math.sin(math.radians(fire)))
        first, extent = lay(shape, ctx.placed.id, at, fire, pl.orient, pl.centre, written)
    n = max(1, ctx.template.battery) if spec.battery is not None else 1
    # Laid from the firer's base, the template starts at its edge: the firer is its user, never under it.
    user = firer.id if pl.on == "firer_edge" and firer is not None else ctx.placed.user
    if n == 1:
        placed = [PlacedTemplate(first.id, first.shape, first.focus, first.heading, user=user)]
        return Aim(firer, target, point, fire, placed, 0, bad_aim)
    b = spec.battery
    assert b is not None
    centre = target.centre if (pl.on == "target" and target is not None) else point
    pitch = extent * (1.0 - b.overlap)
    across = math.radians(fire + 90.0)
    placed = []
    for k, off in enumerate(battery_offsets(n, pitch, b.even)):
        c = (centre[0] + off * math.cos(across), centre[1] + off * math.sin(across))
        p, _ = lay(shape, f"{ctx.template.id}#{k + 1}", c, fire, pl.orient, pl.centre, written)
        placed.append(PlacedTemplate(p.id, p.shape, p.focus, p.heading, user=ctx.placed.user))
    primary = (n - 1) // 2 if not (n % 2 == 0 and b.even == "template") else n // 2
    return Aim(firer, target, point, fire, placed, primary, bad_aim)


def friends(rules: Rules, firer: Model | None, m: Model) -> bool:
    """``m`` is on the firer's side (``neutral`` is nobody's friend); the firer itself when the file says so."""
    if firer is None:
        return False
    if m.id == firer.id and rules.spec.friendly_fire.firer:
        return True
    return firer.side is not None and m.side is not None and firer.side == m.side and firer.side not in NO_SIDE


def enemies(firer: Model, m: Model) -> bool:
    """A model of another side; with no sides on the table, any model but the firer."""
    if firer.side is None or m.side is None:
        return firer.id != m.id
    return firer.side != m.side and "neutral" not in (firer.side, m.side)


def _range(rules: Rules, ctx: Context, aim: Aim) -> None:
    """The firer's measured range to the target (or point), and the check when the rules give a range."""
    t = rules.spec.target
    firer = aim.firer
    if firer is None:
        return
    measure = t.range_measure
    if aim.target is not None:
        _ok, dist = in_range(firer, aim.target, math.inf, measure)
    elif measure == "edge":
        dist = float(shapely.distance(base_polygon(firer, 1024, outer=True), shapely.Point(aim.point)))
    else:
        dist = math.hypot(aim.point[0] - firer.x, aim.point[1] - firer.y)
    aim.range_mm = dist
    if t.range is None:
        return
    reach = weapon_length(rules, rules.lengths.get("target.range"), ctx.template.weapon, ctx.scenario.units)
    if reach is None:
        return
    units = ctx.scenario.units
    ok = dist <= reach + 1e-9
    how = "base edge to base edge" if measure == "edge" else "centre to centre"
    text = f"{to_units(dist, units):.4g} {units} ({how}) {'within' if ok else 'beyond'} the range of {to_units(reach, units):g} {units}"
    aim.range_info = {"range": round(to_units(reach, units), 6), "distance": round(to_units(dist, units), 6), "measure": measure, "in_range": ok, "text": text}


def _sight(ctx: Context, aim: Aim) -> None:
    firer = aim.firer
    if firer is None:
        return
    scenario = ctx.scenario
    if aim.target is not None:
        sight = base_line_of_sight(firer, aim.target, scenario.terrain, tolerance_mm=ctx.tolerance_mm)
    else:
        sight = point_line_of_sight(firer, aim.point, scenario.terrain, tolerance_mm=ctx.tolerance_mm)
    units = scenario.units
    names = {t.id: t.label if t.label == t.id else f"{t.label} ({t.id})" for t in scenario.terrain}
    aim.sight = {
        "kind": sight.kind, "seen": sight.seen, "visible_fraction": round(sight.visible_fraction, 3),
        "blocked_by": list(sight.blocked_by), "contested": sight.contested, "reason": sight.reason,
        "blockers": ", ".join(names.get(i, i) for i in sight.blocked_by) or "terrain",
        "lines": [
            {"from": [round(to_units(c, units), 6) for c in ln.start[:2]], "to": [round(to_units(c, units), 6) for c in ln.end[:2]], "clear": ln.clear}
            for ln in sight.lines
        ],
    }


def refusal(rules: Rules, ctx: Context, aim: Aim, aimed: list[Coverage], under: list[set[str]]) -> tuple[str, str] | None:
    """(rule id, why) when the attack may not be made as aimed; None when it may. Fills the aim's
    sight and range reports (made whenever the rules ask for them, so the table shows them)."""
    t = rules.spec.target
    _range(rules, ctx, aim)
    if t.line_of_sight == "base":
        _sight(ctx, aim)
    what = aim.target.label if aim.target is not None else "the point aimed at"
    if aim.bad_aim is not None and not t.points:
        return "aim", f"{aim.bad_aim} (these rules aim a template by a firer at a target model)"
    if aim.firer is None and (t.must_be == "enemy" or rules.reads("attacker")):
        return "aim", "no firer: these rules read the firer's stats (place it with impact = {attacker, target})"
    if aim.target is None and rules.reads("target"):
        return "aim", "no target model: these rules read the target's stats (impact = {attacker, target})"
    if t.must_be == "enemy" and aim.firer is not None and aim.target is not None and not enemies(aim.firer, aim.target):
        return "aim", f"{what} is not an enemy of {aim.firer.label}"
    if aim.sight is not None and not aim.sight["seen"]:
        return "sight", f"{what} is not in line of sight of {aim.firer.label if aim.firer else 'the firer'}: blocked by {aim.sight['blockers']}"
    if aim.range_info is not None and not aim.range_info["in_range"]:
        return "range", f"{what} is out of range: {aim.range_info['text']}"
    f = rules.spec.friendly_fire
    if f.rule == "forbidden" and aim.firer is not None:
        models = ctx.scenario.models_by_id()
        bad = sorted({
            mid for ids in under for mid in ids
            if mid in models and friends(rules, aim.firer, models[mid]) and (f.exempt is None or f.exempt not in models[mid].tags)
        })
        if bad:
            return "friendly", f"friendly models would be under the template: {', '.join(models[b].label for b in bad)}"
    return None
