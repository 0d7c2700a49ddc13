"""Pixel fingerprints of every bundled scenario as ``tabletop render`` draws it.

A refactor of the drawing code must not move a pixel: ``test_golden_renders`` renders each
scenario (whole table, action view, and the odds overlay) and compares the SHA-256 of its
RGB pixels with the fingerprint captured before the refactor. When a change is *meant* to
alter the pictures, regenerate them and say so in the commit:

    .venv/bin/python -m tests.golden_renders --update
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
FINGERPRINTS = Path(__file__).resolve().parent / "golden" / "renders.json"

#: (suffix, render arguments): the views a refactor must keep.
VIEWS: dict[str, list[str]] = {
    "table": ["--view", "table"],
    "action": ["--view", "action"],
    "odds": ["--odds", "--size", "900x700"],
}


def render_fingerprint(scenario: Path, view: str, out: Path) -> str:
    """Render ``scenario`` in ``view`` to ``out`` through the CLI and hash its pixels."""
    import pygame

    from tabletop.cli import main

    code = main(["render", str(scenario), "-o", str(out), *VIEWS[view]])
    if code != 0:
        raise RuntimeError(f"render of {scenario.name} ({view}) exited {code}")
    image = pygame.image.load(str(out))
    pixels = pygame.image.tobytes(image, "RGB")
    return f"{image.get_width()}x{image.get_height()}:" + hashlib.sha256(pixels).hexdigest()


def cases() -> list[tuple[str, str]]:
    """Every (scenario stem, view) pair."""
    return [(p.stem, view) for p in sorted(SCENARIOS.glob("*.toml")) for view in VIEWS]


def update(out_dir: Path) -> dict[str, str]:
    """Recompute every fingerprint and write them to ``FINGERPRINTS``."""
    prints = {f"{stem}/{view}": render_fingerprint(SCENARIOS / f"{stem}.toml", view, out_dir / f"{stem}-{view}.png") for stem, view in cases()}
    FINGERPRINTS.write_text(json.dumps(prints, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return prints


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit(__doc__)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        written = update(Path(tmp))
    print(f"wrote {len(written)} fingerprints to {FINGERPRINTS.relative_to(ROOT)}")
