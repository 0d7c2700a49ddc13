"""Infinity: what the ruleset draws on the table, as marks (data; ``tabletop.draw`` paints them).

Read from ``TemplateResult.resolution`` only: details, model_details, steps, also_drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tabletop.plugin import (
    DODGE_PH,
    DODGE_PH3,
    LINK,
    NULLIFIED,
    ROSE,
    TEXT,
    TEXT_DIM,
    WARN,
    Adjudication,
    Badge,
    Colour,
    Marks,
    Stroke,
    link,
)

#: Sight lines: a clear line of fire, and a blocked one (dashed).
SIGHT_CLEAR = DODGE_PH
SIGHT_BLOCKED = DODGE_PH3


def _sight_strokes(lof: Mapping[str, Any], art: Marks, drawn: set[tuple[float, ...]]) -> None:
    """A sight report's lines as strokes under the bases: the clear one nearest the centre line, and each blocked one dashed."""
    lines = lof.get("lines_mm") or []
    clear = [ln for ln in lines if ln.get("clear")]
    chosen = clear[:1] + [ln for ln in lines if not ln.get("clear")]
    for ln in chosen:
        (x0, y0, *_), (x1, y1, *_) = ln["from"], ln["to"]
        key = tuple(round(v, 1) for v in (x0, y0, x1, y1))
        if key in drawn:
            continue
        drawn.add(key)
        ok = bool(ln.get("clear"))
        art.strokes.append(Stroke(np.array([[x0, y0], [x1, y1]], dtype=float), SIGHT_CLEAR if ok else SIGHT_BLOCKED, 2, dashed=not ok))
        art.add_legend("line" if ok else "dash", "line of fire" if ok else "sight line blocked", SIGHT_CLEAR if ok else SIGHT_BLOCKED)


def _fill(adj: Adjudication, art: Marks) -> None:
    scenario = adj.scenario
    models = scenario.models_by_id()
    dodges: dict[str, list[tuple[str, str, Any, bool]]] = {}
    pulled: dict[str, str] = {}
    drawn: set[tuple[float, ...]] = set()
    for result in adj.results:
        res = result.resolution
        tid = result.template.id
        for md in res.model_details.values():
            for key in ("lof_to_attacker", "lof_from_attacker"):
                lof = md.get(key)
                if isinstance(lof, Mapping) and (key == "lof_to_attacker" or lof.get("kind") == "none"):
                    _sight_strokes(lof, art, drawn)
        for mid, md in res.model_details.items():
            if "dodge" in md:
                dodges.setdefault(mid, []).append((tid, str(md["dodge"]), md.get("dodge_target"), bool(md.get("can_shoot_back"))))
            why = md.get("why")
            if res.allowed and isinstance(why, str) and why.startswith("in close combat with") and mid in res.affected:
                pulled[mid] = why.split(",")[0].replace("in close combat with ", "")
        if not res.allowed and res.details.get("nullified"):
            for mid in res.affected:
                md = res.model_details.get(mid, {})
                if md.get("relation") in ("friendly", "neutral", "attacker") and mid in models:
                    m = models[mid]
                    who = "the attacker" if md["relation"] == "attacker" else f"{md['relation']} trooper"
                    art.badges.append(Badge(m.centre, ((f"{who}: nullifies {tid}", WARN),), NULLIFIED, clear=m.base.bounding_radius, prefer="right"))
                elif "aro" in md and mid in models:
                    m = models[mid]
                    back = "may shoot back" if md.get("can_shoot_back") else "no line of fire back"
                    art.badges.append(Badge(m.centre, ((f"ARO vs {tid}: Normal Roll", TEXT), (back, TEXT_DIM)), ROSE, clear=m.base.bounding_radius, prefer="left"))
    for mid, entries in dodges.items():
        m = models.get(mid)
        if m is None:
            continue
        texts = []
        for tid, dodge, target, back in entries:
            text = f"Dodge {dodge}" + (f" ({target})" if target is not None else "")
            texts.append((tid, text, back))
        same = len({(t, b) for _, t, b in texts}) == 1
        lines: list[tuple[str, Colour]] = []
        worst = DODGE_PH3 if any(e[1] != "PH" for e in entries) else DODGE_PH
        if same:
            tid, text, back = texts[0]
            lines.append((text + (f" \u00b7 {len(texts)} shots" if len(texts) > 1 else ""), worst))
            lines.append(("may shoot back" if back else "cannot shoot back", TEXT_DIM))
        else:
            for tid, text, back in texts:
                lines.append((f"{tid}: {text}" + (", shoot back" if back else ""), DODGE_PH if "PH-3" not in text else DODGE_PH3))
        art.badges.append(Badge(m.centre, tuple(lines), worst, clear=m.base.bounding_radius))
    if dodges:
        art.add_legend("swatch", "Dodge at PH", DODGE_PH)
        art.add_legend("swatch", "Dodge at PH-3", DODGE_PH3)
    # Close combats: every engaged pair, from the models' own links.
    seen: set[tuple[str, str]] = set()
    for m in scenario.models:
        for other in m.engaged:
            o = models.get(other)
            key = (min(m.id, other), max(m.id, other))
            if o is None or key in seen:
                continue
            seen.add(key)
            hot = m.id in pulled or other in pulled
            art.arrows.append(link(m.centre, o.centre, LINK if hot else (230, 230, 230), "CC"))
    if seen:
        art.add_legend("link", "engaged in close combat", LINK)
    for mid, by in pulled.items():
        m = models[mid]
        art.badges.append(Badge(m.centre, (("affected via close combat", LINK), (f"with {by}", TEXT_DIM)), LINK, clear=m.base.bounding_radius, prefer="below"))


def marks(adj: Adjudication) -> Marks:
    """The marks of every template in ``adj``."""
    art = Marks()
    _fill(adj, art)
    return art
