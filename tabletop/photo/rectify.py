"""The table in the photo: homography from its corners, rectified images, and finding its outline unaided."""

from __future__ import annotations

import math
from typing import NamedTuple

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from tabletop.photo.camera import Camera, Distortion, no_distortion, plumb_line, straightness
from tabletop.photo.rays import sorted_median
from tabletop.photo.values import Corners, PhotoError, Rectified, TableFit, apply_homography

MAP_STEP_PX = 8
"""Spacing of the exactly computed points of the top-down image's map through a lens (bilinear between them)."""
COARSE_SIDE_PX = 900
"""Long side of the downscaled copy the table's outline is first segmented in."""
SIDE_SEARCH_DEPTH = 0.35
"""How far into the table, as a fraction of its depth across a side, that side's edge is looked for."""
WIDE_SEARCH_DEPTH = 0.6
"""How far along its neighbouring sides a weak side's edge is looked for again (see ``_side_across``)."""
LEAK_RATIO = 0.25
"""A segmented side whose edge is weaker than this fraction of the strongest straight edge in its band is replaced."""
BORDER_RATIO = 0.6
"""A side weaker than this fraction of the strongest edge in its band is replaced if what lies between them is a
border round the mat (see ``_border_between``): the segmentation ran over it, and the side is its outer edge."""
ACROSS_SUPPORT = 0.3
"""A side with fewer outline points on it than this per pixel of its length was drawn through a leak's ragged
outline, not along an edge (leaked sides and sides drawn over a border had 0.13-0.18; sides along the table's
edge 0.47-0.98)."""
BAND_SUPPORT = 0.3
"""Only a side with less of the outline on it than this (as ``ACROSS_SUPPORT``) is replaced by a stronger line in its
band (``LEAK_RATIO``, ``BORDER_RATIO``): one with more is a straight run of the segmentation along its whole length,
the table's edge. On 1,030 photos the 21 sides rightly replaced so had 0.15-0.25, the one wrongly 0.98 (a side on
the table's edge where the light had darkened the mat to its border's lightness, so its step scored far under a line
through bases and terrain further in)."""
ACROSS_RATIO = 0.5
"""A weak side is replaced by the line between its neighbouring sides (``_side_across``) at least twice as strong:
a leaked side had 0.13 of its table edge's strength, a side over a border 0.41."""
ACROSS_OUTSIDE = 0.3
"""The lines between the neighbouring sides start and end up to this fraction of those sides' lengths outside the
side's corners: a leak can carry one corner out past the table's and leave the other inside it (a side crossing the
table's edge 80 px outside one corner and 141 px inside the other on the 900-px copy)."""
ACROSS_INNER = 0.8
"""Of the lines scoring at least this fraction of the best and at most a border's width (``BORDER_MAX_WIDTH``) inside
it, the innermost is refined: past a border round the mat its outer edge, to the room, can score as high as the
table's edge (7.07 against 6.85 on one border)."""
OUTLINE_RUNS = 6
"""Straight runs of the mat's outline looked for (a table has four sides; a leak can split one in two)."""
BORDER_MAX_WIDTH = 0.05
"""A border is at most this fraction of the table's depth across the side wide (a wide strip is table: terrain)."""
BORDER_CONTRAST = 2.0
"""A border's colour is this many times nearer what lies outside the side than the mat's."""


def homography_from_corners(corners_px: Corners, table_mm: tuple[float, float]) -> np.ndarray:
    """3x3 homography mapping table mm (origin lower-left, y up) to image pixels."""
    w, d = table_mm
    src = np.array([[0, 0], [w, 0], [w, d], [0, d]], dtype=np.float64)
    dst = np.asarray(corners_px, dtype=np.float64)
    # Four points fix the eight unknowns exactly: solve them in float64 (findHomography's least
    # squares lost 1e-3 px on a nearly flat quad; getPerspectiveTransform takes float32).
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for k, ((x, y), (u, v)) in enumerate(zip(src, dst)):
        a[2 * k] = (x, y, 1, 0, 0, 0, -u * x, -u * y)
        a[2 * k + 1] = (0, 0, 0, x, y, 1, -v * x, -v * y)
        b[2 * k], b[2 * k + 1] = u, v
    try:
        h = np.append(np.linalg.solve(a, b), 1.0).reshape(3, 3)
    except np.linalg.LinAlgError:
        raise PhotoError("the four corners do not define a perspective view of a rectangle") from None
    if not np.all(np.isfinite(h)):
        raise PhotoError("the four corners do not define a perspective view of a rectangle")
    return h


MAX_RECTIFIED_PIXELS = 4_000_000
"""The table seen from above is drawn at 1 px/mm, the scale bases are looked for at, unless that takes more than
this many pixels (a table over 2 m square): then at the photo's own resolution on the table, at most this many.
A 20 m table at 1 px/mm would be 400 megapixels, 1.2 GB before any work (and never sharper than the photo)."""


def rectified_px_per_mm(corners_px: Corners, table_mm: tuple[float, float], max_pixels: int = MAX_RECTIFIED_PIXELS) -> float:
    """The scale to rectify a photo at (see ``MAX_RECTIFIED_PIXELS``): 1 px/mm, or for a large table the photo's
    own resolution along the table's sides (the finest) within ``max_pixels``."""
    w, d = table_mm
    if w * d <= max_pixels:
        return 1.0
    c = np.asarray(corners_px, dtype=float)
    along_width = max(np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[3])) / w
    along_depth = max(np.linalg.norm(c[3] - c[0]), np.linalg.norm(c[2] - c[1])) / d
    return float(min(1.0, max(along_width, along_depth), math.sqrt(max_pixels / (w * d))))


def rectify(image: np.ndarray, corners_px: Corners, table_mm: tuple[float, float], px_per_mm: float = 1.0,
            calibration_rms_mm: float = 0.0, camera: Camera | None = None, base_height_mm: float | None = 0.0) -> Rectified:
    """The table seen from straight above at ``px_per_mm``; row 0 is the far edge (y = depth).

    With a ``camera`` the table is mapped through its pose and lens (the corners then only say which photo it is);
    without, through the homography of the four corners."""
    # The table plane's own mapping is the four corners' homography (exact where they were measured; a pose fitted to
    # them need not reproduce them); the camera adds the lens, and places what stands above the plane.
    if camera is not None:
        und = camera.distortion.remove(np.asarray(corners_px, dtype=np.float64))
        h = homography_from_corners((tuple(und[0]), tuple(und[1]), tuple(und[2]), tuple(und[3])), table_mm)
    else:
        h = homography_from_corners(corners_px, table_mm)
    w_mm, d_mm = table_mm
    out_w, out_h = int(round(w_mm * px_per_mm)), int(round(d_mm * px_per_mm))
    # Rectified pixel (u, v) samples table (u / s, depth - v / s).
    to_table = np.array([[1 / px_per_mm, 0, 0], [0, -1 / px_per_mm, d_mm], [0, 0, 1]])
    m = h @ to_table
    if camera is not None and not camera.distortion.identity:
        # The map is smooth: computed exactly on a grid MAP_STEP_PX apart and interpolated between (under 0.01 px).
        gw, gh = out_w // MAP_STEP_PX + 2, out_h // MAP_STEP_PX + 2
        u, v = np.meshgrid(np.arange(gw, dtype=np.float64) * MAP_STEP_PX, np.arange(gh, dtype=np.float64) * MAP_STEP_PX)
        src = camera.distortion.apply(apply_homography(m, np.column_stack([u.ravel(), v.ravel()])))
        grid = src.reshape(gh, gw, 2).astype(np.float32)
        full = cv2.resize(grid, ((gw - 1) * MAP_STEP_PX + 1, (gh - 1) * MAP_STEP_PX + 1), interpolation=cv2.INTER_LINEAR)
        mx, my = np.ascontiguousarray(full[:out_h, :out_w, 0]), np.ascontiguousarray(full[:out_h, :out_w, 1])
        top_down = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    else:
        top_down = cv2.warpPerspective(image, m, (out_w, out_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                       borderMode=cv2.BORDER_REPLICATE)
    return Rectified(source=image, homography=h, table_mm=(float(w_mm), float(d_mm)), px_per_mm=float(px_per_mm),
                     image=top_down, calibration_rms_mm=float(calibration_rms_mm), camera=camera, base_height_mm=base_height_mm)


def _order_corners(quad: np.ndarray) -> np.ndarray:
    """Four points as lower-left, lower-right, upper-right, upper-left: the near edge is at the photo's bottom."""
    by_y = quad[np.argsort(quad[:, 1])]
    upper, lower = by_y[:2], by_y[2:]
    ll, lr = lower[np.argsort(lower[:, 0])]
    ul, ur = upper[np.argsort(upper[:, 0])]
    return np.array([ll, lr, ur, ul], dtype=np.float64)


def _small_copy(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The photo shrunk to ``COARSE_SIDE_PX`` on its long side and smoothed, and the scale factor used."""
    h, w = image.shape[:2]
    f = COARSE_SIDE_PX / max(h, w)
    small = cv2.resize(image, (int(round(w * f)), int(round(h * f))), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (0, 0), 2.0), f


def _coarse_outline(small: np.ndarray) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """The mat's quadrilateral (in ``small``'s pixels) from a colour segmentation, its fill ratio, each side's
    support (see ``_quad_from_outline``) and the segmented region (1 inside)."""
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    sh, sw = lab.shape[:2]
    centre = lab[int(sh * 0.35):int(sh * 0.65), int(sw * 0.35):int(sw * 0.65)].reshape(-1, 3)
    mat = np.median(centre, axis=0)
    # Lightness varies with the light across the table; weigh colour (a, b) above it.
    diff = lab - mat
    dist = np.sqrt(0.5 * diff[..., 0] ** 2 + diff[..., 1] ** 2 + diff[..., 2] ** 2)
    dist8 = np.clip(dist * (255.0 / max(1.0, float(np.percentile(dist, 99)))), 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(dist8, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    k = max(3, int(0.03 * max(sh, sw)) | 1)
    # Watershed between two seeds: mat-coloured pixels around the photo's middle, and the photo's border
    # (the room). The flood meets on the strongest edge between them, the table's edge, even where the
    # room's colour comes close to the mat's (shade, vignette, a brown floor by a desert mat).
    markers = np.zeros((sh, sw), np.int32)
    core = np.zeros_like(mask)
    core[int(sh * 0.2):int(sh * 0.8), int(sw * 0.2):int(sw * 0.8)] = 1
    mat_seed = cv2.erode((mask > 0).astype(np.uint8) & core, np.ones((5, 5), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mat_seed, connectivity=4)
    if n < 2:
        raise PhotoError("could not find the table in the photo: give its corners with --corners")
    # The part at the photo's middle, unless a larger one dwarfs it: a building of nearly the mat's colour can
    # stand on the middle (a 1,400 px piece of one against the mat's 161,000).
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    label = labels[sh // 2, sw // 2]
    if label == 0 or stats[label, cv2.CC_STAT_AREA] < 0.5 * stats[largest, cv2.CC_STAT_AREA]:
        label = largest
    markers[labels == label] = 2
    markers[:2, :] = markers[-2:, :] = 1
    markers[:, :2] = markers[:, -2:] = 1
    cv2.watershed(small, markers)
    region = (markers == 2).astype(np.uint8)
    region = cv2.morphologyEx(region, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contour = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(contour)
    hull_area = cv2.contourArea(hull)
    if hull_area < 0.05 * sh * sw:
        raise PhotoError("could not find the table in the photo (no large mat-coloured region): give its corners with --corners")
    quad, support = _quad_from_outline(contour.reshape(-1, 2).astype(np.float64), max(sh, sw))
    fill = float(cv2.contourArea(contour)) / max(1.0, cv2.contourArea(quad.astype(np.float32)))
    return quad, min(1.0, fill), support, region


def _quad_from_outline(points: np.ndarray, side: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The four straight runs of a region's outline (sequential RANSAC), intersected: a quadrilateral (LL, LR, UR,
    UL), and each side's support: the outline points on its run per pixel of its length (LL-LR first).

    Where the segmentation leaked into the room or terrain bit into the mat, the outline is ragged;
    the table's sides are still its longest straight runs. A leak can also split one side into two
    straight runs, offset: of the runs found (up to ``OUTLINE_RUNS``) each pair of opposite sides is the
    longest run of its direction and the longest lying at least a quarter of the photo's side from it
    (else two runs of one side can be taken for both sides of the pair: a sliver, thousands of px off).
    """
    rng = np.random.default_rng(seed)
    remaining = points.copy()
    lines: list[tuple[np.ndarray, np.ndarray, int]] = []
    tol = max(1.5, side / 600)
    for _ in range(OUTLINE_RUNS):
        if len(remaining) < 10:
            break
        best_count, best = 0, None
        idx = rng.integers(0, len(remaining), (400, 2))
        for i, j in idx:
            p, q = remaining[i], remaining[j]
            d = q - p
            length = float(np.hypot(*d))
            if length < side * 0.05:
                continue
            normal = np.array([-d[1], d[0]]) / length
            count = int(np.count_nonzero(np.abs((remaining - p) @ normal) < tol))
            if count > best_count:
                best_count, best = count, (p, normal)
        if best is None:
            break
        p, normal = best
        inl = np.abs((remaining - p) @ normal) < tol
        centre = remaining[inl].mean(axis=0)
        _, _, vt = np.linalg.svd(remaining[inl] - centre, full_matrices=False)
        direction = vt[0]
        lines.append((centre, direction, int(inl.sum())))
        normal = np.array([-direction[1], direction[0]])
        remaining = remaining[np.abs((remaining - centre) @ normal) >= 3 * tol]
    lines = [ln for ln in lines if ln[2] >= side * 0.05]
    if len(lines) < 4:
        raise PhotoError("could not find four straight table edges in the photo: give its corners with --corners")
    horizontal = _opposite_pair([ln for ln in lines if abs(ln[1][0]) >= abs(ln[1][1])], 0.25 * side)
    vertical = _opposite_pair([ln for ln in lines if abs(ln[1][0]) < abs(ln[1][1])], 0.25 * side)
    if len(horizontal) != 2 or len(vertical) != 2:
        raise PhotoError("the table's outline is not a four-sided shape seen from its near edge: give its corners with --corners")
    bottom, top = sorted(horizontal, key=lambda ln: -ln[0][1])
    left, right = sorted(vertical, key=lambda ln: ln[0][0])
    corners = []
    for h_line, v_line in ((bottom, left), (bottom, right), (top, right), (top, left)):
        point, sine = _intersect(h_line[0], h_line[1], v_line[0], v_line[1])
        corners.append(point)
    quad = np.array(corners)
    lengths = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    support = np.array([ln[2] for ln in (bottom, right, top, left)]) / np.maximum(1.0, lengths)
    return quad, support


def _opposite_pair(lines: list[tuple[np.ndarray, np.ndarray, int]], apart: float) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """The longest of ``lines`` (point, direction, inliers) and the longest lying at least ``apart`` from it."""
    if not lines:
        return []
    first = max(lines, key=lambda ln: ln[2])
    normal = np.array([-first[1][1], first[1][0]])
    far = [ln for ln in lines if abs(float((ln[0] - first[0]) @ normal)) >= apart]
    return [first, max(far, key=lambda ln: ln[2])] if far else [first]


def _line_scores(strength: np.ndarray, slope_step: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean strength along every straight line across the band: (score[slope, start offset], slopes in samples).

    A line starts at offset index s on the first normal and ends at s + slope on the last; lines
    leaving the band score 0.
    """
    n_t, n_s = strength.shape
    if n_s == 1:  # one line: numpy's mean adds a lone column pairwise
        return strength.mean(axis=0, keepdims=True), np.zeros(1, dtype=int)
    reach = n_s - 1
    slopes = np.arange(-reach, reach + 1, slope_step)
    shift = np.rint(np.linspace(0.0, 1.0, n_t)[None, :] * slopes[:, None]).astype(np.intp)
    # Row t of the band shifted by every d in [-reach, reach] is a window of the row padded with reach zeros each side:
    # the lines' samples are summed one normal at a time, in the order a mean over the normals adds them (so every
    # score is the same to the bit), without the [slopes, normals, offsets] array (tens of MB on a 12 MP photo).
    padded = np.zeros((n_t, n_s + 2 * reach), dtype=strength.dtype)
    padded[:, reach:reach + n_s] = strength
    total = np.zeros((len(slopes), n_s), dtype=np.result_type(strength.dtype, 0.0))
    for t in range(n_t):
        total += sliding_window_view(padded[t], n_s)[shift[:, t] + reach]
    score = total / n_t
    first = np.arange(n_s)[None, :]
    inside = (first + shift.min(axis=1)[:, None] >= 0) & (first + shift.max(axis=1)[:, None] < n_s)
    score[~inside] = 0.0
    return score, slopes


def _strongest_line(small: np.ndarray, a: np.ndarray, b: np.ndarray, normal: np.ndarray, outside: int, inside: int,
                    samples: int) -> tuple[float, float, np.ndarray, np.ndarray, float, float]:
    """The strongest straight room-to-mat edge in the band along side ``a``-``b`` (``outside`` px out, ``inside`` px in):
    (its mean strength, the side's own, the sample points along the side, the line's start and end, its offset at the
    first point and its slope across the band)."""
    t = np.linspace(0.04, 0.96, samples)
    pts = a[None, :] + t[:, None] * (b - a)[None, :]
    middle = 0.5 * (inside - outside)
    offsets, strength = _sample_lines(small, pts + middle * normal, normal, 0.5 * (inside + outside), 1.0)
    offsets = offsets + middle
    score, slopes = _line_scores(strength, 4)
    k, s = np.unravel_index(int(np.argmax(score)), score.shape)
    at = int(np.argmin(np.abs(offsets)))
    flat = int(np.argmin(np.abs(slopes)))
    own = float(score[max(0, flat - 1):flat + 2, max(0, at - 3):at + 4].max())
    start = pts[0] + offsets[s] * normal
    end = pts[-1] + (offsets[s] + slopes[k]) * normal
    return float(score[k, s]), own, pts, np.stack([start, end]), float(offsets[s]), float(slopes[k])


def _check_sides(small: np.ndarray, quad: np.ndarray, support: np.ndarray | None = None, samples: int = 40) -> tuple[np.ndarray, float]:
    """Each side of the segmented quad (LL, LR, UR, UL, ``small``'s pixels) against the strongest straight edge near it.

    Where the room's colour comes close to the mat's the segmentation can leak out into the room
    along part of a side, and that side is then a straight run of the leak's ragged outline. The
    table's edge is still there, inside the region: the straight line, within the band from a
    little outside the side to ``SIDE_SEARCH_DEPTH`` into the table, along which the room-to-mat
    colour step is strongest on average. A side much weaker than that line is replaced by it, unless much of
    the outline lies on it (``BAND_SUPPORT``).
    Where the leak ran along the whole side its run can lie aslant, the table's edge leaving that band
    (30 px in at one end, 300 px at the other): a side not replaced with little of the outline on it
    (``support``, under ``ACROSS_SUPPORT``), however it scores in its band, is looked for again among the lines
    between its neighbouring sides (``_side_across``), replaced if under ``ACROSS_RATIO`` of the line found; one
    with little of the outline on it replaced by its band's line is looked for across again from that line.
    Returns the quad (the same array when no side changed) and the evidence: over the sides, the
    least ratio of the kept line's strength to the strongest (1 for a replaced side).
    """
    lines: list[tuple[np.ndarray, np.ndarray]] = []
    evidence = 1.0
    banded: list[int] = []  # sides replaced by their band's line, with little of the outline on them
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        direction, normal, depth = _side_frame(quad, i)
        outside = max(3, int(round(0.05 * depth)))
        best, own, pts, line, offset, slope = _strongest_line(small, a, b, normal, outside, max(6, int(round(SIDE_SEARCH_DEPTH * depth))), samples)
        outlined = support is not None and support[i] >= BAND_SUPPORT  # the table's edge, however weak its step
        replace = best > 0 and not outlined and (own < LEAK_RATIO * best
                                                 or (own < BORDER_RATIO * best and _border_between(small, pts, normal, offset, slope, depth)))
        # A side with little of the outline on it is looked for across even where its band holds no stronger line: the
        # table's edge may leave the band (the band's best can be the side itself while the edge, across, scores far higher).
        if not replace and best > 0 and support is not None and support[i] < ACROSS_SUPPORT:
            across = _across_replacement(small, quad, i)
            if across is not None:
                replace, line = True, across
        elif replace and support is not None and support[i] < ACROSS_SUPPORT:
            banded.append(i)
        if replace:
            lines.append(_point_direction(line))
            continue
        evidence = min(evidence, own / best if best > 0 else 0.0)
        lines.append((a, direction))
    if all(np.array_equal(p, quad[i]) for i, (p, _) in enumerate(lines)):
        return quad, evidence
    corners = _corners_from_lines(lines)
    # A leaked side's band holds only part of an aslant table edge: its best line can be a border's outer edge,
    # the edge itself leaving the band at one end (15-20 px outside). From the side so found the
    # table's edge lies across, near and steady.
    for i in banded:
        across = _across_replacement(small, corners, i)
        if across is not None:
            lines[i] = _point_direction(across)
            corners = _corners_from_lines(lines)
    return corners, evidence


def _across_replacement(small: np.ndarray, quad: np.ndarray, i: int) -> np.ndarray | None:
    """The line across (``_side_across``) that replaces side ``i`` of ``quad``, or None: it must be at least
    1 / ``ACROSS_RATIO`` times as strong as the side and meet its neighbours at a corner."""
    _, normal, depth = _side_frame(quad, i)
    best, own, line = _side_across(small, quad, i, normal, depth)
    return line if best > 0 and own < ACROSS_RATIO * best and _meets_neighbours(quad, i, line) else None


def _point_direction(line: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A line given by two ends as (its first end, its unit direction)."""
    return line[0], (line[1] - line[0]) / float(np.linalg.norm(line[1] - line[0]))


def _side_frame(quad: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Side ``i`` of ``quad``: its unit direction, its unit normal into the table and the table's depth across it."""
    a, b = quad[i], quad[(i + 1) % 4]
    direction = (b - a) / max(1e-9, float(np.linalg.norm(b - a)))
    normal = np.array([-direction[1], direction[0]])
    if np.dot(quad.mean(axis=0) - a, normal) < 0:
        normal = -normal  # points into the table
    depth = min(float(np.dot(quad[(i + 2) % 4] - a, normal)), float(np.dot(quad[(i + 3) % 4] - a, normal)))
    return direction, normal, depth


def _corners_from_lines(lines: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The quad's corners where each side's line (point, direction) meets the next (LL is sides 3 and 0)."""
    corners = []
    for i in range(4):
        point, sine = _intersect(*lines[(i - 1) % 4], *lines[i])
        if sine < 0.2:
            raise PhotoError("the table's sides are nearly parallel at a corner: give the corners with --corners")
        corners.append(point)
    return np.array(corners)


def _meets_neighbours(quad: np.ndarray, i: int, line: np.ndarray) -> bool:
    """Whether ``line`` (two ends) crosses the sides before and after side ``i`` at a corner-like angle (sine >= 0.2,
    as ``_check_sides`` requires), so taking it for side ``i`` leaves a quadrilateral."""
    along = line[1] - line[0]
    before = quad[i] - quad[(i - 1) % 4]
    after = quad[(i + 2) % 4] - quad[(i + 1) % 4]

    def sine(u: np.ndarray, v: np.ndarray) -> float:
        return abs(float(u[0] * v[1] - u[1] * v[0])) / max(1e-9, float(np.linalg.norm(u) * np.linalg.norm(v)))

    return min(sine(along, before), sine(along, after)) >= 0.2


def _side_across(small: np.ndarray, quad: np.ndarray, i: int, normal: np.ndarray, depth: float,
                 steps: int = 121, samples: int = 60) -> tuple[float, float, np.ndarray]:
    """The table's straight room-to-mat edge from the side before side ``i`` to the side after it, the innermost of the
    strongest within a border's width: (its median strength, side ``i``'s own, the line's two ends).

    Every line whose ends lie on the two neighbouring sides, from ``ACROSS_OUTSIDE`` outside side ``i``'s corners to
    ``WIDE_SEARCH_DEPTH`` of the way along them (``steps`` ends on each, then ten times finer round the innermost of the
    best, ``ACROSS_INNER``), is scored
    by the colour step across it (``normal`` points into the table), projected on the change from outside side
    ``i`` to the table's inside: the median along the line, which the table's edge wins by being steady end to
    end (a mean is won by lines through terrain and bases, steps here and there). Unlike a band along the side
    this finds the edge however aslant the side lies to it.
    """
    a, b = quad[i], quad[(i + 1) % 4]
    before, after = quad[(i - 1) % 4], quad[(i + 2) % 4]
    t = np.linspace(0.05, 0.95, samples)

    def colours(xy: np.ndarray) -> np.ndarray:
        xy = xy.astype(np.float32)
        return cv2.remap(small, xy[..., 0], xy[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)

    side = a[None, :] + t[:, None] * (b - a)[None, :]
    mat = np.median(colours(side[None] + 0.3 * depth * normal).reshape(-1, 3), axis=0)
    room = np.median(colours(side[None] - 6.0 * normal).reshape(-1, 3), axis=0)
    norm = float(np.linalg.norm(mat - room))
    if norm < 4.0:
        return 0.0, 0.0, np.stack([a, b])

    def lines(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Ends of the lines from ``u`` of the way along the side before to ``v`` along the side after."""
        return a[None, :] + u[:, None] * (before - a)[None, :], b[None, :] + v[:, None] * (after - b)[None, :]

    def scores(u: np.ndarray, v: np.ndarray) -> np.ndarray:
        start, end = lines(u, v)
        pts = start[:, None, :] + t[None, :, None] * (end - start)[:, None, :]
        along = end - start
        n = np.stack([-along[:, 1], along[:, 0]], axis=1) / np.maximum(1e-9, np.linalg.norm(along, axis=1))[:, None]
        n *= np.sign(n @ normal)[:, None]  # into the table, as side i's normal
        step = colours(pts + 2.0 * n[:, None, :]) - colours(pts - 2.0 * n[:, None, :])
        return np.median(step @ ((mat - room) / norm), axis=1)

    grid = np.linspace(-ACROSS_OUTSIDE, WIDE_SEARCH_DEPTH, steps)
    u, v = np.repeat(grid, steps), np.tile(grid, steps)  # every start with every end
    coarse = scores(u, v)
    start, end = lines(u, v)
    inward = ((start + end) / 2 - a[None, :]) @ normal
    k = int(np.argmax(coarse))
    if coarse[k] > 0:
        # Innermost only within a border's width of the best: a strong line deep inside (terrain's edge) is not the table's.
        border = (coarse >= ACROSS_INNER * coarse[k]) & (inward <= inward[k] + BORDER_MAX_WIDTH * depth)
        k = int(np.argmax(np.where(border, inward, -np.inf)))
    fine = np.linspace(-1.0, 1.0, 21) * (grid[1] - grid[0])
    u, v = u[k] + np.repeat(fine, len(fine)), v[k] + np.tile(fine, len(fine))
    score = scores(u, v)
    k = int(np.argmax(score))
    own = float(scores(np.zeros(1), np.zeros(1))[0])
    start, end = lines(u[k:k + 1], v[k:k + 1])
    return float(score[k]), own, np.stack([start[0], end[0]])


WALL_STEP_PX = 6.0
"""How far (px on the downscaled copy) beside a line the colour of each side of it is read (a border's strip, a wall's):
past the blur of the edge."""


def _median_colour(small: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """The median colour (float32, per channel) of ``small`` at the points ``xy`` (..., 2), bilinear."""
    xy = xy.reshape(-1, 2).astype(np.float32)
    colours = cv2.remap(small, xy[:, 0:1], xy[:, 1:2], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.median(colours.reshape(len(xy), -1).astype(np.float32), axis=0)


def _border_between(small: np.ndarray, pts: np.ndarray, normal: np.ndarray, offset: float, slope: float, depth: float) -> bool:
    """Whether the strip between a side (through ``pts``) and a line inside it (``offset`` px in at the first point,
    ``offset + slope`` at the last) is a border round the mat: narrow (``BORDER_MAX_WIDTH`` of the table's
    ``depth`` across the side) and coloured like what lies outside the side, not like the mat inside the line.

    A light wooden border: 8.5 px wide on the 900-px copy, its colour 7 times nearer the room's than
    the mat's. Lines inside correct sides on a sand mat in a brown room: 75-102 px in, the strip's colour 0.7-1.6
    times nearer the room's (terrain and mat, in a room close to the mat's colour).
    """
    at = offset + slope * np.linspace(0.0, 1.0, len(pts))
    width = float(np.median(at))
    if not 4.0 <= width <= BORDER_MAX_WIDTH * depth:
        return False  # the side itself, too close to it to have a strip between, or too far in to be a border

    def median_colour(depth: np.ndarray) -> np.ndarray:
        return _median_colour(small, pts + depth[:, None] * normal[None, :])

    strip = median_colour(0.5 * at)
    mat = median_colour(at + WALL_STEP_PX)
    outside = median_colour(np.full(len(pts), -WALL_STEP_PX))
    return float(np.linalg.norm(strip - mat)) > BORDER_CONTRAST * float(np.linalg.norm(strip - outside))


def _colour_lines(image: np.ndarray, points: np.ndarray, normal: np.ndarray, offsets: np.ndarray,
                  lens: Distortion | None = None) -> np.ndarray:
    """The colours (float32, [n_points, n_offsets, channels]) at ``offsets`` along ``normal`` through ``points``. With a
    ``lens`` the points and normal are undistorted pixels, sampled where the lens shows them."""
    xy = points[:, None, :] + offsets[None, :, None] * normal[None, None, :]
    if lens is not None and not lens.identity:
        xy = lens.apply(xy)
    mx, my = xy[..., 0].astype(np.float32), xy[..., 1].astype(np.float32)
    prof = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    return prof if prof.ndim == 3 else prof[..., None]


def _sample_lines(image: np.ndarray, points: np.ndarray, normal: np.ndarray, half: float, step: float,
                  lens: Distortion | None = None, towards: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Colour-gradient strength along normals through ``points``: (offsets, strength[n_points, n_offsets]). With a
    ``lens`` the points and normals are undistorted pixels, sampled where the lens shows them. ``towards``: the colour
    change (outside to inside) an edge is measured along, instead of the one from the band's outer end to its inner."""
    offsets = np.arange(-half, half + step / 2, step)
    prof = _colour_lines(image, points, normal, offsets, lens)
    grad = np.zeros_like(prof)
    grad[:, 1:-1] = (prof[:, 2:] - prof[:, :-2]) / (2 * step)
    # Keep only the change from the room's colour to the mat's (the normal points into the table):
    # edges inside the room or on the mat mostly point elsewhere.
    change = (towards if towards is not None else
              np.median(prof[:, -3:].reshape(-1, prof.shape[2]), axis=0) - np.median(prof[:, :3].reshape(-1, prof.shape[2]), axis=0))
    norm = float(np.linalg.norm(change))
    if norm > 4.0:
        return offsets, np.clip(grad @ (change / norm), 0.0, None)
    return offsets, np.sqrt(np.sum(grad**2, axis=2))


def subpixel_peaks(strength: np.ndarray, offsets: np.ndarray, lo: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the strongest sample, refined by a parabola through it and its neighbours; (position, strength)."""
    n = strength.shape[1]
    k = np.clip(np.argmax(strength[:, lo:n - lo], axis=1) + lo, 1, n - 2)
    rows = np.arange(strength.shape[0])
    a, b, c = strength[rows, k - 1], strength[rows, k], strength[rows, k + 1]
    denom = a - 2 * b + c
    shift = np.where(denom < -1e-9, 0.5 * (a - c) / np.where(denom < -1e-9, denom, -1.0), 0.0)
    shift = np.clip(shift, -0.5, 0.5)
    step = offsets[1] - offsets[0]
    return offsets[k] + shift * step, b


def _fit_line(points: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Robust total-least-squares line: (point on it, unit direction, inlier mask), trimming at 3 robust sigmas."""
    keep = weights > 0
    centre, direction = points.mean(axis=0), np.array([1.0, 0.0])
    for _ in range(6):
        if keep.sum() < 5:
            break
        p = points[keep]
        centre = p.mean(axis=0)
        _, _, vt = np.linalg.svd(p - centre, full_matrices=False)
        direction = vt[0]
        normal = np.array([-direction[1], direction[0]])
        res = (points - centre) @ normal
        mad = 1.4826 * np.median(np.abs(res[keep]))
        new_keep = (weights > 0) & (np.abs(res) <= max(3.0 * mad, 0.3))
        if np.array_equal(new_keep, keep):
            break
        keep = new_keep
    return centre, direction, keep


def _intersect(p1: np.ndarray, d1: np.ndarray, p2: np.ndarray, d2: np.ndarray) -> tuple[np.ndarray, float]:
    """Intersection of two lines and the sine of the angle between them; PhotoError if they do not cross: parallel
    (a black frame's side fits fall back to one direction), or not finite (a side of zero length)."""
    sine = float(d1[0] * d2[1] - d1[1] * d2[0])
    if not (np.all(np.isfinite([*p1, *d1, *p2, *d2])) and abs(sine) > 1e-9):
        raise PhotoError("could not find the table's sides in the photo (two of them do not cross): give its corners with --corners")
    t = np.linalg.solve(np.array([d1, -d2]).T, p2 - p1)
    return p1 + t[0] * d1, abs(sine)


MAT_EDGE_READ_PX = 2.0
"""How far either side of an edge its two colours are read (px): past the blur and sharpening halo of a sharp edge,
within the narrowest front face worth telling from it."""
MAT_EDGE_BAND = 0.15
"""A side's edge is the mat's own (the table top's) unless the colour just inside it (``MAT_EDGE_READ_PX`` in) differs
from the mat's by more than this fraction of how much the colour just outside it does, and a second edge lies further
in (``MAT_EDGE_DIP``): then a band lies between the edge and the mat (the table's front face, seen below its top edge,
whose foot against the floor was the stronger edge). Only a first look: a blurred edge's tail leaves up to a third of
its step at two pixels on a small phone photo, and the second edge is what tells a band."""
MAT_EDGE_DIP = 0.5
"""Two edges are told apart, not one edge's blur, where between them the colour changes at most this fraction as fast
as across the inner one (a blurred edge's tail falls off steadily inwards, with no second peak)."""
MAT_EDGE_MIN_STEP = 8.0
"""The least colour step (grey levels, the norm over channels) a band's inner edge against the mat is taken for an
edge: a mat's texture averages to a level or two along a side."""


class SideFit(NamedTuple):
    """One side's edge line: a point on it, its direction, the points along it and its normal into the table, the
    edge points found and which of them the line kept, and the edge's contrast over the band's median."""

    centre: np.ndarray
    direction: np.ndarray
    points: np.ndarray
    normal: np.ndarray
    edge_points: np.ndarray
    keep: np.ndarray
    contrast: float


def fit_side(image: np.ndarray, pts: np.ndarray, normal: np.ndarray, passes: tuple[tuple[float, float], ...],
              lens: Distortion | None, towards: np.ndarray | None = None) -> SideFit:
    """A side's edge line found in ``passes`` ((half-width, step) px across, each round the line the last found): the
    strongest step along each normal (``_sample_lines``, along ``towards`` where given), a robust line through them."""
    contrast = 0.0
    for half, step in passes:
        offsets, strength = _sample_lines(image, pts, normal, half, step, lens, towards)
        pos, peak = subpixel_peaks(strength, offsets, lo=2)
        if step == passes[0][1]:  # the contrast of the last pass with the first one's step (an 8 px search: the 5 px one)
            floor = np.median(strength, axis=1)
            contrast = float(np.median(peak) / max(1e-3, float(np.median(floor))))
        weights = (peak > 0.3 * np.median(peak) + 1.0).astype(float)
        edge_pts = pts + pos[:, None] * normal[None, :]
        p0, d0, keep = _fit_line(edge_pts, weights)
        # The next pass samples along the fitted line, a narrower band.
        n0 = np.array([-d0[1], d0[0]])
        if np.dot(normal, n0) < 0:
            n0 = -n0
        proj = (pts - p0) @ d0
        pts = p0[None, :] + proj[:, None] * d0[None, :]
        normal = n0
    return SideFit(p0, d0, pts, normal, edge_pts, keep, contrast)


def mat_edge_inside(image: np.ndarray, side: SideFit, reach_px: float, lens: Distortion | None, least_px: float = 0.0
                    ) -> tuple[float, np.ndarray] | None:
    """Where the table top's own edge lies inside a side's fitted edge, if that edge is not it: (how far inside each
    edge point, px; the colour change, outside to inside, across it), or None.

    The table's edge is the mat's: the innermost edge with the mat's colour inside it. Where a front face shows below
    the top's edge in a colour unlike both the mat's and the floor's (darker or lighter than both), the step from the
    floor to the face runs along the room-to-mat change and the step from the face to the mat against it, so the fit
    takes the face's foot. Read across each edge point the fit kept (so a side the lens bows, fitted as a straight
    line, is read where its edge is, not smeared across the bow), the median colour along the side (where a mat's
    texture cancels) just inside such an edge is then not the mat's (``MAT_EDGE_BAND``), and a second edge, back to
    the mat's colour, lies further in within ``reach_px`` (how far the fit may have moved from where it started) and at
    least ``least_px`` in (the thinnest table top's face from this camera: a narrower band is a sharpening halo, a
    shadow's edge or a rim on the mat, not a face)."""
    read = MAT_EDGE_READ_PX
    step = 0.25
    offsets = np.arange(-2 * read, reach_px + 3 * read + step / 2, step)
    kept = side.edge_points[side.keep]
    if len(kept) < 5:
        return None
    colours = np.median(_colour_lines(image, kept, side.normal, offsets, lens), axis=0)
    mat = np.median(colours[offsets >= reach_px + read], axis=0)
    apart = np.linalg.norm(colours - mat[None, :], axis=1)  # each line's colour from the mat's

    def at(o: float) -> int:
        return int(np.argmin(np.abs(offsets - o)))

    inside, outside = float(apart[at(read)]), float(apart[at(-read)])
    if not (inside > MAT_EDGE_BAND * outside and inside > MAT_EDGE_MIN_STEP):
        return None
    # The band's inner edge: where the colour comes back to the mat's fastest (per pixel), inside the fitted edge's
    # own blur; a second edge only where the colour changes at most ``MAT_EDGE_DIP`` as fast between the two (a blurred
    # edge's tail falls off steadily from the edge inwards, with no second peak).
    half = int(round(0.5 / step))
    fall = np.full_like(apart, -np.inf)
    fall[half:-half] = apart[:-2 * half] - apart[2 * half:]
    within = (offsets > max(read, least_px)) & (offsets <= reach_px + read)
    k = int(np.argmax(np.where(within, fall, -np.inf)))
    edge = float(offsets[k])
    if not (within[k] and float(np.min(fall[(offsets >= 0) & (offsets <= edge)])) <= MAT_EDGE_DIP * float(fall[k])):
        return None
    band = colours[at(edge - read)]
    beyond = apart[at(edge + read):]
    if float(np.linalg.norm(mat - band)) < MAT_EDGE_MIN_STEP or bool(np.any(beyond > 0.5 * inside)):
        return None  # no step to the mat there, or no mat past it (a base, terrain, the texture)
    return edge, mat - band


Faces = tuple[float, float, float, float]
"""Per side (bottom, right, top, left): the least height (px) the table's front face shows beyond it in the photo, the
camera looking at it from outside the table; 0 where the camera sees the side from inside, its face hidden
(``pipeline.face_sides``)."""


def refine_corners(image: np.ndarray, corners_px: Corners, search_px: float = 12.0, samples: int = 240,
                   lens: Distortion | None = None, faces: Faces | None = None) -> TableFit:
    """Fit a line to each table side's edge near the given outline and intersect them; errors and support per side.

    On a side whose front face may show (``faces``; none where not given) and whose edge has a band of another colour
    between it and the mat (``mat_edge_inside``: the face, its foot the stronger edge), the side is fitted again on the
    band's inner edge, the mat's, where that lies nearer the side as given than the fitted edge. Elsewhere such a band is not a face (a side the camera sees from inside the table
    hides its face): a blurred, sharpened or compressed edge's ripple, a shadow. With a ``lens`` the sides are
    straight lines in undistorted pixels (sampled through the lens, so a bowed side is followed); the corners and edge
    points returned are in the photo's own pixels either way."""
    quad = np.asarray(corners_px, dtype=np.float64)
    if lens is not None:
        quad = lens.remove(quad)
    edge_points: list[np.ndarray] = []
    lines = []
    stats = []
    centre_of_quad = quad.mean(axis=0)
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        direction = (b - a) / length
        normal = np.array([-direction[1], direction[0]])
        if np.dot(centre_of_quad - a, normal) < 0:
            normal = -normal  # points into the table
        t = np.linspace(0.04, 0.96, samples)
        pts = a[None, :] + t[:, None] * (b - a)[None, :]
        side = fit_side(image, pts, normal, ((search_px, max(0.5, search_px / 40)), (5.0, 0.5), (3.0, 0.25)), lens)
        inner = mat_edge_inside(image, side, search_px, lens, faces[i]) if faces is not None and faces[i] > 0 else None
        # The image tells two edges, the outline started from says which: the mat's edge is taken only where it lies
        # nearer the side as given than the edge fitted. A front face's foot lies beyond the given side by the face's
        # height; a dark rim stitched or printed round the mat, a shadow along its edge or a sharpening halo lies
        # inside the given side, and the fitted edge there is the table's.
        fitted = float(np.median(((side.edge_points - a[None, :]) @ normal)[side.keep])) if side.keep.any() else 0.0
        if inner is not None and abs(fitted + inner[0]) < abs(fitted):
            inside, change = inner
            # One narrow pass round the mat's edge, each point's own (a bowed side stays followed), along the mat's
            # step: the face's foot, ``inside`` px out, is left outside it.
            half = max(1.0, min(3.0, 0.5 * inside))
            moved = fit_side(image, side.edge_points + inside * side.normal[None, :], side.normal, ((half, 0.25),),
                              lens, towards=change)
            side = moved._replace(contrast=side.contrast)
        p0, d0, keep, edge_pts = side.centre, side.direction, side.keep, side.edge_points
        res = (edge_pts - p0) @ np.array([-d0[1], d0[0]])
        rms = float(np.sqrt(np.mean(res[keep] ** 2))) if keep.sum() >= 5 else float("inf")
        support = float(keep.mean())
        lines.append((p0, d0, length))
        stats.append((rms, support, side.contrast, int(keep.sum())))
        edge_points.append(lens.apply(edge_pts[keep]) if lens is not None else edge_pts[keep])
    corners = []
    sigmas = []
    for i in range(4):
        # Corner i joins side i-1 (ending at it) and side i (starting at it).
        (p1, d1, l1), (p2, d2, l2) = lines[(i - 1) % 4], lines[i]
        point, sine = _intersect(p1, d1, p2, d2)
        if sine < 0.2:
            raise PhotoError("the table's sides are nearly parallel at a corner: give the corners with --corners")
        if lens is not None:
            point = lens.apply(point)
        corners.append((float(point[0]), float(point[1])))
        # Edge samples are correlated along a side (texture, mat wear): count at most 25 independent ones.
        # A line's end moves by about twice its offset error; a corner combines two lines.
        s1 = stats[(i - 1) % 4][0] / math.sqrt(max(1, min(25, stats[(i - 1) % 4][3])))
        s2 = stats[i][0] / math.sqrt(max(1, min(25, stats[i][3])))
        sigmas.append(float(2.0 * math.hypot(s1, s2) / sine))
    support = min(s[1] for s in stats)
    contrast = min(s[2] for s in stats)
    worst_rms = max(s[0] for s in stats)
    confidence = support * (1 - math.exp(-contrast / 2.0)) * math.exp(-((worst_rms / 1.5) ** 2))
    c = tuple(corners)
    return TableFit(corners_px=(c[0], c[1], c[2], c[3]), confidence=float(np.clip(confidence, 0.0, 1.0)),
                    corner_sigma_px=tuple(sigmas),  # type: ignore[arg-type]
                    edge_rms_px=tuple(s[0] for s in stats),  # type: ignore[arg-type]
                    edge_points=tuple(edge_points))


SIDE_BOW = 0.035
"""How far (a fraction of the photo's diagonal) a side's edge is looked for either side of the straight line between
its corners when the lens is measured: a strongly barrel-distorted phone photo (k1 = -0.1) bows a side by about 2 %."""
SIDE_PROFILE_SAMPLES = 80


def side_profiles(image: np.ndarray, corners_px: Corners) -> list[np.ndarray]:
    """Edge points along each side of the table (photo pixels), looked for in a wide band round the straight line
    between its corners so a side bowed by the lens is followed; per side, the points near a smooth (quadratic) curve
    through them, the rest (bases, terrain, the table's front face) left out."""
    quad = np.asarray(corners_px, dtype=np.float64)
    h, w = image.shape[:2]
    band = SIDE_BOW * math.hypot(w, h)
    centre = quad.mean(axis=0)
    sides = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        direction = (b - a) / length
        normal = np.array([-direction[1], direction[0]])
        if np.dot(centre - a, normal) < 0:
            normal = -normal
        t = np.linspace(0.06, 0.94, SIDE_PROFILE_SAMPLES)
        pts = a[None, :] + t[:, None] * (b - a)[None, :]
        offsets, strength = _sample_lines(image, pts, normal, band, 1.0)
        pos, peak = subpixel_peaks(strength, offsets, lo=2)
        strong = peak > 0.3 * np.median(peak) + 1.0
        x = (t - 0.5) * length
        keep = strong.copy()
        for _ in range(5):
            if keep.sum() < 8:
                break
            coef = np.polyfit(x[keep], pos[keep], 2)
            res = pos - np.polyval(coef, x)
            mad = 1.4826 * float(np.median(np.abs(res[keep]))) + 0.3
            new_keep = strong & (np.abs(res) <= 3.0 * mad)
            if np.array_equal(new_keep, keep):
                break
            keep = new_keep
        sides.append(pts[keep] + pos[keep, None] * normal[None, :])
    return sides


ONE_SIDE_ASTRAY = 0.5
"""A wide band's sides straighten this much better (RMS) without one of them than with all four: that side followed
another edge over part of its length (the foot of the table's front face or of a building, a base's row) and is left
out of the lens. A narrow band cannot stand in for it: its points stay near the straight line between the corners
however much the lens bows the side, so they read a strong lens as none."""


SIDE_THROUGH_CORNERS = 0.001
"""A side straightened through a lens runs from corner to corner within this fraction of the photo's diagonal (5 px on
a 12 MP photo: the corners' own 1-2 px and the edge's fraction of a pixel, with room). A set of three sides is the
table's only where two of them do: the third may follow a parallel straight edge (the foot of the table's front face,
a few to tens of pixels off), which shows the lens as well; a line on the floor or a rug's border bowed round the table
runs clear of its corners."""


def _plumb_line_without_a_side(sides: list[np.ndarray], corners: Corners, size: tuple[int, int],
                               rms_all: float) -> list[tuple[int, tuple[Distortion, float, float]]]:
    """The lens from every three of the four ``sides`` (side i from corner i to i + 1) whose straightness is under
    ``ONE_SIDE_ASTRAY`` of all four's and two of which run through their corners (``SIDE_THROUGH_CORNERS``), each with
    the side left out."""
    if len(sides) < 4:
        return []
    reach = SIDE_THROUGH_CORNERS * math.hypot(*size)
    quad = np.asarray(corners, dtype=np.float64)
    found = []
    for i in range(len(sides)):
        three = plumb_line([s for j, s in enumerate(sides) if j != i], size)
        if not (three[1] < ONE_SIDE_ASTRAY * rms_all and math.isfinite(three[2])):
            continue
        lens, ends = three[0], three[0].remove(quad)
        through = 0
        for j in (j for j in range(len(sides)) if j != i and len(sides[j]) >= 2):
            points = lens.remove(np.asarray(sides[j], dtype=np.float64))
            middle = points.mean(axis=0)
            _, _, vt = np.linalg.svd(points - middle, full_matrices=False)
            normal = np.array([-vt[0][1], vt[0][0]])
            through += float(np.max(np.abs((ends[[j, (j + 1) % 4]] - middle) @ normal))) <= reach
        if through >= 2:
            found.append((i, three))
    return found


LENS_EVIDENCE = 3.0
"""The table's sides must show a lens's bending this many of its own 1-sigmas before the photo is undistorted: a
straight-looking table is left as it is (the lens then adds only its uncertainty to every sigma)."""


def measure_lens(image: np.ndarray, corners: Corners, fit: TableFit | None, faces: Faces | None = None
                 ) -> tuple[Distortion, float, float]:
    """The photo's radial distortion from the straightness of the table's four sides (the plumb-line idea): the lens,
    the sides' straightness left (px RMS) and k1's 1-sigma.

    Two sets of edge points are tried: the sides followed in a wide band (a strongly bowed side leaves a narrow one),
    and the narrow band's edge fit (``fit``'s, or one made here; a wide band can lock onto the foot of the table's
    front face or the room's edges on part of a side). The set whose straightened sides are the straighter gives the
    lens; if the sides bend, their edges are refined through that lens and measured once more. ``faces``: as
    ``refine_corners``'s."""
    size = (image.shape[1], image.shape[0])
    tries = [side_profiles(image, corners)]
    narrow = fit
    if narrow is None or not narrow.edge_points:
        try:
            narrow = refine_corners(image, corners, search_px=8.0, faces=faces)
        except PhotoError:
            narrow = None
    if narrow is not None and narrow.edge_points:
        tries.append(list(narrow.edge_points))
    found = [plumb_line(sides, size) for sides in tries]
    lens, rms, k_sigma = min(found, key=lambda each: each[1])
    astray = None  # the side left out of the lens, if one went astray
    if len(found) > 1 and rms < found[0][1]:
        # The narrow band came out straighter: a side of the wide one may have gone astray, and where the other three
        # contradict the narrow band's lens, theirs is the one a bowed side shows.
        contradicting = [(i, three) for i, three in _plumb_line_without_a_side(tries[0], corners, size, found[0][1])
                         if abs(three[0].k1 - lens.k1) > LENS_EVIDENCE * max(three[2], k_sigma) and three[1] < rms]
        if contradicting:
            astray, (lens, rms, k_sigma) = min(contradicting, key=lambda each: each[1][1])
    if not (abs(lens.k1) > LENS_EVIDENCE * k_sigma):
        flat = no_distortion(size)
        return flat, min(straightness(sides, flat) for sides in tries), k_sigma
    if astray is not None:
        # The three sides were followed in the wide band, bow and all: a narrow band refined through their lens would
        # bring back the side that went astray, or lean on the other three's narrow points alone.
        return lens, rms, k_sigma
    try:
        refined = refine_corners(image, corners, search_px=8.0, lens=lens, faces=faces)
    except PhotoError:
        return lens, rms, k_sigma
    fine, fine_rms, fine_sigma = plumb_line(list(refined.edge_points), size)
    if abs(fine.k1 - lens.k1) <= 3 * max(k_sigma, fine_sigma) + 0.01:
        return fine, fine_rms, fine_sigma
    return lens, rms, k_sigma


RIVAL_BAND = 0.012
"""How far inside each side of an outline found unaided (a fraction of the photo's diagonal: 60 px on a 12 MP photo)
another straight edge is looked for: a table's front face seen below its near side is a band of a few to a few tens of
pixels, and the table's top edge is the innermost of its edges (the face and the floor lie beyond it, never within)."""
RIVAL_MIN_PX = 3.0
"""Lines nearer the side than this are its own edge's blur."""
RIVAL_PEAK_PX = 2.0
"""A rival is a peak of the gradient across the side: its line scores more than the parallel lines this many pixels
either side of it. A blurred edge's shoulder falls away from it with no peak: at a blur of 3-4 px (a soft 12 MP photo)
its line 3.5 px inside scored 0.5-0.7 of the edge's own, over ``RIVAL_RATIO``."""
RIVAL_RATIO = 0.5
"""An inner straight edge at least this strong against the side's own makes the side doubtful: on the generator's
photos the near side taken 3-30 px outside the table's edge (the front face's foot, its shadow, a floor the mat's
colour) had an edge 0.8-6 times as strong inside it; the sides found right had none over 0.4 (the blur's shoulder, a
base near the edge). The gradient's magnitude is scored, not its room-to-mat part: a floor of the mat's own colour
leaves that direction undefined."""


def colour_lines(image: np.ndarray, points: np.ndarray, normal: np.ndarray, offsets: np.ndarray,
                 lens: Distortion | None) -> np.ndarray:
    """The photo's colours at ``offsets`` pixels along ``normal`` from each of ``points`` (undistorted pixels with a
    ``lens``): [points, offsets, channels] float32."""
    xy = points[:, None, :] + offsets[None, :, None] * normal[None, None, :]
    if lens is not None and not lens.identity:
        xy = lens.apply(xy)
    prof = cv2.remap(image, xy[..., 0].astype(np.float32), xy[..., 1].astype(np.float32), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    return prof[..., None] if prof.ndim == 2 else prof


def magnitude_lines(image: np.ndarray, points: np.ndarray, normal: np.ndarray, half: float, step: float,
                     lens: Distortion | None) -> tuple[np.ndarray, np.ndarray]:
    """Colour-gradient magnitude along normals through ``points`` (undistorted pixels with a ``lens``)."""
    offsets = np.arange(-half, half + step / 2, step)
    prof = colour_lines(image, points, normal, offsets, lens)
    grad = np.zeros_like(prof)
    grad[:, 1:-1] = (prof[:, 2:] - prof[:, :-2]) / (2 * step)
    return offsets, np.sqrt(np.sum(grad ** 2, axis=2))


SIDE_PROFILE_STEP_PX = 0.5
"""The spacing of the samples across a side in :func:`inward_side_profiles`."""


def inward_side_profiles(image: np.ndarray, corners_px: Corners, lens: Distortion | None, min_px: float,
                         samples: int, band_px: float | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per side (bottom, right, top, left): the gradient magnitude across it (:func:`magnitude_lines`) at ``samples``
    points along it, over ``RIVAL_BAND`` of the photo's diagonal each way (at least ``4 * min_px``; ``band_px`` where
    given), as (offsets in pixels, positive into the table; strength, one row per point)."""
    quad = np.asarray(corners_px, dtype=np.float64)
    if lens is not None:
        quad = lens.remove(quad)
    band = side_band_px(image, min_px) if band_px is None else band_px
    return [magnitude_lines(image, points, normal, band, SIDE_PROFILE_STEP_PX, lens) for points, normal in inward_sides(quad, samples)]


def side_band_px(image: np.ndarray, min_px: float) -> float:
    """How far each way across a side :func:`inward_side_profiles` reads (px): ``RIVAL_BAND`` of the photo's diagonal, at
    least ``4 * min_px``."""
    h, w = image.shape[:2]
    return max(4 * min_px, RIVAL_BAND * math.hypot(w, h))


def inward_sides(quad: np.ndarray, samples: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per side of ``quad`` (bottom, right, top, left): ``samples`` points along it, short of its corners, and its unit
    normal pointing into the table."""
    centre = quad.mean(axis=0)
    t = np.linspace(0.06, 0.94, samples)
    out = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        direction = (b - a) / float(np.linalg.norm(b - a))
        normal = np.array([-direction[1], direction[0]])
        if np.dot(centre - a, normal) < 0:
            normal = -normal  # into the table
        out.append((a[None, :] + t[:, None] * (b - a)[None, :], normal))
    return out


def inner_rivals(image: np.ndarray, corners_px: Corners, lens: Distortion | None = None, samples: int = 60,
                 profiles: list[tuple[np.ndarray, np.ndarray]] | None = None) -> list[tuple[float, float]]:
    """Per side (bottom, right, top, left): the strongest straight edge inside it (further than ``RIVAL_MIN_PX`` at both
    ends) within ``RIVAL_BAND`` of the photo's diagonal, as (its mean gradient over the side's own, its distance inside
    in pixels, at the side's middle). A ratio of ``RIVAL_RATIO`` or
    more says the side found may be the foot of the table's front face, a border or the floor, not its top edge.
    ``profiles``: ``inward_side_profiles``'s for ``RIVAL_MIN_PX``, read here if not given."""
    step = SIDE_PROFILE_STEP_PX
    peak = int(round(RIVAL_PEAK_PX / step))
    out = []
    if profiles is None:
        profiles = inward_side_profiles(image, corners_px, lens, RIVAL_MIN_PX, samples)
    for offsets, strength in profiles:
        score, slopes = _line_scores(strength, 1)
        mean_offset = offsets[None, :] + 0.5 * slopes[:, None] * step  # each line's offset halfway along the side
        own = float(score[np.abs(mean_offset) <= RIVAL_MIN_PX / 2].max())
        # Inside the side from end to end (a line aslant across the side's own edge scores half of it by its one end),
        # and an edge: a peak across the side (the own edge's blurred shoulder falls away from it with none).
        nearest = np.minimum(offsets[None, :], offsets[None, :] + slopes[:, None] * step)
        # (Past the band's end only the nearer line is compared: the shoulder lies near the side.)
        higher = np.zeros(score.shape, dtype=bool)
        higher[:, peak:] = score[:, peak:] > score[:, :-peak]
        higher[:, :-peak] &= score[:, :-peak] > score[:, peak:]
        inner = np.where((nearest > RIVAL_MIN_PX) & higher, score, -1.0)
        k = int(np.argmax(inner))
        out.append((float(inner.flat[k]) / max(own, 1e-9), float(mean_offset.flat[k])))
    return out


MAT_STEP_BAND = 0.024
"""How far inside each side of an outline found unaided (a fraction of the photo's diagonal: 120 px on a 12 MP photo) a
step in colour is looked for: the band between a table's top edge and the foot of its front face, or the strip of wall
or floor beyond its far side, was 10-80 px on the generator's photos."""
MAT_STEP_HALF_PX = 3
"""A step is the mean colour over this many pixels on the inner side of a line less the mean over as many on the outer
side (past an edge's blur, within a narrow band's width)."""


def sloped_lines(values: np.ndarray, slopes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``values`` [samples along a side, offsets across it, ...] read along straight lines that move ``slopes`` offsets
    (integers, one line per slope and starting offset) from the first sample to the last: [slopes, samples, offsets,
    ...], and whether each line stays within the offsets over its whole length ([slopes, offsets]; where it leaves them
    the nearest offset is read)."""
    samples, count = values.shape[:2]
    shift = np.rint(np.linspace(0.0, 1.0, samples)[None, :] * slopes[:, None]).astype(np.intp)
    idx = np.arange(count)[None, None, :] + shift[:, :, None]
    whole = ((idx >= 0) & (idx < count)).all(axis=1)
    return values[np.arange(samples)[None, :, None], np.clip(idx, 0, count - 1)], whole


def inner_colour_steps(image: np.ndarray, corners_px: Corners, lens: Distortion | None, min_px: float, slope_px: float,
                       samples: int = 120) -> list[tuple[float, float]]:
    """Per side (bottom, right, top, left): the straight line inside it, within ``MAT_STEP_BAND`` of the photo's diagonal
    and at least ``min_px`` in, across which the colour steps most steadily along the whole side, as (the step's median
    along the side over its spread, root-mean-square over the three channels; the line's distance inside in pixels).

    The table's top edge is where the mat begins: inside it there is mat and nothing else runs the side's length. A
    colour step seen the same way all along a line inside a side (the mat beginning above the front face's foot, or above
    a wall's) says the side is not the top edge. The step is signed, so the mat's texture cancels in its median, and its
    spread is measured point by point, so the light changing along the side does not count; lines may run ``slope_px``
    nearer the side at one end than at the other (a front face narrows away from the camera)."""
    quad = np.asarray(corners_px, dtype=np.float64)
    if lens is not None:
        quad = lens.remove(quad)
    h, w = image.shape[:2]
    band = int(round(max(4 * min_px, MAT_STEP_BAND * math.hypot(w, h))))
    half = MAT_STEP_HALF_PX
    reach = int(round(slope_px))
    slopes = np.arange(-reach, reach + 1)
    out = []
    for points, normal in inward_sides(quad, samples):
        prof = colour_lines(image, points, normal, np.arange(band + 1), lens)
        run = np.concatenate([np.zeros((samples, 1, prof.shape[2]), np.float32), np.cumsum(prof, axis=1)], axis=1)
        at = np.arange(half, band + 1 - half)  # a line between pixel at - 1 and pixel at
        steps = (run[:, at + half] - run[:, at]) / half - (run[:, at] - run[:, at - half]) / half  # [samples, lines, ch]
        along, whole = sloped_lines(steps, slopes)  # [slopes, samples, lines, ch]
        median = sorted_median(along, 1)
        spread = 1.4826 * sorted_median(np.abs(along - median[:, None]), 1) + 1.0  # a grey level: 8-bit quantisation
        score = np.sqrt(np.mean((median / spread) ** 2, axis=2))
        middle = at[None, :] - 0.5 + 0.5 * slopes[:, None]
        score = np.where(whole & (middle >= min_px), score, -1.0)
        k = np.unravel_index(int(np.argmax(score)), score.shape)
        out.append((float(score[k]), float(middle[k])))
    return out


TABLE_CONFIDENT = 0.3
"""Below this confidence a table outline found unaided is refused (the user is asked for the corners)."""
BENT_SIDE_MARGIN = 1.5
"""The first search through the lens reaches this many times the bow the lens gives the sides between the corners
found (the most a side's middle lies off the straight line between its ends): the straight line fitted to a bowed
edge lies between its chord and its middle, so its ends, the corners, can be off by as much as the bow."""
BENT_SIDE_FINAL_PX = 8.0
"""The last pass's search (px either side): the one the pipeline refines an outline through the lens in."""


def find_table(image: np.ndarray) -> TableFit:
    """The table's corners without help: segment the mat, take its quadrilateral, refine each side by a line fit.

    Where those straight sides are unsure the lens may have bent them: the lens is measured on the outline found, the
    sides followed through it (``follow_bent_sides``), and the bent outline kept if it is the surer. Where the outline
    is still unsure its far side may not be the table's: a straight run of a flood into a wall of nearly the mat's
    colour behind a faint far edge, or the wall's foot seen either side of the table, a line across it. The outline
    with its far side replaced by the strongest straight edge near it (``_far_side_replaced``), and the outline with its
    far side moved out onto the wall-to-mat edge between the sides' extensions (``_far_side_beyond``: where the wall's
    foot was taken), are judged the same way, where the strip between the two lines shows which is the table's edge
    (``_wall_between``), and the surest kept."""
    small, f = _small_copy(image)
    quad, fill, support, region = _coarse_outline(small)
    ordered = _order_corners(quad)
    # The support is per side of the quad as found; a quad seen so aslant that its corners reorder has none.
    quad, evidence = _check_sides(small, ordered, support if np.array_equal(ordered, quad) else None)
    found = _outline_from(image, quad, f, fill, evidence)
    if found.confidence >= TABLE_CONFIDENT:
        return found
    best = found
    for replace in (_far_side_replaced, _far_side_beyond):
        try:
            replaced = replace(small, quad, region)
            other = _outline_from(image, replaced[0], f, fill, replaced[1]) if replaced is not None else None
        except PhotoError:
            other = None
        if other is not None and other.confidence > best.confidence:
            best = other
    return best


EVIDENCE_FULL = 0.5
"""An outline's sides each at least this fraction as strong as the strongest straight edge in their bands are wholly
confirmed by them; weaker, the outline's confidence falls in proportion."""


def _outline_from(image: np.ndarray, quad: np.ndarray, f: float, fill: float, evidence: float) -> TableFit:
    """The outline refined from a quad on the downscaled copy (scale ``f``), with its segmentation's ``fill`` and its
    sides' ``evidence``; followed through the lens (``follow_bent_sides``) where that is surer."""
    # Small-image pixel centres to full-image pixel centres.
    coarse = _order_corners((quad + 0.5) / f - 0.5)
    scale = max(image.shape[:2]) / COARSE_SIDE_PX
    c = tuple((float(x), float(y)) for x, y in coarse)
    fit = refine_corners(image, (c[0], c[1], c[2], c[3]), search_px=max(12.0, 5 * scale))

    def judged(found: TableFit) -> TableFit:
        # A refined corner far from the segmented one means a side locked onto something else.
        moved = float(np.max(np.linalg.norm(np.asarray(found.corners_px) - coarse, axis=1)))
        agreement = math.exp(-((moved / (15 * scale)) ** 2))
        # A kept side with a much stronger straight edge beside it may be the wrong one of the two.
        confidence = found.confidence * min(1.0, fill / 0.9) * agreement * min(1.0, evidence / EVIDENCE_FULL)
        return TableFit(found.corners_px, float(confidence), found.corner_sigma_px, found.edge_rms_px, found.edge_points)

    straight = judged(fit)
    if straight.confidence >= TABLE_CONFIDENT:
        return straight
    bent = follow_bent_sides(image, fit)
    if bent is None:
        return straight
    bent = judged(bent)
    return bent if bent.confidence > straight.confidence else straight


def _far_side_replaced(small: np.ndarray, quad: np.ndarray, region: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The quad with its far side (the upper) replaced by the strongest straight edge in its band or between its
    neighbours, as ``_check_sides`` replaces a side with little of the outline on it, and the new quad's evidence; or
    None where nothing replaces it or the strip between the two lines says the side found is the edge
    (``_wall_between``; ``region`` is the segmentation's)."""
    far_only = np.array([np.inf, np.inf, 0.0, np.inf])
    replaced, _ = _check_sides(small, quad, far_only)
    if np.allclose(replaced, quad):
        return None
    replaced = _order_corners(replaced)
    if not _wall_between(small, region, quad, replaced):
        return None
    return _check_sides(small, replaced, None)


FLOOD_END_STEP_PX = 2.0
"""The step (px on the downscaled copy) at which a side's extension is walked to where the segmented region ends."""


def _far_side_beyond(small: np.ndarray, quad: np.ndarray, region: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The quad with its far side moved out onto the mat-to-wall edge beyond it, and the new quad's evidence; or None.

    Where the flood took the wall behind the table and stopped on the wall's foot either side of it, the far side found
    is a line across the table, and the table's far edge lies beyond it, on the extensions of the two sides and inside
    the flood (which covers the table). ``_side_across`` cannot see that edge: the room it reads just outside the side
    found is mat. Here the mat is read along the side found, the wall at the flood's end along the extensions, and the
    far edge is the line from the side found to the flood's end that steps most from the wall to the mat
    (``_far_edge_between``); taken where the strip between it and the side found is mat and the region goes on beyond
    the side found (``_wall_between``'s outward test), and only where the side found is no edge itself: a line across
    the mat has the mat's colour on and either side of it (``_line_contrast`` under ``BARE_RATIO`` of the edge's beyond,
    as a side's bare stretch), while a right far side before a second table, a draped cloth's fold or a gap stands out.
    """
    h, w = region.shape
    ll, lr, ur, ul = quad
    left, right = ul - ll, ur - lr

    def reach(corner: np.ndarray, along: np.ndarray) -> float:
        """How far (a fraction of ``along``) from ``corner`` the region goes on along ``along``."""
        n = int(np.ceil(float(np.linalg.norm(along)) / FLOOD_END_STEP_PX))
        u = np.arange(1, n + 1) / n
        xy = np.rint(corner[None, :] + u[:, None] * along[None, :]).astype(int)
        inside = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
        inside[inside] = region[xy[inside, 1], xy[inside, 0]] > 0
        out = np.flatnonzero(~inside)
        return float(u[out[0] - 1]) if len(out) and out[0] > 0 else (0.0 if len(out) else 1.0)

    reach_l, reach_r = reach(ul, left), reach(ur, right)
    if min(reach_l, reach_r) * min(float(np.linalg.norm(left)), float(np.linalg.norm(right))) < 2 * WALL_STEP_PX:
        return None  # the flood stops at the side found: nothing beyond it to look in
    t = np.linspace(0.05, 0.95, 60)
    mat = _median_colour(small, ul[None, :] + t[:, None] * (ur - ul)[None, :])
    # The wall: the flood's end, a step back into the region along each extension, and the line between.
    end_l = ul + max(0.0, reach_l - WALL_STEP_PX / float(np.linalg.norm(left))) * left
    end_r = ur + max(0.0, reach_r - WALL_STEP_PX / float(np.linalg.norm(right))) * right
    wall = _median_colour(small, end_l[None, :] + t[:, None] * (end_r - end_l)[None, :])
    line = _far_edge_between(small, (ul, left, reach_l), (ur, right, reach_r), mat, wall, -(left + right))
    if line is not None and _line_contrast(small, ul, ur) >= BARE_RATIO * _line_contrast(small, line[0], line[1]):
        return None  # the side found is an edge itself (a second table, a cloth or a gap behind), not a line across the mat
    return _far_side_taken(small, region, quad, line)


def _line_contrast(small: np.ndarray, a: np.ndarray, b: np.ndarray, samples: int = 60) -> float:
    """How much the line from ``a`` to ``b`` stands out (8-bit BGR): the larger of the step between the median colours
    ``WALL_STEP_PX`` either side of it and the difference of its own median colour from theirs (a thin line on it: a
    fold, the gap between two tables)."""
    t = np.linspace(0.05, 0.95, samples)[:, None]
    line = a + t * (b - a)
    normal = np.array([a[1] - b[1], b[0] - a[0]]) / max(1e-9, float(np.linalg.norm(b - a)))
    one = _median_colour(small, line + WALL_STEP_PX * normal)
    other = _median_colour(small, line - WALL_STEP_PX * normal)
    on = _median_colour(small, line)
    return max(float(np.linalg.norm(one - other)), float(np.linalg.norm(on - 0.5 * (one + other))))


def _far_edge_between(small: np.ndarray, left: tuple[np.ndarray, np.ndarray, float],
                      right: tuple[np.ndarray, np.ndarray, float], mat: np.ndarray, wall: np.ndarray, into: np.ndarray,
                      steps: int = 121, samples: int = 60) -> np.ndarray | None:
    """The straight line with one end on each ray (start, direction, reach as a fraction of the direction) along which
    the colour steps most from ``wall`` to ``mat`` towards ``into`` (the table's inside): its two ends, or None where
    the two colours are too alike to say (``WALL_MIN_CONTRAST``) or no line steps that way.

    Every pair of ends (``steps`` along each ray) is scored by the median step across the line (a steady edge end to
    end; a mean is won by lines through bases), then, round the best, the line along the edge is the one the mean puts
    highest (the median is as high for a line a little aslant across the edge, its middle on it).
    """
    norm = float(np.linalg.norm(mat - wall))
    if norm < WALL_MIN_CONTRAST:
        return None
    towards_mat = (mat - wall) / norm
    (a, da, ra), (b, db, rb) = left, right
    t = np.linspace(0.05, 0.95, samples)

    def colours(xy: np.ndarray) -> np.ndarray:
        xy = xy.astype(np.float32)
        return cv2.remap(small, xy[..., 0], xy[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)

    def lines(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return a[None, :] + u[:, None] * da[None, :], b[None, :] + v[:, None] * db[None, :]

    def scores(u: np.ndarray, v: np.ndarray, reduce=np.median) -> np.ndarray:
        start, end = lines(u, v)
        pts = start[:, None, :] + t[None, :, None] * (end - start)[:, None, :]
        along = end - start
        n = np.stack([-along[:, 1], along[:, 0]], axis=1) / np.maximum(1e-9, np.linalg.norm(along, axis=1))[:, None]
        n *= np.sign(n @ into)[:, None]
        step = colours(pts + 2.0 * n[:, None, :]) - colours(pts - 2.0 * n[:, None, :])
        return reduce(step @ towards_mat, axis=1)

    u, v = np.repeat(np.linspace(0.0, ra, steps), steps), np.tile(np.linspace(0.0, rb, steps), steps)
    coarse = scores(u, v)
    k = int(np.argmax(coarse))
    if coarse[k] <= 0:
        return None
    fine = np.linspace(-1.0, 1.0, 21)
    u = u[k] + np.repeat(fine, len(fine)) * ra / (steps - 1)
    v = v[k] + np.tile(fine, len(fine)) * rb / (steps - 1)
    keep = (u >= 0) & (v >= 0)
    u, v = u[keep], v[keep]
    k = int(np.argmax(scores(u, v, np.mean)))
    start, end = lines(u[k:k + 1], v[k:k + 1])
    return np.stack([start[0], end[0]])


def _far_side_taken(small: np.ndarray, region: np.ndarray, quad: np.ndarray,
                    line: np.ndarray | None) -> tuple[np.ndarray, float] | None:
    """``quad`` with its far side on ``line`` (its left end first) and the new quad's evidence (``_check_sides``), where
    the strip between the two lines says the line is the table's edge (``_wall_between``); else None."""
    if line is None:
        return None
    replaced = np.array([quad[0], quad[1], line[1], line[0]])
    if not _wall_between(small, region, quad, replaced):
        return None
    return _check_sides(small, replaced, None)


WALL_MIN_CONTRAST = 4.0
"""The least colour difference (8-bit BGR) between the mat and the room beside two lines for the strip between them
to say which it is like: the change below which ``_sample_lines`` and ``_side_across`` see no room-to-mat step."""


def _wall_between(small: np.ndarray, region: np.ndarray, found: np.ndarray, replaced: np.ndarray, samples: int = 40) -> bool:
    """Whether the far side of ``replaced`` is the table's edge rather than the far side of ``found`` (the
    segmentation's, whose region is ``region``), judged by the strip between the two lines, which must not cross.

    The table's edge is where the mat meets the room. A side found beyond the edge (a flood into the wall behind the
    table) has room between it and the edge: the strip is nearer in colour to the room beyond the outer line than to the
    mat inside the inner one. A side found inside the table (the wall's foot either side of the table, a line across
    it) has mat between it and the edge, and the segmented region goes on beyond it along most of its length: the flood
    did not stop there. Either way the replacing line is taken only where the strip says it is the edge, and never
    where the mat and the room beside the lines are of one colour (``WALL_MIN_CONTRAST``): the strip says nothing then.
    """
    t = np.linspace(0.1, 0.9, samples)[:, None]
    new = replaced[3] + t * (replaced[2] - replaced[3])
    old = found[3] + t * (found[2] - found[3])
    _, normal, _ = _side_frame(replaced, 2)
    gap = (new - old) @ normal  # > 0 where the side found lies beyond the replacing line
    if not (np.all(gap > 0) or np.all(gap < 0)):
        return False
    inward = bool(gap[0] > 0)  # the replacing line is the inner one
    inner, outer = (new, old) if inward else (old, new)

    fractions = np.linspace(0.2, 0.8, 7)
    strip = _median_colour(small, outer[None] + fractions[:, None, None] * (inner - outer)[None])
    mat = _median_colour(small, inner + WALL_STEP_PX * normal)
    room = _median_colour(small, outer - WALL_STEP_PX * normal)
    if float(np.linalg.norm(room - mat)) < WALL_MIN_CONTRAST:
        return False
    like_room = float(np.linalg.norm(strip - mat)) > float(np.linalg.norm(strip - room))
    if inward:
        return like_room
    beyond = np.rint(old - WALL_STEP_PX * normal).astype(int)
    h, w = region.shape
    seen = (beyond[:, 0] >= 0) & (beyond[:, 0] < w) & (beyond[:, 1] >= 0) & (beyond[:, 1] < h)
    flooded = np.zeros(len(beyond), dtype=bool)
    flooded[seen] = region[beyond[seen, 1], beyond[seen, 0]] > 0
    return not like_room and float(np.mean(flooded)) >= 0.5


BARE_OFFSET = 0.003
"""How far beside a side (a fraction of the photo's diagonal, at least ``BARE_OFFSET_MIN_PX``) :func:`bare_far_stretches`
starts reading the colour each side of it, past the edge's blur and a lens's misfit; it reads out to three times that."""
BARE_OFFSET_MIN_PX = 4.0
BARE_SAMPLES = 40
"""Points along each side read by :func:`bare_far_stretches`."""
BARE_RUN = 3
"""The fewest points at a side's far end that make a bare stretch: one or two may be a base or a shadow on the edge."""
BARE_RATIO = 0.15
"""A side's far stretch is bare where its median colour step across the side is under this fraction of the step along
the rest of it (or under ``WALL_MIN_CONTRAST``): a textured wall either side of a line steps a few units at random, a
mat against the room beside it tens to hundreds; a table's sides step to their far corners at 0.3 of the rest or more
on the generators' photos, however faint."""


def bare_far_stretches(image: np.ndarray, corners_px: Corners, lens: Distortion | None = None) -> list[float]:
    """Per side running to a far corner (right, left): the length in pixels of the longest stretch ending at the far
    corner along which the colour inside and outside the side are nearly one (``BARE_RATIO``, in the median; the colour
    each side the median from ``BARE_OFFSET`` out to three times that), counting its bare points only, 0 where there is none or the rest of the side shows no step
    either (the mat and the room beside it of one colour: the side says nothing).

    A table's side is where its mat meets the room beside it all the way to the far corner; an outline whose far side was
    found on a line up the wall (a flood past a faint far edge into the wall behind the table, stopped by a dado rail or
    the wall's colour change) has sides whose last stretch runs over the wall, the same colour either side."""
    quad = np.asarray(corners_px, dtype=np.float64)
    if lens is not None:
        quad = lens.remove(quad)
    h, w = image.shape[:2]
    first = max(BARE_OFFSET_MIN_PX, BARE_OFFSET * math.hypot(w, h))
    offsets = np.linspace(first, 3 * first, 5)
    jitter = np.array([-0.5, 0.0, 0.5]) * first  # three positions along the side at each point: a speck is outvoted
    t = np.linspace(0.02, 0.98, BARE_SAMPLES)
    centre = quad.mean(axis=0)
    out = []
    for near, far in ((1, 2), (0, 3)):
        a, b = quad[near], quad[far]
        length = float(np.linalg.norm(b - a))
        along = (b - a) / length
        normal = np.array([-along[1], along[0]])
        if np.dot(centre - a, normal) < 0:
            normal = -normal  # into the table
        points = a[None, :] + t[:, None] * (b - a)[None, :]
        spread = jitter[None, :, None, None] * along + offsets[None, None, :, None] * normal
        colours = []
        known = np.ones(BARE_SAMPLES, dtype=bool)
        for sign in (1.0, -1.0):
            xy = (points[:, None, None, :] + sign * spread).reshape(-1, 2)
            if lens is not None:
                xy = lens.apply(xy)
            inside = (xy[:, 0] >= 0) & (xy[:, 0] <= w - 1) & (xy[:, 1] >= 0) & (xy[:, 1] <= h - 1)
            known &= inside.reshape(BARE_SAMPLES, -1).all(axis=1)
            xy = xy.astype(np.float32)
            values = cv2.remap(image, xy[:, 0:1], xy[:, 1:2], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            colours.append(np.median(values.reshape(BARE_SAMPLES, jitter.size * offsets.size, -1).astype(np.float32), axis=1))
        step = np.linalg.norm(colours[0] - colours[1], axis=1)
        bare = 0.0
        for k in range(BARE_RUN, BARE_SAMPLES // 2 + 1):
            stretch = step[BARE_SAMPLES - k:][known[BARE_SAMPLES - k:]]
            rest = step[: BARE_SAMPLES - k][known[: BARE_SAMPLES - k]]
            if stretch.size < BARE_RUN or rest.size < BARE_SAMPLES // 2:
                continue
            rest_step = float(np.median(rest))
            low = max(WALL_MIN_CONTRAST, BARE_RATIO * rest_step)
            if rest_step >= 2 * WALL_MIN_CONTRAST and float(np.median(stretch)) < low:
                # The median holds while over half the stretch is bare: its length is that of the bare points in it.
                bare = float(np.count_nonzero(stretch < low)) * float(t[1] - t[0]) * length
        out.append(bare)
    return out


def lens_bow(corners_px: Corners, lens: Distortion, samples: int = 21) -> float:
    """The most (photo px) that ``lens`` bends a side between ``corners_px`` off the straight line between its ends."""
    quad = lens.remove(np.asarray(corners_px, dtype=np.float64))
    t = np.linspace(0.0, 1.0, samples)[:, None]
    bow = 0.0
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        seen = lens.apply(a + t * (b - a))
        chord = seen[-1] - seen[0]
        normal = np.array([-chord[1], chord[0]]) / max(1e-9, float(np.linalg.norm(chord)))
        bow = max(bow, float(np.max(np.abs((seen - seen[0]) @ normal))))
    return bow


def follow_bent_sides(image: np.ndarray, fit: TableFit) -> TableFit | None:
    """The outline ``fit`` followed through the lens its sides show, or None where they show none (or no longer make a
    table): the lens is measured on the sides (``measure_lens``), each side refined as a straight line in undistorted
    pixels in a search from ``BENT_SIDE_MARGIN`` times the sides' bow (``lens_bow``) halving to ``BENT_SIDE_FINAL_PX``,
    the lens measured again on the sides so found; the last pass's fit (its confidence judged on the bent sides)."""
    lens, _, _ = measure_lens(image, fit.corners_px, fit)
    if lens.identity:
        return None
    searches = []
    search = max(BENT_SIDE_FINAL_PX, BENT_SIDE_MARGIN * lens_bow(fit.corners_px, lens))
    while search > BENT_SIDE_FINAL_PX:
        searches.append(search)
        search /= 2
    current = fit
    for n, search in enumerate([*searches, BENT_SIDE_FINAL_PX, BENT_SIDE_FINAL_PX]):
        if n:
            measured, _, _ = measure_lens(image, current.corners_px, current)
            lens = measured if not measured.identity else lens  # sides straightened by the last pass keep its lens
        try:
            current = refine_corners(image, current.corners_px, search_px=search, lens=lens)
        except PhotoError:
            return None
    return current


def calibration_rms_mm(h: np.ndarray, corners_px: Corners, corner_sigma_px: tuple[float, ...]) -> float:
    """RMS over the four corners of their 1-sigma position error, converted to table mm at each corner."""
    inv = np.linalg.inv(h)
    errs = []
    for (x, y), s in zip(corners_px, corner_sigma_px):
        p = np.array([[x, y], [x + 1, y], [x, y + 1]])
        q = apply_homography(inv, p)
        mm_per_px = 0.5 * (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[0]))
        errs.append(s * mm_per_px)
    return float(math.sqrt(np.mean(np.square(errs))))
