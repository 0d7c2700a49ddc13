"""The rules Infinity template-weapon steps apply, each with the sentence of the seed text it rests on (verbatim)
and the words of that sentence that decide the step. A step names its rule by id (``Step.rule``)."""

from __future__ import annotations

from tabletop.plugin import Rule

#: The seed text the quotes come from (``/work/shared/seeds``).
SEED = "infinity-template-weapons.txt"

_DIRECT_TEARDROP = (
    "Place the narrow end of the Teardrop Template (Blast Focus) contacting the edge of the attacker's base or Silhouette Template."
)
_SPECULATIVE = (
    "Remember that, when declaring Speculative Attack with an Impact Template Weapon, you do not have to place the "
    "Template on top of the center of the target's base."
)
_MAIN_TARGET = "The user of one of these weapons must declare a main valid target, and that target is used as a reference to place the Template."
_CAMOUFLAGE = (
    "If you hit an enemy trooper not in Camouflaged state and there is an enemy Camouflage Marker inside the Area of "
    "Effect of the Template, then the Camouflage Marker would be affected too."
)

RULES: tuple[Rule, ...] = (
    Rule("slide_direct_teardrop", "Teardrop Direct Template: touching the attacker's base", _DIRECT_TEARDROP, ("contacting the edge",)),
    Rule("place_direct_teardrop", "Teardrop Direct Template", _DIRECT_TEARDROP, ("narrow end", "attacker's base")),
    Rule(
        "place_direct_circle", "Circular Direct Template",
        "Place the center of the Circular Template (Blast Focus) over the center of the attacker's base.",
        ("center of the attacker's base",),
    ),
    Rule("place_speculative", "Speculative Attack", _SPECULATIVE, ("Speculative Attack",)),
    Rule(
        "place_impact_teardrop", "Teardrop Impact Template",
        "Place the narrow end of the Teardrop Template (Blast Focus) contacting the edge of the main target's base, "
        "following the Line of Fire (see diagram).",
        ("narrow end", "main target's base"),
    ),
    Rule(
        "place_impact_circle", "Circular Impact Template",
        "Place the center of the Circular Template (Blast Focus) over the center of the main target's base.",
        ("center of the main target's base",),
    ),
    Rule(
        "place_free", "Area of Effect",
        "The Area of Effect of a Template is the area it covers with a single declaration of use.",
        ("Area of Effect",),
    ),
    Rule(
        "affected", "Effects: base contact or covered at least partially",
        "Any trooper in base contact with a Template, or whose base or Silhouette Template is covered at least partially "
        "by a Template, is equally affected by the Template Weapon or Equipment.",
        ("base contact", "covered at least partially"),
    ),
    Rule(
        "focus_sees", "Blast Focus: line of fire to the trooper",
        "If LoF can be drawn from the Blast Focus to the trooper, then that trooper is affected by the Template.",
        ("LoF can be drawn from the Blast Focus",),
    ),
    Rule(
        "total_cover", "Blast Focus: Total Cover behind scenery",
        "However, if the LoF cannot be drawn due to the presence of a piece of scenery, then the trooper is considered to "
        "be in Total Cover and is not affected by the Template.",
        ("piece of scenery", "Total Cover"),
    ),
    Rule(
        "x_reach", "Three-dimensional Area of Effect: the X",
        "To help determine the three-dimensional Area of Effect of a Template, add a second identical template "
        "perpendicular down the middle so the cross-section forms an X.",
        ("three-dimensional", "forms an X"),
    ),
    Rule(
        "height", "Template height: its radius or half its width",
        "Templates used by Template Weapons and Equipment have a height equal to their radius or half their width "
        "(unless otherwise specified, as in the case of Smoke Special Ammunition,).",
        ("height equal to their radius or half their width",),
    ),
    Rule(
        "close_combat", "Template Weapons on a Close Combat",
        "Template Weapons that affect at least one trooper engaged in a Close Combat affect all troopers in that Close "
        "Combat, even if some of them are not in direct contact with the Template.",
        ("affect all troopers in that Close Combat",),
    ),
    Rule(
        "no_damage_allies", "No Damage value: allies allowed (FAQ)",
        "Q: Can weapons with the Impact Template Trait and no value in the damage attribute be fired with allied "
        "troopes in their area of effect?",
        ("no value in the damage attribute",),
    ),
    Rule(
        "dodge_ph", "Dodging a Template Weapon: a PH Roll",
        "Dodging an Attack with a Template Weapon usually involves passing a PH Roll.",
        ("PH Roll",),
    ),
    Rule(
        "dodge_ph3_lof", "Dodge without LoF to the attacker: PH-3",
        "If the trooper affected by the Template Weapon does not have LoF to the attacker.",
        ("does not have LoF to the attacker",),
    ),
    Rule(
        "dodge_ph3_deployable", "Dodging a Deployable Weapon: PH-3",
        "If the Template Weapon is a Deployable Weapon (such as a Mine or an E/Mauler).",
        ("Deployable Weapon",),
    ),
    Rule(
        "nullified", "Friendly and Neutral troopers: the shot is null",
        "So, if the player declares an Attack with a Template weapon that affects a friendly or Neutral trooper, then "
        "that shot is considered null (But not any other shot of the same Burst with no Civilian or Neutral troopers "
        "affected by a Template).",
        ("friendly or Neutral trooper", "considered null"),
    ),
    Rule(
        "impersonation", "An Impersonation Marker counts as a friendly trooper (FAQ)",
        "However, with an Impersonation Marker you can not declare the Attack because it counts as a friendly trooper.",
        ("Impersonation Marker", "counts as a friendly trooper"),
    ),
    Rule("main_target", "Impact Template: a main valid target", _MAIN_TARGET, ("main valid target",)),
    Rule(
        "speculative_circle_only", "A Teardrop Impact Template is laid on the main target's base edge",
        "Place the narrow end of the Teardrop Template (Blast Focus) contacting the edge of the main target's base, "
        "following the Line of Fire (see diagram).",
        ("contacting the edge of the main target's base",),
    ),
    Rule("aro_cancelled", "Direct Template ARO that misses its target: cancelled (FAQ)", "A: The Attack is cancelled.", ("cancelled",)),
    Rule("camouflage_bystander", "Camouflage Markers under a template (FAQ)", _CAMOUFLAGE, ("Camouflage Marker would be affected too",)),
    Rule("camouflage_target", "A Camouflage Marker is no valid target (FAQ)", _CAMOUFLAGE, ("enemy trooper not in Camouflaged state",)),
    Rule(
        "no_partial_cover", "No Partial Cover against templates",
        "Troopers affected by a Template Weapon cannot benefit from the +3 MOD to ARM/BTS for Partial Cover.",
        ("Partial Cover",),
    ),
)
