"""Checks of a whole document: limits that hold anywhere, keys the format does not know,
pydantic's errors in the file's words, and the ruleset's own checks."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from tabletop.dice import check_fixed_rolls
from tabletop.model import Scenario
from tabletop.scenario_io.limits import MAX_DEPTH, MAX_EXACT_INT, MAX_ITEMS, MAX_SEED, MAX_VERTICES, SHAPE_KEYS, _shown
from tabletop.scenario_io.fields import FIELDS, NESTED
from tabletop.settings import check_mapping as check_settings
from tabletop.units import MAX_NAME_CHARS, MAX_TEXT_CHARS, printable


def _kind(cls: type | str) -> str:
    """A table of the format by its schema model's name (``"ModelIn"``); a model class works too."""
    return cls if isinstance(cls, str) else cls.__name__


def _known_fields(cls: type | str) -> list[str]:
    """The fields the format knows in a table (the schema model's fields, without importing it)."""
    return list(FIELDS[_kind(cls)])


_EXTRA_ALIASES = {"radius"}


def nearest(word: str, known: Sequence[str], cutoff: float = 0.6) -> str | None:
    """The known word ``word`` most likely misspells, or None. Case is no spelling: ``X`` is ``x``
    (difflib alone finds nothing alike in two one-letter words of different case)."""
    folded = {k.casefold(): k for k in reversed(list(known))}
    if word.casefold() in folded:
        return folded[word.casefold()]
    guess = difflib.get_close_matches(word.casefold(), list(folded), n=1, cutoff=cutoff)
    return folded[guess[0]] if guess else None


def _unknown_key_warnings(raw: Any, cls: type | str, loc: tuple[Any, ...], out: list[tuple[tuple[Any, ...], str]]) -> None:
    if not isinstance(raw, dict):
        return
    kind = _kind(cls)
    known = _known_fields(kind)
    for key, value in raw.items():
        if key not in known:
            guess = nearest(str(key), known)
            hint = f" (did you mean {guess!r}?)" if guess else ""
            out.append(((*loc, key), f"unknown key {key!r} is kept but not used{hint}"))
            continue
        for sub in _nested_models(kind, key):
            _unknown_key_warnings(value, sub, (*loc, key), out)


_NESTED = NESTED


def _nested_models(cls: type | str, key: str) -> tuple[str, ...]:
    """The tables a field of ``cls`` holds (one-to-one tables; the lists of ScenarioIn are walked by the caller)."""
    kind = _kind(cls)
    sub = NESTED.get((kind, key))
    return (sub,) if sub is not None and kind != "ScenarioIn" else ()


def _collect_unknown(data: dict[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    out: list[tuple[tuple[Any, ...], str]] = []
    known_top = _known_fields("ScenarioIn") + ["settings", "seed", "catalogue"]
    for key in data:
        if key not in known_top:
            guess = nearest(str(key), known_top)
            hint = f" (did you mean {guess!r}?)" if guess else ""
            out.append(((key,), f"unknown key {key!r} is kept but not used{hint}"))
    _unknown_key_warnings(data.get("table"), "TableIn", ("table",), out)
    _unknown_key_warnings(data.get("backdrop"), "BackdropIn", ("backdrop",), out)
    for key, cls in (("model", "ModelIn"), ("terrain", "TerrainIn"), ("template", "TemplateIn")):
        items = data.get(key)
        if isinstance(items, list):
            for i, item in enumerate(items):
                if isinstance(item, dict):
                    _unknown_key_warnings(item, cls, (key, i), out)
                    if key == "template" and isinstance(item.get("shape"), dict):
                        shape_keys = SHAPE_KEYS
                        for sk in item["shape"]:
                            if sk not in shape_keys:
                                guess = nearest(str(sk), sorted(shape_keys))
                                hint = f" (did you mean {guess!r}?)" if guess else ""
                                out.append(((key, i, "shape", sk), f"unknown key {sk!r} is kept but not used{hint}"))
    return out


def _extra(obj: Any) -> dict[str, Any]:
    return dict(obj.model_extra or {})


def _clean_loc(loc: Sequence[Any]) -> tuple[Any, ...]:
    # pydantic adds validator and union-member names to locations; field paths have neither.
    return tuple(p for p in loc if isinstance(p, int) or ("[" not in str(p) and str(p) not in {"str", "dict[str,any]"}))


def _message(err: Mapping[str, Any]) -> str:
    msg = str(err.get("msg", "invalid"))
    msg = re.sub(r"^(Value error|Assertion failed), ", "", msg)
    if err.get("type") == "missing":
        return "is required"
    if err.get("type") == "literal_error":
        return msg[0].lower() + msg[1:] + f", got {err.get('input')!r}"
    if err.get("type") == "too_long" and isinstance(err.get("loc"), tuple) and len(err["loc"]) == 1:
        # A top-level table list (model, terrain, template): name the limit in the file's words.
        limit = (err.get("ctx") or {}).get("max_length")
        got = (err.get("ctx") or {}).get("actual_length")
        return f"at most {limit:,} [[{err['loc'][0]}]] tables, got {got:,}" if limit is not None and got is not None else msg
    return msg


def _document_problems(data: Any) -> list[tuple[tuple[Any, ...], str]]:
    """Limits that hold anywhere in a document, kept keys included: nesting, huge whole numbers,
    lone surrogates, giant texts and lists. One problem per offending field (at most 20)."""
    out: list[tuple[tuple[Any, ...], str]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack and len(out) < 20:
        node, loc = stack.pop()
        if len(loc) > MAX_DEPTH:
            out.append((loc[:MAX_DEPTH], f"nested more than {MAX_DEPTH} deep"))
            continue
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(key, str) and (not printable(key) or len(key) > MAX_NAME_CHARS):
                    out.append((loc, f"key {_shown(key)} must be printable and at most {MAX_NAME_CHARS} characters"))
                    continue
                stack.append((value, (*loc, key)))
        elif isinstance(node, list):
            if len(node) > MAX_ITEMS and loc[-1:] != ("points",):
                out.append((loc, f"at most {MAX_ITEMS:,} entries, got {len(node):,}"))
                continue
            if len(node) > MAX_VERTICES:
                out.append((loc, f"a terrain outline has at most {MAX_VERTICES:,} points, got {len(node):,}"))
                continue
            stack.extend((v, (*loc, i)) for i, v in reversed(list(enumerate(node))))
        elif isinstance(node, int) and not isinstance(node, bool):
            if abs(node) > MAX_EXACT_INT and loc != ("seed",):  # the seed has its own range (_seed_problem)
                out.append((loc, f"number too large, got {_shown(node)} (whole numbers are at most {MAX_EXACT_INT:,})"))
        elif isinstance(node, str):
            if len(node) > MAX_TEXT_CHARS:
                out.append((loc, f"text of {len(node):,} characters; at most {MAX_TEXT_CHARS:,}"))
            elif any(0xD800 <= ord(c) <= 0xDFFF for c in node):
                out.append((loc, f"holds a lone UTF-16 surrogate (not valid text): {_shown(node)}"))
    out.reverse()
    return sorted(out, key=lambda item: [str(p) for p in item[0]])


def _seed_problem(data: Mapping[str, Any]) -> str | None:
    """What is wrong with the file's ``seed``, if anything: the range ``--seed`` takes too."""
    if "seed" not in data:
        return None
    seed = data["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        shown = repr(seed) if isinstance(seed, int) and abs(seed) < 10**40 else _shown(seed)
        return f"must be a whole number from 0 to 2**63-1 ({MAX_SEED:,}), got {shown}"
    return None


def _ruleset_checks(scenario: Scenario, problem: Any) -> None:
    from tabletop import rulesets  # rulesets import the core; import late to keep this module light

    ruleset = rulesets.get(scenario.ruleset)
    for i, t in enumerate(scenario.templates):
        for roll, message in check_fixed_rolls(t.rolls, ruleset.rolls):
            problem(("template", i, "rolls", roll), message)
        for roll in t.rolls:
            if ruleset.rolls and roll not in ruleset.rolls:
                known = ", ".join(sorted(ruleset.rolls))
                problem(("template", i, "rolls", roll), f"ruleset {scenario.ruleset} has no roll {roll!r} (it rolls {known})", True)
        if t.shape is None and ruleset.explosion_shape is None:
            problem(("template", i, "shape"), f"ruleset {scenario.ruleset} does not size explosions: give a shape")
    said: set[tuple[Any, ...]] = set()
    if "settings" in scenario.extra:
        for name, message in check_settings(scenario.extra["settings"], ruleset.settings, ruleset.name):
            loc = ("settings", name) if name else ("settings",)
            said.add(loc)
            problem(loc, message)
    if ruleset.validate is not None:
        for path, message in ruleset.validate(scenario):
            loc = tuple(int(p) if p.isdigit() else p for p in re.split(r"[.\[\]]+", path) if p)
            if loc[:1] == ("settings",) and (loc in said or ("settings",) in said):
                continue  # the declared settings' check named it already, in the same words as --set
            problem(loc, message)
