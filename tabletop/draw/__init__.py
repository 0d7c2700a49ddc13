"""Drawing a table and its resolved templates (read-only on state), as a pipeline:

1. ``scene``   pure: the world geometry of one Adjudication (rings, triangulations, hatching,
               statuses, the ruleset's marks), prepared once and cached. No pygame.
2. ``layout``  pure: where labels and badges go, clear of bases, names and each other.
3. layers (pygame), in painting order: ``terrain`` (table, grid, terrain), ``templates``
   (fills, outlines, visibility, scatter, names), ``models`` (bases, selection, names),
   ``marks`` (the ruleset's marks: tints, hatching, strokes, arrows, roses, badges),
   ``chrome`` (rulers, title) and ``legend``; ``text`` and ``primitives`` serve them.
4. ``compose`` draws one frame (``draw_scene``) and keeps the pixel caches; ``png`` writes a
   PNG of the table or the action (``render_png``); ``odds`` draws the odds overlay.

Each frame only projects prepared arrays through the :class:`~tabletop.viewport.Viewport`
and issues draw calls; translucent fills go to one ``SRCALPHA`` overlay per frame.

Importing this package does not import pygame: the pure steps (``style``, ``scene``, ``layout``)
can be used alone; the painting names below are loaded on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from tabletop.draw.frame import Frame
from tabletop.draw.style import (
    BACKGROUND,
    BUILDING_EDGE,
    BUILDING_FILL,
    CONTESTED_COLOUR,
    CONTESTED_DASH,
    GRID_MINOR,
    GRID_SIX,
    GRID_TWELVE,
    HOVER_COLOUR,
    INCH,
    NO_SIDE,
    PANEL,
    SCATTER,
    SELECT_COLOUR,
    SHADOW_FILL,
    SHADOW_HATCH,
    SOFT_EDGE,
    SOFT_FILL,
    SOFT_HATCH,
    STATUS_COLOURS,
    TABLE_EDGE,
    TABLE_FILL,
    TEMPLATE_FILL,
    VISIBLE_FILL,
    PALETTE_NAMES,
    PALETTES,
    Colour,
    DrawOptions,
    side_colour,
    status_colour,
)

__all__ = (
    "DrawOptions", "draw_scene", "render_png", "render_frame", "Frame", "PALETTES", "PALETTE_NAMES", "status_colour", "side_colour", "REGIONS", "RULER_BAND", "RULER_SIDE",
    "ACTION_MARGIN", "ACTION_MIN_MARGIN_MM", "ACTION_MIN_SIZE_MM", "INCH", "Colour", "STATUS_COLOURS",
    "CONTESTED_COLOUR", "CONTESTED_DASH", "SELECT_COLOUR", "HOVER_COLOUR", "BACKGROUND", "TABLE_FILL", "TABLE_EDGE",
    "GRID_MINOR", "GRID_SIX", "GRID_TWELVE", "BUILDING_FILL", "BUILDING_EDGE", "SOFT_FILL", "SOFT_EDGE", "SOFT_HATCH",
    "TEMPLATE_FILL", "VISIBLE_FILL", "SHADOW_FILL", "SHADOW_HATCH", "SCATTER", "PANEL", "NO_SIDE",
)  # fmt: skip

# Painting names, from the pygame modules, imported when first asked for.
_LAZY = {
    "draw_scene": "compose",
    "render_png": "png",
    "render_frame": "png",
    "REGIONS": "png",
    "ACTION_MARGIN": "png",
    "ACTION_MIN_MARGIN_MM": "png",
    "ACTION_MIN_SIZE_MM": "png",
    "RULER_BAND": "chrome",
    "RULER_SIDE": "chrome",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
