"""Crash recovery, for real: real app windows under Xvfb, driven with the mouse (xdotool), closed as a
window manager closes them (WM_DELETE_WINDOW), resized by an X request, stopped by signals and
killed; a second instance beside the first; the work each left is looked for at the next start.

Every app is started in a process group of its own and the group is killed in teardown, whatever
happens (``tests/xvfb.py``'s ``popen_group``/``kill_group``). Nothing sleeps for a fixed time: each
step waits for something the app does (its window, its title, its autosave, its exit).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabletop.app import autosave
from tabletop.scenario_io import load

from .conftest import ROOT, SCENARIOS
from .xvfb import app_command, app_env, close_window, kill_group, popen_group, require, run, start_xvfb, stop, wait_until, window_size, window_title

TOOLS = ("Xvfb", "xdotool")
DEFAULT = SCENARIOS / "default.toml"

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
    proc = popen_group([sys.executable, "-c", APP, str(table)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().split()
        assert line[0] == "moved" and float(line[1]) > 50  # the blast moved some 120 px to the right
        assert [p.name for p in autosave.state_dir().rglob("*") if p.name in ("autosave.toml", "running.json")] != []
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        kill_group(proc)
    recovery = autosave.find_recovery()
    assert recovery is not None, "a crash with unsaved work must be offered back"
    recovered = autosave.load_recovery(recovery)
    original = load(table)
    assert recovered.template("blast").placement != original.template("blast").placement
    assert load(table) == original  # the file itself was never touched


# --------------------------------------------------------------------------- real windows


def _as_from_a_terminal(ignore_sigint: bool) -> None:
    """In the app's process before it starts: SIGHUP as a terminal leaves it (default), whatever the test
    run inherited: under ``nohup`` it is ignored, and the app rightly keeps ignoring it, so the SIGHUP case
    waited 60 s for an exit that never came. SIGINT ignored only when the case asks for it."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    if ignore_sigint:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


class Desk:
    """A private X display, the apps started on it (each killed with its group in teardown), and
    the state folder they share with this test process."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.xvfb, self.display = start_xvfb()
        self.env = app_env(self.display, "tabletop-recovery-test", tmp_path)
        self.apps: list[subprocess.Popen[bytes]] = []
        self.errors: dict[int, Path] = {}

    def table(self, name: str = "table") -> Path:
        path = self.tmp / f"{name}.toml"
        shutil.copy(DEFAULT, path)
        return path

    def start(self, *args: str, ignore_sigint: bool = False) -> tuple[subprocess.Popen[bytes], str]:
        """An app on ``args``; returns once its window shows its title (the app is built: any
        recovery dialog is open by then)."""
        err = self.tmp / f"stderr-{len(self.apps)}.txt"
        with open(err, "wb") as out:
            # stderr to a file: the odds worker inherits the app's pipes, a pipe would outlive the app.
            app = popen_group(app_command(*args), env=self.env, cwd=str(self.tmp), stdout=subprocess.DEVNULL, stderr=out,
                              preexec_fn=lambda: _as_from_a_terminal(ignore_sigint))
        self.apps.append(app)
        self.errors[app.pid] = err
        seen: dict[str, str] = {}

        def titled() -> str | None:
            # By title, not the first window found: under load SDL's first window can be replaced by another.
            if app.poll() is not None:
                pytest.fail(f"the app exited ({app.returncode}): {self.stderr(app)[-2000:]}")
            found = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(app.pid)], env=self.env, capture_output=True, text=True, timeout=20)
            seen.update({w: window_title(w, self.env) for w in found.stdout.split()})
            return next((w for w in found.stdout.split() if seen[w].endswith("Tabletop")), None)

        try:
            wid = wait_until(titled, "the app's titled window", 120)  # generous: a loaded 2-core machine starts it slowly
        except pytest.fail.Exception:
            pytest.fail(f"no titled window after 120 s (seen {seen!r}); stderr: {self.stderr(app)[-2000:]}")
        return app, wid

    def stderr(self, app: subprocess.Popen[bytes]) -> str:
        return self.errors[app.pid].read_text(errors="replace")

    def wait_exit(self, app: subprocess.Popen[bytes], timeout: float = 60.0) -> tuple[int, float]:
        """The app's exit code and how long it took to exit (s)."""
        start = time.monotonic()
        try:
            code = app.wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the app did not exit within {timeout:.0f} s: {self.stderr(app)[-2000:]}")
        return code, time.monotonic() - start

    def drag_model(self, wid: str, model_id: str = "sgt", dx: int = 90) -> None:
        """Drag a model of the default table ``dx`` px to the right with the mouse; returns once the
        title says the table has unsaved changes."""
        from tabletop.app.layout import view_rect_for
        from tabletop.viewport import Viewport

        table = load(DEFAULT)
        view = view_rect_for(window_size(wid, self.env))
        vp = Viewport.fit(table.table.width, table.table.depth, view, margin_px=36)
        m = table.model(model_id)
        x, y = (round(v) for v in vp.to_screen(m.x, m.y))
        steps = ["xdotool", "mousemove", "--window", wid, str(x), str(y), "sleep", "0.2", "mousedown", "1", "sleep", "0.2"]
        for i in range(1, 7):
            steps += ["mousemove", "--window", wid, str(x + dx * i // 6), str(y), "sleep", "0.05"]
        steps += ["sleep", "0.2", "mouseup", "1"]
        run(steps, self.env)
        wait_until(lambda: window_title(wid, self.env).startswith("•"), "the edit (a • in the title)", 30)

    def click(self, wid: str, pos: tuple[int, int]) -> None:
        run(["xdotool", "mousemove", "--window", wid, str(pos[0]), str(pos[1]), "sleep", "0.3", "click", "1"], self.env)

    def close(self) -> None:
        for app in self.apps:
            kill_group(app)
        stop(self.xvfb)


@pytest.fixture()
def desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Desk]:
    require(TOOLS)
    d = Desk(tmp_path)
    # This test process reads the same state folder as the apps it starts.
    monkeypatch.setenv("XDG_STATE_HOME", d.env["XDG_STATE_HOME"])
    monkeypatch.setenv("XDG_CONFIG_HOME", d.env["XDG_CONFIG_HOME"])
    try:
        yield d
    finally:
        d.close()


def _autosaves() -> list[Path]:
    return sorted(autosave.state_dir().rglob("autosave.toml")) if autosave.state_dir().exists() else []


def _autosave_with_moved_sgt(before: set[Path] = frozenset()) -> Path | None:  # type: ignore[assignment]
    """An autosave (not among ``before``) that holds the sergeant moved."""
    sgt = load(DEFAULT).model("sgt")
    for path in _autosaves():
        if path in before:
            continue
        try:
            if load(path).model("sgt").centre != sgt.centre:
                return path
        except Exception:  # noqa: BLE001 - being written
            continue
    return None


def _crash_an_edit(desk: Desk, table: Path) -> Path:
    """An app edits ``table`` (the sergeant dragged), autosaves it, and is killed; its autosave."""
    before = set(_autosaves())
    app, wid = desk.start(str(table))
    desk.drag_model(wid)
    saved = wait_until(lambda: _autosave_with_moved_sgt(before), "the autosave of the edit", 60)
    kill_group(app, grace_s=0)
    return saved


def _offered() -> list[autosave.Recovery]:
    return autosave.find_recoveries(claim=False)


def _moved(recovery: autosave.Recovery) -> bool:
    return autosave.load_recovery(recovery).model("sgt").centre != load(DEFAULT).model("sgt").centre


@pytest.mark.slow
@pytest.mark.xvfb
@pytest.mark.timeout(300)
def test_a_second_instance_never_takes_the_first_ones_work(desk: Desk) -> None:
    """Issue 37.1: two instances, each its own autosave; a clean quit of one leaves the other's; every
    crashed session is offered at the next start, and closing that start keeps them all."""
    a_table, b_table = desk.table("a"), desk.table("b")
    a, a_wid = desk.start(str(a_table))
    desk.drag_model(a_wid)
    a_saved = wait_until(_autosave_with_moved_sgt, "A's autosave", 60)
    b, b_wid = desk.start(str(b_table))
    assert not window_title(b_wid, desk.env).startswith("•")  # B offers nothing: A is running
    close_window(b_wid, desk.display)  # as the window manager's close button: B has nothing unsaved
    assert desk.wait_exit(b)[0] == 0
    assert a_saved.exists(), "B's clean quit deleted A's autosave"
    # B again, with an edit of its own this time; then both crash.
    b, b_wid = desk.start(str(b_table))
    desk.drag_model(b_wid)
    wait_until(lambda: _autosave_with_moved_sgt({a_saved}), "B's autosave", 60)
    kill_group(a, grace_s=0)
    kill_group(b, grace_s=0)
    offered = _offered()
    assert sorted(r.original_path for r in offered) == sorted([str(a_table), str(b_table)]) and all(_moved(r) for r in offered)
    # A third start offers both (holding their locks meanwhile); closing it keeps both.
    c, c_wid = desk.start()
    assert _offered() == [], "while C offers them, another instance does not offer them too"
    close_window(c_wid, desk.display)
    assert desk.wait_exit(c)[0] == 0
    assert sorted(r.original_path for r in _offered()) == sorted([str(a_table), str(b_table)])


@pytest.mark.slow
@pytest.mark.xvfb
@pytest.mark.timeout(240)
@pytest.mark.parametrize("how", ["window_close", "sigterm"])
def test_closing_the_app_while_recovery_is_offered_keeps_the_work(desk: Desk, how: str) -> None:
    """Issue 37.2: the window closed (WM_DELETE_WINDOW) or SIGTERM while "Recover unsaved work" is open."""
    table = desk.table()
    _crash_an_edit(desk, table)
    assert len(_offered()) == 1
    app, wid = desk.start()  # offers the crashed work
    if how == "window_close":
        close_window(wid, desk.display)
        code, took = desk.wait_exit(app)
        assert code == 0, desk.stderr(app)
    else:
        app.send_signal(signal.SIGTERM)
        code, took = desk.wait_exit(app)
        assert code == 128 + signal.SIGTERM, desk.stderr(app)
        assert "kept in" not in desk.stderr(app)  # its own table had nothing unsaved: no emergency copy
    print(f"{how}: exited in {took:.2f} s")
    offered = _offered()
    assert len(offered) == 1 and offered[0].original_path == str(table) and _moved(offered[0])
    assert len(list(autosave.sessions_dir().iterdir())) == 1  # the closed app's own (clean) session is gone


def _recover_button(size: tuple[int, int], recovery: autosave.Recovery) -> tuple[int, int]:
    """Where the recovery dialog's Recover button is in a window of ``size`` (the same app, headless)."""
    from tabletop.app.pilot import Pilot
    from tabletop.app.recovery_dialog import RecoveryDialog

    p = Pilot(DEFAULT, size=size, recovery=recovery)
    try:
        (dialog,) = [w for w in p.app.ui.get_root_container().elements if isinstance(w, RecoveryDialog) and w.alive()]
        return dialog.recover_button.rect.center
    finally:
        p.close()


@pytest.mark.slow
@pytest.mark.xvfb
@pytest.mark.timeout(240)
def test_a_resize_keeps_the_recovery_question_and_sigterm_keeps_the_recovered_work(desk: Desk) -> None:
    """Issue 37.3: the window resized by an X request (as a window manager's maximise or tiling does)
    while "Recover unsaved work" is open: the question is still there, at its new place; Recover
    opens the work; SIGTERM then keeps it in an emergency copy, without a question (issue 33.2)."""
    table = desk.table()
    _crash_an_edit(desk, table)
    [crashed] = _offered()
    app, wid = desk.start()
    assert window_size(wid, desk.env) != (1000, 700)
    run(["xdotool", "windowsize", wid, "1000", "700"], desk.env)
    wait_until(lambda: window_size(wid, desk.env) == (1000, 700), "the resize", 30)
    desk.click(wid, _recover_button((1000, 700), crashed))
    name = f" — {table.name} — Tabletop"
    wait_until(lambda: window_title(wid, desk.env).startswith("•") and window_title(wid, desk.env).endswith(name), "the recovered table in the title", 60)
    wait_until(lambda: not autosave.session_dir(crashed.session or "").exists(), "the crashed session handed over", 30)
    app.send_signal(signal.SIGTERM)
    code, took = desk.wait_exit(app)
    print(f"SIGTERM with the recovered table: exited in {took:.2f} s")
    assert code == 128 + signal.SIGTERM
    [kept] = _offered()
    assert kept.emergency is not None and str(kept.emergency) in desk.stderr(app)
    assert kept.original_path == str(table) and _moved(kept) and load(table) == load(DEFAULT)


@pytest.mark.slow
@pytest.mark.xvfb
@pytest.mark.timeout(240)
@pytest.mark.parametrize("how", ["SIGINT", "SIGINT ignored at start", "SIGTERM", "SIGHUP"])
def test_a_signal_keeps_the_unsaved_table_and_never_asks(desk: Desk, how: str) -> None:
    """Issue 33.2: Ctrl+C (SIGINT), SIGTERM or SIGHUP with unsaved edits: the emergency copy is written
    and the app exits at once (the watchdog's bound is 2 s), never asking. A run started with SIGINT
    ignored (a background job, some CI runners) stops on it too."""
    sig = getattr(signal, how.split()[0])
    table = desk.table()
    app, wid = desk.start(str(table), ignore_sigint=how.endswith("ignored at start"))
    desk.drag_model(wid)
    app.send_signal(sig)
    code, took = desk.wait_exit(app)
    print(f"{how}: exited in {took:.2f} s")
    err = desk.stderr(app)
    assert code == 128 + sig, err
    [kept] = _offered()
    assert kept.emergency is not None and str(kept.emergency) in err and kept.error is not None and signal.Signals(sig).name in kept.error
    assert kept.original_path == str(table) and _moved(kept)
    assert load(table) == load(DEFAULT)  # the file itself was never touched


@pytest.mark.slow
@pytest.mark.xvfb
@pytest.mark.timeout(240)
def test_a_signal_with_nothing_unsaved_is_a_clean_quit(desk: Desk) -> None:
    app, wid = desk.start(str(desk.table()))
    app.send_signal(signal.SIGTERM)
    code, took = desk.wait_exit(app)
    print(f"SIGTERM, nothing unsaved: exited in {took:.2f} s")
    assert code == 128 + signal.SIGTERM
    assert _offered() == [] and list(autosave.sessions_dir().iterdir()) == []
    assert not list(autosave.state_dir().glob("emergency-*"))


@pytest.mark.slow
@pytest.mark.xvfb
@pytest.mark.timeout(240)
def test_a_reused_pid_does_not_hide_a_crash(desk: Desk) -> None:
    """Issue 37.4: the crashed run's pid now belongs to a live process (here: the X server), as after a
    reboot: the work is still offered; a live Tabletop's session is not."""
    table = desk.table()
    _crash_an_edit(desk, table)
    for marker in autosave.state_dir().rglob("running.json"):
        info = json.loads(marker.read_text())
        marker.write_text(json.dumps({**info, "pid": desk.xvfb.pid}))
    offered = _offered()
    assert len(offered) == 1 and offered[0].original_path == str(table), "a live process under the crashed run's pid hid the crash"
    app, wid = desk.start(str(desk.table("other")))
    assert len(_offered()) == 0  # the running app offers it (holding its lock), and its own session is not a crash
    sessions = {p.name for p in autosave.sessions_dir().iterdir()}
    assert len(sessions) == 2
    close_window(wid, desk.display)
    assert desk.wait_exit(app)[0] == 0
    assert [r.session for r in _offered()] == [offered[0].session]
