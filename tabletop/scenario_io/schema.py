"""The pydantic schema of a scenario file: the reference for what a valid file is, and the
source of every message about an invalid one."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator  # noqa: F401

from tabletop.scenario_io.fields import (
    _angle,
    _base,
    _base_sides,
    _finite,
    _format,
    _grid,
    _grid_squares,
    _identifier,
    _image_path,
    _known_ruleset,
    _length,
    _non_negative_length,
    _one_aim,
    _one_outline,
    _one_placement,
    _pixel_corners,
    _point,
    _points,
    _positive_length,
    _rolls,
    _shape,
    _sigma,
    _stats,
    _strict_bool,
    _strict_int,
    _strings,
    _text,
    _weapon,
)
from tabletop.scenario_io.limits import MAX_BATTERY, MAX_MODELS, MAX_TEMPLATES, MAX_TERRAIN
from tabletop.units import MAX_NAME_CHARS, MAX_TITLE_CHARS

Length = Annotated[float, BeforeValidator(_length)]
PositiveLength = Annotated[float, BeforeValidator(_positive_length)]
Number = Annotated[float, BeforeValidator(_finite)]
Angle = Annotated[float, BeforeValidator(_angle)]
Name = Annotated[str, BeforeValidator(_text(MAX_NAME_CHARS))]
Title = Annotated[str, BeforeValidator(_text(MAX_TITLE_CHARS))]
StrictInt = Annotated[int, BeforeValidator(_strict_int)]
StrictBool = Annotated[bool, BeforeValidator(_strict_bool)]
GridLength = Annotated[float, BeforeValidator(_grid)]
NonNegativeLength = Annotated[float, BeforeValidator(_non_negative_length)]
Identifier = Annotated[str, BeforeValidator(_identifier)]
PointIn = Annotated[tuple[float, float], BeforeValidator(_point)]
Strings = Annotated[tuple[str, ...], BeforeValidator(_strings)]
Stats = Annotated[dict[str, float], BeforeValidator(_stats)]


class _In(BaseModel):
    model_config = ConfigDict(extra="allow", allow_inf_nan=False, frozen=True)


class BaseIn(_In):
    shape: Literal["round", "oval", "rect"] = "round"
    length: PositiveLength
    width: PositiveLength | None = None

    @model_validator(mode="after")
    def _both_sides(self) -> BaseIn:
        _base_sides(self.shape, self.width)
        return self


class ModelIn(_In):
    id: Identifier
    name: Name | None = None
    side: Name | None = None
    unit: Name | None = None
    x: Length
    y: Length
    base: Annotated[BaseIn, BeforeValidator(_base)]
    facing: Angle = 90.0
    z: Length | None = None
    height: PositiveLength | None = None
    stats: Stats = Field(default_factory=dict)
    tags: Strings = ()
    engaged: Strings = ()
    sigma: Annotated[float, BeforeValidator(_sigma)] | None = None


class BackdropIn(_In):
    image: Annotated[str, BeforeValidator(_image_path)]
    corners: Annotated[tuple[tuple[float, float], ...], BeforeValidator(_pixel_corners)]


class RectIn(_In):
    x: Length
    y: Length
    length: PositiveLength
    width: PositiveLength
    rotation: Angle = 0.0


class TerrainIn(_In):
    id: Identifier
    name: Name | None = None
    kind: Name | None = None
    points: Annotated[tuple[tuple[float, float], ...], BeforeValidator(_points)] | None = None
    rect: RectIn | None = None
    height: NonNegativeLength | None = None
    blocks_los: StrictBool = True
    stats: Stats = Field(default_factory=dict)
    tags: Strings = ()

    @model_validator(mode="after")
    def _one_outline(self) -> TerrainIn:
        _one_outline(self.points, self.rect)
        return self


class ImpactIn(_In):
    attacker: Identifier
    target: Identifier | None = None
    at: PointIn | None = None

    @model_validator(mode="after")
    def _one_aim(self) -> ImpactIn:
        _one_aim(self.target, self.at)
        return self


class DirectIn(_In):
    attacker: Identifier
    heading: Angle = 0.0


class ExplosionIn(_In):
    model: Identifier


class TemplateIn(_In):
    id: Identifier
    shape: Annotated[str | dict[str, Any], BeforeValidator(_shape)] | None = None
    at: PointIn | None = None
    impact: ImpactIn | None = None
    direct: DirectIn | None = None
    explosion: ExplosionIn | None = None
    heading: Angle = 0.0
    battery: Annotated[StrictInt, Field(ge=1, le=MAX_BATTERY)] = 1
    weapon: Annotated[dict[str, Any], BeforeValidator(_weapon)] = Field(default_factory=dict)
    rolls: Annotated[dict[str, Any], BeforeValidator(_rolls)] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_placement(self) -> TemplateIn:
        _one_placement({"at": self.at, "impact": self.impact, "direct": self.direct, "explosion": self.explosion}, self.shape)
        return self


class TableIn(_In):
    width: PositiveLength
    depth: PositiveLength
    grid: GridLength | None = None

    @model_validator(mode="after")
    def _squares(self) -> TableIn:
        _grid_squares(self.width, self.depth, self.grid)
        return self


class ScenarioIn(_In):
    format: Annotated[Literal[1], BeforeValidator(_format)]
    title: Title = ""
    ruleset: str = "none"  # any registered ruleset: checked by _known_ruleset
    units: Literal["in", "mm", "cm"] = "in"
    table: TableIn
    model: Annotated[list[ModelIn], Field(max_length=MAX_MODELS)] = Field(default_factory=list)
    terrain: Annotated[list[TerrainIn], Field(max_length=MAX_TERRAIN)] = Field(default_factory=list)
    template: Annotated[list[TemplateIn], Field(max_length=MAX_TEMPLATES)] = Field(default_factory=list)
    backdrop: BackdropIn | None = None

    @field_validator("ruleset")
    @classmethod
    def _known_ruleset(cls, name: str) -> str:
        return _known_ruleset(name)
