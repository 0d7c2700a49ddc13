"""Widgets pygame_gui does not have as the app needs them.

* ``OverlayContainer``: a see-through layer over the whole window for widgets
  that open over others (the toolbar's "Demo tables" drop-down). A drop-down
  clips its list to its container, so inside the 44 px toolbar it opened as a
  3 px sliver; in this container it opens down over the table, drawn above the
  toolbar and the side panel. The container itself takes no hover, so the
  widgets under it keep working, and it never takes the focus from them (a
  press on an open side-panel drop-down's item must reach it with the drop-down still open).
* ``UnsavedChangesDialog``: Save / Discard / Cancel before a table is replaced or the app quits.
* ``PathDialog``: pygame_gui's file dialog where Enter in the path box confirms a file's path, as OK does.
* ``widen_list``: a drop-down whose open list is wide enough for its longest item, kept over the table.
* ``fit_text``: a label's text cut to its width with "…" (pygame_gui warns, and clips, otherwise).
"""

from __future__ import annotations

import html
from typing import Any

import pygame
from pygame_gui import UI_BUTTON_PRESSED, UI_TEXT_ENTRY_FINISHED
from pygame_gui.core import UIContainer
from pygame_gui.elements import UIButton, UITextBox, UIWindow
from pygame_gui.windows import UIFileDialog

#: Layers above the root the overlay starts at: above the toolbar's and the side panel's
#: widgets (each about 5 layers thick); dialogs still open above it.
OVERLAY_HEIGHT = 12


#: Fonts the theme and the dialogs use beyond the ones pygame_gui loads for its default theme.
THEME_FONTS: tuple[tuple[str, int, bool], ...] = (
    ("noto_sans", 13, False),
    ("noto_sans", 14, False),
    ("noto_sans", 14, True),
    ("noto_sans", 15, True),
)


def preload_fonts(manager: Any, fonts: tuple[tuple[str, int, bool], ...] = THEME_FONTS) -> int:
    """Load ``(name, size, bold)`` fonts not loaded yet; returns how many were loaded.

    pygame_gui warns both when a widget needs a font that was not preloaded and when a
    font already loaded is preloaded again: ask only for the missing ones.
    """
    fonts_dict = manager.get_theme().get_font_dictionary()
    missing = [
        {"name": name, "point_size": size, "style": "bold" if bold else "regular", "antialiased": "1"}
        for name, size, bold in fonts
        if not fonts_dict.check_font_preloaded(fonts_dict.create_font_id(size, name, bold, False, True))
    ]
    if missing:
        manager.preload_fonts(missing)
    return len(missing)


class OverlayContainer(UIContainer):
    """A container over the whole window that never takes the hover itself (its widgets do)."""

    def __init__(self, rect: pygame.Rect, manager: Any) -> None:
        super().__init__(rect, manager, starting_height=OVERLAY_HEIGHT, container=None)

    def check_hover(self, time_delta: float, hovered_higher_element: bool) -> bool:
        """Never hovered: the elements under the overlay keep their hover (and tooltips)."""
        self.hovered = False
        return hovered_higher_element

    def hover_point(self, hover_x: float, hover_y: float) -> bool:
        """Never under the mouse: a click that lands on the layer (anywhere in the window) must not
        take the focus. pygame_gui gives the focus on a press to every element under the mouse,
        top layer first; the layer took it from an open drop-down in the side panel, which then
        closed between the press and the release, so its item was never picked. The layer's own
        widgets test their container's rectangle, not this."""
        return False


class UnsavedChangesDialog(UIWindow):
    """"The table has unsaved changes": Save (then go on), Discard (go on), Cancel (stay)."""

    def __init__(self, rect: pygame.Rect, manager: Any, text: str, *, title: str = "Unsaved changes") -> None:
        super().__init__(rect, manager, window_display_title=title, object_id="#unsaved_dialog", resizable=False, always_on_top=True)
        size = self.get_container().get_size()
        w, h = int(size[0]), int(size[1])
        bw, gap = 100, 8
        UITextBox(html.escape(text), pygame.Rect(8, 8, w - 16, h - 62), manager, container=self)
        y = h - 46
        self.save_button = UIButton(pygame.Rect(w - 3 * bw - 2 * gap - 8, y, bw, 36), "Save", manager, container=self, tool_tip_text="Save the table, then go on")
        self.discard_button = UIButton(pygame.Rect(w - 2 * bw - gap - 8, y, bw, 36), "Discard", manager, container=self, tool_tip_text="Go on without saving")
        self.cancel_button = UIButton(pygame.Rect(w - bw - 8, y, bw, 36), "Cancel", manager, container=self, tool_tip_text="Keep the table open")
        self.set_blocking(True)

    def choice(self, element: Any) -> str | None:
        """``"save"``, ``"discard"`` or ``"cancel"`` when ``element`` is one of the dialog's buttons."""
        for name, button in (("save", self.save_button), ("discard", self.discard_button), ("cancel", self.cancel_button)):
            if element is button:
                return name
        return None


class PathDialog(UIFileDialog):
    """A file dialog where Enter in the path box confirms (as OK) when the path names a file; a folder
    typed there is opened, as before."""

    def _process_file_path_entry_events(self, event: pygame.event.Event) -> None:
        super()._process_file_path_entry_events(event)
        if (
            event.type == UI_TEXT_ENTRY_FINISHED
            and event.ui_element is self.file_path_text_line
            and self.current_file_path is not None
            and not self.current_file_path.is_dir()
            and self.ok_button.is_enabled
        ):
            # The dialog's own OK: it posts the path picked and closes.
            self._process_ok_cancel_events(pygame.event.Event(UI_BUTTON_PRESSED, {"ui_element": self.ok_button}))


def fit_text(manager: Any, text: str, width: int, size: int = 14, bold: bool = False) -> str:
    """``text``, or as much of it as fits ``width`` px in the theme's Noto Sans, ending in "…"."""
    font = manager.get_theme().get_font_dictionary().find_font(size, "noto_sans", bold)
    if font.size(text)[0] <= width:
        return text
    while text and font.size(text + "…")[0] > width:
        text = text[:-1]
    return text.rstrip() + "…"


def text_width(manager: Any, text: str, size: int = 14, bold: bool = False) -> int:
    """``text``'s width in px in the theme's Noto Sans."""
    return int(manager.get_theme().get_font_dictionary().find_font(size, "noto_sans", bold).size(text)[0])


def widen_list(menu: Any, width: int, right: int) -> None:
    """Open ``menu``'s list ``width`` px wide with its right edge at x = ``right`` (in its container):
    pygame_gui opens it as wide as the closed drop-down, which cut the longer names, and under its
    left edge, which put it over the side panel."""
    state = menu.menu_states["expanded"]
    start = state.start

    def start_wide(should_rebuild: bool = True) -> None:
        start(should_rebuild)
        listing = state.options_selection_list
        if listing is None:
            return
        w = max(width, listing.relative_rect.width)
        listing.set_dimensions((w, listing.relative_rect.height))
        listing.set_relative_position((right - w, listing.relative_rect.top))

    state.start = start_wide
