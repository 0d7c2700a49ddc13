"""Autosave and crash recovery in the user state folder. Pure: no pygame.

While the app runs, a marker file (``running.json``: pid, the open file) says so.
Edits are autosaved (debounced) to ``autosave.toml``. Both are removed only once the
user has saved or chosen to discard (``Autosaver.stop``); a crash keeps them. An
unexpected error also writes an emergency copy (``emergency-<time>.toml``, next to the
autosave) and names it in the marker. At the next start, a marker left by a process
that is gone, with an autosave written after it or an emergency copy, means the last
run crashed with unsaved work: offer it back.

Nothing here raises into the app's loop: a failed write is kept in ``last_error``.
"""

from __future__ import annotations

import json
import os
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


def state_dir() -> Path:
    """``platformdirs.user_state_dir("tabletop")``, created on demand."""
    return Path(platformdirs.user_state_dir("tabletop"))


def autosave_path() -> Path:
    return state_dir() / "autosave.toml"


def marker_path() -> Path:
    return state_dir() / "running.json"


@dataclass(frozen=True)
class Recovery:
    """Unsaved work left by a crashed run."""

    autosave: Path
    original_path: str | None
    saved_at: float
    emergency: Path | None = None  # written when the run stopped on an unexpected error
    error: str | None = None  # that error, in one line


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


def _read_marker() -> dict[str, object]:
    try:
        info = json.loads(marker_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


def find_recovery() -> Recovery | None:
    """Unsaved work from a crashed run, if any (never from a run still going)."""
    marker, auto = marker_path(), autosave_path()
    if not marker.exists():
        return None
    info = _read_marker()
    pid = info.get("pid")
    if isinstance(pid, int) and _alive(pid):
        return None
    original = info.get("path")
    original = original if isinstance(original, str) else None
    error = info.get("error")
    error = error if isinstance(error, str) else None
    emergency = info.get("emergency")
    if isinstance(emergency, str) and Path(emergency).is_file():
        try:
            return Recovery(Path(emergency), original, Path(emergency).stat().st_mtime, Path(emergency), error)
        except OSError:
            pass
    if not auto.exists():
        return None
    try:
        if auto.stat().st_mtime < marker.stat().st_mtime and error is None:
            return None
        saved_at = auto.stat().st_mtime
    except OSError:
        return None
    return Recovery(auto, original, saved_at, None, error)


def load_recovery(recovery: Recovery) -> Scenario:
    """The autosaved scenario. Raises ScenarioError (also for a file the loader chokes on)."""
    try:
        return load(recovery.autosave)
    except ScenarioError:
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. OverflowError, RecursionError: a message, not a crash
        raise ScenarioError([Problem(str(recovery.autosave), "", f"cannot be recovered: {type(exc).__name__}: {exc}")]) from exc


def discard_recovery() -> None:
    """Forget a crashed run's autosave and emergency copy (the user declined it)."""
    emergency = _read_marker().get("emergency")
    paths = [autosave_path(), marker_path()]
    if isinstance(emergency, str) and Path(emergency).parent == state_dir():
        paths.append(Path(emergency))
    for p in paths:
        try:
            p.unlink()
        except OSError:
            pass


def prune_emergency_copies(now: float | None = None) -> list[Path]:
    """Delete old emergency copies from the state folder; return what was deleted.

    A copy goes only when it is beyond the newest ``KEEP_EMERGENCY`` *and* older than
    ``KEEP_EMERGENCY_DAYS``; the one a crashed run's marker still offers is never touched.
    """
    now = time.time() if now is None else now
    offered = _read_marker().get("emergency")
    try:
        copies = [p for p in state_dir().glob("emergency-*") if p.suffix in (".toml", ".json") and p.is_file() and str(p) != offered]
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


class Autosaver:
    """Writes the scenario ``DEBOUNCE_S`` seconds after the last edit; owns the marker."""

    def __init__(self, debounce_s: float = DEBOUNCE_S, enabled: bool = True) -> None:
        self.debounce_s = debounce_s
        self.enabled = enabled
        self._due: float | None = None
        self._pending: Scenario | None = None
        self._written: Scenario | None = None
        self._failed: Scenario | None = None
        self._path: str | None = None
        self.last_error: str | None = None
        self.saves = 0
        self.failures = 0

    def start(self, path: str | None) -> None:
        """Write the "running" marker (after pruning old emergency copies)."""
        if not self.enabled:
            return
        prune_emergency_copies()
        self.set_path(path)

    def set_path(self, path: str | None, **extra: str) -> None:
        """(Re)write the marker: this process, the open file, and ``extra`` notes."""
        self._path = path
        if not self.enabled:
            return
        try:
            state_dir().mkdir(parents=True, exist_ok=True)
            atomic_write(marker_path(), json.dumps({"pid": os.getpid(), "path": path, **extra}).encode("utf-8"))
        except OSError as exc:
            self.last_error = f"cannot write {marker_path()}: {exc}"

    def changed(self, scenario: Scenario, now: float) -> None:
        """The document changed at ``now`` (seconds, monotonic)."""
        if scenario is self._pending or scenario is self._written or scenario is self._failed:
            return
        self._pending = scenario
        self._due = now + self.debounce_s

    def clean(self) -> None:
        """The document was saved: nothing to recover."""
        self._pending = None
        self._due = None
        try:
            autosave_path().unlink()
        except FileNotFoundError:
            pass
        except OSError:
            pass

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
            state_dir().mkdir(parents=True, exist_ok=True)
            atomic_write(autosave_path(), scenario_bytes(pending))
        except Exception as exc:  # noqa: BLE001 - RecursionError, TypeError, OSError...: never into the loop
            self._failed = pending
            self.failures += 1
            self.last_error = f"autosave failed ({type(exc).__name__}: {_short(exc)}); the previous autosave is kept"
            return False
        self._written = pending
        self._failed = None
        self.last_error = None
        self.saves += 1
        return True

    def emergency(self, scenario: Scenario, error: BaseException | str) -> Path | None:
        """The run is stopping on an unexpected error: write ``scenario`` as a timestamped copy
        next to the autosave, flush the autosave, and name both in the marker for the next start.

        Returns the copy's path (None when it could not be written). Never raises.
        """
        if not self.enabled:
            return None
        reason = error if isinstance(error, str) else f"{type(error).__name__}: {_short(error)}"
        copy: Path | None = None
        try:
            state_dir().mkdir(parents=True, exist_ok=True)
            stamp = time.strftime("%Y%m%d-%H%M%S")
            for json_syntax, suffix in ((False, ".toml"), (True, ".json")):
                target = state_dir() / f"emergency-{stamp}-{os.getpid()}{suffix}"
                try:
                    atomic_write(target, scenario_bytes(scenario, json_syntax))
                except Exception as exc:  # noqa: BLE001 - try the other syntax, then give up
                    self.last_error = f"emergency copy failed ({type(exc).__name__}: {_short(exc)})"
                    continue
                copy = target
                break
        except Exception as exc:  # noqa: BLE001
            self.last_error = f"emergency copy failed ({type(exc).__name__}: {_short(exc)})"
        if self._pending is not None:
            self.flush()
        extra = {"error": reason}
        if copy is not None:
            extra["emergency"] = str(copy)
        self.set_path(self._path, **extra)
        return copy

    def stop(self) -> None:
        """The user saved or chose to discard: remove the marker and the autosave."""
        if not self.enabled:
            return
        discard_recovery()


def _short(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return text if len(text) <= 120 else text[:119] + "…"


__all__ = [
    "Autosaver",
    "Recovery",
    "ScenarioError",
    "autosave_path",
    "discard_recovery",
    "find_recovery",
    "load_recovery",
    "marker_path",
    "scenario_bytes",
]
