"""Reviewing a photo's bases at the table (issue 35, item 2): the session's data and its pure rules. No pygame.

After an import the app stays in *review* until the user finishes it: the photo is the table's backdrop, every
proposal is drawn with its sigma, the ones to check stand out and are listed by doubt, and a click fits a missed base
locally (``tabletop.photo.local.fit_base_at``). What is edited lives in the scenario (so every edit is one undo step);
this session keeps only what the scenario cannot hold: the photo's pixels for the local fit, each proposal's
detection (its confidence), the things seen but not fitted, and where a click found no rim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from tabletop.model import CHECK_TAG, PROPOSED_TAG, Base, Model, Scenario
from tabletop.viewport import Viewport

PANEL_SIZE = (270, 372)
"""The review panel over the table view's top-left corner (screen px), in a view of at least ``ROOMY_VIEW``."""
PANEL_GAP = 16
ROOMY_VIEW = (640, 600)
"""A table view smaller than this either way (the smallest window, 800x520, leaves 460x414; 1024x600 leaves 670x490)
gets the compact panel: narrower, its buttons two to a row, its list a few rows that scroll, so most of the photo stays
in sight. The full panel is 372 px high: under 600 the column under it has no room for the legend, which then took a
strip of the view's height from the table."""
COMPACT_WIDTH = 220
FOLDED_HEIGHT = 34
"""The panel folded away (its title row and the unfold button only)."""
PANEL_ROW = 34
"""One row of the panel's buttons (a 30 px button and its gap)."""
ROOMY_ROWS = 5
COMPACT_ROWS = 4
"""The panel's rows under its list: the size menu across the whole panel (at half its width the ovals' names were cut,
"60x35 mm o…"), then the buttons (the full panel: Next and Circle, then one a row; the compact one: two a row)."""

REOPEN_BUTTON = (124, 30)
"""The "Review photo" button's size (screen px)."""

__all__ = ["PhotoReview", "panel_rect", "reopen_button_place"]
MANUAL_SIGMA_MM = 0.5
"""1-sigma given to a base placed by hand on the photo (no rim fitted): a click on a 4K screen showing the whole table is
about half a millimetre; zoomed in it is better, but the photo's own calibration error stays."""
ROUND_SIZES_MM: tuple[float, ...] = (25.0, 28.0, 30.0, 32.0, 40.0, 50.0, 55.0, 60.0, 80.0, 100.0)
"""The round catalogue sizes offered in the size menu (the photo analysis's own, ``tabletop.photo.BASE_SIZES_MM``)."""
OVAL_SIZES_MM: tuple[tuple[float, float], ...] = ((60.0, 35.0), (75.0, 42.0), (90.0, 52.0), (105.0, 70.0), (120.0, 92.0), (170.0, 105.0))
"""The oval catalogue (length x width), as ``tabletop.photo.ovals`` snaps to."""


def size_label(length: float, width: float | None = None) -> str:
    """A size menu entry: ``32 mm`` or ``90x52 mm oval``."""
    if width is None or abs(width - length) < 1e-9:
        return f"{length:g} mm"
    return f"{length:g}x{width:g} mm oval"


def size_options() -> list[str]:
    return [size_label(d) for d in ROUND_SIZES_MM] + [size_label(a, b) for a, b in OVAL_SIZES_MM]


def parse_size_label(text: str) -> tuple[float, float] | None:
    """``32 mm`` → (32, 32); ``90x52 mm oval`` → (90, 52); None if not a menu entry."""
    for d in ROUND_SIZES_MM:
        if text == size_label(d):
            return (d, d)
    for a, b in OVAL_SIZES_MM:
        if text == size_label(a, b):
            return (a, b)
    return None


def doubt(sigma_mm: float, confidence: float) -> float:
    """How much a base needs checking: ``tabletop.photo.review.doubt``'s rule (its 1-sigma over its confidence)."""
    return sigma_mm / max(confidence, 0.05)


def model_for(model_id: str, detection: Any, extra_tags: tuple[str, ...] = ()) -> Model:
    """A proposed model from a detection (round, or oval along its long axis), tagged ``check`` when not confident."""
    oval = getattr(detection, "shape", "round") == "oval"
    base = Base("oval", float(detection.diameter_mm), float(detection.width_mm)) if oval else Base.round(float(detection.diameter_mm))
    tags = (PROPOSED_TAG,) + ((CHECK_TAG,) if not detection.confident else ()) + extra_tags
    return Model(model_id, float(detection.x_mm), float(detection.y_mm), base, facing=float(detection.rotation_deg) if oval else 90.0,
                 tags=tags, sigma=round(float(detection.sigma_mm), 3))


def manual_model(model_id: str, x: float, y: float, size: tuple[float, float], sigma_mm: float = MANUAL_SIGMA_MM) -> Model:
    """A base placed by hand where no rim was found: proposed, of the chosen catalogue size."""
    length, width = size
    base = Base.round(length) if abs(length - width) < 1e-9 else Base("oval", length, width)
    return Model(model_id, float(x), float(y), base, tags=(PROPOSED_TAG,), sigma=round(sigma_mm, 3))


def compact(view: tuple[int, int, int, int]) -> bool:
    """Whether the table view is too small for the full panel (``ROOMY_VIEW``)."""
    return view[2] < ROOMY_VIEW[0] or view[3] < ROOMY_VIEW[1]


def panel_rect(view: tuple[int, int, int, int], folded: bool = False) -> tuple[int, int, int, int]:
    """The review panel's place (left, top, width, height) over the view's top-left corner: the full panel in a roomy
    view; a compact one in a small view (title, list, the size menu, three rows of buttons two to a row, about half the
    view's height); folded, its title row only."""
    left, top, width, height = view
    if not compact(view):
        w, h = PANEL_SIZE
    else:
        w = min(COMPACT_WIDTH, max(120, width - 2 * PANEL_GAP))
        h = max(28 + 66 + COMPACT_ROWS * PANEL_ROW + 8, round(height * 0.55))
    if folded:
        h = FOLDED_HEIGHT
    return (left + 8, top + 8, w, max(FOLDED_HEIGHT, min(h, height - 16)))


def panel_shift(view: tuple[int, int, int, int], folded: bool = False) -> float:
    """How far right of the view's centre the part the panel leaves free has its centre (0: the panel folded, the
    view is free but for its top strip)."""
    return 0.0 if folded else (panel_rect(view)[2] + PANEL_GAP) / 2


def review_viewport(view: tuple[int, int, int, int], table_mm: tuple[float, float], margin_px: int = 24,
                    folded: bool = False, bottom_px: int = 0) -> Viewport | None:
    """The whole table shown in the part of the view ``view`` (left, top, width, height) the review panel leaves free:
    the panel sits over the view's left side (folded: over its top strip); ``bottom_px`` left free along the view's
    bottom too (a small view's legend, with the panel folded)."""
    left, top, width, height = view
    shift = panel_shift(view, folded)
    free = width - 2 * shift
    over = FOLDED_HEIGHT + 8 if folded else 0
    high = height - over - bottom_px
    w, d = table_mm
    scale = min((free - 2 * margin_px) / w, (high - 2 * margin_px) / d)
    if scale <= 0:
        return None
    down = (over - bottom_px) / 2
    return Viewport((w / 2 - shift / scale, d / 2 + down / scale), scale, view)


def reopen_button_place(view: tuple[int, int, int, int], keep_off: list[tuple[int, int, int, int]],
                        size: tuple[int, int] = REOPEN_BUTTON, margin: int = 8) -> tuple[int, int, int, int]:
    """Where the "Review photo" button goes over the table view ``view``: its top-right corner (the rulers run along the
    table's left and bottom edges, so no ruler label is there while any of the table is in view; at the top-left the
    button covered the left ruler's top label whenever the table was fitted), else the first other corner clear of
    ``keep_off`` (the rulers as drawn: a table scrolled away pins its ruler to the view's edge), else the top-right."""
    left, top, w, h = view
    bw, bh = size
    spots = [(left + w - margin - bw, top + margin), (left + margin, top + margin),
             (left + w - margin - bw, top + h - margin - bh), (left + margin, top + h - margin - bh)]
    for x, y in spots:
        if not any(x < rx + rw and rx < x + bw and y < ry + rh and ry < y + bh for rx, ry, rw, rh in keep_off):
            return (x, y, bw, bh)
    return (spots[0][0], spots[0][1], bw, bh)


def point_in_polygon(x: float, y: float, polygon: tuple[tuple[float, float], ...]) -> bool:
    """Even-odd rule."""
    inside = False
    n = len(polygon)
    for i in range(n):
        (x0, y0), (x1, y1) = polygon[i], polygon[(i + 1) % n]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


@dataclass
class PhotoReview:
    """One photo under review: its pixels (for the local fit), the analysis, and what the scenario cannot hold."""

    loaded: Any  # tabletop.photo.values.LoadedImage
    result: Any  # tabletop.photo.values.PhotoResult
    detections: dict[str, Any] = field(default_factory=dict)
    """Model id → its detection (as found, or as refitted): the confidence the doubt order needs."""
    rect: Any = None  # tabletop.photo.values.Rectified, made on the first local fit
    manual_size: tuple[float, float] = (32.0, 32.0)
    offer: tuple[float, float] | None = None
    """Where the last click found no rim: ``M`` (or the panel's button) lays a circle of ``manual_size`` there."""
    offer_raised: bool = False
    """The offer is a "?" on a raised surface: its circle stays "check this base" until it is dragged to where it stands."""
    offer_on: Any = None
    """The table and the selection the offer was made on (``offer_made_on``): a later edit (a Delete, an undo) or another
    selection makes it stale, dropped (``offer_current``) before ``M`` could lay a circle at a spot clicked long ago."""
    cursor: str | None = None
    """The model ``N`` last went to."""
    last_fit_ms: float = 0.0
    folded: bool = False
    """The panel folded away to its title row (a small window: the photo wanted whole)."""
    show_photo: bool = True
    """Under each proposal the photo itself (its real base, the fitted ring over it); off (T): the judged table's
    bases drawn over the photo."""

    def offer_made_on(self, scenario: Scenario, selection: Any) -> None:
        """The offer (set just now) was made on ``scenario`` with ``selection``."""
        self.offer_on = (scenario, selection)

    def offer_current(self, scenario: Scenario, selection: Any) -> bool:
        """Whether there is an offer still meant: dropped when the table or the selection changed since it was made."""
        if self.offer is None:
            return False
        on = self.offer_on
        if on is None or on[0] is not scenario or on[1] != selection:
            self.offer, self.offer_raised, self.offer_on = None, False, None
            return False
        return True

    def rectified(self) -> Any:
        if self.rect is None:
            from tabletop.photo.local import rectified_for

            self.rect = rectified_for(self.loaded, self.result)
        return self.rect

    def confidence(self, model: Model) -> float:
        d = self.detections.get(model.id)
        if d is not None and math.hypot(d.x_mm - model.x, d.y_mm - model.y) < 1e-6:
            return float(d.confidence)
        return 0.5 if CHECK_TAG in model.tags else 1.0

    def unsure(self, scenario: Scenario) -> list[Model]:
        """The bases tagged ``check``, most doubtful first: proposed ones, and ones accepted with the rest ("accept all")
        that nobody has looked at yet."""
        ms = [m for m in scenario.models if CHECK_TAG in m.tags]
        return sorted(ms, key=lambda m: -doubt(m.sigma or 0.0, self.confidence(m)))

    def open_unfitted(self, scenario: Scenario) -> list[Any]:
        """The things seen but not fitted that no base covers yet (turned into a base, an outline's "?" goes away;
        undone, it comes back)."""
        out = []
        for u in self.result.unfitted:
            if not any(point_in_polygon(m.x, m.y, u.outline_mm) or math.hypot(m.x - u.x_mm, m.y - u.y_mm) < 3.0 for m in scenario.models):
                out.append(u)
        return out

    def unfitted_at(self, scenario: Scenario, x: float, y: float) -> Any | None:
        for u in self.open_unfitted(scenario):
            if point_in_polygon(x, y, u.outline_mm):
                return u
        return None

    def next_unsure(self, scenario: Scenario, step: int = 1) -> Model | None:
        """The unsure proposal after (``step`` 1) or before (-1) the one ``N`` last went to, round the list."""
        items = self.unsure(scenario)
        if not items:
            return None
        ids = [m.id for m in items]
        if self.cursor in ids:
            i = (ids.index(self.cursor) + step) % len(ids)
        else:
            i = 0 if step > 0 else len(ids) - 1
        self.cursor = ids[i]
        return items[i]


def corners_key(corners: Any) -> tuple[tuple[float, float], ...]:
    """A photo's table corners as the backdrop keeps them (file px, to 0.01): which photo a review is of."""
    return tuple((round(float(x), 2), round(float(y), 2)) for x, y in corners)


REOPENED_NOTE = ("reviewed again from the saved table: the analysis's confidences and the things it saw but could not fit "
                 "are not kept in the file (each base to check is listed by its sigma); the lens is measured again on the "
                 "table's sides, each corner taken as sure to 1 px")


def reopened_result(loaded: Any, corners: Any, table_mm: tuple[float, float]) -> Any:
    """A photo's review rebuilt from the table alone (its backdrop's corners, the table's size): what the local fit
    needs (the camera, the lens measured on the table's sides as the import does, the calibration's error); no bases
    (the table's models are the proposals) and no unfitted outlines (the file does not keep them). Slow (the lens):
    run it off the frame loop."""
    import numpy as np

    from tabletop.photo.camera import camera_from_corners, homography_undistorted
    from tabletop.photo.imageio import to_working
    from tabletop.photo.rectify import calibration_rms_mm, measure_lens
    from tabletop.photo.values import PhotoResult

    work = tuple((float(x), float(y)) for x, y in to_working(np.asarray(corners, dtype=np.float64), loaded.scale))
    quad = (work[0], work[1], work[2], work[3])
    height, width = loaded.pixels.shape[:2]
    sigmas = (1.0,) * 4  # as the import takes corners it cannot confirm on the table's edges
    lens, lens_rms, k_sigma = measure_lens(loaded.pixels, quad, None)
    camera = camera_from_corners(quad, table_mm, (width, height), lens, sigmas, None, lens_rms, k_sigma)
    h = homography_undistorted(quad, table_mm, lens)
    removed = tuple((float(x), float(y)) for x, y in lens.remove(np.asarray(quad)))
    calibration = calibration_rms_mm(h, (removed[0], removed[1], removed[2], removed[3]), sigmas)
    return PhotoResult(path=loaded.path, image_size=loaded.original_size, table_mm=(float(table_mm[0]), float(table_mm[1])),
                       corners_px=tuple(tuple(c) for c in corners_key(corners)), corners_given=True,  # type: ignore[arg-type]
                       table_confidence=1.0, calibration_rms_mm=float(calibration), bases=(),
                       notes=tuple(loaded.notes) + (REOPENED_NOTE,), camera=camera)
