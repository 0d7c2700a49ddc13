"""The rule each Infinity template-weapon step applies, with the sentence of the seed text it rests on (verbatim)."""

from __future__ import annotations

from tabletop.plugin import StepRule

#: The seed text the quotes come from (``/work/shared/seeds``).
SEED = "infinity-template-weapons.txt"

STEP_RULES: tuple[StepRule, ...] = (
    StepRule(
        "note", "Teardrop Direct Template: touching the attacker's base",
        "Place the narrow end of the Teardrop Template (Blast Focus) contacting the edge of the attacker's base or Silhouette Template.",
        match=r"teardrop cut into",
    ),
    StepRule(
        "place", "Teardrop Direct Template",
        "Place the narrow end of the Teardrop Template (Blast Focus) contacting the edge of the attacker's base or Silhouette Template.",
        match=r"direct placement: narrow end",
    ),
    StepRule(
        "place", "Circular Direct Template",
        "Place the center of the Circular Template (Blast Focus) over the center of the attacker's base.",
        match=r"direct placement",
    ),
    StepRule(
        "place", "Speculative Attack",
        "Remember that, when declaring Speculative Attack with an Impact Template Weapon, you do not have to place the "
        "Template on top of the center of the target's base.",
        match=r"speculative",
    ),
    StepRule(
        "place", "Teardrop Impact Template",
        "Place the narrow end of the Teardrop Template (Blast Focus) contacting the edge of the main target's base, "
        "following the Line of Fire (see diagram).",
        match=r"impact placement: narrow end",
    ),
    StepRule(
        "place", "Circular Impact Template",
        "Place the center of the Circular Template (Blast Focus) over the center of the main target's base.",
        match=r"impact placement",
    ),
    StepRule(
        "place", "Area of Effect",
        "The Area of Effect of a Template is the area it covers with a single declaration of use.",
    ),
    StepRule(
        "note", "Template Weapons on a Close Combat",
        "Template Weapons that affect at least one trooper engaged in a Close Combat affect all troopers in that Close "
        "Combat, even if some of them are not in direct contact with the Template.",
        match=r"^Close combat",
    ),
    StepRule(
        "note", "No Damage value: allies allowed (FAQ)",
        "Q: Can weapons with the Impact Template Trait and no value in the damage attribute be fired with allied "
        "troopes in their area of effect?",
        match=r"^No Damage value",
    ),
    StepRule(
        "note", "Dodge without LoF: PH-3",
        "If the trooper affected by the Template Weapon does not have LoF to the attacker.",
        match=r"dodge PH-3",
    ),
    StepRule(
        "note", "Dodging a Template Weapon",
        "Troopers affected by a Template Weapon or Equipment can declare Dodge as their second Short Skill or ARO, even "
        "if they do not have LoF to the attacker.",
        match=r": dodge ",
    ),
    StepRule(
        "note", "Friendly and Neutral troopers: the shot is null",
        "So, if the player declares an Attack with a Template weapon that affects a friendly or Neutral trooper, then "
        "that shot is considered null (But not any other shot of the same Burst with no Civilian or Neutral troopers "
        "affected by a Template).",
        match=r"^Not allowed:.*nullified",
    ),
    StepRule(
        "note", "Impact Template: a main valid target",
        "The user of one of these weapons must declare a main valid target, and that target is used as a reference to place the Template.",
        match=r"^Not allowed",
    ),
    StepRule(
        "note", "No Partial Cover against templates",
        "Troopers affected by a Template Weapon cannot benefit from the +3 MOD to ARM/BTS for Partial Cover.",
        match=r"Partial Cover",
    ),
)
