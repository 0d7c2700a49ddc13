"""Cells printed on the mat: a hex-printed mat's cells are outlined like bases of their size, but a base is round.

A hex mat's cells (1-2 inches flat to flat: 25-50 mm bases' sizes) are closed outlines with the mat's colour inside
and out, and the rim evidence (a step from the mat's colour) sees their printed lines all round, as a base's rim. Their
shape tells them apart: a base's outline is a circle (its rim, seen on the table's plane), a printed cell's a regular
hexagon. A hexagon's radius from its centre is a / cos of the angle from its nearest side's normal (a its apothem): a
circle plus a sixfold ripple, its sixth harmonic ``HEX_RIPPLE`` of its mean radius, the 12th, 18th... smaller, the
others nothing. Read on ``FIT_RAYS`` rays round each detection, an outline whose sixth harmonic is over half a
hexagon's and stands out from its neighbours (``HEX_STANDOUT``), with the same colour on both sides of it
(``ACROSS_MAX_UNITS``), is a printed cell. Noise, a figure's foot over the rim, a shadow or a neighbour in contact
spread over every harmonic; a hexagon's sixth stands out at any distance from the camera, where a share of the
outline's scatter would fall with the photo's resolution. A base standing in a cell of its own size has the print
round its rim at the six corners, as sixfold as a cell; its top inside its outline tells it apart.
"""

from __future__ import annotations

import numpy as np

from tabletop.photo.rays import FIT_ANGLES, FIT_RAYS, Scale, channel_norm, nan_row_median, sample_rays
from tabletop.photo.rimfit import rim_points, usable_rays
from tabletop.photo.values import Rectified

HEX_RIPPLE = 0.0587
"""A regular hexagon's sixth harmonic of its radius, over its mean radius (a circle's: 0)."""
HARMONICS = 12
"""Harmonics of the outline's radius fitted: the sixth, its neighbours and the hexagon's next (the 12th)."""
NEIGHBOURS = (2, 3, 4, 5, 7, 8, 9, 10, 11)
"""The harmonics the sixth is compared with: all fitted but the circle's (0, 1: radius and centre) and a hexagon's."""
HEX_STANDOUT = 9.0
"""The sixth harmonic's power over the mean of its neighbours': above this it is no chance. From noise alone each
harmonic's power is exponential about a common mean, so the chance is e^-9 (1 in 8,000); a hexagon's neighbours hold
only noise."""
HEX_WINDOW = (0.85, 1.25)
"""Where a detection's outline is read, over the detection's radius: a cell is taken for the catalogue size nearest
its mean radius (a step of up to 12 %), its corners lie 10 % outside that and its sides' middles 5 % inside. No
further in: a base standing in a cell (as hex-and-counter games place them) has its own rim there."""
HEX_MIN_RAYS = 3 * FIT_RAYS // 4
"""Rays on which the outline must be seen for its shape to be judged (three quarters: with fewer, seen in six arcs
between six gaps, as round a base in contact with six others, the sixth harmonic is confused with the mean radius) ..."""
HEX_MAX_GAP = FIT_RAYS // 12
"""... with no run of rays where it is not seen longer than this (30 degrees, half a hexagon's side): across a longer
gap the harmonics are no longer told apart (the fit of 25 terms is free to swing there)."""
ACROSS_MM = (2.0, 4.0)
"""A printed cell is a line on the mat: the same colour on both sides of it. Read this far either side of the outline
(past a printed line up to a millimetre wide and its blur) ..."""
ACROSS_MAX_UNITS = 4.5
"""... the two sides' median colours on each ray, whitened by the mat's variation (``candidates.MatModel``), differ by
at most this on most rays: twice the difference of two bare-mat readings (each pixel's whitened distance about 1.6,
three channels of noise; times the square root of 2 for a difference). A base's top lies inside its outline, of another
colour than what is outside unless painted like it; a base standing in a cell of its size shows the print round its
rim, which the shape alone would take for a cell's. Compared with each other, not with the mat's estimated colour: in
a unit of large bases that estimate is their tops'."""


def harmonics(rho: np.ndarray, usable: np.ndarray, angles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per outline, least squares on its usable rays of its radius as a sum of harmonics 0-``HARMONICS``: (mean
    radius, amplitude of each harmonic 0-``HARMONICS``)."""
    cols = [np.ones_like(angles)]
    for k in range(1, HARMONICS + 1):
        cols += [np.cos(k * angles), np.sin(k * angles)]
    design = np.column_stack(cols)
    w = usable.astype(float)
    ata = np.einsum("nr,ri,rj->nij", w, design, design) + 1e-9 * np.eye(design.shape[1])
    atb = np.einsum("nr,ri,nr->ni", w, design, np.where(usable, rho, 0.0))
    params = np.linalg.solve(ata, atb[..., None])[..., 0]
    amplitude = np.concatenate([np.abs(params[:, :1]), np.hypot(params[:, 1::2], params[:, 2::2])], axis=1)
    return params[:, 0], amplitude


def longest_gap(usable: np.ndarray) -> np.ndarray:
    """Per row of ``usable`` ([n, rays], round the circle), the longest run of rays not usable."""
    n_rays = usable.shape[1]
    twice = np.concatenate([usable, usable], axis=1)
    at = np.arange(2 * n_rays)
    last_seen = np.maximum.accumulate(np.where(twice, at, -1), axis=1)
    return np.minimum((at - last_seen).max(axis=1), n_rays)


def outline_shapes(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                   scale: Scale) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per circle (centre and radius in table mm), its outline's shape: (mean radius, amplitude of each harmonic
    0-``HARMONICS``, rays on which the outline was seen, the longest run of rays where it was not, and how far the
    colour inside it is from the colour outside it). ``whiten``: the mat's whitening, [3, 3]."""
    n = len(centres)
    angles = FIT_ANGLES
    outline = np.zeros((n, FIT_RAYS))
    evidence = np.zeros((n, FIT_RAYS))
    # Read where the outline lies on the table's plane, as a flat print's does: a tall base's reach past its footprint
    # (``rays.outline_of``), taken off a cell's outline, would add its own pattern, growing with the distance.
    for radius in np.unique(radii):
        rows = np.nonzero(radii == radius)[0]
        flat = np.zeros((len(rows), FIT_RAYS))
        inner, outer = HEX_WINDOW[0] * float(radius), HEX_WINDOW[1] * float(radius)
        outline[rows], evidence[rows], _ = rim_points(rect, centres[rows], np.full(len(rows), (inner + outer) / 2),
                                                      mat_colour[rows], whiten, (outer - inner) / 2, scale, flat)
    usable = usable_rays(evidence)
    mean_radius, amplitude = harmonics(outline, usable, angles)
    across = _across_distance(rect, centres, outline, usable, angles, whiten)
    return mean_radius, amplitude, usable.sum(axis=1), longest_gap(usable), across


def _across_distance(rect: Rectified, centres: np.ndarray, outline: np.ndarray, usable: np.ndarray, angles: np.ndarray,
                     whiten: np.ndarray) -> np.ndarray:
    """Per circle, the median over its usable rays of how far (whitened) the colour inside its outline is from the colour
    outside it (``ACROSS_MM``); infinite where no ray is usable."""
    steps = np.arange(ACROSS_MM[0], ACROSS_MM[1] + 1e-9, 0.25)
    t = np.concatenate([np.maximum(outline[:, :, None] - steps, 0.0), outline[:, :, None] + steps], axis=2)
    colours = sample_rays(rect, centres, t, angles)
    inside = np.median(colours[:, :, : len(steps)], axis=2)
    outside = np.median(colours[:, :, len(steps):], axis=2)
    per_ray = channel_norm((inside - outside) @ np.asarray(whiten, dtype=np.float32).T, axis=2)
    return np.where(usable.any(axis=1), nan_row_median(np.where(usable, per_ray, np.nan)), np.inf)


def printed_cells(rect: Rectified, centres: np.ndarray, radii: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray,
                  scale: Scale) -> np.ndarray:
    """Per detection (footprint centre and radius in table mm), whether its outline is a printed hexagon, not a base."""
    if len(centres) == 0:
        return np.zeros(0, dtype=bool)
    mean_radius, amplitude, seen, gap, across = outline_shapes(rect, centres, radii, mat_colour, whiten, scale)
    sixth = amplitude[:, 6]
    with np.errstate(all="ignore"):
        standout = sixth ** 2 / np.mean(amplitude[:, list(NEIGHBOURS)] ** 2, axis=1)
    return ((seen >= HEX_MIN_RAYS) & (gap <= HEX_MAX_GAP) & (mean_radius > 0) & (sixth > 0.5 * HEX_RIPPLE * mean_radius)
            & (standout > HEX_STANDOUT) & (across <= ACROSS_MAX_UNITS))
