"""The side elevation of an Infinity template: its vertical reach against the silhouettes it
crosses, seen across its axis. Pure: no pygame (``overlays.draw_elevation`` draws it).

Horizontal: distance ``u`` (mm) from the blast focus along the template's axis; vertical:
height ``z`` (mm) above the table. The numbers come from ``tabletop.rulesets.infinity``
(``silhouette_span``, ``focus_elevation``, ``vertical_reach``, the axis interval of a base),
so the view shows exactly what the ruleset decided.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString
from shapely.geometry import Polygon as ShapelyPolygon

from tabletop.adjudicate import TemplateResult
from tabletop.coverage import CONTACT_EPS_MM
from tabletop.model import Scenario
from tabletop.rulesets import infinity
from tabletop.shapes import local_outline, to_local

#: How far past the template's ends (share of its length, at least this many mm) terrain is shown.
PAD_SHARE = 0.15
PAD_MIN_MM = 20.0


@dataclass(frozen=True)
class ProfileTrooper:
    """A trooper whose base meets the flat template, as the side view shows it."""

    id: str
    label: str
    u0: float  # along-axis extent of its base (where it crosses the axis, else its projection)
    u1: float
    bottom: float  # silhouette [bottom, top] in mm
    top: float
    silhouette: str  # where the height came from ("S2", "height", "S2 (default), prone")
    on_axis: bool  # its base crosses the axis (only then can the upright template reach it)
    status: str  # final status under the ruleset
    reached: bool  # the template's 3D area meets the silhouette
    why: str


@dataclass(frozen=True)
class ProfileBlock:
    """A terrain piece the axis crosses."""

    id: str
    label: str
    u0: float
    u1: float
    height: float | None  # None: blocks at any height


@dataclass(frozen=True)
class ElevationProfile:
    """Everything the side view draws, in (u, z) millimetres."""

    template_id: str
    vertical_model: str
    focus_z: float
    focus_z_from: str
    height: float  # the template's height (radius, or half the width of a teardrop)
    u_min: float  # the template's extent along its axis
    u_max: float
    reach: tuple[tuple[float, float], ...]  # outline of the vertical reach in the (u, z) plane
    troopers: tuple[ProfileTrooper, ...]
    blocks: tuple[ProfileBlock, ...]

    @property
    def z_range(self) -> tuple[float, float]:
        """Lowest and highest z the view must show (table, reach, silhouettes, terrain)."""
        zs = [0.0, *(z for _, z in self.reach)]
        zs += [t.bottom for t in self.troopers] + [t.top for t in self.troopers]
        zs += [b.height for b in self.blocks if b.height is not None]
        return min(zs), max(zs)

    @property
    def u_range(self) -> tuple[float, float]:
        """Leftmost and rightmost u the view must show."""
        us = [self.u_min, self.u_max, *(t.u0 for t in self.troopers), *(t.u1 for t in self.troopers)]
        return min(us), max(us)


def ruleset_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The infinity settings as ``resolve`` reads them (defaults for what is not given)."""
    out = {name: settings.get(name, default) for name, (default, _why) in infinity.SETTINGS.items()}
    if out["vertical_model"] not in infinity.VERTICAL_MODELS:
        out["vertical_model"] = "x"
    return out


def elevation_profile(scenario: Scenario, result: TemplateResult, settings: Mapping[str, Any]) -> ElevationProfile:
    """The side view of ``result``'s template (as placed by the ruleset) on ``scenario``."""
    placed = result.resolution.placed
    rs = ruleset_settings(settings)
    vertical_model = str(rs["vertical_model"])
    focus_z, focus_from = infinity.focus_elevation(result.template, scenario)
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
        span = infinity.silhouette_span(m, rs)
        interval = infinity._axis_interval(placed, m)  # the ruleset's own test of "crosses the axis"
        if interval is None:
            u, _v = to_local([(m.x, m.y)], placed.focus, placed.heading)
            r = m.base.bounding_radius
            interval, on_axis = (float(u[0]) - r, float(u[0]) + r), False
        else:
            on_axis = True
        reached, why = infinity.vertical_reach(placed, m, span, focus_z, vertical_model)
        troopers.append(
            ProfileTrooper(m.id, m.label, interval[0], interval[1], span.bottom, span.top, span.source, on_axis, c.status, reached, why)
        )
    troopers.sort(key=lambda t: (t.u0, t.id))

    pad = max(PAD_MIN_MM, PAD_SHARE * (u_max - u_min))
    lo = min([u_min, *(t.u0 for t in troopers)]) - pad
    hi = max([u_max, *(t.u1 for t in troopers)]) + pad
    blocks = tuple(_blocks(scenario, placed.focus, placed.heading, lo, hi))
    return ElevationProfile(
        result.template.id, vertical_model, focus_z, focus_from, height, u_min, u_max, reach, tuple(troopers), blocks
    )


def _blocks(scenario: Scenario, focus: tuple[float, float], heading: float, lo: float, hi: float) -> list[ProfileBlock]:
    """Terrain pieces crossing the axis between ``lo`` and ``hi`` (mm along it), with their u extent."""
    c, s = np.cos(np.radians(heading)), np.sin(np.radians(heading))
    axis = LineString([(focus[0] + lo * c, focus[1] + lo * s), (focus[0] + hi * c, focus[1] + hi * s)])
    out: list[ProfileBlock] = []
    for piece in scenario.terrain:
        hit = ShapelyPolygon(piece.polygon).intersection(axis)
        if hit.is_empty:
            continue
        u, _v = to_local(shapely.get_coordinates(hit), focus, heading)
        if len(u) == 0 or float(u.max() - u.min()) <= CONTACT_EPS_MM:
            continue  # a corner touching the axis
        out.append(ProfileBlock(piece.id, piece.label, float(u.min()), float(u.max()), piece.height))
    return out
