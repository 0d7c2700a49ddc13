"""The table tools are objects with one interface: the toolbar's tools are the state's, and a
new tool (as the terrain tools will be) gets press/drag/release/key/cancel/draw/hint from the
window through real pygame events."""

from __future__ import annotations

import pygame
import pytest

from tabletop.app import tools as app_tools
from tabletop.app.pilot import Pilot
from tabletop.app.state import TOOLS, AddTerrain, Ref, Select, SetTool
from tabletop.app.tools import TOOL_CLASSES, Pointer, Tool, ToolHost

from .conftest import SCENARIOS

DEFAULT = SCENARIOS / "default.toml"


def test_every_tool_in_the_state_is_a_class_with_the_interface() -> None:
    assert tuple(cls.name for cls in TOOL_CLASSES) == TOOLS
    for cls in TOOL_CLASSES:
        assert issubclass(cls, Tool) and cls.label and cls.tip
        for method in ("press", "drag", "release", "hover", "key", "cancel", "activate", "deactivate", "draw", "hint"):
            assert callable(getattr(cls, method))


class CornerTool(Tool):
    """A two-click tool with multi-click state (like a polygon tool): records what the window calls."""

    name = "select"  # stands in for Select in this test
    label = "Corners"
    tip = "test"

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []
        self.corners: list[tuple[float, float]] = []

    def press(self, host: ToolHost, at: Pointer) -> None:
        self.calls.append("press")
        self.corners.append(at.world)
        if len(self.corners) == 2:
            (x0, y0), (x1, y1) = self.corners
            from tabletop.model import Terrain

            piece = Terrain("drawn", ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), height=None)
            host.dispatch(AddTerrain(piece))
            host.dispatch(Select(Ref("terrain", "drawn")))
            self.corners = []

    def drag(self, host: ToolHost, at: Pointer) -> None:
        self.calls.append("drag")

    def release(self, host: ToolHost, at: Pointer) -> None:
        self.calls.append("release")

    def key(self, host: ToolHost, event: pygame.event.Event) -> bool:
        if event.key == pygame.K_BACKSPACE and self.corners:
            self.corners.pop()
            self.calls.append("backspace")
            return True
        return False

    def cancel(self, host: ToolHost) -> bool:
        self.calls.append("cancel")
        had = bool(self.corners)
        self.corners = []
        return had

    def draw(self, host: ToolHost, surface: pygame.Surface) -> None:
        self.calls.append("draw")

    def hint(self, host: ToolHost) -> list[str]:
        return [f"{len(self.corners)} corner(s)"]


def test_a_new_tool_gets_the_window_s_events() -> None:
    p = Pilot(DEFAULT)
    tool = CornerTool()
    p.app.tools["select"] = tool
    a, b = p.screen_of((100.0, 100.0)), p.screen_of((200.0, 150.0))
    p.click(a)
    assert tool.corners and "draw" in tool.calls and tool.hint(p.app) == ["1 corner(s)"]
    p.key(pygame.K_BACKSPACE)  # the tool's key comes before the window's Delete/Backspace
    assert tool.corners == [] and "backspace" in tool.calls
    p.click(a)
    p.key(pygame.K_ESCAPE)
    assert "cancel" in tool.calls and tool.corners == [] and p.app.state.tool == "select"
    p.click(a)
    p.click(b)
    piece = p.app.scenario.terrain_piece("drawn")
    assert piece is not None and p.app.state.selection == Ref("terrain", "drawn")
    assert p.app.state.history.can_undo
    p.close()


def test_esc_takes_back_a_drag_in_progress() -> None:
    p = Pilot(DEFAULT)
    sgt = p.app.scenario.model("sgt")
    start = p.screen_of(sgt.centre)
    p.press(start)
    p.move((start[0] + 60, start[1]), (1, 0, 0))
    assert p.app.scenario.model("sgt").x != sgt.x and p.app.tool.busy
    p.key(pygame.K_ESCAPE)
    assert p.app.scenario.model("sgt") == sgt and not p.app.dragging
    p.release((start[0] + 60, start[1]))
    assert p.app.scenario.model("sgt") == sgt
    p.close()


def test_a_drag_taken_back_by_esc_leaves_no_redo_and_gives_back_the_redo_it_cleared() -> None:
    """Esc mid-drag took the drag back with an Undo: Ctrl+Y then replayed the cancelled move (h50, stop 49), and the redo
    steps the drag's first move had cleared were lost. Now the drag never happened: Ctrl+Y redoes what it did before."""
    p = Pilot(DEFAULT)
    sgt = p.app.scenario.model("sgt")
    start = p.screen_of(sgt.centre)
    p.drag(start, (start[0] + 30, start[1]))  # an edit, then undone: one redo step waiting
    moved = p.app.scenario.model("sgt")
    assert moved.x != sgt.x
    p.key(pygame.K_z, pygame.KMOD_LCTRL)
    assert p.app.scenario.model("sgt") == sgt and p.app.state.history.can_redo
    p.press(start)
    p.move((start[0] + 60, start[1]), (1, 0, 0))
    p.move((start[0] + 70, start[1] + 5), (1, 0, 0))
    assert not p.app.state.history.can_redo  # the drag's first move cleared it
    p.key(pygame.K_ESCAPE)
    p.release((start[0] + 70, start[1] + 5))
    assert p.app.scenario.model("sgt") == sgt
    p.key(pygame.K_y, pygame.KMOD_LCTRL)
    assert p.app.scenario.model("sgt") == moved, "Ctrl+Y redoes the edit undone before the drag, not the cancelled drag"
    p.key(pygame.K_y, pygame.KMOD_LCTRL)
    assert p.app.scenario.model("sgt") == moved and not p.app.state.history.can_redo
    p.close()


@pytest.mark.parametrize("number", range(1, 8))
def test_number_keys_choose_the_tool_and_its_hint(number: int) -> None:
    p = Pilot(DEFAULT)
    p.key(getattr(pygame, f"K_{number}"))
    tool = p.app.tool
    assert type(tool) is TOOL_CLASSES[number - 1] and p.app.state.tool == tool.name
    assert bool(tool.hint(p.app)) == (tool.name != "select")
    p.close()


def test_the_ruler_reading_goes_when_another_tool_is_chosen() -> None:
    p = Pilot(DEFAULT)
    p.key(pygame.K_2)
    a, b = p.app.scenario.model("sgt"), p.app.scenario.model("r1")
    p.drag(p.screen_of(a.centre), p.screen_of(b.centre))
    assert p.app.ruler is not None
    p.app.dispatch(SetTool("select"))
    assert p.app.ruler is None
    p.close()


def test_tool_buttons_follow_the_classes() -> None:
    assert app_tools.TOOL_BUTTONS == tuple((c.name, c.label, c.tip) for c in TOOL_CLASSES)


@pytest.mark.parametrize("where", ["panel", "outside the window"])
def test_a_base_let_go_outside_the_table_view_goes_back(where: str) -> None:
    """A base dragged over the side panel, or out of the window (SDL reports the release there), and let go: it went
    where nobody sees it, off the table (h50, stop 49: a photo's base "to check" dropped off the table lost its doubt).
    Now the drag is taken back, as Esc takes it back, and the status bar says so; a drop on the table still moves."""
    p = Pilot(DEFAULT)
    sgt = p.app.scenario.model("sgt")
    start = p.screen_of(sgt.centre)
    end = (p.app.view_rect.right + 40, start[1]) if where == "panel" else (-30, start[1])
    p.press(start)
    p.move((start[0] + 40, start[1]), (1, 0, 0))
    p.move(end, (1, 0, 0))
    p.release(end)
    assert p.app.scenario.model("sgt") == sgt and not p.app.dragging
    assert not p.app.state.history.can_redo and "taken back" in p.app.message
    p.drag(start, (start[0] + 40, start[1]))
    assert p.app.scenario.model("sgt").x != sgt.x
    p.close()
