"""A real window under Xvfb, driven by xdotool: trace a terrain polygon with the mouse, turn it
with R, save with Ctrl+S, and check the file and a screenshot.

Skips when Xvfb, xdotool or ImageMagick's ``import`` is missing, unless ``CI`` is set.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pygame
import pytest

from .xvfb import app_env, app_log, require, run as _run, screenshot, start_xvfb, popen_group, stop, wait_until
import shapely

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("Xvfb", "xdotool", "import", "xdpyinfo")
IN = 25.4

SCENARIO = """\
format = 1
title = "Xvfb trace test"
units = "in"

[table]
width = 24
depth = 18
"""

pytestmark = [pytest.mark.xvfb, pytest.mark.slow, pytest.mark.timeout(180)]


def _require_tools() -> None:
    require(TOOLS)



def _wait(condition: Callable[[], bool], what: str, timeout_s: float = 20.0) -> None:
    wait_until(condition, what, timeout_s)


def test_trace_a_polygon_with_the_mouse_and_turn_it(tmp_path: Path) -> None:
    _require_tools()
    from tabletop.app.window import PANEL_W, STATUS_H, TOOLBAR_H
    from tabletop.scenario_io import load
    from tabletop.viewport import Viewport

    scenario = tmp_path / "trace.toml"
    scenario.write_text(SCENARIO)
    xvfb, display = start_xvfb("1600x1000x24")
    env = app_env(display, "tabletop-xvfb-trace", tmp_path)
    app = None
    try:
        app = popen_group(  # its own process group: stop() kills the app with its odds worker
            [sys.executable, "-c", "import sys; from tabletop.app import main; sys.exit(main(sys.argv[1]))", str(scenario)],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            log=tmp_path / "app.log",
        )
        # SDL 2.32 windows do not match `xdotool search --name`: find ours by its class.
        wid = _run(["xdotool", "search", "--sync", "--onlyvisible", "--class", "tabletop-xvfb-trace"], env, timeout=30).split()[0]
        size: dict[str, str] = {}

        def sized() -> bool:
            geometry = _run(["xdotool", "getwindowgeometry", "--shell", wid], env)
            size.update(line.split("=") for line in geometry.split())
            return int(size["WIDTH"]) >= 1000

        _wait(sized, "the window's size")
        w, h = int(size["WIDTH"]), int(size["HEIGHT"])
        view = (0, TOOLBAR_H, w - PANEL_W, h - TOOLBAR_H - STATUS_H)
        vp = Viewport.fit(24 * IN, 18 * IN, view, margin_px=36)

        def px(x_in: float, y_in: float) -> list[str]:
            sx, sy = vp.to_screen(x_in * IN, y_in * IN)
            return [str(round(sx)), str(round(sy))]

        before_png = tmp_path / "before.png"

        _wait(lambda: screenshot(wid, before_png, env), "a first screenshot")
        _run(["xdotool", "windowfocus", "--sync", wid], env)
        corners = [(6, 6), (12, 6), (12, 10), (8, 12)]
        steps = ["xdotool", "key", "--delay", "80", "8", "sleep", "0.3"]
        for c in corners + [corners[0]]:  # the first corner again closes it
            steps += ["mousemove", "--window", wid, *px(*c), "sleep", "0.15", "click", "1", "sleep", "0.15"]
        steps += ["mousemove", "--window", wid, "5", str(h - 5), "sleep", "0.2", "key", "--delay", "120", "r", "r", "sleep", "0.3", "key", "ctrl+s"]
        _run(steps, env, timeout=40)

        def saved() -> bool:
            try:
                return len(load(scenario).terrain) == 1 and load(scenario).terrain[0].points != tuple((x * IN, y * IN) for x, y in corners)
            except Exception:  # noqa: BLE001 - the file is being written
                return False

        _wait(saved, "Ctrl+S to write the traced, turned piece")
        piece = load(scenario).terrain[0]
        poly = shapely.Polygon([(x * IN, y * IN) for x, y in corners])
        cx, cy = poly.centroid.x, poly.centroid.y
        c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
        expected = [(cx + (x * IN - cx) * c - (y * IN - cy) * s, cy + (x * IN - cx) * s + (y * IN - cy) * c) for x, y in corners]
        assert piece.points is not None and len(piece.points) == 4
        for got, want in zip(piece.points, expected):
            assert math.hypot(got[0] - want[0], got[1] - want[1]) < 1e-3, (piece.points, expected)  # the file's 0.001 mm

        after_png = tmp_path / "after.png"
        _wait(lambda: screenshot(wid, after_png, env), "the screenshot after")
        # a point inside the turned piece but outside where it was drawn now shows terrain
        probe_world = next(
            (x, y)
            for x, y in ((cx + dx, cy + dy) for dx in range(-120, 121, 6) for dy in range(-120, 121, 6))
            if shapely.Polygon(expected).buffer(-8).contains(shapely.Point(x, y)) and not poly.buffer(8).contains(shapely.Point(x, y))
        )
        probe = tuple(round(v) for v in vp.to_screen(*probe_world))
        before = pygame.image.load(str(before_png)).get_at(probe)[:3]
        after = pygame.image.load(str(after_png)).get_at(probe)[:3]
        assert sum((a - b) ** 2 for a, b in zip(before, after)) > 30**2, (before, after)
        if os.environ.get("TABLETOP_KEEP_SHOTS"):
            for png in (before_png, after_png):
                shutil.copy(png, Path(os.environ["TABLETOP_KEEP_SHOTS"]) / f"trace-{png.name}")
        assert app.poll() is None, app_log(app)
    finally:
        stop(app, xvfb)
