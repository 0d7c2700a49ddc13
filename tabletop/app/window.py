"""The desktop shell: pygame events → commands → new state; drawing only reads state.

``TabletopApp`` follows pygame_gui's split: ``process_events(event)``,
``update(dt)``, ``draw(surface)``. It holds the one ``AppState`` (immutable,
changed only through ``dispatch``), the live adjudication cache, the viewport,
the widgets and one instance of each table tool (``tabletop.app.tools``); the
chosen tool gets the mouse and the keys first.
"""

from __future__ import annotations

import html
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UIDropDownMenu, UILabel, UIPanel, UITextBox, UITextEntryLine
from pygame_gui.windows import UIConfirmationDialog, UIMessageWindow

from tabletop.adjudicate import Adjudication
from tabletop.catalogue import default_catalogue
from tabletop.draw import DrawOptions, draw_scene
from tabletop.draw.style import auto_ui_scale
from tabletop.label_layout import Overlay, dock_overlays
from tabletop.draw_odds import draw_odds
from tabletop.model import PlacedTemplate, Point, Scenario
from tabletop.scenario_io import Problem, ScenarioError, load_with_warnings
from tabletop.viewport import Viewport

from . import overlays
from .advice import for_the_app
from .actions import ActionsMixin
from .build import BuildMixin
from .autosave import Autosaver, Recovery, adopt_recovery, find_recoveries, release_recovery
from .documents import DocumentsMixin
from .elevation import ElevationProfile
from .firing import Firing, STEP_SECONDS
from .frames import FramePacer
from .input import InputMixin
from .lifecycle import NoDisplay, SignalStop, on_signals, open_display, signal_name
from .inspector import InspectorMixin
from .layout import DEFAULT_SCENARIO, TOOLBAR_H, STATUS_H, PANEL_W, LOUPE_PX, ELEVATION_SIZE, HINT_MAX_W, THEME, demo_tables, toolbar_layout, view_rect_for
from .judging import judge_with_progress
from .live import LiveAdjudicator, placed_templates
from .odds_worker import OddsWorker
from .present import PresenterMixin
from .backdrop import Backdrops
from .photo_import import PhotoImportMixin
from tabletop.draw.backdrop import show_backdrop
from .rules_menu import current_label, ruleset_options
from .results_panel import results_html
from .state import AppState, Command, CommandError, Ref, empty_scenario, format_numbers, new_state
from .status_bar import StatusBarMixin
from .tools import TOOL_BUTTONS, Tool, make_tools
from .tools.ruler import draw_pinned
from .validate import document_problem
from .widgets import THEME_FONTS, OverlayContainer, PathDialog, UnsavedChangesDialog, preload_fonts, text_width, widen_list


#: Seconds between two updates of the results panel (setting its text is slow).
RESULTS_REFRESH_S = 0.2


def startup_scenario(path: str | None) -> tuple[Scenario, str | None, list[Problem]]:
    """The scenario to open: ``path``, else the bundled default, else any scenario, else an empty 48" table.

    A file that fails to load is reported in the problems and replaced by the default table.
    """
    problems: list[Problem] = []
    if path is not None:
        try:
            scenario, warnings = load_with_warnings(path)
            return scenario, str(path), warnings
        except ScenarioError as exc:
            problems = exc.problems
    for candidate in [DEFAULT_SCENARIO, *demo_tables()]:
        if candidate.exists():
            try:
                return load_with_warnings(candidate)[0], None, problems
            except Exception:  # noqa: BLE001 - a broken bundled file must not stop the app
                continue
    return empty_scenario(), None, problems


class TabletopApp(InputMixin, ActionsMixin, BuildMixin, DocumentsMixin, InspectorMixin, StatusBarMixin, PresenterMixin, PhotoImportMixin):
    """The app: state, live adjudication, viewport and widgets; the loop's three calls and the dialogs.

    The rest of its behaviour is in mixins, one module each: ``input`` (events, shortcuts,
    panning, routing the mouse to the chosen tool of ``tools``), ``actions``, ``documents``
    (files and recovery), ``inspector`` (the side panel's fields) and ``status_bar``.
    """

    def __init__(
        self,
        scenario: Scenario,
        path: str | None = None,
        size: tuple[int, int] = (1280, 800),
        *,
        autosave: bool = True,
        problems: list[Problem] | None = None,
        recoveries: Sequence[Recovery] = (),
        set_caption: bool = True,
    ) -> None:
        self.size = size
        self.state: AppState = new_state(scenario, path)
        self.live = LiveAdjudicator(seed=self.state.seed)
        self._catalogue = default_catalogue()
        if self.state.new_shape not in self.catalogue and self.catalogue:
            self.state = replace(self.state, new_shape=next(iter(self.catalogue)))
        self.viewport = self._fit_viewport()
        self.ui = pygame_gui.UIManager(size, THEME)
        preload_fonts(self.ui, THEME_FONTS)
        self.autosaver = Autosaver(enabled=autosave)
        self.autosaver.start(path)
        self.remember_on_disk(path)
        self.set_caption = set_caption
        self.running = True
        self.exit_code = 0
        self.tools: dict[str, Tool] = make_tools()
        self.pan: tuple[int, Point] | None = None  # a pan in progress: its button, the world point held
        self.mouse_screen: tuple[int, int] | None = None
        self.mouse_world: Point | None = None
        self.hovered: Ref | None = None
        self.firing: Firing | None = None
        self.message = ""
        self.message_is_error = False
        self.frame_ms = 0.0
        self.draw_ms = 0.0
        self.odds_worker = OddsWorker()
        self.backdrops = Backdrops()
        self.photo_import = None
        self._elevation: tuple[Any, ElevationProfile | None] | None = None
        self._app_words: tuple[Adjudication, Adjudication] | None = None
        self._gesture = 0
        self._wheel_gesture: tuple[int, str, float] | None = None
        self._dialogs: dict[Any, Callable[[str], None]] = {}
        self._confirms: dict[Any, tuple[Callable[[], None], Callable[[], None] | None]] = {}
        self._unsaved: dict[UnsavedChangesDialog, Callable[[], Any]] = {}
        self._questions: dict[Any, Callable[[Any], Any]] = {}  # every open dialog: how to ask it again (given the old one)
        self._recoveries: list[Recovery] = []  # crashed sessions' work still to offer, the one shown first
        self._recoveries_total = 0
        self._signal_stop = threading.Lock()
        self._signal_result: tuple[bool, Path | None] | None = None  # what stop_on_signal did, once
        #: A crashed session's work being opened (Recover), and its table, until this session's autosave holds it.
        self.recovering: tuple[Recovery, Scenario] | None = None
        self._inspector: list[Any] = []
        self._inspector_key: Any = object()
        self._fields: dict[str, Any] = {}
        self._results_key: Any = None
        self._results_due = 0.0
        self._now = 0.0
        self._message_until = 0.0
        self._build_ui()
        if problems:
            errors = [p for p in problems if not p.warning]
            if errors:
                self.show_problems("Could not open the file", problems)
        self.offer_recoveries(recoveries)
        self._title()

    # ------------------------------------------------------------------ state

    @property
    def scenario(self) -> Scenario:
        return self.state.scenario

    def adjudication(self) -> Adjudication:
        """What the view shows: the last Fire result until the next edit, else the live one."""
        if self.firing is not None and self.firing.done and self.firing.adjudication.scenario is self.scenario:
            return self.firing.adjudication
        return self.live_adjudication()

    def live_adjudication(self) -> Adjudication:
        try:
            return self.live.adjudicate(self.scenario)
        except Exception as exc:  # noqa: BLE001 - a ruleset failing must not take the editor down
            self.flash(f"{self.scenario.ruleset}: {exc}", error=True)
            return Adjudication(self.scenario, ())

    def placed(self) -> dict[str, PlacedTemplate]:
        """Each template where the view draws it (after a Fire, where it landed): hit-testing, hover,
        the selection, the handles and the loupe use these, so what is drawn is what is touched."""
        return placed_templates(self.adjudication())

    @property
    def tool(self) -> Tool:
        """The tool the toolbar has chosen."""
        return self.tools[self.state.tool]

    @property
    def dragging(self) -> bool:
        """A mouse button is held in a pan or a tool's gesture."""
        return self.pan is not None or self.tool.busy

    @property
    def catalogue(self) -> dict[str, Any]:
        """The template catalogue, with the table's rules file's own templates (docs/rules-files.md)."""
        from tabletop import rulesfile

        return rulesfile.catalogue_with(self.scenario.ruleset, self._catalogue)

    @property
    def ruler(self) -> overlays.RulerReading | None:
        """The ruler's reading, if one is shown."""
        return self.tools["ruler"].reading  # type: ignore[attr-defined, no-any-return]

    def dispatch(self, command: Command, validate: bool = False) -> bool:
        """Apply ``command``; returns False (and says why) when it does not fit the state.

        ``validate``: also refuse an edit whose table would not load back from its file
        (the loader's own checks), as for fields typed in the side panel.
        """
        before = self.state
        try:
            after = apply_command(self.state, command)
        except CommandError as exc:
            self.flash(str(exc), error=True)
            return False
        if validate and after.scenario is not before.scenario:
            problem = document_problem(after.scenario, before.scenario)
            if problem is not None:
                self.flash(f"Not applied: {problem}", error=True)
                return False
        self.state = after
        if after.tool != before.tool:
            self.tools[before.tool].deactivate(self)
            self.tools[after.tool].activate(self)
        if self.state.scenario is not before.scenario:
            if self.message_is_error and self._now < self._message_until and not self._modal_open():
                self.message = ""  # an edit went through: an earlier "Not applied: …" no longer stands
            self.firing = None
            self.autosaver.changed(self.state.scenario, self._now)
            if not self.dragging and self.mouse_world is not None:
                self._hover(self.mouse_world)  # an undo or an edit may have moved the item away from the mouse
        if self.state.path != before.path:
            self.autosaver.set_path(self.state.path)
        if self.state.dirty != before.dirty or self.state.path != before.path or self.state.scenario.title != before.scenario.title:
            self._title()
        if not self.dragging:
            self._refresh_widgets()
        return True

    def flash(self, message: str, error: bool = False) -> None:
        """A one-line note in the status bar."""
        self.message = message
        self.message_is_error = error
        self._message_until = self._now + (10.0 if error else 5.0)

    # ------------------------------------------------------------------ layout

    @property
    def view_rect(self) -> pygame.Rect:
        return pygame.Rect(view_rect_for(self.size))

    def _fit_viewport(self) -> Viewport:
        r = self.view_rect
        t = self.scenario.table
        return Viewport.fit(t.width, t.depth, (r.x, r.y, r.width, r.height), margin_px=36)

    def fit(self) -> None:
        self.viewport = self._fit_viewport()

    def resize(self, size: tuple[int, int]) -> None:
        """The window changed size: keep the view centre and zoom, rebuild the widgets (a photo's review refits the
        whole table where it showed it whole, ``review_resized``)."""
        before, shown = self.view_rect, self.viewport
        self.size = (max(640, size[0]), max(420, size[1]))
        r = self.view_rect
        self.viewport = self.viewport.resized((r.x, r.y, r.width, r.height))
        self.ui.set_window_resolution(self.size)
        self._build_ui()
        self.review_resized(before, shown)

    def _build_ui(self) -> None:
        again = self._open_questions()  # a resize rebuilds every widget: the questions are asked again
        self._dialogs.clear()
        self._confirms.clear()
        self._unsaved.clear()
        self.ui.clear_and_reset()
        self._messages: list[UIMessageWindow] = []
        self.settings_window: Any = None  # Ruleset ▸ Settings… while it is open
        self._message_titles: dict[Any, str] = {}
        self._inspector = []
        self._inspector_key = object()
        w, h = self.size
        places, toolbar_h = toolbar_layout(w)
        self.toolbar = UIPanel(pygame.Rect(0, 0, w, toolbar_h), manager=self.ui, margins={"left": 0, "right": 0, "top": 0, "bottom": 0})
        self.buttons: dict[str, UIButton] = {}

        def button(key: str, label: str, tip: str, object_id: str | None = None) -> UIButton:
            b = UIButton(pygame.Rect(places[key]), label, self.ui, container=self.toolbar, tool_tip_text=tip, object_id=object_id)
            self.buttons[key] = b
            return b

        button("new", "New", "New empty 48\"×48\" table (Ctrl+N)")
        button("open", "Open", "Open a scenario (Ctrl+O)")
        button("save", "Save", "Save (Ctrl+S); Save as: Ctrl+Shift+S")
        button("export", "Export", "Export (Ctrl+E): PNG view, SVG vector, animated GIF or Markdown text, by extension")
        button("photo", "Photo…", "Import a photo of the table (Ctrl+I): its corners from the printed markers (tabletop photo "
               "markers), its edges or your clicks; its bases found, then reviewed (Ctrl+Shift+I: again). B: backdrop, [ ]: opacity")
        button("undo", "Undo", "Undo (Ctrl+Z)")
        button("redo", "Redo", "Redo (Ctrl+Y)")
        self.tool_buttons: dict[str, UIButton] = {}
        for key, label, tip in TOOL_BUTTONS:
            self.tool_buttons[key] = button(key, label, tip, "#tool_active" if self.state.tool == key else None)
            del self.buttons[key]
        # The drop-down lives on a layer over the whole window: inside the toolbar its list was clipped to 3 px.
        self.overlay = OverlayContainer(pygame.Rect(0, 0, w, h - STATUS_H), self.ui)
        self.demo_menu = self._demo_menu(pygame.Rect(places["demo"]))
        button("odds", "Odds", "Odds (O): each model's chance to be affected and expected damage, heat map of where the template lands")
        button("dice_free", "Dice free", "Dice free (Shift+O): Fire and the odds roll every die, setting the file's fixed rolls aside; off: both use the file's fixed rolls")
        button("help", "?", "Every shortcut (F1)")

        px = w - PANEL_W
        top = toolbar_h
        ph = h - toolbar_h - STATUS_H
        self.panel = UIPanel(pygame.Rect(px, top, PANEL_W, ph), manager=self.ui)
        iw = PANEL_W - 24
        y = 6
        UILabel(pygame.Rect(8, y, 90, 26), "Ruleset", self.ui, container=self.panel, object_id="#small")
        self.ruleset_menu = UIDropDownMenu(ruleset_options(self.scenario.ruleset), current_label(self.scenario.ruleset), pygame.Rect(100, y, iw - 92, 26), self.ui, container=self.panel)
        self._ruleset_menu_for = self.scenario.ruleset
        y += 30
        UILabel(pygame.Rect(8, y, 90, 26), "New template", self.ui, container=self.panel, object_id="#small")
        names = list(self.catalogue) or ["large_blast"]
        self.shape_menu = UIDropDownMenu(names, self.state.new_shape if self.state.new_shape in names else names[0], pygame.Rect(100, y, iw - 92, 26), self.ui, container=self.panel, expansion_height_limit=260)
        y += 30
        UILabel(pygame.Rect(8, y, 40, 28), "Seed", self.ui, container=self.panel, object_id="#small")
        self.seed_entry = UITextEntryLine(pygame.Rect(48, y, 70, 28), self.ui, container=self.panel, initial_text=str(self.state.seed))
        UILabel(pygame.Rect(122, y, 58, 28), "What-if", self.ui, container=self.panel, object_id="#small")
        self.whatif_entry = UITextEntryLine(pygame.Rect(180, y, iw - 172, 28), self.ui, container=self.panel, initial_text=format_numbers(self.state.what_if), placeholder_text="roll=5, …")
        y += 32
        self.buttons["fire"] = UIButton(pygame.Rect(8, y, iw + 8, 32), "FIRE  (Enter)", self.ui, container=self.panel, object_id="#fire", tool_tip_text="Resolve every template with the seeded dice (and the what-if rolls) and animate it; Dice free off: with the file's fixed rolls")
        y += 40
        self.inspector_top = y
        self.inspector_h = 346  # the model panel's heading, 10 rows (Name to Row of copies) and its buttons
        results_top = y + self.inspector_h + 4
        UILabel(pygame.Rect(8, results_top, iw, 22), "Results", self.ui, container=self.panel, object_id="#heading")
        self.results_box = UITextBox("", pygame.Rect(8, results_top + 24, iw + 8, max(60, ph - results_top - 34)), self.ui, container=self.panel)
        self._results_key = None
        self._results_text: str | None = None
        self._refresh_widgets()
        self._ask_again(again)

    # ------------------------------------------------------------------ widgets that follow the state

    def _refresh_widgets(self) -> None:
        toggles = {"odds": self.state.view.show_odds, "dice_free": self.state.view.odds_dice_free}
        for key, b in [*self.tool_buttons.items(), *((k, self.buttons[k]) for k in toggles if k in self.buttons)]:
            active = toggles[key] if key in toggles else self.state.tool == key
            want = "#tool_active" if active else None
            if (b.object_ids[-1] if b.object_ids else None) != want:
                b.change_object_id(want)
        undo, redo = self.buttons.get("undo"), self.buttons.get("redo")
        if undo is not None:
            undo.enable() if self.state.history.can_undo else undo.disable()
        if redo is not None:
            redo.enable() if self.state.history.can_redo else redo.disable()
        # Built again when the table's ruleset changed (an undo, another file), not when the menu's own choice
        # differs: between a pick and the app's handling of it (a frame or two later) a refresh killed the
        # menu, its pick with it.
        if self._ruleset_menu_for != self.scenario.ruleset:
            self._rebuild_dropdown("ruleset")
        self._refresh_inspector()

    def _rebuild_dropdown(self, which: str) -> None:
        if which == "ruleset":
            rect = self.ruleset_menu.relative_rect.copy()
            self.ruleset_menu.kill()
            self.ruleset_menu = UIDropDownMenu(ruleset_options(self.scenario.ruleset), current_label(self.scenario.ruleset), rect, self.ui, container=self.panel)
            self._ruleset_menu_for = self.scenario.ruleset
        elif which == "demo":
            rect = self.demo_menu.relative_rect.copy()
            self.demo_menu.kill()
            self.demo_menu = self._demo_menu(rect)

    def _demo_menu(self, rect: pygame.Rect) -> UIDropDownMenu:
        """The toolbar's "Demo tables" drop-down, opening down over the table: as wide as its longest
        name (with room for the scroll bar), its right edge at the table view's (not over the panel)."""
        names = ["Demo tables…"] + [p.stem for p in demo_tables()]
        limit = max(60, self.size[1] - STATUS_H - rect.bottom - 8)
        menu = UIDropDownMenu(names, names[0], rect, self.ui, container=self.overlay, expansion_height_limit=limit)
        width = max(text_width(self.ui, n) for n in names) + 44
        right = max(min(rect.right, self.view_rect.right), width)
        widen_list(menu, min(width, right), right)
        return menu

    def _refresh_results(self, force: bool = False) -> None:
        adj = self.adjudication()
        # The adjudication itself, held and compared by identity, not its id(): an id can be reused once the old
        # object is freed, and the panel would then keep showing the previous answer.
        key = (adj, self.live.errors and tuple(self.live.errors.items()))
        if not force and ((self._results_key is not None and key[0] is self._results_key[0] and key[1] == self._results_key[1])
                          or self._now < self._results_due):
            return
        self._results_key = key
        # Setting the text box's HTML costs tens of ms: at most a few times a second, and only when it changed.
        self._results_due = self._now + RESULTS_REFRESH_S
        fired = self.firing is not None and self.firing.done and adj is self.firing.adjudication
        dice_free = self.firing.dice_free if fired and self.firing is not None else self.state.view.odds_dice_free
        text = results_html(adj, fired=fired, errors=self.live.errors, dice_free=dice_free)
        if force or text != self._results_text:
            self._results_text = text
            self.results_box.set_text(text)

    def _title(self) -> None:
        if not self.set_caption:
            return
        name = Path(self.state.path).name if self.state.path else "unsaved"
        star = "• " if self.state.dirty else ""
        title = self.scenario.title or "Untitled table"
        try:
            pygame.display.set_caption(f"{star}{title} — {name} — Tabletop")
        except pygame.error:
            pass

    # ------------------------------------------------------------------ events

    def shutdown(self) -> None:
        """Stop the background work (the odds worker) and let go of the session's lock and of the
        crashed sessions still offered. The autosave stays: only ``quit`` (after the user saved or
        chose to discard) removes it, and only this session's."""
        self.odds_worker.shutdown()
        show_backdrop(None)  # the drawing layer is process-wide: a later render must not inherit the photo
        for recovery in self._recoveries:
            release_recovery(recovery)  # kept for the next start
        self._recoveries = []
        self.autosaver.release()

    def crash(self, error: BaseException) -> Path | None:
        """The loop is stopping on an unexpected error (or Ctrl+C): keep the autosave and the
        marker, write an emergency copy of the table, and return its path (None if it failed)."""
        self.running = False
        self.exit_code = 130 if isinstance(error, KeyboardInterrupt) else 1
        return self.autosaver.emergency(self.scenario, error)

    def stop_on_signal(self, signum: int) -> tuple[bool, Path | None]:
        """A signal (SIGINT, SIGTERM, SIGHUP) stops the app now, never asking: unsaved work goes to an
        emergency copy offered at the next start; with nothing unsaved it is a clean quit (only this
        session's files go). Returns (whether there was unsaved work, the copy). Runs once, from the
        loop or from the stop watchdog when the loop is stuck."""
        with self._signal_stop:
            self.running = False
            self.exit_code = 128 + signum
            if self._signal_result is not None:
                return self._signal_result
            unsaved = self.state.dirty
            copy = self.autosaver.emergency(self.scenario, f"stopped by {signal_name(signum)}") if unsaved else None
            if copy is not None and self.recovering is not None and self.scenario is self.recovering[1]:
                # Stopped while Recover was opening a crashed session's work, before this session's
                # autosave held it: the emergency copy holds that work now, and alone is offered next time.
                adopt_recovery(self.recovering[0])
            if not unsaved:
                self.autosaver.stop()
            self._signal_result = (unsaved, copy)
            return self._signal_result

    def request_quit(self) -> None:
        self.confirm_discard(self.quit, "quit")

    def quit(self) -> None:
        """Quit for real: the table is saved or the user chose to discard it."""
        self.running = False
        self.autosaver.stop()
        self.shutdown()

    def confirm_discard(self, action: Callable[[], Any], doing: str) -> None:
        """Run ``action``; with unsaved changes, ask first: Save (then ``action``), Discard, Cancel."""
        if not self.state.dirty:
            action()
            return
        if self._unsaved:
            return  # already asking
        self._ask_unsaved(f"The table has unsaved changes. Save them before you {doing}?", action)

    def _ask_unsaved(self, text: str, action: Callable[[], Any]) -> None:
        dialog = UnsavedChangesDialog(self._dialog_rect(460, 190), self.ui, text)
        self._unsaved[dialog] = action
        self._remember_question(dialog, lambda old: self._ask_unsaved(text, action))

    def _remember_question(self, dialog: Any, ask: Callable[[Any], Any]) -> None:
        """``ask(old_dialog)`` opens ``dialog``'s question again (after a resize); answered ones are forgotten."""
        for old in [d for d in self._questions if not d.alive()]:
            del self._questions[old]
        self._questions[dialog] = ask

    def _open_questions(self) -> list[Callable[[], Any]]:
        """How to ask again every question still open (oldest first), before the widgets are rebuilt;
        forgets them, so the windows' close events that follow do not count as answers."""
        again: list[Callable[[], Any]] = []
        for dialog, ask in self._questions.items():
            if dialog.alive():
                again.append(lambda ask=ask, dialog=dialog: ask(dialog))
        self._questions.clear()
        job = getattr(self, "photo_import", None)
        entry = getattr(job, "size_entry", None)
        if entry is not None and entry.alive():
            text = entry.get_text()

            def size_entry_again() -> None:
                if self.photo_import is job:
                    job.size_entry = self._size_entry(job.table_mm)  # type: ignore[union-attr]
                    job.size_entry.set_text(text)  # type: ignore[union-attr]

            again.append(size_entry_again)
        return again

    def _ask_again(self, again: list[Callable[[], Any]]) -> None:
        for ask in again:
            ask()

    def answer_unsaved(self, dialog: UnsavedChangesDialog, choice: str) -> None:
        """The unsaved-changes dialog's button: ``save``, ``discard`` or ``cancel``."""
        action = self._unsaved.pop(dialog, None)
        dialog.kill()
        if action is None or choice == "cancel":
            return
        if choice == "discard":
            action()
        else:
            self.save_then(action)

    def save_then(self, action: Callable[[], Any]) -> None:
        """Save, then run ``action``; a table without a file asks where first. If saving fails, stay."""
        self.save(then=action)

    def confirm(self, text: str, ok: str, action: Callable[[], Any], cancel: Callable[[], Any] | None = None, title: str = "Confirm") -> None:
        dialog = UIConfirmationDialog(self._dialog_rect(440, 200), html.escape(text), self.ui, window_title=title, action_short_name=ok)
        self._confirms[dialog] = (action, cancel)
        self._remember_question(dialog, lambda old: self.confirm(text, ok, action, cancel, title))

    def _dialog_rect(self, w: int, h: int) -> pygame.Rect:
        r = pygame.Rect(0, 0, min(w, self.size[0] - 20), min(h, self.size[1] - 20))
        r.center = (self.size[0] // 2, self.size[1] // 2)
        return r

    def _file_dialog(self, title: str, action: Callable[[str], Any], initial: str | None, existing: bool, suffixes: set[str]) -> None:
        dialog = PathDialog(
            self._dialog_rect(560, 440),
            self.ui,
            window_title=title,
            initial_file_path=initial,
            allow_existing_files_only=existing,
            allowed_suffixes=suffixes,
        )
        self._dialogs[dialog] = action
        # Modal for the mouse too: the widgets under it are no longer hovered, so the tooltip of the button that opened it
        # goes (the Photo… button's stayed drawn over the import's dialog, h50).
        dialog.set_blocking(True)
        # The path box has the keys: Enter takes the name offered, or type another (Ctrl+A selects it all).
        self.ui.set_focus_set(dialog.file_path_text_line)
        dialog.file_path_text_line.edit_position = len(dialog.file_path_text_line.get_text())

        def again(old: Any) -> None:
            typed = getattr(getattr(old, "file_path_text_line", None), "get_text", lambda: "")()
            self._file_dialog(title, action, typed or initial, existing, suffixes)  # what was typed or browsed to

        self._remember_question(dialog, again)

    def show_problems(self, title: str, problems: list[Problem]) -> None:
        body = "<br>".join(html.escape(str(p)) for p in problems[:40])
        if len(problems) > 40:
            body += f"<br>… and {len(problems) - 40} more"
        self.show_message(title, body)

    def show_message(self, title: str, html_text: str) -> None:
        """A message window; its title is also flashed in the status bar until it is dismissed."""
        window = UIMessageWindow(self._dialog_rect(620, 320), html_text, self.ui, window_title=title)
        self._messages.append(window)
        self._message_titles[window] = title
        self._remember_question(window, lambda old: self.show_message(title, html_text))
        self.flash(title, error=True)

    def message_closed(self, window: Any) -> None:
        """A message window was dismissed: the status bar stops saying it."""
        title = self._message_titles.pop(window, None)
        if title is not None and self.message == title:
            self.message = ""
            self._message_until = self._now

    # ------------------------------------------------------------------ update / draw

    def animating(self) -> bool:
        """Something on screen moves by itself (or under a held button): frames at full rate."""
        job = self.photo_import
        return (
            (self.firing is not None and not self.firing.done)
            or self.dragging
            or (self.state.view.show_odds and self.odds_worker.pending)
            or (job is not None and any(t is not None and t.is_alive() for t in (job.thread, job.finder)))
            or (self._reopening is not None and self._reopening[0].is_alive())
        )

    def typing_focused(self) -> bool:
        """A text field has the focus: its cursor blinks."""
        return self._typing()

    def frame_key(self) -> tuple[Any, ...]:
        """What the picture shows that can change without an event (a status message running out,
        the odds arriving, the autosave failing): a new key is drawn even when nothing else happens."""
        job = self.photo_import
        return (
            self.state,
            self.firing,
            self.firing is not None and self.firing.done,
            self.odds_worker.result if self.state.view.show_odds else None,
            self.odds_worker.error if self.state.view.show_odds else None,
            self.message if self._now < self._message_until else "",
            self.photo_import,
            # What the import's table finder found, and whether it still looks: set by its thread with no event, and the
            # loop's frames at full rate stop with that thread, so the outline it found (and the hint saying it looks)
            # could be left undrawn until the user moved the mouse.
            None if job is None else job.marked,
            None if job is None else job.auto,
            job is not None and job.finder is not None and job.finder.is_alive(),
            self.presenter,
            tuple(self.size),
            self._reopen_button,  # the "Review photo" button made (or remade) with no event: drawn at once
            self.review,
        )

    def update(self, dt: float) -> None:
        """Advance time: widgets, the fire animation, the autosave."""
        self._now += dt
        self.ui.update(dt)
        if self.hovered is not None and self._modal_open():
            self.hovered = None  # a dialog covers the table: no tooltip; the next move on the table brings it back
        if self.firing is not None and not self.firing.done:
            self.firing.elapsed += dt
            if self.firing.done:
                self._refresh_results(force=True)
        failures = self.autosaver.failures
        self.autosaver.tick(self._now)
        if self.autosaver.failures != failures and self.autosaver.last_error:
            self.flash(self.autosaver.last_error, error=True)
        if self.state.view.show_odds:
            self.odds_worker.request(self.odds_request(), self._now)
            self.odds_worker.poll(self._now)
        elif self.odds_worker.running:
            self.odds_worker.poll(self._now)  # odds off: collect the job the worker is giving up
        self.poll_photo_import()
        self._refresh_results()  # during a drag too: the panel follows the live answer

    def _in_app_words(self, adj: Adjudication) -> Adjudication:
        """``adj`` with refusals in the app's words (``advice.for_the_app``), kept while ``adj`` is."""
        cached = self._app_words
        if cached is None or cached[0] is not adj:
            cached = self._app_words = (adj, for_the_app(adj))
        return cached[1]

    def _draw_options(self, still: bool = False) -> Any:
        """What the window draws; ``still``: an export (no selection, no hover hints)."""
        v = self.state.view
        sel = self.state.selection.id if not still and self.state.selection else None
        hov = self.hovered.id if self.hovered and not self._modal_open() else None
        button = self._reopen_button
        return DrawOptions(
            show_grid=v.show_grid,
            show_names=v.show_names,
            show_visibility=v.show_visibility,
            show_legend=v.show_legend,
            show_rulers=v.show_rulers,
            show_title=True,
            selected=sel,
            hovered=hov,
            template_alpha=70,
            palette="cb" if v.palette_cb else "default",
            ui_scale=self.ui_scale,
            live=not still,
            # The table's labels keep off the "Review photo" button over the view (it is drawn over them).
            reserved=(tuple(button.rect),) if not still and button is not None and button.alive() else (),
        )

    @property
    def ui_scale(self) -> float:
        """Fonts, labels and leaders scale: TABLETOP_UI_SCALE, else from the desktop's size (1 at 1080p)."""
        scale = getattr(self, "_ui_scale", None)
        if scale is None:
            desktop = None
            try:
                sizes = pygame.display.get_desktop_sizes() if pygame.display.get_init() else []
                desktop = tuple(sizes[0]) if sizes else None
            except pygame.error:
                pass
            scale = self._ui_scale = auto_ui_scale(desktop, os.environ.get("TABLETOP_UI_SCALE"))  # type: ignore[arg-type]
        return scale

    def _docked(self, frame: Any, name: str, size: tuple[int, int], corner: str, shrink: tuple[float, ...] = (1.0,)) -> pygame.Rect:
        """Where a panel over the table goes: off every base, label and panel drawn (the emptiest corner;
        at each of the ``shrink`` factors of its size in turn), else off the bases only, else its usual corner."""
        view = self.view_rect
        table = self.viewport.to_screen(0.0, self.scenario.table.depth), self.viewport.to_screen(self.scenario.table.width, 0.0)
        (x0, y0), (x1, y1) = table
        box = (x0, y0, x1 - x0, y1 - y0)
        spot = None
        for k in shrink:
            spot = frame.dock([Overlay(name, (round(size[0] * k), round(size[1] * k)), corner)], table=box, canvas=tuple(view), margin=12)[name]
            if spot is not None:
                break
        if spot is None:
            # No corner clear of the labels too: keep off the bases, panels and rulers at least.
            fixed = [*frame.overlays.values(), *frame.regions, *(p.rect for p in frame.extra)]
            spot = dock_overlays(tuple(view), box, frame.base_boxes(), [Overlay(name, size, corner)], margin=12, avoid=fixed)[name]
        if spot is not None:
            return pygame.Rect(spot)
        rect = pygame.Rect(0, 0, *size)
        setattr(rect, corner.replace("_", ""), (view.left + 12, view.bottom - 12) if corner == "bottom_left" else (view.right - 12, view.bottom - 12))
        return rect

    def draw(self, surface: pygame.Surface) -> None:
        """Draw the table, the overlays, the widgets and the status bar."""
        start = time.perf_counter()
        if self.presenter is not None:  # presenter mode (F5) has the whole screen
            self.presenter.draw(surface)
            self.draw_ms = (time.perf_counter() - start) * 1000
            return
        surface.fill((24, 27, 32))
        view = self.view_rect
        vp = self.viewport
        shown = self.adjudication()
        surface.set_clip(view)
        show_backdrop(self.backdrops.layer(self.scenario, self.state.path))
        backdrop_error = self.backdrops.new_error()
        if backdrop_error:
            self.flash(backdrop_error, error=True)
                # While dragging, labels whose anchors did not move keep last frame's places.
        previous = getattr(self, "_frame", None) if self.dragging else None
        frame = draw_scene(surface, vp, self._in_app_words(shown), self._draw_options(), previous=previous)
        self._frame = frame
        frame = self.place_reopen_button(frame)
        self.draw_proposed(surface)
        placed = placed_templates(shown)
        sel = self.state.selection
        if sel is not None:
            overlays.draw_selection(surface, vp, self.scenario, placed, sel.kind, sel.id)
        for also in self.state.also_selected:
            overlays.draw_selection(surface, vp, self.scenario, placed, also.kind, also.id)
        draw_pinned(self, surface)
        if self.firing is not None and not self.firing.done and self.firing.keyframes:
            i = min(len(self.firing.keyframes) - 1, int(self.firing.elapsed // STEP_SECONDS))
            tid, a, b, caption = self.firing.keyframes[i]
            t = (self.firing.elapsed - i * STEP_SECONDS) / STEP_SECONDS
            overlays.draw_animation(surface, vp, overlays.interpolate(a, b, t), caption, t)
        odds = self.odds_worker.result if self.state.view.show_odds else None
        if odds is not None:
            note = "dice free" if self.odds_worker.result_request and self.odds_worker.result_request.dice_free else "fixed rolls kept"
            if self.odds_worker.pending:
                note += " · updating…"
            corner = "bottomleft" if self.state.view.show_legend else "topright"
            frame = draw_odds(surface, vp, odds.scenario, odds, note=note, legend_corner=corner, frame=frame)
        overlays.set_frame(frame)
        self.tool.draw(self, surface)
        frame = overlays._frame[0] if overlays._frame else frame
        if sel is not None and sel.kind == "model" and self.state.view.show_loupe and placed:
            try:
                m = self.scenario.model(sel.id)
                target = overlays.loupe_target(m, placed)
                if target is not None:
                    rect = self._docked(frame, "loupe", (LOUPE_PX, LOUPE_PX), "bottom_right")
                    frame = frame.adding(overlays={"loupe": tuple(rect)})
                    overlays.draw_loupe(surface, rect, m, placed[target.template_id], target)
            except KeyError:
                pass
        if sel is not None and sel.kind == "template" and self.state.view.show_elevation:
            profile = self.elevation()
            if profile is not None:
                w, h = min(ELEVATION_SIZE[0], view.width - 24), min(ELEVATION_SIZE[1], view.height - 24)
                rect = self.side_view_rect = self._docked(frame, "side_view", (w, h), "bottom_right", shrink=(1.0, 0.8, 0.65))
                frame = frame.adding(overlays={"side_view": tuple(rect)})
                overlays.draw_elevation(surface, rect, profile)
        hint = overlays.wrap_message(self.tool.hint(self), min(view.width - 24, HINT_MAX_W))
        self.hint_rect: pygame.Rect | None = None
        if hint:
            self.hint_rect = self._docked(frame, "hint", overlays.message_size(hint), "bottom_left")
            overlays.draw_message(surface, view, hint, self.hint_rect.topleft)
        self.draw_photo_import(surface)
        surface.set_clip(None)
        self.ui.draw_ui(surface)
        if self.state.view.show_help:  # over the panel and toolbar too: a small window needs all of it
            overlays.draw_help(surface, pygame.Rect(0, 0, self.size[0], self.size[1] - STATUS_H))
        self._draw_status(surface)
        self.draw_ms = (time.perf_counter() - start) * 1000

def apply_command(state: AppState, command: Command) -> AppState:
    """``state.apply`` (a seam for the shell)."""
    from .state import apply

    return apply(state, command)


def _what_is_kept(app: TabletopApp) -> str:
    """After an emergency copy failed: whether an autosave still holds (some of) the work."""
    auto = app.autosaver.autosave_path
    if app.autosaver.enabled and auto.exists():
        return f"the last autosave ({auto}) is kept"
    return "the unsaved changes could not be kept anywhere"


def run(path: str | None, size: tuple[int, int] = (1280, 800)) -> int:
    """Open the window and run until the user quits; returns the exit code.

    0 after a quit; 2 without a display; 128 + n after signal n (the unsaved table kept in an
    emergency copy, never a question); 1 (130 for a KeyboardInterrupt) after an unexpected error,
    the table kept likewise.
    """
    os.environ.setdefault("SDL_WINDOWS_DPI_AWARENESS", "permonitorv2")  # crisp on high-DPI Windows
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")  # SDL would turn SIGTERM into a quit that asks: lifecycle's handlers stop instead
    app: TabletopApp | None = None

    def rescue(signum: int) -> None:  # the stop watchdog, when the loop did not get to it
        if app is not None:
            app.stop_on_signal(signum)

    with on_signals(rescue) as stopping:
        try:
            pygame.init()
            screen = open_display(size, pygame.RESIZABLE)
            scenario, opened, problems = startup_scenario(path)
            app = TabletopApp(scenario, opened, screen.get_size(), problems=problems, recoveries=find_recoveries())
            if opened is not None and not judge_with_progress(app.live, app.scenario, f"Opening {Path(opened).name}"):
                app.new_table()
                app.flash(f"Opening {Path(opened).name} cancelled: a new table instead")
            pacer = FramePacer()  # draws only when something changed: an idle app costs nothing
            while app.running:
                events, dt = pacer.next_events(app)
                t0 = time.perf_counter()
                for event in events:
                    app.process_events(event)
                app.update(dt)
                if tuple(screen.get_size()) != app.size:
                    app.resize(screen.get_size())
                if pacer.should_draw(app, events):
                    app.draw(screen)
                    pygame.display.flip()
                    app.frame_ms = (time.perf_counter() - t0) * 1000
            stopping.shielded = True
            return app.exit_code
        except SignalStop as stop:
            stopping.shielded = True
            if app is None:
                return stop.exit_code
            unsaved, copy = app.stop_on_signal(stop.signum)
            stopping.saved.set()
            if copy is not None:
                print(f"tabletop: stopped by {signal_name(stop.signum)}; your unsaved table was kept in {copy}", file=sys.stderr)
            elif unsaved:
                print(f"tabletop: stopped by {signal_name(stop.signum)}; the emergency copy could not be written "
                      f"({app.autosaver.emergency_error}); {_what_is_kept(app)}", file=sys.stderr)
            return app.exit_code
        except NoDisplay as exc:
            stopping.shielded = True
            print(f"tabletop: {exc}", file=sys.stderr)
            return 2
        except (Exception, KeyboardInterrupt) as exc:
            stopping.shielded = True
            if app is None:
                raise
            # Not a quit: the autosave and the marker stay, and an emergency copy is offered at the next start.
            copy = app.crash(exc)
            stopping.saved.set()
            where = f"; your table was kept in {copy}" if copy is not None else f"; the emergency copy could not be written ({app.autosaver.emergency_error}); {_what_is_kept(app)}"
            print(f"tabletop: stopped on {type(exc).__name__}: {exc}{where}", file=sys.stderr)
            if not isinstance(exc, KeyboardInterrupt):
                import traceback

                traceback.print_exception(exc, file=sys.stderr)
            return app.exit_code
        finally:
            stopping.shielded = True
            stopping.saved.set()
            if app is not None:
                app.shutdown()
            pygame.quit()
