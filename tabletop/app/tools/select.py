"""The Select tool: pick and drag models, templates (move, aim, rotate by the handle) and buildings."""

from __future__ import annotations

import math

from tabletop.model import Direct, Explosion

from .. import overlays
from ..hit import distance, item_at
from ..state import MoveModel, MoveTemplate, MoveTerrain, RotateTemplate, Select
from .base import Gesture, Pointer, Tool, ToolHost

#: How far (px) the pointer must move with the button held before a press becomes a drag:
#: a click on an item selects it and changes nothing (no re-aim, no undo step).
DRAG_THRESHOLD_PX = 4.0


class SelectTool(Tool):
    """Press on an item to select it and drag it; on empty table, drag to pan."""

    name = "select"
    label = "Select"
    tip = "Select and drag models, templates and buildings (1)"

    def press(self, host: ToolHost, at: Pointer) -> None:
        s = host.scenario
        placed = host.placed()
        (x, y), pos = at.world, at.screen
        sel = host.state.selection
        # the rotation handle first, then the item under the mouse, else pan
        if sel is not None and sel.kind == "template" and sel.id in placed:
            hx, hy = host.viewport.to_screen(*overlays.handle_world(placed[sel.id], host.viewport))
            if math.hypot(pos[0] - hx, pos[1] - hy) <= overlays.HANDLE_RADIUS_PX + 4:
                self.gesture = Gesture("rotate", at.world, sel, host.next_gesture(), last=at.world, start_screen=at.screen)
                return
        ref = item_at(s, placed, x, y, host.slack_mm(), prefer=sel)
        if ref != sel:
            host.dispatch(Select(ref))
        if ref is None:
            host.start_pan(at)
            return
        g = host.next_gesture()
        if ref.kind == "model":
            m = s.model(ref.id)
            self.gesture = Gesture("move_model", at.world, ref, g, (m.x - x, m.y - y), at.world)
        elif ref.kind == "template":
            t = s.template(ref.id)
            if isinstance(t.placement, Explosion):
                host.flash("An explosion sits on its model: move the model")
                return
            if isinstance(t.placement, Direct):
                self.gesture = Gesture("aim", at.world, ref, g, last=at.world)
            else:
                focus = placed[ref.id].focus if ref.id in placed else at.world
                self.gesture = Gesture("move_template", at.world, ref, g, (focus[0] - x, focus[1] - y), at.world)
        else:
            self.gesture = Gesture("move_terrain", at.world, ref, g, last=at.world)
        if self.gesture is not None:
            self.gesture.start_screen = at.screen

    def drag(self, host: ToolHost, at: Pointer) -> None:
        d = self.gesture
        if d is None or d.ref is None:
            return
        if not d.moved:
            start = d.start_screen or at.screen
            if math.hypot(at.screen[0] - start[0], at.screen[1] - start[1]) < DRAG_THRESHOLD_PX:
                return
            d.moved = True
        drag_item(host, d, at)


def drag_item(host: ToolHost, d: Gesture, at: Pointer) -> None:
    """One step of a gesture that moves, aims or rotates ``d.ref``."""
    assert d.ref is not None
    x, y = at.world
    if d.kind == "move_model":
        host.dispatch(MoveModel(d.ref.id, x + d.offset[0], y + d.offset[1], d.undo_group))
    elif d.kind == "move_template":
        host.dispatch(MoveTemplate(d.ref.id, x + d.offset[0], y + d.offset[1], d.undo_group))
    elif d.kind == "aim":
        host.dispatch(MoveTemplate(d.ref.id, x, y, d.undo_group))
    elif d.kind == "rotate":
        placed = host.placed().get(d.ref.id)
        if placed is not None and distance(at.world, placed.focus) > 1e-6:
            heading = math.degrees(math.atan2(y - placed.focus[1], x - placed.focus[0]))
            host.dispatch(RotateTemplate(d.ref.id, round(heading, 6), d.undo_group))
    elif d.kind == "move_terrain":
        dx, dy = x - d.last[0], y - d.last[1]
        if dx or dy:
            host.dispatch(MoveTerrain(d.ref.id, dx, dy, d.undo_group))
    d.last = at.world
