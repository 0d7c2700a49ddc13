"""What the odds are: per model, per template, per table."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from tabletop.coverage import DEFAULT_TOLERANCE_MM
from tabletop.model import PlacedTemplate, Scenario
from tabletop.odds.scatter import landing_heat


@dataclass(frozen=True)
class ModelOdds:
    """One model's odds against one template."""

    p_affected: float
    expected_damage: float
    exact: bool
    fraction: Fraction | None = None
    damage_fraction: Fraction | None = None
    ci95: tuple[float, float] | None = None
    damage_ci95: tuple[float, float] | None = None
    #: Chance that the model ends within the tolerance of the template's edge.
    p_contested: float = 0.0


@dataclass(frozen=True)
class OddsTemplate:
    """The odds of every model against one template."""

    id: str
    exact: bool
    models: Mapping[str, ModelOdds]
    #: Distinct dice outcomes resolved (leaves of the roll tree).
    outcomes: int
    #: Samples drawn (None when exact).
    samples: int | None
    #: Chance the ruleset allows the attack (a forbidden attack affects no one).
    p_allowed: float
    reasons: tuple[str, ...] = ()
    #: Names of the free rolls the resolution takes, in first-taken order.
    free_rolls: tuple[str, ...] = ()
    #: Where the (main) template ends, with the chance of each placement, when the attack is allowed.
    landings: tuple[tuple[PlacedTemplate, float], ...] = ()

    @property
    def method(self) -> str:
        return "exact" if self.exact else "monte_carlo"

    @property
    def landing_points(self) -> list[tuple[float, float, float]]:
        """(x_mm, y_mm, probability) of every place the template's focus may end."""
        return [(p.focus[0], p.focus[1], prob) for p, prob in self.landings]

    def heat(self, points: ArrayLike) -> NDArray[np.float64]:
        """Chance that each table point (M, 2) in mm ends under the template."""
        return landing_heat(self.landings, points)


@dataclass(frozen=True)
class OddsResult:
    """Odds for every template of a scenario, in file order."""

    scenario: Scenario
    templates: tuple[OddsTemplate, ...]
    seed: int = 1
    tolerance_mm: float = DEFAULT_TOLERANCE_MM
    #: True when the file's fixed rolls were set aside too (every die free).
    dice_free: bool = False

    def template(self, template_id: str) -> OddsTemplate:
        return next(t for t in self.templates if t.id == template_id)
