"""``benchmarks.photo_measure``'s ``typed`` mode (stop 51): the true corners with a user's typing error, so that a
rule about given corners is judged on the corners a user gives, not only on exact ones."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.photo_measure import TYPED_SIGMA_PX, typed_corners
from tabletop.photo.pipeline import CLICK_SIGMA_PX

TRUE = ((100.0, 900.0), (1900.0, 880.0), (1700.0, 120.0), (300.0, 140.0))


def test_typed_corners_are_the_same_for_a_photo_and_differ_between_photos() -> None:
    assert typed_corners(TRUE, "baseline", 5000) == typed_corners(TRUE, "baseline", 5000)
    assert typed_corners(TRUE, "baseline", 5000) != typed_corners(TRUE, "baseline", 5001)
    assert typed_corners(TRUE, "baseline", 5000) != typed_corners(TRUE, "barrel", 5000)


def test_typed_corners_err_as_the_pipeline_assumes_a_typed_corner_does() -> None:
    # Over 2,000 photos (8,000 x and y errors): the RMS per axis is the pipeline's 1 px to a few percent (its standard
    # error is 1/sqrt(2 x 8,000) = 0.8 %), the mean about 0, and no error far past 4 sigma.
    assert TYPED_SIGMA_PX == CLICK_SIGMA_PX
    errors = np.array([np.subtract(typed_corners(TRUE, "steep", seed), TRUE) for seed in range(2000)]).ravel()
    assert np.sqrt(np.mean(errors ** 2)) == pytest.approx(TYPED_SIGMA_PX, rel=0.03)
    assert abs(float(np.mean(errors))) < 0.05 and float(np.max(np.abs(errors))) < 4.5 * TYPED_SIGMA_PX


def test_a_worker_for_another_checkout_analyses_with_its_code(tmp_path) -> None:  # noqa: ANN001
    """``--tabletop DIR``: the worker imports ``tabletop`` from DIR, though this module's own imports bound it to this
    checkout first (found at stop 53: every ``--tabletop`` run since the generator's cache writes used
    ``tabletop.atomic`` had measured this checkout's code, cached under the other's code version)."""
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "tabletop").mkdir()
    (tmp_path / "tabletop" / "__init__.py").write_text("WHICH = 'other checkout'\n")
    root = Path(__file__).resolve().parent.parent
    code = ("import benchmarks.photo_measure as pm, sys\n"
            "assert 'tabletop' in sys.modules\n"
            f"pm._worker_init({str(tmp_path)!r})\n"
            "import tabletop\n"
            "print(getattr(tabletop, 'WHICH', 'this checkout'))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "other checkout"
