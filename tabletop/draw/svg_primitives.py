"""The SVG writer's small pieces: colours, point lists, paths, text elements, arrows. Pure: no pygame."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from xml.sax.saxutils import escape

import numpy as np

from tabletop.draw.style import Colour
from tabletop.marks import TEXT
from tabletop.viewport import Viewport

FONT = "Noto Sans, DejaVu Sans, Arial, sans-serif"


def _rgb(c: Colour) -> str:
    return f"#{c[0]:02x}{c[1]:02x}{c[2]:02x}"


def _pts(points: np.ndarray) -> str:
    return " ".join(f"{x:.2f},{y:.2f}" for x, y in np.asarray(points, dtype=float).reshape(-1, 2))


def _path(rings: Iterable[np.ndarray]) -> str:
    """An SVG path of closed rings (holes cut with the even-odd rule)."""
    parts = []
    for ring in rings:
        r = np.asarray(ring, dtype=float).reshape(-1, 2)
        if len(r) >= 3:
            parts.append("M" + " L".join(f"{x:.2f},{y:.2f}" for x, y in r) + " Z")
    return " ".join(parts)


def _poly_path(vp: Viewport, polys: Sequence[object]) -> str:
    """Path data of the scene's fillable polygons (exterior and holes)."""
    rings: list[np.ndarray] = []
    for p in polys:
        geom = p.geom  # type: ignore[attr-defined]
        rings.append(vp.to_screen_array(np.asarray(geom.exterior.coords)[:-1]))
        for hole in geom.interiors:
            rings.append(vp.to_screen_array(np.asarray(hole.coords)[:-1]))
    return _path(rings)


def _text(x: float, y: float, s: str, size: float, colour: Colour = TEXT, anchor: str = "middle", bold: bool = False, halo: bool = True) -> str:
    weight = ' font-weight="bold"' if bold else ""
    stroke = ' stroke="#101216" stroke-width="3" paint-order="stroke" stroke-linejoin="round"' if halo else ""
    return (
        f'<text x="{x:.2f}" y="{y:.2f}" font-size="{size:.1f}" text-anchor="{anchor}" fill="{_rgb(colour)}"{weight}{stroke}>'
        f"{escape(s)}</text>"
    )


def _arrow_path(a: tuple[float, float], b: tuple[float, float], head: float = 12.0) -> str:
    ang = math.atan2(b[1] - a[1], b[0] - a[0])
    l = (b[0] - head * math.cos(ang - 0.45), b[1] - head * math.sin(ang - 0.45))
    r = (b[0] - head * math.cos(ang + 0.45), b[1] - head * math.sin(ang + 0.45))
    return f"M{a[0]:.2f},{a[1]:.2f} L{b[0]:.2f},{b[1]:.2f} M{l[0]:.2f},{l[1]:.2f} L{b[0]:.2f},{b[1]:.2f} L{r[0]:.2f},{r[1]:.2f}"
