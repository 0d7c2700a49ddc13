"""The rules Robotech RPG Tactics Blast steps apply, each with the sentence of the seed text it rests on (verbatim)
and the words of that sentence that decide the step. A step names its rule by id (``Step.rule``)."""

from __future__ import annotations

from tabletop.plugin import Rule

#: The seed text the quotes come from (``/work/shared/seeds``).
SEED = "robotech-rpg-tactics-blast-rule-2015.txt"

_STRIKE = "When a mecha makes a Blast attack, the roll to Strike is made against a DF of 5 to see if it hits its intended point of impact."
_VOLLEY = (
    "Each missile that hits inflicts its full MD to its primary target, and half that amount (rounded down) to all other "
    "mecha and structures under its Blast template."
)
_WHOLE_MISS = (
    "If the missile volley fails to hit at all, the Blast template scatters (as above), but then it only inflicts the full "
    "MD of one missile."
)
_DODGE = (
    "Each mecha under the Blast template attempting to Dodge must pay a Command Point to do so, and must equal or exceed "
    "the attacker’s roll to Strike with their Dodge roll."
)

RULES: tuple[Rule, ...] = (
    Rule("needs_attacker", "A Blast attack is made by a mecha", _STRIKE, ("When a mecha makes a Blast attack",)),
    Rule("strike", "Roll to Strike the point of impact (DF 5)", _STRIKE, ("DF of 5",)),
    Rule(
        "strike_volley", "Volley: a roll to Strike for each missile",
        "If a Blast attack also has the Volley ability, use the procedures outlined above to determine if each missile "
        "hits (DF 5), with a separate roll to Strike for each missile as normal.",
        ("separate roll to Strike for each missile",),
    ),
    Rule(
        "scatter", "Scatter: D6 direction, 2D6 inches, new Strike D6+1",
        "Roll a D6 to determine which direction the template will scatter, as per the numbers indicated on the top of the template.",
        ("which direction the template will scatter",),
    ),
    Rule(
        "scatter_separately", "Volley: missiles that miss scatter separately",
        "Any missiles that fail their rolls to Strike scatter as described above, but they scatter separately unless the "
        "whole volley misses.",
        ("scatter separately",),
    ),
    Rule("scatter_whole_volley", "A volley that misses entirely scatters once", _WHOLE_MISS, ("fails to hit at all",)),
    Rule(
        "scatter_cap", "A Blast scatters no further than the range to the target",
        "Note: A Blast cannot scatter a longer distance than the attacking mecha's range to the target.",
        ("cannot scatter a longer distance",),
    ),
    Rule(
        "friendly_ban", "No friendly mecha under the Blast area",
        "Note: A Blast attack cannot be directed at any target if there are friendly mecha within what would be the "
        "Blast area, unless those mecha have the Life is Cheap ability.",
        ("friendly mecha",),
    ),
    Rule(
        "targets", "Blast targets: a structure or an enemy mecha",
        "For any Blast attack, the target must be a structure or enemy mecha (NOT a spot on the ground) unless the "
        "weapon system also has the Indirect Fire ability.",
        ("structure or enemy mecha",),
    ),
    Rule(
        "range_los", "Blast targets: within range and line of sight",
        "Ordinary Blast attacks can target any structure or enemy mecha within range and Line of Sight (LOS) to the "
        "attacking mecha, while any Indirect Fire Blast attacks can target any point on the battlefield within range "
        "(including a spot on the ground), as long as it is within LOS to any friendly mecha or the attacking mecha itself.",
        ("within range and Line of Sight",),
    ),
    Rule(
        "dud", "A scatter that reaches no DF is a dud",
        "Regardless of the result of the new Strike roll, the attack does not scatter again; if it does not equal or "
        "exceed the DF of any mecha or structure in the new location, the attack is a dud.",
        ("the attack is a dud",),
    ),
    Rule(
        "damage_full", "The primary target takes the full MD",
        "If the target is a mecha or structure and the roll to Strike also equaled or exceeded that mecha or structure’s "
        "actual DF attribute, then that target takes the full MD of the weapon system.",
        ("full MD",),
    ),
    Rule(
        "damage_half", "Everything else under the template takes half",
        "Every mecha, building or other structure other than the primary target which is also caught under the template "
        "takes half damage (rounded down), even if its base is only clipped by the edge of the Blast template or is "
        "barely touched by it.",
        ("half damage",),
    ),
    Rule("volley_full", "Volley: each missile's full MD to its primary target", _VOLLEY, ("full MD to its primary target",)),
    Rule("volley_half", "Volley: half of a missile's MD to everything else under it", _VOLLEY, ("half that amount",)),
    Rule(
        "damage_scatter", "After a scatter: half damage where the new Strike reaches",
        "If the new Strike roll equals or exceeds the DF of any mecha or structure under the template’s new location, "
        "then those mecha and structures receive half damage (rounded down), as described above.",
        ("receive half damage",),
    ),
    Rule("damage_whole_miss", "A volley that misses entirely: the full MD of one missile", _WHOLE_MISS, ("full MD of one missile",)),
    Rule(
        "damage_none", "DF above the Strike: NO DAMAGE",
        "Any mecha or structure which has a DF attribute higher than the roll to Strike takes NO DAMAGE.",
        ("DF attribute higher than the roll to Strike", "NO DAMAGE"),
    ),
    Rule(
        "damage_none_scatter", "After a scatter: DF above the new Strike takes no damage",
        "Any mecha with a DF higher than the new Strike roll takes no damage.",
        ("DF higher than the new Strike roll", "no damage"),
    ),
    Rule(
        "shoot_down", "Shooting down: the missiles that would have hit that mecha",
        "If a mecha’s attempt to shoot down the Blast Missile is successful, all of the Blast Missiles that would have "
        "hit that mecha are destroyed and NO mecha are damaged by those missiles.",
        ("would have hit that mecha",),
    ),
    Rule(
        "shoot_down_fails", "Shooting down needs a 6",
        "However, even if a mecha that attempts to shoot down an incoming Blast uses a weapon system with the "
        "Anti-Missile ability, it is only successful if it rolls a 6 on the Anti-Missile roll.",
        ("only successful if it rolls a 6",),
    ),
    Rule(
        "inescapable_hits", "Inescapable: 4 missiles of one volley hit it (rule text)",
        "If 4 missiles from the same volley hit any given mecha, they are considered Inescapable for that mecha, and "
        "thus can’t be Dodged by it.",
        ("4 missiles from the same volley hit",),
    ),
    Rule(
        "inescapable_radius", "Inescapable: in the Blast radius of 4 missiles (Summary of Changes)",
        "For any mecha that’s in the Blast radius of 4 missiles from the same volley, they are considered Inescapable.",
        ("Blast radius of 4 missiles",),
    ),
    Rule("dodge", "Dodge: equal or exceed the Strike", _DODGE, ("equal or exceed the attacker’s roll to Strike",)),
    Rule(
        "dodge_volley", "Volley: one Dodge against the highest Strike",
        "Any mecha hit by up to 3 missiles in the volley may attempt to avoid them all with one roll to Dodge, at the "
        "cost of one Command Point, but its roll to Dodge must equal or exceed the highest roll to Strike of the "
        "missiles directed at it to avoid damage from all missiles in that volley.",
        ("highest roll to Strike",),
    ),
    Rule("no_command_point", "Each reaction costs a Command Point", _DODGE, ("must pay a Command Point",)),
    Rule(
        "roll_with_impact", "Roll with Impact halves the damage",
        "Those mecha which fail to Dodge (or choose not to) can also Roll with Impact to reduce the damage by half (rounded down).",
        ("reduce the damage by half",),
    ),
    Rule(
        "roll_with_impact_roll", "Roll with Impact, with the roll the setting roll_with_impact_needs adds",
        "Each mecha hit by the Blast attack may also Roll with Impact to reduce the MD the attack will inflict before "
        "applying the final MD to that specific mecha.",
        ("may also Roll with Impact",),
    ),
)
