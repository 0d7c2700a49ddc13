"""Every keyboard and mouse shortcut, listed once: the help overlay shows this table."""

from __future__ import annotations

SHORTCUTS: tuple[tuple[str, str], ...] = (
    ("Ctrl+O", "Open a scenario"),
    ("Ctrl+S", "Save"),
    ("Ctrl+Shift+S", "Save as…"),
    ("Ctrl+E", "Export the view to PNG"),
    ("Ctrl+N", "New empty table"),
    ("Ctrl+Z", "Undo"),
    ("Ctrl+Y / Ctrl+Shift+Z", "Redo"),
    ("Ctrl+Q", "Quit"),
    ("F1", "Show / hide this help"),
    ("Enter", "Fire: resolve every template with the dice"),
    ("Esc", "Cancel the current tool / close help"),
    ("1 … 7", "Tools: select, ruler, impact, direct, free, +model, +building"),
    ("Delete / Backspace", "Delete the selected item"),
    ("R / Shift+R", "Rotate the selected template +15° / −15°"),
    ("Ctrl+wheel", "Rotate the selected template by 5°"),
    ("Wheel", "Zoom around the cursor"),
    ("+ / −", "Zoom in / out"),
    ("F or Home", "Fit the table in the window"),
    ("Arrow keys", "Pan"),
    ("Right / middle drag", "Pan"),
    ("Left drag", "Move a model, template or building (empty table: pan)"),
    ("Rotation handle", "Drag the round handle past a template's far end"),
    ("G / N / V / L / K", "Toggle grid / names / visibility shading / loupe / legend"),
    ("O", "Odds: chance and expected damage per model, heat map"),
    ("Shift+O", "Odds with the dice free (ignore the file's fixed rolls) on / off"),
    ("B", "Colour-blind-safe palette (Okabe–Ito) on / off; statuses also differ by pattern"),
    ("E", "Side view of the selected Infinity template (its vertical reach)"),
)
