"""Drawing the photo review over the table: each proposal's outline and its sigma as a band, the ones to check in
another colour and pattern with a badge, the things seen but not fitted as outlines with a "?", and where a click found
no rim. Drawing only reads the state (issue 35, item 2)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pygame

from tabletop.draw.checks import check_mark
from tabletop.draw.primitives import _dashed
from tabletop.draw.style import CHECK_COLOUR
from tabletop.model import CHECK_TAG, PROPOSED_TAG, Model, Scenario
from tabletop.viewport import Viewport

from . import overlays
from .review import PhotoReview

SURE_COLOUR = (60, 220, 255)
"""A proposal the analysis is confident of: cyan, solid."""
UNFITTED_COLOUR = (235, 80, 235)
ACCEPTED_COLOUR = (245, 245, 245)
"""A base not proposed (accepted, or placed by hand), while the review shows the photo: a thin white ring, the photo
under it."""
BAND_ALPHA = 80
SIGMA_BAND = 2.0
"""The band drawn round each outline spans this many sigmas either side (where the rim lies 19 times in 20)."""
OUTLINE_POINTS = 72
LEGEND_FONT = 19
SMALL_LEGEND_FONT = 15
"""A small view's legend (``review.compact``): a smaller font, in the column under the panel (folded: a strip along the
view's bottom that the table's fit leaves free)."""
FOLDED_LEGEND = ("Click: fit a missed base or a ? · drag: refit · Delete: remove",
                 "N: next to check · M: circle · T: photo · A: accept · Esc: finish")
"""A small view's legend with the panel folded: its buttons' keys, in two short lines (the notes come back with the
panel)."""


def outline_world(model: Model, grow_mm: float = 0.0, n: int = OUTLINE_POINTS) -> np.ndarray:
    """A round or oval base's outline (n, 2) in table mm, its axes grown by ``grow_mm``."""
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    a, b = max(0.05, model.base.length / 2 + grow_mm), max(0.05, model.base.width / 2 + grow_mm)
    r = math.radians(model.facing)
    ex, ey = a * np.cos(t), b * np.sin(t)
    return np.column_stack([model.x + math.cos(r) * ex - math.sin(r) * ey, model.y + math.sin(r) * ex + math.cos(r) * ey])


def _band(layer: pygame.Surface, vp: Viewport, model: Model, colour: tuple[int, int, int], offset: tuple[int, int]) -> None:
    """The 2-sigma band round ``model``'s outline, filled translucent on ``layer`` (its top-left at screen ``offset``)."""
    sigma = model.sigma or 0.0
    half = SIGMA_BAND * sigma
    outer = vp.to_screen_array(outline_world(model, half)) - offset
    if half * vp.scale < 0.75:
        pygame.draw.lines(layer, (*colour, 150), True, outer.tolist(), 1)
        return
    inner = vp.to_screen_array(outline_world(model, -half)) - offset
    pygame.draw.polygon(layer, (*colour, BAND_ALPHA), outer.tolist())
    pygame.draw.polygon(layer, (0, 0, 0, 0), inner.tolist())


def draw_review(surface: pygame.Surface, vp: Viewport, view: pygame.Rect, scenario: Scenario, review: PhotoReview | None,
                show_bands: bool = True) -> None:
    """Every proposal with its sigma band; the ones to check orange, dashed, badged; open unfitted outlines with "?";
    the spot where a click found no rim."""
    # Also the bases accepted with the rest ("accept all") that are still marked to check, during the review and after it:
    # "not sure, check this base" stays in sight until someone looks at it (after the review they were drawn as sure).
    proposed = [m for m in scenario.models if PROPOSED_TAG in m.tags or CHECK_TAG in m.tags]
    accepted: list[Model] = []
    if review is not None and review.show_photo:
        # The photo over the drawn bases again, so the ring lies on the real base it was fitted to. The bases accepted
        # already too, each as a thin ring: drawn as the table draws a base, an opaque disc, one hid the very base on
        # the photo it was accepted for, so a second look at it showed nothing to check it against (h50).
        from tabletop.draw.backdrop import draw_backdrop

        patches = {m.id: _patch(vp, m) for m in scenario.models}
        accepted = [m for m in scenario.models if PROPOSED_TAG not in m.tags and CHECK_TAG not in m.tags
                    and view.colliderect(patches[m.id][2])]
        for m in (*proposed, *accepted):
            _photo_under(surface, vp, view, patches[m.id], draw_backdrop)
        for m in accepted:
            if m.base.shape == "round":
                cx, cy = patches[m.id][0]
                pygame.draw.circle(surface, ACCEPTED_COLOUR, (round(cx), round(cy)), round(m.base.length / 2 * vp.scale), 2)
            else:
                pygame.draw.lines(surface, ACCEPTED_COLOUR, True, vp.to_screen_array(outline_world(m)).tolist(), 2)
    if show_bands and proposed:
        layer = pygame.Surface(view.size, pygame.SRCALPHA)
        for m in proposed:
            _band(layer, vp, m, CHECK_COLOUR if CHECK_TAG in m.tags else SURE_COLOUR, view.topleft)
        surface.blit(layer, view.topleft)
    for m in proposed:
        ring = vp.to_screen_array(outline_world(m))
        if CHECK_TAG in m.tags:
            # The table draws this mark (``draw.checks``, for exports too); the photo drawn over the base hides it.
            if review is not None and review.show_photo:
                check_mark(surface, ring, vp.to_screen(m.x, m.y), m.base.bounding_radius * vp.scale)
        else:
            pygame.draw.lines(surface, SURE_COLOUR, True, ring.tolist(), 2)
    if review is None:
        return
    for u in review.open_unfitted(scenario):
        pts = vp.to_screen_array(np.asarray(u.outline_mm, dtype=np.float64))
        if len(pts) >= 3:
            _dashed(surface, pts, UNFITTED_COLOUR, 2, 5.0, 5.0)
        cx, cy = vp.to_screen(u.x_mm, u.y_mm)
        overlays.text(surface, "?", (cx + 1, cy + 1), overlays.INK, 26, "center", bold=True)
        overlays.text(surface, "?", (cx, cy), UNFITTED_COLOUR, 26, "center", bold=True)
    if review.offer is not None:
        x, y = vp.to_screen(*review.offer)
        r = max(6.0, review.manual_size[0] / 2 * vp.scale)
        pygame.draw.circle(surface, CHECK_COLOUR, (round(x), round(y)), round(r), 1)
        pygame.draw.line(surface, CHECK_COLOUR, (x - 8, y), (x + 8, y), 1)
        pygame.draw.line(surface, CHECK_COLOUR, (x, y - 8), (x, y + 8), 1)


def _patch(vp: Viewport, model: Model) -> tuple[tuple[float, float], float, pygame.Rect]:
    """The screen disc the photo is drawn again in over ``model``'s base (3 px wider than it): its centre, its radius and
    the square round it (not clipped to the view)."""
    cx, cy = vp.to_screen(model.x, model.y)
    r = model.base.bounding_radius * vp.scale + 3
    return (cx, cy), r, pygame.Rect(round(cx - r), round(cy - r), round(2 * r) + 1, round(2 * r) + 1)


_KEY = (255, 0, 254)
"""A colour no photo pixel is made to have: the disc cut out of a saved patch (``_photo_under``)."""


def _photo_under(surface: pygame.Surface, vp: Viewport, view: pygame.Rect, patch: tuple[tuple[float, float], float, pygame.Rect],
                 draw_backdrop: Callable[[pygame.Surface, Viewport, pygame.Rect], Any]) -> None:
    """The photo drawn again in a base's ``patch`` (``_patch``), in its disc, not in its square: what the table drew
    round the base (the selection's ring, a neighbour's edge) stays, where the square's corners painted it over."""
    (cx, cy), r, square = patch
    rect = square.clip(view)
    if rect.width <= 0 or rect.height <= 0:
        return
    around = surface.subsurface(rect).copy()
    pygame.draw.circle(around, _KEY, (round(cx) - rect.left, round(cy) - rect.top), round(r))
    around.set_colorkey(_KEY)
    draw_backdrop(surface, vp, rect)
    surface.blit(around, rect.topleft)


def fit_lines(lines: list[str], width_px: int, size: int = 19) -> list[str]:
    """``lines`` broken to fit ``width_px`` in the legend's font: at their " · " first, then between words."""
    f = overlays.font(size)
    out: list[str] = []
    for line in lines:
        current = ""
        for part in line.split(" · "):
            joined = f"{current} · {part}" if current else part
            if f.size(joined)[0] <= width_px:
                current = joined
                continue
            if current:
                out.append(current)
            current = ""
            for word in part.split(" "):
                joined = f"{current} {word}" if current else word
                if f.size(joined)[0] <= width_px or not current:
                    current = joined
                else:
                    out.append(current)
                    current = "  " + word
        if current:
            out.append(current)
    return out


def review_legend(review: PhotoReview, scenario: Scenario, short: bool = False) -> list[str]:
    """The hint lines while reviewing; ``short``: a small window's, whose panel has the buttons for N, M, T, A and Esc
    (their keys are in its buttons' names), so only what no button says and the notes (folded: the keys, no notes)."""
    unsure = len(review.unsure(scenario))
    unfitted = len(review.open_unfitted(scenario))
    if short and review.folded:  # the panel's buttons folded away: their keys
        lines = list(FOLDED_LEGEND)
    elif short:
        lines = ["Click a missed base (or a ?) to fit it · drag a wrong one: it refits · Delete a false one"]
    else:
        lines = [f"Review: {unsure} base{'s' if unsure != 1 else ''} to check (orange, dashed, !)"
                 + (f", {unfitted} seen but not fitted (?)" if unfitted else "")
                 + " · N: next to check · T: " + ("the judged bases over the photo" if review.show_photo else "the photo under the rings"),
                 "Click a missed base (or a ?) to fit it · drag a wrong one: it refits · Delete a false one · A: accept all · Esc: finish"]
    if review.offer is not None and review.offer_raised:
        lines.append(f"On a raised surface, its height unknown: M lays a {review_size_text(review.manual_size)} circle to drag "
                     "where it stands")
    elif review.offer is not None:
        lines.append(f"No base rim found there: M adds a {review_size_text(review.manual_size)} circle (size menu to change)")
    if short and review.folded:
        return lines
    for note in getattr(review.result, "notes", ()):
        # What the analysis noted (the command prints it on stderr): a table size the markers do not fit, a piece not
        # pushed home, a corner placed unsure, a photo downscaled. Without it every base "to check" would say no why.
        # Whole here: every place the legend is drawn breaks it to its own width (``fit_lines``). Broken here at a fixed
        # length as well, a note came out ragged in the column under the panel (a line of 14 characters after one of 40).
        lines.append(f"Photo: {note}")
    return lines


def small_legend(lines: list[str], width_px: int, height_px: int, size: int = SMALL_LEGEND_FONT) -> list[str]:
    """``lines`` broken to ``width_px`` (the box's padding inside it) and cut to what ``height_px`` holds, the last line
    then saying the rest is cut."""
    out = fit_lines(lines, width_px - 12, size)
    f = overlays.font(size)
    room = max(1, (height_px - 8) // f.size("Ag")[1])
    if len(out) <= room:
        return out
    return out[:room - 1] + ["… (more in a larger window)"]


def review_size_text(size: tuple[float, float]) -> str:
    a, b = size
    return f"{a:g} mm" if abs(a - b) < 1e-9 else f"{a:g}x{b:g} mm oval"

