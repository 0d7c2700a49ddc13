"""The photo analysis's hot loops work in cache-sized pieces: the same answers, bit for bit, as the whole-array
formulas they replaced (written out here)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.photo import rays
from tabletop.photo.uncertainty import commonest_row


def _camera(k1: float, k2: float) -> SimpleNamespace:
    lens = SimpleNamespace(identity=k1 == 0 and k2 == 0, centre=(2016.3, 1511.7), scale=2520.0, k1=k1, k2=k2)
    return SimpleNamespace(distortion=lens)


def _whole_to_photo(h: np.ndarray, lens: SimpleNamespace, px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w = h[2, 0] * px + h[2, 1] * py + h[2, 2]
    ux = (h[0, 0] * px + h[0, 1] * py + h[0, 2]) / w
    uy = (h[1, 0] * px + h[1, 1] * py + h[1, 2]) / w
    if not lens.identity:
        cx, cy = lens.centre
        qx, qy = (ux - cx) / lens.scale, (uy - cy) / lens.scale
        r2 = qx * qx + qy * qy
        g = 1.0 + lens.k1 * r2 + lens.k2 * r2 * r2
        ux, uy = cx + (ux - cx) * g, cy + (uy - cy) * g
    return ux.astype(np.float32), uy.astype(np.float32)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(0.0, 0.0), (-0.08, 0.004), (0.03, -0.01)]),
       st.sampled_from([(3,), (7, 1), (5, 4, 30), (2, 120, 400)]))
def test_to_photo_in_pieces_is_the_whole_formula(seed: int, lens: tuple[float, float], shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(seed)
    h = np.array([[3.1, 0.2, 400.0], [0.05, -2.6, 2900.0], [1e-5, 2e-4, 1.0]]) + rng.normal(0, 1e-6, (3, 3))
    rect = SimpleNamespace(homography=h, camera=_camera(*lens))
    px, py = rng.uniform(-50, 1300, shape), rng.uniform(-50, 900, shape)
    got, want = rays.to_photo(rect, px, py), _whole_to_photo(h, rect.camera.distortion, px, py)  # type: ignore[arg-type]
    assert got[0].dtype == np.float32 and got[0].shape == shape
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_to_photo_broadcasts_its_two_coordinates() -> None:
    rect = SimpleNamespace(homography=np.eye(3), camera=None)
    ix, iy = rays.to_photo(rect, np.array([[1.0], [2.0]]), np.array([[10.0, 20.0, 30.0]]))  # type: ignore[arg-type]
    assert ix.shape == iy.shape == (2, 3)
    assert ix.tolist() == [[1, 1, 1], [2, 2, 2]] and iy.tolist() == [[10, 20, 30], [10, 20, 30]]


def _whole_outline_extra(angles: np.ndarray, radii: np.ndarray, shift: np.ndarray, top: np.ndarray) -> np.ndarray:
    lam = np.linspace(0.0, 1.0, rays.HULL_STEPS)
    cx, cy = shift[:, 0, None] * lam[None, :], shift[:, 1, None] * lam[None, :]
    r = (1 - lam)[None, :] * radii[:, None] + lam[None, :] * top[:, None]
    proj = cx[:, None, :] * np.cos(angles)[None, :, None] + cy[:, None, :] * np.sin(angles)[None, :, None]
    disc = proj * proj - (cx * cx + cy * cy)[:, None, :] + (r * r)[:, None, :]
    t = np.where(disc >= 0, proj + np.sqrt(np.maximum(disc, 0.0)), -np.inf)
    return np.max(t, axis=2) - radii[:, None]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.sampled_from([7, 120, 360]))
def test_outline_extra_one_disc_at_a_time_is_the_whole_formula(seed: int, n: int, count: int) -> None:
    rng = np.random.default_rng(seed)
    radii = rng.uniform(10, 60, n)
    shift, top = rng.normal(0, 3, (n, 2)), radii - rng.uniform(0, 2, n)
    angles = np.linspace(0, 2 * math.pi, count, endpoint=False)
    assert np.array_equal(rays.outline_extra(angles, radii, shift, top), _whole_outline_extra(angles, radii, shift, top))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.sampled_from([120, 360, 1000]),
       st.sampled_from(["small", "near radius", "past radius", "tiny", "some zero", "top larger", "top zero"]))
def test_outline_extra_decided_by_its_end_discs_is_the_whole_formula(seed: int, n: int, count: int, kind: str) -> None:
    """Large outlines (the rays most discs cannot reach decided by the first two or last two discs): every shape of
    shift and top rim, shifts up to and past the radius (where no ray is decided so), a shift of zero, rounding-sized
    ones, top rims larger than the footprint or empty, angles not evenly spread."""
    rng = np.random.default_rng(seed)
    radii = rng.uniform(5, 90, n)
    scale = {"small": 3.0, "near radius": 1.0, "past radius": 2.0, "tiny": 1e-12, "some zero": 3.0, "top larger": 3.0,
             "top zero": 3.0}[kind]
    shift = rng.normal(0, scale, (n, 2)) * (radii[:, None] / np.sqrt(2) if kind in ("near radius", "past radius") else 1.0)
    if kind == "some zero":
        shift[rng.random(n) < 0.5] = 0.0
    top = radii - rng.uniform(0, 2, n)
    if kind == "top larger":
        top = radii * rng.uniform(1.0, 1.1, n)
    if kind == "top zero":
        top[rng.random(n) < 0.5] = 0.0
    angles = np.sort(rng.uniform(0, 2 * math.pi, count)) if seed % 2 else np.linspace(0, 2 * math.pi, count, endpoint=False)
    got, want = rays.outline_extra(angles, radii, shift, top), _whole_outline_extra(angles, radii, shift, top)
    assert np.array_equal(got, want)


def test_outline_extra_by_hand() -> None:
    """A footprint of radius 10 and a top rim of radius 10 shifted 2 mm along +x: along +x the outline is the top
    rim's edge, 2 mm past the footprint's; along -x the footprint's own (0); along +y, sqrt(10² - 0²) from the
    disc centred anywhere on the segment: 0."""
    extra = rays.outline_extra(np.array([0.0, math.pi, math.pi / 2]), np.array([10.0]), np.array([[2.0, 0.0]]), np.array([10.0]))
    assert extra[0].tolist() == [2.0, 0.0, 0.0]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(25, 300, 2), (300, 40, 2), (7, 40, 3), (1, 900, 3), (300, 1, 2)]))
def test_sample_rays_a_few_centres_at_a_time_is_all_at_once(seed: int, case: tuple[int, int, int]) -> None:
    import cv2

    n, m, dims = case
    rng = np.random.default_rng(seed)
    source = cv2.GaussianBlur(rng.integers(0, 256, (900, 1200, 3), dtype=np.uint8), (0, 0), 3)
    h = np.array([[0.9, 0.02, 40.0], [0.01, -0.8, 860.0], [1e-6, 2e-5, 1.0]])
    rect = SimpleNamespace(homography=h, camera=_camera(-0.05, 0.002), source=source)
    centres = rng.uniform(0, 1000, (n, 2))
    t = rng.uniform(0, 30, (n, m)) if dims == 2 else rng.uniform(0, 30, (n, 120, m))
    angles = np.linspace(0, 2 * math.pi, 120, endpoint=False)
    tt = t if t.ndim == 3 else t[:, None, :]
    px = centres[:, 0, None, None] + tt * np.cos(angles)[None, :, None]
    py = centres[:, 1, None, None] + tt * np.sin(angles)[None, :, None]
    ix, iy = _whole_to_photo(h, rect.camera.distortion, px, py)
    ix, iy = ix.reshape(n * 120, m), iy.reshape(n * 120, m)
    want = np.concatenate([cv2.remap(source, ix[i:i + 30000], iy[i:i + 30000], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                           for i in range(0, n * 120, 30000)])  # remap's maps stay under 32767 rows
    got = rays.sample_rays(rect, centres, t, angles)  # type: ignore[arg-type]
    assert got.dtype == np.float32 and got.shape == (n, 120, m, 3)
    assert np.array_equal(got, want.astype(np.float32).reshape(n, 120, m, 3))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3000), st.integers(1, 4), st.floats(0.3, 40))
def test_commonest_row_is_numpys_unique_of_rows(seed: int, n: int, columns: int, spread: float) -> None:
    rng = np.random.default_rng(seed)
    rows = np.round(rng.normal(0, spread, (n, columns)) + rng.normal(0, 80, columns)).astype(np.int64)
    keys, counts = np.unique(rows, axis=0, return_counts=True)
    assert np.array_equal(commonest_row(rows), keys[np.argmax(counts)])


def test_commonest_row_by_hand() -> None:
    """(1, 2) twice, (0, 5) twice, (3, -1) once: a tie, broken by the first in lexicographic order, (0, 5)."""
    rows = np.array([[1, 2], [0, 5], [3, -1], [1, 2], [0, 5]])
    assert commonest_row(rows).tolist() == [0, 5]
    assert commonest_row(rows[:4]).tolist() == [1, 2]


def test_commonest_row_too_wide_to_pack() -> None:
    """Columns spanning over 2**62 together cannot be packed into one int64: the rows are counted as they are."""
    rows = np.array([[0, 0, 0], [2**40, -(2**40), 7], [2**40, -(2**40), 7]], dtype=np.int64)
    assert commonest_row(rows).tolist() == [2**40, -(2**40), 7]


def test_sloped_lines_by_hand() -> None:
    """Three samples along a side, four offsets across it (value = 10·sample + offset). A line of slope 2 starting at
    offset 1 reads offsets 1, 2, 3 (the shift rounds 0, 1, 2); starting at offset 2 it would leave the offsets at the
    last sample, so it is not whole and reads the last offset there."""
    from tabletop.photo.rectify import sloped_lines

    values = np.array([[10 * s + o for o in range(4)] for s in range(3)])
    along, whole = sloped_lines(values, np.array([0, 2]))
    assert along.shape == (2, 3, 4)
    assert along[1, :, 1].tolist() == [1, 12, 23] and whole[1].tolist() == [True, True, False, False]
    assert along[1, :, 2].tolist() == [2, 13, 23]
    assert along[0, :, 3].tolist() == [3, 13, 23] and whole[0].all()


def _whole_half_level_centres(rect: SimpleNamespace, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray,
                              whiten: np.ndarray, scale: rays.Scale, min_span: float | np.ndarray, passes: int, count: int,
                              step: float) -> tuple[np.ndarray, ...]:
    """rimfit.half_level_centres as it was: every circle sampled whole and fitted, flat ones (no crossings) too."""
    from tabletop.photo import rimfit

    n = len(centres)
    angles = np.linspace(0, 2 * math.pi, count, endpoint=False)
    design = np.column_stack([np.ones(count), np.cos(angles), np.sin(angles)])
    grow = scale.widen
    in_far, in_near = rimfit.HALF_INSIDE_MM[0] * grow, rimfit.HALF_INSIDE_MM[1] * grow
    out_near, out_far = rimfit.HALF_OUTSIDE_MM[0] * grow, rimfit.HALF_OUTSIDE_MM[1] * grow
    reach = rimfit.HALF_REACH_MM * grow
    lo = in_far + step
    m = int(round((lo + out_far + step) / step)) + 1
    offset = -lo + step * np.arange(m)
    inside = (offset >= -in_far) & (offset <= -in_near)
    outside = (offset >= out_near) & (offset <= out_far)
    radius, centres = radii.astype(float).copy(), centres.copy()
    span_min = np.broadcast_to(np.asarray(min_span, dtype=float), (n,))
    rms, kept, spread = np.full(n, np.inf), np.zeros(n, dtype=int), np.full(n, np.inf)
    active = np.arange(n)
    for _ in range(passes):
        if not len(active):
            break
        k = len(active)
        extra = rays.outline_of(rect, centres[active], radius[active], angles)  # type: ignore[arg-type]
        t = radius[active, None, None] + extra[:, :, None] + offset[None, None, :]
        z = (rays.sample_rays(rect, centres[active], t, angles) - mat_colour[active, None, None, :]) @ whiten.T  # type: ignore[arg-type]
        z_in = np.median(z[:, :, inside].reshape(k, -1, z.shape[3]), axis=1)
        z_out = np.median(z[:, :, outside].reshape(k, -1, z.shape[3]), axis=1)
        span = z_in - z_out
        norm = np.linalg.norm(span, axis=1)
        flat = norm < span_min[active]
        level = np.einsum("nrmc,nc->nrm", z - z_out[:, None, None, :], span) / np.where(flat, 1.0, norm * norm)[:, None, None]
        a, b = level[:, :, :-1], level[:, :, 1:]
        cross = (a >= 0.5) & (b < 0.5)
        pos = t[:, :, :-1] + step * np.where(cross, (a - 0.5) / np.where(cross, a - b, 1.0), 0.0)
        away = np.where(cross, np.abs(pos - (radius[active, None] + extra)[:, :, None]), np.inf)
        j = np.argmin(away, axis=2)[..., None]
        ok = (np.take_along_axis(away, j, 2)[..., 0] <= reach) & ~flat[:, None]
        rho = np.where(ok, np.take_along_axis(pos, j, 2)[..., 0] - extra, 0.0)
        params, weights = rays.tukey_circle(rho, ok, design, np.column_stack([radius[active], np.zeros(k), np.zeros(k)]))
        inlier = weights > 0.1
        kept_now = inlier.sum(axis=1)
        good = (kept_now >= rimfit.HALF_MIN_RAYS) & (np.abs(params[:, 0] - radius[active]) <= reach)
        res = rho - params @ design.T
        with np.errstate(all="ignore"):
            rms[active] = np.where(good, np.sqrt(np.sum(np.where(inlier, res * res, 0.0), axis=1) / np.maximum(kept_now, 1)), np.inf)
        kept[active] = kept_now
        spread[active] = rays.centre_spread(inlier, design)
        centres[active] = centres[active] + np.where(good[:, None], params[:, 1:], 0.0)
        radius[active] = np.where(good, params[:, 0], radius[active])
        active = active[good]
    return centres, radius, rms, kept, spread


def _rim_greys(rng: np.random.Generator, count: int) -> np.ndarray:
    """Disc greys that stand out from the mat (grey 90, noise 12): dark (10-35) or light (150-240), never the mat's own
    grey, so a test that compares two ways of reading rims reads rims that are there."""
    return np.where(rng.random(count) < 0.5, rng.uniform(10, 35, count), rng.uniform(150, 240, count))


def _discs_photo(rng: np.random.Generator, discs: np.ndarray) -> SimpleNamespace:
    """A 1200x900 photo of a 600x450 mm table (2 px/mm, y up) on a noisy mat with discs of their own colours."""
    import cv2

    source = np.clip(rng.normal(90, 12, (900, 1200, 3)), 0, 255).astype(np.uint8)
    for x, y, r, grey in discs:
        cv2.circle(source, (int(round(2 * x)), int(round(900 - 2 * y))), int(round(2 * r)), (int(grey),) * 3, -1, cv2.LINE_AA)
    source = cv2.GaussianBlur(source, (0, 0), 1.2)
    h = np.array([[2.0, 0.0, 0.0], [0.0, -2.0, 900.0], [0.0, 0.0, 1.0]])
    return SimpleNamespace(homography=h, camera=None, source=source)


@settings(max_examples=16, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(2, 120, 0.1), (3, 60, 0.2), (1, 120, 0.1)]), st.sampled_from([1e-6, 1.0, 3.0]),
       st.booleans(), st.sampled_from([1, 9000, 1 << 16, 1 << 30]))
def test_half_level_centres_skipping_flat_circles_is_the_whole_formula(seed: int, case: tuple[int, int, float], span: float,
                                                                        screen: bool, piece: int) -> None:
    """Also read and fitted a few circles at a time (``piece``: one circle at a time up to all at once)."""
    from tabletop.photo import rimfit
    from tabletop.photo.rimfit import half_level_centres

    passes, count, step = case
    rng = np.random.default_rng(seed)
    discs = np.column_stack([rng.uniform(60, 540, 6), rng.uniform(60, 390, 6), rng.uniform(12, 30, 6), rng.uniform(20, 240, 6)])
    rect = _discs_photo(rng, discs)
    # Starts near the discs (some a size off, some shifted) and on bare mat.
    near = discs[rng.integers(0, 6, 30)]
    centres = np.concatenate([near[:, :2] + rng.normal(0, 1.5, (30, 2)), rng.uniform(40, 560, (20, 2)) * [1, 0.75]])
    radii = np.concatenate([near[:, 2] + rng.choice([-2.0, 0.0, 0.0, 2.0, 5.0], 30), rng.uniform(12, 30, 20)])
    mat_colour = np.full((50, 3), 90.0, dtype=np.float32)
    whiten = (np.eye(3) / 12.0).astype(np.float32)
    spans = np.where(rng.random(50) < 0.5, span, 1e-6)
    scale = rays.Scale(0.5)
    kept_piece = rimfit.HALF_LEVEL_PIECE
    rimfit.HALF_LEVEL_PIECE = piece
    try:
        got = half_level_centres(rect, centres, radii, mat_colour, whiten, scale, spans, passes=passes, rays=count, step=step,  # type: ignore[arg-type]
                                 screen=screen)
    finally:
        rimfit.HALF_LEVEL_PIECE = kept_piece
    want = _whole_half_level_centres(rect, centres, radii, mat_colour, whiten, scale, spans, passes, count, step)
    assert all(np.array_equal(g, w) for g, w in zip(got, want))
    assert np.isfinite(want[2]).any()  # some circles crossed
    assert span == 1e-6 or (want[3] == 0).any()  # and where the bands must differ, some bare-mat circles are flat


def _whole_disc_kernel(radius_px: float, reach_px: np.ndarray | None) -> np.ndarray:
    """uncertainty._disc_kernel as it was: its grid's distances and directions worked out on every call."""
    k = int(math.ceil(radius_px + 1 + (float(np.max(reach_px)) if reach_px is not None else 0.0)))
    ys, xs = np.mgrid[-k:k + 1, -k:k + 1]
    dist = np.hypot(xs, ys)
    if reach_px is None:
        return np.clip(radius_px - dist + 0.5, 0.0, 1.0).astype(np.float32)
    angle = np.degrees(np.arctan2(-ys, xs)) % 360.0
    i = np.floor(angle).astype(int) % 360
    f = angle - np.floor(angle)
    reach = reach_px[i] * (1 - f) + reach_px[(i + 1) % 360] * f
    return np.clip(radius_px + reach - dist + 0.5, 0.0, 1.0).astype(np.float32)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(3.0, 90.0), st.booleans())
def test_disc_kernel_on_a_shared_grid_is_the_whole_formula(seed: int, radius: float, tall: bool) -> None:
    from tabletop.photo.uncertainty import _disc_kernel

    rng = np.random.default_rng(seed)
    reach = np.abs(np.convolve(rng.normal(0, 3, 400), np.ones(41) / 41, "same")[20:380]) if tall else None
    for _ in range(2):  # the second call reads the grid the first one left
        got = _disc_kernel(radius, reach)
        assert got.dtype == np.float32 and np.array_equal(got, _whole_disc_kernel(radius, reach))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 300), st.sampled_from([1, 2, 7, 60, 120]), st.floats(0.0, 1.0), st.booleans())
def test_nan_row_median_is_numpys_nanmedian(seed: int, n: int, count: int, missing: float, ties: bool) -> None:
    import warnings

    rng = np.random.default_rng(seed)
    values = np.abs(rng.normal(0, rng.uniform(0.01, 5), (n, count)))
    if ties:
        values = np.round(values, 1)
    values[rng.random((n, count)) < missing] = np.nan
    with warnings.catch_warnings():  # rows all NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.nanmedian(values, axis=1)
    assert np.array_equal(rays.nan_row_median(values), want, equal_nan=True)


def test_nan_row_median_by_hand() -> None:
    """Rows (3, NaN, 1, 2): 2; (4, 1, NaN, NaN): 2.5; all NaN: NaN."""
    got = rays.nan_row_median(np.array([[3.0, np.nan, 1.0, 2.0], [4.0, 1.0, np.nan, np.nan], [np.nan] * 4]))
    assert got[:2].tolist() == [2.0, 2.5] and np.isnan(got[2])

@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(20, 200), st.integers(2, 70), st.integers(1, 14), st.integers(-30, 30))
def test_window_correlation_is_filter2d_near_its_window(seed: int, n: int, k: int, half: int, off: int) -> None:
    """Not bit for bit (a smaller transform rounds differently), but the same sums to a float32 transform's rounding,
    wherever the window lies (near the image's edge too, where filter2D's border is zero)."""
    import cv2

    from tabletop.photo.uncertainty import _window_correlation

    rng = np.random.default_rng(seed)
    image = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    kernel = rng.uniform(0, 1, (2 * k + 1, 2 * k + 1)).astype(np.float32)
    half = min(half, (n - 1) // 2)  # the window inside the image
    row, col = int(np.clip(n // 2 + off, half, n - 1 - half)), int(np.clip(n // 2 - off, half, n - 1 - half))
    want = cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_CONSTANT)[row - half:row + half + 1, col - half:col + half + 1]
    got = _window_correlation(kernel, row, col, half)(image)
    assert got.shape == want.shape == (2 * half + 1, 2 * half + 1)
    assert np.max(np.abs(got - want)) <= 1e-5 * float(np.sum(np.abs(kernel)))


def test_window_correlation_by_hand() -> None:
    """A 3x3 kernel of ones over an image that is 1 at one pixel (row 4, column 5): the sum under the kernel is 1 at
    every pixel whose 3x3 neighbourhood holds it (rows 3-5, columns 4-6), 0 elsewhere."""
    from tabletop.photo.uncertainty import _window_correlation

    image = np.zeros((9, 9), np.float32)
    image[4, 5] = 1.0
    got = _window_correlation(np.ones((3, 3), np.float32), 4, 4, 2)(image)  # rows 2-6, columns 2-6
    want = np.zeros((5, 5))
    want[1:4, 2:5] = 1.0
    assert np.allclose(got, want, atol=1e-6)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([np.float32, np.float64]), st.integers(1, 7), st.booleans(),
       st.sampled_from([(5000,), (40, 50), (6, 30, 41)]))
def test_channel_norm_is_numpys_norm(seed: int, dtype: type, channels: int, planar: bool, lead: tuple[int, ...]) -> None:
    """Below eight channels numpy adds the squares one by one in order, whatever the layout (channels last in memory,
    or planes, as rim_evidence's filtered samples are)."""
    rng = np.random.default_rng(seed)
    values = (rng.normal(0, 10, (*lead, channels)) * rng.uniform(0.001, 100, (*lead, channels))).astype(dtype)
    if planar:
        values = np.moveaxis(np.ascontiguousarray(np.moveaxis(values, -1, 0)), 0, -1)
    for axis in (-1, values.ndim - 1):
        got, want = rays.channel_norm(values, axis=axis), np.linalg.norm(values, axis=axis)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_channel_norm_by_hand() -> None:
    """(3, 4) has length 5; eight or more channels, or integers, are numpy's own norm."""
    assert rays.channel_norm(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist() == [5.0, 0.0]
    assert rays.channel_norm(np.ones((2, 9)), axis=1).tolist() == [3.0, 3.0]
    assert rays.channel_norm(np.array([[3, 4]])).tolist() == [5.0]


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(np.float32, np.float64), (np.float32, np.float32), (np.float64, np.float64)]),
       st.sampled_from([(7, 3, 5, 3), (30, 60, 16, 3), (1, 120, 58, 3), (4, 2, 1, 3), (9, 11, 3)]), st.sampled_from([0, 1, 2]))
def test_less_colour_and_whitened_are_the_broadcast_formula(seed: int, dtypes: tuple[type, type], shape: tuple[int, ...],
                                                            colour_axes: int) -> None:
    """One colour, one per centre, or one per centre and ray (the footprint fit's mat round each base)."""
    rng = np.random.default_rng(seed)
    samples = rng.uniform(0, 255, shape).astype(dtypes[0])
    whiten = rng.normal(0, 0.1, (3, 3)).astype(dtypes[1])
    colour_axes = min(colour_axes, len(shape) - 2)
    colour = rng.uniform(0, 255, (*shape[:colour_axes], 3)).astype(dtypes[1])
    want = samples - colour.reshape(*shape[:colour_axes], *([1] * (len(shape) - 1 - colour_axes)), 3)
    got = rays.less_colour(samples, colour)
    assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
    assert np.array_equal(rays.whitened(samples, colour, whiten), want @ whiten.T)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(150, 150), (1, 7), (88, 3)]))
def test_off_the_line_is_the_norm_of_the_broadcast(seed: int, shape: tuple[int, int]) -> None:
    from tabletop.photo.uncertainty import _off_the_line

    rng = np.random.default_rng(seed)
    z = (rng.normal(0, 4, (*shape, 3)) * rng.uniform(0.01, 10)).astype(np.float32)
    colour = rng.normal(0, 5, 3).astype(np.float32)
    level = z @ colour / float(np.linalg.norm(colour)) ** 2
    want = np.linalg.norm(z - level[..., None] * colour, axis=2)
    got = _off_the_line(z, level, colour)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_outline_extra_of_a_base_without_a_shift_is_the_whole_formula() -> None:
    """A height the fit lost (NaN) or a shift off to infinity: no disc is crossed, as in the whole formula."""
    n, count = 12, 120
    radii = np.linspace(10, 30, n)
    shift, top = np.full((n, 2), 1.5), radii - 0.5
    shift[3], shift[7, 0], top[9] = np.nan, np.inf, np.nan
    angles = np.linspace(0, 2 * math.pi, count, endpoint=False)
    with np.errstate(invalid="ignore"):
        got, want = rays.outline_extra(angles, radii, shift, top), _whole_outline_extra(angles, radii, shift, top)
    assert np.array_equal(got, want, equal_nan=True)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.5, 40.0), st.sampled_from([2.0, 4.0]), st.floats(-60.0, 60.0), st.floats(-60.0, 60.0))
def test_ring_is_the_mask_over_the_whole_patch(seed: int, radius: float, s: float, off_x: float, off_y: float) -> None:
    """The area fit's band inside the rim, wherever its centre lies (off the patch too, where it is empty)."""
    from tabletop.photo.uncertainty import _ring

    rng = np.random.default_rng(seed)
    half = radius + 6.0
    n = int(round(2 * half * s))
    x0, y1 = 100.0 - half, 200.0 + half
    xs, ys = x0 + (np.arange(n) + 0.5) / s, y1 - (np.arange(n) + 0.5) / s
    z = rng.normal(0, 3, (n, n, 3)).astype(np.float32)
    at = np.array([100.0 + off_x * rng.random(), 200.0 + off_y * rng.random()])
    d = np.hypot(xs[None, :] - at[0], ys[:, None] - at[1])
    want = z[(d >= radius - 2.5) & (d <= radius - 0.5)]
    got = _ring(z, xs, ys, at, radius - 2.5, radius - 0.5)
    assert got.shape == want.shape and np.array_equal(got, want)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 5000, 40000]), st.sampled_from([0.8, 1.5]), st.booleans())
def test_rim_points_a_few_circles_at_a_time_is_all_at_once(seed: int, piece: int, half: float, reach: bool) -> None:
    """One circle at a time, a few, or all at once (a piece larger than them all): the same points and evidence."""
    from tabletop.photo import rimfit

    rng = np.random.default_rng(seed)
    discs = np.column_stack([rng.uniform(60, 540, 6), rng.uniform(60, 390, 6), rng.uniform(12, 30, 6), _rim_greys(rng, 6)])
    rect = _discs_photo(rng, discs)
    near = discs[rng.integers(0, 6, 25)]
    centres, radii = near[:, :2] + rng.normal(0, 0.8, (25, 2)), near[:, 2] + rng.choice([-1.0, 0.0, 1.0], 25)
    mat_colour = np.full((25, 3), 90.0)
    whiten = np.eye(3) / 12.0
    extra = np.abs(rng.normal(0, 1.0, (25, rays.FIT_RAYS))) if reach else None
    kept_piece = rimfit.RIM_POINTS_PIECE
    try:
        rimfit.RIM_POINTS_PIECE = 1 << 40
        want = rimfit.rim_points(rect, centres, radii, mat_colour, whiten, half, rays.Scale(0.5), extra)  # type: ignore[arg-type]
        rimfit.RIM_POINTS_PIECE = piece
        got = rimfit.rim_points(rect, centres, radii, mat_colour, whiten, half, rays.Scale(0.5), extra)  # type: ignore[arg-type]
    finally:
        rimfit.RIM_POINTS_PIECE = kept_piece
    assert all(g.dtype == w.dtype and np.array_equal(g, w) for g, w in zip(got, want))
    assert np.mean(want[1] > rays.EVIDENCE_UNIT) > 0.2  # rims are seen


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 5000, 1 << 40]), st.sampled_from([np.float32, np.float64]),
       st.booleans())
def test_rim_points_with_a_whitening_per_circle_is_one_circle_at_a_time(seed: int, piece: int, dtype: type,
                                                                        per_ray: bool) -> None:
    """Each circle's own whitening (the footprint fit's, from the mat round each base), the circles stacked: the same
    points and evidence as each circle measured alone with its matrix."""
    from tabletop.photo import rimfit

    rng = np.random.default_rng(seed)
    discs = np.column_stack([rng.uniform(60, 540, 6), rng.uniform(60, 390, 6), rng.uniform(12, 30, 6), _rim_greys(rng, 6)])
    rect = _discs_photo(rng, discs)
    n = 9
    near = discs[rng.integers(0, 6, n)]
    centres, radii = near[:, :2] + rng.normal(0, 0.8, (n, 2)), near[:, 2] + rng.choice([-1.0, 0.0, 1.0], n)
    mat_colour = (rng.uniform(70, 110, (n, rays.FIT_RAYS, 3)) if per_ray else rng.uniform(70, 110, (n, 3))).astype(np.float32)
    whitens = (np.eye(3)[None] / rng.uniform(8, 16, (n, 1, 1)) + rng.normal(0, 0.01, (n, 3, 3))).astype(dtype)
    extra = np.abs(rng.normal(0, 1.0, (n, rays.FIT_RAYS)))
    kept_piece = rimfit.RIM_POINTS_PIECE
    try:
        rimfit.RIM_POINTS_PIECE = piece
        got = rimfit.rim_points(rect, centres, radii, mat_colour, whitens, 1.5, rays.Scale(0.5), extra)  # type: ignore[arg-type]
    finally:
        rimfit.RIM_POINTS_PIECE = kept_piece
    for k in range(n):
        alone = rimfit.rim_points(rect, centres[k:k + 1], radii[k:k + 1], mat_colour[k:k + 1], whitens[k], 1.5,  # type: ignore[arg-type]
                                  rays.Scale(0.5), extra[k:k + 1])
        assert all(g[k].dtype == w[0].dtype and np.array_equal(g[k], w[0]) for g, w in zip(got[:2], alone[:2]))
    assert np.mean(got[1] > rays.EVIDENCE_UNIT) > 0.2  # rims are seen


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([np.float32, np.float64]), st.integers(1, 60), st.sampled_from([(), (5,), (4, 3)]),
       st.booleans(), st.floats(0.0, 0.05))
def test_row_median_is_numpys_median(seed: int, dtype: type, count: int, lead: tuple[int, ...], ties: bool, missing: float) -> None:
    rng = np.random.default_rng(seed)
    values = rng.normal(0, rng.uniform(0.01, 50), (*lead, count))
    if ties:
        values = np.round(values)
    values[rng.random(values.shape) < missing] = np.nan
    values = values.astype(dtype)
    got, want = rays.row_median(values), np.median(values, axis=-1)
    assert np.asarray(got).dtype == np.asarray(want).dtype and np.array_equal(got, want, equal_nan=True)


def test_row_median_by_hand() -> None:
    """(3, 1, 2): 2; (4, 1, 3, 2): 2.5; a NaN anywhere: NaN."""
    assert rays.row_median(np.array([3.0, 1.0, 2.0])) == 2.0
    assert rays.row_median(np.array([[4.0, 1.0, 3.0, 2.0], [4.0, np.nan, 3.0, 2.0]]))[0] == 2.5
    assert np.isnan(rays.row_median(np.array([[4.0, np.nan, 3.0, 2.0]]))[0])


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 20000]))
def test_search_circles_evidence_a_few_candidates_at_a_time_is_all_at_once(seed: int, piece: int) -> None:
    from tabletop.photo import rimfit

    rng = np.random.default_rng(seed)
    discs = np.column_stack([rng.uniform(60, 540, 6), rng.uniform(60, 390, 6), rng.uniform(12, 30, 6), rng.uniform(20, 240, 6)])
    rect = _discs_photo(rng, discs)
    near = discs[rng.integers(0, 6, 20)]
    low = near[:, 2] - rng.uniform(0, 4, 20)
    cand = np.column_stack([near[:, :2] + rng.normal(0, 1.5, (20, 2)), low, low + rng.uniform(0, 8, 20)])
    sizes = np.array([25.0, 28.0, 32.0, 40.0, 50.0, 60.0])
    mat_colour, whiten = np.full((20, 3), 90.0), np.eye(3) / 12.0
    kept_piece = rimfit.RIM_POINTS_PIECE
    try:
        rimfit.RIM_POINTS_PIECE = 1 << 40
        want = rimfit.search_circles(rect, cand, mat_colour, whiten, sizes, rays.Scale(0.5))  # type: ignore[arg-type]
        rimfit.RIM_POINTS_PIECE = piece
        got = rimfit.search_circles(rect, cand, mat_colour, whiten, sizes, rays.Scale(0.5))  # type: ignore[arg-type]
    finally:
        rimfit.RIM_POINTS_PIECE = kept_piece
    assert all(g.dtype == w.dtype and np.array_equal(g, w) for g, w in zip(got, want))
    assert np.max(want[2]) > 0.2  # circles are seen


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 330), min_size=1, max_size=4))
def test_kernel_grid_is_the_middle_of_a_larger_one(sizes: list[int]) -> None:
    """Whatever size was asked for before, each grid is the one worked out at its own size, bit for bit."""
    from tabletop.photo import uncertainty

    for k in sizes:
        ys, xs = np.mgrid[-k:k + 1, -k:k + 1]
        angle = np.degrees(np.arctan2(-ys, xs)) % 360.0
        i = np.floor(angle).astype(int) % 360
        want = (np.hypot(xs, ys), i, (i + 1) % 360, angle - np.floor(angle))
        got = uncertainty._kernel_grid(k)
        assert all(g.shape == (2 * k + 1, 2 * k + 1) and g.dtype == w.dtype and np.array_equal(g, w) for g, w in zip(got, want))
        assert not got[0].flags.writeable


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 80), st.floats(0.0, 1.0), st.booleans())
def test_masked_row_medians_are_each_rows_median(seed: int, n: int, kept: float, ties: bool) -> None:
    """fit_rims' starting radii and rim strengths: each row's median over its usable rays, as the per-row loop took it
    (a row with none keeps its fallback)."""
    rng = np.random.default_rng(seed)
    values = rng.normal(20, rng.uniform(0.01, 5), (n, rays.FIT_RAYS))
    if ties:
        values = np.round(values, 1)
    usable = rng.random((n, rays.FIT_RAYS)) < kept
    fallback = rng.uniform(10, 30, n)
    want = np.array([np.median(values[i][usable[i]]) if usable[i].any() else fallback[i] for i in range(n)])
    got = np.where(usable.any(axis=1), rays.nan_row_median(np.where(usable, values, np.nan)), fallback)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, (0.0, 0.0), (-0.08, 0.004), (0.03, -0.01)]), st.integers(1, 90),
       st.integers(1, 90))
def test_to_photo_grid_is_to_photo_of_the_meshgrid(seed: int, lens: tuple[float, float] | None, nx: int, ny: int) -> None:
    rng = np.random.default_rng(seed)
    h = np.array([[3.1, 0.2, 400.0], [0.05, -2.6, 2900.0], [1e-5, 2e-4, 1.0]]) + rng.normal(0, 1e-6, (3, 3))
    rect = SimpleNamespace(homography=h, camera=None if lens is None else _camera(*lens))
    xs, ys = rng.uniform(-50, 1300) + np.arange(nx) / 4.0, rng.uniform(-50, 900) - np.arange(ny) / 4.0
    got, want = rays.to_photo_grid(rect, xs, ys), rays.to_photo(rect, *np.meshgrid(xs, ys))  # type: ignore[arg-type]
    assert got[0].dtype == np.float32 and got[0].shape == (ny, nx)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_load_image_turns_the_photo_upright_and_swaps_its_channels(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A photo taken sideways (EXIF orientation 6: turn 90° clockwise to view) is read upright, as BGR, writable."""
    from PIL import Image, ImageOps

    from tabletop.photo.imageio import load_image

    rng = np.random.default_rng(7)
    stored = rng.integers(0, 256, (90, 130, 3), dtype=np.uint8)
    path = tmp_path / "sideways.png"
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.fromarray(stored, "RGB").save(path, exif=exif)
    loaded = load_image(path)
    want = np.asarray(ImageOps.exif_transpose(Image.fromarray(stored, "RGB").copy()).transpose(Image.Transpose.ROTATE_270))
    assert loaded.pixels.shape == (130, 90, 3) and loaded.original_size == (90, 130)
    assert np.array_equal(loaded.pixels, want[:, :, ::-1])
    assert loaded.pixels.flags.writeable and loaded.pixels.flags.c_contiguous


def _whole_nearest_crossings(level: np.ndarray, t: np.ndarray, rim: np.ndarray, step: float,
                             reach: float) -> tuple[np.ndarray, np.ndarray]:
    a, b = level[:, :, :-1], level[:, :, 1:]
    cross = (a >= 0.5) & (b < 0.5)
    pos = t[:, :, :-1] + step * np.where(cross, (a - 0.5) / np.where(cross, a - b, 1.0), 0.0)
    away = np.where(cross, np.abs(pos - rim[:, :, None]), np.inf)
    j = np.argmin(away, axis=2)[..., None]
    ok = np.take_along_axis(away, j, 2)[..., 0] <= reach
    return ok, np.where(ok, np.take_along_axis(pos, j, 2)[..., 0], 0.0)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 40), st.integers(2, 70), st.sampled_from([0.1, 0.2]),
       st.sampled_from(["noisy", "steps", "ties", "nan", "flat"]))
def test_nearest_crossings_is_the_formula_over_every_sample(seed: int, n: int, count: int, m: int, step: float,
                                                            kind: str) -> None:
    """Crossings located only where they are: the same flags and places as the formula over every sample, with several
    crossings a ray (the nearest to the rim, the first of two equally near), none, NaN levels or distances."""
    from tabletop.photo.rimfit import nearest_crossings

    rng = np.random.default_rng(seed)
    edge = rng.uniform(0, m, (n, count, 1))
    level = (1.0 - np.clip((np.arange(m) - edge) / rng.uniform(0.5, 5.0), 0.0, 1.0)
             + rng.normal(0, 0.3 if kind == "noisy" else 0.05, (n, count, m))).astype(np.float32)
    if kind == "steps":
        level = np.round(level * 2) / 2
    if kind == "flat":
        level[:] = np.float32(0.5)
    t = rng.uniform(8, 12, (n, count, 1)) + step * np.arange(m)
    rim = t[:, :, 0] + rng.uniform(0, step * m, (n, count))
    if kind == "ties":  # a rim half-way between two samples, crossings symmetric about it
        level = np.tile(np.array([1, 0, 1, 0, 1, 0], np.float32), (n, count, m // 6 + 1))[:, :, :m]
        t = np.broadcast_to(np.arange(m, dtype=float), (n, count, m)).copy()
        rim = np.full((n, count), 1.5 + 2 * rng.integers(0, max(1, m // 2)))
        step = 1.0
    if kind == "nan":
        level[rng.random(level.shape) < 0.05] = np.nan
        t[rng.random(t.shape) < 0.02] = np.nan
    reach = float(rng.uniform(0.2, 3.0))
    got, want = nearest_crossings(level, t, rim, step, reach), _whole_nearest_crossings(level, t, rim, step, reach)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert got[1].dtype == want[1].dtype
