"""Building the table fast: nudges, turning the selection, duplicates and rows of copies, base
presets, and placing a base by what a tape measure says (or into base contact)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from tabletop.model import Model, Scenario, Terrain

from .measure import BASE_PRESETS, PlacementTextError, RowSpec, parse_placement, placement_position, row_positions
from .state import AddItems, EditModel, MoveItems, MoveModel, Ref, RotateTerrain, SelectMany, translate_terrain

NUDGE_MM = {"plain": 1.0, "shift": 2.54, "alt": 0.1}  # arrow, Shift+arrow (0.1"), Alt+arrow
DUPLICATE_OFFSET_MM = 25.4  # a copy lands 1" to the right of its original


class BuildMixin:
    """Part of ``TabletopApp``: the table-building shortcuts and the side panel's Place and Row."""

    def nudge(self, dx: float, dy: float) -> bool:
        """Move everything selected by (dx, dy) mm as one undo step; False when nothing is selected."""
        refs = self.state.selected
        if not refs:
            return False
        movable = tuple(r for r in refs if r.kind != "template" or hasattr(self.scenario.template(r.id).placement, "x"))
        if not movable:
            self.flash("This template follows its attacker: move the attacker or the aim point")
            return True
        if self.dispatch(MoveItems(movable, dx, dy)):
            self.flash(f"Nudged {len(movable)} item(s) by ({dx:+g}, {dy:+g}) mm")
        return True

    def turn_selection(self, degrees: float) -> bool:
        """Turn selected buildings about their centres and models on their bases; False when the
        selection has neither (a template turns by its own rule)."""
        refs = [r for r in self.state.selected if r.kind in ("terrain", "model")]
        if not refs:
            return False
        g = self.next_gesture()
        for r in refs:
            if r.kind == "terrain":
                self.dispatch(RotateTerrain(r.id, degrees, g))
            else:
                m = self.scenario.model(r.id)
                self.dispatch(EditModel(r.id, {"facing": round((m.facing + degrees) % 360.0, 9)}, g))
        self.flash(f"Turned {len(refs)} item(s) by {degrees:+g}°")
        return True

    def duplicate_selection(self) -> bool:
        """Copy the selected models and buildings 1" to the right and select the copies (one undo step)."""
        s = self.scenario
        past = self.state.history.model_ids
        models: list[Model] = []
        terrain: list[Terrain] = []
        for r in self.state.selected:
            if r.kind == "model":
                m = s.model(r.id)
                new_id = _fresh(s, m.id, models, terrain, past)
                models.append(replace(m, id=new_id, x=m.x + DUPLICATE_OFFSET_MM, engaged=()))
            elif r.kind == "terrain":
                t = s.terrain_piece(r.id)
                new_id = _fresh(s, t.id, models, terrain, past)
                terrain.append(replace(translate_terrain(t, DUPLICATE_OFFSET_MM, 0.0), id=new_id))
        if not models and not terrain:
            self.flash("Select models or buildings to duplicate them (templates are laid with their tools)")
            return False
        if self.dispatch(AddItems(tuple(models), tuple(terrain)), validate=True):
            self.dispatch(SelectMany(tuple(Ref("model", m.id) for m in models) + tuple(Ref("terrain", t.id) for t in terrain)))
            self.flash(f"Duplicated {len(models) + len(terrain)} item(s) (Ctrl+Z takes them back)")
            return True
        return False

    def place_row(self, model_id: str, row: RowSpec, gesture: int | None = None) -> bool:
        """Add ``row.count`` copies of a model in a row from it."""
        m = self.scenario.model(model_id)
        past = self.state.history.model_ids
        copies: list[Model] = []
        for x, y in row_positions(m, row):
            copies.append(replace(m, id=_fresh(self.scenario, m.id, copies, [], past), x=x, y=y, engaged=()))
        return self.dispatch(AddItems(tuple(copies), (), gesture), validate=True)

    def base_preset(self, index: int) -> None:
        """Alt+1…9: the base size for the selected models and for the next model added."""
        if not 0 <= index < len(BASE_PRESETS):
            return
        label, base = BASE_PRESETS[index]
        tool = self.tools.get("add_model")
        if tool is not None:
            tool.base, tool.base_label = base, label  # type: ignore[attr-defined]
        models = [r for r in self.state.selected if r.kind == "model"]
        g = self.next_gesture()
        for r in models:
            self.dispatch(EditModel(r.id, {"base": base}, g), validate=True)
        self.flash(f"Base {label}" + (f" for {len(models)} model(s)" if models else " for the next model added"))

    def place_model(self, model_id: str, text: str, gesture: int | None = None) -> bool:
        """Put a model where ``text`` says (table edges, another base, or contact); False and why when it cannot."""
        s = self.scenario
        try:
            mover = s.model(model_id)
            placement = parse_placement(text, s, model_id)
            x, y = placement_position(placement, s, mover)
        except (PlacementTextError, KeyError) as exc:
            self.flash(f"Place: {exc}", error=True)
            return False
        return self.dispatch(MoveModel(model_id, x, y, gesture), validate=True)


def _fresh(scenario: Scenario, base_id: str, models: list[Model], terrain: list[Terrain], used: Collection[str] = ()) -> str:
    """A new id like ``base_id`` + a number, free in the scenario, among the copies so far and among ``used`` (the ids
    in the undo and redo steps, ``History.model_ids``: an id is not given again while an undo can bring its item back,
    ``fresh_id``)."""
    taken = {m.id for m in scenario.models} | {t.id for t in scenario.terrain} | {m.id for m in models} | {t.id for t in terrain}
    stem = base_id.rstrip("0123456789") or base_id
    n = 2
    while f"{stem}{n}" in taken or f"{stem}{n}" in used:
        n += 1
    return f"{stem}{n}"


__all__ = ["BuildMixin", "NUDGE_MM"]
