"""The contract between the core and a ruleset: what it gets, what it returns."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from tabletop.coverage import DEFAULT_TOLERANCE_MM, Coverage, TableGeometry, cover, default_blocks
from tabletop.dice import Dice, RollSpec
from tabletop.model import PlacedTemplate, Scenario, Status, Template, TemplateShape, Terrain
from tabletop.placement import place

if TYPE_CHECKING:
    from tabletop.adjudicate import Adjudication, TemplateResult
    from tabletop.marks import Marks
    from tabletop.sideview import ElevationProfile

#: A results-panel line: (style, text); styles are head, good, bad, warn, note.
PanelLine = tuple[str, str]


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
    #: The id of the rule this step applies, in its ruleset's rule table (``tabletop.step_rules``):
    #: chosen where the step is made, so a step never borrows a neighbour's sentence.
    rule: str | None = None


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
class BatchOutcomes:
    """What ``n`` resolutions of one template give, one row per sample.

    Columns follow :attr:`BatchSampler.ids`; a model not among them is neither affected nor
    damaged in any sample. ``damage`` is what ``resolve`` reports as ``final_damage`` (else
    ``damage``); ``contested`` is the final coverage's flag; ``landing`` indexes
    :attr:`BatchSampler.landings` (where the main template ended).
    """

    affected: NDArray[np.bool_]
    damage: NDArray[np.float64]
    contested: NDArray[np.bool_]
    landing: NDArray[np.intp]


@dataclass(frozen=True)
class BatchSampler:
    """A ruleset's vectorised ``resolve`` of one template, for sampling odds in bulk.

    ``rolls`` names every roll the resolution may take, in the order the odds draw them,
    with its spec and the most times one resolution takes it. ``resolve(values)`` gets each
    name's totals as an (n, count) integer array, column k being the k-th time ``resolve``
    would take that roll (as a list of fixed rolls is used), and must give exactly what
    ``resolve`` gives with those dice, sample by sample.
    """

    ids: tuple[str, ...]
    rolls: Mapping[str, tuple[RollSpec, int]]
    landings: tuple[PlacedTemplate, ...]
    resolve: Callable[[Mapping[str, NDArray[np.int64]]], BatchOutcomes]


@dataclass(frozen=True)
class Ruleset:
    """A ruleset: data plus functions, registered by name.

    Only ``name``, ``title`` and ``resolve`` are required. The hooks below let the app show
    what the ruleset decided without knowing it: ``marks`` (what to draw on the table, once
    per adjudication), ``panel_lines`` (its lines in the results panel) and ``side_view``
    (a vertical profile of one template). ``sample_batch`` lets the odds resolve many dice at once.
    """

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
    #: What the ruleset draws on the table for one adjudication (None: nothing of its own).
    marks: Callable[[Adjudication], Marks | None] | None = None
    #: Its account of one template for the results panel: (style, text) lines.
    panel_lines: Callable[[Scenario, TemplateResult], list[PanelLine]] | None = None
    #: A side view of one template: (scenario, result, settings) -> profile.
    side_view: Callable[[Scenario, TemplateResult, Mapping[str, Any]], ElevationProfile | None] | None = None
    #: Short word for a point of damage in odds labels ("dmg", "MD", ...).
    damage_unit: str = "dmg"
    #: Its documentation page (Markdown).
    doc_path: Path | None = None
    #: The rule a resolution step applies and a short verbatim quote of the seed it rests on:
    #: step -> (rule title, quote) for the rule id the step names (``Step.rule``), or None when the
    #: ruleset does not say (see ``tabletop.step_rules``).
    step_rule: Callable[[Step], tuple[str, str] | None] | None = None
    #: A vectorised resolution for the odds: (context) -> sampler, or None where it does not apply
    #: (the odds then run ``resolve`` per sample). It must agree with ``resolve`` on every dice.
    sample_batch: Callable[[Context], BatchSampler | None] | None = None
