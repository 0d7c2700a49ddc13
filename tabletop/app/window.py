"""The desktop shell: pygame events → commands → new state; drawing only reads state.

``TabletopApp`` follows pygame_gui's split: ``process_events(event)``,
``update(dt)``, ``draw(surface)``. It holds the one ``AppState`` (immutable,
changed only through ``dispatch``), the live adjudication cache, the viewport
and the transient gesture being made with the mouse.
"""

from __future__ import annotations

import html
import io
import sys
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UIDropDownMenu, UILabel, UIPanel, UITextBox, UITextEntryLine
from pygame_gui.windows import UIConfirmationDialog, UIFileDialog, UIMessageWindow

from tabletop import rulesets
from tabletop.adjudicate import Adjudication, AdjudicationError, adjudicate
from tabletop.catalogue import default_catalogue
from tabletop.model import RULESET_NAMES, At, Base, Direct, Impact, Model, PlacedTemplate, Point, Scenario, Template
from tabletop.report import STATUS_WORDS, report_text
from tabletop.scenario_io import Problem, ScenarioError, atomic_write, load_with_warnings, save
from tabletop.units import format_length, parse_length
from tabletop.viewport import Viewport

from . import overlays
from .autosave import Autosaver, Recovery, discard_recovery, find_recovery, load_recovery
from .hit import item_at, model_at
from .live import LiveAdjudicator, placed_templates
from tabletop.draw import DrawOptions, draw_scene, status_colour
from tabletop.draw_odds import draw_odds

from .elevation import ElevationProfile, elevation_profile
from .odds_worker import OddsRequest, OddsWorker
from .results import ruleset_lines
from .validate import check_heading, check_length, check_seed, document_problem
from .tools import TOOL_BUTTONS, Pointer, Tool, make_tools
from .state import (
    AppState,
    Command,
    CommandError,
    DeleteItem,
    EditModel,
    EditTemplate,
    EditTerrain,
    MarkSaved,
    Open,
    Redo,
    Ref,
    RotateTemplate,
    Select,
    SetNewShape,
    SetRuleset,
    SetSeed,
    SetTool,
    SetWhatIf,
    ToggleView,
    Undo,
    empty_scenario,
    format_numbers,
    new_state,
    parse_numbers,
    parse_tags,
    template_heading,
)

ROOT = Path(__file__).resolve().parent.parent.parent
SCENARIOS = ROOT / "scenarios"
DEFAULT_SCENARIO = SCENARIOS / "default.toml"

TOOLBAR_H = 44
STATUS_H = 26
PANEL_W = 340
LOUPE_PX = 230
ELEVATION_SIZE = (560, 300)
SPINNER = "|/-\\"
ROTATE_STEP_DEG = 15.0
WHEEL_ROTATE_DEG = 5.0
ZOOM_STEP = 1.15
PAN_STEP_PX = 60
STEP_SECONDS = 0.7  # per animated resolution step

THEME: dict[str, Any] = {
    "defaults": {
        "colours": {
            "dark_bg": "#1f2329",
            "normal_bg": "#2d333b",
            "hovered_bg": "#3a424d",
            "selected_bg": "#2f6f9f",
            "active_bg": "#2f6f9f",
            "normal_border": "#444c56",
            "normal_text": "#e6e6e6",
        }
    },
    "#fire": {"colours": {"normal_bg": "#a8321e", "hovered_bg": "#c94a32", "active_bg": "#e0603f"}},
    "#tool_active": {"colours": {"normal_bg": "#2f6f9f", "hovered_bg": "#3b85bd"}},
    "#heading": {"font": {"name": "noto_sans", "size": "15", "bold": "1"}, "colours": {"normal_text": "#ffd65a"}},
    "#small": {"font": {"name": "noto_sans", "size": "13"}, "colours": {"normal_text": "#b9c0c8"}},
}


@dataclass
class Firing:
    """A Fire result being animated, then shown until the next edit."""

    adjudication: Adjudication
    keyframes: list[tuple[str, PlacedTemplate, PlacedTemplate, str]] = field(default_factory=list)
    elapsed: float = 0.0

    @property
    def duration(self) -> float:
        return STEP_SECONDS * len(self.keyframes)

    @property
    def done(self) -> bool:
        return self.elapsed >= self.duration


def _ctrl(mod: int) -> bool:
    return bool(mod & (pygame.KMOD_CTRL | pygame.KMOD_META))


def _shift(mod: int) -> bool:
    return bool(mod & pygame.KMOD_SHIFT)


def demo_tables() -> list[Path]:
    """Every bundled scenario, default first."""
    files = sorted(SCENARIOS.glob("*.toml"))
    files.sort(key=lambda p: p.name != "default.toml")
    return files


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


class TabletopApp:
    """The app: state, live adjudication, viewport and widgets."""

    def __init__(
        self,
        scenario: Scenario,
        path: str | None = None,
        size: tuple[int, int] = (1280, 800),
        *,
        autosave: bool = True,
        problems: list[Problem] | None = None,
        recovery: Recovery | None = None,
        set_caption: bool = True,
    ) -> None:
        self.size = size
        self.state: AppState = new_state(scenario, path)
        self.live = LiveAdjudicator(seed=self.state.seed)
        self.catalogue = default_catalogue()
        if self.state.new_shape not in self.catalogue and self.catalogue:
            self.state = replace(self.state, new_shape=next(iter(self.catalogue)))
        self.viewport = self._fit_viewport()
        self.ui = pygame_gui.UIManager(size, THEME)
        self.ui.preload_fonts(
            [
                {"name": "noto_sans", "point_size": 14, "style": "bold", "antialiased": "1"},
                {"name": "noto_sans", "point_size": 14, "style": "regular", "antialiased": "1"},
                {"name": "noto_sans", "point_size": 15, "style": "bold", "antialiased": "1"},
            ]
        )
        self.autosaver = Autosaver(enabled=autosave)
        self.autosaver.start(path)
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
        self._elevation: tuple[Any, ElevationProfile | None] | None = None
        self._gesture = 0
        self._wheel_gesture: tuple[int, str, float] | None = None
        self._dialogs: dict[Any, Callable[[str], None]] = {}
        self._confirms: dict[Any, tuple[Callable[[], None], Callable[[], None] | None]] = {}
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
        if recovery is not None:
            self.offer_recovery(recovery)
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
        return placed_templates(self.live_adjudication())

    @property
    def tool(self) -> Tool:
        """The tool the toolbar has chosen."""
        return self.tools[self.state.tool]

    @property
    def dragging(self) -> bool:
        """A mouse button is held in a pan or a tool's gesture."""
        return self.pan is not None or self.tool.busy

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
            problem = document_problem(after.scenario)
            if problem is not None:
                self.flash(f"Not applied: {problem}", error=True)
                return False
        self.state = after
        if after.tool != before.tool:
            self.tools[before.tool].deactivate(self)
            self.tools[after.tool].activate(self)
        if self.state.scenario is not before.scenario:
            self.firing = None
            self.autosaver.changed(self.state.scenario, self._now)
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
        w, h = self.size
        return pygame.Rect(0, TOOLBAR_H, max(50, w - PANEL_W), max(50, h - TOOLBAR_H - STATUS_H))

    def _fit_viewport(self) -> Viewport:
        r = self.view_rect
        t = self.scenario.table
        return Viewport.fit(t.width, t.depth, (r.x, r.y, r.width, r.height), margin_px=36)

    def fit(self) -> None:
        self.viewport = self._fit_viewport()

    def resize(self, size: tuple[int, int]) -> None:
        """The window changed size: keep the view centre and zoom, rebuild the widgets."""
        self.size = (max(640, size[0]), max(420, size[1]))
        r = self.view_rect
        self.viewport = self.viewport.resized((r.x, r.y, r.width, r.height))
        self.ui.set_window_resolution(self.size)
        self._build_ui()

    def _build_ui(self) -> None:
        self.ui.clear_and_reset()
        self._dialogs.clear()
        self._confirms.clear()
        self._messages: list[UIMessageWindow] = []
        self._inspector = []
        self._inspector_key = object()
        w, h = self.size
        self.toolbar = UIPanel(pygame.Rect(0, 0, w, TOOLBAR_H), manager=self.ui, margins={"left": 0, "right": 0, "top": 0, "bottom": 0})
        x = 6
        self.buttons: dict[str, UIButton] = {}

        def button(key: str, label: str, tip: str, width: int = 64) -> UIButton:
            nonlocal x
            b = UIButton(pygame.Rect(x, 6, width, 30), label, self.ui, container=self.toolbar, tool_tip_text=tip)
            self.buttons[key] = b
            x += width + 4
            return b

        button("new", "New", "New empty 48\"×48\" table (Ctrl+N)", 50)
        button("open", "Open", "Open a scenario (Ctrl+O)", 56)
        button("save", "Save", "Save (Ctrl+S); Save as: Ctrl+Shift+S", 52)
        button("export", "PNG", "Export the view to PNG (Ctrl+E)", 48)
        x += 8
        button("undo", "Undo", "Undo (Ctrl+Z)", 54)
        button("redo", "Redo", "Redo (Ctrl+Y)", 54)
        x += 8
        self.tool_buttons: dict[str, UIButton] = {}
        for key, label, tip in TOOL_BUTTONS:
            oid = "#tool_active" if self.state.tool == key else None
            b = UIButton(pygame.Rect(x, 6, 74 if key == "add_terrain" else 62, 30), label, self.ui, container=self.toolbar, tool_tip_text=tip, object_id=oid)
            self.tool_buttons[key] = b
            x += b.relative_rect.width + 4
        x += 8
        demo_names = ["Demo tables…"] + [p.stem for p in demo_tables()]
        demo_w = max(120, min(200, w - PANEL_W - x - 60))
        self.demo_menu = UIDropDownMenu(demo_names, demo_names[0], pygame.Rect(x, 6, demo_w, 30), self.ui, container=self.toolbar)
        x += demo_w + 8
        button("odds", "Odds", "Odds (O): each model's chance to be affected and expected damage, heat map of where the template lands", 56)
        button("dice_free", "Dice free", "Odds with every roll free, ignoring the file's fixed rolls (Shift+O)", 80)
        self.buttons["help"] = UIButton(pygame.Rect(w - 44, 6, 36, 30), "?", self.ui, container=self.toolbar, tool_tip_text="Every shortcut (F1)")

        px = w - PANEL_W
        top = TOOLBAR_H
        ph = h - TOOLBAR_H - STATUS_H
        self.panel = UIPanel(pygame.Rect(px, top, PANEL_W, ph), manager=self.ui)
        iw = PANEL_W - 24
        y = 6
        UILabel(pygame.Rect(8, y, 90, 26), "Ruleset", self.ui, container=self.panel, object_id="#small")
        rs = self.scenario.ruleset if self.scenario.ruleset in RULESET_NAMES else "none"
        self.ruleset_menu = UIDropDownMenu(list(RULESET_NAMES), rs, pygame.Rect(100, y, iw - 92, 26), self.ui, container=self.panel)
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
        self.buttons["fire"] = UIButton(pygame.Rect(8, y, iw + 8, 32), "FIRE  (Enter)", self.ui, container=self.panel, object_id="#fire", tool_tip_text="Resolve every template with the seeded dice (or the what-if rolls) and animate it")
        y += 40
        self.inspector_top = y
        self.inspector_h = 196
        results_top = y + self.inspector_h + 4
        UILabel(pygame.Rect(8, results_top, iw, 22), "Results", self.ui, container=self.panel, object_id="#heading")
        self.results_box = UITextBox("", pygame.Rect(8, results_top + 24, iw + 8, max(60, ph - results_top - 34)), self.ui, container=self.panel)
        self._results_key = None
        self._refresh_widgets()

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
        if self.ruleset_menu.selected_option[0] != self.scenario.ruleset and self.scenario.ruleset in RULESET_NAMES:
            self._rebuild_dropdown("ruleset")
        self._refresh_inspector()

    def _rebuild_dropdown(self, which: str) -> None:
        if which == "ruleset":
            rect = self.ruleset_menu.relative_rect.copy()
            self.ruleset_menu.kill()
            self.ruleset_menu = UIDropDownMenu(list(RULESET_NAMES), self.scenario.ruleset, rect, self.ui, container=self.panel)
        elif which == "demo":
            rect = self.demo_menu.relative_rect.copy()
            self.demo_menu.kill()
            names = ["Demo tables…"] + [p.stem for p in demo_tables()]
            self.demo_menu = UIDropDownMenu(names, names[0], rect, self.ui, container=self.toolbar)

    def _inspector_subject(self) -> Any:
        ref = self.state.selection
        if ref is None:
            return (None, self.scenario.title, len(self.scenario.models), len(self.scenario.templates))
        s = self.scenario
        try:
            if ref.kind == "model":
                m = s.model(ref.id)
                return (ref, replace(m, x=0.0, y=0.0))
            if ref.kind == "template":
                t = s.template(ref.id)
                return (ref, t)
            return (ref, s.terrain_piece(ref.id))
        except KeyError:
            return None

    def _refresh_inspector(self) -> None:
        key = self._inspector_subject()
        if key == self._inspector_key:
            return
        self._inspector_key = key
        for e in self._inspector:
            e.kill()
        self._inspector = []
        self._fields = {}
        iw = PANEL_W - 24
        y = self.inspector_top
        s = self.scenario
        ref = self.state.selection

        def add(e: Any) -> Any:
            self._inspector.append(e)
            return e

        def row(label: str, name: str, value: str, tip: str | None = None) -> None:
            nonlocal y
            add(UILabel(pygame.Rect(8, y, 76, 26), label, self.ui, container=self.panel, object_id="#small"))
            entry = add(UITextEntryLine(pygame.Rect(86, y, iw - 78, 26), self.ui, container=self.panel, initial_text=value))
            if tip:
                entry.set_tooltip(tip)
            self._fields[name] = entry
            y += 28

        def heading(title: str) -> None:
            nonlocal y
            title = title if len(title) <= 40 else title[:39] + "…"
            add(UILabel(pygame.Rect(8, y, iw, 22), title, self.ui, container=self.panel, object_id="#heading"))
            y += 24

        def actions() -> None:
            nonlocal y
            b = add(UIButton(pygame.Rect(8, y, (iw - 4) // 2, 28), "Apply", self.ui, container=self.panel, tool_tip_text="Apply the edits (Enter in a field)"))
            self.buttons["apply"] = b
            d = add(UIButton(pygame.Rect(8 + (iw + 4) // 2, y, (iw - 4) // 2 + 8, 28), "Delete", self.ui, container=self.panel, tool_tip_text="Delete (Del)"))
            self.buttons["delete"] = d
            y += 32

        if ref is None:
            heading("Nothing selected")
            lines = [
                f"{s.title or 'Untitled table'}",
                f"{format_length(s.table.width)} × {format_length(s.table.depth)} table",
                f"{len(s.models)} models, {len(s.terrain)} terrain, {len(s.templates)} templates",
                "Click a model, template or building to edit it.",
                "F1 lists every shortcut.",
            ]
            for line in lines:
                line = line if len(line) <= 44 else line[:43] + "…"
                add(UILabel(pygame.Rect(8, y, iw, 22), line, self.ui, container=self.panel, object_id="#small"))
                y += 22
            return
        try:
            if ref.kind == "model":
                m = s.model(ref.id)
                heading(f"Model {m.id}")
                row("Name", "name", m.name or "")
                row("Side", "side", m.side or "", "Same side = friends; 'neutral' is nobody's")
                base = f"{m.base.length:g}mm" if m.base.shape == "round" else f"{m.base.shape} {m.base.length:g}x{m.base.width:g}mm"
                row("Base", "base", base, "Diameter (25mm, 1in) or 'oval 60x35mm' / 'rect 50x25mm'")
                row("Stats", "stats", format_numbers(m.stats), "e.g. DF=4, GN=2")
                row("Tags", "tags", ", ".join(m.tags), "comma separated")
            elif ref.kind == "template":
                t = s.template(ref.id)
                heading(f"Template {t.id} — {_placement_words(t)}")
                row("Shape", "shape", t.shape_name or (t.shape.kind if t.shape else ""), "A catalogue name: " + ", ".join(list(self.catalogue)[:6]) + ", …")
                p = t.placement
                if isinstance(p, (At, Direct)):
                    row("Heading", "heading", f"{round(p.heading, 2):g}", "degrees counter-clockwise from +x")
                row("Fixed rolls", "rolls", format_numbers(t.rolls), "what-if dice for this template, e.g. scatter=4")
            else:
                piece = s.terrain_piece(ref.id)
                heading(f"Terrain {piece.id}")
                row("Name", "name", piece.name or "")
                row("Kind", "kind", piece.kind or "")
                row("Height", "height", "" if piece.height is None else f"{piece.height:g}mm", "empty = blocks at any height")
                row("Blocks LOS", "blocks_los", "yes" if piece.blocks_los else "no", "yes / no")
        except KeyError:
            return
        actions()

    def apply_inspector(self) -> bool:
        """Turn the side panel's fields into an edit of the selected item."""
        ref = self.state.selection
        if ref is None:
            return False
        f = {k: e.get_text().strip() for k, e in self._fields.items()}
        try:
            if ref.kind == "model":
                return self.dispatch(
                    EditModel(
                        ref.id,
                        {
                            "name": f["name"] or None,
                            "side": f["side"] or None,
                            "base": parse_base(f["base"]),
                            "stats": {k: float(v) if not isinstance(v, list) else float(v[0]) for k, v in parse_numbers(f["stats"]).items()},
                            "tags": parse_tags(f["tags"]),
                        },
                    ),
                    validate=True,
                )
            if ref.kind == "template":
                t = self.scenario.template(ref.id)
                changes: dict[str, Any] = {"rolls": parse_numbers(f["rolls"])}
                name = f["shape"]
                if name != (t.shape_name or (t.shape.kind if t.shape else "")):
                    if name not in self.catalogue:
                        raise ValueError(f"no template named {name!r} in the catalogue")
                    changes |= {"shape": self.catalogue[name].shape, "shape_name": name}
                p = t.placement
                shown = f"{round(p.heading, 2):g}" if isinstance(p, (At, Direct)) else None
                heading = check_heading(f["heading"]) if "heading" in f and f["heading"] != shown else None
                ok = self.dispatch(EditTemplate(ref.id, changes), validate=True)
                if ok and heading is not None:
                    ok = self.dispatch(RotateTemplate(ref.id, heading), validate=True)
                return ok
            blocks = f["blocks_los"].lower()
            if blocks not in ("yes", "no", "true", "false", "y", "n"):
                raise ValueError("Blocks LOS: yes or no")
            return self.dispatch(
                EditTerrain(
                    ref.id,
                    {
                        "name": f["name"] or None,
                        "kind": f["kind"] or None,
                        "height": check_length(parse_length(f["height"], "mm"), "Height", positive=False) if f["height"] else None,
                        "blocks_los": blocks in ("yes", "true", "y"),
                    },
                ),
                validate=True,
            )
        except (ValueError, KeyError, OverflowError) as exc:
            self.flash(f"Not applied: {exc}", error=True)
            return False

    def _refresh_results(self, force: bool = False) -> None:
        adj = self.adjudication()
        key = (id(adj), self.live.errors and tuple(self.live.errors.items()))
        if not force and (key == self._results_key or self._now < self._results_due):
            return
        self._results_key = key
        self._results_due = self._now + 0.25
        self.results_box.set_text(results_html(adj, fired=self.firing is not None and self.firing.done, errors=self.live.errors))

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

    def process_events(self, event: pygame.event.Event) -> None:
        """One pygame event: widgets first, then the table and the shortcuts."""
        if event.type == pygame.QUIT:
            self.request_quit()
            return
        if event.type in (pygame.VIDEORESIZE, pygame.WINDOWRESIZED, pygame.WINDOWSIZECHANGED):
            size = (getattr(event, "w", 0) or getattr(event, "x", 0), getattr(event, "h", 0) or getattr(event, "y", 0))
            if size[0] and size[1] and tuple(size) != self.size:
                self.resize((int(size[0]), int(size[1])))
            return
        if event.type == pygame.MOUSEMOTION:
            self.mouse_screen = event.pos
        consumed = self.ui.process_events(event)
        if self._handle_ui_event(event):
            return
        if event.type in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEMOTION, pygame.MOUSEWHEEL):
            if self.dragging and event.type in (pygame.MOUSEMOTION, pygame.MOUSEBUTTONUP):
                self._table_mouse(event)  # a drag keeps the mouse even over the panels
                return
            if consumed or self._modal_open():
                return
            self._table_mouse(event)
            return
        if event.type == pygame.KEYDOWN:
            if self._typing() or self._modal_open():
                return
            self._key(event)

    def _typing(self) -> bool:
        return any(isinstance(e, UITextEntryLine) for e in self.ui.get_focus_set() or ())

    def _modal_open(self) -> bool:
        self._messages = [w for w in self._messages if w.alive()]
        return bool(self._dialogs) or bool(self._confirms) or bool(self._messages)

    def _handle_ui_event(self, event: pygame.event.Event) -> bool:
        t = event.type
        if t == pygame_gui.UI_BUTTON_PRESSED:
            self._button(event.ui_element)
            return True
        if t == pygame_gui.UI_DROP_DOWN_MENU_CHANGED:
            if event.ui_element is self.ruleset_menu:
                self.set_ruleset(event.text)
            elif event.ui_element is self.shape_menu:
                self.dispatch(SetNewShape(event.text))
            elif event.ui_element is self.demo_menu:
                path = SCENARIOS / f"{event.text}.toml"
                self._rebuild_dropdown("demo")
                if path.exists():
                    self.confirm_discard(lambda: self.open_file(str(path), as_demo=True), f"open the demo table {path.stem}")
            return True
        if t == pygame_gui.UI_TEXT_ENTRY_FINISHED:
            if event.ui_element is self.seed_entry:
                self.set_seed(self.seed_entry.get_text())
            elif event.ui_element is self.whatif_entry:
                self.set_what_if(self.whatif_entry.get_text())
            elif event.ui_element in self._fields.values():
                self.apply_inspector()
            return True
        if t == pygame_gui.UI_FILE_DIALOG_PATH_PICKED:
            action = self._dialogs.pop(event.ui_element, None)
            if action is not None:
                action(event.text)
            return True
        if t == pygame_gui.UI_CONFIRMATION_DIALOG_CONFIRMED:
            pair = self._confirms.pop(event.ui_element, None)
            if pair is not None:
                pair[0]()
            return True
        if t == pygame_gui.UI_WINDOW_CLOSE:
            self._dialogs.pop(event.ui_element, None)
            pair = self._confirms.pop(event.ui_element, None)
            if pair is not None and pair[1] is not None:
                pair[1]()
            return True
        return False

    def _button(self, element: Any) -> None:
        for key, b in self.tool_buttons.items():
            if element is b:
                self.dispatch(SetTool(key))
                return
        actions: dict[str, Callable[[], Any]] = {
            "new": lambda: self.confirm_discard(self.new_table, "start a new table"),
            "open": self.ask_open,
            "save": self.save,
            "export": self.ask_export,
            "undo": lambda: self.dispatch(Undo()),
            "redo": lambda: self.dispatch(Redo()),
            "help": lambda: self.dispatch(ToggleView("show_help")),
            "fire": self.fire,
            "odds": self.toggle_odds,
            "dice_free": self.toggle_dice_free,
            "apply": self.apply_inspector,
            "delete": self.delete_selection,
        }
        for key, b in self.buttons.items():
            if element is b and key in actions:
                actions[key]()
                return

    def _key(self, event: pygame.event.Event) -> None:
        key, mod = event.key, getattr(event, "mod", 0)
        ctrl, shift = _ctrl(mod), _shift(mod)
        if self.tool.key(self, event):
            return
        if ctrl:
            if key == pygame.K_z:
                self.dispatch(Redo() if shift else Undo())
            elif key == pygame.K_y:
                self.dispatch(Redo())
            elif key == pygame.K_s:
                self.ask_save_as() if shift else self.save()
            elif key == pygame.K_o:
                self.ask_open()
            elif key == pygame.K_e:
                self.ask_export()
            elif key == pygame.K_n:
                self.confirm_discard(self.new_table, "start a new table")
            elif key == pygame.K_q:
                self.request_quit()
            return
        if key == pygame.K_F1:
            self.dispatch(ToggleView("show_help"))
        elif key == pygame.K_ESCAPE:
            if self.state.view.show_help:
                self.dispatch(ToggleView("show_help"))
            elif self.pan is not None:
                self.pan = None
            elif self.tool.cancel(self):
                self._refresh_widgets()
            elif self.state.tool != "select" or self.state.pending_attacker:
                self.dispatch(SetTool("select"))
            else:
                self.dispatch(Select(None))
        elif key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.fire()
        elif key in (pygame.K_DELETE, pygame.K_BACKSPACE):
            self.delete_selection()
        elif key == pygame.K_r:
            self.rotate_selected(-ROTATE_STEP_DEG if shift else ROTATE_STEP_DEG)
        elif key in (pygame.K_f, pygame.K_HOME):
            self.fit()
        elif key in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS):
            self.viewport = self.viewport.zoomed(ZOOM_STEP**2, self.view_rect.center)
        elif key in (pygame.K_MINUS, pygame.K_KP_MINUS):
            self.viewport = self.viewport.zoomed(1 / ZOOM_STEP**2, self.view_rect.center)
        elif key == pygame.K_LEFT:
            self.viewport = self.viewport.panned(PAN_STEP_PX, 0)
        elif key == pygame.K_RIGHT:
            self.viewport = self.viewport.panned(-PAN_STEP_PX, 0)
        elif key == pygame.K_UP:
            self.viewport = self.viewport.panned(0, PAN_STEP_PX)
        elif key == pygame.K_DOWN:
            self.viewport = self.viewport.panned(0, -PAN_STEP_PX)
        elif key == pygame.K_g:
            self.dispatch(ToggleView("show_grid"))
        elif key == pygame.K_n:
            self.dispatch(ToggleView("show_names"))
        elif key == pygame.K_v:
            self.dispatch(ToggleView("show_visibility"))
        elif key == pygame.K_l:
            self.dispatch(ToggleView("show_loupe"))
        elif key == pygame.K_k:
            self.dispatch(ToggleView("show_legend"))
        elif key == pygame.K_o:
            self.toggle_dice_free() if shift else self.toggle_odds()
        elif key == pygame.K_e:
            self.dispatch(ToggleView("show_elevation"))
        elif pygame.K_1 <= key <= pygame.K_7:
            self.dispatch(SetTool(TOOL_BUTTONS[key - pygame.K_1][0]))

    # ------------------------------------------------------------------ the table under the mouse

    def next_gesture(self) -> int:
        """A fresh id grouping one gesture's commands into one undo step."""
        self._gesture += 1
        return self._gesture

    def slack_mm(self) -> float:
        """How far (mm) a click may miss a base and still pick it: 3 px."""
        return self.viewport.length_to_world(3)

    def start_pan(self, at: Pointer) -> None:
        """Drag the table under the mouse until ``at.button`` comes up."""
        self.pan = (at.button, at.world)

    def _pan_to(self, pos: tuple[int, int]) -> None:
        assert self.pan is not None
        held = self.viewport.to_screen(*self.pan[1])
        self.viewport = self.viewport.panned(pos[0] - held[0], pos[1] - held[1])

    def _table_mouse(self, event: pygame.event.Event) -> None:
        if event.type == pygame.MOUSEWHEEL:
            self._wheel(event)
            return
        pos = event.pos
        world = self.viewport.to_world(*pos)
        at = Pointer(world, pos, getattr(event, "button", 1), pygame.key.get_mods())
        tool = self.tool
        if event.type == pygame.MOUSEMOTION:
            self.mouse_world = world
            if self.pan is not None:
                self._pan_to(pos)
            elif tool.busy:
                tool.drag(self, at)
            else:
                self._hover(world)
                tool.hover(self, at)
            return
        if event.type == pygame.MOUSEBUTTONDOWN:
            if not self.view_rect.collidepoint(pos):
                return
            self.mouse_screen = pos
            self.mouse_world = world
            if event.button in (2, 3):
                self.start_pan(at)
            elif event.button == 1:
                tool.press(self, at)
            return
        if event.type == pygame.MOUSEBUTTONUP:
            if self.pan is not None and event.button == self.pan[0]:
                self._pan_to(pos)
                self.pan = None
                self._refresh_widgets()
            elif tool.busy and event.button == 1:
                tool.drag(self, at)
                tool.release(self, at)
                self._refresh_widgets()

    def _hover(self, world: Point) -> None:
        if not self.view_rect.collidepoint(self.mouse_screen or (-1, -1)):
            self.hovered = None
            return
        m = model_at(self.scenario, world[0], world[1], self.slack_mm())
        if m is not None:
            self.hovered = Ref("model", m.id)
            return
        self.hovered = item_at(self.scenario, self.placed(), world[0], world[1], 0.0)

    def _wheel(self, event: pygame.event.Event) -> None:
        pos = self.mouse_screen or self.view_rect.center
        if not self.view_rect.collidepoint(pos):
            return
        mod = getattr(event, "mod", None)
        if mod is None:
            mod = pygame.key.get_mods()
        steps = event.y if event.y else 0
        if not steps:
            return
        if _ctrl(mod):
            sel = self.state.selection
            if sel is not None and sel.kind == "template":
                now = self._now
                g = self._wheel_gesture
                if g is None or g[1] != sel.id or now - g[2] > 0.8 or self.state.history.gesture != g[0]:
                    g = (self.next_gesture(), sel.id, now)
                self._wheel_gesture = (g[0], sel.id, now)
                self.rotate_selected(WHEEL_ROTATE_DEG * steps, g[0])
            return
        self.viewport = self.viewport.zoomed(ZOOM_STEP**steps, pos)

    # ------------------------------------------------------------------ actions

    def rotate_selected(self, delta_deg: float, gesture: int | None = None) -> None:
        sel = self.state.selection
        if sel is None or sel.kind != "template":
            self.flash("Select a template to rotate it")
            return
        t = self.scenario.template(sel.id)
        if not isinstance(t.placement, (At, Direct)):
            self.flash("This template follows its line of fire: move the attacker or the aim point")
            return
        self.dispatch(RotateTemplate(sel.id, template_heading(self.scenario, t) + delta_deg, gesture))

    def toggle_odds(self) -> None:
        """Odds on or off; off forgets the result (the worker process stays for the next time)."""
        self.dispatch(ToggleView("show_odds"))
        if not self.state.view.show_odds:
            self.odds_worker.cancel()
        self._refresh_widgets()
        self.flash("Odds on: computing off the frame" if self.state.view.show_odds else "Odds off")

    def toggle_dice_free(self) -> None:
        self.dispatch(ToggleView("odds_dice_free"))
        self._refresh_widgets()
        free = self.state.view.odds_dice_free
        self.flash("Odds: every roll free" if free else "Odds: the file's fixed rolls stay fixed")

    def odds_request(self) -> OddsRequest:
        """What the odds overlay wants computed now."""
        return OddsRequest(self.scenario, self.state.seed, self.state.view.odds_dice_free)

    def elevation(self) -> ElevationProfile | None:
        """The side view of the selected template (Infinity only), cached per resolution."""
        sel = self.state.selection
        if sel is None or sel.kind != "template" or self.scenario.ruleset != "infinity":
            return None
        adj = self.live_adjudication()
        result = next((r for r in adj.results if r.template.id == sel.id), None)
        if result is None:
            return None
        if self._elevation is not None and self._elevation[0] is result:
            return self._elevation[1]
        try:
            profile: ElevationProfile | None = elevation_profile(self.scenario, result, adj.settings)
        except Exception as exc:  # noqa: BLE001 - a drawing aid must not take the editor down
            self.flash(f"side view: {exc}", error=True)
            profile = None
        self._elevation = (result, profile)
        return profile

    def shutdown(self) -> None:
        """Stop the background work (the odds worker). The autosave stays: only ``quit``
        (after the user saved or chose to discard) removes it."""
        self.odds_worker.shutdown()

    def crash(self, error: BaseException) -> Path | None:
        """The loop is stopping on an unexpected error (or Ctrl+C): keep the autosave and the
        marker, write an emergency copy of the table, and return its path (None if it failed)."""
        self.running = False
        self.exit_code = 130 if isinstance(error, KeyboardInterrupt) else 1
        return self.autosaver.emergency(self.scenario, error)

    def delete_selection(self) -> None:
        sel = self.state.selection
        if sel is None:
            return
        if self.dispatch(DeleteItem(sel)):
            self.flash(f"Deleted {sel.kind} {sel.id} (Ctrl+Z brings it back)")

    def set_ruleset(self, name: str) -> None:
        try:
            rulesets.get(name)
        except Exception as exc:  # noqa: BLE001 - a ruleset module still being written
            self.flash(f"Ruleset {name} is not available: {exc}", error=True)
            self._rebuild_dropdown("ruleset")
            return
        self.dispatch(SetRuleset(name))
        self.flash(f"Ruleset: {rulesets.get(name).title}")

    def set_seed(self, text: str) -> bool:
        """The seed typed in the Seed box; a bad one is refused with the reason."""
        try:
            seed = check_seed(text)
        except ValueError as exc:
            self.flash(str(exc), error=True)
            return False
        self.dispatch(SetSeed(seed))
        self.live.seed = self.state.seed
        self.flash(f"Seed {self.state.seed}")
        return True

    def set_what_if(self, text: str) -> bool:
        try:
            rolls = parse_numbers(text)
        except ValueError as exc:
            self.flash(f"What-if rolls: {exc}", error=True)
            return False
        self.dispatch(SetWhatIf(rolls))
        self.flash("What-if rolls: " + (format_numbers(rolls) or "none (seeded dice)"))
        return True

    def fire(self) -> Adjudication | None:
        """Resolve every template with the seeded dice (and what-if rolls), then animate it."""
        s = self.scenario
        if self.state.what_if:
            s = replace(s, templates=tuple(replace(t, rolls={**t.rolls, **self.state.what_if}) for t in s.templates))
        try:
            adj = adjudicate(s, seed=self.state.seed, geometry=self.live.geometry(self.scenario))
        except (AdjudicationError, ValueError) as exc:
            self.show_message("Cannot resolve", html.escape(str(exc)))
            return None
        adj = replace(adj, scenario=self.scenario)
        live = placed_templates(self.live_adjudication())
        keyframes: list[tuple[str, PlacedTemplate, PlacedTemplate, str]] = []
        for r in adj.results:
            current = live.get(r.template.id, r.resolution.placed)
            for step in r.resolution.steps:
                if step.placed is not None:
                    keyframes.append((r.template.id, current, step.placed, step.text))
                    current = step.placed
            if current != r.resolution.placed:
                keyframes.append((r.template.id, current, r.resolution.placed, f"{r.template.id}: final position"))
        self.firing = Firing(adj, keyframes)
        affected = sorted({i for r in adj.results for i in r.resolution.affected})
        self.flash(f"Fired {len(adj.results)} template(s): {len(affected)} model(s) affected")
        self._refresh_results(force=True)
        return adj

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
        # A demo opens as a copy: saving asks where, so the bundled file stays as shipped.
        self.dispatch(Open(scenario, None if as_demo else str(Path(path)), dirty=False))
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

    def save(self, path: str | None = None) -> bool:
        """Save to ``path`` (or the current file; without one, ask where)."""
        path = path or self.state.path
        if path is None:
            self.ask_save_as()
            return False
        try:
            save(self.scenario, path)
        except Exception as exc:  # noqa: BLE001 - OSError, or a value the file syntax cannot hold: say so, keep the table
            self.show_message("Could not save", html.escape(f"{path}: {type(exc).__name__}: {exc}"[:600]))
            return False
        self.dispatch(MarkSaved(str(path)))
        self.autosaver.clean()
        self.flash(f"Saved {path}")
        self._title()
        return True

    def export_png(self, path: str) -> bool:
        """Write the table view as it is now (without the widgets) to a PNG."""
        r = self.view_rect
        try:
            surface = pygame.Surface(r.size)
            vp = Viewport(self.viewport.centre, self.viewport.scale, (0, 0, r.width, r.height))
            draw_scene(surface, vp, self.adjudication(), self._draw_options(selected=False))
            png = io.BytesIO()
            pygame.image.save(surface, png, "export.png")
            atomic_write(path, png.getvalue())  # an old PNG is replaced whole or not at all
        except Exception as exc:  # noqa: BLE001 - a failed export is a message, the app carries on
            self.show_message("Could not export", html.escape(f"{path}: {type(exc).__name__}: {exc}"[:600]))
            return False
        self.flash(f"Exported {path}")
        return True

    def request_quit(self) -> None:
        self.confirm_discard(self.quit, "quit")

    def quit(self) -> None:
        """Quit for real: the table is saved or the user chose to discard it."""
        self.running = False
        self.autosaver.stop()
        self.shutdown()

    def confirm_discard(self, action: Callable[[], Any], doing: str) -> None:
        """Run ``action``; with unsaved changes, ask first."""
        if not self.state.dirty:
            action()
            return
        self.confirm(f"The table has unsaved changes. Discard them and {doing}?", "Discard", action, title="Unsaved changes")

    def confirm(self, text: str, ok: str, action: Callable[[], Any], cancel: Callable[[], Any] | None = None, title: str = "Confirm") -> None:
        dialog = UIConfirmationDialog(self._dialog_rect(440, 200), html.escape(text), self.ui, window_title=title, action_short_name=ok)
        self._confirms[dialog] = (action, cancel)

    def offer_recovery(self, recovery: Recovery) -> None:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(recovery.saved_at))
        name = Path(recovery.original_path).name if recovery.original_path else "an unsaved table"
        if recovery.emergency is not None:
            text = (
                f"Tabletop stopped on an error ({recovery.error or 'unknown'}). Your work on {name} was kept "
                f"in the emergency copy {recovery.emergency} ({when}). Recover it?"
            )
        else:
            text = f"Tabletop did not close cleanly. Recover the unsaved work on {name} autosaved at {when}?"
        self.confirm(
            text,
            "Recover",
            lambda: self.recover(recovery),
            discard_recovery,
            title="Recover unsaved work",
        )

    def recover(self, recovery: Recovery) -> bool:
        try:
            scenario = load_recovery(recovery)
        except ScenarioError as exc:
            self.show_problems("Could not recover", exc.problems)
            return False
        problem = document_problem(scenario)
        if problem is not None:
            self.show_message("Could not recover", html.escape(f"{recovery.autosave}: {problem}"))
            return False
        self.dispatch(Open(scenario, recovery.original_path, dirty=True))
        self.fit()
        self._after_open()
        self.autosaver.changed(scenario, self._now)
        self.flash("Recovered the autosaved table: save it to keep it")
        return True

    def _dialog_rect(self, w: int, h: int) -> pygame.Rect:
        r = pygame.Rect(0, 0, min(w, self.size[0] - 20), min(h, self.size[1] - 20))
        r.center = (self.size[0] // 2, self.size[1] // 2)
        return r

    def _file_dialog(self, title: str, action: Callable[[str], Any], initial: str | None, existing: bool, suffixes: set[str]) -> None:
        dialog = UIFileDialog(
            self._dialog_rect(560, 440),
            self.ui,
            window_title=title,
            initial_file_path=initial,
            allow_existing_files_only=existing,
            allowed_suffixes=suffixes,
        )
        self._dialogs[dialog] = action

    def ask_open(self) -> None:
        def pick() -> None:
            start = str(Path(self.state.path).parent) if self.state.path else str(SCENARIOS if SCENARIOS.exists() else Path.cwd())
            self._file_dialog("Open scenario", lambda p: self.open_file(p), start, True, {".toml", ".json"})

        self.confirm_discard(pick, "open another table")

    def ask_save_as(self) -> None:
        start = self.state.path or str(Path.cwd() / "table.toml")
        self._file_dialog("Save scenario as", lambda p: self.save(_with_suffix(p, ".toml", (".toml", ".json"))), start, False, {".toml", ".json"})

    def ask_export(self) -> None:
        base = Path(self.state.path).with_suffix(".png") if self.state.path else Path.cwd() / "table.png"
        self._file_dialog("Export view to PNG", lambda p: self.export_png(_with_suffix(p, ".png", (".png",))), str(base), False, {".png"})

    def show_problems(self, title: str, problems: list[Problem]) -> None:
        body = "<br>".join(html.escape(str(p)) for p in problems[:40])
        if len(problems) > 40:
            body += f"<br>… and {len(problems) - 40} more"
        self.show_message(title, body)

    def show_message(self, title: str, html_text: str) -> None:
        self._messages.append(UIMessageWindow(self._dialog_rect(620, 320), html_text, self.ui, window_title=title))
        self.flash(title, error=True)

    # ------------------------------------------------------------------ update / draw

    def update(self, dt: float) -> None:
        """Advance time: widgets, the fire animation, the autosave."""
        self._now += dt
        self.ui.update(dt)
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
        if not self.dragging:
            self._refresh_results()

    def _draw_options(self, selected: bool = True) -> Any:
        v = self.state.view
        sel = self.state.selection.id if selected and self.state.selection else None
        hov = self.hovered.id if self.hovered else None
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
        )

    def draw(self, surface: pygame.Surface) -> None:
        """Draw the table, the overlays, the widgets and the status bar."""
        start = time.perf_counter()
        surface.fill((24, 27, 32))
        view = self.view_rect
        vp = self.viewport
        live = self.live_adjudication()
        shown = self.adjudication()
        surface.set_clip(view)
        draw_scene(surface, vp, shown, self._draw_options())
        placed = placed_templates(live)
        sel = self.state.selection
        if sel is not None:
            overlays.draw_selection(surface, vp, self.scenario, placed, sel.kind, sel.id)
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
            draw_odds(surface, vp, odds.scenario, odds, note=note, legend_corner=corner)
        self.tool.draw(self, surface)
        if sel is not None and sel.kind == "model" and self.state.view.show_loupe and placed:
            try:
                m = self.scenario.model(sel.id)
                target = overlays.loupe_target(m, placed)
                if target is not None:
                    rect = pygame.Rect(view.right - LOUPE_PX - 12, view.bottom - LOUPE_PX - 12, LOUPE_PX, LOUPE_PX)
                    overlays.draw_loupe(surface, rect, m, placed[target.template_id], target)
            except KeyError:
                pass
        if sel is not None and sel.kind == "template" and self.state.view.show_elevation:
            profile = self.elevation()
            if profile is not None:
                w, h = min(ELEVATION_SIZE[0], view.width - 24), min(ELEVATION_SIZE[1], view.height - 24)
                overlays.draw_elevation(surface, pygame.Rect(view.right - w - 12, view.bottom - h - 12, w, h), profile)
        overlays.draw_message(surface, view, self.tool.hint(self))
        if self.state.view.show_help:
            overlays.draw_help(surface, view)
        surface.set_clip(None)
        self.ui.draw_ui(surface)
        self._draw_status(surface)
        self.draw_ms = (time.perf_counter() - start) * 1000

    def odds_status(self) -> str:
        """The status bar's odds note: a spinner with the time waited, an error, or ready."""
        if not self.state.view.show_odds:
            return ""
        w = self.odds_worker
        if w.pending:
            waited = w.waiting_s(self._now)
            return f"{SPINNER[int(waited * 8) % len(SPINNER)]} odds… {waited:.1f} s"
        if w.error:
            return "odds failed: " + w.error[:60]
        return "odds ready" if w.result is not None else ""

    def _draw_status(self, surface: pygame.Surface) -> None:
        w, h = self.size
        bar = pygame.Rect(0, h - STATUS_H, w, STATUS_H)
        surface.fill((18, 20, 24), bar)
        pygame.draw.line(surface, (60, 66, 76), bar.topleft, bar.topright)
        parts: list[str] = []
        if self.mouse_world is not None and self.view_rect.collidepoint(self.mouse_screen or (-1, -1)):
            x, y = self.mouse_world
            parts.append(f"x {x / 25.4:6.2f}\"  y {y / 25.4:6.2f}\"")
        parts.append(f"{self.viewport.scale * 25.4:.0f} px/in")
        s = self.scenario
        parts.append(f"{s.ruleset} · {len(s.models)} models · {len(s.terrain)} terrain · {len(s.templates)} templates")
        parts.append(f"live {self.live.stats.last_ms:.1f} ms · frame {self.frame_ms:.1f} ms")
        odds = self.odds_status()
        if odds:
            parts.append(odds)
        if self.state.dirty:
            parts.append("unsaved")
        left = overlays.text(surface, "   |   ".join(parts), (10, bar.centery), (200, 205, 212), 17, "midleft")
        x = left.right + 24
        key_right = x
        show_message = bool(self.message) and self._now < self._message_until
        if not self.state.view.show_legend and not show_message:
            for status, word in (("affected", "affected"), ("total_cover", "total cover"), ("outside", "outside"), ("user", "attacker")):
                pygame.draw.circle(surface, status_colour(status), (x + 6, bar.centery), 6)
                x = overlays.text(surface, word, (x + 16, bar.centery), (170, 176, 184), 15, "midleft").right + 14
            pygame.draw.circle(surface, (255, 255, 255), (x + 6, bar.centery), 7, 1)
            key_right = overlays.text(surface, "contested (K: legend)", (x + 17, bar.centery), (170, 176, 184), 15, "midleft").right
        if show_message:
            colour = (255, 120, 100) if self.message_is_error else (150, 220, 150)
            overlays.text(surface, self.message, (key_right + 24, bar.centery), colour, 17, "midleft")


def apply_command(state: AppState, command: Command) -> AppState:
    """``state.apply`` (a seam for the shell)."""
    from .state import apply

    return apply(state, command)


def parse_base(text: str) -> Base:
    """``25mm`` / ``1in`` / ``32`` (mm) → round; ``oval 60x35mm`` / ``rect 50x25mm``."""
    t = text.strip().lower()
    for shape in ("oval", "rect"):
        if t.startswith(shape):
            rest = t[len(shape) :].strip()
            unit = "mm"
            for u in ("mm", "cm", "in"):
                if rest.endswith(u):
                    unit, rest = u, rest[: -len(u)]
            a, b = (v.strip() for v in rest.split("x"))
            length = check_length(parse_length(f"{a}{unit}", "mm"), "Base length")
            width = check_length(parse_length(f"{b}{unit}", "mm"), "Base width")
            return Base(shape, length, width)  # type: ignore[arg-type]
    return Base.round(check_length(parse_length(t, "mm"), "Base diameter"))


def _placement_words(t: Template) -> str:
    p = t.placement
    if isinstance(p, At):
        return "free"
    if isinstance(p, Impact):
        return f"impact {p.attacker} on {p.target or 'a point'}"
    if isinstance(p, Direct):
        return f"direct from {p.attacker}"
    return f"explosion of {p.model}"


def _with_suffix(path: str, default: str, allowed: tuple[str, ...]) -> str:
    return path if Path(path).suffix.lower() in allowed else path + default


RESULT_COLOURS = {"head": "#ffd65a", "good": "#7bd88f", "bad": "#ff7b6b", "warn": "#ffb454", "note": "#c9ced6"}


def results_html(adj: Adjudication, fired: bool, errors: dict[str, str] | None = None) -> str:
    """The results panel: per template, who is affected, contested margins, and after Fire the report with dice."""
    s = adj.scenario
    names = {m.id: m.label for m in s.models}
    out: list[str] = []
    if not adj.results and not errors:
        return "<font color='#9aa4ae'>No templates yet: pick a tool (Impact, Direct, Free) and click the table.</font>"
    if fired:
        out.append("<b><font color='#ff9a6a'>Fired</font></b> — " + html.escape(f"ruleset {s.ruleset}, seed {adj.seed}"))
    else:
        out.append("<font color='#9aa4ae'>" + html.escape(f"Live, seed {adj.seed}. Fire (Enter) rolls the dice and animates.") + "</font>")
    for r in adj.results:
        res = r.resolution
        cov = res.coverage
        out.append(f"<br><b><font color='#ffd65a'>{html.escape(r.template.id)}</font></b> "
                   + html.escape(f"{r.template.shape_name or res.placed.shape.kind}"))
        affected = ", ".join(names.get(i, i) for i in res.affected) or "none"
        out.append("<font color='#ff7b6b'>affected:</font> " + html.escape(affected))
        cover_ids = cov.ids_with("total_cover")
        if cover_ids:
            out.append("<font color='#6fa8ff'>total cover:</font> " + html.escape(", ".join(names.get(i, i) for i in cover_ids)))
        contested = [(i, c) for i, c in cov.models.items() if c.contested]
        for i, c in contested:
            out.append("<font color='#ffffff'>contested:</font> " + html.escape(f"{names.get(i, i)} {c.margin_mm:+.3f} mm ({STATUS_WORDS.get(c.status, c.status)})"))
        if cov.terrain_affected:
            out.append("terrain: " + html.escape(", ".join(cov.terrain_affected)))
        lines = ruleset_lines(s, r)
        if not res.allowed and not any(line.startswith(("NOT ALLOWED", "NULLIFIED", "FAILS")) for _, line in lines):
            out.append("<font color='#ff5050'>NOT ALLOWED:</font> " + html.escape(str(res.reason)))
        for style, line in lines:
            out.append(f"<font color='{RESULT_COLOURS.get(style, '#d0d4da')}'>" + html.escape(line) + "</font>")
        if fired:
            for step in res.steps:
                out.append("· " + html.escape(step.text))
            for rec in r.rolls:
                out.append("<font color='#b9c0c8'>dice: " + html.escape(rec.describe()) + "</font>")
            if not lines:  # a ruleset without its own summary: its plain details
                for k, v in res.details.items():
                    if not isinstance(v, (dict, list)):
                        out.append(html.escape(f"{k}: {v}"))
    for tid, msg in (errors or {}).items():
        out.append(f"<br><font color='#ff5050'>{html.escape(tid)}: {html.escape(msg)}</font>")
    return "<br>".join(out)


def full_report(adj: Adjudication) -> str:
    """The text report of a Fire (for the log and tests)."""
    return report_text(adj)


def run(path: str | None, size: tuple[int, int] = (1280, 800)) -> int:
    """Open the window and run until the user quits; returns the exit code."""
    os.environ.setdefault("SDL_WINDOWS_DPI_AWARENESS", "permonitorv2")  # crisp on high-DPI Windows
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    recovery = find_recovery()
    pygame.init()
    app: TabletopApp | None = None
    try:
        flags = pygame.RESIZABLE
        screen = pygame.display.set_mode(size, flags)
        scenario, opened, problems = startup_scenario(path)
        app = TabletopApp(scenario, opened, screen.get_size(), problems=problems, recovery=recovery)
        clock = pygame.time.Clock()
        while app.running:
            dt_ms = clock.tick(60)
            t0 = time.perf_counter()
            for event in pygame.event.get():
                app.process_events(event)
            app.update(dt_ms / 1000.0)
            if tuple(screen.get_size()) != app.size:
                app.resize(screen.get_size())
            app.draw(screen)
            pygame.display.flip()
            app.frame_ms = (time.perf_counter() - t0) * 1000
        return app.exit_code
    except (Exception, KeyboardInterrupt) as exc:
        if app is None:
            raise
        # Not a quit: the autosave and the marker stay, and an emergency copy is offered at the next start.
        copy = app.crash(exc)
        where = f"; your table was kept in {copy}" if copy is not None else ""
        print(f"tabletop: stopped on {type(exc).__name__}: {exc}{where}", file=sys.stderr)
        if not isinstance(exc, KeyboardInterrupt):
            import traceback

            traceback.print_exception(exc, file=sys.stderr)
        return app.exit_code
    finally:
        if app is not None:
            app.shutdown()
        pygame.quit()
