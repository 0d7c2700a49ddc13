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
from tabletop.app.recovery_dialog import RecoveryDialog
from tabletop.app.widgets import UnsavedChangesDialog
from tabletop.app.state import MoveModel
from tabletop.scenario_io import ScenarioError, load, save

from .scenario_compare import differences

from .conftest import ROOT, SCENARIOS
from .xvfb import kill_group, popen_group

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


def _press(p: Pilot, button: object) -> None:
    """Click ``button`` with the mouse and let the app handle the button's event."""
    p.click(button.rect.center)  # type: ignore[attr-defined]
    p.step(2)


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


@pytest.mark.parametrize("how", ["error", "ctrl_c", "ctrl_c_ignored_at_start", "sigterm"])
def test_a_crash_or_a_signal_keeps_the_work_and_offers_it_back(table: Path, how: str, tmp_path: Path) -> None:
    # stderr goes to a file and the test waits for the app process itself: its odds worker (and
    # multiprocessing's resource tracker) inherit the app's stdout and stderr, and a worker still
    # starting up when the app dies (seconds, on a loaded machine) would hold a pipe open, so
    # communicate() would wait for it too, not only for the app. The app runs in a process group
    # of its own, killed whatever happens (a hang must not outlive the test).
    err_path = tmp_path / "stderr.txt"
    sig = signal.SIGTERM if how == "sigterm" else signal.SIGINT
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if how.endswith("ignored_at_start") else None
    with open(err_path, "w", encoding="utf-8") as err_file:
        proc = popen_group([sys.executable, "-c", LOOP, str(table), how], cwd=ROOT, stdout=subprocess.PIPE, stderr=err_file, text=True, preexec_fn=ignore)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "edited"
        if how != "error":
            proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        kill_group(proc)
    err = err_path.read_text(encoding="utf-8")
    assert proc.returncode == (1 if how == "error" else 128 + sig), err
    assert ("RuntimeError: injected bug" if how == "error" else f"stopped by {signal.Signals(sig).name}") in err
    rec = autosave.find_recovery()
    assert rec is not None and rec.emergency is not None and rec.emergency.exists()
    assert rec.emergency.parent == autosave.state_dir() and str(rec.emergency) in err
    assert rec.original_path == str(table)
    assert autosave.load_recovery(rec).model("sgt").centre == (111.0, 99.0)
    assert load(table) == load(DEFAULT)  # the file itself was never touched
    # The next start names the emergency copy and brings the edit back.
    p = Pilot(DEFAULT, recovery=rec)
    dialogs = windows(p, RecoveryDialog)
    assert dialogs and str(rec.emergency) in dialogs[0].text
    _press(p, dialogs[0].recover_button)
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
    assert p.app.autosaver.marker_path.exists()
    rec = autosave.find_recovery()
    assert rec is not None and rec.emergency == copy and rec.error == "RuntimeError: boom"


# --------------------------------------------------------------------------- only save or discard remove the autosave


def test_save_then_quit_removes_the_autosave(table: Path) -> None:
    p = Pilot(table, autosave=True)
    _drag_sergeant(p)
    p.step(int(2.2 * 60))
    saver = p.app.autosaver
    assert saver.autosave_path.exists()
    p.key(pygame.K_s, CTRL)
    p.post(pygame.QUIT)
    p.step()
    assert not p.app.running
    assert not saver.autosave_path.exists() and not saver.marker_path.exists() and not saver.folder.exists()
    p.close()


def test_discard_removes_the_autosave_cancel_keeps_it(table: Path) -> None:
    p = Pilot(table, autosave=True)
    _drag_sergeant(p)
    p.step(int(2.2 * 60))
    saver = p.app.autosaver
    p.post(pygame.QUIT)
    p.step()
    windows(p, UnsavedChangesDialog)[0].kill()  # closing the dialog is Cancel
    p.step()
    assert not windows(p, UnsavedChangesDialog)
    assert p.app.running and saver.autosave_path.exists() and saver.marker_path.exists()
    p.post(pygame.QUIT)
    p.step()
    _press(p, windows(p, UnsavedChangesDialog)[0].discard_button)
    p.step()
    assert not p.app.running
    assert not saver.autosave_path.exists() and not saver.marker_path.exists()
    p.close()


def _crashed(table: Path, dx: int = 40) -> tuple[autosave.Recovery, Path]:
    """A session that edited ``table`` and crashed (an emergency copy written); its recovery and copy."""
    p = Pilot(table, autosave=True)
    _drag_sergeant(p, dx)
    copy = p.app.crash(RuntimeError("boom"))
    p.close()
    assert copy is not None
    [rec] = [r for r in autosave.find_recoveries(claim=False) if r.emergency == copy]
    return rec, copy


def test_later_or_close_keep_a_crashed_session_and_only_discard_deletes_it(table: Path) -> None:
    """Issue 37.2: the recovery dialog's × and Later keep the work for the next start; Discard asks
    once more (its Cancel asks the recovery again), and only then deletes the work."""
    rec, copy = _crashed(table)
    folder = autosave.session_dir(rec.session or "")
    for close in ("x", "later"):
        q = Pilot(DEFAULT, recovery=rec)
        [dialog] = windows(q, RecoveryDialog)
        assert "sgt" in dialog.text and "table.toml" in dialog.text  # what it holds: the sergeant moved
        if close == "x":
            _press(q, dialog.close_window_button)
        else:
            _press(q, dialog.later_button)
        q.step()
        assert not windows(q, RecoveryDialog) and q.app.running
        assert copy.exists() and folder.exists() and autosave.find_recovery() == rec
        q.close()
    q = Pilot(DEFAULT, recovery=rec)
    _press(q, windows(q, RecoveryDialog)[0].discard_button)
    [sure] = windows(q, UIConfirmationDialog)
    _press(q, sure.cancel_button)  # not sure after all: the question comes back
    q.step()
    assert copy.exists() and folder.exists()
    _press(q, windows(q, RecoveryDialog)[0].discard_button)
    [sure] = windows(q, UIConfirmationDialog)
    _press(q, sure.confirm_button)
    q.step()
    assert not copy.exists() and not folder.exists() and autosave.find_recovery() is None
    assert "deleted" in q.app.message
    q.close()


def test_quitting_while_a_recovery_is_offered_keeps_it(table: Path) -> None:
    """Issue 37.2: the window closed while "Recover unsaved work" is open: the new session quits
    clean and removes only its own files."""
    rec, copy = _crashed(table)
    q = Pilot(DEFAULT, autosave=True, recovery=rec)
    own = q.app.autosaver.folder
    assert windows(q, RecoveryDialog) and own.exists()
    q.post(pygame.QUIT)
    q.step()
    assert not q.app.running and not own.exists()
    q.close()
    assert autosave.find_recovery() == rec and copy.exists()


def test_every_crashed_session_is_offered_in_turn(tmp_path: Path) -> None:
    """Issue 37.1: two crashed sessions, both offered, one after the other."""
    tables = []
    for name in ("a", "b"):
        tables.append(tmp_path / f"{name}.toml")
        shutil.copy(DEFAULT, tables[-1])
    first, _ = _crashed(tables[0], 40)
    second, _ = _crashed(tables[1], -40)
    found = autosave.find_recoveries()  # claimed, as the app's start does
    assert {r.session for r in found} == {first.session, second.session}
    q = Pilot(DEFAULT, autosave=True, recoveries=found)
    [dialog] = windows(q, RecoveryDialog)
    assert dialog.window_display_title.endswith("(1 of 2)")
    _press(q, dialog.later_button)
    [dialog] = windows(q, RecoveryDialog)
    assert dialog.window_display_title.endswith("(2 of 2)")
    shown = found[1]
    _press(q, dialog.recover_button)
    assert not windows(q, RecoveryDialog)
    assert q.app.state.path == shown.original_path and q.app.state.dirty
    # The recovered work now lives in this session's autosave; the crashed session is gone, the other stays.
    assert differences(load(q.app.autosaver.autosave_path), autosave.load_recovery(shown)) == []
    assert not autosave.session_dir(shown.session or "").exists()
    q.close()
    assert [r.session for r in autosave.find_recoveries(claim=False) if r.session != q.app.autosaver.session] == [found[0].session]


def test_a_recovered_table_then_lost_again_is_offered_once(table: Path) -> None:
    rec, _ = _crashed(table)
    q = Pilot(DEFAULT, autosave=True, recovery=rec)
    _press(q, windows(q, RecoveryDialog)[0].recover_button)
    edited = q.app.scenario
    q.app.crash(RuntimeError("again"))
    q.close()
    [again] = autosave.find_recoveries(claim=False)
    assert again.session == q.app.autosaver.session and differences(autosave.load_recovery(again), edited) == []


def _resize(p: Pilot, size: tuple[int, int]) -> None:
    """The window resized by the window manager (maximise, a tiling layout): SDL's events for it."""
    p.post(pygame.VIDEORESIZE, size=size, w=size[0], h=size[1])
    p.post(pygame.WINDOWSIZECHANGED, x=size[0], y=size[1], window=None)
    p.step(2)
    assert p.app.size == size


def _titles(p: Pilot) -> list[str]:
    return [w.window_display_title for w in p.app.ui.get_root_container().elements if hasattr(w, "window_display_title") and w.alive()]


@pytest.mark.parametrize("question", ["recovery", "discard_recovery", "unsaved_changes", "save_as", "message"])
def test_a_resize_asks_every_open_question_again(table: Path, question: str) -> None:
    """Issue 37.3: rebuilding the widgets for a new window size keeps every pending question, at the
    new window's centre, answerable as before (a resize used to drop them, and the next clean quit
    deleted the crashed work)."""
    from pygame_gui.windows import UIFileDialog

    rec, copy = _crashed(table)
    p = Pilot(DEFAULT, autosave=True, recovery=rec if "recovery" in question else None)
    if question == "discard_recovery":
        _press(p, windows(p, RecoveryDialog)[0].discard_button)
    elif question == "unsaved_changes":
        _drag_sergeant(p)
        p.post(pygame.QUIT)
        p.step()
    elif question == "save_as":
        p.key(pygame.K_s, CTRL | pygame.KMOD_LSHIFT)
        windows(p, UIFileDialog)[0].file_path_text_line.set_text(str(table.parent / "typed.toml"))
    elif question == "message":
        assert not p.app.save(str(table.parent / "no such folder" / "x.toml"))
    before = _titles(p)
    assert len(before) == 1
    _resize(p, (1000, 700))
    assert _titles(p) == before, "the question was dropped by the resize"
    [window] = [w for w in p.app.ui.get_root_container().elements if hasattr(w, "window_display_title") and w.alive()]
    assert abs(window.rect.centerx - 500) <= 20 and abs(window.rect.centery - 350) <= 20  # centred in the new size
    assert p.app._modal_open()  # the table still waits for the answer
    if question == "recovery":
        _press(p, window.recover_button)
        assert p.app.state.path == str(table) and p.app.state.dirty
    elif question == "discard_recovery":
        _press(p, window.confirm_button)
        assert not copy.exists() and autosave.find_recovery() is None
    elif question == "unsaved_changes":
        _press(p, window.cancel_button)
        assert p.app.running and p.app.state.dirty
    elif question == "save_as":
        assert window.file_path_text_line.get_text() == str(table.parent / "typed.toml")  # what was typed is kept
        _press(p, window.ok_button)
        assert (table.parent / "typed.toml").exists() and not p.app.state.dirty
    else:
        assert "Could not save" in window.window_display_title
        _press(p, window.dismiss_button)
        assert not p.app._modal_open()
    if question != "discard_recovery":
        p.post(pygame.QUIT)
        p.step()
        if p.app.running:  # the recovered table is unsaved: discard it to quit
            _press(p, windows(p, UnsavedChangesDialog)[0].discard_button)
        assert not p.app.running
        # Quitting took only this session's files: the crashed work is kept unless it was recovered.
        assert (autosave.find_recovery() is None) is (question == "recovery")
    p.close()


def test_a_resize_keeps_the_photo_imports_table_size_box(tmp_path: Path) -> None:
    cv2 = pytest.importorskip("cv2")
    from tabletop.photo.synth import synth_photo

    image = tmp_path / "table.jpg"
    cv2.imwrite(str(image), synth_photo(3, size=(800, 600), n_bases=3).image)
    p = Pilot(DEFAULT)
    assert p.app.start_photo_import(str(image))
    p.app.photo_import.size_entry.set_text("120x90cm")  # typed, not yet entered
    _resize(p, (1000, 700))
    entry = p.app.photo_import.size_entry
    assert entry.alive() and entry.get_text() == "120x90cm"
    p.post(pygame_gui.UI_TEXT_ENTRY_FINISHED, ui_element=entry, text="120x90cm")
    p.step()
    assert p.app.photo_import.table_mm == pytest.approx((1200.0, 900.0))
    p.app.cancel_photo_import()
    p.close()


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


def test_a_failed_save_keeps_the_autosave(tmp_path: Path) -> None:
    """The autosave goes only once a save has succeeded: a save that fails (here: its folder is gone)
    leaves the autosaved edit for a crash to bring back."""
    table = tmp_path / "stick" / "table.toml"
    table.parent.mkdir()
    shutil.copy(DEFAULT, table)
    p = Pilot(table, autosave=True)
    _drag_sergeant(p)
    edited = p.app.scenario
    p.step(int(2.2 * 60))  # the debounced autosave fires
    saved = p.app.autosaver.autosave_path
    assert differences(load(saved), edited) == []
    shutil.rmtree(table.parent)  # the table's folder went away (a USB stick pulled out)
    p.key(pygame.K_s, CTRL)
    assert windows(p, UIMessageWindow) and "Could not save" in p.app.message and p.app.state.dirty
    assert saved.exists() and differences(load(saved), edited) == []
    p.step(int(2.2 * 60))
    assert saved.exists()
    p.close()
    rec = autosave.find_recovery()
    assert rec is not None and differences(autosave.load_recovery(rec), edited) == []


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
    p = Pilot(DEFAULT, autosave=True)
    _drag_sergeant(p, 20)
    good = p.app.scenario
    p.step(int(2.2 * 60))
    assert differences(load(p.app.autosaver.autosave_path), good) == []
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
    assert differences(load(p.app.autosaver.autosave_path), good) == []  # the previous autosave is kept
    monkeypatch.setattr(autosave, "scenario_bytes", real_dumps)
    _drag_sergeant(p, -20)  # the app carries on
    assert p.app.state.history.can_undo
    p.close()


def test_the_loader_refuses_the_deep_table_that_used_to_break_the_autosave(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="nested"):
        load(_deep_table(tmp_path, 900))


def test_recovering_an_autosave_the_loader_cannot_read_is_a_message(table: Path) -> None:
    saver = autosave.Autosaver()
    saver.start(str(table))
    saver.autosave_path.write_text(DEFAULT.read_text().replace('id = "sgt"', 'id = "sgt"\nstats = { DF = ' + "9" * 401 + " }", 1))
    saver.release()  # as when its process dies
    rec = autosave.find_recovery()
    assert rec is not None
    p = Pilot(DEFAULT, recovery=rec)
    [dialog] = windows(p, RecoveryDialog)
    assert "cannot be read" in dialog.text and not dialog.recover_button.is_enabled  # Later or Discard only
    before = p.app.scenario
    assert not p.app.recover(rec)
    assert windows(p, UIMessageWindow) and p.app.scenario is before and p.app.running
    _press(p, dialog.later_button)
    p.close()
    assert autosave.find_recovery() == rec  # kept: a later version may read it


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
    autosave.session_dir("crashed").mkdir(parents=True)
    autosave.marker_path("crashed").write_text(json.dumps({"pid": 1 << 30, "emergency": str(old[4])}))

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
