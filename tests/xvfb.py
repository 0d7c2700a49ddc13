"""Shared plumbing of the real-window tests: the tools they need, a private Xvfb display, waiting.

Every real-window test drives the app as a user would (xdotool) and reads screenshots; none of
them sleeps for a fixed time: each waits for a condition, with a deadline. ``xdotool search
--name`` never finds an SDL 2.32 window: search by ``--class`` (SDL_VIDEO_X11_WMCLASS) or ``--pid``.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")


def require(tools: Iterable[str]) -> None:
    """Skip without the tools, except in CI (``.ci/run`` installs them), where that is a failure."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have {', '.join(missing)} installed")
        pytest.skip(f"needs {', '.join(missing)}")


def run(cmd: list[str], env: dict[str, str], timeout: float = 20) -> str:
    """A tool's standard output (it must succeed)."""
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, check=True).stdout


def screenshot(window_id: str, png: Path, env: dict[str, str], timeout: float = 10) -> bool:
    """Whether ImageMagick's ``import`` saved that window to ``png``. False, not an error, when the
    window went away during the grab or ``import`` hung on it (SDL replaces its X window when it
    switches to or from full screen): the caller asks again, as it does for any unmet condition."""
    try:
        subprocess.run(["import", "-silent", "-window", window_id, str(png)], env=env, capture_output=True, timeout=timeout, check=True)
    except (subprocess.TimeoutExpired, subprocess.CalledProcessError) as error:
        # Shown with the test's output if it then fails waiting: the cause, not only "timed out waiting for ...".
        print(f"import -window {window_id}: {error}: {(error.stderr or b'').decode(errors='replace').strip()}", file=sys.stderr)
        return False
    return png.exists()


def wait_until(condition: Callable[[], T], what: str, timeout: float = 30.0) -> T:
    """Poll ``condition`` until it returns something true (returned); fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def start_xvfb(screen: str = "1600x1000x24", timeout: float = 30.0) -> tuple[subprocess.Popen[bytes], str]:
    """A new Xvfb on a display it picks itself (``-displayfd``: no clash with another test's or
    anyone else's), returned once it accepts connections, with its ``DISPLAY`` value."""
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", screen, "-nolisten", "tcp"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    end = time.monotonic() + timeout
    data = b""
    try:
        while not data.endswith(b"\n"):
            if xvfb.poll() is not None or time.monotonic() > end:
                xvfb.kill()
                pytest.fail("Xvfb did not start")
            ready, _, _ = select.select([read_fd], [], [], 0.1)
            if ready:
                chunk = os.read(read_fd, 16)
                if not chunk:
                    break
                data += chunk
    finally:
        os.close(read_fd)
    return xvfb, f":{int(data.strip())}"


ROOT = Path(__file__).resolve().parent.parent


def app_env(display: str, wm_class: str, home: Path) -> dict[str, str]:
    """The environment of the app under test: that display, a window class to find it by, its own
    config and state folders (no real autosave), and this checkout on the path."""
    env = dict(os.environ)
    env.update(
        DISPLAY=display,
        SDL_VIDEODRIVER="x11",
        SDL_AUDIODRIVER="dummy",
        SDL_VIDEO_X11_WMCLASS=wm_class,
        PYGAME_HIDE_SUPPORT_PROMPT="1",
        XDG_STATE_HOME=str(home / "state"),
        XDG_CONFIG_HOME=str(home / "config"),
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
    )
    return env


def stop(*processes: subprocess.Popen[bytes] | None) -> None:
    """End the app and Xvfb started by a test, whatever state they are in."""
    for p in processes:
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
