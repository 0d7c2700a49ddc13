"""The rule each blast-increments step applies, with the sentence of the seed text it rests on (verbatim)."""

from __future__ import annotations

from tabletop.plugin import StepRule

#: The seed text the quotes come from (``/work/shared/seeds``).
SEED = "blast-increments.txt"

_SAVE = "Blast never turns or bends, and only proceeds through cover when the cover fails its Damage save."

STEP_RULES: tuple[StepRule, ...] = (
    StepRule(
        "place", "Ground Zero takes full damage",
        "Each character, object, and scenery item within Ground Zero squares suffers the blast’s full damage or numerical effect.",
    ),
    StepRule(
        "note", "Covering the blast with one's body",
        "Likewise, when a blast attack’s damage or effect is completely covered by a character’s body (e.g. he leaps "
        "onto a live grenade), the damage decreases by an amount equal to the character’s Constitution score before it spreads.",
        match=r"covers the blast",
    ),
    StepRule(
        "roll", "Contained blast: +2d6 per prevented increment",
        "When a blast attack’s damage or effect is entirely contained within a space smaller than its outermost blast "
        "increment covers (e.g. an explosion rips through the interior of a pressurized plane too small to hold 1 or "
        "more blast increments), the damage or numerical effect within the contained area increases by 2d6 per "
        "interrupted or prevented increment.",
        match=r"contained by",
    ),
    StepRule("roll", "Cover stops the blast unless its Damage save fails", _SAVE, match=r"Damage save"),
    StepRule("note", "Cover stops the blast unless its Damage save fails", _SAVE, match=r"Damage save"),
)
