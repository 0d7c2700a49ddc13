"""Round bases on the rectified table: candidates, a polar search over catalogue sizes, a sub-pixel rim fit.

1. *Candidates* (``candidates``) on a 1 px/mm top-down image, from two sources: ``cv2.HoughCircles``
   (grey and "not mat" images), and blobs of "not mat" pixels — the colour difference from a smooth
   estimate of the mat, whitened by the mat's own colour variation (its texture is mostly lightness, so
   a base that differs only in hue stands out) — whose distance-transform peaks give centre and a lower
   bound on the radius. Hough misses faint rims (Canny's threshold); blobs miss bases whose miniature
   is mat-coloured; together they miss few.
2. *Which circle* (``_search``): rays are cast from each candidate in table millimetres and mapped
   through the homography into the photo, so the perspective is exact. Along each ray, rim evidence is
   the (whitened) colour change where the photo just outside looks like the mat and just inside it
   does not: a miniature's edges, a painted bevel's inner border and mat texture fail one of the two.
   The circle (centre offset on a 1 mm grid, radius from the catalogue) with the most rays carrying
   evidence goes on, with a clearly larger one nearly as well seen, if any: the rim is a base's
   outermost edge, and a bright miniature on a dark base makes a ring inside it.
3. *Rim fit* (``_fit``): 120 rays about that circle, 0.1 mm steps. On each ray the evidence's peak says
   which edge is the rim and the steepest fall towards the mat's colour near it (sub-sample, by a
   parabola) says where. Rays cast from within a millimetre of the centre see the rim at
   rho = R + dx cos a + dy sin a: a linear model, fitted with Tukey weights (rays through an
   overhanging miniature or a weapon are outliers) for all candidates at once; twice, re-centred. The
   diameter is snapped to the catalogue and the centre re-fitted with the radius held; the residuals
   give the position uncertainty.
4. *Decide*: confidence from the fraction of rays on the rim, their scatter, the rim's strength and the
   size's fit; a ring inside a larger rim seen all round is dropped (a base cannot stand on a base: it is
   the miniature's outline), then of overlapping detections the surer is kept (see 6).

5. *Measure again* (``_half_level_centres``): where the colour is half-way from the base's to the mat's, the
   same level on every ray, so a bevel of the mat's colour cannot pull the centre; faint rims just under the
   bar are re-scored with that fit's scatter. *A larger rim* (``_outer_rims``): round each detection, a larger
   catalogue rim seen all round is the base, and the detection its figure's outline; one seen on most rays (a
   figure hiding the rest) is too where the larger disc has an area fit, and their distance goes into the sigma.
6. *Unsure ones* (``_median_centres``): the median of the centre found, an area fit of the catalogue disc
   (``_disc_centre``: the base's colour against the mat's over its whole area, not its faint rim), the half-level
   fit started a size larger and, where the half-level centre was taken, the rim fit's; how far they disagree
   goes into the sigma, and into the choice between overlapping detections (a circle drawn round a base and
   its weapon disagrees with itself by millimetres; the base's own rim does not).

Lengths along the rays (the colour gates, smoothing, the expected scatter) grow with the photo's mm per
pixel on the table (``photo_scale``), so a coarse photo's blur is not mistaken for two edges.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import cv2
import numpy as np

from tabletop.photo import BASE_SIZES_MM
from tabletop.photo.values import Detection, Rectified, apply_homography

CANDIDATE_PX_PER_MM = 1.0
HOUGH_PX_PER_MM = 1.0
MIN_CONFIDENCE = 0.2
MAX_CANDIDATES = 1500
NOT_MAT_SIGMAS = 4.0
"""A pixel is "not mat" beyond this whitened distance from the local mat colour."""
BLOB_CLOSE_PX = 5
"""The not-mat mask is closed by a square this wide (odd: an even kernel shifts it) before its distance transform:
a weapon across a base, nearly the mat's colour, cuts the base's blob in two and halves its peak (seed 2184: a 60 mm
base's peak 12 px, no candidate offered 30 mm, and the base was reported as a 25 mm circle on its figure 10.9 mm off).
On 930 photos 94 more bases were found (recall 98.26 -> 98.51 %), precision and sizes as before; 9 bases were lost
where a candidate moved by a pixel now settles on a larger circle round the base, which the fit then drops (814)."""
SEARCH_RAYS = 48
FIT_RAYS = 120
GATE_MM = 1.2
"""Rim points are tested for mat colour this far outside and not-mat colour this far inside (at least)."""
GATE_SIGMAS = 2.0
EVIDENCE_UNIT = 1.0
"""Rim evidence (whitened colour units per mm) that counts as a ray seeing the rim."""
CORRELATION = 1.5
"""Neighbouring rays see overlapping pixels (blur, JPEG blocks): inflate the fit's error by this much."""


def fit_circle(points: np.ndarray) -> tuple[np.ndarray, float]:
    """Algebraic (Kåsa) circle through points: centre, radius."""
    x, y = points[:, 0], points[:, 1]
    a = np.column_stack([x, y, np.ones_like(x)])
    b = x * x + y * y
    sol, *_ = np.linalg.lstsq(a, b, rcond=None)
    cx, cy = sol[0] / 2, sol[1] / 2
    return np.array([cx, cy]), float(math.sqrt(max(sol[2] + cx * cx + cy * cy, 1e-12)))


# --- 1. candidates ---------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class MatModel:
    """The mat's colour on the top-down image, smooth at two scales, and a whitening of its variation."""

    near: np.ndarray
    """BGR float32, same size as the top-down image: the median over a 124 mm window (follows the mat's blotches)."""
    wide: np.ndarray
    """The same over 248 mm: for large bases, which would fill a good part of the narrow window."""
    whiten: np.ndarray
    """3x3: whitened = whiten @ (colour - mat)."""

    def at(self, xy_px: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
        """Mat colour at top-down pixel positions (n, 2) around something of about the given radius."""
        h, w = self.near.shape[:2]
        ix = np.clip(np.round(xy_px[:, 0]).astype(int), 0, w - 1)
        iy = np.clip(np.round(xy_px[:, 1]).astype(int), 0, h - 1)
        return np.where((radius_px < WIDE_MAT_RADIUS_PX)[:, None], self.near[iy, ix], self.wide[iy, ix])


WIDE_MAT_RADIUS_PX = 27.0


def mat_model(top: np.ndarray) -> MatModel:
    """Smooth mat colour (31-pixel medians of 4x and 8x smaller copies) and the inverse square root of the
    robust covariance of what differs from it (mostly the mat's texture and light)."""
    h, w = top.shape[:2]
    maps = []
    for f in (4, 8):
        small = cv2.resize(top, (max(8, w // f), max(8, h // f)), interpolation=cv2.INTER_AREA)
        maps.append(cv2.resize(cv2.medianBlur(small, 31), (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32))
    mat = maps[0]
    diff = top[::3, ::3].astype(np.float32).reshape(-1, 3) - mat[::3, ::3].reshape(-1, 3)
    centre = np.median(diff, axis=0)
    mad = 1.4826 * np.median(np.abs(diff - centre), axis=0) + 0.5
    core = np.all(np.abs(diff - centre) < 3 * mad, axis=1)
    cov = np.cov(diff[core].T) + np.eye(3) * 1.0
    vals, vecs = np.linalg.eigh(cov)
    return MatModel(maps[0], maps[1], (vecs @ np.diag(vals ** -0.5) @ vecs.T).astype(np.float32))


def _blob_candidates(top: np.ndarray, mat: MatModel, r_min: float, r_max: float) -> np.ndarray:
    """(x px, y px, r lower bound px) at distance-transform peaks of the not-mat mask."""
    diff = cv2.GaussianBlur(top.astype(np.float32) - mat.near, (0, 0), 1.0)
    z = cv2.transform(diff, mat.whiten)
    dist = np.sqrt(np.sum(z * z, axis=2))
    mask = cv2.morphologyEx((dist > NOT_MAT_SIGMAS).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((BLOB_CLOSE_PX, BLOB_CLOSE_PX), np.uint8))
    dt = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
    peaks = (dt >= cv2.dilate(dt, np.ones((7, 7), np.uint8))) & (dt >= 0.6 * r_min) & (dt <= 1.1 * r_max)
    ys, xs = np.nonzero(peaks)
    return np.column_stack([xs, ys, dt[ys, xs]]).astype(np.float64)


def _hough_candidates(rect: Rectified, base_sizes_mm: tuple[float, ...]) -> np.ndarray:
    """Circle candidates (x mm, y mm, r mm) from HoughCircles on a 1 px/mm top-down image."""
    s = HOUGH_PX_PER_MM
    if abs(rect.px_per_mm - s) < 1e-9:
        top = rect.image
    else:
        from tabletop.photo.rectify import rectify

        top = rectify(rect.source, _corners_of(rect), rect.table_mm, s).image
    gray = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY) if top.ndim == 3 else top
    # A second image where the mat is dark and anything not mat-coloured is bright: a green base on a
    # green mat has little contrast in grey but plenty in colour.
    lab = cv2.cvtColor(top, cv2.COLOR_BGR2LAB)
    small = cv2.resize(lab, (max(8, lab.shape[1] // 4), max(8, lab.shape[0] // 4)), interpolation=cv2.INTER_AREA)
    mat = cv2.resize(cv2.medianBlur(small, 31), (lab.shape[1], lab.shape[0]), interpolation=cv2.INTER_LINEAR)
    diff = lab.astype(np.float32) - mat.astype(np.float32)
    distance = np.sqrt(0.5 * diff[..., 0] ** 2 + diff[..., 1] ** 2 + diff[..., 2] ** 2)
    not_mat = np.clip(distance * 4.0, 0, 255).astype(np.uint8)
    r_min, r_max = min(base_sizes_mm) / 2, max(base_sizes_mm) / 2
    found = []
    for img, canny, votes in ((gray, 60, 14), (not_mat, 150, 16)):
        img = cv2.GaussianBlur(img, (0, 0), 1.0)
        circles = cv2.HoughCircles(img, cv2.HOUGH_GRADIENT, dp=1, minDist=max(6.0, 0.6 * r_min * s), param1=canny, param2=votes,
                                   minRadius=max(4, int(0.75 * r_min * s)), maxRadius=int(math.ceil(1.1 * r_max * s)))
        if circles is not None:
            found.append(circles[0, :MAX_CANDIDATES].astype(np.float64))
    if not found:
        return np.zeros((0, 3))
    c = np.concatenate(found)
    # The same circle from both images: keep one.
    near = np.hypot(c[:, None, 0] - c[None, :, 0], c[:, None, 1] - c[None, :, 1]) <= 2.0 * s
    similar = np.abs(c[:, None, 2] - c[None, :, 2]) <= 0.15 * c[None, :, 2]
    duplicate = np.triu(near & similar, k=1).any(axis=0)
    c = c[~duplicate]
    d_mm = rect.table_mm[1]
    return np.column_stack([c[:, 0] / s, d_mm - c[:, 1] / s, c[:, 2] / s])


def candidates(rect: Rectified, base_sizes_mm: tuple[float, ...]) -> tuple[np.ndarray, MatModel]:
    """Circle candidates (x mm, y mm, r_lo mm, r_hi mm): where to look, and which catalogue radii to try there."""
    s = CANDIDATE_PX_PER_MM
    if abs(rect.px_per_mm - s) < 1e-9:
        top = rect.image
    else:
        from tabletop.photo.rectify import rectify

        top = rectify(rect.source, _corners_of(rect), rect.table_mm, s).image
    mat = mat_model(top)
    r_min, r_max = min(base_sizes_mm) / 2, max(base_sizes_mm) / 2
    d_mm = rect.table_mm[1]
    hough = _hough_candidates(rect, base_sizes_mm)  # x mm, y mm, r mm
    blobs = _blob_candidates(top, mat, r_min * s, r_max * s)
    rows = [np.column_stack([hough[:, 0], hough[:, 1], 0.8 * hough[:, 2] - 1.5, 1.25 * hough[:, 2] + 1.5])] if len(hough) else []
    if len(blobs):
        r = blobs[:, 2] / s
        rows.append(np.column_stack([blobs[:, 0] / s, d_mm - blobs[:, 1] / s, r - 2.0, 2.2 * r + 6.0]))
    if not rows:
        return np.zeros((0, 4)), mat
    return np.concatenate(rows), mat


def _corners_of(rect: Rectified) -> tuple[tuple[float, float], ...]:
    w, d = rect.table_mm
    pts = apply_homography(rect.homography, np.array([[0, 0], [w, 0], [w, d], [0, d]], dtype=float))
    return tuple((float(x), float(y)) for x, y in pts)


# --- 2. and 3. rim evidence along rays -----------------------------------------------------------

def _sample(rect: Rectified, centres: np.ndarray, t: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Photo colours at table points centre + t·(cos a, sin a): [n, rays, len(t) per row, 3] float32.

    ``t`` is [n, m] (one radius list per centre).
    """
    ux, uy = np.cos(angles), np.sin(angles)
    px = centres[:, 0, None, None] + t[:, None, :] * ux[None, :, None]
    py = centres[:, 1, None, None] + t[:, None, :] * uy[None, :, None]
    h = rect.homography
    w = h[2, 0] * px + h[2, 1] * py + h[2, 2]
    ix = ((h[0, 0] * px + h[0, 1] * py + h[0, 2]) / w).astype(np.float32)
    iy = ((h[1, 0] * px + h[1, 1] * py + h[1, 2]) / w).astype(np.float32)
    n, k, m = ix.shape
    flat_x, flat_y = ix.reshape(n * k, m), iy.reshape(n * k, m)
    rows = 30000  # remap's maps must stay under 32767 rows
    samples = np.concatenate([
        cv2.remap(rect.source, flat_x[i:i + rows], flat_y[i:i + rows], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        for i in range(0, n * k, rows)
    ]).astype(np.float32)
    return samples.reshape(n, k, m, -1)


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


def _evidence(samples: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray, step: float,
              smooth: float, gate_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """[n, rays, m] twice: rim evidence (the whitened colour change per mm where just outside is mat and
    just inside is not) and how fast the whitened distance from the mat falls per mm.

    The evidence says which edge is the rim; the fall locates it (the gates lean the evidence's peak
    outwards on a blurred edge).
    """
    z = (samples - mat_colour[:, None, None, :]) @ whiten.T
    if smooth > 0:
        k = max(1, int(math.ceil(2.5 * smooth / step)))
        x = np.arange(-k, k + 1) * step
        g = np.exp(-0.5 * (x / smooth) ** 2).astype(np.float32)
        g /= g.sum()
        n, r, m, c = z.shape
        flat = np.ascontiguousarray(z.transpose(0, 1, 3, 2)).reshape(-1, m)
        flat = cv2.filter2D(flat, -1, g[None, :], borderType=cv2.BORDER_REPLICATE)
        z = flat.reshape(n, r, c, m).transpose(0, 1, 3, 2)
    grad = np.zeros(z.shape[:3], np.float32)
    grad[:, :, 1:-1] = np.linalg.norm(z[:, :, 2:] - z[:, :, :-2], axis=3) / (2 * step)
    plain = np.linalg.norm(z, axis=3)
    # How fast the colour approaches the mat's, going outwards: peaks where the rim's step is steepest,
    # without the upward bias the norm of a noisy gradient has on a faint, blurred edge.
    drop = np.zeros_like(grad)
    drop[:, :, 1:-1] = (plain[:, :, :-2] - plain[:, :, 2:]) / (2 * step)
    dist = plain / GATE_SIGMAS
    g = int(round(gate_mm / step))
    m = z.shape[2]
    outside = np.full_like(dist, 10.0)
    inside = np.zeros_like(dist)
    outside[:, :, :m - g] = dist[:, :, g:]
    inside[:, :, g:] = dist[:, :, :m - g]
    return grad * np.exp(-0.5 * outside ** 2) * (1.0 - np.exp(-0.5 * inside ** 2)), drop


OFFSETS_MM = np.arange(-3.0, 3.01, 1.0)


def _search(rect: Rectified, cand: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
            sizes: np.ndarray, scale: Scale) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per candidate the (centre, catalogue radius) most rays see a rim on, and a larger one nearly as well seen
    if there is one: centres, radii, scores (0..1), and the candidate each came from."""
    n = len(cand)
    angles = np.linspace(0, 2 * math.pi, SEARCH_RAYS, endpoint=False)
    ux, uy = np.cos(angles), np.sin(angles)
    dx, dy = np.meshgrid(OFFSETS_MM, OFFSETS_MM)
    dx, dy = dx.ravel(), dy.ravel()
    proj = dx[:, None] * ux[None, :] + dy[:, None] * uy[None, :]  # [hyp, rays]
    d2 = (dx * dx + dy * dy)[:, None]
    step = 0.4
    radii_all = sizes / 2
    table_s = np.zeros((n, len(radii_all)))
    table_c = np.zeros((n, len(radii_all), 2))
    rays = np.arange(SEARCH_RAYS)
    order = np.argsort(cand[:, 3])
    for chunk in np.array_split(order, max(1, int(math.ceil(n / 150)))):
        if len(chunk) == 0:
            continue
        c = cand[chunk]
        r_top = min(float(np.max(c[:, 3])), float(radii_all[-1]))
        m = int(math.ceil((r_top + 4.0 + scale.gate_mm + 1.0) / step)) + 1
        t = np.broadcast_to(step * np.arange(m, dtype=float), (len(chunk), m))
        ev, _ = _evidence(_sample(rect, c[:, :2], t, angles), mat_colour[chunk], whiten, step, scale.smooth_mm + 0.05,
                          scale.gate_mm)
        for q, radius in enumerate(radii_all):
            sel = np.nonzero((c[:, 2] <= radius) & (radius <= c[:, 3]))[0]
            if len(sel) == 0:
                continue
            ti = proj + np.sqrt(np.maximum(radius * radius - d2 + proj * proj, 0.0))
            idx = ti / step
            j0 = np.clip(np.floor(idx).astype(int), 0, m - 2)
            f = np.clip(idx - j0, 0.0, 1.0).astype(np.float32)
            e = ev[sel][:, rays[None, :], j0] * (1 - f) + ev[sel][:, rays[None, :], j0 + 1] * f  # [sel, hyp, rays]
            score = np.tanh(e / EVIDENCE_UNIT).mean(axis=2)
            k = np.argmax(score, axis=1)
            table_s[chunk[sel], q] = score[np.arange(len(sel)), k]
            table_c[chunk[sel], q] = c[sel, :2] + np.column_stack([dx[k], dy[k]])
    # The rim is a base's outermost edge: of the circles nearly as well supported as the best, the largest is a rival
    # (a miniature's bright outline on a dark base makes a smaller circle inside it).
    # Radii within a blur's width of the best are the same edge seen through the blur, not an outer one.
    rows_n = np.arange(n)
    q_best = np.argmax(table_s, axis=1)
    best = table_s[rows_n, q_best]
    outer = (table_s >= OUTERMOST_FRACTION * best[:, None]) & (
        radii_all[None, :] >= radii_all[q_best][:, None] + SEPARATE_EDGES * scale.gate_mm)
    has_outer = outer.any(axis=1)
    q = len(radii_all) - 1 - np.argmax(outer[:, ::-1], axis=1)
    # Both go on to the rim fit, which decides: a rim seen all round overrules a ring inside it.
    o = np.nonzero(has_outer)[0]
    return (np.concatenate([table_c[rows_n, q_best], table_c[o, q[o]]]), np.concatenate([radii_all[q_best], radii_all[q[o]]]),
            np.concatenate([best, table_s[o, q[o]]]), np.concatenate([rows_n, o]))


OUTERMOST_FRACTION = 0.8
SEPARATE_EDGES = 1.5
"""Two rims of the search count as separate edges when their radii differ by this many gate lengths."""
LOCATE_INWARD, LOCATE_OUTWARD_MM = 0.85, 0.4
"""The edge is looked for from this fraction of the gate inside the evidence's peak to this far outside it."""
CONTAINING_SUPPORT = 0.85


def _tukey_circle(rho: np.ndarray, usable: np.ndarray, design: np.ndarray, params: np.ndarray,
                  iterations: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Rim distances ``rho`` [n, rays] (used where ``usable``) fitted as R + dx·cos a + dy·sin a by Tukey-weighted
    least squares (IRLS from ``params`` [n, 3], all circles at once): the parameters and the last weights.

    Rays through an overhanging miniature, a weapon or a neighbour end with weight 0.
    """
    weights = usable.astype(float)
    for _ in range(iterations):
        res = rho - params @ design.T
        with np.errstate(all="ignore"), warnings.catch_warnings():  # a circle with no ray in use: NaN, handled below
            warnings.simplefilter("ignore", RuntimeWarning)
            spread = np.nanmedian(np.where(usable & (weights > 0), np.abs(res), np.nan), axis=1)
        spread = np.where(np.isfinite(spread), np.maximum(1.4826 * spread, 0.08), 1.0)
        u = res / (4.685 * spread[:, None])
        weights = np.where(usable & (np.abs(u) < 1), (1 - u * u) ** 2, 0.0)
        ata = np.einsum("nk,ki,kj->nij", weights, design, design) + 1e-9 * np.eye(design.shape[1])
        atb = np.einsum("nk,ki,nk->ni", weights, design, rho)
        params = np.linalg.solve(ata, atb[..., None])[..., 0]
    return params, weights


def _centre_spread(inlier: np.ndarray, design: np.ndarray) -> np.ndarray:
    """The largest variance of a fitted centre per unit residual variance, for each circle fitted on the rays
    ``inlier`` [n, rays] of ``design`` [rays, k] (the centre its last two columns): 2/n on a full circle of n
    rays, far more on a short arc, where a free radius and the centre trade off along the arc's axis."""
    ata = np.einsum("nk,ki,kj->nij", inlier.astype(float), design, design) + 1e-9 * np.eye(design.shape[1])
    block = np.linalg.inv(ata)[:, -2:, -2:]
    a, b, c = block[:, 0, 0], block[:, 0, 1], block[:, 1, 1]
    return (a + c) / 2 + np.sqrt(((a - c) / 2) ** 2 + b * b)


def _fit(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
         half: float, scale: Scale) -> tuple[np.ndarray, ...]:
    """One fine pass: rim points on FIT_RAYS rays within ±half of each circle; fixed- and free-radius fits.

    Returns centres (fixed radius), free radii, inlier fractions, residual RMS (mm), median rim evidence and
    the centres' :func:`_centre_spread`.
    """
    angles = np.linspace(0, 2 * math.pi, FIT_RAYS, endpoint=False)
    step = 0.1
    g = scale.gate_mm + 0.5
    m = int(round((2 * half + 2 * g) / step)) + 1
    t = (radii - half - g)[:, None] + step * np.arange(m)[None, :]
    ev, grad = _evidence(_sample(rect, centres, t, angles), mat_colour, whiten, step, scale.smooth_mm, scale.gate_mm)
    j_lo = int(round(g / step))
    window = ev[:, :, j_lo:m - j_lo]
    n = len(centres)
    k_ev = np.argmax(window, axis=2) + j_lo
    b = np.take_along_axis(ev, k_ev[..., None], 2)[..., 0]
    # Locate the edge by the steepest fall towards the mat's colour near the evidence's peak, looking further
    # inwards than outwards: the outside gate leans the evidence's peak outwards, by up to the gate's reach
    # on a blurred edge.
    offs = np.arange(-int(round(scale.gate_mm * LOCATE_INWARD / step)), int(round(LOCATE_OUTWARD_MM / step)) + 1)
    jj = np.clip(k_ev[..., None] + offs, 1, m - 2)
    local = np.take_along_axis(grad, jj, 2)
    k = np.take_along_axis(jj, np.argmax(local, axis=2)[..., None], 2)[..., 0]
    a = np.take_along_axis(grad, (k - 1)[..., None], 2)[..., 0]
    c = np.take_along_axis(grad, k[..., None], 2)[..., 0]
    e = np.take_along_axis(grad, (k + 1)[..., None], 2)[..., 0]
    denom = a - 2 * c + e
    shift = np.where(denom < -1e-9, 0.5 * (a - e) / np.where(denom < -1e-9, denom, -1.0), 0.0)
    rho = t[:, :1] + (k + np.clip(shift, -0.5, 0.5)) * step  # [n, rays]
    ux, uy = np.cos(angles), np.sin(angles)
    usable = (b > 0.3 * EVIDENCE_UNIT) & (b > 0.25 * np.median(b, axis=1, keepdims=True))
    # Rays from a centre within a millimetre of the true one: rho_i = R + dx·cos a_i + dy·sin a_i + noise,
    # linear in (R, dx, dy). Tukey-weighted least squares (IRLS), all candidates at once.
    design = np.column_stack([np.ones(FIT_RAYS), ux, uy])  # [rays, 3]
    r0 = np.array([np.median(rho[i][usable[i]]) if usable[i].any() else radii[i] for i in range(n)])
    params, weights = _tukey_circle(rho, usable, design, np.column_stack([r0, np.zeros(n), np.zeros(n)]))
    # The same weights with the radius held at the catalogue size.
    fixed_rhs = rho - radii[:, None]
    ata2 = np.einsum("nk,ki,kj->nij", weights, design[:, 1:], design[:, 1:]) + 1e-9 * np.eye(2)
    atb2 = np.einsum("nk,ki,nk->ni", weights, design[:, 1:], fixed_rhs)
    delta = np.linalg.solve(ata2, atb2[..., None])[..., 0]
    res = fixed_rhs - delta @ design[:, 1:].T
    inlier = weights > 0.1
    count = inlier.sum(axis=1)
    support = count / FIT_RAYS
    with np.errstate(all="ignore"):
        rms = np.sqrt(np.sum(np.where(inlier, res * res, 0.0), axis=1) / count)
        strength = np.array([np.median(b[i][inlier[i]]) if count[i] else 0.0 for i in range(n)])
    rms = np.where(count >= 12, rms, np.inf)
    return centres + delta, params[:, 0], support, rms, strength, _centre_spread(inlier, design[:, 1:])


HALF_INSIDE_MM = (2.5, 1.0)
"""The base's own colour is read on a band this far inside the fitted rim (outer, inner edge)."""
HALF_OUTSIDE_MM = (1.5, 3.0)
"""The mat's colour next to the base is read on a band this far outside it."""
HALF_REACH_MM = 1.5
"""A ray's half-level crossing counts only this close to the fitted rim."""
HALF_MIN_RAYS = 30
"""Fewer crossings than this and the half-level fit does not move the centre (the first pass may start
a millimetre off, where a faint base is crossed on few rays; the second, re-centred, on many)."""
HALF_MAX_MOVE_MM = 1.5
"""On a coarse photo the half-level centre is taken only this close to the rim fit's (a bevel pulled that by up
to 1.3 mm; on a 1200x900 photo the half-level fit moved a 40 mm base 1.9 mm the wrong way)."""
HALF_MAX_MOVE_FINE_MM = 3.5
"""Elsewhere, this close: a rim fit at a size too large (a weapon past a 25 mm base's rim sized it 28 mm) can sit
1.5-1.8 mm off, its half-level fit 0.04-0.13 mm (2.5 mm on 155 photos: every half-level centre taken 1.5-3.5 mm from
the rim fit's was the nearer to the truth, 10 of 10). Seed 1818: a rim fit drawn 3.07 mm aside by a weapon and a
dark patch of mat, reported with a sigma of 0.23 mm, and its half-level fit 0.05 mm off (24.7 mm, rms 0.21 mm on 115
of 120 rays) refused for moving 3.1 mm. 3.5 mm was first allowed only to half-level fits of the detection's size, as
one of another size could trace a figure's outline still 1.1-1.2 mm off (1103, 1412: 21-22 mm circles in 28 mm
bases); since larger rims seen on 70 % of the rays count (``OUTER_WEAK_SUPPORT``) that size check changed two
detections of 830 photos, both for the worse (1412's base 0.57 -> 1.00 mm; 1755 lost a base), and is gone."""
HALF_SIZE_MARGIN_MM = 0.5
"""Where the half-level centre is taken, its diameter sets the catalogue size if it lies this close to one. On
155 photos its diameter was 0.03 mm too large in the median (5-95 %: -0.27 to +0.39 mm), the rim fit's free
one 0.19 mm too small (-0.62 to +0.11 mm); where the two snapped differently and the half-level one was this
close to a size, it was right 27 times of 32 and the rim fit's never."""
HALF_MIN_SUPPORT = 0.5
"""A detection whose half-level crossing is kept on fewer than this fraction of its rays is dropped: on the
benchmark's 55 photos every true base kept at least 63 %, a circle fitted round a miniature on a base of
the mat's own colour 27 %."""


def _half_level_centres(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray,
                        whiten: np.ndarray, scale: Scale, min_span: float | np.ndarray = 1e-6, passes: int = 2, rays: int = FIT_RAYS,
                        step: float = 0.1) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Re-centre each rim where the colour is half-way from the base's to the mat's, ray by ray.

    The rim fit locates the steepest fall on each ray; where a bevel lies between the top and the mat
    (a step in two), that is the bevel's outer edge on some rays and its inner edge on others, and the
    centre moves towards the rays that chose the inner one (up to 1.3 mm on the benchmark's photos). Here
    the colour along each ray is projected on the base's own colour difference from the mat (medians over
    all rays of a band inside and one outside), scaled to 1 inside and 0 outside, and the rim is where that
    crosses 1/2: the same level on every ray, so the same edge, and the centre of a circle through those
    crossings (radius free, Tukey-weighted as in :func:`_fit`) is not pulled either way. ``passes`` times,
    re-centred each time.

    ``min_span``: the least difference (whitened units) between the two bands' colours for the level to mean
    anything; below it a circle has no crossings. Returns centres, radii (where the level crosses), rms of
    the kept rays' residuals (mm; inf where, in a circle's last pass, fewer than ``HALF_MIN_RAYS`` rays crossed near
    the rim or the radius ran off: that pass does not move the centre, and is the circle's last, as another would
    look at the same place), the number of kept rays and the centres' :func:`_centre_spread` (radius free).
    """
    n = len(centres)
    angles = np.linspace(0, 2 * math.pi, rays, endpoint=False)
    design = np.column_stack([np.ones(rays), np.cos(angles), np.sin(angles)])
    grow = scale.widen  # a coarse photo's blur is wider: so are the bands
    in_far, in_near = HALF_INSIDE_MM[0] * grow, HALF_INSIDE_MM[1] * grow
    out_near, out_far = HALF_OUTSIDE_MM[0] * grow, HALF_OUTSIDE_MM[1] * grow
    reach = HALF_REACH_MM * grow
    lo = in_far + step
    m = int(round((lo + out_far + step) / step)) + 1
    offset = -lo + step * np.arange(m)  # along each ray, from the fitted rim
    inside = (offset >= -in_far) & (offset <= -in_near)
    outside = (offset >= out_near) & (offset <= out_far)
    radius = radii.astype(float).copy()
    centres = centres.copy()
    span_min = np.broadcast_to(np.asarray(min_span, dtype=float), (n,))
    rms = np.full(n, np.inf)
    kept = np.zeros(n, dtype=int)
    spread = np.full(n, np.inf)
    # A circle a pass did not move would be sampled where it was and fail again: only the moved ones go on.
    active = np.arange(n)
    for _ in range(passes):
        if not len(active):
            break
        k = len(active)
        t = radius[active, None] + offset[None, :]
        z = (_sample(rect, centres[active], t, angles) - mat_colour[active, None, None, :]) @ whiten.T  # [k, rays, m, 3]
        z_in = np.median(z[:, :, inside].reshape(k, -1, z.shape[3]), axis=1)
        z_out = np.median(z[:, :, outside].reshape(k, -1, z.shape[3]), axis=1)
        span = z_in - z_out
        norm = np.linalg.norm(span, axis=1)
        flat = norm < span_min[active]
        level = np.einsum("nrmc,nc->nrm", z - z_out[:, None, None, :], span) / np.where(flat, 1.0, norm * norm)[:, None, None]
        a, b = level[:, :, :-1], level[:, :, 1:]
        cross = (a >= 0.5) & (b < 0.5)
        pos = t[:, None, :-1] + step * np.where(cross, (a - 0.5) / np.where(cross, a - b, 1.0), 0.0)
        away = np.where(cross, np.abs(pos - radius[active, None, None]), np.inf)
        j = np.argmin(away, axis=2)[..., None]
        ok = (np.take_along_axis(away, j, 2)[..., 0] <= reach) & ~flat[:, None]
        rho = np.where(ok, np.take_along_axis(pos, j, 2)[..., 0], 0.0)
        params, weights = _tukey_circle(rho, ok, design, np.column_stack([radius[active], np.zeros(k), np.zeros(k)]))
        inlier = weights > 0.1
        count = inlier.sum(axis=1)
        good = (count >= HALF_MIN_RAYS) & (np.abs(params[:, 0] - radius[active]) <= reach)
        res = rho - params @ design.T
        with np.errstate(all="ignore"):
            rms[active] = np.where(good, np.sqrt(np.sum(np.where(inlier, res * res, 0.0), axis=1) / np.maximum(count, 1)), np.inf)
        kept[active] = count
        spread[active] = _centre_spread(inlier, design)
        centres[active] = centres[active] + np.where(good[:, None], params[:, 1:], 0.0)
        radius[active] = np.where(good, params[:, 0], radius[active])
        active = active[good]
    return centres, radius, rms, kept, spread


def _half_level_fits(radii: np.ndarray, scale: Scale) -> np.ndarray:
    """Whether the half-level fit's inside band lies well within each rim (on a coarse photo it widens with the
    blur and, on a small base, would reach past the middle)."""
    return radii - HALF_INSIDE_MM[0] * scale.widen >= 0.4 * radii


OUTER_GAP_MM = (2.0, 12.0)
"""A larger rim is looked for this much (radius) beyond a detected one."""
OUTER_SUPPORT = 0.8
"""A larger rim must be crossed on this fraction of the rays ..."""
OUTER_WEAK_SUPPORT = 0.7
"""... or on this fraction where a disc of its size has an area fit (:func:`_disc_centre`), whose distance from the
rim's centre then counts in its sigma. A figure over a dark base on a dark mat hides a quarter of its rim (seed
2050: a 40 mm base crossed on 86 of 120 rays, reported as its figure's 32 mm outline 3.94 mm off with a sigma of
0.23 mm, now 0.36 mm off, sigma 0.68; seed 2094: a 32 mm base on 95 rays, taken for 25 mm 3.23 mm off, now 0.81,
sigma 0.76). On 830 photos four detections changed: those two, 2025 (0.80 -> 0.19 mm) and 1311, a 32 mm base
found as 28 mm 0.53 mm off with a sigma of 2.09, now sized right but 1.54 mm off with a sigma of 0.68: its figure
draws the rim's crossings aside, and the area fit, 0.65 mm from it, only part of the way."""
LOOSE_SUPPORT, LOOSE_RMS_MM = 0.6, 0.6
"""A larger rim round a detection lifted over the bar by the half-level fit (see ``FAINT_FLOOR``) vetoes it at this,
if crossed on at least as many rays as the detection's own rim."""
OUTER_HOPE = 0.6
"""The coarse pass of the larger-rim search keeps starts crossing on this fraction of its rays for the full one."""
OUTER_SHIFT_MM = 4.0
"""Spacing of the shifted starts round an unsure detection."""
OUTER_SHIFT_STEPS = 2
"""Unsure detections: starts on a (2·steps + 1)² grid of this spacing (a start within ~2 mm of the rim's centre converges)."""
OUTER_UNSURE = 0.5
"""Detections below this confidence have their larger rim looked for round shifted centres too."""
OUTER_MIN_SPAN = 1.0
"""Inside and outside a larger rim must differ by this much (whitened: the mat's own texture is about 1),
or the half-level fit only traces the mat's noise, which crosses its own median on every ray. The least
seen round a true base in the benchmark's photos was 1.6; the median round a circle on bare mat 0.3."""
OUTER_RMS_MM = 0.6
"""A larger rim's crossings may scatter about its circle by at most this much (0.5 missed seed 815's 50 mm base
of the mat's colour, its rim crossed on 91 % of rays at 0.54-0.58 mm, reported as its figure's 40 mm outline
3.6 mm off; at 0.6 nothing else changed on 155 photos)."""
OUTER_DISC_RMS_MM = 0.4
"""A larger rim found from an area fit's start may scatter by at most this much: the area fit starts near any
disc of the base's colour, a shadow round a base too (seed 505: a 25 mm base taken for a 28 mm rim crossed at
0.54 mm; seed 1647's true 50 mm rim: 0.21 mm)."""
OUTER_DISC_PX_PER_MM = 2.0
"""Resolution of the area fit that starts the larger-rim search (a start within a millimetre converges)."""
OUTER_STAY_MM = 1.0
"""The larger rim's half-level radius must stay this close to the catalogue radius it was started at."""


def _starts(centres: np.ndarray, pairs: list[tuple[int, float, float, float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Starts of a rim search from ``pairs`` (detection, start radius, shift x, shift y): the detections' rows,
    the radii and the shifted centres."""
    rows = np.array([k for k, *_ in pairs])
    radii = np.array([rc for _, rc, _, _ in pairs])
    return rows, radii, centres[rows] + np.array([(dx, dy) for *_, dx, dy in pairs])


def _rim_search(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                scale: Scale, stay: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The half-level fit (``OUTER_MIN_SPAN``, three passes) from many starts of a rim search: coarse first (half the
    rays, twice the step: most starts find nothing), then in full only the hopeful ones, crossing on ``OUTER_HOPE``
    of the coarse rays (and, with ``stay``, ending that close to the radius they started at). Returns the hopeful
    starts' indices and their full fits' centres, radii, rms and rays."""
    _, coarse_r, coarse_rms, coarse_rays, _ = _half_level_centres(rect, centres, radii, mat_colour, whiten, scale, OUTER_MIN_SPAN,
                                                               passes=3, rays=FIT_RAYS // 2, step=0.2)
    hope = np.isfinite(coarse_rms) & (coarse_rays >= OUTER_HOPE * (FIT_RAYS // 2))
    if stay is not None:
        hope &= np.abs(coarse_r - radii) <= stay
    hopeful = np.nonzero(hope)[0]
    if not len(hopeful):
        empty = np.zeros(0)
        return hopeful, np.zeros((0, 2)), empty, empty, empty
    out_c, out_r, out_rms, out_rays, _ = _half_level_centres(rect, centres[hopeful], radii[hopeful], mat_colour[hopeful], whiten, scale,
                                                             OUTER_MIN_SPAN, passes=3)
    return hopeful, out_c, out_r, out_rms, out_rays


def _outer_rims(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                scale: Scale, sizes: np.ndarray, unsure: np.ndarray,
                loose: np.ndarray | None = None) -> list[tuple[np.ndarray, float, float, float, float, float, bool] | None]:
    """Per detection, a larger catalogue rim round it seen on most rays, if any: (centre, catalogue radius,
    fitted radius, rms, rays, how far its area fit lies: 0 unless it was seen on fewer than ``OUTER_SUPPORT`` of the
    rays, ``OUTER_WEAK_SUPPORT`` or more, and not loosely; whether it was seen loosely).

    A bright miniature on a base of nearly the mat's colour has a stronger outline than the base's rim, and
    the search can settle on the outline. The base's top is still a colour of its own, all round, just
    inside its rim: started at each larger catalogue radius, the half-level fit (:func:`_half_level_centres`)
    finds that rim on most rays, with little scatter, and stays there; round a true rim it finds nothing
    larger (it is drawn back to the rim it knows, or crosses on few rays). A miniature need not stand in its
    base's middle: round the ``unsure`` detections the fit is also started from a grid of centres up to
    ``OUTER_SHIFT_STEPS`` × ``OUTER_SHIFT_MM`` away (three passes converge from about 2 mm off), and from where
    the larger disc covers most of the base's colour (:func:`_disc_centre`), a rim found from there scattering at
    most ``OUTER_DISC_RMS_MM``. Round the ``loose`` ones a rim seen on fewer rays, with more scatter, counts
    (``LOOSE_SUPPORT``, ``LOOSE_RMS_MM``) from the grid's starts; from the area fit's, only as round the others.
    """
    found: list[tuple[np.ndarray, float, float, float, float, float, bool] | None] = [None] * len(centres)
    coarse = scale.coarse  # the grid's starts cost seconds there, and its bands blur past small bases
    grid = OUTER_SHIFT_MM * np.arange(-OUTER_SHIFT_STEPS, OUTER_SHIFT_STEPS + 1)
    shifts = [(0.0, 0.0)] + [(float(dx), float(dy)) for dx in grid for dy in grid if (dx, dy) != (0.0, 0.0)]
    pairs = [(k, float(rc), dx, dy) for k in range(len(centres)) for rc in sizes / 2
             if radii[k] + OUTER_GAP_MM[0] <= rc <= radii[k] + OUTER_GAP_MM[1]
             for dx, dy in (shifts if unsure[k] and not coarse else shifts[:1])]
    from_disc = len(pairs)  # pairs from here on start at an area fit
    if not coarse:
        # And round unsure ones from where the larger disc covers most of the base's colour: on a blotchy mat the
        # fit converges from nearer than the grid's 2 mm (seed 1647: a 50 mm base, found as its figure's 40 mm
        # outline 2.9 mm off; from the grid's nearest start, 1.7 mm off, 25 of 60 rays crossed; the area fit 0.13 mm off).
        # Round the loose ones too, judged as round the others (seed 2294: a dark 40 mm base on a dark mat under a broad
        # yellow figure, the figure's outline lifted as a 32 mm base 4.1 mm off with a sigma of 0.28; the grid's starts
        # found nothing, the area fit's the 40 mm rim on 111 of 120 rays, 0.13 mm off).
        for k, rc in [(k, float(rc)) for k in np.nonzero(unsure)[0] for rc in sizes / 2
                      if radii[k] + OUTER_GAP_MM[0] <= rc <= radii[k] + OUTER_GAP_MM[1]]:
            disc = _disc_centre(rect, centres[k], rc, mat_colour[k], whiten, iterations=1, px_per_mm=OUTER_DISC_PX_PER_MM)
            if disc is not None:
                pairs.append((int(k), rc, float(disc[0] - centres[k][0]), float(disc[1] - centres[k][1])))
    if not pairs:
        return found
    rows, starts, moved = _starts(centres, pairs)
    hopeful, out_c, out_r, out_rms, out_rays = _rim_search(rect, moved, starts, mat_colour[rows], whiten, scale, OUTER_STAY_MM + 0.5)
    if not len(hopeful):
        return found
    rows, starts, by_area = rows[hopeful], starts[hopeful], hopeful >= from_disc
    # Per detection the rim crossed on the most rays, one judged as round the others before any seen loosely: that one
    # measures the base, a loose one can only veto (seed 415: a loose rim on 87 rays had hidden the base's own on 84).
    best: dict[int, tuple[tuple[bool, float], tuple[np.ndarray, float, float, float, float, float, bool]]] = {}
    for j, k in enumerate(rows.tolist()):
        lax = loose is not None and bool(loose[k]) and not by_area[j]
        if not (np.isfinite(out_rms[j]) and out_rms[j] <= (LOOSE_RMS_MM if lax else OUTER_DISC_RMS_MM if by_area[j] else OUTER_RMS_MM)
                and out_rays[j] >= (LOOSE_SUPPORT if lax else OUTER_WEAK_SUPPORT) * FIT_RAYS):
            continue
        if abs(out_r[j] - starts[j]) > OUTER_STAY_MM:
            continue  # drawn back inwards (to the known rim, or a shadow round it): no larger rim here
        if math.hypot(*(out_c[j] - centres[k])) > starts[j] - radii[k] / 2:
            continue  # what was found must stand on it (a figure may reach over the rim, not stand beside it)
        # Starts 1 mm apart (28, 30, 32 mm) can settle on one rim: it is the catalogue size nearest the fit.
        snapped = float(sizes[np.argmin(np.abs(sizes / 2 - out_r[j]))]) / 2
        rank = (not lax, float(out_rays[j]))
        if snapped <= radii[k] or (k in best and rank <= best[k][0]):
            continue
        apart = 0.0
        if not lax and out_rays[j] < OUTER_SUPPORT * FIT_RAYS:
            disc = None if coarse else _disc_centre(rect, out_c[j], snapped, mat_colour[k], whiten)
            if disc is None:
                continue  # nothing of the base's colour inside it: a rim traced through the mat's texture
            apart = float(np.linalg.norm(disc - out_c[j]))
        best[k] = (rank, (out_c[j], snapped, float(out_r[j]), float(out_rms[j]), float(out_rays[j]), apart, lax))
    for k, (_, hit) in best.items():
        found[k] = hit
    return found


INNER_RMS_MM = 0.3
"""A smaller rim inside an unsure detection replaces it only if its crossings scatter this little: a base's rim
is round (seed 909's, 0.13 mm), a miniature's outline is not."""
INNER_MAT_GAP = 3.0
"""... and if just outside it is the mat: the whitened distance of the outside band's median colour from the mat's
at most this (the mat's own texture is about 1; seed 909's 1.9). A miniature's outline on its base has the base
outside it."""
INNER_SHIFT_MM = 2.0
"""Spacing of the 3x3 grid of starts of the smaller-rim search."""


def _inner_rims(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                scale: Scale, sizes: np.ndarray) -> list[tuple[np.ndarray, float, float, float, float] | None]:
    """Per detection, a smaller catalogue rim inside it, round, clean and with the mat outside, if any:
    (centre, catalogue radius, fitted radius, rms, rays).

    A weapon or a shadow reaching well past a base's rim can pull the search onto a larger circle round
    base and weapon (seed 909: a 25 mm base found as 30 mm, 3.1 mm off). The fit at that size looks within
    0.8 mm of its radius and never sees the true rim; the half-level fit started at each smaller size, from
    a small grid of centres, finds it on most rays with little scatter.
    """
    found: list[tuple[np.ndarray, float, float, float, float] | None] = [None] * len(centres)
    if scale.coarse:
        return found
    grid = INNER_SHIFT_MM * np.arange(-1, 2)
    shifts = [(float(dx), float(dy)) for dx in grid for dy in grid]
    pairs = [(k, float(rc), dx, dy) for k in range(len(centres)) for rc in sizes / 2
             if 0.6 * radii[k] <= rc <= radii[k] - OUTER_GAP_MM[0] for dx, dy in shifts]
    if not pairs:
        return found
    rows, starts, moved = _starts(centres, pairs)
    hopeful, out_c, out_r, out_rms, out_rays = _rim_search(rect, moved, starts, mat_colour[rows], whiten, scale)
    if not len(hopeful):
        return found
    rows = rows[hopeful]
    ok = np.nonzero(np.isfinite(out_rms) & (out_rms <= INNER_RMS_MM) & (out_rays >= OUTER_SUPPORT * FIT_RAYS))[0]
    if not len(ok):
        return found
    angles = np.linspace(0, 2 * math.pi, FIT_RAYS, endpoint=False)
    t = out_r[ok, None] + np.arange(HALF_OUTSIDE_MM[0], HALF_OUTSIDE_MM[1] + 1e-9, 0.1)[None, :]
    z = (_sample(rect, out_c[ok], t, angles) - mat_colour[rows[ok], None, None, :]) @ whiten.T
    gap = np.linalg.norm(np.median(z.reshape(len(ok), -1, z.shape[3]), axis=1), axis=1)
    best: dict[int, tuple[float, tuple[np.ndarray, float, float, float, float]]] = {}
    for j, g in zip(ok.tolist(), gap.tolist()):
        k = int(rows[j])
        if g > INNER_MAT_GAP or math.hypot(*(out_c[j] - centres[k])) + out_r[j] > radii[k] + 1.5:
            continue  # the base outside it, not the mat; or not inside the detection
        snapped = float(sizes[np.argmin(np.abs(sizes / 2 - out_r[j]))]) / 2
        if abs(2 * (out_r[j] - snapped)) > HALF_SIZE_MARGIN_MM or snapped > radii[k] - OUTER_GAP_MM[0]:
            continue  # not clearly one size, or not clearly smaller (the same rim, a bevel's half-way level: seed 523)
        if k not in best or out_rms[j] < best[k][0]:
            best[k] = (float(out_rms[j]), (out_c[j], snapped, float(out_r[j]), float(out_rms[j]), float(out_rays[j])))
    for k, (_, hit) in best.items():
        found[k] = hit
    return found


DISC_PX_PER_MM = 4.0
"""Resolution of the patch the area fit (:func:`_disc_centre`) reads."""
DISC_REACH_MM = 3.0
"""The area fit looks for the disc's centre this far from where it starts."""
DISC_MAT_GAP = 1.5
"""Pixels within this whitened distance of the mat are not used to find the base's own colour (texture is about 1)."""
DISC_MIN_CONTRAST = 1.0
"""The base's colour must differ from the mat's by this much (whitened) for the area fit to say anything."""
DISC_NEITHER = 2.0
"""A pixel this far (whitened) off the line from the mat's colour to the base's, or at least half the base's own
distance, is neither (a miniature, a weapon, a neighbour) and counts for no side."""
MEDIAN_UNSURE = 0.6
"""Detections below this confidence take the median of three or four centres (see :func:`_median_centres`)."""
MEDIAN_SHRUNK = 0.7
"""... and those below this whose fits made them smaller than the search had found them: a figure's outline on a base
of the mat's colour can look like a smaller rim (seed 1412: a 28 mm base taken for 25 mm at confidence 0.63, 1.66 mm
off with a sigma of 0.34; with the median 1.60 mm, sigma 2.61). On 530 photos this changed 8 detections, none by
more than 0.41 mm, and no sigma then failed to cover its error twice over."""
MEDIAN_MIN_RAYS = 60
"""The half-level fit started at a larger size counts for the median if it crosses on this many rays."""
OVERLAP_DISAGREEMENT_MM = 1.0
"""Of overlapping detections the surer is kept, its confidence discounted by a normal of how far its unsure
measurements disagree, in this unit (seed 1702: a 28 mm circle drawn by a weapon past a 25 mm base's rim)."""


def _disc_kernel(radius_px: float) -> np.ndarray:
    """A disc of the given radius with its edge pixels weighted by coverage."""
    k = int(math.ceil(radius_px + 1))
    ys, xs = np.mgrid[-k:k + 1, -k:k + 1]
    return np.clip(radius_px - np.hypot(xs, ys) + 0.5, 0.0, 1.0).astype(np.float32)


def _disc_centre(rect: Rectified, centre: np.ndarray, radius: float, mat_colour: np.ndarray, whiten: np.ndarray,
                 iterations: int = 2, px_per_mm: float = DISC_PX_PER_MM) -> np.ndarray | None:
    """Where a disc of the catalogue ``radius`` covers the most pixels of the base's colour and the fewest of the
    mat's, near ``centre``: an area fit for a base of nearly the mat's colour, or None without contrast.

    Its rim is faint, so a fit to its edge wanders with the mat's texture; its whole area is not. On a top-down patch
    each pixel scores +1 if of the base's colour, -1 if of the mat's (linearly between), 0 if neither (a miniature
    over the base, a weapon past its rim); the disc's score is the sum under it (a convolution), and its best
    position is refined by a parabola. The base's colour is the most common colour in a band inside the rim that is
    not the mat's: the band's median would be the miniature's where it covers most of the band. ``px_per_mm``: the
    patch's resolution (a start for another fit needs less than a centre reported).
    """
    s = px_per_mm
    origin = np.asarray(centre, dtype=float)
    half = radius + DISC_REACH_MM + 3.0
    x0, y1 = origin[0] - half, origin[1] + half
    n = int(round(2 * half * s))
    to_table = np.array([[1 / s, 0, x0 + 0.5 / s], [0, -1 / s, y1 - 0.5 / s], [0, 0, 1]])
    patch = cv2.warpPerspective(rect.source, rect.homography @ to_table, (n, n),
                                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    z = (patch.astype(np.float32) - mat_colour.astype(np.float32)) @ whiten.T
    xs = x0 + (np.arange(n) + 0.5) / s
    ys = y1 - (np.arange(n) + 0.5) / s
    kernel = _disc_kernel(radius * s)
    reach = int(round(DISC_REACH_MM * s))
    ox, oy = int(round((origin[0] - x0) * s - 0.5)), int(round((y1 - origin[1]) * s - 0.5))
    at = origin
    for _ in range(iterations):
        d = np.hypot(xs[None, :] - at[0], ys[:, None] - at[1])
        band = z[(d >= radius - 2.5) & (d <= radius - 0.5)]
        off_mat = band[np.linalg.norm(band, axis=1) >= DISC_MAT_GAP]
        if len(off_mat) < 0.2 * len(band) or len(off_mat) == 0:
            return None
        keys, counts = np.unique(np.round(off_mat).astype(np.int64), axis=0, return_counts=True)
        mode = keys[np.argmax(counts)].astype(np.float32)
        colour = off_mat[np.linalg.norm(off_mat - mode, axis=1) <= 1.5].mean(axis=0)
        contrast = float(np.linalg.norm(colour))
        if contrast < DISC_MIN_CONTRAST:
            return None
        level = z @ colour / contrast ** 2  # 0 at the mat's colour, 1 at the base's
        aside = np.linalg.norm(z - level[..., None] * colour, axis=2)
        vote = np.clip(2 * level - 1, -1.0, 1.0)
        vote[(aside > max(DISC_NEITHER, 0.5 * contrast)) | (level > 2.0) | (level < -1.0)] = 0.0
        score = cv2.filter2D(vote, -1, kernel, borderType=cv2.BORDER_CONSTANT)
        window = score[oy - reach:oy + reach + 1, ox - reach:ox + reach + 1]
        jy, jx = np.unravel_index(int(np.argmax(window)), window.shape)
        py, px = jy + oy - reach, jx + ox - reach

        def vertex(a: float, c: float, e: float) -> float:
            denom = a - 2 * c + e
            return float(np.clip(0.5 * (a - e) / denom, -0.5, 0.5)) if denom < -1e-9 else 0.0

        dx = vertex(score[py, px - 1], score[py, px], score[py, px + 1])
        dy = vertex(score[py - 1, px], score[py, px], score[py + 1, px])
        at = np.array([x0 + (px + dx + 0.5) / s, y1 - (py + dy + 0.5) / s])
    return at


def _median_centres(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                    scale: Scale, sizes: np.ndarray, fourth: np.ndarray | None = None) -> list[tuple[np.ndarray, float] | None]:
    """For unsure detections: the median (x and y apart) of three or four centres, and how far the furthest of them
    lies from it, or None where the area fit or the larger sizes' fit is missing.

    The three: the detection's own (a rim or half-level fit), carried on by two more passes of the half-level fit at
    its catalogue size where that crosses on ``MEDIAN_MIN_RAYS`` rays within ``DISC_REACH_MM`` of it (started from the
    rim fit a millimetre or two off, two passes stop short on a faint rim: seed 1699's half-level centre was 1.24 mm
    off after two, 0.36 mm after five); the area fit (:func:`_disc_centre`); and the
    half-level fit started at the next larger catalogue sizes (the tightest of them), whose bands then lie
    outside the miniature on a small base. The fourth, where given (``fourth`` rows not NaN): the rim fit's
    centre where the half-level one was taken over it. An area fit that runs past ``DISC_REACH_MM`` is left out of
    the median (of the other two, their mean) but counts in the disagreement (seed 2060: 1.36 mm off with a sigma
    of 0.29, now 0.85 mm, sigma 4.69; the one detection of 830 photos it changed). On a base of nearly the mat's colour each is off by a
    millimetre now and then, seldom two at once. On 255 benchmark photos the detections over 0.8 mm off went
    from 11 to 5 and over 1 mm from 4 to 1; recall, precision and sizes did not change. How far the centres
    disagree goes into the detection's sigma.
    """
    found: list[tuple[np.ndarray, float] | None] = [None] * len(centres)
    if scale.coarse or not len(centres):
        return found
    pairs = [(k, float(rc), 0.0, 0.0) for k in range(len(centres)) for rc in sizes / 2 if radii[k] < rc <= radii[k] + 3.0]
    larger: dict[int, tuple[float, np.ndarray]] = {}
    if pairs:
        rows, starts, moved = _starts(centres, pairs)
        out_c, _, out_rms, out_rays, out_spread = _half_level_centres(rect, moved, starts, mat_colour[rows], whiten, scale, passes=3)
        for j, k in enumerate(rows.tolist()):
            if not (np.isfinite(out_rms[j]) and out_rays[j] >= MEDIAN_MIN_RAYS
                    and math.hypot(*(out_c[j] - centres[k])) <= DISC_REACH_MM):
                continue
            tight = float(out_rms[j] * math.sqrt(out_spread[j]))
            if k not in larger or tight < larger[k][0]:
                larger[k] = (tight, out_c[j])
    # No size check on the carried fit: it is one opinion of three or four in a median, not a centre taken alone, and on
    # seed 1702 a carried fit at 26.5 mm in a 25 mm base moved towards the truth.
    own = centres.copy()
    if larger:  # only where a median can be formed
        rows = np.fromiter(larger, dtype=int)
        on_c, _, on_rms, on_rays, _ = _half_level_centres(rect, centres[rows], radii[rows], mat_colour[rows], whiten, scale)
        carried = np.isfinite(on_rms) & (on_rays >= MEDIAN_MIN_RAYS) & (np.hypot(*(on_c - centres[rows]).T) <= DISC_REACH_MM)
        own[rows[carried]] = on_c[carried]
    for k in larger:
        disc = _disc_centre(rect, centres[k], float(radii[k]), mat_colour[k], whiten)
        if disc is None:
            continue
        # An area fit run to the edge of its reach (seed 2060: to a dark patch of mat beside a dark base, 4.6 mm) is
        # not a centre but a disagreement: the median of the rest, the sigma widened by it.
        past_reach = math.hypot(*(disc - centres[k])) > DISC_REACH_MM
        opinions = np.array([own[k], larger[k][1]] + ([] if past_reach else [disc])
                            + ([fourth[k]] if fourth is not None and np.all(np.isfinite(fourth[k])) else []))
        middle = np.median(opinions, axis=0)
        spread = float(np.max(np.linalg.norm(opinions - middle, axis=1)))
        found[k] = (middle, max(spread, float(np.linalg.norm(disc - middle))) if past_reach else spread)
    return found


def _confidence(support: float, rms: float, contrast: float, snap_err: float, rms_scale: float = 0.8) -> float:
    """0..1 from the rim's evidence: rays agreeing, their scatter, its strength, the size's fit."""
    return float(
        float(np.clip((support - SUPPORT_NONE) / (SUPPORT_FULL - SUPPORT_NONE), 0.0, 1.0))
        * math.exp(-0.5 * (rms / rms_scale) ** 2)
        * (1 - math.exp(-contrast / 0.5))
        * math.exp(-0.5 * (snap_err / 0.8) ** 2)
    )


SEARCH_MIN_SCORE = 0.3
FAINT_FLOOR = 0.05
"""Rims under the confidence bar but above this are measured by the half-level fit too: a faint base's rim
fit scatters by about a millimetre (its steepest fall wanders on a weak edge) where the half-level fit
scatters a third of that, and with that scatter such a base clears the bar. One so lifted is dropped if a
larger rim round it is seen on 60 % of rays (``LOOSE_SUPPORT``), and on as many as its own: it may be a figure on
an invisible base."""
SUPPORT_NONE, SUPPORT_FULL = 0.6, 0.85
"""Fraction of rays on the rim: a base's rim is seen on most rays (a miniature hides a few); a circle
traced through texture, or a wrong circle on a base, agrees on fewer."""


def detect_bases(rect: Rectified, base_sizes_mm: tuple[float, ...] = BASE_SIZES_MM,
                 min_confidence: float = MIN_CONFIDENCE, trace: dict | None = None) -> list[Detection]:
    """Round bases on the table, sorted by y then x: centre and 1-sigma in mm, diameter snapped to ``base_sizes_mm``.

    ``trace``, if given, is filled with the intermediate arrays (candidates, search, fits) for diagnosis.
    """
    sizes = np.asarray(sorted(base_sizes_mm), dtype=float)
    w, d = rect.table_mm
    cand, mat = candidates(rect, tuple(sizes))
    if len(cand):
        cand = cand[(cand[:, 0] > 0) & (cand[:, 0] < w) & (cand[:, 1] > 0) & (cand[:, 1] < d)]
    if len(cand) == 0:
        return []
    s = CANDIDATE_PX_PER_MM
    mat_colour = mat.at(np.column_stack([cand[:, 0] * s, (d - cand[:, 1]) * s]), cand[:, 2] * s)
    scale = photo_scale(rect)
    centres, radii, scores, origin = _search(rect, cand, mat_colour, mat.whiten, sizes, scale)
    mat_colour = mat_colour[origin]
    if trace is not None:
        trace.update(cand=cand, search=(centres, radii, scores))
    ok = scores >= SEARCH_MIN_SCORE
    centres, radii, mat_colour = centres[ok], radii[ok], mat_colour[ok]
    # Candidates that settled on the same circle: measure it once.
    if len(centres) > 1:
        near = np.hypot(centres[:, None, 0] - centres[None, :, 0], centres[:, None, 1] - centres[None, :, 1]) < 1.5
        same = near & (radii[:, None] == radii[None, :])
        unique = ~np.triu(same, k=1).any(axis=0)
        centres, radii, mat_colour = centres[unique], radii[unique], mat_colour[unique]
    if len(centres) == 0:
        return []
    searched = radii.copy()
    for half in (1.5, 0.8):
        centres, free_r, support, rms, strength, spread = _fit(rect, centres, radii, mat_colour, mat.whiten, half, scale)
    # The size: the catalogue radius nearest the free fit; if it differs, fit again with it.
    snapped = sizes[np.argmin(np.abs(sizes[None, :] - 2 * free_r[:, None]), axis=1)] / 2
    change = np.isfinite(rms) & (snapped != radii)
    if change.any():
        sub = np.nonzero(change)[0]
        radii = np.where(change, snapped, radii)
        refit = _fit(rect, centres[sub], radii[sub], mat_colour[sub], mat.whiten, 1.0, scale)
        refit = _fit(rect, refit[0], radii[sub], mat_colour[sub], mat.whiten, 0.8, scale)
        for arr, new in zip((centres, free_r, support, rms, strength, spread), refit):
            arr[sub] = new
    if trace is not None:
        trace.update(fit=(centres.copy(), radii.copy(), free_r.copy(), support.copy(), rms.copy(), strength.copy()), fit_spread=spread.copy(),
                     searched=searched.copy())
    # Rims seen all round (most rays agree on one circle), whether or not confident enough to report: a ring
    # inside one is the miniature's outline or the top's border on that base, not a base (a base cannot
    # stand on a base), however clear it is. Better a base missed than one placed on its miniature.
    finite = np.isfinite(rms)
    all_round = [(centres[i], radii[i], support[i]) for i in np.nonzero(finite & (support >= CONTAINING_SUPPORT))[0]]

    def inside_a_rim(i: int) -> bool:
        return any(r_out > radii[i] and s_out >= support[i]
                   and math.hypot(*(centres[i] - c_out)) + radii[i] <= r_out + 1.5 for c_out, r_out, s_out in all_round)

    def rim_confidence(i: int, scatter: float) -> float:
        snap_err = abs(2 * free_r[i] - 2 * radii[i])
        return _confidence(float(support[i]), scatter, float(strength[i] / EVIDENCE_UNIT), snap_err, scale.rms_mm)

    found: list[tuple[float, int]] = []
    faint: list[tuple[float, int]] = []  # below the bar on the rim fit's scatter: the half-level fit may lift them
    for i in np.nonzero(finite)[0]:
        confidence = rim_confidence(int(i), float(rms[i]))
        if inside_a_rim(i) or not (0 <= centres[i][0] <= w and 0 <= centres[i][1] <= d):
            continue
        if confidence >= min_confidence:
            found.append((float(np.clip(confidence, 0.0, 1.0)), int(i)))
        elif confidence >= FAINT_FLOOR:
            faint.append((confidence, int(i)))
    if not found and not faint:
        return []
    pick = np.array([i for _, i in found + faint])
    # The centre where the colour is half-way between the base's and the mat's (the rim fit's where the
    # radius runs off). Inside a base's colour, outside the mat's, on most of the circle: or it is not a base.
    # (A faint rim's bands must differ by more than the mat's texture, or its crossings only trace that texture.)
    spans = np.where(np.arange(len(pick)) < len(found), 1e-6, OUTER_MIN_SPAN)
    half_centres, half_radii, half_rms, half_rays, half_spread = _half_level_centres(rect, centres[pick], free_r[pick], mat_colour[pick], mat.whiten, scale,
                                                               spans)
    measurable = _half_level_fits(free_r[pick], scale)
    moved = np.hypot(*(half_centres - centres[pick]).T)
    # Compared by the centre's uncertainty, not the scatter alone: crossings kept on a short arc (a bright
    # miniature over a base of the mat's colour) scatter little but leave the centre loose along the arc's
    # axis, where the rim fit, its radius held at the catalogue size, stays tight.
    sharper = half_rms * np.sqrt(half_spread) <= rms[pick] * np.sqrt(spread[pick])
    reach = HALF_MAX_MOVE_MM if scale.coarse else HALF_MAX_MOVE_FINE_MM
    trusted = (np.isfinite(half_rms) & sharper & measurable & (moved <= reach)
               & (half_centres[:, 0] >= 0) & (half_centres[:, 0] <= w) & (half_centres[:, 1] >= 0) & (half_centres[:, 1] <= d))
    keep = list(range(len(found)))  # rows of pick: the confident, then the faint ones lifted over the bar
    lifted: dict[int, float] = {}  # detection: the rays its half-level fit crossed
    for k in range(len(found), len(pick)):
        i = int(pick[k])
        if trusted[k] and half_rms[k] < rms[i] and half_rays[k] >= HALF_MIN_SUPPORT * FIT_RAYS:
            confidence = rim_confidence(i, float(half_rms[k]))
            if confidence >= min_confidence:
                found.append((float(confidence), i))
                keep.append(k)
                lifted[i] = float(half_rays[k])
    if not found:
        return []
    pick, half_centres, half_rms, half_rays, half_spread = pick[keep], half_centres[keep], half_rms[keep], half_rays[keep], half_spread[keep]
    half_radii = half_radii[keep]
    measurable, trusted = measurable[keep], trusted[keep]
    if trace is not None:
        trace.update(half=(pick.copy(), half_centres.copy(), half_rms.copy(), half_rays.copy()), half_spread=half_spread.copy(),
                     half_radius=half_radii.copy(), trusted=trusted.copy())
    measured: list[tuple[float, int, np.ndarray, float, float, float, float]] = []
    for (confidence, i), centre, h_radius, e_half, n_half, h_spread, fits, trust in zip(found, half_centres, half_radii, half_rms,
                                                                                        half_rays, half_spread, measurable, trusted):
        if fits and n_half < HALF_MIN_SUPPORT * FIT_RAYS:
            continue
        # Its centre no looser than the rim fit's and not moved further than a wrong-sized rim fit can be off, or
        # the rim fit is the better measurement (a coarse photo's blur spreads the half-way level over millimetres).
        if trust:
            # Its size too, where its diameter is clearly one catalogue size: the rim fit's free diameter is
            # pulled by whatever crosses the rim (a weapon, a shadow), the half-way level much less.
            nearest = float(sizes[np.argmin(np.abs(sizes - 2 * h_radius))])
            radius = nearest / 2 if abs(2 * h_radius - nearest) <= HALF_SIZE_MARGIN_MM else float(radii[i])
            measured.append((confidence, i, centre, float(e_half), float(h_spread), radius, float(h_radius)))
        else:
            measured.append((confidence, i, centres[i], float(rms[i]), float(spread[i]), float(radii[i]), float(free_r[i])))
    # How far each detection's measurements disagree: a weakly seen larger rim and its area fit, the unsure ones' centres.
    disagreement: dict[int, float] = {}
    if measured:
        unsure = [k for k, m in enumerate(measured) if m[0] < OUTER_UNSURE and m[1] not in lifted]
        if unsure:
            inner = _inner_rims(rect, np.array([measured[k][2] for k in unsure]), np.array([measured[k][5] for k in unsure]),
                                mat_colour[[measured[k][1] for k in unsure]], mat.whiten, scale, sizes)
            if trace is not None:
                trace.update(inner=dict(zip(unsure, inner)))
            for k, found_inner in zip(unsure, inner):
                if found_inner is not None:
                    centre, radius, fitted, e_in, n_in = found_inner
                    if 0 <= centre[0] <= w and 0 <= centre[1] <= d:
                        measured[k] = (measured[k][0], measured[k][1], centre, e_in, 2.0 / max(n_in, 1.0), radius, fitted)
        outer = _outer_rims(rect, np.array([m[2] for m in measured]), np.array([m[5] for m in measured]),
                            mat_colour[[m[1] for m in measured]], mat.whiten, scale, sizes,
                            np.array([m[0] < OUTER_UNSURE for m in measured]), np.array([m[1] in lifted for m in measured]))
        # A loosely seen larger rim round a lifted detection vetoes it only if crossed on at least as many rays as the
        # detection's own (seeds 711, 1638: dark 25 mm bases, their figures reaching over the rim, their own rims crossed
        # on 85 and 102 rays, were vetoed by a 28 and a 32 mm circle through the figures on 76 and 75); one seen on
        # fewer is no measurement of it either.
        vetoed = [k for k, o in enumerate(outer) if o is not None and o[6] and o[4] >= lifted[measured[k][1]]]
        outer = [None if o is not None and o[6] and k not in vetoed else o for k, o in enumerate(outer)]
        for k in sorted(vetoed, reverse=True):
            del measured[k]
            del outer[k]
        if trace is not None:
            trace.update(outer=outer)
        for k, found_outer in enumerate(outer):
            if found_outer is not None:
                centre, radius, fitted, e_out, n_out, apart, _ = found_outer
                if 0 <= centre[0] <= w and 0 <= centre[1] <= d:
                    if apart > 0:
                        disagreement[measured[k][1]] = apart
                    measured[k] = (measured[k][0], measured[k][1], centre, e_out, 2.0 / max(n_out, 1.0), radius, fitted)
    # Unsure ones, and the fairly sure ones the fits shrank: the median of three or four centres, and their
    # disagreement in the sigma.
    unsure = [k for k, m in enumerate(measured) if m[0] < MEDIAN_UNSURE or (m[0] < MEDIAN_SHRUNK and searched[m[1]] > m[5])]
    if unsure:
        # The rim fit's centre is the fourth where the half-level one was taken over it (seed 418: a base of the mat's
        # colour, its other three centres together 1.1 mm off, the rim fit's 0.3 mm).
        rim_fits = np.array([centres[measured[k][1]] if measured[k][5] == radii[measured[k][1]]
                             and np.hypot(*(centres[measured[k][1]] - measured[k][2])) > 1e-9 else (np.nan, np.nan) for k in unsure])
        medians = _median_centres(rect, np.array([measured[k][2] for k in unsure]), np.array([measured[k][5] for k in unsure]),
                                  mat_colour[[measured[k][1] for k in unsure]], mat.whiten, scale, sizes, rim_fits)
        if trace is not None:
            trace.update(medians=dict(zip(unsure, medians)))
        for k, median in zip(unsure, medians):
            if median is not None and 0 <= median[0][0] <= w and 0 <= median[0][1] <= d:
                measured[k] = (measured[k][0], measured[k][1], median[0], *measured[k][3:])
                disagreement[measured[k][1]] = max(median[1], disagreement.get(measured[k][1], 0.0))
    # Bases cannot overlap: of two overlapping detections keep the surer, where "sure" is also of where it is: a
    # circle whose measurements disagree by millimetres (a weapon past the rim drew it) loses to the base's own rim.
    # Only unsure detections with a median, and weakly seen larger rims, have a disagreement; the rest, sure or not
    # cross-checked, are undiscounted, so an unsure one that could not be cross-checked can outrank one that was and
    # disagreed (not seen to matter yet).
    measured.sort(key=lambda item: -item[0] * math.exp(-0.5 * (disagreement.get(item[1], 0.0) / OVERLAP_DISAGREEMENT_MM) ** 2))
    chosen: list[tuple[float, int, np.ndarray, float, float, float, float]] = []
    for item in measured:
        if all(math.hypot(*(item[2] - other[2])) > item[5] + other[5] - 2.0 for other in chosen):
            chosen.append(item)
    if trace is not None:
        trace.update(chosen=[(i, centre.copy(), radius, confidence) for confidence, i, centre, _, _, radius, _ in chosen])
    kept: list[Detection] = []
    for confidence, i, (cx, cy), e, centre_spread, radius, fitted in chosen:
        # Centre error of the circle fit along its loosest axis: rms * sqrt(2 / n) on a full circle of n rays; and
        # where the unsure ones' measurements disagree, or a weakly seen larger rim's area fit lies apart, at least
        # how far they do.
        sigma_fit = math.hypot(CORRELATION * e * math.sqrt(centre_spread), disagreement.get(i, 0.0))
        sigma = math.hypot(sigma_fit, rect.calibration_rms_mm)
        kept.append(Detection(float(cx), float(cy), float(2 * radius), float(2 * fitted), confidence, float(sigma)))
    kept.sort(key=lambda det: (det.y_mm, det.x_mm))
    return kept
