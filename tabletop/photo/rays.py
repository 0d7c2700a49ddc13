"""Rays cast from a circle's centre on the table: sampling the photo along them, rim evidence, robust circle fits.

Every measurement is made in the original photo: points on the table (mm) are mapped into it through the
rectification's camera (its homography, and the lens where one is known), so the perspective is exact and a circle
on the table is a circle in the sampling space."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from tabletop.photo.values import Rectified, apply_homography

if TYPE_CHECKING:
    from tabletop.photo.camera import Distortion

FIT_RAYS = 120
FIT_ANGLES = np.linspace(0, 2 * math.pi, FIT_RAYS, endpoint=False)
"""The fine rays' directions round a circle (radians from the table's x axis), read-only: every stage that reads a
base's outline on ``FIT_RAYS`` rays reads it on these."""
FIT_ANGLES.flags.writeable = False
GATE_MM = 1.2
"""Rim points are tested for mat colour this far outside and not-mat colour this far inside (at least)."""
GATE_SIGMAS = 2.0
EVIDENCE_UNIT = 1.0
"""Rim evidence (whitened colour units per mm) that counts as a ray seeing the rim."""
CORRELATION = 1.5
"""Neighbouring rays see overlapping pixels (blur, JPEG blocks): inflate the fit's error by this much."""
TO_PHOTO_PIECE = 1 << 15
"""Points mapped at a time by :func:`to_photo` (its temporaries then fit a core's cache)."""
REMAP_ROWS = 30000
"""``cv2.remap``'s maps must stay under 32767 rows."""


def fit_circle(points: np.ndarray) -> tuple[np.ndarray, float]:
    """Algebraic (Kåsa) circle through points: centre, radius."""
    x, y = points[:, 0], points[:, 1]
    a = np.column_stack([x, y, np.ones_like(x)])
    b = x * x + y * y
    sol, *_ = np.linalg.lstsq(a, b, rcond=None)
    cx, cy = sol[0] / 2, sol[1] / 2
    return np.array([cx, cy]), float(math.sqrt(max(sol[2] + cx * cx + cy * cy, 1e-12)))


def top_down(rect: Rectified, px_per_mm: float) -> np.ndarray:
    """The table seen from straight above at ``px_per_mm`` (row 0 = far edge), through the rectification's camera."""
    if abs(rect.px_per_mm - px_per_mm) < 1e-9:
        return rect.image
    from tabletop.photo.rectify import rectify

    w, d = rect.table_mm
    pts = apply_homography(rect.homography, np.array([[0, 0], [w, 0], [w, d], [0, d]], dtype=float))
    c = tuple((float(x), float(y)) for x, y in pts)
    return rectify(rect.source, (c[0], c[1], c[2], c[3]), rect.table_mm, px_per_mm, camera=rect.camera).image


def to_photo(rect: Rectified, px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Table points (any shape, mm) to the photo's pixels as float32 maps for ``cv2.remap``: the homography, then the
    lens where the camera has one."""
    px, py = np.broadcast_arrays(np.asarray(px, dtype=np.float64), np.asarray(py, dtype=np.float64))
    shape = px.shape
    flat_x, flat_y = px.reshape(-1), py.reshape(-1)
    out_x, out_y = np.empty(flat_x.size, np.float32), np.empty(flat_x.size, np.float32)
    h = rect.homography
    lens = rect.camera.distortion if rect.camera is not None else None
    bent = lens if lens is not None and not lens.identity else None
    # In pieces that stay in the processor's cache: a ray fit maps millions of points, and a dozen whole-array
    # temporaries made this a quarter of a textured photo's analysis. Each piece is worked in arrays made once, by
    # the formula's own operations in its order (a·x + b·y + c, then the lens's c + (u - c)·g).
    size = min(flat_x.size, TO_PHOTO_PIECE)
    w, ux, uy, part = (np.empty(size) for _ in range(4))
    for i in range(0, flat_x.size, TO_PHOTO_PIECE):
        x, y = flat_x[i:i + TO_PHOTO_PIECE], flat_y[i:i + TO_PHOTO_PIECE]
        k = len(x)
        w_, ux_, uy_, part_ = w[:k], ux[:k], uy[:k], part[:k]
        np.multiply(x, h[2, 0], out=w_)
        w_ += np.multiply(y, h[2, 1], out=part_)
        w_ += h[2, 2]
        np.multiply(x, h[0, 0], out=ux_)
        ux_ += np.multiply(y, h[0, 1], out=part_)
        ux_ += h[0, 2]
        ux_ /= w_
        np.multiply(x, h[1, 0], out=uy_)
        uy_ += np.multiply(y, h[1, 1], out=part_)
        uy_ += h[1, 2]
        uy_ /= w_
        _lens_into(bent, ux_, uy_, w_, part_, out_x[i:i + k], out_y[i:i + k])
    return out_x.reshape(shape), out_y.reshape(shape)


def _lens_into(bent: Distortion | None, ux: np.ndarray, uy: np.ndarray, spare: np.ndarray, spare2: np.ndarray,
               out_x: np.ndarray, out_y: np.ndarray) -> None:
    """The lens's c + (u - c)·g, g = 1 + k1·r2 + k2·r2·r2, in its operations' order, from undistorted pixels ``ux``,
    ``uy`` (overwritten, as are the two spare arrays of their shape) into ``out_x``, ``out_y``."""
    if bent is None:
        out_x[...] = ux
        out_y[...] = uy
        return
    cx, cy = bent.centre
    ux -= cx  # u - c, kept for c + (u - c)·g
    uy -= cy
    r2, q = np.divide(ux, bent.scale, out=spare), np.divide(uy, bent.scale, out=spare2)
    r2 *= r2
    q *= q
    r2 += q  # qx·qx + qy·qy
    np.multiply(r2, bent.k2, out=q)
    q *= r2  # k2·r2·r2
    r2 *= bent.k1
    r2 += 1.0
    r2 += q  # g
    ux *= r2
    uy *= r2
    np.add(ux, cx, out=out_x)
    np.add(uy, cy, out=out_y)


def to_photo_grid(rect: Rectified, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``to_photo(rect, *np.meshgrid(xs, ys))`` to the bit: the homography's products of a column's x and a row's y
    worked out once per column and row, its sums, quotients and the lens per point as there."""
    h = rect.homography
    xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
    lens = rect.camera.distortion if rect.camera is not None else None
    w = (xs * h[2, 0])[None, :] + (ys * h[2, 1])[:, None]
    w += h[2, 2]
    ux = (xs * h[0, 0])[None, :] + (ys * h[0, 1])[:, None]
    ux += h[0, 2]
    ux /= w
    uy = (xs * h[1, 0])[None, :] + (ys * h[1, 1])[:, None]
    uy += h[1, 2]
    uy /= w
    out_x, out_y = np.empty(ux.shape, np.float32), np.empty(ux.shape, np.float32)
    _lens_into(lens if lens is not None and not lens.identity else None, ux, uy, w, np.empty_like(w), out_x, out_y)
    return out_x, out_y


def remap_photo(rect: Rectified, ix: np.ndarray, iy: np.ndarray) -> np.ndarray:
    """The photo's colours at pixel maps (any 2-D shape), float32, in pieces small enough for ``cv2.remap``."""
    return np.concatenate([
        cv2.remap(rect.source, ix[i:i + REMAP_ROWS], iy[i:i + REMAP_ROWS], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        for i in range(0, len(ix), REMAP_ROWS)
    ]).astype(np.float32)


def sample_rays(rect: Rectified, centres: np.ndarray, t: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Photo colours at table points centre + t·(cos a, sin a): [n, rays, len(t) per row, 3] float32.

    ``t`` is [n, m] (one radius list per centre) or [n, rays, m] (one per ray).
    """
    ux, uy = np.cos(angles), np.sin(angles)
    tt = t if t.ndim == 3 else t[:, None, :]
    n, k, m = len(centres), len(angles), tt.shape[2]
    channels = rect.source.shape[2] if rect.source.ndim == 3 else 1
    out = np.empty((n, k, m, channels), np.float32)
    # A few centres at a time: their points, maps and colours stay in the cache (each sample is on its own, so the
    # colours are those of all centres at once).
    block = max(1, TO_PHOTO_PIECE // max(1, k * m))
    for i in range(0, n, block):
        part = slice(i, i + block)
        px = centres[part, 0, None, None] + tt[part] * ux[None, :, None]
        py = centres[part, 1, None, None] + tt[part] * uy[None, :, None]
        ix, iy = to_photo(rect, px, py)
        rows = ix.shape[0] * k
        ix, iy = ix.reshape(rows, m), iy.reshape(rows, m)
        colours = out[part].reshape(rows, m, channels)  # a view: remap's bytes go straight in as float32
        for j in range(0, rows, REMAP_ROWS):
            piece = colours[j:j + REMAP_ROWS]
            piece[...] = cv2.remap(rect.source, ix[j:j + REMAP_ROWS], iy[j:j + REMAP_ROWS], cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE).reshape(piece.shape)
    return out


@dataclass(frozen=True)
class Scale:
    """Lengths along the rays that follow the photo's resolution on the table (its blur, in mm)."""

    mm_per_px: float
    """Table millimetres per photo pixel where the photo is coarsest on the table (the far edge)."""

    @property
    def gate_mm(self) -> float:
        return max(GATE_MM, 2.0 * self.mm_per_px)

    @property
    def coarse(self) -> bool:
        """Whether the blur is wide enough to spread the half-way level over millimetres (over 0.9 mm a pixel; the
        user is told a photo is coarse from 0.85 mm, ``values.COARSE_MM_PER_PX``, where recall was seen to fall)."""
        return self.gate_mm > 1.5 * GATE_MM

    @property
    def widen(self) -> float:
        """How much wider than on a sharp photo the half-level bands are (the gate's growth with the blur)."""
        return max(1.0, self.gate_mm / GATE_MM)

    @property
    def smooth_mm(self) -> float:
        return max(0.25, 0.4 * self.mm_per_px)

    @property
    def rms_mm(self) -> float:
        """Scatter of rim points expected on a faint rim: 120 of them still place the centre to ~0.1 mm."""
        return max(0.8, 1.4 * self.mm_per_px)


def mm_per_px_at(rect: Rectified, points_mm: np.ndarray) -> np.ndarray:
    """Table millimetres per photo pixel at table points (n, 2): the mean of the two axes' local scales."""
    p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    q = apply_homography(rect.homography, p)
    inv = np.linalg.inv(rect.homography)
    dx = np.linalg.norm(apply_homography(inv, q + [1.0, 0.0]) - p, axis=1)
    dy = np.linalg.norm(apply_homography(inv, q + [0.0, 1.0]) - p, axis=1)
    return 0.5 * (dx + dy)


def photo_scale(rect: Rectified) -> Scale:
    """Scale of the photo on the table: the largest mm per pixel over the table's corners and centre."""
    w, d = rect.table_mm
    inv = np.linalg.inv(rect.homography)
    worst = 0.0
    for x, y in ((0, 0), (w, 0), (w, d), (0, d), (w / 2, d / 2)):
        p = apply_homography(rect.homography, np.array([[x, y]], dtype=float))[0]
        q = apply_homography(inv, np.array([p, p + [1, 0], p + [0, 1]]))
        worst = max(worst, 0.5 * (float(np.linalg.norm(q[1] - q[0])) + float(np.linalg.norm(q[2] - q[0]))))
    return Scale(worst)


def channel_norm(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """``np.linalg.norm(values, axis=axis)`` of a float array to the bit, ten times faster over a few colour channels:
    below eight values numpy's sum adds them one by one in order, as the channel planes' squares are added here
    (its strided reduction over a short axis is what costs)."""
    count = values.shape[axis]
    if not 0 < count < 8 or not np.issubdtype(values.dtype, np.floating):
        return np.linalg.norm(values, axis=axis)
    planes = np.moveaxis(values, axis, 0)
    total = planes[0] * planes[0]
    for plane in planes[1:]:
        total += plane * plane
    return np.sqrt(total, out=total)


def less_colour(samples: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """``samples - colour`` with a colour per centre [n, c], per centre and ray [n, rays, c] (any leading axes of the
    samples) or one colour [c] taken from the samples [n, ..., m, c], the same values: numpy's broadcast over a short
    last axis runs a three-element loop per sample, so the colour is repeated along each row of ``m`` samples and
    subtracted from rows of m·c values (four times faster)."""
    colour = np.asarray(colour)
    m, c = samples.shape[-2:]
    lead = samples.shape[:-2]
    tiled = np.tile(colour, m)  # [..., m·c]: c0 c1 c2 c0 c1 c2 ...
    if colour.ndim > 1:
        tiled = tiled.reshape(*colour.shape[:-1], *([1] * (len(lead) - (colour.ndim - 1))), m * c)
    return (samples.reshape(*lead, m * c) - tiled).reshape(samples.shape)


def whitened(samples: np.ndarray, colour: np.ndarray, whiten: np.ndarray) -> np.ndarray:
    """``(samples - colour) @ whiten.T`` with the colour as :func:`less_colour` takes it: samples [n, ..., m, c] as
    whitened distances from each centre's (or ray's) mat colour (the same matrix product on the same values).

    ``whiten`` is one matrix [c, c] or one per centre [n, c, c]: then each centre's rows are multiplied by its own
    (numpy's matmul multiplies each [m, c] row block by its matrix alike, however many centres are stacked)."""
    if whiten.ndim == 3:
        return less_colour(samples, colour) @ np.swapaxes(whiten, 1, 2).reshape(len(whiten), *([1] * (samples.ndim - 3)),
                                                                                 *whiten.shape[1:][::-1])
    return less_colour(samples, colour) @ whiten.T


def rim_evidence(samples: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray, step: float,
              smooth: float, gate_mm: float, within: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """[n, rays, m] twice: rim evidence (the whitened colour change per mm where just outside is mat and
    just inside is not) and how fast the whitened distance from the mat falls per mm.

    The evidence says which edge is the rim; the fall locates it (the gates lean the evidence's peak
    outwards on a blurred edge). ``within``: the evidence is wanted only on samples lo..hi - 1 along each ray
    (1 <= lo, hi <= m - 1); it is 0 elsewhere, each sample's value within as without it.
    """
    # The mat's colour per base [n, 3], or per base and ray [n, rays, 3] (the mat round a base can vary round it).
    z = whitened(samples, mat_colour, whiten)
    n, r, m, c = z.shape
    # Each channel's samples along a ray in a row of their own [n, rays, c, m]: the smoothing filters rows, and the
    # norms below add the channel planes' squares in order, as ``np.linalg.norm`` over the last axis does
    # (``channel_norm``), without its strided reduction over three values.
    planes = np.ascontiguousarray(z.transpose(0, 1, 3, 2))
    if smooth > 0:
        k = max(1, int(math.ceil(2.5 * smooth / step)))
        x = np.arange(-k, k + 1) * step
        g = np.exp(-0.5 * (x / smooth) ** 2).astype(np.float32)
        g /= g.sum()
        planes = cv2.filter2D(planes.reshape(-1, m), -1, g[None, :], borderType=cv2.BORDER_REPLICATE).reshape(n, r, c, m)
    lo, hi = within if within is not None else (1, m - 1)
    grad = np.zeros((n, r, hi - lo), np.float32)  # samples lo..hi - 1 (the first and last have no gradient: 0)
    grad[...] = channel_norm(planes[..., lo + 1:hi + 1] - planes[..., lo - 1:hi - 1], axis=2) / (2 * step)
    plain = channel_norm(planes, axis=2)
    # How fast the colour approaches the mat's, going outwards: peaks where the rim's step is steepest,
    # without the upward bias the norm of a noisy gradient has on a faint, blurred edge.
    drop = np.zeros((n, r, m), np.float32)
    drop[:, :, 1:-1] = (plain[:, :, :-2] - plain[:, :, 2:]) / (2 * step)
    dist = plain / GATE_SIGMAS
    g = int(round(gate_mm / step))
    # The gates read the same distances shifted ``g`` samples either way: each sample's normal worked out once, the
    # samples shifted past the ends at distance 10 outside (nowhere near the mat) and 0 inside, as before.
    near = np.exp(-0.5 * dist ** 2)
    beyond = np.exp(-0.5 * np.full((1,), 10.0, dist.dtype) ** 2)
    outside = np.empty_like(near)
    inside = np.empty_like(near)
    outside[:, :, :m - g] = near[:, :, g:]
    outside[:, :, m - g:] = beyond
    inside[:, :, g:] = near[:, :, :m - g]
    inside[:, :, :g] = np.exp(-0.5 * np.zeros((1,), dist.dtype) ** 2)
    part = grad * outside[:, :, lo:hi] * (1.0 - inside[:, :, lo:hi])
    evidence = np.zeros((n, r, m), part.dtype)
    evidence[:, :, lo:hi] = part
    return evidence, drop


def nan_row_median(values: np.ndarray) -> np.ndarray:
    """Each row's median of its values that are not NaN, NaN where all are: ``np.nanmedian(values, axis=1)`` to the
    bit, without its masked-array path for short rows (a sixth of the time) or its warning."""
    ordered = np.sort(values, axis=1)  # NaN last
    count = np.count_nonzero(~np.isnan(values), axis=1)
    rows = np.arange(len(values))
    low = ordered[rows, np.maximum(count - 1, 0) // 2]
    high = ordered[rows, np.minimum(count // 2, values.shape[1] - 1)]
    return np.where(count > 0, (low + high) / 2, np.nan)


def row_median(values: np.ndarray) -> np.ndarray:
    """``np.median(values, axis=-1)`` of a float array to the bit, five times faster: one partition at the middle, the
    lower middle of an even count the largest value below it (numpy partitions at both middles and at the end, to
    find NaNs; a row with one is NaN here too)."""
    count = values.shape[-1]
    if count == 0 or not np.issubdtype(values.dtype, np.floating):
        return np.median(values, axis=-1)
    half = count // 2
    part = np.partition(values, half, axis=-1)
    high = part[..., half]
    middle = high.copy() if count % 2 else (part[..., :half].max(axis=-1) + high) / 2
    return np.where(np.isnan(values).any(axis=-1), np.nan, middle).astype(middle.dtype, copy=False)


def sorted_median(values: np.ndarray, axis: int) -> np.ndarray:
    """``np.median(values, axis)`` of a floating array to the bit, from a sorted copy: the middle value, or the mean of
    the middle two; NaN where a row holds one, as numpy's. (-0.0 and 0.0 tie: a row holding both may give either; the
    doubt tests' steps and gradients are never -0.0.) Rows of a few hundred sort faster than numpy partitions them along
    an axis that is not the last (5x on the doubt tests' [slopes, samples, lines, channels])."""
    ordered = np.sort(np.moveaxis(values, axis, -1), axis=-1)
    n = ordered.shape[-1]
    if n == 0:
        return np.median(values, axis=axis)
    middle = ordered[..., n // 2] if n % 2 else np.mean(ordered[..., n // 2 - 1:n // 2 + 1], axis=-1)
    return np.where(np.isnan(ordered[..., -1]), ordered.dtype.type(np.nan), middle)


def tukey_circle(rho: np.ndarray, usable: np.ndarray, design: np.ndarray, params: np.ndarray,
                  iterations: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Rim distances ``rho`` [n, rays] (used where ``usable``) fitted as R + dx·cos a + dy·sin a by Tukey-weighted
    least squares (IRLS from ``params`` [n, 3], all circles at once): the parameters and the last weights.

    Rays through an overhanging miniature, a weapon or a neighbour end with weight 0.
    """
    weights = usable.astype(float)
    for _ in range(iterations):
        res = rho - params @ design.T
        spread = nan_row_median(np.where(usable & (weights > 0), np.abs(res), np.nan))  # NaN where no ray is in use
        spread = np.where(np.isfinite(spread), np.maximum(1.4826 * spread, 0.08), 1.0)
        u = res / (4.685 * spread[:, None])
        weights = np.where(usable & (np.abs(u) < 1), (1 - u * u) ** 2, 0.0)
        ata = np.einsum("nk,ki,kj->nij", weights, design, design) + 1e-9 * np.eye(design.shape[1])
        atb = np.einsum("nk,ki,nk->ni", weights, design, rho)
        params = np.linalg.solve(ata, atb[..., None])[..., 0]
    return params, weights


def centre_spread(inlier: np.ndarray, design: np.ndarray) -> np.ndarray:
    """The largest variance of a fitted centre per unit residual variance, for each circle fitted on the rays
    ``inlier`` [n, rays] of ``design`` [rays, k] (the centre its last two columns): 2/n on a full circle of n
    rays, far more on a short arc, where a free radius and the centre trade off along the arc's axis."""
    ata = np.einsum("nk,ki,kj->nij", inlier.astype(float), design, design) + 1e-9 * np.eye(design.shape[1])
    block = np.linalg.inv(ata)[:, -2:, -2:]
    a, b, c = block[:, 0, 0], block[:, 0, 1], block[:, 1, 1]
    return (a + c) / 2 + np.sqrt(((a - c) / 2) ** 2 + b * b)


def shifted_starts(centres: np.ndarray, pairs: list[tuple[int, float, float, float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Starts of a rim search from ``pairs`` (detection, start radius, shift x, shift y): the detections' rows,
    the radii and the shifted centres."""
    rows = np.array([k for k, *_ in pairs])
    radii = np.array([rc for _, rc, _, _ in pairs])
    return rows, radii, centres[rows] + np.array([(dx, dy) for *_, dx, dy in pairs])


# --- a base's outline in the table plane -------------------------------------------------------------------------

HULL_STEPS = 33
"""Discs between a base's footprint and its top rim whose envelope is the outline (error well under 0.01 mm)."""


def rim_geometry(rect: Rectified, centres: np.ndarray, radii: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each base's top rim is seen in the table plane: its centre's shift from the footprint's (n, 2; away from
    the camera) and its radius (n). Zero shift and the footprint's radius where the camera or the height is unknown."""
    from tabletop.photo import base_profile

    n = len(centres)
    radii = np.broadcast_to(np.asarray(radii, dtype=np.float64), (n,))
    cam = rect.camera
    if cam is None or n == 0:
        return np.zeros((n, 2)), radii.copy()
    height, bevel = base_profile(2 * radii, rect.base_height_mm)
    if not np.any(height > 0):
        return np.zeros((n, 2)), radii.copy()
    shift = cam.rim_shift(np.asarray(centres, dtype=np.float64).reshape(-1, 2), height)
    return shift, np.maximum(radii - bevel, 0.0) * cam.rim_scale(height)


def outline_extra(angles: np.ndarray, radii: np.ndarray, shift: np.ndarray, top: np.ndarray) -> np.ndarray:
    """[n, rays]: how much further than the footprint's radius a base's outline lies along each ray from its footprint's
    centre, in the table plane.

    A base is a solid between its footprint (a disc of radius R on the mat) and its top rim (a smaller or equal disc,
    seen in the table plane shifted away from the camera and slightly enlarged): the photo shows the outline of both,
    the envelope of the discs between them. Towards the camera that is the footprint's edge; away from it, the top
    rim's where it stands out past the footprint.
    """
    n = len(radii)
    if n == 0 or not np.any(shift):
        return np.zeros((n, len(angles)))
    lam = np.linspace(0.0, 1.0, HULL_STEPS)
    cx = shift[:, 0, None] * lam[None, :]  # [n, steps]
    cy = shift[:, 1, None] * lam[None, :]
    r = (1 - lam)[None, :] * radii[:, None] + lam[None, :] * top[:, None]
    centre2, r2 = cx * cx + cy * cy, r * r
    ux, uy = np.cos(angles), np.sin(angles)
    if n * len(angles) * HULL_STEPS <= TO_PHOTO_PIECE:
        # Small enough for the cache whole (an area fit's one outline): one pass, no loop's per-disc overhead.
        proj = cx[:, None, :] * ux[None, :, None] + cy[:, None, :] * uy[None, :, None]  # [n, rays, steps]
        disc = proj * proj - centre2[:, None, :] + r2[:, None, :]
        return np.max(np.where(disc >= 0, proj + np.sqrt(np.maximum(disc, 0.0)), -np.inf), axis=2) - radii[:, None]
    # The outline's reach along a ray from the footprint's centre, disc by disc, is a concave function of the disc's
    # place between footprint and top rim (the discs' radii and centres both move linearly: the square root of a
    # difference of squares along a line inside a light cone). Where the first disc's already falls (or the last's
    # still rises) by more than the rounding of any disc's, no other disc's can pass it: the first (or last) two decide.
    # The few rays between (across the sides, where the top rim and the footprint's edges cross) take every disc.
    ends = [_disc_reach(cx[:, j, None], cy[:, j, None], ux[None, :], uy[None, :], centre2[:, j, None], r2[:, j, None])
            for j in (0, 1, HULL_STEPS - 2, HULL_STEPS - 1)]
    far = np.maximum(np.maximum(ends[0], ends[1]), np.maximum(ends[2], ends[3]))
    reach = np.hypot(shift[:, 0], shift[:, 1])
    with np.errstate(invalid="ignore", over="ignore"):
        slack = OUTLINE_ROUNDING * (np.maximum(radii, top) + reach + 1.0)  # [n]: far above any disc's rounding
        # A disc not crossed in truth but crossed after rounding reaches no further than its centre (its shift), plus
        # the rounding's square root: under the footprint's own reach wherever the shift is shorter than the radius.
        sound = ((reach + 4 * slack < radii) & (top >= 0))[:, None]
        falls = ends[1] < ends[0] - 2 * slack[:, None]
        rises = (ends[3] > ends[2] + 2 * slack[:, None]) & (ends[2] > (reach + slack)[:, None])
        decided = sound & (falls | rises)
    rows, cols = np.nonzero(~decided)
    if len(rows):
        far[rows, cols] = _every_disc(cx[rows].T.copy(), cy[rows].T.copy(), ux[cols], uy[cols], centre2[rows].T.copy(),
                                      r2[rows].T.copy())
    return far - radii[:, None]


OUTLINE_ROUNDING = 1e-6
"""Bound on a disc's reach's rounding error relative to the lengths involved (the worst, a square root of a rounded
difference near 0, is under 1e-7 of them)."""


def _disc_reach(cx: np.ndarray, cy: np.ndarray, ux: np.ndarray, uy: np.ndarray, centre2: np.ndarray,
                r2: np.ndarray) -> np.ndarray:
    """Where rays of direction (ux, uy) from the origin leave discs of centre (cx, cy), squared distance ``centre2``,
    squared radius ``r2`` (broadcast), -inf where they miss: :func:`outline_extra`'s formula in its operations' order."""
    proj = cx * ux
    proj += cy * uy  # the disc's centre projected on each ray
    disc = proj * proj
    disc -= centre2
    disc += r2
    crossed = disc >= 0
    np.maximum(disc, 0.0, out=disc)
    np.sqrt(disc, out=disc)
    disc += proj  # where the ray leaves the disc
    np.copyto(disc, -np.inf, where=~crossed)
    return disc


def _every_disc(cx: np.ndarray, cy: np.ndarray, ux: np.ndarray, uy: np.ndarray, centre2: np.ndarray,
                r2: np.ndarray) -> np.ndarray:
    """The furthest :func:`_disc_reach` over every disc, for rays given one by one: ``cx``, ``cy``, ``centre2``,
    ``r2`` [steps, rays] (each ray's base's discs), ``ux``, ``uy`` [rays]."""
    far = np.full(len(ux), -np.inf)
    # One disc at a time, the furthest kept: arrays of a row of rays stay in the cache; the whole formula's operations
    # in its order, into arrays made once (half the time of fresh ones each step).
    proj, disc, part = np.empty_like(far), np.empty_like(far), np.empty_like(far)
    crossed = np.empty(far.shape, dtype=bool)
    for j in range(len(cx)):
        np.multiply(cx[j], ux, out=proj)
        np.multiply(cy[j], uy, out=part)
        proj += part
        np.multiply(proj, proj, out=disc)
        disc -= centre2[j]
        disc += r2[j]
        np.greater_equal(disc, 0, out=crossed)
        np.maximum(disc, 0.0, out=disc)
        np.sqrt(disc, out=disc)
        disc += proj
        np.copyto(disc, -np.inf, where=~crossed)
        np.maximum(far, disc, out=far)
    return far


def outline_of(rect: Rectified, centres: np.ndarray, radii: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """[n, rays]: :func:`outline_extra` for footprints of ``radii`` at ``centres`` (mm) in this photo."""
    shift, top = rim_geometry(rect, centres, radii)
    return outline_extra(angles, np.broadcast_to(np.asarray(radii, dtype=np.float64), (len(centres),)), shift, top)
