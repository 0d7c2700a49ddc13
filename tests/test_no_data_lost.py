"""No data lost: a save killed mid-write leaves the previous file intact; unknown fields survive."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabletop import scenario_io

from .conftest import ROOT

WRITER = """
import sys, dataclasses
from tabletop.sample_tables import big_table
from tabletop import scenario_io
path = sys.argv[1]
versions = [dataclasses.replace(big_table(1500, 60, 6), title=f"version {k}") for k in range(2)]
print("ready", flush=True)
k = 0
while True:
    scenario_io.save(versions[k % 2], path)
    k += 1
"""


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_save_killed_mid_write_leaves_a_whole_file(tmp_path: Path) -> None:
    """Kills at random moments of a stream of saves. It cannot see a missing fsync (a killed process's
    pages still reach the disk) and rarely lands inside the one write call; the spies and the kill at a
    chosen step in tests/test_durability.py prove those by construction."""
    path = tmp_path / "table.toml"
    titles = set()
    for attempt in range(8):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(0.15 + 0.07 * attempt)  # land the kill at different points of a write
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        if path.exists():
            titles.add(scenario_io.load(path).title)  # always a complete, valid file
    assert titles <= {"version 0", "version 1"} and titles


def test_saving_never_drops_a_field_the_file_had(tmp_path: Path) -> None:
    text = (
        'format = 1\nmystery = "top"\n[table]\nwidth = 48\ndepth = 48\ncolour = "green"\n'
        '[[model]]\nid = "a"\nx = 1\ny = 1\nbase = { shape = "oval", length = 2, width = 1, material = "resin" }\npainted = true\n'
        '[[terrain]]\nid = "w"\nrect = { x = 5, y = 5, length = 2, width = 2 }\nbuilt = 1999\n'
        '[[template]]\nid = "t"\nshape = { kind = "circle", radius = 1.5, colour = "red" }\nimpact = { attacker = "a", at = [3, 3], note = "aim" }\nfancy = [1, 2]\n'
    )
    path = tmp_path / "s.toml"
    path.write_text(text)
    first = scenario_io.load(path)
    scenario_io.save(first, path)
    saved = path.read_text()
    for field in ('mystery = "top"', 'colour = "green"', 'material = "resin"', "painted = true", "built = 1999", 'colour = "red"', 'note = "aim"', "fancy = [", "radius = 1.5"):
        assert field in saved, field
    assert scenario_io.load(path) == first
