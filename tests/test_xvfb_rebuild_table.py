"""A real window under Xvfb: the newcomer's rebuild of issue 33 with xdotool's mouse and keyboard.

The steps of ``test_app_rebuild_table`` (which times them by the Keystroke-Level Model in the
pilot), sent through a real X server instead: Ctrl+N, the Title field by Tab, the Ruleset picked
with clicks, +Model with Alt+3 and three clicks on the table each followed by Tab, name, Tab,
centre, Enter; +Building; a Shift+drag with Trace for the forest; Ctrl+S and Enter into the
documents folder. After each step the test saves (Ctrl+S) until the file shows the step taken, so
a loaded machine slows it down but does not reorder it; the saved file must be the table asked for. Where each widget and spot is comes
from the same app, headless, at the window's size. Skips when Xvfb, xdotool or ImageMagick's
``import`` is missing, unless ``CI`` is set.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pygame
import pytest

from tabletop.app.measure import round_piece
from tabletop.scenario_io import load

from .conftest import SCENARIOS
from .test_xvfb_dropdowns import click, pick, real_app, widget_places, window_size
from .test_xvfb_fire_shown import _changed
from .xvfb import run as _run, screenshot, wait_until

pytestmark = [pytest.mark.xvfb, pytest.mark.slow, pytest.mark.timeout(300)]

IN = 25.4
MODELS = [((8, 8), "Tomahawk", "10, 20"), ((20, 8), "Battlepod", "30, 24"), ((32, 8), "Battlepod 2", "33, 20")]


def _spots(table: Path, size: tuple[int, int]) -> dict[str, tuple[int, int]]:
    """The tool buttons and the spots of a new table clicked below, from the app headless at ``size``."""
    from tabletop.app.pilot import Pilot

    p = Pilot(table, size)
    try:
        buttons = {name: p.app.tool_buttons[name].rect.center for name in ("add_model", "add_terrain", "draw_terrain")}
        p.app.new_table()
        p.step()
        spots = {f"model{i}": p.screen_of((x * IN, y * IN)) for i, ((x, y), _, _) in enumerate(MODELS)}
        spots["building"] = p.screen_of((40 * IN, 40 * IN))
        spots["circle_from"] = p.screen_of((12 * IN, 30 * IN))
        spots["circle_to"] = p.screen_of((16 * IN, 30 * IN))
        return {**buttons, **spots}
    finally:
        p.close()


def test_a_newcomer_rebuilds_the_table_with_xdotool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # the app's documents folder is tmp_path/Documents (no user-dirs.dirs in its config)
    table = tmp_path / "table.toml"
    shutil.copy(SCENARIOS / "default.toml", table)
    (tmp_path / "Documents").mkdir()
    out = tmp_path / "Documents" / "ford-ambush.toml"
    with real_app(table, tmp_path) as (app, wid, env):
        size = window_size(wid, env)
        ruleset = widget_places(table, size, "ruleset_menu", "robotech")
        at = _spots(table, size)

        def key(*keys: str) -> None:
            _run(["xdotool", "key", "--window", wid, *keys], env)

        def typed(text: str) -> None:
            _run(["xdotool", "type", "--window", wid, "--delay", "30", text], env)

        def save_once(timeout: float = 5.0) -> None:
            """Ctrl+S, then wait (a while at most) for the file to be written: Ctrl+S pressed faster than the
            app saves would only queue saves on a loaded machine."""
            import time

            before = out.stat().st_mtime_ns if out.exists() else None
            key("ctrl+s")
            end = time.monotonic() + timeout
            while time.monotonic() < end and (out.stat().st_mtime_ns if out.exists() else None) == before:
                time.sleep(0.1)

        def saved_until(ok: Any, what: str) -> None:
            """Saved until the file passes ``ok``: each step waits for the app to have taken the one before."""

            def check() -> bool:
                save_once()
                try:
                    return bool(ok(load(out)))
                except Exception:  # noqa: BLE001 - mid-write: ask again
                    return False

            wait_until(check, what, 60)

        key("ctrl+n")
        key("Tab")
        typed("Ford ambush")
        key("Return")
        before_dialog = tmp_path / "before-save.png"
        assert screenshot(wid, before_dialog, env)
        key("ctrl+s")  # a new table: Save As, offering the documents folder and a name from the title
        wait_until(lambda: _changed(wid, env, before_dialog, tmp_path / "save-dialog.png"), "the Save As dialog", 30)
        def saved_as() -> bool:
            """Enter in the path box, again every few seconds: the screen may have changed before the dialog
            was drawn (a Return on the empty table is a Fire of nothing)."""
            import time

            key("Return")
            end = time.monotonic() + 4
            while time.monotonic() < end and not out.exists():
                time.sleep(0.1)
            return out.exists()

        wait_until(saved_as, f"the new table saved as {out}", 40)
        pick(wid, env, ruleset, tmp_path)
        saved_until(lambda s: s.ruleset == "robotech" and s.title == "Ford ambush", "the ruleset and title saved")
        click(wid, env, at["add_model"])
        key("alt+3")
        for i, (_, name, centre) in enumerate(MODELS):
            click(wid, env, at[f"model{i}"])
            saved_until(lambda s, n=i + 1: len(s.models) == n, f"model {i + 1} added")
            key("Tab")
            typed(name)
            key("Tab")
            typed(centre)
            key("Return")
            saved_until(lambda s, n=i, nm=name: s.models[n].name == nm, f"model {i + 1} named")
        click(wid, env, at["add_terrain"])
        click(wid, env, at["building"])
        saved_until(lambda s: len(s.terrain) == 1, "the building added")
        key("Tab")
        typed("Farmhouse")
        key("Tab")
        typed("24, 36")
        key("Tab")
        typed("6 x 4")
        key("Return")
        saved_until(lambda s: s.terrain[0].name == "Farmhouse" and s.terrain[0].rect is not None and s.terrain[0].rect.width > 100, "the building named and sized")
        click(wid, env, at["draw_terrain"])
        (x0, y0), (x1, y1) = at["circle_from"], at["circle_to"]
        _run(["xdotool", "mousemove", "--window", wid, str(x0), str(y0), "keydown", "shift", "sleep", "0.1", "mousedown", "1", "sleep", "0.2",
              "mousemove", "--window", wid, str((x0 + x1) // 2), str(y0), "sleep", "0.2",
              "mousemove", "--window", wid, str(x1), str(y1), "sleep", "0.2", "mouseup", "1", "keyup", "shift"], env)
        saved_until(lambda s: len(s.terrain) == 2, "the forest traced")
        key("Tab")
        typed("Forest")
        key("Tab")
        typed("12, 36")
        key("Tab")
        typed("8")
        key("Return")
        saved_until(lambda s: s.terrain[1].name == "Forest" and round_piece(s.terrain[1]) is not None and round_piece(s.terrain[1])[0][1] > 35 * IN,
                    "the forest named and placed")
        assert app.poll() is None
    s = load(out)
    assert s.title == "Ford ambush" and s.ruleset == "robotech"
    assert [(m.id, m.name) for m in s.models] == [("tomahawk", "Tomahawk"), ("battlepod", "Battlepod"), ("battlepod-2", "Battlepod 2")], out.read_text()
    for m, (x, y) in zip(s.models, [(10, 20), (30, 24), (33, 20)]):
        assert m.base.is_round and m.base.length == pytest.approx(40.0)
        assert (m.x, m.y) == pytest.approx((x * IN, y * IN), abs=1e-3)
    house, forest = s.terrain
    assert (house.name, forest.name) == ("Farmhouse", "Forest")
    assert house.rect is not None
    assert (house.rect.x, house.rect.y, house.rect.length, house.rect.width) == pytest.approx((24 * IN, 36 * IN, 6 * IN, 4 * IN), abs=1e-3)
    circle = round_piece(forest)
    assert circle is not None
    (cx, cy), r = circle
    assert (cx, cy, 2 * r) == pytest.approx((12 * IN, 36 * IN, 8 * IN), abs=0.01)
    pygame.display.quit()
