"""A real window under Xvfb: after Fire, the landed template is the one dragged, and Ctrl+E writes
the rolls it shows (issue 33, item 3).

robotech-scatter's file fixes a scatter to direction 2, 6"; Fire (Enter) with Dice free rolls seed 1
(direction 5, 4"), so the template is drawn ~250 mm from the file's landing. xdotool presses Enter,
exports with Ctrl+E (path typed, Enter), then drags the drawn template: the saved file must hold the
drag from where the template was drawn, and ``tabletop explain --rolls`` on the export must give the
direction drawn. Where the landed template is comes from the same app, headless, at the window's
size. Skips when Xvfb, xdotool or ImageMagick's ``import`` is missing, unless ``CI`` is set.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path

import pygame
import pytest

from tabletop.model import Impact
from tabletop.scenario_io import load

from .conftest import ROOT, SCENARIOS
from .test_xvfb_dropdowns import real_app, window_size
from .xvfb import run as _run, screenshot, wait_until

pytestmark = [pytest.mark.xvfb, pytest.mark.slow, pytest.mark.timeout(300)]

DRAG = (60, 40)  # px


def _places(table: Path, size: tuple[int, int]) -> dict[str, object]:
    """Where the Fire lands (screen px) and where a drag of it from there ends (world mm), from the
    same app headless at ``size``; and, for comparison, where the file's own landing is."""
    from tabletop.app.live import placed_templates
    from tabletop.app.pilot import Pilot

    p = Pilot(table, size)
    try:
        p.key(pygame.K_RETURN)
        for _ in range(600):
            if p.app.firing is not None and p.app.firing.done:
                break
            p.step()
        shown = placed_templates(p.app.adjudication())["blast"].focus
        files = placed_templates(p.app.live_adjudication())["blast"].focus
        start = p.screen_of(shown)
        end = (start[0] + DRAG[0], start[1] + DRAG[1])
        files_start = p.screen_of(files)
        return {
            "start": start,
            "end": end,
            "dropped": p.app.viewport.to_world(*end),
            "files_dropped": p.app.viewport.to_world(files_start[0] + DRAG[0], files_start[1] + DRAG[1]),
        }
    finally:
        p.close()


def _still(wid: str, env: dict[str, str], tmp: Path, shots: int = 3) -> bool:
    """``shots`` screenshots half a second apart are alike: the Fire animation is over (it moves every frame)."""
    import time

    import numpy as np

    pictures = []
    for i in range(shots):
        shot = tmp / f"still-{i}.png"
        if not screenshot(wid, shot, env):
            return False
        pictures.append(pygame.surfarray.array3d(pygame.image.load(str(shot))).astype(np.int16))
        time.sleep(0.5)
    return all(a.shape == b.shape and (a != b).mean() < 1e-4 for a, b in zip(pictures, pictures[1:]))


def _changed(wid: str, env: dict[str, str], before: Path, shot: Path) -> bool:
    """A screenshot differs from ``before`` over more than 5 % of the window (a dialog opened)."""
    import numpy as np

    if not screenshot(wid, shot, env):
        return False
    a, b = (pygame.surfarray.array3d(pygame.image.load(str(p))).astype(np.int16) for p in (before, shot))
    return bool(a.shape == b.shape and (np.abs(a - b).sum(axis=2) > 30).mean() > 0.05)


def test_fire_then_export_and_drag_the_drawn_template_with_the_mouse(tmp_path: Path) -> None:
    table = tmp_path / "table.toml"
    shutil.copy(SCENARIOS / "robotech-scatter.toml", table)
    export = tmp_path / "ruling.md"
    with real_app(table, tmp_path) as (app, wid, env):
        places = _places(table, window_size(wid, env))
        _run(["xdotool", "key", "--window", wid, "Return"], env)
        wait_until(lambda: _still(wid, env, tmp_path), "the Fire animation to end", 60)

        # Ctrl+E, the path typed over the one offered, Enter.
        before = tmp_path / "before-export.png"
        assert screenshot(wid, before, env)
        _run(["xdotool", "key", "--window", wid, "ctrl+e"], env)
        wait_until(lambda: _changed(wid, env, before, tmp_path / "dialog.png"), "the export dialog", 20)
        _run(["xdotool", "key", "--window", wid, "ctrl+a"], env)
        _run(["xdotool", "type", "--window", wid, "--delay", "30", str(export)], env)
        _run(["xdotool", "key", "--window", wid, "Return"], env)
        wait_until(lambda: export.exists() and "tabletop-rolls" in export.read_text(encoding="utf-8"), "the Markdown export", 30)

        # Drag the template from where it is drawn (the Fire's landing), then save.
        start, end = places["start"], places["end"]
        _run(["xdotool", "mousemove", "--window", wid, str(start[0]), str(start[1]), "sleep", "0.2", "mousedown", "1", "sleep", "0.2",
              "mousemove", "--window", wid, str(start[0] + DRAG[0] // 2), str(start[1] + DRAG[1] // 2), "sleep", "0.2",
              "mousemove", "--window", wid, str(end[0]), str(end[1]), "sleep", "0.2", "mouseup", "1"], env)

        def dragged() -> bool:
            import time

            before = table.stat().st_mtime_ns
            _run(["xdotool", "key", "--window", wid, "ctrl+s"], env)
            end = time.monotonic() + 5  # Ctrl+S faster than the app saves would only queue saves on a loaded machine
            while time.monotonic() < end and table.stat().st_mtime_ns == before:
                time.sleep(0.1)
            try:
                placement = load(table).template("blast").placement
            except Exception:  # noqa: BLE001 - mid-write or not saved yet: ask again
                return False
            return isinstance(placement, Impact) and placement.point is not None

        wait_until(dragged, "the file saved with the template dragged", 30)
        assert app.poll() is None
    point = load(table).template("blast").placement.point  # type: ignore[union-attr]
    # Dropped where the drawn template was dragged to (a pixel is ~1.8 mm at this size), far from where
    # a drag of the file's landing would have put it (the old hit-testing's template).
    assert math.dist(point, places["dropped"]) < 5.0, (point, places)
    assert math.dist(places["dropped"], places["files_dropped"]) > 50.0
    # The export replays to what was drawn: the Fire's direction 5, 4", not the file's direction 2, 6".
    done = subprocess.run([sys.executable, "-m", "tabletop.cli", "explain", str(SCENARIOS / "robotech-scatter.toml"), "--rolls", str(export)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert 'direction 5, 4"' in done.stdout and 'direction 2, 6"' not in done.stdout, done.stdout
    pygame.display.quit()
