"""Robotech: what the ruleset draws on the table, as marks (data; ``tabletop.draw`` paints them).

Read from ``TemplateResult.resolution`` only: details, model_details, steps, also_drawn.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from tabletop.plugin import (
    CHAIN,
    DAMAGE_TEXT,
    HIGHLIGHT,
    ROSE,
    ROSE_HOT,
    TEMPLATE_EDGE,
    TEXT,
    TEXT_DIM,
    WARN,
    Adjudication,
    Badge,
    Colour,
    Marks,
    Point,
    Rose,
    mm,
    num_text,
    ring_top,
    terrain_point,
)
from tabletop.rulesets.robotech.rules import AIM_DF


def _minus(md: int) -> str:
    return f"\u2212{md} MD" if md else "0 MD"


def _seq(ids: Sequence[int]) -> str:
    """1, 2, 3, 4 -> "M1\u2013M4"; 1, 3 -> "M1, M3"."""
    ids = sorted(ids)
    if len(ids) > 2 and ids == list(range(ids[0], ids[-1] + 1)):
        return f"M{ids[0]}\u2013M{ids[-1]}"
    return ", ".join(f"M{i}" for i in ids)


def _fill(adj: Adjudication, art: Marks) -> None:
    scenario = adj.scenario
    models = scenario.models_by_id()
    terrain = {t.id: k for k, t in enumerate(scenario.terrain)}
    for result in adj.results:
        res = result.resolution
        d = res.details
        if not res.allowed or "strike" not in d:
            continue
        placed = res.placed
        gn = int(d.get("gn", 0))
        missiles = d.get("missiles")
        dice: list[tuple[str, Colour]] = []
        # Scatters, grouped by aim point: a volley's missiles share one rose.
        roses: dict[Point, tuple[float, list[int], list[str]]] = {}
        scatters = [s for s in res.steps if s.kind == "scatter" and s.placed is not None and "direction" in s.data]
        for step in scatters:
            info = step.data
            aim = mm(info["from"], scenario)
            to = step.placed.focus  # type: ignore[union-attr]
            direction = int(info["direction"])
            if math.dist(aim, to) > 1e-6:
                first = math.degrees(math.atan2(to[1] - aim[1], to[0] - aim[0])) + 60.0 * (direction - 1)
            else:  # no distance to read the firer's side from: the aim's own axis
                first = placed.heading
            key = (round(aim[0], 3), round(aim[1], 3))
            number = step.placed.id.rsplit(".m", 1)[-1]  # type: ignore[union-attr]
            who = f"M{number} " if number.isdigit() else ""  # a volley's missiles are "<id>.m<k>"
            entry = roses.setdefault(key, (first, [], []))
            entry[1].append(direction)
            rolled = int(info.get("distance_rolled", 0))
            dist = float(info.get("distance", rolled))
            capped = f" (rolled {rolled}\", capped)" if info.get("capped") else " (2D6)"
            entry[2].append(f"{who}Scatter: direction {direction}, {num_text(dist)}\"{capped}")
            entry[2].append(f"{who}Scatter Strike {info.get('strike_roll', '?')} + 1 = {info.get('strike', '?')}")
            art.extent.append((min(aim[0], to[0]), min(aim[1], to[1]), max(aim[0], to[0]), max(aim[1], to[1])))
        if isinstance(missiles, list) and missiles:
            parts = [f"M{x['missile']}: {x['strike']} {'hit' if x['hit'] else 'miss'}" for x in missiles if isinstance(x, Mapping)]
            dice.append((f"Strike vs DF {AIM_DF} (D6 + GN {gn})", TEXT))
            for k in range(0, len(parts), 2):
                dice.append(("  " + " \u00b7 ".join(parts[k : k + 2]), TEXT_DIM))
            if d.get("whole_volley_missed"):
                dice.append(("the whole volley missed: one scatter", TEXT_DIM))
        else:
            strike = int(d["strike"])
            verdict = "hit" if d.get("hit") else "miss"
            dice.append((f"Strike {strike - gn} + GN {gn} = {strike} vs DF {AIM_DF}: {verdict}", TEXT))
        for _first, _rolled, said in roses.values():
            dice.extend((line, TEXT_DIM) for line in said)
        if d.get("dud"):
            dice.append(("a dud: the new Strike reaches no DF", WARN))
        for key, (first, rolled, _lines) in roses.items():
            art.roses.append(Rose((float(key[0]), float(key[1])), first, tuple(rolled), placed.shape.reach))
        # The dice beside the template they decided (where it landed), with a leader when it must move away.
        art.badges.append(Badge(placed.focus, ((f"{result.template.id}: dice", TEXT), *dice), ROSE_HOT if roses else ROSE, clear=placed.shape.reach, prefer="left", dice=True))
        if roses:
            art.add_legend("rose", "scatter: 1 away from the firer, clockwise", ROSE_HOT)

        # Missile numbers on each template of a volley.
        if isinstance(missiles, list) and missiles:
            spots: dict[tuple[float, float], list[int]] = {}
            for mis in missiles:
                if not isinstance(mis, Mapping):
                    continue
                p = mm(mis["impact_point"], scenario)
                if mis.get("shot_down_by") is None:
                    spots.setdefault((round(p[0], 2), round(p[1], 2)), []).append(int(mis["missile"]))
                else:
                    art.badges.append(Badge(p, ((f"M{mis['missile']} shot down by {mis['shot_down_by']}", TEXT_DIM),), ROSE, prefer="below"))
            for (x, y), ids in spots.items():
                text = _seq(ids)
                if len(ids) > 1:
                    text = f"{text} ({len(ids)} missiles)"
                r = placed.shape.reach
                art.badges.append(Badge((x + r * 0.71, y - r * 0.71), ((text, HIGHLIGHT),), TEMPLATE_EDGE, prefer="right"))
        for other in res.also_drawn:
            if other.id.endswith(".aim"):
                art.badges.append(Badge(ring_top(other), (("aimed here", TEXT_DIM),), ROSE, prefer="above"))

        # Damage per mecha (and structure), with the reactions that changed it.
        damage = d.get("damage", {})
        final = d.get("final_damage", {})
        reactions = d.get("reactions", {}) or {}
        for unit, md in (damage.items() if isinstance(damage, Mapping) else ()):
            md = int(md)
            end = int(final.get(unit, md)) if isinstance(final, Mapping) else md
            head = _minus(md) if end == md else f"{_minus(md)} \u00b7 final {end}"
            colour = DAMAGE_TEXT if end else TEXT
            lines: list[tuple[str, Colour]] = [(head, colour)]
            did = reactions.get(unit, {}) if isinstance(reactions, Mapping) else {}
            what, cp = _robotech_reactions(did)
            if what:
                lines.append((" \u00b7 ".join(what) + (f" \u00b7 {cp} CP" if cp else ""), TEXT_DIM))
            if md == 0 and unit in models and "df" in res.model_details.get(unit, {}):
                lines.append((f"DF {num_text(res.model_details[unit]['df'])} > Strike", TEXT_DIM))
            if unit in models:
                m = models[unit]
                art.badges.append(Badge(m.centre, tuple(lines), CHAIN if end else ROSE, clear=m.base.bounding_radius))
            elif unit in terrain:
                c = terrain_point(scenario.terrain[terrain[unit]])
                art.badges.append(Badge(c, ((f"{unit}: {head}", colour),), CHAIN if end else ROSE, prefer="above"))


def _robotech_reactions(did: Mapping[str, Any]) -> tuple[list[str], int]:
    """Short words for what a mecha did, and the Command Points it paid."""
    out: list[str] = []
    cp = 0
    for name, word in (("shoot_down", "shoot down"), ("dodge", "dodge"), ("roll_with_impact", "roll with impact")):
        v = did.get(name)
        if v is None:
            continue
        if isinstance(v, str):  # "no Command Point left"
            out.append(f"no CP to {word}")
            continue
        if isinstance(v, Mapping) and v.get("inescapable"):
            out.append(f"Inescapable ({v.get('missiles')} missiles)")
            continue
        cp += 1
        if name == "dodge" and isinstance(v, Mapping):
            ok = "dodged" if v.get("success") else "dodge failed"
            out.append(f"{ok} ({v.get('total')} vs {v.get('needs')})")
        elif name == "shoot_down" and isinstance(v, Mapping):
            out.append(f"shoot down {'6: shot down' if v.get('success') else str(v.get('roll')) + ': missed'}")
        elif isinstance(v, Mapping) and v.get("success") is False:
            out.append(f"roll with impact failed ({v.get('roll')})")
        else:
            out.append("rolled with impact (\u00bd)")
    return out, cp


def marks(adj: Adjudication) -> Marks:
    """The marks of every template in ``adj``."""
    art = Marks()
    _fill(adj, art)
    return art
