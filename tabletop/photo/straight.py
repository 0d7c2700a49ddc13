"""The plumb-line cost (``camera.plumb_line``) for many trial lenses at once, to the bit.

The cost of a trial k1 is, over the table's sides, the sum of squared distances of each side's edge points
(undistorted through the lens) from that side's own total-least-squares line. A search tries hundreds of k1 on the
same few hundred points: the per-call overheads of a dozen small numpy calls were most of an unaided analysis's lens
time (1.5 s of CPU on a steep photo). Here every trial's undistortion is worked on one array [k, n, 2] by the same
elementwise operations in the same order as ``Distortion.remove``, and each side's centring, SVD and sum of squares
are made for all trials in one stacked call each (numpy's stacked SVD and reductions run the same kernel on each
matrix or row as on one alone); the residuals' matrix-vector products stay one call per trial and side, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tabletop.photo.camera import Distortion

REMOVE_ITERATIONS = 6
"""The plumb-line search's undistortion iterations (``Distortion.remove(..., iterations=6)``)."""


def plumb_costs(base: Distortion, sides: list[np.ndarray], ks: np.ndarray | list[float]) -> list[float]:
    """For each k1 in ``ks``: ``sum`` over ``sides`` (edge points [n, 2], photo px) of the squared residuals from the
    side's own straight line after ``replace(base, k1=k).remove(points, iterations=6)``; the values
    ``camera.plumb_line``'s cost gave one k at a time."""
    k1 = np.asarray(ks, dtype=np.float64).reshape(-1, 1)
    points = np.concatenate(sides)
    centre = np.asarray(base.centre)
    d = (points - centre) / base.scale
    u = d
    for _ in range(REMOVE_ITERATIONS):
        r2 = u[..., 0] * u[..., 0] + u[..., 1] * u[..., 1]  # [k, n] (the first time [n]: the same for every trial)
        u = d / (1.0 + k1 * r2 + base.k2 * r2 * r2)[..., None]
    whole = centre + u * base.scale  # [k, n, 2]
    flat = k1[:, 0] == 0.0
    if base.k2 == 0.0 and flat.any():
        whole[flat] = points  # a trial of k1 = 0 is the identity lens, whose remove returns the points as they are
    total = np.zeros(len(k1))
    end = 0
    for side in sides:
        start, end = end, end + len(side)
        part = np.ascontiguousarray(whole[:, start:end])  # [k, n, 2], each [n, 2] C-contiguous as a copy of one was
        centred = part - np.add.reduce(part, axis=1, keepdims=True) / (end - start)  # ndarray.mean's sum and division
        _, _, vt = np.linalg.svd(centred, full_matrices=False)
        normal = vt[:, 0, ::-1] * [-1.0, 1.0]  # (-v1, v0): a product by -1 is the negation, by 1 the value
        residuals = np.empty((len(k1), end - start))
        for j in range(len(k1)):
            np.matmul(centred[j], normal[j], out=residuals[j])
        residuals *= residuals
        total += np.add.reduce(residuals, axis=1)
    return [float(v) for v in total]
