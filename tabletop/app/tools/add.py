"""Tools that add a piece to the table with one click: a model, a building."""

from __future__ import annotations

from tabletop.model import Base, Model

from ..state import AddModel, AddTerrain, Ref, Select, fresh_id, square_terrain
from .base import Pointer, Tool, ToolHost


def last_side(host: ToolHost) -> str:
    """The side of the selected model, else of the last model, else red."""
    sel = host.state.selection
    if sel is not None and sel.kind == "model":
        try:
            return host.scenario.model(sel.id).side or "red"
        except KeyError:
            pass
    models = host.scenario.models
    return models[-1].side or "red" if models else "red"


class AddModelTool(Tool):
    """Click to add a base (25 mm round unless Alt+1…9 chose a preset) on the side last used."""

    name = "add_model"
    label = "+Model"
    tip = "Add a model: click on the table; Alt+1…9 picks the base size (6)"

    def __init__(self) -> None:
        super().__init__()
        self.base = Base.round(25.0)
        self.base_label = "25 mm"

    def press(self, host: ToolHost, at: Pointer) -> None:
        mid = fresh_id(host.scenario, "m", used=host.state.history.model_ids)
        model = Model(mid, at.world[0], at.world[1], self.base, name=None, side=last_side(host))
        if host.dispatch(AddModel(model)):
            host.dispatch(Select(Ref("model", mid)))

    def hint(self, host: ToolHost) -> list[str]:
        return [f"Add model: click on the table ({self.base_label} base; Alt+1…9 other sizes; edit it in the side panel)."]


class AddBuildingTool(Tool):
    """Click to add a 4" square building."""

    name = "add_terrain"
    label = "+Building"
    tip = "Add a 4\" building: click on the table (7)"

    def press(self, host: ToolHost, at: Pointer) -> None:
        tid = fresh_id(host.scenario, "b", used=host.state.history.model_ids)
        if host.dispatch(AddTerrain(square_terrain(tid, at.world))):
            host.dispatch(Select(Ref("terrain", tid)))

    def hint(self, host: ToolHost) -> list[str]:
        return ["Add building: click on the table (4\" square)."]
