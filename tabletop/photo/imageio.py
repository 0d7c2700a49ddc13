"""Reading a photo and the command line's table size and corners, validated at the boundary."""

from __future__ import annotations

import math
import os
import re
import stat
import warnings
from collections.abc import Sequence

import numpy as np

from tabletop.photo.values import Corners, LoadedImage, PhotoError

MAX_PIXELS = 16_000_000
"""Photos above this many pixels are downscaled by a whole factor before any work (with a note)."""
REFUSE_PIXELS = 400_000_000
"""Beyond this the file is refused unread: no phone makes such photos, a crafted file might."""

_MM_PER = {"mm": 1.0, "cm": 10.0, "in": 25.4, "inch": 25.4, '"': 25.4}
_TABLE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*[x×X]\s*(\d+(?:\.\d*)?|\.\d+)\s*(mm|cm|in|inch|\")?\s*$")


def parse_table_size(text: str) -> tuple[float, float]:
    """``"48x48in"``, ``"1220x1220mm"``, ``"120x90cm"`` or ``"48x48"`` (inches) to (width, depth) mm."""
    match = _TABLE.match(text)
    if not match:
        raise PhotoError(f"--table: expected WIDTHxDEPTH with in, cm or mm (e.g. 48x48in, 1220x1220mm), got {text!r}")
    factor = _MM_PER[match.group(3) or "in"]
    width, depth = float(match.group(1)) * factor, float(match.group(2)) * factor
    if not (100.0 <= width <= 20_000.0 and 100.0 <= depth <= 20_000.0):
        raise PhotoError(f"--table: each side must be between 100 mm and 20 m, got {width:g}x{depth:g} mm")
    return (width, depth)


def parse_corners(texts: list[str]) -> Corners:
    """Four ``X,Y`` strings (image pixels) to corners: lower-left, lower-right, upper-right, upper-left.

    Also one string holding all four, separated by spaces or semicolons (``"-326,2385 3900,2400 ..."``, as some shells
    and scripts pass them), or eight numbers separated by commas. A point may start with a negative number
    (``--corners -326,2385 ...``: a corner outside the photo)."""
    joined = " ".join(texts).replace(";", " ").split()
    if len(joined) == 1 and joined[0].count(",") == 7:
        numbers = joined[0].split(",")
        joined = [f"{numbers[i]},{numbers[i + 1]}" for i in range(0, 8, 2)]
    texts = joined
    if len(texts) != 4:
        # Count numbers too: "1,2,3,4,5,6,7,8,9,10" is one argument but ten numbers, not "1 point".
        numbers = sum(len([part for part in text.split(",") if part]) for text in texts)
        raise PhotoError(f"--corners: expected 4 points X,Y (lower-left, lower-right, upper-right, upper-left), or 8 numbers; "
                         f"got {len(texts)} {'point' if len(texts) == 1 else 'points'} holding {numbers} "
                         f"{'number' if numbers == 1 else 'numbers'}")
    points = []
    for i, text in enumerate(texts):
        parts = text.split(",")
        try:
            if len(parts) != 2:
                raise ValueError
            x, y = float(parts[0]), float(parts[1])
        except ValueError:
            raise PhotoError(f"--corners: point {i + 1} {text!r} is not X,Y (two numbers separated by a comma)") from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise PhotoError(f"--corners: point {i + 1} {text!r} is not finite")
        points.append((x, y))
    return (points[0], points[1], points[2], points[3])


def corners_outside(corners: Sequence[tuple[float, float]], size: tuple[int, int]) -> list[int]:
    """The indices of the corners outside an image of ``size`` (width, height): beyond its edge pixels' outer edges."""
    width, height = size
    return [i for i, (x, y) in enumerate(corners) if not (-0.5 <= x <= width - 0.5 and -0.5 <= y <= height - 0.5)]


def corner_outside(corners: Corners, size: tuple[int, int]) -> int | None:
    """The index of the first corner outside an image of ``size`` (width, height), or None if all lie in it."""
    out = corners_outside(corners, size)
    return out[0] if out else None


def check_corners(corners: Corners, size: tuple[int, int], where: str = "--corners", allow_outside: bool = False) -> None:
    """Raise PhotoError unless the corners lie in the image and form a convex, non-crossing quadrilateral.

    ``allow_outside``: a corner may lie beyond the photo's edge (a table cut by the frame, its corner placed by the user
    from the sides that are seen), by at most the photo's own width or height; the bases beyond the edge are not seen.
    """
    width, height = size
    names = ("lower-left", "lower-right", "upper-right", "upper-left")
    if allow_outside:
        for i, (x, y) in enumerate(corners):
            if not (-width <= x <= 2 * width and -height <= y <= 2 * height):
                raise PhotoError(f"{where}: the {names[i]} corner ({x:g}, {y:g}) is further outside the {width}x{height} image "
                                 "than the image is wide or tall")
        outside = None
    else:
        outside = corner_outside(corners, size)
    if outside is not None:
        x, y = corners[outside]
        raise PhotoError(f"{where}: the {names[outside]} corner ({x:g}, {y:g}) is outside the {width}x{height} image")
    pts = np.asarray(corners, dtype=float)
    crosses = []
    for i in range(4):
        a, b, c = pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]
        crosses.append((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]))
    crosses_arr = np.asarray(crosses)
    area = 0.5 * abs(float(np.sum(pts[:, 0] * np.roll(pts[:, 1], -1) - np.roll(pts[:, 0], -1) * pts[:, 1])))
    # Image y points down: lower-left → lower-right → upper-right → upper-left turns the same way at every corner.
    if not (np.all(crosses_arr < 0) or np.all(crosses_arr > 0)):
        raise PhotoError(f"{where}: the corners cross or make a non-convex shape; give them in the order lower-left, lower-right, upper-right, upper-left")
    if np.all(crosses_arr > 0):
        raise PhotoError(f"{where}: the corners go clockwise on the table; give them in the order lower-left, lower-right, upper-right, upper-left")
    if area < 0.001 * width * height:
        raise PhotoError(f"{where}: the four corners enclose almost no area ({area:.0f} px²)")


def load_image(path: str | os.PathLike[str], max_pixels: int = MAX_PIXELS) -> LoadedImage:
    """Read a photo (any format Pillow reads) as BGR uint8, EXIF-rotated, downscaled above ``max_pixels``."""
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except FileNotFoundError:
        raise PhotoError(f"{name}: no such file") from None
    except OSError as e:
        raise PhotoError(f"{name}: cannot read: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise PhotoError(f"{name}: is a directory, not an image")
    if not stat.S_ISREG(st.st_mode):
        raise PhotoError(f"{name}: not a regular file (a pipe, device or socket), not an image")
    if st.st_size == 0:
        raise PhotoError(f"{name}: empty file, not an image")

    import cv2
    from PIL import Image, ImageOps, UnidentifiedImageError

    notes: list[str] = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(name) as im:
                w0, h0 = im.size
                if w0 * h0 > REFUSE_PIXELS:
                    raise PhotoError(f"{name}: {w0}x{h0} pixels is too large to be a photo (limit {REFUSE_PIXELS // 1_000_000} megapixels)")
                if w0 < 64 or h0 < 64:
                    raise PhotoError(f"{name}: {w0}x{h0} pixels is too small to find a table in")
                factor = max(1, math.ceil(math.sqrt(w0 * h0 / max_pixels)))
                im.load()
                ImageOps.exif_transpose(im, in_place=True)  # no copy of an upright photo's 36 MB
                oriented = im
                if _high_bit_depth(oriented.mode):
                    oriented, note = _to_8bit(oriented)
                    notes.append(note)
                if oriented.mode != "RGB":
                    oriented = oriented.convert("RGB")
                ow, oh = oriented.size
                if factor > 1:
                    oriented = oriented.reduce(factor)
                    notes.append(f"{ow}x{oh} pixels is above the {max_pixels / 1e6:g}-megapixel working size: "
                                 f"downscaled by {factor} to {oriented.size[0]}x{oriented.size[1]}")
                rgb = np.asarray(oriented)
    except PhotoError:
        raise
    except UnidentifiedImageError:
        raise PhotoError(f"{name}: not an image Tabletop can read (JPEG, PNG, WebP, TIFF, BMP …)") from None
    except Image.DecompressionBombError as e:
        # Pillow says "Image size (N pixels) exceeds limit of M pixels, ...": the user is told both, in megapixels.
        sizes = [int(n) for n in re.findall(r"(\d+) pixels", str(e))]
        told = (f" ({sizes[0] / 1e6:.0f} megapixels; a photo Tabletop reads has at most {sizes[1] / 1e6:.0f})"
                if len(sizes) >= 2 else "")
        raise PhotoError(f"{name}: too many pixels to be a photo{told}") from None
    except (OSError, SyntaxError, ValueError) as e:
        text = str(e).splitlines()[0] if str(e) else type(e).__name__
        if "truncated" in text.lower():
            raise PhotoError(f"{name}: the image file is truncated (incomplete download or copy?)") from None
        raise PhotoError(f"{name}: cannot decode the image: {text}") from None
    # The channels swapped by OpenCV (a permutation, four times faster than numpy's copy of a reversed view).
    bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR) if rgb.ndim == 3 and rgb.shape[2] == 3 else np.ascontiguousarray(rgb[:, :, ::-1])
    return LoadedImage(pixels=bgr, path=name, original_size=(ow, oh), scale=1.0 / factor, notes=tuple(notes))


def _high_bit_depth(mode: str) -> bool:
    """Whether Pillow's ``mode`` holds more than 8 bits a sample (16- or 32-bit integers, 32-bit floats): its
    own ``convert("RGB")`` clips those at 255, which turns a 16-bit grey photo white."""
    return mode.startswith("I") or mode.startswith("F")


SAMPLE_FOR_RANGE = 1_000_000
"""The photo's range is read from at most this many of its pixels (evenly spread)."""
RANGE_PERCENTILES = (0.01, 99.99)
"""The range a high-bit-depth photo is scaled from: a few hot or dead pixels do not darken or wash out the rest."""


def _to_8bit(image: Image.Image) -> tuple[Image.Image, str]:
    """A 16- or 32-bit (integer or float) greyscale image as 8-bit grey, scaled from the photo's own range
    (a 12-bit sensor's values in a 16-bit file fill the 8 bits; a float TIFF in 0-1 too), and a note saying so.
    Not-a-number and infinite samples become the range's ends. Converted a band of rows at a time: memory
    stays at the 8-bit result plus one band."""
    from PIL import Image

    values = np.asarray(image)
    if values.ndim != 2:
        values = np.asarray(image.convert("F"))
    height, width = values.shape
    step = max(1, int(math.sqrt(values.size / SAMPLE_FOR_RANGE)))
    sample = values[::step, ::step].astype(np.float64)
    finite = sample[np.isfinite(sample)]
    if finite.size == 0:
        raise ValueError("it holds no finite pixel value")
    lo, hi = (float(v) for v in np.percentile(finite, RANGE_PERCENTILES))
    if not hi > lo:
        lo, hi = float(finite.min()), float(finite.max())
    scale = 255.0 / (hi - lo) if hi > lo else 0.0
    out = np.empty((height, width), dtype=np.uint8)
    rows = max(1, 4_000_000 // max(1, width))
    for top in range(0, height, rows):
        band = values[top:top + rows].astype(np.float32)
        band = np.nan_to_num(band, nan=lo, posinf=hi, neginf=lo)
        np.clip((band - lo) * scale + 0.5, 0.0, 255.0, out=band)
        out[top:top + rows] = band.astype(np.uint8)
    bits = {"F": "32-bit float"}.get(image.mode[:1], "32-bit" if image.mode in ("I", "I;32", "I;32B", "I;32L") else "16-bit")
    note = f"a {bits} greyscale photo: its values {lo:g} to {hi:g} scaled to 8-bit grey"
    return Image.fromarray(out, "L"), note


def to_working(points: np.ndarray, scale: float) -> np.ndarray:
    """File pixels to working pixels of an image reduced by ``1/scale`` (pixel centres at integers)."""
    k = 1.0 / scale
    return (np.asarray(points, dtype=float) - (k - 1) / 2) / k


def to_file(points: np.ndarray, scale: float) -> np.ndarray:
    """Working pixels back to the file's own pixels."""
    k = 1.0 / scale
    return np.asarray(points, dtype=float) * k + (k - 1) / 2
