"""The table's surfaces by chromaticity: which surface a base stands on (the ground test of the footprint fit).

Regions of the table's top-down image bounded by a step in chromaticity are its surfaces. The light's fall and a white
light's shadows scale every channel alike, so they do not change chromaticity; a roof, a terrain piece's top or its
slope band, of another colour, is cut off from the mat by its edge even where its colour is near the mat's."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

GROUND_MM_PER_PX = 2.0
"""The ground map's pixel (mm): a printed line (1-2 mm) is averaged into its cell, a terrain piece's edge or slope band
(10-20 mm) spans several pixels."""
GROUND_MEDIAN_PX = 5
"""The ground map's median (pixels, 10 mm): takes out the mat's print and speckle, keeps a step between two surfaces."""
GROUND_STEP_SIGMAS = 2.0
"""A change of chromaticity between neighbouring ground-map pixels larger than this many sigmas of the mat's own (its
texture's at that scale, or one grey level's rounding where that is larger) is an edge between two surfaces."""
GROUND_FLOOR_GREY = 1.0
"""The least chromaticity sigma, in grey levels of the mat's green: an even mat's chromaticity changes by a level's
rounding, which must not draw contours across it."""
GROUND_NOISE_BLOCK_MM = 32.0
"""The patch over which the mat's chromaticity texture is measured where it stands (a robust sigma per patch): a ratio
of two channels is noisier where they are darker (a table's far side from a low lamp, a cast shadow), and the table's
one sigma, set by its lit part, would draw contours through every dark patch's noise. A patch is larger than a step's
few pixels, so an edge through it is a minority of its pixels."""
EDGE_REACH_MM = 10.0
"""A surface reaches the table's edge where it comes this close to it (the ground map's median window: a step at the
edge itself leaves a few edge pixels between the surface and the edge)."""
EDGE_RUN_MM = 150.0
"""A surface whose points at the table's edge lie this far apart (along x or along y) is the table's own plane: a
printed road or river (it crosses the table), each piece of a mat they cut, a two-tone mat's second colour. Terrain
stands on the table with sides all round: its top reaches the edge, if at all, over a short stretch (a hill's top of
300 mm set 10 mm from the edge: a 110 mm chord; a building's roof: its width, 40-100 mm)."""
ONE_SIDE_SHARE = 0.5
"""... and it meets two of the table's sides, or runs along this share of the one side it meets: a road, a river or
a piece of a mat they cut meets two sides (a cut piece along one side runs to its ends), a two-tone mat's second colour
two or most of one; a long building against one side (a barracks' roof, 200-300 mm) meets that side only, over its
length."""


@dataclass(frozen=True, eq=False)
class GroundMap:
    """Which surface each point of the table lies on, by chromaticity: regions of the table's top-down image bounded by
    a step in chromaticity, and which of them lie on the table's own plane (``floor``). The light's fall and white
    light's shadows scale every channel alike, so they do not change chromaticity; a roof, a terrain piece's top or its
    slope band, of another colour, is cut off from the mat by its edge even where its colour is near the mat's."""

    labels: np.ndarray
    """int32 [rows, cols], row 0 at the table's far edge: a region's label, 0 on an edge."""
    floor: np.ndarray
    """bool [labels]: the regions on the table's plane (``floor_regions``); False for label 0 (the edges)."""
    depth_mm: float
    mm_per_px: float
    """``GROUND_MM_PER_PX``, or the top-down image's own pixel where that is coarser (a table over 2 m square)."""

    def first_surface_is_floor(self, x_mm: np.ndarray, y_mm: np.ndarray) -> np.ndarray:
        """Along the last axis of the points (each row a path outwards): whether the first point off an edge lies on
        the table's plane (False where every point lies on an edge)."""
        rows, cols = self.labels.shape
        ix = np.clip(np.floor(np.asarray(x_mm) / self.mm_per_px).astype(int), 0, cols - 1)
        iy = np.clip(np.floor((self.depth_mm - np.asarray(y_mm)) / self.mm_per_px).astype(int), 0, rows - 1)
        found = self.labels[iy, ix]
        first = np.take_along_axis(found, np.argmax(found > 0, axis=-1)[..., None], axis=-1)[..., 0]
        return self.floor[first]


def ground_map(top: np.ndarray, px_per_mm: float, depth_mm: float) -> GroundMap:
    """The table's surfaces (``GroundMap``) from its top-down image at ``px_per_mm``."""
    h, w = top.shape[:2]
    f = max(1.0, GROUND_MM_PER_PX * px_per_mm)  # never finer than the top-down image (a large table's is coarse)
    small = cv2.resize(top, (max(8, int(round(w / f))), max(8, int(round(h / f)))),
                       interpolation=cv2.INTER_AREA).astype(np.float32) + 1.0
    raw = np.stack([np.log(small[..., 2] / small[..., 1]), np.log(small[..., 0] / small[..., 1])], axis=2)
    chroma = np.stack([cv2.medianBlur(np.ascontiguousarray(raw[..., k]), GROUND_MEDIAN_PX) for k in range(2)], axis=2)
    texture = (raw - chroma).reshape(-1, 2)
    sigma = 1.4826 * np.median(np.abs(texture - np.median(texture, axis=0)), axis=0)
    sigma = np.maximum(sigma, GROUND_FLOOR_GREY / float(np.median(small[..., 1])))
    # Never finer than the table's sigma; coarser where the mat's own texture is noisier (it is darker there).
    bar = GROUND_STEP_SIGMAS * np.maximum(sigma, _local_sigma(raw - chroma, small[..., 1], GROUND_NOISE_BLOCK_MM * px_per_mm / f))
    edge = np.zeros(chroma.shape[:2], dtype=bool)
    # Across one pixel and across two: the median may spread a faint step over two pixels, half of it each. A pair's
    # bar is the smoother side's, so a step onto a rougher surface is not hidden by that surface's own texture.
    across = np.any(np.abs(chroma[:, 1:] - chroma[:, :-1]) > np.minimum(bar[:, 1:], bar[:, :-1]), axis=2)
    down = np.any(np.abs(chroma[1:] - chroma[:-1]) > np.minimum(bar[1:], bar[:-1]), axis=2)
    edge[:, 1:] |= across
    edge[:, :-1] |= across
    edge[1:] |= down
    edge[:-1] |= down
    edge[:, 1:-1] |= np.any(np.abs(chroma[:, 2:] - chroma[:, :-2]) > np.minimum(bar[:, 2:], bar[:, :-2]), axis=2)
    edge[1:-1] |= np.any(np.abs(chroma[2:] - chroma[:-2]) > np.minimum(bar[2:], bar[:-2]), axis=2)
    n, labels = cv2.connectedComponents((~edge).astype(np.uint8), connectivity=4)
    mm_per_px = f / px_per_mm
    return GroundMap(labels, floor_regions(labels, n, mm_per_px), depth_mm, mm_per_px)


def _local_sigma(texture: np.ndarray, green: np.ndarray, block_px: float) -> np.ndarray:
    """The chromaticity texture's robust sigma [rows, cols, 2] per patch of ``block_px`` pixels (at least one grey
    level's rounding of the patch's green), interpolated between patches' centres."""
    rows, cols = texture.shape[:2]
    b = max(4, int(round(block_px)))
    ny, nx = -(-rows // b), -(-cols // b)
    pad = ((0, ny * b - rows), (0, nx * b - cols))
    blocks = np.pad(np.abs(texture), pad + ((0, 0),), mode="edge").reshape(ny, b, nx, b, 2)
    local = 1.4826 * np.median(blocks, axis=(1, 3))
    grey = np.median(np.pad(green, pad, mode="edge").reshape(ny, b, nx, b), axis=(1, 3))
    local = np.maximum(local, (GROUND_FLOOR_GREY / np.maximum(grey, 1.0))[..., None]).astype(np.float32)
    full = cv2.resize(local, (nx * b, ny * b), interpolation=cv2.INTER_LINEAR)
    return full[:rows, :cols]


def floor_regions(labels: np.ndarray, n: int, mm_per_px: float) -> np.ndarray:
    """Which of the ``n`` regions lie on the table's plane: those whose points at the table's edge lie ``EDGE_RUN_MM``
    apart (a mat cut by printed roads, a river, a two-tone mat: every piece, and the road itself, runs to the edge) on
    two of its sides or along most of one (``ONE_SIDE_SHARE``: not a long roof against one side), and
    the largest region where it is larger than all of those together (a mat inside a printed frame, or hemmed in by
    terrain). A region closed off inside the table (a roof, a hill's top) is raised, however large: a hill's top larger
    than each piece of a mat cut by roads is not the mat."""
    rows, cols = labels.shape
    reach = max(1, int(round(EDGE_REACH_MM / mm_per_px)))
    low = np.full((n, 2), np.inf)
    high = np.full((n, 2), -np.inf)
    ys, xs = np.mgrid[0:rows, 0:cols]
    band = np.zeros((rows, cols), dtype=bool)
    band[:reach] = band[-reach:] = True
    band[:, :reach] = band[:, -reach:] = True
    found, at = labels[band], np.column_stack([xs[band], ys[band]]).astype(float)
    np.minimum.at(low, found, at)
    np.maximum.at(high, found, at)
    floor = np.max(high - low, axis=1) * mm_per_px >= EDGE_RUN_MM  # -inf where a region does not reach the edge
    # Each side's band alone: which regions meet it, and over how much of its length.
    sides_met = np.zeros(n, dtype=int)
    along_one = np.zeros(n)
    for side, along, length in ((labels[:reach], 1, cols), (labels[-reach:], 1, cols), (labels[:, :reach], 0, rows),
                                (labels[:, -reach:], 0, rows)):
        where = np.nonzero(side)
        found_side, pos = side[where], where[along].astype(float)
        first = np.full(n, np.inf)
        last = np.full(n, -np.inf)
        np.minimum.at(first, found_side, pos)
        np.maximum.at(last, found_side, pos)
        met = np.isfinite(first)
        sides_met += met
        along_one = np.where(met, np.maximum(along_one, (last - first + 1) / length), along_one)
    floor &= (sides_met >= 2) | (along_one >= ONE_SIDE_SHARE)
    floor[0] = False  # the edges
    sizes = np.bincount(labels.ravel(), minlength=n)
    sizes[0] = 0
    largest = int(np.argmax(sizes))
    if sizes[largest] > sizes[floor].sum():
        floor[largest] = True
    return floor
