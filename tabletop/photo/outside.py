"""A table corner outside the photo (the table cut by the frame), from the two sides that run to it (issue 35, item 3).

The user clicks the three corners the photo shows and places the fourth roughly beyond the photo's edge. The two sides
that run to it are seen for part of their length: each is followed from its corner inside the photo (straight in the
undistorted photo, the lens measured on the table's sides first) and the corner is where they meet. Its 1-sigma comes
from the lines' fits, so a corner far outside (a long extrapolation) says how loose it is. Where the sides cannot be
followed the photo is refused with what to do instead.
"""

from __future__ import annotations

import numpy as np

from tabletop.photo.imageio import to_file, to_working
from tabletop.photo.values import Corners, LoadedImage, PhotoError

CORNER_NAMES = ("lower-left", "lower-right", "upper-right", "upper-left")
SEARCH_PX = 30.0
"""How far either side of the clicked outline each side's edge is looked for at first (working pixels): the corner
outside the photo is a guess, so the sides running to it may be off by tens of pixels where they leave the photo."""
MAX_SEEN_MOVE_PX = 4.0
"""The sides' fit must pass within this of the three corners clicked inside the photo (a loupe click is within one or
two): further off it has followed another line (a print on the mat, the foot of the table's front face)."""
MIN_CONFIDENCE = 0.3
"""The edge fit's own confidence needed (the line ``tabletop photo`` itself draws for a found outline)."""


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


def place_outside_corner(loaded: LoadedImage, corners: Corners) -> tuple[Corners, tuple[float, float, float, float], int]:
    """Corners (file pixels, LL, LR, UR, UL) with the one outside the photo placed from the sides running to it, each
    corner's 1-sigma (file px), and which corner was placed. PhotoError (with what to do) if more than one lies outside
    or the sides cannot be followed; ValueError if none does."""
    from tabletop.photo.pipeline import measure_lens
    from tabletop.photo.rectify import refine_corners

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
        fit = refine_corners(image, quad, search_px=SEARCH_PX * loaded.scale ** 0.5, lens=None if lens.identity else lens)  # type: ignore[arg-type]
    except PhotoError:
        raise PhotoError(refusal(outside)) from None
    found = np.asarray(fit.corners_px, dtype=np.float64)
    seen = [i for i in range(4) if i != k]
    moved = float(np.max(np.linalg.norm(found[seen] - work[seen], axis=1)))
    if fit.confidence < MIN_CONFIDENCE or moved > MAX_SEEN_MOVE_PX * loaded.scale or not np.all(np.isfinite(found)):
        raise PhotoError(refusal(outside))
    out = work.copy()
    out[k] = found[k]
    file_pts = to_file(out, loaded.scale)
    c = tuple((float(x), float(y)) for x, y in file_pts)
    clicked_sigma = 1.0  # a loupe click: the pipeline's own assumption for given corners
    sigmas = tuple(float(fit.corner_sigma_px[i]) / loaded.scale if i == k else clicked_sigma for i in range(4))
    return (c[0], c[1], c[2], c[3]), (sigmas[0], sigmas[1], sigmas[2], sigmas[3]), k
