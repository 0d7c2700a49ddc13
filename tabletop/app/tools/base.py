"""What every table tool is: the interface the window drives, and what a tool may use of the window.

A tool turns mouse and key input on the table into commands (``host.dispatch``) applied
to the immutable ``AppState``. It keeps only transient input state of its own (the
gesture being made, clicks gathered so far); everything the user made lives in the state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import pygame

from tabletop.catalogue import Entry
from tabletop.model import PlacedTemplate, Point, Scenario
from tabletop.viewport import Viewport

from ..state import AppState, CancelGesture, Command, Ref


@dataclass(frozen=True)
class Pointer:
    """Where the mouse is: on the table (mm) and on the screen (px), with the button and modifier keys."""

    world: Point
    screen: tuple[int, int]
    button: int = 1
    mod: int = 0


@dataclass
class Gesture:
    """A press-drag-release in progress.

    ``undo_group`` groups the commands of the gesture into one undo step (and lets
    Esc take it back); ``offset`` is the item's anchor minus the grab point.
    """

    kind: str
    start: Point
    ref: Ref | None = None
    undo_group: int | None = None
    offset: Point = (0.0, 0.0)
    last: Point = (0.0, 0.0)
    anchor_id: str | None = None  # e.g. the model a ruler starts from
    start_screen: tuple[int, int] | None = None  # the press, in pixels: a click that does not drag changes nothing
    moved: bool = False  # the pointer went past the drag threshold


class ToolHost(Protocol):
    """The window as tools see it."""

    @property
    def state(self) -> AppState: ...

    @property
    def scenario(self) -> Scenario: ...

    @property
    def viewport(self) -> Viewport: ...

    @property
    def catalogue(self) -> dict[str, Entry]: ...

    @property
    def mouse_world(self) -> Point | None: ...

    def dispatch(self, command: Command, validate: bool = False) -> bool: ...

    def flash(self, message: str, error: bool = False) -> None: ...

    def placed(self) -> dict[str, PlacedTemplate]: ...

    def slack_mm(self) -> float: ...

    def next_gesture(self) -> int: ...

    def start_pan(self, at: Pointer) -> None: ...

    def label_owner(self, screen: tuple[int, int]) -> str | None: ...


class Tool:
    """A table tool, chosen by the toolbar (``name`` is the state's ``tool``).

    The window calls, for the tool that is chosen:

    - ``press`` on a left-button press over the table;
    - ``drag`` on each mouse move while ``busy`` (and once more before ``release``);
    - ``release`` when that button comes up;
    - ``hover`` on a move while not busy;
    - ``key`` first for every key press on the table: True means the tool used it;
    - ``cancel`` on Esc: drop what is in progress (True if there was anything);
    - ``activate`` / ``deactivate`` when the toolbar picks it or another tool;
    - ``draw`` after the scene, to paint the tool's own overlay;
    - ``hint`` for the lines shown over the table.

    Right- and middle-button drags pan whatever the tool; the wheel zooms.
    """

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    tip: ClassVar[str] = ""

    def __init__(self) -> None:
        self.gesture: Gesture | None = None

    @property
    def busy(self) -> bool:
        """A press is being dragged."""
        return self.gesture is not None

    def press(self, host: ToolHost, at: Pointer) -> None:
        """The left button went down on the table."""

    def drag(self, host: ToolHost, at: Pointer) -> None:
        """The mouse moved with the button held."""

    def release(self, host: ToolHost, at: Pointer) -> None:
        """The button came up: the gesture is over."""
        self.gesture = None

    def hover(self, host: ToolHost, at: Pointer) -> None:
        """The mouse moved with no button held."""

    def key(self, host: ToolHost, event: pygame.event.Event) -> bool:
        """A key on the table; True when the tool used it (the window's shortcuts then skip it)."""
        return False

    def cancel(self, host: ToolHost) -> bool:
        """Esc: take back the gesture in progress (its commands are one undo step)."""
        g = self.gesture
        self.gesture = None
        if g is None:
            return False
        if g.undo_group is not None and host.state.history.gesture == g.undo_group:
            host.dispatch(CancelGesture(g.undo_group))  # not Undo: Ctrl+Y would replay the cancelled drag
        return True

    def activate(self, host: ToolHost) -> None:
        """The toolbar chose this tool."""

    def deactivate(self, host: ToolHost) -> None:
        """Another tool was chosen: forget transient input."""
        self.gesture = None

    def draw(self, host: ToolHost, surface: pygame.Surface) -> None:
        """Paint the tool's overlay on the table (clipped to the table view)."""

    def hint(self, host: ToolHost) -> list[str]:
        """Lines telling the user what the tool does next."""
        return []


def describe(tool: Any) -> str:
    """``"Label: tip"`` of a tool class or instance."""
    return f"{tool.label}: {tool.tip}"
