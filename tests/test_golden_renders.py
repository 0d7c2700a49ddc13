"""Rendered pictures of every bundled scenario are pixel-identical to their fingerprints.

See ``tests/golden_renders.py`` for why and how to regenerate them on purpose.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.golden_renders import FINGERPRINTS, SCENARIOS, cases, render_fingerprint

EXPECTED: dict[str, str] = json.loads(FINGERPRINTS.read_text(encoding="utf-8"))


def test_every_scenario_and_view_has_a_fingerprint() -> None:
    assert sorted(EXPECTED) == sorted(f"{stem}/{view}" for stem, view in cases())


@pytest.mark.parametrize(("stem", "view"), cases())
def test_render_is_pixel_identical(stem: str, view: str, tmp_path: Path) -> None:
    out = tmp_path / f"{stem}-{view}.png"
    got = render_fingerprint(SCENARIOS / f"{stem}.toml", view, out)
    if got != EXPECTED[f"{stem}/{view}"]:
        keep = Path("/tmp") / "tabletop-golden-diff"
        keep.mkdir(exist_ok=True)
        shutil.copy(out, keep / out.name)
        pytest.fail(f"{stem} ({view}) drew different pixels; the new picture is in {keep / out.name}")
