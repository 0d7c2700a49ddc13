"""The markers' camera fit's Jacobian: forward differences from the residuals already at hand, checked against central
differences (twice the work), so the parameters' covariance, which the corners' sigmas come from, is the same."""

from __future__ import annotations

import numpy as np

from tabletop.photo import markers as mk
from tests.test_photo_markers import _TURNS, TABLE, _camera

SIZE = (1800, 1350)


def _model(seen: tuple[int, ...]) -> mk._Model:
    """The fit's model of the markers ``seen``, their squares' corners where the camera draws them, a little noise added
    (a fit's residuals are never all zero) and the table's near and right sides' points."""
    cam = _camera(SIZE, -0.05)
    rng = np.random.default_rng(3)
    sightings = []
    for k in seen:
        square = mk.marker_corners_on_table(k, TABLE, _TURNS[k])
        sightings.append((k, cam.project(square, mk.PAPER_MM) + rng.normal(0, 0.1, (4, 2))))
    corners = mk.table_corners_mm(TABLE)
    sides = []
    for j in (0, 1):
        a, b = corners[j], corners[(j + 1) % 4]
        along = np.linspace(0.1, 0.9, 40)[:, None]
        sides.append((j, cam.project(a + along * (b - a), 0.0) + rng.normal(0, 0.2, (40, 2))))
    return mk._Model(sightings, TABLE, SIZE, sides)


def _central(model: mk._Model, p: np.ndarray) -> np.ndarray:
    cols = []
    for j, h in enumerate(model.steps()):
        d = np.zeros_like(p)
        d[j] = h
        cols.append((model.residuals(p + d) - model.residuals(p - d)) / (2 * h))
    return np.stack(cols, axis=1)


def test_the_forward_jacobian_gives_the_central_ones_covariance() -> None:
    """At the fitted parameters (three markers seen, the fourth's corner placed through the lens and two sides, where the
    covariance matters most), every parameter's sigma from the forward-difference Jacobian is within 1 % of the
    central-difference one's; and the residuals the fit hands over are those the Jacobian would work out itself."""
    model = _model((0, 2, 3))
    p, cov = mk._fit(model)
    forward = mk._jacobian(model, p, model.residuals(p))
    central = _central(model, p)
    sigma_forward = np.sqrt(np.diag(np.linalg.pinv(forward.T @ forward)))
    sigma_central = np.sqrt(np.diag(np.linalg.pinv(central.T @ central)))
    assert np.allclose(sigma_forward, sigma_central, rtol=0.01), np.max(np.abs(sigma_forward / sigma_central - 1))
    assert np.all(np.isfinite(cov)) and np.all(np.diag(cov) > 0)
    # The residuals at hand are those at p: passing them is the same as the Jacobian working them out.
    assert np.array_equal(mk._jacobian(model, p), forward)


def test_the_fit_with_either_jacobian_places_the_corners_alike(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The whole fit (three markers seen, two sides) with the central-difference Jacobian instead: the table's corners,
    the unseen one's included, move by under a hundredth of a pixel (the fit stops where its gain is a millionth of its
    cost, so the two stop a little apart along the flattest direction)."""
    model = _model((0, 2, 3))
    p_forward, _ = mk._fit(model)
    monkeypatch.setattr(mk, "_jacobian", lambda m, p, at=None: _central(m, p))
    p_central, _ = mk._fit(_model((0, 2, 3)))
    corners = mk.table_corners_mm(TABLE)
    moved = np.linalg.norm(model.camera(p_forward).project(corners, 0.0) - model.camera(p_central).project(corners, 0.0), axis=1)
    assert moved.max() < 0.01, moved
