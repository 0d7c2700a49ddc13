"""One base fitted where the user points: the analysis's own stages on a crop round a clicked point (issue 35's review).

``fit_base_at(rect, x_mm, y_mm)`` looks for a base whose footprint's centre lies within ``LOCAL_REACH_MM`` of the point:
the round catalogue sizes by the polar search, rim fit and footprint fit of ``detect``, and an oval by EDCircles on the
crop and the oval fit. It reads only the photo's pixels near the point (a few hundred thousand samples), so it answers
in well under 200 ms on a 12-megapixel photo. ``rectified_for(loaded, result)`` gives the ``Rectified`` it needs from
an analysis already made (no top-down image of the whole table is drawn).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from tabletop.photo import BASE_SIZES_MM, detect as detect_module
from tabletop.photo.candidates import MatModel, _edge_drawing_image
from tabletop.photo.footprint import fit_footprints
from tabletop.photo.ovals import MIN_ELONGATION, OVAL_SIZES_MM, fit_ovals
from tabletop.photo.rays import FIT_RAYS, photo_scale, to_photo
from tabletop.photo.rimfit import fit_rims, search_circles
from tabletop.photo.values import Detection, LoadedImage, PhotoResult, Rectified

LOCAL_REACH_MM = 8.0
"""How far from the clicked point a base's centre may lie (a click lands on the base, not on its centre)."""
CROP_MARGIN_MM = 15.0
"""The crop reaches this far past the largest base round the point: mat on every side to model its colour."""
LOCAL_MIN_CONFIDENCE = 0.2
"""A fit less sure than this is no base (the user is then offered a manual circle)."""


def rectified_for(loaded: LoadedImage, result: PhotoResult, base_height_mm: float | None = None) -> Rectified:
    """The rectification of an analysed photo (its camera and corners) without a top-down image, for ``fit_base_at``."""
    from tabletop.photo.imageio import to_working
    from tabletop.photo.rectify import homography_from_corners

    corners = to_working(np.asarray(result.corners_px), loaded.scale)
    cam = result.camera
    und = cam.distortion.remove(corners) if cam is not None else corners
    h = homography_from_corners(tuple((float(x), float(y)) for x, y in und), result.table_mm)  # type: ignore[arg-type]
    return Rectified(source=loaded.pixels, homography=h, table_mm=result.table_mm, px_per_mm=0.0, image=np.zeros((1, 1, 3), np.uint8),
                     calibration_rms_mm=result.calibration_rms_mm, camera=cam, base_height_mm=base_height_mm)


def _crop(rect: Rectified, x_mm: float, y_mm: float, half: float) -> tuple[np.ndarray, float, float]:
    """A 1 px/mm top-down crop centred on the point (row 0 = the far side): the image and its left and top edges in mm."""
    n = int(round(2 * half))
    x0, y1 = x_mm - half, y_mm + half
    xs = x0 + np.arange(n) + 0.5
    ys = y1 - np.arange(n) - 0.5
    ix, iy = to_photo(rect, *np.meshgrid(xs, ys))
    return cv2.remap(rect.source, ix, iy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), x0, y1


def _local_mat(crop: np.ndarray) -> MatModel:
    """The mat round the point: the median colour of the crop's outer ring, and the whitening of its variation there."""
    h, w = crop.shape[:2]
    ring = np.ones((h, w), bool)
    m = max(4, min(h, w) // 8)
    ring[m:h - m, m:w - m] = False
    pixels = crop[ring].reshape(-1, 3).astype(np.float32)
    colour = np.median(pixels, axis=0)
    diff = pixels - colour
    mad = 1.4826 * np.median(np.abs(diff), axis=0) + 0.5
    core = np.all(np.abs(diff) < 3 * mad, axis=1)
    cov = np.cov(diff[core].T) + np.eye(3) * 1.0
    vals, vecs = np.linalg.eigh(cov)
    flat = np.broadcast_to(colour, crop.shape).astype(np.float32)
    return MatModel(flat, flat, (vecs @ np.diag(vals ** -0.5) @ vecs.T).astype(np.float32))


def fit_base_at(rect: Rectified, x_mm: float, y_mm: float, base_sizes_mm: tuple[float, ...] = BASE_SIZES_MM,
                shape: str = "any") -> Detection | None:
    """The base under table point (``x_mm``, ``y_mm``): round (``shape="round"``), oval (``"oval"``) or whichever fits
    better (``"any"``), with its sigma and ``confident`` as in the full analysis; None if no rim is found there."""
    sizes = np.asarray(sorted(base_sizes_mm), dtype=float)
    largest = max(float(sizes[-1]), max(length for length, _ in OVAL_SIZES_MM) if shape != "round" else 0.0)
    half = largest / 2 + LOCAL_REACH_MM + CROP_MARGIN_MM
    crop, x0, y1 = _crop(rect, x_mm, y_mm, half)
    mat = _local_mat(crop)
    scale = photo_scale(rect)
    found: list[Detection] = []
    if shape in ("any", "round"):
        steps = np.arange(-LOCAL_REACH_MM, LOCAL_REACH_MM + 0.1, 4.0)
        cand = np.array([[x_mm + dx, y_mm + dy, sizes[0] / 2, sizes[-1] / 2] for dx in steps for dy in steps])
        colour = np.repeat(mat.near[0, 0][None, :], len(cand), axis=0)
        centres, radii, scores, origin = search_circles(rect, cand, colour, mat.whiten, sizes, scale)
        k = int(np.argmax(scores))
        if scores[k] > 0:
            c, r = centres[k:k + 1], radii[k:k + 1]
            one = colour[:1]
            for half_band in (1.5, 0.8):
                c, free_r, support, rms, strength, spread = fit_rims(rect, c, r, one, mat.whiten, half_band, scale)
            if np.isfinite(rms[0]):
                confidence = detect_module.confidence_of_rim(float(support[0]), float(rms[0]), float(strength[0]), 0.0, scale.rms_mm)
                chosen = [(confidence, 0, c[0], float(rms[0]), float(spread[0]), float(r[0]), float(free_r[0]))]
                found += detect_module.report_bases(rect, chosen, {}, one, mat.whiten, scale, sizes, drop_unexplained=False)
    if shape in ("any", "oval"):
        grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        rows = _edge_drawing_image(grey)
        rows = rows[(rows[:, 2] == 0) & (np.maximum(rows[:, 3], rows[:, 4]) >= MIN_ELONGATION * np.minimum(rows[:, 3], rows[:, 4]))]
        if len(rows):
            a, b = np.maximum(rows[:, 3], rows[:, 4]), np.minimum(rows[:, 3], rows[:, 4])
            angle = np.where(rows[:, 3] >= rows[:, 4], rows[:, 5], rows[:, 5] + 90.0)
            seeds = np.column_stack([x0 + rows[:, 0] + 0.5, y1 - rows[:, 1] - 0.5, a, b, (-angle) % 180.0])
            seeds = seeds[np.hypot(seeds[:, 0] - x_mm, seeds[:, 1] - y_mm) <= LOCAL_REACH_MM + seeds[:, 3]]
            if len(seeds):
                colour = np.repeat(mat.near[0, 0][None, :], len(seeds), axis=0)
                for f in fit_ovals(rect, seeds, colour, mat.whiten, scale):
                    if f is None or f.size is None or not f.contains(x_mm, y_mm, LOCAL_REACH_MM):
                        continue
                    sigma = math.sqrt(f.centre_sigma_mm ** 2 + rect.calibration_rms_mm ** 2 + detect_module.OVAL_MODEL_SIGMA_MM ** 2)
                    confidence = min(1.0, f.rays / FIT_RAYS) * math.exp(-0.5 * (f.rms_mm / scale.rms_mm) ** 2)
                    found.append(Detection(f.x_mm, f.y_mm, f.size[0], 2 * f.a_mm, confidence, sigma, False, "oval", f.size[1],
                                           f.angle_deg, f.angle_sigma_deg))
    found = [d for d in found if d.confidence >= LOCAL_MIN_CONFIDENCE and math.hypot(d.x_mm - x_mm, d.y_mm - y_mm) <= LOCAL_REACH_MM
             + (d.width_mm / 2 if d.shape == "oval" else 0.0)]
    if not found:
        return None
    return max(found, key=lambda d: d.confidence)
