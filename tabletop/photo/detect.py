"""Bases on the rectified table: the stages in order, each a module a reader can hold.

1. *Candidates* (``candidates``) on a 1 px/mm top-down image, from two sources: EDCircles (OpenCV contrib's
   EdgeDrawing: circles and ellipses fitted to edge chains, kept by an a-contrario rule) on the grey and the
   "not mat" images, and blobs of "not mat" pixels (the colour difference from a smooth estimate of the mat,
   whitened by the mat's own colour variation) whose distance-transform peaks give a centre and a lower bound on
   the radius.
2. *The rim* (``rimfit``): rays cast from each candidate in table millimetres, mapped into the photo through the
   homography and the lens (``rays``); rim evidence is the whitened colour change where just outside looks like the
   mat and just inside does not. The catalogue circle most rays see goes on (and a clearly larger one nearly as well
   seen); its rim is fitted on 120 rays (Tukey-weighted, all candidates at once), the diameter snapped to the
   catalogue. A tall base's outline reaches past its footprint away from the camera (``rays.outline_extra``): every
   ray's outline is measured less that reach, so the stages fit the footprint. The half-level fit measures the
   same rim where the colour is half-way from the base's to the mat's. A rim that is a hexagon, not a circle, is a
   cell printed on a hex mat (``printed``): neither a base nor a rim round one.
3. *The size* (``sizesnap``): a larger catalogue rim round a detection (the figure's outline was found, not the
   base) or a smaller one inside it (a weapon past the rim drew a circle round both).
4. *How sure* (``uncertainty``): confidence from the rim's evidence; unsure detections cross-checked (an area
   fit, the half-level fit from a larger size), their disagreement in the sigma. Of overlapping detections the
   surer is kept.
5. *The footprint* (``footprint``): each base's height and bevel fitted on its own outline, the size chosen again,
   the centre's covariance with both marginalised.
6. *Ovals* (``ovals``): elongated EDCircles ellipses fitted on their rim and snapped to the oval catalogue;
   elongated ones of no catalogue size reported unfitted.
7. *Report* (``report_bases``): every source of error in the sigma, and ``confident`` only where the base is
   measured cleanly and its outline is not a flat ring printed on the mat (``uncertainty.flat_rings``).

Lengths along the rays (the colour gates, smoothing, the expected scatter) grow with the photo's mm per
pixel on the table (``photo_scale``), so a coarse photo's blur is not mistaken for two edges.
"""


from __future__ import annotations

import math

import numpy as np

from tabletop.photo import BASE_SIZES_MM, rimfit, sizesnap, uncertainty
from tabletop.photo.candidates import MatModel, candidate_px_per_mm, candidates
from tabletop.photo.contrario import GRID_MM, log10_nfa, nearby_log10_nfa, outline_alignment
from tabletop.photo.ground import GroundMap
from tabletop.photo.ovals import MIN_ELONGATION, OVAL_SIZES_MM, fit_ovals
from tabletop.photo.footprint import fit_footprints, refit_nearby
from tabletop.photo.printed import printed_cells
from tabletop.photo.rays import CORRELATION, EVIDENCE_UNIT, FIT_RAYS, Scale, mm_per_px_at, photo_scale
from tabletop.photo.rimfit import (CONTAINING_SUPPORT, fit_rims, fit_rims_at, half_level_centres, half_level_fits, search_circles,
                                   snapped_radii)
from tabletop.photo.sizesnap import inner_rims, outer_rims
from tabletop.photo.uncertainty import confidence_of_rim, median_centres
from tabletop.photo.values import COARSE_MM_PER_PX, Detection, Rectified, Unfitted

MIN_CONFIDENCE = 0.2
CONFIDENT_MIN = 0.6
"""A base is reported confident only above this confidence (its rim seen on most rays, with little scatter) ..."""
CONFIDENT_MAX_SIGMA_MM = 0.35
"""... with a sigma under this (so an error over 1 mm is outside 3 sigma: one the sigma would not have warned of) ..."""
CONFIDENT_MAX_DISAGREEMENT_MM = 0.3
"""... where its centre was cross-checked, its measurements agreeing to this ..."""
CONFIDENT_RAYS, CONFIDENT_RMS_MM = 0.75, 0.3
"""... and its footprint fit (on a tall base) of the size the rim fit found, on this fraction of the rays, with its
outline this close to the fitted profile and its height and bevel not in conflict with their priors
(``footprint.PROFILE_CONFLICT_SIGMAS``): a size changed at the end, an outline the profile explains badly (a figure, a
shadow, a neighbour against it), or one it explains only as a much flatter, taller or more bevelled base, is a base to
check."""
GROUND_MIN_RAYS = 30
"""... and where the ring round it (``footprint.ring_mat``, 2-8 mm beyond its outline) shows the mat on at least this
many of its ``FIT_RAYS`` rays (a quarter). Every base is measured as standing on the table's plane; one standing on a
building's roof or a terrain piece is seen there magnified by the camera's height over the camera's height less the
piece's (a 28 mm base 104 mm up under a camera 1.3 m up looks 30.4 mm: a catalogue step or two up) and displaced away
from the camera by the piece's height over that difference of its distance from the camera's foot (centimetres), with
the sigma of a clean rim. The magnification is no test of its own: it is as large as the catalogue's steps (7-12 %),
so such a base looks like a larger one on the mat. Its ground is: a roof or a piece of another colour than the mat
round it on most rays, or, where the roof or piece is of nearly the mat's colour (the mat's colour is a local median,
which such a surface fills), a surface cut off from the table's mat by an edge in chromaticity (``ground.GroundMap``).
Neighbours in contact cover part of a ring, not three quarters of it."""
RAISED_MAX_FLOOR_RAYS = 12
"""A base whose ring (``footprint.ring_mat``) meets the table's plane first on fewer than this many of its ``FIT_RAYS``
rays (a tenth) stands on a raised surface all round: a roof, a hill's or a plateau's top (``ground.GroundMap``). Every
base is measured as standing on the table's plane, so such a base would be placed centimetres from where it stands
(height x cot(elevation), at the sigma of a clean rim): it is reported "seen, not placed" (``Unfitted``, its outline as
the photo shows it on the table's plane), never as a base. Neighbours in contact, a figure over the ring or a shadow
cover part of a ring, not nine tenths of it."""
PROFILE_SIGMA_MM = 0.15
"""The base-profile model's own error in a footprint's position (1-sigma): the outline is modelled as the envelope of
footprint and top rim, not the rounded edges and contact shadows of a real base."""
COARSE_SIGMA_PX = 1.5
"""Where the photo is coarse (over ``values.COARSE_MM_PER_PX`` at the base) a position is no better than this many of
its pixels (blur and JPEG blocks span several), and the base is not confident."""
OVAL_MODEL_SIGMA_MM = 0.6
"""An oval's position error beyond its fit's own (1-sigma): on the generator's oval photos the fits' sigmas were
0.1-0.3 mm and their errors up to 1.8 mm (figures and neighbours over the rim bend an ellipse's fit more than a
circle's). So an oval is always "check this base", its sigma saying how far to look."""
OUTLINE_MAX_RMS_MM, OUTLINE_MAX_RMS_PX = 0.75, 1.5
"""A base's outline is a smooth curve its fitted profile (footprint, height, bevel) explains to a few tenths of a
millimetre: its edge points' RMS about it was 0.22 mm in the median on the generator's development photos, under
0.32 mm for three in four. A detection whose outline scatters more than this (or this many of the photo's pixels
where they are coarser) is not a base: the edge of a stain on a grass mat, a hex cell of a printed mat (a circle
touching its six sides), a circle drawn across two neighbours scattered 0.8-1.3 mm."""
OUTLINE_RESCUE_SHARE = 0.5
"""An outline the profile explains worse than the bar above is fitted again from places round it
(``footprint.refit_nearby``: the rim fit's circle sat off a base whose figure reaches over its rim); the best is kept
only within this share of the bar (0.375 mm on a fine photo, about the worst quarter of a base's own outline), as a
base's outline is: of 16 places tried, one explains a stain's or a printed cell's edge to 0.6-1.0 mm by chance."""
OUTLINE_PLACE_REACH_PX = 1.5
"""An outline the a-contrario test does not see at the rim fit's centre is looked for at the test's grid places
(``contrario.GRID_MM``) within this many of the photo's pixels of it (``contrario.nearby_log10_nfa``): the rim fit's
centre is no better than a pixel or two where blur and JPEG blocks span several (``COARSE_SIGMA_PX``), and an outline
tested a pixel or two off its edge reads the blur's flank, not the edge. Every such place is among the outlines the
test's number of false alarms already counts. On a photo finer than 0.67 mm per pixel it reaches no other place."""
SEARCH_MIN_SCORE = 0.3
FAINT_FLOOR = 0.05
"""Rims under the confidence bar but above this are measured by the half-level fit too: a faint base's rim
fit scatters by about a millimetre (its steepest fall wanders on a weak edge) where the half-level fit
scatters a third of that, and with that scatter such a base clears the bar. One so lifted is dropped if a
larger rim round it is seen on 60 % of rays (``LOOSE_SUPPORT``), and on as many as its own: it may be a figure on
an invisible base."""


def detect(rect: Rectified, base_sizes_mm: tuple[float, ...] = BASE_SIZES_MM) -> tuple[list[Detection], list[Unfitted]]:
    """Round and oval bases on the table (sorted by y then x), and what looks like a base but is not placed: it fits no
    catalogue shape, or it stands on a raised surface whose height nothing here measures (``RAISED_MAX_FLOOR_RAYS``)."""
    trace: dict = {}
    raised: list[Unfitted] = []
    rounds = detect_bases(rect, base_sizes_mm, trace=trace, raised=raised)
    ellipses = trace.get("ellipses", np.zeros((0, 5)))
    mat = trace.get("mat")
    if mat is None or not len(ellipses):
        return rounds, raised
    found, unfitted = find_ovals(rect, rounds, ellipses, mat, photo_scale(rect))
    # A round outline on an oval base is its figure or its top's border, as a round detection there is (``find_ovals``).
    raised = [u for u in raised if not any(o.shape == "oval" and _inside(o, u) for o in found)]
    return found, unfitted + raised


def find_ovals(rect: Rectified, rounds: list[Detection], ellipses: np.ndarray, mat: MatModel,
               scale: Scale) -> tuple[list[Detection], list[Unfitted]]:
    """Ovals fitted from the elongated edge curves: a catalogue oval replaces the round detections on it (its figure,
    or a round circle fitted into it); one of no catalogue size is reported unfitted."""
    w, d = rect.table_mm
    longest = max(length for length, _ in OVAL_SIZES_MM) / 2
    shortest = min(width for _, width in OVAL_SIZES_MM) / 2
    seeds = ellipses[(ellipses[:, 2] >= MIN_ELONGATION * ellipses[:, 3]) & (ellipses[:, 2] <= 1.2 * longest)
                     & (ellipses[:, 3] >= 0.8 * shortest) & (ellipses[:, 0] > 0) & (ellipses[:, 0] < w)
                     & (ellipses[:, 1] > 0) & (ellipses[:, 1] < d)]
    if len(seeds) > 1:  # the same curve from the grey and the not-mat image: fit it once
        near = np.hypot(seeds[:, None, 0] - seeds[None, :, 0], seeds[:, None, 1] - seeds[None, :, 1]) < 3.0
        seeds = seeds[~np.triu(near, k=1).any(axis=0)]
    if not len(seeds):
        return rounds, []
    s = candidate_px_per_mm(rect)
    colour = mat.at(np.column_stack([seeds[:, 0] * s, (d - seeds[:, 1]) * s]), seeds[:, 2] * s)
    fits = [f for f in fit_ovals(rect, seeds, colour, mat.whiten, scale) if f is not None]
    ovals: list[Detection] = []
    unfitted: list[Unfitted] = []
    kept: list = []
    for f in sorted(fits, key=lambda f: -f.rays):
        if any(o.contains(f.x_mm, f.y_mm) for o in kept):
            continue
        kept.append(f)
        if f.size is None:
            if f.a_mm >= MIN_ELONGATION * f.b_mm:
                unfitted.append(Unfitted(f.x_mm, f.y_mm, f.outline()))
            continue
        support = f.rays / FIT_RAYS
        confidence = float(np.clip((support - uncertainty.SUPPORT_NONE) / (uncertainty.SUPPORT_FULL - uncertainty.SUPPORT_NONE), 0, 1)
                           * math.exp(-0.5 * (f.rms_mm / scale.rms_mm) ** 2))
        sigma = math.sqrt(f.centre_sigma_mm ** 2 + rect.calibration_rms_mm ** 2 + OVAL_MODEL_SIGMA_MM ** 2)
        sure = False  # see OVAL_MODEL_SIGMA_MM: an oval's place is good to a millimetre or two, not to its fit's sigma
        ovals.append(Detection(f.x_mm, f.y_mm, f.size[0], 2 * f.a_mm, confidence, sigma, sure, "oval", f.size[1], f.angle_deg,
                               f.angle_sigma_deg))
    outside = [r for r in rounds if not any(o.shape == "oval" and _inside(o, r) for o in ovals)]
    both = outside + ovals
    both.sort(key=lambda det: (det.y_mm, det.x_mm))
    return both, unfitted


def _inside(oval: Detection, other: Detection | Unfitted) -> bool:
    phi = math.radians(oval.rotation_deg)
    dx, dy = other.x_mm - oval.x_mm, other.y_mm - oval.y_mm
    u, v = dx * math.cos(phi) + dy * math.sin(phi), -dx * math.sin(phi) + dy * math.cos(phi)
    return (u / (oval.diameter_mm / 2 + 2.0)) ** 2 + (v / (oval.width_mm / 2 + 2.0)) ** 2 <= 1.0


def detect_bases(rect: Rectified, base_sizes_mm: tuple[float, ...] = BASE_SIZES_MM,
                 min_confidence: float = MIN_CONFIDENCE, trace: dict | None = None,
                 raised: list[Unfitted] | None = None) -> list[Detection]:
    """Round bases on the table, sorted by y then x: centre and 1-sigma in mm, diameter snapped to ``base_sizes_mm``.

    ``trace``, if given, is filled with the intermediate arrays (candidates, search, fits) for diagnosis; ``raised``,
    if given, receives the bases standing on a raised surface (``RAISED_MAX_FLOOR_RAYS``), seen but not placed.
    """
    sizes = np.asarray(sorted(base_sizes_mm), dtype=float)
    w, d = rect.table_mm
    cand, mat, ellipses = candidates(rect, tuple(sizes))
    if trace is not None:
        trace.update(ellipses=ellipses, mat=mat)
    if len(cand):
        cand = cand[(cand[:, 0] > 0) & (cand[:, 0] < w) & (cand[:, 1] > 0) & (cand[:, 1] < d)]
    if len(cand) == 0:
        return []
    s = candidate_px_per_mm(rect)
    mat_colour = mat.at(np.column_stack([cand[:, 0] * s, (d - cand[:, 1]) * s]), cand[:, 2] * s)
    scale = photo_scale(rect)
    centres, radii, scores, origin = search_circles(rect, cand, mat_colour, mat.whiten, sizes, scale)
    mat_colour = mat_colour[origin]
    if trace is not None:
        trace.update(cand=cand, search=(centres, radii, scores))
    ok = scores >= SEARCH_MIN_SCORE
    centres, radii, mat_colour = centres[ok], radii[ok], mat_colour[ok]
    # Candidates that settled on the same circle: measure it once.
    if len(centres) > 1:
        near = np.hypot(centres[:, None, 0] - centres[None, :, 0], centres[:, None, 1] - centres[None, :, 1]) < 1.5
        same = near & (radii[:, None] == radii[None, :])
        unique = ~np.triu(same, k=1).any(axis=0)
        centres, radii, mat_colour = centres[unique], radii[unique], mat_colour[unique]
    if len(centres) == 0:
        return []
    searched = radii.copy()
    for half in (1.5, 0.8):
        centres, free_r, support, rms, strength, spread = fit_rims(rect, centres, radii, mat_colour, mat.whiten, half, scale)
    # The size: the catalogue radius nearest the free fit; if it differs, fit again with it.
    snapped = snapped_radii(free_r, sizes)
    change = np.isfinite(rms) & (snapped != radii)
    if change.any():
        sub = np.nonzero(change)[0]
        radii = np.where(change, snapped, radii)
        refit = fit_rims_at(rect, centres[sub], radii[sub], mat_colour[sub], mat.whiten, scale)
        for arr, new in zip((centres, free_r, support, rms, strength, spread), refit):
            arr[sub] = new
    if trace is not None:
        trace.update(fit=(centres.copy(), radii.copy(), free_r.copy(), support.copy(), rms.copy(), strength.copy()), fit_spread=spread.copy(),
                     searched=searched.copy())
    finite = np.isfinite(rms)
    # Is there an outline at all? The a-contrario test (``contrario``): the photo's gradient across the outline this
    # base would have, on more of it than chance allows anywhere on the table.
    n_points, n_aligned = outline_alignment(rect, centres, radii, mat_colour, mat.whiten)
    nfa = log10_nfa(rect, n_points, n_aligned, len(sizes))
    reach = OUTLINE_PLACE_REACH_PX * mm_per_px_at(rect, centres)
    unseen = np.nonzero(finite & (nfa >= 0) & (reach >= GRID_MM))[0]
    if len(unseen):
        nfa[unseen] = nearby_log10_nfa(rect, centres[unseen], radii[unseen], mat_colour[unseen], mat.whiten, len(sizes),
                                       reach[unseen])
    if trace is not None:
        trace.update(nfa=nfa.copy(), aligned=(n_points.copy(), n_aligned.copy()))
    # A hex-printed mat's cells are outlined all round like bases of their size; a base is round (``printed``). Judged
    # before anything else is: a cell is neither a base nor a rim round one (a base inside a cell is a base).
    judged = np.nonzero(finite & ((support >= CONTAINING_SUPPORT) | (nfa < 0)))[0]
    cell = np.zeros(len(centres), dtype=bool)
    cell[judged] = printed_cells(rect, centres[judged], radii[judged], mat_colour[judged], mat.whiten, scale)
    if trace is not None:
        trace.update(printed=cell.copy())
    finite &= ~cell
    # Rims seen all round (most rays agree on one circle), whether or not confident enough to report: a ring
    # inside one is the miniature's outline or the top's border on that base, not a base (a base cannot
    # stand on a base), however clear it is. Better a base missed than one placed on its miniature.
    all_round = [(centres[i], radii[i], support[i]) for i in np.nonzero(finite & (support >= CONTAINING_SUPPORT))[0]]

    def inside_a_rim(i: int) -> bool:
        return any(r_out > radii[i] and s_out >= support[i]
                   and math.hypot(*(centres[i] - c_out)) + radii[i] <= r_out + 1.5 for c_out, r_out, s_out in all_round)

    def rim_confidence(i: int, scatter: float) -> float:
        snap_err = abs(2 * free_r[i] - 2 * radii[i])
        return confidence_of_rim(float(support[i]), scatter, float(strength[i] / EVIDENCE_UNIT), snap_err, scale.rms_mm)

    found: list[tuple[float, int]] = []
    faint: list[tuple[float, int]] = []  # below the bar on the rim fit's scatter: the half-level fit may lift them
    seen: list[tuple[float, int]] = []  # too faint or scattered for the rim fit, but an outline no chance would draw
    for i in np.nonzero(finite)[0]:
        confidence = rim_confidence(int(i), float(rms[i]))
        if inside_a_rim(i) or not (0 <= centres[i][0] <= w and 0 <= centres[i][1] <= d) or not nfa[i] < 0:
            continue
        if confidence >= min_confidence:
            found.append((float(np.clip(confidence, 0.0, 1.0)), int(i)))
        elif confidence >= FAINT_FLOOR:
            faint.append((confidence, int(i)))
        else:
            seen.append((confidence, int(i)))
    if not found and not faint and not seen:
        return []
    pick = np.array([i for _, i in found + faint + seen], dtype=int)
    # The centre where the colour is half-way between the base's and the mat's (the rim fit's where the
    # radius runs off). Inside a base's colour, outside the mat's, on most of the circle: or it is not a base.
    # (A faint rim's bands must differ by more than the mat's texture, or its crossings only trace that texture.)
    spans = np.where(np.arange(len(pick)) < len(found), 1e-6, sizesnap.OUTER_MIN_SPAN)
    half_centres, half_radii, half_rms, half_rays, half_spread = half_level_centres(rect, centres[pick], free_r[pick], mat_colour[pick], mat.whiten, scale,
                                                               spans)
    measurable = half_level_fits(free_r[pick], scale)
    moved = np.hypot(*(half_centres - centres[pick]).T)
    # Compared by the centre's uncertainty, not the scatter alone: crossings kept on a short arc (a bright
    # miniature over a base of the mat's colour) scatter little but leave the centre loose along the arc's
    # axis, where the rim fit, its radius held at the catalogue size, stays tight.
    sharper = half_rms * np.sqrt(half_spread) <= rms[pick] * np.sqrt(spread[pick])
    reach = rimfit.HALF_MAX_MOVE_MM if scale.coarse else rimfit.HALF_MAX_MOVE_FINE_MM
    trusted = (np.isfinite(half_rms) & sharper & measurable & (moved <= reach)
               & (half_centres[:, 0] >= 0) & (half_centres[:, 0] <= w) & (half_centres[:, 1] >= 0) & (half_centres[:, 1] <= d))
    keep = list(range(len(found)))  # rows of pick: the confident, then the faint ones lifted over the bar
    lifted: dict[int, float] = {}  # detection: the rays its half-level fit crossed
    first_faint = len(found)
    for k in range(first_faint, first_faint + len(faint)):
        i = int(pick[k])
        if trusted[k] and half_rms[k] < rms[i] and half_rays[k] >= rimfit.HALF_MIN_SUPPORT * FIT_RAYS:
            confidence = rim_confidence(i, float(half_rms[k]))
            if confidence >= min_confidence:
                found.append((float(confidence), i))
                keep.append(k)
                lifted[i] = float(half_rays[k])
    # The faint ones not lifted, and those fainter still, are kept on the a-contrario test alone (their rim confidence
    # makes them "check this base"), as lifted ones: a larger rim round one can still show it is a figure on a base.
    # Their centre is the rim fit's (its radius held at the catalogue size), unless the half-level fit is trusted.
    for k in range(first_faint, len(pick)):
        i = int(pick[k])
        if k not in keep:
            found.append((float(max(rim_confidence(i, float(rms[i])), 0.0)), i))
            keep.append(k)
            measurable[k] = False
            lifted[i] = float(support[i] * FIT_RAYS)
    if not found:
        return []
    pick, half_centres, half_rms, half_rays, half_spread = pick[keep], half_centres[keep], half_rms[keep], half_rays[keep], half_spread[keep]
    half_radii = half_radii[keep]
    measurable, trusted = measurable[keep], trusted[keep]
    if trace is not None:
        trace.update(half=(pick.copy(), half_centres.copy(), half_rms.copy(), half_rays.copy()), half_spread=half_spread.copy(),
                     half_radius=half_radii.copy(), trusted=trusted.copy())
    measured: list[tuple[float, int, np.ndarray, float, float, float, float]] = []
    for (confidence, i), centre, h_radius, e_half, n_half, h_spread, fits, trust in zip(found, half_centres, half_radii, half_rms,
                                                                                        half_rays, half_spread, measurable, trusted):
        if fits and n_half < rimfit.HALF_MIN_SUPPORT * FIT_RAYS:
            continue
        # Its centre no looser than the rim fit's and not moved further than a wrong-sized rim fit can be off, or
        # the rim fit is the better measurement (a coarse photo's blur spreads the half-way level over millimetres).
        if trust:
            # Its size too, where its diameter is clearly one catalogue size: the rim fit's free diameter is
            # pulled by whatever crosses the rim (a weapon, a shadow), the half-way level much less.
            nearest = float(sizes[np.argmin(np.abs(sizes - 2 * h_radius))])
            radius = nearest / 2 if abs(2 * h_radius - nearest) <= rimfit.HALF_SIZE_MARGIN_MM else float(radii[i])
            measured.append((confidence, i, centre, float(e_half), float(h_spread), radius, float(h_radius)))
        else:
            measured.append((confidence, i, centres[i], float(rms[i]), float(spread[i]), float(radii[i]), float(free_r[i])))
    # How far each detection's measurements disagree: a weakly seen larger rim and its area fit, the unsure ones' centres.
    disagreement: dict[int, float] = {}
    if measured:
        unsure = [k for k, m in enumerate(measured) if m[0] < sizesnap.OUTER_UNSURE and m[1] not in lifted]
        if unsure:
            inner = inner_rims(rect, np.array([measured[k][2] for k in unsure]), np.array([measured[k][5] for k in unsure]),
                                mat_colour[[measured[k][1] for k in unsure]], mat.whiten, scale, sizes)
            if trace is not None:
                trace.update(inner=dict(zip(unsure, inner)))
            for k, found_inner in zip(unsure, inner):
                if found_inner is not None:
                    centre, radius, fitted, e_in, n_in = found_inner
                    if 0 <= centre[0] <= w and 0 <= centre[1] <= d:
                        measured[k] = (measured[k][0], measured[k][1], centre, e_in, 2.0 / max(n_in, 1.0), radius, fitted)
        outer = outer_rims(rect, np.array([m[2] for m in measured]), np.array([m[5] for m in measured]),
                            mat_colour[[m[1] for m in measured]], mat.whiten, scale, sizes,
                            np.array([m[0] < sizesnap.OUTER_UNSURE for m in measured]), np.array([m[1] in lifted for m in measured]))
        # A larger rim that is a printed cell's hexagon is the print round the base, not its figure's outline.
        larger = [k for k, o in enumerate(outer) if o is not None]
        if larger:
            cells = printed_cells(rect, np.array([outer[k][0] for k in larger]), np.array([outer[k][1] for k in larger]),
                                  mat_colour[[measured[k][1] for k in larger]], mat.whiten, scale)
            printed = {k for k, is_cell in zip(larger, cells) if is_cell}
            outer = [None if k in printed else o for k, o in enumerate(outer)]
        # A loosely seen larger rim round a lifted detection vetoes it only if crossed on at least as many rays as the
        # detection's own (a figure reaching over a dark base's rim makes a larger circle through the figure, crossed
        # on fewer rays than the base's own rim); one seen on fewer is no measurement of it either.
        vetoed = [k for k, o in enumerate(outer) if o is not None and o[6] and o[4] >= lifted[measured[k][1]]]
        outer = [None if o is not None and o[6] and k not in vetoed else o for k, o in enumerate(outer)]
        for k in sorted(vetoed, reverse=True):
            del measured[k]
            del outer[k]
        if trace is not None:
            trace.update(outer=outer)
        for k, found_outer in enumerate(outer):
            if found_outer is not None:
                centre, radius, fitted, e_out, n_out, apart, _ = found_outer
                if 0 <= centre[0] <= w and 0 <= centre[1] <= d:
                    if apart > 0:
                        disagreement[measured[k][1]] = apart
                    measured[k] = (measured[k][0], measured[k][1], centre, e_out, 2.0 / max(n_out, 1.0), radius, fitted)
    # Unsure ones, and the fairly sure ones the fits shrank: the median of three or four centres, and their
    # disagreement in the sigma.
    unsure = [k for k, m in enumerate(measured) if m[0] < uncertainty.MEDIAN_UNSURE or (m[0] < uncertainty.MEDIAN_SHRUNK and searched[m[1]] > m[5])]
    if unsure:
        # The rim fit's centre is the fourth where the half-level one was taken over it (on a base of the mat's colour
        # the other three can be off together, the same way).
        rim_fits = np.array([centres[measured[k][1]] if measured[k][5] == radii[measured[k][1]]
                             and np.hypot(*(centres[measured[k][1]] - measured[k][2])) > 1e-9 else (np.nan, np.nan) for k in unsure])
        medians = median_centres(rect, np.array([measured[k][2] for k in unsure]), np.array([measured[k][5] for k in unsure]),
                                  mat_colour[[measured[k][1] for k in unsure]], mat.whiten, scale, sizes, rim_fits)
        if trace is not None:
            trace.update(medians=dict(zip(unsure, medians)))
        for k, median in zip(unsure, medians):
            if median is not None and 0 <= median[0][0] <= w and 0 <= median[0][1] <= d:
                measured[k] = (measured[k][0], measured[k][1], median[0], *measured[k][3:])
                disagreement[measured[k][1]] = max(median[1], disagreement.get(measured[k][1], 0.0))
    # Bases cannot overlap: of two overlapping detections keep the surer, where "sure" is also of where it is: a
    # circle whose measurements disagree by millimetres (a weapon past the rim drew it) loses to the base's own rim.
    # Only unsure detections with a median, and weakly seen larger rims, have a disagreement; the rest, sure or not
    # cross-checked, are undiscounted, so an unsure one that could not be cross-checked can outrank one that was and
    # disagreed (not seen to matter yet).
    measured.sort(key=lambda item: -item[0] * math.exp(-0.5 * (disagreement.get(item[1], 0.0) / uncertainty.OVERLAP_DISAGREEMENT_MM) ** 2))
    chosen: list[tuple[float, int, np.ndarray, float, float, float, float]] = []
    for item in measured:
        if all(math.hypot(*(item[2] - other[2])) > item[5] + other[5] - 2.0 for other in chosen):
            chosen.append(item)
    if trace is not None:
        trace.update(chosen=[(i, centre.copy(), radius, confidence) for confidence, i, centre, _, _, radius, _ in chosen])
    at = np.array([c for _, _, c, *_ in chosen], dtype=float)
    ground = mat.at(np.column_stack([at[:, 0] * s, (d - at[:, 1]) * s]), np.zeros(len(at))) if chosen else None
    return report_bases(rect, chosen, disagreement, mat_colour, mat.whiten, scale, sizes, ground_colour=ground,
                        surfaces=mat.ground, raised=raised)


def report_bases(rect: Rectified, chosen: list[tuple[float, int, np.ndarray, float, float, float, float]], disagreement: dict[int, float],
            mat_colour: np.ndarray, whiten: np.ndarray, scale: Scale, sizes: np.ndarray,
            drop_unexplained: bool = True, ground_colour: np.ndarray | None = None,
            surfaces: GroundMap | None = None, raised: list[Unfitted] | None = None) -> list[Detection]:
    """The chosen detections as reported: each footprint measured on its base's own height and bevel, its sigma from
    every source (the rim fit, the cross-checks' disagreement, the corners, the lens, the height), and whether it is
    confident. ``drop_unexplained``: drop an outline no base's profile explains (not where the user clicked on a
    base: they say it is one, and its sigma says how well it is measured). ``ground_colour``: the mat's colour at each
    chosen centre on the narrow scale, a second reference for the ground round it (``footprint.ring_mat``);
    ``surfaces``: the table's surfaces, so that ground of the mat's colour counts only on the mat itself. ``raised``:
    where given, a detection standing on a raised surface all round goes there, as an outline seen but not placed."""
    if not chosen:
        return []
    centres = np.array([c for _, _, c, *_ in chosen], dtype=float)
    radii = np.array([r for *_, r, _ in chosen], dtype=float)
    footprints = fit_footprints(rect, centres, radii, mat_colour[[i for _, i, *_ in chosen]], whiten, scale, sizes,
                                ground_colour, surfaces)
    if footprints is not None and drop_unexplained:
        bar = np.maximum(OUTLINE_MAX_RMS_MM, OUTLINE_MAX_RMS_PX * mm_per_px_at(rect, centres))
        unexplained = np.nonzero(footprints.taken & (footprints.rms > bar))[0]
        footprints = refit_nearby(rect, centres, radii, mat_colour[[i for _, i, *_ in chosen]], whiten, scale, sizes,
                                  ground_colour, surfaces, footprints, unexplained, OUTLINE_RESCUE_SHARE * bar[unexplained])
    if footprints is not None:
        centres, radii = footprints.centres, footprints.radii
    pixels = rect.table_to_image(centres)
    h, w = rect.source.shape[:2]
    lens_mm = np.zeros(len(chosen))
    if rect.camera is not None:
        lens_mm = rect.camera.lens_error_px(pixels) * mm_per_px_at(rect, centres)
    kept: list[Detection] = []
    kept_rows: list[int] = []
    for k, (confidence, i, _, e, centre_spread, _, fitted) in enumerate(chosen):
        cx, cy = centres[k]
        radius = radii[k]
        px, py = pixels[k]
        if not (0 <= px <= w - 1 and 0 <= py <= h - 1):
            continue  # beyond the photo's edge (a table cut by the frame): sampled from its border, not seen
        # Centre error of the circle fit along its loosest axis: rms * sqrt(2 / n) on a full circle of n rays; and
        # where the unsure ones' measurements disagree, or a weakly seen larger rim's area fit lies apart, at least
        # how far they do.
        sigma_rim = CORRELATION * e * math.sqrt(centre_spread)
        if footprints is not None and footprints.taken[k]:
            # The footprint fit's loosest axis, the height's and bevel's uncertainty included.
            sigma_rim = max(sigma_rim, float(math.sqrt(np.max(np.linalg.eigvalsh(footprints.covariance[k])))))
        disagree = disagreement.get(i, 0.0)
        sigma_fit = math.hypot(sigma_rim, disagree)
        profile = PROFILE_SIGMA_MM if footprints is not None else 0.0
        sigma = math.sqrt(sigma_fit ** 2 + rect.calibration_rms_mm ** 2 + float(lens_mm[k]) ** 2 + profile ** 2)
        here = float(mm_per_px_at(rect, centres[k:k + 1])[0])
        if (drop_unexplained and footprints is not None and footprints.taken[k]
                and footprints.rms[k] > max(OUTLINE_MAX_RMS_MM, OUTLINE_MAX_RMS_PX * here)):
            continue  # an outline no base's profile explains: a stain, a printed cell, a circle drawn across neighbours
        if (raised is not None and footprints is not None and footprints.floor_rays is not None
                and footprints.floor_rays[k] < RAISED_MAX_FLOOR_RAYS):
            # Where the photo shows it on the table's plane: the rim fit's circle, not the footprint placed from it.
            seen_at, seen_r = chosen[k][2], chosen[k][5]
            angles = np.linspace(0.0, 2 * math.pi, 36, endpoint=False)
            raised.append(Unfitted(float(seen_at[0]), float(seen_at[1]),
                                   tuple((float(seen_at[0] + seen_r * math.cos(a)), float(seen_at[1] + seen_r * math.sin(a)))
                                         for a in angles), raised=True))
            continue
        coarse_here = here > COARSE_MM_PER_PX
        if coarse_here:
            sigma = max(sigma, COARSE_SIGMA_PX * here)
        footprint_clean = footprints is None or bool(
            footprints.taken[k] and footprints.radii[k] == chosen[k][5] and footprints.rays[k] >= CONFIDENT_RAYS * FIT_RAYS
            and footprints.rms[k] <= CONFIDENT_RMS_MM and not footprints.profile_conflict[k]
            and (footprints.ground_rays is None or footprints.ground_rays[k] >= GROUND_MIN_RAYS))
        sure = bool(confidence >= CONFIDENT_MIN and sigma <= CONFIDENT_MAX_SIGMA_MM and not coarse_here
                    and disagree <= CONFIDENT_MAX_DISAGREEMENT_MM and footprint_clean)
        kept.append(Detection(float(cx), float(cy), float(2 * radius), float(2 * fitted), confidence, float(sigma), sure))
        kept_rows.append(k)
    if footprints is not None:  # tall bases: a ring printed on the mat is flat, a raised top is not
        colours = [ground_colour[k] if ground_colour is not None else mat_colour[chosen[k][1]] for k in kept_rows]
        kept = uncertainty.unsure_if_flat(rect, kept, np.array(colours), whiten)
    kept.sort(key=lambda det: (det.y_mm, det.x_mm))
    return kept
