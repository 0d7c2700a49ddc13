"""A compiled rules file as an ordinary :class:`~tabletop.resolution.Ruleset`, settings and all.

A setting's value replaces fields of the file (``sets``); each combination of values is compiled
once (and cached), so ``resolve`` never re-reads text. ``validate`` checks a scenario against the
file: stats the rules read that its models lack, weapon keys, a grid, batteries.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tabletop.model import Scenario
from tabletop.resolution import Context, Resolution, Ruleset, Step
from tabletop.rulesfile import engine
from tabletop.rulesfile.compile import Rules, compile_rules
from tabletop.rulesfile.reading import Located, _message
from tabletop.rulesfile.schema import RulesFile

_VARIANTS_MAX = 64


def _get(spec: Any, path: list[str]) -> Any:
    node = spec
    for part in path:
        if isinstance(node, Mapping):
            node = node[part]
        elif isinstance(node, list):
            node = node[int(part)]
        else:
            node = getattr(node, part)
    return node


def _set(data: dict[str, Any], path: list[str], value: Any) -> None:
    node: Any = data
    for part in path[:-1]:
        if isinstance(node, list):
            node = node[int(part)]
        else:
            node = node.setdefault(part, {})
    if isinstance(node, list):
        node[int(path[-1])] = value
    else:
        node[path[-1]] = value


def _paths(setting: Any) -> list[str]:
    return [setting.sets] if isinstance(setting.sets, str) else list(setting.sets)


def _key(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def setting_default(spec: RulesFile, name: str) -> Any:
    """A setting's default: its own, else (mapped back through ``values``) the field's value in the file."""
    s = spec.settings[name]
    if s.default is not None:
        return s.default
    current = _get(spec, _paths(s)[0].split("."))
    if s.values:
        for k, v in s.values.items():
            if v == current:
                return {"true": True, "false": False}.get(k, k)
    return current


def declared(spec: RulesFile) -> dict[str, tuple[Any, str]]:
    """``Ruleset.settings``: name -> (default, explanation with its choices / range, as tabletop.settings reads them)."""
    out: dict[str, tuple[Any, str]] = {}
    for name, s in spec.settings.items():
        default = setting_default(spec, name)
        why = s.why.replace("'", "\u2019")
        if isinstance(default, str):
            choices = list(s.values) if s.values else _literal_options(spec, _paths(s)[0])
            if choices:
                why += " Choices: " + ", ".join(f"'{c}'" for c in choices) + "."
        elif isinstance(default, (int, float)) and not isinstance(default, bool) and s.low is not None and s.high is not None:
            why += f" ({s.low:g}-{s.high:g})"
        out[name] = (default, why)
    return out


def _literal_options(spec: RulesFile, path: str) -> list[str]:
    import typing

    from tabletop.rulesfile.reading import _model_at

    parts = path.split(".")
    model = _model_at(tuple(parts[:-1]))
    if model is None or parts[-1] not in model.model_fields:
        return []
    ann = model.model_fields[parts[-1]].annotation
    if typing.get_origin(ann) is typing.Literal:
        return [str(a) for a in typing.get_args(ann)]
    return []


def apply(data: Mapping[str, Any], spec: RulesFile, values: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with the settings' values written into the fields they set."""
    out = copy.deepcopy(dict(data))
    for name, value in values.items():
        s = spec.settings.get(name)
        if s is None:
            continue
        field_value = s.values.get(_key(value), value) if s.values else value
        for path in _paths(s):
            _set(out, path.split("."), field_value)
    return out


def check_settings(rules: Rules, where: Located) -> None:
    """Each setting sets fields that exist, its default is what the file says there, and each of its
    choices (its default, its values, its low and high) compiles to a valid file."""
    spec = rules.spec
    for name, s in spec.settings.items():
        for path in _paths(s):
            try:
                _get(spec, path.split("."))
            except (KeyError, AttributeError, IndexError, ValueError):
                where.add(("settings", name, "sets"), f"{path!r} is not a field of this file")
                return
        default = setting_default(spec, name)
        if s.default is not None:
            # The file's fields are the rules when no setting is given: a default that says otherwise would be
            # shown (and taken as "unchanged") while the file's value judges.
            written = apply(rules.data, spec, {name: s.default})
            for path in _paths(s):
                field_value = _get(spec, path.split("."))
                wanted = _get(RulesFile.model_validate(written), path.split(".")) if _valid(written) else None
                if wanted != field_value:
                    where.add(("settings", name, "default"), f"default = {s.default!r}, but {path} is {field_value!r} in this file: "
                              f"give the setting no default (it is the field's value), or write the field as the default")
                    return
        trial = [default] + ([{"true": True, "false": False}.get(k, k) for k in s.values] if s.values else [])
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            trial += [v for v in (s.low, s.high) if v is not None]
        for value in trial:
            value = int(value) if isinstance(value, float) and value.is_integer() else value
            data = apply(rules.data, spec, {name: value})
            try:
                trial_spec = RulesFile.model_validate(data)
            except ValidationError as exc:
                loc, message = _message(exc.errors()[0])
                where.add(("settings", name), f"the value {value!r} makes {'.'.join(map(str, loc))} invalid: {message}")
                break
            trial_where = Located(where.name, None)
            compile_rules(trial_spec, trial_where, rules.path, data)
            if trial_where.problems:
                first = trial_where.problems[0]
                where.add(("settings", name), f"the value {value!r} makes {first.path or 'the file'} invalid: {first.message}")
                break


def _valid(data: Mapping[str, Any]) -> bool:
    try:
        RulesFile.model_validate(data)
    except ValidationError:
        return False
    return True


class CompiledRuleset:
    """The rules of one file under every combination of settings asked for, and the Ruleset over them."""

    def __init__(self, rules: Rules, key: str) -> None:
        self.base = rules
        self.key = key
        self.defaults = {n: d for n, (d, _w) in declared(rules.spec).items()}
        self._variants: dict[tuple[tuple[str, str], ...], Rules] = {}

    def variant(self, settings: Mapping[str, Any]) -> Rules:
        """The rules with ``settings`` applied (compiled once per combination)."""
        changed = {n: v for n, v in settings.items() if n in self.defaults and v != self.defaults[n]}
        if not changed:
            return self.base
        key = tuple(sorted((n, repr(v)) for n, v in changed.items()))
        rules = self._variants.get(key)
        if rules is None:
            data = apply(self.base.data, self.base.spec, changed)
            where = Located(str(self.base.path or self.key), None)
            try:
                spec = RulesFile.model_validate(data)
            except ValidationError as exc:
                raise ValueError(f"settings {changed}: {_message(exc.errors()[0])[1]}") from None
            rules = compile_rules(spec, where, self.base.path, data)
            if where.problems:
                raise ValueError(f"settings {changed}: {where.problems[0]}")
            if len(self._variants) >= _VARIANTS_MAX:
                self._variants.clear()
            self._variants[key] = rules
        return rules

    def resolve(self, ctx: Context) -> Resolution:
        return engine.resolve(self.variant(ctx.settings), ctx)

    def step_rule(self, step: Step) -> tuple[str, str] | None:
        text = self.base.texts.get(step.rule) if step.rule is not None else None
        if text is None or text.quote is None:
            return None
        return (text.title, text.quote)

    def ruleset(self) -> Ruleset:
        from tabletop.rulesfile import batch, hooks
        from tabletop.rulesfile.validate import validate

        spec = self.base.spec
        rolls = {name: r.spec for name, r in self.base.rolls.items()}
        return Ruleset(
            name=self.key,
            title=spec.game.title,
            resolve=self.resolve,
            uses_visibility=spec.sight.from_focus == "walls",
            rolls=rolls,
            validate=lambda scenario: validate(self.base, scenario),
            settings=declared(spec),
            doc=spec.game.about or spec.game.title,
            marks=hooks.marks,
            panel_lines=hooks.panel_lines,
            damage_unit=spec.effect.unit,
            doc_path=self.base.path,
            step_rule=self.step_rule,
            sample_batch=lambda ctx: batch.sample_batch(self.variant(ctx.settings), ctx),
        )


def build(rules: Rules, key: str) -> Ruleset:
    """The Ruleset of compiled ``rules``, registered as ``key``."""
    return CompiledRuleset(rules, key).ruleset()


__all__ = ["build", "declared", "apply", "check_settings", "setting_default", "CompiledRuleset", "Path"]
