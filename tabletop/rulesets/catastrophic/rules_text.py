"""The rules Catastrophic Damage steps apply, each with the sentence of the seed text it rests on (verbatim)
and the words of that sentence that decide the step. A step names its rule by id (``Step.rule``)."""

from __future__ import annotations

from tabletop.plugin import Rule

#: The seed text the quotes come from (``/work/shared/seeds``).
SEED = "catastrophic-damage.txt"

_TWICE = (
    "Any single Critical Hit that inflicts twice the amount of damage as the target Model's number of Damage Tracks, "
    "causes a Catastrophic Explosion."
)
_MARTYR_BONUS = (
    "If the upgraded Model is destroyed by a Catastrophic Explosion caused by another Model, the explosives add to the "
    "carnage, increasing the RAV and AOE of the explosion by +1."
)

RULES: tuple[Rule, ...] = (
    Rule(
        "failure", "Catastrophic Failure",
        "If the second Attack Roll made for a Critical Hit results in a natural or Auto 10, the target Model is unable "
        "to return any Defensive Fire for the remainder of the activation.",
        ("natural or Auto 10",),
    ),
    Rule(
        "infantry", "Infantry do not explode",
        "Infantry Models can not suffer Catastrophic Explosions, but are still effected by the Catastrophic Failure rule.",
        ("Infantry Models can not suffer Catastrophic Explosions",),
    ),
    Rule("no_explosion", "Catastrophic Explosion: twice the Damage Tracks", _TWICE, ("twice the amount of damage",)),
    Rule(
        "self_destruct_refused", "Martyr Upgrade: the Specialty Action",
        "Effect: The Upgraded Model may perform a Specialty Action, causing the Model to immediately be destroyed in a "
        "Catastrophic Explosion.",
        ("Upgraded Model may perform a Specialty Action",),
    ),
    Rule(
        "explode", "Catastrophic Explosion: an AOE attack from the Model's centre",
        "Using the center of the target Model as a Target Point, resolve an AOE Attack with RAV and EOE equal to the "
        "target Model's full number of Damage Tracks.",
        ("RAV and EOE equal to the target Model's full number of Damage Tracks",),
    ),
    Rule(
        "self_destruct", "Martyr Upgrade: self-destruct with the current Damage Tracks",
        "Resolve the AOE attack using the Model's current number of Damage Tracks.",
        ("current number of Damage Tracks",),
    ),
    Rule("martyr_bonus", "Martyr explosives: +1 RAV and AOE", _MARTYR_BONUS, ("by +1",)),
    Rule(
        "caught", "Everyone in the AOE is affected",
        "All Models in the AOE are effected, regardless of which player they belong to.",
        ("All Models in the AOE are effected",),
    ),
    Rule("chain", "Chain reaction: the explosion's Critical Hit explodes the Model it hits", _TWICE, ("Any single Critical Hit", "twice")),
    Rule("chain_martyr", "Chain reaction: a Martyr destroyed by another Model's explosion, +1", _MARTYR_BONUS, ("caused by another Model", "by +1")),
    Rule("chain_stops", "Chain reaction: not followed past the setting chain_depth", _TWICE, ("causes a Catastrophic Explosion",)),
    Rule("chain_off", "Chain reaction: turned off by the setting chain_reactions", _TWICE, ("causes a Catastrophic Explosion",)),
    Rule(
        "points_two_sides", "Martyr Upgrade: Victory Conditions (the opposing player)",
        "When calculating Victory Conditions, any Model destroyed via the Martyr Upgrade is considered destroyed by the opposing player.",
        ("destroyed by the opposing player",),
    ),
    Rule(
        "points_multi_side", "Martyr Upgrade: Victory Conditions with several sides",
        "If multiple sides are involved in the game, the owner of the model closest to the destroyed Martyr is awarded the points.",
        ("multiple sides", "closest to the destroyed Martyr"),
    ),
    Rule(
        "points_caught", "Martyr Upgrade: what its explosion damages scores for its controller",
        "Any Models damaged or destroyed by the Martyr's explosion are awarded to the player controlling the Martyr Model.",
        ("awarded to the player controlling the Martyr Model",),
    ),
)
