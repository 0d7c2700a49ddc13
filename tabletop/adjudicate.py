"""Resolve every template of a scenario under its ruleset."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from tabletop import rulesets
from tabletop.coverage import DEFAULT_TOLERANCE_MM, Coverage, TableGeometry, cover, table_geometry, widen_contested
from tabletop.dice import Dice, DiceError, RollRecord
from tabletop.model import Explosion, PlacedTemplate, Scenario, Template
from tabletop.placement import PlacementError, place
from tabletop.resolution import Context, Resolution
from tabletop.settings import SettingError, checked

DEFAULT_SEED = 1


class AdjudicationError(ValueError):
    """A template that cannot be resolved as written."""


@dataclass(frozen=True)
class TemplateResult:
    """One template's resolution and the rolls it took."""

    template: Template
    resolution: Resolution
    rolls: tuple[RollRecord, ...] = ()


@dataclass(frozen=True)
class Adjudication:
    """Every template of a scenario, resolved."""

    scenario: Scenario
    results: tuple[TemplateResult, ...]
    seed: int = DEFAULT_SEED
    tolerance_mm: float = DEFAULT_TOLERANCE_MM
    settings: Mapping[str, Any] = field(default_factory=dict)


def settings_for(scenario: Scenario, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ruleset's settings: defaults, then the scenario's ``[settings]``, then ``overrides``.

    Every override, and every value of the file's settings this ruleset declares, is checked
    against the ruleset's declared settings (:mod:`tabletop.settings`); a bad one raises
    :class:`AdjudicationError` naming the setting.
    """
    ruleset = rulesets.get(scenario.ruleset)
    merged = {name: default for name, (default, _why) in ruleset.settings.items()}
    file_settings = scenario.extra.get("settings", {})
    try:
        if not isinstance(file_settings, Mapping):
            raise SettingError("", f"settings: must be a table of setting = value, got {type(file_settings).__name__}")
        # The loader refuses unknown names in a file's [settings]; here names another ruleset
        # declares are passed over (the app can switch a table's ruleset), known ones are checked.
        merged.update(checked({k: v for k, v in file_settings.items() if k in ruleset.settings}, ruleset.settings, ruleset.name))
        merged.update(checked(overrides or {}, ruleset.settings, ruleset.name))
    except SettingError as exc:
        raise AdjudicationError(str(exc)) from None
    return merged


def resolve_template(
    scenario: Scenario,
    template: Template,
    geometry: TableGeometry,
    dice: Dice,
    *,
    tolerance_mm: float = DEFAULT_TOLERANCE_MM,
    settings: Mapping[str, Any] | None = None,
    coverage_of: Callable[[PlacedTemplate, bool], Coverage] | None = None,
) -> TemplateResult:
    """Place, cover and resolve one template.

    ``coverage_of(placed, use_visibility)`` replaces the coverage computation (the app caches it).
    """
    ruleset = rulesets.get(scenario.ruleset)
    shape = template.shape
    if isinstance(template.placement, Explosion) and ruleset.explosion_shape is not None:
        shape = ruleset.explosion_shape(template, scenario)
    try:
        placed = place(template, scenario, shape)
    except PlacementError as exc:
        raise AdjudicationError(str(exc)) from None
    if coverage_of is not None:
        coverage = coverage_of(placed, ruleset.uses_visibility)
    else:
        coverage = cover(placed, geometry, use_visibility=ruleset.uses_visibility, tolerance_mm=tolerance_mm)
    before = len(dice.log)
    template_dice = dice.sharing(template.rolls)
    ctx = Context(
        scenario=scenario,
        template=template,
        placed=placed,
        coverage=coverage,
        geometry=geometry,
        dice=template_dice,
        tolerance_mm=tolerance_mm,
        settings=dict(settings or {}),
        uses_visibility=ruleset.uses_visibility,
    )
    try:
        resolution = ruleset.resolve(ctx)
    except (DiceError, PlacementError) as exc:
        raise AdjudicationError(f"template {template.id!r}: {exc}") from None
    sigmas = {m.id: m.sigma for m in scenario.models if m.sigma}
    widened = widen_contested(resolution.coverage, sigmas)
    if widened is not resolution.coverage:
        resolution = replace(resolution, coverage=widened)
    return TemplateResult(template, resolution, tuple(dice.log[before:]))


def adjudicate(
    scenario: Scenario,
    *,
    seed: int = DEFAULT_SEED,
    tolerance_mm: float = DEFAULT_TOLERANCE_MM,
    settings: Mapping[str, Any] | None = None,
    geometry: TableGeometry | None = None,
    progress: Callable[[int, str], None] | None = None,
) -> Adjudication:
    """Resolve every template in file order with one seeded generator; ``progress(templates done, the template's
    id)`` is called before each."""
    geometry = geometry or table_geometry(scenario)
    merged = settings_for(scenario, settings)
    dice = Dice(seed)
    results: list[TemplateResult] = []
    for k, t in enumerate(scenario.templates):
        if progress is not None:
            progress(k, t.id)
        results.append(resolve_template(scenario, t, geometry, dice, tolerance_mm=tolerance_mm, settings=merged))
    return Adjudication(scenario, tuple(results), seed, tolerance_mm, merged)
