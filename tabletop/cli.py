"""Command line: ``tabletop [FILE]``, ``tabletop check``, ``render``, ``odds`` and ``photo``.

``check`` never imports pygame; ``render`` and the app import it only when run.
Exit status: 0 done, 2 bad input (one line per problem on stderr), 1 anything else.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
COMMANDS = ("check", "render", "odds", "photo", "explain", "present", "animate", "rules")
SHARING = ("explain", "present", "animate")


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


#: Most Monte Carlo samples ``odds`` takes: ±0.1 percentage point at 95%, already finer than any table needs
#: (rulesets with a vectorised ``sample_batch`` take a million in seconds; per-sample ones in minutes).
MAX_SAMPLES = 1_000_000


def _samples(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 100 <= value <= MAX_SAMPLES:
        raise argparse.ArgumentTypeError(f"must be between 100 and {MAX_SAMPLES:,} (±0.1 percentage point at 95%)")
    return value


def _seed_arg(text: str) -> int:
    from tabletop.scenario_io.limits import MAX_SEED  # the range a file's `seed` has too

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError("must be a whole number 0 <= N <= 2**63-1")
    return value


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="scenario file (.toml or .json)")
    p.add_argument("--tolerance", type=_tolerance, default=1.0, metavar="MM", help="contested when |margin| <= MM (default 1)")
    p.add_argument("--seed", type=_seed_arg, default=None, metavar="N", help="seed of the dice (default: the file's seed, else 1)")
    p.add_argument("--catalogue", type=Path, action="append", default=[], metavar="FILE", help="extra template catalogue (TOML)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="ruleset setting, e.g. --set battery_overlap=0.25; `tabletop --help` lists every ruleset's settings")


def _rolls_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rolls", type=Path, default=None, metavar="LOG",
        help="replay the rolls of an export: LOG is the app's Markdown export (or a TOML roll log); each template's dice are fixed to it",
    )


def build_parser(include_photo: bool = True, include_sharing: bool = True) -> argparse.ArgumentParser:
    """The ``tabletop`` argument parser (subcommands); ``photo`` and the sharing commands only when asked
    (``check`` does not pay for their modules)."""
    parser = _Parser(prog="tabletop", description="Settle area-of-effect templates in miniature wargames.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    check = sub.add_parser("check", help="adjudicate every template in a scenario", description="Adjudicate every template: status, margin and contest of every model.")
    _common(check)
    check.add_argument("--json", action="store_true", help="print the JSON report of the spec")
    _rolls_arg(check)
    render = sub.add_parser("render", help="draw the table to a PNG", description="Draw the table, templates, visible regions and statuses to a PNG.")
    _common(render)
    render.add_argument("-o", "--output", type=str, required=True, metavar="OUT.png|OUT.svg", help="PNG, or SVG (vectors) by the extension")
    render.add_argument("--size", type=_size, default=(1600, 1000), metavar="WxH")
    render.add_argument("--odds", action="store_true", help="also draw each model's chance to be affected")
    render.add_argument("--keep-fixed-rolls", action="store_true", help="with --odds: keep the rolls the file fixes (default: every die free, as in the app)")
    render.add_argument("--free-rolls", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for old scripts
    render.add_argument(
        "--view", choices=("table", "action"), default="table",
        help="table: the whole table (default); action: zoom on the templates and the models they affect",
    )
    render.add_argument("--layout-json", type=Path, default=None, metavar="LAYOUT.json", help="also write what was drawn (labels, bases, hidden count) in screen px")
    render.add_argument("--palette", choices=("default", "cb"), default="default", help="status colours: default, or cb (colour-blind safe, Okabe-Ito)")
    _rolls_arg(render)
    odds = sub.add_parser("odds", help="chances to be affected and expected damage", description="Each model's chance to be affected and expected damage, with every die left free (the file's fixed rolls too, as the app does; --keep-fixed-rolls keeps them).")
    _common(odds)
    odds.add_argument("--json", action="store_true")
    odds.add_argument("--samples", type=_samples, default=None, metavar="N", help="Monte Carlo samples where enumeration is too big")
    odds.add_argument("--keep-fixed-rolls", action="store_true", help="keep the rolls the file fixes (default: every die free, as in the app)")
    odds.add_argument("--free-rolls", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for old scripts
    if include_photo:
        from tabletop.photo.cli import add_parser as add_photo_parser  # OpenCV loads only when a photo is read

        add_photo_parser(sub)
    if include_sharing:
        from tabletop.share_cli import add_animate_parser, add_explain_parser, add_present_parser

        add_explain_parser(sub)
        add_present_parser(sub)
        add_animate_parser(sub)
    sub.add_parser("rules", help="rules files: check, explain, install (tabletop rules --help)", add_help=False)
    return parser


def settings_epilog() -> str:
    """The real settings of every ruleset, for ``--help``."""
    from tabletop import rulesets
    from tabletop.model import RULESET_NAMES
    from tabletop.settings import specs

    lines = ["settings (--set NAME=VALUE, or a [settings] table in the file):"]
    for name in RULESET_NAMES:
        declared = rulesets.get(name).settings
        for setting, spec in specs(declared).items():
            default = str(spec.default).lower() if isinstance(spec.default, bool) else repr(spec.default)
            lines.append(f"  {name}: {setting} = {spec.allowed()} (default {default})")
    return "\n".join(lines)


def _parse_settings(pairs: Sequence[str], scenario) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """``--set`` pairs checked against the scenario's ruleset; raises SettingError."""
    from tabletop import rulesets
    from tabletop.settings import parse_pairs

    ruleset = rulesets.get(scenario.ruleset)
    return parse_pairs(pairs, ruleset.settings, scenario.ruleset)


def _check_set_syntax(pairs: Sequence[str]) -> None:
    """Refuse a malformed ``--set`` before the file is read."""
    from tabletop.settings import SettingError

    for pair in pairs:
        if "=" not in pair or not pair.split("=", 1)[0].strip():
            raise SettingError("", f"--set expects NAME=VALUE, got {pair[:60]!r}")


def _load(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """Load the scenario (with warnings on stderr) or raise ScenarioError."""
    from tabletop import scenario_io
    from tabletop.catalogue import load_catalogue

    _check_set_syntax(args.set)
    catalogue = load_catalogue(args.catalogue, missing_ok=False) if args.catalogue else None
    scenario, warnings = scenario_io.load_with_warnings(args.file, catalogue)
    from tabletop.report import escape_text

    for w in warnings:
        print(escape_text(str(w)), file=sys.stderr)
    if getattr(args, "rolls", None) is not None:
        from tabletop.replay import read_roll_log, with_rolls

        args.roll_log = read_roll_log(args.rolls)
        scenario = with_rolls(scenario, args.roll_log, str(args.rolls))
    return scenario


def _seed(args: argparse.Namespace, scenario) -> int:  # type: ignore[no-untyped-def]
    """``--seed``, else the file's ``seed``, else the default."""
    from tabletop.adjudicate import DEFAULT_SEED

    if args.seed is not None:
        return int(args.seed)
    file_seed = scenario.extra.get("seed")
    return file_seed if isinstance(file_seed, int) and not isinstance(file_seed, bool) else DEFAULT_SEED


def _adjudicate(args: argparse.Namespace, scenario):  # type: ignore[no-untyped-def]
    """Adjudicate with a progress line on a terminal (tabletop.progress)."""
    from tabletop.adjudicate import adjudicate
    from tabletop.progress import progress_line

    settings = _parse_settings(args.set, scenario)
    with progress_line("adjudicating", len(scenario.templates)) as step:
        adj = adjudicate(scenario, seed=_seed(args, scenario), tolerance_mm=args.tolerance, settings=settings, progress=step)
    log = getattr(args, "roll_log", None)
    if log is not None:
        from tabletop.replay import unreplayed

        extra = unreplayed(adj, log)
        if extra:
            print(f"tabletop: warning: {args.rolls}: the log has no value for {', '.join(extra[:8])}: rolled from the seed "
                  "(the table differs from the one the log was written for)", file=sys.stderr)
    return adj


def run_check(args: argparse.Namespace) -> int:
    from tabletop import report

    adj = _adjudicate(args, _load(args))
    print(report.dumps(adj) if args.json else report.report_text(adj))
    return EXIT_OK


def run_render(args: argparse.Namespace) -> int:
    from tabletop.atomic import atomic_write, check_output

    # The format is the name the user gave (not a link's target); the file written is checked again at write time.
    suffix = Path(args.output).suffix.lower()
    if suffix not in (".png", ".svg"):
        print(f"tabletop render: {args.output or '(an empty path)'}: the output must end in .png or .svg", file=sys.stderr)
        return EXIT_BAD_INPUT
    svg = suffix == ".svg"
    for flag, given in (("--odds", args.odds), ("--layout-json", args.layout_json is not None)):
        if svg and given:
            print(f"tabletop render: {flag} goes with a PNG; use -o OUT.png, not {args.output}", file=sys.stderr)
            return EXIT_BAD_INPUT
    inputs = [args.file, *args.catalogue]
    # Before any work: a path that cannot be written, or that is an input, fails now.
    check_output(args.output, inputs)
    if args.layout_json is not None:
        check_output(args.layout_json, [*inputs, args.output])
    adj = _adjudicate(args, _load(args))
    if svg:
        from tabletop.draw.svg import svg_document  # pure: no pygame

        atomic_write(args.output, svg_document(adj, args.size, None, args.view).encode("utf-8"), inputs)
        print(f"wrote {args.output}")
        return EXIT_OK
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # stdout holds the report only
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from tabletop import draw  # pygame only from here on

    kwargs = {}
    if args.odds:
        from tabletop import odds
        from tabletop.progress import progress_line

        with progress_line("odds", len(adj.scenario.templates)) as step:
            kwargs["odds"] = odds.compute_odds(
                adj.scenario, seed=adj.seed, tolerance_mm=args.tolerance, settings=adj.settings, keep_fixed_rolls=args.keep_fixed_rolls,
                progress=step,
            )
    options = draw.DrawOptions(palette=args.palette)
    draw.render_png(adj, args.output, size=args.size, region=args.view, options=options, layout_json=args.layout_json, inputs=inputs, **kwargs)
    print(f"wrote {args.output}" + (f" and {args.layout_json}" if args.layout_json is not None else ""))
    return EXIT_OK


def run_odds(args: argparse.Namespace) -> int:
    from tabletop import odds
    from tabletop.progress import progress_line

    scenario = _load(args)
    settings = _parse_settings(args.set, scenario)
    with progress_line("odds", len(scenario.templates)) as step:
        result = odds.compute_odds(
            scenario,
            seed=_seed(args, scenario),
            samples=args.samples,
            tolerance_mm=args.tolerance,
            settings=settings,
            keep_fixed_rolls=args.keep_fixed_rolls,
            progress=step,
        )
    from tabletop.report import escape_text

    print(odds.dumps(result) if args.json else "\n".join(escape_text(line) for line in odds.report_text(result).splitlines()))
    return EXIT_OK


def run_app(path: str | None) -> int:
    from tabletop.app import main as app_main

    return app_main(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tabletop`` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help"):
        build_parser().print_help()
        print()
        print(settings_epilog())
        print("\nWith no COMMAND: `tabletop [FILE]` opens the desktop app (the bundled default table without FILE).")
        return EXIT_OK
    args: argparse.Namespace | None = None
    try:
        if argv and argv[0] == "rules":  # rules files (docs/rules-files.md): their own parser
            from tabletop.rulesfile.cli import build_parser as rules_parser

            args = rules_parser().parse_args(argv[1:])
            args.command = "rules"
        elif argv and argv[0] in COMMANDS:
            args = build_parser(include_photo=argv[0] == "photo", include_sharing=argv[0] in SHARING).parse_args(argv)
        elif argv:
            guess = _command_guess(argv[0])
            if len(argv) > 1 or argv[0].startswith("-") or guess:
                hint = f"did you mean {guess!r}? " if guess else ""
                build_parser().error(f"unknown command {argv[0]!r}; {hint}try `tabletop --help`")
    except SystemExit as exc:  # argparse's: usage errors and --help
        return int(exc.code or 0) if isinstance(exc.code, int) else EXIT_BAD_INPUT
    try:
        if args is None:
            return run_app(argv[0] if argv else None)
        if args.command == "rules":
            from tabletop.rulesfile.cli import run as run_rules

            return run_rules(args)
        if args.command == "photo":
            from tabletop.photo.cli import run as run_photo

            return run_photo(args)
        if args.command in SHARING:
            from tabletop import share_cli

            return {"explain": share_cli.explain_main, "present": share_cli.present_main, "animate": share_cli.animate_main}[args.command](args)
        return {"check": run_check, "render": run_render, "odds": run_odds}[args.command](args)
    except SystemExit as exc:  # parsing is over: not argparse's
        where = _foreign_exit(exc)
        if where is None:  # ours: its status stands
            return int(exc.code or 0) if isinstance(exc.code, int) else EXIT_FAILURE
        print(f"tabletop: stopped by sys.exit({exc.code!r}) in {where}, code that is not Tabletop's (a plug-in?)", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        # Ctrl+C: a file being written is left as it was (tabletop.atomic removes its temp file).
        print("tabletop: interrupted (Ctrl+C)", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 — the boundary: readable messages, never a traceback for bad input
        return _report_exception(exc)


def _foreign_exit(exc: SystemExit) -> str | None:
    """``file:line`` of the code outside the tabletop package that raised ``exc``, or None when ours did."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return None
    filename = tb.tb_frame.f_code.co_filename
    package = Path(__file__).resolve().parent
    try:
        if Path(filename).resolve().is_relative_to(package):
            return None
    except OSError:
        pass
    return f"{filename}:{tb.tb_lineno}"


def _command_guess(word: str) -> str | None:
    """The command ``word`` is a misspelling of, unless it names a file (``tabletop FILE`` opens the app)."""
    import difflib

    if Path(word).suffix or os.path.exists(word):
        return None
    close = difflib.get_close_matches(word.lower(), COMMANDS, n=1, cutoff=0.6)
    return close[0] if close else None


def _report_exception(exc: Exception) -> int:
    from tabletop.adjudicate import AdjudicationError
    from tabletop.atomic import OutputError
    from tabletop.report import escape_text
    from tabletop.catalogue import CatalogueError
    from tabletop.scenario_io import ScenarioError
    from tabletop.settings import SettingError

    from tabletop.rulesets import BadPlugin

    if isinstance(exc, BadPlugin):  # an installed plug-in's fault, not the file's nor ours
        print(f"tabletop: {escape_text(str(exc))}", file=sys.stderr)
        if os.environ.get("TABLETOP_DEBUG"):
            import traceback

            traceback.print_exc()
        return EXIT_FAILURE
    if isinstance(exc, ScenarioError):
        for problem in exc.problems:
            print(escape_text(str(problem)), file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(exc, CatalogueError):
        for line in exc.problems:
            print(escape_text(line), file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(exc, (SettingError, OutputError)):
        print(f"tabletop: {escape_text(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(exc, (RecursionError, MemoryError, OverflowError)) and not os.environ.get("TABLETOP_DEBUG"):
        print(f"tabletop: input too large to handle ({type(exc).__name__}); see docs/limits.md", file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(exc, (AdjudicationError, ValueError)) and not os.environ.get("TABLETOP_DEBUG"):
        print(f"tabletop: {escape_text(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT if isinstance(exc, AdjudicationError) else EXIT_FAILURE
    if os.environ.get("TABLETOP_DEBUG"):
        import traceback  # only here: `check` does not pay for it

        traceback.print_exc()
    else:
        print(f"tabletop: internal error: {type(exc).__name__}: {exc} (set TABLETOP_DEBUG=1 for details)", file=sys.stderr)
    return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
