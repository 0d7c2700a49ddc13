"""Oval bases: elliptical outlines found by EDCircles, fitted on their own rim and snapped to the oval catalogue; and
what looks like a base but fits no catalogue shape, reported as unfitted with its outline (never dropped silently).

An oval's outline along a ray at angle t from its centre lies at ``A B / sqrt((B cos u)^2 + (A sin u)^2)``, u = t - phi
(semi-axes A >= B, long axis at phi), plus the same reach past the footprint a round base of its mean radius has (its
top rim seen shifted away from the camera). Centre, axes and angle are fitted by Tukey-weighted Gauss-Newton on the
outline's distance along 120 rays (measured as the round rim fit measures it, ``rimfit.rim_points``), twice measured;
the angle's 1-sigma comes from the fit's covariance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tabletop.photo import base_profile
from tabletop.photo.footprint import BEVEL_PRIOR_SIGMA_MM, GIVEN_HEIGHT_SIGMA_MM, HEIGHT_PRIOR_SIGMA_MM
from tabletop.photo.rays import CORRELATION, FIT_ANGLES, FIT_RAYS, Scale, nan_row_median
from tabletop.photo.rimfit import rim_points, usable_rays
from tabletop.photo.values import Rectified

OVAL_SIZES_MM: tuple[tuple[float, float], ...] = ((60.0, 35.0), (75.0, 42.0), (90.0, 52.0), (105.0, 70.0), (120.0, 92.0),
                                                  (170.0, 105.0))
"""Oval bases (length x width, mm): the common wargame sizes."""
MIN_ELONGATION = 1.12
"""An outline whose long axis is less than this times its short one is round (the round detector's), not an oval."""
SNAP_TOLERANCE = 0.08
"""A fitted oval snaps to a catalogue size whose length and width it matches within this fraction; otherwise it is
reported as unfitted (a base of another shape or size, a terrain piece's round foot)."""
OVAL_MIN_SUPPORT = 0.6
"""An oval fit must keep this fraction of its rays (a figure or a neighbour may hide the rest)."""
OVAL_MAX_RMS_MM = 0.6
"""... and its kept outline points may scatter this much about the fitted ellipse."""
FIT_HALF_MM = 2.0
"""The outline is looked for this far either side of the ellipse being fitted."""
ITERATIONS = 6
HULL_STEPS = 17
"""Ellipses between footprint and top rim whose envelope is the outline."""
STEP = 1e-3
"""Relative finite-difference step of the ellipse's parameters."""


@dataclass(frozen=True)
class OvalFit:
    """A fitted oval: centre (mm), semi-axes (mm), long axis angle (degrees, 0-180, counter-clockwise from x), its 1-sigma,
    the centre's loosest 1-sigma (mm), rays kept, residual RMS (mm), and the catalogue size it snapped to (or None)."""

    x_mm: float
    y_mm: float
    a_mm: float
    b_mm: float
    angle_deg: float
    angle_sigma_deg: float
    centre_sigma_mm: float
    rays: int
    rms_mm: float
    size: tuple[float, float] | None

    def contains(self, x: float, y: float, margin: float = 0.0) -> bool:
        """Whether table point (x, y) lies within the footprint (grown by ``margin`` mm)."""
        phi = math.radians(self.angle_deg)
        u = (x - self.x_mm) * math.cos(phi) + (y - self.y_mm) * math.sin(phi)
        v = -(x - self.x_mm) * math.sin(phi) + (y - self.y_mm) * math.cos(phi)
        return (u / (self.a_mm + margin)) ** 2 + (v / (self.b_mm + margin)) ** 2 <= 1.0

    def outline(self, points: int = 24) -> tuple[tuple[float, float], ...]:
        t = np.linspace(0, 2 * math.pi, points, endpoint=False)
        phi = math.radians(self.angle_deg)
        x = self.x_mm + self.a_mm * np.cos(t) * math.cos(phi) - self.b_mm * np.sin(t) * math.sin(phi)
        y = self.y_mm + self.a_mm * np.cos(t) * math.sin(phi) + self.b_mm * np.sin(t) * math.cos(phi)
        return tuple((float(px), float(py)) for px, py in zip(x, y))


def ellipse_radius(angles: np.ndarray, a: np.ndarray, b: np.ndarray, phi: np.ndarray) -> np.ndarray:
    """[n, rays]: distance from an ellipse's centre to its outline along each ray."""
    u = angles[None, :] - phi[:, None]
    return (a * b)[:, None] / np.sqrt((b[:, None] * np.cos(u)) ** 2 + (a[:, None] * np.sin(u)) ** 2)


def oval_hull_radius(angles: np.ndarray, a: np.ndarray, b: np.ndarray, phi: np.ndarray, shift: np.ndarray,
                     top_a: np.ndarray, top_b: np.ndarray) -> np.ndarray:
    """[n, rays]: distance along each ray from the footprint's centre to the envelope of the ellipses between the
    footprint (semi-axes a, b at phi) and the top rim as seen in the table plane (``top_a``, ``top_b``, centred
    ``shift`` away): an oval base's outline, as ``rays.outline_extra`` is a round one's."""
    lam = np.linspace(0.0, 1.0, HULL_STEPS)[None, :, None]  # [1, steps, 1]
    ea = (1 - lam) * a[:, None, None] + lam * top_a[:, None, None]
    eb = (1 - lam) * b[:, None, None] + lam * top_b[:, None, None]
    cx, cy = lam * shift[:, 0, None, None], lam * shift[:, 1, None, None]
    c, s = np.cos(phi)[:, None, None], np.sin(phi)[:, None, None]
    ux, uy = np.cos(angles)[None, None, :], np.sin(angles)[None, None, :]
    # The ray and the ellipse's centre in the ellipse's own axes.
    ru, rv = ux * c + uy * s, -ux * s + uy * c
    cu, cv = cx * c + cy * s, -cx * s + cy * c
    qa = (ru / ea) ** 2 + (rv / eb) ** 2
    qb = -2 * (ru * cu / ea ** 2 + rv * cv / eb ** 2)
    qc = (cu / ea) ** 2 + (cv / eb) ** 2 - 1
    disc = qb * qb - 4 * qa * qc
    t = np.where(disc >= 0, (-qb + np.sqrt(np.maximum(disc, 0.0))) / (2 * qa), -np.inf)
    return np.max(t, axis=1)


def snap_oval(a: float, b: float) -> tuple[float, float] | None:
    """The catalogue oval (length, width) the semi-axes match within ``SNAP_TOLERANCE``, or None."""
    best, best_err = None, SNAP_TOLERANCE
    for length, width in OVAL_SIZES_MM:
        err = max(abs(2 * a - length) / length, abs(2 * b - width) / width)
        if err <= best_err:
            best, best_err = (length, width), err
    return best


def fit_ovals(rect: Rectified, seeds: np.ndarray, mat_colour: np.ndarray, whiten: np.ndarray, scale: Scale) -> list[OvalFit | None]:
    """Fit an oval from each seed (x, y, a, b, angle degrees; an EDCircles ellipse) on the photo: None where the rim is
    not seen on enough rays or scatters too much about any ellipse."""
    n = len(seeds)
    if n == 0:
        return []
    angles = FIT_ANGLES
    cos, sin = np.cos(angles), np.sin(angles)
    centres = seeds[:, :2].astype(float).copy()
    tall = rect.camera is not None and rect.base_height_mm != 0.0
    h0, b0 = base_profile(2 * seeds[:, 2], rect.base_height_mm)
    h_sigma = GIVEN_HEIGHT_SIGMA_MM if rect.base_height_mm is not None else HEIGHT_PRIOR_SIGMA_MM
    # dx, dy, angle, semi-axes, and (a tall base's) height and bevel with the catalogue's as priors.
    p = np.column_stack([np.zeros(n), np.zeros(n), np.radians(seeds[:, 4]), seeds[:, 2], seeds[:, 3], h0, b0]).astype(float)
    prior = np.diag([0.0, 0.0, 0.0, 0.0, 0.0, 1 / h_sigma ** 2, 1 / BEVEL_PRIOR_SIGMA_MM ** 2])
    k_free = 7 if tall else 5
    weights = np.zeros((n, FIT_RAYS))
    cov = np.zeros((n, 7, 7))
    sigma2 = np.ones(n)

    def outline_model(q: np.ndarray, at: np.ndarray) -> np.ndarray:
        """[n, rays]: the outline's distance from the footprint's centre, the top rim's ellipse included."""
        if not tall:
            return ellipse_radius(angles, q[:, 3], q[:, 4], q[:, 2])
        assert rect.camera is not None
        shift = rect.camera.rim_shift(at, q[:, 5])
        grow = rect.camera.rim_scale(q[:, 5])
        return oval_hull_radius(angles, q[:, 3], q[:, 4], q[:, 2], shift, np.maximum(q[:, 3] - q[:, 6], 1.0) * grow,
                                np.maximum(q[:, 4] - q[:, 6], 1.0) * grow)

    for sweep in range(2):
        if sweep:
            centres = centres + p[:, :2]
            p[:, :2] = 0.0
        expected = outline_model(p, centres)
        outline, evidence, _ = rim_points(rect, centres, np.zeros(n), mat_colour, whiten, FIT_HALF_MM, scale, expected)
        usable = usable_rays(evidence)
        weights = usable.astype(float)
        for _ in range(ITERATIONS):
            def model(q: np.ndarray) -> np.ndarray:
                return outline_model(q, centres) + q[:, 0, None] * cos + q[:, 1, None] * sin

            base = model(p)
            res = outline - base
            with np.errstate(all="ignore"):  # as before: a ray's residual may be inf (numpy's errstate is per thread)
                mad = nan_row_median(np.where(usable & (weights > 0), np.abs(res), np.nan))
            spread = np.where(np.isfinite(mad), np.maximum(1.4826 * mad, 0.08), 1.0)
            u = res / (4.685 * spread[:, None])
            weights = np.where(usable & (np.abs(u) < 1), (1 - u * u) ** 2, 0.0)
            jac = np.zeros((n, FIT_RAYS, 7))
            for k in range(k_free):
                q = p.copy()
                h = STEP * max(1.0, float(np.max(np.abs(p[:, k])))) if k >= 3 else STEP
                q[:, k] += h
                jac[:, :, k] = (model(q) - base) / h
            sigma2 = np.sum(weights * res * res, axis=1) / np.maximum(np.sum(weights, axis=1), 1e-9) + 1e-6
            normal = np.einsum("nr,nri,nrj->nij", weights, jac, jac) / sigma2[:, None, None] + prior[None] + 1e-6 * np.eye(7)
            rhs = np.einsum("nr,nri,nr->ni", weights, jac, res) / sigma2[:, None]
            rhs[:, 5:] += (np.column_stack([h0, b0]) - p[:, 5:]) * np.diag(prior)[5:]
            step = np.linalg.solve(normal, rhs[..., None])[..., 0]
            p = p + step
            p[:, 3:5] = np.clip(p[:, 3:5], 5.0, 120.0)
            p[:, 5] = np.clip(p[:, 5], 0.0, 15.0)
            p[:, 6] = np.clip(p[:, 6], 0.0, 5.0)
            cov = np.linalg.inv(normal)
    out: list[OvalFit | None] = []
    rays = (weights > 0.1).sum(axis=1)
    for k in range(n):
        a, b, phi = float(p[k, 3]), float(p[k, 4]), float(p[k, 2])
        if b > a:
            a, b, phi = b, a, phi + math.pi / 2
        rms = math.sqrt(float(sigma2[k]))
        if not (np.all(np.isfinite(p[k])) and rays[k] >= OVAL_MIN_SUPPORT * FIT_RAYS and rms <= OVAL_MAX_RMS_MM):
            out.append(None)
            continue
        centre_cov = cov[k, :2, :2] * CORRELATION ** 2
        out.append(OvalFit(float(centres[k, 0] + p[k, 0]), float(centres[k, 1] + p[k, 1]), a, b, math.degrees(phi) % 180.0,
                           math.degrees(math.sqrt(max(float(cov[k, 2, 2]), 0.0))) * CORRELATION,
                           math.sqrt(float(np.max(np.linalg.eigvalsh(centre_cov)))), int(rays[k]), rms,
                           snap_oval(a, b) if a >= MIN_ELONGATION * b else None))
    return out
