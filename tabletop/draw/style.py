"""Colours, status and side colours, and the drawing options. Pure: no pygame."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


Colour = tuple[int, int, int]


FloatArray = NDArray[np.float64]


INCH = 25.4


# Okabe–Ito based: statuses differ in hue *and* lightness, never by red/green alone.
STATUS_COLOURS: dict[str, Colour] = {
    "affected": (230, 85, 13),  # vermillion-orange
    "total_cover": (40, 110, 200),  # blue
    "outside": (214, 214, 206),  # light grey
    "user": (240, 190, 30),  # gold
}


CONTESTED_COLOUR: Colour = (255, 236, 40)
CHECK_COLOUR: Colour = (255, 140, 30)
"""A base found on a photo the analysis is not sure of ("check this base"): its outline dashed in orange, with a "!"
badge (a second cue beside the colour), on every picture of the table (``draw.checks``)."""
CHECK_INK: Colour = (20, 22, 26)
"""The badge's rim and its "!"."""
CHECK_DASH_PX = 7.0
"""The mark's dashes and the gaps between them, in screen px."""
CHECK_BADGE_RADIUS = 8
"""The badge's radius (px), its ink rim one more."""
CHECK_BADGE_MIN_BASE_PX = 4.0
"""A base drawn smaller than this radius (px) gets no badge: it would hide the base; the dashed ring stays."""


def check_badge_centre(centre: tuple[float, float], radius_px: float) -> tuple[float, float]:
    """Where the "!" badge of a base drawn at screen ``centre`` with ``radius_px`` goes: at its upper right, clear of
    its outline."""
    return centre[0] + 0.72 * radius_px + 4, centre[1] - 0.72 * radius_px - 4


CONTESTED_DASH: Colour = (20, 20, 20)


SELECT_COLOUR: Colour = (0, 230, 255)


HOVER_COLOUR: Colour = (255, 255, 255)


BACKGROUND: Colour = (30, 32, 36)


TABLE_FILL: Colour = (58, 84, 64)  # muted felt: keeps orange/blue/grey bases readable


TABLE_EDGE: Colour = (18, 26, 20)


GRID_MINOR: Colour = (70, 98, 76)


GRID_SIX: Colour = (92, 124, 98)


GRID_TWELVE: Colour = (108, 140, 114)


BUILDING_FILL: Colour = (112, 114, 120)


BUILDING_EDGE: Colour = (46, 48, 54)


SOFT_FILL: Colour = (92, 116, 92)  # blocks_los = false: lighter than felt, hatched


SOFT_EDGE: Colour = (140, 160, 134)


SOFT_HATCH: Colour = (120, 146, 116)


TEMPLATE_FILL: Colour = (255, 220, 120)


VISIBLE_FILL: Colour = TEMPLATE_FILL  # what the focus sees looks like any template


SHADOW_FILL: Colour = (12, 16, 36)


SHADOW_HATCH: Colour = (120, 130, 170)


SCATTER: Colour = (255, 255, 255)


PANEL: tuple[int, int, int, int] = (16, 18, 22, 210)


_SIDE_PALETTE: tuple[Colour, ...] = (
    (86, 180, 233),  # sky blue
    (204, 121, 167),  # reddish purple
    (0, 158, 115),  # bluish green
    (245, 245, 245),  # white
    (25, 25, 25),  # black
    (148, 103, 189),  # violet
    (166, 118, 29),  # ochre
    (231, 41, 138),  # magenta
    (170, 190, 40),  # olive
    (120, 70, 40),  # brown
)


# A side called after a colour gets that colour: "red" vs "blue" must never collide.
_NAMED_SIDES: dict[str, Colour] = {
    "red": (220, 50, 47),
    "blue": (38, 139, 210),
    "green": (0, 158, 115),
    "white": (245, 245, 245),
    "black": (25, 25, 25),
    "yellow": (240, 228, 66),
    "orange": (240, 150, 30),
    "purple": (148, 103, 189),
    "pink": (204, 121, 167),
    "brown": (120, 70, 40),
    "grey": (150, 150, 150),
    "gray": (150, 150, 150),
    "neutral": (140, 140, 140),
}


NO_SIDE: Colour = (90, 90, 90)


_STATUS_RANK = {"outside": 0, "user": 1, "total_cover": 2, "affected": 3}


_STATUS_WORDS = {"affected": "affected", "total_cover": "total cover", "outside": "outside", "user": "user"}


# --------------------------------------------------------------------------- palettes and UI scale

#: Status colours of each palette. ``cb``: the Okabe–Ito colour-blind-safe set, with statuses
#: also far apart in lightness (they differ by pattern as well: see draw/models.py).
PALETTES: dict[str, dict[str, Colour]] = {
    "default": dict(STATUS_COLOURS),
    "cb": {
        "affected": (213, 94, 0),  # Okabe–Ito vermillion
        "total_cover": (0, 114, 178),  # Okabe–Ito blue
        "outside": (225, 225, 225),  # near white
        "user": (240, 228, 66),  # Okabe–Ito yellow
    },
}

PALETTE_NAMES = {"default": "Standard", "cb": "Colour-blind safe (Okabe–Ito)"}

_settings: dict[str, object] = {"palette": "default", "ui_scale": 1.0}


def set_palette(name: str) -> None:
    """Use palette ``name`` (``default`` or ``cb``) for statuses from now on (STATUS_COLOURS is updated in place)."""
    if name not in PALETTES:
        raise ValueError(f"palette must be one of {', '.join(PALETTES)}, got {name!r}")
    if name != _settings["palette"]:
        STATUS_COLOURS.update(PALETTES[name])
        _settings["palette"] = name


def palette_name() -> str:
    """The palette in use."""
    return str(_settings["palette"])


def ui_scale() -> float:
    """The UI scale in use: fonts, label sizes and leader widths are multiplied by it."""
    return float(_settings["ui_scale"])  # type: ignore[arg-type]


def set_ui_scale(scale: float) -> bool:
    """Use ``scale`` (clamped to 0.5..4); True when it changed (text caches must then be dropped)."""
    scale = min(4.0, max(0.5, float(scale)))
    if scale == _settings["ui_scale"]:
        return False
    _settings["ui_scale"] = scale
    return True


def auto_ui_scale(desktop: tuple[int, int] | None = None, setting: str | None = None) -> float:
    """The UI scale for a display: ``setting`` (``TABLETOP_UI_SCALE`` or ``--ui-scale``, a number) wins;
    else from the desktop's height in pixels, 1 at 1080 and below, in quarter steps up to 3 (2 at 2160)."""
    if setting:
        try:
            value = float(setting)
        except ValueError:
            value = 0.0
        if value > 0:
            return min(4.0, max(0.5, value))
    if desktop is None or desktop[1] <= 0:
        return 1.0
    return min(3.0, max(1.0, round(desktop[1] / 1080 * 4) / 4))


def _linear(c: int) -> float:
    v = c / 255
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def luminance(colour: Colour) -> float:
    """WCAG relative luminance of an sRGB colour."""
    r, g, b = colour[:3]
    return 0.2126 * _linear(r) + 0.7152 * _linear(g) + 0.0722 * _linear(b)


def contrast_ratio(a: Colour, b: Colour) -> float:
    """WCAG contrast ratio of two colours (1..21); text needs 4.5 for AA."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def blend(colour: Colour, alpha: int, under: Colour) -> Colour:
    """``colour`` at ``alpha`` (0..255) over ``under``, as pygame blends it."""
    a = alpha / 255
    return (round(colour[0] * a + under[0] * (1 - a)), round(colour[1] * a + under[1] * (1 - a)), round(colour[2] * a + under[2] * (1 - a)))


def status_colour(status: str) -> Colour:
    """Fill colour of a base with ``status`` (unknown statuses: outside grey)."""
    return STATUS_COLOURS.get(status, STATUS_COLOURS["outside"])


def side_colour(side: str | None) -> Colour:
    """A stable ring colour for a side name (same name, same colour, every run)."""
    if side is None or not side.strip():
        return NO_SIDE
    key = side.strip().lower()
    if key in _NAMED_SIDES:
        return _NAMED_SIDES[key]
    return _SIDE_PALETTE[zlib.crc32(key.encode("utf-8")) % len(_SIDE_PALETTE)]


@dataclass(frozen=True)
class DrawOptions:
    """What to draw on top of the table and its templates."""

    show_grid: bool = True
    show_names: bool = True
    show_visibility: bool = True
    show_legend: bool = True
    show_rulers: bool = True
    show_title: bool = True
    selected: str | None = None
    hovered: str | None = None
    template_alpha: int = 70
    palette: str = "default"  # see PALETTES
    ui_scale: float = 1.0  # fonts, labels and leaders (1: a 96 dpi desktop)
    reserved: tuple[tuple[int, int, int, int], ...] = ()  # screen rects (x, y, w, h) the table's labels keep off: another layer's words
    live: bool = False  # drawn in the app's window, where hovering a model or zooming shows a hidden label; not a still


#: Ink of the status patterns: readable without colour (affected: a cross; total cover: hatching).
PATTERN_INK: Colour = (20, 20, 20)
