"""The Ruler tool: measure centre to centre and base edge to base edge; pin a ruler between two bases."""

from __future__ import annotations

import math
from functools import lru_cache

import pygame

from tabletop.model import Base, Model, Point, Scenario

from .. import overlays
from ..hit import model_at
from ..measure import edge_gap
from ..state import PinRuler, UnpinRulers
from .base import Gesture, Pointer, Tool, ToolHost


@lru_cache(maxsize=256)
def _gap(a: tuple[float, float, float, Base], b: tuple[float, float, float, Base]) -> float:
    # pinned rulers are read every frame: an oval-to-oval gap costs tens of ms, so keep answers
    return edge_gap(Model("a", a[0], a[1], a[3], facing=a[2]), Model("b", b[0], b[1], b[3], facing=b[2]))


def reading(scenario: Scenario, start: Point, end: Point, start_model: str | None, end_model: str | None) -> overlays.RulerReading:
    """Centre to centre, and between two models the exact edge-to-edge gap (negative: overlapping)."""
    centre = math.hypot(end[0] - start[0], end[1] - start[1])
    edge: float | None = None
    if start_model and end_model and start_model != end_model:
        a, b = scenario.model(start_model), scenario.model(end_model)
        edge = _gap((a.x, a.y, a.facing, a.base), (b.x, b.y, b.facing, b.base))
    return overlays.RulerReading(start, end, centre, edge)


def pinned_readings(scenario: Scenario, pins: tuple[tuple[str, str], ...]) -> list[overlays.RulerReading]:
    """The pinned rulers as they read now (pins whose models are gone are skipped)."""
    models = scenario.models_by_id()
    out = []
    for a, b in pins:
        if a in models and b in models:
            out.append(reading(scenario, models[a].centre, models[b].centre, a, b))
    return out


def draw_pinned(host: ToolHost, surface: pygame.Surface) -> None:
    """Every pinned ruler, following its two bases."""
    for r in pinned_readings(host.scenario, host.state.pinned_rulers):
        overlays.draw_ruler(surface, host.viewport, r)


class RulerTool(Tool):
    """Drag from a base or a point; ends snap to base centres. The reading stays until Esc; P pins it."""

    name = "ruler"
    label = "Ruler"
    tip = "Measure centre-to-centre and base edge to base edge; P pins it between two bases (2)"

    def __init__(self) -> None:
        super().__init__()
        self.reading: overlays.RulerReading | None = None
        self.ends: tuple[str | None, str | None] = (None, None)

    def press(self, host: ToolHost, at: Pointer) -> None:
        s = host.scenario
        m = model_at(s, at.world[0], at.world[1], host.slack_mm())
        start = m.centre if m else at.world
        self.gesture = Gesture("ruler", start, last=at.world, anchor_id=m.id if m else None)
        self.ends = (self.gesture.anchor_id, None)
        self.reading = reading(s, start, at.world, self.gesture.anchor_id, None)

    def drag(self, host: ToolHost, at: Pointer) -> None:
        d = self.gesture
        if d is None:
            return
        m = model_at(host.scenario, at.world[0], at.world[1], host.slack_mm())
        end = m.centre if m is not None and m.id != d.anchor_id else at.world
        end_id = m.id if m is not None and m.id != d.anchor_id else None
        self.ends = (d.anchor_id, end_id)
        self.reading = reading(host.scenario, d.start, end, d.anchor_id, end_id)
        d.last = at.world

    def key(self, host: ToolHost, event: pygame.event.Event) -> bool:
        if event.key != pygame.K_p:
            return False
        if getattr(event, "mod", 0) & pygame.KMOD_SHIFT:
            host.dispatch(UnpinRulers())
            host.flash("Pinned rulers removed")
            return True
        a, b = self.ends
        if a is None or b is None:
            host.flash("Pin: drag the ruler from one base to another first", error=True)
            return True
        if host.dispatch(PinRuler(a, b)):
            host.flash(f"Ruler pinned between {a} and {b} (Shift+P removes the pins)")
        return True

    def cancel(self, host: ToolHost) -> bool:
        """Esc: the reading goes; True when a measurement was being dragged."""
        dragging = self.gesture is not None
        self.gesture = None
        self.reading = None
        self.ends = (None, None)
        return dragging

    def deactivate(self, host: ToolHost) -> None:
        super().deactivate(host)
        self.reading = None  # a reading from before is not about what is on the table now
        self.ends = (None, None)

    def draw(self, host: ToolHost, surface: pygame.Surface) -> None:
        if self.reading is not None:
            overlays.draw_ruler(surface, host.viewport, self.reading)

    def hint(self, host: ToolHost) -> list[str]:
        return ["Ruler: drag from a base or a point; ends snap to base centres. P pins it between two bases; Shift+P unpins."]
