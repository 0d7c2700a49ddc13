"""A real window under Xvfb, driven by xdotool: drag a template over a base and see it change colour.

Skips when Xvfb, xdotool or ImageMagick's ``import`` is missing, unless ``CI`` is
set (CI installs them, so there a missing tool is a failure).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pygame
import pytest

from .xvfb import app_env, app_log, require, run as _run, screenshot, start_xvfb, popen_group, stop

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("Xvfb", "xdotool", "import", "xdpyinfo")

SCENARIO = """\
format = 1
title = "Xvfb drag test"
units = "in"

[table]
width = 24
depth = 18

[[model]]
id = "target"
side = "red"
x = 12
y = 9
base = "40mm"

[[template]]
id = "blast"
shape = "large_blast"
at = [4, 9]
"""

pytestmark = [pytest.mark.xvfb, pytest.mark.slow, pytest.mark.timeout(180)]


def _require_tools() -> None:
    require(TOOLS)



def _pixel(path: Path, pos: tuple[int, int]) -> tuple[int, int, int]:
    img = pygame.image.load(str(path))
    r, g, b, *_ = img.get_at(pos)
    return (r, g, b)


def _dist(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    return sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5


def _nearer(colour: tuple[int, int, int], want: tuple[int, int, int], other: tuple[int, int, int]) -> bool:
    return _dist(colour, want) < _dist(colour, other)


def _wait_for_window(app: subprocess.Popen[bytes], env: dict[str, str], timeout: float = 60.0) -> str:
    """Id of the app's mapped window, polling xdotool until it appears; fails at once if the app exits."""
    end = time.monotonic() + timeout
    while True:
        for how in (["--pid", str(app.pid)], ["--class", "tabletop-xvfb-test"]):
            found = subprocess.run(["xdotool", "search", "--onlyvisible", *how], env=env, capture_output=True, text=True, timeout=20)
            if found.returncode == 0 and found.stdout.split():
                return found.stdout.split()[0]
        if app.poll() is not None:
            pytest.fail(f"the app exited ({app.returncode}) before showing a window: {app_log(app)}")
        if time.monotonic() > end:
            pytest.fail("the app's window never appeared")
        time.sleep(0.2)


def _wait_for_pixel(
    wid: str, env: dict[str, str], png: Path, probe: tuple[int, int], ok: Callable[[tuple[int, int, int]], bool], timeout: float = 20.0
) -> tuple[int, int, int] | None:
    """Screenshot the window until the probe pixel passes ``ok``; the last colour seen (the caller asserts), or None
    if no screenshot was taken at all."""
    end = time.monotonic() + timeout
    colour: tuple[int, int, int] | None = None
    while True:
        if screenshot(wid, png, env):
            colour = _pixel(png, probe)
            if ok(colour):
                return colour
        if time.monotonic() > end:
            return colour
        time.sleep(0.1)


def test_drag_template_across_a_base_in_a_real_window(tmp_path: Path) -> None:
    _require_tools()
    from tabletop.app.window import PANEL_W, STATUS_H, TOOLBAR_H
    from tabletop.draw import status_colour
    from tabletop.viewport import Viewport

    scenario = tmp_path / "drag.toml"
    scenario.write_text(SCENARIO)
    xvfb, display = start_xvfb("1600x1000x24")  # a display it picks itself: no clash with other runs
    env = app_env(display, "tabletop-xvfb-test", tmp_path)
    app = None
    try:
        for _ in range(100):
            if subprocess.run(["xdpyinfo"], env=env, capture_output=True).returncode == 0:
                break
            time.sleep(0.05)
        else:
            pytest.fail("Xvfb did not start")
        app = popen_group(  # its own process group: stop() kills the app with its odds worker
            [sys.executable, "-c", "import sys; from tabletop.app import main; sys.exit(main(sys.argv[1]))", str(scenario)],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            log=tmp_path / "app.log",
        )
        # SDL 2.32 windows do not match `xdotool search --name`: find ours by pid or WM class once mapped.
        wid = _wait_for_window(app, env)
        geometry = _run(["xdotool", "getwindowgeometry", "--shell", wid], env)
        size = dict(line.split("=") for line in geometry.split())
        w, h = int(size["WIDTH"]), int(size["HEIGHT"])
        view = (0, TOOLBAR_H, w - PANEL_W, h - TOOLBAR_H - STATUS_H)
        vp = Viewport.fit(24 * 25.4, 18 * 25.4, view, margin_px=36)
        blast = tuple(round(v) for v in vp.to_screen(4 * 25.4, 9 * 25.4))
        base = tuple(round(v) for v in vp.to_screen(12 * 25.4, 9 * 25.4))
        probe = (base[0] - round(vp.length_to_screen(11)), base[1] - round(vp.length_to_screen(4)))  # on the base, clear of its name, facing tick and focus mark
        outside, affected = status_colour("outside"), status_colour("affected")

        # Wait for the first frame: the base drawn in its "outside" colour.
        before_png = tmp_path / "before.png"
        before = _wait_for_pixel(wid, env, before_png, probe, lambda c: _dist(c, outside) < 40)
        assert before is not None, "no screenshot of the first frame"
        assert _dist(before, outside) < 40, f"the first frame never showed the base as outside: {before}"

        steps = ["xdotool", "mousemove", "--window", wid, str(blast[0]), str(blast[1]), "mousedown", "1", "sleep", "0.2"]
        for i in range(1, 9):
            x = round(blast[0] + (base[0] - blast[0]) * i / 8)
            steps += ["mousemove", "--window", wid, str(x), str(blast[1]), "sleep", "0.05"]
        steps += ["sleep", "0.2", "mouseup", "1", "mousemove", "--window", wid, "5", str(h - 5)]
        _run(steps, env)
        # Wait for the outcome: the base redrawn as affected.
        after_png = tmp_path / "after.png"
        after = _wait_for_pixel(wid, env, after_png, probe, lambda c: _nearer(c, affected, outside))
        assert after is not None, "no screenshot after the drag"
        if os.environ.get("TABLETOP_KEEP_SHOTS"):
            for png in (before_png, after_png):
                shutil.copy(png, Path(os.environ["TABLETOP_KEEP_SHOTS"]) / png.name)

        assert _nearer(before, outside, affected), (before, after)
        assert _nearer(after, affected, outside), (before, after)
        assert app.poll() is None, app_log(app)
    finally:
        stop(app, xvfb)
