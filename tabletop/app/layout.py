"""The window's sizes, theme and where the bundled tables are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tabletop.resources import data_dir

ROOT = Path(__file__).resolve().parent.parent.parent
SCENARIOS = data_dir("scenarios")
DEFAULT_SCENARIO = SCENARIOS / "default.toml"

TOOLBAR_H = 44
STATUS_H = 26
PANEL_W = 340
LOUPE_PX = 230
ELEVATION_SIZE = (560, 300)
SPINNER = "|/-\\"
ROTATE_STEP_DEG = 15.0
WHEEL_ROTATE_DEG = 5.0
ZOOM_STEP = 1.15
PAN_STEP_PX = 60


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
