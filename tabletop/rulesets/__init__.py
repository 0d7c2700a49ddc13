"""Ruleset registry.

Rulesets are found through the entry-point group ``tabletop.rulesets``: each entry point
names a :class:`~tabletop.resolution.Ruleset` object (``"house = house_rules:RULESET"``).
The built-ins are registered the same way in ``pyproject.toml``; :data:`BUILT_IN` keeps
them working when the package metadata is missing (run from a source tree). A built-in
name is loaded without scanning the installed packages, so ``tabletop check`` of a
built-in ruleset pays nothing for discovery.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tabletop.coverage import Coverage
from tabletop.dice import DiceError
from tabletop.model import TemplateShape
from tabletop.placement import PlacementError
from tabletop.resolution import BatchSampler, Resolution, Ruleset, Step

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


class PluginError(BadPlugin):
    """A plug-in ruleset that failed while it ran: it raised, called ``sys.exit``, or returned
    what the contract does not allow. The message names the plug-in and the hook; ``hook`` and
    ``detail`` (what went wrong, in a few words) say it again for a short note."""

    def __init__(self, message: str, hook: str = "", detail: str = "") -> None:
        super().__init__(message)
        self.hook = hook
        self.detail = detail or message


def _what_happened(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({exc.code!r})"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _bad_resolution(out: object) -> str | None:
    """What is wrong with a ``resolve`` result, in a few cheap checks (odds call it thousands of times)."""
    if not isinstance(out, Resolution):
        return f"a {type(out).__name__}, not a Resolution"
    if not isinstance(out.coverage, Coverage):
        return f"a Resolution whose coverage is a {type(out.coverage).__name__}, not a Coverage"
    if not isinstance(out.affected, (tuple, list)) or not all(isinstance(a, str) for a in out.affected):
        return f"a Resolution whose affected is not a list of model ids: {out.affected!r:.80}"
    if not isinstance(out.allowed, bool) or not (out.reason is None or isinstance(out.reason, str)):
        return "a Resolution whose allowed is not true/false or whose reason is not text"
    if not isinstance(out.details, Mapping) or not isinstance(out.model_details, Mapping):
        return "a Resolution whose details or model_details is not a mapping"
    if not all(isinstance(v, Mapping) for v in out.model_details.values()):
        return "a Resolution whose model_details are not each a mapping"
    if not isinstance(out.steps, (tuple, list)) or not all(isinstance(st, Step) and isinstance(st.text, str) for st in out.steps):
        return "a Resolution whose steps are not Steps with text"
    return None


def _bad_problems(out: object) -> str | None:
    if not isinstance(out, (list, tuple)) or not all(
        isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in out
    ):
        return f"{out!r:.80}, not a list of (field path, message) pairs"
    return None


def _bad_shape(out: object) -> str | None:
    return None if isinstance(out, TemplateShape) else f"a {type(out).__name__}, not a TemplateShape"


def _bad_marks(out: object) -> str | None:
    from tabletop.marks import Marks

    return None if out is None or isinstance(out, Marks) else f"a {type(out).__name__}, not Marks or None"


def _is_text_pair(p: object) -> bool:
    return isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(x, str) for x in p)


def _bad_panel_lines(out: object) -> str | None:
    if not isinstance(out, (list, tuple)) or not all(_is_text_pair(p) for p in out):
        return f"{out!r:.80}, not a list of (style, text) pairs"
    return None


def _bad_step_rule(out: object) -> str | None:
    return None if out is None or _is_text_pair(out) else f"{out!r:.80}, not a (rule, quote) pair or None"


def _bad_settings(settings: object) -> str | None:
    """What is wrong with a plug-in's ``settings`` (name -> (default, explanation)), or None."""
    if not isinstance(settings, Mapping):
        return f"a {type(settings).__name__}, not a mapping of name -> (default, explanation)"
    for name, spec in settings.items():
        if not isinstance(name, str) or not isinstance(spec, (tuple, list)) or len(spec) != 2 or not isinstance(spec[1], str):
            return f"{name!r}: {spec!r:.60} is not (default, explanation)"
    from tabletop.settings import specs

    try:
        specs(settings)
    except Exception as exc:  # noqa: BLE001 - a default no setting can have
        return f"not usable ({type(exc).__name__}: {exc})"
    return None


def _guarded(name: str, target: str, hook: str, fn: Callable[..., Any], check: Callable[[Any], str | None] | None = None) -> Callable[..., Any]:
    """``fn`` that turns anything it raises (``sys.exit`` too) or a result ``check`` refuses into a :class:`PluginError`.

    The dice's and the placement's own errors pass: they say the file asks what cannot be done
    (a fixed roll out of range), which the adjudication reports as bad input.
    """

    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            out = fn(*args, **kwargs)
        except (DiceError, PlacementError):
            raise
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a plug-in's fault is named, whatever it is
            what = _what_happened(exc)
            raise PluginError(f"ruleset plug-in {name!r} ({target}) failed in {hook}: {what}", hook, what) from exc
        problem = check(out) if check is not None else None
        if problem is not None:
            raise PluginError(f"ruleset plug-in {name!r} ({target}) returned from {hook} {problem}", hook, f"returned {problem}")
        return out

    return run


def _guarded_sampler(name: str, target: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def bad(out: object) -> str | None:
        return None if out is None or isinstance(out, BatchSampler) else f"a {type(out).__name__}, not a BatchSampler or None"

    make = _guarded(name, target, "sample_batch", fn, bad)

    def run(*args: Any, **kwargs: Any) -> Any:
        sampler = make(*args, **kwargs)
        if sampler is None:
            return None
        return dataclasses.replace(sampler, resolve=_guarded(name, target, "sample_batch's resolve", sampler.resolve))

    return run


def _guard(name: str, target: str, ruleset: Ruleset) -> Ruleset:
    """A plug-in with every hook guarded: its failures name it (:class:`PluginError`), never pass for ours."""
    checks: dict[str, Callable[[Any], str | None] | None] = {
        "resolve": _bad_resolution, "validate": _bad_problems, "explosion_shape": _bad_shape,
        "marks": _bad_marks, "panel_lines": _bad_panel_lines, "side_view": None, "step_rule": _bad_step_rule,
    }
    hooks: dict[str, Any] = {}
    for hook, check in checks.items():
        fn = getattr(ruleset, hook)
        if fn is not None:
            hooks[hook] = _guarded(name, target, hook, fn, check)
    if ruleset.sample_batch is not None:
        hooks["sample_batch"] = _guarded_sampler(name, target, ruleset.sample_batch)
    return dataclasses.replace(ruleset, **hooks)


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
    """Every registered ruleset name: the built-ins first, then plug-ins, installed rules files, run-time ones."""
    from tabletop import rulesfile

    out = dict.fromkeys(BUILT_IN)
    out.update(dict.fromkeys(sorted(_entry_points())))
    out.update(dict.fromkeys(rulesfile.installed()))
    out.update(dict.fromkeys(_REGISTERED))
    return tuple(out)


def is_plugin(name: str) -> bool:
    """Whether ``name`` is an installed plug-in (an entry point that is not a built-in): its faults are its own."""
    return name not in BUILT_IN and name in _entry_points()


def is_registered(name: str) -> bool:
    """Whether ``name`` is a ruleset (without loading it): registered, a plug-in, an installed rules file."""
    if name in BUILT_IN or name in _REGISTERED:
        return True
    from tabletop import rulesfile

    return rulesfile.is_key(name) or name in _entry_points() or name in rulesfile.installed()


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
    from tabletop import rulesfile

    if rulesfile.is_key(name):  # a rules file compiled in this process: again when it changed
        return _rules_file(lambda: rulesfile.refresh(name), name)
    if name in BUILT_IN:
        # A built-in may also be listed in the metadata: same target, loaded directly.
        obj = _load(BUILT_IN[name])
    elif name in _entry_points():
        target = _entry_points()[name].value
        try:
            obj = _entry_points()[name].load()
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a broken plug-in must be named, not crash (or end) the loader
            what = _what_happened(exc) if isinstance(exc, SystemExit) else str(exc) or type(exc).__name__
            raise BadPlugin(f"ruleset plug-in {name!r} ({target}) failed to load: {what}") from exc
        if isinstance(obj, Ruleset) and obj.name == name:
            bad = _bad_settings(obj.settings)
            if bad is not None:
                raise BadPlugin(f"ruleset plug-in {name!r} ({target}) has settings that are {bad}")
            obj = _guard(name, target, obj)
    else:
        if rulesfile.looks_like_path(name) and os.path.isabs(name) and os.path.isfile(name):
            return _rules_file(lambda: rulesfile.ruleset_for(name), name)  # a rules file's key, first met here
        found = rulesfile.installed().get(name)
        if found is None:
            raise UnknownRuleset(name)
        return _rules_file(lambda: rulesfile.ruleset_for(found, name), name)
    if not isinstance(obj, Ruleset):
        raise BadPlugin(f"ruleset plug-in {name!r} is a {type(obj).__name__}, not a tabletop.plugin.Ruleset")
    if obj.name != name:
        raise BadPlugin(f"ruleset plug-in registered as {name!r} calls itself {obj.name!r}")
    _LOADED[name] = obj
    return obj


def _rules_file(compile_it: Callable[[], Ruleset | None], name: str) -> Ruleset:
    """A rules file's Ruleset (``tabletop.rulesfile``); a file that no longer compiles is a BadPlugin."""
    from tabletop.rulesfile import RulesFileError

    try:
        ruleset = compile_it()
    except RulesFileError as exc:
        raise BadPlugin(f"rules file {name!r} has problems:\n" + "\n".join(str(p) for p in exc.problems)) from None
    if ruleset is None:
        raise UnknownRuleset(name)
    return ruleset
