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


@dataclass(frozen=True, eq=False)
class GroundMap:
    """Which surface each point of the table lies on, by chromaticity: regions of the table's top-down image bounded by
    a step in chromaticity, the largest of them the mat. The light's fall and white light's shadows scale every channel
    alike, so they do not change chromaticity; a roof, a terrain piece's top or its slope band, of another colour, is
    cut off from the mat by its edge even where its colour is near the mat's."""

    labels: np.ndarray
    """int32 [rows, cols], row 0 at the table's far edge: a region's label, 0 on an edge."""
    mat_label: int
    depth_mm: float
    mm_per_px: float
    """``GROUND_MM_PER_PX``, or the top-down image's own pixel where that is coarser (a table over 2 m square)."""

    def first_surface_is_mat(self, x_mm: np.ndarray, y_mm: np.ndarray) -> np.ndarray:
        """Along the last axis of the points (each row a path outwards): whether the first point off an edge lies on
        the mat (False where every point lies on an edge)."""
        rows, cols = self.labels.shape
        ix = np.clip(np.floor(np.asarray(x_mm) / self.mm_per_px).astype(int), 0, cols - 1)
        iy = np.clip(np.floor((self.depth_mm - np.asarray(y_mm)) / self.mm_per_px).astype(int), 0, rows - 1)
        found = self.labels[iy, ix]
        first = np.take_along_axis(found, np.argmax(found > 0, axis=-1)[..., None], axis=-1)[..., 0]
        return first == self.mat_label


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
    bar = GROUND_STEP_SIGMAS * sigma
    edge = np.zeros(chroma.shape[:2], dtype=bool)
    # Across one pixel and across two: the median may spread a faint step over two pixels, half of it each.
    across = np.any(np.abs(chroma[:, 1:] - chroma[:, :-1]) > bar, axis=2)
    down = np.any(np.abs(chroma[1:] - chroma[:-1]) > bar, axis=2)
    edge[:, 1:] |= across
    edge[:, :-1] |= across
    edge[1:] |= down
    edge[:-1] |= down
    edge[:, 1:-1] |= np.any(np.abs(chroma[:, 2:] - chroma[:, :-2]) > bar, axis=2)
    edge[1:-1] |= np.any(np.abs(chroma[2:] - chroma[:-2]) > bar, axis=2)
    n, labels = cv2.connectedComponents((~edge).astype(np.uint8), connectivity=4)
    sizes = np.bincount(labels.ravel(), minlength=n)
    sizes[0] = 0  # the edges
    return GroundMap(labels, int(np.argmax(sizes)), depth_mm, f / px_per_mm)
