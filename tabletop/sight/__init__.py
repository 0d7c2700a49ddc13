"""Line of sight and line of fire between two models' silhouettes.

A model's *silhouette* is the vertical prism over its base footprint from ``z`` to
``z + height``. There is sight when some straight line joins the viewer's silhouette
to the target's without touching a blocker: a terrain piece that blocks sight (a prism
from the table up to its ``height``; no height means unlimited) or another model's
silhouette. Blockers are closed: a line along the top of a trooper of the same height,
or the common tangent of three equal bases in a row, is blocked (the seed's Fusiliers).

Algorithm (see docs/sight.md for the claims and examples):

1. *Sampled lines.* Points on each footprint's boundary and over its area (area-uniform),
   at the silhouette's bottom and top, are joined pairwise; every segment is tested
   against every blocker in one numpy pass (a segment/convex-polygon clip and an exact
   segment/disc test), and the height of the line where it crosses a blocker decides.
   A segment found clear is a real clear line (the test is exact), so sampling can only
   miss sight, never invent it.
2. *Critical lines.* When no sampled line is clear, the lines that touch two features
   (the viewer's and target's bases, round blockers, corners of polygonal blockers) are
   tested too. In plan, if any clear line exists, one of those exists, so for blockers
   that are taller than both silhouettes (or of unlimited height) "none" is exact.
3. *Contested.* The query is repeated with every blocker grown (when seen) or shrunk (when
   not) by the tolerance; if the answer flips, it is a judge's call and says so.

Modules: :mod:`.silhouettes` (answers, footprints, bodies), :mod:`.blockers` (blockers, the
numpy segment tests, critical lines); the query is here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Literal

import numpy as np
import shapely
from numpy.typing import NDArray

from tabletop.coverage import CONTACT_EPS_MM, DEFAULT_TOLERANCE_MM
from tabletop.model import Base, Model, Terrain
from tabletop.shapes import base_polygon
from tabletop.sight.blockers import _batch, _blocked, _convex_pieces, _critical_segments, _crossings, grown, model_blocker, terrain_blocker
from tabletop.sight.silhouettes import (
    Blocker,
    BoolArray,
    DEFAULT_SAMPLES,
    FloatArray,
    Sight,
    SightKind,
    SightLine,
    SpanFn,
    _Body,
    _Footprint,
    _model_body,
    model_span,
)


# --------------------------------------------------------------------------- the query


def _gap(a: Model, b: Model) -> float:
    """Edge-to-edge distance between two bases (negative: round bases overlapping)."""
    if a.base.is_round and b.base.is_round:
        return math.hypot(a.x - b.x, a.y - b.y) - (a.base.length + b.base.length) / 2
    pa = base_polygon(a, 1024, outer=True) if a.base.shape != "rect" else base_polygon(a)
    pb = base_polygon(b, 1024, outer=True) if b.base.shape != "rect" else base_polygon(b)
    return float(shapely.distance(pa, pb))


def _gather_blockers(terrain: Sequence[Terrain], models: Sequence[Model], span: SpanFn, skip: Sequence[str]) -> list[Blocker]:
    out = [terrain_blocker(t) for t in terrain if t.blocks_los and t.id not in skip]
    out += [model_blocker(m, span(m)) for m in models if m.id not in skip]
    return out


def _near(blockers: list[Blocker], a: _Body, b: _Body, margin: float) -> list[Blocker]:
    """The blockers within ``margin`` of the hull of the two bodies (only they can meet a sight line)."""
    if not blockers:
        return blockers
    zone = shapely.buffer(shapely.convex_hull(shapely.union(a.outline, b.outline)), max(margin, 0.0) + 1e-3)
    hits = shapely.intersects(zone, np.array([bl.outline for bl in blockers], dtype=object))
    return [bl for bl, hit in zip(blockers, hits) if hit]


def line_of_fire(
    viewer: Model,
    target: Model,
    terrain: Sequence[Terrain] = (),
    models: Sequence[Model] = (),
    *,
    span: SpanFn = model_span,
    samples: int = DEFAULT_SAMPLES,
    tolerance_mm: float = DEFAULT_TOLERANCE_MM,
) -> Sight:
    """Sight from any part of ``viewer``'s silhouette to any part of ``target``'s.

    Blockers: ``terrain`` pieces with ``blocks_los`` (up to their height; unlimited when it is
    absent) and the silhouettes of ``models`` other than the two. ``span`` gives a model's
    (bottom, top) in mm; when the viewer's or the target's is None the check is flat (2D):
    every blocker blocks at every height. ``samples``: points on each base's boundary.
    ``tolerance_mm``: the answer is ``contested`` when blockers grown (if seen) or shrunk (if
    not) by this much give the other answer; 0 skips that second check.
    """
    key = _query_key(viewer, target, terrain, models, span, samples, tolerance_mm)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    a, b = _model_body(viewer, span), _model_body(target, span)
    blockers = _near(_gather_blockers(terrain, models, span, (viewer.id, target.id)), a, b, tolerance_mm)
    touching = _gap(viewer, target) <= CONTACT_EPS_MM
    sight = _sight(a, b, blockers, samples, touching)
    sight = _contest(sight, tolerance_mm, lambda bl: _sight(a, b, bl, samples, touching).seen, blockers)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = sight
    return sight


#: Answers of recent queries by value (the odds re-resolve one table thousands of times).
_CACHE: dict[tuple[object, ...], Sight] = {}
_CACHE_SIZE = 512


def _model_key(model: Model, span: SpanFn) -> tuple[object, ...]:
    return (model.id, model.label, model.x, model.y, model.base, model.facing, span(model))


def _query_key(
    viewer: Model, target: Model, terrain: Sequence[Terrain], models: Sequence[Model], span: SpanFn, samples: int, tolerance_mm: float
) -> tuple[object, ...]:
    """Everything a query's answer depends on, as plain values."""
    pieces = tuple((t.id, t.label, t.polygon, t.height, t.blocks_los) for t in terrain)
    others = tuple(_model_key(m, span) for m in models)
    return (_model_key(viewer, span), _model_key(target, span), pieces, others, samples, tolerance_mm)


def _contest(sight: Sight, tolerance_mm: float, seen_with: Callable[[list[Blocker]], bool], blockers: list[Blocker]) -> Sight:
    """Mark ``sight`` contested when blockers changed by the tolerance flip seen / not seen."""
    if tolerance_mm <= 0 or not blockers:
        return sight
    by = tolerance_mm if sight.seen else -tolerance_mm
    changed = [g for g in (grown(b, by) for b in blockers) if g is not None]
    if seen_with(changed) == sight.seen:
        return sight
    why = (
        f"contested: blockers {tolerance_mm:g} mm larger would hide it"
        if sight.seen
        else f"contested: blockers {tolerance_mm:g} mm smaller would show it"
    )
    return replace(sight, contested=True, reason=f"{sight.reason} ({why})")


def _sight(body_a: _Body, body_b: _Body, blockers: list[Blocker], samples: int, touching: bool) -> Sight:
    """Sight between two bodies past ``blockers`` (see the module docstring)."""
    sv, st = body_a.span, body_b.span
    flat = sv is None or st is None
    if flat:
        blockers = [Blocker(b.id, b.label, -math.inf, math.inf, b.outline, b.pieces, b.disc, b.corners) for b in blockers]
        sv = st = (0.0, 0.0)
    assert sv is not None and st is not None
    fa, fb = body_a.footprint, body_b.footprint
    poly_a, poly_b = body_a.outline, body_b.outline
    hull = shapely.convex_hull(shapely.union(poly_a, poly_b))
    overlapping = False
    if blockers:
        outlines = np.array([b.outline for b in blockers], dtype=object)
        near = shapely.intersects(hull, outlines)
        # A blocker overlapping either footprint adds extreme lines the critical set does not list.
        overlapping = bool(np.any(shapely.relate_pattern(outlines, poly_a, "T********") | shapely.relate_pattern(outlines, poly_b, "T********")))
        blockers = [b for b, hit in zip(blockers, near) if hit]
    batch = _batch(blockers)

    k = max(4, samples)
    pa = np.concatenate([fa.boundary_points(k), fa.area_points(max(1, k // 3))])
    edge_b = fb.boundary_points(k)
    pb = np.concatenate([edge_b, fb.area_points(2 * k)])
    na, nb = len(pa), len(pb)
    starts = np.repeat(pa, nb, axis=0)
    ends = np.tile(pb, (na, 1))
    t0, t1 = _crossings(batch, starts, ends)
    pairs = sorted({(sv[1], st[1]), (sv[0], st[0]), (sv[1], st[0]), (sv[0], st[1])}, key=lambda p: -(p[0] + p[1]))
    blocked_at = [_blocked(batch, t0, t1, np.full(len(starts), za), np.full(len(starts), zb)) for za, zb in pairs]
    clear_at = np.stack([~b.any(axis=1) for b in blocked_at])  # (pairs, segments)
    clear = clear_at.any(axis=0)
    grid = clear.reshape(na, nb)
    seen_area = grid[:, len(edge_b) :]
    fraction = float(seen_area.any(axis=0).mean())
    line_share = float(seen_area.mean())
    best_pair = np.argmax(clear_at, axis=0)  # the first (highest) clear pair of each segment

    in_contact = touching and (flat or (sv[0] <= st[1] + CONTACT_EPS_MM and st[0] <= sv[1] + CONTACT_EPS_MM))
    blocking_walls = [
        b for b in blockers if b.bottom <= max(min(sv[0], st[0]), CONTACT_EPS_MM) and b.top >= max(sv[1], st[1]) - CONTACT_EPS_MM
    ]
    exact = (flat or len(blocking_walls) == len(blockers)) and not overlapping
    crit_line: SightLine | None = None
    if not clear.any() and not in_contact and blockers:
        cs, ce = _critical_segments(fa, fb, blockers, hull)
        if len(cs):
            ct0, ct1 = _crossings(batch, cs, ce)
            for za, zb in pairs:
                ok = ~_blocked(batch, ct0, ct1, np.full(len(cs), za), np.full(len(cs), zb)).any(axis=1)
                if ok.any():
                    i = int(np.argmax(ok))
                    crit_line = SightLine((float(cs[i, 0]), float(cs[i, 1]), za), (float(ce[i, 0]), float(ce[i, 1]), zb), True)
                    break
    seen = bool(clear.any()) or crit_line is not None or in_contact
    any_blocked = bool(np.stack([b.any(axis=1) for b in blocked_at]).any())
    if not seen:
        kind: SightKind = "none"
    elif any_blocked or blocking_walls:
        kind = "partial"
    else:
        kind = "full"

    counts = np.zeros(len(blockers), dtype=int)
    for blocked in blocked_at:
        counts = np.maximum(counts, blocked.sum(axis=0))
    order = [int(i) for i in np.argsort(-counts, kind="stable") if counts[i] > 0]
    order += [blockers.index(b) for b in blocking_walls if blockers.index(b) not in order]
    blocked_by = tuple(blockers[i].id for i in order)
    names = ", ".join(blockers[i].name for i in order)

    lines = _example_lines(pa, pb, grid, best_pair, pairs, blocked_at, blockers, body_a.centre, body_b.centre)
    if crit_line is not None:
        lines = (crit_line, *lines)
    if flat:
        lines = tuple(SightLine((ln.start[0], ln.start[1], 0.0), (ln.end[0], ln.end[1], 0.0), ln.clear, ln.blocked_by) for ln in lines)
    reason = _reason(kind, fraction, line_share, names, in_contact and not clear.any())
    return Sight(kind, fraction, line_share, blocked_by, lines, reason, exact)


def _reason(kind: SightKind, fraction: float, line_share: float, names: str, contact_only: bool) -> str:
    if kind == "full":
        return "clear: nothing in between"
    if kind == "none":
        return f"blocked by {names}" if names else "no line of sight"
    if contact_only:
        return "in base contact"
    if line_share >= 1.0 and names:
        return f"partial: in view over {names} (only lower sight lines are blocked)"
    share = f"{fraction:.0%} of its base in view, {line_share:.0%} of sight lines clear" if fraction > 0 else "only a sliver in view"
    return f"partial: {share}; partly hidden by {names}" if names else f"partial: {share}"


def _example_lines(
    pa: FloatArray,
    pb: FloatArray,
    grid: BoolArray,
    best_pair: NDArray[np.int64],
    pairs: list[tuple[float, float]],
    blocked_at: list[BoolArray],
    blockers: Sequence[Blocker],
    centre_a: tuple[float, float],
    centre_b: tuple[float, float],
) -> tuple[SightLine, ...]:
    """A few lines to draw: the clear ones nearest the centre line and at both sides, and the blocked centre line."""
    na, nb = grid.shape
    (ax, ay), (bx, by) = centre_a, centre_b
    near_a = int(np.argmin(np.hypot(pa[:, 0] - ax, pa[:, 1] - ay)))
    near_b = int(np.argmin(np.hypot(pb[:, 0] - bx, pb[:, 1] - by)))
    axis = np.array([bx - ax, by - ay])
    norm = float(np.hypot(*axis)) or 1.0
    side = np.array([-axis[1], axis[0]]) / norm
    mid_a = pa @ side
    mid_b = pb @ side
    offset = (mid_a[:, None] + mid_b[None, :]) / 2 - (ax * side[0] + ay * side[1])
    chosen: list[int] = []
    clear_idx = np.flatnonzero(grid.ravel())
    if len(clear_idx):
        off = offset.ravel()[clear_idx]
        for pick in (np.argmin(np.abs(off)), np.argmin(off), np.argmax(off)):
            idx = int(clear_idx[pick])
            if idx not in chosen:
                chosen.append(idx)
    centre_idx = near_a * nb + near_b
    if centre_idx not in chosen:
        chosen.append(centre_idx)
    out = []
    for idx in chosen:
        i, j = divmod(idx, nb)
        ok = bool(grid[i, j])
        p = int(best_pair[idx]) if ok else 0
        za, zb = pairs[p]
        by = () if ok else tuple(blockers[c].id for c in np.flatnonzero(blocked_at[0][idx]))
        out.append(SightLine((float(pa[i, 0]), float(pa[i, 1]), za), (float(pb[j, 0]), float(pb[j, 1]), zb), ok, by))
    return tuple(out)


def base_line_of_sight(
    firer: Model,
    target: Model,
    terrain: Sequence[Terrain] = (),
    *,
    models: Sequence[Model] = (),
    span: SpanFn = model_span,
    samples: int = DEFAULT_SAMPLES,
    tolerance_mm: float = DEFAULT_TOLERANCE_MM,
) -> Sight:
    """Sight from any part of ``firer``'s base to any part of ``target``'s past sight-blocking terrain.

    Flat (2D) unless both models have a height; then terrain heights are compared along the
    lines. Other models block only when passed in ``models``.
    """
    return line_of_fire(firer, target, terrain, models, span=span, samples=samples, tolerance_mm=tolerance_mm)


#: Height (mm) standing in for "unlimited" when a structure without a height is a target.
UNLIMITED_TOP_MM = 10_000.0


def structure_line_of_sight(
    viewer: Model,
    structure: Terrain,
    terrain: Sequence[Terrain] = (),
    *,
    models: Sequence[Model] = (),
    span: SpanFn = model_span,
    samples: int = DEFAULT_SAMPLES,
    tolerance_mm: float = DEFAULT_TOLERANCE_MM,
) -> Sight:
    """Sight from any part of ``viewer`` to any part of a terrain piece (Robotech: a structure as target).

    The structure is a prism from the table to its height (no height: unlimited); it never blocks
    sight to itself. A non-convex outline is split into convex pieces, each tried; the fractions
    are area-weighted over the pieces.
    """
    blockers = _gather_blockers(terrain, models, span, (viewer.id, structure.id))
    a = _model_body(viewer, span)
    top = UNLIMITED_TOP_MM if structure.height is None else float(structure.height)
    whole = shapely.Polygon(structure.polygon)
    touching = float(shapely.distance(a.outline, whole)) <= CONTACT_EPS_MM
    bodies: list[tuple[_Body, bool]] = []
    for ring in _convex_pieces(np.asarray(structure.polygon, dtype=float)):
        poly = shapely.Polygon(ring)
        fp = _Footprint(ring.mean(axis=0), 0.0, ring, "polygon")
        piece_touch = touching and float(shapely.distance(a.outline, poly)) <= CONTACT_EPS_MM
        bodies.append((_Body(structure.id, structure.label, fp, poly, (0.0, top)), piece_touch))
    results = [(float(body.outline.area), _sight(a, body, blockers, samples, t)) for body, t in bodies]
    total = sum(w for w, _ in results) or 1.0
    kinds = {r.kind for _, r in results}
    kind: SightKind = "full" if kinds == {"full"} else "none" if kinds == {"none"} else "partial"
    fraction = sum(w * r.visible_fraction for w, r in results) / total
    line_share = sum(w * r.clear_fraction for w, r in results) / total
    blocked_by = tuple(dict.fromkeys(i for _, r in results for i in r.blocked_by))
    label = {b.id: b.name for b in blockers}
    names = ", ".join(label[i] for i in blocked_by)
    best = max(results, key=lambda wr: (wr[1].seen, wr[1].visible_fraction))[1]
    contact_only = touching and not any(r.clear_fraction > 0 for _, r in results)
    reason = _reason(kind, fraction, line_share, names, contact_only and kind == "partial")
    sight = Sight(kind, fraction, line_share, blocked_by, best.lines, reason, all(r.exact for _, r in results))

    def seen_with(changed: list[Blocker]) -> bool:
        return any(_sight(a, body, changed, samples, t).seen for body, t in bodies)

    return _contest(sight, tolerance_mm, seen_with, blockers)


def point_line_of_sight(
    viewer: Model,
    point: tuple[float, float],
    terrain: Sequence[Terrain] = (),
    *,
    z: float | None = None,
    models: Sequence[Model] = (),
    span: SpanFn = model_span,
    samples: int = DEFAULT_SAMPLES,
    tolerance_mm: float = DEFAULT_TOLERANCE_MM,
) -> Sight:
    """Sight from any part of ``viewer``'s base (silhouette, when it has a height and ``z`` is given) to a point."""
    spot = Model("point", float(point[0]), float(point[1]), Base.round(0.0), name="the point", z=z, height=None if z is None else 0.0)
    return line_of_fire(viewer, spot, terrain, models, span=span, samples=samples, tolerance_mm=tolerance_mm)


def in_range(firer: Model, target: Model, range_mm: float, measure: Literal["edge", "centre"] = "edge") -> tuple[bool, float]:
    """Is ``target`` within ``range_mm`` of ``firer``, and the distance (mm) measured.

    ``edge``: the gap between the bases (0 when they touch or overlap; exact for round and
    rectangular bases, ovals as 1024-gons, within 1e-4 mm); ``centre``: centre to centre.
    """
    if measure == "centre":
        dist = math.hypot(target.x - firer.x, target.y - firer.y)
    elif measure == "edge":
        dist = max(0.0, _gap(firer, target))
    else:
        raise ValueError(f"measure must be 'edge' or 'centre', got {measure!r}")
    return dist <= range_mm + CONTACT_EPS_MM, dist


__all__ = [
    "Blocker",
    "DEFAULT_SAMPLES",
    "GRAZE_MM",
    "Sight",
    "SightLine",
    "SpanFn",
    "base_line_of_sight",
    "grown",
    "in_range",
    "line_of_fire",
    "model_blocker",
    "model_span",
    "point_line_of_sight",
    "structure_line_of_sight",
    "terrain_blocker",
]

# Every name the single module had stays importable from here.
from dataclasses import dataclass  # noqa: F401

from tabletop.shapes import base_outline, to_world  # noqa: F401
from tabletop.sight.blockers import _Batch  # noqa: F401
from tabletop.sight.silhouettes import (  # noqa: F401
    CRITICAL_CLEARANCE_MM,
    GRAZE_MM,
    OVAL_SEGMENTS,
    Point3,
    _GOLDEN,
    _ccw,
    _clip_params,
    _footprint,
    _halfplanes,
)
from tabletop.visibility import is_convex  # noqa: F401
