"""Autosave and crash recovery in the user state folder. Pure: no pygame.

While the app runs, a marker file (``running.json``: pid, the open file) says so.
Edits are autosaved (debounced) to ``autosave.toml``. A clean exit removes both.
At the next start, a marker left by a process that is gone, with an autosave
written after it, means the last run crashed with unsaved work: offer it back.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from tabletop.model import Scenario
from tabletop.scenario_io import ScenarioError, load, save

DEBOUNCE_S = 2.0


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


def find_recovery() -> Recovery | None:
    """Unsaved work from a crashed run, if any (never from a run still going)."""
    marker, auto = marker_path(), autosave_path()
    if not marker.exists() or not auto.exists():
        return None
    try:
        info = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        info = {}
    pid = info.get("pid")
    if isinstance(pid, int) and _alive(pid):
        return None
    try:
        if auto.stat().st_mtime < marker.stat().st_mtime:
            return None
        saved_at = auto.stat().st_mtime
    except OSError:
        return None
    original = info.get("path")
    return Recovery(auto, original if isinstance(original, str) else None, saved_at)


def load_recovery(recovery: Recovery) -> Scenario:
    """The autosaved scenario. Raises ScenarioError."""
    return load(recovery.autosave)


def discard_recovery() -> None:
    """Forget a crashed run's autosave (the user declined it)."""
    for p in (autosave_path(), marker_path()):
        try:
            p.unlink()
        except FileNotFoundError:
            pass


class Autosaver:
    """Writes the scenario ``DEBOUNCE_S`` seconds after the last edit; owns the marker."""

    def __init__(self, debounce_s: float = DEBOUNCE_S, enabled: bool = True) -> None:
        self.debounce_s = debounce_s
        self.enabled = enabled
        self._due: float | None = None
        self._pending: Scenario | None = None
        self._written: Scenario | None = None
        self.last_error: str | None = None
        self.saves = 0

    def start(self, path: str | None) -> None:
        """Write the "running" marker."""
        if not self.enabled:
            return
        self.set_path(path)

    def set_path(self, path: str | None) -> None:
        if not self.enabled:
            return
        try:
            state_dir().mkdir(parents=True, exist_ok=True)
            marker_path().write_text(json.dumps({"pid": os.getpid(), "path": path}), encoding="utf-8")
        except OSError as exc:
            self.last_error = f"cannot write {marker_path()}: {exc}"

    def changed(self, scenario: Scenario, now: float) -> None:
        """The document changed at ``now`` (seconds, monotonic)."""
        if scenario is self._pending or scenario is self._written:
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
        """Write the pending scenario now."""
        if not self.enabled or self._pending is None:
            return False
        try:
            state_dir().mkdir(parents=True, exist_ok=True)
            save(self._pending, autosave_path())
        except (OSError, ValueError) as exc:
            self.last_error = f"autosave failed: {exc}"
            return False
        self._written = self._pending
        self._pending = None
        self._due = None
        self.saves += 1
        return True

    def stop(self) -> None:
        """Clean exit: remove the marker and the autosave."""
        if not self.enabled:
            return
        discard_recovery()


__all__ = [
    "Autosaver",
    "Recovery",
    "ScenarioError",
    "autosave_path",
    "discard_recovery",
    "find_recovery",
    "load_recovery",
    "marker_path",
]
