"""Stop 47's speed-ups of the photo analysis: the same answers, bit for bit, as the formulas they replaced (written out
here): the rim evidence worked out once per sample and only where it is read, the ring round a base by row medians,
and the rim search's evidence read by one flat index."""

from __future__ import annotations

import math
from types import SimpleNamespace

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.photo import footprint, rays, rimfit

from .test_photo_pieces import _discs_photo


def _whole_rim_evidence(samples: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray, step: float,
                        smooth: float, gate_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """``rays.rim_evidence`` as it was: norms over the colour axis, both gates' normals worked out on shifted copies."""
    z = rays.whitened(samples, mat_colour, whiten)
    if smooth > 0:
        k = max(1, int(math.ceil(2.5 * smooth / step)))
        x = np.arange(-k, k + 1) * step
        g = np.exp(-0.5 * (x / smooth) ** 2).astype(np.float32)
        g /= g.sum()
        n, r, m, c = z.shape
        flat = np.ascontiguousarray(z.transpose(0, 1, 3, 2)).reshape(-1, m)
        flat = cv2.filter2D(flat, -1, g[None, :], borderType=cv2.BORDER_REPLICATE)
        z = flat.reshape(n, r, c, m).transpose(0, 1, 3, 2)
    grad = np.zeros(z.shape[:3], np.float32)
    grad[:, :, 1:-1] = np.linalg.norm(z[:, :, 2:] - z[:, :, :-2], axis=3) / (2 * step)
    plain = np.linalg.norm(z, axis=3)
    drop = np.zeros_like(grad)
    drop[:, :, 1:-1] = (plain[:, :, :-2] - plain[:, :, 2:]) / (2 * step)
    dist = plain / rays.GATE_SIGMAS
    g = int(round(gate_mm / step))
    m = z.shape[2]
    outside = np.full_like(dist, 10.0)
    inside = np.zeros_like(dist)
    outside[:, :, :m - g] = dist[:, :, g:]
    inside[:, :, g:] = dist[:, :, :m - g]
    return grad * np.exp(-0.5 * outside ** 2) * (1.0 - np.exp(-0.5 * inside ** 2)), drop


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([np.float32, np.float64]), st.sampled_from(["one", "per_circle", "per_ray"]),
       st.sampled_from([(0.1, 0.25, 1.2), (0.1, 0.4, 2.0), (0.4, 0.3, 1.2), (0.1, 0.0, 1.2)]), st.integers(30, 90),
       st.floats(0.0, 0.45))
def test_rim_evidence_is_the_whole_formula(seed: int, dtype: type, colours: str, steps: tuple[float, float, float], m: int,
                                           margin: float) -> None:
    """Every sample's evidence and fall as the formula gives them; with ``within``, the same inside it and 0 outside."""
    rng = np.random.default_rng(seed)
    n, r = int(rng.integers(1, 5)), int(rng.integers(1, 40))
    # Colours that step from a base's to the mat's somewhere along each ray, with noise: evidence of every size.
    edge = rng.integers(0, m, (n, r, 1, 1))
    samples = np.where(np.arange(m)[None, None, :, None] < edge, rng.uniform(0, 255, (n, r, 1, 3)), rng.uniform(0, 255, (n, 1, 1, 3)))
    samples = (samples + rng.normal(0, rng.uniform(0.5, 20), (n, r, m, 3))).astype(np.float32)
    mat = rng.uniform(0, 255, (n, r, 3) if colours == "per_ray" else (n, 3)).astype(dtype)
    whiten = (np.eye(3) / rng.uniform(3, 30) + rng.normal(0, 0.01, (3, 3))).astype(dtype)
    if colours != "one":
        whiten = (whiten[None] * rng.uniform(0.5, 2.0, (n, 1, 1))).astype(dtype)
    step, smooth, gate = steps
    want = _whole_rim_evidence(samples, mat, whiten, step, smooth, gate)
    got = rays.rim_evidence(samples, mat, whiten, step, smooth, gate)
    assert all(g.dtype == w.dtype and np.array_equal(g, w) for g, w in zip(got, want))
    lo = 1 + int(margin * m)
    hi = max(lo + 1, m - 1 - int(margin * m))
    evidence, drop = rays.rim_evidence(samples, mat, whiten, step, smooth, gate, within=(lo, hi))
    assert evidence.dtype == want[0].dtype and np.array_equal(evidence[:, :, lo:hi], want[0][:, :, lo:hi])
    assert not evidence[:, :, :lo].any() and not evidence[:, :, hi:].any()
    assert np.array_equal(drop, want[1])


def test_rim_evidence_by_hand() -> None:
    """A grey step from 100 to 0 over a grey mat at 0 (whitening 1/10 per channel: the base 10 units from the mat, three
    channels): at the step the colour falls by sqrt(300) units over two samples of 0.1 mm, 86.6 units per mm, where just
    outside (1.2 mm on) is the mat (gate 1) and just inside is not (gate 1 - exp(-0.5 * (sqrt(300) / 2)²) = 1)."""
    samples = np.zeros((1, 1, 40, 3), np.float32)
    samples[..., :20, :] = 100.0
    evidence, drop = rays.rim_evidence(samples, np.zeros(3), np.eye(3) / 10.0, 0.1, 0.0, 1.2)
    assert evidence[0, 0, 19] == evidence[0, 0, 20] and abs(evidence[0, 0, 19] - math.sqrt(300) / 0.2) < 1e-3
    assert evidence[0, 0, 10] == 0.0 and evidence[0, 0, 30] == 0.0  # flat colour: no change
    assert abs(drop[0, 0, 19] - math.sqrt(300) / 0.2) < 1e-3


def _whole_ring_mat(rect: SimpleNamespace, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray,
                    whiten: np.ndarray, ground_colour: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``footprint.ring_mat`` as it was (without the table's surfaces): ``np.median`` over the samples' axes, and over
    the residuals' first axis per base."""
    angles = np.linspace(0, 2 * math.pi, rays.FIT_RAYS, endpoint=False)
    extra = rays.outline_of(rect, centres, radii, angles)  # type: ignore[arg-type]
    steps = np.linspace(0.0, footprint.RING_WIDTH_MM, 13)
    t = (radii[:, None, None] + extra[:, :, None] + footprint.RING_GAP_MM + steps[None, None, :])
    samples = rays.sample_rays(rect, centres, t, angles).astype(np.float64)  # type: ignore[arg-type]
    along = np.median(samples, axis=2)
    half = footprint.RING_RAY_SPAN // 2
    wrapped = np.concatenate([along[:, -half:], along, along[:, :half]], axis=1)
    ring = np.median(np.lib.stride_tricks.sliding_window_view(wrapped, footprint.RING_RAY_SPAN, axis=1), axis=3)
    table = np.asarray(mat_colour, dtype=np.float64)[:, None, :]
    on_mat = np.linalg.norm((ring - table) @ np.asarray(whiten, dtype=np.float64).T, axis=2) < footprint.RING_MAT_UNITS
    colours = np.where(on_mat[..., None], ring, table)
    c = samples.shape[3]
    whitens = np.repeat(np.asarray(whiten, dtype=np.float64)[None], len(centres), axis=0)
    for k in range(len(centres)):
        if on_mat[k].sum() < footprint.RING_MIN_RAYS:
            continue
        residual = (samples[k][on_mat[k]] - colours[k][on_mat[k]][:, None, :]).reshape(-1, c)
        centre = np.median(residual, axis=0)
        mad = 1.4826 * np.median(np.abs(residual - centre), axis=0) + 0.5
        core = residual[np.all(np.abs(residual - centre) < footprint.RING_CORE_MADS * mad, axis=1)]
        cov = (np.cov(core.T) if len(core) > 10 else np.diag(mad ** 2)).reshape(c, c)
        vals, vecs = np.linalg.eigh(cov + footprint.NOISE_FLOOR_GREY * np.eye(c))
        whitens[k] = vecs @ np.diag(vals ** -0.5) @ vecs.T
    ground = on_mat
    if ground_colour is not None:
        near = np.asarray(ground_colour, dtype=np.float64)[:, None, :]
        ground = on_mat | (np.linalg.norm((ring - near) @ np.asarray(whiten, dtype=np.float64).T, axis=2) < footprint.RING_MAT_UNITS)
    return colours.astype(np.float32), whitens.astype(np.float32), ground.sum(axis=1)


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_ring_mat_is_the_whole_formula(seed: int, ground: bool, printed: bool) -> None:
    """The mat's colour on each ray, the whitening of its spread and the rays on the mat, as the formula gives them:
    bases on a noisy mat, beside each other (a neighbour over part of a ring), and optionally lines printed on it."""
    rng = np.random.default_rng(seed)
    discs = np.column_stack([rng.uniform(60, 540, 6), rng.uniform(60, 390, 6), rng.uniform(12, 30, 6), rng.uniform(20, 240, 6)])
    rect = _discs_photo(rng, discs)
    if printed:  # dark lines across the mat: the samples a ring's core leaves out
        for y in range(0, 900, int(rng.integers(20, 80))):
            rect.source[y:y + 3] = rect.source[y:y + 3] // 3
    n = 8
    near = discs[rng.integers(0, 6, n)]
    centres, radii = near[:, :2] + rng.normal(0, 1.5, (n, 2)), near[:, 2]
    mat_colour = rng.normal(90, 4, (n, 3))
    whiten = np.eye(3) / 12.0
    ground_colour = rng.normal(90, 6, (n, 3)) if ground else None
    want = _whole_ring_mat(rect, centres, radii, mat_colour, whiten, ground_colour)
    got = footprint.ring_mat(rect, centres, radii, mat_colour, whiten, ground_colour)  # type: ignore[arg-type]
    assert got[3] is None
    assert all(g.dtype == w.dtype and np.array_equal(g, w) for g, w in zip(got[:3], want))
    assert np.any(want[2] >= footprint.RING_MIN_RAYS)  # some rings are on the mat and whitened by their own spread


def _whole_search_circles(rect: SimpleNamespace, cand: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
            sizes: np.ndarray, scale: rays.Scale) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``rimfit.search_circles`` as it was: each hypothesis's evidence read by indexing the selected rows' three axes."""
    n = len(cand)
    angles = np.linspace(0, 2 * math.pi, rimfit.SEARCH_RAYS, endpoint=False)
    ux, uy = np.cos(angles), np.sin(angles)
    dx, dy = np.meshgrid(rimfit.OFFSETS_MM, rimfit.OFFSETS_MM)
    dx, dy = dx.ravel(), dy.ravel()
    proj = dx[:, None] * ux[None, :] + dy[:, None] * uy[None, :]  # [hyp, rays]
    d2 = (dx * dx + dy * dy)[:, None]
    step = 0.4
    radii_all = sizes / 2
    table_s = np.zeros((n, len(radii_all)))
    table_c = np.zeros((n, len(radii_all), 2))
    ray_index = np.arange(rimfit.SEARCH_RAYS)
    order = np.argsort(cand[:, 3])
    for chunk in np.array_split(order, max(1, int(math.ceil(n / 150)))):
        if len(chunk) == 0:
            continue
        c = cand[chunk]
        r_top = min(float(np.max(c[:, 3])), float(radii_all[-1]))
        m = int(math.ceil((r_top + 4.0 + scale.gate_mm + 1.0) / step)) + 1
        t = np.broadcast_to(step * np.arange(m, dtype=float), (len(chunk), m))
        # A few candidates at a time, as rim_points reads (each ray's evidence is its own).
        block = max(1, rimfit.RIM_POINTS_PIECE // (rimfit.SEARCH_RAYS * m))
        ev = np.concatenate([rays.rim_evidence(rays.sample_rays(rect, c[i:i + block, :2], t[i:i + block], angles), mat_colour[chunk[i:i + block]],
                                          whiten, step, scale.smooth_mm + 0.05, scale.gate_mm)[0] for i in range(0, len(chunk), block)])
        for q, radius in enumerate(radii_all):
            sel = np.nonzero((c[:, 2] <= radius) & (radius <= c[:, 3]))[0]
            if len(sel) == 0:
                continue
            ti = proj + np.sqrt(np.maximum(radius * radius - d2 + proj * proj, 0.0))
            extra = rays.outline_of(rect, c[sel, :2], np.full(len(sel), radius), angles)
            if np.any(extra):
                # A tall base's outline reaches past its footprint away from the camera (its top rim): each ray's
                # distance grows by that reach (the shifted hypotheses' own change of it is far under the grid's step).
                idx = (ti[None, :, :] + extra[:, None, :]) / step
                j0 = np.clip(np.floor(idx).astype(int), 0, m - 2)
                f = np.clip(idx - j0, 0.0, 1.0).astype(np.float32)
                rows_sel = np.arange(len(sel))[:, None, None]
                ev_sel = ev[sel]
                e = ev_sel[rows_sel, ray_index[None, None, :], j0] * (1 - f) + ev_sel[rows_sel, ray_index[None, None, :], j0 + 1] * f
            else:
                idx = ti / step
                j0 = np.clip(np.floor(idx).astype(int), 0, m - 2)
                f = np.clip(idx - j0, 0.0, 1.0).astype(np.float32)
                e = ev[sel][:, ray_index[None, :], j0] * (1 - f) + ev[sel][:, ray_index[None, :], j0 + 1] * f  # [sel, hyp, rays]
            score = np.tanh(e / rays.EVIDENCE_UNIT).mean(axis=2)
            k = np.argmax(score, axis=1)
            table_s[chunk[sel], q] = score[np.arange(len(sel)), k]
            table_c[chunk[sel], q] = c[sel, :2] + np.column_stack([dx[k], dy[k]])
    # The rim is a base's outermost edge: of the circles nearly as well supported as the best, the largest is a rival
    # (a miniature's bright outline on a dark base makes a smaller circle inside it).
    # Radii within a blur's width of the best are the same edge seen through the blur, not an outer one.
    rows_n = np.arange(n)
    q_best = np.argmax(table_s, axis=1)
    best = table_s[rows_n, q_best]
    outer = (table_s >= rimfit.OUTERMOST_FRACTION * best[:, None]) & (
        radii_all[None, :] >= radii_all[q_best][:, None] + rimfit.SEPARATE_EDGES * scale.gate_mm)
    has_outer = outer.any(axis=1)
    q = len(radii_all) - 1 - np.argmax(outer[:, ::-1], axis=1)
    # Both go on to the rim fit, which decides: a rim seen all round overrules a ring inside it.
    o = np.nonzero(has_outer)[0]
    return (np.concatenate([table_c[rows_n, q_best], table_c[o, q[o]]]), np.concatenate([radii_all[q_best], radii_all[q[o]]]),
            np.concatenate([best, table_s[o, q[o]]]), np.concatenate([rows_n, o]))


def _tall_camera(rng: np.random.Generator) -> SimpleNamespace:
    """A camera without a lens that sees a base's top rim shifted away from it in one direction, 0.8-1.2 mm per mm of
    height (a steep view), and slightly enlarged: a tall base's outline reaches past its footprint, beyond its bevel."""
    turn = rng.uniform(0, 2 * math.pi)
    along = rng.uniform(0.8, 1.2) * np.array([math.cos(turn), math.sin(turn)])
    return SimpleNamespace(distortion=SimpleNamespace(identity=True),
                           rim_shift=lambda centres, heights: np.asarray(heights, dtype=float)[:, None] * along[None, :],
                           rim_scale=lambda heights: 1.0 + 0.002 * np.asarray(heights, dtype=float))


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 20000, 1 << 40]), st.booleans())
def test_search_circles_reads_the_evidence_it_read_before(seed: int, piece: int, tall: bool) -> None:
    """Candidates round discs of several sizes, a few or all at a time, flat or tall (the outline past the footprint):
    the same circles, radii, scores and origins."""
    rng = np.random.default_rng(seed)
    discs = np.column_stack([rng.uniform(60, 540, 6), rng.uniform(60, 390, 6), rng.uniform(12, 30, 6), rng.uniform(20, 240, 6)])
    rect = _discs_photo(rng, discs)
    if tall:
        rect.camera, rect.base_height_mm = _tall_camera(rng), None
        assert np.any(rays.outline_of(rect, discs[:, :2], discs[:, 2], np.linspace(0, 2 * math.pi, 48)) > 0.1)  # type: ignore[arg-type]
    near = discs[rng.integers(0, 6, 20)]
    low = near[:, 2] - rng.uniform(0, 4, 20)
    cand = np.column_stack([near[:, :2] + rng.normal(0, 1.5, (20, 2)), low, low + rng.uniform(0, 8, 20)])
    sizes = np.array([25.0, 28.0, 32.0, 40.0, 50.0, 60.0])
    mat_colour, whiten = np.full((20, 3), 90.0), np.eye(3) / 12.0
    kept_piece = rimfit.RIM_POINTS_PIECE
    try:
        rimfit.RIM_POINTS_PIECE = piece
        want = _whole_search_circles(rect, cand, mat_colour, whiten, sizes, rays.Scale(0.5))
        got = rimfit.search_circles(rect, cand, mat_colour, whiten, sizes, rays.Scale(0.5))  # type: ignore[arg-type]
    finally:
        rimfit.RIM_POINTS_PIECE = kept_piece
    assert all(g.dtype == w.dtype and np.array_equal(g, w) for g, w in zip(got, want))
    assert np.max(want[2]) > 0.2  # circles are seen


@settings(max_examples=3, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_footprint_fit_takes_numpys_medians(seed: int) -> None:
    """The footprint fit's medians (each base's evidence, and the Tukey scale of its residuals with NaN where a ray is
    not in use) by ``rays.row_median`` and ``rays.nan_row_median``: the same fit as with ``np.median`` and
    ``np.nanmedian`` (tall bases, some fitted a size off, one centre on bare mat)."""
    import warnings

    rng = np.random.default_rng(seed)
    discs = np.column_stack([rng.uniform(60, 540, 6), rng.uniform(60, 390, 6), rng.choice([12.5, 14.0, 16.0], 6), rng.uniform(20, 240, 6)])
    rect = _discs_photo(rng, discs)
    rect.camera, rect.base_height_mm = _tall_camera(rng), None
    near = discs[rng.integers(0, 6, 7)]
    centres = np.vstack([near[:, :2] + rng.normal(0, 1.0, (7, 2)), [[30.0, 30.0]]])
    sizes = np.array([25.0, 28.0, 32.0, 40.0])
    radii = np.append(np.where(rng.random(7) < 0.7, near[:, 2], rng.choice(sizes / 2, 7)), 14.0)  # catalogue radii
    mat_colour, whiten = np.full((8, 3), 90.0), np.eye(3) / 12.0
    got = footprint.fit_footprints(rect, centres, radii, mat_colour, whiten, rays.Scale(0.5), sizes)  # type: ignore[arg-type]
    kept = footprint.row_median, footprint.nan_row_median
    try:
        footprint.row_median = lambda values: np.median(values, axis=-1)  # type: ignore[assignment]

        def nanmedian(values: np.ndarray) -> np.ndarray:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.nanmedian(values, axis=1)

        footprint.nan_row_median = nanmedian  # type: ignore[assignment]
        want = footprint.fit_footprints(rect, centres, radii, mat_colour, whiten, rays.Scale(0.5), sizes)  # type: ignore[arg-type]
    finally:
        footprint.row_median, footprint.nan_row_median = kept
    assert got is not None and want is not None
    for name in ("centres", "covariance", "heights", "bevels", "rms", "rays", "taken", "loss", "radii", "profile_conflict", "ground_rays"):
        g, w = getattr(got, name), getattr(want, name)
        assert g.dtype == w.dtype and np.array_equal(g, w, equal_nan=True), name
    assert got.taken[:7].any()  # bases fitted
