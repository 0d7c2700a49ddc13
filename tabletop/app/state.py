"""The app's state and the commands that change it. Pure: no pygame.

``AppState`` is immutable; every user action becomes a small command object and
``apply(state, command)`` returns the next state. Commands that change the
scenario (the document) are recorded in the undo history; commands that only
change what is selected or shown are not.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Union

from tabletop.model import (
    RULESET_NAMES,
    At,
    Backdrop,
    Direct,
    Explosion,
    Impact,
    Model,
    Point,
    RectSpec,
    Scenario,
    Table,
    Template,
    Terrain,
)
from tabletop.placement import PlacementError, line_of_fire, place

from .history import History
from .measure import polygon_problem, rotate_points, terrain_centre

Kind = Literal["model", "terrain", "template"]
Tool = Literal["select", "ruler", "impact", "direct", "at", "add_model", "add_terrain", "draw_terrain"]
TOOLS: tuple[str, ...] = ("select", "ruler", "impact", "direct", "at", "add_model", "add_terrain", "draw_terrain")


@dataclass(frozen=True)
class Ref:
    """Which item: its kind and id (templates have their own id namespace)."""

    kind: Kind
    id: str


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


# --------------------------------------------------------------------------- commands: the document


@dataclass(frozen=True)
class MoveModel:
    model_id: str
    x: float
    y: float
    gesture: int | None = None


@dataclass(frozen=True)
class MoveTerrain:
    """Translate a terrain piece by (dx, dy) mm."""

    terrain_id: str
    dx: float
    dy: float
    gesture: int | None = None


@dataclass(frozen=True)
class MoveTemplate:
    """Drag a template to a world point: ``at`` moves its focus, ``impact`` re-aims at the
    point, ``direct`` pivots around the attacker's base to face it."""

    template_id: str
    x: float
    y: float
    gesture: int | None = None


@dataclass(frozen=True)
class RotateTemplate:
    """Set a template's axis (``at`` and ``direct`` placements; others follow their aim)."""

    template_id: str
    heading: float
    gesture: int | None = None


@dataclass(frozen=True)
class AddModel:
    model: Model


@dataclass(frozen=True)
class AddTerrain:
    terrain: Terrain


@dataclass(frozen=True)
class AddTemplate:
    template: Template
    gesture: int | None = None


@dataclass(frozen=True)
class DeleteItem:
    """Remove an item; deleting a model also removes the templates that need it."""

    ref: Ref
    gesture: int | None = None


@dataclass(frozen=True)
class SetRuleset:
    name: str


@dataclass(frozen=True)
class SetTitle:
    title: str


@dataclass(frozen=True)
class EditModel:
    """Replace fields of a model (``name``, ``side``, ``base``, ``stats``, ``tags``, ``unit``, ``facing``)."""

    model_id: str
    changes: Mapping[str, Any]
    gesture: int | None = None


@dataclass(frozen=True)
class EditTemplate:
    """Replace fields of a template (``shape`` with ``shape_name``, ``rolls``, ``weapon``)."""

    template_id: str
    changes: Mapping[str, Any]


@dataclass(frozen=True)
class EditTerrain:
    """Replace fields of a terrain piece (``name``, ``kind``, ``height``, ``blocks_los``)."""

    terrain_id: str
    changes: Mapping[str, Any]
    gesture: int | None = None


@dataclass(frozen=True)
class MoveItems:
    """Translate models, terrain and free templates by (dx, dy) mm (nudges, moving a multi-selection)."""

    refs: tuple[Ref, ...]
    dx: float
    dy: float
    gesture: int | None = None


@dataclass(frozen=True)
class RotateTerrain:
    """Turn a terrain piece counter-clockwise by ``degrees`` about its centre (a rectangle's
    centre, else its outline's centroid)."""

    terrain_id: str
    degrees: float
    gesture: int | None = None


@dataclass(frozen=True)
class SetTerrainOutline:
    """Give a terrain piece a new outline: ``points`` (a polygon) or ``rect``; refused when invalid."""

    terrain_id: str
    points: tuple[Point, ...] | None = None
    rect: RectSpec | None = None
    gesture: int | None = None


@dataclass(frozen=True)
class AddItems:
    """Add several models and terrain pieces as one undo step (duplicate, a row of copies)."""

    models: tuple[Model, ...] = ()
    terrain: tuple[Terrain, ...] = ()
    gesture: int | None = None


@dataclass(frozen=True)
class ImportPhoto:
    """Lay a photo under the table and add the bases found on it (proposed), as one undo step."""

    backdrop: Backdrop | None
    models: tuple[Model, ...] = ()
    table_mm: tuple[float, float] | None = None  # the photo's table size, when it differs


@dataclass(frozen=True)
class AcceptProposed:
    """Make proposed bases (tag ``proposed``, from a photo) ordinary models."""

    model_ids: tuple[str, ...]


#: The tag a base found on a photo carries until it is accepted.
PROPOSED_TAG = "proposed"


@dataclass(frozen=True)
class Undo:
    pass


@dataclass(frozen=True)
class Redo:
    pass


# --------------------------------------------------------------------------- commands: the session


@dataclass(frozen=True)
class Open:
    """Show another scenario (opened, recovered or a demo); clears the history."""

    scenario: Scenario
    path: str | None
    dirty: bool = False


@dataclass(frozen=True)
class MarkSaved:
    path: str


@dataclass(frozen=True)
class Select:
    ref: Ref | None


@dataclass(frozen=True)
class SelectMany:
    """Select several items; the first is the primary selection (the side panel shows it)."""

    refs: tuple[Ref, ...]


@dataclass(frozen=True)
class PinRuler:
    """Keep a ruler between two models; it follows them as they move."""

    a: str
    b: str


@dataclass(frozen=True)
class UnpinRulers:
    pass


@dataclass(frozen=True)
class SetTool:
    tool: str


@dataclass(frozen=True)
class PickAttacker:
    model_id: str | None


@dataclass(frozen=True)
class SetNewShape:
    name: str


@dataclass(frozen=True)
class SetView:
    changes: Mapping[str, bool]


@dataclass(frozen=True)
class ToggleView:
    name: str


@dataclass(frozen=True)
class SetSeed:
    seed: int


@dataclass(frozen=True)
class SetWhatIf:
    rolls: Mapping[str, Any]


Edit = Union[
    MoveModel, MoveTerrain, MoveTemplate, RotateTemplate, AddModel, AddTerrain, AddTemplate,
    DeleteItem, SetRuleset, SetTitle, EditModel, EditTemplate, EditTerrain,
    MoveItems, RotateTerrain, SetTerrainOutline, AddItems,
    ImportPhoto, AcceptProposed,
]
Command = Union[
    Edit, Undo, Redo, Open, MarkSaved, Select, SetTool, PickAttacker, SetNewShape, SetView, ToggleView,
    SetSeed, SetWhatIf, SelectMany, PinRuler, UnpinRulers,
]
EDITS = (
    MoveModel, MoveTerrain, MoveTemplate, RotateTemplate, AddModel, AddTerrain, AddTemplate,
    DeleteItem, SetRuleset, SetTitle, EditModel, EditTemplate, EditTerrain,
    MoveItems, RotateTerrain, SetTerrainOutline, AddItems,
    ImportPhoto, AcceptProposed,
)


class CommandError(ValueError):
    """A command that does not fit the state (unknown id, bad value)."""


# --------------------------------------------------------------------------- helpers


def _replace_at(items: tuple[Any, ...], item_id: str, new: Any) -> tuple[Any, ...]:
    for i, item in enumerate(items):
        if item.id == item_id:
            return items[:i] + (new,) + items[i + 1 :]
    raise CommandError(f"no item {item_id!r}")


def normalise_heading(deg: float) -> float:
    """Degrees in [0, 360), rounded to 1e-9 so files stay tidy."""
    h = round(deg % 360.0, 9)
    return 0.0 if h == 360.0 else h


def template_heading(scenario: Scenario, template: Template) -> float:
    """The axis a template is laid along (0 when it cannot be placed)."""
    try:
        return place(template, scenario, template.shape).heading if template.shape else 0.0
    except PlacementError:
        return 0.0


def fresh_id(scenario: Scenario, prefix: str, kind: Kind = "model") -> str:
    """An id with ``prefix`` not yet used in its namespace."""
    if kind == "template":
        taken = {t.id for t in scenario.templates}
    else:
        taken = {m.id for m in scenario.models} | {t.id for t in scenario.terrain}
    n = 1
    while f"{prefix}{n}" in taken:
        n += 1
    return f"{prefix}{n}"


def item_exists(scenario: Scenario, ref: Ref) -> bool:
    items = {"model": scenario.models, "terrain": scenario.terrain, "template": scenario.templates}[ref.kind]
    return any(i.id == ref.id for i in items)


def translate_terrain(piece: Terrain, dx: float, dy: float) -> Terrain:
    """``piece`` moved by (dx, dy) mm, keeping how it is written (rect or points)."""
    if piece.rect is not None:
        return replace(piece, rect=replace(piece.rect, x=piece.rect.x + dx, y=piece.rect.y + dy))
    assert piece.points is not None
    return replace(piece, points=tuple((x + dx, y + dy) for x, y in piece.points))


def move_template(scenario: Scenario, t: Template, x: float, y: float, *, onto_model: bool = False) -> Template:
    """``t`` dragged to (x, y) mm: a free template moves there; an aimed one aims at the point
    (with ``onto_model``, at a model whose base the point falls on); a direct one turns from its
    attacker to face the point; an explosion stays on its model."""
    p = t.placement
    if isinstance(p, At):
        return replace(t, placement=replace(p, x=x, y=y))
    if isinstance(p, Impact):
        try:
            attacker = scenario.model(p.attacker)
        except KeyError:
            return t
        if math.hypot(x - attacker.x, y - attacker.y) < 1e-9:
            return t
        if onto_model:
            onto = next((m for m in scenario.models if m.id != p.attacker and math.hypot(m.x - x, m.y - y) <= m.base.bounding_radius), None)
            if onto is not None:
                return replace(t, placement=Impact(p.attacker, onto.id, None))
        return replace(t, placement=Impact(p.attacker, None, (x, y)))
    if isinstance(p, Direct):
        try:
            attacker = scenario.model(p.attacker)
        except KeyError:
            return t
        if math.hypot(x - attacker.x, y - attacker.y) < 1e-9:
            return t
        return replace(t, placement=replace(p, heading=normalise_heading(line_of_fire(attacker, (x, y)))))
    return t  # an explosion sits on its model


def _rotate_template(t: Template, heading: float) -> Template:
    p = t.placement
    if isinstance(p, (At, Direct)):
        return replace(t, placement=replace(p, heading=normalise_heading(heading)))
    return t


def _delete(scenario: Scenario, ref: Ref) -> Scenario:
    if ref.kind == "template":
        return replace(scenario, templates=tuple(t for t in scenario.templates if t.id != ref.id))
    if ref.kind == "terrain":
        return replace(scenario, terrain=tuple(t for t in scenario.terrain if t.id != ref.id))

    def needs(t: Template) -> bool:
        p = t.placement
        if isinstance(p, Impact):
            return ref.id in (p.attacker, p.target)
        if isinstance(p, Direct):
            return p.attacker == ref.id
        if isinstance(p, Explosion):
            return p.model == ref.id
        return False

    models = tuple(
        replace(m, engaged=tuple(e for e in m.engaged if e != ref.id)) if ref.id in m.engaged else m
        for m in scenario.models
        if m.id != ref.id
    )
    return replace(scenario, models=models, templates=tuple(t for t in scenario.templates if not needs(t)))


_MODEL_FIELDS = {"name", "side", "unit", "base", "stats", "tags", "facing", "engaged", "x", "y", "z", "height", "sigma"}
_TEMPLATE_FIELDS = {"shape", "shape_name", "rolls", "weapon", "battery"}
_TERRAIN_FIELDS = {"name", "kind", "height", "blocks_los", "stats", "tags"}


def _checked(changes: Mapping[str, Any], allowed: set[str]) -> dict[str, Any]:
    unknown = set(changes) - allowed
    if unknown:
        raise CommandError(f"cannot edit {', '.join(sorted(unknown))}")
    return dict(changes)


def edit_scenario(scenario: Scenario, command: Edit) -> Scenario:
    """The scenario after one edit. Raises CommandError for an unknown id or field."""
    s = scenario
    if isinstance(command, MoveModel):
        m = _find(s.models, command.model_id)
        return replace(s, models=_replace_at(s.models, m.id, replace(m, x=command.x, y=command.y)))
    if isinstance(command, MoveTerrain):
        t = _find(s.terrain, command.terrain_id)
        return replace(s, terrain=_replace_at(s.terrain, t.id, translate_terrain(t, command.dx, command.dy)))
    if isinstance(command, MoveTemplate):
        t = _find(s.templates, command.template_id)
        return replace(s, templates=_replace_at(s.templates, t.id, move_template(s, t, command.x, command.y)))
    if isinstance(command, RotateTemplate):
        t = _find(s.templates, command.template_id)
        return replace(s, templates=_replace_at(s.templates, t.id, _rotate_template(t, command.heading)))
    if isinstance(command, AddModel):
        if any(i.id == command.model.id for i in (*s.models, *s.terrain)):
            raise CommandError(f"id {command.model.id!r} is taken")
        return replace(s, models=s.models + (command.model,))
    if isinstance(command, AddTerrain):
        if any(i.id == command.terrain.id for i in (*s.models, *s.terrain)):
            raise CommandError(f"id {command.terrain.id!r} is taken")
        return replace(s, terrain=s.terrain + (command.terrain,))
    if isinstance(command, AddTemplate):
        if any(t.id == command.template.id for t in s.templates):
            raise CommandError(f"template id {command.template.id!r} is taken")
        return replace(s, templates=s.templates + (command.template,))
    if isinstance(command, DeleteItem):
        if not item_exists(s, command.ref):
            raise CommandError(f"no {command.ref.kind} {command.ref.id!r}")
        return _delete(s, command.ref)
    if isinstance(command, SetRuleset):
        if command.name not in RULESET_NAMES:
            raise CommandError(f"unknown ruleset {command.name!r}")
        return replace(s, ruleset=command.name)
    if isinstance(command, SetTitle):
        return replace(s, title=command.title)
    if isinstance(command, EditModel):
        m = _find(s.models, command.model_id)
        return replace(s, models=_replace_at(s.models, m.id, replace(m, **_checked(command.changes, _MODEL_FIELDS))))
    if isinstance(command, EditTemplate):
        t = _find(s.templates, command.template_id)
        changes = _checked(command.changes, _TEMPLATE_FIELDS)
        return replace(s, templates=_replace_at(s.templates, t.id, replace(t, **changes)))
    if isinstance(command, EditTerrain):
        t = _find(s.terrain, command.terrain_id)
        return replace(s, terrain=_replace_at(s.terrain, t.id, replace(t, **_checked(command.changes, _TERRAIN_FIELDS))))
    if isinstance(command, MoveItems):
        return _move_items(s, command)
    if isinstance(command, RotateTerrain):
        t = _find(s.terrain, command.terrain_id)
        return replace(s, terrain=_replace_at(s.terrain, t.id, rotate_terrain(t, command.degrees)))
    if isinstance(command, SetTerrainOutline):
        t = _find(s.terrain, command.terrain_id)
        if (command.points is None) == (command.rect is None):
            raise CommandError("an outline is points or a rectangle")
        if command.rect is not None and (command.rect.length <= 0 or command.rect.width <= 0):
            raise CommandError("a rectangle needs a positive length and width")
        if command.points is not None:
            problem = polygon_problem(command.points)
            if problem is not None:
                raise CommandError(f"not a terrain outline: {problem}")
        return replace(s, terrain=_replace_at(s.terrain, t.id, replace(t, points=command.points, rect=command.rect)))
    if isinstance(command, AddItems):
        taken = {i.id for i in (*s.models, *s.terrain)}
        for item in (*command.models, *command.terrain):
            if item.id in taken:
                raise CommandError(f"id {item.id!r} is taken")
            taken.add(item.id)
        return replace(s, models=s.models + command.models, terrain=s.terrain + command.terrain)
    if isinstance(command, ImportPhoto):
        taken = {i.id for i in (*s.models, *s.terrain)}
        clash = [m.id for m in command.models if m.id in taken]
        if clash:
            raise CommandError(f"id {clash[0]!r} is taken")
        table = s.table if command.table_mm is None else replace(s.table, width=command.table_mm[0], depth=command.table_mm[1])
        return replace(s, table=table, backdrop=command.backdrop, models=s.models + command.models)
    if isinstance(command, AcceptProposed):
        wanted = set(command.model_ids)
        return replace(s, models=tuple(
            replace(m, tags=tuple(t for t in m.tags if t != PROPOSED_TAG)) if m.id in wanted else m for m in s.models
        ))
    raise CommandError(f"not an edit: {command!r}")


def rotate_terrain(piece: Terrain, degrees: float) -> Terrain:
    """``piece`` turned counter-clockwise by ``degrees`` about its centre, keeping how it is written."""
    if piece.rect is not None:
        return replace(piece, rect=replace(piece.rect, rotation=normalise_heading(piece.rect.rotation + degrees)))
    assert piece.points is not None
    return replace(piece, points=rotate_points(piece.points, terrain_centre(piece), degrees))


def _move_items(s: Scenario, command: MoveItems) -> Scenario:
    dx, dy = command.dx, command.dy
    ids: dict[str, set[str]] = {}
    for r in command.refs:
        if not item_exists(s, r):
            raise CommandError(f"no {r.kind} {r.id!r}")
        ids.setdefault(r.kind, set()).add(r.id)
    models = tuple(replace(m, x=m.x + dx, y=m.y + dy) if m.id in ids.get("model", ()) else m for m in s.models)
    terrain = tuple(translate_terrain(t, dx, dy) if t.id in ids.get("terrain", ()) else t for t in s.terrain)
    templates = tuple(
        replace(t, placement=replace(t.placement, x=t.placement.x + dx, y=t.placement.y + dy))
        if t.id in ids.get("template", ()) and isinstance(t.placement, At)
        else t
        for t in s.templates
    )
    return replace(s, models=models, terrain=terrain, templates=templates)


def _find(items: tuple[Any, ...], item_id: str) -> Any:
    for item in items:
        if item.id == item_id:
            return item
    raise CommandError(f"no item {item_id!r}")


# --------------------------------------------------------------------------- apply


def apply(state: AppState, command: Command) -> AppState:
    """The state after ``command``. Edits that change nothing leave the history alone."""
    if isinstance(command, EDITS):
        scenario = edit_scenario(state.scenario, command)
        if scenario == state.scenario and not isinstance(command, (AddModel, AddTerrain, AddTemplate)):
            return state
        gesture = getattr(command, "gesture", None)
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
        return replace(state, path=command.path, saved=state.scenario)
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
