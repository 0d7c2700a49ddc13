"""Stage 4, how sure: confidence from the rim's evidence, and for unsure detections a cross-check of their centre
(an area fit of the catalogue disc, the half-level fit from a larger size) whose disagreement widens the sigma; a
confident base whose outline is a flat ring printed on the mat made unsure (:func:`flat_rings`)."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable

import cv2
import numpy as np

from tabletop.photo import base_profile
from tabletop.photo.rays import FIT_ANGLES, FIT_RAYS, Scale, channel_norm, less_colour, outline_of, sample_rays, shifted_starts, to_photo_grid
from tabletop.photo.rimfit import half_level_centres
from tabletop.photo.values import Detection, Rectified

DISC_PX_PER_MM = 4.0
"""Resolution of the patch the area fit (:func:`disc_centre`) reads."""
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
"""Detections below this confidence take the median of three or four centres (see :func:`median_centres`)."""
MEDIAN_SHRUNK = 0.7
"""... and those below this whose fits made them smaller than the search had found them: a figure's outline on a base
of the mat's colour can look like a smaller rim, and its sigma must then say how unsure the centre is. On 530 photos this changed 8 detections, none by
more than 0.41 mm, and no sigma then failed to cover its error twice over."""
MEDIAN_MIN_RAYS = 60
"""The half-level fit started at a larger size counts for the median if it crosses on this many rays."""
OVERLAP_DISAGREEMENT_MM = 1.0
"""Of overlapping detections the surer is kept, its confidence discounted by a normal of how far its unsure
measurements disagree, in this unit (a circle drawn round a base and a weapon past its rim disagrees with itself)."""

RING_MARGIN_MM = 1e-6
"""How near the area fit's band's edges a pixel's distance is worked out exactly (see :func:`_ring`)."""
KERNEL_MARGIN_PX = 1e-6
"""How near the outline's least and largest reach a kernel pixel's coverage is worked out (see :func:`_disc_kernel`)."""

SUPPORT_NONE, SUPPORT_FULL = 0.6, 0.85
"""Fraction of rays on the rim: a base's rim is seen on most rays (a miniature hides a few); a circle
traced through texture, or a wrong circle on a base, agrees on fewer."""


GRID_GROWTH = 64
"""The shared kernel grid's half-width grows in steps of this many pixels."""
_GRID: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
"""The largest kernel grid worked out so far (see :func:`_kernel_grid`)."""


def _whole_grid(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_kernel_grid` of half-width ``k``, worked out."""
    ys, xs = np.mgrid[-k:k + 1, -k:k + 1]
    dist = np.hypot(xs, ys)
    angle = np.degrees(np.arctan2(-ys, xs)) % 360.0  # rows run down the table: y up is -row
    i = np.floor(angle).astype(int) % 360
    f = angle - np.floor(angle)
    grid = (dist, i, (i + 1) % 360, f)
    for a in grid:
        a.flags.writeable = False
    return grid


def _kernel_grid(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A (2k+1)² grid's distance from its middle pixel, and its direction on 360 rays a degree apart (counter-clockwise
    from +x with y up): the ray before, the ray after and the fraction of the way between them. Read-only: shared.

    Each pixel's values depend on its offset from the middle alone, so every size is the middle of one larger grid
    (each area fit's size differs: worked out anew, the grids were a tenth of the area fits' time)."""
    whole = _GRID[0] if _GRID else None  # read once: another thread may replace it meanwhile
    if whole is None or (whole[0].shape[0] - 1) // 2 < k:
        whole = _whole_grid(-(-k // GRID_GROWTH) * GRID_GROWTH)
        _GRID[:] = [whole]
    big = (whole[0].shape[0] - 1) // 2
    middle = slice(big - k, big + k + 1)
    dist, i, after, f = (a[middle, middle] for a in whole)
    return dist, i, after, f


def _disc_kernel(radius_px: float, reach_px: np.ndarray | None = None) -> np.ndarray:
    """A disc of the given radius with its edge pixels weighted by coverage; with ``reach_px`` (the outline's reach past
    the footprint on 360 rays a degree apart, counter-clockwise from +x with y up) the base's outline instead."""
    k = int(math.ceil(radius_px + 1 + (float(np.max(reach_px)) if reach_px is not None else 0.0)))
    dist, i, after, f = _kernel_grid(k)
    if reach_px is None:
        return np.clip(radius_px - dist + 0.5, 0.0, 1.0).astype(np.float32)
    # Coverage is worked out only where the outline can pass: a reach between two rays' lies between theirs, so nearer
    # than the least reach (less half a pixel, and a margin far above rounding) a pixel is covered (1), past the
    # largest not (0): clip's values there.
    full = dist < radius_px + float(np.min(reach_px)) - 0.5 - KERNEL_MARGIN_PX
    edge = np.nonzero(~full & (dist <= radius_px + float(np.max(reach_px)) + 0.5 + KERNEL_MARGIN_PX))
    ie, ae, fe = i[edge], after[edge], f[edge]
    reach = reach_px[ie] * (1 - fe) + reach_px[ae] * fe
    kernel = full.astype(np.float32)
    kernel[edge] = np.clip(radius_px + reach - dist[edge] + 0.5, 0.0, 1.0)
    return kernel


def _window_correlation(kernel: np.ndarray, row: int, col: int, half: int) -> Callable[[np.ndarray], np.ndarray]:
    """``cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_CONSTANT)`` (a correlation, the kernel's middle as its
    anchor) only at rows ``row ± half``, columns ``col ± half``, for any image: [2·half + 1]² float32.

    The area fit needs its score only near its start, and its kernel is as large as its patch: a transform over the
    part of the image that reaches the window is a quarter the size of filter2D's over the whole patch and kernel (the
    same sums to a float32 transform's rounding). The kernel's transform is made once, for every image."""
    k = kernel.shape[0] // 2
    size = 2 * (half + k) + 1
    dft = cv2.getOptimalDFTSize(size)
    padded = np.zeros((dft, dft), np.float32)
    padded[:kernel.shape[0], :kernel.shape[1]] = kernel
    spectrum = cv2.dft(padded)
    top, left = row - half - k, col - half - k

    def correlate(image: np.ndarray) -> np.ndarray:
        part = np.zeros((dft, dft), np.float32)  # zero beyond the image, as BORDER_CONSTANT
        y0, x0 = max(top, 0), max(left, 0)
        y1, x1 = min(top + size, image.shape[0]), min(left + size, image.shape[1])
        part[y0 - top:y1 - top, x0 - left:x1 - left] = image[y0:y1, x0:x1]
        # Correlation (the kernel's spectrum conjugated); the window's sums reach no further than ``size``, so the
        # transform's wrap-around never folds into them.
        product = cv2.mulSpectrums(cv2.dft(part), spectrum, 0, conjB=True)
        return cv2.idft(product, flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)[:2 * half + 1, :2 * half + 1]

    return correlate


def _off_the_line(z: np.ndarray, level: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """``np.linalg.norm(z - level[..., None] * colour, axis=-1)`` to the bit, a colour plane at a time (no [.., 3]
    temporaries: four times faster)."""
    total: np.ndarray | None = None
    for c in range(z.shape[-1]):
        plane = level * colour[c]
        np.subtract(z[..., c], plane, out=plane)
        plane *= plane
        if total is None:
            total = plane
        else:
            total += plane
    assert total is not None
    return np.sqrt(total, out=total)


def _ring(z: np.ndarray, xs: np.ndarray, ys: np.ndarray, at: np.ndarray, inner: float, outer: float) -> np.ndarray:
    """``z[(d >= inner) & (d <= outer)]`` with ``d = np.hypot(xs[None, :] - at[0], ys[:, None] - at[1])``, the same
    pixels in the same order, the hypotenuses worked out only where a squared distance does not already decide: within
    a nanometre of the ring's edges (its rounding is a millionth of that)."""
    rows = np.nonzero(np.abs(ys - at[1]) <= outer + 1.0)[0]  # a hypotenuse is never shorter than either side
    cols = np.nonzero(np.abs(xs - at[0]) <= outer + 1.0)[0]
    if not len(rows) or not len(cols):
        return z[:0, 0]
    r0, c0 = rows[0], cols[0]
    dx, dy = xs[c0:cols[-1] + 1] - at[0], ys[r0:rows[-1] + 1] - at[1]
    d2 = (dx * dx)[None, :] + (dy * dy)[:, None]
    low, high = max(inner - RING_MARGIN_MM, 0.0), outer + RING_MARGIN_MM
    near_r, near_c = np.nonzero((d2 >= low * low) & (d2 <= high * high))
    d = np.hypot(dx[near_c], dy[near_r])
    inside = (d >= inner) & (d <= outer)
    return z[r0 + near_r[inside], c0 + near_c[inside]]


def commonest_row(rows: np.ndarray) -> np.ndarray:
    """The most frequent row of a non-empty integer [n, c] array; of equally frequent ones the first in lexicographic
    order (as ``np.unique(rows, axis=0)`` sorts them). Each row is packed into one integer in that order: ``np.unique``
    of rows sorts them as structured records, ten times slower."""
    low = rows.min(axis=0)
    span = rows.max(axis=0) - low + 1
    if math.prod(int(v) for v in span) >= 2**62:  # too wide to pack into an int64
        keys, counts = np.unique(rows, axis=0, return_counts=True)
        return keys[np.argmax(counts)]
    code = np.zeros(len(rows), dtype=np.int64)
    for j in range(rows.shape[1]):
        code = code * span[j] + (rows[:, j] - low[j])
    keys, counts = np.unique(code, return_counts=True)
    packed = int(keys[np.argmax(counts)])
    out = np.empty(rows.shape[1], dtype=np.int64)
    for j in reversed(range(rows.shape[1])):
        packed, out[j] = divmod(packed, int(span[j]))
    return out + low


def disc_centre(rect: Rectified, centre: np.ndarray, radius: float, mat_colour: np.ndarray, whiten: np.ndarray,
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
    xs = x0 + (np.arange(n) + 0.5) / s
    ys = y1 - (np.arange(n) + 0.5) / s
    if rect.camera is None:
        to_table = np.array([[1 / s, 0, x0 + 0.5 / s], [0, -1 / s, y1 - 0.5 / s], [0, 0, 1]])
        patch = cv2.warpPerspective(rect.source, rect.homography @ to_table, (n, n),
                                    flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    else:
        ix, iy = to_photo_grid(rect, xs, ys)
        patch = cv2.remap(rect.source, ix, iy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    z = less_colour(patch.astype(np.float32), mat_colour.astype(np.float32)) @ whiten.T
    extra = outline_of(rect, origin[None, :], np.array([radius]), np.radians(np.arange(360.0)))[0]
    kernel = _disc_kernel(radius * s, extra * s if np.any(extra) else None)
    reach = int(round(DISC_REACH_MM * s))
    ox, oy = int(round((origin[0] - x0) * s - 0.5)), int(round((y1 - origin[1]) * s - 0.5))
    correlate = _window_correlation(kernel, oy, ox, reach + 1)
    at = origin
    for _ in range(iterations):
        band = _ring(z, xs, ys, at, radius - 2.5, radius - 0.5)
        off_mat = band[channel_norm(band, axis=1) >= DISC_MAT_GAP]
        if len(off_mat) < 0.2 * len(band) or len(off_mat) == 0:
            return None
        mode = commonest_row(np.round(off_mat).astype(np.int64)).astype(np.float32)
        colour = off_mat[channel_norm(off_mat - mode, axis=1) <= 1.5].mean(axis=0)
        contrast = float(np.linalg.norm(colour))
        if contrast < DISC_MIN_CONTRAST:
            return None
        level = z @ colour / contrast ** 2  # 0 at the mat's colour, 1 at the base's
        aside = _off_the_line(z, level, colour)
        vote = np.clip(2 * level - 1, -1.0, 1.0)
        vote[(aside > max(DISC_NEITHER, 0.5 * contrast)) | (level > 2.0) | (level < -1.0)] = 0.0
        score = correlate(vote)  # rows oy - reach - 1 .. oy + reach + 1, columns likewise
        jy, jx = np.unravel_index(int(np.argmax(score[1:-1, 1:-1])), (2 * reach + 1, 2 * reach + 1))
        py, px = jy + 1, jx + 1

        def vertex(a: float, c: float, e: float) -> float:
            denom = a - 2 * c + e
            return float(np.clip(0.5 * (a - e) / denom, -0.5, 0.5)) if denom < -1e-9 else 0.0

        dx = vertex(score[py, px - 1], score[py, px], score[py, px + 1])
        dy = vertex(score[py - 1, px], score[py, px], score[py + 1, px])
        at = np.array([x0 + (px + ox - reach - 1 + dx + 0.5) / s, y1 - (py + oy - reach - 1 + dy + 0.5) / s])
    return at


def median_centres(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                    scale: Scale, sizes: np.ndarray, fourth: np.ndarray | None = None) -> list[tuple[np.ndarray, float] | None]:
    """For unsure detections: the median (x and y apart) of three or four centres, and how far the furthest of them
    lies from it, or None where the area fit or the larger sizes' fit is missing.

    The three: the detection's own (a rim or half-level fit), carried on by two more passes of the half-level fit at
    its catalogue size where that crosses on ``MEDIAN_MIN_RAYS`` rays within ``DISC_REACH_MM`` of it (started from the
    rim fit a millimetre or two off, two passes stop short on a faint rim); the area fit (:func:`disc_centre`); and the
    half-level fit started at the next larger catalogue sizes (the tightest of them), whose bands then lie
    outside the miniature on a small base. The fourth, where given (``fourth`` rows not NaN): the rim fit's
    centre where the half-level one was taken over it. An area fit that runs past ``DISC_REACH_MM`` is left out of
    the median (of the other two, their mean) but counts in the disagreement. On a base of nearly the mat's colour each is off by a
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
        rows, starts, moved = shifted_starts(centres, pairs)
        out_c, _, out_rms, out_rays, out_spread = half_level_centres(rect, moved, starts, mat_colour[rows], whiten, scale, passes=3)
        for j, k in enumerate(rows.tolist()):
            if not (np.isfinite(out_rms[j]) and out_rays[j] >= MEDIAN_MIN_RAYS
                    and math.hypot(*(out_c[j] - centres[k])) <= DISC_REACH_MM):
                continue
            tight = float(out_rms[j] * math.sqrt(out_spread[j]))
            if k not in larger or tight < larger[k][0]:
                larger[k] = (tight, out_c[j])
    # No size check on the carried fit: it is one opinion of three or four in a median, not a centre taken alone, and on
    # a carried fit somewhat larger than its base still moves towards the truth.
    own = centres.copy()
    if larger:  # only where a median can be formed
        rows = np.fromiter(larger, dtype=int)
        on_c, _, on_rms, on_rays, _ = half_level_centres(rect, centres[rows], radii[rows], mat_colour[rows], whiten, scale)
        carried = np.isfinite(on_rms) & (on_rays >= MEDIAN_MIN_RAYS) & (np.hypot(*(on_c - centres[rows]).T) <= DISC_REACH_MM)
        own[rows[carried]] = on_c[carried]
    for k in larger:
        disc = disc_centre(rect, centres[k], float(radii[k]), mat_colour[k], whiten)
        if disc is None:
            continue
        # An area fit run to the edge of its reach (drawn to a dark patch of mat beside a dark base) is
        # not a centre but a disagreement: the median of the rest, the sigma widened by it.
        past_reach = math.hypot(*(disc - centres[k])) > DISC_REACH_MM
        opinions = np.array([own[k], larger[k][1]] + ([] if past_reach else [disc])
                            + ([fourth[k]] if fourth is not None and np.all(np.isfinite(fourth[k])) else []))
        middle = np.median(opinions, axis=0)
        spread = float(np.max(np.linalg.norm(opinions - middle, axis=1)))
        found[k] = (middle, max(spread, float(np.linalg.norm(disc - middle))) if past_reach else spread)
    return found


def confidence_of_rim(support: float, rms: float, contrast: float, snap_err: float, rms_scale: float = 0.8) -> float:
    """0..1 from the rim's evidence: rays agreeing, their scatter, its strength, the size's fit."""
    return float(
        float(np.clip((support - SUPPORT_NONE) / (SUPPORT_FULL - SUPPORT_NONE), 0.0, 1.0))
        * math.exp(-0.5 * (rms / rms_scale) ** 2)
        * (1 - math.exp(-contrast / 0.5))
        * math.exp(-0.5 * (snap_err / 0.8) ** 2)
    )


RING_STEPS_MM = (2.0, -9.5, -0.2)
"""Each ray is read from this far outside the outline (+) to this far inside it (-), in steps of this (mm)."""
RING_LINE_MM = (0.6, -4.5)
"""The band that makes the outline is looked for this far outside and inside it (a printed line 1.5-2 mm wide, a base's
side face, bevel and painted rim band; the outline is the catalogue profile's, which on a flat ring's far side lies up
to the top rim's shift, 2-3 mm, beyond the line)."""
RING_LINE_UNITS = 5.0
"""The band must stand this far (whitened) from the mat: beyond the most the mat's own texture reaches over the band's
window (a pixel's distance is about 1.6 on bare mat, the largest of the window's two dozen 3-4; a grass mat's blotches
made 'bands' of 2.5-4.5 on the far side of a base whose top is the mat's, where no band is)."""
RING_EDGE_FRACTION = 0.35
"""The band's edges are where the colour falls back below this fraction of its peak (at least ``RING_MAT_UNITS``)."""
RING_MAT_UNITS = 1.5
"""The band's edges are no nearer the mat than this (whitened); inside the band the colour is the mat's again when its
median lies within this of the mat's ..."""
RING_INSIDE_MM = (0.4, 3.0)
"""... read this far inside the band's inner edge."""
RING_MIN_RAYS = 20
"""A band with the mat inside it on fewer rays (of ``FIT_RAYS``) than this says nothing: a base's top of another colour,
or a figure over it, leaves too few. A quarter of as many must lie towards the camera and as many away from it: a
printed ring's band runs all round."""
RING_FLAT_FRACTION = 0.5
"""The band's width must change towards the camera by at least this fraction of the least a raised top's does, or it is
flat (see :func:`flat_rings`)."""


def flat_rings(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
               heights: np.ndarray) -> np.ndarray:
    """Per base, whether its outline is a band with the mat's colour on both sides that is as wide towards the camera as
    away from it: a ring printed on the mat (a line's two opposite steps taken for a rim's one), not a raised base.

    A base's rim is one step, from its top to the mat. Where its top is of the mat's colour and its rim shows as a band
    (a painted rim band, a bevel, the side face), the band is still not flat: the top stands ``heights`` up, so it is
    seen shifted away from the camera by s (``Camera.rim_shift``), and the band is wider towards the camera (the side
    face shows there) than away from it: by s + bevel where the top reaches past the footprint away from the camera, by
    2 s where the bevel hides it. Per ray the band is the peak of the whitened distance from the mat near the outline,
    its edges where that falls back, and the mat inside it; its width is fitted as a + b cos + c sin of the angle from
    the direction away from the camera, so -b is at least s / 2 on a raised base and 0 on a printed ring (its noise is
    about a tenth of a millimetre); under ``RING_FLAT_FRACTION`` of s / 2 is flat. Where the shift is too small to tell
    (the camera overhead), a band with the mat inside is called flat: such a base cannot be told from a printed ring."""
    n = len(centres)
    flat = np.zeros(n, dtype=bool)
    if rect.camera is None or n == 0 or rect.base_height_mm == 0.0:
        return flat  # flat discs (``--base-height 0``): a printed ring is one of the mat's colour
    angles = FIT_ANGLES
    steps = np.arange(*RING_STEPS_MM)
    extra = outline_of(rect, centres, radii, angles)
    t = radii[:, None, None] + extra[:, :, None] + steps[None, None, :]
    white = ((sample_rays(rect, centres, t, angles) - np.asarray(mat_colour, dtype=np.float32)[:, None, None, :])
             @ np.asarray(whiten, dtype=np.float32).T)  # [n, rays, m, c]
    z = channel_norm(white, axis=3)
    index = np.arange(len(steps))
    line = (steps <= RING_LINE_MM[0]) & (steps >= RING_LINE_MM[1])
    peak_at = np.nonzero(line)[0][np.argmax(z[:, :, line], axis=2)]  # [n, rays]
    peak = np.take_along_axis(z, peak_at[..., None], axis=2)[..., 0]
    low = z < np.maximum(RING_MAT_UNITS, RING_EDGE_FRACTION * peak)[..., None]
    inner_ok = low & (index > peak_at[..., None])
    outer_ok = low & (index < peak_at[..., None])
    inner = np.argmax(inner_ok, axis=2)  # first index inward of the peak back near the mat
    outer = len(steps) - 1 - np.argmax(outer_ok[..., ::-1], axis=2)  # last index outward of it
    step = abs(RING_STEPS_MM[2])
    reach = np.arange(int(round(RING_INSIDE_MM[0] / step)), int(round(RING_INSIDE_MM[1] / step)) + 1)
    inside_at = np.minimum(inner[..., None] + reach, len(steps) - 1)
    # The median colour, then its distance: the distance of each pixel is about 1.6 on bare mat (three channels of noise).
    inside = channel_norm(np.median(np.take_along_axis(white, inside_at[..., None], axis=2), axis=2), axis=2)
    banded = ((peak >= RING_LINE_UNITS) & inner_ok.any(axis=2) & outer_ok.any(axis=2)
              & (inner + reach[-1] < len(steps)) & (inside <= RING_MAT_UNITS))
    width = (inner - outer) * step
    shift = rect.camera.rim_shift(centres, heights)
    away = np.arctan2(shift[:, 1], shift[:, 0])
    for k in range(n):
        rays = np.nonzero(banded[k])[0]
        if len(rays) < RING_MIN_RAYS:
            continue
        a = angles[rays] - away[k]
        if min(int(np.sum(np.cos(a) > 0.5)), int(np.sum(np.cos(a) < -0.5))) < RING_MIN_RAYS // 4:
            continue  # not a band all round: a side face towards the camera, the far rim unseen
        design = np.column_stack([np.ones(len(rays)), np.cos(a), np.sin(a)])
        towards_away = float(np.linalg.lstsq(design, width[k, rays], rcond=None)[0][1])
        # Wider towards the camera (cos = -1) than away from it: the coefficient is negative, by s / 2 or more.
        flat[k] = -towards_away < RING_FLAT_FRACTION * 0.5 * float(np.hypot(*shift[k]))
    return flat


def unsure_if_flat(rect: Rectified, bases: list[Detection], mat_colour: np.ndarray, whiten: np.ndarray) -> list[Detection]:
    """``bases`` with the confident ones whose outline is a flat ring (:func:`flat_rings`) made "check this base";
    ``mat_colour``: the mat's colour at each."""
    sure = [j for j, b in enumerate(bases) if b.confident and b.shape == "round"]
    if not sure:
        return bases
    centres = np.array([[bases[j].x_mm, bases[j].y_mm] for j in sure])
    radii = np.array([bases[j].diameter_mm / 2 for j in sure])
    heights, _ = base_profile(2 * radii, rect.base_height_mm)
    flat = flat_rings(rect, centres, radii, np.asarray(mat_colour)[sure], whiten, heights)
    out = list(bases)
    for j, is_flat in zip(sure, flat):
        if is_flat:
            out[j] = replace(out[j], confident=False)
    return out
