"""Durable saves proven by construction.

A kill test cannot see a missing ``fsync``: a killed process's written pages stay in the
kernel's cache and reach the disk anyway; only a power cut or a kernel crash loses them.
So the order of system calls is checked with spies (write -> fsync(file) -> replace ->
fsync(folder)), failures are injected part-way through a write, every writer in the
project is shown to go through :mod:`tabletop.atomic`, and a save is shown to remove
the autosave so that a crash after it offers nothing back.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabletop import atomic, scenario_io

from .scenario_compare import differences
from .conftest import ROOT, SCENARIOS
from .faults import FullDisk

DEFAULT = SCENARIOS / "default.toml"
OLD = b"old contents\n"
NEW = b"new contents, longer than the old ones\n" * 50


class Spy:
    """Records fsync (which inode, a folder or a file, its size and the target's bytes then) and replace."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
        self.target = target
        self.events: list[tuple[Any, ...]] = []
        real_fsync, real_replace = os.fsync, os.replace

        def fsync(fd: int) -> None:
            st = os.fstat(fd)
            self.events.append(("fsync", st.st_ino, stat.S_ISDIR(st.st_mode), st.st_size, self._target_bytes()))
            real_fsync(fd)

        def replace(src: Any, dst: Any) -> None:
            self.events.append(("replace", os.stat(src).st_ino, Path(dst), os.stat(src).st_size))
            real_replace(src, dst)

        monkeypatch.setattr(atomic.os, "fsync", fsync)
        monkeypatch.setattr(atomic.os, "replace", replace)

    def _target_bytes(self) -> bytes | None:
        return self.target.read_bytes() if self.target.exists() else None


def _check_order(spy: Spy, target: Path, old: bytes | None, size: int) -> None:
    """write -> fsync(the new file, whole) -> replace(it, target) -> fsync(target's folder); the
    target keeps its old bytes until the rename."""
    kinds = [e[0] for e in spy.events]
    assert kinds.count("replace") == 1, spy.events
    r = kinds.index("replace")
    _, new_ino, dst, replaced_size = spy.events[r]
    assert dst == target and replaced_size == size
    file_syncs = [e for e in spy.events[:r] if e[0] == "fsync" and e[1] == new_ino and not e[2]]
    assert file_syncs, "the new file was never fsynced before the rename"
    assert all(e[3] == size for e in file_syncs), "fsync before the whole file was written"
    assert all(e[4] == old for e in spy.events[:r] if e[0] == "fsync"), "the target changed before the rename: written in place"
    folder_ino = os.stat(target.parent).st_ino
    assert [e for e in spy.events[r + 1 :] if e[0] == "fsync" and e[1] == folder_ino and e[2]], "the folder was not fsynced after the rename"
    assert not [e for e in spy.events[:r] if e[0] == "fsync" and e[2]], "the folder was fsynced before the rename (too early)"


@pytest.mark.parametrize("existing", [True, False], ids=["replaces", "creates"])
def test_atomic_write_writes_syncs_renames_then_syncs_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, existing: bool) -> None:
    target = tmp_path / "table.toml"
    if existing:
        target.write_bytes(OLD)
    old_ino = target.stat().st_ino if existing else None
    spy = Spy(monkeypatch, target)
    atomic.atomic_write(target, NEW)
    _check_order(spy, target, OLD if existing else None, len(NEW))
    assert target.read_bytes() == NEW and target.stat().st_ino != old_ino  # a new file renamed over, not rewritten
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.toml"]


def test_replacing_a_file_an_encoder_wrote_syncs_and_renames_the_same_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "view.png"
    target.write_bytes(OLD)
    spy = Spy(monkeypatch, target)
    with atomic.replacing(target) as tmp:
        tmp.write_bytes(NEW)  # an encoder that never fsyncs itself
    _check_order(spy, target, OLD, len(NEW))
    assert target.read_bytes() == NEW


# --------------------------------------------------------------------------- failures part-way


def _fail_on(where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    enospc = OSError(errno.ENOSPC, "No space left on device")
    if where == "write":
        monkeypatch.setattr(atomic, "open", lambda path, mode="r", *a, **k: FullDisk(path, mode) if "w" in mode else open(path, mode, *a, **k), raising=False)
    elif where == "fsync":
        real = os.fsync

        def fsync(fd: int) -> None:
            if not stat.S_ISDIR(os.fstat(fd).st_mode):
                raise enospc
            real(fd)

        monkeypatch.setattr(atomic.os, "fsync", fsync)
    else:

        def replace(src: Any, dst: Any) -> None:
            raise enospc

        monkeypatch.setattr(atomic.os, "replace", replace)


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
@pytest.mark.parametrize("existing", [True, False], ids=["old-file", "no-file"])
def test_a_failure_part_way_keeps_the_old_file_and_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, existing: bool) -> None:
    target = tmp_path / "table.toml"
    if existing:
        target.write_bytes(OLD)
        target.chmod(0o640)
    before = target.stat() if existing else None
    _fail_on(where, monkeypatch)
    with pytest.raises(atomic.OutputError) as caught:
        atomic.atomic_write(target, NEW)
    assert str(caught.value) == f"{target}: cannot write: No space left on device"
    if existing:
        assert target.read_bytes() == OLD and target.stat().st_ino == before.st_ino and stat.S_IMODE(target.stat().st_mode) == 0o640
        assert sorted(p.name for p in tmp_path.iterdir()) == ["table.toml"]
    else:
        assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_a_save_that_fails_part_way_keeps_the_saved_scenario(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    target = tmp_path / "table.toml"
    shutil.copy(DEFAULT, target)
    old = target.read_bytes()
    other = scenario_io.load(SCENARIOS / "robotech-scatter.toml")
    _fail_on(where, monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        scenario_io.save(other, target)
    assert target.read_bytes() == old and sorted(p.name for p in tmp_path.iterdir()) == ["table.toml"]


def test_a_failing_folder_fsync_does_not_fail_a_save_that_is_already_renamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Some file systems cannot sync a folder: the rename has happened, so the save stands."""
    real = os.fsync

    def fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "Invalid argument")
        real(fd)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    atomic.atomic_write(tmp_path / "a.toml", NEW)
    assert (tmp_path / "a.toml").read_bytes() == NEW


# --------------------------------------------------------------------------- every writer goes through tabletop.atomic


@pytest.fixture()
def writes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """The paths written through ``tabletop.atomic.replacing`` (the one writer)."""
    seen: list[Path] = []
    real = atomic.replacing

    def recording(path: Path | str, *args: Any, **kwargs: Any):  # type: ignore[no-untyped-def]
        seen.append(Path(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(atomic, "replacing", recording)
    yield seen


def _replaced(path: Path, write: Any) -> None:
    """``write()`` replaces ``path`` by a new file (a new inode), not by rewriting it."""
    path.write_bytes(OLD)
    ino = path.stat().st_ino
    write()
    assert path.read_bytes() != OLD and path.stat().st_ino != ino


def test_scenario_io_save_and_atomic_write_go_through_the_atomic_writer(tmp_path: Path, writes: list[Path]) -> None:
    s = scenario_io.load(DEFAULT)
    toml, js, raw = tmp_path / "a.toml", tmp_path / "a.json", tmp_path / "a.bin"
    _replaced(toml, lambda: scenario_io.save(s, toml))
    _replaced(js, lambda: scenario_io.save(s, js))
    _replaced(raw, lambda: scenario_io.atomic_write(raw, b"xyz"))
    assert writes == [toml, js, raw]
    assert differences(scenario_io.load(toml), s) == [] and differences(scenario_io.load(js), s) == []


def test_render_writes_its_png_through_the_atomic_writer(tmp_path: Path, writes: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop import cli

    png = tmp_path / "t.png"
    _replaced(png, lambda: cli.main(["render", str(DEFAULT), "-o", str(png), "--size", "200x150"]))
    assert writes == [png] and png.read_bytes().startswith(b"\x89PNG")


def test_the_apps_save_export_and_autosave_go_through_the_atomic_writer(tmp_path: Path, writes: list[Path]) -> None:
    from tabletop.app import autosave
    from tabletop.app.pilot import Pilot
    from tabletop.app.state import MoveModel

    table = tmp_path / "table.toml"
    shutil.copy(DEFAULT, table)
    p = Pilot(table, autosave=True)
    try:
        assert writes == [p.app.autosaver.marker_path]  # the "running" marker (the lock file is not replaced, only held)
        writes.clear()
        sgt = p.app.scenario.model("sgt")
        p.app.dispatch(MoveModel("sgt", sgt.x + 10, sgt.y))
        assert p.app.autosaver.flush()
        assert writes == [p.app.autosaver.autosave_path]
        writes.clear()
        _replaced(table, lambda: p.app.save(replace=True))  # the test itself changed the file on disk: no question
        png = tmp_path / "view.png"
        _replaced(png, lambda: p.app.export_png(str(png)))
        assert writes == [table, png]
        writes.clear()
        copy = p.app.crash(RuntimeError("boom"))
        assert copy is not None and writes == [copy, p.app.autosaver.marker_path]
        assert differences(scenario_io.load(copy), p.app.scenario) == []
    finally:
        p.close()


# --------------------------------------------------------------------------- a save removes the autosave


def test_autosaver_clean_deletes_the_autosave() -> None:
    from tabletop.app import autosave

    saver = autosave.Autosaver(debounce_s=0.0)
    saver.start("t.toml")
    saver.changed(scenario_io.load(DEFAULT), 0.0)
    assert saver.tick(0.0) and saver.autosave_path.exists()
    saver.clean()
    assert not saver.autosave_path.exists() and saver.marker_path.exists()
    assert not saver.tick(100.0)  # nothing pending after a save
    assert not saver.flush() and saver.failures == 0 and saver.last_error is None


def test_a_save_removes_the_autosave_and_a_crash_after_it_offers_nothing_back(tmp_path: Path) -> None:
    from tabletop.app import autosave
    from tabletop.app.pilot import Pilot

    table = tmp_path / "table.toml"
    shutil.copy(DEFAULT, table)
    p = Pilot(table, autosave=True)
    try:
        start = p.screen_of(p.app.scenario.model("sgt").centre)
        p.drag(start, (start[0] + 40, start[1]))
        edited = p.app.scenario
        p.step(int(2.2 * 60))  # the debounced autosave fires
        saver = p.app.autosaver
        assert differences(scenario_io.load(saver.autosave_path), edited) == []
        assert p.app.save()
        assert not saver.autosave_path.exists()  # saved: nothing left to recover
        p.step(int(2.2 * 60))  # and no new autosave of the saved table
        assert not saver.autosave_path.exists() and saver.marker_path.exists()
        assert differences(scenario_io.load(table), edited) == []
    finally:
        p.close()  # closing the pilot is not quitting: the marker stays and the lock goes, as after a crash
    assert autosave.find_recovery() is None


def test_a_crash_with_unsaved_work_after_a_save_offers_only_that_work(tmp_path: Path) -> None:
    """The counterpart: an edit after the save is autosaved and offered back (the test above is not vacuous)."""
    from tabletop.app import autosave
    from tabletop.app.pilot import Pilot

    table = tmp_path / "table.toml"
    shutil.copy(DEFAULT, table)
    p = Pilot(table, autosave=True)
    try:
        start = p.screen_of(p.app.scenario.model("sgt").centre)
        p.drag(start, (start[0] + 40, start[1]))
        assert p.app.save()
        p.drag((start[0] + 40, start[1]), (start[0] + 40, start[1] + 40))
        edited = p.app.scenario
        p.step(int(2.2 * 60))
    finally:
        p.close()  # its lock goes, as when the process dies
    rec = autosave.find_recovery()
    assert rec is not None and rec.original_path == str(table)
    assert differences(autosave.load_recovery(rec), edited) == [] and differences(scenario_io.load(table), edited) != []


# --------------------------------------------------------------------------- a kill at each step of a save

KILLED_WRITER = """
import os, sys, time
from tabletop import atomic, scenario_io
path, where = sys.argv[1], sys.argv[2]
scenario = scenario_io.load(sys.argv[3])
real_open, real_fsync, real_replace = open, os.fsync, os.replace

def stop_here(step):
    print(step, flush=True)
    time.sleep(600)  # the test kills us here

class HalfWritten:
    def __init__(self, f): self.f = f
    def __enter__(self): return self
    def __exit__(self, *exc): self.f.close()
    def write(self, data):
        self.f.write(data[: len(data) // 2]); self.f.flush()
        stop_here("write")
    def __getattr__(self, name): return getattr(self.f, name)

def opening(file, mode="r", *a, **k):
    f = real_open(file, mode, *a, **k)
    return HalfWritten(f) if where == "write" and "w" in mode else f

def fsync(fd):
    real_fsync(fd)
    if where == "fsync":
        stop_here("fsync")

def replace(src, dst):
    if where == "before-replace":
        stop_here("before-replace")
    real_replace(src, dst)
    if where == "after-replace":
        stop_here("after-replace")

atomic.open = opening
atomic.os.fsync = fsync
atomic.os.replace = replace
scenario_io.save(scenario, path)
print("finished", flush=True)
"""


@pytest.mark.parametrize(("where", "result"), [("write", "old"), ("fsync", "old"), ("before-replace", "old"), ("after-replace", "new")])
def test_a_save_killed_at_each_step_leaves_one_whole_version(tmp_path: Path, where: str, result: str) -> None:
    """The writer is stopped at a chosen step (half the bytes written; in the first fsync; just before
    and just after the rename) and killed there: the file is the old version or the new, whole. A writer
    that wrote in place would leave half a file at "write"; one that bypassed the hooks never reaches them."""
    import signal

    target = tmp_path / "table.toml"
    shutil.copy(DEFAULT, target)
    old = target.read_bytes()
    new_source = SCENARIOS / "robotech-scatter.toml"
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(target), where, str(new_source)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == where  # stopped where asked, not finished
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    if result == "old":
        assert target.read_bytes() == old
    else:
        assert scenario_io.load(target) == scenario_io.load(new_source)


# --------------------------------------------------------------------------- the autosaver, piece by piece


def _dead_pid() -> int:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    return dead.pid


def test_the_debounce_counts_from_the_first_change_and_fires_exactly_at_its_end() -> None:
    from tabletop.app import autosave

    s = scenario_io.load(DEFAULT)
    saver = autosave.Autosaver(debounce_s=2.0)
    saver.changed(s, 10.0)
    saver.changed(s, 11.5)  # the same document again: the debounce is not pushed back
    assert not saver.tick(11.999)
    assert saver.tick(12.0) and saver.saves == 1 and saver.last_error is None
    assert differences(scenario_io.load(saver.autosave_path), s) == []
    saver.changed(s, 20.0)  # already written: nothing pending
    assert not saver.tick(30.0) and saver.saves == 1


def test_a_failed_autosave_is_counted_named_and_not_retried_until_the_next_edit(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.app import autosave

    s = scenario_io.load(DEFAULT)
    saver = autosave.Autosaver(debounce_s=0.0)
    writes = autosave.atomic_write

    def full(path: Any, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device: " + "x" * 200)

    monkeypatch.setattr(autosave, "atomic_write", full)
    saver.changed(s, 0.0)
    assert not saver.tick(0.0)
    assert saver.failures == 1 and saver.saves == 0
    shown = "[Errno 28] No space left on device: " + "x" * 83 + "…"  # cut to 120 characters
    assert saver.last_error == f"autosave failed (OSError: {shown}); there is no autosave of this table yet" and len(shown) == 120  # nothing was autosaved before
    saver.changed(s, 1.0)  # the same document: not retried
    assert not saver.tick(5.0) and saver.failures == 1
    monkeypatch.setattr(autosave, "atomic_write", writes)  # the disk has room again
    s2 = dataclass_replace(s, title="edited")
    saver.changed(s2, 6.0)  # the next edit is written
    assert saver.tick(6.0) and saver.last_error is None and scenario_io.load(saver.autosave_path).title == "edited"


def dataclass_replace(obj: Any, **changes: Any) -> Any:
    import dataclasses

    return dataclasses.replace(obj, **changes)


def test_a_disabled_autosaver_writes_nothing() -> None:
    from tabletop.app import autosave

    saver = autosave.Autosaver(debounce_s=0.0, enabled=False)
    saver.start("t.toml")
    s = scenario_io.load(DEFAULT)
    saver.changed(s, 0.0)
    assert not saver.tick(10.0) and not saver.flush()
    assert saver.emergency(s, RuntimeError("x")) is None
    saver.stop()
    assert not autosave.state_dir().exists() or list(autosave.state_dir().iterdir()) == []


def _session(marker: object, autosave_text: str | None = "format = 1\n", name: str = "20240101-000000-1-abc") -> str:
    """A session folder as a run leaves it, without a lock file (as on a system that cannot lock)."""
    from tabletop.app import autosave

    folder = autosave.session_dir(name)
    folder.mkdir(parents=True, exist_ok=True)
    autosave.marker_path(name).write_text(marker if isinstance(marker, str) else json.dumps(marker))
    if autosave_text is not None:
        autosave.autosave_path(name).write_text(autosave_text)
    return name


def test_recovery_is_offered_exactly_when_a_session_that_is_over_left_work_or_an_error(tmp_path: Path) -> None:
    from tabletop.app import autosave

    s = scenario_io.load(DEFAULT)
    assert autosave.find_recovery() is None  # no session
    auto = autosave.autosave_path("a")
    for pid in (os.getpid(), _dead_pid()):  # our own pid (reused after a crash) counts as gone
        _session({"pid": pid, "path": "x.toml"}, name="a")
        scenario_io.save(s, auto)
        os.utime(auto, (3000.0, 3000.0))
        assert autosave.find_recovery() == autosave.Recovery(auto, "x.toml", 3000.0, None, None, "a")
    auto.unlink()
    assert autosave.find_recovery() is None  # over with nothing unsaved: nothing to offer, and its folder goes
    assert not autosave.session_dir("a").exists()
    live = {"pid": os.getppid(), "started": autosave.process_start(os.getppid()), "path": "x.toml"}
    _session(live, name="a")
    assert autosave.find_recovery() is None  # that run is still going
    # An error named in the marker: offered.
    _session({"pid": _dead_pid(), "path": None, "error": "RuntimeError: boom"}, name="a")
    os.utime(auto, (1000.0, 1000.0))
    assert autosave.find_recovery() == autosave.Recovery(auto, None, 1000.0, None, "RuntimeError: boom", "a")
    # An emergency copy wins over the autosave.
    copy = autosave.state_dir() / "emergency-1.toml"
    scenario_io.save(s, copy)
    os.utime(copy, (4000.0, 4000.0))
    _session({"pid": _dead_pid(), "path": "y.toml", "error": "E", "emergency": str(copy)}, name="a")
    assert autosave.find_recovery() == autosave.Recovery(copy, "y.toml", 4000.0, copy, "E", "a")
    # A marker that is not JSON, or not an object, is a run that is over with no notes.
    for junk in ("{not json", "[1, 2]"):
        _session(junk, name="a")
        os.utime(auto, (5000.0, 5000.0))
        assert autosave.find_recovery() == autosave.Recovery(auto, None, 5000.0, None, None, "a")


def test_a_reused_pid_does_not_hide_a_crash(tmp_path: Path) -> None:
    """The crashed run's pid now belongs to another live process (common after a reboot)."""
    from tabletop.app import autosave

    other = os.getppid()  # alive, and not the run that wrote the marker
    # Without a lock file: the process start time tells the two apart.
    _session({"pid": other, "started": "another boot/123", "path": "x.toml"}, name="nolock")
    rec = autosave.find_recovery()
    assert rec is not None and rec.session == "nolock", "a live process with another start time is not that run"
    autosave.discard_recovery(rec)
    # With a lock file nobody holds: the run is over whatever its pid is now.
    saver = autosave.Autosaver()
    saver.start("x.toml")
    saver.changed(s := scenario_io.load(DEFAULT), 0.0)
    assert saver.flush()
    marker = json.loads(saver.marker_path.read_text())
    saver.marker_path.write_text(json.dumps({**marker, "pid": other, "started": autosave.process_start(other)}))
    assert autosave.find_recovery() is None  # its lock is held (by this process): still running
    saver.release()
    rec = autosave.find_recovery()
    assert rec is not None and rec.session == saver.session and autosave.load_recovery(rec) == s


def test_a_session_held_by_another_process_is_not_offered(tmp_path: Path) -> None:
    from tabletop.app import autosave

    name = _session({"pid": _dead_pid(), "path": "x.toml"})
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)", str(autosave.lock_path(name))],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert autosave.find_recoveries() == []  # its pid is dead, but the lock says it runs (or is being offered)
    finally:
        holder.kill()
        holder.wait()
    assert [r.session for r in autosave.find_recoveries()] == [name]


def test_declining_forgets_the_session_and_only_an_emergency_copy_in_the_state_folder(tmp_path: Path) -> None:
    from tabletop.app import autosave

    inside, outside = autosave.state_dir() / "emergency-1.toml", tmp_path / "emergency-2.toml"
    _session({"pid": _dead_pid(), "emergency": str(inside)}, name="a")
    for f in (inside, outside):
        f.write_text("x")
    rec = autosave.find_recovery()
    assert rec is not None
    autosave.discard_recovery(rec)
    assert list(autosave.state_dir().iterdir()) == [autosave.sessions_dir()] and list(autosave.sessions_dir().iterdir()) == []
    assert outside.exists()
    _session({"pid": _dead_pid(), "emergency": str(outside)}, name="b")
    rec = autosave.find_recovery()
    assert rec is not None and rec.emergency == outside
    autosave.discard_recovery(rec)
    assert outside.exists()  # never delete a file outside the state folder


def test_an_emergency_copy_falls_back_to_json_and_names_itself_in_the_marker(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.app import autosave

    s = scenario_io.load(DEFAULT)
    saver = autosave.Autosaver(debounce_s=100.0)
    saver.start("t.toml")
    saver.changed(dataclass_replace(s, title="pending"), 0.0)
    real = autosave.scenario_bytes

    def no_toml(scenario: Any, json_syntax: bool = False) -> bytes:
        if not json_syntax:
            raise TypeError("cannot write that as TOML")
        return real(scenario, json_syntax)

    monkeypatch.setattr(autosave, "scenario_bytes", no_toml)
    copy = saver.emergency(s, ValueError("bad\nsecond line"))
    assert copy is not None and copy.suffix == ".json" and copy.parent == autosave.state_dir()
    assert copy.name.startswith("emergency-") and copy.name.endswith(f"-{os.getpid()}-{saver.session}.json")
    assert differences(scenario_io.load(copy), s) == []
    assert json.loads(saver.marker_path.read_text()) == {"pid": os.getpid(), "started": autosave.process_start(os.getpid()), "path": "t.toml", "error": "ValueError: bad", "emergency": str(copy)}
    assert saver.last_error is not None and saver.last_error.startswith("autosave failed (TypeError")  # the pending flush was tried too


def test_an_emergency_copy_without_a_state_folder_yet_is_a_stamped_toml_file() -> None:
    import re
    import time

    from tabletop.app import autosave

    s = scenario_io.load(DEFAULT)
    assert not autosave.state_dir().exists()  # nothing has run yet: the folder and its parents are made
    before = time.strftime("%Y%m%d-%H%M%S")
    saver = autosave.Autosaver()
    copy = saver.emergency(s, "stopped by the user")
    after = time.strftime("%Y%m%d-%H%M%S")
    assert copy is not None and copy.parent == autosave.state_dir()
    stamp = re.fullmatch(rf"emergency-(\d{{8}}-\d{{6}})-{os.getpid()}-{re.escape(saver.session)}\.toml", copy.name)
    assert stamp is not None and before <= stamp.group(1) <= after
    assert differences(scenario_io.load(copy), s) == []
    assert json.loads(saver.marker_path.read_text()) == {"pid": os.getpid(), "started": autosave.process_start(os.getpid()), "path": None, "error": "stopped by the user", "emergency": str(copy)}


def test_an_emergency_copy_that_cannot_be_written_at_all_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.app import autosave

    def neither(scenario: Any, json_syntax: bool = False) -> bytes:
        raise TypeError("json" if json_syntax else "toml")

    monkeypatch.setattr(autosave, "scenario_bytes", neither)
    saver = autosave.Autosaver()
    assert saver.emergency(scenario_io.load(DEFAULT), RuntimeError()) is None
    assert saver.last_error == "emergency copy failed (TypeError: json)"
    assert json.loads(saver.marker_path.read_text()) == {"pid": os.getpid(), "started": autosave.process_start(os.getpid()), "path": None, "error": "RuntimeError: "}


@pytest.mark.parametrize(("message", "shown"), [("", ""), ("a\nb", "a"), ("x" * 120, "x" * 120), ("x" * 121, "x" * 119 + "…")])
def test_an_error_is_shown_on_one_line_of_at_most_120_characters(message: str, shown: str) -> None:
    from tabletop.app import autosave

    saver = autosave.Autosaver()
    saver.emergency(scenario_io.load(DEFAULT), ValueError(message))
    assert json.loads(saver.marker_path.read_text())["error"] == f"ValueError: {shown}"


def test_a_json_save_is_indented_utf8_and_names_what_json_cannot_hold(tmp_path: Path) -> None:
    import dataclasses

    s = scenario_io.load(SCENARIOS / "robotech-scatter.toml")  # its title has an em dash
    out = tmp_path / "a.json"
    scenario_io.save(s, out)
    assert out.read_bytes() == json.dumps(scenario_io.scenario_to_data(s), indent=2, ensure_ascii=False).encode("utf-8")
    assert "Robotech \u2014 a Blast".encode() in out.read_bytes()
    with pytest.raises(TypeError) as caught:
        scenario_io.save(dataclasses.replace(s, extra={"x": b"ab"}), tmp_path / "b.json")
    assert str(caught.value) == "cannot write bytes b'ab' as JSON" and not (tmp_path / "b.json").exists()


def test_scenario_bytes_as_json_are_indented_utf8_and_as_toml_are_the_saved_text() -> None:
    from tabletop.app import autosave

    s = scenario_io.load(SCENARIOS / "robotech-scatter.toml")  # its title has an em dash
    as_json = autosave.scenario_bytes(s, json_syntax=True)
    assert as_json == json.dumps(scenario_io.scenario_to_data(s), indent=2, ensure_ascii=False).encode("utf-8")
    assert as_json.startswith(b'{\n  "') and "Robotech \u2014 a Blast".encode() in as_json
    assert autosave.scenario_bytes(s) == scenario_io.dumps(s).encode("utf-8")


def test_an_autosave_the_loader_chokes_on_is_a_named_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.app import autosave

    def choke(path: Any) -> Any:
        raise OverflowError("int too large")

    monkeypatch.setattr(autosave, "load", choke)
    rec = autosave.Recovery(Path("/x/autosave.toml"), None, 0.0)
    with pytest.raises(scenario_io.ScenarioError) as caught:
        autosave.load_recovery(rec)
    assert caught.value.problems == [scenario_io.Problem("/x/autosave.toml", "", "cannot be recovered: OverflowError: int too large")]


def test_a_flushed_autosaver_has_nothing_left_to_write() -> None:
    from tabletop.app import autosave

    saver = autosave.Autosaver(debounce_s=5.0)
    saver.changed(scenario_io.load(DEFAULT), 0.0)
    assert saver.flush() and saver.saves == 1
    assert not saver.flush() and not saver.tick(100.0) and (saver.saves, saver.failures) == (1, 0)
    saver.changed(dataclass_replace(scenario_io.load(DEFAULT), title="second"), 200.0)
    assert saver.flush() and saver.saves == 2  # counted, not just set


def test_every_failed_autosave_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.app import autosave

    def full(path: Any, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(autosave, "atomic_write", full)
    saver = autosave.Autosaver(debounce_s=0.0)
    s = scenario_io.load(DEFAULT)
    for k, title in enumerate(("a", "b", "c"), start=1):
        saver.changed(dataclass_replace(s, title=title), float(k))
        assert not saver.flush() and saver.failures == k


def test_output_paths_that_cannot_be_written_are_named(tmp_path: Path) -> None:
    (tmp_path / "real.toml").write_text("x")
    (tmp_path / "link.toml").symlink_to("real.toml")
    assert atomic.check_writable(tmp_path / "link.toml") == tmp_path / "real.toml"
    assert atomic.check_writable(tmp_path / "new.toml") == tmp_path / "new.toml"
    cases = {
        "": "output path is empty",
        str(tmp_path) + "/": f"{tmp_path}/: is a folder, not a file name",
        str(tmp_path): f"{tmp_path}: is a folder, not a file name",
        str(tmp_path / "no" / "a.toml"): f"{tmp_path / 'no' / 'a.toml'}: folder {tmp_path / 'no'} does not exist",
        "/dev/null": "/dev/null: is not a regular file (a device, pipe or socket); write to a file",
        str(tmp_path / "real.toml" / "a.toml"): f"{tmp_path / 'real.toml' / 'a.toml'}: cannot write: Not a directory",
    }
    for path, message in cases.items():
        with pytest.raises(atomic.OutputError) as caught:
            atomic.check_writable(path)
        assert str(caught.value) == message, path


# --------------------------------------------------------------------------- check_output (mutmut's survivors)


def test_check_output_refuses_the_commands_own_input_by_any_name(tmp_path: Path) -> None:
    from tabletop.atomic import OutputError, check_output

    table = tmp_path / "d.toml"
    table.write_text("format = 1\n", encoding="utf-8")
    other = tmp_path / "other.toml"
    other.write_text("format = 1\n", encoding="utf-8")
    link = tmp_path / "link.toml"
    link.symlink_to(table)
    assert check_output(tmp_path / "out.png", [None, other, table]) == tmp_path / "out.png"
    with pytest.raises(OutputError) as err:
        check_output(table, [None, other, table])  # a None or another input before it does not stop the search
    assert str(err.value) == f"{table}: is the command's own input {table}; write to another file"
    with pytest.raises(OutputError) as err:
        check_output(link, [table])  # the same file through a link
    assert str(err.value) == f"{link}: is the command's own input {table}; write to another file"


def test_check_output_compares_paths_when_an_input_does_not_exist(tmp_path: Path) -> None:
    from tabletop.atomic import OutputError, check_output

    missing = tmp_path / "new.toml"  # samefile fails: neither file exists yet
    with pytest.raises(OutputError, match="is the command's own input"):
        check_output(missing, [tmp_path / "." / "new.toml"])
    assert check_output(missing, [tmp_path / "old.toml"]) == missing


def test_read_umask_reads_the_mask_and_leaves_it_as_it_was() -> None:
    from tabletop.atomic import _read_umask

    before = os.umask(0o027)
    try:
        assert _read_umask() == 0o027
        assert os.umask(0o027) == 0o027  # unchanged by the read
    finally:
        os.umask(before)


def test_emergency_copies_go_only_past_thirty_days_to_the_second(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twelve copies, the two oldest beyond the newest ten: one exactly 30 days old stays, one a second
    older goes; a copy that cannot be deleted does not stop the others; no ``now`` means the clock."""
    import time

    from tabletop.app import autosave

    folder = autosave.state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    now = 2_000_000_000.0
    ages = [i * 3600.0 for i in range(10)] + [30 * 86400.0, 30 * 86400.0 + 1, 30 * 86400.0 + 2]
    copies = [folder / f"emergency-{i:02}.toml" for i in range(len(ages))]
    for path, age in zip(copies, ages):
        path.write_text("x")
        os.utime(path, (now - age, now - age))
    real_unlink = Path.unlink

    def stuck(self: Path, missing_ok: bool = False) -> None:
        if self == copies[11]:
            raise PermissionError(13, "Permission denied", str(self))
        real_unlink(self, missing_ok)

    monkeypatch.setattr(Path, "unlink", stuck)
    assert autosave.prune_emergency_copies(now) == [copies[12]]  # 11 cannot go; 10 is exactly 30 days old
    assert all(p.exists() for p in copies[:12]) and not copies[12].exists()
    monkeypatch.setattr(Path, "unlink", real_unlink)
    monkeypatch.setattr(time, "time", lambda: now + 1)  # a second later, by the clock
    assert autosave.prune_emergency_copies() == [copies[10], copies[11]]


def test_alive_asks_the_system_without_signalling(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.app import autosave

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert autosave._alive(child.pid) is True
        with pytest.raises(subprocess.TimeoutExpired):  # signal 0 only asks; any other would end the child
            child.wait(timeout=1.0)
    finally:
        child.kill()
        child.wait()
    assert autosave._alive(child.pid) is False  # gone (and reaped)
    assert autosave._alive(os.getpid()) is False  # our own pid: the crashed run is gone

    def refuse(pid: int, sig: int) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "kill", refuse)
    assert autosave._alive(12345) is True  # someone else's live process

    def odd(pid: int, sig: int) -> None:
        raise OSError(errno.EINVAL, "Invalid argument")

    monkeypatch.setattr(os, "kill", odd)
    assert autosave._alive(12345) is False


def test_find_recovery_reads_only_text_notes() -> None:
    from tabletop.app import autosave

    name = _session({"pid": 1 << 30, "path": 5, "error": ["no"]})
    t = 1_700_000_000.0
    os.utime(autosave.autosave_path(name), (t, t))
    recovery = autosave.find_recovery()
    assert recovery is not None and recovery.original_path is None and recovery.error is None
    assert recovery.autosave == autosave.autosave_path(name) and recovery.saved_at == t


def test_a_marker_that_cannot_be_written_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.app import autosave

    def full(path: Any, data: bytes, **kw: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(autosave, "atomic_write", full)
    saver = autosave.Autosaver()
    saver.set_path("/tables/a.toml")
    assert saver.last_error == f"cannot write {saver.marker_path}: [Errno 28] No space left on device"


def test_an_emergency_copy_whose_folder_cannot_be_made_says_why(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tabletop.app import autosave

    monkeypatch.setenv("HOME", str(tmp_path))  # where the copy goes instead (no file is open)

    scenario = scenario_io.load(SCENARIOS / "default.toml")
    saver = autosave.Autosaver()
    real_mkdir = Path.mkdir
    calls = []

    def once(self: Path, *a: Any, **kw: Any) -> None:
        calls.append(self)
        if len(calls) == 1:
            raise PermissionError(errno.EACCES, "Permission denied")
        real_mkdir(self, *a, **kw)

    monkeypatch.setattr(Path, "mkdir", once)
    copy = saver.emergency(scenario, "boom")
    # The state folder cannot be made: the copy is written in the next place (the home folder) and why is kept.
    assert copy is not None and copy.parent == tmp_path and scenario_io.load(copy) == scenario
    assert saver.emergency_error == "PermissionError: [Errno 13] Permission denied"


def test_two_sessions_stopping_in_the_same_second_keep_two_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two sessions of one process (or a reused pid) stopping within one second must not share a
    copy: the second would overwrite the first one's unsaved work."""
    from tabletop.app import autosave

    monkeypatch.setattr(autosave.time, "strftime", lambda *_: "20261127-120000")
    s = scenario_io.load(DEFAULT)
    first, second = autosave.Autosaver(), autosave.Autosaver()
    a = first.emergency(s, "stopped")
    b = second.emergency(dataclasses.replace(s, title="other"), "stopped")
    assert a is not None and b is not None and a != b
    assert scenario_io.load(a).title != scenario_io.load(b).title
