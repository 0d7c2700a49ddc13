"""Odds before anyone rolls: each model's chance to be affected and its expected damage.

Every template is resolved by its ruleset's own ``resolve`` with the dice the
file leaves free replaced by chosen values, so the odds follow the rules exactly
as ``tabletop check`` applies them. The free rolls a resolution takes form a
tree (the roll taken next may depend on the values so far: a Robotech scatter
is only rolled after a miss); it is explored lazily, one ``resolve`` run per
leaf, with coverage of repeated placements cached.

- **Exact**: when the tree has at most ``exact_limit`` leaves, every leaf is
  resolved and weighted by the product of its rolls' probabilities (a 2D6 total
  by its distribution): ``fraction`` is the exact chance.
- **Sampled**: otherwise the samples are pushed down the tree in bulk (a
  multinomial split of the count at every roll), so a branch reached by many
  samples is resolved once; ``ci95`` is the Wilson interval.

When the ruleset offers ``sample_batch`` (a :class:`~tabletop.resolution.BatchSampler`:
its ``resolve`` vectorised over rows of dice), samples skip the tree: chunk by chunk
(:data:`SAMPLE_CHUNK` rows, fewer when a row is wide), for each roll the sampler names, in its order, an
(rows, most times taken) array of totals is drawn from the generator seeded
``[seed, stream, 1]`` (:func:`draw_batch_rolls`; the file's fixed rolls fill the leading
columns), resolved at once and tallied, so memory stays flat in the sample count and a
seed gives the same answer every time. The first :data:`BATCH_CHECKS` rows are also
resolved one by one with ``resolve``; any difference is an error.

:func:`circle_hit_probability` is the vectorised path for a circular template
against round bases (continuous scatter, heat maps), processed in chunks.

Modules: :mod:`.limits`, :mod:`.results`, :mod:`.scatter` (the vectorised path),
:mod:`.tree` (the roll tree), :mod:`.batch` (a ruleset's batch path), :mod:`.report`;
the orchestration is here. Every name is importable from ``tabletop.odds`` as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import shapely
from numpy.typing import ArrayLike

from tabletop.adjudicate import AdjudicationError, settings_for
from tabletop.coverage import CONTACT_EPS_MM, DEFAULT_TOLERANCE_MM, TableGeometry, table_geometry
from tabletop.dice import DiceError
from tabletop.model import PlacedTemplate, Scenario, Template
from tabletop.odds.batch import (
    BATCH_CELLS,
    BATCH_CHECKS,
    BATCH_OUTCOMES_MAX,
    _ArrayDice,
    _check_batch,
    _distinct_rows,
    _fixed_columns,
    draw_batch_rolls,
)
from tabletop.odds.limits import CHUNK, DEFAULT_EXACT_LIMIT, DEFAULT_SAMPLES, MAX_SAMPLES, PROBES, SAMPLE_CHUNK, TREE_LEAVES_MAX, Z95
from tabletop.odds.results import ModelOdds, OddsResult, OddsTemplate
from tabletop.odds.scatter import circle_hit_probability, wilson_interval
from tabletop.odds.tree import _Explorer, _Node, _Outcome, _enumerate, _estimate_leaves, _sample
from tabletop.placement import PlacementError
from tabletop.resolution import BatchSampler


def scatter_odds(geometry: TableGeometry, radius: float, foci: ArrayLike, chunk: int = CHUNK) -> dict[str, ModelOdds]:
    """Each model's chance to meet a circle of ``radius`` centred on a sampled focus (S, 2),
    e.g. from :func:`scatter_foci`: round bases through :func:`circle_hit_probability`,
    other bases with shapely 2 array distances (exact for rect bases, a fine polygon for ovals)."""
    f = np.asarray(foci, dtype=float).reshape(-1, 2)
    n = len(f)
    p = np.zeros(len(geometry.ids))
    rm = geometry.round_mask
    if rm.any():
        p[rm] = circle_hit_probability(geometry.centres[rm], geometry.radii[rm], f, radius, chunk=chunk)
    other = np.nonzero(~rm)[0]
    if len(other) and n:
        polys = np.array([geometry.base_polygon(int(i), 1024, True) for i in other], dtype=object)
        shapely.prepare(polys)
        hits = np.zeros(len(other))
        for start in range(0, n, chunk):
            pts = shapely.points(f[start : start + chunk])
            hits += shapely.dwithin(polys[:, None], pts[None, :], radius + CONTACT_EPS_MM).sum(axis=1)
        p[other] = hits / n
    return {
        i: ModelOdds(float(p[k]), 0.0, False, ci95=wilson_interval(float(p[k]) * n, n))
        for k, i in enumerate(geometry.ids)
    }


def _batch_tally(ex: _Explorer, sampler: BatchSampler, fixed: dict[str, list[int]], n: int, rng: np.random.Generator) -> _Tally:
    """``n`` samples through the ruleset's batch path, chunk by chunk; the first few are checked against ``resolve``."""
    ids = ex.geometry.ids
    columns = len(sampler.ids)
    hits = np.zeros(columns, dtype=np.int64)
    contested = np.zeros(columns, dtype=np.int64)
    total = np.zeros(columns)
    squares = np.zeros(columns)
    landed = np.zeros(len(sampler.landings), dtype=np.int64)
    outcomes: set[bytes] = set()
    left = n
    checked = False
    # Fewer rows per chunk when a row is wide (a volley of many missiles), so a chunk's arrays stay small.
    width = sum(count for _, count in sampler.rolls.values()) * max(1, columns)
    rows_per_chunk = max(1, min(SAMPLE_CHUNK, BATCH_CELLS // max(1, width)))
    while left:
        k = min(left, rows_per_chunk)
        values = draw_batch_rolls(sampler.rolls, k, rng, fixed)
        out = sampler.resolve(values)
        if not checked:
            _check_batch(ex, sampler, values, out, min(k, BATCH_CHECKS))
            checked = True
        hits += np.count_nonzero(out.affected, axis=0)
        contested += np.count_nonzero(out.contested, axis=0)
        total += out.damage.sum(axis=0)
        squares += np.square(out.damage).sum(axis=0)
        landed += np.bincount(out.landing, minlength=len(landed))
        if len(outcomes) < BATCH_OUTCOMES_MAX:
            rows = np.column_stack([out.landing, out.affected, out.contested, out.damage]).astype(float)
            outcomes.update(row.tobytes() for row in _distinct_rows(rows))
        left -= k
    tally = _Tally(ids)
    tally.outcomes = len(outcomes)
    tally.allowed = n
    for c, i in enumerate(sampler.ids):
        tally.hits[i] = int(hits[c])
        tally.contested[i] = int(contested[c])
        tally.total[i] = float(total[c])
        tally.squares[i] = float(squares[c])
    for p, count in zip(sampler.landings, landed.tolist()):
        if count:
            key = (round(p.focus[0], 6), round(p.focus[1], 6), round(p.heading, 6))
            tally.landings.setdefault(key, [p, 0])[1] += count
    return tally


def _landings(weighted: Sequence[tuple[float, _Outcome]]) -> tuple[tuple[PlacedTemplate, float], ...]:
    total: dict[tuple[float, float, float], list[Any]] = {}
    for w, o in weighted:
        if not o.allowed or w <= 0:
            continue
        p = o.landing
        key = (round(p.focus[0], 6), round(p.focus[1], 6), round(p.heading, 6))
        entry = total.setdefault(key, [p, 0.0])
        entry[1] += w
    return tuple((p, w) for p, w in sorted(total.values(), key=lambda e: (-e[1], e[0].focus)))


def _exact_odds(template_id: str, ids: Sequence[str], leaves: list[tuple[Fraction, _Outcome]], names: tuple[str, ...]) -> OddsTemplate:
    zero = Fraction(0)
    p: dict[str, Fraction] = dict.fromkeys(ids, zero)
    d: dict[str, Fraction] = dict.fromkeys(ids, zero)
    c: dict[str, Fraction] = dict.fromkeys(ids, zero)
    allowed = zero
    for w, o in leaves:
        if o.allowed:
            allowed += w
        for i in o.affected:
            if i in p:
                p[i] += w
        for i, v in o.damage.items():
            d[i] += w * Fraction(v)
        for i in o.contested:
            c[i] += w
    models = {i: ModelOdds(float(p[i]), float(d[i]), True, p[i], d[i], None, None, float(c[i])) for i in ids}
    reasons = tuple(dict.fromkeys(o.reason for _, o in leaves if o.reason))
    landings = _landings([(float(w), o) for w, o in leaves])
    return OddsTemplate(template_id, True, models, len(leaves), None, float(allowed), reasons, names, landings)


class _Tally:
    """Running sums of sampled outcomes: memory grows with the distinct landings, not the samples."""

    def __init__(self, ids: Sequence[str]) -> None:
        self.hits: dict[str, int] = dict.fromkeys(ids, 0)
        self.contested: dict[str, int] = dict.fromkeys(ids, 0)
        self.total: dict[str, float] = dict.fromkeys(ids, 0.0)
        self.squares: dict[str, float] = dict.fromkeys(ids, 0.0)
        self.allowed = 0
        self.reasons: dict[str, None] = {}
        self.landings: dict[tuple[float, float, float], list[Any]] = {}
        self.outcomes = 0

    def add(self, drawn: Sequence[tuple[int, _Outcome]]) -> None:
        self.outcomes += len(drawn)
        for k, o in drawn:
            if o.reason:
                self.reasons.setdefault(o.reason)
            if o.allowed:
                self.allowed += k
                p = o.landing
                key = (round(p.focus[0], 6), round(p.focus[1], 6), round(p.heading, 6))
                self.landings.setdefault(key, [p, 0])[1] += k
            for i in o.affected:
                if i in self.hits:
                    self.hits[i] += k
            for i, v in o.damage.items():
                self.total[i] += k * v
                self.squares[i] += k * v * v
            for i in o.contested:
                self.contested[i] += k


def _sampled_odds(template_id: str, ids: Sequence[str], tally: _Tally, n: int, names: tuple[str, ...]) -> OddsTemplate:
    hits, contested, total, squares = tally.hits, tally.contested, tally.total, tally.squares
    models: dict[str, ModelOdds] = {}
    for i in ids:
        mean = total[i] / n
        var = max(0.0, (squares[i] - n * mean * mean) / (n - 1)) if n > 1 else 0.0
        half = Z95 * math.sqrt(var / n)
        models[i] = ModelOdds(
            hits[i] / n, mean, False, None, None, wilson_interval(hits[i], n),
            (max(0.0, mean - half), mean + half), contested[i] / n,
        )
    landings = tuple((p, k / n) for p, k in sorted(tally.landings.values(), key=lambda e: (-e[1], e[0].focus)))
    return OddsTemplate(template_id, False, models, tally.outcomes, n, tally.allowed / n, tuple(tally.reasons), names, landings)


def template_odds(
    scenario: Scenario,
    template: Template,
    *,
    geometry: TableGeometry | None = None,
    seed: int = 1,
    samples: int | None = None,
    tolerance_mm: float = DEFAULT_TOLERANCE_MM,
    settings: Mapping[str, Any] | None = None,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    keep_fixed_rolls: bool = True,
    stream: int = 0,
    batch: bool = True,
) -> OddsTemplate:
    """Odds of one template: exact when its roll tree has at most ``exact_limit`` leaves, else
    ``samples`` draws (default :data:`DEFAULT_SAMPLES`); ``exact_limit = 0`` always samples.
    ``keep_fixed_rolls=False`` frees the rolls the file fixes too; ``stream`` separates the
    random streams of the templates of one scenario. Samples go through the ruleset's
    ``sample_batch`` when it offers one (``batch=False``: one ``resolve`` per distinct leaf)."""
    geometry = geometry or table_geometry(scenario)
    ex = _Explorer(scenario, template, geometry, settings_for(scenario, settings), tolerance_mm, keep_fixed_rolls)
    rng = np.random.default_rng([seed, stream])
    leaves = None
    if exact_limit > 0:
        if _estimate_leaves(ex, rng, PROBES, above=exact_limit) <= exact_limit:
            leaves = _enumerate(ex, exact_limit)
    ids = geometry.ids
    if leaves is not None:
        return _exact_odds(template.id, ids, leaves, tuple(ex.names))
    n = max(1, samples if samples is not None else DEFAULT_SAMPLES)
    if n > MAX_SAMPLES:
        raise ValueError(f"samples must be at most {MAX_SAMPLES:,}, got {n:,}")
    sample_rng = np.random.default_rng([seed, stream, 1])
    sampler = None
    if batch and ex.ruleset.sample_batch is not None:
        try:
            sampler = ex.ruleset.sample_batch(ex._context(_ArrayDice({}, {})))
        except (DiceError, PlacementError) as exc:
            raise AdjudicationError(f"template {template.id!r}: {exc}") from None
    fixed = None if sampler is None else _fixed_columns(ex.fixed, sampler.rolls)
    if sampler is not None and fixed is not None:
        tally = _batch_tally(ex, sampler, fixed, n, sample_rng)
        return _sampled_odds(template.id, ids, tally, n, tuple(ex.names))
    tally = _Tally(ids)
    left, runs_at_reset = n, ex.runs
    while left:
        k = min(left, SAMPLE_CHUNK)
        tally.add(_sample(ex, k, sample_rng))
        left -= k
        if ex.runs - runs_at_reset > TREE_LEAVES_MAX:
            ex.root, runs_at_reset = _Node(), ex.runs
    return _sampled_odds(template.id, ids, tally, n, tuple(ex.names))


def compute_odds(
    scenario: Scenario,
    *,
    seed: int = 1,
    samples: int | None = None,
    tolerance_mm: float = DEFAULT_TOLERANCE_MM,
    settings: Mapping[str, Any] | None = None,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    keep_fixed_rolls: bool = True,
    batch: bool = True,
    progress: Callable[[int, str], None] | None = None,
) -> OddsResult:
    """Odds of every template in file order, with the rolls the file does not fix left free.

    Exact where the outcomes can be enumerated (at most ``exact_limit`` of them),
    otherwise ``samples`` (default 9604: ±1 percentage point at 95%) draws seeded by ``seed``;
    ``exact_limit=0`` samples everything; ``keep_fixed_rolls=False`` ignores the file's ``rolls``;
    ``batch=False`` never uses a ruleset's ``sample_batch`` (the per-sample path, for comparison).
    ``progress(templates done, the template's id)`` is called before each template.
    """
    geometry = table_geometry(scenario)
    out = []
    for k, t in enumerate(scenario.templates):
        if progress is not None:
            progress(k, t.id)
        out.append(template_odds(
            scenario, t, geometry=geometry, seed=seed, samples=samples, tolerance_mm=tolerance_mm,
            settings=settings, exact_limit=exact_limit, keep_fixed_rolls=keep_fixed_rolls, stream=k, batch=batch,
        ))
    return OddsResult(scenario, tuple(out), seed, tolerance_mm, dice_free=not keep_fixed_rolls)

# Every name the single module had stays importable from here.
import functools  # noqa: F401
from collections.abc import Callable  # noqa: F401
from dataclasses import dataclass, field  # noqa: F401

from numpy.typing import NDArray  # noqa: F401

from tabletop import rulesets  # noqa: F401
from tabletop.coverage import Coverage, cover, default_blocks  # noqa: F401
from tabletop.dice import Dice, RollRecord, RollSpec  # noqa: F401
from tabletop.jsonfmt import readable_json  # noqa: F401
from tabletop.model import Explosion, Terrain  # noqa: F401
from tabletop.odds.limits import _COVER_CACHE_MAX  # noqa: F401
from tabletop.odds.report import _r, as_dict, dumps, report_text  # noqa: F401
from tabletop.odds.scatter import landing_heat, scatter_foci  # noqa: F401
from tabletop.odds.tree import _CachingContext, _ScriptDice, _damage, roll_distribution  # noqa: F401
from tabletop.placement import place  # noqa: F401
from tabletop.resolution import BatchOutcomes, Context, Resolution, Ruleset  # noqa: F401
from tabletop.shapes import template_sdf  # noqa: F401
from tabletop.units import to_units  # noqa: F401
