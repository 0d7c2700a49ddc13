"""The "Recover unsaved work" dialog: Recover, Later, Discard….

Only the Discard button can lead to deleting the crashed work (and the app asks once more
before it does); the close button (×), Later, or closing the app keep it for the next start.
The dialog answers through the callbacks it was given, once, whichever way it is closed.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UITextBox, UIWindow

CHOICES = ("recover", "later", "discard")


class RecoveryDialog(UIWindow):
    """What the crashed session left, and three buttons; ``answer(choice)`` is called once."""

    def __init__(self, rect: pygame.Rect, manager: Any, text: str, answer: Callable[[str], Any], *, title: str = "Recover unsaved work", can_recover: bool = True) -> None:
        super().__init__(rect, manager, window_display_title=title, object_id="#recovery_dialog", resizable=False, always_on_top=True)
        self._answer = answer
        self.answered: str | None = None
        size = self.get_container().get_size()
        w, h = int(size[0]), int(size[1])
        bw, gap = 110, 8
        self.text = text
        self.text_box = UITextBox(html.escape(text).replace("\n", "<br>"), pygame.Rect(8, 8, w - 16, h - 62), manager, container=self)
        y = h - 46
        self.recover_button = UIButton(pygame.Rect(w - 3 * bw - 2 * gap - 8, y, bw, 36), "Recover", manager, container=self, tool_tip_text="Open this work in the window (the table shown now is replaced; unsaved changes are asked about first)")
        self.later_button = UIButton(pygame.Rect(w - 2 * bw - gap - 8, y, bw, 36), "Later", manager, container=self, tool_tip_text="Keep it: it is offered again at the next start")
        self.discard_button = UIButton(pygame.Rect(w - bw - 8, y, bw, 36), "Discard…", manager, container=self, tool_tip_text="Delete this work for good (asks once more)")
        if not can_recover:
            self.recover_button.disable()
        self.set_blocking(True)

    def choice(self, element: Any) -> str | None:
        for name, button in zip(CHOICES, (self.recover_button, self.later_button, self.discard_button)):
            if element is button:
                return name
        return None

    def process_event(self, event: pygame.event.Event) -> bool:
        consumed = super().process_event(event)
        if event.type == pygame_gui.UI_BUTTON_PRESSED:
            choice = self.choice(event.ui_element)
            if choice is not None:
                self.give(choice)
                return True
        return consumed

    def on_close_window_button_pressed(self) -> None:
        """The title bar's ×: Later, never Discard."""
        self.give("later")

    def give(self, choice: str) -> None:
        """Close with ``choice`` (once: a second answer is ignored)."""
        if self.answered is not None:
            return
        self.answered = choice
        self.kill()
        self._answer(choice)
