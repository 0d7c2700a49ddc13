"""Nothing the user made is lost: crashes and Ctrl+C keep the autosave and write an emergency
copy offered at the next start; only a save or a chosen discard removes the autosave; failed
saves, exports and autosaves are messages, not crashes; typed fields are checked like a file."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pygame
import pygame_gui
import pytest
from pygame_gui.windows import UIConfirmationDialog, UIMessageWindow

from tabletop.app import autosave
from tabletop.app.pilot import Pilot
from tabletop.app.widgets import UnsavedChangesDialog
from tabletop.app.state import MoveModel
from tabletop.scenario_io import load, save

from .conftest import ROOT, SCENARIOS

DEFAULT = SCENARIOS / "default.toml"
CTRL = pygame.KMOD_LCTRL


def windows(p: Pilot, kind: type) -> list:
    return [w for w in p.app.ui.get_root_container().elements if isinstance(w, kind) and w.alive()]


@pytest.fixture()
def table(tmp_path: Path) -> Path:
    dst = tmp_path / "table.toml"
    shutil.copy(DEFAULT, dst)
    return dst


def _drag_sergeant(p: Pilot, dx: int = 40) -> None:
    start = p.screen_of(p.app.scenario.model("sgt").centre)
    p.drag(start, (start[0] + dx, start[1]))


def _confirm(p: Pilot, dialog: UIConfirmationDialog) -> None:
    p.post(pygame_gui.UI_CONFIRMATION_DIALOG_CONFIRMED, ui_element=dialog, ui_object_id="#confirmation_dialog")
    p.step()


# --------------------------------------------------------------------------- the real loop, crashed

LOOP = """
import os, sys
from tabletop.app import window
from tabletop.app.state import MoveModel
frames = {"n": 0}
update = window.TabletopApp.update
def injected(self, dt):
    frames["n"] += 1
    if frames["n"] == 3:
        self.dispatch(MoveModel("sgt", 111.0, 99.0))  # an edit inside the autosave's debounce
        print("edited", flush=True)
    if frames["n"] == 6 and sys.argv[2] == "error":
        raise RuntimeError("injected bug")
    update(self, dt)
window.TabletopApp.update = injected
sys.exit(window.run(sys.argv[1]))
"""


@pytest.mark.parametrize("how", ["error", "ctrl_c"])
def test_a_crash_or_ctrl_c_keeps_the_work_and_offers_it_back(table: Path, how: str) -> None:
    proc = subprocess.Popen([sys.executable, "-c", LOOP, str(table), how], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "edited"
    if how == "ctrl_c":
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == (130 if how == "ctrl_c" else 1), err
    assert ("RuntimeError: injected bug" if how == "error" else "KeyboardInterrupt") in err
    assert autosave.marker_path().exists()
    rec = autosave.find_recovery()
    assert rec is not None and rec.emergency is not None and rec.emergency.exists()
    assert rec.emergency.parent == autosave.autosave_path().parent and str(rec.emergency) in err
    assert rec.original_path == str(table)
    assert autosave.load_recovery(rec).model("sgt").centre == (111.0, 99.0)
    assert load(table) == load(DEFAULT)  # the file itself was never touched
    # The next start names the emergency copy and brings the edit back.
    p = Pilot(DEFAULT, recovery=rec)
    dialogs = windows(p, UIConfirmationDialog)
    assert dialogs and str(rec.emergency) in dialogs[0].confirmation_text.html_text.replace("&#x27;", "'")
    _confirm(p, dialogs[0])
    assert p.app.scenario.model("sgt").centre == (111.0, 99.0)
    assert p.app.state.dirty and p.app.state.path == str(table)
    p.close()


def test_a_simulated_crash_in_process_writes_the_emergency_copy(table: Path) -> None:
    p = Pilot(table, autosave=True)
    _drag_sergeant(p)
    edited = p.app.scenario
    copy = p.app.crash(RuntimeError("boom"))
    p.close()  # the ordinary shutdown after a crash must not delete anything
    assert copy is not None and load(copy) == edited
    assert autosave.marker_path().exists()
    rec = autosave.find_recovery()
    assert rec is not None and rec.emergency == copy and rec.error == "RuntimeError: boom"


# --------------------------------------------------------------------------- only save or discard remove the autosave


def test_save_then_quit_removes_the_autosave(table: Path) -> None:
    p = Pilot(table, autosave=True)
    _drag_sergeant(p)
    p.step(int(2.2 * 60))
    assert autosave.autosave_path().exists()
    p.key(pygame.K_s, CTRL)
    p.post(pygame.QUIT)
    p.step()
    assert not p.app.running
    assert not autosave.autosave_path().exists() and not autosave.marker_path().exists()
    p.close()


def test_discard_removes_the_autosave_cancel_keeps_it(table: Path) -> None:
    p = Pilot(table, autosave=True)
    _drag_sergeant(p)
    p.step(int(2.2 * 60))
    p.post(pygame.QUIT)
    p.step()
    windows(p, UnsavedChangesDialog)[0].kill()  # closing the dialog is Cancel
    p.step()
    assert not windows(p, UnsavedChangesDialog)
    assert p.app.running and autosave.autosave_path().exists() and autosave.marker_path().exists()
    p.post(pygame.QUIT)
    p.step()
    p.click(windows(p, UnsavedChangesDialog)[0].discard_button.rect.center)
    p.step()
    assert not p.app.running
    assert not autosave.autosave_path().exists() and not autosave.marker_path().exists()
    p.close()


def test_declining_a_recovery_forgets_it_and_its_emergency_copy(table: Path) -> None:
    p = Pilot(table, autosave=True)
    _drag_sergeant(p)
    copy = p.app.crash(RuntimeError("boom"))
    p.close()
    rec = autosave.find_recovery()
    assert rec is not None and copy is not None
    q = Pilot(DEFAULT, recovery=rec)
    windows(q, UIConfirmationDialog)[0].kill()
    q.step()
    assert not copy.exists() and autosave.find_recovery() is None
    q.close()


# --------------------------------------------------------------------------- failures are messages


def test_a_failed_save_shows_an_error_and_keeps_the_table(table: Path, tmp_path: Path) -> None:
    p = Pilot(table)
    _drag_sergeant(p)
    edited = p.app.scenario
    assert not p.app.save(str(tmp_path / "no such folder" / "x.toml"))
    p.step()
    assert windows(p, UIMessageWindow) and "Could not save" in p.app.message
    assert p.app.scenario is edited and p.app.state.dirty and p.app.state.path == str(table)
    p.close()


def test_saving_a_toml_date_as_json_writes_it_as_iso_text(tmp_path: Path) -> None:
    """JSON has no dates: a kept TOML date is written as ISO 8601 text (scenario_io._json_default),
    so the save succeeds and everything else loads back unchanged."""
    src = tmp_path / "dated.toml"
    src.write_text(DEFAULT.read_text() + "\n[extra]\nplayed = 2024-05-01\n")
    p = Pilot(src)
    before = p.app.scenario
    out = tmp_path / "dated.json"
    assert p.app.save(str(out))
    p.step()
    assert not windows(p, UIMessageWindow) and p.app.state.path == str(out) and not p.app.state.dirty
    assert json.loads(out.read_text())["extra"] == {"played": "2024-05-01"}
    back = load(out)
    assert (back.models, back.templates, back.terrain, back.table) == (before.models, before.templates, before.terrain, before.table)
    p.close()


def test_a_failed_export_is_an_error_and_an_old_png_is_kept(tmp_path: Path) -> None:
    p = Pilot(DEFAULT)
    out = tmp_path / "view.png"
    assert p.app.export_png(str(out))
    good = out.read_bytes()
    assert not p.app.export_png(str(tmp_path / "missing" / "x.png"))
    p.step()
    assert windows(p, UIMessageWindow)
    assert out.read_bytes() == good and not [f for f in tmp_path.iterdir() if f.name.endswith(".tmp")]
    p.close()


def test_an_autosave_that_cannot_be_written_is_a_status_message_and_keeps_the_previous(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk fills up between two autosaves: the second fails with a status message, the first stays."""
    p = Pilot(table, autosave=True)
    _drag_sergeant(p)
    p.step(int(2.2 * 60))  # the first autosave, two seconds after the edit
    good = p.app.scenario
    assert p.app.autosaver.saves == 1 and load(autosave.autosave_path()) == good

    def full(path: object, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(autosave, "atomic_write", full)
    _drag_sergeant(p)
    p.step(int(2.2 * 60))  # ... and the next one cannot be written
    assert p.app.autosaver.failures == 1 and p.app.running
    assert p.app.message_is_error and p.app.message.startswith("autosave failed (OSError: [Errno 28] No space left on device)")
    assert load(autosave.autosave_path()) == good != p.app.scenario  # the previous autosave is kept
    _drag_sergeant(p, -20)  # the app carries on
    assert p.app.state.history.can_undo
    p.close()


def test_recovering_an_autosave_the_loader_cannot_read_is_a_message(table: Path) -> None:
    autosave.state_dir().mkdir(parents=True, exist_ok=True)
    autosave.autosave_path().write_text(DEFAULT.read_text().replace('id = "sgt"', 'id = "sgt"\nstats = { DF = ' + "9" * 401 + " }", 1))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    autosave.marker_path().write_text(json.dumps({"pid": dead.pid, "path": str(table)}))
    past = time.time() - 60
    os.utime(autosave.marker_path(), (past, past))
    rec = autosave.find_recovery()
    assert rec is not None
    p = Pilot(DEFAULT, recovery=rec)
    before = p.app.scenario
    _confirm(p, windows(p, UIConfirmationDialog)[0])
    assert windows(p, UIMessageWindow) and p.app.scenario is before and p.app.running
    p.close()


# --------------------------------------------------------------------------- typed fields are checked like a file


@pytest.mark.parametrize(
    ("field", "text"),
    [
        ("stats", "DF=" + "1" + "0" * 401),
        ("stats", "DF=1e400"),
        ("stats", "DF=nan"),
        ("base", "1e300mm"),
        ("base", "inf"),
        ("base", "oval 1e9x3mm"),
    ],
)
def test_the_stats_and_base_boxes_refuse_what_a_file_could_not_hold(field: str, text: str, tmp_path: Path) -> None:
    p = Pilot(DEFAULT)
    p.click(p.screen_of(p.app.scenario.model("sgt").centre))
    before = p.app.scenario
    p.app._fields[field].set_text(text)
    assert not p.app.apply_inspector()
    assert p.app.message_is_error and p.app.scenario is before
    save(p.app.scenario, tmp_path / "x.toml")
    assert load(tmp_path / "x.toml") == before
    p.close()


@pytest.mark.parametrize("text", ["nan", "1e400", "9" * 500])
def test_heading_rolls_seed_and_what_if_refuse_bad_numbers(text: str) -> None:
    p = Pilot(DEFAULT)
    blast = p.app.scenario.template("blast")
    p.app.dispatch(__import__("tabletop.app.state", fromlist=["Select"]).Select(__import__("tabletop.app.state", fromlist=["Ref"]).Ref("template", "blast")))
    p.step()
    before = p.app.scenario
    if "heading" in p.app._fields:
        p.app._fields["heading"].set_text(text)
        assert not p.app.apply_inspector()
        p.app._fields["heading"].set_text(f"{blast.placement.heading:g}" if hasattr(blast.placement, "heading") else "")
    p.app._fields["rolls"].set_text(f"scatter={text}")
    assert not p.app.apply_inspector()
    assert p.app.scenario is before
    seed = p.app.state.seed
    assert not p.app.set_seed(text) and p.app.state.seed == seed
    assert not p.app.set_what_if(f"roll={text}") and p.app.state.what_if == {}
    assert p.app.set_seed("42") and p.app.state.seed == 42
    p.close()


def test_moves_stay_valid_documents(table: Path) -> None:
    p = Pilot(table)
    p.app.dispatch(MoveModel("sgt", 50.0, 60.0))
    assert p.app.save()
    assert load(table).model("sgt").centre == (50.0, 60.0)
    p.close()
