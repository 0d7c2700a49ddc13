"""A real window under Xvfb: Ruleset ▸ Settings… of a rules file, with xdotool clicks and keys.

xdotool opens the Ruleset drop-down, clicks "Settings…", clicks the setting's field, types a value
and clicks Apply; Ctrl+S saves, and the file's [settings] must hold the value. Where the widgets are
comes from the same app, headless, at the window's size. Skips when Xvfb, xdotool or ImageMagick's
``import`` is missing, unless ``CI`` is set.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pygame
import pytest

from tabletop.app.rules_menu import SETTINGS, SettingsWindow

from .xvfb import run as _run, screenshot, wait_until

# The real-window drop-down helpers (and the drop-down's mouse-pick fix) come with the club branch's work.
_dropdowns = pytest.importorskip("tests.test_xvfb_dropdowns", reason="needs tests/test_xvfb_dropdowns.py (the side panel's drop-down fix)")
click, pick, real_app, saved_after, widget_places, window_size = (
    _dropdowns.click, _dropdowns.pick, _dropdowns.real_app, _dropdowns.saved_after, _dropdowns.widget_places, _dropdowns.window_size,
)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "rules"

pytestmark = [pytest.mark.xvfb, pytest.mark.slow, pytest.mark.timeout(240)]


def settings_places(table: Path, size: tuple[int, int]) -> dict[str, tuple[int, int]]:
    """Where the settings window's field and its Apply button are, from the same app headless."""
    from tabletop.app.pilot import Pilot

    from .test_app_rules_file import open_and_pick, windows

    p = Pilot(table, size)
    try:
        open_and_pick(p, p.app.ruleset_menu, SETTINGS)
        (window,) = windows(p, SettingsWindow)
        field: Any = window.fields["partials"]
        return {"field": field.rect.center, "apply": window.apply_button.rect.center}
    finally:
        p.close()


def test_settings_of_a_rules_file_with_xdotool(tmp_path: Path) -> None:
    for suffix in (".rules.toml", ".txt", ".toml"):
        shutil.copyfile(EXAMPLES / f"club-blast{suffix}", tmp_path / f"club-blast{suffix}")
    table = tmp_path / "club-blast.toml"
    with real_app(table, tmp_path) as (app, wid, env):
        size = window_size(wid, env)
        places = widget_places(table, size, "ruleset_menu", SETTINGS)
        fields = settings_places(table, size)
        pick(wid, env, places, tmp_path)
        shot = tmp_path / "settings.png"
        wait_until(lambda: screenshot(wid, shot, env), "a screenshot with the settings window", 20)
        click(wid, env, fields["field"])
        _run(["xdotool", "key", "--window", wid, "ctrl+a", "BackSpace", "1"], env)
        click(wid, env, fields["apply"])
        saved_after(wid, env, table, lambda s: s.extra.get("settings", {}).get("partials") == 1, "the file saved with partials = 1")
        assert '"club-blast.rules.toml"' in table.read_text(encoding="utf-8")  # still named relative to the table
        assert app.poll() is None
    pygame.display.quit()
