"""Synthetic table photos with ground truth, deterministic by seed (tests and ``benchmarks/photo.py``).

A top-down scene is drawn at a known scale (mat texture, terrain, round bases
with miniatures overhanging their rims, the room around the table), then seen
through a random standing-player perspective, lit unevenly, blurred, noised and
JPEG-compressed. Bases are drawn with analytic anti-aliasing so the truth is
exact to a small fraction of a pixel. Bases are flat discs: the height of a real
base (its top face shifts in a tilted photo) is not modelled (see docs/photo.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from tabletop.photo import BASE_SIZES_MM
from tabletop.photo.values import Corners

INCH = 25.4

_MATS = ((60, 105, 70), (70, 90, 95), (95, 125, 140), (55, 80, 60), (110, 110, 105))  # BGR: green, olive, desert, dark, grey
_ROOMS = ((40, 70, 120), (150, 160, 170), (30, 35, 40), (90, 120, 160), (200, 200, 205))  # wood, light floor, dark, pine, white
_BASE_TOPS = ((28, 28, 30), (45, 45, 48), (20, 20, 20), (70, 110, 140), (60, 60, 62), (35, 55, 45))
_MINIS = ((40, 40, 170), (160, 60, 40), (50, 160, 200), (200, 200, 200), (40, 120, 40), (150, 150, 60), (90, 60, 140), (30, 30, 30))


@dataclass(frozen=True)
class SynthBase:
    """A base in the scene: centre (table mm) and diameter (mm)."""

    x_mm: float
    y_mm: float
    diameter_mm: float


@dataclass(frozen=True, eq=False)
class SynthPhoto:
    """A synthetic photo and its truth."""

    image: np.ndarray
    corners_px: Corners
    homography: np.ndarray
    """Table mm to image pixels."""
    table_mm: tuple[float, float]
    bases: tuple[SynthBase, ...]


def _noise_field(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    """Smooth noise in about -1..1, ``cells`` blotches across the longer side."""
    h, w = shape
    small = rng.normal(0.0, 1.0, (max(2, cells * h // max(h, w)), max(2, cells * w // max(h, w)))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _camera_corners(rng: np.random.Generator, size: tuple[int, int], table_mm: tuple[float, float]) -> np.ndarray:
    """Image corners (LL, LR, UR, UL) of a table seen by a standing player at its near edge."""
    w, h = size
    aspect = table_mm[0] / table_mm[1]
    for _ in range(200):
        height = rng.uniform(0.74, 0.88) * h
        far_ratio = rng.uniform(0.68, 0.84)
        near = min(0.94 * w, height * aspect / math.sqrt(far_ratio) * rng.uniform(1.0, 1.15))
        far = near * far_ratio
        cx, cy = w / 2 + rng.uniform(-0.04, 0.04) * w, h / 2 + rng.uniform(-0.03, 0.03) * h
        skew = rng.uniform(-0.05, 0.05) * near
        pts = np.array(
            [[cx - near / 2, cy + height / 2], [cx + near / 2, cy + height / 2],
             [cx + far / 2 + skew, cy - height / 2], [cx - far / 2 + skew, cy - height / 2]]
        )
        angle = math.radians(rng.uniform(-4.0, 4.0))
        rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
        pts = (pts - [cx, cy]) @ rot.T + [cx, cy]
        pts += rng.normal(0.0, 0.006 * h, pts.shape)
        margin = 0.02 * min(w, h) + 20
        if np.all(pts[:, 0] > margin) and np.all(pts[:, 0] < w - margin) and np.all(pts[:, 1] > margin) and np.all(pts[:, 1] < h - margin):
            return pts
    raise RuntimeError("could not place the table in the frame")


BAND_ROWS = 64
"""Rows of a full-size image worked at a time by the per-pixel steps (their temporaries then stay small)."""


def _bands(rows: int) -> list[slice]:
    """Slices of ``BAND_ROWS`` rows covering ``rows``."""
    return [slice(i, min(i + BAND_ROWS, rows)) for i in range(0, rows, BAND_ROWS)]


def _to_uint8(image: np.ndarray) -> np.ndarray:
    """``np.clip(image, 0, 255).astype(np.uint8)``, a band of rows at a time."""
    out = np.empty(image.shape, np.uint8)
    for rows in _bands(len(image)):
        out[rows] = np.clip(image[rows], 0, 255).astype(np.uint8)
    return out


def _blend_disc(scene: np.ndarray, cx: float, cy: float, radius: float, colour: np.ndarray, texture: float, rng: np.random.Generator) -> None:
    """Paint a disc with exact area anti-aliasing (coverage = clip(r - d + 1/2))."""
    x0, x1 = max(0, int(cx - radius - 2)), min(scene.shape[1], int(cx + radius + 3))
    y0, y1 = max(0, int(cy - radius - 2)), min(scene.shape[0], int(cy + radius + 3))
    ys, xs = np.mgrid[y0:y1, x0:x1]
    cover = np.clip(radius - np.hypot(xs - cx, ys - cy) + 0.5, 0.0, 1.0)[..., None]
    fill = colour[None, None, :] + rng.normal(0.0, texture, (y1 - y0, x1 - x0, 1))
    patch = scene[y0:y1, x0:x1]
    patch[...] = patch * (1 - cover) + fill * cover


def synth_photo(
    seed: int,
    size: tuple[int, int] = (4000, 3000),
    table_mm: tuple[float, float] = (48 * INCH, 48 * INCH),
    n_bases: int = 40,
    base_sizes_mm: tuple[float, ...] = BASE_SIZES_MM,
    scene_px_per_mm: float | None = None,
) -> SynthPhoto:
    """A photo of a table with ``n_bases`` round bases, miniatures, terrain; uneven light, blur, noise, JPEG."""
    rng = np.random.default_rng(seed)
    tw, td = table_mm
    corners = _camera_corners(rng, size, table_mm)
    table_quad = np.array([[0, 0], [tw, 0], [tw, td], [0, td]], dtype=np.float32)
    h_img = cv2.getPerspectiveTransform(table_quad, corners.astype(np.float32)).astype(np.float64)

    # Draw the scene a little finer than the photo's finest scale, then let the warp resample it.
    finest = max(np.linalg.norm(corners[1] - corners[0]) / tw, np.linalg.norm(corners[2] - corners[1]) / td)
    s = scene_px_per_mm or float(finest * 1.1)
    margin = 40.0
    sw, sh = int(math.ceil((tw + 2 * margin) * s)), int(math.ceil((td + 2 * margin) * s))
    to_scene = np.array([[s, 0, margin * s], [0, -s, (td + margin) * s], [0, 0, 1]], dtype=np.float64)

    room = np.array(_ROOMS[rng.integers(len(_ROOMS))], dtype=np.float32)
    mat = np.array(_MATS[rng.integers(len(_MATS))], dtype=np.float32)
    room_noise = _noise_field(rng, (sh, sw), 40)
    # The mat with exact area coverage at its edges: the table quad is the truth the corner finder is scored on.
    def coverage(n: int, lo: float, hi: float) -> np.ndarray:
        centres = np.arange(n, dtype=np.float32)
        return np.clip(np.minimum(centres + 0.5, hi) - np.maximum(centres - 0.5, lo), 0.0, 1.0)

    cover_rows = coverage(sh, margin * s, (td + margin) * s)
    cover_cols = coverage(sw, margin * s, (tw + margin) * s)
    coarse, fine = _noise_field(rng, (sh, sw), 30), _noise_field(rng, (sh, sw), 300)
    tint = np.array([1.0, 1.1, 0.9], dtype=np.float32)
    scene = np.empty((sh, sw, 3), dtype=np.float32)
    # A band of rows at a time, each colour channel in a plane of its own, each value by the same float32 operations
    # as over the whole scene: numpy broadcasts a plane over three interleaved channels three values at a time, and
    # the whole-scene temporaries (five of 200 MB on a 4 ft table at 12 MP) made the mat most of a photo's time.
    for rows in _bands(sh):
        room_tex = 18 * room_noise[rows]
        cover = np.outer(cover_rows[rows], cover_cols)
        mat_tex = 10 * coarse[rows] + 6 * fine[rows]
        planes = []
        for c in range(3):
            plane = room[c] + room_tex
            plane += cover * (mat[c] + mat_tex * tint[c] - plane)
            planes.append(plane)
        scene[rows] = cv2.merge(planes)
    del room_noise, coarse, fine

    def scene_xy(x: float, y: float) -> tuple[float, float]:
        return (float(x + margin) * s, float(td + margin - y) * s)

    # Terrain: buildings (rectangles), hills and rubble (irregular polygons), never under a base.
    terrain: list[np.ndarray] = []
    for _ in range(int(rng.integers(6, 11))):
        cx, cy = rng.uniform(100, tw - 100), rng.uniform(100, td - 100)
        if rng.random() < 0.5:
            a, b = rng.uniform(80, 250), rng.uniform(60, 200)
            ang = rng.uniform(0, math.pi)
            local = np.array([[-a, -b], [a, -b], [a, b], [-a, b]]) / 2
            rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
            poly = local @ rot.T + [cx, cy]
            colour = np.array([rng.uniform(80, 170)] * 3, dtype=np.float32) + rng.uniform(-15, 15, 3).astype(np.float32)
        else:
            k = int(rng.integers(7, 14))
            angles = np.sort(rng.uniform(0, 2 * math.pi, k))
            radii = rng.uniform(60, 150, k)
            poly = np.column_stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)])
            colour = mat * rng.uniform(0.6, 1.3) + rng.uniform(-20, 20, 3).astype(np.float32)
        terrain.append(poly)
        pts = np.array([scene_xy(x, y) for x, y in poly]) * 16
        cv2.fillPoly(scene, [pts.astype(np.int32)], colour.tolist(), cv2.LINE_AA, shift=4)
        # Detail: a darker inner outline (walls, contour lines).
        inner = (poly - [cx, cy]) * 0.8 + [cx, cy]
        ipts = np.array([scene_xy(x, y) for x, y in inner]) * 16
        cv2.polylines(scene, [ipts.astype(np.int32)], True, (colour * 0.6).tolist(), max(1, int(4 * s)), cv2.LINE_AA, shift=4)

    import shapely

    terrain_union = shapely.union_all([shapely.Polygon(p).buffer(3.0) for p in terrain])
    weights = np.array([4.0 if d in (25.0, 32.0, 40.0) else 1.0 for d in base_sizes_mm])
    weights /= weights.sum()
    bases: list[SynthBase] = []
    tries = 0
    while len(bases) < n_bases and tries < 20 * n_bases:
        tries += 1
        d = float(rng.choice(base_sizes_mm, p=weights))
        r = d / 2
        x, y = rng.uniform(r + 8, tw - r - 8), rng.uniform(r + 8, td - r - 8)
        if terrain_union.intersects(shapely.Point(x, y).buffer(r)):
            continue
        if any(math.hypot(x - b.x_mm, y - b.y_mm) < r + b.diameter_mm / 2 + 2.0 for b in bases):
            continue
        bases.append(SynthBase(x, y, d))

    for b in bases:
        cx, cy = scene_xy(b.x_mm, b.y_mm)
        r_px = b.diameter_mm / 2 * s
        top = np.array(_BASE_TOPS[rng.integers(len(_BASE_TOPS))], dtype=np.float32)
        bevel = top * rng.uniform(0.8, 1.25)
        _blend_disc(scene, cx, cy, r_px, bevel, 2.0, rng)
        _blend_disc(scene, cx, cy, r_px - 1.5 * s, top, 3.0, rng)
        # The miniature: an irregular body near the middle, a limb or weapon reaching over the rim.
        mini = np.array(_MINIS[rng.integers(len(_MINIS))], dtype=np.float32)
        k = int(rng.integers(10, 18))
        ang = np.sort(rng.uniform(0, 2 * math.pi, k))
        rad = rng.uniform(0.18, 0.42, k) * b.diameter_mm
        ox, oy = rng.normal(0, 0.06 * b.diameter_mm, 2)
        body = np.column_stack([b.x_mm + ox + rad * np.cos(ang), b.y_mm + oy + rad * np.sin(ang)])
        pts = np.array([scene_xy(x, y) for x, y in body]) * 16
        cv2.fillPoly(scene, [pts.astype(np.int32)], mini.tolist(), cv2.LINE_AA, shift=4)
        for _ in range(int(rng.integers(1, 3))):
            a = rng.uniform(0, 2 * math.pi)
            reach = rng.uniform(0.45, 0.7) * b.diameter_mm
            p0 = scene_xy(b.x_mm + ox, b.y_mm + oy)
            p1 = scene_xy(b.x_mm + ox + reach * math.cos(a), b.y_mm + oy + reach * math.sin(a))
            cv2.line(scene, (int(p0[0] * 16), int(p0[1] * 16)), (int(p1[0] * 16), int(p1[1] * 16)),
                     (mini * 0.7).tolist(), max(1, int(2.5 * s)), cv2.LINE_AA, shift=4)

    h_scene_to_img = h_img @ np.linalg.inv(to_scene)
    scene8 = _to_uint8(scene)
    # The room beyond the drawn margin is textured in the photo's own pixels; the scene is laid over it.
    w, h = size
    room_noise = _noise_field(rng, (h, w), 40)
    image = np.empty((h, w, 3), np.uint8)
    for rows in _bands(h):
        room_tex = 18 * room_noise[rows]
        image[rows] = cv2.merge([np.clip(room[c] + room_tex, 0, 255).astype(np.uint8) for c in range(3)])
    del room_noise
    cv2.warpPerspective(scene8, h_scene_to_img, size, dst=image, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    del scene, scene8

    # Light: a gradient across the photo and a vignette; then lens blur, sensor noise, JPEG.
    yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    direction = rng.uniform(0, 2 * math.pi)
    ramp = ((xx / w - 0.5) * math.cos(direction) + (yy / h - 0.5) * math.sin(direction)) * rng.uniform(0.3, 0.6)
    vignette = -rng.uniform(0.1, 0.25) * (((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2)
    light = cv2.resize(1.0 + ramp + vignette, (w, h), interpolation=cv2.INTER_LINEAR)
    img = np.empty((h, w, 3), np.float32)
    for rows in _bands(h):
        np.multiply(image[rows].astype(np.float32), cv2.merge([light[rows]] * 3), out=img[rows])
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.8, 1.6))
    noise_sd = rng.uniform(2.0, 5.0)
    # The generator draws its normals one after another: a band's draws are the next rows of the whole image's.
    img8 = np.empty((h, w, 3), np.uint8)
    for rows in _bands(h):
        band = img[rows]
        band += cv2.merge([rng.normal(0.0, noise_sd, (len(band), w)).astype(np.float32)] * 3)
        img8[rows] = np.clip(band, 0, 255, out=band).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img8, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(75, 92))])
    assert ok
    photo = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    c = tuple((float(x), float(y)) for x, y in corners)
    return SynthPhoto(photo, (c[0], c[1], c[2], c[3]), h_img, (tw, td), tuple(bases))


@dataclass(frozen=True)
class Score:
    """Detections against a synthetic photo's truth."""

    truth: int
    detected: int
    matched: int
    diameter_right: int
    centre_errors_mm: tuple[float, ...]
    within_2_sigma: int
    """Matched detections whose centre error is at most twice their sigma (expect ~86 % for 2-D normal errors)."""

    @property
    def recall(self) -> float:
        return self.matched / self.truth if self.truth else 1.0

    @property
    def precision(self) -> float:
        return self.matched / self.detected if self.detected else 1.0


def score(detections: list | tuple, truth: tuple[SynthBase, ...]) -> Score:
    """Match each detection to the nearest unmatched true base whose centre is within half its radius."""
    pairs = []
    for i, d in enumerate(detections):
        for j, b in enumerate(truth):
            e = math.hypot(d.x_mm - b.x_mm, d.y_mm - b.y_mm)
            if e <= b.diameter_mm / 4:
                pairs.append((e, i, j))
    pairs.sort()
    used_d: set[int] = set()
    used_t: set[int] = set()
    errors = []
    right = within = 0
    for e, i, j in pairs:
        if i in used_d or j in used_t:
            continue
        used_d.add(i)
        used_t.add(j)
        errors.append(e)
        right += detections[i].diameter_mm == truth[j].diameter_mm
        within += e <= 2 * detections[i].sigma_mm
    return Score(len(truth), len(detections), len(errors), right, tuple(errors), within)
