"""How an edit command changes the scenario, and the helpers it shares with the tools. Pure: no pygame."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

from .measure import polygon_problem, rotate_points, terrain_centre
from tabletop.app.commands import (
    AcceptProposed,
    AddItems,
    AddModel,
    AddTemplate,
    AddTerrain,
    CommandError,
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
    Ref,
    RenameItem,
    RotateTemplate,
    RotateTerrain,
    SetRuleset,
    SetSettings,
    SetTerrainOutline,
    SetTitle,
)
from tabletop import rulesets
from tabletop.model import CHECK_TAG, PROPOSED_TAG, RULESET_NAMES, At, Direct, Explosion, Impact, Scenario, Template, Terrain
from tabletop.placement import PlacementError, line_of_fire, place


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


def fresh_id(scenario: Scenario, prefix: str, kind: Kind = "model", used: Collection[str] = ()) -> str:
    """An id with ``prefix`` not used in its namespace, in ``scenario`` nor among ``used`` (the ids in the table's undo
    and redo steps, ``History.model_ids`` or ``template_ids``): an id deleted and given to the next item added would
    name two things (a message, a note, the review's list saying "p4" of either), and an undo brings the first back."""
    if kind == "template":
        here = {t.id for t in scenario.templates}
    else:
        here = {m.id for m in scenario.models} | {t.id for t in scenario.terrain}
    n = 1
    while f"{prefix}{n}" in here or f"{prefix}{n}" in used:
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


def _rename(scenario: Scenario, ref: Ref, new_id: str) -> Scenario:
    """``ref`` renamed ``new_id``, with every template placement and engagement that names it."""
    if ref.kind not in ("model", "terrain"):
        raise CommandError("only models and terrain pieces are renamed")
    if not item_exists(scenario, ref):
        raise CommandError(f"no {ref.kind} {ref.id!r}")
    new_id = new_id.strip()
    if not new_id:
        raise CommandError("an id cannot be empty")
    if new_id == ref.id:
        return scenario
    if any(i.id == new_id for i in (*scenario.models, *scenario.terrain)):
        raise CommandError(f"id {new_id!r} is taken")
    if ref.kind == "terrain":
        return replace(scenario, terrain=tuple(replace(t, id=new_id) if t.id == ref.id else t for t in scenario.terrain))
    old = ref.id

    def renamed(name: str | None) -> str | None:
        return new_id if name == old else name

    def placement(p: Any) -> Any:
        if isinstance(p, Impact):
            return replace(p, attacker=renamed(p.attacker), target=renamed(p.target))
        if isinstance(p, Direct):
            return replace(p, attacker=renamed(p.attacker))
        if isinstance(p, Explosion):
            return replace(p, model=renamed(p.model))
        return p

    models = tuple(
        replace(m, id=new_id if m.id == old else m.id, engaged=tuple(new_id if e == old else e for e in m.engaged))
        for m in scenario.models
    )
    templates = tuple(replace(t, placement=placement(t.placement)) for t in scenario.templates)
    return replace(scenario, models=models, templates=templates)


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
        if command.name not in RULESET_NAMES and not rulesets.is_registered(command.name):  # a rules file: by its key
            raise CommandError(f"unknown ruleset {command.name!r}")
        return replace(s, ruleset=command.name)
    if isinstance(command, SetSettings):
        return replace(s, extra={**s.extra, "settings": dict(command.values)})
    if isinstance(command, RenameItem):
        return _rename(s, command.ref, command.new_id)
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
        # The earlier photo's proposals not yet accepted go with its backdrop: imported again (a finished review
        # cannot be reopened) every base came twice, the old proposals listed among the new ones to check.
        kept = tuple(m for m in s.models if PROPOSED_TAG not in m.tags)
        taken = {i.id for i in (*kept, *s.terrain)}
        clash = [m.id for m in command.models if m.id in taken]
        if clash:
            raise CommandError(f"id {clash[0]!r} is taken")
        table = s.table if command.table_mm is None else replace(s.table, width=command.table_mm[0], depth=command.table_mm[1])
        if command.fresh:
            return replace(s, table=table, backdrop=command.backdrop, models=command.models, templates=(), terrain=(), title="")
        return replace(s, table=table, backdrop=command.backdrop, models=kept + command.models)
    if isinstance(command, AcceptProposed):
        wanted = set(command.model_ids)
        gone = (PROPOSED_TAG, CHECK_TAG) if command.confirm else (PROPOSED_TAG,)
        return replace(s, models=tuple(
            replace(m, tags=tuple(t for t in m.tags if t not in gone)) if m.id in wanted else m for m in s.models
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
