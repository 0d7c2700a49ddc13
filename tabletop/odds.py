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
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray

from tabletop.jsonfmt import readable_json
from tabletop import rulesets
from tabletop.adjudicate import AdjudicationError, settings_for
from tabletop.coverage import CONTACT_EPS_MM, DEFAULT_TOLERANCE_MM, Coverage, TableGeometry, cover, default_blocks, table_geometry
from tabletop.dice import Dice, DiceError, RollRecord, RollSpec
from tabletop.model import Explosion, PlacedTemplate, Scenario, Template, Terrain
from tabletop.placement import PlacementError, place
from tabletop.resolution import BatchOutcomes, BatchSampler, Context, Resolution, Ruleset
from tabletop.shapes import template_sdf
from tabletop.units import to_units

#: Leaves (``resolve`` runs) an exact enumeration may take before sampling instead.
DEFAULT_EXACT_LIMIT = 20_000
#: Wilson 95% half-width <= 1 percentage point at p = 1/2 needs 1.96² / (4 × 0.01²) = 9604.
DEFAULT_SAMPLES = 9_604
#: Random descents used to estimate the size of a roll tree (Knuth's estimator).
PROBES = 48
#: Samples per chunk of the vectorised path: 4096 × 50 bases × 8 bytes ≈ 1.6 MB per array.
CHUNK = 4096
#: Samples pushed down the roll tree at a time; their outcomes are tallied and dropped.
SAMPLE_CHUNK = 16_384
#: Leaves (resolved outcomes) the roll tree may hold before it is dropped and regrown:
#: a tree where nearly every sample is a new leaf (a Robotech volley) would otherwise grow
#: with the sample count. Dropping it only costs re-resolving leaves; the odds stay unbiased.
TREE_LEAVES_MAX = 10_000
#: Most samples one template takes (``tabletop odds --samples`` says so before it starts).
MAX_SAMPLES = 1_000_000
Z95 = 1.959963984540054
_COVER_CACHE_MAX = 20_000


# --------------------------------------------------------------------------- results


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


# --------------------------------------------------------------------------- the vectorised path


def circle_hit_probability(
    centres: ArrayLike,
    radii: ArrayLike,
    focus_samples: ArrayLike,
    radius: float,
    weights: ArrayLike | None = None,
    chunk: int = CHUNK,
) -> NDArray[np.float64]:
    """Chance that each round base (centres (N, 2), radii (N,)) meets a circle of ``radius``
    centred on one of ``focus_samples`` (S, 2): the share of samples (or of their ``weights``)
    within ``radius + r`` of the base centre, contact included."""
    c = np.asarray(centres, dtype=float).reshape(-1, 2)
    r = np.asarray(radii, dtype=float).reshape(-1)
    f = np.asarray(focus_samples, dtype=float).reshape(-1, 2)
    n, s = len(c), len(f)
    if n == 0 or s == 0:
        return np.zeros(n)
    limit = ((r + radius + CONTACT_EPS_MM) ** 2)[:, None]
    cx, cy = c[:, 0, None], c[:, 1, None]
    fx, fy = np.ascontiguousarray(f[:, 0]), np.ascontiguousarray(f[:, 1])
    w = None if weights is None else np.asarray(weights, dtype=float).reshape(-1)
    # Bases along axis 0, samples contiguous along axis 1; the buffers are reused so each
    # chunk stays in cache and nothing is allocated per chunk but the comparison.
    chunk = max(1, min(chunk, s))
    dx = np.empty((n, chunk))
    dy = np.empty((n, chunk))
    hits = np.zeros(n, dtype=np.int64) if w is None else np.zeros(n)
    for start in range(0, s, chunk):
        stop = min(start + chunk, s)
        a, b = dx[:, : stop - start], dy[:, : stop - start]
        np.subtract(fx[None, start:stop], cx, out=a)
        np.subtract(fy[None, start:stop], cy, out=b)
        a *= a
        b *= b
        a += b
        inside = a <= limit
        if w is None:
            hits += np.count_nonzero(inside, axis=1)
        else:
            hits += inside @ w[start:stop]
    total = float(s) if w is None else float(w.sum())
    return hits / total if total > 0 else np.zeros(n)


def scatter_foci(
    aim: tuple[float, float],
    samples: int,
    distance_mm: tuple[float, float],
    *,
    seed: int = 1,
) -> NDArray[np.float64]:
    """``samples`` continuous scatters of ``aim`` (S, 2): a uniform direction, a distance uniform in ``distance_mm``."""
    rng = np.random.default_rng(seed)
    angle = rng.uniform(0.0, 2 * math.pi, samples)
    dist = rng.uniform(distance_mm[0], distance_mm[1], samples)
    return np.stack([aim[0] + dist * np.cos(angle), aim[1] + dist * np.sin(angle)], axis=-1)


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


def landing_heat(landings: Sequence[tuple[PlacedTemplate, float]], points: ArrayLike) -> NDArray[np.float64]:
    """Chance that each point (M, 2) ends under one of the weighted placements ``landings``."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    out = np.zeros(len(pts))
    if not landings:
        return out
    circles = [(p, w) for p, w in landings if p.shape.kind == "circle"]
    by_radius: dict[float, list[tuple[PlacedTemplate, float]]] = {}
    for p, w in circles:
        by_radius.setdefault(p.shape.diameter / 2, []).append((p, w))
    for radius, group in by_radius.items():
        foci = np.array([p.focus for p, _ in group])
        weights = np.array([w for _, w in group])
        out += circle_hit_probability(pts, np.zeros(len(pts)), foci, radius, weights) * weights.sum()
    for p, w in landings:
        if p.shape.kind != "circle":
            out += w * (template_sdf(p, pts) <= CONTACT_EPS_MM)
    return np.minimum(out, 1.0)


def wilson_interval(successes: float, n: int) -> tuple[float, float]:
    """The Wilson score 95% interval of a proportion."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


# --------------------------------------------------------------------------- dice as a tree


@functools.lru_cache(maxsize=64)
def roll_distribution(spec: RollSpec) -> tuple[tuple[int, Fraction], ...]:
    """Every total of ``spec`` (count dice of sides, summed) with its exact chance."""
    ways: dict[int, int] = {0: 1}
    for _ in range(spec.count):
        nxt: dict[int, int] = {}
        for total, k in ways.items():
            for face in range(1, spec.sides + 1):
                nxt[total + face] = nxt.get(total + face, 0) + k
        ways = nxt
    denominator = spec.sides**spec.count
    return tuple((t, Fraction(k, denominator)) for t, k in sorted(ways.items()))


@dataclass(frozen=True)
class _Outcome:
    """What one resolution gives the odds."""

    allowed: bool
    reason: str | None
    affected: frozenset[str]
    damage: Mapping[str, float]
    contested: frozenset[str]
    landing: PlacedTemplate


@dataclass
class _Node:
    """A point in the tree of free rolls: unexplored, a leaf, or waiting on the roll ``roll``."""

    roll: tuple[str, RollSpec] | None = None
    children: dict[int, _Node] = field(default_factory=dict)
    leaf: _Outcome | None = None

    @property
    def explored(self) -> bool:
        return self.roll is not None or self.leaf is not None

    def child(self, value: int) -> _Node:
        node = self.children.get(value)
        if node is None:
            node = self.children[value] = _Node()
        return node


class _ScriptDice(Dice):
    """Rolls fixed in the file as usual; free rolls from ``script``, then from ``choose``."""

    def __init__(self, fixed: Mapping[str, int | Sequence[int]], script: Sequence[int], choose: Callable[[RollSpec], int]) -> None:
        super().__init__(0, fixed, [])
        self._script = script
        self._choose = choose
        self.free: list[tuple[str, RollSpec, int]] = []

    def roll(self, name: str, spec: RollSpec = RollSpec(), note: str = "") -> int:
        total = self._fixed_total(name)
        if total is not None:
            if not spec.lowest <= total <= spec.highest:
                raise DiceError(f"roll {name!r} is fixed at {total}, but {spec.label()} shows {spec.lowest}–{spec.highest}")
            self.log.append(RollRecord(name, total, (total,), spec, True, note))
            return total
        k = len(self.free)
        value = self._script[k] if k < len(self._script) else self._choose(spec)
        self.free.append((name, spec, value))
        self.log.append(RollRecord(name, value, (value,), spec, False, note))
        return value


@dataclass
class _CachingContext(Context):
    """A context whose ``cover`` remembers placements (scatters land on the same points again and again)."""

    cover_cache: dict[Any, Coverage] = field(default_factory=dict)

    def cover(
        self,
        placed: PlacedTemplate,
        *,
        use_visibility: bool | None = None,
        blocks: Callable[[Terrain], bool] = default_blocks,
    ) -> Coverage:
        key = (placed, use_visibility, blocks)
        hit = self.cover_cache.get(key)
        if hit is None:
            if len(self.cover_cache) >= _COVER_CACHE_MAX:
                self.cover_cache.clear()
            hit = self.cover_cache[key] = super().cover(placed, use_visibility=use_visibility, blocks=blocks)
        return hit


def _damage(resolution: Resolution) -> dict[str, float]:
    """Damage per id as the ruleset reports it: ``final_damage`` (after reactions), else ``damage``."""
    for key in ("final_damage", "damage"):
        value = resolution.details.get(key)
        if isinstance(value, Mapping):
            return {
                str(k): float(v) for k, v in value.items()
                if isinstance(v, (int, float)) and not isinstance(v, bool)
            }
    return {}


class _Explorer:
    """Resolves one template with chosen free rolls and grows the tree of what they lead to."""

    def __init__(
        self,
        scenario: Scenario,
        template: Template,
        geometry: TableGeometry,
        settings: Mapping[str, Any],
        tolerance_mm: float,
        keep_fixed_rolls: bool = True,
    ) -> None:
        self.scenario = scenario
        self.fixed: Mapping[str, Any] = template.rolls if keep_fixed_rolls else {}
        self.template = template
        self.ruleset: Ruleset = rulesets.get(scenario.ruleset)
        self.geometry = geometry
        self.settings = dict(settings)
        self.tolerance_mm = tolerance_mm
        shape = template.shape
        if isinstance(template.placement, Explosion) and self.ruleset.explosion_shape is not None:
            shape = self.ruleset.explosion_shape(template, scenario)
        try:
            self.placed = place(template, scenario, shape)
        except PlacementError as exc:
            raise AdjudicationError(str(exc)) from None
        self.coverage = cover(self.placed, geometry, use_visibility=self.ruleset.uses_visibility, tolerance_mm=tolerance_mm)
        self.cache: dict[Any, Coverage] = {(self.placed, None, default_blocks): self.coverage}
        self.root = _Node()
        self.runs = 0
        self.names: dict[str, None] = {}

    def _context(self, dice: Dice) -> _CachingContext:
        return _CachingContext(
            scenario=self.scenario,
            template=self.template,
            placed=self.placed,
            coverage=self.coverage,
            geometry=self.geometry,
            dice=dice,
            tolerance_mm=self.tolerance_mm,
            settings=dict(self.settings),
            uses_visibility=self.ruleset.uses_visibility,
            cover_cache=self.cache,
        )

    def run(self, script: Sequence[int], choose: Callable[[RollSpec], int]) -> _Outcome:
        """Resolve with ``script`` for the first free rolls and ``choose`` after; record the path."""
        dice = _ScriptDice(self.fixed, script, choose)
        try:
            resolution = self.ruleset.resolve(self._context(dice))
        except (DiceError, PlacementError) as exc:
            raise AdjudicationError(f"template {self.template.id!r}: {exc}") from None
        self.runs += 1
        outcome = self._outcome(resolution)
        node = self.root
        for name, spec, value in dice.free:
            self.names.setdefault(name)
            if node.leaf is not None or (node.roll is not None and node.roll != (name, spec)):
                raise RuntimeError(f"ruleset {self.ruleset.name!r} took different rolls for the same dice: it must be deterministic")
            node.roll = (name, spec)
            node = node.child(value)
        if node.roll is not None:
            raise RuntimeError(f"ruleset {self.ruleset.name!r} took different rolls for the same dice: it must be deterministic")
        node.leaf = outcome
        return outcome

    def _outcome(self, resolution: Resolution) -> _Outcome:
        if not resolution.allowed:
            return _Outcome(False, resolution.reason, frozenset(), {}, frozenset(), resolution.placed)
        cov = resolution.coverage.models
        ids = set(self.geometry.ids)
        contested = frozenset(i for i in ids if cov[i].contested)
        damage = {k: v for k, v in _damage(resolution).items() if k in ids and v}
        return _Outcome(True, None, frozenset(resolution.affected), damage, contested, resolution.placed)


def _enumerate(ex: _Explorer, limit: int) -> list[tuple[Fraction, _Outcome]] | None:
    """Every leaf with its exact weight, or None when that would take more than ``limit`` runs."""

    def lowest(spec: RollSpec) -> int:
        return spec.lowest

    if not ex.root.explored:
        ex.run([], lowest)
    leaves: list[tuple[Fraction, _Outcome]] = []
    stack: list[tuple[_Node, list[int], Fraction]] = [(ex.root, [], Fraction(1))]
    while stack:
        node, prefix, weight = stack.pop()
        if node.leaf is not None:
            leaves.append((weight, node.leaf))
            continue
        assert node.roll is not None
        for value, p in reversed(roll_distribution(node.roll[1])):
            child = node.child(value)
            path = [*prefix, value]
            if not child.explored:
                if ex.runs >= limit:
                    return None
                ex.run(path, lowest)
            stack.append((child, path, weight * p))
    return leaves


def _estimate_leaves(ex: _Explorer, rng: np.random.Generator, probes: int) -> float:
    """Knuth's estimate of the number of leaves: the mean product of branching along random descents."""

    def uniform(spec: RollSpec) -> int:
        values = roll_distribution(spec)
        return values[int(rng.integers(len(values)))][0]

    total = 0.0
    for _ in range(probes):
        node, prefix, product = ex.root, [], 1.0
        while True:
            if not node.explored:
                ex.run(prefix, uniform)
            if node.leaf is not None:
                break
            assert node.roll is not None
            values = roll_distribution(node.roll[1])
            value = values[int(rng.integers(len(values)))][0]
            product *= len(values)
            prefix = [*prefix, value]
            node = node.child(value)
        total += product
        if ex.root.leaf is not None:
            return 1.0
    return total / probes


def _sample(ex: _Explorer, samples: int, rng: np.random.Generator) -> list[tuple[int, _Outcome]]:
    """``samples`` draws pushed down the tree in bulk: (count, outcome) per distinct leaf reached."""

    def draw(spec: RollSpec) -> int:
        return int(rng.integers(1, spec.sides + 1, size=spec.count).sum())

    counts: dict[int, tuple[int, _Outcome]] = {}

    def add(k: int, outcome: _Outcome) -> None:
        c, _ = counts.get(id(outcome), (0, outcome))
        counts[id(outcome)] = (c + k, outcome)

    stack: list[tuple[_Node, list[int], int]] = [(ex.root, [], samples)]
    while stack:
        node, prefix, k = stack.pop()
        if not node.explored:
            # One draw finishes its own path at random; the rest are split below.
            add(1, ex.run(prefix, draw))
            k -= 1
            if k == 0:
                continue
        if node.leaf is not None:
            add(k, node.leaf)
            continue
        assert node.roll is not None
        dist = roll_distribution(node.roll[1])
        split = rng.multinomial(k, [float(p) for _, p in dist])
        for (value, _), c in zip(reversed(dist), reversed(split.tolist())):
            if c:
                stack.append((node.child(value), [*prefix, value], int(c)))
    return list(counts.values())


# --------------------------------------------------------------------------- a ruleset's batch path

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


# --------------------------------------------------------------------------- odds


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
        if _estimate_leaves(ex, rng, PROBES) <= exact_limit:
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
) -> OddsResult:
    """Odds of every template in file order, with the rolls the file does not fix left free.

    Exact where the outcomes can be enumerated (at most ``exact_limit`` of them),
    otherwise ``samples`` (default 9604: ±1 percentage point at 95%) draws seeded by ``seed``;
    ``exact_limit=0`` samples everything; ``keep_fixed_rolls=False`` ignores the file's ``rolls``;
    ``batch=False`` never uses a ruleset's ``sample_batch`` (the per-sample path, for comparison).
    """
    geometry = table_geometry(scenario)
    out = tuple(
        template_odds(
            scenario, t, geometry=geometry, seed=seed, samples=samples, tolerance_mm=tolerance_mm,
            settings=settings, exact_limit=exact_limit, keep_fixed_rolls=keep_fixed_rolls, stream=k, batch=batch,
        )
        for k, t in enumerate(scenario.templates)
    )
    return OddsResult(scenario, out, seed, tolerance_mm, dice_free=not keep_fixed_rolls)


# --------------------------------------------------------------------------- reports


def _r(x: float) -> float:
    return round(float(x), 6) + 0.0


def as_dict(result: OddsResult) -> dict[str, Any]:
    """The ``odds --json`` object of the spec (plus a few documented fields)."""
    units = result.scenario.units
    templates = []
    for t in result.templates:
        models: dict[str, Any] = {}
        for i, m in t.models.items():
            models[i] = {
                "p_affected": _r(m.p_affected),
                "expected_damage": _r(m.expected_damage),
                "exact": m.exact,
                "fraction": None if m.fraction is None else str(m.fraction),
                "ci95": None if m.ci95 is None else [_r(m.ci95[0]), _r(m.ci95[1])],
                "expected_damage_fraction": None if m.damage_fraction is None else str(m.damage_fraction),
                "expected_damage_ci95": None if m.damage_ci95 is None else [_r(m.damage_ci95[0]), _r(m.damage_ci95[1])],
                "p_contested": _r(m.p_contested),
            }
        templates.append(
            {
                "id": t.id,
                "method": t.method,
                "outcomes": t.outcomes,
                "samples": t.samples,
                "free_rolls": list(t.free_rolls),
                "p_allowed": _r(t.p_allowed),
                "reasons": list(t.reasons),
                "models": models,
                "landing_points": [[_r(to_units(x, units)), _r(to_units(y, units)), _r(p)] for x, y, p in t.landing_points],
            }
        )
    return {"format": 1, "title": result.scenario.title, "ruleset": result.scenario.ruleset, "units": units,
            "seed": result.seed, "dice_free": result.dice_free, "templates": templates}


def dumps(result: OddsResult) -> str:
    """The JSON report of ``tabletop odds --json``."""
    return readable_json(as_dict(result))


def report_text(result: OddsResult) -> str:
    """A readable table: per template, each model's chance to be affected and expected damage."""
    s = result.scenario
    lines = [f"{s.title or 'Scenario'} — odds under {s.ruleset}"]
    if result.dice_free:
        lines.append("dice free: the rolls the file fixes are set aside too (--keep-fixed-rolls keeps them)")
    else:
        lines.append("the rolls the file fixes are kept; only the others are free")
    lines.append("")
    names = {m.id: m.label + ("" if m.label == m.id else f" ({m.id})") for m in s.models}
    names.update({t.id: t.label + ("" if t.label == t.id else f" ({t.id})") for t in s.terrain})
    for t in result.templates:
        if t.exact:
            how = f"exact, {t.outcomes} outcome{'s' if t.outcomes != 1 else ''}"
        else:
            how = f"sampled, {t.samples} draws ({t.outcomes} distinct outcomes), seed {result.seed}, 95% interval"
        free = ", ".join(t.free_rolls) if t.free_rolls else "none"
        lines.append(f"template {t.id} — {how}; free rolls: {free}")
        if t.p_allowed < 1:
            why = "; ".join(t.reasons)
            lines.append(f"  allowed with chance {t.p_allowed:.1%}" + (f" ({why})" if why else ""))
        width = max([5, *(len(names.get(i, i)) for i in t.models)])
        lines.append(f"  {'model':<{width}}  {'affected':>8}  {'chance':<17}  {'E[damage]':>9}")
        for i, m in sorted(t.models.items(), key=lambda kv: (-kv[1].p_affected, kv[0])):
            if m.exact:
                chance = str(m.fraction)
                dmg = f"{m.expected_damage:9.3f}"
            else:
                assert m.ci95 is not None
                chance = f"[{m.ci95[0]:.1%}, {m.ci95[1]:.1%}]"
                dmg = f"{m.expected_damage:9.3f}"
            flag = f"  (within the tolerance of an edge: {m.p_contested:.1%})" if m.p_contested >= 0.0005 else ""
            lines.append(f"  {names.get(i, i):<{width}}  {m.p_affected:>8.1%}  {chance:<17}  {dmg}{flag}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
