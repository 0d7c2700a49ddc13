"""``tabletop photo IMAGE --table 48x48in [--corners X,Y X,Y X,Y X,Y] [--json] [-o OUT.toml]``.

Importing this module does not load OpenCV: ``run`` does, when the command runs.
Exit status: 0 done, 2 bad input (one line on stderr), 1 anything else.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tabletop.photo.values import PhotoError, PhotoResult

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT = 0, 1, 2


def add_parser(subparsers: Any) -> None:
    """Add the ``photo`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser(
        "photo",
        help="find the table and its round bases in a photo",
        description="Find the table and its round bases in a photo taken from above: centres in table mm "
        "(origin lower-left, y up), diameters snapped to common base sizes, confidence and 1-sigma error.",
    )
    configure(p)


def configure(p: argparse.ArgumentParser) -> None:
    """The ``photo`` arguments on a parser (shared by ``add_parser`` and ``main``)."""
    p.add_argument("image", help="the photo (JPEG, PNG, …)")
    p.add_argument("--table", required=True, metavar="WxD", help="table size: 48x48in, 1220x1220mm, 120x90cm, or 48x48 (inches)")
    p.add_argument("--corners", nargs=4, metavar="X,Y",
                   help="image pixels of the table's lower-left, lower-right, upper-right and upper-left corners "
                   "(default: find the table's outline)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("-o", "--output", metavar="OUT.toml", help="write a scenario with one model per base and the photo as backdrop")
    p.set_defaults(run=run)


def scenario_dict(result: PhotoResult, out_path: Path) -> dict[str, Any]:
    """A format-1 scenario (mm) with one round-based model per detection and the photo as backdrop."""
    image = Path(result.path).resolve()
    try:
        rel = Path(os.path.relpath(image, out_path.resolve().parent)).as_posix()
    except ValueError:  # another drive (Windows)
        rel = image.as_posix()
    return {
        "format": 1,
        "title": f"Photo {Path(result.path).name}",
        "units": "mm",
        "table": {"width": round(result.table_mm[0], 3), "depth": round(result.table_mm[1], 3)},
        "model": [
            {"id": f"b{i}", "x": round(b.x_mm, 2), "y": round(b.y_mm, 2), "base": b.diameter_mm, "sigma": round(b.sigma_mm, 3)}
            for i, b in enumerate(result.bases, start=1)
        ],
        "backdrop": {"image": rel, "corners": [[round(x, 2), round(y, 2)] for x, y in result.corners_px]},
    }


def write_scenario(result: PhotoResult, out_path: Path) -> None:
    """Write the scenario through the project's one writer (temp file, fsync, rename; a link's target)."""
    import tomli_w

    from tabletop.atomic import atomic_write

    atomic_write(out_path, tomli_w.dumps(scenario_dict(result, out_path)).encode("utf-8"))


def format_text(result: PhotoResult) -> str:
    """Human-readable report."""
    w, h = result.image_size
    names = ("lower-left", "lower-right", "upper-right", "upper-left")
    how = "given" if result.corners_given else "found"
    lines = [
        f"{result.path}: {w}x{h} px, table {result.table_mm[0]:.1f} x {result.table_mm[1]:.1f} mm",
        f"corners ({how}, confidence {result.table_confidence:.2f}): "
        + ", ".join(f"{n} ({x:.1f}, {y:.1f})" for n, (x, y) in zip(names, result.corners_px)),
        f"calibration error ±{result.calibration_rms_mm:.2f} mm (RMS of the corners' 1-sigma error)",
        f"{len(result.bases)} round base{'s' if len(result.bases) != 1 else ''} (table mm, origin lower-left, y up):",
    ]
    for i, b in enumerate(result.bases, start=1):
        lines.append(f"  b{i:<3} x {b.x_mm:8.2f}  y {b.y_mm:8.2f}  Ø {b.diameter_mm:g} mm (fitted {b.fitted_diameter_mm:.1f})"
                     f"  ±{b.sigma_mm:.2f} mm  confidence {b.confidence:.2f}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run ``tabletop photo`` with parsed arguments; returns the exit status."""
    if args.output:
        from tabletop.atomic import OutputError, check_output

        try:
            check_output(args.output, [args.image])  # before the work: never over the photo or a device
        except OutputError as e:
            print(f"tabletop photo: error: {e}", file=sys.stderr)
            return EXIT_BAD_INPUT
    try:
        from tabletop.photo.imageio import parse_corners, parse_table_size
        from tabletop.photo.pipeline import analyse_photo

        table = parse_table_size(args.table)
        corners = parse_corners(args.corners) if args.corners else None
        with warnings.catch_warnings():
            # numpy's warnings on a degenerate photo (a mean of an empty slice) carry source paths and
            # say nothing to a user; the result or the error below says what was found.
            warnings.simplefilter("ignore" if not os.environ.get("TABLETOP_DEBUG") else "default", RuntimeWarning)
            result = analyse_photo(args.image, table, corners)
    except PhotoError as e:
        print(f"tabletop photo: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for note in result.notes:
        print(f"tabletop photo: note: {note}", file=sys.stderr)
    if args.output:
        try:
            write_scenario(result, Path(args.output))
        except OSError as e:
            print(f"tabletop photo: error: cannot write {args.output}: {e.strerror or e}", file=sys.stderr)
            return EXIT_BAD_INPUT
    if args.json:
        from tabletop.jsonfmt import readable_json

        print(readable_json(result.as_json()))
    else:
        print(format_text(result))
        if args.output:
            print(f"wrote {args.output}")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tabletop.photo.cli IMAGE --table …`` (and tests): parse, run, return the exit status."""
    parser = argparse.ArgumentParser(prog="tabletop photo", description=__doc__.splitlines()[0])
    configure(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: 2 on bad usage, 0 on --help
        return int(e.code or 0)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
