"""The rules WWPD template steps apply, each with the sentence of the seed text it rests on (quoted verbatim)
and the words of that sentence that decide the step. A step names its rule by id (``Step.rule``)."""

from __future__ import annotations

from tabletop.plugin import Rule

#: The seed text the quotes come from (``/work/shared/seeds``).
SEED = "wwpd-template-rules-2012.txt"

_NOMINATE = "In order to fire a template, the controller of the shooting unit must nominate a target model in range and line of site."
_UNDER = (
    "A model is under a template if any portion of its base (or hull) is under the template, but not if the template only "
    "covers a protruding arm or a gun barrel or some such."
)

RULES: tuple[Rule, ...] = (
    Rule("place", "Placing a template", "Place the center of the template over the target model.", ("center of the template",)),
    Rule(
        "battery_centre", "Battery: the target in the centre of the line",
        "The target model must be in the approximate center of the line of templates.",
        ("approximate center of the line of templates",),
    ),
    Rule(
        "battery_line", "Battery: templates touching along one line",
        "If fired in this manner, all the templates must be placed touching or overlapping so that both templates lie along "
        "a line running perpendicular to the direction of fire and crossing the target model.",
        ("touching or overlapping",),
    ),
    Rule("nominate", "A nominated target model", _NOMINATE, ("nominate a target model",)),
    Rule("sight", "Target in line of sight", _NOMINATE, ("line of site",)),
    Rule("range", "Target in range", _NOMINATE, ("in range",)),
    Rule("under", "Under a template: a portion of the base", _UNDER, ("any portion of its base",)),
    Rule("touching", "Touching the edge is not under it", _UNDER, ("any portion of its base", "is under the template")),
    Rule(
        "counted_twice", "Under several templates: counted once for each",
        "If a model is under more than one template, then it is counted multiple times -- once for each template that covers it.",
        ("counted multiple times",),
    ),
    Rule(
        "rate_of_fire", "Rate of fire: one die per covered model",
        "Then roll to hit for any units, using an RoF equal to the total number of models covered in it, based on this count.",
        ("RoF equal to the total number of models covered",),
    ),
    Rule(
        "leadership", "Friendly fire: Leadership test",
        "If the template covers friendly models, then the firing unit must immediately roll Leadership.",
        ("covers friendly models", "roll Leadership"),
    ),
)
