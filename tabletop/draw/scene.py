"""Pure preparation of a scene: the world geometry of one Adjudication (rings, triangulations,
hatching, statuses, the ruleset's marks), built once and cached; no pygame. Each frame only
projects these arrays through the Viewport."""

from __future__ import annotations

import math
import textwrap
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import GeometryCollection, LineString, MultiLineString, MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from tabletop.adjudicate import Adjudication, TemplateResult
from tabletop.coverage import uncertainty_mm, Coverage
from tabletop.draw.style import Colour, FloatArray, _STATUS_RANK, palette_name, side_colour, status_colour
from tabletop.marks import WARN, Marks
from tabletop.model import CHECK_TAG, Model, PlacedTemplate, Scenario, Terrain
from tabletop.placement import place
from tabletop.shapes import base_outline, template_polygon
from tabletop.viewport import Viewport


@dataclass(frozen=True)
class _Poly:
    """A polygon ready to fill: its exterior ring, or triangles when it has holes."""

    ring: FloatArray
    triangles: FloatArray | None  # (K, 3, 2) or None
    bbox: tuple[float, float, float, float]
    geom: Polygon


def _polys(geom: BaseGeometry | None) -> list[_Poly]:
    """Fillable pieces of any shapely geometry; points and lines have no area and give none."""
    if geom is None or geom.is_empty:
        return []
    if isinstance(geom, Polygon):
        if geom.area <= 0:
            return []
        ring = np.asarray(geom.exterior.coords)[:-1]
        triangles = None
        if len(geom.interiors):
            tris = shapely.constrained_delaunay_triangles(geom)
            triangles = np.array([np.asarray(t.exterior.coords)[:3] for t in shapely.get_parts(tris)]).reshape(-1, 3, 2)
        return [_Poly(ring, triangles, geom.bounds, geom)]
    if isinstance(geom, (MultiPolygon, GeometryCollection)):
        out: list[_Poly] = []
        for part in geom.geoms:
            out.extend(_polys(part))
        return out
    return []


def _hatch(geom: BaseGeometry, spacing: float, angle_deg: float = 45.0) -> FloatArray:
    """(M, 2, 2) world segments of parallel lines ``spacing`` apart clipped to ``geom``."""
    if geom is None or geom.is_empty or geom.area <= 0:
        return np.zeros((0, 2, 2))
    x0, y0, x1, y1 = geom.bounds
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    half = math.hypot(x1 - x0, y1 - y0) / 2 + spacing
    a = math.radians(angle_deg)
    d = np.array([math.cos(a), math.sin(a)])
    n = np.array([-d[1], d[0]])
    offsets = np.arange(-half, half + spacing, spacing)
    if len(offsets) > 4000:
        return np.zeros((0, 2, 2))
    starts = np.array([cx, cy]) + offsets[:, None] * n - half * d
    ends = np.array([cx, cy]) + offsets[:, None] * n + half * d
    lines = MultiLineString([[tuple(s), tuple(e)] for s, e in zip(starts, ends)])
    clipped = lines.intersection(geom)
    segs: list[FloatArray] = []
    for part in shapely.get_parts(clipped):
        if isinstance(part, LineString):
            c = np.asarray(part.coords)
            if len(c) >= 2:
                segs.append(np.stack([c[:-1], c[1:]], axis=1))
    return np.concatenate(segs) if segs else np.zeros((0, 2, 2))


def _hatch_cached(
    cache: dict[tuple[int, float], FloatArray], key: int, geom: BaseGeometry, vp: Viewport, spacing: float, angle: float
) -> FloatArray:
    """Hatching of ``geom``; cached per spacing, or just for the view when ``geom`` dwarfs the screen."""
    if _is_big(geom.bounds, vp):
        return _hatch(shapely.clip_by_rect(geom, *_clip_box(vp)), spacing, angle)
    hatch = cache.get((key, spacing))
    if hatch is None:
        hatch = cache[(key, spacing)] = _hatch(geom, spacing, angle)
    return hatch


def _hatch_spacing(scale: float, px: float = 9.0) -> float:
    """World spacing (a power of two in mm) giving about ``px`` on screen; quantised so caches hit."""
    return float(2.0 ** round(math.log2(max(1e-6, px / scale))))


def _base_segments(radius_mm: float, scale: float) -> int:
    """Segments for a base outline: the cached 48 while they are within half a pixel."""
    needed = math.pi * math.sqrt(max(radius_mm, 1e-9) * scale)
    if needed <= 48:
        return 48
    segments = 64
    while segments < needed and segments < 8192:
        segments *= 2
    return segments


def _outline_segments(radius_mm: float, scale: float) -> int:
    """Segments keeping an inscribed polygon within half a pixel of the true curve."""
    needed = math.pi * math.sqrt(max(radius_mm, 1e-9) * scale)
    segments = 128
    while segments < needed and segments < 8192:
        segments *= 2
    return segments


@dataclass(eq=False)
class _TemplateArt:
    id: str
    label: str
    sublabel: str
    placed: PlacedTemplate
    allowed: bool
    reason: str | None
    fill: list[_Poly]
    visible: list[_Poly] | None
    shadow: list[_Poly]
    shadow_geom: BaseGeometry | None
    also: tuple[PlacedTemplate, ...]
    ghosts: list[PlacedTemplate]  # aims that scattered away, unless drawn anyway
    paths: list[FloatArray]  # (2, 2) aim -> where it scattered to
    bbox: tuple[float, float, float, float]
    outlines: dict[tuple[PlacedTemplate, int], FloatArray] = field(default_factory=dict)
    hatches: dict[tuple[int, float], FloatArray] = field(default_factory=dict)
    cross: FloatArray | None = None

    def outline(self, placed: PlacedTemplate, scale: float) -> FloatArray:
        segments = _outline_segments(placed.shape.reach, scale)
        key = (placed, segments)
        ring = self.outlines.get(key)
        if ring is None:
            ring = self.outlines[key] = np.asarray(template_polygon(placed, segments=segments).exterior.coords)
        return ring


@dataclass(eq=False)
class _Scene:
    adjudication: Adjudication
    scenario: Scenario
    width: float
    depth: float
    # terrain
    terrain: tuple[Terrain, ...]
    terrain_rings: list[FloatArray]
    terrain_all: FloatArray
    terrain_offsets: NDArray[np.int64]
    terrain_bbox: FloatArray  # (T, 4)
    terrain_centroids: FloatArray
    terrain_hit: frozenset[str]
    terrain_polys: list[Polygon]
    # models
    models: tuple[Model, ...]
    centres: FloatArray
    radii: FloatArray
    round_mask: NDArray[np.bool_]
    facing: FloatArray
    fills: list[Colour]
    rings: list[Colour]
    contested: NDArray[np.bool_]
    outline_index: list[int]  # models with oval/rect bases
    outline_all: FloatArray  # their 48-segment world rings, concatenated
    outline_offsets: NDArray[np.int64]
    model_index: dict[str, int]
    sides: tuple[str | None, ...]
    statuses: frozenset[str]
    templates: list[_TemplateArt]
    hatches: dict[tuple[int, float], FloatArray] = field(default_factory=dict)
    names_drawn: bool = False  # model names are on screen: labels keep clear of them
    art: Marks | None = None  # the ruleset's own overlays
    model_data: _ModelData | None = None
    worst: list[str | None] = field(default_factory=list)  # each model's worst status (patterns)
    palette: str = "default"  # the palette its fills were coloured with
    to_check: tuple[int, ...] = ()  # models tagged "check" (found on a photo, not sure): ``draw.checks`` marks them


_scenes: OrderedDict[int, _Scene] = OrderedDict()


def _scene(adj: Adjudication) -> _Scene:
    """The prepared world geometry of ``adj``, built once (keyed by identity, holding a reference)."""
    key = id(adj)
    scene = _scenes.get(key)
    if scene is not None and scene.adjudication is adj and scene.palette == palette_name():
        _scenes.move_to_end(key)
        return scene
    scene = _prepare(adj)
    _scenes[key] = scene
    while len(_scenes) > 4:
        _scenes.popitem(last=False)
    return scene


_RANK_STATUS = {rank: status for status, rank in _STATUS_RANK.items()}


def _worst(models: Sequence[Model], results: Sequence[TemplateResult]) -> tuple[list[str | None], NDArray[np.bool_]]:
    """Each model's worst status across templates (None: no template) and whether any contest it."""
    ids = tuple(m.id for m in models)
    index = {m: i for i, m in enumerate(ids)}
    n = len(ids)
    rank = np.full(n, -1, dtype=int)
    contested = np.zeros(n, dtype=bool)
    for result in results:
        res = result.resolution
        if not res.allowed:
            continue  # a nullified attack affects no one; hover still lists its margins
        table = res.coverage.models
        statuses = getattr(table, "statuses", None)
        flags = getattr(table, "contested", None)
        if statuses is not None and flags is not None and getattr(table, "ids", None) == ids:
            # Array-backed coverage with our model order: no per-model objects.
            codes = np.asarray(statuses)
            r = np.zeros(n, dtype=int)
            for status, status_rank in _STATUS_RANK.items():
                if status_rank:
                    r[codes == status] = status_rank
            c = np.asarray(flags, dtype=bool) & (r != _STATUS_RANK["user"])
        else:
            r = np.full(n, -1, dtype=int)
            c = np.zeros(n, dtype=bool)
            for model_id, mc in table.items():
                i = index.get(model_id)
                if i is not None:
                    r[i] = _STATUS_RANK.get(mc.status, 0)
                    c[i] = mc.contested and mc.status != "user"
        for model_id in res.affected:
            i = index.get(model_id)
            if i is not None:
                r[i] = _STATUS_RANK["affected"]
        np.maximum(rank, r, out=rank)
        contested |= c
    return [None if k < 0 else _RANK_STATUS[int(k)] for k in rank.tolist()], contested


def _margins_of(adj: Adjudication, model_id: str) -> list[tuple[str, str, float, bool, float]]:
    """(template id, status, margin mm, contested, uncertainty mm) of one model for every template.

    The uncertainty is the template's size bound plus two sigmas of the model's measured
    position (``coverage.uncertainty_mm``): the ± a judge must read beside the margin.
    """
    sigma = next((m.sigma for m in adj.scenario.models if m.id == model_id), None)
    out = []
    for result in adj.results:
        res = result.resolution
        c = res.coverage.models.get(model_id)
        if c is not None:
            status = "affected" if model_id in res.affected else c.status
            u = uncertainty_mm(res.placed.shape.size_uncertainty, sigma)
            out.append((result.template.id, status, float(c.margin_mm), bool(c.contested), u))
    return out


def _original_aim(result: TemplateResult, scenario: Scenario) -> PlacedTemplate | None:
    try:
        return place(result.template, scenario, result.resolution.placed.shape)
    except Exception:  # a ruleset-sized shape or odd placement: no ghost, no harm
        return None


@dataclass(eq=False)
class _CoverageArt:
    """What a template's art takes from its coverage: triangulated fills and cached hatching."""

    visible_region: object  # the coverage's VisibleRegion (or None): held so its id stays unique
    placed: PlacedTemplate
    poly: Polygon
    fill: list[_Poly]
    visible: list[_Poly] | None
    shadow: list[_Poly]
    shadow_geom: BaseGeometry | None
    outlines: dict[tuple[PlacedTemplate, int], FloatArray] = field(default_factory=dict)
    hatches: dict[tuple[int, float], FloatArray] = field(default_factory=dict)


# The art depends on the placement and the visible region only. While one template is
# dragged the others keep their Coverage objects (the app's live cache), and while a model
# is dragged every template keeps its visible region (the geometry's region cache), so
# triangulation and shadow hatching are reused.
_coverage_art: OrderedDict[tuple[PlacedTemplate, int], _CoverageArt] = OrderedDict()


_COVERAGE_ART_SIZE = 64


def _art_of_coverage(coverage: Coverage, placed: PlacedTemplate) -> _CoverageArt:
    visible = coverage.visible
    key = (placed, id(visible))
    hit = _coverage_art.get(key)
    if hit is not None and hit.visible_region is visible:
        _coverage_art.move_to_end(key)
        return hit
    poly = template_polygon(placed, segments=128)
    vis_polys: list[_Poly] | None = None
    shadow: list[_Poly] = []
    shadow_geom = None
    if visible is not None:
        vis_polys = _polys(visible.outer)
        shadow_geom = visible.shadow
        shadow = _polys(shadow_geom)
    art = _CoverageArt(visible, placed, poly, _polys(poly), vis_polys, shadow, shadow_geom)
    _coverage_art[key] = art
    while len(_coverage_art) > _COVERAGE_ART_SIZE:
        _coverage_art.popitem(last=False)
    return art


def _template_art(result: TemplateResult, scenario: Scenario) -> _TemplateArt:
    res = result.resolution
    placed = res.placed
    cov = _art_of_coverage(res.coverage, placed)
    poly = cov.poly
    # Each scatter step moves from the placement the step before it showed (the aim).
    paths: list[FloatArray] = []
    ghosts: list[PlacedTemplate] = []
    previous: PlacedTemplate | None = None
    aim: PlacedTemplate | None = None
    shown = {(p.focus, p.heading) for p in res.also_drawn} | {(placed.focus, placed.heading)}
    for step in res.steps:
        if step.placed is None:
            continue
        if "scatter" in step.kind.lower():
            origin = previous
            if origin is None:
                origin = aim = aim or _original_aim(result, scenario)
            if origin is not None and origin.focus != step.placed.focus:
                paths.append(np.array([origin.focus, step.placed.focus], dtype=float))
                if (origin.focus, origin.heading) not in shown and origin not in ghosts:
                    ghosts.append(origin)
        previous = step.placed
    x0, y0, x1, y1 = poly.bounds
    for other in res.also_drawn:
        bx0, by0, bx1, by1 = template_polygon(other, segments=32, outer=True).bounds
        x0, y0, x1, y1 = min(x0, bx0), min(y0, by0), max(x1, bx1), max(y1, by1)
    name = result.template.shape_name or placed.shape.kind
    n_aff = len(res.affected)
    sub = f"{name} - {n_aff} affected" if res.allowed else name
    art = _TemplateArt(
        id=result.template.id,
        label=result.template.id,
        sublabel=sub,
        placed=placed,
        allowed=res.allowed,
        reason=res.reason,
        fill=cov.fill,
        visible=cov.visible,
        shadow=cov.shadow,
        shadow_geom=cov.shadow_geom,
        also=tuple(res.also_drawn),
        ghosts=ghosts,
        paths=paths,
        bbox=(x0, y0, x1, y1),
        outlines=cov.outlines,
        hatches=cov.hatches,
    )
    if not res.allowed:
        # An X clipped to the template, so the cross reads as "this template", not "this area".
        cross = MultiLineString([[(x0, y0), (x1, y1)], [(x0, y1), (x1, y0)]]).intersection(poly)
        segs = [np.asarray(p.coords) for p in shapely.get_parts(cross) if isinstance(p, LineString)]
        art.cross = np.array([[s[0], s[-1]] for s in segs]) if segs else None
    return art


@dataclass(eq=False)
class _TerrainData:
    terrain: tuple[Terrain, ...]
    rings: list[FloatArray]
    all_pts: FloatArray
    offsets: NDArray[np.int64]
    bbox: FloatArray
    polys: list[Polygon]
    centroids: FloatArray
    hatches: dict[tuple[int, float], FloatArray] = field(default_factory=dict)


@dataclass(eq=False)
class _ModelData:
    models: tuple[Model, ...]
    centres: FloatArray
    radii: FloatArray
    round_mask: NDArray[np.bool_]
    facing: FloatArray
    outline_index: list[int]
    outline_all: FloatArray
    outline_offsets: NDArray[np.int64]
    sides: tuple[str | None, ...]
    rings: list[Colour]
    model_index: dict[str, int]
    name_sizes: dict[tuple[int, float], FloatArray] = field(default_factory=dict)  # (font size, UI scale) -> (N, 2) name pill sizes
    names: tuple[object, list[Any]] | None = None  # the name labels of the last view (draw/models.py)


# Dragging a template makes a new Adjudication every frame but keeps the very same
# terrain and model tuples: their geometry (and terrain hatching) is reused by identity.
_terrain_data: list[_TerrainData] = []


_model_data: list[_ModelData] = []


def _terrain_for(terrain: tuple[Terrain, ...]) -> _TerrainData:
    for d in _terrain_data:
        if d.terrain is terrain:
            return d
    rings = [np.asarray(t.polygon, dtype=float).reshape(-1, 2) for t in terrain]
    offsets = np.concatenate([[0], np.cumsum([len(r) for r in rings])]).astype(np.int64)
    polys = [Polygon(r) for r in rings]
    centroids = []
    for p in polys:
        c = p.representative_point() if not p.is_valid or not p.contains(p.centroid) else p.centroid
        centroids.append((c.x, c.y))
    d = _TerrainData(
        terrain=terrain,
        rings=rings,
        all_pts=np.concatenate(rings) if rings else np.zeros((0, 2)),
        offsets=offsets,
        bbox=np.array([[r[:, 0].min(), r[:, 1].min(), r[:, 0].max(), r[:, 1].max()] for r in rings]).reshape(-1, 4),
        polys=polys,
        centroids=np.asarray(centroids, dtype=float).reshape(-1, 2),
    )
    _terrain_data[:] = [d, *_terrain_data[:3]]
    return d


# A dragged model makes a new models tuple each frame; the others keep their outlines.
_outlines_48: dict[tuple[object, float, float, float], FloatArray] = {}


def _outline_48(m: Model) -> FloatArray:
    key = (m.base, m.x, m.y, m.facing)
    ring = _outlines_48.get(key)
    if ring is None:
        if len(_outlines_48) > 8192:
            _outlines_48.clear()
        ring = _outlines_48[key] = base_outline(m.base, m.x, m.y, m.facing, segments=48)
    return ring


def _models_for(models: tuple[Model, ...]) -> _ModelData:
    for d in _model_data:
        if d.models is models:
            return d
    n = len(models)
    round_mask = np.array([m.base.shape == "round" or (m.base.shape == "oval" and m.base.length == m.base.width) for m in models], dtype=bool)
    outline_index = [i for i in range(n) if not round_mask[i]]
    outline_rings = [_outline_48(models[i]) for i in outline_index]
    sides: list[str | None] = []
    for m in models:
        if m.side not in sides:
            sides.append(m.side)
    ring_of = {side: side_colour(side) for side in sides}
    d = _ModelData(
        models=models,
        centres=np.array([[m.x, m.y] for m in models], dtype=float).reshape(-1, 2),
        radii=np.array([m.base.bounding_radius for m in models], dtype=float),
        round_mask=round_mask,
        facing=np.array([m.facing for m in models], dtype=float),
        outline_index=outline_index,
        outline_all=np.concatenate(outline_rings) if outline_rings else np.zeros((0, 2)),
        outline_offsets=np.concatenate([[0], np.cumsum([len(o) for o in outline_rings])]).astype(np.int64),
        sides=tuple(sides),
        rings=[ring_of[m.side] for m in models],
        model_index={m.id: i for i, m in enumerate(models)},
    )
    _model_data[:] = [d, *_model_data[:3]]
    return d


def _prepare(adj: Adjudication) -> _Scene:
    s = adj.scenario
    td = _terrain_for(s.terrain)
    md = _models_for(s.models)
    hit: set[str] = set()
    for result in adj.results:
        hit.update(result.resolution.coverage.terrain_affected)
    worst, contested = _worst(md.models, adj.results)
    statuses = frozenset(w for w in worst if w is not None)
    templates = [_template_art(r, s) for r in adj.results]
    art = _ruleset_art(adj)
    if art is not None:
        for t in templates:
            if t.id in art.sublabels:
                t.sublabel = art.sublabels[t.id]
    return _Scene(
        adjudication=adj,
        scenario=s,
        width=s.table.width,
        depth=s.table.depth,
        terrain=td.terrain,
        terrain_rings=td.rings,
        terrain_all=td.all_pts,
        terrain_offsets=td.offsets,
        terrain_bbox=td.bbox,
        terrain_centroids=td.centroids,
        terrain_hit=frozenset(hit),
        terrain_polys=td.polys,
        models=md.models,
        centres=md.centres,
        radii=md.radii,
        round_mask=md.round_mask,
        facing=md.facing,
        fills=[status_colour(w or "outside") for w in worst],
        rings=md.rings,
        contested=contested,
        outline_index=md.outline_index,
        outline_all=md.outline_all,
        outline_offsets=md.outline_offsets,
        model_index=md.model_index,
        sides=md.sides,
        statuses=statuses,
        templates=templates,
        hatches=td.hatches,
        art=art,
        model_data=md,
        to_check=tuple(i for i, m in enumerate(md.models) if CHECK_TAG in m.tags),
        worst=list(worst),
        palette=palette_name(),
    )


def _ruleset_art(adj: Adjudication) -> Marks | None:
    """The marks of ``adj``'s ruleset (None: the ruleset draws nothing of its own)."""
    from tabletop import rulesets

    try:
        hook = rulesets.get(adj.scenario.ruleset).marks
    except rulesets.UnknownRuleset:
        return None
    if hook is None:
        return None
    try:
        art = hook(adj)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        # Details from a newer or half-written ruleset: draw the table without its extras rather than fail.
        art = Marks()
    except rulesets.PluginError as exc:
        # An installed plug-in's marks raised or returned garbage: the table without them, and the
        # legend says so (the app must not stop on every frame; a render must not pass it over).
        art = Marks()
        art.add_legend("dash", f"{adj.scenario.ruleset} marks not drawn: {exc.detail}"[:90], WARN)
    return art


#: Beyond this many pixels across, a polygon is clipped to the view before filling:
#: pygame's scanline fill walks every edge on every row, which at loupe zoom costs tens of ms.
_BIG_PX = 5000.0


def _clip_box(vp: Viewport, pad_px: float = 32.0) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = vp.visible_world_bounds()
    pad = pad_px / vp.scale
    return (x0 - pad, y0 - pad, x1 + pad, y1 + pad)


def _is_big(bbox: Sequence[float], vp: Viewport) -> bool:
    return max(bbox[2] - bbox[0], bbox[3] - bbox[1]) * vp.scale > _BIG_PX


def _bbox_visible(bbox: Sequence[float], view: tuple[float, float, float, float]) -> bool:
    return not (bbox[2] < view[0] or bbox[0] > view[2] or bbox[3] < view[1] or bbox[1] > view[3])


def _circle_ring_screen(cx: float, cy: float, r: float, n: int = 40) -> FloatArray:
    a = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(a), cy + r * np.sin(a)], axis=-1)


def _model_outline_px(scene: _Scene, vp: Viewport, i: int, projected: dict[int, FloatArray] | None = None) -> FloatArray:
    """Screen outline of model ``i``'s base, fine enough for the current zoom."""
    segments = _base_segments(scene.radii[i], vp.scale)
    if projected is not None and i in projected and segments == 48:
        return projected[i]
    m = scene.models[i]
    return vp.to_screen_array(base_outline(m.base, m.x, m.y, m.facing, segments=segments))


def _grown(pts: FloatArray, centre: Sequence[float], px: float) -> FloatArray:
    """``pts`` pushed ``px`` pixels outwards from ``centre``."""
    d = pts - np.asarray(centre)
    return pts + d / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-9)[:, None] * px


def _world_outline(scene: _Scene, i: int, vp: Viewport) -> FloatArray:
    m = scene.models[i]
    return base_outline(m.base, m.x, m.y, m.facing, segments=_base_segments(scene.radii[i], vp.scale))


def _top_middle(ring: FloatArray) -> tuple[float, float]:
    """The screen top of a ring; the middle of its top edge when that edge is flat (a square blast)."""
    k = int(np.argmin(ring[:, 1]))
    x, y = float(ring[k, 0]), float(ring[k, 1])
    xs = [x]
    for j in (k - 1, (k + 1) % len(ring)):
        if abs(float(ring[j, 1]) - y) <= 0.5 and float(ring[j, 0]) != x:
            xs.append(float(ring[j, 0]))
    return (sum(xs) / len(xs), y)


#: A refusal's reason under its banner: lines of at most this many characters, at most this many lines.
REFUSAL_LINE_CHARS = 60
REFUSAL_MAX_LINES = 3


def refusal_lines(reason: str) -> list[str]:
    """``reason`` wrapped under a NOT ALLOWED / NULLIFIED banner: whole, unless it runs past
    :data:`REFUSAL_MAX_LINES` lines (the instruction it ends with is what a player needs to read)."""
    return textwrap.wrap(reason, REFUSAL_LINE_CHARS, max_lines=REFUSAL_MAX_LINES, placeholder=" …")


def _inch_label(inches: float) -> str:
    if abs(inches - round(inches)) < 1e-9:
        return f'{int(round(inches))}"'
    return f'{inches:g}"'
