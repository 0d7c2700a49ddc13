"""Which rule a resolution step applies, and the seed sentence it rests on. Pure: no pygame.

A ruleset lists its :class:`Rule` entries (an id, a title, a verbatim quote of its rules text
and the words of that quote that decide the step) in its ``rules_text.py``. Each
:class:`~tabletop.resolution.Step` a resolution makes names the rule it applies by id
(``Step.rule``): the choice is made where the step is made, from what the resolution knows,
never guessed afterwards from the step's wording. :func:`step_rule_hook` turns the table into
the ``Ruleset.step_rule`` hook that presenter mode, ``explain`` and the exports call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from tabletop.resolution import Step

#: (rule title, short verbatim quote of the seed text)
RuleQuote = tuple[str, str]


@dataclass(frozen=True)
class Rule:
    """One rule a step may apply.

    ``id`` is what a step names (``Step.rule``); ``title`` is shown above the quote;
    ``quote`` is one sentence of the rules text, verbatim; ``decides`` are the words of that
    sentence that decide a step applying it (checked to be in the quote, so a quote that
    stopped supporting its step is caught).
    """

    id: str
    title: str
    quote: str
    decides: tuple[str, ...] = ()


class DuplicateRule(ValueError):
    """Two rules of one table share an id."""


def rule_book(rules: Iterable[Rule]) -> dict[str, Rule]:
    """``rules`` by id; two rules with one id are an error."""
    out: dict[str, Rule] = {}
    for rule in rules:
        if rule.id in out:
            raise DuplicateRule(f"two rules with the id {rule.id!r}")
        out[rule.id] = rule
    return out


def rule_for(book: Mapping[str, Rule], step: Step) -> RuleQuote | None:
    """(title, quote) of the rule ``step`` names, or None when it names none the book holds."""
    rule = book.get(step.rule) if step.rule is not None else None
    return (rule.title, rule.quote) if rule is not None else None


def step_rule_hook(rules: Iterable[Rule]) -> Callable[[Step], RuleQuote | None]:
    """The ``Ruleset.step_rule`` hook of a ruleset whose rules are ``rules``."""
    book = rule_book(rules)

    def step_rule(step: Step) -> RuleQuote | None:
        return rule_for(book, step)

    return step_rule


def missing_quotes(rules: Sequence[Rule], seed_text: str) -> list[str]:
    """The quotes of ``rules`` that do not appear verbatim in ``seed_text`` (a check for tests and authors)."""
    return [r.quote for r in rules if r.quote not in seed_text]


def undecided(rules: Sequence[Rule]) -> list[str]:
    """``id: word`` for every deciding word a rule's own quote does not contain."""
    return [f"{r.id}: {w}" for r in rules for w in r.decides if w not in r.quote]
