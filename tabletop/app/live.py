"""Live adjudication while the user drags: fast, cached, and exact. Pure: no pygame.

* ``table_geometry`` is rebuilt only when the models or terrain change (they are
  immutable tuples, so identity says whether they changed); moving a template
  keeps it.
* Coverage is cached per placed template (placements are hashable values), so
  dragging one template recomputes that one only; a moved model recomputes all.
* The result is the same as ``tabletop.adjudicate.adjudicate`` (a test checks it).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tabletop.adjudicate import Adjudication, TemplateResult, resolve_template, settings_for
from tabletop.coverage import DEFAULT_TOLERANCE_MM, Coverage, TableGeometry, cover, table_geometry
from tabletop.dice import Dice, DiceError
from tabletop.model import PlacedTemplate, Scenario
from tabletop.placement import PlacementError
from tabletop.resolution import Resolution, Step

_CACHE_SIZE = 64


@dataclass
class LiveStats:
    """Timings of the last recomputation, for the status bar and benchmarks."""

    last_ms: float = 0.0
    geometry_rebuilds: int = 0
    coverages_computed: int = 0


class LiveAdjudicator:
    """Adjudicates a scenario again after each edit, reusing what did not change."""

    def __init__(self, seed: int = 1, tolerance_mm: float = DEFAULT_TOLERANCE_MM) -> None:
        self.seed = seed
        self.tolerance_mm = tolerance_mm
        self.stats = LiveStats()
        self._models: object = None
        self._terrain: object = None
        self._geometry: TableGeometry | None = None
        self._coverage: OrderedDict[tuple[PlacedTemplate, bool], Coverage] = OrderedDict()
        self._last: tuple[Scenario, int] | None = None
        self._last_result: Adjudication | None = None
        self.errors: dict[str, str] = {}

    def geometry(self, scenario: Scenario) -> TableGeometry:
        """The table geometry, rebuilt only when models or terrain changed."""
        if self._geometry is None or scenario.models is not self._models or scenario.terrain is not self._terrain:
            if self._geometry is None or scenario.models != self._models or scenario.terrain != self._terrain:
                self._geometry = table_geometry(scenario, self._geometry)
                self._coverage.clear()
                self.stats.geometry_rebuilds += 1
            self._models, self._terrain = scenario.models, scenario.terrain
        return self._geometry

    def cover(self, placed: PlacedTemplate, geometry: TableGeometry, use_visibility: bool) -> Coverage:
        """Coverage of ``placed`` on the current geometry (cached)."""
        key = (placed, use_visibility)
        hit = self._coverage.get(key)
        if hit is not None:
            self._coverage.move_to_end(key)
            return hit
        result = cover(placed, geometry, use_visibility=use_visibility, tolerance_mm=self.tolerance_mm)
        self._coverage[key] = result
        if len(self._coverage) > _CACHE_SIZE:
            self._coverage.popitem(last=False)
        self.stats.coverages_computed += 1
        return result

    def adjudicate(
        self, scenario: Scenario, settings: Mapping[str, Any] | None = None, progress: Callable[[int, int], None] | None = None
    ) -> Adjudication:
        """Every template resolved in file order with one seeded generator, like ``adjudicate``.

        A template that cannot be placed or resolved is left out and its message
        kept in ``errors`` (the app shows it instead of failing). ``progress(templates done, of how
        many)`` is called before each template; what it raises stops the work (nothing is kept).
        """
        key = (scenario, self.seed)
        if self._last is not None and self._last[0] is scenario and self._last[1] == self.seed and self._last_result:
            return self._last_result
        start = time.perf_counter()
        geometry = self.geometry(scenario)
        merged = settings_for(scenario, settings)
        dice = Dice(self.seed)
        results: list[TemplateResult] = []
        errors: dict[str, str] = {}
        for done, template in enumerate(scenario.templates):
            if progress is not None:
                progress(done, len(scenario.templates))
            try:
                results.append(
                    resolve_template(
                        scenario, template, geometry, dice,
                        tolerance_mm=self.tolerance_mm, settings=merged,
                        coverage_of=lambda placed, vis: self.cover(placed, geometry, vis),
                    )
                )
            except (PlacementError, DiceError, ValueError) as exc:
                errors[template.id] = str(exc)
        self.errors = errors
        adjudication = Adjudication(scenario, tuple(results), self.seed, self.tolerance_mm, merged)
        self._last = key
        self._last_result = adjudication
        self.stats.last_ms = (time.perf_counter() - start) * 1000
        return adjudication


def placed_templates(adjudication: Adjudication) -> dict[str, PlacedTemplate]:
    """Each template's placement as resolved (after any scatter), by id."""
    return {r.template.id: r.resolution.placed for r in adjudication.results}


def animation_steps(resolution: Resolution) -> tuple[Step, ...]:
    """The steps of a resolution that move or show a template, in order."""
    return tuple(s for s in resolution.steps if s.placed is not None)
