"""The commands of the app: small immutable values, one per user action. Pure: no pygame.

Edits change the scenario and are undoable; session commands change only what is
selected or shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union

from tabletop.model import Backdrop, Model, Point, RectSpec, Scenario, Template, Terrain


Kind = Literal["model", "terrain", "template"]
Tool = Literal["select", "ruler", "impact", "direct", "at", "add_model", "add_terrain", "draw_terrain"]
TOOLS: tuple[str, ...] = ("select", "ruler", "impact", "direct", "at", "add_model", "add_terrain", "draw_terrain")


@dataclass(frozen=True)
class Ref:
    """Which item: its kind and id (templates have their own id namespace)."""

    kind: Kind
    id: str

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
class RenameItem:
    """Give a model or terrain piece a new id; the templates and models that name it follow."""

    ref: Ref
    new_id: str
    gesture: int | None = None


@dataclass(frozen=True)
class SetRuleset:
    name: str


@dataclass(frozen=True)
class SetSettings:
    """The table's ``[settings]`` for its ruleset (Ruleset ▸ Settings…)."""

    values: Mapping[str, Any]


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
    """Lay a photo under the table and add the bases found on it (proposed), as one undo step; the proposals of an
    earlier import not yet accepted are replaced with it."""

    backdrop: Backdrop | None
    models: tuple[Model, ...] = ()
    table_mm: tuple[float, float] | None = None  # the photo's table size, when it differs
    fresh: bool = False  # the photo starts the table: its models, templates, terrain and title set aside (a demo's)


@dataclass(frozen=True)
class AcceptProposed:
    """Make proposed bases (tag ``proposed``, from a photo) ordinary models. ``confirm``: the user looked at these
    bases one by one, so their ``check`` tag (the analysis's doubt) goes too; an "accept all" keeps it on the bases
    nobody looked at."""

    model_ids: tuple[str, ...]
    confirm: bool = False


@dataclass(frozen=True)
class Undo:
    pass


@dataclass(frozen=True)
class Redo:
    pass


@dataclass(frozen=True)
class CancelGesture:
    """Esc mid-gesture: its edit taken back with no redo step (``History.cancelled``)."""

    gesture: int


# --------------------------------------------------------------------------- commands: the session


@dataclass(frozen=True)
class Open:
    """Show another scenario (opened, recovered or a demo); clears the history."""

    scenario: Scenario
    path: str | None
    dirty: bool = False


@dataclass(frozen=True)
class MarkSaved:
    """The table written to ``path``. Its photo's path, kept relative to the file, follows it in the table and in every
    version of it the undo history holds: the same table written elsewhere, not an edit (an undo step for it made the
    first Ctrl+Z after a Save change nothing to see and the table unsaved again)."""

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
    DeleteItem, SetRuleset, SetSettings, SetTitle, EditModel, EditTemplate, EditTerrain,
    MoveItems, RotateTerrain, SetTerrainOutline, AddItems,
    ImportPhoto, AcceptProposed, RenameItem,
]
Command = Union[
    Edit, Undo, Redo, CancelGesture, Open, MarkSaved, Select, SetTool, PickAttacker, SetNewShape, SetView, ToggleView,
    SetSeed, SetWhatIf, SelectMany, PinRuler, UnpinRulers,
]
EDITS = (
    MoveModel, MoveTerrain, MoveTemplate, RotateTemplate, AddModel, AddTerrain, AddTemplate,
    DeleteItem, SetRuleset, SetSettings, SetTitle, EditModel, EditTemplate, EditTerrain,
    MoveItems, RotateTerrain, SetTerrainOutline, AddItems,
    ImportPhoto, AcceptProposed, RenameItem,
)


class CommandError(ValueError):
    """A command that does not fit the state (unknown id, bad value)."""
