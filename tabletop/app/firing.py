"""A Fire result being animated, then shown until the next edit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tabletop.adjudicate import Adjudication
from tabletop.model import PlacedTemplate

STEP_SECONDS = 0.7  # per animated resolution step


@dataclass
class Firing:
    """A Fire result being animated, then shown until the next edit."""

    adjudication: Adjudication
    keyframes: list[tuple[str, PlacedTemplate, PlacedTemplate, str]] = field(default_factory=list)
    elapsed: float = 0.0
    dice_free: bool | None = None  # the file's fixed rolls were set aside (None: not said)
    what_if: dict[str, Any] = field(default_factory=dict)  # the what-if rolls it was fired with

    @property
    def duration(self) -> float:
        return STEP_SECONDS * len(self.keyframes)

    @property
    def done(self) -> bool:
        return self.elapsed >= self.duration
