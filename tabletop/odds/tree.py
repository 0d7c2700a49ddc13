"""The free rolls of a resolution as a tree, explored lazily: exact enumeration, size estimate, sampling."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from tabletop import rulesets
from tabletop.adjudicate import AdjudicationError
from tabletop.coverage import Coverage, TableGeometry, cover, default_blocks
from tabletop.dice import Dice, DiceError, RollRecord, RollSpec
from tabletop.model import Explosion, PlacedTemplate, Scenario, Template, Terrain
from tabletop.odds.limits import _COVER_CACHE_MAX
from tabletop.placement import PlacementError, place
from tabletop.resolution import Context, Resolution, Ruleset


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
        self.last_free: list[int] = []
        """The free rolls of the last ``run``, in the order taken."""
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
        self.last_free = [value for _, _, value in dice.free]
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


def _estimate_leaves(ex: _Explorer, rng: np.random.Generator, probes: int, above: float = math.inf) -> float:
    """Knuth's estimate of the number of leaves: the mean product of branching along random descents.

    A descent that reaches an unexplored node resolves once from there with uniform choices and then follows
    the choices that run made (they are as uniform as any): one ``resolve`` per probe at most, however deep the
    tree (a volley of 200 missiles is 200 rolls deep; drawing afresh at each of them ran ``resolve`` once per
    level, a cost growing with the square of the volley). Once the estimate must end above ``above`` (every
    product is at least 1, so a sum past ``above`` × ``probes`` stays past it) it is returned at once.
    """

    def uniform(spec: RollSpec) -> int:
        values = roll_distribution(spec)
        return values[int(rng.integers(len(values)))][0]

    total = 0.0
    for _ in range(probes):
        node, prefix, product = ex.root, [], 1.0
        chosen: list[int] = []
        while True:
            if not node.explored:
                ex.run(prefix, uniform)
                chosen = ex.last_free[len(prefix):]
            if node.leaf is not None:
                break
            assert node.roll is not None
            values = roll_distribution(node.roll[1])
            value = chosen.pop(0) if chosen else values[int(rng.integers(len(values)))][0]
            product *= len(values)
            if total + product > above * probes:
                return (total + product) / probes
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
