"""The app under a real window manager (Openbox on Xvfb): the window is maximised, resized and closed
by the window manager, as a user's desktop does it, not by requests the test sends the window itself.

* a maximise (EWMH ``_NET_WM_STATE``, what a title bar's button or a tiling manager sends) and a
  resize while "Recover unsaved work" is open: the question stays, at its new place;
* the window closed through the window manager (``wmctrl -c``, its Alt+F4) with an unsaved edit:
  "unsaved changes" is asked, Cancel keeps the app and the edit, Save keeps the edit in the file;
* SIGTERM with an unsaved edit, also while that question is open: out within the 2 s bound, the
  table in an emergency copy, never waiting for the dialog;
* a second instance beside the first, closed cleanly through the window manager, leaves the first's
  autosave; the first killed, its work is offered at the next start and Recover opens it.

Every app, and the window manager, runs in a process group of its own, killed in teardown whatever
happens. Without Openbox and wmctrl these tests are skipped (``.ci/run`` installs them; in CI they
fail instead). Nothing sleeps for a fixed time: each step waits for something the app or the window
manager does.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from tabletop.app import autosave
from tabletop.scenario_io import load

from .test_crash_recovery import DEFAULT, Desk, _autosave_with_moved_sgt, _crash_an_edit, _moved, _offered, _recover_button
from .xvfb import kill_group, popen_group, require, run, screenshot, wait_until, window_size, window_title

pytestmark = [pytest.mark.xvfb, pytest.mark.slow, pytest.mark.timeout(300)]

TOOLS = ("Xvfb", "xdotool", "openbox", "wmctrl", "import")
#: A signal ends the app within lifecycle.STOP_WITHIN_S (2 s, its watchdog's bound); the rest is the
#: time a loaded 2-core machine may take to schedule the exit and reap the process. Not a speed test:
#: an app that waits for its dialog never exits at all. Measured: 0.17-0.21 s on a loaded machine.
SIGNAL_BOUND_S = 2.0 + 2.0


class WmDesk(Desk):
    """A ``Desk`` (private Xvfb, apps in their own process groups) with Openbox managing its windows."""

    def __init__(self, tmp_path: Path) -> None:
        super().__init__(tmp_path)
        wm_home = tmp_path / "wm-home"  # Openbox's own config and cache: never the real home's
        wm_home.mkdir()
        env = dict(self.env, HOME=str(wm_home), XDG_CONFIG_HOME=str(wm_home / "config"), XDG_CACHE_HOME=str(wm_home / "cache"))
        self.wm_log = tmp_path / "openbox.log"
        self.wm: subprocess.Popen[bytes] | None = None
        try:
            with open(self.wm_log, "wb") as log:
                self.wm = popen_group(["openbox", "--sm-disable"], env=env, stdout=log, stderr=subprocess.STDOUT)
            wait_until(self._wm_running, "Openbox to manage the display", 30)
        except BaseException:
            self.close()  # no fixture teardown runs for a desk that failed to start: end its Xvfb and Openbox here
            raise

    def _wm_running(self) -> bool:
        assert self.wm is not None
        if self.wm.poll() is not None:
            pytest.fail(f"openbox exited ({self.wm.returncode}): {self.wm_log.read_text(errors='replace')[-1000:]}")
        done = subprocess.run(["wmctrl", "-m"], env=self.env, capture_output=True, text=True, timeout=20)
        return done.returncode == 0 and "Openbox" in done.stdout

    def managed(self, wid: str) -> bool:
        """Whether the window manager lists ``wid`` among its clients (it reparented and framed it)."""
        listed = run(["wmctrl", "-l"], self.env).split()
        return any(int(word, 16) == int(wid) for word in listed if word.startswith("0x"))

    def wm_close(self, wid: str) -> None:
        """The window manager's Close (EWMH ``_NET_CLOSE_WINDOW``): it sends the app WM_DELETE_WINDOW."""
        run(["wmctrl", "-i", "-c", wid], self.env)

    def alt_f4(self, wid: str) -> None:
        """Alt+F4 typed on the focused window: Openbox's own key binding closes it (the app never sees the key)."""
        run(["wmctrl", "-i", "-a", wid], self.env)  # focus it through the window manager
        wait_until(lambda: run(["xdotool", "getactivewindow"], self.env).strip() == wid, "the window focused", 30)
        run(["xdotool", "key", "alt+F4"], self.env)

    def maximise(self, wid: str, on: bool = True) -> None:
        run(["wmctrl", "-i", "-r", wid, "-b", f"{'add' if on else 'remove'},maximized_vert,maximized_horz"], self.env)

    def close(self) -> None:
        try:
            super().close()
        finally:
            kill_group(self.wm)


@pytest.fixture()
def desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WmDesk]:
    require(TOOLS)
    d = WmDesk(tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", d.env["XDG_STATE_HOME"])  # this process reads the apps' state folder
    monkeypatch.setenv("XDG_CONFIG_HOME", d.env["XDG_CONFIG_HOME"])
    try:
        yield d
    finally:
        d.close()


def _screen_size(desk: Desk) -> tuple[int, int]:
    w, h = run(["xdotool", "getdisplaygeometry"], desk.env).split()
    return int(w), int(h)


def _unsaved_dialog(size: tuple[int, int]) -> dict[str, Any]:
    """Where the "unsaved changes" dialog and its buttons are in a window of ``size`` (the same app, headless)."""
    from tabletop.app.pilot import Pilot
    from tabletop.app.widgets import UnsavedChangesDialog

    p = Pilot(DEFAULT, size=size)
    try:
        p.app._ask_unsaved("The table has unsaved changes. Save them before you quit?", lambda: None)  # as a quit with an edit asks
        p.step()
        (dialog,) = [w for w in p.app.ui.get_root_container().elements if isinstance(w, UnsavedChangesDialog) and w.alive()]
        r = dialog.rect
        return {"rect": (r.x, r.y, r.width, r.height), "save": dialog.save_button.rect.center, "cancel": dialog.cancel_button.rect.center}
    finally:
        p.close()


def _region(desk: Desk, wid: str, rect: tuple[int, int, int, int], name: str) -> np.ndarray | None:
    png = desk.tmp / f"{name}.png"
    if not screenshot(wid, png, desk.env):
        return None
    x, y, w, h = rect
    return np.asarray(Image.open(png).convert("RGB"), dtype=np.int16)[y : y + h, x : x + w]


def _table_alone(desk: Desk, wid: str, rect: tuple[int, int, int, int]) -> np.ndarray:
    """The window's pixels where the dialog will go, before it is asked."""
    return wait_until(lambda: [r for r in [_region(desk, wid, rect, "before")] if r is not None], "a screenshot", 30)[0]


def _shows_dialog(desk: Desk, wid: str, rect: tuple[int, int, int, int], before: np.ndarray) -> bool:
    """Whether the window's pixels where the dialog goes differ from ``before`` (the table alone) over
    most of the dialog: a window has been drawn there."""
    now = _region(desk, wid, rect, "now")
    return now is not None and now.shape == before.shape and float((np.abs(now - before).sum(axis=2) > 30).mean()) > 0.5


# --------------------------------------------------------------------------- (a) resize


@pytest.mark.parametrize("how", ["maximise", "resize"])
def test_a_window_manager_resize_keeps_the_recovery_question(desk: WmDesk, how: str) -> None:
    """Issue 37.3 under a window manager: maximised (then restored) or resized by Openbox while
    "Recover unsaved work" is open: the question is still there at its new place, and its Recover
    opens the crashed work; the crashed session is never dropped on the way."""
    table = desk.table()
    _crash_an_edit(desk, table)
    [crashed] = _offered()
    app, wid = desk.start()
    assert desk.managed(wid), "the window manager does not manage the app's window"
    first = window_size(wid, desk.env)
    if how == "maximise":
        desk.maximise(wid)
        wait_until(lambda: window_size(wid, desk.env)[0] == _screen_size(desk)[0], "the maximised window", 30)
        desk.maximise(wid, on=False)  # restored: a second rebuild of the widgets
        wait_until(lambda: window_size(wid, desk.env) == first, "the restored window", 30)
        desk.maximise(wid)
        wait_until(lambda: window_size(wid, desk.env)[0] == _screen_size(desk)[0], "the maximised window", 30)
    else:
        run(["wmctrl", "-i", "-r", wid, "-e", "0,40,40,1000,700"], desk.env)  # the window manager moves and resizes it
        wait_until(lambda: window_size(wid, desk.env) == (1000, 700), "the resized window", 30)
    size = window_size(wid, desk.env)
    assert size != first
    assert app.poll() is None and autosave.session_dir(crashed.session or "").exists(), "the crashed work was dropped on the resize"
    desk.click(wid, _recover_button(size, crashed))
    name = f" — {table.name} — Tabletop"
    wait_until(lambda: window_title(wid, desk.env).startswith("•") and window_title(wid, desk.env).endswith(name), "the recovered table in the title", 60)
    # Closed through the window manager now: the recovered, unsaved table is asked about; SIGTERM then keeps
    # it, offered once even when the signal lands before this session's autosave holds the work.
    desk.wm_close(wid)
    app.send_signal(signal.SIGTERM)
    code, took = desk.wait_exit(app)
    assert code == 128 + signal.SIGTERM, desk.stderr(app)
    [kept] = _offered()
    assert kept.original_path == str(table) and _moved(kept) and load(table) == load(DEFAULT)


# --------------------------------------------------------------------------- (b) close


@pytest.mark.parametrize("how", ["wmctrl", "alt+F4"])
def test_closing_through_the_window_manager_asks_and_loses_nothing(desk: WmDesk, how: str) -> None:
    """The window closed by the window manager with an unsaved edit: the app asks (it does not quit,
    nor lose the edit); Cancel keeps the app and its autosave; closed again and Save chosen, the
    edit is in the file, the app exits 0 and leaves no autosave behind."""
    table = desk.table()
    app, wid = desk.start(str(table))
    desk.drag_model(wid)
    wait_until(_autosave_with_moved_sgt, "the autosave of the edit", 60)
    size = window_size(wid, desk.env)
    where = _unsaved_dialog(size)
    table_alone = _table_alone(desk, wid, where["rect"])
    close = desk.wm_close if how == "wmctrl" else desk.alt_f4

    close(wid)
    wait_until(lambda: _shows_dialog(desk, wid, where["rect"], table_alone), "the unsaved-changes question", 30)
    assert app.poll() is None, "the app quit with unsaved changes"
    desk.click(wid, where["cancel"])
    wait_until(lambda: not _shows_dialog(desk, wid, where["rect"], table_alone), "the question closed by Cancel", 30)
    assert app.poll() is None and window_title(wid, desk.env).startswith("•")
    assert _autosave_with_moved_sgt() is not None and load(table) == load(DEFAULT)

    close(wid)
    wait_until(lambda: _shows_dialog(desk, wid, where["rect"], table_alone), "the question, asked again", 30)
    desk.click(wid, where["save"])
    code, _ = desk.wait_exit(app)
    assert code == 0, desk.stderr(app)
    assert load(table).model("sgt").centre != load(DEFAULT).model("sgt").centre, "the edit is not in the saved file"
    assert _offered() == [] and list(autosave.sessions_dir().iterdir()) == []


# --------------------------------------------------------------------------- (c) SIGTERM


@pytest.mark.parametrize("asking", [False, True], ids=["editing", "while asking"])
def test_sigterm_under_a_window_manager_keeps_the_table_within_the_bound(desk: WmDesk, asking: bool) -> None:
    """SIGTERM with an unsaved edit (also while the window manager's close has the unsaved-changes
    question open): the app exits with 128 + 15 within the 2 s bound, never waiting for the
    question, and the table is in an emergency copy offered at the next start."""
    table = desk.table()
    app, wid = desk.start(str(table))
    desk.drag_model(wid)
    if asking:
        where = _unsaved_dialog(window_size(wid, desk.env))
        table_alone = _table_alone(desk, wid, where["rect"])
        desk.wm_close(wid)
        wait_until(lambda: _shows_dialog(desk, wid, where["rect"], table_alone), "the unsaved-changes question", 30)
    app.send_signal(signal.SIGTERM)
    code, took = desk.wait_exit(app)
    print(f"SIGTERM under Openbox ({'asking' if asking else 'editing'}): exited in {took:.2f} s")
    err = desk.stderr(app)
    assert code == 128 + signal.SIGTERM, err
    assert took < SIGNAL_BOUND_S, f"SIGTERM took {took:.2f} s to end the app"
    [kept] = _offered()
    assert kept.emergency is not None and kept.emergency.exists() and str(kept.emergency) in err
    assert kept.error is not None and "SIGTERM" in kept.error
    assert kept.original_path == str(table) and _moved(kept) and load(table) == load(DEFAULT)


# --------------------------------------------------------------------------- (d) a second instance


def test_a_second_instance_closed_through_the_window_manager_leaves_the_firsts_work(desk: WmDesk) -> None:
    """Issue 37.1 under a window manager: A edits; B starts beside it (no offer: A is running) and is
    closed cleanly through the window manager; A's autosave is still there. A is then killed: the
    next start offers A's work, and its Recover button opens it."""
    a_table, b_table = desk.table("a"), desk.table("b")
    a, a_wid = desk.start(str(a_table))
    desk.drag_model(a_wid)
    a_saved = wait_until(_autosave_with_moved_sgt, "A's autosave", 60)
    b, b_wid = desk.start(str(b_table))
    assert b_wid != a_wid and desk.managed(a_wid) and desk.managed(b_wid)
    assert not window_title(b_wid, desk.env).startswith("•")
    desk.wm_close(b_wid)
    assert desk.wait_exit(b)[0] == 0, desk.stderr(b)
    assert a_saved.exists(), "B's clean quit deleted A's autosave"
    assert a.poll() is None and window_title(a_wid, desk.env).startswith("•")
    kill_group(a, grace_s=0)
    [crashed] = _offered()
    assert crashed.original_path == str(a_table) and _moved(crashed)
    c, c_wid = desk.start()
    desk.click(c_wid, _recover_button(window_size(c_wid, desk.env), crashed))
    wait_until(lambda: window_title(c_wid, desk.env).startswith("•") and window_title(c_wid, desk.env).endswith(f" — {a_table.name} — Tabletop"),
               "A's table recovered in C", 60)
    kill_group(c, grace_s=0)
