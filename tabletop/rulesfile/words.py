"""A rules file in plain words: what ``tabletop rules explain FILE`` prints."""

from __future__ import annotations

import re

from tabletop.rulesfile.compile import Rules
from tabletop.rulesfile.ruleset import declared
from tabletop.units import to_units

_OWNER = {"attacker": "the firer's", "target": "the target's", "model": "the model's", "weapon": "the weapon's"}
_NAMES = {
    "strike": "the to-hit total", "range": "the range to the target", "hit": "it hit", "scattered": "it scattered",
    "primary": "it is the target", "in_cover": "it is in cover", "partial": "it is partly covered",
    "squares": "the squares from the blast", "templates": "the templates over it",
}


def phrase(text: object) -> str:
    """An expression read aloud: ``2d6 + attacker.BS >= 7`` -> ``2D6 + the firer's BS ≥ 7``."""
    s = str(text)
    s = re.sub(r"(?<![\w.])(\d*)d(\d+)\b", lambda m: f"{m.group(1)}D{m.group(2)}", s)
    s = re.sub(r"\b(attacker|target|model|weapon)\.(\w+)", lambda m: f"{_OWNER[m.group(1)]} {m.group(2)}", s)
    s = re.sub(r"(?<!'s )(?<![\w.])(" + "|".join(_NAMES) + r")\b(?!')", lambda m: _NAMES[m.group(1)], s)
    return s.replace(">=", "≥").replace("<=", "≤").replace("!=", "≠").replace("==", "=")


def _length(rules: Rules, path: str) -> str:
    value = rules.lengths.get(path)
    if value is None:
        return "none"
    if isinstance(value, str):
        return "the range to the target" if value == "range" else phrase(value)
    return f"{to_units(float(value), rules.spec.units):g}{rules.spec.units}"


def explain(rules: Rules) -> str:
    """Every section of the file in plain words, then its rolls and settings."""
    s = rules.spec
    out = [f"{s.game.title} ({s.game.name})"]
    if s.game.about:
        out.append(s.game.about)
    src = s.source
    where = src.file or src.url or src.cite
    out.append(f"Rules text: {where}; {len(src.sentences)} sentence{'s' if len(src.sentences) != 1 else ''} quoted.")
    out.append("")
    pl = s.placement
    place = {
        "as_written": "where the scenario places it", "target": "on the target model", "point": "on the point aimed at",
        "firer_edge": "from the firer's base edge, along the line of fire", "range": f"at {_length(rules, 'placement.distance')} from the firer",
    }[pl.on]
    orient = {"as_written": "", "line_of_fire": ", its axis along the line of fire", "across": ", its longest dimension across the line of fire"}[pl.orient]
    middle = " (its middle, not its focus, on that point)" if pl.centre == "middle" else ""
    out.append(f"Placement: the template goes {place}{orient}{middle}.")
    if s.battery is not None:
        out.append(
            f"Batteries: battery = N lays N templates side by side across the line of fire, overlapping by {s.battery.overlap:g} of one;"
            f" with an even N the target is {'between the middle two' if s.battery.even == 'between' else 'under one of the middle two'}."
        )
    t = s.target
    checks = ["a firer must aim it at a target model" if not t.points else "it may be aimed at a model or a point"]
    if t.must_be == "enemy":
        checks.append("the target must be an enemy")
    if t.line_of_sight == "base":
        checks.append("some part of the firer's base must see some part of the target's past terrain that blocks sight")
    if t.range is not None:
        checks.append(f"the target must be within {_length(rules, 'target.range')} ({'base edge to base edge' if t.range_measure == 'edge' else 'centre to centre'})")
    out.append("Aiming: " + "; ".join(checks) + ".")
    f = s.friendly_fire
    ff = {"allowed": "allowed", "forbidden": "forbidden: the attack may not be made with a friendly model under it", "test": f"allowed, but the firing unit takes {f.test}"}[f.rule]
    exempt = f" (models tagged {f.exempt!r} do not count)" if f.exempt else ""
    out.append(f"Friendly fire: {ff}{exempt}.")
    if s.to_hit is not None:
        r = rules.rolls[s.to_hit.name or "to_hit"]
        mods = "".join(f"; {phrase(m.add)} when {phrase(m.if_)}" for m in s.to_hit.modifiers)
        out.append(f"To hit: roll {phrase(r.total.text)}{mods}; it hits on {phrase(r.needs.text if r.needs else '?')} or more (roll \"{r.name}\").")
    else:
        out.append("To hit: no roll; the template lands where it is placed.")
    sc = s.scatter
    if sc is not None:
        parts = [f"Scatter ({'on a miss' if sc.when == 'miss' else 'always'}):"]
        if sc.die is not None:
            parts.append(f"roll the scatter die ({sc.die.roll.upper()}): {', '.join(map(str, sc.die.hit))} show HIT and it stays;")
        d = rules.rolls[sc.direction.name]
        if sc.direction.first == "clock":
            parts.append(f"direction: {d.dice.label()} read as hours on a clock, {d.dice.sides} pointing away from the firer, {sc.direction.turn};")
        else:
            first = {"away": "away from the firer", "towards": "towards the firer", "north": "up the table"}[sc.direction.first]
            parts.append(f"direction: {d.dice.label()}, face 1 pointing {first}, the others {360 / d.dice.sides:g}° apart {sc.direction.turn};")
        dist = sc.distance
        minus = f" minus {phrase(dist.minus)}" if dist.minus is not None else ""
        cap = f", at most {_length(rules, 'scatter.distance.max')}" if dist.max is not None else ""
        parts.append(f"distance: {dist.roll.upper()}{minus} {dist.unit}, at least {dist.min:g}{cap}.")
        if sc.then is not None:
            then = rules.rolls[sc.then.name or "scatter_strike"]
            needs = f"; below {phrase(then.needs.text)} it is a dud" if then.needs is not None else ""
            parts.append(f"Then roll {phrase(then.total.text)}: the new to-hit total{needs}.")
        out.append(" ".join(parts))
    u = s.under
    counts = {"any": "any part of its base", "centre": "its base's centre", "fraction": f"at least {u.fraction:g} of its base's area"}[u.counts]
    edge = "touching the edge counts" if u.touching else "a base only touching the edge is not under it"
    out.append(f"Under the template: a model with {counts} under it ({edge}).")
    if u.partial is not None:
        p = rules.rolls[u.partial.name]
        out.append(f"Partly covered models roll {phrase(p.total.text)} and are hit on {phrase(p.needs.text if p.needs else '?')} or more.")
    sight = {"none": "terrain does not shelter anyone", "walls": "terrain that blocks sight shelters models from the blast focus", "silhouettes": "terrain shelters a model when no line reaches its silhouette from the blast focus"}[s.sight.from_focus]
    out.append(f"Sight from the blast: {sight}.")
    for k, c in enumerate(s.cover):
        tall = f", at least {_length(rules, f'cover.{k}.min_height')} tall" if c.min_height is not None else ""
        does = "blocks it: the model is not under the template" if c.effect == "blocks" else "puts the model in cover (in_cover in its saves)"
        out.append(f"Cover: terrain ({', '.join(c.kinds)}{tall}) between the blast focus and a model {does}.")
    e = s.effect
    words = {"full": "in full", "half": "half (rounded down)", "none": "nothing"}
    bands = f"the target {words[e.primary]}, everyone else {words[e.others]}"
    if sc is not None:
        bands += f", after a scatter everyone {words[e.scattered]}"
    halve = "; halved (rounded down) for each grid square from the blast's square" if e.halve_per_square else ""
    none = f"; nothing when {phrase(e.none_if)}" if e.none_if else ""
    structures = f"; terrain with a {e.structures} suffers too" if e.structures else ""
    out.append(f"What each model suffers: {phrase(e.amount)} {e.unit} ({e.kind}), {bands}{halve}{none}{structures}.")
    if e.per_unit:
        out.append(f"The {e.unit} is also counted per unit.")
    for key, sv in s.saves.items():
        r = rules.rolls[sv.name or key]
        who = "every model" if sv.who == "all" else f"the models {phrase(sv.who)} lists"
        how = "automatic" if r.needs is not None and r.needs.constant == 0 else f"roll {phrase(r.total.text)}, needs {phrase(r.needs.text if r.needs else '?')}"
        result = {"none": "the model suffers nothing", "half": "the model suffers half (rounded down)", "cancel": "the attack harms no one"}[sv.success]
        attempt = {"damaged": "those still suffering something", "hit": "those the attack hits", "under": "any under the template"}[sv.attempt]
        cost = f"; costs one {sv.costs}" if sv.costs else ""
        only = f"; only when {phrase(sv.only_if)}" if sv.only_if else ""
        out.append(f"Save \"{key}\": {who}, {attempt}: {how}; on a success {result}{cost}{only}.")
    if rules.rolls:
        out.append("")
        out.append("Rolls a scenario may fix ([template.rolls]): " + ", ".join(f"{n} ({r.dice.label()})" for n, r in rules.rolls.items()) + ".")
    settings = declared(s)
    if settings:
        out.append("Settings ([settings] or --set):")
        for name, (default, why) in settings.items():
            out.append(f"  {name} = {default!r}: {why}")
    return "\n".join(out) + "\n"
