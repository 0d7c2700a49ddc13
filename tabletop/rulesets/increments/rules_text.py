"""The rules blast-increment steps apply, each with the sentence of the seed text it rests on (verbatim) and the
words of that sentence that decide the step. A step names its rule by id (``Step.rule``)."""

from __future__ import annotations

from tabletop.plugin import Rule

#: The seed text the quotes come from (``/work/shared/seeds``).
SEED = "blast-increments.txt"

_SAVE = "Blast never turns or bends, and only proceeds through cover when the cover fails its Damage save."
_GROUND_ZERO = "Each character, object, and scenery item within Ground Zero squares suffers the blast’s full damage or numerical effect."
_HALVED = (
    "This damage or effect is reduced to 1/2 (rounded down) within each blast increment out from Ground Zero, until the "
    "damage drops below 1 point, at which point it has no effect."
)

RULES: tuple[Rule, ...] = (
    Rule("ground_zero_placed", "Ground Zero takes full damage", _GROUND_ZERO, ("Ground Zero squares",)),
    Rule("radius", "Unless otherwise specified: 1 square, expanding as a radius",
         "Special Note: Unless otherwise specified, any blast attack has an increment of 1 square and expands as a radius.",
         ("expands as a radius",)),
    Rule(
        "smother", "Covering the blast with one's body",
        "Likewise, when a blast attack’s damage or effect is completely covered by a character’s body (e.g. he leaps "
        "onto a live grenade), the damage decreases by an amount equal to the character’s Constitution score before it spreads.",
        ("Constitution score before it spreads",),
    ),
    Rule(
        "smother_max", "The character covering the blast takes the maximum",
        "In this case, the character covering the effect suffers the maximum possible damage (i.e. as if the highest "
        "possible number were rolled on each damage die).",
        ("maximum possible damage",),
    ),
    Rule(
        "contained", "Contained blast: +2d6 per prevented increment",
        "When a blast attack’s damage or effect is entirely contained within a space smaller than its outermost blast "
        "increment covers (e.g. an explosion rips through the interior of a pressurized plane too small to hold 1 or "
        "more blast increments), the damage or numerical effect within the contained area increases by 2d6 per "
        "interrupted or prevented increment.",
        ("increases by 2d6 per interrupted or prevented increment",),
    ),
    Rule(
        "breached", "A pierced containment: no bonus",
        "This does not happen if the blast damage pierces the space’s containment (e.g. breaks a hole through the "
        "aforementioned plane’s hull).",
        ("pierces the space’s containment",),
    ),
    Rule("cover_save", "Cover stops the blast unless its Damage save fails", _SAVE, ("fails its Damage save",)),
    Rule("cover_holds", "Cover without a Damage save stops the blast", _SAVE, ("only proceeds through cover",)),
    Rule("ground_zero", "Ground Zero: full damage", _GROUND_ZERO, ("full damage",)),
    Rule("halved", "Halved per increment out from Ground Zero", _HALVED, ("reduced to 1/2 (rounded down) within each blast increment",)),
    Rule("stopped", "The blast never bends round cover", _SAVE, ("never turns or bends",)),
    Rule("height", "The blast spreads vertically as horizontally", "Blast damage expands vertically and horizontally at the same rate.",
         ("vertically and horizontally at the same rate",)),
    Rule("beyond", "Past the last increment: no effect", _HALVED, ("drops below 1 point", "no effect")),
    Rule(
        "squares", "A blast is measured in squares",
        "Every blast attack has a base area of effect — a blast increment — that’s measured in squares, and a center area "
        "called Ground Zero.",
        ("measured in squares",),
    ),
    Rule(
        "gz_shift", "Ground Zero must contain the origin square",
        "With a larger blast increment, Ground Zero must contain the origin square, but may be shifted per the "
        "character’s discretion (with a hit) or the GC’s discretion (with a miss).",
        ("must contain the origin square",),
    ),
)
