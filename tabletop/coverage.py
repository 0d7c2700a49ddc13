"""Who a placed template affects: status, margin and contest for every model.

The hot path is vectorised: round bases are judged in one numpy pass against
the template's exact signed distance, obstacles come from an STRtree, and only
bases that the bracketing polygons leave undecided are looked at again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from tabletop.contact import model_margin, round_margins, terrain_margin
from tabletop.model import Model, PlacedTemplate, Scenario, Status, Terrain
from tabletop.shapes import DEFAULT_SEGMENTS, FINE_SEGMENTS, base_polygon, template_polygon
from tabletop.visibility import VisibleRegion, visible_region

#: Contact within this many mm counts as contact: it absorbs float rounding
#: (about 1e-14 mm), far below the 0.001 mm the decisions promise.
CONTACT_EPS_MM = 1e-9
DEFAULT_TOLERANCE_MM = 1.0
#: A model's position error enters the contested band as this many sigmas (two: about 95 %
#: of a normal error along the line that decides the margin lies within it).
SIGMA_FACTOR = 2.0


def uncertainty_mm(size_uncertainty_mm: float, sigma_mm: float | None) -> float:
    """How far the true margin may lie from the computed one: the template's size bound plus
    ``SIGMA_FACTOR`` sigmas of the model's position (docs/geometry.md says why a plain sum)."""
    return size_uncertainty_mm + SIGMA_FACTOR * (sigma_mm or 0.0)


def is_contested(margin_mm: float, tolerance_mm: float, size_uncertainty_mm: float = 0.0, sigma_mm: float | None = None) -> bool:
    """``|margin| <= tolerance + size uncertainty + 2 sigma`` (the user is never contested: callers skip it)."""
    return abs(margin_mm) <= tolerance_mm + uncertainty_mm(size_uncertainty_mm, sigma_mm)


class ModelCoverage(NamedTuple):
    """One model's relation to one template (a NamedTuple: thousands are made per drag step)."""

    status: Status
    margin_mm: float
    contested: bool


class ModelTable(Mapping[str, ModelCoverage]):
    """Model id → ModelCoverage, backed by arrays; entries are built only when read."""

    __slots__ = ("ids", "index", "statuses", "margins", "contested")

    def __init__(self, ids: tuple[str, ...], index: Mapping[str, int], statuses: NDArray[np.object_], margins: NDArray[np.float64], contested: NDArray[np.bool_]) -> None:
        self.ids = ids
        self.index = index
        self.statuses = statuses
        self.margins = margins
        self.contested = contested

    def __getitem__(self, model_id: str) -> ModelCoverage:
        i = self.index[model_id]
        return ModelCoverage(self.statuses[i], float(self.margins[i]), bool(self.contested[i]))

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())

    def __repr__(self) -> str:
        return f"ModelTable({dict(self.items())!r})"

    def with_status(self, ids: Iterable[str], status: Status) -> ModelTable:
        statuses = self.statuses.copy()
        for model_id in ids:
            statuses[self.index[model_id]] = status
        return ModelTable(self.ids, self.index, statuses, self.margins, self.contested)


@dataclass(frozen=True)
class Coverage:
    """Every model's status against one placed template."""

    placed: PlacedTemplate
    models: Mapping[str, ModelCoverage]
    terrain_affected: tuple[str, ...] = ()
    visible: VisibleRegion | None = None
    tolerance_mm: float = DEFAULT_TOLERANCE_MM

    @property
    def affected(self) -> tuple[str, ...]:
        return tuple(sorted(self.ids_with("affected")))

    def ids_with(self, status: Status) -> tuple[str, ...]:
        """Ids of the models with ``status``, in table order."""
        m = self.models
        if isinstance(m, ModelTable):
            return tuple(m.ids[i] for i in np.nonzero(m.statuses == status)[0])
        return tuple(i for i, c in m.items() if c.status == status)


@dataclass(frozen=True, eq=False)
class TableGeometry:
    """Arrays and spatial indexes derived from a scenario's models and terrain."""

    models: tuple[Model, ...]
    terrain: tuple[Terrain, ...]
    centres: NDArray[np.float64]
    radii: NDArray[np.float64]
    round_mask: NDArray[np.bool_]
    terrain_polygons: tuple[Polygon, ...]
    terrain_tree: shapely.STRtree
    ids: tuple[str, ...] = ()
    index: dict[str, int] = field(default_factory=dict)
    _base_polygons: dict[tuple[int, int, bool], Polygon] = field(default_factory=dict)
    # Visible regions depend on the template and the terrain only, so geometries built for
    # the same terrain share them: dragging a model does not recast any shadow.
    regions: OrderedDict[tuple[PlacedTemplate, int, tuple[int, ...]], VisibleRegion] = field(default_factory=OrderedDict)
    # Margins of oval and rectangular bases (an iterative search each), kept across edits
    # of other models: keyed by the template and the base's shape and pose.
    shaped_margins: OrderedDict[tuple[PlacedTemplate, object, float, float, float], float] = field(default_factory=OrderedDict)
    #: 1-sigma position uncertainty of each model in mm (0 where none is given).
    sigmas: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))

    def shaped_margin(self, placed: PlacedTemplate, index: int) -> float:
        """``model_margin`` of the non-round base of model ``index``, cached."""
        m = self.models[index]
        key = (placed, m.base, m.x, m.y, m.facing)
        margin = self.shaped_margins.get(key)
        if margin is None:
            margin = self.shaped_margins[key] = model_margin(placed, m)
            while len(self.shaped_margins) > _MARGIN_CACHE_SIZE:
                self.shaped_margins.popitem(last=False)
        return margin

    def visible_region(
        self, placed: PlacedTemplate, blocking: tuple[int, ...], segments: int, inner_t: Polygon | None = None, outer_t: Polygon | None = None
    ) -> VisibleRegion:
        """``visibility.visible_region`` past the terrain pieces ``blocking`` (indices), cached."""
        key = (placed, segments, blocking)
        region = self.regions.get(key)
        if region is not None:
            self.regions.move_to_end(key)
            return region
        obstacles = [self.terrain_polygons[i] for i in blocking]
        region = self.regions[key] = visible_region(placed, obstacles, segments, inner_t, outer_t)
        while len(self.regions) > _REGION_CACHE_SIZE:
            self.regions.popitem(last=False)
        return region

    def base_polygon(self, index: int, segments: int, outer: bool) -> Polygon:
        key = (index, segments, outer)
        poly = self._base_polygons.get(key)
        if poly is None:
            poly = self._base_polygons[key] = base_polygon(self.models[index], segments, outer)
        return poly


_REGION_CACHE_SIZE = 256
_MARGIN_CACHE_SIZE = 8192


def table_geometry(scenario: Scenario, previous: TableGeometry | None = None) -> TableGeometry:
    """Precompute what every template's coverage needs from the table.

    ``previous``: a geometry of the same table before an edit; when its terrain is
    unchanged, its terrain index and cached visible regions are kept.
    """
    models = scenario.models
    centres = np.array([[m.x, m.y] for m in models], dtype=float).reshape(-1, 2)
    radii = np.array([m.base.bounding_radius for m in models], dtype=float)
    round_mask = np.array([m.base.is_round for m in models], dtype=bool)
    if previous is not None and (previous.terrain is scenario.terrain or previous.terrain == scenario.terrain):
        polys, tree, regions = previous.terrain_polygons, previous.terrain_tree, previous.regions
    else:
        polys = tuple(Polygon(t.polygon) for t in scenario.terrain)
        tree, regions = shapely.STRtree(list(polys)), OrderedDict()
    return TableGeometry(
        models, scenario.terrain, centres, radii, round_mask, polys, tree,
        tuple(m.id for m in models), {m.id: i for i, m in enumerate(models)}, regions=regions,
        shaped_margins=previous.shaped_margins if previous is not None else OrderedDict(),
        sigmas=np.array([m.sigma or 0.0 for m in models], dtype=float),
    )


#: Candidate searches pad the template's envelope: its circumscribed polygon reaches the
#: true curve only up to rounding, and a tangent piece must still be found.
_QUERY_PAD_MM = 1e-6


def _candidates(geom: TableGeometry, region: BaseGeometry) -> list[int]:
    x0, y0, x1, y1 = region.bounds
    box = shapely.box(x0 - _QUERY_PAD_MM, y0 - _QUERY_PAD_MM, x1 + _QUERY_PAD_MM, y1 + _QUERY_PAD_MM)
    return np.sort(geom.terrain_tree.query(box)).tolist()  # type: ignore[no-any-return]


def _blocking(geom: TableGeometry, candidates: list[int], blocks: Callable[[Terrain], bool]) -> tuple[int, ...]:
    return tuple(i for i in candidates if blocks(geom.terrain[i]))


def default_blocks(terrain: Terrain) -> bool:
    """Spec rule: terrain with ``blocks_los = true`` blocks the blast focus."""
    return terrain.blocks_los


def _meets_visible(
    geom: TableGeometry, index: int, region: VisibleRegion, placed: PlacedTemplate, blocking: tuple[int, ...]
) -> bool:
    """Does model ``index``'s base meet V? Bracketed, then settled with finer polygons."""
    model = geom.models[index]
    for segments, v in ((DEFAULT_SEGMENTS, region), (FINE_SEGMENTS, None)):
        if v is None:
            v = geom.visible_region(placed, blocking, segments)
        if model.base.is_round:
            centre = shapely.Point(model.x, model.y)
            r = model.base.length / 2
            if shapely.distance(centre, v.inner) <= r + CONTACT_EPS_MM:
                return True
            if shapely.distance(centre, v.outer) > r + CONTACT_EPS_MM:
                return False
        else:
            base_segments = 64 if segments == DEFAULT_SEGMENTS else 4096
            inner_b = geom.base_polygon(index, base_segments, False)
            outer_b = geom.base_polygon(index, base_segments, True)
            if shapely.distance(inner_b, v.inner) <= CONTACT_EPS_MM:
                return True
            if shapely.distance(outer_b, v.outer) > CONTACT_EPS_MM:
                return False
    # Within about 1e-6 mm of grazing the shadow's edge: grazing does not block.
    return True


_STATUS_BY_CODE = np.array(["outside", "total_cover", "affected"], dtype=object)  # indexed by touching * (1 + seen)


def cover(
    placed: PlacedTemplate,
    geom: TableGeometry,
    *,
    use_visibility: bool = True,
    tolerance_mm: float = DEFAULT_TOLERANCE_MM,
    blocks: Callable[[Terrain], bool] = default_blocks,
    users: Iterable[str] = (),
) -> Coverage:
    """Status, margin and contest of every model against ``placed``."""
    n = len(geom.models)
    margins = np.empty(n)
    if n:
        rm = geom.round_mask
        margins[rm] = round_margins(placed, geom.centres[rm], geom.radii[rm])
        for i in np.nonzero(~rm)[0]:
            margins[i] = geom.shaped_margin(placed, int(i))
    touching = margins >= -CONTACT_EPS_MM
    user_ids = set(users)
    if placed.user:
        user_ids.add(placed.user)

    region: VisibleRegion | None = None
    blocking: tuple[int, ...] = ()
    inner_t = template_polygon(placed, DEFAULT_SEGMENTS, outer=False)
    outer_t = template_polygon(placed, DEFAULT_SEGMENTS, outer=True)
    near = _candidates(geom, outer_t)
    if use_visibility:
        blocking = _blocking(geom, near, blocks)
        if blocking:
            region = geom.visible_region(placed, blocking, DEFAULT_SEGMENTS, inner_t, outer_t)
            if region.shadow is None:
                region = None

    seen = np.ones(n, dtype=bool)
    if region is not None:
        candidates = np.nonzero(touching)[0]
        if len(candidates):
            rc = candidates[geom.round_mask[candidates]]
            if len(rc):
                pts = shapely.points(geom.centres[rc])
                r = geom.radii[rc] + CONTACT_EPS_MM
                d_in = shapely.distance(pts, region.inner)
                d_out = shapely.distance(pts, region.outer)
                seen[rc] = d_in <= r
                unsure = rc[(d_in > r) & (d_out <= r)]
                for i in unsure:
                    seen[i] = _meets_visible(geom, int(i), region, placed, blocking)
            for i in candidates[~geom.round_mask[candidates]]:
                seen[i] = _meets_visible(geom, int(i), region, placed, blocking)

    status_arr = _STATUS_BY_CODE[touching * (1 + seen)]
    if user_ids:
        for model_id in user_ids:
            if model_id in geom.index:
                status_arr[geom.index[model_id]] = "user"
    band = tolerance_mm + uncertainty_mm(placed.shape.size_uncertainty, 0.0) + SIGMA_FACTOR * _sigmas(geom, n)
    contested = (np.abs(margins) <= band) & (status_arr != "user")
    result = ModelTable(geom.ids, geom.index, status_arr, margins, contested)

    return Coverage(placed, result, _terrain_under(placed, geom, near, inner_t, outer_t), region, tolerance_mm)


def _sigmas(geom: TableGeometry, n: int) -> NDArray[np.float64]:
    return geom.sigmas if len(geom.sigmas) == n else np.zeros(n)


def widen_contested(coverage: Coverage, sigmas: Mapping[str, float]) -> Coverage:
    """``coverage`` with every non-user model within the uncertainty band marked contested.

    Rulesets that build their own coverage (several templates at once) flag contested by the
    tolerance alone; this widens their flags the same way :func:`cover` does. Never clears a flag.
    """
    size = coverage.placed.shape.size_uncertainty
    if size == 0 and not sigmas:
        return coverage  # the band is the tolerance the ruleset already used
    m = coverage.models
    changed = [
        i for i, c in m.items()
        if not c.contested and c.status != "user" and is_contested(c.margin_mm, coverage.tolerance_mm, size, sigmas.get(i))
    ]
    if not changed:
        return coverage
    if isinstance(m, ModelTable):
        flags = m.contested.copy()
        for i in changed:
            flags[m.index[i]] = True
        table: Mapping[str, ModelCoverage] = ModelTable(m.ids, m.index, m.statuses, m.margins, flags)
    else:
        table = {i: (c._replace(contested=True) if i in changed else c) for i, c in m.items()}
    return replace(coverage, models=table)


def _terrain_under(placed: PlacedTemplate, geom: TableGeometry, candidates: list[int], inner_t: Polygon, outer_t: Polygon) -> tuple[str, ...]:
    """Ids of terrain pieces meeting the template: bracketed, then exact for the undecided."""
    if not candidates:
        return ()
    polys = np.array([geom.terrain_polygons[i] for i in candidates], dtype=object)
    surely = shapely.intersects(polys, inner_t)
    maybe = ~surely & (shapely.distance(polys, outer_t) <= _QUERY_PAD_MM)
    hits: list[str] = []
    for k, i in enumerate(candidates):
        if surely[k]:
            hits.append(geom.terrain[i].id)
        elif maybe[k]:
            ring = np.asarray(geom.terrain_polygons[i].exterior.coords)[:-1]
            if terrain_margin(placed, ring) >= -CONTACT_EPS_MM:
                hits.append(geom.terrain[i].id)
    return tuple(hits)
