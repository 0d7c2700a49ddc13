"""Presenter mode in a real window under Xvfb, driven by xdotool: F5 goes full screen, PageDown
shows the next step (the screen changes), Esc comes back to the editor's window.

Skips when Xvfb, xdotool or ImageMagick's ``import`` is missing, unless ``CI`` is set.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pygame
import pytest

from .xvfb import app_env, app_log, require, run as _run, screenshot, start_xvfb, popen_group, stop, wait_until

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("Xvfb", "xdotool", "import", "xdpyinfo")
SCREEN = (1280, 800)
WINDOW = (1000, 700)
WM_CLASS = "tabletop-xvfb-present"

pytestmark = [pytest.mark.xvfb, pytest.mark.slow, pytest.mark.timeout(180)]


def _require_tools() -> None:
    require(TOOLS)



def _wait(condition: Callable[[], object], what: str, timeout: float = 30.0) -> object:
    return wait_until(condition, what, timeout)


def test_f5_and_pagedown_in_a_real_window(tmp_path: Path) -> None:
    _require_tools()
    xvfb, display = start_xvfb(f"{SCREEN[0]}x{SCREEN[1]}x24")
    env = app_env(display, WM_CLASS, tmp_path)
    app = None
    shots = iter(range(1000))

    def shot() -> tuple[Path, str] | None:
        """The window's screenshot and its hash; None when the grab failed (the window was being
        replaced): every caller waits on it, so it is simply asked again."""
        png = tmp_path / f"shot{next(shots)}.png"
        if not screenshot(window(), png, env):
            return None
        return png, hashlib.sha1(pygame.image.tobytes(pygame.image.load(str(png)), "RGB")).hexdigest()

    def settled() -> tuple[Path, str] | None:
        """A full-screen screenshot equal to the one just before it: the presenter has stopped drawing something new."""
        a = shot()
        b = shot() if a else None
        return b if a and b and a[1] == b[1] and pygame.image.load(str(b[0])).get_size() == SCREEN else None

    def window() -> str:
        """Our window's id (SDL makes a new X window when it switches to or from full screen).
        SDL 2.32 windows do not match `xdotool search --name`: find ours by its WM class."""
        return _run(["xdotool", "search", "--sync", "--onlyvisible", "--class", WM_CLASS], env, timeout=30).split()[-1]

    def geometry() -> tuple[int, int]:
        done = subprocess.run(["xdotool", "getwindowgeometry", "--shell", window()], env=env, capture_output=True, text=True, timeout=20)
        if done.returncode != 0:
            return (0, 0)  # the window was just replaced: ask again
        size = dict(line.split("=") for line in done.stdout.split())
        return int(size["WIDTH"]), int(size["HEIGHT"])

    def key(name: str) -> None:
        """Press ``name`` in our window. A send that fails (the window id gone between the lookup and the key,
        once under CI's load) delivered nothing: look the window up again and send it again."""
        for _ in range(3):
            wid = window()
            focus = subprocess.run(["xdotool", "windowfocus", "--sync", wid], env=env, capture_output=True, timeout=20)
            sent = subprocess.run(["xdotool", "key", "--window", wid, name], env=env, capture_output=True, text=True, timeout=20)
            if focus.returncode == 0 and sent.returncode == 0:
                return
            time.sleep(0.5)
        pytest.fail(f"xdotool could not press {name} in the app's window: {sent.stderr.strip()}")

    try:
        code = "import sys; from tabletop.app.window import run; sys.exit(run(sys.argv[1], size=(1000, 700)))"
        app = popen_group(  # its own process group: stop() kills the app with its odds worker
            [sys.executable, "-c", code, str(ROOT / "scenarios" / "robotech-scatter.toml")],
            env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, log=tmp_path / "app.log",
        )
        _wait(lambda: geometry() == WINDOW, "the editor's window")
        # The editor redraws its status bar (frame times) all along: wait for it to have drawn at all.
        editor = _wait(lambda: (s := shot()) and tuple(pygame.image.load(str(s[0])).get_at((500, 350)))[:3] != (0, 0, 0) and s, "the editor to draw")

        key("F5")
        _wait(lambda: geometry() == SCREEN, "presenter mode to fill the screen")
        def drawn() -> tuple[Path, str] | None:
            s = settled()
            return s if s and s[1] != editor[1] and tuple(pygame.image.load(str(s[0])).get_at((SCREEN[0] // 2, 10)))[:3] != (0, 0, 0) else None

        first = _wait(drawn, "the first step on the screen")
        img = pygame.image.load(str(first[0]))
        # The caption panel runs along the bottom of the whole screen (the presenter's, not the editor's).
        assert tuple(img.get_at((4, SCREEN[1] - 4)))[:3] == (28, 31, 38)

        key("Next")  # PageDown, what a clicker sends
        second = _wait(lambda: (s := drawn()) and s[1] != first[1] and s, "the next step after PageDown")
        assert second[1] != first[1]

        key("Escape")
        _wait(lambda: geometry() == WINDOW, "the editor's window back after Esc")
        if os.environ.get("TABLETOP_KEEP_SHOTS"):
            for png in (editor[0], first[0], second[0]):
                shutil.copy(png, Path(os.environ["TABLETOP_KEEP_SHOTS"]) / f"present-{png.name}")
        assert app.poll() is None, app_log(app)
    finally:
        stop(app, xvfb)
