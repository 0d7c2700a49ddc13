"""Seeded dice: any roll can be fixed by name, and every roll is logged."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


class DiceError(ValueError):
    """A fixed roll that the dice cannot show (a 7 on a D6, ...)."""


@dataclass(frozen=True)
class RollSpec:
    """What a named roll is: ``count`` dice of ``sides`` summed, and what it is for."""

    count: int = 1
    sides: int = 6
    meaning: str = ""

    @property
    def lowest(self) -> int:
        return self.count

    @property
    def highest(self) -> int:
        return self.count * self.sides

    def label(self) -> str:
        return f"{self.count if self.count > 1 else ''}D{self.sides}"


@dataclass(frozen=True)
class RollRecord:
    """One roll as it happened."""

    name: str
    total: int
    faces: tuple[int, ...]
    spec: RollSpec
    fixed: bool
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "dice": self.spec.label(),
            "total": self.total,
            "faces": list(self.faces),
            "fixed": self.fixed,
            "note": self.note,
        }

    def describe(self) -> str:
        how = "fixed" if self.fixed else "rolled"
        faces = "+".join(map(str, self.faces)) if len(self.faces) > 1 else ""
        extra = f" ({faces})" if faces else ""
        note = f" — {self.note}" if self.note else ""
        return f"{self.name}: {self.spec.label()} {how} {self.total}{extra}{note}"


@dataclass
class Dice:
    """The one generator for a resolution.

    ``fixed`` maps a roll name to a total, or to a list of totals used in order
    by successive rolls of that name (the rest are drawn from the generator).
    A single number fixes every roll of that name.
    """

    seed: int = 1
    fixed: Mapping[str, int | Sequence[int]] = field(default_factory=dict)
    log: list[RollRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._used: dict[str, int] = {}

    def _fixed_total(self, name: str) -> int | None:
        if name not in self.fixed:
            return None
        value = self.fixed[name]
        if isinstance(value, (list, tuple)):
            k = self._used.get(name, 0)
            if k >= len(value):
                return None
            self._used[name] = k + 1
            return int(value[k])
        return int(value)  # type: ignore[arg-type]

    def roll(self, name: str, spec: RollSpec = RollSpec(), note: str = "") -> int:
        """Roll (or take the fixed value of) ``name``; returns the total and logs it."""
        total = self._fixed_total(name)
        if total is not None:
            if not spec.lowest <= total <= spec.highest:
                raise DiceError(f"roll {name!r} is fixed at {total}, but {spec.label()} shows {spec.lowest}–{spec.highest}")
            self.log.append(RollRecord(name, total, (total,), spec, True, note))
            return total
        faces = tuple(self._rng.randint(1, spec.sides) for _ in range(spec.count))
        self.log.append(RollRecord(name, sum(faces), faces, spec, False, note))
        return sum(faces)

    def sharing(self, fixed: Mapping[str, int | Sequence[int]]) -> Dice:
        """Dice drawing from this same generator and log, with other fixed rolls."""
        other = Dice(self.seed, fixed, self.log)
        other._rng = self._rng
        return other


def check_fixed_rolls(fixed: Mapping[str, Any], specs: Mapping[str, RollSpec]) -> list[tuple[str, str]]:
    """Problems with a template's fixed rolls: (roll name, message)."""
    problems: list[tuple[str, str]] = []
    for name, value in fixed.items():
        spec = specs.get(name)
        values = value if isinstance(value, list) else [value]
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int):
                problems.append((name, f"a fixed roll must be a whole number, got {v!r}"))
            elif spec is not None and not spec.lowest <= v <= spec.highest:
                problems.append((name, f"{spec.label()} shows {spec.lowest}–{spec.highest}, got {v}"))
    return problems
