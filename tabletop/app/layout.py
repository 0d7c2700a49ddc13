"""The window's sizes, theme and where the bundled tables are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tabletop.resources import data_dir

ROOT = Path(__file__).resolve().parent.parent.parent
SCENARIOS = data_dir("scenarios")
DEFAULT_SCENARIO = SCENARIOS / "default.toml"

TOOLBAR_H = 44  # one row of buttons; a narrow window wraps them onto more rows (toolbar_layout)
TOOLBAR_ROW_H = 36
HELP_BUTTON_W = 36
STATUS_H = 26
PANEL_W = 340
LOUPE_PX = 230
ELEVATION_SIZE = (560, 300)
HINT_MAX_W = 520  # a tool's hint box: wider lines are broken at their " · " (it must find a free corner of the table)
SPINNER = "|/-\\"
ROTATE_STEP_DEG = 15.0
WHEEL_ROTATE_DEG = 5.0
ZOOM_STEP = 1.15
PAN_STEP_PX = 60


#: The toolbar in order: (key, width in px, gap before it). Tool keys are the tools' names.
APP_TOOLBAR: tuple[tuple[str, int, int], ...] = (
    ("new", 50, 0), ("open", 56, 0), ("save", 52, 0), ("export", 60, 0), ("photo", 62, 0),
    ("undo", 54, 6), ("redo", 54, 0),
    ("select", 58, 6), ("ruler", 54, 0), ("impact", 58, 0), ("direct", 56, 0), ("at", 48, 0),
    ("add_model", 64, 0), ("add_terrain", 74, 0), ("draw_terrain", 52, 0),
    ("demo", 130, 6), ("odds", 50, 0), ("dice_free", 76, 0),
)
_GAP = 4


def toolbar_layout(width: int, items: tuple[tuple[str, int, int], ...] = APP_TOOLBAR) -> tuple[dict[str, tuple[int, int, int, int]], int]:
    """Where each toolbar item goes in a window ``width`` px wide, and the toolbar's height.

    Items flow left to right and wrap onto another row when the next one would not fit
    (the first row keeps room for the "?" button at its right end): nothing is clipped.
    """
    rects: dict[str, tuple[int, int, int, int]] = {}
    x, row = 6, 0
    for key, w, gap in items:
        right = width - (HELP_BUTTON_W + 12 if row == 0 else 6)
        start = x + gap if x > 6 else x
        if start + w > right and x > 6:
            row += 1
            start = 6
        rects[key] = (start, 6 + row * TOOLBAR_ROW_H, w, 30)
        x = start + w + _GAP
    rects["help"] = (width - HELP_BUTTON_W - 8, 6, HELP_BUTTON_W, 30)
    return rects, TOOLBAR_H + row * TOOLBAR_ROW_H


def view_rect_for(size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The table view (x, y, w, h) of a window of ``size``: below the toolbar, left of the panel, above the status bar."""
    w, h = size
    top = toolbar_layout(w)[1]
    return (0, top, max(50, w - PANEL_W), max(50, h - top - STATUS_H))


THEME: dict[str, Any] = {
    "defaults": {
        "colours": {
            "dark_bg": "#1f2329",
            "normal_bg": "#2d333b",
            "hovered_bg": "#3a424d",
            "selected_bg": "#2f6f9f",
            "active_bg": "#2f6f9f",
            "normal_border": "#444c56",
            "normal_text": "#e6e6e6",
        }
    },
    "#fire": {"colours": {"normal_bg": "#a8321e", "hovered_bg": "#c94a32", "active_bg": "#e0603f"}},
    "#tool_active": {"colours": {"normal_bg": "#2f6f9f", "hovered_bg": "#3b85bd"}},
    "#heading": {"font": {"name": "noto_sans", "size": "15", "bold": "1"}, "colours": {"normal_text": "#ffd65a"}},
    "#small": {"font": {"name": "noto_sans", "size": "13"}, "colours": {"normal_text": "#b9c0c8"}},
}


def demo_tables() -> list[Path]:
    """Every bundled scenario, default first."""
    files = sorted(SCENARIOS.glob("*.toml"))
    files.sort(key=lambda p: p.name != "default.toml")
    return files
