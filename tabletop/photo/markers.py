"""Printed markers at the table's corners: the sheet to print, and the table's corners and the lens from a photo that
shows them (issue 35).

**The sheet** (``marker_sheet``; ``tabletop photo markers -o markers.pdf``): four ArUco markers of OpenCV's
``DICT_4X4_50``, ids 0-3 for the table's lower-left, lower-right, upper-right and upper-left corners. Each is a black
square of ``MARKER_SIZE_MM`` with ``MARKER_MARGIN_MM`` of white paper round it to its cut line. The cut square's corner
at the marker's *printed lower-left* is its **corner point**: pushed into the table's corner (the sheet's cut edges along
the table's edges), the black square lies in a known place from the table's corner, whichever way the piece is turned.

**From a photo** (``find_markers``, ``table_from_markers``):

1. *Find*: ArUco's detector on a copy of at most ``DETECT_SIDE_PX`` (it only has to name the markers and place them
   roughly); a marker missing there is looked for at a lower contrast, then on the photo itself.
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
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from tabletop.photo.camera import Camera, Distortion, LensFile, focal_from_homography, pose_from_homography, typical_focal
from tabletop.photo.imageio import check_corners
from tabletop.photo.rays import nan_row_median
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
FAINT_CONTRAST = 0.03
"""The least rise of linear light across a square's side taken for its edge on a piece in a lamp's sheen whose bits the
detector still reads (a tenth of white otherwise): 3-4 levels of 255 near white, above a JPEG's noise there (1-2)."""
FAINT_THRESHOLD = 3.0
"""ArUco's adaptive threshold's constant (grey levels) for a second look when a marker is missing (OpenCV's default: 7):
a piece in a lamp's sheen shows its black squares 40-60 levels under its white."""
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
MAX_TURN_DEG = 20.0
"""A piece laid by hand lies a few degrees off square at most (the generator turns up to 1.5°): one fitted further round
its corner point is not laid as printed (a photo of the sheet itself, pieces laid on their sides), and the markers make
no table's outline."""
MAX_LENS_K1 = 1.0
"""OpenCV's k1 of any phone's main or wide camera is well inside this either way; a fit that bends the lens further is
joining markers that are not at a table's corners, and its lens is not the phone's."""
K2_SIGMA = 0.05
"""Prior 1-sigma of k2 (per half-diagonal to the fourth): fitted only where the table's sides are followed (the squares
alone do not fix it), and then it is what places a corner outside the frame (see ``_Model``)."""
SIDE_POINT_SIGMA_PX = 0.5
"""1-sigma of one edge point of the table's side about the side's line, as weighed in the camera fit: the scatter of a
found edge (0.2-0.3 px) widened because neighbouring points share the blur and the mat's weave."""
SIDE_POINTS_MAX = 160
"""Edge points per side kept for the camera fit (evenly spread): more add time, not information."""
SIDE_OFFSET_SIGMA_PX = 1.0
"""Prior 1-sigma of a side's edge offset (px): the table's edge is found a fraction of a pixel inside or outside the
mat's true edge (the slab's rounded edge, a contact shadow), so a side gives the camera its direction and its bend, not
its place."""
SIDE_TURN_SIGMA_PX = 0.25
"""Prior 1-sigma of how much further out a side's edge is found at one end of its followed span than at the middle (px):
what is found as the edge drifts along a side by a fraction of a pixel with the light, a contact shadow, and the slab's
face seen under a near edge (its height in the photo grows towards the camera), so a side's direction is known this much
less well than its points' scatter says. It matters for a corner outside the frame: the sides' directions carry it there."""
SIDE_CLEAR_MM = MARKER_SIZE_MM + 2 * MARKER_MARGIN_MM + 15.0
"""A side is followed from this far from either corner: the piece of paper lying there has its own edge, turned a
degree or two from the table's."""
SIDE_MIN_POINTS = 30
"""Fewer edge points than this left on a side (hidden by terrain, cut by the frame) and it is not used."""
SIDE_CORRELATED = 3.0
"""Neighbouring edge points of a side (a few pixels apart, the profiles blurred along the side over 15 px) share their
error: about this many count as one."""
STEP_WINDOW_PX = 2.0
"""Half-width of the window round a side's steepest point whose area places the edge (px): the edge's blur is 1-2 px."""
STEP_LEVEL_PX = 3.0
"""How far beyond that window the two levels either side of the edge are measured (px)."""
SIDE_CONSENSUS_PX = 2.0
"""A side's edge points lie this close to a straight line through the seen corner they are followed from (px): their own
scatter (0.2-1 px) and the bend the markers' lens leaves before the sides have measured k2."""
MAT_REFERENCE_PX = 3.0
"""The innermost this many pixels of a side's profiles (a side's width of search band and more inside the table's edge)
give the mat's own colour there."""
MAT_LIKE_FRACTION = 0.25
"""An edge point's inner side is the mat when it differs from the mat less than this fraction of the step's rise: a clean
edge's inner side differs by its noise and the mat's grain (a tenth of the rise or less), a strip between the mat and a
stronger step beyond it (the slab's face under a near edge, lit differently from its foot) by a third or more."""
MAT_RUN_PROFILES = 15
"""Neighbouring profiles (3 px apart) over which an edge's inner side is judged: 45 px of the side, longer than a textured
mat's blotches, shorter than the run of a slab's face or a shadow along the edge."""
SIDE_RUN_PROFILES = 31
"""Neighbouring profiles (3 px apart: 90 px of a side) whose steps' most common sign is each one's: the floor's light
under a side changes over hundreds of pixels (the lamp's fall-off, its tiles), so the floor may be darker than the mat at
one end of a side and lighter at the other; the colour that parts the mat from what lies beyond is then found for each
of the two parts on its own."""
SIDE_TRIMS = 4
"""Rounds of fitting and dropping the points over 3 MADs off their side: terrain on the edge can hold a third of a side, and
the first round's MAD is widened by it."""
TRIM_ITERATIONS = 6
"""Levenberg-Marquardt steps of each fit made only to find the points off their side (each starts where the last ended)."""
RUN_GAP_PX = 45.0
"""A side's edge points further apart than this (px, along the side) belong to two runs: terrain or the frame hides the
edge between them, and each run may have been found on an edge of its own (the table's, or a parallel one within
``SIDE_CONSENSUS_PX``: the foot of the front face, a shadow's edge)."""
RUN_MIN_POINTS = 10
"""A run with fewer points than this is not left out on its own (it moves the camera too little to matter)."""
RUN_AGREEMENT_SIGMAS = 2.0
"""A run that agrees with the rest moves the corner, when left out, by a random amount whose 1-sigma is what losing its
information explains; within this many of those 95 times in 100. Only a move beyond it is a disagreement."""
FREE_OFFSET_SIGMA_PX = SIDE_SEARCH_MAX_PX
"""A side's edge offset let free (``_offsets_released``, ``_disagreement``): its prior as wide as the band the side is
looked for in."""
OFFSET_REJECTED_SIGMAS = 3.0
"""A side's offset, fitted free, this many of its prior's sigmas from the mat's edge: its points follow another edge
(the prior is rejected, 3 in 1000 by chance) and the offset stays free."""
HOME_STRETCH_MM = 150.0
"""How much of each table side beyond a marker's piece is followed to see whether the piece lies in its corner."""
HOME_BAND_MM = 25.0
"""How far either side of where the camera puts a side its edge is looked for there (table mm at the piece's corner, in
px): the camera fitted to a piece 20 mm off its corner puts the side beside it about that far from the table's edge."""
HOME_LINE_SIGMA_PX = 1.0
"""A side's edge beyond a piece is judged only where its line, carried to the piece's corner point, is this sure (px): a
clean table edge is 0.05-0.5 px; a floor's planks or terrain taken for it 2-6 px."""
HOME_TURN_DEG = 3.0
"""... and runs within this of the camera's side there (degrees): a piece 3-20 mm off its corner turns the camera's side
by under a degree; an edge crossing the band at an angle is something else."""
HOME_MIN_POINTS = 12
"""Fewer edge points than this on a side's stretch beyond a piece (hidden, or short in the photo) and it is not judged."""
HOME_SIGMAS = 3.0
"""A piece's corner point this many of its gap's sigmas inside a table edge followed beyond it is not in its corner."""
UNSURE_CORNER_PX = 1.0
"""A corner placed from the others with a 1-sigma over this (px) is called unsure in the note."""
MIN_MARKERS_FOR_CORNERS = 3
"""Markers needed to place all four corners (three corners and the camera fitted to them give the fourth)."""
MIN_MARKERS_FOR_LENS = 2
CALIBRATED_K_SIGMA = 0.002
"""1-sigma of a calibrated lens's k1 and k2 (per half-diagonal's powers) held in the camera fit (``tabletop photo calibrate``:
a board over the whole frame in three or more photos fixes the lens at the frame's corners, where the table's sides
alone leave it to k2's extrapolation): 5 px of bend at the frame's corner each, wide of a good calibration."""
CALIBRATED_CENTRE_SIGMA = 0.001
"""1-sigma of a calibrated principal point held in the camera fit, as a fraction of the photo's width (4 px on 12 MP)."""


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
    # A square's black is at least a tenth of the white's light below it, or half what it is along the rest of this side
    # where the piece lies in a lamp's sheen (its black printed light grey, yet its bits read).
    least = max(FAINT_CONTRAST, min(0.1, 0.5 * float(np.median(contrast))))
    strong = (g1 > 0.25 * np.max(g1)) & (contrast > least) & (i > 1) & (i < len(offsets) - 2)
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
    faint = cv2.aruco.DetectorParameters()
    faint.adaptiveThreshConstant = FAINT_THRESHOLD
    detectors = [cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters()), cv2.aruco.ArucoDetector(dictionary, faint)]
    # Each marker missing after a look is looked for again: at a lower contrast (a piece in a lamp's sheen shows its
    # black printed light grey; the dictionary's bits still have to match, so the mat's print is not taken for a
    # marker), then on the photo itself (a far piece seen obliquely has cells of 4 px or less across on the reduced
    # copy, too few for the detector to read its bits; 0.2 s on 12 MP, where the lower contrast's look takes 0.5 s).
    looks = [(small, f, d) for d in detectors] + ([(grey, 1.0, detectors[0])] if f < 1.0 else [])
    found: dict[int, tuple[np.ndarray, object]] = {}
    twice: set[int] = set()
    for picture, scale, detector in looks:
        quads, ids, _ = detector.detectMarkers(picture)
        ids = [] if ids is None else ids.ravel().tolist()
        for quad, k in zip(quads, ids):
            if k not in (0, 1, 2, 3) or k in found or k in twice:
                continue
            if ids.count(k) != 1:
                twice.add(k)  # printed twice: which corner it names is not known
                continue
            rough = (np.asarray(quad, dtype=np.float64).reshape(4, 2) + 0.5) / scale - 0.5
            if scale < 1.0:
                rough = _full_resolution(grey, detector, int(k), rough)
            found[int(k)] = (rough, detector)
        if len(found) + len(twice) >= 4:
            break
    out = []
    for k, (rough, _) in found.items():
        sides = _refine(grey, rough)
        if sides is not None:
            out.append(Sighting(k, rough, sides))
    return sorted(out, key=lambda s: s.id)


def _full_resolution(grey: np.ndarray, detector: object, k: int, rough: np.ndarray) -> np.ndarray:
    """Marker ``k``'s corners found again by the detector on the photo itself round where the reduced copy put them: a
    small marker's corners from the copy can be off by more than the band its sides are then looked for in."""
    h, w = grey.shape[:2]
    reach = float(np.max(np.linalg.norm(rough - rough.mean(axis=0), axis=1)))
    x0, y0 = np.floor(rough.min(axis=0) - reach).astype(int)
    x1, y1 = np.ceil(rough.max(axis=0) + reach).astype(int)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < 20 or y1 - y0 < 20:
        return rough
    found, ids, _ = detector.detectMarkers(np.ascontiguousarray(grey[y0:y1, x0:x1]))  # type: ignore[attr-defined]
    if ids is None or list(ids.ravel()).count(k) != 1:
        return rough
    quad = np.asarray(found[list(ids.ravel()).index(k)], dtype=np.float64).reshape(4, 2) + [x0, y0]
    return quad if float(np.max(np.linalg.norm(quad - rough, axis=1))) < 0.5 * reach else rough


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
    not_home: tuple[int, ...] = ()
    """Ids of markers found but not in their corners (``_home_gaps``: a table edge runs on past the piece's corner point):
    left out of the fit, their corners placed from the others like a corner outside the frame."""
    home_gaps: tuple[tuple[int, int, float, float], ...] = ()
    """Each table side judged beyond a piece (``_home_gaps``): (marker, the side's other corner, how far the piece's
    corner point lies inside that edge (px), that gap's 1-sigma (px)); empty where no side was judged."""
    kept_not_home: tuple[int, ...] = ()
    """Ids of markers judged not in their corners but kept, as too few are seen without them for the corners: every
    corner's sigma then carries their largest gap."""
    home_doubt_px: float = 0.0
    """The largest gap every corner's sigma carries: a kept piece's judged not home, or one over its own sigma but under
    ``HOME_SIGMAS`` of it (a piece a little short, too little to leave out, still pulls the fit by about its gap)."""
    unchecked_home: tuple[int, ...] = ()
    """Ids of markers whose place no table side beside them could check (neither side's edge seen clearly beyond the
    piece: terrain, the frame, a floor of the mat's colour): trusted as in their corners, which the note says."""
    not_laid: str = ""
    """Why the markers are not laid at a table's corners at all (a piece turned far from square, a lens no phone has),
    empty when they may be: no outline from them, and with a lens no phone has, no lens either (``lens_trusted``)."""
    lens_trusted: bool = True

    def lens_file(self, size: tuple[int, int]) -> LensFile:
        """The lens (and focal length) as a calibrated lens for a photo of ``size`` (the pixels the fit was made in)."""
        cam = self.camera
        k1, k2 = cam.distortion.opencv(cam.focal_px)
        return LensFile(size, cam.focal_px, cam.centre, k1, k2, self.rms_px, 0)

    def note(self) -> str:
        """What the markers gave, for the command's notes and the app's status bar."""
        names = ", ".join(CORNER_NAMES[k] for k in self.seen)
        k1, _ = self.camera.distortion.opencv(self.camera.focal_px)
        if self.not_laid:
            lens = f"the lens from them (k1 {k1:+.3f}); " if self.lens_trusted else ""
            return (f"{len(self.seen)} corner markers seen ({names}) but not laid at a table's corners ({self.not_laid}): "
                    f"{lens}the outline comes from the table's edges. Is each piece at the corner printed on it, cut out and "
                    "pushed into it? (A photo of the sheet itself shows this)")
        if self.corners_px is None:
            if self.not_home:
                away = ", ".join(CORNER_NAMES[k] for k in self.not_home)
                return (f"{len(self.seen)} corner markers seen ({names}), but the {away} piece not in its corner (the table's "
                        f"edge runs on past it): too few left for the corners, so the outline comes from the table's edges; "
                        "push each piece into its corner")
            why = ("they do not make the table's outline (is each piece at the corner printed on it?)" if not self.consistent
                   else f"{MIN_MARKERS_FOR_CORNERS} are needed for the corners")
            return (f"{len(self.seen)} corner markers seen ({names}): the lens from them (k1 {k1:+.3f}); {why}, so the outline "
                    "comes from the table's edges")
        if not self.consistent:
            # A wrong table size is the likeliest cause, and then every piece also looks off its corner: the question
            # first, the pieces in one clause (h50: four near-identical sentences, the size question last of eleven lines).
            doubted = [CORNER_NAMES[k] for k in (*self.not_home, *self.kept_not_home)]
            pieces = f"; or the {', '.join(doubted)} piece{'s' if len(doubted) > 1 else ''} not in {'their corners' if len(doubted) > 1 else 'its corner'}" if doubted else ""
            return (f"the printed markers ({names}) do not fit a table of the size given ({self.rms_px:.1f} px RMS): is the size "
                    f"right{pieces}? Each corner is taken from its own marker, as loose as that misfit makes it")
        extra = "".join(f"; the {CORNER_NAMES[k]} piece is not in its corner (the table's edge runs on past it): left out, push it home"
                        for k in self.not_home)
        extra += "".join(f"; the {CORNER_NAMES[k]} piece may not be in its corner (the table's edge seems to run on past it): kept, as "
                         "too few are seen without it, and every corner's ± widened by the gap; push it home, or check bases"
                         for k in self.kept_not_home)
        if self.home_doubt_px and not self.kept_not_home:
            extra += (f"; a piece may lie up to {self.home_doubt_px:.1f} px short of its corner (the table's edge beside it runs on a "
                      "little): every corner's ± carries it; push each piece into its corner")
        extra += "".join(f"; the {CORNER_NAMES[k]} piece's place could not be checked (no clear table edge beside it): make sure "
                         "it is pushed into its corner" for k in self.unchecked_home)
        for i in (i for i in range(4) if not self.from_marker[i]):
            sigma = self.corner_sigma_px[i] if self.corner_sigma_px is not None else float("nan")
            extra += f"; the {CORNER_NAMES[i]} corner placed from the others through the camera (±{sigma:.1f} px"
            extra += (": the photo shows too little of the sides running to it to place it closer, and every length near it "
                      "carries that; show that corner, or check bases near it)" if sigma > UNSURE_CORNER_PX else ")")
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


_GLOBAL = 12
"""The camera fit's parameters shared by every marker: log focal, rotation (3), translation (3), k1, principal point (2),
edge bias, k2. (k2 is held at 0 by its prior unless the table's sides are in the fit: with three markers alone it and the
principal point are not fixed.)"""


class _Model:
    """The camera fit. Parameters: log focal, rotation vector, translation, k1, the principal point's offset, the edges'
    bias, then per marker seen its turn about its corner point and its own edge bias. Residuals: (predicted - observed)
    square corners / sigma, then the priors'.

    *Edge bias*: a black square's edge is found where the light rises most steeply, which the phone's tone curve
    (unknown, and clipped or lifted by glare) moves by a fraction of a pixel, inward or outward on every side alike, so a
    square looks a little smaller or larger than it is. Its corner point, outside the square, would move by more. The
    markers' sizes against their spacing on the table (whose size is known) measure it: one bias for the photo and a
    small one of each marker's (its light differs).

    *The table's sides* (optional): edge points found along each side (photo pixels) are the image of a straight line,
    the one between the table's corners, bent by the lens. Each is a residual (its distance from the camera's line, in
    undistorted pixels, less the side's own edge offset, free within ``SIDE_OFFSET_SIGMA_PX``, and its turn, free within
    ``SIDE_TURN_SIGMA_PX``: how far the edge found drifts from the mat's along the side). They run to the photo's
    edges where the squares do not, so they fix k2 and the principal point, which place a corner outside the frame."""

    def __init__(self, sightings: list[tuple[int, np.ndarray]], table_mm: tuple[float, float], size: tuple[int, int],
                 sides: list[tuple[int, np.ndarray]] | None = None, side_sigmas: list[float] | None = None,
                 lens: Distortion | None = None, offset_sigmas: list[float] | None = None) -> None:
        self.ids = [k for k, _ in sightings]
        self.lens = lens
        """A calibrated lens for this photo's pixels: its k1, k2 and principal point held within ``CALIBRATED_*``."""
        self.sides = list(sides or [])
        """(side j from table corner j to corner j+1, its edge points (n, 2) in photo pixels)."""
        self.side_sigmas = list(side_sigmas or [SIDE_POINT_SIGMA_PX] * len(self.sides))
        """Each side's points' 1-sigma (px) as weighed in the fit."""
        self.offset_sigmas = list(offset_sigmas or [SIDE_OFFSET_SIGMA_PX] * len(self.sides))
        """Each side's edge offset's prior 1-sigma (px)."""
        counts = np.cumsum([0] + [len(points) for _, points in self.sides])
        self._side_spans = list(zip(counts[:-1], counts[1:]))
        self._side_along = np.concatenate([_along(points) for _, points in self.sides]) if self.sides else np.zeros(0)
        """Each side point's place along the span of its side's points, -1 to 1 (the side's turn's lever)."""
        self._side_points_all = np.concatenate([points for _, points in self.sides]) if self.sides else np.zeros((0, 2))
        self._square_memo: OrderedDict[bytes, list[np.ndarray]] = OrderedDict()
        self._side_memo: OrderedDict[bytes, list[np.ndarray]] = OrderedDict()
        self._undistorted: tuple[tuple[object, ...], np.ndarray] | None = None
        """The side points through the last lens asked for: (its centre, scale, k1, k2), the undistorted points."""
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
        return _GLOBAL + 2 * self.m + 2 * len(self.sides)

    def camera(self, p: np.ndarray) -> Camera:
        cx = self.centre0[0] + p[8] * self.size[0]
        cy = self.centre0[1] + p[9] * self.size[0]
        lens = Distortion((cx, cy), self.scale, float(p[7]), float(p[11]))
        return Camera(float(math.exp(p[0])), (cx, cy), _rodrigues(p[1:4]), np.asarray(p[4:7], dtype=np.float64), lens)

    def turns(self, p: np.ndarray) -> np.ndarray:
        return p[_GLOBAL:_GLOBAL + self.m]

    def biases(self, p: np.ndarray) -> np.ndarray:
        """Each marker's edge bias (px, inward)."""
        return p[10] + p[_GLOBAL + self.m:_GLOBAL + 2 * self.m]

    def side_offsets(self, p: np.ndarray) -> np.ndarray:
        return p[_GLOBAL + 2 * self.m:_GLOBAL + 2 * self.m + len(self.sides)]

    def side_turns(self, p: np.ndarray) -> np.ndarray:
        """Each side's edge's turn: how much further out its points are found at one end of their span than at the
        other (px, half the difference)."""
        return p[_GLOBAL + 2 * self.m + len(self.sides):]

    def side_residuals(self, p: np.ndarray) -> list[np.ndarray]:
        """Each side's edge points' distances (px, undistorted) from the camera's line of that side, less its offset."""
        if not self.sides:
            return []
        cam = self.camera(p)
        ends = apply_homography(cam.homography(0.0), table_corners_mm(self.table_mm))
        lens = cam.distortion
        key = (lens.centre, lens.scale, lens.k1, lens.k2)
        if self._undistorted is None or self._undistorted[0] != key:
            # Most of a Jacobian's columns move the pose, not the lens: the points undistorted once serve them all.
            self._undistorted = (key, lens.remove(self._side_points_all))
        und = self._undistorted[1]
        out = []
        for (j, _), offset, turn, (i0, i1) in zip(self.sides, self.side_offsets(p), self.side_turns(p), self._side_spans):
            a, b = ends[j], ends[(j + 1) % 4]
            d = (b - a) / np.linalg.norm(b - a)
            out.append((und[i0:i1] - a) @ np.array([-d[1], d[0]]) - offset - turn * self._side_along[i0:i1])
        return out

    def points(self, p: np.ndarray) -> np.ndarray:
        return np.stack([marker_corners_on_table(k, self.table_mm, math.degrees(t)) for k, t in zip(self.ids, self.turns(p))])

    def predicted(self, p: np.ndarray) -> np.ndarray:
        true = self.camera(p).project(self.points(p).reshape(-1, 2), PAPER_MM).reshape(self.m, 4, 2)
        return _shrunk(true, self.biases(p))

    def residuals(self, p: np.ndarray) -> np.ndarray:
        priors = [p[7] / K1_SIGMA, p[8] / CENTRE_SIGMA, p[9] / CENTRE_SIGMA, (p[0] - math.log(self.focal0)) / FOCAL_PRIOR_SIGMA,
                  p[10] / EDGE_BIAS_SIGMA_PX, p[11] / (K2_SIGMA if self.sides else 1e-4)]
        if self.lens is not None:
            k1, c8, c9, k2 = self._calibrated()
            priors[0:3] = [(p[7] - k1) / CALIBRATED_K_SIGMA, (p[8] - c8) / CALIBRATED_CENTRE_SIGMA, (p[9] - c9) / CALIBRATED_CENTRE_SIGMA]
            priors[5] = (p[11] - k2) / CALIBRATED_K_SIGMA
        priors += [t / math.radians(TURN_SIGMA_DEG) for t in self.turns(p)]
        priors += [b / MARKER_BIAS_SIGMA_PX for b in p[_GLOBAL + self.m:_GLOBAL + 2 * self.m]]
        priors += [o / sigma for o, sigma in zip(self.side_offsets(p), self.offset_sigmas)]
        priors += [t / SIDE_TURN_SIGMA_PX for t in self.side_turns(p)]
        # The squares' residuals depend on the camera, turns and biases only, the sides' on the camera and the sides'
        # offsets and turns only: a Jacobian's column that moves one of them reuses the other's, made at the point
        # (the same arithmetic on the same numbers).
        g = _GLOBAL + 2 * self.m
        squares = self._remembered(self._square_memo, p[:g].tobytes(),
                                   lambda: [((self.predicted(p) - self.observed) / OBSERVED_SIGMA_PX).ravel()])
        sides = self._remembered(self._side_memo, p[:_GLOBAL].tobytes() + p[g:].tobytes(),
                                 lambda: [r / sigma for r, sigma in zip(self.side_residuals(p), self.side_sigmas)])
        return np.concatenate([*squares, *sides, priors])

    def _remembered(self, memo: OrderedDict[bytes, list[np.ndarray]], key: bytes,
                    make: Callable[[], list[np.ndarray]]) -> list[np.ndarray]:
        """``make()`` for parameters ``key``, remembered for the last ``2 n + 4`` keys (a Jacobian's columns and its point)."""
        if key in memo:
            memo.move_to_end(key)
            return memo[key]
        value = memo[key] = make()
        if len(memo) > 2 * self.n + 4:
            memo.popitem(last=False)
        return value

    def varied(self, sides: list[tuple[int, np.ndarray]] | None = None, side_sigmas: list[float] | None = None,
               offset_sigmas: list[float] | None = None) -> _Model:
        """The same markers, table and lens with other sides, their points' sigmas or their offsets' priors."""
        return _Model([(k, c) for k, c in zip(self.ids, self.observed)], self.table_mm, self.size,
                      self.sides if sides is None else sides, self.side_sigmas if side_sigmas is None else side_sigmas,
                      self.lens, self.offset_sigmas if offset_sigmas is None else offset_sigmas)

    def offset_freed(self, s: int) -> _Model:
        """The model with side ``s``'s edge offset let free (its prior ``FREE_OFFSET_SIGMA_PX``)."""
        free = list(self.offset_sigmas)
        free[s] = FREE_OFFSET_SIGMA_PX
        return self.varied(offset_sigmas=free)

    def _calibrated(self) -> tuple[float, float, float, float]:
        """The calibrated lens as parameters: k1, the principal point's offset (2), k2."""
        assert self.lens is not None
        s = (self.scale / self.lens.scale) ** 2  # k per the lens's half-diagonal to per this photo's
        cx, cy = self.lens.centre
        return (self.lens.k1 * s, (cx - self.centre0[0]) / self.size[0], (cy - self.centre0[1]) / self.size[0],
                self.lens.k2 * s * s)

    def start(self) -> np.ndarray:
        """From the homography of every corner seen (pieces assumed straight): focal length where it is defined, pose."""
        import cv2

        p = np.zeros(self.n)
        if self.lens is not None:
            p[7], p[8], p[9], p[11] = self._calibrated()
        obj = self.points(p).reshape(-1, 2)
        h, _ = cv2.findHomography(obj, self.observed.reshape(-1, 2), 0)
        f = focal_from_homography(h, self.centre0) if h is not None else None
        if f is None or not (0.35 * self.size[0] <= f <= 6 * self.size[0]):
            f = self.focal0
        r, t = pose_from_homography(h, f, self.centre0) if h is not None else (np.eye(3), np.array([0, 0, 1000.0]))
        p[0], p[1:4], p[4:7] = math.log(f), _rvec(r), t
        return p

    def steps(self) -> np.ndarray:
        return np.array([1e-4, 1e-5, 1e-5, 1e-5, 1e-2, 1e-2, 1e-2, 1e-4, 1e-5, 1e-5, 1e-3, 1e-4] + [1e-5] * self.m + [1e-3] * self.m
                        + [1e-3] * (2 * len(self.sides)))


def _along(points: np.ndarray) -> np.ndarray:
    """Points' places along their own line, scaled to -1 .. 1 over their span."""
    centre = points.mean(axis=0)
    _, _, vt = np.linalg.svd(points - centre, full_matrices=False)
    along = (points - centre) @ vt[0]
    lo, hi = float(along.min()), float(along.max())
    return (2 * along - lo - hi) / max(hi - lo, 1e-9)


def _jacobian(model: _Model, p: np.ndarray, at: np.ndarray | None = None) -> np.ndarray:
    """The residuals' Jacobian at ``p`` by forward differences from ``at``, the residuals at ``p`` (worked out if not
    given; the fit has them). Half a central difference's evaluations of the residuals, which are most of the fit's
    time; at these steps no parameter's sigma moves by 1 % (a step ten times longer does no worse)."""
    r0 = model.residuals(p) if at is None else at
    cols = []
    for j, h in enumerate(model.steps()):
        d = np.zeros_like(p)
        d[j] = h
        cols.append((model.residuals(p + d) - r0) / h)
    return np.stack(cols, axis=1)


def _fit(model: _Model, start: np.ndarray | None = None, iterations: int = FIT_ITERATIONS) -> tuple[np.ndarray, np.ndarray]:
    """Levenberg-Marquardt from ``start`` or the homography's: the parameters and their covariance (scaled by the fit's
    own residuals where they exceed the assumed corner error)."""
    p = model.start() if start is None else np.array(start, dtype=np.float64)
    r = model.residuals(p)
    cost = float(r @ r)
    damping = 1e-3
    for _ in range(iterations):
        jac = _jacobian(model, p, r)
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
    jac = _jacobian(model, p, r)
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


def table_from_markers(image: np.ndarray, table_mm: tuple[float, float], sightings: list[Sighting] | None = None,
                       lens: LensFile | None = None, check_home: bool = True) -> MarkerFit | None:
    """The table's corners and the camera from the corner markers in ``image`` (BGR or grey); None with fewer than
    ``MIN_MARKERS_FOR_LENS`` markers seen. Corners (photo pixels, LL, LR, UR, UL) need ``MIN_MARKERS_FOR_CORNERS``.
    ``lens``: the phone's calibrated lens, whose k1, k2 and principal point the fit then holds (within
    ``CALIBRATED_K_SIGMA`` and ``CALIBRATED_CENTRE_SIGMA``): what places a corner outside the frame. With
    ``check_home``, a marker whose corner point a table edge runs on past (``_home_gaps``: a piece not pushed into its
    corner) is left out and the fit made again without it (``MarkerFit.not_home``), or, where too few would be left for
    the corners, kept with every corner's sigma widened by its gap (``MarkerFit.kept_not_home``)."""
    if sightings is None:
        sightings = find_markers(image)
    if len(sightings) < MIN_MARKERS_FOR_LENS:
        return None
    size = (image.shape[1], image.shape[0])
    calibrated = lens.for_size(size)[0] if lens is not None else None
    model = _Model([(s.id, s.corners()[0]) for s in sightings], table_mm, size, lens=calibrated)
    p, _ = _fit(model)
    # Once more with each square's corners from its sides' lines straightened through the fitted lens.
    fitted = model.camera(p).distortion
    model = _Model([(s.id, fitted.apply(s.corners(fitted)[0])) for s in sightings], table_mm, size, lens=calibrated)
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
    k1_fitted = cam.distortion.opencv(cam.focal_px)[0]
    turned = max(turns, key=lambda k: abs((turns[k] + 180.0) % 360.0 - 180.0))
    turned_deg = abs((turns[turned] + 180.0) % 360.0 - 180.0)
    if turned_deg > MAX_TURN_DEG or not abs(k1_fitted) <= MAX_LENS_K1:
        why = (f"the {CORNER_NAMES[turned]} piece lies turned {turned_deg:.0f}° from square" if turned_deg > MAX_TURN_DEG
               else f"a lens with k1 {k1_fitted:+.1f} would be needed")
        seen_only = tuple(k in by_id for k in range(4))
        return MarkerFit(tuple(model.ids), _with_sigma(cam, cov), rms, None, None,
                         (seen_only[0], seen_only[1], seen_only[2], seen_only[3]), turns, False, not_laid=why,
                         lens_trusted=abs(k1_fitted) <= MAX_LENS_K1)
    consistent = rms <= CONSISTENT_RMS_PX
    freed: list[tuple[_Model, np.ndarray, np.ndarray]] | None = None
    gaps: tuple[tuple[int, int, float, float], ...] = ()
    kept_not_home: tuple[int, ...] = ()
    home_doubt_px = 0.0
    unchecked: tuple[int, ...] = ()
    import cv2

    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    colour = image if image.ndim == 3 else None
    if consistent:
        model, p, cov = _fit_with_sides(grey, colour, sightings, model, p, cov)
    if check_home:
        # After the sides' fit where the markers fit the table; else (a piece far off its corner can leave 0.7 px RMS)
        # the markers' camera places the bands, each piece judged against the edges beside it alone.
        gaps = tuple((k, j, gap, sigma) for k, j, gap, sigma, _ in _home_gaps(grey, colour, sightings, model, p))
        away = sorted({k for k, _, gap, sigma in gaps if gap > HOME_SIGMAS * sigma})
        if away and len(sightings) - len(away) < MIN_MARKERS_FOR_CORNERS:
            # Without them no corners at all, and the judgement may be wrong (the foot of the table's front face or a
            # line on the floor beside a piece that is home reads as the edge running on): keep them, and let every
            # corner carry the gap (below), which is about how far such a piece pulls the fit.
            kept_not_home = tuple(away)
        elif away:
            return _without(image, table_mm, [s for s in sightings if s.id not in away], lens, tuple(away),
                            MarkerFit(tuple(model.ids), _with_sigma(model.camera(p), cov), rms, None, None,
                                      (False, False, False, False), turns, False, home_gaps=gaps), gaps)
        # A kept piece judged not home, or a gap over its own sigma but under HOME_SIGMAS of it (too little to leave the
        # piece out, enough to pull the fit by about that much: a piece 3 mm short on a 2 MP photo, its corner 2 px off
        # at a sigma of 0.2 px).
        home_doubt_px = max([0.0] + [gap for _, _, gap, sigma in gaps if gap > sigma])
        # Not widened: on the markers benchmark's cut photos 17 pieces (13 photos), all home, had no side judged, their
        # corners sure and within 0.21 px; a sigma for a shortfall nothing measures would call them all unsure.
        unchecked = tuple(k for k in model.ids if k not in {g[0] for g in gaps})
    if consistent:
        if len(by_id) < 4:
            model, p, cov, freed = _offsets_released(model, p, cov)
        cam = model.camera(p)
        turns = {k: math.degrees(float(t)) for k, t in zip(model.ids, model.turns(p))}
        biases = dict(zip(model.ids, (float(b) for b in model.biases(p))))
    corners = cam.project(table, 0.0)
    sigmas = np.array([math.hypot(_projection_sigma(model, p, cov, table[k]), PLACEMENT_SIGMA_MM * _px_per_mm(cam, table[k]))
                       for k in range(4)])
    unseen = [k for k in range(4) if k not in by_id]
    if consistent and model.sides and unseen:
        excess = _disagreement(model, p, cov, table[unseen], freed)
        for k, e in zip(unseen, excess):
            sigmas[k] = math.hypot(sigmas[k], e)
    if not consistent:
        # The markers do not sit where a table of this size would put them (a wrong table size, a piece at the wrong
        # corner): each marker seen gives its own corner point, which does not depend on the table's size.
        for k, seen in by_id.items():
            und, square_sigma = seen.corners(cam.distortion, grow_px=biases[k])
            drop = cam.project(table[k:k + 1], 0.0)[0] - cam.project(table[k:k + 1], PAPER_MM)[0]
            corners[k] = cam.distortion.apply(_corner_point(und)[None, :])[0] + drop
            reach = float(np.linalg.norm(local_corners_mm().mean(axis=0))) / (MARKER_SIZE_MM / 2)
            sigmas[k] = math.hypot(rms * (1 + reach), PLACEMENT_SIGMA_MM * _px_per_mm(cam, table[k]))
    sigmas = np.hypot(sigmas, home_doubt_px)
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
                     (seen_at[0], seen_at[1], seen_at[2], seen_at[3]), turns, consistent, home_gaps=gaps,
                     kept_not_home=kept_not_home, home_doubt_px=home_doubt_px, unchecked_home=unchecked)


def _without(image: np.ndarray, table_mm: tuple[float, float], kept: list[Sighting], lens: LensFile | None,
             away: tuple[int, ...], lens_only: MarkerFit, gaps: tuple[tuple[int, int, float, float], ...]) -> MarkerFit:
    """The markers' fit made again with only the ``kept`` pieces (those in their corners; ``away`` are not), the pieces
    left out named in it, with the ``gaps`` that judged them; ``lens_only`` (the fit with every piece, its corners
    dropped) where too few are kept for a camera."""
    fit = table_from_markers(image, table_mm, kept, lens, check_home=True) if len(kept) >= MIN_MARKERS_FOR_LENS else None
    if fit is None:
        return replace(lens_only, not_home=away)
    return replace(fit, not_home=tuple(sorted(set(away) | set(fit.not_home))), home_gaps=gaps)


def _fit_with_sides(grey: np.ndarray, colour: np.ndarray | None, sightings: list[Sighting], model: _Model, p: np.ndarray,
                    cov: np.ndarray) -> tuple[_Model, np.ndarray, np.ndarray]:
    """The camera fitted again with the table's sides (``_Model``): each side followed near where the markers' camera
    puts it, the fit made, the points off their side's line (terrain standing on the edge, its shadow) dropped, and the
    fit made again; a side with too few points left is not used. The markers' model and fit when no side is seen."""
    size = model.size
    best = (model, p, cov)
    for _ in range(2):
        cam = model.camera(p)
        sides = []
        for j in range(4):
            points = _table_side(grey, colour, model, p, cov, j)
            if len(points) >= SIDE_MIN_POINTS:
                sides.append((j, cam.distortion.apply(points)))
        if not sides:
            return best
        lens = cam.distortion
        observed = [(s.id, lens.apply(s.corners(lens)[0])) for s in sightings]
        start = np.concatenate([p[:_GLOBAL + 2 * model.m], np.zeros(2 * len(sides))])
        sigmas = [SIDE_POINT_SIGMA_PX] * len(sides)
        for _ in range(SIDE_TRIMS):
            trial = _Model(observed, model.table_mm, size, sides, sigmas, model.lens)
            q, _ = _fit(trial, start, TRIM_ITERATIONS)
            kept, sigmas = [], []
            for (j, points), res in zip(sides, trial.side_residuals(q)):
                centre = float(np.median(res))
                spread = max(1.4826 * float(np.median(np.abs(res - centre))), 0.2)
                keep = np.abs(res - centre) <= 3 * spread
                if keep.sum() >= SIDE_MIN_POINTS:
                    kept.append((j, points[keep]))
                    # A side whose edge is ragged (a textured mat, grass at its edge) is weighed by its own scatter: its
                    # neighbouring points share that texture, so it counts about one point in SIDE_CORRELATED.
                    rms = float(np.sqrt(np.mean((res[keep] - centre) ** 2)))
                    sigmas.append(max(SIDE_POINT_SIGMA_PX, math.sqrt(SIDE_CORRELATED) * rms))
            if not kept:
                return best
            sides = kept
            start = np.concatenate([q[:_GLOBAL + 2 * model.m], np.zeros(2 * len(sides))])
        model = _Model(observed, model.table_mm, size, sides, sigmas, model.lens)
        p, cov = _fit(model, start)
        best = (model, p, cov)
    return best


def _home_gaps(grey: np.ndarray, colour: np.ndarray | None, sightings: list[Sighting], model: _Model,
               p: np.ndarray) -> list[tuple[int, int, float, float, float]]:
    """Per marker seen and each of the two table sides running from its corner: how far (px, undistorted; positive into
    the table) its corner point lies inside that side's edge, followed just beyond the piece (from ``SIDE_CLEAR_MM``
    over ``HOME_STRETCH_MM``, in a band ``HOME_BAND_MM`` either side of where the camera puts it), and that gap's 1-sigma
    (px) and the photo's px per mm there: (marker, the side's other corner, gap, sigma, px per mm). A side whose edge is
    not seen there clearly (terrain, the frame, a floor of the mat's colour: its line's sigma at the corner point over
    ``HOME_LINE_SIGMA_PX``, or turned over ``HOME_TURN_DEG`` from the camera's side) gives none.

    A piece pushed home has its corner point on both edges (within what an edge found and a corner point extrapolated from
    the square are good to). One laid short of its corner (a sheet not pushed home, slid along an edge or in from it) has
    a side's edge running on past its corner point, outside it; the camera, whose focal length and pose take up the
    shorter side, cannot show it (its fit stays within tenths of a pixel), the table's edge beyond the piece can."""
    cam = model.camera(p)
    lens = cam.distortion
    table = table_corners_mm(model.table_mm)
    to_px = cam.homography(0.0)
    interior = apply_homography(to_px, table).mean(axis=0)
    biases = dict(zip(model.ids, (float(b) for b in model.biases(p))))
    out = []
    for seen in sightings:
        k = seen.id
        und, square_sigma = seen.corners(lens, grow_px=biases.get(k, 0.0))
        point = _corner_point(und)
        scale = _px_per_mm(cam, table[k])
        for other in ((k - 1) % 4, (k + 1) % 4):
            length_mm = float(np.linalg.norm(table[other] - table[k]))
            s0, s1 = SIDE_CLEAR_MM, min(SIDE_CLEAR_MM + HOME_STRETCH_MM, 0.5 * length_mm)
            if s1 - s0 < 0.25 * HOME_STRETCH_MM:
                continue
            along = (table[other] - table[k]) / length_mm
            near, far = apply_homography(to_px, np.stack([table[k] + s0 * along, table[k] + s1 * along]))
            # _side_points widens its band from its first end to its second: started nine stretches beyond the far end
            # and sampled over the last tenth, the band is within a tenth of HOME_BAND_MM all along.
            points = _side_points(grey, lens, near + 10 * (far - near), near, HOME_BAND_MM * scale, t_range=(0.9, 1.0),
                                  area=True, colour=colour, interior=interior)
            line = _edge_line(points, HOME_MIN_POINTS)
            if line is None:
                continue
            centre, direction, offset_sigma, angle_sigma = line
            inward = np.array([-direction[1], direction[0]])
            if float((interior - centre) @ inward) < 0:
                inward = -inward
            gap = float((point - centre) @ inward)
            lever = float((point - centre) @ direction)
            line_sigma = math.hypot(offset_sigma, lever * angle_sigma)
            expected = (far - near) / np.linalg.norm(far - near)
            turn = math.degrees(math.asin(min(1.0, abs(float(direction[0] * expected[1] - direction[1] * expected[0])))))
            sigma = math.sqrt(line_sigma ** 2 + SIDE_OFFSET_SIGMA_PX ** 2 + float(np.max(square_sigma)) ** 2
                              + (PLACEMENT_SIGMA_MM * scale) ** 2)
            if line_sigma > HOME_LINE_SIGMA_PX or turn > HOME_TURN_DEG:
                continue  # not a clear straight edge along the side there (a floor's pattern, terrain, its shadow)
            out.append((k, other, gap, sigma, scale))
    return out


def _trimmed_line(points: np.ndarray, least: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Total least squares through ``points`` in 4 rounds, each dropping those over 3 MADs off the last round's line:
    its centre, direction, the points kept by the last round and their offsets from the line that kept them; None where
    fewer than ``least`` are left for a round."""
    if len(points) < least:
        return None  # (the mean of no points: numpy's warning on the app's and the command's standard error)
    keep = np.ones(len(points), bool)
    centre, direction, res = points.mean(axis=0), np.array([1.0, 0.0]), np.zeros(len(points))
    for _ in range(4):
        if keep.sum() < least:
            return None
        centre = points[keep].mean(axis=0)
        _, _, vt = np.linalg.svd(points[keep] - centre, full_matrices=False)
        direction = vt[0]
        res = (points - centre) @ np.array([-direction[1], direction[0]])
        mad = 1.4826 * float(np.median(np.abs(res[keep]))) + 0.05
        keep = np.abs(res) <= 3 * mad
    return centre, direction, keep, res


def _edge_line(points: np.ndarray, least: int) -> tuple[np.ndarray, np.ndarray, float, float] | None:
    """A side's edge points' straight line (total least squares, points over 3 MADs off dropped, 4 rounds): a point on
    it, its direction, the 1-sigmas of its offset (px, at that point) and of its angle (radians), neighbouring points
    counted one in ``SIDE_CORRELATED``; None with fewer than ``least`` kept."""
    trimmed = _trimmed_line(points, least)
    if trimmed is None or trimmed[2].sum() < least:
        return None
    centre, direction, keep, res = trimmed
    along = (points[keep] - centre) @ direction
    rms = float(np.sqrt(np.mean(res[keep] ** 2)))
    n = max(1.0, keep.sum() / SIDE_CORRELATED)
    return centre, direction, rms / math.sqrt(n), rms / math.sqrt(max(1e-9, float(np.sum(along ** 2)) / SIDE_CORRELATED))


def _offsets_released(model: _Model, p: np.ndarray, cov: np.ndarray
                      ) -> tuple[_Model, np.ndarray, np.ndarray, list[tuple[_Model, np.ndarray, np.ndarray]] | None]:
    """The fit made again with the offset of each side whose edge was found on another edge than the mat's let free.

    A side's offset is held within ``SIDE_OFFSET_SIGMA_PX`` of the mat's edge; where its points follow a parallel edge a
    few pixels out (the foot of the slab's face under a near edge, lit like neither the mat nor the floor), the offset
    takes only part of it and the pose and lens the rest, turning the side, which carries a corner outside the frame by
    pixels. Fitted with its offset free, such a side's offset lands beyond ``OFFSET_REJECTED_SIGMAS`` of its prior: the
    data reject the prior, and the side then gives the camera its direction only. The fit as given where none does, with
    the fits of each side's offset let free (model, parameters, covariance: ``_disagreement`` makes the same ones)."""
    free = list(model.offset_sigmas)
    trials = []
    for s in range(len(model.sides)):
        released = model.offset_freed(s)
        q, cov_q = _fit(released, p, TRIM_ITERATIONS)
        trials.append((released, q, cov_q))
        if abs(float(released.side_offsets(q)[s])) > OFFSET_REJECTED_SIGMAS * model.offset_sigmas[s]:
            free[s] = FREE_OFFSET_SIGMA_PX
    if free == model.offset_sigmas:
        return model, p, cov, trials
    released = model.varied(offset_sigmas=free)
    q, cov_q = _fit(released, p)
    return released, q, cov_q, None


def _runs(points: np.ndarray) -> list[np.ndarray]:
    """Indices of a side's points (photo px) in each run: split where neighbours along the side lie over ``RUN_GAP_PX``
    apart."""
    order = np.argsort(_along(points))
    gaps = np.linalg.norm(np.diff(points[order], axis=0), axis=1)
    return np.split(order, np.flatnonzero(gaps > RUN_GAP_PX) + 1)


def _disagreement(model: _Model, p: np.ndarray, cov: np.ndarray, xy: np.ndarray,
                  freed: list[tuple[_Model, np.ndarray, np.ndarray]] | None = None) -> np.ndarray:
    """Per table point ``xy`` (mm; corners placed through the camera): how far (px) it moves, beyond what the loss of
    information explains, when the fit is made again without one run of a side's edge points at a time, or with one
    side's edge offset let free (its prior dropped): the largest over those fits (0 where none exceeds).

    The camera's lens can bend to join two runs of a side found on different edges (the table's, and a parallel one a
    pixel or two inside it by the frame), so the fit's residuals stay small and its covariance with them, while a corner
    carried outside the frame by that bend moves by pixels. Likewise a side followed on an edge a few pixels off the
    mat's (the foot of the slab's face under a near edge, lit like neither the mat nor the floor) is held near the mat's
    edge by its offset's prior (``SIDE_OFFSET_SIGMA_PX``), and the pose and lens take the rest, turning the side's
    direction. Without a run (or a prior), the corner moves by ``d`` while its variance grows by ``v``: one that agrees
    with the rest moves it by about ``sqrt(v)``, within ``RUN_AGREEMENT_SIGMAS`` of that 95 times in 100; the excess
    ``sqrt(d^2 - RUN_AGREEMENT_SIGMAS^2 v)`` is the disagreement the residuals hide. ``freed``: the fits with each
    side's offset free already made (``_offsets_released``, for this model and parameters)."""
    here = model.camera(p).project(xy, 0.0)
    base = np.array([_projection_sigma(model, p, cov, t) for t in xy])
    excess = np.zeros(len(xy))
    offsets, turns = model.side_offsets(p), model.side_turns(p)

    def refit(other: _Model, start: np.ndarray, done: tuple[_Model, np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        other, q, cov_q = done if done is not None else (other, *_fit(other, start, TRIM_ITERATIONS))
        moved = np.linalg.norm(other.camera(q).project(xy, 0.0) - here, axis=1)
        grown = np.array([_projection_sigma(other, q, cov_q, t) for t in xy]) ** 2 - base ** 2
        return np.sqrt(np.maximum(0.0, moved ** 2 - RUN_AGREEMENT_SIGMAS ** 2 * np.maximum(grown, 0.0)))

    for s, (j, points) in enumerate(model.sides):
        runs = [r for r in _runs(points) if len(r) >= RUN_MIN_POINTS]
        for run in runs:
            keep = np.ones(len(points), bool)
            keep[run] = False
            sides = [(jj, pts) for ss, (jj, pts) in enumerate(model.sides) if ss != s]
            sigmas = [sg for ss, sg in enumerate(model.side_sigmas) if ss != s]
            priors = [sg for ss, sg in enumerate(model.offset_sigmas) if ss != s]
            offs, trs = [o for ss, o in enumerate(offsets) if ss != s], [t for ss, t in enumerate(turns) if ss != s]
            if keep.sum() >= RUN_MIN_POINTS:
                sides.insert(s, (j, points[keep]))
                sigmas.insert(s, model.side_sigmas[s])
                priors.insert(s, model.offset_sigmas[s])
                offs.insert(s, offsets[s])
                trs.insert(s, 0.0)
            without = model.varied(sides, sigmas, priors)
            excess = np.maximum(excess, refit(without, np.concatenate([p[:_GLOBAL + 2 * model.m], offs, trs])))
    for s in range(len(model.sides)):
        excess = np.maximum(excess, refit(model.offset_freed(s), p, freed[s] if freed is not None else None))
    return excess


def _table_side(grey: np.ndarray, colour: np.ndarray | None, model: _Model, p: np.ndarray, cov: np.ndarray, j: int) -> np.ndarray:
    """Edge points (undistorted px through the camera's lens) of the table's side from corner ``j`` to corner ``j + 1``,
    followed from a corner whose marker is seen (or, between two seen ones, from both) in a band as wide as three of the
    camera's sigmas there (``SIDE_SEARCH_MIN_PX`` at least, ``SIDE_SEARCH_MAX_PX`` at most), clear of the paper pieces."""
    cam = model.camera(p)
    table = table_corners_mm(model.table_mm)
    ends = apply_homography(cam.homography(0.0), table)
    a, b = j, (j + 1) % 4
    length_mm = float(np.linalg.norm(table[b] - table[a]))
    clear = min(0.45, SIDE_CLEAR_MM / length_mm)

    def band(xy: np.ndarray) -> float:
        return float(np.clip(3 * _projection_sigma(model, p, cov, xy), SIDE_SEARCH_MIN_PX, SIDE_SEARCH_MAX_PX))

    seen_a, seen_b = a in model.ids, b in model.ids
    inside = ends.mean(axis=0)
    if not (seen_a or seen_b):
        return np.zeros((0, 2))
    if seen_a and seen_b:
        half_mid = band(0.5 * (table[a] + table[b]))
        middle = 0.5 * (ends[a] + ends[b])
        points = np.concatenate([_side_points(grey, cam.distortion, ends[k], middle, half_mid, t_range=(2 * clear, 1.0), area=True,
                                              colour=colour, interior=inside) for k in (a, b)])
    else:
        start, end = (a, b) if seen_a else (b, a)
        points = _side_points(grey, cam.distortion, ends[start], ends[end], band(table[end]), t_range=(clear, 1.0 - clear), area=True,
                              colour=colour, interior=inside)
    points = _through_corner(points, [ends[k] for k in (a, b) if k in model.ids])
    if len(points) > SIDE_POINTS_MAX:
        points = points[np.linspace(0, len(points) - 1, SIDE_POINTS_MAX).round().astype(int)]
    return points


def _through_corner(points: np.ndarray, anchors: list[np.ndarray]) -> np.ndarray:
    """The points (undistorted px) on the straightest line through a seen corner (``anchors``) that holds most of them
    (within ``SIDE_CONSENSUS_PX``): a parallel edge found over part of the side (the foot of the table's front face, a
    terrain piece's base) cannot pass through the corner the markers place, so it is left out, however much of the side it
    holds. Every point is tried as the line's direction."""
    if len(points) < SIDE_MIN_POINTS or not anchors:
        return points
    best = np.zeros(len(points), bool)
    for anchor in anchors:
        rel = points - anchor
        dirs = rel / np.maximum(np.linalg.norm(rel, axis=1, keepdims=True), 1e-9)
        dirs = dirs[np.linspace(0, len(dirs) - 1, min(len(dirs), 120)).round().astype(int)]
        normals = np.stack([-dirs[:, 1], dirs[:, 0]], axis=1)
        inliers = np.abs(rel @ normals.T) <= SIDE_CONSENSUS_PX  # (points, candidates)
        counts = inliers.sum(axis=0)
        if counts.max() > best.sum():
            best = inliers[:, int(np.argmax(counts))]
    return points[best]


def _side_points(grey: np.ndarray, lens: Distortion, a: np.ndarray, b: np.ndarray, half_at_b: float,
                 t_range: tuple[float, float] = (0.03, 0.97), area: bool = False, colour: np.ndarray | None = None,
                 interior: np.ndarray | None = None) -> np.ndarray:
    """Edge points (undistorted px) of the table's side near the undistorted segment from ``a`` (a marker's corner,
    sure) to ``b`` (the camera's guess): the steepest step across it, looked for within ``SIDE_SEARCH_MIN_PX`` at ``a``
    widening to ``half_at_b`` at ``b`` (the guess's error grows along the side), of the sign the step has near ``a``
    (the mat on the same side all along; with ``interior``, the sign most of its neighbours have: the floor beyond may
    turn lighter than the mat), where the photo shows it, between the fractions ``t_range`` of the way. With
    ``area`` each edge is placed by the step's area between its two levels (``_step``), and with ``colour`` (BGR) again
    in the colour that best parts the two sides. With ``interior`` (an undistorted point on the table) an edge point is
    kept only where the mat lies just inside it (``_mat_within``)."""
    import cv2

    length = float(np.linalg.norm(b - a))
    direction = (b - a) / length
    normal = np.array([-direction[1], direction[0]])
    t = np.linspace(t_range[0], t_range[1], int(np.clip((t_range[1] - t_range[0]) * length / 3.0, 20, 600)))
    base = a[None, :] + t[:, None] * (b - a)[None, :]
    step = 0.5
    half = max(half_at_b, SIDE_SEARCH_MIN_PX)
    pad = STEP_LEVEL_PX + STEP_WINDOW_PX if area else 0.0
    offsets = np.arange(-half - pad, half + pad + step / 2, step)
    und = base[:, None, :] + offsets[None, :, None] * normal[None, None, :]
    px = lens.apply(und.reshape(-1, 2)).reshape(und.shape)
    h, w = grey.shape[:2]
    inside = np.all((px[..., 0] >= 2) & (px[..., 0] <= w - 3) & (px[..., 1] >= 2) & (px[..., 1] <= h - 3), axis=1)
    if inside.sum() < 10:
        return np.zeros((0, 2))
    mx, my = px[inside, :, 0].astype(np.float32), px[inside, :, 1].astype(np.float32)
    values = cv2.GaussianBlur(cv2.remap(grey, mx, my, cv2.INTER_LINEAR).astype(np.float32), (1, 5), 0)
    reach = SIDE_SEARCH_MIN_PX + (half - SIDE_SEARCH_MIN_PX) * t[inside]
    allowed = np.abs(offsets[None, :]) <= reach[:, None]
    near_a = t[inside] < 0.3
    inward = None if interior is None else (1.0 if float((interior - a) @ normal) > 0 else -1.0)
    # With the table's inside known, the step's direction is taken along the side, not once for all of it: the floor
    # beyond a side may be darker than the mat at one end and lighter at the other (the lamp's fall-off, a floor tile).
    signs = _step_signs(values, offsets, allowed, near_a, SIDE_RUN_PROFILES if area and inward is not None else 0)
    where, strong, peak = _step(values, offsets, allowed, near_a, area, sign=signs)
    # The colour profiles, sampled once for both the colour step and the mat's edge.
    bgr = cv2.GaussianBlur(cv2.remap(colour, mx, my, cv2.INTER_LINEAR).astype(np.float32), (1, 5), 0) if colour is not None and area else None
    if bgr is not None and strong.sum() >= 10:
        # Where the mat's colour differs from what lies beyond more than its brightness does (a grass mat's grain
        # against a grey floor), the step is followed in the colour that best tells the two apart: Fisher's
        # discriminant of the samples either side of the edge found in grey (mat side against far side).
        rel = offsets[None, :] - offsets[peak][:, None]
        if inward is not None:
            rel = rel * inward  # positive into the table
        near = (rel > STEP_WINDOW_PX) & (rel <= STEP_WINDOW_PX + STEP_LEVEL_PX) & strong[:, None]
        far = (rel < -STEP_WINDOW_PX) & (rel >= -STEP_WINDOW_PX - STEP_LEVEL_PX) & strong[:, None]
        weights = _discriminant(bgr, near, far, signs)
        if weights is not None:
            projected = np.einsum("nkc,nc->nk", bgr, weights).astype(np.float32)
            # The projection rises from the near side to the far side: going outward when the inside is known.
            where, strong, _ = _step(projected, offsets, allowed, near_a, area, sign=-1.0 if inward is None else -inward)
    if inward is not None and area:
        where, strong = _mat_edge(values if bgr is None else bgr, offsets, inward, allowed, near_a, where, strong)
    return (base[inside] + where[:, None] * normal[None, :])[strong]


def _discriminant(bgr: np.ndarray, near: np.ndarray, far: np.ndarray, groups: np.ndarray) -> np.ndarray | None:
    """Per profile (``bgr`` (n, k, 3)), the colour weights (n, 3) that best part the ``near`` samples from the ``far``
    ones (masks (n, k)): Fisher's discriminant, scaled so the far side lies 1 above the near one, taken over the profiles
    of the same group (``groups`` (n,): what lies beyond the mat lighter than it along part of a side, darker along
    another) where that group holds enough samples, else over all; None where the two sides cannot be told apart."""
    def weights(rows: np.ndarray) -> np.ndarray | None:
        lo, hi = bgr[near & rows[:, None]], bgr[far & rows[:, None]]
        if len(lo) < 30 or len(hi) < 30:
            return None
        diff = hi.mean(axis=0) - lo.mean(axis=0)
        spread = np.cov(lo.T) + np.cov(hi.T) + 1e-3 * np.eye(3)
        w = np.linalg.solve(spread, diff)
        gain = float(w @ diff)
        return w / gain if gain > 0 else None

    whole = weights(np.ones(len(bgr), bool))
    if whole is None:
        return None
    out = np.broadcast_to(whole, (len(bgr), 3)).copy()
    kinds = np.unique(groups)
    if len(kinds) > 1:
        for g in kinds:
            rows = groups == g
            own = weights(rows)
            if own is not None:
                out[rows] = own
    return out


def _mat_edge(profiles: np.ndarray, offsets: np.ndarray, inward: float, allowed: np.ndarray, near_a: np.ndarray,
              where: np.ndarray, strong: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The table's edge is the mat's own boundary: the first change met coming out of the mat. Where what lies just
    inside a profile's step (``where``, at ``offsets``; grey (n, k) or colour (n, k, 3) ``profiles``; ``inward`` the
    offsets' sign into the table) is not the mat as seen deeper in, the step lies beyond the edge (the slab's face seen
    under a near edge, its sheen, its foot on the floor, a floor tile's joint): the edge is looked for again inside it,
    as the step from the mat's colour to that strip's, and the point is kept only if the mat lies just inside that one."""
    vals = profiles if profiles.ndim == 3 else profiles[..., None]
    depth = offsets * inward
    mat, inner, outer = _levels(vals, depth, where * inward)
    rise = np.linalg.norm(outer - mat, axis=1)
    off = np.linalg.norm(inner - mat, axis=1)
    with np.errstate(all="ignore"):
        ratio = np.where(strong & np.isfinite(rise) & np.isfinite(off), off / np.maximum(rise, 1e-9), np.nan)
    # The slab's face runs along the side, the mat's grain does not: the ratio is judged over a run of neighbouring
    # profiles, so a textured mat's blotch inside a clean edge is not taken for a strip.
    # A profile whose own inside is the mat (or unmeasured) has its step at the mat's edge already, whatever its
    # neighbours: only the others are looked at again (their step's direction away from the mat is defined).
    beyond = strong & np.isfinite(off) & (off > 0) & (_running_median(ratio, MAT_RUN_PROFILES) > MAT_LIKE_FRACTION)
    if not beyond.any():
        return where, strong
    rows = np.flatnonzero(beyond)
    away = (inner - mat)[rows] / off[rows, None]
    projected = np.einsum("nkc,nc->nk", vals[rows] - mat[rows, None, :], away).astype(np.float32)
    inside_step = allowed[rows] & (depth[None, :] > (where[rows] * inward)[:, None] + STEP_WINDOW_PX)
    again, found, _ = _step(projected, offsets, inside_step, near_a[rows], True, sign=-inward)
    mat2, inner2, outer2 = _levels(vals[rows], depth, again * inward)
    rise2 = np.linalg.norm(outer2 - mat2, axis=1)
    off2 = np.linalg.norm(inner2 - mat2, axis=1)
    found &= np.isfinite(rise2) & np.isfinite(off2) & (off2 <= MAT_LIKE_FRACTION * rise2)
    where, strong = where.copy(), strong.copy()
    where[rows] = again
    strong[rows] = found
    return where, strong


def _running_median(values: np.ndarray, run: int) -> np.ndarray:
    """Each value's median with its ``run`` - 1 nearest neighbours (NaNs left out; NaN where all are)."""
    half = run // 2
    padded = np.concatenate([np.full(half, np.nan), values, np.full(half, np.nan)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1)
    return nan_row_median(windows)


def _levels(vals: np.ndarray, depth: np.ndarray, edge: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per profile (``vals`` (n, k, channels) sampled at ``depth`` px into the table), the median colour of the mat deep
    inside (the innermost ``MAT_REFERENCE_PX``), and just inside and just outside its step at ``edge`` (depth px)."""
    rel = depth[None, :] - edge[:, None]
    deep = np.broadcast_to(depth[None, :] >= depth.max() - MAT_REFERENCE_PX, rel.shape)
    just_in = (rel > STEP_WINDOW_PX) & (rel <= STEP_WINDOW_PX + STEP_LEVEL_PX)
    just_out = (rel < -STEP_WINDOW_PX) & (rel >= -STEP_WINDOW_PX - STEP_LEVEL_PX)
    out = []
    n, k, channels = vals.shape
    for mask in (deep, just_in, just_out):
        # nan_row_median, not np.nanmedian: no "All-NaN slice" warning to silence (warnings.catch_warnings is not
        # thread-safe, and the app fits markers in threads beside each other).
        rows = np.moveaxis(np.where(mask[..., None], vals, np.nan), 1, -1).reshape(n * channels, k)
        out.append(nan_row_median(rows).reshape(n, channels))
    return out[0], out[1], out[2]


def _step_signs(values: np.ndarray, offsets: np.ndarray, allowed: np.ndarray, near_a: np.ndarray, run: int = 0) -> np.ndarray:
    """Each profile's step sign (+1 rising with the offsets, -1 falling): the one most profiles near the side's sure end
    have (the mat on the same side all along); with ``run``, the one most of the ``run`` neighbouring profiles have (the
    floor beyond the mat lighter along part of the side, darker along another)."""
    grad = np.gradient(values, float(offsets[1] - offsets[0]), axis=1)
    peak = np.argmax(np.where(allowed, np.abs(grad), 0.0), axis=1)
    steepest = grad[np.arange(len(values)), peak]
    signs = np.full(len(values), float(np.sign(np.median(steepest[near_a]))) if near_a.any() else 0.0)
    if run > 1:
        local = np.sign(_running_median(steepest, run))
        signs = np.where(np.isfinite(local) & (local != 0), local, signs)
    return signs


def _step(values: np.ndarray, offsets: np.ndarray, allowed: np.ndarray, near_a: np.ndarray, area: bool,
          sign: float | np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each profile's (rows of ``values`` across a side, sampled at ``offsets``) step within ``allowed``: its place, whether
    it is strong enough to keep, and the index of its steepest sample. The step's sign (one, or one per profile) is the
    one most profiles near the side's sure end have (``_step_signs``) unless given."""
    step = float(offsets[1] - offsets[0])
    grad = np.gradient(values, step, axis=1)
    rows = np.arange(len(values))
    signs = np.broadcast_to(np.asarray(_step_signs(values, offsets, allowed, near_a) if sign is None else sign, dtype=np.float64),
                            (len(values),))
    strength = np.where(allowed, np.where(signs[:, None] != 0.0, np.maximum(signs[:, None] * grad, 0.0), np.abs(grad)), 0.0)
    peak = np.argmax(strength, axis=1)
    top = strength[rows, peak]
    if area:
        # The step's place from its area (the sub-pixel edge of a step between two levels): the levels are the medians
        # either side of a window round the steepest point, so a textured mat's grain moves them little, and every
        # sample in the window counts, not only the steepest.
        rel = offsets[None, :] - offsets[peak][:, None]
        window = np.abs(rel) <= STEP_WINDOW_PX
        before = (rel < -STEP_WINDOW_PX) & (rel >= -STEP_WINDOW_PX - STEP_LEVEL_PX)
        after = (rel > STEP_WINDOW_PX) & (rel <= STEP_WINDOW_PX + STEP_LEVEL_PX)
        low = nan_row_median(np.where(before, values, np.nan))
        high = nan_row_median(np.where(after, values, np.nan))
        rise = high - low
        ok = np.isfinite(rise) & (np.abs(rise) > 1e-6)
        rise = np.where(ok, rise, 1.0)
        frac = np.clip((values - np.where(ok, low, 0.0)[:, None]) / rise[:, None], 0.0, 1.0)
        where = offsets[peak] + STEP_WINDOW_PX + step / 2 - np.sum(np.where(window, frac, 0.0), axis=1) * step
        strong = ok & (top > 0.5 * np.median(top)) & (np.abs(where - offsets[peak]) <= STEP_WINDOW_PX)
        return where, strong, peak
    window = np.abs(offsets[None, :] - offsets[peak][:, None]) <= 1.0
    weight = np.where(window, strength, 0.0)
    where = np.sum(weight * offsets[None, :], axis=1) / np.maximum(np.sum(weight, axis=1), 1e-9)
    strong = (top > 0.5 * np.median(top)) & (peak > 1) & (peak < len(offsets) - 2)
    return where, strong, peak


def _line_through(anchor: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, float, float] | None:
    """The line through ``anchor`` along the points' own (3-MAD trimmed) line: its direction, the 1-sigma of its angle
    (radians), and how far the points' line passes from the anchor (px). The direction is the points' own, not one
    forced through the anchor: where an edge is found a fraction of a pixel to one side all along (the phone's tone
    curve, a rounded edge) forcing it through the anchor would turn it."""
    trimmed = _trimmed_line(points, 10)
    if trimmed is None:
        return None
    centre, direction, keep, _ = trimmed
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
