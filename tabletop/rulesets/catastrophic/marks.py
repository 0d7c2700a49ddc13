"""Catastrophic Damage: what the ruleset draws on the table, as marks (data; ``tabletop.draw`` paints them).

Read from ``TemplateResult.resolution`` only: details, model_details, steps, also_drawn.
"""

from __future__ import annotations

from collections.abc import Mapping

from tabletop.plugin import (
    CHAIN,
    HIGHLIGHT,
    ROSE,
    TEXT,
    TEXT_DIM,
    WARN,
    Adjudication,
    Arrow,
    Badge,
    Colour,
    Marks,
    ring_top,
)


def _fill(adj: Adjudication, art: Marks) -> None:
    scenario = adj.scenario
    models = scenario.models_by_id()
    for result in adj.results:
        res = result.resolution
        d = res.details
        explodes = [s for s in res.steps if s.kind == "explode" and s.placed is not None]
        lines: list[tuple[str, Colour]] = [(result.template.id, TEXT)]
        for n, step in enumerate(explodes):
            data, placed = step.data, step.placed
            assert placed is not None
            size = f"RAV {data.get('rav')} \u00b7 AOE {data.get('aoe')}"
            m = models.get(str(data.get("model")))
            name = m.label if m is not None else str(data.get("model"))
            if n == 0:
                art.sublabels[result.template.id] = f"{name} explodes: {size}"
            else:
                art.badges.append(Badge(ring_top(placed), ((size, HIGHLIGHT), (f"{name} explodes", TEXT_DIM)), CHAIN, prefer="above"))
                src = models.get(str(data.get("caused_by")))
                if m is not None and src is not None:
                    art.arrows.append(Arrow(src.centre, m.centre, CHAIN, str(n), trim_a=src.base.bounding_radius, trim_b=m.base.bounding_radius))
        if len(explodes) > 1:
            art.add_legend("arrow", "chain reaction (in order)", CHAIN)
        if "critical_damage" in d:
            lines.append((f"Critical Hit {d['critical_damage']} vs 2 \u00d7 {d.get('damage_tracks')} damage tracks", TEXT_DIM))
        if d.get("second_attack_roll") is not None:
            fail = d.get("catastrophic_failure")
            lines.append((f"2nd Attack Roll {d['second_attack_roll']}" + (": Catastrophic Failure!" if fail else ""), WARN if fail else TEXT_DIM))
        if not d.get("explodes"):
            why = next((s.text for s in res.steps if s.text.startswith("No Catastrophic Explosion")), "no explosion")
            lines.append((why if len(why) <= 70 else why[:67] + "...", TEXT_DIM))
        for vp in d.get("victory_points") or []:
            if not isinstance(vp, Mapping):
                continue
            martyr = models.get(str(vp.get("martyr")))
            name = martyr.label if martyr is not None else str(vp.get("martyr"))
            lines.append(("Victory points", HIGHLIGHT))
            lines.append((f"{name} (Martyr): {vp.get('martyr_awarded_to') or 'nobody'} scores it", TEXT))
            by_side: dict[str, list[str]] = {}
            for victim, side in (vp.get("caught_awarded_to") or {}).items():
                by_side.setdefault(str(side) if side else "", []).append(victim)
            for side, victims in by_side.items():
                who = f"{side} scores" if side else "own side: nobody scores"
                lines.append((f"{', '.join(sorted(victims))}: {who}", TEXT_DIM))
        if len(lines) > 1:
            reach = res.placed.shape.reach
            art.badges.append(Badge(res.placed.focus, tuple(lines), CHAIN if d.get("explodes") else ROSE, clear=reach, prefer="right"))


def marks(adj: Adjudication) -> Marks:
    """The marks of every template in ``adj``."""
    art = Marks()
    _fill(adj, art)
    return art
