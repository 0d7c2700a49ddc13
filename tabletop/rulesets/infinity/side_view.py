"""Infinity's side view: the template's vertical reach against the silhouettes it crosses.

The numbers come from the ruleset itself (``silhouette_span``, ``focus_elevation``,
``vertical_reach``, the axis interval of a base), so the view shows exactly what it decided.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tabletop.plugin import (
    CONTACT_EPS_MM,
    PAD_MIN_MM,
    PAD_SHARE,
    ElevationProfile,
    ProfileTrooper,
    Scenario,
    TemplateResult,
    local_outline,
    terrain_blocks,
    to_local,
)
from tabletop.rulesets.infinity import rules


def ruleset_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The infinity settings as ``resolve`` reads them (defaults for what is not given)."""
    out = {name: settings.get(name, default) for name, (default, _why) in rules.SETTINGS.items()}
    if out["vertical_model"] not in rules.VERTICAL_MODELS:
        out["vertical_model"] = "x"
    return out


def side_view(scenario: Scenario, result: TemplateResult, settings: Mapping[str, Any]) -> ElevationProfile:
    """The side view of ``result``'s template (as placed by the ruleset) on ``scenario``."""
    placed = result.resolution.placed
    rs = ruleset_settings(settings)
    vertical_model = str(rs["vertical_model"])
    focus_z, focus_from = rules.focus_elevation(result.template, scenario)
    height = placed.shape.half_width
    local = np.asarray(local_outline(placed.shape, 256, False), dtype=float)
    u_min, u_max = float(local[:, 0].min()), float(local[:, 0].max())
    if vertical_model == "cylinder":
        reach = ((u_min, focus_z - height), (u_max, focus_z - height), (u_max, focus_z + height), (u_min, focus_z + height))
    else:
        # "x": the upright template has the flat one's outline in the (u, z) plane.
        reach = tuple((float(u), focus_z + float(v)) for u, v in local)

    coverage = result.resolution.coverage
    troopers: list[ProfileTrooper] = []
    for m in scenario.models:
        c = coverage.models.get(m.id)
        if c is None or c.margin_mm < -CONTACT_EPS_MM:
            continue  # its base does not meet the flat template
        span = rules.silhouette_span(m, rs)
        interval = rules._axis_interval(placed, m)  # the ruleset's own test of "crosses the axis"
        if interval is None:
            u, _v = to_local([(m.x, m.y)], placed.focus, placed.heading)
            r = m.base.bounding_radius
            interval, on_axis = (float(u[0]) - r, float(u[0]) + r), False
        else:
            on_axis = True
        reached, why = rules.vertical_reach(placed, m, span, focus_z, vertical_model)
        troopers.append(
            ProfileTrooper(m.id, m.label, interval[0], interval[1], span.bottom, span.top, span.source, on_axis, c.status, reached, why)
        )
    troopers.sort(key=lambda t: (t.u0, t.id))

    pad = max(PAD_MIN_MM, PAD_SHARE * (u_max - u_min))
    lo = min([u_min, *(t.u0 for t in troopers)]) - pad
    hi = max([u_max, *(t.u1 for t in troopers)]) + pad
    blocks = tuple(terrain_blocks(scenario, placed.focus, placed.heading, lo, hi))
    return ElevationProfile(
        result.template.id, vertical_model, focus_z, focus_from, height, u_min, u_max, reach, tuple(troopers), blocks
    )
