"""``tabletop photo IMAGE --table 48x48in [--corners X,Y X,Y X,Y X,Y] [--base-height MM] [--camera PHONE.toml] [--json] [-o OUT.toml]``.

Also ``tabletop photo markers -o markers.pdf`` (the four table-corner markers to print: ``tabletop.photo.markers``),
``tabletop photo calibrate BOARD_PHOTO... -o PHONE.toml`` (a phone's lens from photos of the printed ChArUco
board; ``--board BOARD.png`` writes the board to print) and ``tabletop photo --demo OUT.jpg`` (a synthetic test photo).

Importing this module does not load OpenCV: ``run`` does, when the command runs.
Exit status: 0 done, 2 bad input (one line on stderr), 1 anything else.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tabletop.model import CHECK_TAG
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
    p.add_argument("image", nargs="*", metavar="IMAGE",
                   help="the photo (JPEG, PNG, …); or `calibrate BOARD_PHOTO...` to measure a phone's lens; or `markers -o "
                   "markers.pdf` to print the table-corner markers")
    p.add_argument("--table", metavar="WxD", help="table size: 48x48in, 1220x1220mm, 120x90cm, or 48x48 (inches)")
    p.add_argument("--corners", nargs="+", metavar="X,Y",
                   help="image pixels of the table's lower-left, lower-right, upper-right and upper-left corners "
                   "(default: find the table's outline). A corner outside the photo's left or top edge has a negative "
                   "coordinate: --corners -326,2385 3900,2400 3500,300 400,300 (or all four as one quoted argument, or "
                   "--corners=-326,2385,3900,2400,3500,300,400,300)")
    p.add_argument("--base-height", type=float, metavar="MM", dest="base_height",
                   help="every base's height in mm (0: flat discs); default: each catalogue size's own (3.5-5 mm)")
    p.add_argument("--camera", metavar="PHONE.toml", help="the phone's lens, from `tabletop photo calibrate` "
                   "(default: measured from the straightness of the table's sides)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--review", nargs="?", const="", metavar="SHEET.png",
                   help="print only the bases to check and the things seen but not fitted, and write a contact sheet of them "
                   "(one crop of the photo each, the fitted outline drawn; default IMAGE-review.png in this folder)")
    p.add_argument("-o", "--output", metavar="OUT", help="write a scenario (.toml) with one model per base and the photo as backdrop; "
                   "with calibrate, the lens (.toml); with markers, the sheet (.pdf or .png)")
    p.add_argument("--board", metavar="BOARD.png", help="with calibrate: write the ChArUco board to print (A4, 100 %%)")
    p.add_argument("--demo", metavar="OUT.jpg", help="write a synthetic test photo of a 48x48in table and say how to analyse it")
    p.add_argument("--seed", type=int, default=1, help="with --demo: which synthetic photo (default 1)")
    p.set_defaults(run=run)
    # A corner left of or above the photo starts with "-": argparse takes "-326,2385" for an option unless it looks like
    # a negative number, so points "X,Y" (and "X,Y X,Y ..." as one argument) count as numbers here. The parser has no
    # option that looks like one.
    if isinstance(getattr(p, "_negative_number_matcher", None), re.Pattern):
        p._negative_number_matcher = NEGATIVE_POINT


NEGATIVE_POINT = re.compile(r"^-\.?\d[\d.,;\seE+-]*$")
"""What argparse may read as a value, not an option: a negative number, or corner points that start with one."""


def scenario_dict(result: PhotoResult, out_path: Path) -> dict[str, Any]:
    """A format-1 scenario (mm) with one round-based model per detection and the photo as backdrop."""
    image = Path(result.path).resolve()
    try:
        rel = Path(os.path.relpath(image, out_path.resolve().parent)).as_posix()
    except ValueError:  # another drive (Windows)
        rel = image.as_posix()
    models: list[dict[str, Any]] = []
    for i, b in enumerate(result.bases, start=1):
        model: dict[str, Any] = {"id": f"b{i}", "x": round(b.x_mm, 2), "y": round(b.y_mm, 2)}
        if b.shape == "oval":
            model["base"] = {"shape": "oval", "length": b.diameter_mm, "width": b.width_mm}
            model["facing"] = round(b.rotation_deg, 1)  # the length lies along the facing
        else:
            model["base"] = b.diameter_mm
        model["sigma"] = round(b.sigma_mm, 3)
        if not b.confident:
            model["tags"] = [CHECK_TAG]
        models.append(model)
    out: dict[str, Any] = {
        "format": 1,
        "title": f"Photo {Path(result.path).name}",
        "units": "mm",
        "table": {"width": round(result.table_mm[0], 3), "depth": round(result.table_mm[1], 3)},
        "model": models,
        "backdrop": {"image": rel, "corners": [[round(x, 2), round(y, 2)] for x, y in result.corners_px]},
    }
    return out


def unfitted_comment(result: PhotoResult) -> str:
    """What was seen but fits no catalogue shape, as TOML comments: for a reader of the file, not a model the loader
    would take for a base."""
    lines = []
    for u in result.unfitted:
        outline = " ".join(f"{x:.1f},{y:.1f}" for x, y in u.outline_mm)
        lines.append(f"# unfitted: something base-like at x {u.x_mm:.1f}, y {u.y_mm:.1f} mm not placed (no catalogue shape, or standing above the table's plane); outline {outline}")
    return "\n".join(["", "# Seen in the photo but not fitted (check these by eye):", *lines, ""]) if lines else ""


def write_scenario(result: PhotoResult, out_path: Path) -> None:
    """Write the scenario through the project's one writer (temp file, fsync, rename; a link's target), never
    over the photo it came from (checked again at write time)."""
    import tomli_w

    from tabletop.atomic import atomic_write

    atomic_write(out_path, (tomli_w.dumps(scenario_dict(result, out_path)) + unfitted_comment(result)).encode("utf-8"), [result.path])


def finite_json(value: Any) -> Any:
    """``value`` with every non-finite number (an error that could not be measured) as None: JSON has no
    Infinity or NaN, and a reader must not mistake one for a measurement (docs/photo.md)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    return value


def _plus_minus(sigma_mm: float) -> str:
    return f"±{sigma_mm:.2f} mm" if math.isfinite(sigma_mm) else "± unknown"


def format_text(result: PhotoResult, typed_corners: bool | None = None) -> str:
    """Human-readable report. ``typed_corners``: whether the corners were given on the command line (False: corners the
    analysis did not find on the table's edges came from the printed markers; None: not known, "given"). Corners given
    or from the markers are taken as sure: no confidence is printed for them (it read 1.00, as if measured)."""
    w, h = result.image_size
    names = ("lower-left", "lower-right", "upper-right", "upper-left")
    if not result.corners_given:
        how = f"found, confidence {result.table_confidence:.2f}"
    else:
        how = "from the printed markers" if typed_corners is False else "given"
    lines = [
        f"{result.path}: {w}x{h} px, table {result.table_mm[0]:.1f} x {result.table_mm[1]:.1f} mm",
        f"corners ({how}): "
        + ", ".join(f"{n} ({x:.1f}, {y:.1f})" for n, (x, y) in zip(names, result.corners_px)),
        (f"calibration error ±{result.calibration_rms_mm:.2f} mm (RMS of the corners' 1-sigma error)"
         if math.isfinite(result.calibration_rms_mm) else
         "calibration error unknown (a side of the table gave too few edge points to measure it): check the corners"),
    ]
    cam = result.camera_json()
    if cam:
        lines.append(f"camera: focal length {cam['focal_px']} px ({'measured' if cam['focal_measured'] else 'assumed: a typical phone'}), "
                     f"lens k1 {cam['k1']:+.3f}, {cam['elevation_deg']}° above the table's centre")
    unsure = sum(not b.confident for b in result.bases)
    lines.append(f"{len(result.bases)} base{'s' if len(result.bases) != 1 else ''} (table mm, origin lower-left, y up; footprint centres)"
                 + (f", {unsure} to check" if unsure else "") + ":")
    for i, b in enumerate(result.bases, start=1):
        size = (f"oval {b.diameter_mm:g}x{b.width_mm:g} mm at {b.rotation_deg:.0f}°" if b.shape == "oval"
                else f"Ø {b.diameter_mm:g} mm (fitted {b.fitted_diameter_mm:.1f})")
        lines.append(f"  b{i:<3} x {b.x_mm:8.2f}  y {b.y_mm:8.2f}  {size}  {_plus_minus(b.sigma_mm)}  confidence {b.confidence:.2f}"
                     + ("" if b.confident else "  check this base"))
    for u in result.unfitted:
        lines.append(f"  ?    x {u.x_mm:8.2f}  y {u.y_mm:8.2f}  something base-like, not fitted ({len(u.outline_mm)}-point outline)")
    return "\n".join(lines)


def _error(message: str) -> int:
    print(f"tabletop photo: error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def run_demo(args: argparse.Namespace) -> int:
    """``--demo OUT.jpg``: a synthetic photo (``synth.py``) written as JPEG, and the command that analyses it."""
    from tabletop.atomic import OutputError, check_output

    try:
        check_output(args.demo, [])
    except OutputError as e:
        return _error(str(e))
    import cv2

    from tabletop.atomic import atomic_write
    from tabletop.photo.synth import synth_photo

    photo = synth_photo(args.seed)
    ok, buf = cv2.imencode(".jpg", photo.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:
        return _error(f"cannot encode {args.demo}")
    try:
        atomic_write(args.demo, buf.tobytes())
    except OSError as e:
        return _error(f"cannot write {args.demo}: {e.strerror or e}")
    h, w = photo.image.shape[:2]
    print(f"wrote {args.demo}: a synthetic {w}x{h} photo of a 48x48in table with {len(photo.bases)} round bases "
          f"(flat discs; seed {args.seed})")
    print(f"analyse it with: tabletop photo {args.demo} --table 48x48in --base-height 0")
    return EXIT_OK


def run_calibrate(args: argparse.Namespace) -> int:
    """``calibrate BOARD_PHOTO... -o PHONE.toml`` and ``calibrate --board BOARD.png``."""
    from tabletop.photo import camera

    photos = args.image[1:]
    if args.board:
        import cv2

        ok, buf = cv2.imencode(".png", camera.board_image())
        try:
            from tabletop.atomic import atomic_write

            atomic_write(args.board, buf.tobytes())
        except OSError as e:
            return _error(f"cannot write {args.board}: {e.strerror or e}")
        print(f"wrote {args.board}: print it at 100 % on A4 (squares {camera.BOARD_SQUARE_MM:g} mm), lay it flat, and photograph it "
              "5-10 times from different angles, filling much of the frame")
        if not photos:
            return EXIT_OK
    if not photos:
        return _error("calibrate: give the board photos (and -o PHONE.toml), or --board BOARD.png to write the board")
    if not args.output:
        return _error("calibrate: -o PHONE.toml is required (where to write the lens)")
    from tabletop.photo.imageio import load_image

    try:
        images = [load_image(p, max_pixels=10**9).pixels for p in photos]
        lens = camera.calibrate_board(images)
        camera.save_lens(lens, args.output)
    except PhotoError as e:
        return _error(str(e))
    except OSError as e:
        return _error(f"cannot write {args.output}: {e.strerror or e}")
    print(f"wrote {args.output}: {lens.size[0]}x{lens.size[1]}, focal length {lens.focal_px:.1f} px, k1 {lens.k1:+.4f}, "
          f"k2 {lens.k2:+.4f}, reprojection error {lens.rms_px:.2f} px over {lens.photos} photos")
    return EXIT_OK


def run_markers(args: argparse.Namespace) -> int:
    """``markers -o markers.pdf`` (or ``.png``): the sheet of four corner markers to print."""
    if len(args.image) > 1:
        return _error(f"markers takes no photo, got {' '.join(args.image[1:])}")
    out = args.output
    if not out:
        return _error("markers: give -o markers.pdf (or .png): where to write the sheet to print")
    if not out.lower().endswith((".pdf", ".png")):
        return _error(f"markers: {out} is not a .pdf or .png: the sheet is written as one (-o markers.pdf, or markers.png)")
    from tabletop.atomic import OutputError, check_output

    try:
        check_output(out, [])
    except OutputError as e:
        return _error(str(e))
    from tabletop.photo.markers import MARKER_MARGIN_MM, MARKER_SIZE_MM, write_marker_sheet

    try:
        write_marker_sheet(out)
    except OSError as e:
        return _error(f"cannot write {out}: {e.strerror or e}")
    print(f"wrote {out}: four corner markers on A4. Print at 100 % (the black squares {MARKER_SIZE_MM:g} mm), cut each out "
          f"{MARKER_MARGIN_MM:g} mm outside its square along the dashed line, and push its grey-marked corner into the table "
          "corner named on it; `tabletop photo` then takes the table's corners and the lens from them")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """Run ``tabletop photo`` with parsed arguments; returns the exit status."""
    if args.demo:
        return run_demo(args)
    if args.image and args.image[0] == "calibrate":
        return run_calibrate(args)
    if args.image and args.image[0] == "markers":
        return run_markers(args)
    if not args.image and args.review:
        # `--review IMAGE ...`: argparse gave the photo to --review (its sheet is optional)
        return _error(f"--review took {args.review} for its contact sheet and no photo is left: give the photo first "
                      f"(tabletop photo {args.review} --table ... --review), or --review SHEET.png")
    if len(args.image) != 1:
        return _error("give one photo (or `calibrate BOARD_PHOTO...`, or --demo OUT.jpg)" if not args.image
                      else f"one photo at a time, got {len(args.image)}: {' '.join(args.image)}")
    if not args.table:
        return _error("--table WxD is required (the table's size, e.g. 48x48in)")
    image = args.image[0]
    if args.base_height is not None and not (0.0 <= args.base_height <= 50.0):
        return _error(f"--base-height: expected 0 to 50 mm, got {args.base_height:g}")
    sheet = None
    if args.review is not None:
        sheet = args.review or f"{Path(image).stem}-review.png"
        if not sheet.lower().endswith(".png"):
            return _error(f"--review: the contact sheet is a PNG, got {sheet}")
    from tabletop.atomic import OutputError, check_output

    if args.output and sheet and os.path.abspath(args.output) == os.path.abspath(sheet):
        return _error(f"-o and --review both name {sheet}: the scenario and the contact sheet need a file each")
    for out in (args.output, sheet):
        if out:
            try:
                check_output(out, [image])  # before the work: never over the photo or a device
            except OutputError as e:
                return _error(str(e))
    try:
        from tabletop.photo.camera import load_lens
        from tabletop.photo.imageio import load_image, parse_corners, parse_table_size
        from tabletop.photo.pipeline import analyse_image

        table = parse_table_size(args.table)
        corners = parse_corners(args.corners) if args.corners else None
        lens = load_lens(args.camera) if args.camera else None
        loaded = load_image(image)
        with warnings.catch_warnings():
            # numpy's warnings on a degenerate photo (a mean of an empty slice) carry source paths and
            # say nothing to a user; the result or the error below says what was found.
            warnings.simplefilter("ignore" if not os.environ.get("TABLETOP_DEBUG") else "default", RuntimeWarning)
            sigmas = None
            if corners is not None:
                from tabletop.photo.outside import with_outside_placed

                # A corner beyond the frame (a negative x, or past the photo's size) is placed from the two sides
                # running to it, as the app's import does, or refused: never used as typed with a pixel's sigma.
                corners, sigmas = with_outside_placed(loaded, corners)
            result = analyse_image(loaded, table, corners, corner_sigma_px=sigmas, base_height_mm=args.base_height, lens_file=lens)
    except PhotoError as e:
        return _error(str(e))
    for note in result.notes:
        print(f"tabletop photo: note: {note}", file=sys.stderr)
    if args.output:
        try:
            write_scenario(result, Path(args.output))
        except OSError as e:
            return _error(f"cannot write {args.output}: {e.strerror or e}")
    wrote_sheet = False
    if sheet:
        from tabletop.photo.review import review_text, write_contact_sheet

        try:
            wrote_sheet = write_contact_sheet(sheet, loaded, result)
        except OSError as e:
            return _error(f"cannot write {sheet}: {e.strerror or e}")
    if args.json:
        from tabletop.jsonfmt import readable_json

        print(readable_json(finite_json(result.as_json())))
        if wrote_sheet:
            print(f"tabletop photo: wrote the contact sheet {sheet}", file=sys.stderr)
    elif sheet:
        print(review_text(result, sheet if wrote_sheet else None))
        if args.output:
            print(f"wrote {args.output}")
    else:
        print(format_text(result, typed_corners=args.corners is not None and bool(args.corners)))
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
