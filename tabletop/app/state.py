"""The app's state and the commands that change it. Pure: no pygame.

``AppState`` is immutable; every user action becomes a small command object and
``apply(state, command)`` returns the next state. Commands that change the
scenario (the document) are recorded in the undo history; commands that only
change what is selected or shown are not.

The commands are in :mod:`.commands`, how an edit changes the scenario in :mod:`.edits`;
``apply`` is here. Every name is importable from this module as before.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .history import History
from tabletop.app.commands import (
    AddModel,
    AddTemplate,
    AddTerrain,
    CancelGesture,
    Command,
    CommandError,
    EDITS,
    MarkSaved,
    Open,
    PickAttacker,
    PinRuler,
    Redo,
    Ref,
    RenameItem,
    Select,
    SelectMany,
    SetNewShape,
    SetSeed,
    SetTool,
    SetView,
    SetWhatIf,
    TOOLS,
    ToggleView,
    Undo,
    UnpinRulers,
)
from tabletop.app.edits import edit_scenario, item_exists
from tabletop.model import Point, RectSpec, Scenario, Table, Terrain


@dataclass(frozen=True)
class ViewOptions:
    """What the table view shows."""

    show_grid: bool = True
    show_names: bool = True
    show_visibility: bool = True
    show_rulers: bool = True
    show_legend: bool = False  # the status bar carries a compact key; K shows the full legend
    show_help: bool = False
    show_loupe: bool = True
    show_odds: bool = False  # O: chance and expected damage per model, heat map of the landings
    odds_dice_free: bool = True  # Shift+O: ignore the file's fixed rolls (bundled tables fix theirs)
    show_elevation: bool = True  # E: side view of the selected template (rulesets that have one)
    palette_cb: bool = False  # B: the colour-blind-safe palette (Okabe–Ito)


@dataclass(frozen=True)
class AppState:
    """Everything the app shows, as one value."""

    scenario: Scenario
    path: str | None = None
    saved: Scenario | None = None  # the scenario as last opened or saved: dirty = it is not this one
    history: History = field(default_factory=History)
    selection: Ref | None = None
    tool: str = "select"
    pending_attacker: str | None = None  # impact mode: attacker picked, waiting for a target
    new_shape: str = "large_blast"  # catalogue name of the next template placed
    view: ViewOptions = field(default_factory=ViewOptions)
    seed: int = 1
    what_if: Mapping[str, Any] = field(default_factory=dict)  # fixed rolls for Fire, by roll name
    also_selected: tuple[Ref, ...] = ()  # multi-selection: the items selected besides ``selection``
    pinned_rulers: tuple[tuple[str, str], ...] = ()  # rulers kept between two models (ids), drawn as they move

    @property
    def selected(self) -> tuple[Ref, ...]:
        """Every selected item, the primary one first."""
        return ((self.selection,) if self.selection is not None else ()) + self.also_selected

    @property
    def dirty(self) -> bool:
        """Unsaved changes since the last open or save."""
        return self.saved is not self.scenario


def empty_scenario(width_mm: float = 48 * 25.4, depth_mm: float = 48 * 25.4) -> Scenario:
    """A bare table (48" × 48" by default)."""
    return Scenario(Table(width_mm, depth_mm), title="Untitled table")


def new_state(scenario: Scenario, path: str | None = None) -> AppState:
    """The state right after opening ``scenario`` (clean, empty history)."""
    return AppState(scenario=scenario, path=path, saved=scenario)


# --------------------------------------------------------------------------- apply


def apply(state: AppState, command: Command) -> AppState:
    """The state after ``command``. Edits that change nothing leave the history alone."""
    if isinstance(command, EDITS):
        scenario = edit_scenario(state.scenario, command)
        if scenario == state.scenario and not isinstance(command, (AddModel, AddTerrain, AddTemplate)):
            return state
        gesture = getattr(command, "gesture", None)
        if isinstance(command, RenameItem):  # the selection, the multi-selection and the pinned rulers follow
            state = _renamed_refs(state, command.ref, command.new_id.strip())
        selection = state.selection
        if selection is not None and not item_exists(scenario, selection):
            selection = None
        return replace(
            state,
            scenario=scenario,
            history=state.history.record(state.scenario, gesture),
            selection=selection,
            also_selected=tuple(r for r in state.also_selected if item_exists(scenario, r)),
        )
    if isinstance(command, Undo):
        history, scenario = state.history.undone(state.scenario)
        return _after_history(state, history, scenario)
    if isinstance(command, Redo):
        history, scenario = state.history.redone(state.scenario)
        return _after_history(state, history, scenario)
    if isinstance(command, CancelGesture):
        history, scenario = state.history.cancelled(state.scenario, command.gesture)
        return state if history is state.history else _after_history(state, history, scenario)
    if isinstance(command, Open):
        return AppState(
            scenario=command.scenario,
            path=command.path,
            saved=None if command.dirty else command.scenario,
            view=state.view,
            seed=state.seed,
            new_shape=state.new_shape,
        )
    if isinstance(command, MarkSaved):
        from tabletop.scenario_io.reading import rebase_backdrop

        def moved(s: Scenario) -> Scenario:
            return rebase_backdrop(s, state.path, command.path)

        h = state.history
        history = replace(h, undo=tuple(map(moved, h.undo)), redo=tuple(map(moved, h.redo)),
                          redo_before=tuple(map(moved, h.redo_before)))
        scenario = moved(state.scenario)
        return replace(state, path=command.path, saved=scenario, scenario=scenario, history=history)
    if isinstance(command, Select):
        if command.ref is not None and not item_exists(state.scenario, command.ref):
            raise CommandError(f"no {command.ref.kind} {command.ref.id!r}")
        return replace(state, selection=command.ref, also_selected=())
    if isinstance(command, SelectMany):
        refs = tuple(dict.fromkeys(command.refs))
        for r in refs:
            if not item_exists(state.scenario, r):
                raise CommandError(f"no {r.kind} {r.id!r}")
        return replace(state, selection=refs[0] if refs else None, also_selected=refs[1:])
    if isinstance(command, PinRuler):
        ids = {m.id for m in state.scenario.models}
        if command.a not in ids or command.b not in ids or command.a == command.b:
            raise CommandError("a ruler is pinned between two different models")
        pair = (command.a, command.b)
        return replace(state, pinned_rulers=tuple(p for p in state.pinned_rulers if set(p) != set(pair)) + (pair,))
    if isinstance(command, UnpinRulers):
        return replace(state, pinned_rulers=())
    if isinstance(command, SetTool):
        if command.tool not in TOOLS:
            raise CommandError(f"unknown tool {command.tool!r}")
        return replace(state, tool=command.tool, pending_attacker=None)
    if isinstance(command, PickAttacker):
        return replace(state, pending_attacker=command.model_id)
    if isinstance(command, SetNewShape):
        return replace(state, new_shape=command.name)
    if isinstance(command, SetView):
        return replace(state, view=replace(state.view, **dict(command.changes)))
    if isinstance(command, ToggleView):
        return replace(state, view=replace(state.view, **{command.name: not getattr(state.view, command.name)}))
    if isinstance(command, SetSeed):
        return replace(state, seed=int(command.seed))
    if isinstance(command, SetWhatIf):
        return replace(state, what_if=dict(command.rolls))
    raise CommandError(f"unknown command {command!r}")


def _renamed_refs(state: AppState, old: Ref, new_id: str) -> AppState:
    new = Ref(old.kind, new_id)
    rulers = tuple(tuple(new_id if i == old.id else i for i in pair) for pair in state.pinned_rulers) if old.kind == "model" else state.pinned_rulers
    return replace(
        state,
        selection=new if state.selection == old else state.selection,
        also_selected=tuple(new if r == old else r for r in state.also_selected),
        pinned_rulers=rulers,  # type: ignore[arg-type]
    )


def _after_history(state: AppState, history: History, scenario: Scenario) -> AppState:
    selection = state.selection if state.selection and item_exists(scenario, state.selection) else None
    also = tuple(r for r in state.also_selected if item_exists(scenario, r))
    return replace(state, scenario=scenario, history=history, selection=selection, also_selected=also)


# --------------------------------------------------------------------------- parsing panel text


def parse_numbers(text: str) -> dict[str, Any]:
    """``"DF=4, GN=2"`` → ``{"DF": 4, "GN": 2}``; a value may be a list ``ROLL=3 5``. Raises ValueError."""
    out: dict[str, Any] = {}
    for part in re.split(r"[,;]", text):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise ValueError(f"{part!r}: write NAME=NUMBER")
        name, value = (s.strip() for s in part.split("=", 1))
        if not re.match(r"^[A-Za-z0-9_.-]+$", name):
            raise ValueError(f"{name!r} is not a name")
        numbers = [_number(v) for v in value.split()]
        if not numbers:
            raise ValueError(f"{name}: no value")
        out[name] = numbers[0] if len(numbers) == 1 else numbers
    return out


MAX_TYPED_NUMBER = 1e9  # stats, dice and rolls: far above any game's, far below overflow


def _number(text: str) -> float | int:
    if len(text) > 40:
        raise ValueError(f"{text[:12]}…: too long for a number")
    value: float | int
    try:
        value = int(text)
    except ValueError:
        value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a finite number")
    if abs(value) > MAX_TYPED_NUMBER:
        raise ValueError(f"{text!r} is too large (at most {MAX_TYPED_NUMBER:g})")
    return value


def format_numbers(values: Mapping[str, Any]) -> str:
    """Inverse of :func:`parse_numbers`."""
    parts = []
    for k, v in values.items():
        if isinstance(v, (list, tuple)):
            parts.append(f"{k}={' '.join(_fmt(x) for x in v)}")
        else:
            parts.append(f"{k}={_fmt(v)}")
    return ", ".join(parts)


def _fmt(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def parse_tags(text: str) -> tuple[str, ...]:
    """``"infantry, martyr"`` → ``("infantry", "martyr")``."""
    return tuple(t.strip() for t in text.split(",") if t.strip())


def square_terrain(terrain_id: str, centre: Point, size_mm: float = 4 * 25.4) -> Terrain:
    """A new building for the palette: a square of ``size_mm`` centred on ``centre``."""
    return Terrain(terrain_id, rect=RectSpec(centre[0], centre[1], size_mm, size_mm, 0.0), name=None, kind="building")

# Every name the single module had stays importable from here.
from typing import Literal, Union  # noqa: F401

from .measure import polygon_problem, rotate_points, terrain_centre  # noqa: F401
from tabletop.app.commands import (  # noqa: F401
    AcceptProposed,
    AddItems,
    DeleteItem,
    Edit,
    EditModel,
    EditTemplate,
    EditTerrain,
    ImportPhoto,
    Kind,
    MoveItems,
    MoveModel,
    MoveTemplate,
    MoveTerrain,
    RotateTemplate,
    RotateTerrain,
    SetRuleset,
    SetTerrainOutline,
    SetTitle,
    Tool,
)
from tabletop.app.edits import (  # noqa: F401
    _MODEL_FIELDS,
    _TEMPLATE_FIELDS,
    _TERRAIN_FIELDS,
    _checked,
    _delete,
    _find,
    _move_items,
    _replace_at,
    _rotate_template,
    fresh_id,
    move_template,
    normalise_heading,
    rotate_terrain,
    template_heading,
    translate_terrain,
)
from tabletop.model import At, Backdrop, Direct, Explosion, Impact, Model, RULESET_NAMES, Template  # noqa: F401
from tabletop.placement import PlacementError, line_of_fire, place  # noqa: F401
