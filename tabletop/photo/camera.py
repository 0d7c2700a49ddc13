"""The camera that took the photo: radial lens distortion, focal length and pose, from the table itself.

A photo is a pinhole camera's view bent by its lens. Here:

- ``Distortion``: the radial model (OpenCV's k1, k2) written in photo pixels about the principal point,
  ``p_photo = c + (p - c)(1 + k1 rho^2 + k2 rho^4)`` with ``rho = |p - c| / scale``; ``scale`` is a fixed
  length (half the photo's diagonal) so the lens can be measured before the focal length is known, and
  converted to OpenCV's coefficients (``rho`` in units of the focal length) once it is.
- ``plumb_line``: the table's sides are straight in the world, so the distortion is the one that makes the
  edge points found along each side collinear (Brown's plumb-line idea).
- ``focal_from_homography`` and ``camera_from_corners``: with square pixels and the principal point at the
  photo's centre, the homography of the table's four (undistorted) corners fixes the focal length (Zhang's two
  constraints, solved together by least squares) and then the pose. A view nearly straight down does not fix
  it; a typical phone's is assumed there, with a wide uncertainty.
- ``Camera``: projects table points (x, y, z mm; z up from the mat) to photo pixels; gives each point's
  homography plane for a height and the camera's position, from which a base's top rim is placed relative to
  its footprint (``rim_shift``).

A ChArUco board calibration (``calibrate_board``, OpenCV's aruco) gives the lens once per phone; it is saved
as TOML (``save_lens``/``load_lens``) and read with ``tabletop photo --camera phone.toml``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace

import numpy as np

from tabletop.photo.straight import plumb_costs
from tabletop.photo.values import Corners, PhotoError, apply_homography

TYPICAL_EQUIVALENT_MM = 26.0
"""A phone's main camera in 35 mm terms (its focal length over the 43.27 mm diagonal of a 35 mm frame)."""
TYPICAL_FOCAL_SIGMA = 0.3
"""Relative 1-sigma of that guess: phones' main cameras run from about 22 to 35 mm equivalent."""
MIN_FOCAL_PER_WIDTH, MAX_FOCAL_PER_WIDTH = 0.35, 6.0
"""A focal length outside these multiples of the photo's width (an ultra-wide at 13 mm to a long telephoto) is not
believed: the table's corners were then too close to a straight-down view to measure it."""
FOCAL_TRUST = 0.15
"""A focal length measured from the corners is used when its relative 1-sigma (from the corners' own errors) is below
this; otherwise it is blended with the typical one by their uncertainties."""
MAX_KAPPA = 0.5
"""Largest |k1| (per half-diagonal squared) the plumb-line search tries: far beyond any phone's main camera."""


def typical_focal(size: tuple[int, int]) -> float:
    """A typical phone main camera's focal length in pixels for a photo of ``size`` (26 mm in 35 mm terms)."""
    w, h = size
    return TYPICAL_EQUIVALENT_MM / 43.27 * math.hypot(w, h)


@dataclass(frozen=True)
class Distortion:
    """Radial lens distortion in photo pixels: undistorted ``p`` is seen at ``c + (p - c)(1 + k1 rho^2 + k2 rho^4)``."""

    centre: tuple[float, float]
    scale: float
    """Length (px) that ``rho`` is measured in: half the photo's diagonal."""
    k1: float = 0.0
    k2: float = 0.0

    @property
    def identity(self) -> bool:
        return self.k1 == 0.0 and self.k2 == 0.0

    def apply(self, points: np.ndarray) -> np.ndarray:
        """Undistorted pixels (..., 2) to the photo's own pixels."""
        p = np.asarray(points, dtype=np.float64)
        if self.identity:
            return p
        c = np.asarray(self.centre)
        q = (p - c) / self.scale
        r2 = np.sum(q * q, axis=-1, keepdims=True)
        return c + (p - c) * (1.0 + self.k1 * r2 + self.k2 * r2 * r2)

    def remove(self, points: np.ndarray, iterations: int = 12) -> np.ndarray:
        """The photo's pixels (..., 2) to undistorted pixels (fixed-point iteration; converges for |distortion| < 1/3)."""
        p = np.asarray(points, dtype=np.float64)
        if self.identity:
            return p
        c = np.asarray(self.centre)
        d = (p - c) / self.scale
        u = d.copy()
        for _ in range(iterations):
            r2 = (u[..., 0] * u[..., 0] + u[..., 1] * u[..., 1])[..., None]
            u = d / (1.0 + self.k1 * r2 + self.k2 * r2 * r2)
        return c + u * self.scale

    def opencv(self, focal_px: float) -> tuple[float, float]:
        """OpenCV's (k1, k2), on coordinates normalised by the focal length."""
        f = focal_px / self.scale
        return self.k1 * f * f, self.k2 * f ** 4

    @staticmethod
    def from_opencv(k1: float, k2: float, focal_px: float, centre: tuple[float, float], scale: float) -> Distortion:
        s = scale / focal_px
        return Distortion(centre, scale, k1 * s * s, k2 * s ** 4)


def no_distortion(size: tuple[int, int]) -> Distortion:
    """The identity lens for a photo of ``size`` (width, height): principal point at its centre."""
    w, h = size
    return Distortion(((w - 1) / 2, (h - 1) / 2), 0.5 * math.hypot(w, h))


def _line_residuals(points: np.ndarray) -> np.ndarray:
    """Distances of points (n, 2) from their total-least-squares line."""
    centre = points.mean(axis=0)
    _, _, vt = np.linalg.svd(points - centre, full_matrices=False)
    normal = np.array([-vt[0][1], vt[0][0]])
    return (points - centre) @ normal


def straightness(sides: list[np.ndarray], lens: Distortion) -> float:
    """RMS distance (undistorted px) of each side's edge points from that side's straight line."""
    res = [_line_residuals(lens.remove(p)) for p in sides if len(p) >= 3]
    if not res:
        return 0.0
    r = np.concatenate(res)
    return float(np.sqrt(np.mean(r * r)))


def plumb_line(sides: list[np.ndarray], size: tuple[int, int], trim: float = 3.0) -> tuple[Distortion, float, float]:
    """The radial distortion (k1) that straightens the table's sides, each given as edge points in the photo's pixels.

    Returns the lens, the sides' straightness left (RMS px) and the 1-sigma of k1 (per half-diagonal squared), from
    the curvature of the residual around its minimum. Points far off their side's line at the best k1 (a base or
    terrain on the edge) are dropped and the search repeated once.
    """
    base = no_distortion(size)
    sides = [np.asarray(p, dtype=np.float64) for p in sides if len(p) >= 8]
    if len(sides) < 2:
        return base, 0.0, math.inf

    def cost(k: float, pts: list[np.ndarray]) -> float:
        return plumb_costs(base, pts, [k])[0]  # straight.py: many k at once where the search allows, to the bit

    def search(pts: list[np.ndarray]) -> float:
        lo, hi = -MAX_KAPPA, MAX_KAPPA
        ks = np.linspace(lo, hi, 21)
        costs = plumb_costs(base, pts, ks)
        i = int(np.argmin(costs))
        lo, hi = float(ks[max(0, i - 1)]), float(ks[min(len(ks) - 1, i + 1)])
        golden = (math.sqrt(5) - 1) / 2
        a, b = hi - golden * (hi - lo), lo + golden * (hi - lo)
        fa, fb = plumb_costs(base, pts, [a, b])
        for _ in range(30):
            if fa < fb:
                hi, b, fb = b, a, fa
                a = hi - golden * (hi - lo)
                fa = cost(a, pts)
            else:
                lo, a, fa = a, b, fb
                b = lo + golden * (hi - lo)
                fb = cost(b, pts)
        return (lo + hi) / 2

    k = search(sides)
    lens = replace(base, k1=k)
    kept = []
    for p in sides:
        r = _line_residuals(lens.remove(p))
        mad = 1.4826 * float(np.median(np.abs(r))) + 0.05
        kept.append(p[np.abs(r) <= trim * mad])
    kept = [p for p in kept if len(p) >= 8]
    trimmed = len(kept) != len(sides) or any(len(p) != len(q) for p, q in zip(kept, sides))
    if len(kept) >= 2 and trimmed:  # with every point kept the search would repeat itself on the same points
        k = search(kept)
        lens = replace(base, k1=k)
    n = sum(len(p) for p in kept)
    rms = straightness(kept, lens)
    # 1-sigma of k from the cost's curvature: cost = sum r^2, sigma_k^2 = 2 rms^2 / cost''. Edge points along a side
    # are correlated (blur, JPEG blocks), so count at most one in ten as independent.
    h = 1e-3
    above, at, below = plumb_costs(base, kept, [k + h, k, k - h])
    curv = (above - 2 * at + below) / (h * h)
    eff = max(1.0, n / 10.0) / max(1, n)
    sigma = math.sqrt(2 * max(rms, 0.05) ** 2 / max(curv * eff, 1e-12))
    return lens, rms, sigma


def focal_from_homography(h: np.ndarray, centre: tuple[float, float]) -> float | None:
    """Focal length (px) from a table-to-undistorted-pixel homography, square pixels, principal point ``centre``.

    The table's x and y axes are perpendicular and equally long in the world: two equations linear in 1/f^2,
    solved together by least squares. None where they give no positive solution (a view straight down).
    """
    t = np.array([[1.0, 0.0, -centre[0]], [0.0, 1.0, -centre[1]], [0.0, 0.0, 1.0]])
    m = t @ h
    m = m / np.linalg.norm(m)
    (h11, h12), (h21, h22), (h31, h32) = m[0, :2], m[1, :2], m[2, :2]
    a = np.array([h11 * h12 + h21 * h22, h11 * h11 + h21 * h21 - h12 * h12 - h22 * h22])
    b = np.array([h31 * h32, h31 * h31 - h32 * h32])
    denom = float(a @ a)
    if denom <= 0:
        return None
    w = -float(a @ b) / denom
    if not (w > 0 and math.isfinite(w)):
        return None
    return 1.0 / math.sqrt(w)


@dataclass(frozen=True, eq=False)
class Camera:
    """A calibrated view of the table: table (x, y, z mm; origin lower-left, y away, z up) to photo pixels."""

    focal_px: float
    centre: tuple[float, float]
    rotation: np.ndarray
    """3x3: table axes to the camera's (x right, y down, z forward in the photo)."""
    translation: np.ndarray
    """The table's origin in the camera's frame (mm)."""
    distortion: Distortion
    focal_sigma: float = 0.0
    """Relative 1-sigma of the focal length."""
    lens_rms_px: float = 0.0
    """How far from straight the table's sides remain after the lens is removed (px RMS): a measure of its model error."""
    focal_measured: bool = True
    """Whether the focal length came from the photo or a calibration (else a typical phone's was assumed)."""
    k1_sigma: float = 0.0
    """1-sigma of the lens's k1 (``Distortion``'s, per half-diagonal squared)."""

    def lens_error_px(self, pixels: np.ndarray) -> np.ndarray:
        """1-sigma error (px) of where the lens puts photo pixels (n, 2): its k1's uncertainty and the straightness the
        model could not explain."""
        d = self.distortion
        q = (np.asarray(pixels, dtype=np.float64).reshape(-1, 2) - np.asarray(d.centre)) / d.scale
        r2 = np.sum(q * q, axis=1)
        return np.hypot(self.k1_sigma * r2 * np.sqrt(r2) * d.scale if math.isfinite(self.k1_sigma) else 0.0, self.lens_rms_px)

    @property
    def intrinsics(self) -> np.ndarray:
        f = self.focal_px
        return np.array([[f, 0.0, self.centre[0]], [0.0, f, self.centre[1]], [0.0, 0.0, 1.0]])

    @property
    def position(self) -> np.ndarray:
        """The camera's centre in table mm (z: its height above the mat)."""
        return -self.rotation.T @ self.translation

    def homography(self, z: float = 0.0) -> np.ndarray:
        """3x3: table (x, y) at height ``z`` to undistorted pixels."""
        r = self.rotation
        m = np.column_stack([r[:, 0], r[:, 1], z * r[:, 2] + self.translation])
        return self.intrinsics @ m

    def project(self, points: np.ndarray, z: float = 0.0) -> np.ndarray:
        """Table points (..., 2) at height ``z`` to the photo's pixels (..., 2), lens included."""
        p = np.asarray(points, dtype=np.float64)
        flat = p.reshape(-1, 2)
        return self.distortion.apply(apply_homography(self.homography(z), flat)).reshape(p.shape)

    def unproject(self, pixels: np.ndarray, z: float = 0.0) -> np.ndarray:
        """The photo's pixels (..., 2) to table points at height ``z``."""
        p = np.asarray(pixels, dtype=np.float64)
        flat = self.distortion.remove(p.reshape(-1, 2))
        return apply_homography(np.linalg.inv(self.homography(z)), flat).reshape(p.shape)

    def elevation_deg(self, xy: np.ndarray) -> np.ndarray:
        """The camera's elevation above the table seen from table points (n, 2), degrees."""
        c = self.position
        d = np.hypot(np.asarray(xy)[..., 0] - c[0], np.asarray(xy)[..., 1] - c[1])
        return np.degrees(np.arctan2(c[2], d))

    def rim_shift(self, xy: np.ndarray, height: np.ndarray) -> np.ndarray:
        """Where a point ``height`` mm above table point ``xy`` (n, 2) is seen in the table plane, less ``xy``
        (n, 2): away from the camera by height / (camera height - height) of its distance from the camera's foot."""
        c = self.position
        xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        h = np.broadcast_to(np.asarray(height, dtype=np.float64), (len(xy),))
        return (xy - c[:2]) * (h / np.maximum(c[2] - h, 1e-6))[:, None]

    def rim_scale(self, height: np.ndarray) -> np.ndarray:
        """How much larger a circle ``height`` mm above the table is seen in the table plane."""
        c = self.position
        return c[2] / np.maximum(c[2] - np.asarray(height, dtype=np.float64), 1e-6)


def pose_from_homography(h: np.ndarray, focal_px: float, centre: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Rotation and translation (table to camera) from a table-to-undistorted-pixel homography and the intrinsics."""
    k = np.array([[focal_px, 0.0, centre[0]], [0.0, focal_px, centre[1]], [0.0, 0.0, 1.0]])
    m = np.linalg.inv(k) @ h
    scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    if m[2, 2] < 0:  # the table lies in front of the camera
        scale = -scale
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    r = np.column_stack([r1, r2, np.cross(r1, r2)])
    u, _, vt = np.linalg.svd(r)
    r = u @ vt
    if np.linalg.det(r) < 0:
        r = u @ np.diag([1.0, 1.0, -1.0]) @ vt
    return r, t


def homography_undistorted(corners_px: Corners, table_mm: tuple[float, float], lens: Distortion) -> np.ndarray:
    """The table-to-undistorted-pixel homography of the four corners (in the photo's pixels)."""
    from tabletop.photo.rectify import homography_from_corners

    und = lens.remove(np.asarray(corners_px, dtype=np.float64))
    c = tuple((float(x), float(y)) for x, y in und)
    return homography_from_corners((c[0], c[1], c[2], c[3]), table_mm)


def camera_from_corners(corners_px: Corners, table_mm: tuple[float, float], size: tuple[int, int],
                        lens: Distortion | None = None, corner_sigma_px: tuple[float, ...] = (1.0,) * 4,
                        focal_px: float | None = None, lens_rms_px: float = 0.0, k1_sigma: float = 0.0) -> Camera:
    """The camera from the table's four corners (photo pixels, LL, LR, UR, UL) and, if known, its lens and focal length.

    The focal length is measured from the corners unless given (a board calibration); its uncertainty comes from
    moving each corner by its 1-sigma. Where the corners cannot fix it (a view nearly straight down) a typical phone's
    is blended in by the two uncertainties.
    """
    lens = lens or no_distortion(size)
    h = homography_undistorted(corners_px, table_mm, lens)
    measured = True
    sigma = 0.0
    if focal_px is None:
        f0 = focal_from_homography(h, lens.centre)
        w = size[0]
        ok = f0 is not None and MIN_FOCAL_PER_WIDTH * w <= f0 <= MAX_FOCAL_PER_WIDTH * w
        if ok:
            assert f0 is not None
            moved = []
            base = np.asarray(corners_px, dtype=np.float64)
            for i in range(4):
                for axis in range(2):
                    p = base.copy()
                    p[i, axis] += corner_sigma_px[i]
                    c = tuple((float(x), float(y)) for x, y in p)
                    f1 = focal_from_homography(homography_undistorted((c[0], c[1], c[2], c[3]), table_mm, lens), lens.centre)
                    moved.append(((f1 if f1 is not None else 0.0) - f0) / f0)
            sigma = float(np.sqrt(np.sum(np.square(moved))))
        typical = typical_focal(size)
        if not ok:
            focal_px, sigma, measured = typical, TYPICAL_FOCAL_SIGMA, False
        elif sigma > FOCAL_TRUST:
            assert f0 is not None
            wa, wb = 1 / sigma ** 2, 1 / TYPICAL_FOCAL_SIGMA ** 2
            focal_px = math.exp((wa * math.log(f0) + wb * math.log(typical)) / (wa + wb))
            sigma = 1 / math.sqrt(wa + wb)
        else:
            focal_px = f0
    r, t = pose_from_homography(h, float(focal_px), lens.centre)
    return Camera(float(focal_px), lens.centre, r, t, lens, sigma, lens_rms_px, measured, k1_sigma)


# --- a lens saved once per phone ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class LensFile:
    """A calibrated lens for photos of ``size``: focal length (px), principal point, OpenCV's k1, k2; RMS error."""

    size: tuple[int, int]
    focal_px: float
    centre: tuple[float, float]
    k1: float
    k2: float
    rms_px: float
    photos: int = 0

    def for_size(self, size: tuple[int, int]) -> tuple[Distortion, float]:
        """The lens and focal length for a photo of ``size`` from the same phone (scaled, or turned a quarter)."""
        w0, h0 = self.size
        w, h = size
        cx, cy = self.centre
        if abs(w / h - w0 / h0) > 0.02 and abs(w / h - h0 / w0) <= 0.02:
            w0, h0, cx, cy = h0, w0, cy, cx  # portrait against landscape: the same sensor turned
        elif abs(w / h - w0 / h0) > 0.02:
            raise PhotoError(f"--camera: calibrated for {self.size[0]}x{self.size[1]} photos, not {w}x{h} (another aspect ratio)")
        s = w / w0
        f = self.focal_px * s
        centre = ((cx + 0.5) * s - 0.5, (cy + 0.5) * s - 0.5)
        return Distortion.from_opencv(self.k1, self.k2, f, centre, 0.5 * math.hypot(w, h)), f


def save_lens(lens: LensFile, path: str | os.PathLike[str]) -> None:
    """Write a lens as TOML (atomic)."""
    import tomli_w

    from tabletop.atomic import atomic_write

    data = {"camera": {"image_size": list(lens.size), "focal_px": round(lens.focal_px, 3),
                       "centre_px": [round(lens.centre[0], 3), round(lens.centre[1], 3)],
                       "k1": round(lens.k1, 6), "k2": round(lens.k2, 6), "rms_px": round(lens.rms_px, 4),
                       "photos": lens.photos}}
    atomic_write(os.fspath(path), tomli_w.dumps(data).encode("utf-8"))


def load_lens(path: str | os.PathLike[str]) -> LensFile:
    """Read a lens written by ``tabletop photo calibrate``; PhotoError naming the file and field if it is not one."""
    import tomllib

    name = os.fspath(path)
    try:
        with open(name, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise PhotoError(f"--camera {name}: no such file") from None
    except OSError as e:
        raise PhotoError(f"--camera {name}: cannot read: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise PhotoError(f"--camera {name}: not TOML: {e}") from None
    except UnicodeDecodeError:
        # A photo or other binary file given by mistake: TOML is UTF-8 text.
        raise PhotoError(f"--camera {name}: not a lens file (not UTF-8 text; write one with `tabletop photo calibrate`)") from None
    cam = data.get("camera")
    if not isinstance(cam, dict):
        raise PhotoError(f"--camera {name}: no [camera] table (write one with `tabletop photo calibrate`)")

    problems: list[str] = []

    def number(key: str, lo: float, hi: float, default: float | None = None) -> float:
        v = cam.get(key, default)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not (lo <= float(v) <= hi):
            problems.append(f"{key} must be a number from {lo:g} to {hi:g}, got {v!r}")
            return 1.0
        return float(v)

    def pair(key: str, lo: float, hi: float) -> tuple[float, float]:
        v = cam.get(key)
        if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool) and lo <= x <= hi for x in v)):
            problems.append(f"{key} must be two numbers from {lo:g} to {hi:g}, got {v!r}")
            return 1.0, 1.0
        return float(v[0]), float(v[1])

    size = pair("image_size", 16, 100_000)
    lens = LensFile((int(size[0]), int(size[1])), number("focal_px", 1, 1e6), pair("centre_px", -1e5, 1e5),
                    number("k1", -2, 2), number("k2", -5, 5), number("rms_px", 0, 1e3, 0.0),
                    int(cam.get("photos", 0)) if isinstance(cam.get("photos", 0), int) else 0)
    if problems:
        raise PhotoError(f"--camera {name}: [camera] " + "; ".join(problems))
    return lens


# --- ChArUco board --------------------------------------------------------------------------------------------------

BOARD_SQUARES = (7, 5)
"""Squares across and down the printed board (A4 landscape)."""
BOARD_SQUARE_MM, BOARD_MARKER_MM = 35.0, 26.0
"""The board's square and marker sizes as printed at 100 %: only their ratio matters to the lens."""


def board():  # noqa: ANN201 — an OpenCV object
    """The ChArUco board ``tabletop photo calibrate`` expects."""
    import cv2

    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_100)
    return cv2.aruco.CharucoBoard(BOARD_SQUARES, BOARD_SQUARE_MM, BOARD_MARKER_MM, dictionary)


def board_image(px_per_mm: float = 8.0) -> np.ndarray:
    """The board as a grey image to print (with a white margin)."""
    w = int(BOARD_SQUARES[0] * BOARD_SQUARE_MM * px_per_mm)
    h = int(BOARD_SQUARES[1] * BOARD_SQUARE_MM * px_per_mm)
    margin = int(10 * px_per_mm)
    return np.asarray(board().generateImage((w + 2 * margin, h + 2 * margin), marginSize=margin, borderBits=1))


def calibrate_board(images: list[np.ndarray], min_corners: int = 8) -> LensFile:
    """The lens from photos of the printed ChArUco board (grey or BGR, all the same size): focal length, principal
    point, k1, k2 (square pixels, no tangential distortion). PhotoError if fewer than three photos show the board."""
    import cv2

    b = board()
    detector = cv2.aruco.CharucoDetector(b)
    obj_pts, img_pts = [], []
    size = None
    for img in images:
        grey = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        if size is None:
            size = (grey.shape[1], grey.shape[0])
        elif size != (grey.shape[1], grey.shape[0]):
            raise PhotoError("calibrate: every board photo must have the same size (same phone, same setting)")
        corners, ids, _, _ = detector.detectBoard(grey)
        if ids is None or len(ids) < min_corners:
            continue
        o, i = b.matchImagePoints(corners, ids)
        if o is None or len(o) < min_corners:
            continue
        obj_pts.append(o.astype(np.float32))
        img_pts.append(i.astype(np.float32))
    if size is None or len(obj_pts) < 3:
        raise PhotoError(f"calibrate: the board was found in {len(obj_pts)} photo(s); at least 3 are needed, "
                         "taken from different angles")
    w, h = size
    k0 = np.array([[typical_focal(size), 0, (w - 1) / 2], [0, typical_focal(size), (h - 1) / 2], [0, 0, 1]])
    flags = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_ASPECT_RATIO | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K3)
    rms, k, dist, _, _ = cv2.calibrateCamera(obj_pts, img_pts, size, k0, np.zeros(5), flags=flags)
    return LensFile((w, h), float(k[0, 0]), (float(k[0, 2]), float(k[1, 2])), float(dist.ravel()[0]), float(dist.ravel()[1]),
                    float(rms), len(obj_pts))
