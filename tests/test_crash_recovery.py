"""Crash recovery, for real: kill the running app and find its unsaved work at the next start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.app import autosave
from tabletop.scenario_io import load

from .conftest import ROOT, SCENARIOS

APP = """
import sys, time
from tabletop.app.pilot import Pilot
from tabletop.app.live import placed_templates
p = Pilot(sys.argv[1], autosave=True)
before = p.app.placed()["blast"].focus
start = p.screen_of(before)
p.drag((start[0] + 4, start[1] + 30), (start[0] + 124, start[1] + 30))  # grab the blast off-centre, drag right
p.step(200)  # > 2 s of frames at 60 fps: the debounced autosave fires
print("moved", p.app.placed()["blast"].focus[0] - before[0], flush=True)
time.sleep(600)  # wait to be killed, unsaved
"""


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_killed_app_offers_its_unsaved_work_back(tmp_path: Path) -> None:
    table = tmp_path / "table.toml"
    table.write_bytes((SCENARIOS / "default.toml").read_bytes())
    proc = subprocess.Popen([sys.executable, "-c", APP, str(table)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().split()
        assert line[0] == "moved" and float(line[1]) > 50  # the blast moved some 120 px to the right
        assert autosave.autosave_path().exists() and autosave.marker_path().exists()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    recovery = autosave.find_recovery()
    assert recovery is not None, "a crash with unsaved work must be offered back"
    recovered = autosave.load_recovery(recovery)
    original = load(table)
    assert recovered.template("blast").placement != original.template("blast").placement
    assert load(table) == original  # the file itself was never touched
