"""A headless pilot for tests: the real app on SDL's dummy display, driven by real
``pygame.event.Event``s (in the spirit of Textual's pilot)."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from tabletop.model import Point, Scenario  # noqa: E402
from tabletop.scenario_io import load  # noqa: E402

from .autosave import Recovery  # noqa: E402
from .window import TabletopApp, startup_scenario  # noqa: E402

FRAME_S = 1 / 60


class Pilot:
    """Create the app on a dummy display; post events; step frames; read the state."""

    def __init__(
        self,
        scenario: Scenario | str | Path | None = None,
        size: tuple[int, int] = (1280, 800),
        *,
        autosave: bool = False,
        recovery: Recovery | None = None,
        recoveries: Sequence[Recovery] = (),
    ) -> None:
        """``recovery`` (one) or ``recoveries`` (several): crashed sessions' work the app offers at start."""
        pygame.init()
        self.screen = pygame.display.set_mode(size)
        path: str | None = None
        problems: list[Any] = []
        if scenario is None:
            scenario, path, problems = startup_scenario(None)
        elif isinstance(scenario, (str, Path)):
            path = str(scenario)
            scenario = load(scenario)
        self.app = TabletopApp(scenario, path, size, autosave=autosave, problems=problems, recoveries=[recovery] if recovery is not None else recoveries, set_caption=False)
        pygame.event.clear()
        self.mouse: tuple[int, int] = self.app.view_rect.center
        # pygame_gui reads the pointer for hovering from pygame.mouse.get_pos(), which a posted event does
        # not move on the dummy display: the widgets see the pilot's pointer instead, as a real mouse's.
        ui = self.app.ui
        ui._update_mouse_position = lambda: setattr(ui, "mouse_position", ui.calculate_scaled_mouse_position(self.mouse))  # type: ignore[method-assign]
        self.step()

    # ------------------------------------------------------------------ frames

    def step(self, frames: int = 1) -> None:
        """Handle queued events and draw ``frames`` frames."""
        for _ in range(frames):
            for event in pygame.event.get():
                self.app.process_events(event)
            self.app.update(FRAME_S)
            self.app.draw(self.screen)

    def post(self, event_type: int, **attrs: Any) -> None:
        """Queue a real pygame event."""
        pygame.event.post(pygame.event.Event(event_type, **attrs))

    # ------------------------------------------------------------------ mouse and keys

    def screen_of(self, world: Point) -> tuple[int, int]:
        """The pixel showing world point ``world`` (mm)."""
        x, y = self.app.viewport.to_screen(*world)
        return (round(x), round(y))

    def move(self, pos: tuple[int, int], buttons: tuple[int, int, int] = (0, 0, 0)) -> None:
        rel = (pos[0] - self.mouse[0], pos[1] - self.mouse[1])
        self.mouse = pos
        self.post(pygame.MOUSEMOTION, pos=pos, rel=rel, buttons=buttons, touch=False)
        self.step()

    def press(self, pos: tuple[int, int], button: int = 1) -> None:
        self.move(pos)
        self.post(pygame.MOUSEBUTTONDOWN, pos=pos, button=button, touch=False)
        self.step()

    def release(self, pos: tuple[int, int], button: int = 1) -> None:
        self.post(pygame.MOUSEBUTTONUP, pos=pos, button=button, touch=False)
        self.step()

    def click(self, pos: tuple[int, int], button: int = 1) -> None:
        self.press(pos, button)
        self.release(pos, button)

    def drag(self, start: tuple[int, int], end: tuple[int, int], button: int = 1, steps: int = 8) -> None:
        """Press at ``start``, move in ``steps`` motion events to ``end``, release."""
        self.press(start, button)
        held = (1 if button == 1 else 0, 1 if button == 2 else 0, 1 if button == 3 else 0)
        for i in range(1, steps + 1):
            p = (round(start[0] + (end[0] - start[0]) * i / steps), round(start[1] + (end[1] - start[1]) * i / steps))
            self.move(p, held)
        self.release(end, button)

    def key(self, key: int, mod: int = 0, unicode: str = "") -> None:
        self.post(pygame.KEYDOWN, key=key, mod=mod, unicode=unicode, scancode=0)
        self.post(pygame.KEYUP, key=key, mod=mod, unicode=unicode, scancode=0)
        self.step()

    def type(self, text: str) -> None:
        """Type ``text`` into the focused field: one TEXTINPUT event per character, as a keyboard sends."""
        for ch in text:
            self.post(pygame.TEXTINPUT, text=ch, window=None)
        self.step()

    def replace_text(self, field: Any, text: str) -> None:
        """Click into ``field``, select all (Ctrl+A) and type ``text`` over it."""
        self.click(field.rect.center)
        self.key(pygame.K_a, mod=pygame.KMOD_LCTRL)
        self.type(text)

    def wheel(self, y: int, pos: tuple[int, int] | None = None, mod: int = 0) -> None:
        if pos is not None:
            self.move(pos)
        self.post(pygame.MOUSEWHEEL, x=0, y=y, flipped=False, precise_x=0.0, precise_y=float(y), touch=False, mod=mod)
        self.step()

    def wait_for_odds(self, timeout_s: float = 60.0) -> bool:
        """Step frames (real time passing) until the odds worker has nothing pending; False on timeout."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self.step()
            if self.app.state.view.show_odds and not self.app.odds_worker.pending and self.app.odds_worker.result is not None:
                return True
            time.sleep(0.01)
        return False

    def close(self) -> None:
        """Stop the app's background work (odds worker, autosave) and the display."""
        self.app.shutdown()
        pygame.display.quit()
