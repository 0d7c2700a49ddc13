"""Stage 3, the size: a larger catalogue rim round a detection (its figure's outline was found, not the base) or a
smaller one inside it (a weapon past the rim drew a circle round both), each found by the half-level fit started at
the other catalogue sizes."""

from __future__ import annotations

import math

import numpy as np

from tabletop.photo.rays import FIT_ANGLES, FIT_RAYS, Scale, outline_of, sample_rays, shifted_starts
from tabletop.photo import rimfit
from tabletop.photo.rimfit import HALF_OUTSIDE_MM, half_level_centres
from tabletop.photo.uncertainty import disc_centre
from tabletop.photo.values import Rectified

OUTER_GAP_MM = (2.0, 12.0)
"""A larger rim is looked for this much (radius) beyond a detected one."""
OUTER_SUPPORT = 0.8
"""A larger rim must be crossed on this fraction of the rays ..."""
OUTER_WEAK_SUPPORT = 0.7
"""... or on this fraction where a disc of its size has an area fit (:func:`disc_centre`), whose distance from the
rim's centre then counts in its sigma. A figure over a dark base on a dark mat hides a quarter of its rim, and
without this the figure's outline was reported as the base, millimetres off with a small sigma."""
LOOSE_SUPPORT, LOOSE_RMS_MM = 0.6, 0.6
"""A larger rim round a detection lifted over the bar by the half-level fit (see ``FAINT_FLOOR``) vetoes it at this,
if crossed on at least as many rays as the detection's own rim."""
OUTER_HOPE = 0.6
"""The coarse pass of the larger-rim search keeps starts crossing on this fraction of its rays for the full one."""
OUTER_SHIFT_MM = 4.0
"""Spacing of the shifted starts round an unsure detection."""
OUTER_SHIFT_STEPS = 2
"""Unsure detections: starts on a (2·steps + 1)² grid of this spacing (a start within ~2 mm of the rim's centre converges)."""
OUTER_UNSURE = 0.5
"""Detections below this confidence have their larger rim looked for round shifted centres too."""
OUTER_MIN_SPAN = 1.0
"""Inside and outside a larger rim must differ by this much (whitened: the mat's own texture is about 1),
or the half-level fit only traces the mat's noise, which crosses its own median on every ray. The least
seen round a true base in the benchmark's photos was 1.6; the median round a circle on bare mat 0.3."""
OUTER_RMS_MM = 0.6
"""A larger rim's crossings may scatter about its circle by at most this much: a large base of the mat's colour is
crossed with a scatter of over half a millimetre (a bright figure's outline on it scatters less, and would win)."""
OUTER_DISC_RMS_MM = 0.4
"""A larger rim found from an area fit's start may scatter by at most this much: the area fit starts near any
disc of the base's colour, a shadow round a base too (such a rim, one size too large, was crossed at about
0.5 mm; true rims found this way at about 0.2 mm)."""
OUTER_DISC_PX_PER_MM = 2.0
"""Resolution of the area fit that starts the larger-rim search (a start within a millimetre converges)."""
OUTER_STAY_MM = 1.0
"""The larger rim's half-level radius must stay this close to the catalogue radius it was started at."""


def _rim_search(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                scale: Scale, stay: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The half-level fit (``OUTER_MIN_SPAN``, three passes) from many starts of a rim search: coarse first (half the
    rays, twice the step: most starts find nothing), then in full only the hopeful ones, crossing on ``OUTER_HOPE``
    of the coarse rays (and, with ``stay``, ending that close to the radius they started at). Returns the hopeful
    starts' indices and their full fits' centres, radii, rms and rays."""
    _, coarse_r, coarse_rms, coarse_rays, _ = half_level_centres(rect, centres, radii, mat_colour, whiten, scale, OUTER_MIN_SPAN,
                                                               passes=3, rays=FIT_RAYS // 2, step=0.2, screen=True)
    hope = np.isfinite(coarse_rms) & (coarse_rays >= OUTER_HOPE * (FIT_RAYS // 2))
    if stay is not None:
        hope &= np.abs(coarse_r - radii) <= stay
    hopeful = np.nonzero(hope)[0]
    if not len(hopeful):
        empty = np.zeros(0)
        return hopeful, np.zeros((0, 2)), empty, empty, empty
    out_c, out_r, out_rms, out_rays, _ = half_level_centres(rect, centres[hopeful], radii[hopeful], mat_colour[hopeful], whiten, scale,
                                                             OUTER_MIN_SPAN, passes=3)
    return hopeful, out_c, out_r, out_rms, out_rays


def outer_rims(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                scale: Scale, sizes: np.ndarray, unsure: np.ndarray,
                loose: np.ndarray | None = None) -> list[tuple[np.ndarray, float, float, float, float, float, bool] | None]:
    """Per detection, a larger catalogue rim round it seen on most rays, if any: (centre, catalogue radius,
    fitted radius, rms, rays, how far its area fit lies: 0 unless it was seen on fewer than ``OUTER_SUPPORT`` of the
    rays, ``OUTER_WEAK_SUPPORT`` or more, and not loosely; whether it was seen loosely).

    A bright miniature on a base of nearly the mat's colour has a stronger outline than the base's rim, and
    the search can settle on the outline. The base's top is still a colour of its own, all round, just
    inside its rim: started at each larger catalogue radius, the half-level fit (:func:`half_level_centres`)
    finds that rim on most rays, with little scatter, and stays there; round a true rim it finds nothing
    larger (it is drawn back to the rim it knows, or crosses on few rays). A miniature need not stand in its
    base's middle: round the ``unsure`` detections the fit is also started from a grid of centres up to
    ``OUTER_SHIFT_STEPS`` × ``OUTER_SHIFT_MM`` away (three passes converge from about 2 mm off), and from where
    the larger disc covers most of the base's colour (:func:`disc_centre`), a rim found from there scattering at
    most ``OUTER_DISC_RMS_MM``. Round the ``loose`` ones a rim seen on fewer rays, with more scatter, counts
    (``LOOSE_SUPPORT``, ``LOOSE_RMS_MM``) from the grid's starts; from the area fit's, only as round the others.
    """
    found: list[tuple[np.ndarray, float, float, float, float, float, bool] | None] = [None] * len(centres)
    coarse = scale.coarse  # the grid's starts cost seconds there, and its bands blur past small bases
    grid = OUTER_SHIFT_MM * np.arange(-OUTER_SHIFT_STEPS, OUTER_SHIFT_STEPS + 1)
    shifts = [(0.0, 0.0)] + [(float(dx), float(dy)) for dx in grid for dy in grid if (dx, dy) != (0.0, 0.0)]
    pairs = [(k, float(rc), dx, dy) for k in range(len(centres)) for rc in sizes / 2
             if radii[k] + OUTER_GAP_MM[0] <= rc <= radii[k] + OUTER_GAP_MM[1]
             for dx, dy in (shifts if unsure[k] and not coarse else shifts[:1])]
    from_disc = len(pairs)  # pairs from here on start at an area fit
    if not coarse:
        # And round unsure ones from where the larger disc covers most of the base's colour: on a blotchy mat the
        # fit converges from nearer than the grid's 2 mm (the grid's nearest start can be 1.7 mm off and cross on too
        # few rays; the area fit starts within a fraction of a millimetre). Round the loose ones too, judged as round
        # the others: a broad figure on a dark base on a dark mat is otherwise lifted as a smaller base round itself.
        for k, rc in [(k, float(rc)) for k in np.nonzero(unsure)[0] for rc in sizes / 2
                      if radii[k] + OUTER_GAP_MM[0] <= rc <= radii[k] + OUTER_GAP_MM[1]]:
            disc = disc_centre(rect, centres[k], rc, mat_colour[k], whiten, iterations=1, px_per_mm=OUTER_DISC_PX_PER_MM)
            if disc is not None:
                pairs.append((int(k), rc, float(disc[0] - centres[k][0]), float(disc[1] - centres[k][1])))
    if not pairs:
        return found
    rows, starts, moved = shifted_starts(centres, pairs)
    hopeful, out_c, out_r, out_rms, out_rays = _rim_search(rect, moved, starts, mat_colour[rows], whiten, scale, OUTER_STAY_MM + 0.5)
    if not len(hopeful):
        return found
    rows, starts, by_area = rows[hopeful], starts[hopeful], hopeful >= from_disc
    # Per detection the rim crossed on the most rays, one judged as round the others before any seen loosely: that one
    # measures the base, a loose one can only veto (else a loose rim crossed on a few more rays hides the base's own).
    best: dict[int, tuple[tuple[bool, float], tuple[np.ndarray, float, float, float, float, float, bool]]] = {}
    for j, k in enumerate(rows.tolist()):
        lax = loose is not None and bool(loose[k]) and not by_area[j]
        if not (np.isfinite(out_rms[j]) and out_rms[j] <= (LOOSE_RMS_MM if lax else OUTER_DISC_RMS_MM if by_area[j] else OUTER_RMS_MM)
                and out_rays[j] >= (LOOSE_SUPPORT if lax else OUTER_WEAK_SUPPORT) * FIT_RAYS):
            continue
        if abs(out_r[j] - starts[j]) > OUTER_STAY_MM:
            continue  # drawn back inwards (to the known rim, or a shadow round it): no larger rim here
        if math.hypot(*(out_c[j] - centres[k])) > starts[j] - radii[k] / 2:
            continue  # what was found must stand on it (a figure may reach over the rim, not stand beside it)
        # Starts 1 mm apart (28, 30, 32 mm) can settle on one rim: it is the catalogue size nearest the fit.
        snapped = float(sizes[np.argmin(np.abs(sizes / 2 - out_r[j]))]) / 2
        rank = (not lax, float(out_rays[j]))
        if snapped <= radii[k] or (k in best and rank <= best[k][0]):
            continue
        apart = 0.0
        if not lax and out_rays[j] < OUTER_SUPPORT * FIT_RAYS:
            disc = None if coarse else disc_centre(rect, out_c[j], snapped, mat_colour[k], whiten)
            if disc is None:
                continue  # nothing of the base's colour inside it: a rim traced through the mat's texture
            apart = float(np.linalg.norm(disc - out_c[j]))
        best[k] = (rank, (out_c[j], snapped, float(out_r[j]), float(out_rms[j]), float(out_rays[j]), apart, lax))
    for k, (_, hit) in best.items():
        found[k] = hit
    return found


INNER_RMS_MM = 0.3
"""A smaller rim inside an unsure detection replaces it only if its crossings scatter this little: a base's rim
is round (about 0.1 mm), a miniature's outline is not."""
INNER_MAT_GAP = 3.0
"""... and if just outside it is the mat: the whitened distance of the outside band's median colour from the mat's
at most this (the mat's own texture is about 1; a true rim's about 2). A miniature's outline on its base has the base
outside it."""
INNER_SHIFT_MM = 2.0
"""Spacing of the 3x3 grid of starts of the smaller-rim search."""


def inner_rims(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                scale: Scale, sizes: np.ndarray) -> list[tuple[np.ndarray, float, float, float, float] | None]:
    """Per detection, a smaller catalogue rim inside it, round, clean and with the mat outside, if any:
    (centre, catalogue radius, fitted radius, rms, rays).

    A weapon or a shadow reaching well past a base's rim can pull the search onto a larger circle round
    base and weapon (a 25 mm base found as 30 mm, 3 mm off). The fit at that size looks within
    0.8 mm of its radius and never sees the true rim; the half-level fit started at each smaller size, from
    a small grid of centres, finds it on most rays with little scatter.
    """
    found: list[tuple[np.ndarray, float, float, float, float] | None] = [None] * len(centres)
    if scale.coarse:
        return found
    grid = INNER_SHIFT_MM * np.arange(-1, 2)
    shifts = [(float(dx), float(dy)) for dx in grid for dy in grid]
    pairs = [(k, float(rc), dx, dy) for k in range(len(centres)) for rc in sizes / 2
             if 0.6 * radii[k] <= rc <= radii[k] - OUTER_GAP_MM[0] for dx, dy in shifts]
    if not pairs:
        return found
    rows, starts, moved = shifted_starts(centres, pairs)
    hopeful, out_c, out_r, out_rms, out_rays = _rim_search(rect, moved, starts, mat_colour[rows], whiten, scale)
    if not len(hopeful):
        return found
    rows = rows[hopeful]
    ok = np.nonzero(np.isfinite(out_rms) & (out_rms <= INNER_RMS_MM) & (out_rays >= OUTER_SUPPORT * FIT_RAYS))[0]
    if not len(ok):
        return found
    angles = FIT_ANGLES
    extra = outline_of(rect, out_c[ok], out_r[ok], angles)
    t = (out_r[ok, None] + extra)[:, :, None] + np.arange(HALF_OUTSIDE_MM[0], HALF_OUTSIDE_MM[1] + 1e-9, 0.1)[None, None, :]
    z = (sample_rays(rect, out_c[ok], t, angles) - mat_colour[rows[ok], None, None, :]) @ whiten.T
    gap = np.linalg.norm(np.median(z.reshape(len(ok), -1, z.shape[3]), axis=1), axis=1)
    best: dict[int, tuple[float, tuple[np.ndarray, float, float, float, float]]] = {}
    for j, g in zip(ok.tolist(), gap.tolist()):
        k = int(rows[j])
        if g > INNER_MAT_GAP or math.hypot(*(out_c[j] - centres[k])) + out_r[j] > radii[k] + 1.5:
            continue  # the base outside it, not the mat; or not inside the detection
        snapped = float(sizes[np.argmin(np.abs(sizes / 2 - out_r[j]))]) / 2
        if abs(2 * (out_r[j] - snapped)) > rimfit.HALF_SIZE_MARGIN_MM or snapped > radii[k] - OUTER_GAP_MM[0]:
            continue  # not clearly one size, or not clearly smaller (the same rim, a bevel's half-way level)
        if k not in best or out_rms[j] < best[k][0]:
            best[k] = (float(out_rms[j]), (out_c[j], snapped, float(out_r[j]), float(out_rms[j]), float(out_rays[j])))
    for k, (_, hit) in best.items():
        found[k] = hit
    return found
