"""What a rules file may say: the pydantic model of ``*.rules.toml`` (and of its JSON Schema).

Every table refuses keys it does not know (the loader adds the line and a did-you-mean).
Expressions stay text here; :mod:`.check` parses them and checks what they read.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, FiniteFloat, StringConstraints

Identifier = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_\-]{0,63}$")]
RollName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,39}$")]
Text = Annotated[str, StringConstraints(max_length=2000)]
#: An expression (docs/rules-files.md, "Expressions"), or a plain number.
Expression = Union[Annotated[str, StringConstraints(min_length=1, max_length=400)], int, float]
#: A length: a number in the scenario's units, or text with a unit ("3in", "75mm"), or an expression reading a weapon key.
LengthText = Union[Annotated[str, StringConstraints(min_length=1, max_length=200)], int, float]
#: A quote: a sentence of ``source.sentences`` (or a verbatim part of one), or its number there (1 = the first).
Quote = Union[Annotated[str, StringConstraints(min_length=1, max_length=2000)], Annotated[int, Field(ge=1)]]
Band = Literal["full", "half", "none"]


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Game(_Table):
    """The game the rules are for."""

    name: Identifier = Field(description="Short name; what `tabletop rules install` installs it as (ruleset = \"NAME\").")
    title: Text = Field(description="What the app and the reports call it.")
    about: Text = Field("", description="One line on what the rules do.")


class Source(_Table):
    """The rules text followed, and the sentences of it this file quotes."""

    file: Text | None = Field(None, description="The rules text, relative to this file (its sentences are checked against it).")
    url: Text | None = Field(None, description="Where the rules text is published.")
    cite: Text | None = Field(None, description="The rules text named in words (a book, a page, a post).")
    sentences: list[Text] = Field(min_length=1, description="Sentences quoted from the rules text, verbatim.")


class Stat(_Table):
    """A stat the rules read from models (or from terrain, for structures)."""

    meaning: Text = ""
    default: FiniteFloat | None = Field(None, description="Value for a model without the stat (none: a model the rules read it from must have it).")


class WeaponKey(_Table):
    """A key of a scenario template's ``weapon`` table the rules read."""

    meaning: Text = ""
    default: Any = Field(None, description="Value when the weapon does not give it (none: the weapon must give it when it is read).")


class Shape(_Table):
    """A template of the rules' own, added to the catalogue of a scenario that uses these rules."""

    kind: Literal["circle", "teardrop", "rect", "cone"]
    diameter: LengthText | None = None
    radius: LengthText | None = None
    length: LengthText | None = None
    width: LengthText | None = None
    tip_width: LengthText | None = None
    end_width: LengthText | None = None
    angle: float | None = None
    size_uncertainty: LengthText | None = Field(None, description="How far the true outline may lie from this one.")
    label: Text | None = None


class Placement(_Table):
    """Where the template goes."""

    on: Literal["as_written", "target", "point", "firer_edge", "range"] = Field(
        "as_written",
        description="as_written: as the scenario places it; target: centred on the target model; point: on the point aimed at; "
        "firer_edge: from the firer's base edge along the heading; range: at the end of `distance` from the firer.",
    )
    orient: Literal["as_written", "line_of_fire", "across"] = Field(
        "as_written", description="The template's axis: as written, along the line of fire, or its longest dimension across it."
    )
    centre: Literal["focus", "middle"] = Field("focus", description="The point put on the target: the blast focus, or the middle of the template.")
    distance: LengthText | None = Field(None, description="With on = \"range\": how far from the firer's centre (e.g. \"weapon.range\", \"8in\").")
    quote: Quote | None = None


class Battery(_Table):
    """A scenario template's ``battery = N``: N templates side by side across the line of fire."""

    overlap: float = Field(0.0, ge=0.0, lt=1.0, description="Overlap of neighbours, as a fraction of one template's extent.")
    even: Literal["between", "template"] = Field("between", description="Even N: the target between the middle two, or under one.")
    quote: Quote | None = None
    line_quote: Quote | None = None


class Target(_Table):
    """What may be aimed at, and the checks before any die is rolled."""

    points: bool = Field(True, description="False: the template must be aimed by a firer at a target model (impact = {attacker, target}).")
    must_be: Literal["any", "enemy"] = Field("any", description="enemy: a model of another side (no sides on the table: any other model).")
    line_of_sight: Literal["none", "base"] = Field("none", description="base: any part of the firer's base must see any part of the target's.")
    range: LengthText | None = Field(None, description="The most the target may be from the firer: \"weapon.range\" or a length.")
    range_measure: Literal["edge", "centre"] = "edge"
    quote: Quote | None = None
    sight_quote: Quote | None = None
    range_quote: Quote | None = None


class Modifier(_Table):
    """Add ``add`` to a roll when ``if`` holds."""

    if_: Annotated[str, StringConstraints(min_length=1, max_length=400)] = Field(alias="if")
    add: Expression


class Roll(_Table):
    """A roll that succeeds on ``needs`` or more (``roll = "2d6 + attacker.BS >= 7"`` says both at once)."""

    roll: Annotated[str, StringConstraints(min_length=1, max_length=400)]
    needs: Expression | None = None
    name: RollName | None = Field(None, description="The roll's name in a scenario's [template.rolls].")
    modifiers: list[Modifier] = []
    reroll: list[int] = Field([], description="Totals rolled again, once (the second stands).")
    quote: Quote | None = None


class ToHit(Roll):
    """The roll to hit, and what a miss does when nothing scatters it."""

    miss: Literal["nothing", "lands"] = Field(
        "nothing",
        description="Without [scatter]: nothing (a miss lands nowhere: no one is under it, no one suffers) or lands "
        "(the template lands as aimed all the same; `hit` is false, the bands and none_if say who suffers).",
    )


class ScatterDie(_Table):
    """A scatter die: some faces show HIT (no scatter), the others an arrow."""

    roll: str = "d6"
    hit: list[int] = Field(min_length=1, description="Faces that show HIT.")
    name: RollName = "scatter_die"
    quote: Quote | None = None


class Direction(_Table):
    """Which way it scatters: faces numbered round a circle, evenly spaced."""

    roll: str = "d6"
    first: Literal["away", "towards", "north", "clock"] = Field(
        "away",
        description="Where face 1 points: away from the firer, towards it, or up the table; clock: the faces are hours, "
        "the highest (12) pointing away from the firer.",
    )
    turn: Literal["clockwise", "anticlockwise"] = "clockwise"
    name: RollName = "scatter_direction"


class Distance(_Table):
    """How far it scatters."""

    roll: str = "2d6"
    unit: Literal["in", "cm", "mm"] = "in"
    minus: Expression | None = Field(None, description="Taken off the roll, e.g. \"attacker.BS\".")
    min: FiniteFloat = Field(0.0, ge=0.0, description="The least distance (in `unit`).")
    max: LengthText | None = Field(None, description="The most: \"range\" (the firer's range to the target), a length, or a weapon key.")
    name: RollName = "scatter_distance"
    reroll: list[int] = []
    quote: Quote | None = None


class Scatter(_Table):
    """Where a template that misses (or always) ends up."""

    when: Literal["miss", "always"] = "miss"
    die: ScatterDie | None = None
    direction: Direction = Direction()
    distance: Distance = Distance()
    then: Roll | None = Field(None, description="A new roll after the scatter; it becomes `strike` for what follows.")
    quote: Quote | None = None


class Partial(_Table):
    """A roll for each model under it whose base is not wholly covered (``needs = 4``: partials are hit on 4+)."""

    roll: str = "d6"
    needs: Expression
    name: RollName = "partial"
    quote: Quote | None = None


class Under(_Table):
    """Who counts as under the template."""

    counts: Literal["any", "centre", "fraction"] = Field(
        "any", description="any: any part of the base; centre: the base's centre; fraction: at least `fraction` of its area."
    )
    fraction: float = Field(0.5, gt=0.0, le=1.0, description="With counts = \"fraction\": the share of the base's area.")
    touching: bool = Field(True, description="False: a base that only touches the edge is not under it.")
    partial: Partial | None = None
    quote: Quote | None = None
    touching_quote: Quote | None = None


class Effect(_Table):
    """What each model under it suffers."""

    kind: Literal["hits", "damage"] = "hits"
    amount: Expression = 1
    unit: Annotated[str, StringConstraints(min_length=1, max_length=12)] = "hit"
    primary: Band = Field("full", description="The target model, when the attack hit where it aimed.")
    others: Band = "full"
    scattered: Band = Field("full", description="Everyone under a template that scattered.")
    halve_per_square: bool = Field(False, description="The amount halves (rounded down) for each grid square from the blast's square.")
    none_if: Annotated[str, StringConstraints(min_length=1, max_length=400)] | None = None
    structures: Identifier | None = Field(None, description="Terrain carrying this stat suffers too (never saves).")
    per_unit: bool = Field(False, description="Also count the models under it per unit (a rate of fire).")
    quote: Quote | None = None
    primary_quote: Quote | None = None
    others_quote: Quote | None = None
    scattered_quote: Quote | None = None
    none_quote: Quote | None = None


class Save(_Table):
    """A roll (or not) by each model that would suffer, in the order of the file's saves."""

    roll: str = "d6"
    needs: Expression = Field(description="Succeeds on this or more; 0: automatic, nothing rolled.")
    who: str = Field("all", description="all, or \"weapon.KEY\": the models a scenario's weapon lists (or \"all\").")
    attempt: Literal["damaged", "hit", "under"] = Field("damaged", description="Who may try: models still suffering, models hit, or any model under it.")
    success: Literal["none", "half", "cancel"] = Field("none", description="none: suffers nothing; half: half, rounded down; cancel: the attack harms no one.")
    costs: Identifier | None = Field(None, description="A stat spent per attempt (none left: no attempt).")
    only_if: Annotated[str, StringConstraints(min_length=1, max_length=400)] | None = None
    modifiers: list[Modifier] = []
    name: RollName | None = None
    quote: Quote | None = None


class Cover(_Table):
    """Terrain between the blast focus and a model."""

    kinds: list[Annotated[str, StringConstraints(min_length=1, max_length=60)]] = Field(["any"], description="Terrain kinds (terrain.kind), or \"any\".")
    min_height: LengthText | None = Field(None, description="Only pieces at least this tall (a length, or \"model.height\").")
    effect: Literal["blocks", "save"]
    quote: Quote | None = None


class FriendlyFire(_Table):
    """Models of the firer's side under it."""

    rule: Literal["allowed", "forbidden", "test"] = "allowed"
    exempt: Identifier | None = Field(None, description="A model tag that is never counted as friendly fire.")
    firer: bool = Field(False, description="True: the firer is its own friend even without a side.")
    test: Text = Field("a test", description="With rule = \"test\": what the firing unit takes.")
    quote: Quote | None = None


class Sight(_Table):
    """Line of sight from the blast focus."""

    from_focus: Literal["none", "walls", "silhouettes"] = "none"
    quote: Quote | None = None


class Setting(_Table):
    """A choice players may disagree on: its value replaces fields of the file."""

    why: Text
    sets: Annotated[str, StringConstraints(min_length=1, max_length=200)] | list[Annotated[str, StringConstraints(min_length=1, max_length=200)]]
    default: Any = None
    values: dict[str, Any] | None = Field(None, description="Setting value -> field value, where they differ.")
    low: FiniteFloat | None = None
    high: FiniteFloat | None = None


class RulesFile(_Table):
    """A Tabletop rules file (``*.rules.toml``)."""

    format: Literal[1] = 1
    units: Literal["in", "cm", "mm"] = Field("in", description="Unit of the lengths this file writes as bare numbers.")
    game: Game
    source: Source
    templates: dict[Identifier, Shape] = {}
    stats: dict[Identifier, Stat] = {}
    weapon: dict[Identifier, WeaponKey] = {}
    placement: Placement = Placement()
    battery: Battery | None = None
    target: Target = Target()
    to_hit: ToHit | None = None
    scatter: Scatter | None = None
    under: Under = Under()
    cover: list[Cover] = []
    effect: Effect = Effect()
    saves: dict[RollName, Save] = {}
    friendly_fire: FriendlyFire = FriendlyFire()
    sight: Sight = Sight()
    settings: dict[Identifier, Setting] = {}


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a rules file, for editors (docs/rules-file.schema.json)."""
    schema = RulesFile.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://tabletop.invalid/rules-file.schema.json"
    return schema
