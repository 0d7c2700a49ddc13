"""Club-night commands: ``tabletop explain``, ``tabletop present`` and ``tabletop animate``.

Each command is an ``add_*_parser(subparsers)`` that declares its arguments and a ``*_main(args)``
that runs it and returns the exit status; ``tabletop.cli`` wires them in. Bad input raises the
core's own errors (``ScenarioError``, ``AdjudicationError``), which the CLI turns into one-line
messages and exit status 2. ``explain`` never imports pygame.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the parsers are built without importing the core: `tabletop --help` stays quick
    from tabletop.adjudicate import Adjudication
    from tabletop.model import Scenario

EXIT_OK = 0
ANIMATION_SUFFIXES = (".gif", ".webp", ".png", ".apng")


def _animation_path(text: str) -> Path:
    path = Path(text)
    if path.suffix.lower() not in ANIMATION_SUFFIXES:
        raise argparse.ArgumentTypeError(f"{text}: the extension must be one of {', '.join(ANIMATION_SUFFIXES)}")
    return path


def _width(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 160 <= value <= 4000:
        raise argparse.ArgumentTypeError("must be 160–4000 pixels")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.5 <= value <= 120:
        raise argparse.ArgumentTypeError("must be 0.5–120 seconds")
    return value


def _window(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, e.g. 1280x720, got {text!r}") from None
    if not (320 <= w <= 8000 and 240 <= h <= 8000):
        raise argparse.ArgumentTypeError(f"{w}x{h} is outside 320x240 to 8000x8000")
    return (w, h)


def _scenario_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="scenario file (.toml or .json)")
    from tabletop.cli import _seed_arg, _tolerance  # the same checks as `check`

    p.add_argument("--seed", type=_seed_arg, default=None, metavar="N", help="seed of the dice (default: the file's seed, else 1)")
    p.add_argument("--tolerance", type=_tolerance, default=1.0, metavar="MM", help="contested when |margin| <= MM (default 1)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="ruleset setting, e.g. --set battery_overlap=0.25; `tabletop --help` lists them all")
    p.add_argument("--rolls", type=Path, default=None, metavar="LOG", help="replay the rolls of an export (the app's Markdown export, or a TOML roll log)")


def load_scenario(path: str | Path) -> Scenario:
    """The scenario at ``path``; its warnings go to stderr, its errors raise ``ScenarioError``."""
    from tabletop.scenario_io import load_with_warnings

    scenario, warnings = load_with_warnings(path)
    for w in warnings:
        print(w, file=sys.stderr)
    return scenario


def adjudicate_args(args: argparse.Namespace) -> Adjudication:
    """Load and resolve the scenario the arguments name, exactly as ``check`` does
    (``--seed`` over the file's seed; ``--set`` checked strictly against the ruleset)."""
    from tabletop.cli import _adjudicate, _check_set_syntax, _load

    args.set = list(getattr(args, "set", []) or [])
    args.catalogue = list(getattr(args, "catalogue", []) or [])
    args.tolerance = float(getattr(args, "tolerance", 1.0))
    args.seed = getattr(args, "seed", None)
    _check_set_syntax(args.set)
    return _adjudicate(args, _load(args))


# --------------------------------------------------------------------------- explain


def add_explain_parser(subparsers: Any) -> argparse.ArgumentParser:
    """``tabletop explain FILE [--markdown] [-o OUT]``."""
    p = subparsers.add_parser(
        "explain",
        help="the resolution step by step, with the rules it applies (text or Markdown)",
        description="Every step of every template with the rule it applies and the seed sentence it rests on, "
        "then who is affected and why: ready to paste into a forum or a chat.",
    )
    _scenario_args(p)
    p.add_argument("--markdown", action="store_true", help="Markdown: headings, quotes and a table of who is affected and why")
    p.add_argument("-o", "--output", type=Path, default=None, metavar="OUT", help="write to OUT instead of printing")
    return p


def explain_main(args: argparse.Namespace) -> int:
    """Print (or write) the explanation of the scenario in ``args.file``."""
    from tabletop.atomic import atomic_write
    from tabletop.explain import explain_text

    if args.output is not None:
        from tabletop.atomic import check_output

        check_output(args.output, [args.file])
    text = explain_text(adjudicate_args(args), markdown=bool(args.markdown))
    if args.output is not None:
        atomic_write(args.output, text.encode("utf-8"), [args.file])
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return EXIT_OK


# --------------------------------------------------------------------------- present


def add_present_parser(subparsers: Any) -> argparse.ArgumentParser:
    """``tabletop present FILE [--window WxH]``."""
    p = subparsers.add_parser(
        "present",
        help="presenter mode: full screen, the resolution one step at a time",
        description="Full screen for a projector: each step of the resolution with its rule and seed quote, the table "
        "highlighting what it touches. Right/Space/PageDown: next; Left/PageUp: back; drag the template: what if; Esc: quit.",
    )
    _scenario_args(p)
    p.add_argument("--window", type=_window, default=None, metavar="WxH", help="a window of this size instead of full screen")
    return p


def present_main(args: argparse.Namespace) -> int:
    """Run presenter mode on the scenario in ``args.file`` until Esc."""
    adj = adjudicate_args(args)
    import os

    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from tabletop.app.present import run_presenter  # pygame only from here on

    return run_presenter(adj, size=args.window)


# --------------------------------------------------------------------------- animate


def add_animate_parser(subparsers: Any) -> argparse.ArgumentParser:
    """``tabletop animate FILE -o OUT.gif [--width PX] [--seconds S]``."""
    p = subparsers.add_parser(
        "animate",
        help="the Fire sequence as an animated GIF (or WebP / APNG)",
        description="Placement, dice, scatter and result as a short animation; the format follows OUT's extension "
        "(.gif, .webp, .png/.apng).",
    )
    _scenario_args(p)
    p.add_argument("-o", "--output", type=_animation_path, required=True, metavar="OUT.gif")
    p.add_argument("--width", type=_width, default=800, metavar="PX", help="width in pixels (default 800)")
    p.add_argument("--seconds", type=_seconds, default=None, metavar="S", help="length of the steps (default: about 6 s in all)")
    return p


def animate_main(args: argparse.Namespace) -> int:
    """Write the animation of the scenario in ``args.file`` to ``args.output``."""
    _animation_path(str(args.output))  # also when called without the parser
    from tabletop.atomic import check_output

    check_output(args.output, [args.file])
    adj = adjudicate_args(args)
    if not adj.scenario.templates:
        print(f"tabletop animate: {args.file}: nothing to animate: the scenario has no template", file=sys.stderr)
        return 2
    import os

    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # stdout holds the report only
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from tabletop.draw.animate import AnimationTooLarge, render_animation  # pygame only from here on
    from tabletop.progress import progress_line

    try:
        with progress_line("animate", 0, unit="frames") as step:
            info = render_animation(adj, args.output, width=int(args.width), seconds=args.seconds, inputs=[args.file],
                                    progress=lambda done, total: step(done, "", total))
    except AnimationTooLarge as exc:
        print(f"tabletop animate: {args.file}: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.output} ({info.frames} frames, {info.seconds:.1f} s, {info.bytes / 1e6:.2f} MB)")
    return EXIT_OK
