"""Is there a base's outline here? An a-contrario test of the photo's colour gradient along the outline a base of this
size would have at this place (Desolneux, Moisan and Morel's rule, as LSD and EDCircles use it).

Along the predicted outline (the envelope of the footprint and the top rim, through the camera: ``rays.outline_of``),
points are taken every ``POINT_SPACING_PX`` photo pixels; at each the colour gradient's orientation (the principal
direction of the three channels' gradients, whitened by the mat's own colour variation) is compared with the outline's
normal. On a mat with no base, the orientations are random: each lies within ``ALIGNMENT_TOLERANCE_DEG`` of the normal
with probability ``ALIGNED_CHANCE``, so k aligned points of n happen by chance with the binomial tail P[B(n, p) >= k].
Multiplied by the number of outlines that could have been tried (every place on the table, every catalogue size, every
height and bevel), that is the number of false alarms (NFA): an outline seen with NFA below 1 would occur less than
once by chance on the whole table. No threshold of ours decides, and the test neither needs a strong edge (a faint
rim aligned all round is as meaningful as a sharp one) nor believes a strong edge on part of the circle (a shadow, a
figure's arm, a printed line).
"""

from __future__ import annotations

import math

import numpy as np

from tabletop.photo.rays import outline_of, remap_photo, to_photo
from tabletop.photo.values import Rectified

ALIGNMENT_TOLERANCE_DEG = 22.5
"""A point's gradient counts as lying across the outline within this angle of its normal (LSD's tolerance)."""
ALIGNED_CHANCE = 2 * ALIGNMENT_TOLERANCE_DEG / 180.0
"""The chance that a random gradient orientation (0-180°: a base may be lighter or darker than the mat, and either
on different sides) lies within the tolerance of the normal: 1/4."""
POINT_SPACING_PX = 1.5
"""Points are this far apart along the outline in the photo. Each point's gradient is a central difference over
±1 px: points 1.5 px apart share little, and on bare mat their alignments were found independent (the aligned share
of 200 random circles scattered as a binomial's: 0.19-0.32 for 1/4 at 5-95 %)."""
OUTLINE_SAMPLES = 720
"""The predicted outline is traced at this many angles before being resampled by arc length (a 100 mm base at 0.3 mm
per pixel is 1,000 px round: a polygon of 720 sides lies within 0.01 px of it)."""
PROFILES_TRIED = 16
"""Outlines tried per place and size: heights and bevels (about four each) in the number of tests."""
GRID_MM = 1.0
"""Places are tried on this grid over the table (the candidate search's step)."""


def _log_factorials(n: int) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))])


def log10_binomial_tail(n: np.ndarray, k: np.ndarray, p: float = ALIGNED_CHANCE) -> np.ndarray:
    """log10 P[B(n, p) >= k] for arrays of n and k (exact: a sum of the binomial's terms)."""
    n = np.asarray(n, dtype=np.int64)
    k = np.asarray(k, dtype=np.int64)
    out = np.zeros(n.shape, dtype=np.float64)
    if not n.size:
        return out
    logf = _log_factorials(int(n.max()))
    lp, lq = math.log(p), math.log1p(-p)
    for idx in np.ndindex(n.shape):
        nn, kk = int(n[idx]), int(k[idx])
        if kk <= 0:
            continue
        if kk > nn:
            out[idx] = -np.inf
            continue
        i = np.arange(kk, nn + 1)
        terms = logf[nn] - logf[i] - logf[nn - i] + i * lp + (nn - i) * lq
        top = float(terms.max())
        out[idx] = (top + math.log(float(np.sum(np.exp(terms - top))))) / math.log(10.0)
    return out


def number_of_tests(rect: Rectified, sizes: int) -> float:
    """Every outline the detector could have tried on this table: places on ``GRID_MM``, ``sizes`` radii, profiles."""
    w, d = rect.table_mm
    return (w / GRID_MM) * (d / GRID_MM) * max(1, sizes) * PROFILES_TRIED


def outline_alignment(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray,
                      whiten: np.ndarray, extra: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per base (footprint ``centres`` mm, ``radii`` mm): the points tested along its predicted outline and how many of
    them have the colour gradient across it. ``extra``: the outline's reach past the footprint [n, OUTLINE_SAMPLES]
    (the catalogue profile's by default)."""
    m = len(centres)
    if m == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    centres = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
    radii = np.broadcast_to(np.asarray(radii, dtype=np.float64), (m,))
    angles = np.linspace(0, 2 * math.pi, OUTLINE_SAMPLES, endpoint=False)
    if extra is None:
        extra = outline_of(rect, centres, radii, angles)
    rho = radii[:, None] + extra
    ux, uy = to_photo(rect, centres[:, 0, None] + rho * np.cos(angles), centres[:, 1, None] + rho * np.sin(angles))
    ux, uy = ux.astype(np.float64), uy.astype(np.float64)
    # Resample each outline by arc length in the photo.
    xs, ys, owner = [], [], []
    for b in range(m):
        px, py = np.append(ux[b], ux[b, 0]), np.append(uy[b], uy[b, 0])
        arc = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(px), np.diff(py)))])
        count = max(8, int(arc[-1] / POINT_SPACING_PX))
        s = np.arange(count) * (arc[-1] / count)
        xs.append(np.interp(s, arc, px))
        ys.append(np.interp(s, arc, py))
        owner.append(np.full(count, b))
    x, y, who = np.concatenate(xs), np.concatenate(ys), np.concatenate(owner)
    # The outline's normal at each point: across the tangent to its neighbours on the same outline.
    starts = np.cumsum([0] + [len(v) for v in xs[:-1]])
    ends = starts + np.array([len(v) for v in xs])
    idx = np.arange(len(x))
    nxt = np.where(idx + 1 < ends[who], idx + 1, starts[who])
    prv = np.where(idx - 1 >= starts[who], idx - 1, ends[who] - 1)
    tx, ty = x[nxt] - x[prv], y[nxt] - y[prv]
    norm = np.hypot(tx, ty) + 1e-12
    nx, ny = ty / norm, -tx / norm
    # The colour gradient by central differences over ±1 px, whitened by the mat's variation.
    ix = np.stack([x + 1, x - 1, x, x], axis=1).astype(np.float32)
    iy = np.stack([y, y, y + 1, y - 1], axis=1).astype(np.float32)
    colour = remap_photo(rect, ix, iy)  # [points, 4, 3]
    z = (colour - mat_colour[who][:, None, :].astype(np.float32)) @ np.asarray(whiten, dtype=np.float32).T
    gx, gy = 0.5 * (z[:, 0] - z[:, 1]), 0.5 * (z[:, 2] - z[:, 3])
    sxx, syy, sxy = (gx * gx).sum(axis=1), (gy * gy).sum(axis=1), (gx * gy).sum(axis=1)
    theta = 0.5 * np.arctan2(2 * sxy, sxx - syy)  # the principal orientation of the three channels' gradients
    across = np.abs(np.cos(theta) * nx + np.sin(theta) * ny) >= math.cos(math.radians(ALIGNMENT_TOLERANCE_DEG))
    across &= (sxx + syy) > 0  # a flat patch (a clipped highlight, a JPEG block) has no orientation
    n = np.bincount(who, minlength=m)
    k = np.bincount(who, weights=across.astype(np.float64), minlength=m).astype(np.int64)
    return n, k


def log10_nfa(rect: Rectified, n: np.ndarray, k: np.ndarray, sizes: int) -> np.ndarray:
    """log10 of the number of false alarms of outlines with ``k`` of ``n`` points aligned: below 0, meaningful."""
    return math.log10(number_of_tests(rect, sizes)) + log10_binomial_tail(n, k)


def nearby_log10_nfa(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                     sizes: int, reach_mm: np.ndarray) -> np.ndarray:
    """Per base: the least log10 NFA of its outline at the places of the ``GRID_MM`` grid (offsets from its centre)
    within ``reach_mm`` of it, its own place included. Every one of those places is among the outlines
    ``number_of_tests`` counts, so the best of them is judged by the same number of false alarms: looking at a few of
    the counted places instead of one adds no test."""
    m = len(centres)
    best = np.full(m, np.inf)
    if m == 0:
        return best
    centres = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
    reach = np.broadcast_to(np.asarray(reach_mm, dtype=np.float64), (m,))
    steps = np.arange(-math.floor(float(reach.max()) / GRID_MM), math.floor(float(reach.max()) / GRID_MM) + 1) * GRID_MM
    offsets = np.array([(dx, dy) for dx in steps for dy in steps])
    owner, shift = np.nonzero(np.hypot(offsets[:, 0], offsets[:, 1])[None, :] <= reach[:, None] + 1e-9)
    n, k = outline_alignment(rect, centres[owner] + offsets[shift], np.asarray(radii, dtype=np.float64)[owner],
                             np.asarray(mat_colour)[owner], whiten)
    np.minimum.at(best, owner, log10_nfa(rect, n, k, sizes))
    return best
