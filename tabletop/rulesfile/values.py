"""What an expression reads: stats with the file's defaults, weapon keys, tags; who is under a template.

Shared by the one-at-a-time resolution (:mod:`.engine`) and the odds' batch path (:mod:`.batch`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import shapely

from tabletop.coverage import CONTACT_EPS_MM, Coverage
from tabletop.model import Model, PlacedTemplate, Scenario, Terrain
from tabletop.placement import PlacementError
from tabletop.rulesfile.compile import Rules
from tabletop.shapes import base_polygon, template_polygon, template_sdf


class MissingValue(PlacementError):
    """A stat or weapon key the rules read that a model (or weapon) lacks, with no default."""


class Stats(Mapping[str, Any]):
    """A model's (or structure's) stats as the rules read them: declared defaults filled in."""

    __slots__ = ("rules", "thing", "owner")

    def __init__(self, rules: Rules, thing: Model | Terrain | None, owner: str) -> None:
        self.rules = rules
        self.thing = thing
        self.owner = owner

    def __getitem__(self, name: str) -> Any:
        thing = self.thing
        if name == "tags":
            return tuple(thing.tags) if thing is not None else ()
        if name == "height":
            return float(thing.height) if thing is not None and thing.height is not None else 0.0
        if thing is not None and name in thing.stats:
            return thing.stats[name]
        decl = self.rules.spec.stats.get(name)
        if decl is not None and decl.default is not None:
            return decl.default
        who = f"{thing.id!r}" if thing is not None else f"no {self.owner}"
        raise MissingValue(f"{self.owner} {who} has no stat {name} and the rules file gives it no default ([stats.{name}] default = ...)")

    def __iter__(self) -> Iterator[str]:
        return iter(self.thing.stats if self.thing is not None else {})

    def __len__(self) -> int:
        return len(self.thing.stats) if self.thing is not None else 0


class Weapon(Mapping[str, Any]):
    """A template's weapon table as the rules read it."""

    __slots__ = ("rules", "weapon", "template_id")

    def __init__(self, rules: Rules, weapon: Mapping[str, Any], template_id: str) -> None:
        self.rules = rules
        self.weapon = weapon
        self.template_id = template_id

    def __getitem__(self, name: str) -> Any:
        if name in self.weapon:
            return self.weapon[name]
        decl = self.rules.spec.weapon.get(name)
        if decl is not None and decl.default is not None:
            return decl.default
        raise MissingValue(f"template {self.template_id!r}: weapon.{name} is not given and the rules file gives it no default")

    def __iter__(self) -> Iterator[str]:
        return iter(self.weapon)

    def __len__(self) -> int:
        return len(self.weapon)


def whole_and_centre(placed: PlacedTemplate, models: list[Model], margins: Mapping[str, float]) -> tuple[dict[str, bool], dict[str, bool]]:
    """(base wholly under, centre under) for each of ``models`` (under the template).

    Round bases are exact (the template's signed distance at the centre against the radius);
    other bases are judged on 256-gons, and the difference is under 0.01 % of their size.
    """
    whole: dict[str, bool] = {}
    centre: dict[str, bool] = {}
    if not models:
        return whole, centre
    sdf = template_sdf(placed, np.array([m.centre for m in models], dtype=float))
    poly = None
    for m, d in zip(models, sdf):
        centre[m.id] = bool(d <= CONTACT_EPS_MM)
        if m.base.is_round:
            whole[m.id] = bool(d <= -m.base.length / 2 + CONTACT_EPS_MM)
        else:
            poly = poly or template_polygon(placed, 256, outer=True)
            whole[m.id] = bool(poly.covers(base_polygon(m, 256, outer=True)))
    return whole, centre


def area_share(placed: PlacedTemplate, model: Model) -> float:
    """The share of ``model``'s base under the template (fine polygons: to about 1e-4)."""
    base = base_polygon(model, 512)
    area = base.area
    if area <= 0:
        return 0.0
    return float(shapely.intersection(base, template_polygon(placed, 512)).area / area)


def judged_under(rules: Rules, coverage: Coverage, models: Mapping[str, Model]) -> tuple[set[str], list[str], dict[str, bool]]:
    """Who is under one template by the file's ``[under]``: (ids under, ids only touching the edge, wholly covered by id)."""
    u = rules.spec.under
    cov = coverage.models
    candidates = [mid for mid in coverage.affected]
    touching = [mid for mid in candidates if cov[mid].margin_mm <= CONTACT_EPS_MM] if not u.touching else []
    candidates = [mid for mid in candidates if mid not in touching]
    ms = [models[mid] for mid in candidates]
    whole, centre = whole_and_centre(coverage.placed, ms, {mid: cov[mid].margin_mm for mid in candidates})
    if u.counts == "centre":
        under = {mid for mid in candidates if centre[mid]}
    elif u.counts == "fraction":
        under = {mid for mid in candidates if whole[mid] or area_share(coverage.placed, models[mid]) >= u.fraction - 1e-9}
    else:
        under = set(candidates)
    return under, touching, whole


def grid_ring(scenario: Scenario, a: tuple[float, float], b: tuple[float, float]) -> int:
    """Squares between the squares of points ``a`` and ``b`` (Chebyshev: a diagonal neighbour is 1)."""
    g = scenario.table.grid
    if not g:
        return 0
    ca, ra = math.floor(a[0] / g), math.floor(a[1] / g)
    cb, rb = math.floor(b[0] / g), math.floor(b[1] / g)
    return max(abs(ca - cb), abs(ra - rb))


def terrain_centre(t: Terrain) -> tuple[float, float]:
    c = shapely.Polygon(t.polygon).centroid
    return (float(c.x), float(c.y))
