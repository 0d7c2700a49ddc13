"""What a rules file draws on the table and says in the results panel: read from the resolution only."""

from __future__ import annotations

import numpy as np

from tabletop.adjudicate import Adjudication, TemplateResult
from tabletop.marks import (
    DAMAGE_TEXT,
    HIGHLIGHT,
    ROSE_HOT,
    TEMPLATE_EDGE,
    TEXT,
    WARN,
    Arrow,
    Badge,
    Colour,
    Marks,
    Rose,
    Stroke,
    Tag,
    mm,
)
from tabletop.model import Scenario
from tabletop.panel import display_names, id_list
from tabletop.resolution import PanelLine

SAVED: Colour = (120, 220, 140)


def _num(x: object) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)


def marks(adj: Adjudication) -> Marks:
    """Line of fire, scatter arrow and rose, a battery's line, what each model suffers, friendly fire."""
    art = Marks()
    scenario = adj.scenario
    models = scenario.models_by_id()
    for result in adj.results:
        res = result.resolution
        d = res.details
        if "line_of_fire" not in d:
            continue
        placed = res.placed
        firer = models.get(result.template.attacker or "")
        target = models.get(d.get("target") or "")
        aim_at = target.centre if target is not None else placed.focus
        if firer is not None:
            art.strokes.append(Stroke(np.array([firer.centre, aim_at], dtype=float), (235, 235, 235), 2, dashed=True))
            art.add_legend("dash", "line of fire", (235, 235, 235))
        sight = d.get("line_of_sight")
        if isinstance(sight, dict) and not sight.get("seen", True):
            for ln in sight.get("lines") or []:
                art.strokes.append(Stroke(np.array([mm(ln["from"], scenario), mm(ln["to"], scenario)], dtype=float), WARN, 2, dashed=True, above=True))
            art.add_legend("dash", "no line of sight to the target", WARN)
        scatter = d.get("scatter") or {}
        dice: list[tuple[str, Colour]] = []
        if "to_hit" in d:
            th = d["to_hit"]
            dice.append((f"to hit {_num(th['total'])} (rolled {th['roll']}) vs {_num(th['needs'])}: {'hit' if th['hit'] else 'miss'}", TEXT))
        if "direction" in scatter:
            start, end = mm(scatter["from"], scenario), mm(scatter["to"], scenario)
            art.arrows.append(Arrow(start, end, ROSE_HOT, f"{scatter['distance']:g}"))
            first = float(scatter["heading"])
            if scatter.get("faces") == 6 and scatter.get("turn") == "clockwise":
                art.roses.append(Rose(start, _first_face(first, scatter), (int(scatter["direction"]),), placed.shape.reach))
            dice.append((f"scatter: direction {scatter['direction']}, {scatter['distance']:g}" + (" (capped)" if scatter.get("capped") else ""), TEXT))
            art.add_legend("arrow", "scatter", ROSE_HOT)
        elif "die" in scatter:
            dice.append((f"scatter die {scatter['die']}: HIT", TEXT))
        if "strike" in scatter:
            dice.append((f"new roll {scatter['strike']}", TEXT))
        if d.get("dud"):
            dice.append(("a dud", WARN))
        if dice:  # the rolls that decided the template, beside where it landed
            art.badges.append(Badge(placed.focus, ((f"{result.template.id}: dice", TEXT), *dice), ROSE_HOT, clear=placed.shape.reach, prefer="left", dice=True))
        members = [placed, *[p for p in res.also_drawn if "#" in p.id]]
        if len(members) > 1:
            foci = np.array([p.focus for p in sorted(members, key=lambda p: p.id)], dtype=float)
            art.strokes.append(Stroke(foci, TEMPLATE_EDGE, 2))
            art.add_legend("line", "battery", TEMPLATE_EDGE)
        unit = str(d.get("unit", ""))
        for mid, md in res.model_details.items():
            m = models.get(mid)
            if m is None:
                continue
            suffers, final = md.get("suffers", 0), md.get("final", 0)
            if final:
                art.tags.append(Tag(m.centre, f"{final} {unit}", DAMAGE_TEXT))
            elif suffers:
                art.tags.append(Tag(m.centre, "saved", SAVED))
            elif md.get("templates", 0) > 1:
                art.tags.append(Tag(m.centre, f"\u00d7{md['templates']}", HIGHLIGHT))
        for mid in d.get("friendly") or []:
            m = models.get(mid)
            if m is not None:
                art.badges.append(Badge(m.centre, (("friendly fire", WARN),), WARN, clear=m.base.bounding_radius, prefer="below"))
        if d.get("friendly"):
            art.add_legend("swatch", "friendly fire", WARN)
    return art


def _first_face(heading: float, scatter: dict[str, object]) -> float:
    """The heading of face 1, from the rolled face's heading (the rose is drawn for six faces)."""
    face = int(scatter.get("direction", 1))  # type: ignore[arg-type]
    return heading + 60.0 * (face - 1)


def panel_lines(scenario: Scenario, result: TemplateResult) -> list[PanelLine]:
    """To hit, scatter, what each model suffers (before and after saves), counts per unit, friendly fire."""
    res = result.resolution
    d = res.details
    names = display_names(scenario)
    out: list[PanelLine] = []
    if not res.allowed:
        out.append(("bad", f"NOT ALLOWED: {res.reason}"))
        return out
    if "to_hit" in d:
        th = d["to_hit"]
        out.append(("head", f"to hit: rolled {th['roll']}, {_num(th['total'])} against {_num(th['needs'])}: {'hit' if th['hit'] else 'miss'}"))
    scatter = d.get("scatter") or {}
    if "direction" in scatter:
        out.append(("note", f"scattered: direction {scatter['direction']}, {scatter['distance']:g}" + (" (capped)" if scatter.get("capped") else "")))
    elif "die" in scatter:
        out.append(("note", f"scatter die {scatter['die']}: HIT, it stays"))
    if d.get("dud"):
        out.append(("warn", "a dud: no one suffers anything"))
    if d.get("cancelled_by"):
        out.append(("good", f"{names.get(d['cancelled_by'], d['cancelled_by'])} stops the attack: no one suffers anything"))
    unit = str(d.get("unit", ""))
    damage = d.get("damage") or {}
    final = d.get("final_damage") or {}
    for mid in damage:
        before, after = damage[mid], final.get(mid, damage[mid])
        name = names.get(mid, mid)
        if after:
            extra = f" (from {before})" if after != before else ""
            out.append(("bad", f"{name}: {after} {unit}{extra}"))
        elif before:
            out.append(("good", f"{name}: saved ({before} {unit} avoided)"))
    for u, n in (d.get("counts") or {}).items():
        out.append(("bad", f"unit {u}: {n} (only on {id_list((d.get('covered') or {}).get(u, ()), names)})"))
    if d.get("test"):
        out.append(("warn", f"{d.get('test_unit')} takes a test: friendly {id_list(d.get('friendly') or (), names)} under it"))
    elif d.get("friendly"):
        out.append(("warn", f"friendly fire: {id_list(d['friendly'], names)}"))
    return out
