"""Command line: ``tabletop [FILE]``, ``tabletop check``, ``tabletop render``.

``check`` never imports pygame; ``render`` and the app import it only when run.
Exit status: 0 done, 2 bad input (one line per problem on stderr), 1 anything else.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
COMMANDS = ("check", "render", "odds")


class _Parser(argparse.ArgumentParser):
    """argparse that exits with the spec's bad-input status."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (value >= 0 and value < 1e6):
        raise argparse.ArgumentTypeError("must be a non-negative number of mm")
    return value


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, e.g. 1600x1000, got {text!r}") from None
    if not (64 <= w <= 8000 and 64 <= h <= 8000):
        raise argparse.ArgumentTypeError("each side must be 64–8000 pixels")
    return (w, h)


def _samples(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 100 <= value <= 10_000_000:
        raise argparse.ArgumentTypeError("must be between 100 and 10,000,000")
    return value


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="scenario file (.toml or .json)")
    p.add_argument("--tolerance", type=_tolerance, default=1.0, metavar="MM", help="contested when |margin| <= MM (default 1)")
    p.add_argument("--seed", type=int, default=None, metavar="N", help="seed of the dice (default: the file's seed, else 1)")
    p.add_argument("--catalogue", type=Path, action="append", default=[], metavar="FILE", help="extra template catalogue (TOML)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="ruleset setting, e.g. --set dodge_rule=strict")


def build_parser() -> argparse.ArgumentParser:
    """The ``tabletop`` argument parser (subcommands)."""
    parser = _Parser(prog="tabletop", description="Settle area-of-effect templates in miniature wargames.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    check = sub.add_parser("check", help="adjudicate every template in a scenario", description="Adjudicate every template: status, margin and contest of every model.")
    _common(check)
    check.add_argument("--json", action="store_true", help="print the JSON report of the spec")
    render = sub.add_parser("render", help="draw the table to a PNG", description="Draw the table, templates, visible regions and statuses to a PNG.")
    _common(render)
    render.add_argument("-o", "--output", type=Path, required=True, metavar="OUT.png")
    render.add_argument("--size", type=_size, default=(1600, 1000), metavar="WxH")
    render.add_argument("--odds", action="store_true", help="also draw each model's chance to be affected")
    render.add_argument("--free-rolls", action="store_true", help="with --odds: leave the file's fixed rolls free too")
    render.add_argument(
        "--view", choices=("table", "action"), default="table",
        help="table: the whole table (default); action: zoom on the templates and the models they affect",
    )
    render.add_argument("--layout-json", type=Path, default=None, metavar="LAYOUT.json", help="also write what was drawn (labels, bases, hidden count) in screen px")
    render.add_argument("--palette", choices=("default", "cb"), default="default", help="status colours: default, or cb (colour-blind safe, Okabe-Ito)")
    odds = sub.add_parser("odds", help="chances to be affected and expected damage", description="Each model's chance to be affected and expected damage, with the dice left free.")
    _common(odds)
    odds.add_argument("--json", action="store_true")
    odds.add_argument("--samples", type=_samples, default=None, metavar="N", help="Monte Carlo samples where enumeration is too big")
    odds.add_argument("--free-rolls", action="store_true", help="leave the rolls fixed in the file free too (what-if before the game)")
    return parser


def _parse_settings(pairs: Sequence[str]) -> dict[str, object]:
    import json

    out: dict[str, object] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--set expects NAME=VALUE, got {pair!r}")
        name, raw = pair.split("=", 1)
        try:
            out[name.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[name.strip()] = raw
    return out


def _load(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """Load the scenario (with warnings on stderr) or raise ScenarioError."""
    from tabletop import scenario_io
    from tabletop.catalogue import CatalogueError, load_catalogue

    try:
        catalogue = load_catalogue(args.catalogue) if args.catalogue else None
    except CatalogueError as exc:
        raise scenario_io.ScenarioError([scenario_io.Problem(str(args.catalogue[0]), "", p) for p in exc.problems]) from None
    scenario, warnings = scenario_io.load_with_warnings(args.file, catalogue)
    for w in warnings:
        print(w, file=sys.stderr)
    return scenario


def _seed(args: argparse.Namespace, scenario) -> int:  # type: ignore[no-untyped-def]
    """``--seed``, else the file's ``seed``, else the default."""
    from tabletop.adjudicate import DEFAULT_SEED

    if args.seed is not None:
        return int(args.seed)
    file_seed = scenario.extra.get("seed")
    return file_seed if isinstance(file_seed, int) and not isinstance(file_seed, bool) else DEFAULT_SEED


def _adjudicate(args: argparse.Namespace, scenario):  # type: ignore[no-untyped-def]
    from tabletop.adjudicate import adjudicate

    return adjudicate(scenario, seed=_seed(args, scenario), tolerance_mm=args.tolerance, settings=_parse_settings(args.set))


def run_check(args: argparse.Namespace) -> int:
    from tabletop import report

    adj = _adjudicate(args, _load(args))
    print(report.dumps(adj) if args.json else report.report_text(adj))
    return EXIT_OK


def run_render(args: argparse.Namespace) -> int:
    adj = _adjudicate(args, _load(args))
    from tabletop import draw  # pygame only from here on

    kwargs = {}
    if args.odds:
        from tabletop import odds

        kwargs["odds"] = odds.compute_odds(
            adj.scenario, seed=adj.seed, tolerance_mm=args.tolerance, settings=adj.settings, keep_fixed_rolls=not args.free_rolls
        )
    options = draw.DrawOptions(palette=args.palette)
    draw.render_png(adj, args.output, size=args.size, region=args.view, options=options, layout_json=args.layout_json, **kwargs)
    print(f"wrote {args.output}")
    return EXIT_OK


def run_odds(args: argparse.Namespace) -> int:
    from tabletop import odds

    scenario = _load(args)
    result = odds.compute_odds(
        scenario,
        seed=_seed(args, scenario),
        samples=args.samples,
        tolerance_mm=args.tolerance,
        settings=_parse_settings(args.set),
        keep_fixed_rolls=not args.free_rolls,
    )
    print(odds.dumps(result) if args.json else odds.report_text(result))
    return EXIT_OK


def run_app(path: str | None) -> int:
    from tabletop.app import main as app_main

    return app_main(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tabletop`` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help"):
        build_parser().print_help()
        print("\nWith no COMMAND: `tabletop [FILE]` opens the desktop app (the bundled default table without FILE).")
        return EXIT_OK
    try:
        if not argv or argv[0] not in COMMANDS:
            if len(argv) > 1 or (argv and argv[0].startswith("-")):
                build_parser().error(f"unknown command {argv[0]!r}; try `tabletop --help`")
            return run_app(argv[0] if argv else None)
        args = build_parser().parse_args(argv)
        return {"check": run_check, "render": run_render, "odds": run_odds}[args.command](args)
    except SystemExit as exc:
        return int(exc.code or 0) if isinstance(exc.code, int) else EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 — the boundary: readable messages, never a traceback for bad input
        return _report_exception(exc)


def _report_exception(exc: Exception) -> int:
    from tabletop.adjudicate import AdjudicationError
    from tabletop.scenario_io import ScenarioError

    if isinstance(exc, ScenarioError):
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(exc, (AdjudicationError, ValueError)) and not os.environ.get("TABLETOP_DEBUG"):
        print(f"tabletop: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT if isinstance(exc, AdjudicationError) else EXIT_FAILURE
    if os.environ.get("TABLETOP_DEBUG"):
        traceback.print_exc()
    else:
        print(f"tabletop: internal error: {type(exc).__name__}: {exc} (set TABLETOP_DEBUG=1 for details)", file=sys.stderr)
    return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
