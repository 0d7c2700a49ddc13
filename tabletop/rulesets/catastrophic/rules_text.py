"""The rule each Catastrophic Damage step applies, with the sentence of the seed text it rests on (verbatim)."""

from __future__ import annotations

from tabletop.plugin import StepRule

#: The seed text the quotes come from (``/work/shared/seeds``).
SEED = "catastrophic-damage.txt"

STEP_RULES: tuple[StepRule, ...] = (
    StepRule(
        "note", "Catastrophic Failure",
        "If the second Attack Roll made for a Critical Hit results in a natural or Auto 10, the target Model is unable "
        "to return any Defensive Fire for the remainder of the activation.",
        match=r"Catastrophic Failure",
    ),
    StepRule(
        "note", "Infantry do not explode",
        "Infantry Models can not suffer Catastrophic Explosions, but are still effected by the Catastrophic Failure rule.",
        match=r"No Catastrophic Explosion.*[Ii]nfantry",
    ),
    StepRule(
        "note", "Catastrophic Explosion: twice the Damage Tracks",
        "Any single Critical Hit that inflicts twice the amount of damage as the target Model's number of Damage Tracks, "
        "causes a Catastrophic Explosion.",
        match=r"No Catastrophic Explosion",
    ),
    StepRule(
        "note", "Martyr Upgrade: Victory Conditions",
        "When calculating Victory Conditions, any Model destroyed via the Martyr Upgrade is considered destroyed by the opposing player.",
        match=r"Victory points",
    ),
    StepRule(
        "explode", "Martyr explosives: +1 RAV and AOE",
        "If the upgraded Model is destroyed by a Catastrophic Explosion caused by another Model, the explosives add to "
        "the carnage, increasing the RAV and AOE of the explosion by +1.",
        match=r"Martyr explosives",
    ),
    StepRule(
        "explode", "Chain reaction: the explosion damages nearby Models",
        "This explosion may damage other nearby Models.",
        data_key="caused_by",
    ),
    StepRule(
        "explode", "Catastrophic Explosion: an AOE attack from the Model's centre",
        "Using the center of the target Model as a Target Point, resolve an AOE Attack with RAV and EOE equal to the "
        "target Model's full number of Damage Tracks.",
    ),
)
