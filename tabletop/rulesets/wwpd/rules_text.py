"""The rule each WWPD step applies, with the sentence of the seed text it rests on (quoted verbatim)."""

from __future__ import annotations

from tabletop.plugin import StepRule

#: The seed text the quotes come from (``/work/shared/seeds``).
SEED = "wwpd-template-rules-2012.txt"

STEP_RULES: tuple[StepRule, ...] = (
    StepRule("place", "Placing a template", "Place the center of the template over the target model."),
    StepRule(
        "note", "Target in range and line of sight",
        "In order to fire a template, the controller of the shooting unit must nominate a target model in range and line of site.",
        match=r"line of sight|range",
    ),
    StepRule(
        "note", "Rate of fire: one die per covered model",
        "Then roll to hit for any units, using an RoF equal to the total number of models covered in it, based on this count.",
        match=r"rate of fire",
    ),
    StepRule(
        "note", "Friendly fire: Leadership test",
        "If the template covers friendly models, then the firing unit must immediately roll Leadership.",
        match=r"Leadership",
    ),
)
