"""Cover and line of sight from the blast focus, as a rules file's ``[[cover]]`` and ``[sight]`` say.

Cover is terrain crossed by the straight line from the blast focus to a model's centre, of a
listed kind and at least a given height: it either blocks (the model is not under the template)
or puts the model in cover (``in_cover`` is true in its saves). ``[sight] from_focus = "walls"``
is the core's visible region (``uses_visibility``); ``"silhouettes"`` asks, for each model under
the template, whether any line reaches its silhouette from the focus past terrain of some height.
"""

from __future__ import annotations

from typing import Any

import shapely

from tabletop.model import PlacedTemplate
from tabletop.resolution import Context
from tabletop.rulesfile.compile import Rules
from tabletop.sight import point_line_of_sight


def _tall_enough(rules: Rules, k: int, terrain_height: float | None, model_height: float | None) -> bool:
    need = rules.lengths.get(f"cover.{k}.min_height")
    if need is None:
        return True
    if terrain_height is None:
        return True  # a piece without a height is taller than anything
    if need == "model.height":
        return model_height is None or terrain_height >= model_height
    return bool(terrain_height >= float(need))


def cover_rules(rules: Rules, ctx: Context, placed: PlacedTemplate, under: set[str]) -> dict[str, Any]:
    """``{"blocked": {id: [terrain ids]}, "in_cover": {id: [terrain ids]}, "rule": {id: rule id}}`` for ``under``."""
    blocked: dict[str, list[str]] = {}
    covered: dict[str, list[str]] = {}
    rule_of: dict[str, str] = {}
    spec = rules.spec
    if not under or (not spec.cover and spec.sight.from_focus != "silhouettes"):
        return {"blocked": blocked, "in_cover": covered, "rule": rule_of}
    models = ctx.scenario.models_by_id()
    terrain = ctx.scenario.terrain
    focus = shapely.Point(placed.focus)
    ordered = [m.id for m in ctx.scenario.models if m.id in under]
    if spec.cover and terrain:
        polys = [shapely.Polygon(t.polygon) for t in terrain]
        for mid in ordered:
            m = models[mid]
            line = shapely.LineString([placed.focus, m.centre])
            crossed = [t for t, poly in zip(terrain, polys) if line.intersects(poly) and not poly.contains(focus)]
            for k, c in enumerate(spec.cover):
                hits = [
                    t.id for t in crossed
                    if ("any" in c.kinds or (t.kind or "") in c.kinds) and _tall_enough(rules, k, t.height, m.height)
                ]
                if not hits:
                    continue
                if c.effect == "blocks":
                    blocked.setdefault(mid, hits)
                    rule_of.setdefault(mid, f"cover.{k}")
                else:
                    covered.setdefault(mid, hits)
    if spec.sight.from_focus == "silhouettes":
        for mid in ordered:
            if mid in blocked:
                continue
            sight = point_line_of_sight(models[mid], placed.focus, terrain, z=0.0, tolerance_mm=ctx.tolerance_mm)
            if not sight.seen:
                blocked[mid] = list(sight.blocked_by) or ["terrain"]
                rule_of[mid] = "sight_focus"
    return {"blocked": blocked, "in_cover": covered, "rule": rule_of}
