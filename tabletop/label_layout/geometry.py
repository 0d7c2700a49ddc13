"""The obstacles of a layout in integer screen px: base boxes, the canvas, and the uniform-grid
spatial hash (:class:`_Grid`) every collision query goes through. Pure: no pygame."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from tabletop.label_layout.requests import Rect


def base_boxes(centres: Any, radii: Any, pad: float = 0.0) -> np.ndarray:
    """Square screen boxes (N, 4: x0, y0, x1, y1) of bases at ``centres`` (N, 2) with half-sizes ``radii`` (+ ``pad``)."""
    c = np.asarray(centres, dtype=float).reshape(-1, 2)
    r = np.broadcast_to(np.asarray(radii, dtype=float), (len(c),)) + pad
    return np.column_stack([c[:, 0] - r, c[:, 1] - r, c[:, 0] + r, c[:, 1] + r])


def rect_box_gap(rect: Sequence[float], box: Sequence[float]) -> float:
    """Euclidean distance between rect (x, y, w, h) and box (x0, y0, x1, y1); 0 when they meet."""
    x, y, w, h = rect
    dx = max(box[0] - (x + w), x - box[2], 0.0)
    dy = max(box[1] - (y + h), y - box[3], 0.0)
    return math.hypot(dx, dy)


def _canvas(bounds: Sequence[float]) -> Rect:
    if len(bounds) == 2:
        return (0, 0, int(bounds[0]), int(bounds[1]))
    x, y, w, h = bounds
    return (int(x), int(y), int(w), int(h))


#: A grid item: x0, y0, x1, y1 and its owner, a label's id (None: a fixed obstacle).
Item = tuple[int, int, int, int, str | None]


class _Grid:
    """Uniform-grid spatial hash of integer rects, each with an owner (a label's id; None: a fixed obstacle).

    Cells are tuples, replaced on every write and never changed in place: a layout hands its grid to
    the next frame's (see ``Layout._grid``), which copies the list of cells and shares the cells.
    """

    __slots__ = ("x0", "y0", "nx", "ny", "cell", "cells")

    def __init__(self, canvas: Rect, cell: int, cells: list[tuple[Item, ...]] | None = None) -> None:
        self.x0, self.y0 = canvas[0], canvas[1]
        self.cell = cell
        self.nx = max(1, -(-canvas[2] // cell))
        self.ny = max(1, -(-canvas[3] // cell))
        # Empty cells share one empty tuple. (Thousands of empty lists a frame at 4K cost more than
        # the layout: allocating them sets off the garbage collector.)
        self.cells: list[tuple[Item, ...]] = [()] * (self.nx * self.ny) if cells is None else list(cells)

    def _span(self, x0: int, y0: int, x1: int, y1: int) -> tuple[int, int, int, int] | None:
        c = self.cell
        i0 = max(0, (x0 - self.x0) // c)
        i1 = min(self.nx - 1, (x1 - 1 - self.x0) // c)
        j0 = max(0, (y0 - self.y0) // c)
        j1 = min(self.ny - 1, (y1 - 1 - self.y0) // c)
        if i0 > i1 or j0 > j1:
            return None
        return i0, i1, j0, j1

    def add(self, x0: int, y0: int, x1: int, y1: int, owner: str | None) -> Item:
        item = (x0, y0, x1, y1, owner)
        span = self._span(x0, y0, x1, y1)
        if span is not None:
            i0, i1, j0, j1 = span
            nx, cells = self.nx, self.cells
            for j in range(j0, j1 + 1):
                row = j * nx
                for i in range(row + i0, row + i1 + 1):
                    cells[i] += (item,)
        return item

    def add_inside(self, x0: int, y0: int, x1: int, y1: int, owner: str | None) -> Item:
        """:meth:`add` for a rect inside the canvas (no clamping)."""
        item = (x0, y0, x1, y1, owner)
        c, gx, gy, nx, cells = self.cell, self.x0, self.y0, self.nx, self.cells
        i0 = (x0 - gx) // c
        i1 = (x1 - 1 - gx) // c + 1
        for j in range((y0 - gy) // c, (y1 - 1 - gy) // c + 1):
            row = j * nx
            for i in range(row + i0, row + i1):
                cells[i] += (item,)
        return item

    def fill(self, boxes: Iterable[Sequence[int]]) -> None:
        """Add every box (x0, y0, x1, y1) as a fixed obstacle (owner None); the loop of :meth:`add`, written out."""
        c, gx, gy, nx, ny, cells = self.cell, self.x0, self.y0, self.nx, self.ny, self.cells
        for x0, y0, x1, y1 in boxes:
            i0 = (x0 - gx) // c
            i1 = (x1 - 1 - gx) // c
            j0 = (y0 - gy) // c
            j1 = (y1 - 1 - gy) // c
            if i0 < 0:
                i0 = 0
            if j0 < 0:
                j0 = 0
            if i1 >= nx:
                i1 = nx - 1
            if j1 >= ny:
                j1 = ny - 1
            item = (x0, y0, x1, y1, None)
            for j in range(j0, j1 + 1):
                row = j * nx
                for i in range(row + i0, row + i1 + 1):
                    cells[i] += (item,)

    def remove(self, item: Item) -> None:
        """Take out every copy of ``item``."""
        span = self._span(item[0], item[1], item[2], item[3])
        if span is not None:
            i0, i1, j0, j1 = span
            cells = self.cells
            for j in range(j0, j1 + 1):
                row = j * self.nx
                for i in range(row + i0, row + i1 + 1):
                    cells[i] = tuple([x for x in cells[i] if x != item])

    def hits(self, x0: int, y0: int, x1: int, y1: int) -> list[str | None]:
        """Owners of every rect meeting (x0, y0)-(x1, y1), with repeats."""
        out: list[str | None] = []
        span = self._span(x0, y0, x1, y1)
        if span is None:
            return out
        i0, i1, j0, j1 = span
        for j in range(j0, j1 + 1):
            row = j * self.nx
            for i in range(i0, i1 + 1):
                for a0, b0, a1, b1, o in self.cells[row + i]:
                    if a0 < x1 and x0 < a1 and b0 < y1 and y0 < b1:
                        out.append(o)
        return out


def _free(grid: _Grid, x0: int, y0: int, x1: int, y1: int) -> bool:
    """No rect in ``grid`` meets (x0, y0)-(x1, y1); the rect is inside the canvas (the caller checked)."""
    c, gx, gy, nx, cells = grid.cell, grid.x0, grid.y0, grid.nx, grid.cells
    i0 = (x0 - gx) // c
    i1 = (x1 - 1 - gx) // c
    for j in range((y0 - gy) // c, (y1 - 1 - gy) // c + 1):
        row = j * nx
        for i in range(row + i0, row + i1 + 1):
            for a0, b0, a1, b1, _ in cells[i]:
                if a0 < x1 and x0 < a1 and b0 < y1 and y0 < b1:
                    return False
    return True


def _fixed_obstacles(bases: Any, foci: Any, focus_pad: float, regions: Iterable[Sequence[float]]) -> np.ndarray:
    """Every fixed obstacle as an integer box (N, 4: x0, y0, x1, y1) covering it (snapped outward), empty ones left out."""
    parts = []
    if bases is not None and np.size(bases):
        parts.append(np.asarray(bases, dtype=float).reshape(-1, 4))
    if foci is not None and np.size(foci):
        pts = np.asarray(foci, dtype=float).reshape(-1, 2)
        parts.append(np.hstack([pts - focus_pad, pts + focus_pad]))
    rects = [tuple(r) for r in regions]
    if rects:
        r = np.asarray(rects, dtype=float).reshape(-1, 4)
        parts.append(np.hstack([r[:, :2], r[:, :2] + r[:, 2:]]))
    if not parts:
        return np.zeros((0, 4), dtype=np.int64)
    b = np.concatenate(parts)
    snapped = np.hstack([np.floor(b[:, :2]), np.ceil(b[:, 2:])]).astype(np.int64)
    keep = (snapped[:, 2] > snapped[:, 0]) & (snapped[:, 3] > snapped[:, 1])
    return snapped[keep]
