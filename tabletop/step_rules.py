"""Which rule a resolution step applies, and the seed sentence it rests on. Pure: no pygame.

A ruleset lists :class:`StepRule` entries (step kind, optionally a data key and a pattern
in the step's text) in its ``rules_text.py``; :func:`step_rule_hook` turns that table into
the ``Ruleset.step_rule`` hook that presenter mode, ``explain`` and the exports call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tabletop.resolution import Step

#: (rule name, short verbatim quote of the seed text)
RuleQuote = tuple[str, str]


@dataclass(frozen=True)
class StepRule:
    """A rule for the steps of one kind: the first entry that fits a step names its rule.

    ``match`` is a regular expression searched in the step's text; ``data_key`` a key the
    step's data must hold. Either narrows the entry; neither makes it the kind's default.
    """

    kind: str
    rule: str
    quote: str
    match: str | None = None
    data_key: str | None = None
    _pattern: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.match is not None:
            object.__setattr__(self, "_pattern", re.compile(self.match))

    def fits(self, step: Step) -> bool:
        """Whether this entry describes ``step``."""
        if step.kind != self.kind:
            return False
        if self.data_key is not None and self.data_key not in step.data:
            return False
        return self._pattern is None or self._pattern.search(step.text) is not None


def rule_for(table: Sequence[StepRule], step: Step) -> RuleQuote | None:
    """(rule, quote) of the first entry of ``table`` that fits ``step``, or None."""
    for entry in table:
        if entry.fits(step):
            return (entry.rule, entry.quote)
    return None


def step_rule_hook(table: Sequence[StepRule]) -> Callable[[Step], RuleQuote | None]:
    """The ``Ruleset.step_rule`` hook of a ruleset whose rules are listed in ``table``."""
    entries = tuple(table)

    def step_rule(step: Step) -> RuleQuote | None:
        return rule_for(entries, step)

    return step_rule


def missing_quotes(table: Sequence[StepRule], seed_text: str) -> list[str]:
    """The quotes of ``table`` that do not appear verbatim in ``seed_text`` (a check for tests and authors)."""
    return [e.quote for e in table if e.quote not in seed_text]
