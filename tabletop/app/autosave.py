"""Autosave and crash recovery in the user state folder. Pure: no pygame.

Each running app is a *session* with an id of its own and a folder
``sessions/<id>/`` in the state folder: ``running.json`` (the marker: pid, the
process's start, the open file, notes), ``autosave.toml`` (the unsaved table,
written ``DEBOUNCE_S`` after the last edit, removed when the table is saved or
closed clean) and ``lock``, a file the session holds locked (``flock``; on
Windows ``msvcrt.locking``) for the life of its process. Two instances never
touch each other's files, and a clean quit removes only its own folder.

At the next start, a session whose lock nobody holds is over: its process is
gone, whatever now runs under its pid (a reboot reuses pids). Where the system
cannot lock a file, the marker's pid and process start time decide. A session
that is over with an autosave or an emergency copy crashed with unsaved work:
every such session is offered back. The instance offering one holds its lock
(a *claim*), so a second instance started meanwhile does not offer it too; the
claim ends with the process, and the work stays for the next start until the
user recovers it (it then lives in the new session) or discards it.

An unexpected error or a signal also writes an emergency copy
(``emergency-<time>-<pid>-<session>.toml``, in the state folder) and names it in the marker.

Nothing here raises into the app's loop: a failed write is kept in ``last_error``.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from tabletop.model import Scenario
from tabletop.scenario_io import Problem, ScenarioError, atomic_write, dumps, load, scenario_to_data

DEBOUNCE_S = 2.0
#: Emergency copies kept: an old one goes only when it is both beyond the newest KEEP_EMERGENCY and older than KEEP_EMERGENCY_DAYS.
KEEP_EMERGENCY = 10
KEEP_EMERGENCY_DAYS = 30.0
#: A session's files inside its folder.
MARKER, AUTOSAVE, LOCK = "running.json", "autosave.toml", "lock"


def state_dir() -> Path:
    """``platformdirs.user_state_dir("tabletop")``, created on demand."""
    return Path(platformdirs.user_state_dir("tabletop"))


def sessions_dir() -> Path:
    return state_dir() / "sessions"


def session_dir(session: str) -> Path:
    return sessions_dir() / session


def autosave_path(session: str) -> Path:
    return session_dir(session) / AUTOSAVE


def marker_path(session: str) -> Path:
    return session_dir(session) / MARKER


def lock_path(session: str) -> Path:
    return session_dir(session) / LOCK


def new_session_id() -> str:
    """Unique among instances: the start time (sorts by age), the pid and a random part."""
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{secrets.token_hex(3)}"


@dataclass(frozen=True)
class Recovery:
    """Unsaved work left by a crashed session."""

    autosave: Path  # the file to recover from: the emergency copy if there is one, else the autosave
    original_path: str | None
    saved_at: float
    emergency: Path | None = None  # written when the run stopped on an unexpected error or a signal
    error: str | None = None  # that error, in one line
    session: str | None = None  # the crashed session's id


# --------------------------------------------------------------------------- who is running


class LockUnavailable(Exception):
    """The lock file is missing or this system cannot lock it: ask the pid instead."""


class SessionLock:
    """An exclusive lock on a session's lock file, held while this object's file stays open.

    The operating system drops it when the process ends, however it ends (even SIGKILL), and
    it belongs to the open file, not the pid: a reused pid never holds it.
    """

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, path: Path, create: bool = False) -> SessionLock | None:
        """The lock on ``path``; None when another open file (another process) holds it.

        Raises ``LockUnavailable`` when ``path`` does not exist (and ``create`` is false) or
        the file system cannot lock."""
        try:
            fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o600)
        except OSError as exc:
            if create or sys.platform == "win32":
                raise LockUnavailable(str(exc)) from exc
            try:  # a read-only folder (or file): flock locks a file opened for reading just as well
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                raise LockUnavailable(str(exc)) from exc
        try:
            held = _try_lock(fd)
        except OSError as exc:
            os.close(fd)
            raise LockUnavailable(str(exc)) from exc
        if not held:
            os.close(fd)
            return None
        return cls(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                os.close(fd)  # closing the file drops the lock
            except OSError:
                pass


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import errno as _errno
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError as exc:
            if exc.errno in (_errno.EACCES, _errno.EDEADLK):
                return False
            raise
        return True

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


def process_start(pid: int) -> str | None:
    """When process ``pid`` started, as a token that differs for a reused pid (Linux: the boot's id and
    the start time in clock ticks from ``/proc``); None where the system does not say."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        ticks = stat.rsplit(")", 1)[1].split()[19]  # field 22, counted after the command name
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except (OSError, IndexError):
        return None
    return f"{boot}/{ticks}"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # our own pid reused after a crash: that run is gone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def _same_process_running(info: dict[str, object]) -> bool:
    """Without a lock to ask: the marker's pid runs and, where the start time is known, it is that run."""
    pid = info.get("pid")
    if not isinstance(pid, int) or not _alive(pid):
        return False
    started = info.get("started")
    now = process_start(pid)
    return not (isinstance(started, str) and now is not None and now != started)


def _read_json(path: Path) -> dict[str, object]:
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


#: Sessions of crashed runs this process holds the lock of (it is offering them).
_claims: dict[str, SessionLock] = {}
#: Sessions this process runs (started and not stopped).
_own: set[str] = set()


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _remove_session(session: str, lock: SessionLock | None = None) -> None:
    """Delete a session's folder: the autosave, the marker (from then on no scan looks at it), then
    ``lock`` (the session's, held by this process) is released and the lock file goes too."""
    folder = session_dir(session)
    _unlink(folder / AUTOSAVE)
    _unlink(folder / MARKER)
    if lock is not None:
        lock.release()  # before its file goes: Windows cannot delete a file that is open
    _unlink(folder / LOCK)
    shutil.rmtree(folder, ignore_errors=True)  # with a temp file a killed write left


def _release(session: str | None) -> None:
    if session is not None and session in _claims:
        _claims.pop(session).release()


def _forget(session: str) -> None:
    """Delete a crashed session's folder, releasing this process's claim on it."""
    _remove_session(session, _claims.pop(session, None))


# --------------------------------------------------------------------------- finding crashed work


def find_recoveries(claim: bool = True) -> list[Recovery]:
    """Unsaved work of every crashed session, newest first (never of a session still running).

    ``claim``: hold each one's lock until it is recovered, discarded or released (or this process
    ends), so another instance does not offer it too. A crashed session without unsaved work is
    deleted.
    """
    found: list[Recovery] = []
    try:
        folders = sorted(p for p in sessions_dir().iterdir() if p.is_dir())
    except OSError:
        return []
    for folder in folders:
        session = folder.name
        if session in _own or not (folder / MARKER).exists():
            continue  # ours, or one starting or stopping right now
        lock = _claims.get(session)
        if lock is None:
            try:
                lock = SessionLock.acquire(folder / LOCK)
            except LockUnavailable:
                if _same_process_running(_read_json(folder / MARKER)):
                    continue
            else:
                if lock is None:
                    continue  # its process holds it: still running (or offered by another instance)
        recovery = _recovery_of(session)
        if recovery is None:  # over, and nothing unsaved
            _claims.pop(session, None)
            _remove_session(session, lock)
            continue
        found.append(recovery)
        if lock is not None:
            if claim:
                _claims[session] = lock
            elif _claims.get(session) is not lock:
                lock.release()
    return sorted(found, key=lambda r: r.saved_at, reverse=True)


def _recovery_of(session: str) -> Recovery | None:
    info = _read_json(marker_path(session))
    original = info.get("path")
    original = original if isinstance(original, str) else None
    error = info.get("error")
    error = error if isinstance(error, str) else None
    emergency = info.get("emergency")
    if isinstance(emergency, str) and Path(emergency).is_file():
        try:
            return Recovery(Path(emergency), original, Path(emergency).stat().st_mtime, Path(emergency), error, session)
        except OSError:
            pass
    auto = autosave_path(session)
    try:
        saved_at = auto.stat().st_mtime
    except OSError:
        return None
    return Recovery(auto, original, saved_at, None, error, session)


def find_recovery() -> Recovery | None:
    """The newest crashed session's unsaved work, if any (not claimed)."""
    found = find_recoveries(claim=False)
    return found[0] if found else None


def load_recovery(recovery: Recovery) -> Scenario:
    """The autosaved scenario. Raises ScenarioError (also for a file the loader chokes on)."""
    try:
        return load(recovery.autosave)
    except ScenarioError:
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. OverflowError, RecursionError: a message, not a crash
        raise ScenarioError([Problem(str(recovery.autosave), "", f"cannot be recovered: {type(exc).__name__}: {exc}")]) from exc


def describe_recovery(recovery: Recovery) -> str:
    """What the crashed work holds, in one line: title, counts, and what differs from its file."""
    try:
        scenario = load_recovery(recovery)
    except ScenarioError as exc:
        return f"It cannot be read: {exc.problems[0].message if exc.problems else 'unknown problem'}."
    title = scenario.title or "Untitled table"
    parts = [f"“{title}”: {_count(len(scenario.models), 'model')}, {_count(len(scenario.templates), 'template')}"]
    if scenario.ruleset and scenario.ruleset != "none":
        parts.append(f"ruleset {scenario.ruleset}")
    text = ", ".join(parts) + "."
    if recovery.original_path:
        try:
            saved = load(recovery.original_path)
        except Exception:  # noqa: BLE001 - a missing or broken file: the work is all there is
            return text + f" Its file {Path(recovery.original_path).name} cannot be read now."
        changed = _changes(saved, scenario)
        text += f" Differs from {Path(recovery.original_path).name} in: {changed}." if changed else f" Same as {Path(recovery.original_path).name}."
    return text


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _changes(saved: Scenario, work: Scenario, limit: int = 6) -> str:
    """The ids of the items that were moved, added or removed, and other changes, at most ``limit``."""
    names: list[str] = []
    for kind, old, new in (("model", saved.models, work.models), ("template", saved.templates, work.templates)):
        before = {x.id: x for x in old}
        after = {x.id: x for x in new}
        names += [f"{i} (new)" for i in after if i not in before]
        names += [f"{i} (removed)" for i in before if i not in after]
        names += [i for i in after if i in before and after[i] != before[i]]
    if (saved.title, saved.ruleset, saved.table) != (work.title, work.ruleset, work.table):
        names.append("title, ruleset or table")
    if saved.terrain != work.terrain:
        names.append("terrain")
    if not names and saved != work:
        names.append("other settings")
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def discard_recovery(recovery: Recovery) -> None:
    """Forget a crashed session's work for good: its folder and its emergency copy (the user chose Discard)."""
    if recovery.session is not None:
        emergency = _read_json(marker_path(recovery.session)).get("emergency")
        if isinstance(emergency, str) and Path(emergency).parent == state_dir():
            _unlink(Path(emergency))
        _forget(recovery.session)
    if recovery.emergency is not None and recovery.emergency.parent == state_dir():
        _unlink(recovery.emergency)


def adopt_recovery(recovery: Recovery) -> None:
    """The work now lives in this session (its autosave is written): delete the crashed session's
    folder. Its emergency copy stays (pruned with the others)."""
    if recovery.session is not None:
        _forget(recovery.session)


def release_recovery(recovery: Recovery) -> None:
    """Keep the work for the next start: let another instance offer it from now on."""
    _release(recovery.session)


def _offered_copies() -> set[str]:
    offered: set[str] = set()
    try:
        markers = list(sessions_dir().glob(f"*/{MARKER}"))
    except OSError:
        return offered
    for marker in markers:
        emergency = _read_json(marker).get("emergency")
        if isinstance(emergency, str):
            offered.add(emergency)
    return offered


def prune_emergency_copies(now: float | None = None) -> list[Path]:
    """Delete old emergency copies from the state folder; return what was deleted.

    A copy goes only when it is beyond the newest ``KEEP_EMERGENCY`` *and* older than
    ``KEEP_EMERGENCY_DAYS``; one a crashed session's marker still offers is never touched.
    """
    now = time.time() if now is None else now
    offered = _offered_copies()
    try:
        copies = [p for p in state_dir().glob("emergency-*") if p.suffix in (".toml", ".json") and p.is_file() and str(p) not in offered]
        dated = sorted(((p.stat().st_mtime, p) for p in copies), reverse=True)
    except OSError:
        return []
    deleted = []
    for mtime, path in dated[KEEP_EMERGENCY:]:
        if now - mtime > KEEP_EMERGENCY_DAYS * 86400:
            try:
                path.unlink()
            except OSError:
                continue
            deleted.append(path)
    return deleted


def scenario_bytes(scenario: Scenario, json_syntax: bool = False) -> bytes:
    """The file bytes of ``scenario`` (TOML, or JSON). Raises whatever serialising raises."""
    if json_syntax:
        return json.dumps(scenario_to_data(scenario), indent=2, ensure_ascii=False).encode("utf-8")
    return dumps(scenario).encode("utf-8")


# --------------------------------------------------------------------------- this session


class Autosaver:
    """This session: writes the scenario ``DEBOUNCE_S`` seconds after the last edit; owns the marker and the lock."""

    def __init__(self, debounce_s: float = DEBOUNCE_S, enabled: bool = True, session: str | None = None) -> None:
        self.debounce_s = debounce_s
        self.enabled = enabled
        self.session = session or new_session_id()
        self._lock: SessionLock | None = None
        self._marker_ok = False  # the marker holds this session's pid and file (a scan skips a folder without one)
        self._due: float | None = None
        self._pending: Scenario | None = None
        self._written: Scenario | None = None
        self._failed: Scenario | None = None
        self._path: str | None = None
        self.last_error: str | None = None
        self.emergency_error: str | None = None  # why the last emergency copy could not be written
        self.saves = 0
        self.failures = 0

    @property
    def folder(self) -> Path:
        return session_dir(self.session)

    @property
    def autosave_path(self) -> Path:
        return autosave_path(self.session)

    @property
    def marker_path(self) -> Path:
        return marker_path(self.session)

    def start(self, path: str | None) -> None:
        """Take this session's lock, then write its "running" marker (after pruning old emergency copies)."""
        if not self.enabled:
            return
        prune_emergency_copies()
        _own.add(self.session)
        self._take_lock()
        self.set_path(path)

    def _take_lock(self) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._lock = SessionLock.acquire(lock_path(self.session), create=True)
        except (OSError, LockUnavailable):
            self._lock = None  # no lock on this system (or a full disk): the next start asks the pid and its start time

    def set_path(self, path: str | None, **extra: str) -> None:
        """(Re)write the marker: this process, the open file, and ``extra`` notes."""
        self._path = path
        if not self.enabled:
            return
        pid = os.getpid()
        info: dict[str, object] = {"pid": pid, "started": process_start(pid), "path": path, **extra}
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic_write(self.marker_path, json.dumps(info).encode("utf-8"))
        except OSError as exc:
            self._marker_ok = False
            self.last_error = f"cannot write {self.marker_path}: {exc}"
        else:
            self._marker_ok = True

    def changed(self, scenario: Scenario, now: float) -> None:
        """The document changed at ``now`` (seconds, monotonic)."""
        if scenario is self._pending or scenario is self._written or scenario is self._failed:
            return
        self._pending = scenario
        self._due = now + self.debounce_s

    def clean(self) -> None:
        """The document was saved (or replaced by one that is): nothing to recover."""
        self._pending = None
        self._due = None
        # The autosave is gone: an undo back to what it held (or to what failed to be written) is unsaved again.
        self._written = None
        self._failed = None
        _unlink(self.autosave_path)

    def tick(self, now: float) -> bool:
        """Autosave if the debounce has passed; True when a file was written."""
        if not self.enabled or self._due is None or now < self._due or self._pending is None:
            return False
        return self.flush()

    def flush(self) -> bool:
        """Write the pending scenario now; False (and ``last_error``) when it cannot be written.

        A failed write keeps the previous autosave (the write is atomic) and is not
        retried until the next edit.
        """
        if not self.enabled or self._pending is None:
            return False
        pending = self._pending
        self._pending = None
        self._due = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic_write(self.autosave_path, scenario_bytes(pending))
        except Exception as exc:  # noqa: BLE001 - RecursionError, TypeError, OSError...: never into the loop
            self._failed = pending
            self.failures += 1
            kept = "the previous autosave is kept" if self.autosave_path.exists() else "there is no autosave of this table yet"
            self.last_error = f"autosave failed ({type(exc).__name__}: {_short(exc)}); {kept}"
            return False
        self._written = pending
        self._failed = None
        self.last_error = None
        self.saves += 1
        # An autosave without its marker is never offered (a scan takes such a folder for one starting):
        # the marker (and lock) that a full disk refused at the start are written now there is room.
        if self._lock is None:
            self._take_lock()
        if not self._marker_ok or not self.marker_path.exists():
            self.set_path(self._path)
        return True

    def emergency(self, scenario: Scenario, error: BaseException | str) -> Path | None:
        """The run is stopping on an unexpected error or a signal: write ``scenario`` as a timestamped
        copy in the state folder, flush the autosave, and name both in the marker for the next start.

        Where the state folder cannot take it (a full or read-only disk), the copy goes beside the open
        file, else in the home folder, else the temp folder: a copy the marker cannot name is still one
        the user can open (its path is returned, and said on stderr). Returns the copy's path (None
        when it could not be written anywhere; ``emergency_error`` says why). Never raises.
        """
        if not self.enabled:
            return None
        reason = error if isinstance(error, str) else f"{type(error).__name__}: {_short(error)}"
        copy: Path | None = None
        self.emergency_error = None
        try:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            data, suffix = self._emergency_bytes(scenario)
            for folder, name in self._emergency_places(stamp, suffix):
                try:
                    if folder == state_dir():
                        folder.mkdir(parents=True, exist_ok=True)
                    atomic_write(folder / name, data)
                except Exception as exc:  # noqa: BLE001 - try the next place
                    self.emergency_error = self.emergency_error or f"{type(exc).__name__}: {_short(exc)}"
                    continue
                copy = folder / name
                break
        except Exception as exc:  # noqa: BLE001
            self.emergency_error = self.emergency_error or f"{type(exc).__name__}: {_short(exc)}"
        if copy is None:
            self.last_error = f"emergency copy failed ({self.emergency_error})"
        if self._pending is not None:
            self.flush()
        extra = {"error": reason}
        if copy is not None:
            extra["emergency"] = str(copy)
        self.set_path(self._path, **extra)
        return copy

    @staticmethod
    def _emergency_bytes(scenario: Scenario) -> tuple[bytes, str]:
        """The table as TOML, else (a value TOML cannot hold) as JSON; with the file's suffix."""
        try:
            return scenario_bytes(scenario), ".toml"
        except Exception:  # noqa: BLE001 - JSON holds what TOML refuses
            return scenario_bytes(scenario, json_syntax=True), ".json"

    def _emergency_places(self, stamp: str, suffix: str) -> list[tuple[Path, str]]:
        """Where an emergency copy may go, best first: the state folder (offered at the next start), then
        beside the open file, the home folder and the temp folder."""
        import tempfile

        # The session id keeps two sessions stopping in the same second from sharing a copy.
        tag = f"{stamp}-{os.getpid()}-{self.session}"
        places = [(state_dir(), f"emergency-{tag}{suffix}")]
        if self._path:
            places.append((Path(self._path).parent, f"{Path(self._path).stem}.emergency-{tag}{suffix}"))
        for folder in (Path.home, lambda: Path(tempfile.gettempdir())):
            try:
                places.append((folder(), f"tabletop-emergency-{tag}{suffix}"))
            except (OSError, RuntimeError):
                continue
        return places

    def release(self) -> None:
        """This process is done with the session (a crash, or the app closed without quitting):
        drop the lock and keep the files, to be offered at the next start if they hold unsaved work."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        _own.discard(self.session)

    def stop(self) -> None:
        """The user saved or chose to discard: remove this session's folder (no other's)."""
        if not self.enabled:
            return
        lock, self._lock = self._lock, None
        _remove_session(self.session, lock)
        self.release()


def _short(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return text if len(text) <= 120 else text[:119] + "…"


__all__ = [
    "Autosaver",
    "Recovery",
    "ScenarioError",
    "SessionLock",
    "adopt_recovery",
    "autosave_path",
    "describe_recovery",
    "discard_recovery",
    "find_recoveries",
    "find_recovery",
    "load_recovery",
    "marker_path",
    "release_recovery",
    "scenario_bytes",
]
