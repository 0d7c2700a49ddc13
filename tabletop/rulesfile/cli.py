"""``tabletop rules check|explain|install|list|schema``: rules files from the command line.

Exit status as the other commands: 0 done, 2 a file with problems (one located line each), 1 else.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    from tabletop.cli import _Parser

    p = _Parser(prog="tabletop rules", description="Rules files: a game's template rules as one TOML file (docs/rules-files.md).")
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="check a rules file (and scenarios under it)", description="Check a rules file: every problem with its line; with --scenario, also check scenarios against it (their stats, weapon keys, grid).")
    check.add_argument("file", type=Path, help="the rules file (*.rules.toml)")
    check.add_argument("--scenario", type=Path, action="append", default=[], metavar="FILE", help="a scenario to check under these rules (whatever ruleset it names)")
    explain = sub.add_parser("explain", help="what a rules file does, in plain words", description="Print what a rules file does, section by section, in plain words.")
    explain.add_argument("file", type=Path)
    install = sub.add_parser("install", help="check a rules file and install it under its game name", description="Check a rules file and copy it into your rules folder, so scenarios can name it by its game name.")
    install.add_argument("file", type=Path)
    sub.add_parser("list", help="the installed rules files", description="List the installed rules files and where they are.")
    sub.add_parser("schema", help="print the JSON Schema of rules files (for editors)", description="Print the JSON Schema of a rules file.")
    return p


def _print_problems(problems: Sequence[object]) -> None:
    from tabletop.report import escape_text

    for problem in problems:
        print(escape_text(str(problem)), file=sys.stderr)


def run_check(args: argparse.Namespace) -> int:
    from tabletop import rulesfile, scenario_io

    rules, warnings = rulesfile.load(args.file)
    _print_problems(warnings)
    s = rules.spec
    rolls = ", ".join(f"{n} ({r.dice.label()})" for n, r in rules.rolls.items()) or "none"
    print(f"{args.file}: ok — {s.game.title} ({s.game.name}): {len(rules.texts)} rules, rolls: {rolls}; settings: {', '.join(s.settings) or 'none'}")
    bad = 0
    ruleset = rulesfile.ruleset_for(args.file)
    for path in args.scenario:
        data, text = scenario_io.read_document(path)
        data = {**data, "ruleset": ruleset.name}
        try:
            scenario, found = scenario_io.scenario_from_data(data, str(path), text)
        except scenario_io.ScenarioError as exc:
            _print_problems(exc.problems)
            bad += 1
            continue
        _print_problems(found)
        print(f"{path}: ok under {s.game.name} ({len(scenario.models)} models, {len(scenario.templates)} templates)")
    return EXIT_BAD_INPUT if bad else EXIT_OK


def run_explain(args: argparse.Namespace) -> int:
    from tabletop import rulesfile
    from tabletop.rulesfile.words import explain

    rules, warnings = rulesfile.load(args.file)
    _print_problems(warnings)
    sys.stdout.write(explain(rules))
    return EXIT_OK


def run_install(args: argparse.Namespace) -> int:
    from tabletop import rulesfile

    dest, warnings, replaced = rulesfile.install(args.file)
    _print_problems(warnings)
    name = dest.name[: -len(rulesfile.SUFFIX)]
    again = " (replacing the one installed before)" if replaced else ""
    print(f"installed {args.file} as {name!r}{again}: {dest}\nscenarios can now say ruleset = \"{name}\"")
    return EXIT_OK


def run_list(_args: argparse.Namespace) -> int:
    from tabletop import rulesfile

    found = rulesfile.installed()
    if not found:
        print(f"no rules files installed (folder: {rulesfile.user_rules_dir()})")
    for name, path in found.items():
        print(f"{name}\t{path}")
    return EXIT_OK


def run_schema(_args: argparse.Namespace) -> int:
    from tabletop.rulesfile.schema import json_schema

    print(json.dumps(json_schema(), indent=2, ensure_ascii=False))
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """Run a parsed ``tabletop rules ACTION``; errors of the files are raised for the command line to print."""
    return {"check": run_check, "explain": run_explain, "install": run_install, "list": run_list, "schema": run_schema}[args.action](args)


def main(argv: Sequence[str]) -> int:
    """``tabletop rules ARGV`` through the ``tabletop`` command line (its exit statuses and messages)."""
    from tabletop.cli import main as tabletop_main

    return tabletop_main(["rules", *argv])


__all__ = ["main", "build_parser", "dataclasses"]
