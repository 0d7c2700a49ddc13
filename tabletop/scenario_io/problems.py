"""A problem in a file (file, field path, line, message) and the error that carries them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong (or suspicious) in a file."""

    file: str
    path: str
    message: str
    line: int | None = None
    warning: bool = False

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        field_path = f" {self.path}:" if self.path else ""
        kind = " warning:" if self.warning else ""
        return f"{where}:{kind}{field_path} {self.message}"


class ScenarioError(ValueError):
    """A scenario that cannot be loaded; ``problems`` has one entry per problem."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
