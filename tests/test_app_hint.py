"""A tool's hint box: broken at its " · " separators to fit, so no part of it is cut off-screen."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from tabletop.app.layout import HINT_MAX_W
from tabletop.app.overlays import font, message_size, wrap_message
from tabletop.app.pilot import Pilot
from tabletop.app.tools.select import SelectTool

BUILDING = "Building: drag corners · Ctrl+click a side adds a corner · Alt+click / Delete over a corner removes it · handle or R/Shift+R turns it (15°/1°)"


@pytest.fixture(autouse=True)
def _pygame() -> None:
    pygame.init()


def test_a_wide_hint_is_broken_at_its_separators_and_keeps_every_word() -> None:
    lines = wrap_message([BUILDING], HINT_MAX_W)
    assert len(lines) > 1
    assert " · ".join(lines) == BUILDING  # broken only at separators: nothing lost, nothing reordered
    assert all(font(19).size(line)[0] + 12 <= HINT_MAX_W for line in lines)
    assert message_size(lines)[0] <= HINT_MAX_W


def test_a_hint_that_fits_is_left_alone() -> None:
    assert wrap_message(["Click a model to aim at it", "Esc: cancel"], HINT_MAX_W) == ["Click a model to aim at it", "Esc: cancel"]


def test_a_part_wider_than_the_box_keeps_its_own_line() -> None:
    lone = "x" * 200  # no separator to break at: its own line, the rest still packed
    assert wrap_message([f"a · {lone} · b"], 100) == ["a", lone, "b"]


def test_the_building_hint_is_drawn_whole_inside_the_table_view() -> None:
    """Selecting a building showed its hint cut off at the view's left edge ("ding: drag corners …")."""
    pilot = Pilot("scenarios/default.toml", size=(1024, 700))
    try:
        app = pilot.app
        crates = app.scenario.terrain_piece("crates")
        xs = [x for x, _ in crates.polygon]
        ys = [y for _, y in crates.polygon]
        pilot.click(pilot.screen_of(((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)))
        pilot.step(2)
        assert app.state.selection is not None and app.state.selection.id == "crates"
        assert isinstance(app.tool, SelectTool)
        hint = app.tool.hint(app)
        assert hint and hint[0].startswith("Building:")
        drawn = app.hint_rect
        assert drawn is not None
        assert app.view_rect.contains(drawn), (drawn, app.view_rect)  # whole: was 1,100 px wide in a 660 px view
        assert drawn.width <= HINT_MAX_W
    finally:
        pilot.close()
