"""Ruleset registry: each ruleset is one module exporting ``RULESET``."""

from __future__ import annotations

import importlib

from tabletop.model import RULESET_NAMES
from tabletop.resolution import Ruleset

_MODULES: dict[str, str] = {name: f"tabletop.rulesets.{name}" for name in RULESET_NAMES}
_LOADED: dict[str, Ruleset] = {}


class UnknownRuleset(KeyError):
    """A ruleset name that is not registered."""


def names() -> tuple[str, ...]:
    """Every registered ruleset name."""
    return tuple(_MODULES)


def register(ruleset: Ruleset) -> None:
    """Register (or replace) a ruleset at run time, e.g. from a plug-in."""
    _MODULES.setdefault(ruleset.name, "")
    _LOADED[ruleset.name] = ruleset


def get(name: str) -> Ruleset:
    """The ruleset registered as ``name``."""
    if name in _LOADED:
        return _LOADED[name]
    if name not in _MODULES:
        raise UnknownRuleset(name)
    module = importlib.import_module(_MODULES[name])
    ruleset: Ruleset = module.RULESET
    _LOADED[name] = ruleset
    return ruleset
