"""A real window under Xvfb: open the toolbar's "Demo tables" drop-down with the mouse and pick a table.

The drop-down used to open as a 3-pixel sliver clipped to the toolbar, so no item could be
clicked. Here xdotool clicks the drop-down, waits until its list is drawn over the table,
clicks an item, and waits for the window title to name the demo table.

Skips when Xvfb, xdotool, ImageMagick's ``import`` or xprop is missing, unless ``CI`` is set.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pygame
import pytest

from .xvfb import app_env, app_log, require, run as _run, screenshot, start_xvfb, popen_group, stop, wait_until

from tabletop.scenario_io import load

from .conftest import SCENARIOS
from .test_xvfb_app import _dist, _pixel

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("Xvfb", "xdotool", "import", "xdpyinfo", "xprop")
DEMO = "robotech-volley"

pytestmark = [pytest.mark.xvfb, pytest.mark.slow, pytest.mark.timeout(180)]


def _require_tools() -> None:
    require(TOOLS)

def _window_title(wid: str, env: dict[str, str]) -> str:
    """The window's title as SDL sets it (``_NET_WM_NAME``, UTF-8)."""
    out = _run(["xprop", "-id", wid, "_NET_WM_NAME"], env)
    return out.split("=", 1)[1].strip().strip('"') if "=" in out else ""


def _ascii_part(title: str) -> str:
    """The longest ASCII run of ``title`` (xprop may escape the rest, by locale)."""
    return max("".join(c if c.isascii() else "\0" for c in title).split("\0"), key=len).strip()


def _wait(condition: Callable[[], object], timeout_s: float, what: str, app: subprocess.Popen[bytes] | None = None) -> None:
    wait_until(condition, what, timeout_s, app=app)


def _menu_geometry(size: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """Where the drop-down and its ``DEMO`` item are in a window of ``size``, from the same app headless."""
    from tabletop.app.pilot import Pilot

    p = Pilot(SCENARIOS / "default.toml", size)
    try:
        menu = p.app.demo_menu
        p.click(menu.rect.center)
        p.step(2)
        items = menu.current_state.options_selection_list.item_list  # type: ignore[attr-defined]
        button = next(i["button_element"] for i in items if i["text"] == DEMO)
        assert button is not None, "the item is not drawn: the list is clipped"
        return menu.rect.center, button.rect.center
    finally:
        p.close()


def test_pick_a_demo_table_with_the_mouse_in_a_real_window(tmp_path: Path) -> None:
    _require_tools()
    xvfb, display = start_xvfb("1600x1000x24")
    env = app_env(display, "tabletop-xvfb-demo", tmp_path)
    app = None
    try:
        app = popen_group(  # its own process group: stop() kills the app with its odds worker
            [sys.executable, "-c", "import sys; from tabletop.app import main; sys.exit(main(sys.argv[1]))", str(SCENARIOS / "default.toml")],
            log=tmp_path / "app.log",
            env=env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
        )
        wid = _run(["xdotool", "search", "--sync", "--onlyvisible", "--class", "tabletop-xvfb-demo"], env, timeout=30).split()[0]
        default_title = load(SCENARIOS / "default.toml").title
        _wait(lambda: _ascii_part(default_title) in _window_title(wid, env), 30, "the default table's title", app)
        geometry = dict(line.split("=") for line in _run(["xdotool", "getwindowgeometry", "--shell", wid], env).split())
        menu, item = _menu_geometry((int(geometry["WIDTH"]), int(geometry["HEIGHT"])))

        # The table under the item as the app leaves it: the same in two screenshots in a row. A first frame still
        # being finished (the odds arriving, the labels laid out again) would change it too, be taken for the list
        # drawn, and the item be clicked before the list is there: a suspected cause, not a seen one, of the one
        # failure beside `make bench` (the demo's title never came; app.log now says what the app was doing).
        closed = tmp_path / "closed.png"
        seen: list[tuple[int, int, int]] = []

        def settled() -> bool:
            if not screenshot(wid, closed, env):
                return False
            seen.append(_pixel(closed, item))
            return len(seen) >= 2 and seen[-1] == seen[-2]

        _wait(settled, 30, "the table under the closed menu to stay the same in two screenshots", app)
        under_item = seen[-1]
        _run(["xdotool", "mousemove", "--window", wid, str(menu[0]), str(menu[1]), "click", "1"], env)

        def list_drawn() -> bool:
            shot = tmp_path / "open.png"
            return screenshot(wid, shot, env) and _dist(_pixel(shot, item), under_item) > 20

        _wait(list_drawn, 20, "the drop-down's list over the table", app)
        _run(["xdotool", "mousemove", "--window", wid, str(item[0]), str(item[1]), "click", "1"], env)
        demo_title = load(SCENARIOS / f"{DEMO}.toml").title
        titles: list[str] = []

        def demo_titled() -> bool:
            titles.append(_window_title(wid, env))
            return _ascii_part(demo_title) in titles[-1]

        try:
            _wait(demo_titled, 20, f"the title of {DEMO}", app)
        except pytest.fail.Exception as failed:
            # What the window showed instead (a question over the table, the list still open, the click elsewhere).
            shot = tmp_path / "no-demo.png"
            picture = shot if screenshot(wid, shot, env) else "no screenshot"
            pytest.fail(f"{failed}; the window's title was {titles[-1:]}, its picture: {picture}")
        assert app.poll() is None, app_log(app)
    finally:
        stop(app, xvfb)
        pygame.display.quit()
