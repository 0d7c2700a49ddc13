"""The table tools, one class each, in toolbar order.

To add a tool: subclass :class:`Tool` (see its docstring for when the window calls
each method), add it to ``TOOL_CLASSES`` and its name to ``state.TOOLS``.
"""

from __future__ import annotations

from .add import AddBuildingTool, AddModelTool
from .base import Gesture, Pointer, Tool, ToolHost
from .ruler import RulerTool
from .select import SelectTool
from .templates import DirectTool, FreeTool, ImpactTool
from .terrain import DrawTerrainTool

TOOL_CLASSES: tuple[type[Tool], ...] = (
    SelectTool, RulerTool, ImpactTool, DirectTool, FreeTool, AddModelTool, AddBuildingTool, DrawTerrainTool,
)

TOOL_BUTTONS: tuple[tuple[str, str, str], ...] = tuple((t.name, t.label, t.tip) for t in TOOL_CLASSES)


def make_tools() -> dict[str, Tool]:
    """One fresh instance of every tool, by name."""
    return {cls.name: cls() for cls in TOOL_CLASSES}


__all__ = [
    "TOOL_BUTTONS",
    "TOOL_CLASSES",
    "AddBuildingTool",
    "AddModelTool",
    "DirectTool",
    "DrawTerrainTool",
    "FreeTool",
    "Gesture",
    "ImpactTool",
    "Pointer",
    "RulerTool",
    "SelectTool",
    "Tool",
    "ToolHost",
    "make_tools",
]
