"""Rules files: a club's template rules written as one TOML file, compiled to an ordinary Ruleset.

A scenario names one with ``ruleset = "house.rules.toml"`` (relative to the scenario) or, once
installed (``tabletop rules install FILE``), by its game name. See docs/rules-files.md.

Modules, in the order a file goes through them: :mod:`.schema` (what a file may say), :mod:`.load`
(TOML to the schema, problems with lines), :mod:`.expr` (the expression language),
:mod:`.compile` (sense checks, expressions parsed, quotes found), :mod:`.ruleset` (a Ruleset with
settings), :mod:`.aim`, :mod:`.engine`, :mod:`.effects`, :mod:`.cover`, :mod:`.values` (resolving),
:mod:`.batch` (the odds in bulk), :mod:`.hooks` (marks and panel lines), :mod:`.validate`
(a scenario against a file), :mod:`.words` (the file in plain words), :mod:`.cli`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tabletop.atomic import atomic_write
from tabletop.rulesfile.errors import SUFFIX, RulesFileError

__all__ = [
    "SUFFIX", "RulesFileError", "load", "ruleset_for", "key_for", "looks_like_path", "user_rules_dir",
    "installed", "install", "taken_name", "catalogue_with", "for_scenario", "relative_to", "rules_of", "is_key", "refresh",
]  # fmt: skip

#: Compiled rule sets by key: the file's (mtime, size) when compiled, the Ruleset, its compiled rules.
_CACHE: dict[str, tuple[tuple[int, int], Any, Any]] = {}


def looks_like_path(name: str) -> bool:
    """Whether a scenario's ``ruleset`` names a file rather than a registered ruleset."""
    return name.lower().endswith(".toml") or "/" in name or "\\" in name


def key_for(path: Path | str) -> str:
    """The registry key of the rules file at ``path``: its absolute path."""
    return Path(os.path.abspath(os.path.expanduser(str(path)))).as_posix()


def load(path: Path | str) -> tuple[Any, list[Any]]:
    """Read, check and compile a rules file: (Rules, warnings). Raises RulesFileError with every problem."""
    from tabletop.rulesfile.compile import compile_rules
    from tabletop.rulesfile.reading import Located, parse, read_text
    from tabletop.rulesfile.ruleset import check_settings

    name, raw = read_text(path)
    try:
        spec, where = parse(raw, name)
    except RulesFileError as exc:
        repaired = getattr(exc, "repaired", None)
        if repaired is None:
            raise
        # Unknown keys only: read as what they nearly spell, the rest of the file is checked in the same run.
        spec, data = repaired
        found = Located(name, raw.decode("utf-8-sig"))
        compile_rules(spec, found, Path(path), data)
        raise RulesFileError(sorted([*exc.problems, *found.problems], key=lambda p: p.line or 0)) from None
    import tomllib

    data = tomllib.loads(raw.decode("utf-8-sig"))
    rules = compile_rules(spec, where, Path(path), data)
    if not where.problems:
        check_settings(rules, where)
    where.raise_if_any()
    return rules, where.warnings


def _stamp(path: Path) -> tuple[int, int]:
    st = path.stat()
    return (st.st_mtime_ns, st.st_size)


def ruleset_for(path: Path | str, key: str | None = None) -> Any:
    """The Ruleset of the rules file at ``path``, known to the registry as ``key`` (default: its absolute path).

    Compiled once and again only when the file changes. Raises RulesFileError.
    """
    from tabletop.rulesfile.ruleset import build
    from tabletop.scenario_io.problems import Problem

    p = Path(os.path.expanduser(str(path)))
    key = key or key_for(p)
    try:
        stamp = _stamp(p)
    except OSError as exc:
        raise RulesFileError([Problem(str(path), "", f"cannot read the rules file: {exc.strerror or exc}")]) from None
    cached = _CACHE.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    rules, _warnings = load(p)
    ruleset = build(rules, key)
    _CACHE[key] = (stamp, ruleset, rules)
    return ruleset


def rules_of(key: str) -> Any:
    """The compiled rules registered as ``key`` (None for a name that is not a rules file)."""
    cached = _CACHE.get(key)
    return cached[2] if cached is not None else None


def is_key(name: str) -> bool:
    """Whether ``name`` is the key of a rules file compiled in this process."""
    return name in _CACHE


def refresh(name: str) -> Any:
    """The Ruleset of the rules file registered as ``name``, compiled again if the file changed; None if it is not one."""
    cached = _CACHE.get(name)
    if cached is None:
        return None
    rules = cached[2]
    return ruleset_for(rules.path, name) if rules.path is not None else cached[1]


def user_rules_dir() -> Path:
    """Where installed rules files live (``tabletop rules install``); ``TABLETOP_RULES_DIR`` overrides it."""
    env = os.environ.get("TABLETOP_RULES_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("tabletop", appauthor=False)) / "rules"


def installed() -> dict[str, Path]:
    """Installed rules files by game name (the file's stem before ``.rules.toml``).

    ``tabletop rules install`` puts each game in a folder of its own (``NAME/NAME.rules.toml`` and its
    rules text), so two games' texts of the same name never overwrite each other; a file copied by
    hand straight into the rules folder counts too (a game's own folder wins).
    """
    folder = user_rules_dir()
    if not folder.is_dir():
        return {}
    found = {p.name[: -len(SUFFIX)]: p for p in sorted(folder.glob(f"*{SUFFIX}")) if p.is_file()}
    for p in sorted(folder.glob(f"*/*{SUFFIX}")):
        if p.is_file() and p.name == f"{p.parent.name}{SUFFIX}":
            found[p.parent.name] = p
    return dict(sorted(found.items()))


def taken_name(name: str) -> str | None:
    """Why a game may not be installed as ``name`` (a built-in's or a plug-in's name), or None."""
    from tabletop import rulesets

    if name in rulesets.BUILT_IN:
        return "a built-in ruleset"
    if name in rulesets._entry_points():
        return "an installed ruleset plug-in"
    return None


def install(path: Path | str) -> tuple[Path, list[Any], bool]:
    """Check the rules file at ``path`` and copy it (and its rules text, when beside it) into the user's
    rules folder under its game name: (where, the file's warnings, whether it replaced an installed one).
    Raises RulesFileError: the file's problems, or a game name that a built-in or a plug-in already has."""
    from tabletop.rulesfile.reading import parse, read_text

    rules, warnings = load(path)
    taken = taken_name(rules.name)
    if taken is not None:
        _spec, where = parse(*reversed(read_text(path)))
        where.add(("game", "name"), f"{rules.name!r} is the name of {taken}: a scenario saying ruleset = \"{rules.name}\" "
                  f"would get that one, not this file; give the game another name (e.g. \"{rules.name}-club\")")
        raise RulesFileError(where.problems)
    folder = user_rules_dir() / rules.name
    replaced = rules.name in installed()
    folder.mkdir(parents=True, exist_ok=True)
    dest = folder / f"{rules.name}{SUFFIX}"
    # Through the one atomic writer (temp, fsync, rename): a full disk leaves an installed file whole or as it was.
    atomic_write(dest, Path(path).read_bytes())  # read whole first: installing a file over itself is harmless
    source = rules.spec.source.file
    if source is not None and not Path(source).is_absolute() and ".." not in Path(source).parts:
        text_path = Path(path).parent / source
        if text_path.is_file():  # the rules text goes with it, so its quotes can still be checked
            (folder / source).parent.mkdir(parents=True, exist_ok=True)
            atomic_write(folder / source, text_path.read_bytes())
    _CACHE.pop(rules.name, None)
    return dest, warnings, replaced


def for_scenario(data: Mapping[str, Any], scenario_name: str, catalogue: Any) -> tuple[dict[str, Any], Any, list[Any]]:
    """A scenario document whose ``ruleset`` names a rules file: (data naming it by key, catalogue with its
    templates, problems). Problems name the rules file's lines, then the scenario's ``ruleset`` field."""
    name = data.get("ruleset")
    if not isinstance(name, str):
        return dict(data), catalogue, []
    if not looks_like_path(name):
        found = installed().get(name)
        if found is None:
            return dict(data), catalogue, []  # a registered ruleset, or an unknown name the loader names
        try:
            ruleset = ruleset_for(found, name)
        except RulesFileError as exc:
            return dict(data), catalogue, [("problems", exc.problems), ("bad", f"installed rules file {name!r} has {len(exc.problems)} problem(s), listed above")]
        return dict(data), _with_shapes(catalogue, rules_of(name), found), []
    p = Path(os.path.expanduser(name))
    if not p.is_absolute():
        base = Path.cwd() if scenario_name.startswith("<") else Path(scenario_name).parent
        p = base / p
    if not p.is_file():
        return dict(data), catalogue, [("missing", f"rules file {name!r} not found (looked for {p})")]
    try:
        ruleset = ruleset_for(p)
    except RulesFileError as exc:
        return dict(data), catalogue, [("problems", exc.problems), ("bad", f"rules file {name!r} has {len(exc.problems)} problem(s), listed above")]
    out = dict(data)
    out["ruleset"] = ruleset.name
    return out, _with_shapes(catalogue, rules_of(ruleset.name), p), []


def catalogue_with(ruleset: str, catalogue: Any) -> Any:
    """``catalogue`` with the templates of the rules file registered as ``ruleset`` (itself for any other ruleset)."""
    rules = rules_of(ruleset)
    if rules is None or not rules.shapes:
        return catalogue
    return _with_shapes(catalogue, rules, rules.path or Path(ruleset))


def _with_shapes(catalogue: Any, rules: Any, path: Path) -> Any:
    """``catalogue`` (None: the default one) with the rules file's own templates added."""
    from tabletop.catalogue import Entry, default_catalogue

    if rules is None or not rules.shapes:
        return catalogue
    merged = dict(catalogue if catalogue is not None else default_catalogue())
    for shape_name, shape in rules.shapes.items():
        merged[shape_name] = Entry(shape_name, shape, source=str(path), origin=str(path))
    return merged


def relative_to(ruleset: str, scenario_path: Path | str) -> str:
    """``ruleset`` as a scenario saved at ``scenario_path`` should write it: a rules file's path relative to it."""
    if not looks_like_path(ruleset) or not os.path.isabs(ruleset):
        return ruleset
    try:
        rel = os.path.relpath(ruleset, os.path.abspath(Path(scenario_path).parent))
    except ValueError:  # another drive (Windows)
        return ruleset
    return Path(rel).as_posix()
