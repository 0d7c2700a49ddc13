"""One photo to a PhotoResult: load, find or refine the corners, calibrate, rectify, detect."""

from __future__ import annotations

import os

import numpy as np

from tabletop.photo import BASE_SIZES_MM
from tabletop.photo.detect import detect_bases, photo_scale
from tabletop.photo.imageio import MAX_PIXELS, check_corners, corner_outside, load_image, to_file, to_working
from tabletop.photo.rectify import calibration_rms_mm, find_table, homography_from_corners, rectify, refine_corners
from tabletop.photo.values import COARSE_MM_PER_PX, Corners, LoadedImage, PhotoError, PhotoResult

CLICK_SIGMA_PX = 1.0
"""1-sigma error of a corner clicked or typed by hand, when the table's edges cannot confirm it."""
MAX_CORNER_MOVE_PX = 10.0
"""A given corner is replaced by the edge fit only if the fit lands this close to it."""


def _as_corners(points: np.ndarray) -> Corners:
    c = [(float(x), float(y)) for x, y in points]
    return (c[0], c[1], c[2], c[3])


def analyse_image(loaded: LoadedImage, table_mm: tuple[float, float], corners: Corners | None = None,
                  base_sizes_mm: tuple[float, ...] = BASE_SIZES_MM) -> PhotoResult:
    """Everything about one loaded photo; ``corners`` in the file's pixels (LL, LR, UR, UL) or None to find them."""
    image = loaded.pixels
    notes = list(loaded.notes)
    height, width = image.shape[:2]
    if corners is not None:
        check_corners(corners, loaded.original_size)
        given = _as_corners(to_working(np.asarray(corners), loaded.scale))
        try:
            fit = refine_corners(image, given, search_px=8.0)
            moved = float(np.max(np.linalg.norm(np.asarray(fit.corners_px) - np.asarray(given), axis=1)))
        except PhotoError:
            fit, moved = None, float("inf")
        if fit is not None and fit.confidence >= 0.3 and moved <= MAX_CORNER_MOVE_PX and corner_outside(fit.corners_px, (width, height)) is None:
            work_corners, sigmas, confidence = fit.corners_px, fit.corner_sigma_px, fit.confidence
            notes.append(f"corners refined on the table's edges (moved up to {moved:.1f} px)")
        else:
            work_corners, sigmas, confidence = given, (CLICK_SIGMA_PX,) * 4, 1.0
            notes.append("the table's edges do not confirm the given corners: used as given (±1 px assumed)")
    else:
        fit = find_table(image)
        work_corners, sigmas, confidence = fit.corners_px, fit.corner_sigma_px, fit.confidence
        if confidence < 0.3:
            notes.append(f"the table's outline is uncertain (confidence {confidence:.2f}): check the corners, or give them with --corners")
    try:
        check_corners(work_corners, (width, height), where="table outline")
    except PhotoError:
        # Given corners were checked above and refined ones kept only inside the photo: this outline was found
        # unaided, so the user did nothing wrong; say what to do instead.
        raise PhotoError("could not find the table's outline in the photo (what was found is not a four-sided table "
                         "inside it): give its corners with --corners, or click them in the app") from None
    h = homography_from_corners(work_corners, table_mm)
    calibration = calibration_rms_mm(h, work_corners, sigmas)
    rect = rectify(image, work_corners, table_mm, 1.0, calibration)
    bases = tuple(detect_bases(rect, base_sizes_mm))
    mm_per_px = photo_scale(rect).mm_per_px
    if mm_per_px > COARSE_MM_PER_PX:
        notes.append(f"the photo is coarse: up to {mm_per_px:.2f} mm of table per pixel (above {COARSE_MM_PER_PX} mm some bases "
                     "are missed and some placed millimetres off): check every base, or photograph the table closer "
                     "or at full resolution")
    return PhotoResult(
        path=loaded.path,
        image_size=loaded.original_size,
        table_mm=(float(table_mm[0]), float(table_mm[1])),
        corners_px=_as_corners(to_file(np.asarray(work_corners), loaded.scale)),
        corners_given=corners is not None,
        table_confidence=float(confidence),
        calibration_rms_mm=calibration,
        bases=bases,
        notes=tuple(notes),
        mm_per_px=mm_per_px,
    )


def analyse_photo(path: str | os.PathLike[str], table_mm: tuple[float, float], corners: Corners | None = None,
                  base_sizes_mm: tuple[float, ...] = BASE_SIZES_MM, max_pixels: int = MAX_PIXELS) -> PhotoResult:
    """Load the photo at ``path`` (validated; large photos downscaled) and analyse it. Raises PhotoError on bad input."""
    return analyse_image(load_image(path, max_pixels), table_mm, corners, base_sizes_mm)
