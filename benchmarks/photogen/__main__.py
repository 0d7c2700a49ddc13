"""``python -m benchmarks.photogen CONDITION SEED -o photo.jpg --truth truth.json`` (or ``--sheet OUT.png``).

Renders one photo of a named condition (``--list`` names them), or a contact sheet of one photo per
condition, downscaled, with the true table corners and base footprints marked.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from benchmarks.photogen import CONDITIONS, cached_photo, describe, render_photo


def contact_sheet(seed: int, size: tuple[int, int] | None, columns: int = 3, thumb_width: int = 900, marks: bool = True) -> np.ndarray:
    """One photo per condition (from the cache), downscaled, labelled; truth drawn over it when ``marks``."""
    tiles = []
    for name in CONDITIONS:
        path, truth = cached_photo(name, seed, size)
        img = cv2.imread(str(path))
        k = thumb_width / img.shape[1]
        thumb = cv2.resize(img, (thumb_width, int(round(img.shape[0] * k))), interpolation=cv2.INTER_AREA)
        if marks:
            for x, y in truth["corners_px"]:
                cv2.circle(thumb, (int(round(x * k)), int(round(y * k))), 6, (0, 0, 255), 2, cv2.LINE_AA)
            for b in truth["bases"]:
                x, y = b["footprint_centre_px"]
                colour = (0, 200, 255) if b["occluded"] else (255, 255, 0)
                cv2.drawMarker(thumb, (int(round(x * k)), int(round(y * k))), colour, cv2.MARKER_CROSS, 7, 1, cv2.LINE_AA)
        label = f"{name} #{seed}  {truth['image_size'][0]}x{truth['image_size'][1]}  q{truth['jpeg_quality']}"
        cv2.rectangle(thumb, (0, 0), (thumb_width, 30), (0, 0, 0), -1)
        cv2.putText(thumb, label, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.65, (255, 255, 255), 1, cv2.LINE_AA)
        tiles.append(thumb)
    h = max(t.shape[0] for t in tiles)
    tiles = [cv2.copyMakeBorder(t, 0, h - t.shape[0], 0, 0, cv2.BORDER_CONSTANT) for t in tiles]
    while len(tiles) % columns:
        tiles.append(np.zeros_like(tiles[0]))
    return np.vstack([np.hstack(tiles[i:i + columns]) for i in range(0, len(tiles), columns)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.photogen", description=__doc__.splitlines()[0])
    ap.add_argument("condition", nargs="?", help="a named condition (see --list)")
    ap.add_argument("seed", nargs="?", type=int, default=0)
    ap.add_argument("-o", "--output", type=Path, help="write the photo (JPEG bytes as the phone saved them)")
    ap.add_argument("--truth", type=Path, help="write the ground truth as JSON")
    ap.add_argument("--size", metavar="WxH", help="override the condition's frame size, e.g. 1200x900")
    ap.add_argument("--sheet", type=Path, metavar="OUT.png", help="write a contact sheet of one photo per condition instead")
    ap.add_argument("--list", action="store_true", help="list the conditions")
    args = ap.parse_args(argv)
    size = tuple(int(v) for v in args.size.lower().split("x")) if args.size else None
    if args.list:
        for name in CONDITIONS:
            print(f"{name:14} {describe(name)}")
        return 0
    if args.sheet:
        cv2.imwrite(str(args.sheet), contact_sheet(args.seed, size))  # type: ignore[arg-type]
        print(f"wrote {args.sheet}")
        return 0
    if args.condition not in CONDITIONS:
        ap.error(f"condition must be one of: {', '.join(CONDITIONS)}")
    photo = render_photo(args.condition, args.seed, size)  # type: ignore[arg-type]
    if args.output:
        args.output.write_bytes(photo.jpeg)
    if args.truth:
        args.truth.write_text(json.dumps(photo.truth, indent=1))
    n = len(photo.truth["bases"])
    print(f"{args.condition} #{args.seed}: {photo.truth['image_size'][0]}x{photo.truth['image_size'][1]}, {n} bases, "
          f"{photo.seconds:.1f} s" + (f" -> {args.output}" if args.output else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
