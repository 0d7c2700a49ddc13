"""What a ruleset wants drawn on the table, as plain data. Pure: no pygame.

A ruleset's ``marks`` hook reads an :class:`~tabletop.adjudicate.Adjudication`
(details, model details, steps, extra templates) and fills a :class:`Marks` of
world-space marks (millimetres, table coordinates) once per adjudication;
``tabletop.draw`` projects and paints them every frame and never asks which
ruleset made them. Colours are plain RGB tuples.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from shapely.geometry import GeometryCollection, MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from tabletop.model import PlacedTemplate, Scenario, Terrain
from tabletop.units import MM_PER_UNIT

Colour = tuple[int, int, int]
Point = tuple[float, float]
Box = tuple[float, float, float, float]  # world x0, y0, x1, y1
FloatArray = NDArray[np.float64]

# --------------------------------------------------------------------------- palette
# Shared with the painter, so a ruleset's text and accents match the table's own.

TEXT: Colour = (240, 240, 240)
TEXT_DIM: Colour = (190, 196, 200)
TEMPLATE_EDGE: Colour = (255, 240, 190)
NULLIFIED: Colour = (235, 40, 40)
ROSE: Colour = (196, 202, 212)
ROSE_HOT: Colour = (255, 255, 255)
CHAIN: Colour = (255, 128, 40)
LINK: Colour = (255, 90, 90)
GROUND_ZERO: Colour = (255, 255, 255)
BLOCKED_FILL: Colour = (70, 78, 110)
BLOCKED_HATCH: Colour = (205, 210, 235)
DODGE_PH: Colour = (86, 180, 233)
DODGE_PH3: Colour = (230, 159, 0)
WARN: Colour = (255, 80, 70)
DAMAGE_TEXT: Colour = (255, 170, 120)
BADGE_BACK: Colour = (16, 18, 22)
HIGHLIGHT: Colour = (255, 236, 170)  # a number worth reading first (RoF, a size)

# YlOrRd: damage reads as heat, light to dark, without relying on hue alone.
HEAT: tuple[Colour, ...] = ((255, 237, 160), (254, 178, 76), (240, 59, 32), (150, 0, 38))
HEAT_ALPHA = 150
#: A rose's arms are at least this long on screen (px): a badge beside a rose keeps this far off.
ROSE_MIN_PX = 40.0


def heat_colour(damage: float, top: float) -> Colour:
    """Heat colour of ``damage`` on a log scale up to ``top`` (damage halves per ring)."""
    if top <= 1:
        t = 1.0
    else:
        t = min(1.0, max(0.0, math.log2(max(damage, 1.0)) / math.log2(top)))
    x = t * (len(HEAT) - 1)
    k = min(int(x), len(HEAT) - 2)
    f = x - k
    a, b = HEAT[k], HEAT[k + 1]
    return (round(a[0] + (b[0] - a[0]) * f), round(a[1] + (b[1] - a[1]) * f), round(a[2] + (b[2] - a[2]) * f))


# --------------------------------------------------------------------------- marks


@dataclass(frozen=True)
class Stroke:
    """A world polyline: a Ground Zero outline, a line of fire, a battery's T."""

    points: FloatArray
    colour: Colour
    width: int = 2
    closed: bool = False
    dashed: bool = False
    above: bool = False  # over the bases


@dataclass(frozen=True)
class Arrow:
    """An arrow (or, without a head, a link) between world points, over the bases, tagged at its middle."""

    a: Point
    b: Point
    colour: Colour
    tag: str | None = None
    trim_a: float = 0.0  # mm kept clear at each end (a base's radius)
    trim_b: float = 0.0
    head: bool = True


def link(a: Point, b: Point, colour: Colour, tag: str | None = None) -> Arrow:
    """A plain line between two models (no head): an engagement, a pairing."""
    return Arrow(a, b, colour, tag, head=False)


@dataclass(frozen=True)
class Rose:
    """Six numbered scatter directions at an aim point, the rolled ones highlighted."""

    centre: Point
    first: float  # heading (degrees CCW) of direction 1
    rolled: tuple[int, ...]
    reach: float  # mm: the template's radius, which sizes the rose


@dataclass(frozen=True)
class Cell:
    """A number written in a grid square; ``heat`` is the value it shows (for readers of the data)."""

    centre: Point
    side: float  # mm
    text: str
    dark: bool  # dark ink on a pale square
    heat: float | None = None


@dataclass(frozen=True)
class Badge:
    """A small panel of lines next to a world point, placed each frame clear of other text and bases.

    Badges are placed in ``priority`` order (higher first, ties in the order given), so the
    important ones get the best spots.
    """

    anchor: Point
    lines: tuple[tuple[str, Colour], ...]
    accent: Colour
    clear: float = 0.0  # mm around the anchor to keep clear (a base, a template)
    prefer: str = "right"  # right, left, above, below
    clear_px: float = 0.0  # and at least this many pixels (a rose)
    leader: bool = True  # a line back to the anchor when the badge had to move away
    priority: int = 0
    dice: bool = False  # the rolls that decided a template: placed before other badges, styled as dice


class Tint(NamedTuple):
    """A translucent world box (a heat square)."""

    box: Box
    colour: Colour
    alpha: int


class Hatch(NamedTuple):
    """Hatching: (M, 2, 2) world segments in one colour."""

    segments: FloatArray
    colour: Colour


class Tag(NamedTuple):
    """Short text centred on a world point, over the bases."""

    point: Point
    text: str
    colour: Colour


class LegendEntry(NamedTuple):
    """A legend line: ``kind`` is the swatch drawn (heat, hatch, outline, rose, line, dash, swatch, arrow, link)."""

    kind: str
    text: str
    colour: Colour


LEGEND_KINDS = ("heat", "hatch", "outline", "rose", "line", "dash", "swatch", "arrow", "link")


@dataclass(eq=False)
class Marks:
    """A ruleset's marks for one adjudication: world-space data, projected every frame."""

    tints: list[Tint] = field(default_factory=list)
    hatches: list[Hatch] = field(default_factory=list)
    strokes: list[Stroke] = field(default_factory=list)
    arrows: list[Arrow] = field(default_factory=list)
    roses: list[Rose] = field(default_factory=list)
    cells: list[Cell] = field(default_factory=list)
    badges: list[Badge] = field(default_factory=list)
    tags: list[Tag] = field(default_factory=list)
    legend: list[LegendEntry] = field(default_factory=list)
    replaced: set[str] = field(default_factory=set)  # templates whose plain fill, outline and axis are left out
    sublabels: dict[str, str] = field(default_factory=dict)  # template id -> the line under its name
    outlines: dict[str, FloatArray] = field(default_factory=dict)  # a replaced template's true outline (world ring)
    name_at: dict[str, Point] = field(default_factory=dict)  # terrain names moved off the marks under them
    extent: list[Box] = field(default_factory=list)  # must be inside the action view

    def add_legend(self, kind: str, text: str, colour: Colour) -> None:
        """Add a legend line once."""
        entry = LegendEntry(kind, text, colour)
        if entry not in self.legend:
            self.legend.append(entry)

    def is_empty(self) -> bool:
        return not (self.tints or self.hatches or self.strokes or self.arrows or self.roses or self.cells or self.badges or self.tags)

    @cached_property
    def tint_boxes(self) -> FloatArray | None:
        """Every tint's box, (K, 4), or None."""
        if not self.tints:
            return None
        return np.array([t.box for t in self.tints], dtype=float).reshape(-1, 4)

    @cached_property
    def tint_bbox(self) -> Box | None:
        """The box around every tint, or None."""
        b = self.tint_boxes
        if b is None:
            return None
        return (float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max()))


# --------------------------------------------------------------------------- helpers for ruleset authors


def mm(point: Sequence[float], scenario: Scenario) -> Point:
    """A ``details`` point (scenario units) in mm."""
    k = MM_PER_UNIT.get(scenario.units, 1.0)
    return (float(point[0]) * k, float(point[1]) * k)


def num_text(x: float) -> str:
    """A number as short text (``3``, ``2.5``)."""
    return f"{x:g}"


def ring_top(placed: PlacedTemplate) -> Point:
    """The top of a placed template's reach circle (where a badge about it goes)."""
    return (placed.focus[0], placed.focus[1] + placed.shape.reach)


def polygons_of(geom: BaseGeometry | None) -> list[Polygon]:
    """The polygons with area in any shapely geometry (points and lines give none)."""
    if geom is None or geom.is_empty:
        return []
    if isinstance(geom, Polygon):
        return [geom] if geom.area > 0 else []
    if isinstance(geom, (MultiPolygon, GeometryCollection)):
        out: list[Polygon] = []
        for part in geom.geoms:
            out.extend(polygons_of(part))
        return out
    return []


def terrain_point(piece: Terrain) -> Point:
    """A point inside a terrain piece: its centroid, or a representative point when that falls outside."""
    p = Polygon(np.asarray(piece.polygon, dtype=float).reshape(-1, 2))
    c = p.representative_point() if not p.is_valid or not p.contains(p.centroid) else p.centroid
    return (float(c.x), float(c.y))
