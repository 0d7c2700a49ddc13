"""Stage 2, the rim: which circle a candidate is (a polar search over catalogue radii) and where its rim lies (a
sub-pixel fit on 120 rays), and the half-level fit that measures the same rim where the colour is half-way from the
base's to the mat's."""

from __future__ import annotations

import math

import numpy as np

from tabletop.photo.rays import (EVIDENCE_UNIT, FIT_ANGLES, FIT_RAYS, Scale, centre_spread, less_colour, nan_row_median, outline_of,
                                 rim_evidence, row_median, sample_rays, tukey_circle, whitened)
from tabletop.photo.values import Rectified

SEARCH_RAYS = 48
OFFSETS_MM = np.arange(-3.0, 3.01, 1.0)


def search_circles(rect: Rectified, cand: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
            sizes: np.ndarray, scale: Scale) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per candidate the (centre, catalogue radius) most rays see a rim on, and a larger one nearly as well seen
    if there is one: centres, radii, scores (0..1), and the candidate each came from."""
    n = len(cand)
    angles = np.linspace(0, 2 * math.pi, SEARCH_RAYS, endpoint=False)
    ux, uy = np.cos(angles), np.sin(angles)
    dx, dy = np.meshgrid(OFFSETS_MM, OFFSETS_MM)
    dx, dy = dx.ravel(), dy.ravel()
    proj = dx[:, None] * ux[None, :] + dy[:, None] * uy[None, :]  # [hyp, rays]
    d2 = (dx * dx + dy * dy)[:, None]
    step = 0.4
    radii_all = sizes / 2
    table_s = np.zeros((n, len(radii_all)))
    table_c = np.zeros((n, len(radii_all), 2))
    rays = np.arange(SEARCH_RAYS)
    order = np.argsort(cand[:, 3])
    for chunk in np.array_split(order, max(1, int(math.ceil(n / 150)))):
        if len(chunk) == 0:
            continue
        c = cand[chunk]
        r_top = min(float(np.max(c[:, 3])), float(radii_all[-1]))
        m = int(math.ceil((r_top + 4.0 + scale.gate_mm + 1.0) / step)) + 1
        t = np.broadcast_to(step * np.arange(m, dtype=float), (len(chunk), m))
        # A few candidates at a time, as rim_points reads (each ray's evidence is its own).
        block = max(1, RIM_POINTS_PIECE // (SEARCH_RAYS * m))
        ev = np.concatenate([rim_evidence(sample_rays(rect, c[i:i + block, :2], t[i:i + block], angles), mat_colour[chunk[i:i + block]],
                                          whiten, step, scale.smooth_mm + 0.05, scale.gate_mm)[0] for i in range(0, len(chunk), block)])
        ev_flat = ev.reshape(-1)
        for q, radius in enumerate(radii_all):
            sel = np.nonzero((c[:, 2] <= radius) & (radius <= c[:, 3]))[0]
            if len(sel) == 0:
                continue
            ti = proj + np.sqrt(np.maximum(radius * radius - d2 + proj * proj, 0.0))
            extra = outline_of(rect, c[sel, :2], np.full(len(sel), radius), angles)
            if np.any(extra):
                # A tall base's outline reaches past its footprint away from the camera (its top rim): each ray's
                # distance grows by that reach (the shifted hypotheses' own change of it is far under the grid's step).
                idx = (ti[None, :, :] + extra[:, None, :]) / step
                j0 = np.clip(np.floor(idx).astype(int), 0, m - 2)
                f = np.clip(idx - j0, 0.0, 1.0).astype(np.float32)
                # Read by one flat index into the rays' evidence: the values (and the C order, which the mean over the
                # rays below adds in) of indexing the selected rows' three axes, without copying those rows.
                at = (sel[:, None, None] * SEARCH_RAYS + rays[None, None, :]) * m + j0  # [sel, hyp, rays]
                e = ev_flat[at] * (1 - f) + ev_flat[at + 1] * f
            else:
                idx = ti / step
                j0 = np.clip(np.floor(idx).astype(int), 0, m - 2)
                f = np.clip(idx - j0, 0.0, 1.0).astype(np.float32)
                # (This indexing's result has the selected rows innermost in memory: the mean below adds in that order.)
                e = ev[sel][:, rays[None, :], j0] * (1 - f) + ev[sel][:, rays[None, :], j0 + 1] * f  # [sel, hyp, rays]
            score = np.tanh(e / EVIDENCE_UNIT).mean(axis=2)
            k = np.argmax(score, axis=1)
            table_s[chunk[sel], q] = score[np.arange(len(sel)), k]
            table_c[chunk[sel], q] = c[sel, :2] + np.column_stack([dx[k], dy[k]])
    # The rim is a base's outermost edge: of the circles nearly as well supported as the best, the largest is a rival
    # (a miniature's bright outline on a dark base makes a smaller circle inside it).
    # Radii within a blur's width of the best are the same edge seen through the blur, not an outer one.
    rows_n = np.arange(n)
    q_best = np.argmax(table_s, axis=1)
    best = table_s[rows_n, q_best]
    outer = (table_s >= OUTERMOST_FRACTION * best[:, None]) & (
        radii_all[None, :] >= radii_all[q_best][:, None] + SEPARATE_EDGES * scale.gate_mm)
    has_outer = outer.any(axis=1)
    q = len(radii_all) - 1 - np.argmax(outer[:, ::-1], axis=1)
    # Both go on to the rim fit, which decides: a rim seen all round overrules a ring inside it.
    o = np.nonzero(has_outer)[0]
    return (np.concatenate([table_c[rows_n, q_best], table_c[o, q[o]]]), np.concatenate([radii_all[q_best], radii_all[q[o]]]),
            np.concatenate([best, table_s[o, q[o]]]), np.concatenate([rows_n, o]))


OUTERMOST_FRACTION = 0.8
SEPARATE_EDGES = 1.5
"""Two rims of the search count as separate edges when their radii differ by this many gate lengths."""
LOCATE_INWARD, LOCATE_OUTWARD_MM = 0.85, 0.4
"""The edge is looked for from this fraction of the gate inside the evidence's peak to this far outside it."""
CONTAINING_SUPPORT = 0.85
RIM_POINTS_PIECE = 1 << 16
"""Samples (circles × rays × samples along a ray) :func:`rim_points` reads at a time."""


def usable_rays(evidence: np.ndarray) -> np.ndarray:
    """Per circle's rays ([n, rays] rim evidence, as :func:`rim_points` gives it), those whose outline counts: evidence
    of a rim at all, and not far under the circle's own median (a ray across a figure or a neighbour)."""
    return (evidence > 0.3 * EVIDENCE_UNIT) & (evidence > 0.25 * row_median(evidence)[:, None])


def rim_points(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
               half: float, scale: Scale, extra: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """On FIT_RAYS rays from each centre, the base's outline within ±half of where ``extra`` (its reach past the
    footprint's radius, [n, rays]; the catalogue profile's by default) puts it: (distance along each ray, the rim
    evidence there, the rays' angles). ``whiten``: the mat's whitening, one [3, 3] or one per circle [n, 3, 3].

    On each ray the evidence's peak says which edge is the outline and the steepest fall towards the mat's colour
    near it (sub-sample, by a parabola) says where."""
    angles = FIT_ANGLES
    step = 0.1
    g = scale.gate_mm + 0.5
    m = int(round((2 * half + 2 * g) / step)) + 1
    if extra is None:
        extra = outline_of(rect, centres, radii, angles)  # [n, rays]: the outline's reach past the footprint
    # A few circles at a time: their samples and evidence stay in the cache and in memory already mapped (each ray's
    # points are its own, so they are those of all circles at once).
    block = max(1, RIM_POINTS_PIECE // (FIT_RAYS * m))
    pieces = [_rim_points_of(rect, centres[i:i + block], radii[i:i + block], mat_colour[i:i + block],
                             whiten[i:i + block] if whiten.ndim == 3 else whiten, half, scale, extra[i:i + block], angles, step,
                             g, m) for i in range(0, max(len(centres), 1), block)]
    return np.concatenate([p[0] for p in pieces]), np.concatenate([p[1] for p in pieces]), angles


def _rim_points_of(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                   half: float, scale: Scale, extra: np.ndarray, angles: np.ndarray, step: float, g: float,
                   m: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`rim_points` of some circles: the distances along their rays and the evidence there."""
    t = (radii - half - g)[:, None, None] + extra[:, :, None] + step * np.arange(m)[None, None, :]
    j_lo = int(round(g / step))
    # The evidence is read only in the window below: worked out there alone.
    ev, grad = rim_evidence(sample_rays(rect, centres, t, angles), mat_colour, whiten, step, scale.smooth_mm, scale.gate_mm,
                            within=(j_lo, m - j_lo))
    window = ev[:, :, j_lo:m - j_lo]
    k_ev = np.argmax(window, axis=2) + j_lo
    b = np.take_along_axis(ev, k_ev[..., None], 2)[..., 0]
    # Locate the edge by the steepest fall towards the mat's colour near the evidence's peak, looking further
    # inwards than outwards: the outside gate leans the evidence's peak outwards, by up to the gate's reach
    # on a blurred edge.
    offs = np.arange(-int(round(scale.gate_mm * LOCATE_INWARD / step)), int(round(LOCATE_OUTWARD_MM / step)) + 1)
    jj = np.clip(k_ev[..., None] + offs, 1, m - 2)
    local = np.take_along_axis(grad, jj, 2)
    k = np.take_along_axis(jj, np.argmax(local, axis=2)[..., None], 2)[..., 0]
    a = np.take_along_axis(grad, (k - 1)[..., None], 2)[..., 0]
    c = np.take_along_axis(grad, k[..., None], 2)[..., 0]
    e = np.take_along_axis(grad, (k + 1)[..., None], 2)[..., 0]
    denom = a - 2 * c + e
    shift = np.where(denom < -1e-9, 0.5 * (a - e) / np.where(denom < -1e-9, denom, -1.0), 0.0)
    return t[:, :, 0] + (k + np.clip(shift, -0.5, 0.5)) * step, b


def fit_rims(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
         half: float, scale: Scale) -> tuple[np.ndarray, ...]:
    """One fine pass: rim points on FIT_RAYS rays within ±half of each circle; fixed- and free-radius fits.

    Returns centres (fixed radius), free radii, inlier fractions, residual RMS (mm), median rim evidence and
    the centres' :func:`centre_spread`.
    """
    n = len(centres)
    angles = FIT_ANGLES
    extra = outline_of(rect, centres, radii, angles)
    outline, b, _ = rim_points(rect, centres, radii, mat_colour, whiten, half, scale, extra)
    # The footprint's edge on each ray: where the outline is, less its reach past the footprint.
    rho = outline - extra  # [n, rays]
    ux, uy = np.cos(angles), np.sin(angles)
    usable = usable_rays(b)
    # Rays from a centre within a millimetre of the true one: rho_i = R + dx·cos a_i + dy·sin a_i + noise,
    # linear in (R, dx, dy). Tukey-weighted least squares (IRLS), all candidates at once.
    design = np.column_stack([np.ones(FIT_RAYS), ux, uy])  # [rays, 3]
    # Each circle's median over its usable rays (no distance is NaN: the sorted rows' middles are np.median's).
    r0 = np.where(usable.any(axis=1), nan_row_median(np.where(usable, rho, np.nan)), radii)
    params, weights = tukey_circle(rho, usable, design, np.column_stack([r0, np.zeros(n), np.zeros(n)]))
    # The same weights with the radius held at the catalogue size.
    fixed_rhs = rho - radii[:, None]
    ata2 = np.einsum("nk,ki,kj->nij", weights, design[:, 1:], design[:, 1:]) + 1e-9 * np.eye(2)
    atb2 = np.einsum("nk,ki,nk->ni", weights, design[:, 1:], fixed_rhs)
    delta = np.linalg.solve(ata2, atb2[..., None])[..., 0]
    res = fixed_rhs - delta @ design[:, 1:].T
    inlier = weights > 0.1
    count = inlier.sum(axis=1)
    support = count / FIT_RAYS
    with np.errstate(all="ignore"):
        rms = np.sqrt(np.sum(np.where(inlier, res * res, 0.0), axis=1) / count)
        strength = np.where(count > 0, nan_row_median(np.where(inlier, b, np.nan)), 0.0)
    rms = np.where(count >= 12, rms, np.inf)
    return centres + delta, params[:, 0], support, rms, strength, centre_spread(inlier, design[:, 1:])


HALF_INSIDE_MM = (2.5, 1.0)
"""The base's own colour is read on a band this far inside the fitted rim (outer, inner edge)."""
HALF_OUTSIDE_MM = (1.5, 3.0)
"""The mat's colour next to the base is read on a band this far outside it."""
HALF_REACH_MM = 1.5
"""A ray's half-level crossing counts only this close to the fitted rim."""
HALF_MIN_RAYS = 30
"""Fewer crossings than this and the half-level fit does not move the centre (the first pass may start
a millimetre off, where a faint base is crossed on few rays; the second, re-centred, on many)."""
HALF_MAX_MOVE_MM = 1.5
"""On a coarse photo the half-level centre is taken only this close to the rim fit's (a bevel pulled that by up
to 1.3 mm; on a 1200x900 photo the half-level fit moved a 40 mm base 1.9 mm the wrong way)."""
HALF_MAX_MOVE_FINE_MM = 3.5
"""Elsewhere, this close: a rim fit at a size too large (a weapon past a 25 mm base's rim sized it 28 mm) can sit
1.5-1.8 mm off, its half-level fit 0.04-0.13 mm (2.5 mm on 155 photos: every half-level centre taken 1.5-3.5 mm from
the rim fit's was the nearer to the truth, 10 of 10). A rim fit drawn aside by a weapon and a dark patch of mat
together can sit 3 mm off with a small scatter while its half-level fit, crossing on nearly every ray, is right."""
HALF_SIZE_MARGIN_MM = 0.5
"""Where the half-level centre is taken, its diameter sets the catalogue size if it lies this close to one. On
155 photos its diameter was 0.03 mm too large in the median (5-95 %: -0.27 to +0.39 mm), the rim fit's free
one 0.19 mm too small (-0.62 to +0.11 mm); where the two snapped differently and the half-level one was this
close to a size, it was right 27 times of 32 and the rim fit's never."""
HALF_LEVEL_PIECE = 1 << 16
"""Samples (circles × rays × samples along a ray) a pass of the half-level fit reads and fits at a time."""
HALF_MIN_SUPPORT = 0.5
"""A detection whose half-level crossing is kept on fewer than this fraction of its rays is dropped: on the
benchmark's 55 photos every true base kept at least 63 %, a circle fitted round a miniature on a base of
the mat's own colour 27 %."""



def snapped_radii(free_radii: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The catalogue radius (of diameters ``sizes``) nearest each free fit's radius."""
    return sizes[np.argmin(np.abs(sizes[None, :] - 2 * free_radii[:, None]), axis=1)] / 2


def fit_rims_at(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                scale: Scale) -> tuple[np.ndarray, ...]:
    """The rims fitted again at new radii (a snapped size): a pass within ±1 mm, then one within ±0.8 mm from its
    centres; returns as :func:`fit_rims`."""
    first = fit_rims(rect, centres, radii, mat_colour, whiten, 1.0, scale)
    return fit_rims(rect, first[0], radii, mat_colour, whiten, 0.8, scale)

def half_level_centres(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray,
                        whiten: np.ndarray, scale: Scale, min_span: float | np.ndarray = 1e-6, passes: int = 2, rays: int = FIT_RAYS,
                        step: float = 0.1, screen: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Re-centre each rim where the colour is half-way from the base's to the mat's, ray by ray.

    The rim fit locates the steepest fall on each ray; where a bevel lies between the top and the mat
    (a step in two), that is the bevel's outer edge on some rays and its inner edge on others, and the
    centre moves towards the rays that chose the inner one (up to 1.3 mm on the benchmark's photos). Here
    the colour along each ray is projected on the base's own colour difference from the mat (medians over
    all rays of a band inside and one outside), scaled to 1 inside and 0 outside, and the rim is where that
    crosses 1/2: the same level on every ray, so the same edge, and the centre of a circle through those
    crossings (radius free, Tukey-weighted as in :func:`fit_rims`) is not pulled either way. ``passes`` times,
    re-centred each time.

    ``min_span``: the least difference (whitened units) between the two bands' colours for the level to mean
    anything; below it a circle has no crossings (and is not sampled or fitted further). ``screen``: most circles are
    expected to be such (a rim search's starts): their bands are read first, the rest of the rays only where the bands
    differ. Returns centres, radii (where the level crosses), rms of
    the kept rays' residuals (mm; inf where, in a circle's last pass, fewer than ``HALF_MIN_RAYS`` rays crossed near
    the rim or the radius ran off: that pass does not move the centre, and is the circle's last, as another would
    look at the same place), the number of kept rays and the centres' :func:`centre_spread` (radius free).
    """
    n = len(centres)
    angles = np.linspace(0, 2 * math.pi, rays, endpoint=False)
    design = np.column_stack([np.ones(rays), np.cos(angles), np.sin(angles)])
    grow = scale.widen  # a coarse photo's blur is wider: so are the bands
    in_far, in_near = HALF_INSIDE_MM[0] * grow, HALF_INSIDE_MM[1] * grow
    out_near, out_far = HALF_OUTSIDE_MM[0] * grow, HALF_OUTSIDE_MM[1] * grow
    reach = HALF_REACH_MM * grow
    lo = in_far + step
    m = int(round((lo + out_far + step) / step)) + 1
    offset = -lo + step * np.arange(m)  # along each ray, from the fitted rim
    inside = (offset >= -in_far) & (offset <= -in_near)
    outside = (offset >= out_near) & (offset <= out_far)
    radius = radii.astype(float).copy()
    centres = centres.copy()
    span_min = np.broadcast_to(np.asarray(min_span, dtype=float), (n,))
    rms = np.full(n, np.inf)
    kept = np.zeros(n, dtype=int)
    spread = np.full(n, np.inf)
    band = inside | outside  # the inside band's samples come first along a ray, then the outside band's
    n_in = int(np.count_nonzero(inside))
    # A circle whose bands do not differ has no crossings, no kept rays, and its spread is that of no ray.
    no_spread = centre_spread(np.zeros((1, rays), dtype=bool), design)[0]
    # A circle a pass did not move would be sampled where it was and fail again: only the moved ones go on.
    active = np.arange(n)
    for _ in range(passes):
        if not len(active):
            break
        extra_all = outline_of(rect, centres[active], radius[active], angles)  # [k, rays]: the outline past the footprint
        k_all = len(active)
        live = np.zeros(k_all, dtype=bool)
        rho_all, ok_all = np.zeros((k_all, rays)), np.zeros((k_all, rays), dtype=bool)
        # A few circles at a time: their samples (a textured photo's rim search reads millions) stay in the cache and
        # in memory already mapped; each circle's crossings are its own, so they are those of all circles at once.
        block = max(1, HALF_LEVEL_PIECE // (rays * m))
        for i in range(0, k_all, block):
            part = slice(i, i + block)
            ids, extra = active[part], extra_all[part]
            t = radius[ids, None, None] + extra[:, :, None] + offset[None, None, :]
            # Screening (a rim search's starts, most of which have no base's colour inside and go no further): the
            # bands first and the rest only for circles whose bands differ. Elsewhere all at once (two reads cost more).
            z_all = None if screen else whitened(sample_rays(rect, centres[ids], t, angles), mat_colour[ids], whiten)
            z_band = (whitened(sample_rays(rect, centres[ids], t[:, :, band], angles), mat_colour[ids], whiten)
                      if z_all is None else z_all[:, :, band])
            # Each band's samples per colour channel in a row of their own: the median partitions contiguous rows.
            by_channel = np.moveaxis(z_band, 3, 1)  # [k, channels, rays, band]
            k_part, channels = by_channel.shape[:2]
            z_in = row_median(by_channel[..., :n_in].reshape(k_part, channels, -1))
            z_out = row_median(by_channel[..., n_in:].reshape(k_part, channels, -1))
            span = z_in - z_out
            norm = np.linalg.norm(span, axis=1)
            live_part = ~(norm < span_min[ids])
            live[part] = live_part
            if not live_part.any():
                continue
            everyone = bool(live_part.all())
            ids, extra, t = ids[live_part], extra[live_part], t[live_part]
            span, norm, z_out = span[live_part], norm[live_part], z_out[live_part]
            if z_all is not None:
                z = z_all if everyone else z_all[live_part]  # [k, rays, m, 3]
            else:
                z_rest = whitened(sample_rays(rect, centres[ids], t[:, :, ~band], angles), mat_colour[ids], whiten)
                z_read = z_band if everyone else z_band[live_part]
                z = np.empty((len(ids), rays, m, z_band.shape[3]), dtype=z_band.dtype)  # the bands as read, the rest now
                z[:, :, band], z[:, :, ~band] = z_read, z_rest
            level = np.einsum("nrmc,nc->nrm", less_colour(z, z_out), span) / (norm * norm)[:, None, None]
            ok, pos = nearest_crossings(level, t, radius[ids, None] + extra, step, reach)
            rows = np.arange(i, i + k_part)[live_part]
            ok_all[rows] = ok
            rho_all[rows] = np.where(ok, pos - extra, 0.0)  # the footprint's edge on each ray
        dead = active[~live]
        rms[dead], kept[dead], spread[dead] = np.inf, 0, no_spread
        active, rho, ok = active[live], rho_all[live], ok_all[live]
        k = len(active)
        if not k:
            break
        params, weights = tukey_circle(rho, ok, design, np.column_stack([radius[active], np.zeros(k), np.zeros(k)]))
        inlier = weights > 0.1
        count = inlier.sum(axis=1)
        good = (count >= HALF_MIN_RAYS) & (np.abs(params[:, 0] - radius[active]) <= reach)
        res = rho - params @ design.T
        with np.errstate(all="ignore"):
            rms[active] = np.where(good, np.sqrt(np.sum(np.where(inlier, res * res, 0.0), axis=1) / np.maximum(count, 1)), np.inf)
        kept[active] = count
        spread[active] = centre_spread(inlier, design)
        centres[active] = centres[active] + np.where(good[:, None], params[:, 1:], 0.0)
        radius[active] = np.where(good, params[:, 0], radius[active])
        active = active[good]
    return centres, radius, rms, kept, spread


def nearest_crossings(level: np.ndarray, t: np.ndarray, rim: np.ndarray, step: float,
                      reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Per ray [n, rays]: whether ``level`` (sampled at distances ``t``, [n, rays, m]) falls through 1/2 within
    ``reach`` of ``rim``, and where (linearly between the samples; the crossing nearest the rim, the first of equals;
    0 where none is near). The crossings are a few of the samples: only they are located (the formula over every
    sample took as long as reading the samples)."""
    a, b = level[:, :, :-1], level[:, :, 1:]
    n, r, m = a.shape
    ray, at = np.divmod(np.flatnonzero((a >= 0.5) & (b < 0.5)), m)  # rays in order, each ray's crossings in order
    ca, cb = a.reshape(-1, m)[ray, at], b.reshape(-1, m)[ray, at]
    pos = t[:, :, :-1].reshape(-1, m)[ray, at] + step * ((ca - 0.5) / (ca - cb))
    away = np.abs(pos - rim.reshape(-1)[ray])
    ok = np.zeros(n * r, dtype=bool)
    where = np.zeros(n * r)
    if len(ray):
        first = np.flatnonzero(np.r_[True, ray[1:] != ray[:-1]])  # each crossed ray's first crossing
        nearest = np.minimum.reduceat(away, first)  # NaN where one is NaN: then none is near, as np.argmin's pick
        hit = away == np.repeat(nearest, np.diff(np.r_[first, len(ray)]))
        rays_hit, index = np.unique(ray[hit], return_index=True)  # the first of equals
        chosen = np.flatnonzero(hit)[index]
        near = nearest[np.searchsorted(ray[first], rays_hit)] <= reach
        ok[rays_hit[near]] = True
        where[rays_hit[near]] = pos[chosen[near]]
    return ok.reshape(n, r), where.reshape(n, r)


def half_level_fits(radii: np.ndarray, scale: Scale) -> np.ndarray:
    """Whether the half-level fit's inside band lies well within each rim (on a coarse photo it widens with the
    blur and, on a small base, would reach past the middle)."""
    return radii - HALF_INSIDE_MM[0] * scale.widen >= 0.4 * radii
