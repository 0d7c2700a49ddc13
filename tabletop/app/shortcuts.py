"""Every keyboard and mouse shortcut, listed once: the help overlay shows this table."""

from __future__ import annotations

SHORTCUTS: tuple[tuple[str, str], ...] = (
    ("Ctrl+O / Ctrl+S / +Shift", "Open a scenario / save / save as…"),
    ("Ctrl+E", "Export: PNG, SVG, animated GIF or Markdown (by extension)"),
    ("Ctrl+N / Ctrl+Q", "New empty table / quit"),
    ("Ctrl+Z / Ctrl+Y", "Undo / redo (also Ctrl+Shift+Z)"),
    ("F1 / F5", "Show / hide this help / presenter mode, full screen"),
    ("Enter", "Fire: resolve every template with the dice"),
    ("Esc", "Cancel the current tool / close help"),
    ("1 … 8", "Tools: select, ruler, impact, direct, free, +model, +building, trace"),
    ("Trace (8)", "Click corners (Enter closes) · drag a rectangle · Shift+drag a circle"),
    ("Selected building", "Drag corners · Ctrl+click a side adds one · Alt+click removes"),
    ("Delete / Backspace", "Delete the selected item"),
    ("R / Shift+R", "Template ±15°; buildings, bases +15° / +1° (Alt: back)"),
    ("Arrow keys", "Nudge the selection 1 mm (Shift 0.1\", Alt 0.1 mm); else pan"),
    ("Shift+click / drag", "Add to the selection / select with a box"),
    ("Ctrl+D, Alt+1 … 9, C", "Duplicate; base size presets; two bases: first into contact"),
    ("P / Shift+P (Ruler)", "Pin the ruler between two bases / unpin all"),
    ("Ctrl+wheel", "Rotate the selected template by 5°"),
    ("Wheel, + / −", "Zoom around the cursor / the middle"),
    ("F or Home", "Fit the table in the window"),
    ("Right / middle drag", "Pan"),
    ("Left drag", "Move a model, template or building (empty table: pan)"),
    ("Rotation handle", "Drag the round handle past a template's far end"),
    ("G / N / V / L / K", "Toggle grid / names / visibility shading / loupe / legend"),
    ("O / Shift+O", "Odds per model and heat map / dice free: Fire and the odds roll every die, the file's fixed rolls set aside"),
    ("B", "Colour-blind-safe palette (Okabe–Ito) on / off; statuses also differ by pattern"),
    ("E", "Side view of the selected template, where its ruleset has one (its vertical reach)"),
)
