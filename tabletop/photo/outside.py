"""A table corner outside the photo (the table cut by the frame), from the two sides that run to it (issue 35, item 3).

The user clicks the three corners the photo shows and places the fourth roughly beyond the photo's edge. The two sides
that run to it are seen for part of their length: each is followed from its corner inside the photo (straight in the
undistorted photo, the lens measured on the table's sides first; its direction the edge points' own, through the clicked
corner) and the corner is where they meet (``markers.corner_from_sides``, as for a corner the markers cannot see). Its
1-sigma carries the lines' fits, the clicked corners' error and the lens's uncertainty (where the sides do not show the
lens, every phone's is tried), so a corner far outside says how loose it is. Where the sides cannot be followed, or the
corner would be looser than ``MAX_SIGMA_PX``, the photo is refused with what to do instead.
"""

from __future__ import annotations

import math

import numpy as np

from tabletop.photo.imageio import corners_outside, to_file, to_working
from tabletop.photo.values import Corners, LoadedImage, PhotoError

CORNER_NAMES = ("lower-left", "lower-right", "upper-right", "upper-left")
GUESS_SIGMA_PX = 10.0
"""How far off a corner placed by eye beyond the photo's edge may be (1-sigma, px): each side's edge is looked for in
a band widening from a few pixels at the clicked corner inside the photo to three of these at the guess."""
MAX_GUESS_MOVE_PX = 80.0
"""A corner the sides place further than this from the guess has followed something else (a refusal, not a guess)."""
LENS_RMS_PX = 1.0
"""The sides' edge points, straightened by the lens measured on them, lie within this of straight lines (RMS, px) when
they are the table's edges (terrain or the front face on them leave several)."""
LENS_RANGE = 0.1
"""Where the sides do not show the lens, k1 (per half-diagonal squared) may be this either way: phones' main cameras."""
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


def with_outside_placed(loaded: LoadedImage, corners: Corners, click_sigma_px: tuple[float, float, float, float] | None = None,
                        ) -> tuple[Corners, tuple[float, float, float, float] | None]:
    """The corners given (file px) with the one outside the photo, if any, placed from the sides running to it, and each
    corner's 1-sigma (None when every corner is in the photo: the given corners as always). PhotoError, with what to do,
    when it cannot be placed: the app and the command line never use a corner beyond the frame as clicked."""
    if not corners_outside(corners, loaded.original_size):
        return corners, None
    placed, sigmas, _ = place_outside_corner(loaded, corners, click_sigma_px)
    return placed, sigmas


def place_outside_corner(loaded: LoadedImage, corners: Corners, click_sigma_px: tuple[float, float, float, float] | None = None,
                         ) -> tuple[Corners, tuple[float, float, float, float], int]:
    """Corners (file pixels, LL, LR, UR, UL) with the one outside the photo placed from the sides running to it, each
    corner's 1-sigma (file px), and which corner was placed. ``click_sigma_px``: each clicked corner's 1-sigma (file px;
    ``CLICK_SIGMA_PX`` each when not given). PhotoError (with what to do) if more than one lies outside or the sides cannot
    be followed; ValueError if none does."""
    from dataclasses import replace

    import cv2

    from tabletop.photo.camera import no_distortion, plumb_line
    from tabletop.photo.markers import corner_from_sides
    from tabletop.photo.rectify import side_profiles

    outside = corners_outside(corners, loaded.original_size)
    if not outside:
        raise ValueError("no corner lies outside the photo")
    if len(outside) > 1:
        raise PhotoError(refusal(outside))
    k = outside[0]
    clicked = tuple(click_sigma_px) if click_sigma_px is not None else (CLICK_SIGMA_PX,) * 4
    # The sides run through the two clicked corners beside the one placed: the looser of them.
    near = max(clicked[(k + 1) % 4], clicked[(k + 3) % 4])
    work = to_working(np.asarray(corners, dtype=np.float64), loaded.scale)
    quad = (tuple(work[0]), tuple(work[1]), tuple(work[2]), tuple(work[3]))
    image = loaded.pixels
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    size = (image.shape[1], image.shape[0])
    lens, rms, k_sigma = plumb_line(side_profiles(image, quad), size)  # type: ignore[arg-type]
    if not (rms <= LENS_RMS_PX and math.isfinite(k_sigma)):
        # The sides do not show the lens (hidden, or too little of them): straight in the photo, and every lens a phone
        # has (k1 within LENS_RANGE either way) tried, its spread in the corner's sigma.
        lens, k_sigma = no_distortion(size), LENS_RANGE
    anchor_px = 2 * CLICK_SIGMA_PX * loaded.scale
    found = corner_from_sides(grey, lens, work, k, GUESS_SIGMA_PX * loaded.scale, anchor_px)
    if found is not None:
        spread = []
        for dk in (-k_sigma, k_sigma):
            other = corner_from_sides(grey, replace(lens, k1=lens.k1 + dk), work, k, GUESS_SIGMA_PX * loaded.scale, anchor_px)
            spread.append(math.inf if other is None else float(np.linalg.norm(other[0] - found[0])))
        # Its sides pass through clicked corners, a pixel or so off each; the lens's uncertainty moves it too.
        found = (found[0], math.hypot(found[1], 2 * CLICK_SIGMA_PX * loaded.scale, max(spread)))
    # Refused on what the photo shows (the sides' fits, the lens); clicks coarser than a pixel loosen it further.
    if (found is None or not np.all(np.isfinite(found[0])) or not found[1] <= MAX_SIGMA_PX * loaded.scale
            or float(np.linalg.norm(found[0] - work[k])) > MAX_GUESS_MOVE_PX * loaded.scale):
        raise PhotoError(refusal(outside))
    point, sigma = found[0], math.hypot(found[1], 2 * math.sqrt(max(0.0, near ** 2 - CLICK_SIGMA_PX ** 2)) * loaded.scale)
    out = work.copy()
    out[k] = point
    file_pts = to_file(out, loaded.scale)
    c = tuple((float(x), float(y)) for x, y in file_pts)
    sigmas = tuple(max(clicked[i], float(sigma) / loaded.scale) if i == k else clicked[i] for i in range(4))
    return (c[0], c[1], c[2], c[3]), (sigmas[0], sigmas[1], sigmas[2], sigmas[3]), k
