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
from tabletop.scenario_io import ScenarioError, load, save

from .scenario_compare import differences

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
def test_a_crash_or_ctrl_c_keeps_the_work_and_offers_it_back(table: Path, how: str, tmp_path: Path) -> None:
    # stderr goes to a file and the test waits for the app process itself: its odds worker (and
    # multiprocessing's resource tracker) inherit the app's stdout and stderr, and a worker still
    # starting up when the app dies (seconds, on a loaded machine) would hold a pipe open, so
    # communicate() would wait for it too, not only for the app.
    err_path = tmp_path / "stderr.txt"
    with open(err_path, "w", encoding="utf-8") as err_file:
        proc = subprocess.Popen([sys.executable, "-c", LOOP, str(table), how], cwd=ROOT, stdout=subprocess.PIPE, stderr=err_file, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "edited"
    if how == "ctrl_c":
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=60)
    finally:
        proc.stdout.close()
    err = err_path.read_text(encoding="utf-8")
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
    assert copy is not None and differences(load(copy), edited) == []
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
    """JSON has no dates: a TOML date among kept keys is written as ISO 8601 text, not a crash."""
    src = tmp_path / "dated.toml"
    src.write_text(DEFAULT.read_text() + "\n[extra]\nplayed = 2024-05-01\n")
    p = Pilot(src)
    out = tmp_path / "dated.json"
    assert p.app.save(str(out))
    p.step()
    assert not windows(p, UIMessageWindow)
    assert json.loads(out.read_text())["extra"]["played"] == "2024-05-01"
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


def _deep_table(tmp_path: Path, depth: int = 300) -> Path:
    path = tmp_path / "deep.toml"
    path.write_text(DEFAULT.read_text().replace('id = "sgt"', 'id = "sgt"\nweapon = ' + "{a = " * depth + "1" + "}" * depth, 1))
    return path


def test_an_autosave_that_cannot_be_written_is_a_status_message_and_keeps_the_previous(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = load(DEFAULT)
    saver = autosave.Autosaver(debounce_s=0.0)
    saver.start(None)
    saver.changed(good, 0.0)
    assert saver.tick(1.0)
    p = Pilot(DEFAULT, autosave=True)
    real_dumps = autosave.scenario_bytes

    def unwritable(scenario, *args, **kwargs):  # type: ignore[no-untyped-def]
        # The loader now refuses the 900-deep table that used to trigger this (a RecursionError
        # when the autosave wrote it); any failure inside the autosave must behave the same.
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(autosave, "scenario_bytes", unwritable)
    _drag_sergeant(p)
    p.step(int(2.2 * 60))  # the autosave two seconds after the edit cannot write it
    assert p.app.autosaver.failures == 1 and p.app.running
    assert p.app.message_is_error and "autosave failed" in p.app.message
    assert load(autosave.autosave_path()) == good  # the previous autosave is kept
    monkeypatch.setattr(autosave, "scenario_bytes", real_dumps)
    _drag_sergeant(p, -20)  # the app carries on
    assert p.app.state.history.can_undo
    p.close()


def test_the_loader_refuses_the_deep_table_that_used_to_break_the_autosave(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="nested"):
        load(_deep_table(tmp_path, 900))


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


def test_old_emergency_copies_are_pruned_but_never_the_newest_the_young_or_the_offered_one() -> None:
    """Copies go only when beyond the newest ten AND older than 30 days; the one a marker offers stays."""
    import json
    import os
    import time

    from tabletop.app import autosave

    folder = autosave.state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    now = time.time()
    day = 86400.0
    young = [folder / f"emergency-young-{i}.toml" for i in range(12)]  # 12 copies from the last 12 days
    old = [folder / f"emergency-old-{i}.json" for i in range(5)]  # 5 copies 40+ days old
    other = folder / "notes.toml"
    for i, path in enumerate(young):
        path.write_text("x")
        os.utime(path, (now - i * day, now - i * day))
    for i, path in enumerate(old):
        path.write_text("x")
        os.utime(path, (now - (40 + i) * day, now - (40 + i) * day))
    other.write_text("x")
    os.utime(other, (now - 400 * day, now - 400 * day))
    autosave.marker_path().write_text(json.dumps({"pid": 1 << 30, "emergency": str(old[4])}))

    assert sorted(autosave.prune_emergency_copies(now)) == sorted(old[:4])
    # The 12 young ones stay although only 10 are "newest"; the offered old copy and other files stay.
    assert all(p.exists() for p in [*young, old[4], other])

    # Started again a year later: all but the newest ten go, and still never the offered copy.
    later = now + 365 * day
    saver = autosave.Autosaver()
    kept_before = young + [old[4]]
    deleted = set(autosave.prune_emergency_copies(later))
    assert deleted == set(young[10:])  # old[4] is offered; young[:10] are the newest ten
    assert all(p.exists() for p in young[:10]) and old[4].exists()
    saver.start(None)  # start prunes too: nothing more to delete, and it writes its own marker
    assert sorted(p for p in kept_before if p.exists()) == sorted(young[:10] + [old[4]])
