"""A phone camera: pinhole with a real pose and focal length, square pixels, radial distortion.

Conventions are OpenCV's, so a detector can check itself with ``cv2.projectPoints``:
a world point P (table mm, z up) goes to the camera frame as ``R @ (P - centre)`` (x right,
y down, z forward), to normalised coordinates (x/z, y/z), is distorted by
``1 + k1 r^2 + k2 r^4`` and lands at ``f * x_d + cx``, ``f * y_d + cy``. Pixel centres are
at integer coordinates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

FULL_FRAME_DIAGONAL_MM = math.hypot(36.0, 24.0)
"""A phone's "26 mm equivalent" lens has the angle of view of a 26 mm lens on a 36 x 24 mm frame (by diagonal)."""

UNDISTORT_ITERATIONS = 12
RAY_BAND_ROWS = 64
"""Rows of the ray grid built at a time."""
UNDISTORT_GRID_PX = 8
"""Rays are computed exactly on a grid this coarse and interpolated between: radial distortion is smooth
enough that the interpolation error stays under 0.01 px for |k1| <= 0.2 on a 12 MP frame."""


@dataclass(frozen=True)
class Camera:
    """A pinhole camera with radial distortion (k1, k2), square pixels."""

    width: int
    height: int
    focal_px: float
    cx: float
    cy: float
    rotation: np.ndarray
    """3x3, world -> camera."""
    centre: np.ndarray
    """Camera centre in world mm."""
    k1: float = 0.0
    k2: float = 0.0

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.focal_px, 0.0, self.cx], [0.0, self.focal_px, self.cy], [0.0, 0.0, 1.0]])

    @property
    def dist(self) -> np.ndarray:
        """OpenCV's distortion vector (k1, k2, p1, p2, k3)."""
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0])

    @property
    def tvec(self) -> np.ndarray:
        return -self.rotation @ self.centre

    @property
    def rvec(self) -> np.ndarray:
        import cv2

        r, _ = cv2.Rodrigues(self.rotation)
        return r.ravel()

    @property
    def focal_equiv_mm(self) -> float:
        return self.focal_px * FULL_FRAME_DIAGONAL_MM / math.hypot(self.width, self.height)

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        """World points (n, 3) to camera-frame points (n, 3)."""
        return (np.asarray(points, dtype=np.float64) - self.centre) @ self.rotation.T

    def distort(self, xn: np.ndarray, yn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r2 = xn * xn + yn * yn
        g = 1.0 + self.k1 * r2 + self.k2 * r2 * r2
        return xn * g, yn * g

    def undistort(self, xd: np.ndarray, yd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Distorted normalised coordinates to undistorted ones (fixed-point iteration)."""
        x, y = xd.copy(), yd.copy()
        for _ in range(UNDISTORT_ITERATIONS):
            r2 = x * x + y * y
            g = 1.0 + self.k1 * r2 + self.k2 * r2 * r2
            x, y = xd / g, yd / g
        return x, y

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (n, 3) to pixels (n, 2) of the distorted photo (NaN behind the camera)."""
        c = self.to_camera(points)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(c[:, 2] > 1e-9, c[:, 2], np.nan)
            xd, yd = self.distort(c[:, 0] / z, c[:, 1] / z)
        return np.stack([self.focal_px * xd + self.cx, self.focal_px * yd + self.cy], axis=1)

    def depth(self, points: np.ndarray) -> np.ndarray:
        """Camera-frame z of world points: the ray parameter ``t`` of ``rays`` at that point."""
        return self.to_camera(points)[:, 2]

    def rays_at(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Unnormalised world directions (3, ...) through pixel positions; camera-frame z of each is 1."""
        xd = (np.asarray(u, dtype=np.float64) - self.cx) / self.focal_px
        yd = (np.asarray(v, dtype=np.float64) - self.cy) / self.focal_px
        x, y = self.undistort(xd, yd)
        rt = self.rotation.T
        return np.stack([rt[i, 0] * x + rt[i, 1] * y + rt[i, 2] for i in range(3)])

    def ray_grid(self, jitter: np.ndarray | None = None) -> np.ndarray:
        """World ray directions (3, height, width) float32 through every pixel (+ an optional (2, h, w) sub-pixel jitter).

        Undistortion is exact on a coarse grid and bilinear in between (see UNDISTORT_GRID_PX).
        """
        import cv2

        step = UNDISTORT_GRID_PX
        gw, gh = self.width // step + 3, self.height // step + 3
        gu, gv = np.meshgrid(np.arange(gw) * step - step, np.arange(gh) * step - step)
        xd = (gu - self.cx) / self.focal_px
        yd = (gv - self.cy) / self.focal_px
        x, y = self.undistort(xd, yd)
        xg, yg = x.astype(np.float32), y.astype(np.float32)
        rt = self.rotation.T.astype(np.float32)
        out = np.empty((3, self.height, self.width), np.float32)
        columns = np.arange(self.width, dtype=np.float32)
        # A band of rows at a time (each pixel's ray on its own; a band's arrays stay in the cache).
        for r0 in range(0, self.height, RAY_BAND_ROWS):
            r1 = min(self.height, r0 + RAY_BAND_ROWS)
            # The grid's texel of each pixel: mx = (u + jitter + step) / step, my likewise, in place (the same float32
            # operations in the same order as that expression).
            mx = np.empty((r1 - r0, self.width), np.float32)
            my = np.empty((r1 - r0, self.width), np.float32)
            mx[...] = columns[None, :]
            my[...] = np.arange(r0, r1, dtype=np.float32)[:, None]
            if jitter is not None:
                mx += jitter[0, r0:r1]
                my += jitter[1, r0:r1]
            mx += step
            mx /= step
            my += step
            my /= step
            xs = cv2.remap(xg, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            ys = cv2.remap(yg, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            term = np.empty_like(ys)
            for i in range(3):
                band = out[i, r0:r1]
                np.multiply(xs, rt[i, 0], out=band)
                np.multiply(ys, rt[i, 1], out=term)  # rt[i, 1] * ys
                band += term
                band += rt[i, 2]
        return out

    def elevation_deg(self, target: np.ndarray) -> float:
        """Angle of the line of sight to ``target`` above the table plane."""
        d = self.centre - np.asarray(target, dtype=np.float64)
        return math.degrees(math.atan2(d[2], math.hypot(d[0], d[1])))

    def as_json(self) -> dict[str, object]:
        return {
            "width": self.width,
            "height": self.height,
            "K": self.K.round(4).tolist(),
            "dist": [round(float(v), 6) for v in self.dist],
            "R": self.rotation.round(9).tolist(),
            "rvec": [round(float(v), 9) for v in self.rvec],
            "tvec": [round(float(v), 6) for v in self.tvec],
            "centre_mm": [round(float(v), 4) for v in self.centre],
            "focal_px": round(self.focal_px, 4),
            "focal_equiv_mm": round(self.focal_equiv_mm, 3),
        }


def look_at(eye: np.ndarray, target: np.ndarray, roll_deg: float = 0.0) -> np.ndarray:
    """World -> camera rotation of a camera at ``eye`` looking at ``target``, image up towards world +z, then rolled."""
    eye, target = np.asarray(eye, float), np.asarray(target, float)
    forward = target - eye
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, np.array([0.0, 0.0, 1.0]))
    if np.linalg.norm(right) < 1e-9:  # looking straight down: image up is world +y
        right = np.cross(forward, np.array([0.0, 1.0, 0.0]))
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    rot = np.stack([right, down, forward])
    a = math.radians(roll_deg)
    roll = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    return roll @ rot


def focal_px_for(width: int, height: int, focal_equiv_mm: float) -> float:
    """Focal length in pixels of a lens of ``focal_equiv_mm`` (35 mm equivalent, by diagonal) on this frame."""
    return focal_equiv_mm * math.hypot(width, height) / FULL_FRAME_DIAGONAL_MM
