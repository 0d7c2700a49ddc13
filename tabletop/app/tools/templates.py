"""Tools that lay a new template from the catalogue: by impact, direct (aimed from a base), free."""

from __future__ import annotations

from typing import Any

import pygame

from tabletop.model import At, Direct, Impact, Template
from tabletop.placement import line_of_fire

from .. import overlays
from ..hit import distance, model_at
from ..state import AddTemplate, PickAttacker, Ref, Select, SetTool, fresh_id
from .base import Gesture, Pointer, Tool, ToolHost
from .select import drag_item


def add_template(host: ToolHost, template_id: str, placement: Any, undo_group: int | None = None) -> bool:
    """Add the catalogue's "new template" shape at ``placement``; False (and why) when it cannot."""
    entry = host.catalogue.get(host.state.new_shape)
    if entry is None:
        host.flash(f"No template {host.state.new_shape!r} in the catalogue", error=True)
        return False
    return host.dispatch(AddTemplate(Template(template_id, entry.shape, placement, shape_name=entry.name), undo_group))


class ImpactTool(Tool):
    """Click the attacker, then the target model or a point. The attacker picked waits in the state."""

    name = "impact"
    label = "Impact"
    tip = "Place a template by impact: click the attacker, then the target or a point (3)"

    def press(self, host: ToolHost, at: Pointer) -> None:
        s = host.scenario
        m = model_at(s, at.world[0], at.world[1], host.slack_mm())
        attacker = host.state.pending_attacker
        if attacker is None:
            if m is None:
                host.flash("Impact: click the attacker first", error=True)
            else:
                host.dispatch(PickAttacker(m.id))
                host.flash(f"Attacker {m.label}: now click the target model or a point")
            return
        if m is not None and m.id == attacker:
            return
        tid = fresh_id(s, "t", "template", host.state.history.template_ids)
        placement = Impact(attacker, target=m.id) if m is not None else Impact(attacker, point=at.world)
        if add_template(host, tid, placement):
            host.dispatch(SetTool("select"))
            host.dispatch(Select(Ref("template", tid)))

    def draw(self, host: ToolHost, surface: pygame.Surface) -> None:
        attacker = host.state.pending_attacker
        if attacker:
            try:
                overlays.draw_attacker_hint(surface, host.viewport, host.scenario.model(attacker), host.mouse_world)
            except KeyError:
                pass

    def hint(self, host: ToolHost) -> list[str]:
        if host.state.pending_attacker:
            return [f"Impact ({host.state.new_shape}): click the target model, or a point on the table. Esc cancels."]
        return [f"Impact ({host.state.new_shape}): click the attacking model."]


class DirectTool(Tool):
    """Press on the attacker's base and drag to aim; back to Select on release."""

    name = "direct"
    label = "Direct"
    tip = "Direct template: press on the attacker and drag to aim; it pivots on the base edge (4)"

    def press(self, host: ToolHost, at: Pointer) -> None:
        s = host.scenario
        m = model_at(s, at.world[0], at.world[1], host.slack_mm())
        if m is None:
            host.flash("Direct: press on the attacker's base and drag to aim", error=True)
            return
        tid = fresh_id(s, "t", "template", host.state.history.template_ids)
        g = host.next_gesture()
        heading = line_of_fire(m, at.world) if distance(at.world, m.centre) > 1 else m.facing
        if add_template(host, tid, Direct(m.id, round(heading % 360, 6)), g):
            host.dispatch(Select(Ref("template", tid)))
            self.gesture = Gesture("aim", at.world, Ref("template", tid), g, last=at.world)

    def drag(self, host: ToolHost, at: Pointer) -> None:
        if self.gesture is not None:
            drag_item(host, self.gesture, at)

    def release(self, host: ToolHost, at: Pointer) -> None:
        aimed = self.gesture is not None
        self.gesture = None
        if aimed:
            host.dispatch(SetTool("select"))

    def hint(self, host: ToolHost) -> list[str]:
        return [f"Direct ({host.state.new_shape}): press on the attacker and drag to aim."]


class FreeTool(Tool):
    """Lay a template at a point (``At``) and drag it while the button is held."""

    name = "at"
    label = "Free"
    tip = "Lay a template anywhere: click and drag (5)"

    def press(self, host: ToolHost, at: Pointer) -> None:
        tid = fresh_id(host.scenario, "t", "template", host.state.history.template_ids)
        g = host.next_gesture()
        x, y = at.world
        if add_template(host, tid, At(x, y, 0.0), g):
            host.dispatch(Select(Ref("template", tid)))
            self.gesture = Gesture("move_template", at.world, Ref("template", tid), g, (0.0, 0.0), at.world)

    def drag(self, host: ToolHost, at: Pointer) -> None:
        if self.gesture is not None:
            drag_item(host, self.gesture, at)

    def hint(self, host: ToolHost) -> list[str]:
        return [f"Free template ({host.state.new_shape}): click to lay it, drag to move it."]
