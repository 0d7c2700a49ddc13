"""``catastrophic``: the Catastrophic Damage optional rule (damage tracks, RAV/AOE explosions, Martyr).

A template ``explosion = {model}`` is one Catastrophic Explosion: either a
critical hit (``weapon.critical_damage``) or a Martyr's self-destruct
(``weapon.specialty_action = "self_destruct"``). The explosion is an AOE attack
centred on the model with RAV and AOE (inches, radius) equal to its damage
tracks; models it catches may explode in turn (a chain), from the results each
caught model took, given in ``weapon.caught`` (the seed gives no AOE damage table).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tabletop.plugin import (
    MM_PER_UNIT,
    Context,
    Coverage,
    Explosion,
    Model,
    ModelCoverage,
    PlacedTemplate,
    Resolution,
    RollSpec,
    Ruleset,
    Scenario,
    Step,
    Template,
    TemplateShape,
    display_names,
    named,
    with_statuses,
)

INCH_MM = MM_PER_UNIT["in"]
SELF_DESTRUCT = "self_destruct"
#: The damage of the hit itself, before a Critical Hit's extra damage: the seed's example adds
#: "5 points of extra damage" and gets "6 points of total damage".
DEFAULT_HIT_DAMAGE = 1
DAMAGE_KEYS_HELP = (
    "critical_damage is the Critical Hit's total damage (the hit's own damage plus the second Attack Roll's "
    "extra damage, after Shielding); extra_damage is that extra damage alone, as the seed words it "
    "('5 points of extra damage' ... '6 points of total damage'), added to hit_damage (default 1)"
)


def critical_of(data: Mapping[str, Any]) -> tuple[int | None, str]:
    """The total damage of a Critical Hit described by ``data`` and how it was given.

    ``critical_damage`` is the total; ``extra_damage`` (+ ``hit_damage``, default 1) is the seed's wording.
    """
    crit = data.get("critical_damage")
    if isinstance(crit, (int, float)) and not isinstance(crit, bool):
        return int(crit), f"critical damage {int(crit)}"
    extra = data.get("extra_damage")
    if isinstance(extra, (int, float)) and not isinstance(extra, bool):
        hit = data.get("hit_damage", DEFAULT_HIT_DAMAGE)
        hit = int(hit) if isinstance(hit, (int, float)) and not isinstance(hit, bool) else DEFAULT_HIT_DAMAGE
        return hit + int(extra), f"{hit} + {int(extra)} extra = {hit + int(extra)} damage"
    return None, ""

ROLLS: dict[str, RollSpec] = {
    "second_attack_roll": RollSpec(1, 10, "the Critical Hit's second Attack Roll; a natural 10 is a Catastrophic Failure"),
}

SETTINGS: dict[str, tuple[Any, str]] = {
    "chain_reactions": (
        True,
        "Models caught by an explosion may explode in turn (a chain). The seed's test is general, \"Any single "
        "Critical Hit that inflicts twice the amount of damage as the target Model's number of Damage Tracks, causes "
        "a Catastrophic Explosion\": the explosion's own AOE attack is such a hit on each model it catches. On by "
        "default; off keeps every explosion to its own model, and a step names who would have exploded.",
    ),
    "chain_depth": (
        5,
        "How many links a chain reaction follows (1-20): the first explosion's victims are link 1, theirs link 2. "
        "Each model explodes at most once anyway; the bound keeps a cascade to what a table can follow, and a step "
        "names any model it stops.",
    ),
    "chain_trigger": (
        "critical",
        "When a caught model explodes: 'critical' = the explosion's AOE attack scored a single Critical Hit on it "
        "inflicting at least twice its damage tracks (weapon.caught.<id>.critical_damage, the seed's own test); "
        "'destroyed' = the explosion destroyed it (weapon.caught.<id>.destroyed = true).",
    ),
    "martyr_points_to_closest_enemy": (
        True,
        "With more than two sides, the Martyr's own points go to the owner of the closest model of another side "
        "(true) or of any side, its own included (false).",
    ),
}


@dataclass(frozen=True)
class Trigger:
    """Whether and how big the template's own model explodes."""

    explodes: bool
    tracks: int | None
    rav: int | None
    aoe: int | None
    cause: str
    martyr_bonus: bool = False
    reason: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: The rule that decides it (an id of ``rules_text.RULES``).
    rule: str = "no_explosion"


def _tracks(model: Model) -> int | None:
    value = model.stats.get("damage_tracks")
    return None if value is None else int(value)


def _size(model: Model, tracks: int, caused_by_another: bool) -> tuple[int, bool]:
    """(RAV = AOE, martyr bonus) of an explosion of ``model`` on ``tracks`` damage tracks."""
    bonus = caused_by_another and "martyr" in model.tags
    return tracks + (1 if bonus else 0), bonus


def trigger(template: Template, scenario: Scenario) -> Trigger:
    """Does the template's model explode, and with what RAV and AOE (before any dice)?"""
    placement = template.placement
    if not isinstance(placement, Explosion):
        return Trigger(False, None, None, None, "none", reason="a catastrophic explosion is placed with explosion = {model}")
    model = scenario.model(placement.model)
    tracks = _tracks(model)
    weapon = template.weapon
    if weapon.get("specialty_action") == SELF_DESTRUCT:
        if "martyr" not in model.tags:
            return Trigger(False, tracks, None, None, SELF_DESTRUCT, reason=f"{model.label} has no Martyr upgrade to self-destruct with", rule="self_destruct_refused")
        if "infantry" in model.tags:
            return Trigger(False, tracks, None, None, SELF_DESTRUCT, reason="infantry cannot take the Martyr upgrade", rule="infantry")
        if tracks is None or tracks < 1:
            return Trigger(False, tracks, None, None, SELF_DESTRUCT, reason=f"{model.label} has no damage tracks left (stats.damage_tracks)", rule="self_destruct_refused")
        return Trigger(True, tracks, tracks, tracks, SELF_DESTRUCT, rule="self_destruct")
    crit, how = critical_of(weapon)
    if crit is None:
        return Trigger(
            False, tracks, None, None, "none",
            reason="give weapon.critical_damage or weapon.extra_damage (a Critical Hit), or specialty_action = \"self_destruct\"",
        )
    if "infantry" in model.tags:
        return Trigger(False, tracks, None, None, "critical", reason="infantry models never suffer Catastrophic Explosions", rule="infantry")
    if tracks is None or tracks < 1:
        return Trigger(False, tracks, None, None, "critical", reason=f"{model.label} has no damage tracks (stats.damage_tracks)")
    if crit < 2 * tracks:
        why = f"{how} is less than twice {tracks} damage tracks ({2 * tracks})"
        if "critical_damage" in weapon and crit + DEFAULT_HIT_DAMAGE >= 2 * tracks:
            # The seed's example words the second roll as "5 points of extra damage": a user copying that
            # number into critical_damage would be one short of the total.
            why += (
                f"; note: critical_damage is the total damage of the Critical Hit. If {crit} is the second Attack "
                f"Roll's extra damage (the seed: '5 points of extra damage' makes '6 points of total damage'), "
                f"write extra_damage = {crit} instead"
            )
        return Trigger(False, tracks, None, None, "critical", reason=why)
    size, bonus = _size(model, tracks, True)
    return Trigger(True, tracks, size, size, "critical", martyr_bonus=bonus, rule="martyr_bonus" if bonus else "explode")


def explosion_shape(template: Template, scenario: Scenario) -> TemplateShape:
    """A circle of radius AOE inches (the would-be size when nothing explodes, so the app can show it)."""
    t = trigger(template, scenario)
    aoe = t.aoe if t.aoe is not None else max(t.tracks or 0, 0)
    if aoe <= 0:
        aoe = 1  # nothing explodes; any positive size keeps the geometry valid
    return TemplateShape("circle", diameter=2 * aoe * INCH_MM, label=f"AOE/{aoe}")


@dataclass
class Blast:
    """One explosion in a chain."""

    model: str
    rav: int
    aoe: int
    placed: PlacedTemplate
    coverage: Coverage
    caused_by: str | None
    martyr_bonus: bool

    @property
    def caught(self) -> tuple[str, ...]:
        return self.coverage.affected


def _sides(scenario: Scenario) -> set[str]:
    return {m.side for m in scenario.models if m.side is not None and m.side != "neutral"}


def _martyr_awarded_to(martyr: Model, scenario: Scenario, settings: Mapping[str, Any]) -> str | None:
    """Who scores the Martyr itself: the opposing player, or with several, the owner of the closest model."""
    others = sorted(_sides(scenario) - {martyr.side})
    if len(others) <= 1:
        return others[0] if others else None
    enemy_only = bool(settings.get("martyr_points_to_closest_enemy", True))
    candidates = [
        m for m in scenario.models
        if m.id != martyr.id and m.side is not None and m.side != "neutral" and (not enemy_only or m.side != martyr.side)
    ]
    if not candidates:
        return None
    closest = min(candidates, key=lambda m: (math.dist(m.centre, martyr.centre), m.id))
    return closest.side


def _caught_explodes(model: Model, data: Mapping[str, Any], settings: Mapping[str, Any]) -> tuple[bool, str]:
    """Does a model caught by an explosion explode in turn? (answer, why)."""
    if "infantry" in model.tags:
        return False, "infantry never explode"
    tracks = _tracks(model)
    if tracks is None or tracks < 1:
        return False, "no damage tracks"
    if settings.get("chain_trigger", "critical") == "destroyed":
        if data.get("destroyed") is True:
            return True, "destroyed by the explosion"
        return False, "not destroyed"
    crit, how = critical_of(data)
    if crit is not None and crit >= 2 * tracks:
        return True, f"a Critical Hit of {how} >= twice {tracks} damage tracks"
    return False, "no Critical Hit of twice its damage tracks" if crit is None else f"{how} < {2 * tracks}"


def resolve(ctx: Context) -> Resolution:
    """The explosion (if any), its chain reaction, Catastrophic Failure and Martyr victory points."""
    template, scenario, settings = ctx.template, ctx.scenario, ctx.settings
    models = scenario.models_by_id()
    names = display_names(scenario)
    t = trigger(template, scenario)
    steps: list[Step] = []
    details: dict[str, Any] = {
        "explodes": t.explodes, "rav": t.rav, "aoe": t.aoe, "cause": t.cause,
        "damage_tracks": t.tracks, "martyr_bonus": t.martyr_bonus,
    }
    weapon = template.weapon
    if t.cause == "critical":
        crit, _how = critical_of(weapon)
        details["critical_damage"] = crit
        if "extra_damage" in weapon:
            details["extra_damage"] = weapon["extra_damage"]
            details["hit_damage"] = weapon.get("hit_damage", DEFAULT_HIT_DAMAGE)
        details["threshold"] = None if t.tracks is None else 2 * t.tracks
        face = ctx.dice.roll("second_attack_roll", ROLLS["second_attack_roll"], "the Critical Hit's second Attack Roll")
        auto = weapon.get("auto_10") is True
        failure = face == 10 or auto
        details["second_attack_roll"] = face
        details["catastrophic_failure"] = failure
        if failure:
            why = "Auto 10" if auto else "natural 10"
            origin_id = ctx.placed.user
            steps.append(Step(
                "note", f"Catastrophic Failure ({why}): the target returns no Defensive Fire this activation",
                data={"model": origin_id} if origin_id else {}, rule="failure",
            ))
    if not t.explodes:
        would = [i for i, c in ctx.coverage.models.items() if c.status == "affected"]
        nobody = f"; nobody in the would-be AOE is affected ({named(would, names)})" if would else ""
        steps.append(Step("note", f"No Catastrophic Explosion: {t.reason}{nobody}", data={"models": would}, rule=t.rule))
        details.update(chain=[], caught=[])
        outside = with_statuses(ctx.coverage, {i: "outside" for i, c in ctx.coverage.models.items() if c.status != "user"})
        return Resolution(coverage=outside, affected=(), details=details, steps=tuple(steps))

    assert t.rav is not None and t.aoe is not None
    origin = models[ctx.placed.user or ""] if ctx.placed.user else None
    assert origin is not None
    blasts = [Blast(origin.id, t.rav, t.aoe, ctx.placed, ctx.coverage, None, t.martyr_bonus)]
    depth = {origin.id: 0}
    bonus_text = ", +1: Martyr explosives" if t.martyr_bonus else ""
    how = "its current" if t.cause == SELF_DESTRUCT else "its"
    steps.append(Step("explode", f"{origin.label} explodes: RAV {t.rav}, AOE/{t.aoe} ({how} {t.tracks} damage tracks{bonus_text})", ctx.placed,
                      {"model": origin.id, "rav": t.rav, "aoe": t.aoe, "tracks": t.tracks}, rule=t.rule))
    exploded = {origin.id}
    caught_data = weapon.get("caught", {})
    caught_data = caught_data if isinstance(caught_data, Mapping) else {}
    chain_on = bool(settings.get("chain_reactions", SETTINGS["chain_reactions"][0]))
    max_depth = int(settings.get("chain_depth", SETTINGS["chain_depth"][0]))
    details["chain_reactions"] = chain_on
    details["chain_depth"] = max_depth
    stopped: list[str] = []
    would_chain: list[str] = []
    judged: set[str] = set()
    doubtful_links: set[str] = set()  # models whose explosion hangs on a contested catch
    k = 0
    while k < len(blasts):
        blast = blasts[k]
        k += 1
        source = models[blast.model].label
        fresh = [v for v in blast.caught if v not in exploded]
        if blast.caught:
            steps.append(Step(
                "note", f"Caught by {source}'s explosion (RAV {blast.rav}, AOE/{blast.aoe}), whatever their side: "
                f"{named(blast.caught, names)}",
                data={"models": list(blast.caught), "caused_by": blast.model}, rule="caught",
            ))
        for victim_id in fresh:
            data = caught_data.get(victim_id)
            if not isinstance(data, Mapping):
                continue  # what the AOE attack did to it is not given: it does not explode
            victim = models[victim_id]
            go, why = _caught_explodes(victim, data, settings)
            if not go:
                if victim_id in judged:
                    continue  # said once, at the first explosion that caught it
                judged.add(victim_id)
                rule = "infantry" if "infantry" in victim.tags else "no_explosion"
                steps.append(Step("note", f"{victim.label}, caught by {source}'s explosion, does not explode: {why}",
                                  data={"model": victim_id, "caused_by": blast.model}, rule=rule))
                continue
            if not chain_on:
                would_chain.append(victim_id)
                continue
            link = depth[blast.model] + 1
            if link > max_depth:
                if victim_id in stopped:
                    continue
                stopped.append(victim_id)
                steps.append(Step("note", f"{victim.label}, caught by {source}'s explosion ({why}), would explode as link {link} "
                                          f"of the chain: beyond the setting chain_depth = {max_depth}, the chain stops here",
                                  data={"model": victim_id, "caused_by": blast.model, "link": link}, rule="chain_stops"))
                continue
            tracks = _tracks(victim) or 0
            size, bonus = _size(victim, tracks, True)
            edge = blast.coverage.models[victim_id]
            if edge.contested:
                why += f"; caught {edge.margin_mm:+.1f} mm inside the AOE's edge [contested: a judge's call]"
                doubtful_links.add(victim_id)
            elif blast.model in doubtful_links:
                why += f" [contested: {source}'s own explosion is a judge's call]"
                doubtful_links.add(victim_id)
            shape = TemplateShape("circle", diameter=2 * size * INCH_MM, label=f"AOE/{size}")
            placed = PlacedTemplate(f"{template.id}.{victim_id}", shape, victim.centre, 0.0, user=victim_id)
            blasts.append(Blast(victim_id, size, size, placed, ctx.cover(placed), blast.model, bonus))
            exploded.add(victim_id)
            depth[victim_id] = link
            extra = " (+1: Martyr explosives)" if bonus else ""
            steps.append(Step("explode", f"Chain reaction, link {link}: {victim.label}, caught by {source}'s explosion "
                                         f"({why}), explodes: RAV {size}, AOE/{size}{extra}", placed,
                              {"model": victim_id, "rav": size, "aoe": size, "caused_by": blast.model, "link": link},
                              rule="chain_martyr" if bonus else "chain"))

    if would_chain:
        steps.append(Step("note", f"Chain reactions are off (setting chain_reactions): "
                                  f"{named(would_chain, names)} would explode in turn",
                          data={"models": would_chain}, rule="chain_off"))
    details["chain_stopped"] = stopped
    caught_by: dict[str, list[str]] = {}
    for b in blasts:
        for victim_id in b.caught:
            caught_by.setdefault(victim_id, []).append(b.model)
    coverage = _chain_coverage(ctx.coverage, blasts)
    affected = tuple(sorted(i for i in caught_by if i != origin.id))
    details["chain"] = [
        {"model": b.model, "rav": b.rav, "aoe": b.aoe, "caused_by": b.caused_by, "martyr_bonus": b.martyr_bonus,
         "caught": list(b.caught)}
        for b in blasts
    ]
    details["caught"] = sorted(caught_by)
    details["exploded"] = [b.model for b in blasts]

    vp: list[dict[str, Any]] = []
    for n, b in enumerate(blasts):
        m = models[b.model]
        if "martyr" not in m.tags:
            continue
        awarded = _martyr_awarded_to(m, scenario, settings)
        # Models that exploded earlier in the chain were already destroyed; nobody scores one's own side.
        earlier = {x.model for x in blasts[:n]}
        victims = {v: (m.side if models[v].side != m.side else None) for v in b.caught if v not in earlier}
        vp.append({"martyr": m.id, "martyr_awarded_to": awarded, "caught_awarded_to": victims})
        several = len(_sides(scenario) - {m.side}) > 1
        steps.append(Step(
            "note",
            f"Victory points: {m.label} counts as destroyed by {awarded or 'nobody'}"
            + (" (the owner of the closest model: several sides are playing)" if several else " (the opposing player)"),
            data={"model": m.id, "awarded_to": awarded}, rule="points_multi_side" if several else "points_two_sides",
        ))
        scored = sorted(v for v, side in victims.items() if side is not None)
        if scored:
            steps.append(Step(
                "note", f"Victory points: the models {m.label}'s explosion damages or destroys ({named(scored, names)}) score for {m.side}",
                data={"model": m.id, "models": scored}, rule="points_caught",
            ))
    details["victory_points"] = vp
    model_details: dict[str, dict[str, Any]] = {}
    for victim_id, by in caught_by.items():
        model_details[victim_id] = {"caught_by": by}
    for b in blasts:
        model_details.setdefault(b.model, {})["explodes"] = f"RAV {b.rav}, AOE/{b.aoe}"
    return Resolution(
        coverage=coverage,
        affected=affected,
        details=details,
        model_details=model_details,
        steps=tuple(steps),
        also_drawn=tuple(b.placed for b in blasts[1:]),
    )


def _chain_coverage(first: Coverage, blasts: list[Blast]) -> Coverage:
    """One coverage for the whole chain: a model is affected when any explosion catches it; its margin is the
    deepest any explosion reaches into it, and it is contested unless an explosion that surely happened
    surely catches it (one whose own model was surely caught, all the way back to the first)."""
    sure: set[str] = set()  # models surely caught by surely-happened explosions
    surely_happened = []
    for k, b in enumerate(blasts):
        if k == 0 or b.model in sure:
            surely_happened.append(b)
            for i, c in b.coverage.models.items():
                if c.status == "affected" and not c.contested:
                    sure.add(i)
    entries = dict(first.models)
    for i, c in first.models.items():
        if c.status == "user":
            continue
        cs = [b.coverage.models[i] for b in blasts if b.coverage.models[i].status != "user"]  # not its own explosion
        caught = any(x.status == "affected" for x in cs)
        margin = max(x.margin_mm for x in cs)
        near = any(x.contested for x in cs)
        doubtful = (caught and i not in sure) or (not caught and near)
        entries[i] = ModelCoverage("affected" if caught else c.status, margin, doubtful)
    return dataclasses.replace(first, models=entries)


def _damage_problems(data: Mapping[str, Any], where: str) -> list[tuple[str, str]]:
    """Damage keys that cannot be what the user meant: not whole numbers, or both ways of giving it."""
    out: list[tuple[str, str]] = []
    for key in ("critical_damage", "extra_damage", "hit_damage"):
        v = data.get(key)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or float(v) != int(v):
            out.append((f"{where}.{key}", f"must be a whole number of damage points, 0 or more, got {v!r} ({DAMAGE_KEYS_HELP})"))
    if "critical_damage" in data and "extra_damage" in data:
        out.append((where, f"give critical_damage or extra_damage, not both: {DAMAGE_KEYS_HELP}"))
    if "hit_damage" in data and "extra_damage" not in data:
        out.append((f"{where}.hit_damage", f"only counts with extra_damage: {DAMAGE_KEYS_HELP}"))
    return out


def validate(scenario: Scenario) -> list[tuple[str, str]]:
    """Weapon keys that cannot be read: (field path, message)."""
    problems: list[tuple[str, str]] = []
    ids = {m.id for m in scenario.models}
    for i, t in enumerate(scenario.templates):
        w = t.weapon
        where = f"template[{i}].weapon"
        problems += _damage_problems(w, where)
        crit = w.get("critical_damage", w.get("extra_damage"))
        action = w.get("specialty_action")
        if action is not None and action != SELF_DESTRUCT:
            problems.append((f"{where}.specialty_action", f"the only Specialty Action here is \"self_destruct\", got {action!r}"))
        if crit is not None and action is not None:
            problems.append((where, "give critical_damage (or extra_damage) or specialty_action, not both"))
        caught = w.get("caught")
        if caught is not None:
            if not isinstance(caught, Mapping):
                problems.append((f"{where}.caught", "must be a table {model id = {critical_damage = N, destroyed = bool}}"))
            else:
                for key, data in caught.items():
                    if key not in ids:
                        problems.append((f"{where}.caught.{key}", f"{key!r} is not a model on this table"))
                    if isinstance(data, Mapping):
                        problems += _damage_problems(data, f"{where}.caught.{key}")
    return problems


RULESET = Ruleset(
    name="catastrophic",
    title="Catastrophic Damage — explosions, chain reactions, Martyr",
    resolve=resolve,
    uses_visibility=False,
    rolls=ROLLS,
    explosion_shape=explosion_shape,
    validate=validate,
    settings=SETTINGS,
    doc=(
        "Catastrophic Explosions: a Critical Hit of twice the damage tracks makes a RAV/AOE explosion centred on "
        "the model, catching every model; Catastrophic Failure; the Martyr upgrade (self-destruct, +1, victory "
        "points); chain reactions. See tabletop/rulesets/catastrophic/README.md."
    ),
)
