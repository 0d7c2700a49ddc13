"""Blockers of terrain and models, batched segment tests against them, and the critical lines."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from numpy.typing import NDArray

from tabletop.coverage import CONTACT_EPS_MM
from tabletop.model import Model, Terrain
from tabletop.shapes import base_outline, base_polygon
from tabletop.sight.silhouettes import (
    Blocker,
    BoolArray,
    CRITICAL_CLEARANCE_MM,
    FloatArray,
    GRAZE_MM,
    OVAL_SEGMENTS,
    _Footprint,
    _ccw,
    _clip_params,
    _halfplanes,
)
from tabletop.visibility import is_convex


# --------------------------------------------------------------------------- blockers


def _convex_pieces(ring: FloatArray) -> tuple[FloatArray, ...]:
    ring = _ccw(np.asarray(ring, dtype=float))
    if is_convex(ring):
        return (ring,)
    poly = shapely.make_valid(shapely.Polygon(ring))
    tris = shapely.get_parts(shapely.constrained_delaunay_triangles(poly))
    return tuple(_ccw(np.asarray(shapely.get_coordinates(t))[:-1]) for t in tris if t.area > 0)


def terrain_blocker(piece: Terrain) -> Blocker:
    """A sight-blocking terrain piece: from the table up to its height (unlimited when absent)."""
    ring = np.asarray(piece.polygon, dtype=float)
    top = math.inf if piece.height is None else float(piece.height)
    return Blocker(piece.id, piece.label, 0.0, top, shapely.Polygon(ring), _convex_pieces(ring), None, ring)


def model_blocker(model: Model, span: tuple[float, float] | None) -> Blocker:
    """Another model's silhouette; a model of unknown height blocks at every height."""
    bottom, top = span if span is not None else (-math.inf, math.inf)
    base = model.base
    if base.is_round:
        outline = base_polygon(model, 64, outer=True)
        return Blocker(model.id, model.label, bottom, top, outline, (), (model.x, model.y, base.length / 2), None)
    # An oval blocks as its inscribed polygon: errs towards sight, by at most r(1 - cos(pi/n)).
    segments = 4 if base.shape == "rect" else OVAL_SEGMENTS
    ring = np.asarray(base_outline(base, model.x, model.y, model.facing, segments), dtype=float)
    return Blocker(model.id, model.label, bottom, top, shapely.Polygon(ring), (_ccw(ring),), None, ring)


def grown(blocker: Blocker, by_mm: float) -> Blocker | None:
    """``blocker`` grown (``by_mm`` > 0) or shrunk (< 0) in plan (mitred corners) and in height; None when nothing is left."""
    top = blocker.top + by_mm
    bottom = blocker.bottom - by_mm if blocker.bottom > CONTACT_EPS_MM else blocker.bottom
    if top <= max(bottom, 0.0):
        return None
    if blocker.disc is not None:
        x, y, r = blocker.disc
        if r + by_mm <= 0.0:
            return None
        outline = shapely.Point(x, y).buffer(r + by_mm + 1e-3 * abs(by_mm), 64)
        return Blocker(blocker.id, blocker.label, bottom, top, outline, (), (x, y, r + by_mm), None)
    pieces = []
    for piece in blocker.pieces:
        g = shapely.buffer(shapely.Polygon(piece), by_mm, join_style="mitre", mitre_limit=10.0)
        if not g.is_empty and g.geom_type == "Polygon" and g.area > 0:
            pieces.append(_ccw(np.asarray(shapely.get_coordinates(g))[:-1]))
    if not pieces:
        return None
    outline = shapely.buffer(blocker.outline, by_mm, join_style="mitre", mitre_limit=10.0)
    corners = np.concatenate(pieces) if by_mm < 0 else np.asarray(shapely.get_coordinates(outline))[:-1]
    return Blocker(blocker.id, blocker.label, bottom, top, outline, tuple(pieces), None, corners)


@dataclass(frozen=True)
class _Batch:
    """The relevant blockers as flat arrays for one vectorised test."""

    owner: NDArray[np.int64]  # piece -> blocker index
    normals: FloatArray  # (P, V, 2), padded by repeating a constraint
    offsets: FloatArray  # (P, V)
    disc_owner: NDArray[np.int64]
    discs: FloatArray  # (D, 3)
    bottom: FloatArray  # per blocker, -inf when it stands on the table
    top: FloatArray


def _batch(blockers: Sequence[Blocker]) -> _Batch:
    owner, normals, offsets, disc_owner, discs = [], [], [], [], []
    for i, b in enumerate(blockers):
        for piece in b.pieces:
            n, c = _halfplanes(piece)
            owner.append(i)
            normals.append(n)
            offsets.append(c)
        if b.disc is not None:
            disc_owner.append(i)
            discs.append(b.disc)
    v = max((len(c) for c in offsets), default=1)
    nn = np.zeros((len(normals), v, 2))
    cc = np.zeros((len(normals), v))
    for k, (n, c) in enumerate(zip(normals, offsets)):
        pad = v - len(c)
        nn[k] = np.concatenate([n, np.repeat(n[:1], pad, axis=0)])
        cc[k] = np.concatenate([c, np.repeat(c[:1], pad)])
    bottom = np.array([-math.inf if b.bottom <= CONTACT_EPS_MM else b.bottom for b in blockers], dtype=float)
    top = np.array([b.top for b in blockers], dtype=float)
    return _Batch(
        np.asarray(owner, dtype=np.int64), nn, cc, np.asarray(disc_owner, dtype=np.int64),
        np.asarray(discs, dtype=float).reshape(-1, 3), bottom, top,
    )  # fmt: skip


def _crossings(batch: _Batch, starts: FloatArray, ends: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Where (parameters t0 <= t1 in [0, 1]) each segment meets each piece; NaN: it does not.

    Columns are the polygon pieces, then the discs. Blockers are closed and grown by GRAZE_MM:
    a line that touches one (a corner, a tangent, along the top of a trooper) is blocked by it.
    """
    d = ends - starts
    length = np.hypot(d[:, 0], d[:, 1])
    cols_t0, cols_t1 = [], []
    if len(batch.owner):
        num = batch.offsets[None, :, :] + GRAZE_MM - np.einsum("pvk,sk->spv", batch.normals, starts)
        den = np.einsum("pvk,sk->spv", batch.normals, d)
        t0, t1 = _clip_params(num, den, 0.0, 1.0)
        cols_t0.append(t0)
        cols_t1.append(t1)
    if len(batch.disc_owner):
        c, r = batch.discs[:, :2], batch.discs[:, 2] + GRAZE_MM
        rel = starts[:, None, :] - c[None, :, :]
        a = np.maximum((length * length)[:, None], 1e-300)
        b = np.einsum("sdk,sk->sd", rel, d)
        dist2 = np.einsum("sdk,sdk->sd", rel, rel) - b * b / a  # squared distance of the centre from the line
        half = np.sqrt(np.maximum(r[None, :] ** 2 - dist2, 0.0) / a)
        mid = -b / a
        t0 = np.maximum(mid - half, 0.0)
        t1 = np.minimum(mid + half, 1.0)
        ok = (dist2 <= r[None, :] ** 2) & (t1 >= t0)
        cols_t0.append(np.where(ok, t0, np.nan))
        cols_t1.append(np.where(ok, t1, np.nan))
    if not cols_t0:
        empty = np.full((len(starts), 0), np.nan)
        return empty, empty
    return np.concatenate(cols_t0, axis=1), np.concatenate(cols_t1, axis=1)


def _blocked(batch: _Batch, t0: FloatArray, t1: FloatArray, za: FloatArray, zb: FloatArray) -> BoolArray:
    """(segments, blockers): does the segment, from height za to zb, meet the blocker (top included)?"""
    owners = np.concatenate([batch.owner, batch.disc_owner])
    z0 = za[:, None] + (zb - za)[:, None] * t0
    z1 = za[:, None] + (zb - za)[:, None] * t1
    low, high = np.fmin(z0, z1), np.fmax(z0, z1)
    with np.errstate(invalid="ignore"):
        hit = (high >= batch.bottom[owners][None, :] - CONTACT_EPS_MM) & (low <= batch.top[owners][None, :] + CONTACT_EPS_MM)
    hit &= ~np.isnan(t0)
    out = np.zeros((len(za), len(batch.top)), dtype=bool)
    for col, owner in enumerate(owners):
        out[:, owner] |= hit[:, col]
    return out


# --------------------------------------------------------------------------- critical lines


def _critical_segments(a: _Footprint, b: _Footprint, blockers: Sequence[Blocker], hull: shapely.Polygon) -> tuple[FloatArray, FloatArray]:
    """Segments from base a to base b along every line tangent to two features (bases, discs, corners).

    The lines meeting both bases and clear of the blockers form a closed set in the plane of lines;
    when it is not empty, one of its extreme lines touches two features, so testing these decides
    in plan whether any clear line exists.
    """
    feats = [a.features(), b.features()]
    near = shapely.buffer(hull, 1e-3)
    for blk in blockers:
        if blk.disc is not None:
            x, y, r = blk.disc
            feats.append(np.array([[x, y, r + CRITICAL_CLEARANCE_MM]]))
        elif blk.corners is not None:
            inside = shapely.contains_xy(near, blk.corners[:, 0], blk.corners[:, 1])
            pts = blk.corners[inside]
            feats.append(np.column_stack([pts, np.full(len(pts), CRITICAL_CLEARANCE_MM)]))
    f = np.concatenate(feats)
    i, j = np.triu_indices(len(f), 1)
    signs = np.array([(1, 1), (1, -1), (-1, 1), (-1, -1)], dtype=float)
    c1, c2 = f[i, :2], f[j, :2]
    r1, r2 = f[i, 2], f[j, 2]
    delta = c1 - c2
    ell = np.hypot(delta[:, 0], delta[:, 1])
    ok = ell > 1e-9
    c1, c2, r1, r2, delta, ell = c1[ok], c2[ok], r1[ok], r2[ok], delta[ok], ell[ok]
    k = signs[:, 0][:, None] * r1[None, :] - signs[:, 1][:, None] * r2[None, :]  # (4, n)
    q = k / ell[None, :]
    root = np.sqrt(np.clip(1.0 - q * q, 0.0, None))
    valid = np.abs(q) <= 1.0 + 1e-12
    unit = delta / ell[:, None]
    perp = np.stack([-unit[:, 1], unit[:, 0]], axis=-1)
    normals, dists = [], []
    for sigma in (1.0, -1.0):
        n = q[..., None] * unit[None] + sigma * root[..., None] * perp[None]
        dd = np.einsum("snk,nk->sn", n, c1) - signs[:, 0][:, None] * r1[None, :]
        normals.append(n[valid])
        dists.append(dd[valid])
    n = np.concatenate(normals)
    dd = np.concatenate(dists)
    origin = n * dd[:, None]
    direction = np.stack([-n[:, 1], n[:, 0]], axis=-1)
    a0, a1 = a.clip(origin, direction)
    b0, b1 = b.clip(origin, direction)
    forward = a1 <= b0
    backward = b1 <= a0
    s_start = np.where(forward, a1, a0)
    s_end = np.where(forward, b0, b1)
    use = (forward | backward) & ~np.isnan(a0) & ~np.isnan(b0)
    starts = origin[use] + direction[use] * s_start[use, None]
    ends = origin[use] + direction[use] * s_end[use, None]
    return starts, ends
