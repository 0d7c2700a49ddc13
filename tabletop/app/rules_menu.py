"""The side panel's Ruleset drop-down beyond the registered names: "Open rules file…" (a rules file,
docs/rules-files.md), the rules file in use, and "Settings…" (the ruleset's settings, in a window).

The option texts and their meaning are pure (:func:`ruleset_options`, :func:`option_meaning`,
:func:`settings_line`); :class:`SettingsWindow` is the pygame_gui window that edits the settings.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pygame
from pygame_gui.elements import UIButton, UILabel, UITextBox, UITextEntryLine, UIWindow

from tabletop import rulesets

OPEN_RULES_FILE = "Open rules file…"
SETTINGS = "Settings…"
FILE_PREFIX = "file: "


def is_rules_file(name: str) -> bool:
    from tabletop import rulesfile

    return rulesfile.looks_like_path(name)


def file_label(name: str) -> str:
    """How the drop-down shows a rules file in use: ``file: club-blast.rules.toml``."""
    return FILE_PREFIX + Path(name).name


def current_label(name: str) -> str:
    return file_label(name) if is_rules_file(name) else name


def ruleset_options(current: str) -> list[str]:
    """The drop-down's options: every registered ruleset, the rules file in use, then the two actions."""
    out = list(rulesets.names())
    if is_rules_file(current):
        out.append(file_label(current))
    elif current not in out:
        out.append(current)
    out.append(OPEN_RULES_FILE)
    try:
        if rulesets.get(current).settings:
            out.append(SETTINGS)
    except Exception:  # noqa: BLE001 - a ruleset that cannot load has no settings to offer
        pass
    return out


def option_meaning(text: str, current: str) -> tuple[str, str]:
    """What picking ``text`` asks for: ("open", "") / ("settings", "") / ("keep", current) / ("set", name)."""
    if text == OPEN_RULES_FILE:
        return "open", ""
    if text == SETTINGS:
        return "settings", ""
    if text.startswith(FILE_PREFIX) and is_rules_file(current) and text == file_label(current):
        return "keep", current
    return "set", text


def settings_line(ruleset_name: str, values: Mapping[str, Any]) -> str | None:
    """``settings: partials = 4 (default)``: the ruleset's settings as the table uses them, or None."""
    try:
        declared = rulesets.get(ruleset_name).settings
    except Exception:  # noqa: BLE001
        return None
    if not declared:
        return None
    parts = []
    for name, (default, _why) in declared.items():
        value = values.get(name, default)
        shown = str(value).lower() if isinstance(value, bool) else repr(value) if isinstance(value, str) else f"{value:g}" if isinstance(value, float) else str(value)
        parts.append(f"{name} = {shown}" + ("" if value != default else " (default)"))
    return "settings: " + ", ".join(parts)


class SettingsWindow(UIWindow):
    """One row per setting (its name, a field with its value), what each does below them; Apply, Cancel."""

    ROW = 34

    def __init__(self, rect: pygame.Rect, manager: Any, ruleset_name: str, values: Mapping[str, Any]) -> None:
        ruleset = rulesets.get(ruleset_name)
        super().__init__(rect, manager, window_display_title=f"Settings — {ruleset.title}", object_id="#settings_dialog", resizable=False, always_on_top=True)
        self.ruleset_name = ruleset_name
        size = self.get_container().get_size()
        w, h = int(size[0]), int(size[1])
        self.fields: dict[str, UITextEntryLine] = {}
        y = 8
        label_w = min(220, w // 2 - 8)
        for name, (default, why) in ruleset.settings.items():
            value = values.get(name, default)
            UILabel(pygame.Rect(8, y, label_w, 28), name, manager, container=self, object_id="#small")
            text = str(value).lower() if isinstance(value, bool) else str(value)
            self.fields[name] = UITextEntryLine(pygame.Rect(16 + label_w, y, w - label_w - 32, 28), manager, container=self, initial_text=text)
            y += self.ROW
        whys = "<br>".join(f"<b>{html.escape(name)}</b>: {html.escape(why)}" for name, (_default, why) in ruleset.settings.items())
        hint = "Values as in a scenario's [settings]: true/false, numbers, words."
        UITextBox(f"{whys}<br>{html.escape(hint)}", pygame.Rect(8, y, w - 16, max(40, h - y - 58)), manager, container=self)
        self.apply_button = UIButton(pygame.Rect(w - 216, h - 46, 100, 36), "Apply", manager, container=self, tool_tip_text="Use these settings (Ctrl+Z undoes it)")
        self.cancel_button = UIButton(pygame.Rect(w - 108, h - 46, 100, 36), "Cancel", manager, container=self)
        self.set_blocking(True)

    @staticmethod
    def height_for(count: int) -> int:
        return 8 + count * SettingsWindow.ROW + 150 + 44 * count

    def pairs(self) -> list[str]:
        """``name=value`` for every field, as ``--set`` takes them."""
        return [f"{name}={field.get_text().strip()}" for name, field in self.fields.items()]
