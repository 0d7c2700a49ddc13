"""New, open, save, export and crash recovery, with their file dialogs."""

from __future__ import annotations

import html
import io
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pygame

from tabletop.draw import draw_scene
from tabletop.scenario_io import ScenarioError, atomic_write, load_with_warnings, rebase_backdrop, save
from tabletop.viewport import Viewport

from .autosave import Recovery, adopt_recovery, describe_recovery, discard_recovery, load_recovery, release_recovery
from .judging import judge_with_progress
from .layout import SCENARIOS
from .paths import suggested_path
from .state import MarkSaved, Open, empty_scenario
from .validate import document_problem


class DocumentsMixin:
    """Part of ``TabletopApp``: the table as a file."""

    def new_table(self) -> None:
        self.dispatch(Open(empty_scenario(), None))
        self.fit()
        self._after_open()

    def open_file(self, path: str, as_demo: bool = False) -> bool:
        """Open ``path``; a broken file shows its problems and keeps the current table."""
        try:
            scenario, warnings = load_with_warnings(path)
        except ScenarioError as exc:
            self.show_problems("Could not open the file", exc.problems)
            return False
        except Exception as exc:  # noqa: BLE001 - e.g. a ruleset that cannot be imported
            self.show_message("Could not open the file", html.escape(f"{path}: {exc}"))
            return False
        # Judged before it is shown (the first frame reuses it): a long judgement shows its progress, Esc cancels.
        if not judge_with_progress(self.live, scenario, f"Opening {Path(path).name}"):
            self.flash(f"Opening {Path(path).name} cancelled: this table stays")
            return False
        # A demo opens as a copy: saving asks where, so the bundled file stays as shipped.
        self.dispatch(Open(scenario, None if as_demo else str(Path(path)), dirty=False))
        self.remember_on_disk(None if as_demo else str(path))
        self.fit()
        self._after_open()
        if warnings:
            self.show_problems("Opened with warnings", warnings)
        self.flash(f"Opened {Path(path).name}")
        return True

    def _after_open(self) -> None:
        self.firing = None
        for tool in self.tools.values():
            tool.deactivate(self)
        self.live.seed = self.state.seed
        self._rebuild_dropdown("ruleset")
        self._refresh_widgets()
        self._title()
        self.autosaver.set_path(self.state.path)
        if not self.state.dirty:
            self.autosaver.clean()  # a table as its file holds it: no autosave of the one before to offer

    def save(self, path: str | None = None, then: Callable[[], Any] | None = None, replace: bool = False) -> bool:
        """Save to ``path`` (or the current file; without one, ask where), then run ``then``.

        A file that is there but not as this window last opened or saved it (another Tabletop saved
        it meanwhile, an editor changed it, or Save as names another table) is replaced only after
        the user says so: True means saved now, False also when that question was asked."""
        path = path or self.state.path
        if path is None:
            self.ask_save_as(then=then)
            return False
        question = None if replace else self._replace_question(path)
        if question is not None:
            self.confirm(question, "Replace", lambda: self.save(path, then, replace=True), title="Replace the file?")
            return False
        rebased = rebase_backdrop(self.scenario, self.state.path, path)
        try:
            save(rebased, path)
        except Exception as exc:  # noqa: BLE001 - OSError, or a value the file syntax cannot hold: say so, keep the table
            self.show_message("Could not save", html.escape(f"{path}: {type(exc).__name__}: {exc}"[:600]))
            return False
        self.dispatch(MarkSaved(str(path)))  # the photo's path follows the file (only once it is written there)
        self.remember_on_disk(path)
        self.autosaver.clean()
        self.flash(f"Saved {path}")
        self._title()
        if then is not None:
            then()
        return True

    def remember_on_disk(self, path: str | None) -> None:
        """``path`` as this window reads or writes it now: saving over it later asks nothing, unless it changed."""
        self._on_disk = (_where(path), _fingerprint(path)) if path is not None else None

    def _replace_question(self, path: str) -> str | None:
        """What to ask before writing over ``path``; None when there is nothing there, or it is the file
        as this window last opened or saved it."""
        now = _fingerprint(path)
        if now is None:
            return None
        known = getattr(self, "_on_disk", None)
        name = Path(path).name
        if known is not None and known[0] == _where(path):
            if known[1] == now:
                return None
            return (f"{name} was changed on disk since this window opened or saved it (by another Tabletop or an editor?). "
                    "Replace it with this table? Cancel keeps it; Save as… can write this table elsewhere.")
        return f"{name} already exists. Replace it with this table?"

    def export_png(self, path: str) -> bool:
        """Write the table view as it is now (without the widgets) to a PNG."""
        r = self.view_rect
        try:
            surface = pygame.Surface(r.size)
            vp = Viewport(self.viewport.centre, self.viewport.scale, (0, 0, r.width, r.height))
            draw_scene(surface, vp, self._in_app_words(self.adjudication()), self._draw_options(still=True))
            png = io.BytesIO()
            pygame.image.save(surface, png, "export.png")
            atomic_write(path, png.getvalue())  # an old PNG is replaced whole or not at all
        except Exception as exc:  # noqa: BLE001 - a failed export is a message, the app carries on
            self.show_message("Could not export", html.escape(f"{path}: {type(exc).__name__}: {exc}"[:600]))
            return False
        self.flash(f"Exported {path}")
        return True

    # ------------------------------------------------------------------ crash recovery

    def offer_recoveries(self, recoveries: Sequence[Recovery]) -> None:
        """Offer the work of each crashed session, one after the other (Recover, Later, Discard…)."""
        self._recoveries = list(recoveries)
        self._recoveries_total = len(self._recoveries)
        self._offer_next_recovery()

    def _offer_next_recovery(self) -> None:
        if self._recoveries:
            self.offer_recovery(self._recoveries[0])

    def offer_recovery(self, recovery: Recovery) -> None:
        """The "Recover unsaved work" dialog for ``recovery``: what it is, what it holds, and when."""
        from .recovery_dialog import RecoveryDialog

        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(recovery.saved_at))
        name = Path(recovery.original_path).name if recovery.original_path else "an unsaved table"
        if recovery.emergency is not None:
            text = (
                f"Tabletop stopped ({recovery.error or 'unknown error'}). Your work on {name} was kept "
                f"in the emergency copy {recovery.emergency} ({when})."
            )
        else:
            text = f"Tabletop did not close cleanly. The unsaved work on {name} was autosaved at {when}."
        holds = describe_recovery(recovery)
        text += f"\nIt holds {holds}\nRecover it? Later keeps it for the next start; only Discard deletes it."
        readable = not holds.startswith("It cannot be read")
        title = "Recover unsaved work"
        total = getattr(self, "_recoveries_total", 1)
        if total > 1 and recovery in self._recoveries:
            title += f" ({total - len(self._recoveries) + 1} of {total})"
        dialog = RecoveryDialog(self._dialog_rect(560, 270), self.ui, text, lambda choice: self.answer_recovery(recovery, choice), title=title, can_recover=readable)
        self._confirms[dialog] = (lambda: None, None)  # a question open: the table waits (its close event is not an answer)
        self._remember_question(dialog, lambda old: self.offer_recovery(recovery))

    def answer_recovery(self, recovery: Recovery, choice: str) -> None:
        """The recovery dialog's answer: ``recover``, ``later`` or ``discard`` (which asks once more)."""
        if choice == "discard":
            name = Path(recovery.original_path).name if recovery.original_path else "an unsaved table"
            self.confirm(
                f"Delete the unsaved work on {name} for good? It cannot be brought back.",
                "Delete",
                lambda: self._recovery_done(recovery, discard=True),
                lambda: self.offer_recovery(recovery),  # Cancel or ×: asked again
                title="Discard unsaved work",
            )
        elif choice == "recover":
            self.confirm_discard(lambda: self._recovery_done(recovery, recover=True), "recover the crashed work")
        else:
            self._recovery_done(recovery)
            self.flash("The crashed work is kept: it is offered again at the next start")

    def _recovery_done(self, recovery: Recovery, recover: bool = False, discard: bool = False) -> None:
        if recovery in self._recoveries:
            self._recoveries.remove(recovery)
        if discard:
            discard_recovery(recovery)
            self.flash("The crashed work was deleted")
        elif not (recover and self.recover(recovery)):
            release_recovery(recovery)
        self._offer_next_recovery()

    def recover(self, recovery: Recovery) -> bool:
        """Open the crashed work (unsaved, on its file's path). Once this session's autosave holds it,
        the crashed session's files go; until then (or if it cannot be read) they stay."""
        try:
            scenario = load_recovery(recovery)
        except ScenarioError as exc:
            self.show_problems("Could not recover", exc.problems)
            return False
        problem = document_problem(scenario)
        if problem is not None:
            self.show_message("Could not recover", html.escape(f"{recovery.autosave}: {problem}"))
            return False
        # A signal from here on writes the recovered table to an emergency copy, which then stands for
        # the crashed session (stop_on_signal forgets it): the work is offered once, not twice.
        # (Not cleared on the way out of a SignalStop: the loop's stop_on_signal reads it after.)
        self.recovering = (recovery, scenario)
        self.dispatch(Open(scenario, recovery.original_path, dirty=True))
        self.remember_on_disk(recovery.original_path)  # as it is now: the offer said how the work differs from it
        self.fit()
        self._after_open()
        self.autosaver.changed(self.scenario, self._now)
        if self.autosaver.enabled and self.autosaver.flush():
            adopt_recovery(recovery)  # the work is in this session's autosave now
        else:
            release_recovery(recovery)
        self.recovering = None
        self.flash("Recovered the autosaved table: save it to keep it")
        return True

    def ask_open(self) -> None:
        def pick() -> None:
            start = str(Path(self.state.path).parent) if self.state.path else str(SCENARIOS if SCENARIOS.exists() else Path.cwd())
            self._file_dialog("Open scenario", lambda p: self.open_file(p), start, True, {".toml", ".json"})

        self.confirm_discard(pick, "open another table")

    def ask_save_as(self, then: Callable[[], Any] | None = None) -> None:
        """Ask where to save; ``then`` runs after a successful save (not when it fails or is cancelled)."""
        start = self.state.path or suggested_path(None, self.scenario.title, ".toml")

        def picked(p: str) -> None:
            target = self._named_for("Save", p, ".toml", (".toml", ".json"))
            if target is not None:
                self.save(target, then=then)

        self._file_dialog("Save scenario as", picked, start, False, {".toml", ".json"})

    def ask_export(self) -> None:
        base = suggested_path(self.state.path, self.scenario.title, ".png")
        from .share_export import EXPORTS, export_as

        title = "Export: .png view, .svg vector, .gif animation or .md text"

        def picked(p: str) -> None:
            target = self._named_for("Export", p, ".png", tuple(EXPORTS))
            if target is not None:
                export_as(self, target)

        self._file_dialog(title, picked, str(base), False, set(EXPORTS))

    def _named_for(self, verb: str, path: str, default: str, allowed: tuple[str, ...]) -> str | None:
        """``path`` with ``default`` added when it has no extension; None (and a message) for one ``verb`` cannot write."""
        target = with_suffix(path, default, allowed)
        if target is None:
            kinds = ", ".join(allowed[:-1]) + " or " + allowed[-1]
            self.show_message(f"Cannot {verb.lower()} as {Path(path).suffix}", html.escape(f"{path}: {verb} writes {kinds} files. Nothing was written; choose a name ending in one of those."))
        return target


def _where(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _fingerprint(path: str) -> tuple[int, int, int] | None:
    """The file at ``path`` as the system sees it (inode, size, modification time); None if nothing is there."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def with_suffix(path: str, default: str, allowed: tuple[str, ...]) -> str | None:
    """``path`` if its extension is allowed, ``path + default`` if it has none, else None."""
    suffix = Path(path).suffix.lower()
    if suffix in allowed:
        return path
    return path + default if not suffix else None
