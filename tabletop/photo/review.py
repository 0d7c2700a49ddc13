"""What a judge checks in a photo's analysis: the bases it is not confident of and the things it saw but could not fit,
as a short list and a contact sheet (one crop of the photo per item, the fitted outline drawn on it) (issue 35, item 4).

``tabletop photo IMAGE --table … --review [SHEET.png]`` prints the list and writes the sheet; the app's review mode lists
the same bases in the same order (``doubt``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tabletop.photo.values import Detection, LoadedImage, PhotoResult, Rectified, Unfitted

TILE_PX = 280
"""A contact sheet's tile: the crop round one base, scaled to this many pixels square."""
TILE_COLUMNS = 4
CAPTION_PX = 46
CROP_MARGIN_MM = 10.0
"""Mat shown round a base's outline in its tile (and round its 2-sigma band)."""
MIN_CONFIDENCE_FOR_DOUBT = 0.05
RING_COLOUR = (40, 150, 255)  # BGR: orange, the app's "check this base"
BAND_COLOUR = (40, 210, 255)
UNFITTED_COLOUR = (200, 60, 220)


def doubt(detection: Detection) -> float:
    """How much a base needs checking (mm-like, larger first): its 1-sigma over its confidence, so a base found loosely
    and one placed loosely both come first."""
    return detection.sigma_mm / max(detection.confidence, MIN_CONFIDENCE_FOR_DOUBT)


def unsure_bases(result: PhotoResult) -> list[tuple[int, Detection]]:
    """The bases not confident (``b1`` = 1 as numbered in the command's output and the scenario), most doubtful first."""
    items = [(i, d) for i, d in enumerate(result.bases, start=1) if not d.confident]
    return sorted(items, key=lambda item: -doubt(item[1]))


def size_text(d: Detection) -> str:
    if d.shape == "oval":
        return f"oval {d.diameter_mm:g}x{d.width_mm:g} mm at {d.rotation_deg:.0f}°"
    return f"Ø {d.diameter_mm:g} mm"


def caption_size(d: Detection) -> str:
    """``size_text`` in the contact sheet's font, which has no "Ø"."""
    return size_text(d).replace("Ø ", "round ")


def unfitted_size_mm(u: Unfitted) -> tuple[float, float]:
    """An unfitted outline's extent: its longest chord and the width across it (mm)."""
    pts = np.asarray(u.outline_mm, dtype=np.float64)
    if len(pts) < 2:
        return 0.0, 0.0
    centred = pts - pts.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    along, across = centred @ vt[0], centred @ vt[1]
    return float(np.ptp(along)), float(np.ptp(across))


def review_text(result: PhotoResult, sheet: str | None = None) -> str:
    """The short list: each base to check (most doubtful first) and each thing seen but not fitted, with its tile."""
    unsure = unsure_bases(result)
    n = len(result.bases)
    head = (f"{Path(result.path).name}: {n} base{'s' if n != 1 else ''}, {len(unsure)} to check, "
            f"{len(result.unfitted)} seen but not fitted")
    if sheet:
        head += f" (contact sheet: {sheet})"
    lines = [head]
    if result.coarse:
        lines.append(f"  a coarse photo ({result.mm_per_px:.2f} mm per pixel): check every base")
    tile = 0
    for i, d in unsure:
        tile += 1
        lines.append(f"  b{i:<3} x {d.x_mm:8.2f}  y {d.y_mm:8.2f}  {size_text(d):<24} ±{d.sigma_mm:.2f} mm  "
                     f"confidence {d.confidence:.2f}   tile {tile}")
    for u in result.unfitted:
        tile += 1
        length, width = unfitted_size_mm(u)
        why = ("on a raised surface (a hill, a roof): where it stands depends on its height; place it by hand" if u.raised
               else f"seen, not fitted: about {length:.0f} x {width:.0f} mm")
        lines.append(f"  ?    x {u.x_mm:8.2f}  y {u.y_mm:8.2f}  {why}   tile {tile}")
    if not unsure and not result.unfitted:
        lines.append("  nothing to check: every base is confident")
    return "\n".join(lines)


def outline_mm(x: float, y: float, length: float, width: float, rotation_deg: float, grow: float = 0.0, n: int = 96) -> np.ndarray:
    """A round or oval base's outline (n, 2) in table mm, grown by ``grow`` mm (an ellipse's axes grown alike)."""
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    a, b = max(0.1, length / 2 + grow), max(0.1, width / 2 + grow)
    r = math.radians(rotation_deg)
    ex, ey = a * np.cos(t), b * np.sin(t)
    return np.column_stack([x + math.cos(r) * ex - math.sin(r) * ey, y + math.sin(r) * ex + math.cos(r) * ey])


def detection_outline(d: Detection, grow: float = 0.0) -> np.ndarray:
    width = d.width_mm if d.shape == "oval" else d.diameter_mm
    return outline_mm(d.x_mm, d.y_mm, d.diameter_mm, width, d.rotation_deg if d.shape == "oval" else 0.0, grow)


def _tile(photo: np.ndarray, rect: Rectified, outlines: list[tuple[np.ndarray, tuple[int, int, int], int]], box_mm: np.ndarray,
          mark: str | None = None) -> np.ndarray:
    """The photo's pixels over table box ``box_mm`` (its corners, mm), scaled to a tile, with ``outlines`` (table mm,
    colour, width) drawn on it."""
    import cv2

    corners_px = rect.table_to_image(box_mm)
    x0, y0 = np.floor(corners_px.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(corners_px.max(axis=0)).astype(int) + 2
    side = max(x1 - x0, y1 - y0, 8)
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    x0, y0 = cx - side // 2, cy - side // 2
    h, w = photo.shape[:2]
    crop = np.full((side, side, 3), 40, np.uint8)
    sx0, sy0, sx1, sy1 = max(0, x0), max(0, y0), min(w, x0 + side), min(h, y0 + side)
    if sx1 > sx0 and sy1 > sy0:
        crop[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = photo[sy0:sy1, sx0:sx1]
    f = TILE_PX / side
    tile = cv2.resize(crop, (TILE_PX, TILE_PX), interpolation=cv2.INTER_CUBIC if f > 1 else cv2.INTER_AREA)
    shift = 4  # sub-pixel drawing: coordinates in 1/16 px
    for points, colour, width in outlines:
        px = (rect.table_to_image(points) - [x0 - 0.5, y0 - 0.5]) * f - 0.5
        cv2.polylines(tile, [np.round(px * (1 << shift)).astype(np.int32)], True, colour, width, cv2.LINE_AA, shift)
    if mark:
        cv2.putText(tile, mark, (TILE_PX // 2 - 12, TILE_PX // 2 + 14), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (255, 255, 255), 5, cv2.LINE_AA)
        cv2.putText(tile, mark, (TILE_PX // 2 - 12, TILE_PX // 2 + 14), cv2.FONT_HERSHEY_SIMPLEX, 1.4, UNFITTED_COLOUR, 2, cv2.LINE_AA)
    return tile


def contact_sheet(loaded: LoadedImage, result: PhotoResult, rect: Rectified | None = None) -> np.ndarray | None:
    """One tile per base to check (most doubtful first: the footprint fitted, solid; its 2-sigma band, thin) and per
    thing seen but not fitted (its outline, "?"), each captioned; None when there is nothing to check. BGR."""
    import cv2
    from PIL import Image, ImageDraw, ImageFont

    from tabletop.photo.local import rectified_for

    unsure = unsure_bases(result)
    if not unsure and not result.unfitted:
        return None
    rect = rect or rectified_for(loaded, result)
    tiles: list[tuple[np.ndarray, list[str]]] = []
    for n, (i, d) in enumerate(unsure, start=1):
        reach = d.diameter_mm / 2 + max(CROP_MARGIN_MM, 3 * d.sigma_mm)
        box = np.array([[d.x_mm - reach, d.y_mm - reach], [d.x_mm + reach, d.y_mm - reach], [d.x_mm + reach, d.y_mm + reach],
                        [d.x_mm - reach, d.y_mm + reach]])
        band = 2 * d.sigma_mm
        outlines = [(detection_outline(d, -band), BAND_COLOUR, 1), (detection_outline(d, band), BAND_COLOUR, 1),
                    (detection_outline(d), RING_COLOUR, 2)]
        cross = max(1.0, 0.08 * d.diameter_mm)
        outlines += [(np.array([[d.x_mm - cross, d.y_mm], [d.x_mm + cross, d.y_mm]]), RING_COLOUR, 1),
                     (np.array([[d.x_mm, d.y_mm - cross], [d.x_mm, d.y_mm + cross]]), RING_COLOUR, 1)]
        tiles.append((_tile(loaded.pixels, rect, outlines, box),
                      [f"{n}. b{i}  {caption_size(d)}", f"±{d.sigma_mm:.2f} mm  confidence {d.confidence:.2f}"]))
    for u in result.unfitted:
        pts = np.asarray(u.outline_mm, dtype=np.float64)
        lo, hi = pts.min(axis=0) - CROP_MARGIN_MM, pts.max(axis=0) + CROP_MARGIN_MM
        box = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
        length, width = unfitted_size_mm(u)
        tiles.append((_tile(loaded.pixels, rect, [(pts, UNFITTED_COLOUR, 2)], box, "?"),
                      [f"{len(tiles) + 1}. ? at {u.x_mm:.0f}, {u.y_mm:.0f} mm",
                       "on a raised surface: height unknown" if u.raised else f"not fitted, about {length:.0f} x {width:.0f} mm"]))
    cols = min(TILE_COLUMNS, len(tiles))
    rows = math.ceil(len(tiles) / cols)
    gap, head = 8, 40
    sheet = Image.new("RGB", (cols * (TILE_PX + gap) + gap, head + rows * (TILE_PX + CAPTION_PX + gap) + gap), (250, 250, 248))
    draw = ImageDraw.Draw(sheet)
    font, small = ImageFont.load_default(size=17), ImageFont.load_default(size=14)
    draw.text((gap, 10), f"{Path(result.path).name}: {len(unsure)} base{'s' if len(unsure) != 1 else ''} to check, "
              f"{len(result.unfitted)} seen but not fitted",
              fill=(20, 20, 20), font=font)
    for k, (tile, caption) in enumerate(tiles):
        r, c = divmod(k, cols)
        x, y = gap + c * (TILE_PX + gap), head + r * (TILE_PX + CAPTION_PX + gap)
        sheet.paste(Image.fromarray(cv2.cvtColor(tile, cv2.COLOR_BGR2RGB)), (x, y))
        for j, line in enumerate(caption):
            draw.text((x + 2, y + TILE_PX + 4 + 19 * j), line, fill=(20, 20, 20), font=font if j == 0 else small)
    return cv2.cvtColor(np.asarray(sheet), cv2.COLOR_RGB2BGR)


def write_contact_sheet(path: str, loaded: LoadedImage, result: PhotoResult) -> bool:
    """Write the contact sheet as PNG (atomic); False (nothing written) when there is nothing to check."""
    import cv2

    from tabletop.atomic import atomic_write

    sheet = contact_sheet(loaded, result)
    if sheet is None:
        return False
    ok, buf = cv2.imencode(".png", sheet)
    if not ok:
        raise OSError(f"cannot encode {path}")
    atomic_write(path, buf.tobytes())
    return True
