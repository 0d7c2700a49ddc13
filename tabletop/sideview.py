"""A side view: a template's vertical reach against the silhouettes and terrain it crosses,
seen across its axis, as data. Pure: no pygame (``tabletop.app.overlays`` draws it).

Horizontal: distance ``u`` (mm) from the blast focus along the template's axis; vertical:
height ``z`` (mm) above the table. A ruleset with a vertical rule builds one through its
``side_view`` hook.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import LineString
from shapely.geometry import Polygon as ShapelyPolygon

from tabletop.coverage import CONTACT_EPS_MM
from tabletop.model import Scenario
from tabletop.shapes import to_local

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


def terrain_blocks(scenario: Scenario, focus: tuple[float, float], heading: float, lo: float, hi: float) -> list[ProfileBlock]:
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
