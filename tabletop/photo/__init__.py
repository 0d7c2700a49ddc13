"""From a photo of the real table to bases in table millimetres (issue 17).

Modules: ``values`` (results and errors, no OpenCV), ``imageio`` (loading and
validating a photo, parsing ``--table``/``--corners``), ``rectify`` (homography,
finding the table outline), ``detect`` (round bases with sub-pixel rim fits),
``synth`` (synthetic photos with ground truth), ``cli`` (``tabletop photo``).

OpenCV is imported only by the analysis modules (``imageio``, ``rectify``, the detector's stages
``candidates``, ``rays``, ``rimfit``, ``sizesnap``, ``uncertainty``, ``detect``, and ``synth``);
importing this package, ``values``, ``camera`` or ``cli`` does not load it.
"""

from __future__ import annotations

import numpy as np

BASE_SIZES_MM: tuple[float, ...] = (25.0, 28.0, 30.0, 32.0, 40.0, 50.0, 55.0, 60.0, 80.0, 100.0)
"""Round base diameters the detector snaps to: the common wargame sizes (the catalogue lists none)."""

BASE_HEIGHT_MM: dict[float, float] = {25.0: 3.5, 28.0: 3.5, 30.0: 4.0, 32.0: 4.0, 40.0: 4.0, 50.0: 4.5, 55.0: 4.5, 60.0: 4.5,
                                      80.0: 5.0, 100.0: 5.0}
"""A round base's height by diameter (mm): the common plastic bases stand 3-5 mm, the larger the taller."""
BEVEL_MM = 1.25
"""How far a base's top rim lies inside its footprint's edge (mm), before each base's own is fitted: the middle of the range of
plastic bases' bevels, from straight-sided (none) to 2.5 mm slopes, so the early stages' outline is at most 1.25 mm off."""
FLAT_BEVEL_MM = 0.0
"""A base given a height of 0 (``--base-height 0``) is a flat disc: no bevel either."""


def base_profile(diameters_mm: np.ndarray, height_mm: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Height and bevel (mm) of bases of ``diameters_mm``: the catalogue's, or ``height_mm`` for every one (0: flat discs)."""
    d = np.asarray(diameters_mm, dtype=np.float64)
    if height_mm is not None:
        h = np.full(d.shape, float(height_mm))
    else:
        sizes = np.array(sorted(BASE_HEIGHT_MM))
        nearest = sizes[np.argmin(np.abs(d[..., None] - sizes), axis=-1)] if d.size else d
        h = np.vectorize(BASE_HEIGHT_MM.get, otypes=[float])(nearest) if d.size else d.copy()
    bevel = np.where(h > 0, np.minimum(BEVEL_MM, 0.6 * h), FLAT_BEVEL_MM)
    return h, bevel
