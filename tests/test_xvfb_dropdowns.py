"""A real window under Xvfb: pick the side panel's Ruleset and New template with xdotool clicks (issue 33, item 1).

xdotool clicks the drop-down, waits until its list is drawn, clicks the item; Ctrl+S saves the
table to its file and the file must name the ruleset picked, and a template laid with the Free
tool must be of the shape picked. Where the widgets are comes from the same app, headless, at the
window's size. Skips when Xvfb, xdotool or ImageMagick's ``import`` is missing, unless ``CI`` is set.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pygame
import pytest

from tabletop.scenario_io import load

from .conftest import SCENARIOS
from .test_xvfb_app import _dist, _pixel, _wait_for_window
from .xvfb import app_env, app_log, popen_group, require, run as _run, screenshot, start_xvfb, stop, wait_until

TOOLS = ("Xvfb", "xdotool", "import")
WM_CLASS = "tabletop-xvfb-test"  # the class _wait_for_window also searches by

pytestmark = [pytest.mark.xvfb, pytest.mark.slow, pytest.mark.timeout(240)]


@contextmanager
def real_app(table: Path, home: Path, screen: str = "1600x1000x24", args: tuple[str, ...] = ()) -> Iterator[tuple[subprocess.Popen[bytes], str, dict[str, str]]]:
    """The app on ``table`` in a real window of a private Xvfb: (process, window id, environment).
    Both are ended when the block ends, whatever happens in it."""
    require(TOOLS)
    xvfb, display = start_xvfb(screen)
    env = app_env(display, WM_CLASS, home)
    app = None
    try:
        app = popen_group(  # its own process group: stop() kills the app with its odds worker
            [sys.executable, "-c", "import sys; from tabletop.app import main; sys.exit(main(sys.argv[1]))", str(table), *args],
            env=env, cwd=home, stdout=subprocess.DEVNULL, log=home / "app.log",
        )
        wid = _wait_for_window(app, env)

        def up_and_still() -> str | None:
            """The window's id once the app has drawn and stopped; a window gone between grabs (the
            app's first one replaced, or the grab hung under load) is looked up again, and an app
            that died fails the test with what it printed, not a bare timeout."""
            nonlocal wid
            if app is not None and app.poll() is not None:
                pytest.fail(f"the app exited ({app.returncode}) before its first frames: {app_log(app)}")
            if _drawn_and_still(wid, env, home):
                return wid
            assert app is not None
            wid = _wait_for_window(app, env)
            return None

        wid = wait_until(up_and_still, "the app's first frames", 90)
        yield app, wid, env
    finally:
        stop(app, xvfb)


def _drawn_and_still(wid: str, env: dict[str, str], tmp: Path) -> bool:
    """The window shows the app (not a blank window) and two screenshots in a row are alike: the app
    is up and has stopped drawing. A click before that can land on a widget not built yet."""
    import numpy as np

    shots = [tmp / "still-a.png", tmp / "still-b.png"]
    if not all(screenshot(wid, shot, env) for shot in shots):
        return False
    a, b = (pygame.surfarray.array3d(pygame.image.load(str(shot))).astype(int) for shot in shots)
    return bool(a.shape == b.shape and a.std() > 10 and (a != b).mean() < 1e-4)


def window_size(wid: str, env: dict[str, str]) -> tuple[int, int]:
    geometry = dict(line.split("=") for line in _run(["xdotool", "getwindowgeometry", "--shell", wid], env).split())
    return int(geometry["WIDTH"]), int(geometry["HEIGHT"])


def click(wid: str, env: dict[str, str], pos: tuple[int, int]) -> None:
    _run(["xdotool", "mousemove", "--window", wid, str(pos[0]), str(pos[1]), "sleep", "0.15", "click", "1"], env)


def widget_places(table: Path, size: tuple[int, int], which: str, item: str) -> dict[str, tuple[int, int]]:
    """Where the drop-down ``which`` (an attribute of the app), its item ``item``, the Free tool's button
    and an empty spot of the table are, from the same app headless at ``size``."""
    from tabletop.app.pilot import Pilot

    p = Pilot(table, size)
    try:
        menu: Any = getattr(p.app, which)
        p.click(menu.rect.center)
        p.step(2)
        items = menu.current_state.options_selection_list.item_list
        button = next(i["button_element"] for i in items if i["text"] == item)
        assert button is not None, f"{item} is not drawn in the open list"
        return {
            "menu": menu.rect.center,
            "item": button.rect.center,
            "free_tool": p.app.tool_buttons["at"].rect.center,
            "empty": p.screen_of((30.0, 30.0)),
        }
    finally:
        p.close()


def pick(wid: str, env: dict[str, str], places: dict[str, tuple[int, int]], tmp: Path) -> None:
    """Click the drop-down, wait until its list covers the item's spot, click the item."""
    before = tmp / "closed.png"
    wait_until(lambda: screenshot(wid, before, env), "a screenshot with the list closed", 20)
    under = _pixel(before, places["item"])
    click(wid, env, places["menu"])

    def list_drawn() -> bool:
        shot = tmp / "open.png"
        return screenshot(wid, shot, env) and _dist(_pixel(shot, places["item"]), under) > 20

    wait_until(list_drawn, "the drop-down's list", 20)
    click(wid, env, places["item"])

    def list_closed() -> bool:  # the pick taken: what the list covered is drawn again
        shot = tmp / "closed-again.png"
        return screenshot(wid, shot, env) and _dist(_pixel(shot, places["item"]), under) <= 20

    wait_until(list_closed, "the drop-down closed on the pick", 20)


def saved_after(wid: str, env: dict[str, str], table: Path, ok: Any, what: str) -> None:
    """Ctrl+S until the saved file passes ``ok`` (each save writes the table as it is now)."""

    def saved_ok() -> bool:
        _run(["xdotool", "key", "--window", wid, "ctrl+s"], env)
        try:
            return bool(ok(load(table)))
        except Exception:  # noqa: BLE001 - mid-write or not saved yet: ask again
            return False

    wait_until(saved_ok, what, 30)


@pytest.fixture()
def table(tmp_path: Path) -> Path:
    path = tmp_path / "table.toml"
    shutil.copy(SCENARIOS / "default.toml", path)
    assert load(path).ruleset != "robotech"
    return path


def test_ruleset_picked_with_xdotool_clicks(tmp_path: Path, table: Path) -> None:
    with real_app(table, tmp_path) as (app, wid, env):
        size = window_size(wid, env)
        places = widget_places(table, size, "ruleset_menu", "robotech")
        pick(wid, env, places, tmp_path)
        saved_after(wid, env, table, lambda s: s.ruleset == "robotech", "the file saved with the ruleset robotech")
        assert app.poll() is None
    pygame.display.quit()


def test_new_template_picked_with_xdotool_clicks_is_the_one_placed(tmp_path: Path, table: Path) -> None:
    name = "robotech_blast"
    with real_app(table, tmp_path) as (app, wid, env):
        size = window_size(wid, env)
        places = widget_places(table, size, "shape_menu", name)
        pick(wid, env, places, tmp_path)
        count = len(load(table).templates)
        click(wid, env, places["free_tool"])
        click(wid, env, places["empty"])
        saved_after(wid, env, table, lambda s: len(s.templates) > count, "the file saved with the new template")
        assert load(table).templates[-1].shape_name == name
        assert app.poll() is None
    pygame.display.quit()
