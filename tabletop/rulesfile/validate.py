"""A scenario checked against the rules file it names: stats, weapon keys, grid, batteries.

Each problem names the scenario's field and, in its message, the line of the rules file that
needs it (``... which the rules read (house.rules.toml:14)``), so both ends of a mismatch are found.
"""

from __future__ import annotations

import difflib
from typing import Any

from tabletop.model import Direct, Impact, Scenario
from tabletop.rulesfile.compile import Rules

_SPECIAL = ("tags", "height")


def _guess(name: str, options: list[str]) -> str | None:
    """The option nearest ``name``, letter case aside (``Aim`` finds ``AIM``)."""
    lowered = {o.lower(): o for o in options}
    found = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.5)
    return lowered[found[0]] if found else None


def _where(rules: Rules, owner: str, name: str) -> str:
    """``house.rules.toml:14``: the first line of the file reading ``owner.name``."""
    file = rules.path.name if rules.path is not None else rules.name
    lines = [rules.lines.get(path) for path, e in rules.exprs.items() if (owner, name) in e.refs]
    line = min((n for n in lines if n), default=None)
    return f"{file}:{line}" if line else file


def _needed(rules: Rules, owner: str) -> list[str]:
    """Stats (or weapon keys) read from ``owner`` with no default."""
    names: set[str] = set()
    for e in rules.exprs.values():
        names |= e.reads(owner)
    if owner == "weapon":
        names |= {s.who.split(".", 1)[1] for s in rules.spec.saves.values() if s.who.startswith("weapon.")}
        return sorted(n for n in names if rules.spec.weapon.get(n) is None or rules.spec.weapon[n].default is None)
    return sorted(n for n in names if n not in _SPECIAL and (rules.spec.stats.get(n) is None or rules.spec.stats[n].default is None))


def validate(rules: Rules, scenario: Scenario) -> list[tuple[str, str]]:
    """Problems of ``scenario`` under ``rules``: (field path, message)."""
    problems: list[tuple[str, str]] = []
    models = scenario.models_by_id()
    have = {k for m in scenario.models for k in m.stats}
    for name in _needed(rules, "model"):
        lacking = [k for k, m in enumerate(scenario.models) if name not in m.stats]
        if not lacking:
            continue
        if not any(name in m.stats for m in scenario.models):
            guess = _guess(name, sorted(have))
            hint = f' (did you mean "{guess}"? the rules file says {name!r})' if guess else ""
            problems.append(("model", f"no model on this table has stat {name!r}, which the rules read ({_where(rules, 'model', name)}){hint}; give the models one, or the stat a default in [stats]"))
            continue
        for k in lacking:
            m = scenario.models[k]
            problems.append((f"model[{k}].stats", f"model {m.id!r} has no stat {name!r}, which the rules read ({_where(rules, 'model', name)}); give it one, or the stat a default in [stats]"))
    for i, t in enumerate(scenario.templates):
        p = t.placement
        firer = models.get(p.attacker) if isinstance(p, (Impact, Direct)) else None
        target = models.get(p.target) if isinstance(p, Impact) and p.target is not None else None
        for owner, who, loc in (("attacker", firer, "impact.attacker" if isinstance(p, Impact) else "direct.attacker"), ("target", target, "impact.target")):
            if who is None:
                continue
            for name in _needed(rules, owner):
                if name not in who.stats:
                    guess = _guess(name, sorted(who.stats))
                    hint = f' (did you mean "{guess}"? the rules file says {name!r})' if guess else ""
                    problems.append((f"template[{i}].{loc}", f"{owner} {who.id!r} has no stat {name!r}, which the rules read ({_where(rules, owner, name)}){hint}"))
        for name in _needed(rules, "weapon"):
            if name not in t.weapon:
                guess = _guess(name, sorted(t.weapon))
                hint = f' (did you mean "{guess}"?)' if guess else ""
                problems.append((f"template[{i}].weapon", f"weapon.{name} is read by the rules ({_where(rules, 'weapon', name)}) and has no default{hint}"))
        for key, sv in rules.spec.saves.items():
            if sv.who.startswith("weapon."):
                value: Any = t.weapon.get(sv.who.split(".", 1)[1])
                if value is not None and value != "all" and not (isinstance(value, list) and all(isinstance(v, str) and v in models for v in value)):
                    problems.append((f"template[{i}].{sv.who}", f"must be \"all\" or a list of model ids (the rules' save {key!r} reads it)"))
        if t.battery > 1 and rules.spec.battery is None:
            problems.append((f"template[{i}].battery", f"these rules lay no batteries ({rules.name} has no [battery])"))
    if rules.spec.effect.halve_per_square and not scenario.table.grid:
        problems.append(("table.grid", "these rules halve per grid square: give the table a grid (grid = 1)"))
    return problems
