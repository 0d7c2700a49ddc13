"""Pygame drawing of a table and its resolved templates (read-only on state).

World-side geometry (rings, triangulations, hatching) is prepared once per
``Adjudication`` and cached; each frame only projects arrays through the
:class:`~tabletop.viewport.Viewport` and issues draw calls. Translucent fills
all go to one ``SRCALPHA`` overlay per frame, blitted once over the area used.
"""

from __future__ import annotations

import importlib.util
import math
import os
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pygame
import shapely
from numpy.typing import NDArray
from shapely.geometry import GeometryCollection, LineString, MultiLineString, MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from tabletop.adjudicate import Adjudication, TemplateResult
from tabletop.coverage import Coverage
from tabletop.marks import (
    BADGE_BACK,
    BLOCKED_FILL,
    NULLIFIED,
    ROSE,
    ROSE_HOT,
    ROSE_MIN_PX,
    TEMPLATE_EDGE,
    TEXT,
    TEXT_DIM,
    Marks,
    Rose,
    Stroke,
    heat_colour,
)
from tabletop.model import Model, PlacedTemplate, Scenario, Terrain
from tabletop.placement import place
from tabletop.shapes import base_outline, template_polygon
from tabletop.units import MM_PER_UNIT
from tabletop.viewport import MAX_SCALE, MIN_SCALE, Viewport, nice_grid_step

if TYPE_CHECKING:
    from tabletop.odds import OddsResult

Colour = tuple[int, int, int]
FloatArray = NDArray[np.float64]

INCH = 25.4

# --------------------------------------------------------------------------- colours

# Okabe–Ito based: statuses differ in hue *and* lightness, never by red/green alone.
STATUS_COLOURS: dict[str, Colour] = {
    "affected": (230, 85, 13),  # vermillion-orange
    "total_cover": (40, 110, 200),  # blue
    "outside": (214, 214, 206),  # light grey
    "user": (240, 190, 30),  # gold
}
CONTESTED_COLOUR: Colour = (255, 236, 40)
CONTESTED_DASH: Colour = (20, 20, 20)
SELECT_COLOUR: Colour = (0, 230, 255)
HOVER_COLOUR: Colour = (255, 255, 255)

BACKGROUND: Colour = (30, 32, 36)
TABLE_FILL: Colour = (58, 84, 64)  # muted felt: keeps orange/blue/grey bases readable
TABLE_EDGE: Colour = (18, 26, 20)
GRID_MINOR: Colour = (70, 98, 76)
GRID_SIX: Colour = (92, 124, 98)
GRID_TWELVE: Colour = (108, 140, 114)

BUILDING_FILL: Colour = (112, 114, 120)
BUILDING_EDGE: Colour = (46, 48, 54)
SOFT_FILL: Colour = (92, 116, 92)  # blocks_los = false: lighter than felt, hatched
SOFT_EDGE: Colour = (140, 160, 134)
SOFT_HATCH: Colour = (120, 146, 116)

TEMPLATE_FILL: Colour = (255, 220, 120)
VISIBLE_FILL: Colour = TEMPLATE_FILL  # what the focus sees looks like any template
SHADOW_FILL: Colour = (12, 16, 36)
SHADOW_HATCH: Colour = (120, 130, 170)
SCATTER: Colour = (255, 255, 255)
PANEL: tuple[int, int, int, int] = (16, 18, 22, 210)

_SIDE_PALETTE: tuple[Colour, ...] = (
    (86, 180, 233),  # sky blue
    (204, 121, 167),  # reddish purple
    (0, 158, 115),  # bluish green
    (245, 245, 245),  # white
    (25, 25, 25),  # black
    (148, 103, 189),  # violet
    (166, 118, 29),  # ochre
    (231, 41, 138),  # magenta
    (170, 190, 40),  # olive
    (120, 70, 40),  # brown
)
# A side called after a colour gets that colour: "red" vs "blue" must never collide.
_NAMED_SIDES: dict[str, Colour] = {
    "red": (220, 50, 47),
    "blue": (38, 139, 210),
    "green": (0, 158, 115),
    "white": (245, 245, 245),
    "black": (25, 25, 25),
    "yellow": (240, 228, 66),
    "orange": (240, 150, 30),
    "purple": (148, 103, 189),
    "pink": (204, 121, 167),
    "brown": (120, 70, 40),
    "grey": (150, 150, 150),
    "gray": (150, 150, 150),
    "neutral": (140, 140, 140),
}
NO_SIDE: Colour = (90, 90, 90)

_STATUS_RANK = {"outside": 0, "user": 1, "total_cover": 2, "affected": 3}
_STATUS_WORDS = {"affected": "affected", "total_cover": "total cover", "outside": "outside", "user": "user"}


def status_colour(status: str) -> Colour:
    """Fill colour of a base with ``status`` (unknown statuses: outside grey)."""
    return STATUS_COLOURS.get(status, STATUS_COLOURS["outside"])


def side_colour(side: str | None) -> Colour:
    """A stable ring colour for a side name (same name, same colour, every run)."""
    if side is None or not side.strip():
        return NO_SIDE
    key = side.strip().lower()
    if key in _NAMED_SIDES:
        return _NAMED_SIDES[key]
    return _SIDE_PALETTE[zlib.crc32(key.encode("utf-8")) % len(_SIDE_PALETTE)]


# --------------------------------------------------------------------------- options


@dataclass(frozen=True)
class DrawOptions:
    """What to draw on top of the table and its templates."""

    show_grid: bool = True
    show_names: bool = True
    show_visibility: bool = True
    show_legend: bool = True
    show_rulers: bool = True
    show_title: bool = True
    selected: str | None = None
    hovered: str | None = None
    template_alpha: int = 70


# --------------------------------------------------------------------------- text


_fonts: dict[tuple[int, bool], pygame.font.Font] = {}
_texts: OrderedDict[tuple[str, int, Colour, tuple[int, ...] | None, bool, Colour | None], pygame.Surface] = OrderedDict()
_TEXT_CACHE_SIZE = 1024  # a frame needs a few hundred; more only holds hover texts long gone
_font_files: dict[bool, Path | None] = {}


def _font_file(bold: bool) -> Path | None:
    """A clean sans-serif TTF: ``assets/fonts`` first, then the Noto Sans that pygame-gui ships."""
    if bold in _font_files:
        return _font_files[bold]
    name = "Bold" if bold else "Regular"
    candidates = [Path(__file__).resolve().parent.parent / "assets" / "fonts" / f"NotoSans-{name}.ttf"]
    spec = importlib.util.find_spec("pygame_gui")  # locate without importing the GUI package
    if spec is not None and spec.origin:
        candidates.append(Path(spec.origin).parent / "data" / f"NotoSans-{name}.ttf")
    found = next((c for c in candidates if c.is_file()), None)
    _font_files[bold] = found
    return found


def _font(size: int, bold: bool = False) -> pygame.font.Font:
    font = _fonts.get((size, bold))
    if font is None:
        if not pygame.font.get_init():
            pygame.font.init()
        path = _font_file(bold)
        try:
            font = pygame.font.Font(str(path), size) if path else None
        except (OSError, pygame.error):
            font = None
        if font is None:
            # pygame's built-in font runs small: scale it up to the same cap height.
            font = pygame.font.Font(None, int(size * 1.3))
        _fonts[(size, bold)] = font
    return font


_KEY: Colour = (255, 0, 255)


def _text(
    text: str,
    size: int,
    colour: Colour = TEXT,
    pill: tuple[int, ...] | None = None,
    bold: bool = False,
    bg: Colour | None = None,
) -> pygame.Surface:
    """Rendered text, cached by its arguments.

    ``pill`` puts it on a rounded backing and ``bg`` on a plain one: both give opaque
    (colour-keyed) surfaces, which blit several times faster than per-pixel alpha.
    """
    key = (text, size, colour, pill, bold, bg)
    surf = _texts.get(key)
    if surf is not None:
        _texts.move_to_end(key)
        return surf
    font = _font(size, bold)
    if pill is not None:
        back = (pill[0], pill[1], pill[2])
        glyphs = font.render(text, True, colour, back)
        pad_x = max(3, size // 3)
        surf = pygame.Surface((glyphs.get_width() + 2 * pad_x, glyphs.get_height()))
        surf.fill(_KEY)
        pygame.draw.rect(surf, back, surf.get_rect(), border_radius=max(3, size // 3))
        surf.blit(glyphs, (pad_x, 0))
        surf.set_colorkey(_KEY, pygame.RLEACCEL)
    elif bg is not None:
        surf = font.render(text, True, colour, bg)
    else:
        surf = font.render(text, True, colour)
    _texts[key] = surf
    if len(_texts) > _TEXT_CACHE_SIZE:
        _texts.popitem(last=False)
    return surf


def _blit_centred(surface: pygame.Surface, text: pygame.Surface, x: float, y: float, anchor: str = "center") -> pygame.Rect:
    rect = text.get_rect(**{anchor: (int(x), int(y))})
    surface.blit(text, rect)
    return rect


# --------------------------------------------------------------------------- geometry helpers


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


# --------------------------------------------------------------------------- prepared scene


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


_scenes: OrderedDict[int, _Scene] = OrderedDict()


def _scene(adj: Adjudication) -> _Scene:
    """The prepared world geometry of ``adj``, built once (keyed by identity, holding a reference)."""
    key = id(adj)
    scene = _scenes.get(key)
    if scene is not None and scene.adjudication is adj:
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


def _margins_of(adj: Adjudication, model_id: str) -> list[tuple[str, str, float, bool]]:
    """(template id, status, margin mm, contested) of one model for every template."""
    out = []
    for result in adj.results:
        res = result.resolution
        c = res.coverage.models.get(model_id)
        if c is not None:
            status = "affected" if model_id in res.affected else c.status
            out.append((result.template.id, status, float(c.margin_mm), bool(c.contested)))
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
    name_sizes: dict[int, FloatArray] = field(default_factory=dict)  # font size -> (N, 2) name pill sizes
    names: tuple[Viewport, list[tuple[pygame.Surface, tuple[int, int]]]] | None = None

    def name_size(self, size: int) -> FloatArray:
        """Width and height (px) of every model's name pill at font ``size``."""
        out = self.name_sizes.get(size)
        if out is None:
            font = _font(size, True)
            pad = 2 * max(3, size // 3)
            dims = [font.size(m.label) for m in self.models]
            out = self.name_sizes[size] = np.array([(w + pad, h) for w, h in dims], dtype=float).reshape(-1, 2)
        return out


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
    )


# --------------------------------------------------------------------------- ruleset marks
#
# What a ruleset decided, as the marks its ``marks`` hook returns (tabletop.marks): built
# once per Adjudication, projected and painted every frame. A ruleset without the hook
# costs nothing.


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
    return art


# ---- per frame

_ROSE_MAX_PX = 120.0


def _rose_length(vp: Viewport, rose: Rose) -> float:
    """Length (px) of a rose's arrows: most of the template's radius, within readable bounds."""
    return max(ROSE_MIN_PX, min(_ROSE_MAX_PX, 0.62 * rose.reach * vp.scale))


def _draw_ruleset_tints(overlay: pygame.Surface, vp: Viewport, art: Marks, view: tuple[float, float, float, float]) -> pygame.Rect | None:
    """Translucent boxes (heat per grid square) on the shared overlay; returns the screen area touched."""
    if art.tint_boxes is None or art.tint_bbox is None or not _bbox_visible(art.tint_bbox, view):
        return None
    b = art.tint_boxes
    # Rect fills, clipped to the view: a polygon fill of a square 10 000 px wide (the loupe) costs milliseconds.
    corners = vp.to_screen_array(np.concatenate([b[:, [0, 3]], b[:, [2, 1]]]))
    k = len(b)
    clip = pygame.Rect(vp.rect).inflate(4, 4)
    x0, y0 = np.floor(corners[:k, 0]), np.floor(corners[:k, 1])
    x1, y1 = np.floor(corners[k:, 0]), np.floor(corners[k:, 1])
    touched: pygame.Rect | None = None
    for (ax, ay, bx, by), (_, colour, alpha) in zip(np.stack([x0, y0, x1, y1], axis=-1).tolist(), art.tints):
        rect = pygame.Rect(int(ax), int(ay), int(bx - ax), int(by - ay)).clip(clip)
        if rect.width > 0 and rect.height > 0:
            overlay.fill((*colour, alpha), rect)
            touched = rect if touched is None else touched.union(rect)
    return touched


def _draw_stroke(surface: pygame.Surface, vp: Viewport, stroke: Stroke) -> None:
    pts = vp.to_screen_array(stroke.points)
    if len(pts) < 2:
        return
    if stroke.dashed:
        _dashed(surface, pts, (15, 15, 15), stroke.width + 2, 10, 7, closed=stroke.closed)
        _dashed(surface, pts, stroke.colour, stroke.width, 10, 7, closed=stroke.closed)
        return
    pygame.draw.lines(surface, (15, 15, 15), stroke.closed, pts.tolist(), stroke.width + 3)
    pygame.draw.lines(surface, stroke.colour, stroke.closed, pts.tolist(), stroke.width)


def _draw_ruleset_under(surface: pygame.Surface, vp: Viewport, art: Marks) -> None:
    """Hatching, strokes and grid numbers: under the bases."""
    for segments, colour in art.hatches:
        for a, b in vp.to_screen_array(segments.reshape(-1, 2)).reshape(-1, 2, 2).tolist():
            pygame.draw.line(surface, colour, a, b, 1)
    for stroke in art.strokes:
        if not stroke.above:
            _draw_stroke(surface, vp, stroke)
    if art.cells:
        batch = []
        for cell in art.cells:
            px = cell.side * vp.scale
            if px < 16:
                continue  # too small to read: the heat says it
            size = int(max(10, min(22, px * 0.36)))
            ink = (30, 20, 10) if cell.dark else (250, 250, 250)
            text = _text(cell.text, size, ink, bold=True)
            x, y = vp.to_screen(*cell.centre)
            batch.append((text, (int(x - text.get_width() / 2), int(y - text.get_height() / 2))))
        surface.fblits(batch)


def _draw_ruleset_over(surface: pygame.Surface, vp: Viewport, art: Marks) -> list[pygame.Rect]:
    """Strokes, arrows, links and roses over the bases; returns the rects their text occupies."""
    taken: list[pygame.Rect] = []
    for stroke in art.strokes:
        if stroke.above:
            _draw_stroke(surface, vp, stroke)
    for p in art.arrows:
        a, b = np.array(vp.to_screen(*p.a)), np.array(vp.to_screen(*p.b))
        length = float(np.hypot(*(b - a)))
        if length < 2:
            continue
        u = (b - a) / length
        a2 = a + u * (p.trim_a * vp.scale + (3 if p.trim_a else 0))
        b2 = b - u * (p.trim_b * vp.scale + (3 if p.trim_b else 0))
        if p.head:
            _arrow(surface, tuple(a2), tuple(b2), (15, 15, 15), 7, 20)
            _arrow(surface, tuple(a2), tuple(b2), p.colour, 3, 16)
        else:
            pygame.draw.line(surface, (15, 15, 15), a2, b2, 8)
            pygame.draw.line(surface, p.colour, a2, b2, 4)
        if p.tag:
            mid = (a2 + b2) / 2
            tag = _text(p.tag, 13, (15, 15, 15), p.colour, bold=True)
            taken.append(_blit_centred(surface, tag, float(mid[0]), float(mid[1])))
    for rose in art.roses:
        taken.append(_draw_rose(surface, vp, rose))
    for point, text, colour in art.tags:
        x, y = vp.to_screen(*point)
        taken.append(_blit_centred(surface, _text(text, 14, colour, (15, 15, 15), bold=True), x, y))
    return taken


def _draw_rose(surface: pygame.Surface, vp: Viewport, rose: Rose) -> pygame.Rect:
    cx, cy = vp.to_screen(*rose.centre)
    length = _rose_length(vp, rose)
    disc = 10
    for k in range(1, 7):
        h = math.radians(rose.first - 60.0 * (k - 1))
        ux, uy = math.cos(h), -math.sin(h)  # screen y points down
        hot = k in rose.rolled
        a = (cx + ux * 12, cy + uy * 12)
        b = (cx + ux * length, cy + uy * length)
        _arrow(surface, a, b, (15, 15, 15), 7 if hot else 5, 15)
        _arrow(surface, a, b, ROSE_HOT if hot else ROSE, 4 if hot else 2, 12)
        dx, dy = cx + ux * (length + disc + 2), cy + uy * (length + disc + 2)
        pygame.draw.circle(surface, (15, 15, 15), (dx, dy), disc + 1)
        pygame.draw.circle(surface, ROSE_HOT if hot else (52, 56, 66), (dx, dy), disc)
        _blit_centred(surface, _text(str(k), 14, (15, 15, 15) if hot else TEXT, bold=True), dx, dy)
    reach = int(length + 2 * disc + 4)
    return pygame.Rect(int(cx) - reach, int(cy) - reach, 2 * reach, 2 * reach)


_badges: OrderedDict[tuple[object, ...], pygame.Surface] = OrderedDict()


def _badge(lines: tuple[tuple[str, Colour], ...], accent: Colour) -> pygame.Surface:
    """A label's lines on an opaque rounded panel with an accent border (cached)."""
    key = (lines, accent)
    surf = _badges.get(key)
    if surf is not None:
        _badges.move_to_end(key)
        return surf
    texts = [_text(t, 14 if k == 0 else 13, c, bold=k == 0, bg=BADGE_BACK) for k, (t, c) in enumerate(lines)]
    pad = 5
    width = max(t.get_width() for t in texts) + 2 * pad + 2
    height = sum(t.get_height() for t in texts) + 2 * pad - 2 * (len(texts) - 1)
    surf = pygame.Surface((width, height))
    surf.fill(_KEY)
    pygame.draw.rect(surf, BADGE_BACK, surf.get_rect(), border_radius=6)
    y = pad - 1
    for t in texts:
        surf.blit(t, (pad + 1, y))
        y += t.get_height() - 2
    pygame.draw.rect(surf, accent, surf.get_rect(), 2, border_radius=6)
    surf.set_colorkey(_KEY, pygame.RLEACCEL)
    _badges[key] = surf
    while len(_badges) > 512:
        _badges.popitem(last=False)
    return surf


_SIDES = {
    "right": ("right", "left", "above", "below"),
    "left": ("left", "right", "above", "below"),
    "above": ("above", "below", "right", "left"),
    "below": ("below", "above", "right", "left"),
}


def _candidates(ax: float, ay: float, w: int, h: int, clear: float, prefer: str) -> list[pygame.Rect]:
    """Places for a ``w`` × ``h`` label around a circle of ``clear`` px at (ax, ay), best first."""
    out: list[pygame.Rect] = []
    order = _SIDES.get(prefer, _SIDES["right"])
    for extra in (6.0, 22.0, 44.0, 76.0, 120.0):
        d = clear + extra
        spots = {
            "right": (ax + d, ay - h / 2),
            "left": (ax - d - w, ay - h / 2),
            "above": (ax - w / 2, ay - d - h),
            "below": (ax - w / 2, ay + d),
        }
        for side in order:
            x, y = spots[side]
            out.append(pygame.Rect(int(x), int(y), w, h))
        k = d * 0.72
        for x, y in ((ax + k, ay - k - h), (ax + k, ay + k), (ax - k - w, ay - k - h), (ax - k - w, ay + k)):
            out.append(pygame.Rect(int(x), int(y), w, h))
    return out


@dataclass(eq=False)
class _Obstacles:
    """What a label must not cover: every base and name on screen (arrays) and rects drawn so far."""

    boxes: FloatArray  # (N, 4) screen x0, y0, x1, y1
    rects: list[pygame.Rect]

    def near(self, region: pygame.Rect) -> list[pygame.Rect]:
        """The obstacles meeting ``region``, as rects: one array test, then cheap rect checks per candidate."""
        b = self.boxes
        hit = (b[:, 0] < region.right) & (b[:, 2] > region.left) & (b[:, 1] < region.bottom) & (b[:, 3] > region.top)
        out = [pygame.Rect(int(x0), int(y0), int(x1 - x0), int(y1 - y0)) for x0, y0, x1, y1 in b[hit].tolist()]
        return out + [r for r in self.rects if r.colliderect(region)]


def _overlap(rect: pygame.Rect, others: list[pygame.Rect]) -> int:
    """Area of ``rect`` covered by ``others`` (0: free)."""
    area = 0
    for k in rect.collidelistall(others):
        c = rect.clip(others[k])
        area += c.width * c.height
    return area


def _obstacles(scene: _Scene, vp: Viewport, rects: list[pygame.Rect], names: bool = True) -> _Obstacles:
    """Bases and (when drawn) name pills of every model, as screen boxes, plus ``rects``."""
    if not len(scene.models):
        return _Obstacles(np.zeros((0, 4)), list(rects))
    sc = vp.to_screen_array(scene.centres)
    r = scene.radii * vp.scale
    boxes = [np.stack([sc[:, 0] - r - 2, sc[:, 1] - r - 2, sc[:, 0] + r + 2, sc[:, 1] + r + 2], axis=-1)]
    if names and scene.model_data is not None:
        sizes = np.clip(np.rint(r * 0.8), 12, 16).astype(int)
        shown = r >= 11
        if shown.any():
            dims = np.zeros((len(r), 2))
            for size in np.unique(sizes[shown]).tolist():
                pick = shown & (sizes == size)
                dims[pick] = scene.model_data.name_size(size)[pick]
            x0 = sc[:, 0] - dims[:, 0] / 2
            y0 = sc[:, 1] + r + 3
            boxes.append(np.stack([x0, y0, x0 + dims[:, 0], y0 + dims[:, 1]], axis=-1)[shown])
    return _Obstacles(np.concatenate(boxes), list(rects))


def _draw_ruleset_labels(surface: pygame.Surface, vp: Viewport, scene: _Scene, art: Marks, taken: list[pygame.Rect], bounds: pygame.Rect) -> list[pygame.Rect]:
    """Every badge, each in the first place clear of the text, bases and badges already there; returns their rects."""
    if not art.badges:
        return []
    # Higher priority first (a stable sort: equal priorities keep the ruleset's order).
    badges = sorted(art.badges, key=lambda lab: -lab.priority)
    anchors = vp.to_screen_array([lab.anchor for lab in badges])
    obstacles = _obstacles(scene, vp, taken)
    placed: list[tuple[pygame.Surface, pygame.Rect, tuple[float, float], float]] = []
    for lab, (ax, ay) in zip(badges, anchors.tolist()):
        if not bounds.collidepoint(ax, ay):
            continue
        badge = _badge(lab.lines, lab.accent)
        clear = max(lab.clear * vp.scale, lab.clear_px)
        w, h = badge.get_size()
        best: pygame.Rect | None = None
        best_cost = math.inf
        span = int(clear + 130 + max(w, h))
        near = obstacles.near(pygame.Rect(int(ax) - span, int(ay) - span, 2 * span, 2 * span))
        for rect in _candidates(ax, ay, w, h, clear, lab.prefer):
            if not bounds.contains(rect):
                continue
            cost = _overlap(rect, near)
            if cost < best_cost:
                best, best_cost = rect, cost
                if cost == 0:
                    break
        if best is None:
            best = badge.get_rect(center=(int(ax), int(ay))).clamp(bounds)
        obstacles.rects.append(best)
        placed.append((badge, best, (ax, ay), clear if lab.leader else math.inf))
    # Leaders first, so no badge is crossed by another's line.
    for badge, rect, (ax, ay), clear in placed:
        nx, ny = min(max(ax, rect.left), rect.right), min(max(ay, rect.top), rect.bottom)
        dist = math.hypot(nx - ax, ny - ay)
        if dist > clear + 36:  # nearer than that, the badge reads as the base's own
            sx, sy = ax + (nx - ax) / dist * clear, ay + (ny - ay) / dist * clear
            pygame.draw.line(surface, (15, 15, 15), (sx, sy), (nx, ny), 4)
            pygame.draw.line(surface, (225, 225, 225), (sx, sy), (nx, ny), 2)
    surface.fblits([(badge, rect.topleft) for badge, rect, _, _ in placed])
    return [rect for _, rect, _, _ in placed]


# --------------------------------------------------------------------------- primitives


def _ipoints(points: FloatArray) -> list[tuple[int, int]]:
    return [(int(x), int(y)) for x, y in np.rint(points).tolist()]


def _dashed(
    surface: pygame.Surface,
    points: FloatArray,
    colour: Colour,
    width: int = 2,
    dash: float = 10.0,
    gap: float = 7.0,
    closed: bool = True,
) -> None:
    """A dashed polyline through screen ``points`` (dashes follow curves)."""
    pts = np.asarray(points, dtype=float)
    if closed and len(pts) and not np.array_equal(pts[0], pts[-1]):
        pts = np.vstack([pts, pts[:1]])
    if len(pts) < 2:
        return
    seg = np.hypot(*np.diff(pts, axis=0).T)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    total = float(s[-1])
    period = dash + gap
    if total <= 0:
        return
    if total / period > 3000:  # off-screen giants at loupe zoom: solid is fine
        pygame.draw.lines(surface, colour, False, _ipoints(pts), width)
        return
    starts = np.arange(0.0, total, period)
    ends = np.minimum(starts + dash, total)
    xa, ya = np.interp(starts, s, pts[:, 0]), np.interp(starts, s, pts[:, 1])
    xb, yb = np.interp(ends, s, pts[:, 0]), np.interp(ends, s, pts[:, 1])
    i0 = np.searchsorted(s, starts, side="right")
    i1 = np.searchsorted(s, ends, side="left")
    for k in range(len(starts)):
        run = [(xa[k], ya[k])]
        if i1[k] > i0[k]:
            run.extend(map(tuple, pts[i0[k] : i1[k]]))
        run.append((xb[k], yb[k]))
        pygame.draw.lines(surface, colour, False, run, width)


def _arrow(surface: pygame.Surface, a: tuple[float, float], b: tuple[float, float], colour: Colour, width: int, head: float) -> None:
    ax, ay = a
    bx, by = b
    length = math.hypot(bx - ax, by - ay)
    if length < 1:
        return
    ux, uy = (bx - ax) / length, (by - ay) / length
    head = min(head, length * 0.6)
    base = (bx - ux * head, by - uy * head)
    pygame.draw.line(surface, colour, (ax, ay), base, width)
    left = (base[0] - uy * head * 0.5, base[1] + ux * head * 0.5)
    right = (base[0] + uy * head * 0.5, base[1] - ux * head * 0.5)
    pygame.draw.polygon(surface, colour, [(bx, by), left, right])


#: Beyond this many pixels across, a polygon is clipped to the view before filling:
#: pygame's scanline fill walks every edge on every row, which at loupe zoom costs tens of ms.
_BIG_PX = 5000.0


def _clip_box(vp: Viewport, pad_px: float = 32.0) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = vp.visible_world_bounds()
    pad = pad_px / vp.scale
    return (x0 - pad, y0 - pad, x1 + pad, y1 + pad)


def _is_big(bbox: Sequence[float], vp: Viewport) -> bool:
    return max(bbox[2] - bbox[0], bbox[3] - bbox[1]) * vp.scale > _BIG_PX


def _fill_ring(target: pygame.Surface, vp: Viewport, ring: FloatArray, colour: tuple[int, ...]) -> None:
    """Fill the world polygon ``ring``, clipped to the view when it is huge on screen."""
    lo, hi = ring.min(axis=0), ring.max(axis=0)
    if _is_big((lo[0], lo[1], hi[0], hi[1]), vp):
        for piece in _polys(shapely.clip_by_rect(shapely.make_valid(Polygon(ring)), *_clip_box(vp))):
            _fill_poly(target, vp, piece, colour)
        return
    if len(ring) >= 3:
        pygame.draw.polygon(target, colour, vp.to_screen_array(ring).tolist())


def _fill_poly(overlay: pygame.Surface, vp: Viewport, poly: _Poly, rgba: tuple[int, ...]) -> None:
    if _is_big(poly.bbox, vp):
        for piece in _polys(shapely.clip_by_rect(poly.geom, *_clip_box(vp))):
            if not _is_big(piece.bbox, vp):
                _fill_poly(overlay, vp, piece, rgba)
        return
    if poly.triangles is not None:
        tris = vp.to_screen_array(poly.triangles.reshape(-1, 2)).reshape(-1, 3, 2)
        for tri in tris.tolist():
            pygame.draw.polygon(overlay, rgba, tri)
        return
    pts = vp.to_screen_array(poly.ring)
    if len(pts) >= 3:
        pygame.draw.polygon(overlay, rgba, pts.tolist())


def _bbox_visible(bbox: Sequence[float], view: tuple[float, float, float, float]) -> bool:
    return not (bbox[2] < view[0] or bbox[0] > view[2] or bbox[3] < view[1] or bbox[1] > view[3])


def _screen_rect(vp: Viewport, bbox: Sequence[float], pad: int = 4) -> pygame.Rect:
    (x0, y0), (x1, y1) = vp.to_screen_array([[bbox[0], bbox[3]], [bbox[2], bbox[1]]]).tolist()
    return pygame.Rect(int(x0) - pad, int(y0) - pad, int(x1 - x0) + 2 * pad + 1, int(y1 - y0) + 2 * pad + 1)


# --------------------------------------------------------------------------- layers


_overlays: dict[tuple[int, int], pygame.Surface] = {}


def _overlay_for(size: tuple[int, int]) -> pygame.Surface:
    surf = _overlays.get(size)
    if surf is None:
        _overlays.clear()
        surf = _overlays[size] = pygame.Surface(size, pygame.SRCALPHA)
        surf.fill((0, 0, 0, 0))
    return surf


def _draw_table(surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions, view: tuple[float, float, float, float]) -> None:
    table = _screen_rect(vp, (0.0, 0.0, scene.width, scene.depth), pad=0)
    pygame.draw.rect(surface, TABLE_FILL, table)
    if options.show_grid:
        grid = scene.scenario.table.grid
        if grid:
            step = grid * max(1, math.ceil(12.0 / max(grid * vp.scale, 1e-9)))
        else:
            step = nice_grid_step(vp.scale)
        x_lo, y_lo = max(0.0, view[0]), max(0.0, view[1])
        x_hi, y_hi = min(scene.width, view[2]), min(scene.depth, view[3])
        top, bottom = table.top, table.bottom - 1
        left, right = table.left, table.right - 1
        for axis, lo, hi in ((0, x_lo, x_hi), (1, y_lo, y_hi)):
            if hi < lo:
                continue
            first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
            for k in range(max(first, 1), last + 1):
                pos = k * step
                if pos >= (scene.width if axis == 0 else scene.depth) - 1e-6:
                    continue
                inches = pos / INCH
                colour = GRID_MINOR
                if not grid:
                    if abs(inches / 12 - round(inches / 12)) < 1e-6:
                        colour = GRID_TWELVE
                    elif abs(inches / 6 - round(inches / 6)) < 1e-6:
                        colour = GRID_SIX
                width = 2 if colour == GRID_TWELVE else 1
                # fill() of a thin rect: several times faster than draw.line for long vertical lines.
                if axis == 0:
                    sx = int(round(vp.to_screen(pos, 0.0)[0]))
                    surface.fill(colour, (sx, top, width, bottom - top + 1))
                else:
                    sy = int(round(vp.to_screen(0.0, pos)[1]))
                    surface.fill(colour, (left, sy, right - left + 1, width))
    pygame.draw.rect(surface, TABLE_EDGE, table.inflate(4, 4), 2)


def _draw_terrain(
    surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions, view: tuple[float, float, float, float], blocking: bool
) -> None:
    """Terrain pieces whose ``blocks_los`` equals ``blocking``."""
    if not scene.terrain:
        return
    screen = vp.to_screen_array(scene.terrain_all)
    off = scene.terrain_offsets
    bb = scene.terrain_bbox
    shown = ~((bb[:, 2] < view[0]) | (bb[:, 0] > view[2]) | (bb[:, 3] < view[1]) | (bb[:, 1] > view[3]))
    spacing = _hatch_spacing(vp.scale, 10.0)
    edge_w = 2 if vp.scale > 0.3 else 1
    for i in np.nonzero(shown)[0].tolist():
        t = scene.terrain[i]
        if t.blocks_los != blocking:
            continue
        pts = screen[off[i] : off[i + 1]].tolist()
        big = _is_big(bb[i], vp)
        if t.blocks_los:
            if big:
                _fill_ring(surface, vp, scene.terrain_rings[i], BUILDING_FILL)
            else:
                pygame.draw.polygon(surface, BUILDING_FILL, pts)
            pygame.draw.polygon(surface, BUILDING_EDGE, pts, edge_w + 1)
        else:
            if big:
                _fill_ring(surface, vp, scene.terrain_rings[i], SOFT_FILL)
            else:
                pygame.draw.polygon(surface, SOFT_FILL, pts)
            hatch = _hatch_cached(scene.hatches, i, scene.terrain_polys[i], vp, spacing, -45.0)
            for a, b in vp.to_screen_array(hatch.reshape(-1, 2)).reshape(-1, 2, 2).tolist():
                pygame.draw.line(surface, SOFT_HATCH, a, b, 1)
            pygame.draw.polygon(surface, SOFT_EDGE, pts, edge_w)


def _draw_terrain_hits(surface: pygame.Surface, vp: Viewport, scene: _Scene, view: tuple[float, float, float, float], blocking: bool) -> None:
    """The outline of terrain a template affects (kept off the cached layers)."""
    for i, t in enumerate(scene.terrain):
        if t.blocks_los == blocking and t.id in scene.terrain_hit and _bbox_visible(scene.terrain_bbox[i], view):
            pts = vp.to_screen_array(scene.terrain_rings[i]).tolist()
            pygame.draw.polygon(surface, STATUS_COLOURS["affected"], pts, 2)


def _draw_terrain_names(surface: pygame.Surface, vp: Viewport, scene: _Scene, view: tuple[float, float, float, float]) -> list[pygame.Rect]:
    """Terrain names at their centroids; returns the rects drawn."""
    rects: list[pygame.Rect] = []
    if not scene.terrain:
        return rects
    name_at = tuple(sorted(scene.art.name_at.items())) if scene.art is not None and scene.art.name_at else ()
    key = (vp, scene.terrain, name_at)
    cached = _terrain_names[0] if _terrain_names else None
    if cached is not None and cached[0] == key:
        surface.fblits(cached[1])
        return [pygame.Rect(r) for _, r in cached[1]]
    batch: list[tuple[pygame.Surface, pygame.Rect]] = []
    centres = vp.to_screen_array(scene.terrain_centroids).tolist()
    if name_at:
        for i, t in enumerate(scene.terrain):
            if t.id in scene.art.name_at:
                centres[i] = list(vp.to_screen(*scene.art.name_at[t.id]))
    bb = scene.terrain_bbox
    size = 13 if vp.scale < 1.5 else 16
    for i, t in enumerate(scene.terrain):
        w_px = (bb[i, 2] - bb[i, 0]) * vp.scale
        if w_px < 30 or not _bbox_visible(bb[i], view):
            continue
        label = _text(t.label, size, (235, 235, 235), (30, 30, 34, 150), bold=True)
        if label.get_width() > w_px * 1.6:
            continue
        rect = _blit_centred(surface, label, *centres[i])
        rects.append(rect)
        batch.append((label, pygame.Rect(rect)))
    _terrain_names[:] = [(key, batch)]
    return rects


_terrain_names: list[tuple[tuple[object, ...], list[tuple[pygame.Surface, pygame.Rect]]]] = []


def _disjoint(rects: list[pygame.Rect]) -> list[pygame.Rect]:
    """Rects covering ``rects`` that do not overlap (overlapping ones merged into their union)."""
    out: list[pygame.Rect] = []
    for rect in rects:
        rect = pygame.Rect(rect)
        k = rect.collidelist(out)
        while k >= 0:
            rect.union_ip(out.pop(k))
            k = rect.collidelist(out)
        out.append(rect)
    return out


def _draw_template_fills(overlay: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions, view: tuple[float, float, float, float]) -> list[pygame.Rect]:
    """Translucent template areas on the shared overlay; returns the screen areas touched, disjoint."""
    alpha = max(0, min(255, options.template_alpha))
    touched: list[pygame.Rect] = []
    replaced = scene.art.replaced if scene.art is not None else set()
    for art in scene.templates:
        if not _bbox_visible(art.bbox, view):
            continue
        touched.append(_screen_rect(vp, art.bbox))
        for other in art.also:
            _fill_ring(overlay, vp, art.outline(other, vp.scale), (*TEMPLATE_FILL, alpha // 2))
        if not art.allowed:
            for p in art.fill:
                _fill_poly(overlay, vp, p, (*NULLIFIED, alpha // 2))
            continue
        if options.show_visibility and art.visible is not None:
            for p in art.visible:
                _fill_poly(overlay, vp, p, (*VISIBLE_FILL, alpha))
            for p in art.shadow:
                _fill_poly(overlay, vp, p, (*SHADOW_FILL, min(255, 90 + alpha)))
        elif art.id not in replaced:
            _fill_ring(overlay, vp, art.outline(art.placed, vp.scale), (*TEMPLATE_FILL, alpha))
    # One blit per cluster of templates, not of their bounding box: templates spread over
    # the table would otherwise blend the whole screen through per-pixel alpha.
    return _disjoint(touched)


def _draw_template_lines(surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions, view: tuple[float, float, float, float]) -> None:
    replaced = scene.art.replaced if scene.art is not None else set()
    for art in scene.templates:
        if not _bbox_visible(art.bbox, view):
            continue
        if options.show_visibility and art.allowed and art.shadow_geom is not None and art.shadow:
            spacing = _hatch_spacing(vp.scale, 8.0)
            hatch = _hatch_cached(art.hatches, 0, art.shadow_geom, vp, spacing, 45.0)
            if len(hatch):
                for a, b in vp.to_screen_array(hatch.reshape(-1, 2)).reshape(-1, 2, 2).tolist():
                    pygame.draw.line(surface, SHADOW_HATCH, a, b, 1)
        for g in art.ghosts:
            _dashed(surface, vp.to_screen_array(art.outline(g, vp.scale)), (220, 220, 220), 1, 6, 6)
        for other in art.also:
            pygame.draw.lines(surface, TEMPLATE_EDGE, True, vp.to_screen_array(art.outline(other, vp.scale)).tolist(), 1)
        ring = vp.to_screen_array(art.outline(art.placed, vp.scale))
        if not art.allowed:
            _dashed(surface, ring, NULLIFIED, 3, 12, 8)
            if art.cross is not None:
                for a, b in vp.to_screen_array(art.cross.reshape(-1, 2)).reshape(-1, 2, 2).tolist():
                    pygame.draw.line(surface, NULLIFIED, a, b, 3)
        elif art.id not in replaced:
            pygame.draw.lines(surface, (40, 30, 10), True, ring.tolist(), 4)
            pygame.draw.lines(surface, TEMPLATE_EDGE, True, ring.tolist(), 2)


def _draw_scatter(surface: pygame.Surface, vp: Viewport, scene: _Scene) -> None:
    """Original aim (an X) to final point, as an arrow above the bases it crosses."""
    segments = [seg for art in scene.templates for seg in art.paths]
    for segment in segments:
        (ax, ay), end = vp.to_screen_array(segment).tolist()
        for colour, width, head in (((10, 10, 10), 7, 22), (SCATTER, 3, 18)):
            _arrow(surface, (ax, ay), end, colour, width, head)
        for colour, width in (((10, 10, 10), 5), (SCATTER, 2)):
            pygame.draw.line(surface, colour, (ax - 7, ay - 7), (ax + 7, ay + 7), width)
            pygame.draw.line(surface, colour, (ax - 7, ay + 7), (ax + 7, ay - 7), width)


def _draw_focus(surface: pygame.Surface, vp: Viewport, scene: _Scene, view: tuple[float, float, float, float]) -> None:
    replaced = scene.art.replaced if scene.art is not None else set()
    for art in scene.templates:
        if not _bbox_visible(art.bbox, view):
            continue
        p = art.placed
        fx, fy = vp.to_screen(*p.focus)
        if p.shape.kind != "circle" and art.id not in replaced:  # a circle's axis changes nothing it covers
            h = math.radians(p.heading)
            reach = p.shape.reach * 0.92
            ex, ey = vp.to_screen(p.focus[0] + reach * math.cos(h), p.focus[1] + reach * math.sin(h))
            head = max(8.0, min(16.0, vp.length_to_screen(reach) * 0.15))
            _arrow(surface, (fx, fy), (ex, ey), (20, 20, 20), 4, head + 2)
            _arrow(surface, (fx, fy), (ex, ey), TEMPLATE_EDGE, 2, head)
        if art.id in replaced:
            continue  # the ruleset marks its own origin (Ground Zero)
        arm = 11
        for colour, width in (((10, 10, 10), 5), ((255, 255, 255), 2)):
            pygame.draw.line(surface, colour, (fx - arm, fy), (fx + arm, fy), width)
            pygame.draw.line(surface, colour, (fx, fy - arm), (fx, fy + arm), width)
        pygame.draw.circle(surface, (10, 10, 10), (fx, fy), 6, 3)
        pygame.draw.circle(surface, (255, 255, 255), (fx, fy), 5, 1)


def _circle_ring_screen(cx: float, cy: float, r: float, n: int = 40) -> FloatArray:
    a = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(a), cy + r * np.sin(a)], axis=-1)


def _draw_models(surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions) -> None:
    n = len(scene.models)
    if not n:
        return
    left, top, w, h = vp.rect
    sc = vp.to_screen_array(scene.centres)
    r = scene.radii * vp.scale
    shown = (sc[:, 0] + r >= left) & (sc[:, 0] - r <= left + w) & (sc[:, 1] + r >= top) & (sc[:, 1] - r <= top + h)
    rad = np.radians(scene.facing)
    unit = np.stack([np.cos(rad), -np.sin(rad)], axis=-1)
    tick_a = sc + unit * (r * 0.45)[:, None]
    tick_b = sc + unit * (r - np.clip(r * 0.12, 1, 3))[:, None]
    ring_w = np.clip(np.rint(r * 0.2), 1, 5).astype(int)
    sc_l, r_l, a_l, b_l, rw_l = sc.tolist(), r.tolist(), tick_a.tolist(), tick_b.tolist(), ring_w.tolist()
    round_mask = scene.round_mask
    fills, rings = scene.fills, scene.rings
    # Every non-round outline in one projection; zoomed-in ones get finer rings on demand.
    outline_px: dict[int, FloatArray] = {}
    if scene.outline_index:
        projected = vp.to_screen_array(scene.outline_all)
        for k, i in enumerate(scene.outline_index):
            outline_px[i] = projected[scene.outline_offsets[k] : scene.outline_offsets[k + 1]]

    def outline(i: int) -> FloatArray:
        return _model_outline_px(scene, vp, i, outline_px)

    def grown(i: int, px: float) -> FloatArray:
        return _grown(outline(i), sc_l[i], px)

    draw_circle, draw_poly, draw_line = pygame.draw.circle, pygame.draw.polygon, pygame.draw.line
    # A view drawn twice in a row (a template or a model is being dragged): round bases
    # become cached sprites, blitted in one call. A new view (panning) draws directly.
    # Sprites are keyed by what they show, so a dragged model leaves the others' intact.
    sprites = None
    if _sprites_view and _sprites_view[0] == vp:
        sprites = _sprites
        if len(sprites) > 8 * n + 64:
            sprites.clear()
    else:
        _sprites.clear()
        _sprites_view[:] = [vp]
    facing_l = scene.facing.tolist()
    batch: list[tuple[pygame.Surface, tuple[int, int]]] = []
    for i in np.nonzero(shown)[0].tolist():
        c, radius = sc_l[i], r_l[i]
        if radius < 1.5:
            if batch:
                surface.fblits(batch)
                batch.clear()
            draw_circle(surface, fills[i], c, 2)
            continue
        # Left of or above the surface origin pygame rounds coordinates another way, so a
        # sprite would be a pixel off: those bases are drawn directly.
        if sprites is not None and round_mask[i] and radius < _SPRITE_MAX_PX and min(c) - radius > 4:
            key = (c[0], c[1], radius, facing_l[i], fills[i], rings[i])
            sprite = sprites.get(key)
            if sprite is None:
                sprite = sprites[key] = _base_sprite(c, radius, fills[i], rings[i], rw_l[i], a_l[i], b_l[i])
            batch.append(sprite)
            continue
        if batch:  # keep the painter's order of overlapping bases
            surface.fblits(batch)
            batch.clear()
        if round_mask[i] and radius < 4000:
            draw_circle(surface, fills[i], c, radius)
            draw_circle(surface, rings[i], c, radius, rw_l[i])
        else:
            pts = outline(i)
            if radius > _BIG_PX / 2:
                _fill_ring(surface, vp, _world_outline(scene, i, vp), fills[i])
                draw_poly(surface, rings[i], pts.tolist(), rw_l[i])
            else:
                # Ring colour, then the fill shrunk inside it: two fills beat one wide outline.
                draw_poly(surface, rings[i], pts.tolist())
                draw_poly(surface, fills[i], _grown(pts, c, -rw_l[i]).tolist())
        if radius >= 5:
            draw_line(surface, (20, 20, 20), a_l[i], b_l[i], max(1, rw_l[i]))
    if batch:
        surface.fblits(batch)
    # Halos after every base so a neighbour never hides them.
    halos: list[tuple[pygame.Surface, tuple[int, int]]] = []
    for i in np.nonzero(shown & scene.contested)[0].tolist():
        c, radius = sc_l[i], max(r_l[i], 3.0)
        halo_key = ("halo", c[0], c[1], radius, facing_l[i], scene.models[i].base)
        halo = sprites.get(halo_key) if sprites is not None else None
        if halo is not None:
            halos.append(halo)
            continue
        if round_mask[i]:
            ring = _circle_ring_screen(c[0], c[1], radius + 4, max(24, min(720, int(radius))))
        else:
            ring = grown(i, 4)
        if sprites is not None and radius < _SPRITE_MAX_PX and float(ring.min()) > 4:
            halo = sprites[halo_key] = _halo_sprite(ring)
            halos.append(halo)
            continue
        if halos:
            surface.fblits(halos)
            halos.clear()
        _draw_halo(surface, ring)
    if halos:
        surface.fblits(halos)


_SPRITE_MAX_PX = 64.0
_sprites: dict[tuple[object, ...], tuple[pygame.Surface, tuple[int, int]]] = {}
_sprites_view: list[Viewport] = []


def _draw_halo(surface: pygame.Surface, ring: FloatArray) -> None:
    """The contested ring: solid, with dashes over it."""
    pygame.draw.lines(surface, CONTESTED_COLOUR, True, ring.tolist(), 3)
    _dashed(surface, ring, CONTESTED_DASH, 3, 5, 6)


def _halo_sprite(ring: FloatArray) -> tuple[pygame.Surface, tuple[int, int]]:
    """``_draw_halo`` of screen ``ring`` on a colour key, and where to blit it."""
    x0, y0 = (math.floor(v) - 4 for v in ring.min(axis=0).tolist())
    x1, y1 = (math.ceil(v) + 4 for v in ring.max(axis=0).tolist())
    surf = pygame.Surface((x1 - x0 + 1, y1 - y0 + 1))
    surf.fill(_KEY)
    _draw_halo(surf, ring - np.array([x0, y0], dtype=float))
    surf.set_colorkey(_KEY, pygame.RLEACCEL)
    return surf, (x0, y0)


def _base_sprite(
    c: Sequence[float], radius: float, fill: Colour, ring: Colour, ring_w: int, tick_a: Sequence[float], tick_b: Sequence[float]
) -> tuple[pygame.Surface, tuple[int, int]]:
    """A round base as drawn by ``_draw_models``, on a colour key, and where to blit it.

    Drawn at the same sub-pixel offset, so the blit gives exactly the pixels a direct
    draw would (a test compares them).
    """
    half = math.ceil(radius) + 3
    ix, iy = math.floor(c[0]), math.floor(c[1])
    dx, dy = half - ix, half - iy
    surf = pygame.Surface((2 * half + 2, 2 * half + 2))
    surf.fill(_KEY)
    centre = (c[0] + dx, c[1] + dy)
    pygame.draw.circle(surf, fill, centre, radius)
    pygame.draw.circle(surf, ring, centre, radius, ring_w)
    if radius >= 5:
        pygame.draw.line(surf, (20, 20, 20), (tick_a[0] + dx, tick_a[1] + dy), (tick_b[0] + dx, tick_b[1] + dy), max(1, ring_w))
    surf.set_colorkey(_KEY, pygame.RLEACCEL)
    return surf, (ix - half, iy - half)


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


def _draw_marks(surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions) -> None:
    """Selection and hover: drawn on top of the cached layer, so moving the mouse is cheap."""
    for mark, colour, width in ((options.hovered, HOVER_COLOUR, 2), (options.selected, SELECT_COLOUR, 3)):
        if mark is None:
            continue
        i = scene.model_index.get(mark, -1)
        if i >= 0:
            m = scene.models[i]
            c = vp.to_screen(m.x, m.y)
            r = scene.radii[i] * vp.scale
            pad = 9 if scene.contested[i] else 4
            if scene.round_mask[i] and r < 4000:
                pygame.draw.circle(surface, colour, c, r + pad + width, width)
            else:
                pygame.draw.polygon(surface, colour, _grown(_model_outline_px(scene, vp, i), c, pad + width).tolist(), width)
            continue
        for k, t in enumerate(scene.terrain):
            if t.id == mark:
                pts = vp.to_screen_array(scene.terrain_rings[k]).tolist()
                pygame.draw.polygon(surface, colour, pts, width)
        for art in scene.templates:
            if art.id == mark:
                ring = vp.to_screen_array(art.outline(art.placed, vp.scale)).tolist()
                pygame.draw.lines(surface, colour, True, ring, width)
    if options.hovered is not None:
        _draw_hover_margins(surface, vp, scene, options.hovered)


def _world_outline(scene: _Scene, i: int, vp: Viewport) -> FloatArray:
    m = scene.models[i]
    return base_outline(m.base, m.x, m.y, m.facing, segments=_base_segments(scene.radii[i], vp.scale))


# Name pills by (label, font size): the same for every scene, so a drag does not re-look them up in the text cache.
_name_labels: dict[tuple[str, int], pygame.Surface] = {}


def _draw_model_names(surface: pygame.Surface, vp: Viewport, scene: _Scene) -> None:
    if not scene.models:
        return
    scene.names_drawn = True
    md = scene.model_data
    if md is not None and md.names is not None and md.names[0] == vp:
        surface.fblits(md.names[1])
        return
    left, top, w, h = vp.rect
    sc = vp.to_screen_array(scene.centres)
    r = scene.radii * vp.scale
    shown = (r >= 11) & (sc[:, 0] >= left - 60) & (sc[:, 0] <= left + w + 60) & (sc[:, 1] + r >= top - 30) & (sc[:, 1] - r <= top + h)
    sizes = np.clip(np.rint(r * 0.8), 12, 16).astype(int).tolist()
    sc_l, r_l = sc.tolist(), r.tolist()
    pill = (14, 16, 20)
    models = scene.models
    labels = _name_labels
    if len(labels) > 4 * len(models) + 256:
        labels.clear()
    batch = []
    for i in np.nonzero(shown)[0].tolist():
        key = (models[i].label, sizes[i])
        label = labels.get(key)
        if label is None:
            label = labels[key] = _text(models[i].label, sizes[i], TEXT, pill, bold=True)
        x, y = sc_l[i]
        batch.append((label, (int(x - label.get_width() / 2), int(y + r_l[i] + 3))))
    surface.fblits(batch)
    if md is not None:
        md.names = (vp, batch)  # names depend on the models and the view only


def _draw_template_labels(surface: pygame.Surface, vp: Viewport, scene: _Scene, view: tuple[float, float, float, float]) -> list[pygame.Rect]:
    """Each template's name over its top; returns the rects drawn."""
    left, top, w, h = vp.rect
    rects: list[pygame.Rect] = []
    shown = [art for art in scene.templates if _bbox_visible(art.bbox, view)]
    rings = []
    for art in shown:
        true = scene.art.outlines.get(art.id) if scene.art is not None else None
        rings.append(vp.to_screen_array(true if true is not None else art.outline(art.placed, vp.scale)))
    tops = [_top_middle(ring) for ring in rings]
    # Ruleset tables crowd their templates with badges: keep the names off bases there. Plain
    # tables (300 models while dragging) only stack coincident names, which costs nothing.
    bases = _obstacles(scene, vp, [], names=scene.names_drawn) if scene.art is not None else None
    for art, ring, (x0, y0) in zip(shown, rings, tops):
        colour = NULLIFIED if not art.allowed else (255, 236, 170)
        title = _text(art.label, 19, colour, (14, 16, 20, 200), bold=True)
        sub = _text(art.sublabel, 13, TEXT_DIM, (14, 16, 20, 200))
        block_h = title.get_height() + sub.get_height()
        half = max(title.get_width(), sub.get_width()) / 2
        # Over the template's top, moved along it or up when a base or another template's name is there.
        x, y = x0, y0
        span_x, span_y = int(3 * half + 30), int(4 * (block_h + 2) + 8)
        near = rects if bases is None else bases.near(pygame.Rect(int(x0) - span_x, int(y0) - span_y, 2 * span_x, span_y + 8)) + rects
        for dy, dx in ((0, 0), (0, 1), (0, -1), (1, 0), (1, 1), (1, -1), (2, 0), (2, 1), (2, -1), (3, 0)):
            cx = x0 + dx * (half + 24)
            cy = max(top + block_h + 2, y0 - 4 - dy * (block_h + 2))
            cx = min(max(cx, left + half + 2), left + w - half - 2)
            block = pygame.Rect(int(cx - half), int(cy - block_h), int(2 * half), block_h)
            if block.collidelist(near) < 0:
                x, y = cx, cy
                break
        else:
            y = max(top + block_h + 2, y0 - 4)
            x = min(max(x0, left + half + 2), left + w - half - 2)
            # Templates laid on the same spot (a Burst): stack their names instead of overprinting.
            for _ in range(len(shown)):
                block = pygame.Rect(int(x - half), int(y - block_h), int(2 * half), block_h)
                if block.collidelist(rects) < 0 or y - block_h - 2 < top + block_h:
                    break
                y -= block_h + 2
        rects.append(_blit_centred(surface, sub, x, y, "midbottom"))
        rects.append(_blit_centred(surface, title, x, y - sub.get_height(), "midbottom"))
        if not art.allowed:
            rects.append(_draw_refusal(surface, vp, scene, art, ring, rects))
    return rects


def _top_middle(ring: FloatArray) -> tuple[float, float]:
    """The screen top of a ring; the middle of its top edge when that edge is flat (a square blast)."""
    k = int(np.argmin(ring[:, 1]))
    x, y = float(ring[k, 0]), float(ring[k, 1])
    xs = [x]
    for j in (k - 1, (k + 1) % len(ring)):
        if abs(float(ring[j, 1]) - y) <= 0.5 and float(ring[j, 0]) != x:
            xs.append(float(ring[j, 0]))
    return (sum(xs) / len(xs), y)


def _draw_refusal(surface: pygame.Surface, vp: Viewport, scene: _Scene, art: _TemplateArt, ring: FloatArray, taken: list[pygame.Rect]) -> pygame.Rect:
    """NULLIFIED / NOT ALLOWED and the reason, under the template but clear of the bases and names there."""
    word = "NULLIFIED" if art.reason and "nullif" in art.reason.lower() else "NOT ALLOWED"
    big = _text(word, 22, (255, 255, 255), (*NULLIFIED, 225), bold=True)
    parts = [big]
    if art.reason:
        reason = art.reason if len(art.reason) <= 60 else art.reason[:57] + "..."
        parts.append(_text(reason, 14, TEXT, (14, 16, 20, 220)))
    w = max(p.get_width() for p in parts)
    h = sum(p.get_height() for p in parts) + 2 * (len(parts) - 1)
    k = int(np.argmax(ring[:, 1]))
    ax, ay = float(ring[k, 0]), float(ring[k, 1])
    bounds = pygame.Rect(vp.rect)
    obstacles = _obstacles(scene, vp, taken, names=scene.names_drawn)
    # Below the template first, so the bases it would have hit stay visible.
    choices = [pygame.Rect(int(ax - w / 2), int(ay + 6), w, h), *_candidates(ax, ay, w, h, 0.0, "below")]
    inside = [r for r in choices if bounds.contains(r)] or [pygame.Rect(int(ax - w / 2), int(ay + 6), w, h).clamp(bounds)]
    near = obstacles.near(pygame.Rect(int(ax) - 200 - w, int(ay) - 200 - h, 400 + 2 * w, 400 + 2 * h))
    spot = next((r for r in inside if r.collidelist(near) < 0), inside[0])
    y = spot.top
    for p in parts:
        _blit_centred(surface, p, spot.centerx, y, "midtop")
        y += p.get_height() + 2
    return spot


def _draw_hover_margins(surface: pygame.Surface, vp: Viewport, scene: _Scene, hovered: str) -> None:
    i = scene.model_index.get(hovered)
    if i is not None:
        m = scene.models[i]
        lines = [(m.label if m.label == m.id else f"{m.label} ({m.id})", 16, TEXT)]
        for tid, status, margin, contested in _margins_of(scene.adjudication, m.id):
            text = f"{tid}: {_STATUS_WORDS.get(status, status)}  {margin:+.3f} mm" + ("  CONTESTED" if contested else "")
            lines.append((text, 14, CONTESTED_COLOUR if contested else TEXT_DIM))
        surfs = [_text(t, sz, c, bold=k == 0) for k, (t, sz, c) in enumerate(lines)]
        width = max(s.get_width() for s in surfs) + 12
        height = sum(s.get_height() for s in surfs) + 8
        sx, sy = vp.to_screen(m.x, m.y)
        r = m.base.bounding_radius * vp.scale
        left, top, w, h = vp.rect
        x = sx + r + 14
        if x + width > left + w:
            x = sx - r - 14 - width
        y = min(max(top, sy - height / 2), top + h - height)
        box = pygame.Surface((width, height), pygame.SRCALPHA)
        pygame.draw.rect(box, PANEL, box.get_rect(), border_radius=6)
        pygame.draw.rect(box, (120, 120, 120, 255), box.get_rect(), 1, border_radius=6)
        yy = 4
        for s in surfs:
            box.blit(s, (6, yy))
            yy += s.get_height()
        surface.blit(box, (int(x), int(y)))


RULER_BAND = 22  # height of the bottom ruler
RULER_SIDE = 36  # width of the left ruler (labels sit inside it)


def _draw_rulers(surface: pygame.Surface, vp: Viewport, scene: _Scene, view: tuple[float, float, float, float]) -> list[pygame.Rect]:
    """Inch rulers along the bottom and left edges; returns every rect drawn (all opaque)."""
    drawn: list[pygame.Rect] = []
    left, top, w, h = vp.rect
    tick_in = nice_grid_step(vp.scale, 7.0) / INCH
    label_x = max(tick_in, nice_grid_step(vp.scale, 44.0) / INCH)
    label_y = max(tick_in, nice_grid_step(vp.scale, 26.0) / INCH)
    # Zoomed in on a deep table, '13.75"' would not fit in the side ruler: label coarser steps.
    deepest = math.floor(min(scene.depth, view[3]) / INCH)
    while label_y < 1 and _font(13).size(_inch_label(deepest + 1 - label_y))[0] > RULER_SIDE - 10:
        label_y *= 2
    x_edge, y_edge = vp.to_screen(0.0, 0.0)
    x_end, y_end = vp.to_screen(scene.width, scene.depth)
    # Pinned to the window edge when the table edge scrolls away.
    by = int(min(max(y_edge + 3, top), top + h - RULER_BAND))
    bx = int(max(min(x_edge - 3 - RULER_SIDE, left + w - RULER_SIDE), left))
    x_lo, x_hi = max(0.0, view[0]), min(scene.width, view[2])
    y_lo, y_hi = max(0.0, view[1]), min(scene.depth, view[3])
    back = (20, 22, 26)
    fg = (220, 220, 210)
    if x_hi >= x_lo:
        sx0 = max(left, int(x_edge))
        sx1 = min(left + w, int(x_end) + 1)
        drawn.append(pygame.draw.rect(surface, back, (sx0, by, max(0, sx1 - sx0), RULER_BAND)))
        k0, k1 = math.ceil(x_lo / INCH / tick_in - 1e-9), math.floor(x_hi / INCH / tick_in + 1e-9)
        comb: list[tuple[int, int]] = []
        for k in range(k0, k1 + 1):
            inches = k * tick_in
            sx = int(round(vp.to_screen(inches * INCH, 0.0)[0]))
            major = abs(inches / label_x - round(inches / label_x)) < 1e-6
            comb += [(sx, by), (sx, by + (7 if major else 4)), (sx, by)]
            if major:
                drawn.append(_blit_centred(surface, _text(_inch_label(inches), 13, fg, bg=back), sx, by + 7, "midtop"))
        if len(comb) >= 2:
            pygame.draw.lines(surface, fg, False, comb, 1)
    if y_hi >= y_lo:
        sy0 = max(top, int(y_end))
        sy1 = min(top + h, int(y_edge) + 1)
        drawn.append(pygame.draw.rect(surface, back, (bx, sy0, RULER_SIDE, max(0, sy1 - sy0))))
        k0, k1 = math.ceil(y_lo / INCH / tick_in - 1e-9), math.floor(y_hi / INCH / tick_in + 1e-9)
        comb = []
        edge = bx + RULER_SIDE - 1
        for k in range(k0, k1 + 1):
            inches = k * tick_in
            sy = int(round(vp.to_screen(0.0, inches * INCH)[1]))
            major = abs(inches / label_y - round(inches / label_y)) < 1e-6
            comb += [(edge, sy), (edge - (7 if major else 4), sy), (edge, sy)]
            if major:
                drawn.append(_blit_centred(surface, _text(_inch_label(inches), 13, fg, bg=back), edge - 8, sy, "midright"))
        if len(comb) >= 2:
            pygame.draw.lines(surface, fg, False, comb, 1)
    return drawn


def _inch_label(inches: float) -> str:
    if abs(inches - round(inches)) < 1e-9:
        return f'{int(round(inches))}"'
    return f'{inches:g}"'


def _draw_title(surface: pygame.Surface, vp: Viewport, scene: _Scene, show_rulers: bool) -> pygame.Rect:
    from tabletop import rulesets

    s = scene.scenario
    adj = scene.adjudication
    try:
        ruleset = rulesets.get(s.ruleset).title
    except Exception:
        ruleset = s.ruleset
    n_aff = len({m for r in adj.results if r.resolution.allowed for m in r.resolution.affected})
    templates = len(adj.results)
    line = (
        f"ruleset: {s.ruleset} ({ruleset})  |  {templates} template{'s' if templates != 1 else ''}, "
        f"{n_aff} model{'s' if n_aff != 1 else ''} affected  |  tolerance {adj.tolerance_mm:g} mm  |  seed {adj.seed}"
    )
    left, top, _, _ = vp.rect
    if show_rulers:
        left += RULER_SIDE
    t1 = _text(s.title or "Untitled table", 24, (250, 250, 250), (14, 16, 20, 190), bold=True)
    t2 = _text(line, 14, TEXT_DIM, (14, 16, 20, 190))
    r1 = surface.blit(t1, (left + 8, top + 6))
    r2 = surface.blit(t2, (left + 8, top + 8 + t1.get_height()))
    return r1.union(r2)


_legends: OrderedDict[tuple[object, ...], pygame.Surface] = OrderedDict()


def _legend_heat(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    for k in range(box.width):
        c = heat_colour(2 ** (4 * k / max(1, box.width - 1)), 16)
        pygame.draw.line(surf, c, (box.left + k, box.top), (box.left + k, box.bottom - 1))
    pygame.draw.rect(surf, (20, 20, 20), box, 1)


def _legend_hatch(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    pygame.draw.rect(surf, BLOCKED_FILL, box)
    surf.set_clip(box)
    for k in range(-16, box.width, 5):
        pygame.draw.line(surf, colour, (box.left + k, box.bottom), (box.left + k + 16, box.top), 1)
    surf.set_clip(None)


def _legend_outline(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    pygame.draw.rect(surf, (15, 15, 15), box, 4)
    pygame.draw.rect(surf, colour, box.inflate(-1, -1), 2)


def _legend_rose(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    c = box.center
    for k in range(6):
        a = math.radians(90 - 60 * k)
        end = (c[0] + 9 * math.cos(a), c[1] - 9 * math.sin(a))
        pygame.draw.line(surf, colour if k == 1 else ROSE, c, end, 2 if k == 1 else 1)


def _legend_line(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    pygame.draw.line(surf, (15, 15, 15), box.midleft, box.midright, 5)
    pygame.draw.line(surf, colour, box.midleft, box.midright, 3)


def _legend_dash(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    for x in range(box.left, box.right, 8):
        pygame.draw.line(surf, colour, (x, box.centery), (min(x + 5, box.right), box.centery), 2)


def _legend_swatch(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    pygame.draw.rect(surf, BADGE_BACK, box, border_radius=4)
    pygame.draw.rect(surf, colour, box, 2, border_radius=4)


def _legend_arrow(surf: pygame.Surface, box: pygame.Rect, colour: Colour) -> None:
    _arrow(surf, box.midleft, box.midright, colour, 3, 9)


_LEGEND_MARKS: dict[str, Callable[[pygame.Surface, pygame.Rect, Colour], None]] = {
    "heat": _legend_heat,
    "hatch": _legend_hatch,
    "outline": _legend_outline,
    "rose": _legend_rose,
    "line": _legend_line,
    "link": _legend_line,
    "dash": _legend_dash,
    "swatch": _legend_swatch,
    "arrow": _legend_arrow,
}


def _legend_surface(scene: _Scene, scale: float) -> pygame.Surface:
    bar_in = 1.0
    for inches in (0.25, 0.5, 1, 2, 3, 6, 12, 24, 48):
        bar_in = inches
        if inches * INCH * scale >= 70:
            break
    bar_px = int(round(bar_in * INCH * scale))
    has_shadow = any(a.shadow for a in scene.templates)
    has_null = any(not a.allowed for a in scene.templates)
    extra = tuple(scene.art.legend) if scene.art is not None else ()
    key = (scene.sides, bar_px, bar_in, has_shadow, has_null, bool(scene.terrain_hit), extra)
    surf = _legends.get(key)
    if surf is not None:
        return surf
    rows: list[tuple[str, str, Colour]] = [
        ("fill", "affected", STATUS_COLOURS["affected"]),
        ("fill", "total cover", STATUS_COLOURS["total_cover"]),
        ("fill", "outside", STATUS_COLOURS["outside"]),
        ("fill", "user (attacker)", STATUS_COLOURS["user"]),
        ("contested", "contested (within tolerance)", CONTESTED_COLOUR),
    ]
    if has_shadow:
        rows.append(("shadow", "hidden from the blast focus", SHADOW_FILL))
    if has_null:
        rows.append(("null", "not allowed / nullified", NULLIFIED))
    if scene.terrain_hit:
        rows.append(("terrain", "terrain under a template", STATUS_COLOURS["affected"]))
    rows.extend(extra)
    side_rows = [("side", side if side is not None else "(no side)", side_colour(side)) for side in scene.sides[:12]]
    size = 14
    pad, sw, gap = 10, 22, 8
    head = _text("Legend", 16, (250, 250, 250), bold=True)
    labels = [_text(text, size, TEXT) for _, text, _ in rows + side_rows]
    sides_head = _text("Sides", 14, TEXT_DIM, bold=True) if side_rows else None
    bar_label = _text(f"{_inch_label(bar_in)} ({bar_in * INCH:g} mm)", 13, TEXT_DIM)
    row_h = 24
    width = max([head.get_width(), bar_px + 10 + bar_label.get_width()] + [sw + gap + s.get_width() for s in labels]) + 2 * pad
    height = pad + head.get_height() + 6 + row_h * len(rows) + (sides_head.get_height() + 6 if sides_head else 0) + row_h * len(side_rows) + 30 + pad
    surf = pygame.Surface((width, height), pygame.SRCALPHA)
    pygame.draw.rect(surf, PANEL, surf.get_rect(), border_radius=8)
    pygame.draw.rect(surf, (110, 110, 110, 255), surf.get_rect(), 1, border_radius=8)
    y = pad
    surf.blit(head, (pad, y))
    y += head.get_height() + 6

    def row(kind: str, colour: Colour, label: pygame.Surface, y: int) -> None:
        cx, cy = pad + sw // 2, y + row_h // 2
        if kind == "fill":
            pygame.draw.circle(surf, colour, (cx, cy), 9)
            pygame.draw.circle(surf, (20, 20, 20), (cx, cy), 9, 1)
        elif kind == "contested":
            pygame.draw.circle(surf, STATUS_COLOURS["outside"], (cx, cy), 6)
            ring = _circle_ring_screen(cx, cy, 9.5, 24)
            pygame.draw.lines(surf, CONTESTED_COLOUR, True, ring.tolist(), 3)
            _dashed(surf, ring, CONTESTED_DASH, 3, 4, 4)
        elif kind == "shadow":
            box = pygame.Rect(pad, cy - 8, sw, 16)
            pygame.draw.rect(surf, (*SHADOW_FILL, 255), box)
            surf.set_clip(box)
            for k in range(-16, sw, 5):
                pygame.draw.line(surf, SHADOW_HATCH, (pad + k, cy + 8), (pad + k + 16, cy - 8), 1)
            surf.set_clip(None)
            pygame.draw.rect(surf, (*TEMPLATE_EDGE, 255), box, 1)
        elif kind == "null":
            box = pygame.Rect(pad, cy - 8, sw, 16)
            pygame.draw.rect(surf, colour, box, 2)
            pygame.draw.line(surf, colour, box.topleft, box.bottomright, 2)
            pygame.draw.line(surf, colour, box.bottomleft, box.topright, 2)
        elif kind == "terrain":
            box = pygame.Rect(pad, cy - 8, sw, 16)
            pygame.draw.rect(surf, BUILDING_FILL, box)
            pygame.draw.rect(surf, colour, box, 2)
        elif kind in _LEGEND_MARKS:
            _LEGEND_MARKS[kind](surf, pygame.Rect(pad, cy - 8, sw, 16), colour)
        else:  # side ring
            pygame.draw.circle(surf, (200, 200, 200), (cx, cy), 9)
            pygame.draw.circle(surf, colour, (cx, cy), 9, 4)
        surf.blit(label, (pad + sw + gap, y + (row_h - label.get_height()) // 2))

    for (kind, _, colour), label in zip(rows, labels):
        row(kind, colour, label, y)
        y += row_h
    if sides_head is not None:
        y += 4
        surf.blit(sides_head, (pad, y))
        y += sides_head.get_height() + 2
        for (kind, _, colour), label in zip(side_rows, labels[len(rows) :]):
            row(kind, colour, label, y)
            y += row_h
    y += 10
    pygame.draw.rect(surf, (240, 240, 240), (pad, y, bar_px, 6))
    for k in range(0, 3):
        xx = pad + int(round(k * bar_px / 2))
        pygame.draw.line(surf, (240, 240, 240), (xx, y - 3), (xx, y + 8), 1)
    surf.blit(bar_label, (pad + bar_px + 10, y + 3 - bar_label.get_height() // 2))
    _legends[key] = surf
    while len(_legends) > 16:
        _legends.popitem(last=False)
    return surf


def _reset_caches() -> None:
    """Forget every cached layer, sprite and prepared scene (tests compare against a fresh draw)."""
    for cache in (_layer, _board, _buildings, _rulers, _terrain_names, _terrain_data, _model_data, _sprites_view):
        cache.clear()
    _sprites.clear()
    _name_labels.clear()
    _scenes.clear()
    _coverage_art.clear()


# --------------------------------------------------------------------------- public API


@dataclass(eq=False)
class _Layer:
    """The last frame without selection and hover, reused while nothing else changes."""

    surface: pygame.Surface | None
    scene: _Scene
    key: tuple[object, ...]
    filled: bool = False


_layer: list[_Layer] = []


def draw_scene(surface: pygame.Surface, viewport: Viewport, adjudication: Adjudication, options: DrawOptions = DrawOptions()) -> None:
    """Draw the table, its terrain, templates and models of ``adjudication`` into ``viewport.rect``."""
    scene = _scene(adjudication)
    vp = viewport
    clip = pygame.Rect(vp.rect).clip(surface.get_rect())
    if clip.width <= 0 or clip.height <= 0:
        return
    static = replace(options, selected=None, hovered=None)
    key = (vp, tuple(clip), surface.get_size(), surface.get_bitsize(), static)
    old_clip = surface.get_clip()
    surface.set_clip(clip)
    try:
        cached = _layer[0] if _layer else None
        if cached is not None and cached.scene is scene and cached.key == key and cached.filled and cached.surface is not None:
            surface.blit(cached.surface, clip.topleft, area=clip)
        else:
            _draw_static(surface, vp, scene, static, clip)
            if cached is not None and cached.scene is scene and cached.key == key:
                # Second identical frame in a row: the view has settled, keep it. While
                # panning or dragging every frame differs and the copy would be wasted.
                if cached.surface is None or cached.surface.get_size() != surface.get_size() or cached.surface.get_bitsize() != surface.get_bitsize():
                    cached.surface = pygame.Surface(surface.get_size(), 0, surface)
                cached.surface.blit(surface, clip.topleft, area=clip)
                cached.filled = True
            elif cached is None:
                _layer.append(_Layer(None, scene, key))
            else:
                cached.scene, cached.key, cached.filled = scene, key, False
        _draw_marks(surface, vp, scene, options)
    finally:
        surface.set_clip(old_clip)


@dataclass(eq=False)
class _Pixels:
    """Pixels of a part of the frame that depends only on ``key`` (the view, the table)."""

    key: tuple[object, ...]
    surface: pygame.Surface | None = None
    patches: list[tuple[pygame.Rect, pygame.Surface]] = field(default_factory=list)


# While a template or model is dragged the board and the rulers do not change: their
# pixels are copied once the same view is drawn twice in a row (panning changes the key
# every frame, so nothing is copied in vain) and blitted from then on.
_board: list[_Pixels] = []
_buildings: list[_Pixels] = []
_rulers: list[_Pixels] = []


def _pixels_for(cache: list[_Pixels], key: tuple[object, ...]) -> tuple[_Pixels, bool]:
    """The entry of ``cache`` for ``key`` and whether the last frame had that key too
    (a new key replaces the entry: its pixels are kept only from the second frame on)."""
    if cache and cache[0].key == key:
        return cache[0], True
    cache[:] = [_Pixels(key)]
    return cache[0], False


def _draw_board(surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions, clip: pygame.Rect, view: tuple[float, float, float, float]) -> None:
    """Background, table, grid and open terrain: what lies under the template tint."""
    table = _screen_rect(vp, (0.0, 0.0, scene.width, scene.depth), pad=0).clip(clip)
    if table.width and table.height:
        # Only the margins: the table covers the rest, and each full-screen fill costs.
        for band in (
            (clip.left, clip.top, clip.width, table.top - clip.top),
            (clip.left, table.bottom, clip.width, clip.bottom - table.bottom),
            (clip.left, table.top, table.left - clip.left, table.height),
            (table.right, table.top, clip.right - table.right, table.height),
        ):
            if band[2] > 0 and band[3] > 0:
                surface.fill(BACKGROUND, band)
    else:
        surface.fill(BACKGROUND, clip)
    _draw_table(surface, vp, scene, options, view)
    # Open terrain lies under the template tint; solid buildings stand on top of it.
    _draw_terrain(surface, vp, scene, options, view, blocking=False)


def _draw_static(surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions, clip: pygame.Rect) -> None:
    """Everything but selection and hover."""
    scene.names_drawn = False
    view = vp.visible_world_bounds()
    board_key = (vp, tuple(clip), surface.get_size(), surface.get_bitsize(), options.show_grid, scene.scenario.table, scene.terrain)
    board, repeated = _pixels_for(_board, board_key)
    if board.surface is not None:
        surface.blit(board.surface, clip.topleft, area=clip)
    else:
        _draw_board(surface, vp, scene, options, clip, view)
        if repeated:
            board.surface = pygame.Surface(surface.get_size(), 0, surface)
            board.surface.blit(surface, clip.topleft, area=clip)
    _draw_terrain_hits(surface, vp, scene, view, blocking=False)

    overlay = _overlay_for(surface.get_size())
    overlay.set_clip(clip)  # nothing may linger outside the area cleared below
    for area in _draw_template_fills(overlay, vp, scene, options, view):
        area = area.clip(clip)
        if area.width > 0 and area.height > 0:
            surface.blit(overlay, area.topleft, area=area)
            overlay.fill((0, 0, 0, 0), area)
    buildings, repeated = _pixels_for(_buildings, board_key)
    if buildings.surface is None and repeated:
        # Opaque buildings on a colour key: an RLE blit of the sparse layer costs far
        # less than filling sixty polygons.
        buildings.surface = pygame.Surface(surface.get_size(), 0, surface)
        buildings.surface.fill(_KEY)
        buildings.surface.set_clip(clip)
        _draw_terrain(buildings.surface, vp, scene, options, view, blocking=True)
        buildings.surface.set_colorkey(_KEY, pygame.RLEACCEL)
    if buildings.surface is not None:
        surface.blit(buildings.surface, (0, 0))
    else:
        _draw_terrain(surface, vp, scene, options, view, blocking=True)
    _draw_terrain_hits(surface, vp, scene, view, blocking=True)
    if scene.art is not None and scene.art.tints:
        # Over the buildings too: a blast's squares say what happens inside them.
        touched = _draw_ruleset_tints(overlay, vp, scene.art, view)
        if touched is not None:
            touched = touched.clip(clip)
            surface.blit(overlay, touched.topleft, area=touched)
            overlay.fill((0, 0, 0, 0), touched)

    _draw_template_lines(surface, vp, scene, options, view)
    if scene.art is not None:
        _draw_ruleset_under(surface, vp, scene.art)
    _draw_models(surface, vp, scene, options)
    _draw_scatter(surface, vp, scene)
    _draw_focus(surface, vp, scene, view)
    taken = _draw_ruleset_over(surface, vp, scene.art) if scene.art is not None else []
    if options.show_names:
        names = _draw_terrain_names(surface, vp, scene, view)
        if scene.art is not None:
            taken += names
        _draw_model_names(surface, vp, scene)
    if options.show_rulers:
        ruler_key = (vp, tuple(clip), surface.get_size(), surface.get_bitsize(), scene.width, scene.depth)
        rulers, repeated = _pixels_for(_rulers, ruler_key)
        if rulers.patches:
            surface.fblits([(patch, rect) for rect, patch in rulers.patches])
        else:
            drawn = _draw_rulers(surface, vp, scene, view)
            if repeated:
                # Everything a ruler draws is opaque, so its rects' pixels are the rulers alone.
                rulers.patches = [(r, surface.subsurface(r).copy()) for r in (d.clip(clip) for d in drawn) if r.width > 0 and r.height > 0]
    taken += _draw_template_labels(surface, vp, scene, view)
    title = _draw_title(surface, vp, scene, options.show_rulers) if options.show_title else None
    if title is not None:
        taken.append(title)
    if options.show_legend:
        legend = _legend_surface(scene, vp.scale)
        x, y = clip.right - legend.get_width() - 8, clip.top + 8
        if title is not None and title.right + 8 > x:
            y = title.bottom + 8  # a narrow window: stack the legend under the title
        taken.append(surface.blit(legend, (x, y)))
    if scene.art is not None and scene.art.badges:
        bounds = clip
        if options.show_rulers:
            bounds = pygame.Rect(clip.left + RULER_SIDE, clip.top, clip.width - RULER_SIDE, clip.height - RULER_BAND)
        _draw_ruleset_labels(surface, vp, scene, scene.art, taken, bounds)


def render_png(
    adjudication: Adjudication,
    path: str | Path,
    size: tuple[int, int] = (1600, 1000),
    options: DrawOptions | None = None,
    region: str = "table",
    odds: OddsResult | None = None,
) -> Viewport:
    """Draw ``adjudication`` headless into a ``size`` image and save it as PNG at ``path``.

    ``region="table"`` fits the whole table; ``"action"`` zooms on the templates, where
    they scattered from and the models they affect. ``odds`` adds the odds overlay
    (heat map, landing points, chances). Returns the viewport drawn.
    """
    if region not in REGIONS:
        raise ValueError(f"region must be one of {', '.join(REGIONS)}, got {region!r}")
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    if not pygame.font.get_init():
        pygame.font.init()
    options = options or DrawOptions()
    scene = _scene(adjudication)
    width, height = size
    table = adjudication.scenario.table
    box = (0.0, 0.0, table.width, table.depth)
    if region == "action":
        box = _action_box(scene) or box
        if odds is not None:
            landings = [(x, y) for t in odds.templates for x, y, p in t.landing_points if p > 0]
            if landings:
                xs, ys = zip(*landings)
                pad = 2 * INCH  # room for the landing discs and their labels
                box = (
                    max(0.0, min(box[0], min(xs) - pad)),
                    max(0.0, min(box[1], min(ys) - pad)),
                    min(table.width, max(box[2], max(xs) + pad)),
                    min(table.depth, max(box[3], max(ys) + pad)),
                )
    # Keep the table clear of the title band, the legend panel and the rulers.
    top = 70 if options.show_title else 8
    side, band = (RULER_SIDE + 4, RULER_BAND + 4) if options.show_rulers else (0, 0)

    def area_for(right: int) -> tuple[int, int, int, int]:
        return (side, top, max(1, width - side - right), max(1, height - top - band))

    right = _legend_surface(scene, 1.0).get_width() + 16 if options.show_legend else 0
    area = area_for(right)
    centre, scale = _fit_box(box, area, table.width, table.depth)
    if options.show_legend:
        legend_w = _legend_surface(scene, scale).get_width() + 16
        if legend_w != right:
            area = area_for(legend_w)
            centre, scale = _fit_box(box, area, table.width, table.depth)
    # The box's centre at the middle of the area left free.
    ax, ay = area[0] + area[2] / 2, area[1] + area[3] / 2
    vp = Viewport(centre, scale, (0, 0, width, height)).panned(ax - width / 2, ay - height / 2)
    surface = pygame.Surface(size)
    draw_scene(surface, vp, adjudication, options)
    if odds is not None:
        from tabletop.draw_odds import draw_odds

        draw_odds(surface, vp, adjudication.scenario, odds)
    pygame.image.save(surface, str(path))
    return vp


REGIONS = ("table", "action")
#: Around the action: a fraction of its size, at least an inch; never a box under 4".
ACTION_MARGIN = 0.12
ACTION_MIN_MARGIN_MM = INCH
ACTION_MIN_SIZE_MM = 4 * INCH


def _action_box(scene: _Scene) -> tuple[float, float, float, float] | None:
    """World box of every template (final, also drawn, scatter origins) and the models and terrain they affect, with a margin."""
    boxes: list[Sequence[float]] = []
    for art in scene.templates:
        boxes.append(art.bbox)
        for g in art.ghosts:
            boxes.append(template_polygon(g, segments=32, outer=True).bounds)
        for path in art.paths:
            boxes.append((*path.min(axis=0), *path.max(axis=0)))
    if scene.art is not None:
        boxes.extend(scene.art.extent)
    if scene.terrain_hit:
        for k, t in enumerate(scene.terrain):
            if t.id in scene.terrain_hit:
                boxes.append(scene.terrain_bbox[k].tolist())
    affected = {m for r in scene.adjudication.results for m in r.resolution.affected}
    for model_id in affected:
        i = scene.model_index.get(model_id)
        if i is not None:
            (x, y), r = scene.centres[i], scene.radii[i]
            boxes.append((x - r, y - r, x + r, y + r))
    if not boxes:
        return None
    b = np.asarray(boxes, dtype=float)
    x0, y0, x1, y1 = float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max())
    margin = max(ACTION_MARGIN * max(x1 - x0, y1 - y0), ACTION_MIN_MARGIN_MM)
    x0, y0, x1, y1 = x0 - margin, y0 - margin, x1 + margin, y1 + margin
    for lo, hi, axis in ((x0, x1, 0), (y0, y1, 1)):
        grow = max(0.0, ACTION_MIN_SIZE_MM - (hi - lo)) / 2
        if axis == 0:
            x0, x1 = lo - grow, hi + grow
        else:
            y0, y1 = lo - grow, hi + grow
    x0, y0 = max(0.0, x0), max(0.0, y0)
    x1, y1 = min(scene.width, x1), min(scene.depth, y1)
    if x1 <= x0 or y1 <= y0:
        return None
    return (x0, y0, x1, y1)


def _fit_box(box: Sequence[float], area: tuple[int, int, int, int], width: float, depth: float, margin_px: int = 12) -> tuple[tuple[float, float], float]:
    """(world centre, scale) showing ``box`` in ``area``, kept on the table when the view is smaller than it."""
    x0, y0, x1, y1 = box
    usable_w, usable_h = max(1, area[2] - 2 * margin_px), max(1, area[3] - 2 * margin_px)
    scale = min(usable_w / max(x1 - x0, 1e-9), usable_h / max(y1 - y0, 1e-9))
    scale = min(MAX_SCALE, max(MIN_SCALE, scale))
    centre = []
    for lo, hi, size, px in ((x0, x1, width, area[2]), (y0, y1, depth, area[3])):
        c = (lo + hi) / 2
        half = (px - 2 * margin_px) / scale / 2
        # The view is wider than the box: spend the slack on the table, not on the void past its edge.
        c = size / 2 if 2 * half >= size else min(max(c, half), size - half)
        centre.append(c)
    return (centre[0], centre[1]), scale


__all__ = ("DrawOptions", "draw_scene", "render_png", "status_colour", "side_colour")
