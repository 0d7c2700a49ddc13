"""Ruleset registry.

Rulesets are found through the entry-point group ``tabletop.rulesets``: each entry point
names a :class:`~tabletop.resolution.Ruleset` object (``"house = house_rules:RULESET"``).
The built-ins are registered the same way in ``pyproject.toml``; :data:`BUILT_IN` keeps
them working when the package metadata is missing (run from a source tree). A built-in
name is loaded without scanning the installed packages, so ``tabletop check`` of a
built-in ruleset pays nothing for discovery.
"""

from __future__ import annotations

import difflib
import importlib
from typing import TYPE_CHECKING

from tabletop.resolution import Ruleset

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

GROUP = "tabletop.rulesets"

#: The built-in rulesets: name -> "module:attribute", as in pyproject.toml.
BUILT_IN: dict[str, str] = {
    "none": "tabletop.rulesets.none:RULESET",
    "infinity": "tabletop.rulesets.infinity:RULESET",
    "robotech": "tabletop.rulesets.robotech:RULESET",
    "wwpd": "tabletop.rulesets.wwpd:RULESET",
    "increments": "tabletop.rulesets.increments:RULESET",
    "catastrophic": "tabletop.rulesets.catastrophic:RULESET",
}

_LOADED: dict[str, Ruleset] = {}
_REGISTERED: dict[str, Ruleset] = {}  # register() at run time
_plugins: dict[str, EntryPoint] | None = None


class UnknownRuleset(KeyError):
    """A ruleset name that is not registered."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name
        self.suggestion = suggest(name)

    def __str__(self) -> str:
        hint = f' (did you mean "{self.suggestion}"?)' if self.suggestion else ""
        return f"unknown ruleset {self.name!r}{hint}"


class BadPlugin(RuntimeError):
    """An entry point in ``tabletop.rulesets`` that does not load to a usable Ruleset."""


def _entry_points() -> dict[str, EntryPoint]:
    """Installed entry points of the group, by name (scanned once)."""
    global _plugins
    if _plugins is None:
        # Scanning the installed packages costs ~50 ms (importlib.metadata, email, socket): only
        # when a name is not a built-in, or the whole list is asked for.
        from importlib.metadata import entry_points

        _plugins = {ep.name: ep for ep in entry_points(group=GROUP)}
    return _plugins


def names() -> tuple[str, ...]:
    """Every registered ruleset name: the built-ins first, then plug-ins, then run-time ones."""
    out = dict.fromkeys(BUILT_IN)
    out.update(dict.fromkeys(sorted(_entry_points())))
    out.update(dict.fromkeys(_REGISTERED))
    return tuple(out)


def is_registered(name: str) -> bool:
    """Whether ``name`` is a ruleset (without loading it)."""
    return name in BUILT_IN or name in _REGISTERED or name in _entry_points()


def suggest(name: str) -> str | None:
    """The registered name nearest to ``name`` (a typo's fix), or None."""
    close = difflib.get_close_matches(name.strip().lower(), names(), n=1, cutoff=0.6)
    return close[0] if close else None


def register(ruleset: Ruleset) -> None:
    """Register (or replace) a ruleset at run time, e.g. from a test or a script."""
    _REGISTERED[ruleset.name] = ruleset
    _LOADED[ruleset.name] = ruleset


def _load(target: str) -> object:
    module, _, attr = target.partition(":")
    obj: object = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


def get(name: str) -> Ruleset:
    """The ruleset registered as ``name``."""
    ruleset = _LOADED.get(name)
    if ruleset is not None:
        return ruleset
    if name in BUILT_IN:
        # A built-in may also be listed in the metadata: same target, loaded directly.
        obj = _load(BUILT_IN[name])
    elif name in _entry_points():
        try:
            obj = _entry_points()[name].load()
        except Exception as exc:  # noqa: BLE001 - a broken plug-in must be named, not crash the loader
            raise BadPlugin(f"ruleset plug-in {name!r} ({_entry_points()[name].value}) failed to load: {exc}") from exc
    else:
        raise UnknownRuleset(name)
    if not isinstance(obj, Ruleset):
        raise BadPlugin(f"ruleset plug-in {name!r} is a {type(obj).__name__}, not a tabletop.plugin.Ruleset")
    if obj.name != name:
        raise BadPlugin(f"ruleset plug-in registered as {name!r} calls itself {obj.name!r}")
    _LOADED[name] = obj
    return obj
