"""The Ruler tool: measure centre to centre and base edge to base edge."""

from __future__ import annotations

import pygame

from .. import overlays
from ..hit import model_at
from .base import Gesture, Pointer, Tool, ToolHost


class RulerTool(Tool):
    """Drag from a base or a point; ends snap to base centres. The reading stays until Esc."""

    name = "ruler"
    label = "Ruler"
    tip = "Measure centre-to-centre and base edge to base edge (2)"

    def __init__(self) -> None:
        super().__init__()
        self.reading: overlays.RulerReading | None = None

    def press(self, host: ToolHost, at: Pointer) -> None:
        s = host.scenario
        m = model_at(s, at.world[0], at.world[1], host.slack_mm())
        start = m.centre if m else at.world
        self.gesture = Gesture("ruler", start, last=at.world, anchor_id=m.id if m else None)
        self.reading = overlays.measure(s, start, at.world, self.gesture.anchor_id, None)

    def drag(self, host: ToolHost, at: Pointer) -> None:
        d = self.gesture
        if d is None:
            return
        m = model_at(host.scenario, at.world[0], at.world[1], host.slack_mm())
        end = m.centre if m is not None and m.id != d.anchor_id else at.world
        self.reading = overlays.measure(host.scenario, d.start, end, d.anchor_id, m.id if m else None)
        d.last = at.world

    def cancel(self, host: ToolHost) -> bool:
        """Esc: the reading goes; True when a measurement was being dragged."""
        dragging = self.gesture is not None
        self.gesture = None
        self.reading = None
        return dragging

    def deactivate(self, host: ToolHost) -> None:
        super().deactivate(host)
        self.reading = None  # a reading from before is not about what is on the table now

    def draw(self, host: ToolHost, surface: pygame.Surface) -> None:
        if self.reading is not None:
            overlays.draw_ruler(surface, host.viewport, self.reading)

    def hint(self, host: ToolHost) -> list[str]:
        return ["Ruler: drag from a base or a point; ends snap to base centres."]
