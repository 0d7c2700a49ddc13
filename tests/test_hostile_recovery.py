"""A hostile user against crash recovery: the attacks that once lost work, each kept as a test.

The app runs headless (the pilot) with its autosave on, in the per-test state folder of conftest.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tabletop.app import autosave
from tabletop.app.commands import MoveModel, Undo
from tabletop.app.pilot import Pilot
from tabletop.scenario_io import load

from .conftest import SCENARIOS

DEFAULT = SCENARIOS / "default.toml"


@pytest.fixture()
def table(tmp_path: Path) -> Path:
    dst = tmp_path / "table.toml"
    shutil.copy(DEFAULT, dst)
    return dst


def test_an_undo_after_a_save_back_to_an_autosaved_table_is_autosaved_again(table: Path) -> None:
    """Edit (autosaved), edit, save, undo: the table is unsaved again and must be autosaved, though an
    autosave once held that same table (the save deleted it)."""
    p = Pilot(table, autosave=True)
    try:
        app = p.app
        sgt = app.scenario.model("sgt")
        app.dispatch(MoveModel("sgt", sgt.x + 20, sgt.y))
        p.step(3)
        assert app.autosaver.flush() or app.autosaver.autosave_path.exists()
        app.dispatch(MoveModel("sgt", sgt.x + 40, sgt.y))
        assert app.save()
        assert not app.autosaver.autosave_path.exists()
        app.dispatch(Undo())
        assert app.state.dirty
        p.step(3)
        app.autosaver.tick(app._now + autosave.DEBOUNCE_S + 1)
        assert app.autosaver.autosave_path.exists(), "the undone table is unsaved and has no autosave: a crash now loses it"
        assert load(app.autosaver.autosave_path).model("sgt").x == pytest.approx(sgt.x + 20)
    finally:
        p.close()


def test_an_autosave_written_after_a_full_disk_refused_the_marker_is_still_offered(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The state folder was full at the start (marker and lock refused), room was made, the edits were
    autosaved, then the app was killed: the work is offered at the next start (a folder without its
    marker is taken for a session starting and skipped, so the autosave alone was never offered)."""
    import errno

    real_write = autosave.atomic_write
    real_acquire = autosave.SessionLock.acquire.__func__  # type: ignore[attr-defined]
    full = {"on": True}

    def write(path: object, data: bytes) -> None:
        if full["on"]:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(path, data)

    def acquire(cls: type, path: Path, create: bool = False) -> object:
        if full["on"]:
            raise autosave.LockUnavailable("No space left on device")
        return real_acquire(cls, path, create)

    monkeypatch.setattr(autosave, "atomic_write", write)
    monkeypatch.setattr(autosave.SessionLock, "acquire", classmethod(acquire))
    saver = autosave.Autosaver()
    saver.start(str(table))
    assert not saver.marker_path.exists()
    full["on"] = False  # the user made room
    scenario = load(table)
    sgt = scenario.model("sgt")
    from dataclasses import replace

    edited = replace(scenario, models=tuple(replace(m, x=m.x + 20) if m.id == "sgt" else m for m in scenario.models))
    saver.changed(edited, 0.0)
    assert saver.tick(autosave.DEBOUNCE_S + 1)
    saver.release()  # the process is killed: its lock goes, its files stay
    [offered] = autosave.find_recoveries(claim=False)
    assert offered.original_path == str(table)
    assert autosave.load_recovery(offered).model("sgt").x == pytest.approx(sgt.x + 20)


def test_an_emergency_copy_the_state_folder_cannot_take_goes_beside_the_file(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM with the state folder's disk full: the copy is written beside the open file (else home,
    else temp), not given up (it was: 'the autosave is kept', though there was none)."""
    import errno

    real_write = autosave.atomic_write
    refused: list[Path] = []

    def write(path: object, data: bytes) -> None:
        if Path(str(path)).is_relative_to(autosave.state_dir()) or (refused and Path(str(path)).parent in refused):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(path, data)

    monkeypatch.setattr(autosave, "atomic_write", write)
    saver = autosave.Autosaver()
    saver.start(str(table))
    edited = load(table)
    copy = saver.emergency(edited, "stopped by SIGTERM")
    assert copy is not None and copy.parent == table.parent and copy.name.startswith("table.emergency-")
    assert load(copy) == edited
    # Nowhere at all: None, and why.
    monkeypatch.setenv("HOME", str(table.parent / "home"))
    (table.parent / "home").mkdir()
    monkeypatch.setenv("TMPDIR", str(table.parent / "tmp"))
    (table.parent / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    refused += [table.parent, table.parent / "home", table.parent / "tmp"]
    assert saver.emergency(edited, "stopped by SIGTERM") is None
    assert saver.emergency_error is not None and "No space left" in saver.emergency_error
    saver.release()


WORKER = """
import os, signal, sys, time
from tabletop.app.odds_worker import OddsRequest, OddsWorker
from tabletop.scenario_io import load
w = OddsWorker(debounce_s=0)
w.request(OddsRequest(load(sys.argv[1])), 0.0)
w.poll(1.0)
os.kill(w.process.pid, signal.SIGINT)  # Ctrl+C in a terminal reaches every process of the group: at once,
time.sleep(3.0)                        # while the worker starts,
os.kill(w.process.pid, signal.SIGINT)  # and once it runs
time.sleep(1.0)
print("alive" if w.process.is_alive() else "dead", flush=True)
w.shutdown()
"""


def test_ctrl_c_in_a_terminal_prints_no_traceback_from_the_odds_worker(tmp_path: Path) -> None:
    """A terminal's Ctrl+C goes to the whole process group, the odds worker too: the app stops with
    one line; the worker must not add a KeyboardInterrupt traceback (it leaves with the app)."""
    import subprocess
    import sys

    from .conftest import ROOT

    done = subprocess.run([sys.executable, "-c", WORKER, str(DEFAULT)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done.stderr
    assert done.stdout.strip() == "alive"


def test_the_app_prints_nothing_on_stdout_not_even_pygames_greeting(tmp_path: Path) -> None:
    """`tabletop` printed "pygame-ce 2.5.8 (SDL …)" on stdout at every start (the variable that hides it
    was set after pygame was imported). Here with no display, so it stops at once (exit 2)."""
    import os
    import subprocess
    import sys

    from .conftest import ROOT
    from .xvfb import app_command

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER", "PYGAME_HIDE_SUPPORT_PROMPT")}
    env.update(SDL_AUDIODRIVER="dummy", XDG_STATE_HOME=str(tmp_path / "state"))
    done = subprocess.run(app_command(), env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""


# --------------------------------------------------------------------------- two windows, one file


def _confirm_windows(p: Pilot) -> list:
    from pygame_gui.windows import UIConfirmationDialog

    return [w for w in p.app.ui.get_root_container().elements if isinstance(w, UIConfirmationDialog) and w.alive()]


def _moved(scenario: object, model_id: str, dx: float) -> object:
    from dataclasses import replace

    return replace(scenario, models=tuple(replace(m, x=m.x + dx) if m.id == model_id else m for m in scenario.models))  # type: ignore[attr-defined]


def test_saving_over_a_file_another_window_saved_meanwhile_asks_first(table: Path) -> None:
    """Two instances on one file: B saves its edit, then A saves its own: B's edit was overwritten
    without a word. Now A asks; Cancel keeps B's file, Replace writes A's table (and the next save
    asks nothing: the file is A's again)."""
    import pygame_gui

    from tabletop.scenario_io import save

    p = Pilot(table, autosave=True)
    try:
        other = _moved(load(table), "r1", 50.0)
        save(other, table)  # the other window's save
        sgt = p.app.scenario.model("sgt")
        p.app.dispatch(MoveModel("sgt", sgt.x + 30, sgt.y))
        assert p.app.save() is False
        p.step(2)
        [question] = _confirm_windows(p)
        assert "changed on disk" in question.confirmation_text.html_text  # type: ignore[attr-defined]
        question.kill()  # Cancel (×)
        p.step(2)
        assert load(table) == other and p.app.state.dirty
        p.app.save()
        p.step(2)
        [question] = _confirm_windows(p)
        p.post(pygame_gui.UI_CONFIRMATION_DIALOG_CONFIRMED, ui_element=question, ui_object_id="#confirmation_dialog")
        p.step(2)
        assert load(table).model("sgt").x == pytest.approx(sgt.x + 30) and not p.app.state.dirty
        p.app.dispatch(MoveModel("sgt", sgt.x + 40, sgt.y))
        assert p.app.save() is True  # its own file, as it left it: no question
    finally:
        p.close()


def test_save_as_over_another_existing_table_asks_first(table: Path, tmp_path: Path) -> None:
    """Save as… onto another scenario that exists replaced it without a word."""
    other = tmp_path / "other.toml"
    shutil.copy(SCENARIOS / "robotech-hit.toml", other)
    before = other.read_bytes()
    p = Pilot(table)
    try:
        assert p.app.save(str(other)) is False
        p.step(2)
        [question] = _confirm_windows(p)
        assert "other.toml already exists" in question.confirmation_text.html_text  # type: ignore[attr-defined]
        assert other.read_bytes() == before
        assert p.app.save(str(tmp_path / "new.toml")) is True  # nothing there: no question
    finally:
        p.close()


@pytest.mark.skipif(__import__("sys").platform == "win32", reason="flock")
def test_a_crashed_session_in_a_read_only_folder_is_claimed_by_the_instance_offering_it(tmp_path: Path) -> None:
    """On a read-only state folder the lock file could not be opened for writing, so no instance could
    claim a crashed session: every instance started meanwhile offered it too. A lock needs only a read."""
    import os

    saver = autosave.Autosaver()
    saver.start(str(tmp_path / "t.toml"))
    saver.changed(load(DEFAULT), 0.0)
    assert saver.tick(autosave.DEBOUNCE_S + 1)
    saver.release()  # killed
    lock = autosave.lock_path(saver.session)
    os.chmod(lock, 0o400)  # what a read-only folder does to opening it for writing (as root too, below)
    real_open = os.open

    def read_only(path: object, flags: int, *args: object) -> int:
        if str(path) == str(lock) and flags & (os.O_RDWR | os.O_WRONLY):
            raise OSError(30, "Read-only file system")
        return real_open(path, flags, *args)

    import unittest.mock

    with unittest.mock.patch.object(os, "open", read_only):
        [mine] = autosave.find_recoveries(claim=True)  # this instance offers it, holding its lock
        probe = autosave.SessionLock.acquire(lock)  # as another instance would try
        assert probe is None, "the session being offered here was free for another instance to offer too"
        autosave.release_recovery(mine)
        again = autosave.SessionLock.acquire(lock)
        assert again is not None
        again.release()


def test_a_failed_save_as_elsewhere_leaves_the_backdrops_path_as_it_was(tmp_path: Path) -> None:
    """Save as into a folder that cannot take it: the photo's path was rewritten relative to that
    folder before the write failed, so the backdrop vanished and the next Save wrote a broken path."""
    from tabletop.scenario_io import loads

    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "table.jpg").write_bytes(b"not really a jpeg")
    table = tmp_path / "table.toml"
    table.write_text('format = 1\n[table]\nwidth = 24\ndepth = 24\n[backdrop]\nimage = "photos/table.jpg"\ncorners = [[0, 0], [1, 0], [1, 1], [0, 1]]\n', encoding="utf-8")
    p = Pilot(table)
    try:
        assert p.app.save(str(tmp_path / "missing" / "deeper" / "copy.toml")) is False  # no such folder
        assert p.app.scenario.backdrop is not None and p.app.scenario.backdrop.image == "photos/table.jpg"
        assert not p.app.state.dirty
        (tmp_path / "saves").mkdir()
        assert p.app.save(str(tmp_path / "saves" / "copy.toml")) is True
        saved = loads((tmp_path / "saves" / "copy.toml").read_text(encoding="utf-8"))
        assert saved.backdrop is not None and saved.backdrop.image == "../photos/table.jpg"
        assert p.app.scenario.backdrop is not None and p.app.scenario.backdrop.image == "../photos/table.jpg"
    finally:
        p.close()


@pytest.mark.parametrize("when", ["before the table opens", "before its autosave is written"])
def test_a_signal_while_recover_opens_the_work_offers_it_once(table: Path, when: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM lands while Recover opens a crashed session's work (under the window manager's tests it
    did: the title changes before this session's autosave holds the work). Once the recovered table
    is in the window its emergency copy stands for the crashed session: offered once, not twice.
    Before that, the crashed session stays as it was (the copy holds the table shown before)."""
    from tabletop.app.lifecycle import SignalStop
    from tabletop.app.recovery_dialog import RecoveryDialog
    from tabletop.app.state import Open

    from .test_app_data_loss import _crashed, _press, windows

    rec, _ = _crashed(table)
    q = Pilot(DEFAULT, autosave=True, recovery=rec)
    try:
        app = q.app
        stop = SignalStop(15)
        real_flush, raised = app.autosaver.flush, []

        def interrupted(*args: object, **kwargs: object) -> bool:
            if not raised:  # the signal lands once, in Recover's write; the emergency copy writes as usual
                raised.append(True)
                raise stop
            return real_flush(*args, **kwargs)

        if when == "before the table opens":
            real = app.dispatch
            monkeypatch.setattr(app, "dispatch", lambda command: (_ for _ in ()).throw(stop) if isinstance(command, Open) else real(command))
        else:
            monkeypatch.setattr(app.autosaver, "flush", interrupted)
        [dialog] = windows(q, RecoveryDialog)
        with pytest.raises(SignalStop):
            _press(q, dialog.recover_button)
        app.stop_on_signal(15)  # what the loop does on the SignalStop, then it lets go of the session
        app.shutdown()
        offered = autosave.find_recoveries(claim=False)
        if when == "before the table opens":
            assert offered == [rec]  # the window showed the default table, unsaved-free: no copy, the crash kept
        else:
            [kept] = offered  # was two: the crashed session and the emergency copy of the same work
            assert kept.emergency is not None and kept.session != rec.session
            assert autosave.load_recovery(kept) == autosave.load_recovery(rec)
    finally:
        q.close()
