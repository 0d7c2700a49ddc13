"""Values the photo pipeline returns: frozen, no OpenCV needed to read them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tabletop.photo.camera import Camera

Point = tuple[float, float]
Corners = tuple[Point, Point, Point, Point]


class PhotoError(ValueError):
    """Bad input to the photo pipeline: the message is one line, fit for the user."""


@dataclass(frozen=True, eq=False)
class LoadedImage:
    """A decoded photo (BGR, uint8) and how it relates to the file's own pixels."""

    pixels: np.ndarray
    path: str
    original_size: tuple[int, int]
    scale: float = 1.0
    """Loaded pixels per file pixel (< 1 when a large photo was downscaled)."""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableFit:
    """The table's outline in the image: corners (lower-left, lower-right, upper-right, upper-left)."""

    corners_px: Corners
    confidence: float
    """How sure the outline is, 0..1: edge support and straightness of the four sides."""
    corner_sigma_px: tuple[float, float, float, float]
    """1-sigma position error of each corner, image pixels."""
    edge_rms_px: tuple[float, float, float, float]
    """RMS distance of each side's edge points from its fitted line (bottom, right, top, left)."""
    edge_points: tuple[np.ndarray, ...] = field(default=(), compare=False)
    """The edge points each side's line was fitted to (photo pixels), for measuring the lens."""


@dataclass(frozen=True, eq=False)
class Rectified:
    """A photo with its homography from table millimetres to image pixels."""

    source: np.ndarray
    """The photo (BGR); detection refines rims here, not in the resampled image."""
    homography: np.ndarray
    """3x3, maps table (x mm, y mm, 1) to image (x px, y px, w)."""
    table_mm: tuple[float, float]
    px_per_mm: float
    image: np.ndarray
    """Top-down image, row 0 = far edge (y = depth), ``px_per_mm`` pixels per mm."""
    calibration_rms_mm: float = 0.0
    camera: Camera | None = None
    """The camera's lens and pose where known: then ``homography`` maps to undistorted pixels and the lens is applied
    after it. None: the homography of the four corners alone (no lens, bases as flat discs)."""
    base_height_mm: float | None = 0.0
    """Every base's height (mm) where set; None: each catalogue size's own (``tabletop.photo.base_height_mm``)."""

    def table_to_image(self, points_mm: np.ndarray, z: float = 0.0) -> np.ndarray:
        """Table mm (n, 2), ``z`` mm above the mat, to image pixels (n, 2)."""
        if self.camera is not None:
            if z != 0.0:
                return self.camera.project(np.asarray(points_mm, dtype=np.float64).reshape(-1, 2), z)
            return self.camera.distortion.apply(apply_homography(self.homography, points_mm))
        return apply_homography(self.homography, points_mm)

    def image_to_table(self, points_px: np.ndarray) -> np.ndarray:
        """Image pixels (n, 2) to table mm (n, 2)."""
        if self.camera is not None:
            points_px = self.camera.distortion.remove(np.asarray(points_px, dtype=np.float64).reshape(-1, 2))
        return apply_homography(np.linalg.inv(self.homography), points_px)


@dataclass(frozen=True)
class Detection:
    """A base found on the table, in table millimetres (origin lower-left, y up): its footprint's centre."""

    x_mm: float
    y_mm: float
    diameter_mm: float
    """Snapped to the nearest catalogue size (an oval's: its length)."""
    fitted_diameter_mm: float
    confidence: float
    sigma_mm: float
    """1-sigma position uncertainty per axis: the rim fit's, the corners', the lens's and the base height's combined."""
    confident: bool = False
    """Whether the position can be trusted unchecked (``sigma_mm`` honest and small); false: "check this base"."""
    shape: str = "round"
    """``"round"`` or ``"oval"``."""
    width_mm: float = 0.0
    """An oval's width (its length is ``diameter_mm``); 0 for a round base."""
    rotation_deg: float = 0.0
    """An oval's long axis, counter-clockwise from the table's x axis, 0-180 degrees."""
    rotation_sigma_deg: float = 0.0

    def as_json(self) -> dict[str, object]:
        """The ``bases`` entry of ``tabletop photo --json``."""
        out: dict[str, object] = {"x_mm": round(self.x_mm, 3), "y_mm": round(self.y_mm, 3), "shape": self.shape}
        if self.shape == "oval":
            out.update(length_mm=self.diameter_mm, width_mm=self.width_mm, rotation_deg=round(self.rotation_deg, 2),
                       rotation_sigma_deg=round(self.rotation_sigma_deg, 2))
        else:
            out["diameter_mm"] = self.diameter_mm
        out.update(confidence=round(self.confidence, 3), sigma_mm=round(self.sigma_mm, 3), confident=bool(self.confident))
        return out


@dataclass(frozen=True)
class Unfitted:
    """Something on the table that looks like a base but fits no catalogue shape: where, and its outline (table mm)."""

    x_mm: float
    y_mm: float
    outline_mm: tuple[tuple[float, float], ...]
    raised: bool = False
    """A base standing on a raised surface (a hill's or a roof's top): its outline as the photo shows it on the table's
    plane, but where it stands depends on a height nothing here measures (millimetres to centimetres off)."""

    def as_json(self) -> dict[str, object]:
        return {"x_mm": round(self.x_mm, 2), "y_mm": round(self.y_mm, 2),
                "outline_mm": [[round(x, 2), round(y, 2)] for x, y in self.outline_mm], "raised": self.raised}


COARSE_MM_PER_PX = 0.85
"""Above this many table millimetres per photo pixel bases are missed and some found millimetres off: on
synthetic 48" tables, 0.53-0.82 mm/px found 35-40 of 40 bases, none over 0.8 mm off; 0.92-1.26 mm/px
26-37 of 40, worst 0.9-5.4 mm; 1.3-2.1 mm/px 8-38, worst 1.3-4.7 mm."""


@dataclass(frozen=True)
class PhotoResult:
    """Everything ``tabletop photo`` reports about one photo."""

    path: str
    image_size: tuple[int, int]
    table_mm: tuple[float, float]
    corners_px: Corners
    """In the file's own pixels, even when the photo was downscaled to work on."""
    corners_given: bool
    table_confidence: float
    calibration_rms_mm: float
    bases: tuple[Detection, ...]
    notes: tuple[str, ...] = field(default=())
    mm_per_px: float = 0.0
    """Table millimetres per photo pixel where the photo is coarsest on the table (0: not measured)."""
    camera: Camera | None = field(default=None, compare=False)
    """The camera measured from the table (focal length, pose, lens), in working pixels."""
    unfitted: tuple[Unfitted, ...] = ()
    """Things seen that look like bases but fit no catalogue shape."""

    @property
    def coarse(self) -> bool:
        """Whether the photo is too coarse for the bases found on it to be trusted unchecked."""
        return self.mm_per_px > COARSE_MM_PER_PX

    def as_json(self) -> dict[str, object]:
        """The object ``tabletop photo --json`` prints."""
        return {
            "table_mm": [round(self.table_mm[0], 3), round(self.table_mm[1], 3)],
            "corners_px": [[round(x, 2), round(y, 2)] for x, y in self.corners_px],
            "calibration_rms_mm": round(self.calibration_rms_mm, 3),
            "bases": [b.as_json() for b in self.bases],
            "unfitted": [u.as_json() for u in self.unfitted],
            "camera": self.camera_json(),
        }

    def camera_json(self) -> dict[str, object]:
        """What was measured of the camera: focal length (file pixels), OpenCV's k1, elevation at the table's centre."""
        cam = self.camera
        if cam is None:
            return {}
        scale = self.image_size[0] / max(1.0, 2 * cam.centre[0] + 1)
        k1, _ = cam.distortion.opencv(cam.focal_px)
        w, d = self.table_mm
        return {"focal_px": round(cam.focal_px * scale, 1), "focal_measured": cam.focal_measured, "k1": round(k1, 4),
                "elevation_deg": round(float(cam.elevation_deg(np.array([[w / 2, d / 2]]))[0]), 1)}


def apply_homography(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map (n, 2) points through a 3x3 homography."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    q = pts @ h[:, :2].T + h[:, 2]
    return q[:, :2] / q[:, 2:3]
