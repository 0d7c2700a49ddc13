"""The app's process: no display is said (exit 2), and a stop signal ends it within its bound even
when the frame loop is stuck. Each subprocess runs in a process group killed in teardown."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import ROOT, SCENARIOS
from .xvfb import app_command, kill_group, popen_group

HEADLESS = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}


def _run(argv: list[str], env: dict[str, str], timeout: float = 90.0) -> tuple[int, str]:
    process = popen_group(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{argv[-2:]} still running after {timeout:.0f} s (with no display it must say so and stop)")
    finally:
        kill_group(process)
    return process.returncode, err


@pytest.mark.parametrize("command", [[], ["present", str(SCENARIOS / "default.toml")], ["present", str(SCENARIOS / "default.toml"), "--window", "800x600"]])
@pytest.mark.parametrize(
    "display",
    [
        {},  # neither DISPLAY nor SDL_VIDEODRIVER: SDL would fall back to its offscreen driver and run unseen
        {"DISPLAY": ":79"},  # an X display nobody serves
        {"SDL_VIDEODRIVER": "x11"},  # asked for X11 without a DISPLAY: "video system not initialized"
    ],
    ids=["nothing set", "no X server", "x11 asked, no DISPLAY"],
)
def test_no_display_is_said_and_exits_2(command: list[str], display: dict[str, str], tmp_path: Path) -> None:
    """Issue 37.15."""
    env = dict(HEADLESS, SDL_AUDIODRIVER="dummy", XDG_STATE_HOME=str(tmp_path / "state"), **display)
    code, err = _run(app_command(*command), env)
    assert code == 2, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("tabletop: no display") and "internal error" not in err and "Traceback" not in err, err
    assert not (tmp_path / "state" / "tabletop" / "sessions").exists() or not any((tmp_path / "state" / "tabletop" / "sessions").iterdir())


def test_a_headless_driver_asked_for_is_used() -> None:
    """SDL_VIDEODRIVER=dummy (tests, screenshots) is a choice, not a missing display."""
    code = subprocess.run(
        [sys.executable, "-c", "import pygame; from tabletop.app.lifecycle import open_display; pygame.init(); print(open_display((64, 48)).get_size())"],
        env=dict(HEADLESS, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1"), cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert code.returncode == 0 and code.stdout.strip() == "(64, 48)", code.stderr


STUCK = """
import sys, time
from pathlib import Path
from tabletop.app.lifecycle import SignalStop, on_signals

def rescue(signum):
    Path(sys.argv[1]).write_text(f"rescued {signum}")

with on_signals(rescue) as stopping:
    ready = False
    while True:  # a frame loop that swallows the stop (as a stuck or careless one would)
        try:
            if not ready:  # said from inside the try: the signal sent on it lands in here
                print("ready", flush=True)
                ready = True
            while True:
                time.sleep(0.01)
        except SignalStop:
            print("swallowed", flush=True)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stuck_loop_still_stops_on_a_signal_and_its_table_is_rescued(sig: int, tmp_path: Path) -> None:
    """The watchdog: when the loop does not save and exit, it calls the rescue (the emergency copy)
    itself and ends the process with 128 + signal, about 2 s after the signal."""
    rescued = tmp_path / "rescued.txt"
    process = popen_group([sys.executable, "-c", STUCK, str(rescued)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        start = time.monotonic()
        process.send_signal(sig)
        assert process.stdout.readline().strip() == "swallowed"
        process.send_signal(sig)  # a second signal is ignored: it must not break the rescue
        code = process.wait(timeout=60)
        took = time.monotonic() - start
    finally:
        kill_group(process)
    print(f"stuck loop, {signal.Signals(sig).name}: ended in {took:.2f} s")
    assert code == 128 + sig
    assert rescued.read_text() == f"rescued {sig}"
