"""A ruleset's batch path: rows of dice drawn at once, resolved by its ``sample_batch``, checked against ``resolve``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tabletop.adjudicate import AdjudicationError
from tabletop.dice import Dice, DiceError, RollSpec
from tabletop.odds.tree import _Explorer
from tabletop.placement import PlacementError
from tabletop.resolution import BatchOutcomes, BatchSampler


#: Samples of a batch run also resolved one by one with ``resolve``: a cheap guard that the two agree,
#: and where the names of the free rolls come from.
BATCH_CHECKS = 32


#: Cells (rows × roll columns × models) a batch chunk may span.
BATCH_CELLS = 1 << 22
#: Distinct outcomes a batch run counts before it stops counting (a bound on memory; beyond it the count is a floor).
BATCH_OUTCOMES_MAX = 100_000


class _ArrayDice(Dice):
    """Every roll from per-name lists (the file's fixed values first); remembers which rolls were free."""

    def __init__(self, values: Mapping[str, Sequence[int]], file_fixed: Mapping[str, Any]) -> None:
        super().__init__(0, values, [])
        self.file_fixed = file_fixed
        self.free_names: dict[str, None] = {}

    def roll(self, name: str, spec: RollSpec = RollSpec(), note: str = "") -> int:
        k = self._used.get(name, 0)
        if k >= len(self.fixed.get(name, ())):  # type: ignore[arg-type]
            raise RuntimeError(f"roll {name!r} taken {k + 1} times, more than the ruleset's sample_batch provides")
        fixed = self.file_fixed.get(name)
        if fixed is None or (isinstance(fixed, (list, tuple)) and k >= len(fixed)):
            self.free_names.setdefault(name)
        return super().roll(name, spec, note)


def _fixed_columns(fixed: Mapping[str, Any], rolls: Mapping[str, tuple[RollSpec, int]]) -> dict[str, list[int]] | None:
    """The file's fixed values per roll as leading columns, or None when one cannot be shown (``resolve`` reports it)."""
    out: dict[str, list[int]] = {}
    for name, (spec, count) in rolls.items():
        if name not in fixed:
            continue
        value = fixed[name]
        values = [int(v) for v in value][:count] if isinstance(value, (list, tuple)) else [int(value)] * count
        if not all(spec.lowest <= v <= spec.highest for v in values):
            return None
        out[name] = values
    return out


def draw_batch_rolls(
    rolls: Mapping[str, tuple[RollSpec, int]], n: int, rng: np.random.Generator, fixed: Mapping[str, Sequence[int]] | None = None
) -> dict[str, NDArray[np.int64]]:
    """``n`` rows of dice for a :class:`~tabletop.resolution.BatchSampler`: for each roll in the
    sampler's order, an (n, count) array of totals (``spec.count`` dice of ``spec.sides`` each,
    drawn as one (n, count, spec.count) array from ``rng``); ``fixed`` values fill the leading columns."""
    out: dict[str, NDArray[np.int64]] = {}
    for name, (spec, count) in rolls.items():
        faces = rng.integers(1, spec.sides + 1, size=(n, count, spec.count), dtype=np.int64)
        values = faces.sum(axis=2) if spec.count > 1 else faces[:, :, 0]
        lead = (fixed or {}).get(name)
        if lead:
            values[:, : len(lead)] = lead
        out[name] = values
    return out


def _distinct_rows(rows: NDArray[np.float64]) -> NDArray[np.float64]:
    """The different rows of ``rows`` (a lexsort: far quicker than ``np.unique(axis=0)``)."""
    if len(rows) < 2:
        return rows
    ordered = rows[np.lexsort(rows.T[::-1])]
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    return ordered[first]


def _check_batch(ex: _Explorer, sampler: BatchSampler, values: Mapping[str, NDArray[np.int64]], out: BatchOutcomes, k: int) -> None:
    """Resolve the first ``k`` rows of dice one by one and insist on the batch's answers."""
    ids = set(ex.geometry.ids)
    for j in range(k):
        dice = _ArrayDice({name: v[j].tolist() for name, v in values.items()}, ex.fixed)
        try:
            resolution = ex.ruleset.resolve(ex._context(dice))
        except (DiceError, PlacementError) as exc:
            raise AdjudicationError(f"template {ex.template.id!r}: {exc}") from None
        for name in dice.free_names:
            ex.names.setdefault(name)
        want = ex._outcome(resolution)
        got_affected = frozenset(sampler.ids[c] for c in np.nonzero(out.affected[j])[0])
        got_damage = {sampler.ids[c]: float(out.damage[j, c]) for c in np.nonzero(out.damage[j])[0]}
        got_contested = frozenset(sampler.ids[c] for c in np.nonzero(out.contested[j])[0])
        landing = sampler.landings[int(out.landing[j])]
        if (
            not want.allowed
            or want.affected & ids != got_affected
            or want.damage != got_damage
            or want.contested != got_contested
            or (want.landing.focus, want.landing.heading) != (landing.focus, landing.heading)
        ):
            raise RuntimeError(
                f"ruleset {ex.ruleset.name!r}: sample_batch and resolve disagree on template {ex.template.id!r} "
                f"with the dice {({name: v[j].tolist() for name, v in values.items()})}"
            )
