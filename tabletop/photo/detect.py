"""Round bases on the rectified table: Hough candidates, then a sub-pixel rim fit in the original photo.

Candidates come from ``cv2.HoughCircles`` on a 1 px/mm top-down image. Each is then
measured where the information is: rays are cast from the candidate's centre in table
millimetres, mapped through the homography into the photo, and the colour-gradient
peak along each ray (parabolic sub-pixel) is a rim point. A circle is fitted to the
rim points with iterative trimming (a miniature overhanging the rim, a weapon or a
shadow gives outlying rays), twice, the second time in a narrow band around the first
fit. The fit's residuals give the position uncertainty.
"""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np

from tabletop.photo import BASE_SIZES_MM
from tabletop.photo.rectify import subpixel_peaks
from tabletop.photo.values import Detection, Rectified, apply_homography

RAYS = 120
HOUGH_PX_PER_MM = 1.0
MIN_CONFIDENCE = 0.2
SMOOTH_PX = 0.8
MAX_CANDIDATES = 1500
BEVEL_BEYOND = 0.35
CORRELATION = 1.5
"""Neighbouring rays see overlapping pixels (blur, JPEG blocks): inflate the fit's error by this much."""


def _profiles(rect: Rectified, centres: np.ndarray, radii_lo: np.ndarray, radii_hi: np.ndarray, step: float,
              angles: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Colours and their radial derivative along rays (table mm) from each centre.

    Returns radii [n, m], samples [n, rays, m, channels] and d(samples)/d(radius), same shape.
    """
    m = int(np.ceil(np.max(radii_hi - radii_lo) / step)) + 1
    radii = radii_lo[:, None] + step * np.arange(m)[None, :]
    ux, uy = np.cos(angles), np.sin(angles)
    px = (centres[:, 0, None, None] + radii[:, None, :] * ux[None, :, None]).astype(np.float32)
    py = (centres[:, 1, None, None] + radii[:, None, :] * uy[None, :, None]).astype(np.float32)
    h = rect.homography.astype(np.float32)
    w = h[2, 0] * px + h[2, 1] * py + h[2, 2]
    ix = ((h[0, 0] * px + h[0, 1] * py + h[0, 2]) / w).astype(np.float32)
    iy = ((h[1, 0] * px + h[1, 1] * py + h[1, 2]) / w).astype(np.float32)
    n, k = ix.shape[0], ix.shape[1]
    flat_x, flat_y = ix.reshape(n * k, m), iy.reshape(n * k, m)
    rows = 30000  # remap's maps must stay under 32767 rows
    samples = np.concatenate([
        cv2.remap(rect.source, flat_x[i:i + rows], flat_y[i:i + rows], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        for i in range(0, n * k, rows)
    ]).astype(np.float32)
    samples = samples.reshape(n, k, m, -1)
    grad = np.zeros_like(samples)
    grad[:, :, 1:-1] = (samples[:, :, 2:] - samples[:, :, :-2]) / (2 * step)
    return radii, samples, grad


def outermost_peaks(strength: np.ndarray, step: float, fraction: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the outermost local maximum at least ``fraction`` of the row's strongest, parabola-refined.

    A base's rim is its outermost edge: the step from bevel to top (or a painted ring) lies inside it.
    Returns the peak's offset from the row's first sample (same units as ``step``) and its strength.
    """
    s = strength
    inner = s[:, 1:-1]
    is_max = (inner >= s[:, :-2]) & (inner > s[:, 2:]) & (inner >= fraction * s.max(axis=1, keepdims=True)) & (inner > 1e-6)
    m = inner.shape[1]
    last = np.where(is_max.any(axis=1), m - 1 - np.argmax(is_max[:, ::-1], axis=1), np.argmax(inner, axis=1)) + 1
    rows = np.arange(s.shape[0])
    a, b, c = s[rows, last - 1], s[rows, last], s[rows, np.minimum(last + 1, s.shape[1] - 1)]
    denom = a - 2 * b + c
    shift = np.where(denom < -1e-9, 0.5 * (a - c) / np.where(denom < -1e-9, denom, -1.0), 0.0)
    return (last + np.clip(shift, -0.5, 0.5)) * step, b


def _ring_colours(rect: Rectified, centres: np.ndarray, radii: np.ndarray, offsets: np.ndarray,
                  angles: np.ndarray) -> np.ndarray:
    """Photo colours at radius + offset along each ray: [n, rays, offsets, channels]."""
    ux, uy = np.cos(angles), np.sin(angles)
    rad = radii[:, None] + offsets[None, :]
    px = centres[:, 0, None, None] + rad[:, None, :] * ux[None, :, None]
    py = centres[:, 1, None, None] + rad[:, None, :] * uy[None, :, None]
    img = apply_homography(rect.homography, np.column_stack([px.ravel(), py.ravel()])).astype(np.float32)
    n, k, m = px.shape
    flat_x = img[:, 0].reshape(n * k, m)
    flat_y = img[:, 1].reshape(n * k, m)
    rows = 30000
    return np.concatenate([
        cv2.remap(rect.source, flat_x[i:i + rows], flat_y[i:i + rows], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        for i in range(0, n * k, rows)
    ]).astype(np.float32).reshape(n, k, m, -1)


def _bevel_beyond(rect: Rectified, centres: np.ndarray, radii: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """How far from the mat's colour the photo still is 1.2 mm beyond the fitted rim, as a fraction of the rim's step.

    Near 0 when the fit is on the rim; large when it is on the border between a base's top and a painted
    bevel (then the rim proper is further out, blurred into the same peak).
    """
    c = _ring_colours(rect, centres, radii, np.array([-1.0, 1.2, 3.0, 3.5]), angles)
    med = np.median(c, axis=1)  # [n, offsets, channels]
    mat = 0.5 * (med[:, 2] + med[:, 3])
    step = np.linalg.norm(med[:, 0] - mat, axis=1)
    return np.linalg.norm(med[:, 1] - mat, axis=1) / (step + 1.0)


def _ring_step(rect: Rectified, centres: np.ndarray, radii: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """How clearly each circle separates two colours: |inside − outside| over the rings' own variation.

    Inside is the base's top just within the rim, outside the mat just beyond it, each a median
    over rays; a circle drawn on textured mat or terrain has no consistent step across it.
    """
    samples = _ring_colours(rect, centres, radii, np.array([-3.0, -2.5, -2.0, 1.5, 2.0, 2.5]), angles)
    inside = samples[:, :, :3].mean(axis=2)
    outside = samples[:, :, 3:].mean(axis=2)
    med_in = np.median(inside, axis=1)
    med_out = np.median(outside, axis=1)
    step = np.linalg.norm(med_in - med_out, axis=1)
    spread = np.median(np.linalg.norm(outside - med_out[:, None, :], axis=2), axis=1) + np.median(
        np.linalg.norm(inside - med_in[:, None, :], axis=2), axis=1)
    return step / (spread + 4.0)


def fit_circle(points: np.ndarray) -> tuple[np.ndarray, float]:
    """Algebraic (Kåsa) circle through points: centre, radius."""
    x, y = points[:, 0], points[:, 1]
    a = np.column_stack([x, y, np.ones_like(x)])
    b = x * x + y * y
    sol, *_ = np.linalg.lstsq(a, b, rcond=None)
    cx, cy = sol[0] / 2, sol[1] / 2
    return np.array([cx, cy]), float(math.sqrt(max(sol[2] + cx * cx + cy * cy, 1e-12)))


def _robust_circle(points: np.ndarray, usable: np.ndarray) -> tuple[np.ndarray, float, np.ndarray, float]:
    """Circle fit trimming points beyond 2.5 robust sigmas: centre, radius, inlier mask, residual RMS."""
    keep = usable.copy()
    centre, radius = np.zeros(2), 0.0
    for _ in range(8):
        if keep.sum() < 8:
            return centre, radius, keep, float("inf")
        centre, radius = fit_circle(points[keep])
        res = np.hypot(points[:, 0] - centre[0], points[:, 1] - centre[1]) - radius
        spread = 1.4826 * float(np.median(np.abs(res[keep])))
        new_keep = usable & (np.abs(res) <= max(2.5 * spread, 0.08))
        if np.array_equal(new_keep, keep):
            break
        keep = new_keep
    res = np.hypot(points[:, 0] - centre[0], points[:, 1] - centre[1]) - radius
    return centre, radius, keep, float(np.sqrt(np.mean(res[keep] ** 2)))


def candidates(rect: Rectified, base_sizes_mm: tuple[float, ...]) -> np.ndarray:
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


def _corners_of(rect: Rectified) -> tuple[tuple[float, float], ...]:
    w, d = rect.table_mm
    pts = apply_homography(rect.homography, np.array([[0, 0], [w, 0], [w, d], [0, d]], dtype=float))
    return tuple((float(x), float(y)) for x, y in pts)


def _refine(rect: Rectified, centres: np.ndarray, radii: np.ndarray, inward: float | np.ndarray,
            outward: float | np.ndarray, step: float, angles: np.ndarray, ring_search: bool = False, window: float = 1.25) -> list[tuple[np.ndarray, float, float, float, float]]:
    """One rim-fit pass per candidate: (centre, radius, inlier fraction, residual RMS mm, rim contrast)."""
    rr, samples, grad = _profiles(rect, centres, radii - inward, radii + outward, step, angles)
    out = []
    for i in range(len(centres)):
        # The rim is where the colour turns from the base's to the mat's, going outwards: keep only the
        # derivative along that colour change. A miniature's edges (miniature to base) and most terrain
        # edges point elsewhere and stop competing with a faint rim.
        j_in = int(np.argmin(np.abs(rr[i] - (radii[i] - 1.5))))
        j_out = int(np.argmin(np.abs(rr[i] - (radii[i] + 2.5))))
        change = np.median(samples[i, :, j_out], axis=0) - np.median(samples[i, :, j_in], axis=0)
        norm = float(np.linalg.norm(change))
        if norm > 3.0:
            strength = np.clip(grad[i] @ (change / norm), 0.0, None)
        else:
            strength = np.sqrt(np.sum(grad[i] ** 2, axis=2))
        if ring_search:
            # Which ring is the rim: the outermost clear peak of the ray-averaged edge strength (a painted
            # bevel or the top's border makes a second ring inside it). Then look only near that ring.
            ring = strength.mean(axis=0)
            ring_pos, _ = outermost_peaks(ring[None, :], step, fraction=0.4)
            centre_j = int(round(ring_pos[0] / step))
            half = int(round(window / step))
            masked = np.zeros_like(strength)
            lo_j, hi_j = max(0, centre_j - half), min(strength.shape[1], centre_j + half + 1)
            masked[:, lo_j:hi_j] = strength[:, lo_j:hi_j]
            strength = masked
        pos, peak = subpixel_peaks(strength, rr[i] - rr[i, 0], lo=1)
        rho = rr[i, 0] + pos
        pts = centres[i][None, :] + rho[:, None] * np.column_stack([np.cos(angles), np.sin(angles)])
        strong = peak > 0.35 * np.median(peak) + 1.0
        centre, radius, keep, rms = _robust_circle(pts, strong)
        floor = float(np.median(np.min(strength, axis=1))) + 1.0
        contrast = float(np.median(peak[keep])) / floor if keep.any() else 0.0
        out.append((centre, radius, float(keep.mean()), rms, contrast))
    return out


def _confidence(support: float, rms: float, step: float, snap_err: float) -> float:
    """0..1 from the rim's evidence: rays agreeing, their scatter, the colour step across it, the size's fit."""
    return float(
        min(1.0, support / 0.7)
        * math.exp(-0.5 * (rms / 0.35) ** 2)
        * (1 - math.exp(-step / 1.5))
        * math.exp(-0.5 * (snap_err / 0.8) ** 2)
    )


def detect_bases(rect: Rectified, base_sizes_mm: tuple[float, ...] = BASE_SIZES_MM,
                 min_confidence: float = MIN_CONFIDENCE) -> list[Detection]:
    """Round bases on the table, sorted by y then x: centre and 1-sigma in mm, diameter snapped to ``base_sizes_mm``."""
    sizes = np.asarray(sorted(base_sizes_mm), dtype=float)
    cand = candidates(rect, tuple(sizes))
    if len(cand) == 0:
        return []
    w, d = rect.table_mm
    cand = cand[(cand[:, 0] > 0) & (cand[:, 0] < w) & (cand[:, 1] > 0) & (cand[:, 1] < d)]
    angles = np.linspace(0, 2 * math.pi, RAYS, endpoint=False)
    # Measure on a lightly smoothed photo: the gradient peak of a blurred step stays where the step is,
    # while sensor noise and JPEG blocks no longer make peaks of their own.
    rect = dataclasses.replace(rect, source=cv2.GaussianBlur(rect.source, (0, 0), SMOOTH_PX))
    guess = cand[:, 2]
    band = np.maximum(3.0, 0.2 * guess)
    # First look: half the rays, coarse steps, every candidate.
    fits = _refine(rect, cand[:, :2], guess, band, band, 0.5, angles[::2], ring_search=True, window=1.5)
    centres, radii = cand[:, :2], guess
    # Second look about the fitted centre, now sharp: the outermost ring within reach is the rim (the
    # first pass may have taken a painted bevel's inner border); then a narrow final fit.
    for inward, outward, ring, window in ((2.0, 4.0, True, 0.8), (0.8, 0.8, False, 0.0)):
        new_c = np.array([f[0] for f in fits])
        new_r = np.array([f[1] for f in fits])
        rms = np.array([f[3] for f in fits])
        # Drop what is plainly not a rim (saves the later passes), and fits that ran off (a partial arc).
        with np.errstate(invalid="ignore"):
            ok = np.isfinite(new_r) & (new_r > sizes[0] / 2 * 0.8) & (new_r < sizes[-1] / 2 * 1.15) & (rms < 0.9)
            ok &= np.abs(new_r - radii) < np.maximum(4.0, 0.25 * radii) + 1.0
            ok &= np.hypot(*(new_c - centres).T) < np.maximum(4.0, 0.25 * radii)
        centres, radii = new_c[ok], new_r[ok]
        # Candidates that converged on the same rim: measure it once.
        if len(centres) > 1:
            near = np.hypot(centres[:, None, 0] - centres[None, :, 0], centres[:, None, 1] - centres[None, :, 1]) < 0.5
            same = near & (np.abs(radii[:, None] - radii[None, :]) < 0.5)
            unique = ~np.triu(same, k=1).any(axis=0)
            centres, radii = centres[unique], radii[unique]
        if len(centres) == 0:
            return []
        fits = _refine(rect, centres, radii, inward, outward, 0.1, angles, ring_search=ring, window=window)
    second = fits
    fitted_centres = np.array([f[0] for f in second])
    fitted_radii = np.array([f[1] if math.isfinite(f[1]) and f[1] > 1 else 1.0 for f in second])
    steps = _ring_step(rect, fitted_centres, fitted_radii, angles[::3])
    ok = np.ones(len(second), dtype=bool)
    beyond = _bevel_beyond(rect, fitted_centres, fitted_radii, angles[::3])
    found: list[Detection] = []
    for i, (centre, radius, support, rms, contrast) in enumerate(second):
        if not ok[i] or not math.isfinite(rms) or radius <= 0:
            continue
        diameter = 2 * radius
        j = int(np.argmin(np.abs(sizes - diameter)))
        snap_err = abs(sizes[j] - diameter)
        if snap_err > 0.8 and beyond[i] > BEVEL_BEYOND:
            # Fitted on a painted bevel's inner border: the base is the catalogue size 1–3 mm further out.
            outer = [jj for jj in range(len(sizes)) if 1.0 <= sizes[jj] - diameter <= 3.5]
            if outer and _confidence(support, rms, float(steps[i]), 0.0) >= 0.5:
                j = outer[0]
                snap_err = 0.0
        n_in = support * RAYS
        # Centre error of a circle fit over the full circle: rms * sqrt(2 / n) per axis.
        sigma_fit = CORRELATION * rms * math.sqrt(2.0 / max(n_in, 1.0))
        sigma = math.hypot(sigma_fit, rect.calibration_rms_mm)
        confidence = _confidence(support, rms, float(steps[i]), snap_err)
        if confidence < min_confidence:
            continue
        if not (0 <= centre[0] <= w and 0 <= centre[1] <= d):
            continue
        found.append(Detection(float(centre[0]), float(centre[1]), float(sizes[j]), float(diameter),
                               float(np.clip(confidence, 0.0, 1.0)), float(sigma)))
    # Bases cannot overlap: of two overlapping detections keep the surer.
    found.sort(key=lambda det: -det.confidence)
    kept: list[Detection] = []
    for det in found:
        if all(math.hypot(det.x_mm - k.x_mm, det.y_mm - k.y_mm) > (det.diameter_mm + k.diameter_mm) / 2 - 2.0 for k in kept):
            kept.append(det)
    kept.sort(key=lambda det: (det.y_mm, det.x_mm))
    return kept
