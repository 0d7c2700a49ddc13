"""One photo to a PhotoResult: load, find or refine the corners, calibrate, rectify, detect."""

from __future__ import annotations

import math
import os
from dataclasses import replace

import numpy as np

from tabletop.photo import BASE_SIZES_MM
from tabletop.photo.detect import detect, photo_scale
from tabletop.photo.imageio import MAX_PIXELS, check_corners, corner_outside, load_image, to_file, to_working
from tabletop.photo.camera import Camera, Distortion, LensFile, camera_from_corners, homography_undistorted, typical_focal
from tabletop.photo.rectify import (RIVAL_MIN_PX, RIVAL_RATIO, SIDE_PROFILE_STEP_PX, TABLE_CONFIDENT, Faces, bare_far_stretches, calibration_rms_mm, find_table,
                                    inner_colour_steps, inner_rivals, inward_side_profiles, inward_sides, measure_lens, rectified_px_per_mm,
                                    rectify, refine_corners, side_band_px, sloped_lines)
from tabletop.photo.rays import sorted_median
from tabletop.photo.values import COARSE_MM_PER_PX, Corners, LoadedImage, PhotoError, PhotoResult, TableFit

CLICK_SIGMA_PX = 1.0
"""1-sigma error of a corner clicked or typed by hand, when the table's edges cannot confirm it (at the photo's own
resolution: the corner's edges blurred over a pixel or so)."""
CLICK_SCREEN_SIGMA = 0.6
"""1-sigma of a click, per axis, in the screen's pixels: the pixel's own width (the corner anywhere in it: 0.29 of a
pixel, uniform) and the hand's aim (about half a pixel) together. Where the app shows the photo scaled down, one screen
pixel covers several of the photo's, and a clicked corner is that much looser (``click_sigma_px``)."""
MAX_CORNER_MOVE_PX = 3.0
"""A given corner is replaced by the edge fit only if the fit lands this close to it: a corner clicked with the app's
loupe at the photo's own resolution, or typed, is within a pixel or two, and a fit further off has locked onto another
straight edge near the table's (a line printed on the mat, the foot of the table's front face). A corner clicked
coarser than that may move as far as its click allows (``CLICK_CONSISTENT_SIGMAS``)."""
CLICK_CONSISTENT_SIGMAS = 3.0
"""An edge fit within this many of a clicked corner's sigmas (``click_sigma_px``) of the click is consistent with it:
a click is that far off its corner in about one click of a hundred (the distance of a 2-D normal error: exp(-3²/2) =
1.1 %). A fit further off has more likely followed another straight edge near the table's (its front face's foot, a
line printed on the mat, a terrain piece's side) than the user missed by so much. Within it another edge may still
have been followed: such a fit is kept only where nothing doubts its outline (``_doubt_outline``'s tests, the front
face's among them)."""


SIDE_NAMES = ("lower", "right", "upper", "left")


def click_sigma_px(step_px: float) -> float:
    """1-sigma (file px, per axis) of a corner clicked where one screen pixel covered ``step_px`` of the photo's pixels:
    the photo's own ``CLICK_SIGMA_PX`` and the click's ``CLICK_SCREEN_SIGMA`` screen pixels, independent."""
    return math.hypot(CLICK_SIGMA_PX, CLICK_SCREEN_SIGMA * max(0.0, float(step_px)))


def allowed_moves_px(corner_step_px: tuple[float, ...] | None, scale: float = 1.0) -> tuple[float, ...]:
    """How far (working px) the edge fit may move each given corner: ``MAX_CORNER_MOVE_PX``, or for a corner clicked
    where a screen pixel covered ``corner_step_px`` of the file's, ``CLICK_CONSISTENT_SIGMAS`` of its click's sigmas
    where that is further. ``scale``: working px per file px."""
    if corner_step_px is None:
        return (MAX_CORNER_MOVE_PX,) * 4
    return tuple(max(MAX_CORNER_MOVE_PX, CLICK_CONSISTENT_SIGMAS * click_sigma_px(step) * scale) for step in corner_step_px)


def clicked_note(steps_px: tuple[float, ...], sigmas_px: tuple[float, ...]) -> str:
    """Why clicked corners are as loose as they are: "clicked at 1 screen px = 10 photo px (±6.1 px)"."""
    lo, hi = min(steps_px), max(steps_px)
    step = f"{hi:.1f}" if hi < 2 else f"{hi:.0f}"
    if hi - lo > 0.05 * hi:
        step = f"{lo:.1f}–{hi:.1f}" if hi < 2 else f"{lo:.0f}–{hi:.0f}"
    loose = f"{max(sigmas_px):.1f}" if max(sigmas_px) - min(sigmas_px) < 0.05 else f"{min(sigmas_px):.1f}–{max(sigmas_px):.1f}"
    return f"clicked at 1 screen px = {step} photo px (±{loose} px)"


STEADY_EDGE_SNR = 5.0
"""A straight line inside a side whose gradient, in the median along the whole side, is this many times the median
gradient of the band inside it is an edge running the side's length (the table's top edge above its front face), not
the mat's texture: on the generator's photos a mat's own lines scored 1.5-4 (a printed grid 6-9 on one photo in
sixty, 12 just past the side's halo: that outline the rival test doubts as well); the top edge above a front face
taken for the near side 6.5-50. Judged against the texture, not the side's own
edge (``rectify.RIVAL_RATIO``): a floor that contrasts strongly with the front face makes the side's edge so strong
that a clear mat-to-face edge scored under a fifth of it."""
STEADY_EDGE_MIN_PX = 6.0
"""Lines nearer a side than this are its own edge's blur and sharpening halo (they scored up to 45 at 3 px)."""
STEADY_EDGE_TEXTURE_FLOOR = 1.0
"""The least texture a band is taken to have (grey levels per pixel: the 8-bit quantisation's own), so a drawn mat of
one flat colour does not make every faint line infinitely steady."""
STEADY_EDGE_SLOPE_PX = 10.0
"""The lines tried run at most this many pixels nearer or further from the side at one end than at the other (a front
face's band narrows with distance from the camera)."""

MAT_STEP_STEADY = 1.5
"""A colour step inside a side whose median along the side is this many of its own spreads (point to point) is seen the
same way on over nine tenths of the side (a normal's 93 %): the mat begins there, not at the side
(``rectify.inner_colour_steps``). The mat's texture steps both ways and cancels in the median: on 257 unaided outlines
of the generator's and ``synth.py``'s photos the sides of those found right scored under 0.9, but for two printed grids
(a line parallel to the side steps the same way all along it: 4.1 and 4.9; the steady-edge test doubts both too); a
wall's foot taken for the far side, 80 px beyond the table's edge, 2.3."""


def _median_lines(offsets: np.ndarray, strength: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """A side's profiles (``rectify.inward_side_profiles``) read along straight lines sloping up to
    ``STEADY_EDGE_SLOPE_PX``: each line's median gradient along the side [slopes, offsets], its distance from the side
    at the middle (px, positive inside), whether it lies whole within the profiles, and the texture (the median
    gradient inside the side, at least ``STEADY_EDGE_TEXTURE_FLOOR``)."""
    step = SIDE_PROFILE_STEP_PX
    reach = int(round(STEADY_EDGE_SLOPE_PX / step))
    slopes = np.arange(-reach, reach + 1)
    along, whole = sloped_lines(strength, slopes)
    middle = offsets[None, :] + 0.5 * slopes[:, None] * step
    texture = max(float(np.median(strength[:, offsets >= STEADY_EDGE_MIN_PX])), STEADY_EDGE_TEXTURE_FLOOR)
    return sorted_median(along, 1), middle, whole, texture


def steady_inner_edges(image: np.ndarray, corners: Corners, lens: Distortion | None, samples: int = 60,
                       profiles: list[tuple[np.ndarray, np.ndarray]] | None = None) -> list[tuple[float, float]]:
    """Per side (bottom, right, top, left): the straight line inside it, within ``rectify.RIVAL_BAND`` of the photo's
    diagonal, whose gradient is strongest in the median along the side, as (that median over the band's median
    gradient, its distance inside in pixels). The median keeps a base or a shadow near the edge, strong along part of a
    line, from scoring as an edge along all of it. ``profiles``: ``rectify.inward_side_profiles``'s for
    ``STEADY_EDGE_MIN_PX``, read here if not given."""
    out = []
    if profiles is None:
        profiles = inward_side_profiles(image, corners, lens, STEADY_EDGE_MIN_PX, samples)
    for offsets, strength in profiles:
        inner = offsets > 0
        score, middle, whole, texture = _median_lines(offsets[inner], strength[:, inner])
        score = np.where(whole & (middle >= STEADY_EDGE_MIN_PX), score, -1.0)
        k = np.unravel_index(int(np.argmax(score)), score.shape)
        out.append((float(score[k]) / texture, float(middle[k])))
    return out


FACE_THICKNESS_MM = (10.0, 50.0)
"""The thicknesses a table's top may have (a 12-25 mm board, a 25-45 mm built or chipboard top): through the camera's
pose they give the height of its front face's band in the photo, below each side the camera looks at from outside."""
FACE_EDGE_SNR = 3.0
"""A line inside a side, within a front face's height of it, is an edge (not the mat's texture) where its gradient, in
the median along the whole side, is this many times the median gradient of the band inside the side. On the unaided
outlines of both generators' photos (161 sides the camera faces, found right) no line steadier than everything outside
scored over 2.3; the faces' feet taken for the near side scored 3.8-53 (the faintest a pale face under a cream mat lit
by a lamp, which the colour-step and steady-edge tests miss)."""
FACE_PEAK_PX = 2.0
"""An edge is a peak of the gradient across the side: the line scores more than the lines this many pixels either side
of it (the side's own edge's blurred shoulder falls away from the side and has no peak)."""


def face_side_scale(camera: Camera, corners: Corners, table_mm: tuple[float, float]) -> list[float]:
    """Per side (bottom, right, top, left): how many pixels outward from the side (undistorted, at its middle) one
    millimetre of the table top's thickness is seen; positive where the camera looks at the side from outside the
    table, so that its front face shows below it, beyond the side in the photo."""
    quad = camera.distortion.remove(np.asarray(corners, dtype=np.float64))
    w, d = table_mm
    table = np.array([[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]])
    top, below = camera.homography(0.0), camera.homography(-1.0)
    out = []
    for i, (_, normal) in enumerate(inward_sides(quad, 3)):
        middle = np.append(0.5 * (table[i] + table[(i + 1) % 4]), 1.0)
        a, b = top @ middle, below @ middle
        out.append(float(np.dot(b[:2] / b[2] - a[:2] / a[2], -normal)))
    return out


def face_band_px(image: np.ndarray, face_px_per_mm: list[float]) -> float:
    """How far each way across a side :func:`front_face_inside` reads (px): the steady-edge test's band, or as far as the
    thickest top's face (``FACE_THICKNESS_MM``) reaches past its peak test where that is further (a steep view of a
    thick top: 62 px on a 12 MP photo whose band is 60)."""
    reach = FACE_THICKNESS_MM[1] * max(face_px_per_mm) + 2 * FACE_PEAK_PX
    return max(side_band_px(image, STEADY_EDGE_MIN_PX), reach)


def front_face_inside(image: np.ndarray, corners: Corners, lens: Distortion | None, face_px_per_mm: list[float],
                      samples: int = 60, profiles: list[tuple[np.ndarray, np.ndarray]] | None = None
                      ) -> list[tuple[float, float] | None]:
    """Per side the camera looks at from outside (``face_side_scale`` positive): where its front face lies. The table's
    top edge has its front face outside it (between the edge and the face's foot, a face's height away); a side found
    at the face's foot has the face inside it, bounded by the top's edge. So the steadiest straight line (the median
    gradient along the whole side, as in ``steady_inner_edges``) within a face's height (``FACE_THICKNESS_MM``) is
    looked for inside the side and outside it; the side's face is inside when the inner one is an edge
    (``FACE_EDGE_SNR`` times the texture inside, a peak across the side) and steadier than anything outside. Returns
    (the inner line's score over the texture, its distance inside in pixels) for such a side, else None. ``profiles``:
    ``rectify.inward_side_profiles``'s for ``STEADY_EDGE_MIN_PX`` over ``face_band_px``, read here if not given."""
    peak = int(round(FACE_PEAK_PX / SIDE_PROFILE_STEP_PX))
    out: list[tuple[float, float] | None] = []
    if profiles is None:
        profiles = inward_side_profiles(image, corners, lens, STEADY_EDGE_MIN_PX, samples,
                                        band_px=face_band_px(image, face_px_per_mm))
    for (offsets, strength), px_per_mm in zip(profiles, face_px_per_mm):
        if not px_per_mm > 0:
            out.append(None)
            continue
        near = max(STEADY_EDGE_MIN_PX, FACE_THICKNESS_MM[0] * px_per_mm)
        far = FACE_THICKNESS_MM[1] * px_per_mm
        score, middle, whole, texture = _median_lines(offsets, strength)
        higher = np.ones_like(whole)
        higher[:, peak:-peak] = (score[:, peak:-peak] > score[:, :-2 * peak]) & (score[:, peak:-peak] > score[:, 2 * peak:])
        higher[:, :peak] = higher[:, -peak:] = False
        within_inside = whole & (middle >= near) & (middle <= far)
        within_outside = whole & (-middle >= near) & (-middle <= far)
        inner = np.where(within_inside & higher, score, -1.0)
        outer = float(np.max(np.where(within_outside, score, 0.0)))
        k = np.unravel_index(int(np.argmax(inner)), inner.shape)
        best = float(inner[k])
        if best >= FACE_EDGE_SNR * texture and best > outer:
            out.append((best / texture, float(middle[k])))
        else:
            out.append(None)
    return out


def _edges_inside(image: np.ndarray, corners: Corners, sigmas: tuple[float, ...], lens: Distortion | None,
                  table_mm: tuple[float, float] | None = None, focal: float | None = None
                  ) -> tuple[list[list[tuple[int, float]]], list[float]]:
    """What ``_doubt_outline`` tests: per test of edges (the rival, the steady edge, the colour step and, with the
    table's size, the front face through the camera the corners give), the sides (0-3: bottom, right, top, left) it
    finds a straight edge inside and how far inside (px); and the right and left sides' bare far stretches (px)."""
    # The sides' profiles are read once: the three tests of edges share them where their bands are the same (every photo
    # with a diagonal of 2,000 px or more: ``rectify.RIVAL_BAND`` of it is the wider).
    rival_profiles = inward_side_profiles(image, corners, lens, RIVAL_MIN_PX, 60)
    edge_profiles = (rival_profiles if side_band_px(image, RIVAL_MIN_PX) == side_band_px(image, STEADY_EDGE_MIN_PX)
                     else inward_side_profiles(image, corners, lens, STEADY_EDGE_MIN_PX, 60))
    rivals = inner_rivals(image, corners, lens, profiles=rival_profiles)
    steady = steady_inner_edges(image, corners, lens, profiles=edge_profiles)
    steps = inner_colour_steps(image, corners, lens, STEADY_EDGE_MIN_PX, STEADY_EDGE_SLOPE_PX)
    found = [[(i, inside) for i, (ratio, inside) in enumerate(rivals) if ratio >= RIVAL_RATIO],
             [(i, inside) for i, (snr, inside) in enumerate(steady) if snr >= STEADY_EDGE_SNR],
             [(i, inside) for i, (steadiness, inside) in enumerate(steps) if steadiness >= MAT_STEP_STEADY]]
    if table_mm is not None:
        size = (image.shape[1], image.shape[0])
        camera = camera_from_corners(corners, table_mm, size, lens, sigmas, focal)
        scale = face_side_scale(camera, corners, table_mm)
        band = face_band_px(image, scale)
        face_profiles = (edge_profiles if band == side_band_px(image, STEADY_EDGE_MIN_PX)
                         else inward_side_profiles(image, corners, lens, STEADY_EDGE_MIN_PX, 60, band_px=band))
        faces = front_face_inside(image, corners, lens, scale, profiles=face_profiles)
        found.append([(i, face[1]) for i, face in enumerate(faces) if face is not None])
    return found, list(bare_far_stretches(image, corners, lens))


def _doubt_outline(image: np.ndarray, corners: Corners, sigmas: tuple[float, ...], lens: Distortion | None,
                   table_mm: tuple[float, float] | None = None, focal: float | None = None
                   ) -> tuple[tuple[float, ...], str | None]:
    """An outline found unaided against the edges inside it (``_edges_inside``: ``rectify.inner_rivals``,
    ``steady_inner_edges``, ``rectify.inner_colour_steps`` and, with the table's size, ``front_face_inside`` through
    the camera its corners give): where a side has a straight edge inside it strong against the side's own, steady
    along the side's whole length against the texture, a colour step seen the same way all along it, or its front face
    inside it, the table's top edge may be there (the side found is the foot of its front face, a border, the floor),
    so both its corners' sigmas cover that distance; and the note saying what to do."""
    found, bare = _edges_inside(image, corners, sigmas, lens, table_mm, focal)
    doubtful: list[tuple[int, float]] = []
    for test in found:  # a side's first test's edge, in the tests' order
        doubtful += [(i, inside) for i, inside in test if all(i != j for j, _ in doubtful)]
    doubtful.sort()
    if not doubtful and not any(bare):
        return sigmas, None
    widened = list(sigmas)
    for i, inside in doubtful:
        for corner in (i, (i + 1) % 4):
            widened[corner] = max(widened[corner], inside)
    # The far corners (upper-right, upper-left) may be as far off as the bare stretch is long.
    for corner, length in zip((2, 3), bare):
        widened[corner] = max(widened[corner], length)
    what = []
    if doubtful:
        sides = ", ".join(f"{SIDE_NAMES[i]} ({inside:.0f} px)" for i, inside in doubtful)
        what.append(f"a second straight edge lies inside its {sides} side, which may be the table's real edge (the one found: "
                    "the foot of its front face, a border or the floor)")
    if any(bare):
        sides = ", ".join(f"{name} ({length:.0f} px)" for name, length in zip(("right", "left"), bare) if length)
        what.append(f"its {sides} side runs its last stretch with the same colour either side, no table edge there "
                    "(its far side may be a line on the wall behind the table)")
    return tuple(widened), (f"the table's outline found unaided is doubtful: {'; '.join(what)}; "
                            "every base is marked 'check this base': give the corners with --corners, click them in the app, or lay "
                            "the printed corner markers (tabletop photo markers)")


def _as_corners(points: np.ndarray) -> Corners:
    c = [(float(x), float(y)) for x, y in points]
    return (c[0], c[1], c[2], c[3])


def _fit_within_reach(image: np.ndarray, fit: TableFit, given: Corners, reach_px: tuple[float, ...], lens: Distortion | None,
                      table_mm: tuple[float, float], focal: float | None) -> float | None:
    """How far the edge fit moved the furthest given corner, or None where it is not taken for the table the user
    pointed at: a corner moved further than its ``reach_px`` (``allowed_moves_px``), or further than
    ``MAX_CORNER_MOVE_PX`` onto an outline with another edge the click may have meant (``_edges_inside``'s tests of the
    unaided outline: its front face inside a side found at the face's foot, a second straight edge inside a side, a
    far side on the wall) within the click's reach. An edge further from the click than that the click rules out as
    surely as the move's own limit does (a mat's border 80 px in, a wall's line 270 px beyond a corner clicked 6 px
    from the table's): the click says which edge is the table's."""
    moves = np.linalg.norm(np.asarray(fit.corners_px) - np.asarray(given), axis=1)
    if not bool(np.all(moves <= np.asarray(reach_px))):
        return None
    moved = float(np.max(moves))
    if moved <= MAX_CORNER_MOVE_PX:
        return moved
    found, bare = _edges_inside(image, fit.corners_px, fit.corner_sigma_px, lens, table_mm, focal)
    # An edge ``inside`` px in from a side lies at least ``inside`` less the corner's move from the click there.
    near = [inside - moves[c] <= reach_px[c] for test in found for i, inside in test for c in (i, (i + 1) % 4)]
    near += [length - moves[c] <= reach_px[c] for c, length in zip((2, 3), bare) if length]
    return None if any(near) else moved


def face_sides(corners: Corners, table_mm: tuple[float, float], size: tuple[int, int], lens: Distortion | None,
               focal: float | None) -> Faces | None:
    """Per side (bottom, right, top, left): the least height (px) the table's front face shows beyond it, the thinnest
    top's (``FACE_THICKNESS_MM``) through the camera the corners give, where that camera looks at the side from outside
    the table (``face_side_scale`` positive); 0 where it does not, the face hidden. None where the corners give no
    camera."""
    try:
        camera = camera_from_corners(corners, table_mm, size, lens, (1.0,) * 4, focal)
        scale = face_side_scale(camera, corners, table_mm)
    except (PhotoError, np.linalg.LinAlgError, ValueError):
        return None
    least = [FACE_THICKNESS_MM[0] * s if s > 0 else 0.0 for s in scale]
    return (least[0], least[1], least[2], least[3])


def _refined_through(image: np.ndarray, corners_px: Corners, lens: Distortion, size: tuple[int, int],
                     faces: Faces | None = None) -> TableFit | None:
    """The outline ``corners_px`` refined through ``lens`` (an 8 px search), or None where that fails, is unsure
    (under ``TABLE_CONFIDENT``) or leaves the photo. ``faces``: as ``rectify.refine_corners``'s."""
    try:
        bent = refine_corners(image, corners_px, search_px=8.0, lens=lens, faces=faces)
    except PhotoError:
        return None
    if bent.confidence < TABLE_CONFIDENT or corner_outside(bent.corners_px, size) is not None:
        return None
    return bent


def analyse_image(loaded: LoadedImage, table_mm: tuple[float, float], corners: Corners | None = None,
                  base_sizes_mm: tuple[float, ...] = BASE_SIZES_MM, base_height_mm: float | None = None,
                  lens_file: LensFile | None = None, corner_sigma_px: tuple[float, float, float, float] | None = None,
                  markers: bool = True, corner_step_px: tuple[float, float, float, float] | None = None) -> PhotoResult:
    """Everything about one loaded photo; ``corners`` in the file's pixels (LL, LR, UR, UL) or None to find them.

    ``base_height_mm``: every base's height (0: flat discs); None: the catalogue's per size. ``lens_file``: the phone's
    calibrated lens (``tabletop photo calibrate``); without it the lens is measured on the table's sides.
    ``corner_sigma_px``: given corners are sure to these 1-sigmas (file px) and used as given, never refined.
    ``markers``: without given corners, printed corner markers in the photo (``tabletop.photo.markers``) give the corners
    (three or four seen) and the lens (two or more). ``corner_step_px``: the given corners were clicked on a screen where
    one pixel covered this many of the photo's (each corner): the table's edges may move each as far as such a click
    allows (``allowed_moves_px``); where they do not confirm them, each is as sure as such a click
    (``click_sigma_px``), not ``CLICK_SIGMA_PX``, and the notes say why."""
    image = loaded.pixels
    notes = list(loaded.notes)
    height, width = image.shape[:2]
    size = (width, height)
    lens: Distortion | None = None
    focal: float | None = None
    lens_rms, k_sigma = 0.0, 0.0
    marked = None
    unaided = False  # the outline found in the photo alone (no corners given, no markers seen)
    if corners is None and markers:
        from tabletop.photo.markers import table_from_markers

        marked = table_from_markers(image, table_mm, lens=lens_file)
        if marked is not None:
            notes.append(marked.note())
            if lens_file is None and marked.lens_trusted:
                lens_file, lens_rms, k_sigma = marked.lens_file(size), marked.rms_px, marked.camera.k1_sigma
    if lens_file is not None:
        lens, focal = lens_file.for_size(loaded.original_size)
        if loaded.scale != 1.0:
            lens, focal = lens_file.for_size(size)
        if marked is not None and marked.corners_px is None and k_sigma:
            focal = None  # two markers give the lens, not the focal length: that comes from the table's corners
    reach: tuple[float, ...] | None = None  # how far the lens's fit may move given corners (None: not given)
    origin: Corners | None = None  # where that is measured from: the corners as given
    pending: TableFit | None = None  # clicked corners' straight fit, judged once the lens is known to bend nothing
    as_given_at: int | None = None  # the note saying the given corners were used as given
    precise = True  # given corners are typed or clicked finely enough to tell a front face's foot from the mat's edge
    refined_at: int | None = None  # the note saying they were refined
    if marked is not None and marked.corners_px is not None and marked.corner_sigma_px is not None:
        work_corners, sigmas, confidence = marked.corners_px, marked.corner_sigma_px, 1.0
        fit = None
    elif corners is not None and corner_sigma_px is not None:
        check_corners(corners, loaded.original_size, allow_outside=True)
        work_corners = _as_corners(to_working(np.asarray(corners), loaded.scale))
        sigmas, confidence, fit = tuple(s * loaded.scale for s in corner_sigma_px), 1.0, None  # type: ignore[assignment]
        reach = (MAX_CORNER_MOVE_PX,) * 4
        if corner_step_px is not None:
            notes.append(f"the corners were used as given: {clicked_note(corner_step_px, corner_sigma_px)}")
    elif corners is not None:
        check_corners(corners, loaded.original_size, allow_outside=True)
        given = _as_corners(to_working(np.asarray(corners), loaded.scale))
        allowed = allowed_moves_px(corner_step_px, loaded.scale)
        # The fit takes a band's inner edge for the table's only where it lies nearer the given side than the edge
        # fitted (``rectify.refine_corners``): a corner clicked coarser than a typed one cannot say which of two edges
        # a few pixels apart it meant (a face's foot, a dark rim round the mat), so there the fit is left as it was.
        precise = max(allowed) <= MAX_CORNER_MOVE_PX
        try:
            fit = refine_corners(image, given, search_px=8.0, lens=lens,
                                 faces=face_sides(given, table_mm, size, lens, focal) if precise else None)
        except PhotoError:
            fit = None
        moved = None
        if fit is not None and fit.confidence >= 0.3 and corner_outside(fit.corners_px, (width, height)) is None:
            if lens is None and float(np.max(np.linalg.norm(np.asarray(fit.corners_px) - np.asarray(given), axis=1))) > MAX_CORNER_MOVE_PX:
                # A straight line fitted to a side the lens bows lies off the side's ends by the bow (5-6 px on the
                # generator's phone photos, a sure-looking fit): a move further than a precise click's is judged
                # once the lens is known, through it where it bends the sides.
                pending = fit if corner_step_px is not None else None
            else:
                moved = _fit_within_reach(image, fit, given, allowed, lens, table_mm, focal)
        origin = given
        if fit is not None and moved is not None:
            work_corners, sigmas, confidence = fit.corners_px, fit.corner_sigma_px, fit.confidence
            refined_at = len(notes)
            notes.append(f"corners refined on the table's edges (moved up to {moved:.1f} px)")
            reach = allowed
        elif corner_step_px is not None:
            clicked = tuple(click_sigma_px(step) for step in corner_step_px)
            work_corners, sigmas, confidence = given, tuple(c * loaded.scale for c in clicked), 1.0
            as_given_at, reach = len(notes), allowed
            notes.append(f"the table's edges do not confirm the given corners: used as given, {clicked_note(corner_step_px, clicked)}")
        else:
            as_given_at, reach = len(notes), allowed
            work_corners, sigmas, confidence = given, (CLICK_SIGMA_PX,) * 4, 1.0
            notes.append("the table's edges do not confirm the given corners: used as given (±1 px assumed)")
    else:
        fit = find_table(image)
        unaided = True
        work_corners, sigmas, confidence = fit.corners_px, fit.corner_sigma_px, fit.confidence
        if confidence < TABLE_CONFIDENT:
            # Never a silent wrong table: on the generator's photos every outline found this unsure was tens to
            # thousands of pixels off (the table's front face, the floor, the wall taken for its edge).
            raise PhotoError(f"could not find the table's outline with confidence ({confidence:.2f}; the table's front face, "
                             "the floor or a wall may look like its edge): give its corners with --corners, click them in the app, or lay "
                             "the printed corner markers (tabletop photo markers)")
    try:
        check_corners(work_corners, (width, height), where="table outline", allow_outside=corners is not None or marked is not None)
    except PhotoError:
        # Given corners were checked above and refined ones kept only inside the photo: this outline was found
        # unaided, so the user did nothing wrong; say what to do instead.
        raise PhotoError("could not find the table's outline in the photo (what was found is not a four-sided table "
                         "inside it): give its corners with --corners, click them in the app, or lay the printed corner "
                         "markers (tabletop photo markers)") from None
    # A band inside a side is taken for the table's front face only on corners given precisely: an unaided outline's
    # sides are judged by the tests of ``_doubt_outline`` instead, and the markers' outline was not measured with it.
    near_faces = corners is not None and precise
    if lens is None:
        faces = face_sides(work_corners, table_mm, size, lens, focal) if near_faces else None
        lens, lens_rms, k_sigma = measure_lens(image, work_corners, fit, faces)
        if not lens.identity:
            # Given corners move no further through the lens than without it (``allowed_moves_px``), from where they
            # were given: a straight fit to a bowed side is off at its ends by the bow, and the fit through the lens,
            # nearer the given corners, would be judged from that.
            start = origin or work_corners  # the given side decides between a face's foot and the mat's edge
            bent = _refined_through(image, start, lens, size, face_sides(start, table_mm, size, lens, focal) if near_faces else None)
            moved = (None if bent is None or reach is None else
                     _fit_within_reach(image, bent, origin or work_corners, reach, lens, table_mm, focal))
            if bent is not None and (reach is None or moved is not None):
                work_corners, sigmas = bent.corners_px, bent.corner_sigma_px
                note_at = as_given_at if as_given_at is not None else refined_at
                if note_at is not None:
                    notes[note_at] = f"corners refined on the table's edges through the lens (moved up to {moved:.1f} px)"
            k1, _ = lens.opencv(typical_focal(size))
            notes.append(f"the table's sides are bent by the lens (k1 about {k1:+.3f}): the photo is undistorted")
        elif pending is not None and reach is not None and as_given_at is not None:
            moved = _fit_within_reach(image, pending, work_corners, reach, None, table_mm, focal)
            if moved is not None:
                work_corners, sigmas, confidence = pending.corners_px, pending.corner_sigma_px, pending.confidence
                notes[as_given_at] = f"corners refined on the table's edges (moved up to {moved:.1f} px)"
    elif unaided and not lens.identity:
        # A calibrated lens (--camera, or the markers') bends the sides as a measured one does: the outline found as
        # straight lines is followed through it in the same search (its corners were several px off without).
        bent = _refined_through(image, work_corners, lens, size)
        if bent is not None:
            work_corners, sigmas = bent.corners_px, bent.corner_sigma_px
    doubt = None
    if unaided:
        sigmas, doubt = _doubt_outline(image, work_corners, sigmas, lens, table_mm, focal)
        if doubt is not None:
            notes.append(doubt)
    camera = camera_from_corners(work_corners, table_mm, size, lens, sigmas, focal, lens_rms, k_sigma)
    h = homography_undistorted(work_corners, table_mm, lens)
    calibration = calibration_rms_mm(h, _as_corners(lens.remove(np.asarray(work_corners))), sigmas)
    rect = rectify(image, work_corners, table_mm, rectified_px_per_mm(work_corners, table_mm), calibration, camera=camera,
                   base_height_mm=base_height_mm)
    found, unfitted = detect(rect, base_sizes_mm)
    bases = tuple(found) if doubt is None else tuple(replace(b, confident=False) for b in found)
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
        corners_given=corners is not None or (marked is not None and marked.corners_px is not None),
        table_confidence=float(confidence),
        calibration_rms_mm=calibration,
        bases=bases,
        notes=tuple(notes),
        mm_per_px=mm_per_px,
        camera=camera,
        unfitted=tuple(unfitted),
    )


def analyse_photo(path: str | os.PathLike[str], table_mm: tuple[float, float], corners: Corners | None = None,
                  base_sizes_mm: tuple[float, ...] = BASE_SIZES_MM, max_pixels: int = MAX_PIXELS,
                  base_height_mm: float | None = None, lens_file: LensFile | None = None) -> PhotoResult:
    """Load the photo at ``path`` (validated; large photos downscaled) and analyse it. Raises PhotoError on bad input."""
    return analyse_image(load_image(path, max_pixels), table_mm, corners, base_sizes_mm, base_height_mm, lens_file)
