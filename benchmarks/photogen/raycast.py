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


def plane_z(o: np.ndarray, d: np.ndarray, z: float) -> np.ndarray:
    """Ray parameter at the horizontal plane at height ``z`` (inf where it is behind or parallel)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (z - float(o[2])) / _safe(d[2])
    return np.where(t > EPS, t, np.inf)


def plane_y(o: np.ndarray, d: np.ndarray, y: float) -> np.ndarray:
    """Ray parameter at the vertical plane y = const."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (y - float(o[1])) / _safe(d[1])
    return np.where(t > EPS, t, np.inf)


def box(o: np.ndarray, d: np.ndarray, centre: tuple[float, float], half: tuple[float, float], z0: float, z1: float,
        angle: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A box rotated by ``angle`` (rad) about z; returns t, normal, face (0 +-x, 1 +-y, 2 top/bottom) and local (3, m) coordinates."""
    lx, ly = _rotate_z(np.array(o[0] - centre[0]), np.array(o[1] - centre[1]), -angle)
    dx, dy = _rotate_z(d[0], d[1], -angle)
    dz = d[2]
    lo = (float(lx), float(ly), float(o[2]))
    bounds = ((-half[0], half[0]), (-half[1], half[1]), (z0, z1))
    tmins, tmaxs = [], []
    with np.errstate(divide="ignore", invalid="ignore"):
        for oi, di, (a, b) in zip(lo, (dx, dy, dz), bounds):
            inv = 1.0 / _safe(di)
            t1, t2 = (a - oi) * inv, (b - oi) * inv
            tmins.append(np.minimum(t1, t2))
            tmaxs.append(np.maximum(t1, t2))
    near = np.maximum(np.maximum(tmins[0], tmins[1]), tmins[2])
    far = np.minimum(np.minimum(tmaxs[0], tmaxs[1]), tmaxs[2])
    hit = (near <= far) & (near > EPS)
    t = np.where(hit, near, np.inf)
    face = np.where(near == tmins[2], 2, np.where(near == tmins[1], 1, 0)).astype(np.int8)
    zero = np.float32(0.0)
    nlx = np.where(face == 0, -np.sign(dx), zero)
    nly = np.where(face == 1, -np.sign(dy), zero)
    nz = np.where(face == 2, -np.sign(dz), zero)
    nx, ny = _rotate_z(nlx, nly, angle)
    normal = np.stack([nx, ny, nz]).astype(np.float32)
    tt = np.where(hit, near, zero)
    local = np.stack([lo[0] + tt * dx, lo[1] + tt * dy, lo[2] + tt * dz]).astype(np.float32)
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
