"""Immutable values describing a table: models, terrain, templates, scenario.

All lengths are millimetres, all angles degrees counter-clockwise from +x.
Values are frozen dataclasses; change them with ``dataclasses.replace``.
Mapping fields are plain dicts by convenience and must be treated as read-only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, Union

BaseShape = Literal["round", "oval", "rect"]
TemplateKind = Literal["circle", "teardrop", "rect", "cone"]
Status = Literal["user", "outside", "total_cover", "affected"]

Point = tuple[float, float]


@dataclass(frozen=True)
class Base:
    """A model's base; ``length`` runs along the model's facing."""

    shape: BaseShape
    length: float
    width: float

    @staticmethod
    def round(diameter: float) -> Base:
        return Base("round", diameter, diameter)

    @property
    def is_round(self) -> bool:
        return self.shape == "round" or (self.shape == "oval" and self.length == self.width)

    @property
    def bounding_radius(self) -> float:
        if self.shape == "rect":
            return math.hypot(self.length, self.width) / 2
        return max(self.length, self.width) / 2


#: The tag a base found on a photo carries until it is accepted.
PROPOSED_TAG = "proposed"
#: A base found on a photo the analysis is not confident of ("check this base"), as ``tabletop photo -o`` tags it; it
#: goes when the user fixes or confirms that base (``AcceptProposed.confirm``, a refit, a size chosen). Every picture of
#: the table marks it (``tabletop.draw``), exports included: an unsure base never looks sure.
CHECK_TAG = "check"


@dataclass(frozen=True)
class Model:
    """One model (trooper, mecha, vehicle) on its base."""

    id: str
    x: float
    y: float
    base: Base
    name: str | None = None
    side: str | None = None
    unit: str | None = None
    facing: float = 90.0
    z: float | None = None
    height: float | None = None
    stats: dict[str, float] = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    engaged: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    #: 1-sigma uncertainty of the position in mm (a model placed from a photo); None: placed exactly.
    sigma: float | None = None

    @property
    def label(self) -> str:
        return self.name or self.id

    @property
    def centre(self) -> Point:
        return (self.x, self.y)


@dataclass(frozen=True)
class RectSpec:
    """A rectangle centred on (x, y), ``length`` along ``rotation``."""

    x: float
    y: float
    length: float
    width: float
    rotation: float = 0.0

    def corners(self) -> tuple[Point, ...]:
        c, s = math.cos(math.radians(self.rotation)), math.sin(math.radians(self.rotation))
        hl, hw = self.length / 2, self.width / 2
        local = ((-hl, -hw), (hl, -hw), (hl, hw), (-hl, hw))
        return tuple((self.x + u * c - v * s, self.y + u * s + v * c) for u, v in local)


@dataclass(frozen=True)
class Terrain:
    """A terrain piece: a simple polygon, given as points or as a rectangle."""

    id: str
    points: tuple[Point, ...] | None = None
    rect: RectSpec | None = None
    name: str | None = None
    kind: str | None = None
    height: float | None = None
    blocks_los: bool = True
    stats: dict[str, float] = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def polygon(self) -> tuple[Point, ...]:
        if self.points is not None:
            return self.points
        assert self.rect is not None
        return self.rect.corners()

    @property
    def label(self) -> str:
        return self.name or self.id


@dataclass(frozen=True)
class TemplateShape:
    """A template's outline. Only the fields of its kind are meaningful.

    circle: ``diameter``; teardrop: ``length``, ``tip_width``, ``end_width``;
    rect: ``length``, ``width``; cone: ``length``, ``angle`` (degrees).
    """

    kind: TemplateKind
    diameter: float = 0.0
    length: float = 0.0
    width: float = 0.0
    tip_width: float = 0.0
    end_width: float = 0.0
    angle: float = 0.0
    label: str | None = None
    #: How far (mm) the true outline may lie from this one: 0 for a published size,
    #: the catalogue note's figure for an estimate. Widens ``contested``, never moves the edge.
    size_uncertainty: float = 0.0

    @staticmethod
    def circle(diameter: float) -> TemplateShape:
        return TemplateShape("circle", diameter=diameter)

    @staticmethod
    def teardrop(length: float, tip_width: float, end_width: float) -> TemplateShape:
        return TemplateShape("teardrop", length=length, tip_width=tip_width, end_width=end_width)

    @property
    def radius(self) -> float:
        return self.diameter / 2

    @property
    def reach(self) -> float:
        """Largest distance from the focus to any point of the template."""
        if self.kind == "circle":
            return self.diameter / 2
        if self.kind == "rect":
            return math.hypot(self.length, self.width) / 2
        return self.length

    def local_extent(self) -> tuple[float, float, float]:
        """(u_min, u_max, half width across) in the template's own frame, focus at 0, axis +u."""
        if self.kind == "circle":
            return -self.radius, self.radius, self.radius
        if self.kind == "rect":
            return -self.length / 2, self.length / 2, self.width / 2
        if self.kind == "teardrop":
            return 0.0, self.length, max(self.tip_width, self.end_width) / 2
        # cone: apex at 0, the arc reaches u = length on the axis; wider than a half turn, the full length across.
        half = math.radians(self.angle / 2)
        return 0.0, self.length, self.length * math.sin(half) if self.angle <= 180 else self.length

    @property
    def half_width(self) -> float:
        """Half the template's width (Infinity: the template's height)."""
        if self.kind == "circle":
            return self.diameter / 2
        if self.kind == "teardrop":
            return max(self.tip_width, self.end_width) / 2
        if self.kind == "rect":
            return self.width / 2
        return self.length * math.sin(math.radians(min(self.angle, 180.0) / 2))


@dataclass(frozen=True)
class At:
    """Blast focus free on the table; the axis is ``heading``."""

    x: float
    y: float
    heading: float = 0.0


@dataclass(frozen=True)
class Impact:
    """Aimed by ``attacker`` at a model (``target``) or a point (``point``)."""

    attacker: str
    target: str | None = None
    point: Point | None = None


@dataclass(frozen=True)
class Direct:
    """Laid from ``attacker``'s base along ``heading``."""

    attacker: str
    heading: float = 0.0


@dataclass(frozen=True)
class Explosion:
    """A circle centred on ``model``, which it does not affect."""

    model: str


Placement = Union[At, Impact, Direct, Explosion]


@dataclass(frozen=True)
class Template:
    """A template (or attack) as written in the scenario."""

    id: str
    shape: TemplateShape | None
    placement: Placement
    shape_name: str | None = None
    battery: int = 1
    weapon: dict[str, Any] = field(default_factory=dict)
    rolls: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def attacker(self) -> str | None:
        if isinstance(self.placement, (Impact, Direct)):
            return self.placement.attacker
        return None


@dataclass(frozen=True)
class Table:
    """The playing surface; ``grid`` is the square size when the table has one."""

    width: float
    depth: float
    grid: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Backdrop:
    """A photo under the table: ``image`` as written in the file (relative to it), and the image
    pixels (x right, y down) of the table's lower-left, lower-right, upper-right, upper-left corners."""

    image: str
    corners: tuple[Point, Point, Point, Point]
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Scenario:
    """One table with its models, terrain and templates."""

    table: Table
    models: tuple[Model, ...] = ()
    terrain: tuple[Terrain, ...] = ()
    templates: tuple[Template, ...] = ()
    title: str = ""
    ruleset: str = "none"
    units: str = "in"
    format: int = 1
    extra: dict[str, Any] = field(default_factory=dict)
    backdrop: Backdrop | None = None

    def model(self, model_id: str) -> Model:
        for m in self.models:
            if m.id == model_id:
                return m
        raise KeyError(model_id)

    def template(self, template_id: str) -> Template:
        for t in self.templates:
            if t.id == template_id:
                return t
        raise KeyError(template_id)

    def terrain_piece(self, terrain_id: str) -> Terrain:
        for t in self.terrain:
            if t.id == terrain_id:
                return t
        raise KeyError(terrain_id)

    def models_by_id(self) -> dict[str, Model]:
        return {m.id: m for m in self.models}


@dataclass(frozen=True)
class PlacedTemplate:
    """A template laid on the table: its outline, blast focus and axis."""

    id: str
    shape: TemplateShape
    focus: Point
    heading: float
    user: str | None = None


def __getattr__(name: str) -> Any:
    # ``RULESET_NAMES`` is every registered ruleset (built-ins and plug-ins), asked of the
    # registry when first read: the model module itself names none.
    if name == "RULESET_NAMES":
        from tabletop import rulesets

        return rulesets.names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
