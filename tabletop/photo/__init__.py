"""From a photo of the real table to bases in table millimetres (issue 17).

Modules: ``values`` (results and errors, no OpenCV), ``imageio`` (loading and
validating a photo, parsing ``--table``/``--corners``), ``rectify`` (homography,
finding the table outline), ``detect`` (round bases with sub-pixel rim fits),
``synth`` (synthetic photos with ground truth), ``cli`` (``tabletop photo``).

OpenCV is imported only by ``imageio``, ``rectify``, ``detect`` and ``synth``;
importing this package or ``cli`` does not load it.
"""

from __future__ import annotations

BASE_SIZES_MM: tuple[float, ...] = (25.0, 28.0, 30.0, 32.0, 40.0, 50.0, 55.0, 60.0, 80.0, 100.0)
"""Round base diameters the detector snaps to: the common wargame sizes (the catalogue lists none)."""
