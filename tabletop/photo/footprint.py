"""Stage 5, the footprint: each base's height and bevel measured on its own outline, and its footprint's centre with an
uncertainty that includes theirs.

A base is a short solid: its footprint (a disc of the catalogue radius R on the mat) and its top rim (R less the bevel,
``height`` mm up). Seen from the camera, the top rim lies shifted away from it by height x cot(elevation) and the
outline is the envelope of the two (``rays.outline_extra``): the footprint's edge towards the camera, the top rim's
away from it where it reaches past the footprint. Bases differ in height (3-5 mm) and bevel (none to 2.5 mm), and an
error of a millimetre in height moves a centre fitted with the wrong one by up to half the shift, about 0.7 mm at 35°.
So both are fitted per base, with the catalogue's as priors (Gauss-Newton on the outline's distance along 120 rays,
Tukey-weighted): the footprint's centre is then measured where the outline shows the footprint itself, and its
covariance, with the height and bevel marginalised, is the centre's uncertainty.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from tabletop.photo import base_profile
from tabletop.photo.ground import GroundMap
from tabletop.photo.rays import (CORRELATION, FIT_ANGLES, FIT_RAYS, Scale, nan_row_median, outline_extra, outline_of, row_median,
                                 sample_rays)
from tabletop.photo.rimfit import rim_points, usable_rays
from tabletop.photo.values import Rectified

HEIGHT_PRIOR_SIGMA_MM = 1.0
"""How far a base's height may be from its catalogue size's (1-sigma): plastic bases stand 3-5 mm."""
BEVEL_PRIOR_SIGMA_MM = 0.8
"""How far its bevel may be from the catalogue's (1-sigma): flat-sided to 2.5 mm slopes."""
GIVEN_HEIGHT_SIGMA_MM = 0.2
"""The height's 1-sigma when the user gave it (``--base-height``): measured with a ruler, on a base or two."""
PROFILE_CONFLICT_SIGMAS = 2.0
"""A fitted height or bevel further than this many of its prior's sigmas from the prior (the catalogue's, or the height
given) is a conflict between the outline and the base's profile, not a measurement of an unusual base. Most often the
side face towards the camera, in shadow or of the mat's colour, was read as mat and the top rim's near edge taken for
the footprint's: the outline is then a flat disc's, which the fit explains as a base under 1.5 mm tall (3-4.5 mm
bases) or, bevelled by more than the rim's shift, as one whose footprint is the whole outline (bevels of 3-4 mm). Either
way the centre is off by most of the shift, and the fit's own covariance (of a profile that fits well) does not know."""
FOOTPRINT_FIRST_HALF_MM, FOOTPRINT_HALF_MM = 2.5, 1.5
"""The outline is looked for this far either side of where the catalogue's profile puts it (a straight-sided 5 mm base
reaches 2 mm further than the catalogue's at 35°), then this far about the profile fitted."""
PROFILE_STEP_MM = 0.05
"""Finite-difference step for the outline's change with height and bevel."""
ITERATIONS = 5
MEASUREMENTS = 2
"""How many times the outline is measured: about the catalogue's profile, then about the one fitted."""
MIN_RAYS = 40
LOSS_SCALE_MM = 0.6
"""Residual (mm) past which a ray counts fully against a fitted profile when sizes are compared (a few times a sharp
rim's scatter)."""
"""A footprint fit on fewer rays than this leaves the detection as the earlier stages measured it."""
MAX_MOVE_MM = 2.5
"""A footprint fit that would move the centre further than this (a figure's outline drew it) is not taken."""
SCATTER_FLOOR_MM = 0.08
"""The least residual scatter the Tukey weights assume (a sharp rim's sub-pixel edges still scatter this much)."""
RING_GAP_MM, RING_WIDTH_MM = 2.0, 6.0
"""The mat round a base is read on a ring this far beyond its outline (past its contact shadow and blur), this wide:
near enough to be the ground the base stands on, wide enough for a few hundred samples."""
RING_CORE_MADS = 3.0
"""Ring samples further than this many robust sigmas (1.4826 MAD, per channel) from the ring's median are not the mat's
own variation (a printed line, a neighbour, a figure's shadow) and do not count in its spread."""
RING_RAY_SPAN = 11
"""Neighbouring rays (of ``FIT_RAYS``, 33° here) whose median is the mat's colour on a ray: wide enough that a printed
line or a neighbour crossing a few rays does not set it, narrow enough to follow the mat's shading round the base."""
RING_MAT_UNITS = 3.0
"""A ray's ring colour further than this from the table's mat colour, in the table's whitened units, is not the mat."""
GROUND_REACH_MM = 14.0
"""How far beyond the ring's inner edge the surface each ray of the ring lies on is looked for, past the base's own
edge and contact shadow in the ground map (``ground.GroundMap``: 2 mm pixels, a 10 mm median)."""
RING_MIN_RAYS = 30
"""A ring with fewer rays on the mat than this (of ``FIT_RAYS``) is too little of the mat to measure its spread."""
NOISE_FLOOR_GREY = 1.0
"""Variance (grey levels²) added to every channel of the ring's spread: sensor noise and JPEG rounding, so a very
even ring does not make every speck a rim."""


@dataclass(frozen=True, eq=False)
class FootprintFit:
    """Per detection: the footprint's centre (mm), its 2x2 covariance (mm²; rim fit, height and bevel), the fitted height
    and bevel (mm), the residual RMS (mm), the rays used, and whether the fit was taken."""

    centres: np.ndarray
    covariance: np.ndarray
    heights: np.ndarray
    bevels: np.ndarray
    rms: np.ndarray
    rays: np.ndarray
    taken: np.ndarray
    loss: np.ndarray
    radii: np.ndarray
    """The catalogue radius each was fitted at."""
    profile_conflict: np.ndarray
    """Whether the fitted height or bevel lies over ``PROFILE_CONFLICT_SIGMAS`` of its prior's sigmas from the prior."""
    ground_rays: np.ndarray | None = None
    """How many rays of the ring round each base found the mat's colour there (``ring_mat``)."""
    floor_rays: np.ndarray | None = None
    """How many rays of the ring round each base met the table's plane first, whatever its colour (``ring_mat``); None
    where the table's surfaces were not given."""


def _extra(rect: Rectified, centres: np.ndarray, radii: np.ndarray, heights: np.ndarray, bevels: np.ndarray,
           angles: np.ndarray) -> np.ndarray:
    cam = rect.camera
    assert cam is not None
    shift = cam.rim_shift(centres, heights)
    top = np.maximum(radii - bevels, 0.0) * cam.rim_scale(heights)
    return outline_extra(angles, radii, shift, top)


def ring_mat(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray,
             whiten: np.ndarray, ground_colour: np.ndarray | None = None,
             surfaces: GroundMap | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """The mat round each base, from a ring beyond its outline: its colour on each ray [n, rays, 3], the whitening
    [n, 3, 3] of its variation about that colour, robust (samples beyond ``RING_CORE_MADS`` left out), and how many of
    the rays [n] found the mat there (the ground the base stands on, if it stands on the table), and how many met the
    table's plane first whatever its colour (None without ``surfaces``): the mat's colour by
    ``mat_colour`` or, where given, by ``ground_colour`` [n, 3] (the mat's at another scale: a large base's wide
    estimate lags the light's fall across the table, which the narrow one follows).

    The table's whitening is the mat's variation over the whole table about a 124 mm median (its blotches, shading and,
    on a printed mat, its lines), which on a mat printed with dark contour lines spans 40-45 grey levels along the
    lightness: a base's dark side face then lies within two or three of its units of the mat and passes for mat, and
    the footprint is fitted on the top rim. Round one base, on each side of it, the mat varies far less; the printed
    lines, a minority of the ring, fall outside its core. On a ray the mat's colour is the ring's median along it and
    across ``RING_RAY_SPAN`` neighbouring rays, where that is the mat by the table's model (``mat_colour``, ``whiten``:
    within ``RING_MAT_UNITS``); where it is not (a neighbour in contact, a figure, a terrain piece) it is the table's,
    and those rays do not count in the spread. A ring with too few rays on the mat keeps the table's whitening.

    Where the table's ``surfaces`` are given, a ray counts as ground only where the first surface beyond the ring's inner
    edge lies on the table's plane (``ground.floor_regions``): the mat's colour is a local median (124 mm), which on a roof or a terrain piece's top filling
    most of its window is that surface's colour, so the colour alone passes a base standing there."""
    angles = FIT_ANGLES
    extra = outline_of(rect, centres, radii, angles)  # [n, rays]
    steps = np.linspace(0.0, RING_WIDTH_MM, 13)
    t = (radii[:, None, None] + extra[:, :, None] + RING_GAP_MM + steps[None, None, :])
    samples = sample_rays(rect, centres, t, angles).astype(np.float64)  # [n, rays, m, c]
    # Medians along rows of their own (``rays.row_median``: ``np.median``'s values, without its copies and NaN pass).
    along = row_median(np.moveaxis(samples, 2, 3))  # [n, rays, c]
    half = RING_RAY_SPAN // 2
    wrapped = np.concatenate([along[:, -half:], along, along[:, :half]], axis=1)
    ring = row_median(np.lib.stride_tricks.sliding_window_view(wrapped, RING_RAY_SPAN, axis=1))  # [n, rays, c]
    table = np.asarray(mat_colour, dtype=np.float64)[:, None, :]
    on_mat = np.linalg.norm((ring - table) @ np.asarray(whiten, dtype=np.float64).T, axis=2) < RING_MAT_UNITS
    colours = np.where(on_mat[..., None], ring, table)
    c = samples.shape[3]
    whitens = np.repeat(np.asarray(whiten, dtype=np.float64)[None], len(centres), axis=0)
    for k in range(len(centres)):
        if on_mat[k].sum() < RING_MIN_RAYS:
            continue
        residual = (samples[k][on_mat[k]] - colours[k][on_mat[k]][:, None, :]).reshape(-1, c)
        # Per channel in a row of its own: the medians and the core's test (``np.all`` over a row of three is a strided
        # reduction) as ``np.median(residual, axis=0)`` and ``np.all(..., axis=1)`` give them.
        centre = row_median(np.ascontiguousarray(residual.T))
        apart = np.abs(residual - centre)
        mad = 1.4826 * row_median(np.ascontiguousarray(apart.T)) + 0.5
        close = apart < RING_CORE_MADS * mad
        core = residual[np.logical_and.reduce([close[:, j] for j in range(c)])]
        cov = (np.cov(core.T) if len(core) > 10 else np.diag(mad ** 2)).reshape(c, c)
        vals, vecs = np.linalg.eigh(cov + NOISE_FLOOR_GREY * np.eye(c))
        whitens[k] = vecs @ np.diag(vals ** -0.5) @ vecs.T
    ground = on_mat
    if ground_colour is not None:
        near = np.asarray(ground_colour, dtype=np.float64)[:, None, :]
        ground = on_mat | (np.linalg.norm((ring - near) @ np.asarray(whiten, dtype=np.float64).T, axis=2) < RING_MAT_UNITS)
    floor_rays = None
    if surfaces is not None:
        beyond = t[:, :, :1] + np.linspace(0.0, GROUND_REACH_MM, 15)[None, None, :]
        floor = surfaces.first_surface_is_floor(centres[:, None, None, 0] + beyond * np.cos(angles)[None, :, None],
                                                centres[:, None, None, 1] + beyond * np.sin(angles)[None, :, None])
        ground = ground & floor
        floor_rays = floor.sum(axis=1)
    return colours.astype(np.float32), whitens.astype(np.float32), ground.sum(axis=1), floor_rays


def fit_footprints(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                   scale: Scale, sizes: np.ndarray | None = None,
                   ground_colour: np.ndarray | None = None, surfaces: GroundMap | None = None) -> FootprintFit | None:
    """Height, bevel and footprint centre of each base from its outline, at its catalogue radius (``radii``) or, given
    the catalogue's ``sizes`` (diameters), at whichever of it and its neighbouring sizes the outline fits best; None
    where the photo has no camera or the bases are flat discs (``--base-height 0``): the earlier stages measured the
    footprint then.

    The size is chosen here again because the earlier stages fitted the outline with the catalogue's profile: a base
    taller or less bevelled than that reaches further from the camera, and its free radius came out a size too large."""
    n = len(centres)
    if rect.camera is None or n == 0 or rect.base_height_mm == 0.0:
        return None
    mat_colour, whitens, ground_rays, floor_rays = ring_mat(rect, centres, radii, mat_colour, whiten, ground_colour, surfaces)
    if sizes is None:
        return replace(_fit_at(rect, centres, radii, mat_colour, whitens, scale), ground_rays=ground_rays, floor_rays=floor_rays)
    catalogue = np.sort(np.asarray(sizes, dtype=float)) / 2
    at = np.array([int(np.argmin(np.abs(catalogue - r))) for r in radii])
    options = [(k, catalogue[j]) for k in range(n) for j in (at[k] - 1, at[k], at[k] + 1) if 0 <= j < len(catalogue)]
    rows = np.array([k for k, _ in options])
    fit = _fit_at(rect, centres[rows], np.array([r for _, r in options]), mat_colour[rows], whitens[rows], scale)
    best: dict[int, int] = {}
    for j, k in enumerate(rows.tolist()):
        if fit.taken[j] and (k not in best or fit.loss[j] < fit.loss[best[k]]):
            best[k] = j
    pick = np.array([best.get(k, next(j for j, kk in enumerate(rows.tolist()) if kk == k and options[j][1] == radii[k]))
                     for k in range(n)])
    return FootprintFit(fit.centres[pick], fit.covariance[pick], fit.heights[pick], fit.bevels[pick], fit.rms[pick],
                        fit.rays[pick], fit.taken[pick], fit.loss[pick], fit.radii[pick], fit.profile_conflict[pick],
                        ground_rays, floor_rays)


def _rim_points_each(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray,
                     whitens: np.ndarray, half: float, scale: Scale, extra: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`rim_points` with each base's own whitening: outline distances and evidence [n, rays]."""
    outline = np.empty(extra.shape)
    evidence = np.empty(extra.shape)
    outline[...], evidence[...], _ = rim_points(rect, centres, radii, mat_colour, whitens, half, scale, extra)
    return outline, evidence


def _fit_at(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whitens: np.ndarray,
            scale: Scale) -> FootprintFit:
    n = len(centres)
    h0, b0 = base_profile(2 * radii, rect.base_height_mm)
    h_sigma = GIVEN_HEIGHT_SIGMA_MM if rect.base_height_mm is not None else HEIGHT_PRIOR_SIGMA_MM
    angles = FIT_ANGLES
    prior = np.zeros((4, 4))
    prior[2, 2], prior[3, 3] = 1 / h_sigma ** 2, 1 / BEVEL_PRIOR_SIGMA_MM ** 2
    origin = centres.copy()
    params = np.column_stack([np.zeros(n), np.zeros(n), h0, b0])  # dx, dy, height, bevel
    for sweep in range(MEASUREMENTS):
        # Measured about the profile fitted so far: a base far from the catalogue's profile is found on the second look.
        if sweep:
            origin = origin + params[:, :2]
            params[:, :2] = 0.0
        extra_now = _extra(rect, origin, radii, params[:, 2], params[:, 3], angles)
        half = FOOTPRINT_FIRST_HALF_MM if sweep == 0 else FOOTPRINT_HALF_MM
        outline, evidence = _rim_points_each(rect, origin, radii, mat_colour, whitens, half, scale, extra_now)
        usable = usable_rays(evidence)
        weights = usable.astype(float)
        params, weights, sigma2, cov = _gauss_newton(rect, origin, radii, outline, usable, weights, params, prior,
                                                     np.column_stack([h0, b0]), angles)
    rays = (weights > 0.1).sum(axis=1)
    rms = np.sqrt(sigma2)
    # Neighbouring rays see overlapping pixels (blur, JPEG blocks): the fit's own covariance is too small by that much.
    centre_cov = cov[:, :2, :2] * CORRELATION ** 2
    final = origin + params[:, :2]
    moved = np.hypot(*(final - centres).T)
    taken = (rays >= MIN_RAYS) & (moved <= MAX_MOVE_MM) & np.all(np.isfinite(params), axis=1)
    # How badly the outline misses the fitted profile on all the rays that saw an edge (Tukey's loss at a fixed scale,
    # so fits of different sizes compare: a ray the profile misses by more than a few scatters costs the same, 1).
    extra = _extra(rect, origin, radii, params[:, 2], params[:, 3], angles)
    res = outline - (radii[:, None] + params[:, 0, None] * np.cos(angles) + params[:, 1, None] * np.sin(angles) + extra)
    u = np.minimum(np.abs(res) / LOSS_SCALE_MM, 1.0)
    loss = np.sum(np.where(usable, 1 - (1 - u * u) ** 3, 1.0), axis=1)
    conflict = ((np.abs(params[:, 2] - h0) > PROFILE_CONFLICT_SIGMAS * h_sigma)
                | (np.abs(params[:, 3] - b0) > PROFILE_CONFLICT_SIGMAS * BEVEL_PRIOR_SIGMA_MM))
    return FootprintFit(np.where(taken[:, None], final, centres), centre_cov, params[:, 2], params[:, 3], rms, rays, taken,
                        loss, radii.copy(), conflict)


def _gauss_newton(rect: Rectified, centres: np.ndarray, radii: np.ndarray, outline: np.ndarray, usable: np.ndarray,
                  weights: np.ndarray, params: np.ndarray, prior: np.ndarray, prior_mean: np.ndarray,
                  angles: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tukey-weighted Gauss-Newton of (dx, dy, height, bevel) on the outline distances, the priors on height and bevel:
    the parameters, the last weights, the residual variance and the parameters' covariance."""
    n = len(centres)
    cos, sin = np.cos(angles), np.sin(angles)
    params = params.copy()
    sigma2 = np.full(n, 0.25)
    cov = np.zeros((n, 4, 4))
    for _ in range(ITERATIONS):
        h, b = params[:, 2], params[:, 3]
        e = _extra(rect, centres, radii, h, b, angles)
        de_h = (_extra(rect, centres, radii, h + PROFILE_STEP_MM, b, angles) - e) / PROFILE_STEP_MM
        de_b = (_extra(rect, centres, radii, h, b + PROFILE_STEP_MM, angles) - e) / PROFILE_STEP_MM
        model = radii[:, None] + params[:, 0, None] * cos + params[:, 1, None] * sin + e
        res = outline - model
        # A base with no ray in use: NaN, handled below (``rays.nan_row_median``: ``np.nanmedian``'s values, without
        # its masked-array path for rows this short).
        mad = nan_row_median(np.where(usable & (weights > 0), np.abs(res), np.nan))
        spread = np.where(np.isfinite(mad), np.maximum(1.4826 * mad, SCATTER_FLOOR_MM), 1.0)
        u = res / (4.685 * spread[:, None])
        weights = np.where(usable & (np.abs(u) < 1), (1 - u * u) ** 2, 0.0)
        jac = np.stack([np.broadcast_to(cos, res.shape), np.broadcast_to(sin, res.shape), de_h, de_b], axis=2)  # [n, rays, 4]
        sigma2 = np.sum(weights * res * res, axis=1) / np.maximum(np.sum(weights, axis=1), 1e-9) + 1e-6
        jtwj = np.einsum("nr,nri,nrj->nij", weights, jac, jac) / sigma2[:, None, None]
        jtwr = np.einsum("nr,nri,nr->ni", weights, jac, res) / sigma2[:, None]
        pull = (prior_mean - params[:, 2:]) * np.diag(prior)[2:]
        rhs = jtwr + np.column_stack([np.zeros((n, 2)), pull])
        normal = jtwj + prior[None] + 1e-9 * np.eye(4)
        step = np.linalg.solve(normal, rhs[..., None])[..., 0]
        params = params + step
        params[:, 2] = np.clip(params[:, 2], 0.0, 3 * prior_mean[:, 0].max() + 1.0)
        params[:, 3] = np.clip(params[:, 3], 0.0, radii / 3)
        cov = np.linalg.inv(normal)
    return params, weights, sigma2, cov


RESCUE_STARTS_MM = (2.5, 5.0)
RESCUE_DIRECTIONS = 8
"""Where a footprint fit is tried again round a detection whose outline its profile explained badly: 8 directions at
each of these distances. The rim fit's circle can sit 3-5 mm off a base whose figure reaches over its rim (it followed
the figure's outline on part of the circle), and a fit started there reads the figure too; one started within
``MAX_MOVE_MM`` of the base's own centre finds its outline."""


def refit_nearby(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                 scale: Scale, sizes: np.ndarray | None, ground_colour: np.ndarray | None, surfaces: GroundMap | None,
                 fit: FootprintFit, which: np.ndarray, rms_bar: np.ndarray) -> FootprintFit:
    """``fit`` with the rows ``which`` replaced by the best of the fits started round them (``RESCUE_STARTS_MM``) whose
    outline the profile explains within ``rms_bar`` [len(which)] mm; the rest unchanged."""
    if not len(which):
        return fit
    turns = np.linspace(0.0, 2 * math.pi, RESCUE_DIRECTIONS, endpoint=False)
    offsets = np.array([(r * math.cos(a), r * math.sin(a)) for r in RESCUE_STARTS_MM for a in turns])
    m = len(offsets)
    rows = np.repeat(which, m)
    starts = (centres[which][:, None, :] + offsets[None]).reshape(-1, 2)
    again = fit_footprints(rect, starts, radii[rows], mat_colour[rows], whiten, scale, sizes,
                           None if ground_colour is None else ground_colour[rows], surfaces)
    if again is None:
        return fit
    fields = {name: np.array(getattr(fit, name), copy=True) for name in (
        "centres", "covariance", "heights", "bevels", "rms", "rays", "taken", "loss", "radii", "profile_conflict",
        "ground_rays", "floor_rays") if getattr(fit, name) is not None and getattr(again, name) is not None}
    reach = max(RESCUE_STARTS_MM) + MAX_MOVE_MM / 2
    for j, k in enumerate(which.tolist()):
        tried = slice(j * m, (j + 1) * m)
        good = (again.taken[tried] & (again.rms[tried] <= rms_bar[j])
                & (np.hypot(*(again.centres[tried] - centres[k]).T) <= reach))
        if good.any():
            best = j * m + int(np.argmin(np.where(good, again.rms[tried], np.inf)))
            for name, values in fields.items():
                values[k] = getattr(again, name)[best]
    return replace(fit, **fields)
