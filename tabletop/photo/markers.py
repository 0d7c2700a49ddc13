"""Printed markers at the table's corners: the sheet to print, and the table's corners and the lens from a photo that
shows them (issue 35).

**The sheet** (``marker_sheet``; ``tabletop photo markers -o markers.pdf``): four ArUco markers of OpenCV's
``DICT_4X4_50``, ids 0-3 for the table's lower-left, lower-right, upper-right and upper-left corners. Each is a black
square of ``MARKER_SIZE_MM`` with ``MARKER_MARGIN_MM`` of white paper round it to its cut line. The cut square's corner
at the marker's *printed lower-left* is its **corner point**: pushed into the table's corner (the sheet's cut edges along
the table's edges), the black square lies in a known place from the table's corner, whichever way the piece is turned.

**From a photo** (``find_markers``, ``table_from_markers``):

1. *Find*: ArUco's detector on a copy of at most ``DETECT_SIDE_PX`` (it only has to name the markers and place them
   roughly).
2. *Refine*: each black square's four sides are followed on the photo itself: profiles across each side (intensities
   linearised, so the phone's tone curve does not shift the edge), the steepest point of each to a fraction of a pixel,
   a straight line through them; the square's corners are the lines' intersections.
3. *Camera*: focal length, pose, radial lens (k1) and principal point are fitted to the corners of every marker seen
   (each piece may lie turned a little about its corner point; that turn is fitted too). Straight lines between markers
   a metre apart are bent by the lens and the squares' own sides are straight: where two or more markers are seen this
   is the photo's lens.
4. *Corners*: a marker seen gives its corner point from its own square (its homography extrapolated a few millimetres,
   in undistorted pixels), so neither the camera model's errors nor what hides the table's edge reach it; a corner whose
   marker is not seen (the table cut by the frame) is projected through the camera fitted to the three others.

OpenCV is imported only when a photo is read or a sheet drawn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tabletop.photo.camera import Camera, Distortion, LensFile, focal_from_homography, pose_from_homography, typical_focal
from tabletop.photo.imageio import check_corners
from tabletop.photo.values import Corners, PhotoError, apply_homography

MARKER_DICTIONARY = "DICT_4X4_50"
"""OpenCV's ArUco dictionary: 4x4 bits, the most robust at small sizes; ids 0-3 are used."""
CORNER_NAMES = ("lower-left", "lower-right", "upper-right", "upper-left")
MARKER_SIZE_MM = 50.0
"""The printed black square's side: 8.3 mm cells, about 25 photo pixels on a 48-inch table in a 12 MP photo."""
MARKER_MARGIN_MM = 8.0
"""White paper from the black square to the cut line: about one cell, the quiet zone ArUco's detector needs."""
MARKER_TURN_DEG = (0.0, 90.0, 180.0, 270.0)
"""How marker k lies at table corner k (LL, LR, UR, UL) with its printed lower-left corner in the table's corner:
turned counter-clockwise by this (seen from above) from upright on the table's near edge."""
PAPER_MM = 0.1
"""A printed sheet's thickness: the markers lie this far above the mat."""
PLACEMENT_SIGMA_MM = 0.2
"""1-sigma of how well a cut corner is pushed into the table's corner: a careful scissor cut along the printed line and
a piece laid by hand against both edges (a mat's rounded corner or a chamfered table edge adds more; see docs/photo.md)."""

DETECT_SIDE_PX = 2000
"""ArUco's detector runs on a copy at most this long: a 50 mm marker is then 70+ px across on a 1.8 m table."""
EDGE_SAMPLES_PER_PX = 2.0
"""Profiles across a square's side per pixel of its length: every one holds a little of the edge's noise."""
CENTROID_HALF_PX = 1.5
"""Half-width of the window round a profile's steepest point whose centroid places the edge."""
SQUARE_CELLS = 6
"""A 4x4 marker with its one-cell black border: six cells across."""
PROFILE_CELLS = 0.35
"""How far either side of a square's side its edge is looked for, in cells: less than the one-cell border, so the
marker's inner bits are never taken for its outline."""
OBSERVED_SIGMA_PX = 0.15
"""1-sigma of a refined square corner (px) assumed in the camera fit (its residuals set the scale afterwards)."""
TURN_SIGMA_DEG = 3.0
"""Prior 1-sigma of a piece's turn about its corner point: laid by hand against the table's edges."""
CENTRE_SIGMA = 0.01
"""Prior 1-sigma of the principal point's offset from the photo's centre, as a fraction of its width."""
K1_SIGMA = 0.3
"""Prior 1-sigma of k1 (per half-diagonal squared): wide, every phone's main camera is well inside it."""
FOCAL_PRIOR_SIGMA = 0.5
"""Prior 1-sigma of the focal length's logarithm: only to keep the fit defined with two markers."""
EDGE_BIAS_SIGMA_PX = 1.5
"""Prior 1-sigma of the edges' bias (px): wide; the fit measures it."""
MARKER_BIAS_SIGMA_PX = 0.25
"""Prior 1-sigma of one marker's edge bias about the photo's (glare on one piece, a shadow over another)."""
FIT_ITERATIONS = 40
SIDE_SEARCH_MIN_PX, SIDE_SEARCH_MAX_PX = 4.0, 25.0
"""How far either side of where the camera puts a side its edge is looked for: this little at the marker's corner
(where the camera is sure), three of the cut corner's 1-sigmas at the corner; near enough to miss the foot of the
table's front face and most terrain edges."""
SIDE_ANCHOR_PX = 1.5
"""A side's edge points, fitted freely, pass this close to the marker's corner at its other end when they are the
table's edge (and not a parallel line: the front face's foot, a terrain edge)."""
CONSISTENT_RMS_PX = 0.6
"""The markers' corners lie within this of where the fitted camera puts them (RMS, px) when the table's size and the
markers' places are right: refined corners are good to a tenth or two of a pixel; a table size 1 % off or a piece
turned to another corner leaves pixels."""
MIN_MARKERS_FOR_CORNERS = 3
"""Markers needed to place all four corners (three corners and the camera fitted to them give the fourth)."""
MIN_MARKERS_FOR_LENS = 2


# ---------------------------------------------------------------------------------------------- geometry


def local_corners_mm() -> np.ndarray:
    """A marker's black-square corners in ArUco's order (printed top-left, top-right, bottom-right, bottom-left), in
    the marker's own frame with its corner point (the cut square's printed lower-left) at the origin, x right, y up."""
    h = MARKER_SIZE_MM / 2
    reach = MARKER_MARGIN_MM + h
    return np.array([[-h, h], [h, h], [h, -h], [-h, -h]]) + reach


def table_corners_mm(table_mm: tuple[float, float]) -> np.ndarray:
    """The table's corners LL, LR, UR, UL (mm)."""
    w, d = table_mm
    return np.array([[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]])


def marker_corners_on_table(k: int, table_mm: tuple[float, float], turn_deg: float = 0.0) -> np.ndarray:
    """Where marker ``k``'s black-square corners lie on the table (mm), its piece turned ``turn_deg`` more than
    ``MARKER_TURN_DEG[k]`` about its corner point."""
    a = math.radians(MARKER_TURN_DEG[k] + turn_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return local_corners_mm() @ rot.T + table_corners_mm(table_mm)[k]


# ---------------------------------------------------------------------------------------------- the sheet


def marker_sheet(dpi: float = 300.0) -> np.ndarray:
    """The A4 sheet to print (grey, uint8, portrait, ``dpi`` pixels per inch): four markers with their cut lines, the
    corner each goes to, the corner point marked, and a 100 mm bar to check the print's scale."""
    import cv2
    from PIL import Image, ImageDraw, ImageFont

    px = dpi / 25.4
    width, height = round(210 * px), round(297 * px)
    sheet = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(sheet)

    def font(mm: float) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
        return ImageFont.load_default(size=max(8, round(mm * px)))

    def at(x_mm: float, y_mm: float) -> tuple[int, int]:
        return round(x_mm * px), round(y_mm * px)

    draw.text(at(15, 12), "Tabletop: table-corner markers", fill=0, font=font(7))
    lines = [
        "Print at 100 % (actual size; no 'fit to page'). Each black square must measure 50 mm, the bar below 100 mm.",
        "Cut each marker out along its dashed line. Push its corner marked with the grey triangle into the table's",
        "corner named under it, the cut edges along the table's edges, flat on the mat, nothing over the black square.",
        "A photo that shows three or four of them gives the table's corners to a fraction of a pixel and the lens, even",
        "where terrain hides the table's edge, the floor matches the mat, or the frame cuts a corner off.",
    ]
    for i, line in enumerate(lines):
        draw.text(at(15, 24 + 5.2 * i), line, fill=0, font=font(3.4))
    bar_y = 54.0
    draw.rectangle([at(15, bar_y), at(115, bar_y + 2)], fill=0)
    for mm in range(0, 101, 10):
        draw.line([at(15 + mm, bar_y - 1.5), at(15 + mm, bar_y + 2)], fill=0, width=max(1, round(0.3 * px)))
    draw.text(at(118, bar_y - 1.5), "100 mm", fill=0, font=font(3.4))

    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, MARKER_DICTIONARY))
    cut = MARKER_SIZE_MM + 2 * MARKER_MARGIN_MM
    square_px = round(MARKER_SIZE_MM * px)
    origins = [(22.0, 80.0), (122.0, 80.0), (22.0, 180.0), (122.0, 180.0)]  # top-left of each cut square, mm
    order = (3, 2, 0, 1)  # laid out as on the table: upper-left, upper-right above lower-left, lower-right
    for (x0, y0), k in zip(origins, order):
        bits = cv2.aruco.generateImageMarker(dictionary, k, SQUARE_CELLS)
        square = Image.fromarray(np.asarray(bits, np.uint8)).resize((square_px, square_px), Image.Resampling.NEAREST)
        sheet.paste(square, at(x0 + MARKER_MARGIN_MM, y0 + MARKER_MARGIN_MM))
        _dashed_square(draw, at(x0, y0), at(x0 + cut, y0 + cut), round(2.5 * px), max(1, round(0.25 * px)))
        # The corner point: the cut square's printed lower-left, marked light enough not to disturb the detector.
        leg = 4.0
        draw.polygon([at(x0, y0 + cut), at(x0 + leg, y0 + cut), at(x0, y0 + cut - leg)], fill=190)
        draw.text(at(x0 + MARKER_MARGIN_MM + 6, y0 + cut - 4.0), f"{k}  {CORNER_NAMES[k]}", fill=200, font=font(2.6))
        draw.text(at(x0, y0 + cut + 3), f"marker {k}: the table's {CORNER_NAMES[k].upper()} corner", fill=0, font=font(3.6))
        draw.text(at(x0, y0 + cut + 8.5), "grey triangle = the corner point, into the table's corner", fill=90, font=font(3.0))
    draw.text(at(15, 282), "OpenCV ArUco DICT_4X4_50, ids 0-3; black squares 50 mm, cut lines 8 mm outside them. "
              "Without markers the table is found from its edges as before.", fill=90, font=font(2.8))
    return np.asarray(sheet)


def _dashed_square(draw: object, top_left: tuple[int, int], bottom_right: tuple[int, int], dash: int, width: int) -> None:
    (x0, y0), (x1, y1) = top_left, bottom_right
    for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        n = max(1, int(length // (2 * dash)))
        for i in range(n + 1):
            s, e = 2 * i * dash / length, min(1.0, (2 * i + 1) * dash / length)
            if s >= 1.0:
                break
            p = (a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s)
            q = (a[0] + (b[0] - a[0]) * e, a[1] + (b[1] - a[1]) * e)
            draw.line([p, q], fill=120, width=width)  # type: ignore[attr-defined]


def write_marker_sheet(path: str, dpi: float = 300.0) -> None:
    """Write the sheet as PDF (A4 at ``dpi``: printed at 100 % every length is true) or PNG (its DPI recorded)."""
    import io

    from PIL import Image

    from tabletop.atomic import atomic_write

    image = Image.fromarray(marker_sheet(dpi))
    buf = io.BytesIO()
    if path.lower().endswith(".pdf"):
        image.save(buf, "PDF", resolution=dpi, title="Tabletop table-corner markers")
    else:
        image.save(buf, "PNG", dpi=(dpi, dpi))
    atomic_write(path, buf.getvalue())


# ---------------------------------------------------------------------------------------------- finding the markers


@dataclass(frozen=True, eq=False)
class Sighting:
    """One marker found in a photo: its id and its black square's sides' edge points (photo pixels, per side: the
    printed top, right, bottom and left sides in ArUco's corner order)."""

    id: int
    rough: np.ndarray
    """(4, 2) the detector's corners (photo pixels, ArUco's order)."""
    sides: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

    def corners(self, lens: Distortion | None = None, grow_px: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """The square's corners (4, 2) from its sides' lines, in undistorted pixels when ``lens`` is given (else the
        photo's), each line first moved ``grow_px`` outward (the edges' bias, see ``_Model``), and each corner's
        1-sigma (px) from the lines' scatter."""
        lines = [_fit_line(lens.remove(s) if lens is not None else s) for s in self.sides]
        centre = np.mean([p for p, _, _ in lines], axis=0)
        moved = []
        for p, d, sd in lines:
            outward = np.array([-d[1], d[0]])
            if np.dot(p - centre, outward) < 0:
                outward = -outward
            moved.append((p + grow_px * outward, d, sd))
        out = np.zeros((4, 2))
        sigma = np.zeros(4)
        for k in range(4):
            # ArUco's corner k joins side k-1 (left of the printed top-left) and side k.
            (p1, d1, s1), (p2, d2, s2) = moved[(k - 1) % 4], moved[k]
            out[k], sine = _intersect(p1, d1, p2, d2)
            sigma[k] = math.hypot(s1, s2) / max(sine, 0.2)
        return out, sigma


def _shrunk(quads: np.ndarray, by_px: np.ndarray) -> np.ndarray:
    """Quadrilaterals (m, 4, 2) with every side moved ``by_px`` (m,) inward: where their corners are seen when each
    edge is found that far inside the true one."""
    nxt = np.roll(quads, -1, axis=1)
    d = nxt - quads
    d /= np.linalg.norm(d, axis=2, keepdims=True)
    n = np.stack([-d[..., 1], d[..., 0]], axis=2)
    centre = quads.mean(axis=1, keepdims=True)
    n *= np.where(np.sum((centre - quads) * n, axis=2, keepdims=True) < 0, -1.0, 1.0)  # inward
    n_prev = np.roll(n, 1, axis=1)  # corner k joins side k-1 and side k
    a = np.stack([n_prev, n], axis=2)  # (m, 4, 2 rows, 2)
    rhs = np.broadcast_to(by_px[:, None, None], quads.shape[:2] + (2,))
    return quads + np.linalg.solve(a, rhs[..., None])[..., 0]


def _fit_line(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Total-least-squares line through edge points, refitted without points over 3 MADs off: a point, the direction,
    and the 1-sigma of its offset (px; neighbouring edge points are correlated by blur, so at most one in three counts)."""
    keep = np.ones(len(points), bool)
    for _ in range(2):
        centre = points[keep].mean(axis=0)
        _, _, vt = np.linalg.svd(points[keep] - centre, full_matrices=False)
        direction = vt[0]
        normal = np.array([-direction[1], direction[0]])
        res = (points - centre) @ normal
        mad = 1.4826 * float(np.median(np.abs(res[keep]))) + 0.02
        keep = np.abs(res) <= 3 * mad
        if keep.sum() < 4:
            keep = np.ones(len(points), bool)
            break
    rms = float(np.sqrt(np.mean(res[keep] ** 2)))
    return centre, direction, rms / math.sqrt(max(1.0, keep.sum() / 3.0))


def _intersect(p1: np.ndarray, d1: np.ndarray, p2: np.ndarray, d2: np.ndarray) -> tuple[np.ndarray, float]:
    a = np.array([d1, -d2]).T
    t = np.linalg.solve(a, p2 - p1)
    return p1 + t[0] * d1, abs(float(d1[0] * d2[1] - d1[1] * d2[0]))


def _linear(grey: np.ndarray) -> np.ndarray:
    """8-bit sRGB-coded intensities to linear light (0..1): an edge's steepest point is then where the light changes
    most, not where the phone's tone curve bends."""
    v = grey.astype(np.float32) / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4).astype(np.float32)


def _side_edges(grey: np.ndarray, a: np.ndarray, b: np.ndarray, outward: np.ndarray, half: float) -> np.ndarray:
    """Edge points of the black square's side from ``a`` to ``b``: where the light rises most steeply going outward."""
    import cv2

    length = float(np.linalg.norm(b - a))
    n = int(np.clip(length * EDGE_SAMPLES_PER_PX, 12, 800))
    t = np.linspace(0.12, 0.88, n)
    base = a[None, :] + t[:, None] * (b - a)[None, :]
    step = 0.25
    offsets = np.arange(-half, half + step / 2, step)
    pts = base[:, None, :] + offsets[None, :, None] * outward[None, None, :]
    x0, y0 = np.floor(pts.reshape(-1, 2).min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(pts.reshape(-1, 2).max(axis=0)).astype(int) + 3
    h, w = grey.shape[:2]
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return np.zeros((0, 2))
    crop = _linear(grey[y0:y1, x0:x1])
    map_x = (pts[..., 0] - x0).astype(np.float32)
    map_y = (pts[..., 1] - y0).astype(np.float32)
    values = cv2.remap(crop, map_x, map_y, cv2.INTER_LINEAR)
    grad = np.gradient(values, step, axis=1)
    i = np.argmax(grad[:, 1:-1], axis=1) + 1
    rows = np.arange(len(i))
    g1 = grad[rows, i]
    # The centroid of the rise within a pixel and a half of its steepest point: steadier than a parabola's vertex on
    # a noisy profile.
    window = np.abs(offsets[None, :] - offsets[i][:, None]) <= CENTROID_HALF_PX
    weight = np.where(window, np.maximum(grad, 0.0), 0.0)
    where = np.sum(weight * offsets[None, :], axis=1) / np.maximum(np.sum(weight, axis=1), 1e-12)
    contrast = values[:, -1] - values[:, 0]
    strong = (g1 > 0.25 * np.max(g1)) & (contrast > 0.1) & (i > 1) & (i < len(offsets) - 2)
    return (base + where[:, None] * outward[None, :])[strong]


def _refine(grey: np.ndarray, rough: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Edge points of each side of the black square near ``rough`` (ArUco's order), followed twice (the second time
    along the lines the first found); None when a side is not seen well (cut by the frame, covered)."""
    quad = np.asarray(rough, dtype=np.float64)
    centre = quad.mean(axis=0)
    for _ in range(2):
        sides = []
        for k in range(4):
            a, b = quad[k], quad[(k + 1) % 4]
            length = float(np.linalg.norm(b - a))
            if length < 12:
                return None
            direction = (b - a) / length
            outward = np.array([-direction[1], direction[0]])
            if np.dot(a - centre, outward) < 0:
                outward = -outward
            cells = length / SQUARE_CELLS
            edges = _side_edges(grey, a, b, outward, max(2.0, PROFILE_CELLS * cells))
            if len(edges) < max(8, 0.5 * np.clip(length * EDGE_SAMPLES_PER_PX, 12, 800)):
                return None
            sides.append(edges)
        seen = Sighting(-1, quad, (sides[0], sides[1], sides[2], sides[3]))
        quad, _ = seen.corners()
        centre = quad.mean(axis=0)
    return (sides[0], sides[1], sides[2], sides[3])


def find_markers(image: np.ndarray) -> list[Sighting]:
    """The corner markers (ids 0-3, each seen once) in a photo (BGR or grey), their sides refined on the photo."""
    import cv2

    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape[:2]
    f = min(1.0, DETECT_SIDE_PX / max(h, w))
    small = cv2.resize(grey, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA) if f < 1.0 else grey
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, MARKER_DICTIONARY))
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    found, ids, _ = detector.detectMarkers(small)
    if ids is None:
        return []
    ids = ids.ravel().tolist()
    out = []
    for quad, k in zip(found, ids):
        if k not in (0, 1, 2, 3) or ids.count(k) != 1:
            continue  # another marker, or one printed twice: which corner it names is not known
        rough = (np.asarray(quad, dtype=np.float64).reshape(4, 2) + 0.5) / f - 0.5
        sides = _refine(grey, rough)
        if sides is not None:
            out.append(Sighting(int(k), rough, sides))
    return sorted(out, key=lambda s: s.id)


# ---------------------------------------------------------------------------------------------- the camera and the corners


@dataclass(frozen=True, eq=False)
class MarkerFit:
    """The table's outline and the camera from the markers seen in a photo (its pixels as given)."""

    seen: tuple[int, ...]
    """Ids of the markers found (0-3: LL, LR, UR, UL)."""
    camera: Camera
    """Focal length, pose and lens fitted to the markers' corners."""
    rms_px: float
    """RMS distance of the markers' corners from where the fitted camera puts them."""
    corners_px: Corners | None
    """The table's corners LL, LR, UR, UL; None with fewer than ``MIN_MARKERS_FOR_CORNERS`` markers."""
    corner_sigma_px: tuple[float, float, float, float] | None
    from_marker: tuple[bool, bool, bool, bool]
    """Per corner: whether its own marker was seen (else it lies where the camera fitted to the others puts it)."""
    turn_deg: dict[int, float]
    """How far each piece seen lies turned about its corner point (degrees, counter-clockwise)."""
    consistent: bool = True
    """Whether the markers sit where a table of the given size puts them (the fit within ``CONSISTENT_RMS_PX``)."""

    def lens_file(self, size: tuple[int, int]) -> LensFile:
        """The lens (and focal length) as a calibrated lens for a photo of ``size`` (the pixels the fit was made in)."""
        cam = self.camera
        k1, k2 = cam.distortion.opencv(cam.focal_px)
        return LensFile(size, cam.focal_px, cam.centre, k1, k2, self.rms_px, 0)

    def note(self) -> str:
        """What the markers gave, for the command's notes and the app's status bar."""
        names = ", ".join(CORNER_NAMES[k] for k in self.seen)
        k1, _ = self.camera.distortion.opencv(self.camera.focal_px)
        if self.corners_px is None:
            why = ("they do not make the table's outline (is each piece at the corner printed on it?)" if not self.consistent
                   else f"{MIN_MARKERS_FOR_CORNERS} are needed for the corners")
            return (f"{len(self.seen)} corner markers seen ({names}): the lens from them (k1 {k1:+.3f}); {why}, so the outline "
                    "comes from the table's edges")
        cut = [CORNER_NAMES[i] for i in range(4) if not self.from_marker[i]]
        extra = f"; the {' and '.join(cut)} corner placed from the others through the camera" if cut else ""
        if not self.consistent:
            extra += (f"; they do not fit a table of the size given ({self.rms_px:.1f} px RMS): is the size right, and each "
                      "piece at the corner printed on it?")
        return f"the table's corners from {len(self.seen)} printed markers ({names}; fit {self.rms_px:.2f} px RMS, lens k1 {k1:+.3f}){extra}"


def _rodrigues(rvec: np.ndarray) -> np.ndarray:
    theta = float(np.linalg.norm(rvec))
    if theta < 1e-12:
        return np.eye(3)
    k = rvec / theta
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(theta) * kx + (1 - math.cos(theta)) * (kx @ kx)


def _rvec(r: np.ndarray) -> np.ndarray:
    import cv2

    v, _ = cv2.Rodrigues(r)
    return v.ravel()


_GLOBAL = 11
"""The camera fit's parameters shared by every marker: log focal, rotation (3), translation (3), k1, principal point (2),
edge bias. (A free k2 was tried: with three markers it and the principal point are not fixed, and the corner cut by the
frame moved by pixels.)"""


class _Model:
    """The camera fit. Parameters: log focal, rotation vector, translation, k1, the principal point's offset, the edges'
    bias, then per marker seen its turn about its corner point and its own edge bias. Residuals: (predicted - observed)
    square corners / sigma, then the priors'.

    *Edge bias*: a black square's edge is found where the light rises most steeply, which the phone's tone curve
    (unknown, and clipped or lifted by glare) moves by a fraction of a pixel, inward or outward on every side alike, so a
    square looks a little smaller or larger than it is. Its corner point, outside the square, would move by more. The
    markers' sizes against their spacing on the table (whose size is known) measure it: one bias for the photo and a
    small one of each marker's (its light differs)."""

    def __init__(self, sightings: list[tuple[int, np.ndarray]], table_mm: tuple[float, float], size: tuple[int, int]) -> None:
        self.ids = [k for k, _ in sightings]
        self.observed = np.stack([c for _, c in sightings])  # (m, 4, 2)
        self.table_mm = table_mm
        self.size = size
        w, h = size
        self.centre0 = ((w - 1) / 2, (h - 1) / 2)
        self.scale = 0.5 * math.hypot(w, h)
        self.focal0 = typical_focal(size)
        self.m = len(self.ids)

    @property
    def n(self) -> int:
        return _GLOBAL + 2 * self.m

    def camera(self, p: np.ndarray) -> Camera:
        cx = self.centre0[0] + p[8] * self.size[0]
        cy = self.centre0[1] + p[9] * self.size[0]
        lens = Distortion((cx, cy), self.scale, float(p[7]))
        return Camera(float(math.exp(p[0])), (cx, cy), _rodrigues(p[1:4]), np.asarray(p[4:7], dtype=np.float64), lens)

    def turns(self, p: np.ndarray) -> np.ndarray:
        return p[_GLOBAL:_GLOBAL + self.m]

    def biases(self, p: np.ndarray) -> np.ndarray:
        """Each marker's edge bias (px, inward)."""
        return p[10] + p[_GLOBAL + self.m:_GLOBAL + 2 * self.m]

    def points(self, p: np.ndarray) -> np.ndarray:
        return np.stack([marker_corners_on_table(k, self.table_mm, math.degrees(t)) for k, t in zip(self.ids, self.turns(p))])

    def predicted(self, p: np.ndarray) -> np.ndarray:
        true = self.camera(p).project(self.points(p).reshape(-1, 2), PAPER_MM).reshape(self.m, 4, 2)
        return _shrunk(true, self.biases(p))

    def residuals(self, p: np.ndarray) -> np.ndarray:
        priors = [p[7] / K1_SIGMA, p[8] / CENTRE_SIGMA, p[9] / CENTRE_SIGMA, (p[0] - math.log(self.focal0)) / FOCAL_PRIOR_SIGMA,
                  p[10] / EDGE_BIAS_SIGMA_PX]
        priors += [t / math.radians(TURN_SIGMA_DEG) for t in self.turns(p)]
        priors += [b / MARKER_BIAS_SIGMA_PX for b in p[_GLOBAL + self.m:]]
        return np.concatenate([((self.predicted(p) - self.observed) / OBSERVED_SIGMA_PX).ravel(), priors])

    def start(self) -> np.ndarray:
        """From the homography of every corner seen (pieces assumed straight): focal length where it is defined, pose."""
        import cv2

        p = np.zeros(self.n)
        obj = self.points(p).reshape(-1, 2)
        h, _ = cv2.findHomography(obj, self.observed.reshape(-1, 2), 0)
        f = focal_from_homography(h, self.centre0) if h is not None else None
        if f is None or not (0.35 * self.size[0] <= f <= 6 * self.size[0]):
            f = self.focal0
        r, t = pose_from_homography(h, f, self.centre0) if h is not None else (np.eye(3), np.array([0, 0, 1000.0]))
        p[0], p[1:4], p[4:7] = math.log(f), _rvec(r), t
        return p

    def steps(self) -> np.ndarray:
        return np.array([1e-4, 1e-5, 1e-5, 1e-5, 1e-2, 1e-2, 1e-2, 1e-4, 1e-5, 1e-5, 1e-3] + [1e-5] * self.m + [1e-3] * self.m)


def _jacobian(model: _Model, p: np.ndarray) -> np.ndarray:
    cols = []
    for j, h in enumerate(model.steps()):
        d = np.zeros_like(p)
        d[j] = h
        cols.append((model.residuals(p + d) - model.residuals(p - d)) / (2 * h))
    return np.stack(cols, axis=1)


def _fit(model: _Model) -> tuple[np.ndarray, np.ndarray]:
    """Levenberg-Marquardt from the homography's start: the parameters and their covariance (scaled by the fit's own
    residuals where they exceed the assumed corner error)."""
    p = model.start()
    r = model.residuals(p)
    cost = float(r @ r)
    damping = 1e-3
    for _ in range(FIT_ITERATIONS):
        jac = _jacobian(model, p)
        a = jac.T @ jac
        g = jac.T @ r
        for _ in range(10):
            step = np.linalg.solve(a + damping * np.diag(np.diag(a) + 1e-12), -g)
            rt = model.residuals(p + step)
            trial = float(rt @ rt)
            if trial < cost:
                break
            damping *= 10
        else:
            break
        p, r, gain, cost = p + step, rt, cost - trial, trial
        damping = max(1e-9, damping / 5)
        if gain < 1e-6 * cost + 1e-9:
            break
    jac = _jacobian(model, p)
    n_obs = model.observed.size
    dof = max(1, n_obs - 8)
    chi2 = float(np.sum(r[:n_obs] ** 2)) / dof
    cov = np.linalg.pinv(jac.T @ jac) * max(1.0, chi2)
    return p, cov


def _corner_point(corners_und: np.ndarray) -> np.ndarray:
    """A marker's corner point in undistorted pixels from its square's four corners (undistorted pixels): the origin
    of the square's own frame, through the homography of its corners."""
    return apply_homography(_homography(local_corners_mm(), corners_und), np.zeros((1, 2)))[0]


def _homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The exact homography of four point pairs (float64 DLT)."""
    rows = []
    for (x, y), (u, v) in zip(src, dst):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    _, _, vt = np.linalg.svd(np.asarray(rows, dtype=np.float64))
    h = vt[-1].reshape(3, 3)
    return h / h[2, 2]


def table_from_markers(image: np.ndarray, table_mm: tuple[float, float], sightings: list[Sighting] | None = None) -> MarkerFit | None:
    """The table's corners and the camera from the corner markers in ``image`` (BGR or grey); None with fewer than
    ``MIN_MARKERS_FOR_LENS`` markers seen. Corners (photo pixels, LL, LR, UR, UL) need ``MIN_MARKERS_FOR_CORNERS``."""
    if sightings is None:
        sightings = find_markers(image)
    if len(sightings) < MIN_MARKERS_FOR_LENS:
        return None
    size = (image.shape[1], image.shape[0])
    model = _Model([(s.id, s.corners()[0]) for s in sightings], table_mm, size)
    p, _ = _fit(model)
    # Once more with each square's corners from its sides' lines straightened through the fitted lens.
    lens = model.camera(p).distortion
    model = _Model([(s.id, lens.apply(s.corners(lens)[0])) for s in sightings], table_mm, size)
    p, cov = _fit(model)
    cam = model.camera(p)
    n_obs = model.observed.size
    rms = float(np.sqrt(np.mean((model.residuals(p)[:n_obs] * OBSERVED_SIGMA_PX) ** 2)))
    turns = {k: math.degrees(float(t)) for k, t in zip(model.ids, model.turns(p))}
    biases = dict(zip(model.ids, (float(b) for b in model.biases(p))))
    if len(sightings) < MIN_MARKERS_FOR_CORNERS:
        seen_only = tuple(k in model.ids for k in range(4))
        return MarkerFit(tuple(model.ids), _with_sigma(cam, cov), rms, None, None, (seen_only[0], seen_only[1], seen_only[2], seen_only[3]), turns)
    by_id = {s.id: s for s in sightings}
    table = table_corners_mm(table_mm)
    corners = cam.project(table, 0.0)
    sigmas = np.array([math.hypot(_projection_sigma(model, p, cov, table[k]), PLACEMENT_SIGMA_MM * _px_per_mm(cam, table[k]))
                       for k in range(4)])
    consistent = rms <= CONSISTENT_RMS_PX
    grey = None
    for k in range(4):
        if k in by_id or not consistent:
            continue
        # The corner cut by the frame: the camera fitted to three markers cannot pin a point outside the photo to a
        # pixel (the principal point and the lens's outer terms are not fixed by them), but the two sides running to
        # it can be followed from the markers at their other ends.
        if grey is None:
            import cv2

            grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        found = corner_from_sides(grey, cam.distortion, corners, k, float(sigmas[k]))
        if found is not None:
            # The sides' corner and the camera's, each weighed by its own uncertainty.
            point, sigma = found
            w_sides, w_camera = 1 / max(sigma, 1e-3) ** 2, 1 / max(float(sigmas[k]), 1e-3) ** 2
            corners[k] = (w_sides * point + w_camera * corners[k]) / (w_sides + w_camera)
            sigmas[k] = math.hypot(1 / math.sqrt(w_sides + w_camera), PLACEMENT_SIGMA_MM * _px_per_mm(cam, table[k]))
    if not consistent:
        # The markers do not sit where a table of this size would put them (a wrong table size, a piece at the wrong
        # corner): each marker seen gives its own corner point, which does not depend on the table's size.
        for k, seen in by_id.items():
            und, square_sigma = seen.corners(cam.distortion, grow_px=biases[k])
            drop = cam.project(table[k:k + 1], 0.0)[0] - cam.project(table[k:k + 1], PAPER_MM)[0]
            corners[k] = cam.distortion.apply(_corner_point(und)[None, :])[0] + drop
            reach = float(np.linalg.norm(local_corners_mm().mean(axis=0))) / (MARKER_SIZE_MM / 2)
            sigmas[k] = math.hypot(rms * (1 + reach), PLACEMENT_SIGMA_MM * _px_per_mm(cam, table[k]))
    c = tuple((float(x), float(y)) for x, y in corners)
    sg = tuple(float(v) for v in sigmas)
    seen_at = tuple(k in by_id for k in range(4))
    try:
        check_corners((c[0], c[1], c[2], c[3]), size, where="markers", allow_outside=True)
    except PhotoError:
        # Not a table's outline (the pieces laid at other corners than printed on them): the lens still holds.
        return MarkerFit(tuple(model.ids), _with_sigma(cam, cov), rms, None, None, (seen_at[0], seen_at[1], seen_at[2], seen_at[3]),
                         turns, False)
    return MarkerFit(tuple(model.ids), _with_sigma(cam, cov), rms, (c[0], c[1], c[2], c[3]), (sg[0], sg[1], sg[2], sg[3]),
                     (seen_at[0], seen_at[1], seen_at[2], seen_at[3]), turns, consistent)


def _side_points(grey: np.ndarray, lens: Distortion, a: np.ndarray, b: np.ndarray, half_at_b: float) -> np.ndarray:
    """Edge points (undistorted px) of the table's side near the undistorted segment from ``a`` (a marker's corner,
    sure) to ``b`` (the camera's guess): the steepest step across it, looked for within ``SIDE_SEARCH_MIN_PX`` at ``a``
    widening to ``half_at_b`` at ``b`` (the guess's error grows along the side), of the sign the step has near ``a``
    (the mat on the same side all along), where the photo shows it."""
    import cv2

    length = float(np.linalg.norm(b - a))
    direction = (b - a) / length
    normal = np.array([-direction[1], direction[0]])
    t = np.linspace(0.03, 0.97, int(np.clip(length / 3.0, 20, 600)))
    base = a[None, :] + t[:, None] * (b - a)[None, :]
    step = 0.5
    half = max(half_at_b, SIDE_SEARCH_MIN_PX)
    offsets = np.arange(-half, half + step / 2, step)
    und = base[:, None, :] + offsets[None, :, None] * normal[None, None, :]
    px = lens.apply(und.reshape(-1, 2)).reshape(und.shape)
    h, w = grey.shape[:2]
    inside = np.all((px[..., 0] >= 2) & (px[..., 0] <= w - 3) & (px[..., 1] >= 2) & (px[..., 1] <= h - 3), axis=1)
    if inside.sum() < 10:
        return np.zeros((0, 2))
    values = cv2.remap(grey, px[inside, :, 0].astype(np.float32), px[inside, :, 1].astype(np.float32), cv2.INTER_LINEAR).astype(np.float32)
    grad = np.gradient(cv2.GaussianBlur(values, (1, 5), 0), step, axis=1)
    reach = SIDE_SEARCH_MIN_PX + (half - SIDE_SEARCH_MIN_PX) * t[inside]
    allowed = np.abs(offsets[None, :]) <= reach[:, None]
    near_a = t[inside] < 0.3
    strength = np.where(allowed, np.abs(grad), 0.0)
    peak = np.argmax(strength, axis=1)
    rows = np.arange(len(peak))
    sign = np.sign(np.median(grad[rows, peak][near_a])) if near_a.any() else 0.0
    if sign != 0.0:
        strength = np.where(allowed, np.maximum(sign * grad, 0.0), 0.0)
        peak = np.argmax(strength, axis=1)
    window = np.abs(offsets[None, :] - offsets[peak][:, None]) <= 1.0
    weight = np.where(window, strength, 0.0)
    where = np.sum(weight * offsets[None, :], axis=1) / np.maximum(np.sum(weight, axis=1), 1e-9)
    top = strength[rows, peak]
    strong = (top > 0.5 * np.median(top)) & (peak > 1) & (peak < len(offsets) - 2)
    return (base[inside] + where[:, None] * normal[None, :])[strong]


def _line_through(anchor: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, float, float] | None:
    """The line through ``anchor`` along the points' own (3-MAD trimmed) line: its direction, the 1-sigma of its angle
    (radians), and how far the points' line passes from the anchor (px). The direction is the points' own, not one
    forced through the anchor: where an edge is found a fraction of a pixel to one side all along (the phone's tone
    curve, a rounded edge) forcing it through the anchor would turn it."""
    keep = np.ones(len(points), bool)
    centre, direction = points.mean(axis=0), np.array([1.0, 0.0])
    for _ in range(4):
        if keep.sum() < 10:
            return None
        centre = points[keep].mean(axis=0)
        _, _, vt = np.linalg.svd(points[keep] - centre, full_matrices=False)
        direction = vt[0]
        res = (points - centre) @ np.array([-direction[1], direction[0]])
        mad = 1.4826 * float(np.median(np.abs(res[keep]))) + 0.05
        keep = np.abs(res) <= 3 * mad
    kept = points[keep]
    along = (kept - centre) @ direction
    res = (kept - centre) @ np.array([-direction[1], direction[0]])
    rms = float(np.sqrt(np.mean(res ** 2)))
    # Neighbouring edge points are correlated (blur, the mat's weave): count one in five.
    angle_sigma = rms / math.sqrt(max(1.0, float(np.sum(along ** 2)) / 5.0))
    # What the scatter does not show (a shadow or a piece of terrain along part of the side bending its edge): the two
    # halves' own directions disagree by it.
    halves = [kept[along <= np.median(along)], kept[along > np.median(along)]]
    if min(len(h) for h in halves) >= 5:
        dirs = []
        for h in halves:
            _, _, vt = np.linalg.svd(h - h.mean(axis=0), full_matrices=False)
            dirs.append(vt[0])
        angle_sigma = math.hypot(angle_sigma, 0.5 * abs(float(dirs[0][0] * dirs[1][1] - dirs[0][1] * dirs[1][0])))
    return direction, angle_sigma, abs(float((anchor - centre) @ np.array([-direction[1], direction[0]])))


def corner_from_sides(grey: np.ndarray, lens: Distortion, corners: np.ndarray, k: int, predicted_sigma: float,
                      anchor_px: float = 0.0) -> tuple[np.ndarray, float] | None:
    """Corner ``k`` (photo pixels; a guess, ``predicted_sigma`` px off) as the meeting of the table's two sides that run
    to it, each a straight line (through ``lens``) from the corner at its other end, which is sure (a marker's, or a
    click with the loupe); None where either side cannot be followed (hidden, or its edge does not pass through that
    corner: it is then not the table's edge; ``anchor_px`` more is allowed for a clicked corner). Also the corner's
    1-sigma (px)."""
    und = lens.remove(np.asarray(corners, dtype=np.float64))
    half = float(np.clip(3 * predicted_sigma, SIDE_SEARCH_MIN_PX, SIDE_SEARCH_MAX_PX))  # at the corner
    lines = []
    for other in ((k - 1) % 4, (k + 1) % 4):
        points = _side_points(grey, lens, und[other], und[k], half)
        fit = _line_through(und[other], points) if len(points) else None
        if fit is None or fit[2] > SIDE_ANCHOR_PX + anchor_px:
            return None
        lines.append((und[other], fit[0], fit[1], float(np.linalg.norm(und[k] - und[other]))))
    (p1, d1, s1, l1), (p2, d2, s2, l2) = lines
    point, sine = _intersect(p1, d1, p2, d2)
    if sine < 0.2:
        return None
    # Each line's angle error moves the corner by its length times the angle, across the other line.
    sigma = math.hypot(l1 * s1, l2 * s2) / sine
    return lens.apply(point[None, :])[0], sigma


def _with_sigma(cam: Camera, cov: np.ndarray) -> Camera:
    """The fitted camera with the 1-sigmas of its focal length (relative) and k1 from the fit's covariance."""
    from dataclasses import replace

    return replace(cam, focal_sigma=float(math.sqrt(max(0.0, cov[0, 0]))), k1_sigma=float(math.sqrt(max(0.0, cov[7, 7]))))


def _px_per_mm(cam: Camera, xy: np.ndarray) -> float:
    """Photo pixels per table millimetre at table point ``xy`` (the larger of the two axes)."""
    p = np.array([xy, xy + [1.0, 0.0], xy + [0.0, 1.0]], dtype=np.float64)
    q = cam.project(p, 0.0)
    return float(max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[0])))


def _projection_sigma(model: _Model, p: np.ndarray, cov: np.ndarray, xy: np.ndarray) -> float:
    """1-sigma (px, the larger axis) of where the fitted camera puts table point ``xy``: its covariance carried through."""
    def where(q: np.ndarray) -> np.ndarray:
        return model.camera(q).project(np.asarray(xy, dtype=np.float64)[None, :], 0.0)[0]

    jac = np.zeros((2, len(p)))
    for j, h in enumerate(model.steps()):
        d = np.zeros_like(p)
        d[j] = h
        jac[:, j] = (where(p + d) - where(p - d)) / (2 * h)
    c = jac @ cov @ jac.T
    return float(math.sqrt(max(0.0, float(np.max(np.linalg.eigvalsh(c))))))
