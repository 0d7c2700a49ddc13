"""The rule each Robotech RPG Tactics Blast step applies, with the sentence of the seed text it rests on (verbatim)."""

from __future__ import annotations

from tabletop.plugin import StepRule

#: The seed text the quotes come from (``/work/shared/seeds``).
SEED = "robotech-rpg-tactics-blast-rule-2015.txt"

STEP_RULES: tuple[StepRule, ...] = (
    StepRule(
        "roll", "Roll to Strike the point of impact (DF 5)",
        "When a mecha makes a Blast attack, the roll to Strike is made against a DF of 5 to see if it hits its intended point of impact.",
    ),
    StepRule(
        "scatter", "Scatter: D6 direction, 2D6 inches, new Strike D6+1",
        "Roll a D6 to determine which direction the template will scatter, as per the numbers indicated on the top of the template.",
    ),
    StepRule(
        "note", "No friendly mecha under the Blast area",
        "Note: A Blast attack cannot be directed at any target if there are friendly mecha within what would be the "
        "Blast area, unless those mecha have the Life is Cheap ability.",
        match=r"^Not allowed: friendly",
    ),
    StepRule(
        "note", "Blast targets",
        "For any Blast attack, the target must be a structure or enemy mecha (NOT a spot on the ground) unless the "
        "weapon system also has the Indirect Fire ability.",
        match=r"^Not allowed",
    ),
    StepRule(
        "note", "A scatter that reaches no DF is a dud",
        "Regardless of the result of the new Strike roll, the attack does not scatter again; if it does not equal or "
        "exceed the DF of any mecha or structure in the new location, the attack is a dud.",
        match=r"a dud",
    ),
    StepRule(
        "note", "Shooting down a Blast Missile",
        "If a mecha’s attempt to shoot down the Blast Missile is successful, all of the Blast Missiles that would have "
        "hit that mecha are destroyed and NO mecha are damaged by those missiles.",
        match=r"shoots down",
    ),
    StepRule(
        "note", "Inescapable: 4 missiles of one volley",
        "If 4 missiles from the same volley hit any given mecha, they are considered Inescapable for that mecha, and "
        "thus can’t be Dodged by it.",
        match=r"Inescapable",
    ),
    StepRule(
        "note", "Damage: full to the primary target, half to the others",
        "Every mecha, building or other structure other than the primary target which is also caught under the template "
        "takes half damage (rounded down), even if its base is only clipped by the edge of the Blast template or is "
        "barely touched by it.",
        match=r"MD before reactions",
    ),
)
