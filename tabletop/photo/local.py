"""One base fitted where the user points: the analysis's own stages on a crop round a clicked point (issue 35's review).

``fit_base_at(rect, x_mm, y_mm)`` looks for a base whose footprint's centre lies within ``LOCAL_REACH_MM`` of the point:
the round catalogue sizes by the polar search, rim fit and footprint fit of ``detect``, and an oval by EDCircles on the
crop and the oval fit. A click lands a few millimetres off a base's centre (a screen pixel is a millimetre or two at
the app's first zoom), so the search starts all over the reach and, where its best circle is not a sure rim, the next
best are fitted too: any whose outline passes the analysis's a-contrario test (counted over the outlines tried round
the click) is a base, the plainest of them kept. Nothing found is said as such (None): never a circle far from the
click or one no outline supports. It reads only the photo's pixels near the point (a few hundred thousand samples), so
it answers in well under 200 ms on a 12-megapixel photo. ``rectified_for(loaded, result)`` gives the ``Rectified`` it needs from
an analysis already made (no top-down image of the whole table is drawn).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from tabletop.photo import BASE_SIZES_MM, detect as detect_module
from tabletop.photo.candidates import NOT_MAT_SIGMAS, MatModel, _edge_drawing_image
from tabletop.photo.contrario import GRID_MM, PROFILES_TRIED, log10_binomial_tail, outline_alignment
from tabletop.photo.ovals import MIN_ELONGATION, OVAL_SIZES_MM, fit_ovals
from tabletop.photo.rays import EVIDENCE_UNIT, FIT_RAYS, Scale, photo_scale, to_photo
from tabletop.photo.rimfit import CONTAINING_SUPPORT, OFFSETS_MM, fit_rims, fit_rims_at, search_circles, snapped_radii
from tabletop.photo.values import Detection, LoadedImage, PhotoResult, Rectified

LOCAL_REACH_MM = 8.0
"""How far from the clicked point a base's centre may lie (a click lands on the base, not on its centre); the app
passes more where a screen pixel is coarse (``reach_mm``)."""
LOCAL_MIN_REACH_MM = 2.0
"""A reach is never less: a fitted centre is never exactly on the point (a hand's click is off by a millimetre or two
even zoomed in), so a smaller one would turn every base away."""
LOCAL_MAX_REACH_MM = 16.0
"""Nor more: a search this wide takes about 0.1 s of CPU on a 12 MP photo (81 starts); wider, a click cannot say which
base is meant (at the app's widest zoom 6 screen pixels are 120 mm, several bases and a roof's tower) and the search
costs seconds. The app asks for a closer zoom instead."""
START_SPACING_MM = 4.0
"""The search starts on a grid this fine over the reach (each start searches ±3 mm round it)."""
CROP_MARGIN_MM = 15.0
"""The crop reaches this far past the largest base round the point: mat on every side to model its colour."""
LOCAL_MIN_CONFIDENCE = 0.2
"""The search's best circle is taken at once when its rim fit is this sure (and its outline passes the a-contrario
test); a rim seen on fewer rays (its top painted as the mat, a figure over it) can still be the base, found among the
next circles by its outline alone and reported as "check this base", as the analysis reports such a rim."""
LOCAL_SECOND_SURFACE_SHARE = 0.25
"""Where nothing is found against the mat of the crop's outer ring, the crop's pixels off that mat are taken for a
second surface round the point (a printed road, a river) when they fill this share of it: more than the largest base
and its figure do (a 100 mm base fills 17 % of its crop), so a lone base is not fitted against its own colour."""
LOCAL_TRIES = 6
"""The best-supported circles of the search round the point that are fitted when the best is not sure: it can be a
neighbour, a figure's outline or a wrong size while the base the user meant is the next one down."""


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


def _local_mat(crop: np.ndarray, where: np.ndarray) -> MatModel:
    """A flat mat model from the crop's pixels ``where`` (a mask): their median colour and the whitening of their
    variation."""
    pixels = crop[where].reshape(-1, 3).astype(np.float32)
    colour = np.median(pixels, axis=0)
    diff = pixels - colour
    mad = 1.4826 * np.median(np.abs(diff), axis=0) + 0.5
    core = np.all(np.abs(diff) < 3 * mad, axis=1)
    cov = np.cov(diff[core].T) + np.eye(3) * 1.0
    vals, vecs = np.linalg.eigh(cov)
    flat = np.broadcast_to(colour, crop.shape).astype(np.float32)
    return MatModel(flat, flat, (vecs @ np.diag(vals ** -0.5) @ vecs.T).astype(np.float32))


def _local_mats(crop: np.ndarray) -> list[MatModel]:
    """The ground round the point: the mat of the crop's outer ring; then, where the crop's pixels off that mat fill
    ``LOCAL_SECOND_SURFACE_SHARE`` of it, theirs (a base standing on a printed road has the road round it, while the
    crop's outer ring is mostly the mat either side of the road)."""
    h, w = crop.shape[:2]
    ring = np.ones((h, w), bool)
    m = max(4, min(h, w) // 8)
    ring[m:h - m, m:w - m] = False
    first = _local_mat(crop, ring)
    off = np.linalg.norm((crop.astype(np.float32) - first.near) @ first.whiten.T, axis=2) > NOT_MAT_SIGMAS
    if off.mean() < LOCAL_SECOND_SURFACE_SHARE:
        return [first]
    return [first, _local_mat(crop, off)]


def fit_base_at(rect: Rectified, x_mm: float, y_mm: float, base_sizes_mm: tuple[float, ...] = BASE_SIZES_MM,
                shape: str = "any", reach_mm: float = LOCAL_REACH_MM) -> Detection | None:
    """The base under table point (``x_mm``, ``y_mm``): round (``shape="round"``), oval (``"oval"``) or whichever fits
    better (``"any"``), with its sigma and ``confident`` as in the full analysis; None if no rim is found there.
    ``reach_mm`` is held within ``LOCAL_MIN_REACH_MM`` and ``LOCAL_MAX_REACH_MM``."""
    reach_mm = min(max(float(reach_mm), LOCAL_MIN_REACH_MM), LOCAL_MAX_REACH_MM)
    sizes = np.asarray(sorted(base_sizes_mm), dtype=float)
    largest = max(float(sizes[-1]), max(length for length, _ in OVAL_SIZES_MM) if shape != "round" else 0.0)
    half = largest / 2 + reach_mm + CROP_MARGIN_MM
    crop, x0, y1 = _crop(rect, x_mm, y_mm, half)
    scale = photo_scale(rect)
    for mat in _local_mats(crop):
        found = _bases_against(rect, crop, x0, y1, x_mm, y_mm, sizes, mat, scale, shape, reach_mm)
        if found:
            return max(found, key=lambda d: d.confidence)
    return None


def _bases_against(rect: Rectified, crop: np.ndarray, x0: float, y1: float, x_mm: float, y_mm: float, sizes: np.ndarray,
                   mat: MatModel, scale: Scale, shape: str, reach_mm: float) -> list[Detection]:
    """The bases within ``reach_mm`` of the point, round and oval as ``shape`` asks, against one model of the ground."""
    found: list[Detection] = []
    if shape in ("any", "round"):
        found += _round_bases(rect, x_mm, y_mm, sizes, mat, scale, reach_mm)
    if shape in ("any", "oval"):
        grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        rows = _edge_drawing_image(grey)
        rows = rows[(rows[:, 2] == 0) & (np.maximum(rows[:, 3], rows[:, 4]) >= MIN_ELONGATION * np.minimum(rows[:, 3], rows[:, 4]))]
        if len(rows):
            a, b = np.maximum(rows[:, 3], rows[:, 4]), np.minimum(rows[:, 3], rows[:, 4])
            angle = np.where(rows[:, 3] >= rows[:, 4], rows[:, 5], rows[:, 5] + 90.0)
            seeds = np.column_stack([x0 + rows[:, 0] + 0.5, y1 - rows[:, 1] - 0.5, a, b, (-angle) % 180.0])
            seeds = seeds[np.hypot(seeds[:, 0] - x_mm, seeds[:, 1] - y_mm) <= reach_mm + seeds[:, 3]]
            if len(seeds):
                colour = np.repeat(mat.near[0, 0][None, :], len(seeds), axis=0)
                for f in fit_ovals(rect, seeds, colour, mat.whiten, scale):
                    if f is None or f.size is None or not f.contains(x_mm, y_mm, reach_mm):
                        continue
                    confidence = min(1.0, f.rays / FIT_RAYS) * math.exp(-0.5 * (f.rms_mm / scale.rms_mm) ** 2)
                    if confidence < LOCAL_MIN_CONFIDENCE:
                        continue
                    sigma = math.sqrt(f.centre_sigma_mm ** 2 + rect.calibration_rms_mm ** 2 + detect_module.OVAL_MODEL_SIGMA_MM ** 2)
                    found.append(Detection(f.x_mm, f.y_mm, f.size[0], 2 * f.a_mm, confidence, sigma, False, "oval", f.size[1],
                                           f.angle_deg, f.angle_sigma_deg))
    return [d for d in found if math.hypot(d.x_mm - x_mm, d.y_mm - y_mm) <= reach_mm + (d.width_mm / 2 if d.shape == "oval" else 0.0)]


def _round_bases(rect: Rectified, x_mm: float, y_mm: float, sizes: np.ndarray, mat: MatModel, scale: Scale,
                 reach_mm: float) -> list[Detection]:
    """The round base whose centre lies within ``reach_mm`` of the point: the search's best circle from starts all over
    the reach if its rim fit is sure; else its next best too, each fitted (and fitted again at the catalogue size its
    free fit snaps to, as ``detect`` does), the plainest outline kept, never a ring inside a rim fitted all round (a
    figure's outline on its base)."""
    steps = np.linspace(-reach_mm, reach_mm, 2 * math.ceil(reach_mm / START_SPACING_MM) + 1)
    cand = np.array([[x_mm + dx, y_mm + dy, sizes[0] / 2, sizes[-1] / 2] for dx in steps for dy in steps])
    colour = np.repeat(mat.near[0, 0][None, :], len(cand), axis=0)
    centres, radii, scores, _ = search_circles(rect, cand, colour, mat.whiten, sizes, scale)
    order = [int(k) for k in np.argsort(-scores, kind="stable") if scores[k] > 0]
    picked: list[int] = []
    for k in order:  # distinct circles only: most starts settle on the same one
        if not any(radii[j] == radii[k] and math.hypot(*(centres[j] - centres[k])) < 1.5 for j in picked):
            picked.append(k)
        if len(picked) == LOCAL_TRIES:
            break
    if not picked:
        return []
    c, r = centres[picked], radii[picked]
    one = colour[:len(picked)]
    for half_band in (1.5, 0.8):
        c, free_r, support, rms, strength, spread = fit_rims(rect, c, r, one, mat.whiten, half_band, scale)
    # The search's best circle, when its rim fit is sure enough, is the base (as the analysis would take it).
    if np.isfinite(rms[0]) and math.hypot(c[0, 0] - x_mm, c[0, 1] - y_mm) <= reach_mm:
        confidence = detect_module.confidence_of_rim(float(support[0]), float(rms[0]), float(strength[0] / EVIDENCE_UNIT), 0.0, scale.rms_mm)
        if confidence >= LOCAL_MIN_CONFIDENCE and _local_nfa(rect, c[:1], r[:1], one[:1], mat, len(sizes), reach_mm)[0] < 0:
            first = detect_module.report_bases(rect, [(confidence, 0, c[0], float(rms[0]), float(spread[0]), float(r[0]), float(free_r[0]))],
                                               {}, one, mat.whiten, scale, sizes, drop_unexplained=False)
            if first and math.hypot(first[0].x_mm - x_mm, first[0].y_mm - y_mm) <= reach_mm:
                return first
    # Otherwise the user still says a base is here: the next circles of the search too, each also fitted at the
    # catalogue size its free fit snaps to, beside the first fit, not instead of it (a figure's cloak over the rim pulls
    # the free radius out, and the refit then follows the cloak).
    snapped = snapped_radii(free_r, sizes)
    change = np.nonzero(np.isfinite(rms) & (snapped != r))[0]
    if len(change):
        refit = fit_rims_at(rect, c[change], snapped[change], one[change], mat.whiten, scale)
        c, free_r, support, rms, strength, spread = (np.concatenate([a, b]) for a, b in zip((c, free_r, support, rms, strength, spread), refit))
        r = np.concatenate([r, snapped[change]])
        one = np.repeat(mat.near[0, 0][None, :], len(r), axis=0)  # every circle is judged against the same mat colour
    near = np.isfinite(rms) & (np.hypot(c[:, 0] - x_mm, c[:, 1] - y_mm) <= reach_mm)
    if not near.any():
        return []
    # Is there an outline at all: the analysis's a-contrario test, which every base it reports passes.
    nfa = _local_nfa(rect, c, r, one, mat, len(sizes), reach_mm)
    confidence = np.array([detect_module.confidence_of_rim(float(support[i]), float(rms[i]), float(strength[i] / EVIDENCE_UNIT),
                                                           abs(2 * float(free_r[i]) - 2 * float(r[i])), scale.rms_mm)
                           if np.isfinite(rms[i]) else 0.0 for i in range(len(r))])
    # A ring inside a rim fitted all round is a figure on its base, when that rim's outline is at least as plainly
    # there (not a circle traced round the base and its figure's cloak together).
    rim = np.isfinite(rms) & (support >= CONTAINING_SUPPORT) & (nfa < 0)
    inside = np.array([any(rim[j] and r[j] > r[i] and support[j] >= support[i] and nfa[j] <= nfa[i]
                           and math.hypot(*(c[i] - c[j])) + r[i] <= r[j] + 1.5 for j in range(len(r))) for i in range(len(r))])
    i = _choose(near & ~inside, nfa)
    if i is None:
        return []
    chosen = [(float(confidence[i]), i, c[i], float(rms[i]), float(spread[i]), float(r[i]), float(free_r[i]))]
    return detect_module.report_bases(rect, chosen, {}, one, mat.whiten, scale, sizes, drop_unexplained=False)


def _choose(candidates: np.ndarray, nfa: np.ndarray) -> int | None:
    """Which fitted circle is the base (an index), or None: of the outlines there, the plainest (the fewest false
    alarms). A circle traced round a base and its figure's cloak can be fitted on more rays than the base's own
    half-hidden rim, but it is far less an outline."""
    ok = np.nonzero(candidates & (nfa < 0))[0]
    return int(ok[np.argmin(nfa[ok])]) if len(ok) else None


def _local_nfa(rect: Rectified, centres: np.ndarray, radii: np.ndarray, colour: np.ndarray, mat: MatModel, sizes: int,
               reach_mm: float) -> np.ndarray:
    """log10 of the number of false alarms of each circle's outline (``contrario``), counting the outlines tried round
    the click (every place the search reaches, every size and profile), not over the whole table: the user says a base
    is here. Below 0: an outline chance would not draw there."""
    n_points, n_aligned = outline_alignment(rect, centres, radii, colour, mat.whiten)
    side = 2 * (reach_mm + float(np.max(OFFSETS_MM))) / GRID_MM
    return math.log10(side * side * max(1, sizes) * PROFILES_TRIED) + log10_binomial_tail(n_points, n_aligned)
