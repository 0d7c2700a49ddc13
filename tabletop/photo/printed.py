"""Cells printed on the mat: a hex-printed mat's cells are outlined like bases of their size, but a base is round.

A hex mat's cells (1-2 inches flat to flat: 25-50 mm bases' sizes) are closed outlines with the mat's colour inside
and out, and the rim evidence (a step from the mat's colour) sees their printed lines all round, as a base's rim. Their
shape tells them apart: a base's outline is a circle (its rim, seen on the table's plane), a printed cell's a regular
hexagon. A hexagon's radius from its centre is a / cos of the angle from its nearest side's normal (a its apothem): a
circle plus a sixfold ripple whose sixth harmonic is ``HEX_RIPPLE`` of its mean radius and holds ``HEX_RIPPLE_SHARE``
of its departure from the circle. Read on ``FIT_RAYS`` rays round each detection, an outline nearer a hexagon than a
circle on both counts is a printed cell.
"""

from __future__ import annotations

import math

import numpy as np

from tabletop.photo.rays import EVIDENCE_UNIT, FIT_RAYS, Scale, outline_of
from tabletop.photo.rimfit import rim_points
from tabletop.photo.values import Rectified

HEX_RIPPLE = 0.0587
"""A regular hexagon's sixth harmonic of its radius, over its mean radius (a circle's: 0)."""
HEX_RIPPLE_SHARE = 0.90
"""The share of a regular hexagon's departure from its mean circle (the variance about it) in that harmonic."""
HEX_WINDOW_MM = 4.0
"""How far either side of a detection's circle its outline is read: a hexagon's corners lie 10 % of its mean radius
outside it and its sides' middles 5 % inside, so this covers cells up to 80 mm across."""
HEX_MIN_RAYS = 40
"""Rays on which the outline must be seen for its shape to be judged (a third of them)."""


def _ripple(rho: np.ndarray, usable: np.ndarray, angles: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per outline, least squares on its usable rays: (mean radius, sixth-harmonic amplitude, that harmonic's share of
    the outline's variance about its best circle)."""
    circle = np.column_stack([np.ones_like(angles), np.cos(angles), np.sin(angles)])
    sixfold = np.column_stack([circle, np.cos(6 * angles), np.sin(6 * angles)])
    w = usable.astype(float)
    rho = np.where(usable, rho, 0.0)

    def fit(design: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = design.shape[1]
        ata = np.einsum("nr,ri,rj->nij", w, design, design) + 1e-9 * np.eye(k)
        atb = np.einsum("nr,ri,nr->ni", w, design, rho)
        params = np.linalg.solve(ata, atb[..., None])[..., 0]
        res = (rho - params @ design.T) * w
        return params, np.sum(res * res, axis=1)

    _, circle_ss = fit(circle)
    params, sixfold_ss = fit(sixfold)
    with np.errstate(all="ignore"):
        share = np.where(circle_ss > 0, 1.0 - sixfold_ss / circle_ss, 0.0)
    return params[:, 0], np.hypot(params[:, 3], params[:, 4]), share


def printed_cells(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                  scale: Scale) -> np.ndarray:
    """Per detection (footprint centre and radius in table mm), whether its outline is a printed hexagon, not a base:
    its sixfold ripple over half a hexagon's, holding over half the share a hexagon's does."""
    n = len(centres)
    if n == 0:
        return np.zeros(0, dtype=bool)
    angles = np.linspace(0, 2 * math.pi, FIT_RAYS, endpoint=False)
    extra = outline_of(rect, centres, radii, angles)
    outline, evidence, _ = rim_points(rect, centres, radii, mat_colour, whiten, HEX_WINDOW_MM, scale, extra)
    usable = (evidence > 0.3 * EVIDENCE_UNIT) & (evidence > 0.25 * np.median(evidence, axis=1, keepdims=True))
    mean_radius, ripple, share = _ripple(outline - extra, usable, angles)
    return ((usable.sum(axis=1) >= HEX_MIN_RAYS) & (mean_radius > 0) & (ripple > 0.5 * HEX_RIPPLE * mean_radius)
            & (share > 0.5 * HEX_RIPPLE_SHARE))
