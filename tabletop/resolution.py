"""The contract between the core and a ruleset: what it gets, what it returns."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tabletop.coverage import DEFAULT_TOLERANCE_MM, Coverage, TableGeometry, cover, default_blocks
from tabletop.dice import Dice, RollSpec
from tabletop.model import PlacedTemplate, Scenario, Status, Template, TemplateShape, Terrain
from tabletop.placement import place


@dataclass
class Context:
    """Everything a ruleset needs to resolve one template."""

    scenario: Scenario
    template: Template
    placed: PlacedTemplate
    coverage: Coverage
    geometry: TableGeometry
    dice: Dice
    tolerance_mm: float = DEFAULT_TOLERANCE_MM
    settings: Mapping[str, Any] = field(default_factory=dict)
    uses_visibility: bool = True

    def cover(
        self,
        placed: PlacedTemplate,
        *,
        use_visibility: bool | None = None,
        blocks: Callable[[Terrain], bool] = default_blocks,
    ) -> Coverage:
        """Coverage of another placement on the same table (after a scatter, a battery, ...)."""
        return cover(
            placed,
            self.geometry,
            use_visibility=self.uses_visibility if use_visibility is None else use_visibility,
            tolerance_mm=self.tolerance_mm,
            blocks=blocks,
        )

    def place(self, template: Template, shape: TemplateShape | None = None) -> PlacedTemplate:
        return place(template, self.scenario, shape)


def with_statuses(coverage: Coverage, statuses: Mapping[str, Status]) -> Coverage:
    """``coverage`` with some models' statuses replaced (contagion, 3D reach, ...)."""
    models = dict(coverage.models)
    for model_id, status in statuses.items():
        models[model_id] = models[model_id]._replace(status=status)
    return dataclasses.replace(coverage, models=models)


@dataclass(frozen=True)
class Step:
    """One thing that happened, in order, for the app to animate and the report to explain."""

    kind: str  # "roll", "scatter", "place", "explode", "note", ...
    text: str
    placed: PlacedTemplate | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Resolution:
    """What a ruleset makes of one template.

    ``coverage`` is the final one (after any scatter, with statuses the ruleset
    changed, see :func:`with_statuses`); ``affected`` lists who the attack
    affects after the ruleset's geometric rules. ``details`` becomes the report's
    ``resolution`` object; ``model_details`` adds fields to each model's entry.
    """

    coverage: Coverage
    affected: tuple[str, ...]
    allowed: bool = True
    reason: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    model_details: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    steps: tuple[Step, ...] = ()
    also_drawn: tuple[PlacedTemplate, ...] = ()

    @property
    def placed(self) -> PlacedTemplate:
        return self.coverage.placed


@dataclass(frozen=True)
class Ruleset:
    """A ruleset: data plus functions, registered by name."""

    name: str
    title: str
    resolve: Callable[[Context], Resolution]
    uses_visibility: bool = True
    rolls: Mapping[str, RollSpec] = field(default_factory=dict)
    #: Size of an ``explosion`` template when the ruleset decides it.
    explosion_shape: Callable[[Template, Scenario], TemplateShape] | None = None
    #: Extra checks on a scenario: (field path, message) pairs.
    validate: Callable[[Scenario], list[tuple[str, str]]] | None = None
    #: Settings players may disagree on: name -> (default, explanation).
    settings: Mapping[str, tuple[Any, str]] = field(default_factory=dict)
    doc: str = ""
