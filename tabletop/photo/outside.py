"""A table corner outside the photo (the table cut by the frame), from the two sides that run to it (issue 35, item 3).

The user clicks the three corners the photo shows and places the fourth roughly beyond the photo's edge. The two sides
that run to it are seen for part of their length: each is followed from its corner inside the photo (straight in the
undistorted photo, the lens measured on the table's sides first; its direction the edge points' own, through the clicked
corner) and the corner is where they meet (``markers.corner_from_sides``, as for a corner the markers cannot see). Its 1-sigma comes
from the lines' fits, so a corner far outside (a long extrapolation) says how loose it is. Where the sides cannot be
followed the photo is refused with what to do instead.
"""

from __future__ import annotations

import math

import numpy as np

from tabletop.photo.imageio import to_file, to_working
from tabletop.photo.values import Corners, LoadedImage, PhotoError

CORNER_NAMES = ("lower-left", "lower-right", "upper-right", "upper-left")
GUESS_SIGMA_PX = 10.0
"""How far off a corner placed by eye beyond the photo's edge may be (1-sigma, px): each side's edge is looked for in
a band widening from a few pixels at the clicked corner inside the photo to three of these at the guess."""
MAX_GUESS_MOVE_PX = 80.0
"""A corner the sides place further than this from the guess has followed something else (a refusal, not a guess)."""
MAX_SIGMA_PX = 8.0
"""A corner placed looser than this (1-sigma, px: the sides seen over too little of their length) is refused: every
base's position would carry millimetres of it."""
CLICK_SIGMA_PX = 1.0
"""A corner clicked with the loupe: the pipeline's own assumption for given corners."""


def refusal(outside: list[int]) -> str:
    """What to say when the photo does not show enough of the table."""
    names = " and ".join(CORNER_NAMES[i] for i in outside)
    if len(outside) > 1:
        return (f"the {names} corners lie outside the photo: at most one corner may (placed from the two sides that run to "
                "it). Photograph the whole table, or lay the printed corner markers (`tabletop photo markers`) at three "
                "corners the photo shows")
    return (f"the {names} corner lies outside the photo and the two sides that run to it cannot be followed to it (hidden, or "
            "too little of them in the photo). Photograph the whole table, click the corner nearer its true place, or lay "
            "the printed corner markers (`tabletop photo markers`)")


def _side_curve(grey: np.ndarray, anchor: np.ndarray, guess: np.ndarray, half: float) -> tuple[np.ndarray, ...] | None:
    """One side running out of the photo, followed from ``anchor`` (a clicked corner) towards ``guess``: a parabola
    ``offset(t) = c2 t^2 + c1 t + c0`` across the chord (t along it from the anchor), so a side bent by a lens not yet
    measured is followed too; 3-MAD trimmed. Returns (direction, normal, coefficients, their covariance) or None."""
    from tabletop.photo.camera import Distortion
    from tabletop.photo.markers import _side_points

    flat = Distortion((0.0, 0.0), 1.0)
    points = _side_points(grey, flat, anchor, guess, half)
    if len(points) < 20:
        return None
    d = (guess - anchor) / np.linalg.norm(guess - anchor)
    n = np.array([-d[1], d[0]])
    t, o = (points - anchor) @ d, (points - anchor) @ n
    keep = np.ones(len(t), bool)
    coef = np.zeros(3)
    for _ in range(4):
        if keep.sum() < 20:
            return None
        coef = np.polyfit(t[keep], o[keep], 2)
        res = o - np.polyval(coef, t)
        mad = 1.4826 * float(np.median(np.abs(res[keep]))) + 0.05
        keep = np.abs(res) <= 3 * mad
    coef, cov = np.polyfit(t[keep], o[keep], 2, cov=True)
    # Neighbouring edge points are correlated (blur, the mat's weave): count one in five.
    return d, n, coef, cov * 5.0, float(abs(np.polyval(coef, 0.0)))


def _point(anchor: np.ndarray, curve: tuple[np.ndarray, ...], t: float) -> np.ndarray:
    d, n, coef = curve[0], curve[1], curve[2]
    return anchor + t * d + float(np.polyval(coef, t)) * n


def _meet(a1: np.ndarray, c1: tuple[np.ndarray, ...], a2: np.ndarray, c2: tuple[np.ndarray, ...], t0: float) -> tuple[np.ndarray, float, float] | None:
    """Where side 1 (from ``a1``) crosses side 2 (from ``a2``), starting ``t0`` along side 1: the point, and each side's
    parameter there."""
    def across(t: float) -> float:
        p = _point(a1, c1, t)
        t2 = float((p - a2) @ c2[0])
        return float((p - a2) @ c2[1]) - float(np.polyval(c2[2], t2))

    t, step = t0, 1.0
    for _ in range(50):
        f0, f1 = across(t), across(t + step)
        if f1 == f0:
            return None
        new = t - f0 * step / (f1 - f0)
        if abs(new - t) < 1e-6:
            t = new
            break
        t = new
    p = _point(a1, c1, t)
    return p, t, float((p - a2) @ c2[0])


def _offset_sigma(curve: tuple[np.ndarray, ...], t: float) -> float:
    j = np.array([t * t, t, 1.0])
    return float(np.sqrt(max(0.0, float(j @ curve[3] @ j))))


def _corner_from_curves(grey: np.ndarray, work: np.ndarray, k: int, guess_sigma: float) -> tuple[np.ndarray, float] | None:
    """Corner ``k`` where the two sides running to it meet, each followed as a parabola from its clicked corner (the
    lens not measured: the sides' own bend is), and its 1-sigma."""
    half = float(np.clip(3 * guess_sigma, 4.0, 30.0))
    anchors = [work[(k - 1) % 4], work[(k + 1) % 4]]
    curves = [_side_curve(grey, a, work[k], half) for a in anchors]
    if any(c is None for c in curves) or any(c[4] > 2 * CLICK_SIGMA_PX + 1.5 for c in curves):  # type: ignore[index]
        return None
    c1, c2 = curves[0], curves[1]
    assert c1 is not None and c2 is not None
    met = _meet(anchors[0], c1, anchors[1], c2, float(np.linalg.norm(work[k] - anchors[0])))
    if met is None:
        return None
    point, t1, t2 = met
    sine = abs(float(c1[0][0] * c2[0][1] - c1[0][1] * c2[0][0]))
    if sine < 0.2:
        return None
    # Each side passes through its clicked corner, itself a pixel or so off: that moves the side, and the corner.
    anchor = CLICK_SIGMA_PX
    return point, math.sqrt(_offset_sigma(c1, t1) ** 2 + _offset_sigma(c2, t2) ** 2 + 2 * anchor ** 2) / sine


def place_outside_corner(loaded: LoadedImage, corners: Corners) -> tuple[Corners, tuple[float, float, float, float], int]:
    """Corners (file pixels, LL, LR, UR, UL) with the one outside the photo placed from the sides running to it, each
    corner's 1-sigma (file px), and which corner was placed. PhotoError (with what to do) if more than one lies outside
    or the sides cannot be followed; ValueError if none does."""
    import cv2

    from tabletop.photo.markers import corner_from_sides
    from tabletop.photo.pipeline import measure_lens

    w, h = loaded.original_size
    outside = [i for i, (x, y) in enumerate(corners) if not (-0.5 <= x <= w - 0.5 and -0.5 <= y <= h - 0.5)]
    if not outside:
        raise ValueError("no corner lies outside the photo")
    if len(outside) > 1:
        raise PhotoError(refusal(outside))
    k = outside[0]
    work = to_working(np.asarray(corners, dtype=np.float64), loaded.scale)
    quad = (tuple(work[0]), tuple(work[1]), tuple(work[2]), tuple(work[3]))
    image = loaded.pixels
    try:
        lens, _, _ = measure_lens(image, quad, None)  # type: ignore[arg-type]
    except PhotoError:
        raise PhotoError(refusal(outside)) from None
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    if not lens.identity:
        found = corner_from_sides(grey, lens, work, k, GUESS_SIGMA_PX * loaded.scale, 2 * CLICK_SIGMA_PX * loaded.scale)
        if found is not None:  # its sides pass through clicked corners, a pixel or so off each
            found = (found[0], math.hypot(found[1], 2 * CLICK_SIGMA_PX * loaded.scale))
    else:
        found = _corner_from_curves(grey, work, k, GUESS_SIGMA_PX * loaded.scale)
    if (found is None or not np.all(np.isfinite(found[0])) or found[1] > MAX_SIGMA_PX * loaded.scale
            or float(np.linalg.norm(found[0] - work[k])) > MAX_GUESS_MOVE_PX * loaded.scale):
        raise PhotoError(refusal(outside))
    point, sigma = found
    out = work.copy()
    out[k] = point
    file_pts = to_file(out, loaded.scale)
    c = tuple((float(x), float(y)) for x, y in file_pts)
    sigmas = tuple(max(CLICK_SIGMA_PX, float(sigma) / loaded.scale) if i == k else CLICK_SIGMA_PX for i in range(4))
    return (c[0], c[1], c[2], c[3]), (sigmas[0], sigmas[1], sigmas[2], sigmas[3]), k
