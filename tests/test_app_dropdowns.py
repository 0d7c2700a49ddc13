"""The side panel's drop-downs (Ruleset, New template) picked with real mouse events (issue 33, item 1).

A press on an item of an open side-panel drop-down used to reach the item (a start-press) while
the see-through layer of the toolbar's Demo tables drop-down, above everything, took the focus
from the drop-down; the drop-down closed before the release, and the pick was lost. Each test
here opens the drop-down with a click, moves to the item and clicks it: MOUSEMOTION,
MOUSEBUTTONDOWN and MOUSEBUTTONUP at the item's pixel, as a mouse sends them.
"""

from __future__ import annotations

from typing import Any

import pygame
import pygame_gui
import pytest

from tabletop.app.pilot import Pilot

from .conftest import SCENARIOS

DEFAULT = SCENARIOS / "default.toml"


@pytest.fixture()
def pilot():  # type: ignore[no-untyped-def]
    p = Pilot(DEFAULT)
    yield p
    p.close()


def open_and_pick(p: Pilot, menu: Any, text: str) -> None:
    """Click ``menu`` open, hover its item ``text``, click it: what a user does with a mouse."""
    p.click(menu.rect.center)
    p.step(2)
    items = menu.current_state.options_selection_list.item_list
    button = next(i["button_element"] for i in items if i["text"] == text)
    assert button is not None, f"{text!r} is not drawn in the open list"
    p.move(button.rect.center)
    p.step()
    assert button.hovered, "the item under the pointer highlights"
    p.click(button.rect.center)
    p.step(3)


def test_ruleset_picked_with_the_mouse(pilot: Pilot) -> None:
    assert pilot.app.scenario.ruleset != "robotech"
    open_and_pick(pilot, pilot.app.ruleset_menu, "robotech")
    assert pilot.app.scenario.ruleset == "robotech"
    assert pilot.app.ruleset_menu.selected_option[0] == "robotech"
    assert "Robotech" in pilot.app.message and not pilot.app.message_is_error
    assert pilot.app.state.dirty and pilot.app.state.history.can_undo


def test_new_template_picked_with_the_mouse_is_the_one_placed(pilot: Pilot) -> None:
    name = "robotech_blast"
    assert name in pilot.app.catalogue and pilot.app.state.new_shape != name
    open_and_pick(pilot, pilot.app.shape_menu, name)
    assert pilot.app.state.new_shape == name
    # Placed with the mouse: the Free tool, a click on an empty spot of the table.
    pilot.click(pilot.app.tool_buttons["at"].rect.center)
    empty = pilot.screen_of((40.0, 40.0))
    pilot.click(empty)
    pilot.step()
    names = [t.shape_name for t in pilot.app.scenario.templates]
    assert names[-1] == name


def test_each_ruleset_item_can_be_picked_in_turn(pilot: Pilot) -> None:
    """Every item, top to bottom of the list, with the panel's other widgets under it."""
    from tabletop.model import RULESET_NAMES

    for name in [*RULESET_NAMES[1:], RULESET_NAMES[0]]:
        open_and_pick(pilot, pilot.app.ruleset_menu, name)
        assert pilot.app.scenario.ruleset == name, name


def test_a_click_outside_an_open_list_closes_it_and_changes_nothing(pilot: Pilot) -> None:
    menu = pilot.app.ruleset_menu
    pilot.click(menu.rect.center)
    pilot.step(2)
    assert menu.current_state is menu.menu_states["expanded"]
    pilot.click(pilot.app.view_rect.center)
    pilot.step(3)
    assert pilot.app.ruleset_menu.current_state is pilot.app.ruleset_menu.menu_states["closed"]
    assert not pilot.app.state.dirty


def test_the_pilot_moves_the_pointer_pygame_gui_hovers_with() -> None:
    """The pilot's pointer is the one the widgets hover with (a posted event does not move SDL's)."""
    p = Pilot(DEFAULT)
    try:
        odds = p.app.buttons["odds"]
        p.move(odds.rect.center)
        p.step()
        assert odds.hovered
        p.move(p.app.view_rect.center)
        p.step()
        assert not odds.hovered
    finally:
        p.close()
    assert pygame.get_init()


def test_a_pick_is_kept_when_the_app_refreshes_before_handling_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A key handled in the same frame as the click (here Ctrl+S) refreshed the panel before the app saw
    the drop-down's change: the Ruleset menu was built again for the old ruleset and the pick was lost."""
    import shutil

    from tabletop.scenario_io import load

    table = tmp_path / "table.toml"
    shutil.copy(DEFAULT, table)
    p = Pilot(table)
    try:
        menu = p.app.ruleset_menu
        p.click(menu.rect.center)
        p.step(2)
        button = next(i["button_element"] for i in menu.current_state.options_selection_list.item_list if i["text"] == "robotech")
        p.move(button.rect.center)
        p.post(pygame.MOUSEBUTTONDOWN, pos=button.rect.center, button=1, touch=False)
        p.post(pygame.MOUSEBUTTONUP, pos=button.rect.center, button=1, touch=False)
        # pygame_gui passes the pick on in events, one frame each (the item's press, the list's new
        # selection, the drop-down's change): Ctrl+S lands in the frame the drop-down takes the pick
        for _ in range(6):
            p.step()
            if pygame.event.peek(pygame_gui.UI_SELECTION_LIST_NEW_SELECTION):
                break
        else:
            raise AssertionError("the list never passed the pick on")
        p.post(pygame.KEYDOWN, key=pygame.K_s, mod=pygame.KMOD_LCTRL, unicode="", scancode=0)
        p.step(4)
        assert p.app.scenario.ruleset == "robotech"
        p.key(pygame.K_s, mod=pygame.KMOD_LCTRL)
        assert load(table).ruleset == "robotech"
    finally:
        p.close()
