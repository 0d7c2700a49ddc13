"""WWPD: what the ruleset draws on the table, as marks (data; ``tabletop.draw`` paints them).

Read from ``TemplateResult.resolution`` only: details, model_details, steps, also_drawn.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry import LineString

from tabletop.plugin import (
    HIGHLIGHT,
    ROSE,
    TEMPLATE_EDGE,
    TEXT,
    WARN,
    Adjudication,
    Arrow,
    Badge,
    Colour,
    Marks,
    PlacedTemplate,
    Point,
    Scenario,
    Stroke,
    Tag,
    mm,
    template_polygon,
)


def _fill(adj: Adjudication, art: Marks) -> None:
    scenario = adj.scenario
    models = scenario.models_by_id()
    for result in adj.results:
        res = result.resolution
        d = res.details
        if "counts" not in d:
            continue
        members = sorted([res.placed, *res.also_drawn], key=lambda p: p.id)
        fire = math.radians(float(d.get("line_of_fire", 0.0)))
        ahead = (math.cos(fire), math.sin(fire))
        target = models.get(d.get("target") or "")
        centre = target.centre if target is not None else res.placed.focus
        # The T: the line of fire from the table edge behind the target (the firer's side) to it ...
        back = _ray_to_edge(centre, (-ahead[0], -ahead[1]), scenario)
        reach = _exit_distance(centre, back, members)
        art.strokes.append(Stroke(np.array([back, centre], dtype=float), (235, 235, 235), 2, dashed=True))
        tip = (centre[0] - ahead[0] * (reach + 4), centre[1] - ahead[1] * (reach + 4))
        tail = (tip[0] - ahead[0] * 22, tip[1] - ahead[1] * 22)
        if math.dist(back, centre) > reach + 30:
            art.arrows.append(Arrow(tail, tip, (235, 235, 235)))
        art.add_legend("dash", "line of fire", (235, 235, 235))
        # No line of sight to the target: the blocked sight lines, in the warning colour.
        sight = d.get("line_of_sight")
        if isinstance(sight, dict) and not sight.get("seen", True):
            for ln in sight.get("lines") or []:
                art.strokes.append(Stroke(np.array([mm(ln["from"], scenario), mm(ln["to"], scenario)], dtype=float), WARN, 2, dashed=True, above=True))
            art.add_legend("dash", "no line of sight to the target", WARN)
        # ... and the battery laid across it, members numbered from the firer's right.
        if len(members) > 1:
            foci = np.array([p.focus for p in members], dtype=float)
            order = np.argsort(foci @ np.array([-ahead[1], ahead[0]]))
            art.strokes.append(Stroke(foci[order], TEMPLATE_EDGE, 2))
            for p in members:
                art.tags.append(Tag(p.focus, f"#{p.id.rsplit('#', 1)[-1]}", HIGHLIGHT))
            art.add_legend("line", "battery: #1 on the firer's right", TEMPLATE_EDGE)
        counts = d.get("counts") or {}
        lines: list[tuple[str, Colour]] = [("Rate of fire" if counts else "No unit under the templates", TEXT)]
        for unit, n in counts.items():
            lines.append((f"{unit}: RoF {n}", HIGHLIGHT))
        accent = ROSE
        if d.get("leadership_test"):
            lines.append((f"Leadership test! ({d.get('leadership_unit')})", WARN))
            accent = WARN
        # Beyond the target, away from the firer: the side nothing else is drawn on.
        if abs(ahead[1]) >= abs(ahead[0]):
            prefer = "above" if ahead[1] > 0 else "below"
        else:
            prefer = "right" if ahead[0] > 0 else "left"
        art.badges.append(Badge(centre, tuple(lines), accent, clear=reach, prefer=prefer))
        for mid in d.get("friendly_covered") or []:
            m = models.get(mid)
            if m is not None:
                art.badges.append(Badge(m.centre, (("friendly fire", WARN),), WARN, clear=m.base.bounding_radius, prefer="below"))
        for mid, md in res.model_details.items():
            m = models.get(mid)
            if m is not None and len(md.get("under", [])) > 1:
                art.tags.append(Tag(m.centre, f"\u00d7{len(md['under'])}", HIGHLIGHT))


def _exit_distance(centre: Point, towards: Point, members: Sequence[PlacedTemplate]) -> float:
    """How far from ``centre`` towards ``towards`` the templates reach (their depth along the line of fire)."""
    area = shapely.union_all([template_polygon(p, segments=64, outer=True) for p in members])
    far = max(p.shape.reach for p in members) * 2 * max(1, len(members))
    d = math.dist(centre, towards)
    if d <= 1e-9:
        return 0.0
    end = (centre[0] + (towards[0] - centre[0]) / d * far, centre[1] + (towards[1] - centre[1]) / d * far)
    hit = LineString([centre, end]).intersection(area)
    coords = shapely.get_coordinates(hit)
    return float(np.hypot(coords[:, 0] - centre[0], coords[:, 1] - centre[1]).max()) if len(coords) else 0.0


def _ray_to_edge(start: Point, direction: Point, scenario: Scenario) -> Point:
    """Where a ray from ``start`` leaves the table."""
    w, h = scenario.table.width, scenario.table.depth
    ts = []
    for p, v, hi in ((start[0], direction[0], w), (start[1], direction[1], h)):
        if v > 1e-12:
            ts.append((hi - p) / v)
        elif v < -1e-12:
            ts.append(-p / v)
    t = max(0.0, min(ts)) if ts else 0.0
    return (start[0] + direction[0] * t, start[1] + direction[1] * t)


def marks(adj: Adjudication) -> Marks:
    """The marks of every template in ``adj``."""
    art = Marks()
    _fill(adj, art)
    return art
