"""Infinity's side view: the template's vertical reach against the silhouettes it crosses.

The numbers come from the ruleset itself (``silhouette_span``, ``focus_elevation``,
``vertical_reach``, the axis interval of a base), so the view shows exactly what it decided.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
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


@dataclass(frozen=True)
class ProfileSightLine:
    """A line of fire between a trooper and the attacker, in the side view's (u, z) mm, cut to the view."""

    trooper: str
    start: tuple[float, float]
    end: tuple[float, float]
    clear: bool


@dataclass(frozen=True)
class InfinityProfile(ElevationProfile):
    """Infinity's side view: the common profile plus the troopers' sight lines to the attacker."""

    sight_lines: tuple[ProfileSightLine, ...] = ()

    @property
    def u_range(self) -> tuple[float, float]:
        """Leftmost and rightmost u the view must show, the sight lines included."""
        lo, hi = super().u_range
        us = [u for line in self.sight_lines for u in (line.start[0], line.end[0])]
        return min([lo, *us]), max([hi, *us])


def _cut(a: tuple[float, float], b: tuple[float, float], lo: float, hi: float) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """The part of the (u, z) segment a-b with lo <= u <= hi, or None."""
    (ua, za), (ub, zb) = a, b
    if ua > ub:
        cut = _cut(b, a, lo, hi)
        return None if cut is None else (cut[1], cut[0])
    if ub < lo or ua > hi:
        return None
    du = ub - ua

    def at(u: float) -> tuple[float, float]:
        return (u, za if du <= 0 else za + (zb - za) * (u - ua) / du)

    return at(max(ua, lo)), at(min(ub, hi))


def sight_lines(result: TemplateResult, heading_from: tuple[float, float], heading: float, lo: float, hi: float, ids: set[str]) -> tuple[ProfileSightLine, ...]:
    """The sight lines the ruleset reported for troopers ``ids``, projected on the template's axis and cut to [lo, hi]."""
    out: list[ProfileSightLine] = []
    for mid in sorted(ids):
        lof = result.resolution.model_details.get(mid, {}).get("lof_to_attacker")
        if not isinstance(lof, Mapping):
            continue
        for ln in lof.get("lines_mm") or []:
            (x0, y0, z0), (x1, y1, z1) = ln["from"], ln["to"]
            u, _v = to_local([(x0, y0), (x1, y1)], heading_from, heading)
            cut = _cut((float(u[0]), float(z0)), (float(u[1]), float(z1)), lo, hi)
            if cut is not None:
                out.append(ProfileSightLine(mid, cut[0], cut[1], bool(ln.get("clear"))))
    # Blocked lines first, so a clear line drawn over the same stretch stays visible.
    return tuple(sorted(out, key=lambda line: line.clear))


def ruleset_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The infinity settings as ``resolve`` reads them (defaults for what is not given)."""
    out = {name: settings.get(name, default) for name, (default, _why) in rules.SETTINGS.items()}
    if out["vertical_model"] not in rules.VERTICAL_MODELS:
        out["vertical_model"] = "x"
    return out


def side_view(scenario: Scenario, result: TemplateResult, settings: Mapping[str, Any]) -> InfinityProfile:
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
    # Sight lines run towards the attacker, often far off the template: shown as far as the terrain is.
    lines = sight_lines(result, placed.focus, placed.heading, lo, hi, {t.id for t in troopers})
    return InfinityProfile(
        result.template.id, vertical_model, focus_z, focus_from, height, u_min, u_max, reach, tuple(troopers), blocks, lines
    )
