"""When the app draws: at 60 fps while something moves or the user acts, otherwise asleep.

A frame costs milliseconds (the table, the labels, the widgets); drawn 60 times a second for
nothing it kept a fifth of a core busy on a laptop on battery. ``FramePacer`` gives the loop its
events and says whether to draw:

* while the app is animating (a Fire, the odds spinner, a photo being read, a drag) and for
  ``linger_s`` after the last event (the widgets' hover highlights and tooltips follow it): every
  frame, at ``fps``;
* while a text field has the focus: ``blink_fps`` (its cursor blinks);
* otherwise the loop sleeps, looking for input every ``poll_s`` (no latency a hand can feel),
  and takes a turn for an event or every ``wake_s`` (the autosave's clock, a status message
  running out): it draws then only when ``app.frame_key()`` changed since the last frame.

The window keeps its picture between frames; an exposed or resized window is an event, so it is drawn.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

import pygame


class Paced(Protocol):
    """What the pacer asks the app."""

    def animating(self) -> bool: ...

    def typing_focused(self) -> bool: ...

    def frame_key(self) -> Any: ...


class FramePacer:
    """Events for the next turn of the loop, the time passed, and whether to draw."""

    def __init__(
        self,
        fps: int = 60,
        blink_fps: int = 10,
        linger_s: float = 1.5,
        wake_s: float = 0.5,
        poll_s: float = 1 / 60,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.fps = fps
        self.blink_fps = blink_fps
        self.linger_s = linger_s
        self.wake_s = wake_s
        self.poll_s = poll_s
        self.clock = clock
        self._last_event = clock()
        self._last_turn = clock()
        self._last_key: Any = object()
        self.frames_drawn = 0
        self.turns = 0

    def mode(self, app: Paced) -> str:
        """``"active"`` (every frame), ``"blink"`` (a text field's cursor) or ``"idle"``."""
        if app.animating() or self.clock() - self._last_event < self.linger_s:
            return "active"
        if app.typing_focused():
            return "blink"
        return "idle"

    def next_events(self, app: Paced) -> tuple[list[pygame.event.Event], float]:
        """Wait as the mode allows, then return the events queued and the seconds since the last turn."""
        mode = self.mode(app)
        period = 1.0 / (self.fps if mode == "active" else self.blink_fps if mode == "blink" else 1.0 / self.wake_s)
        due = self._last_turn + period
        events: list[pygame.event.Event] = []
        while True:
            remaining = due - self.clock()
            if mode == "active" or remaining <= 0:
                if remaining > 0:
                    time.sleep(remaining)
                events = pygame.event.get()
                break
            # Asleep, looking for input every poll_s. Not pygame.event.wait(timeout): pygame-ce polls
            # the queue every millisecond inside it, which cost 3 % of a core under X11.
            time.sleep(min(remaining, self.poll_s))
            events = pygame.event.get()
            if events:
                break
        now = self.clock()
        if events:
            self._last_event = now
        dt = now - self._last_turn
        self._last_turn = now
        self.turns += 1
        return events, dt

    def should_draw(self, app: Paced, events: list[pygame.event.Event]) -> bool:
        """Draw after events, while active or blinking, and when the app's picture key changed."""
        key = app.frame_key()
        draw = bool(events) or self.mode(app) != "idle" or not same_key(key, self._last_key)
        if draw:
            self._last_key = key
            self.frames_drawn += 1
        return draw


def same_key(a: Any, b: Any) -> bool:
    """Two picture keys are the same: each item the same object, or an equal plain value (a table's
    state is compared by identity, never field by field)."""
    if not (isinstance(a, tuple) and isinstance(b, tuple)) or len(a) != len(b):
        return False
    plain = (int, float, str, bool, type(None))
    return all(x is y or (isinstance(x, plain) and isinstance(y, plain) and x == y) for x, y in zip(a, b))
