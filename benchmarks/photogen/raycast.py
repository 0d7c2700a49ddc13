"""Analytic ray intersections, vectorised over many rays from one origin.

Every function takes the rays' common origin ``o`` (3,) and directions ``d`` (3, m) and returns the
ray parameter ``t`` (m,) of the nearest hit in front of the origin (``inf`` for a miss), the unit
surface normal (3, m) and what the surface's shader needs to know about the hit point.
"""

from __future__ import annotations

import math

import numpy as np

EPS = 1e-6


def _rotate_z(vx: np.ndarray, vy: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    c, s = math.cos(angle), math.sin(angle)
    return c * vx - s * vy, s * vx + c * vy


def _safe(v: np.ndarray) -> np.ndarray:
    return np.where(np.abs(v) < 1e-12, 1e-12, v)


def _plane(num: float, den: np.ndarray) -> np.ndarray:
    """``num / _safe(den)`` where that is beyond ``EPS``, inf elsewhere: in place on one array (the same float32
    operations as ``np.where(t > EPS, t, inf)`` of that quotient). A plane is met by every ray of a frame."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.divide(num, den)
        if den.dtype == np.float32:
            t[np.abs(den) < 1e-12] = np.float32(num) / np.float32(1e-12)
        else:
            t[np.abs(den) < 1e-12] = num / _safe(np.array([0.0], den.dtype))[0]
    t[~(t > EPS)] = np.inf
    return t


def plane_z(o: np.ndarray, d: np.ndarray, z: float) -> np.ndarray:
    """Ray parameter at the horizontal plane at height ``z`` (inf where it is behind or parallel)."""
    return _plane(z - float(o[2]), d[2])


def plane_y(o: np.ndarray, d: np.ndarray, y: float) -> np.ndarray:
    """Ray parameter at the vertical plane y = const."""
    return _plane(y - float(o[1]), d[1])


def box(o: np.ndarray, d: np.ndarray, centre: tuple[float, float], half: tuple[float, float], z0: float, z1: float,
        angle: float, with_local: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """A box rotated by ``angle`` (rad) about z; returns t, normal, face (0 +-x, 1 +-y, 2 top/bottom) and local (3, m)
    coordinates (None unless ``with_local``).

    The slabs' method, in place on a few arrays: the table's top takes half a 12 MP frame's rays. Each in-place step
    computes the float32 operations of the plain expression in its comment, in the same order.
    """
    lx, ly = _rotate_z(np.array(o[0] - centre[0]), np.array(o[1] - centre[1]), -angle)
    dx, dy = _rotate_z(d[0], d[1], -angle)
    dz = d[2]
    lo = (float(lx), float(ly), float(o[2]))
    bounds = ((-half[0], half[0]), (-half[1], half[1]), (z0, z1))
    tmins, tmaxs = [], []
    tiny_inverse = np.float32(1.0) / np.float32(1e-12)
    with np.errstate(divide="ignore", invalid="ignore"):
        for oi, di, (a, b) in zip(lo, (dx, dy, dz), bounds):
            # inv = 1 / _safe(di); t1, t2 = (a - oi) * inv, (b - oi) * inv
            inv = np.divide(1.0, di)
            inv[np.abs(di) < 1e-12] = tiny_inverse
            t1 = np.multiply(inv, a - oi)
            np.multiply(inv, b - oi, out=inv)
            tmins.append(np.minimum(t1, inv))
            tmaxs.append(np.maximum(t1, inv, out=t1))
    # near = max(max(tmin_x, tmin_y), tmin_z); far = min(min(tmax_x, tmax_y), tmax_z)
    near = np.maximum(tmins[0], tmins[1], out=tmins[0])
    np.maximum(near, tmins[2], out=near)
    far = np.minimum(tmaxs[0], tmaxs[1], out=tmaxs[0])
    np.minimum(far, tmaxs[2], out=far)
    hit = near <= far
    hit &= near > EPS
    t = np.where(hit, near, np.inf)
    # face = where(near == tmin_z, 2, where(near == tmin_y, 1, 0))
    face = np.zeros(near.shape, np.int8)
    face[near == tmins[1]] = 1
    face[near == tmins[2]] = 2
    del far, tmaxs, tmins[1:]
    zero = np.float32(0.0)
    # The normal in the box's frame: -sign(d) along the face's axis, zero along the others; then turned back.
    normal_local = []
    for axis, di in enumerate((dx, dy, dz)):
        nl = np.sign(di)
        np.negative(nl, out=nl)
        nl[face != axis] = zero
        normal_local.append(nl)
    normal = np.empty((3, near.size), np.float32)
    c, s = math.cos(angle), math.sin(angle)
    # _rotate_z(nlx, nly, angle): c * nlx - s * nly, s * nlx + c * nly
    np.multiply(normal_local[0], c, out=normal[0])
    term = np.multiply(normal_local[1], s)
    normal[0] -= term
    np.multiply(normal_local[0], s, out=normal[1])
    np.multiply(normal_local[1], c, out=term)
    normal[1] += term
    normal[2] = normal_local[2]
    if not with_local:
        return t, normal, face, None
    tt = np.where(hit, near, zero)
    local = np.empty((3, near.size), np.float32)
    for axis, di in enumerate((dx, dy, dz)):
        np.multiply(tt, di, out=local[axis])  # lo + tt * d
        local[axis] += lo[axis]
    return t, normal, face, local


def frustum(o: np.ndarray, d: np.ndarray, centre: tuple[float, float, float], axes: tuple[float, float], angle: float,
            height: float, inset_frac: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """An elliptic frustum standing on z = centre[2]: bottom semi-axes ``axes``, top ones ``axes * (1 - inset_frac)``.

    Returns t, normal, part (0 side, 1 top) and local (3, m): x, y in mm in the frustum's frame, and on the
    top the hit's radius as a fraction of the top's (1 at the top's edge), on the side its height above the bottom.
    """
    a, b = axes
    k = inset_frac / height
    lx, ly = _rotate_z(np.array(o[0] - centre[0]), np.array(o[1] - centre[1]), -angle)
    X0, Y0, Z0 = float(lx) / a, float(ly) / b, float(o[2] - centre[2])
    dx, dy = _rotate_z(d[0], d[1], -angle)
    qx, qy, dz = dx / a, dy / b, d[2]
    one = 1.0 - k * Z0
    A = qx * qx + qy * qy - (k * k) * dz * dz
    B = 2.0 * (X0 * qx + Y0 * qy + one * k * dz)
    C = X0 * X0 + Y0 * Y0 - one * one
    disc = B * B - 4.0 * A * C
    ok = disc >= 0
    sq = np.sqrt(np.where(ok, disc, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        A2 = 2.0 * _safe(A)
        r1, r2 = (-B - sq) / A2, (-B + sq) / A2
    t_side = np.full(d.shape[1], np.inf, dtype=np.float64)
    for r in (r2, r1):  # the smaller valid root wins
        z = Z0 + r * dz
        valid = ok & (r > EPS) & (z >= 0.0) & (z <= height)
        t_side = np.where(valid & (r < t_side), r, t_side)
    top_r = 1.0 - inset_frac
    with np.errstate(divide="ignore", invalid="ignore"):
        t_top = (height - Z0) / _safe(dz)
    xt, yt = X0 + t_top * qx, Y0 + t_top * qy
    rho2 = xt * xt + yt * yt
    top_hit = (t_top > EPS) & (rho2 <= top_r * top_r)
    t_top = np.where(top_hit, t_top, np.inf)
    on_top = t_top <= t_side
    t = np.minimum(t_top, t_side)
    tt = np.where(np.isfinite(t), t, 0.0)
    X, Y, Z = X0 + tt * qx, Y0 + tt * qy, Z0 + tt * dz
    nx = np.where(on_top, 0.0, X / a)
    ny = np.where(on_top, 0.0, Y / b)
    nz = np.where(on_top, 1.0, k * (1.0 - k * Z))
    nx, ny = _rotate_z(nx, ny, angle)
    norm = np.sqrt(nx * nx + ny * ny + nz * nz)
    normal = (np.stack([nx, ny, nz]) / norm).astype(np.float32)
    extra = np.where(on_top, np.sqrt(X * X + Y * Y) / top_r, Z)
    local = np.stack([X * a, Y * b, extra]).astype(np.float32)
    return t, normal, on_top.astype(np.int8), local


def ellipsoid(o: np.ndarray, d: np.ndarray, centre: np.ndarray, axes: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """An ellipsoid with semi-axes ``axes`` (x, y, z) rotated by ``angle`` about z: t and normal."""
    lx, ly = _rotate_z(np.array(o[0] - centre[0]), np.array(o[1] - centre[1]), -angle)
    p = np.array([float(lx) / axes[0], float(ly) / axes[1], float(o[2] - centre[2]) / axes[2]])
    dx, dy = _rotate_z(d[0], d[1], -angle)
    q = (dx / axes[0], dy / axes[1], d[2] / axes[2])
    A = q[0] * q[0] + q[1] * q[1] + q[2] * q[2]
    B = 2.0 * (p[0] * q[0] + p[1] * q[1] + p[2] * q[2])
    C = float(p @ p) - 1.0
    disc = B * B - 4.0 * A * C
    ok = disc >= 0
    t = (-B - np.sqrt(np.where(ok, disc, 0.0))) / (2.0 * A)
    t = np.where(ok & (t > EPS), t, np.inf)
    tt = np.where(np.isfinite(t), t, 0.0)
    X, Y, Z = p[0] + tt * q[0], p[1] + tt * q[1], p[2] + tt * q[2]
    nx, ny = _rotate_z(X / axes[0], Y / axes[1], angle)
    nz = Z / axes[2]
    norm = np.sqrt(nx * nx + ny * ny + nz * nz) + 1e-12
    return t, (np.stack([nx, ny, nz]) / norm).astype(np.float32)
