"""Writing a PNG: the table or the action around the templates fitted to the image (pygame)."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pygame

from tabletop.adjudicate import Adjudication
from tabletop.atomic import atomic_write
from tabletop.draw.chrome import RULER_BAND, RULER_SIDE
from tabletop.draw.compose import _apply_settings, draw_scene
from tabletop.draw.frame import Frame
from tabletop.draw.legend import _legend_surface
from tabletop.draw.plan import ACTION_MARGIN, ACTION_MIN_MARGIN_MM, ACTION_MIN_SIZE_MM, fit_box as _fit_box, action_box as _action_box  # noqa: F401  (re-exported)
from tabletop.draw.scene import _Scene, _scene
from tabletop.draw.style import DrawOptions, INCH
from tabletop.viewport import MAX_SCALE, MIN_SCALE, Viewport

if TYPE_CHECKING:
    from tabletop.odds import OddsResult


def render_png(
    adjudication: Adjudication,
    path: str | Path,
    size: tuple[int, int] = (1600, 1000),
    options: DrawOptions | None = None,
    region: str = "table",
    odds: OddsResult | None = None,
    layout_json: str | Path | None = None,
    inputs: Iterable[str | Path | None] = (),
) -> Viewport:
    """Draw ``adjudication`` headless into a ``size`` image and save it as PNG at ``path``.

    ``region="table"`` fits the whole table; ``"action"`` zooms on the templates, where
    they scattered from and the models they affect. ``odds`` adds the odds overlay
    (heat map, landing points, chances). ``layout_json``: also write what was drawn (labels, bases,
    hidden count, in screen px; :meth:`Frame.to_json`) there. Returns the viewport drawn.

    Always a PNG, whatever ``path`` (or a link there) is called. Both files are encoded in memory
    and written through :func:`tabletop.atomic.atomic_write` (never over one of ``inputs``); a failed
    write raises :class:`tabletop.atomic.OutputError` naming that file and leaves it as it was.
    """
    surface, vp, frame = render_frame(adjudication, size, options, region, odds)
    png = encode_png(surface)
    layout = (json.dumps(frame.to_json(), indent=1) + "\n").encode("utf-8") if layout_json is not None else None
    atomic_write(path, png, inputs)
    if layout_json is not None and layout is not None:
        atomic_write(layout_json, layout, [*inputs, path])
    return vp


def encode_png(surface: pygame.Surface) -> bytes:
    """``surface`` as the bytes of a PNG file (encoded in memory: a full disk cannot truncate it unseen)."""
    out = io.BytesIO()
    pygame.image.save(surface, out, "image.png")
    data = out.getvalue()
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError("the PNG encoder produced no image")
    return data


def render_frame(
    adjudication: Adjudication,
    size: tuple[int, int] = (1600, 1000),
    options: DrawOptions | None = None,
    region: str = "table",
    odds: OddsResult | None = None,
) -> tuple[pygame.Surface, Viewport, Frame]:
    """:func:`render_png` without the file: the surface, the viewport and the :class:`Frame` drawn."""
    if region not in REGIONS:
        raise ValueError(f"region must be one of {', '.join(REGIONS)}, got {region!r}")
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    if not pygame.font.get_init():
        pygame.font.init()
    options = options or DrawOptions()
    _apply_settings(options)
    scene = _scene(adjudication)
    width, height = size
    table = adjudication.scenario.table
    box = (0.0, 0.0, table.width, table.depth)
    if region == "action":
        box = _action_box(scene) or box
        if odds is not None:
            landings = [(x, y) for t in odds.templates for x, y, p in t.landing_points if p > 0]
            if landings:
                xs, ys = zip(*landings)
                pad = 2 * INCH  # room for the landing discs and their labels
                box = (
                    max(0.0, min(box[0], min(xs) - pad)),
                    max(0.0, min(box[1], min(ys) - pad)),
                    min(table.width, max(box[2], max(xs) + pad)),
                    min(table.depth, max(box[3], max(ys) + pad)),
                )
    # Keep the table clear of the title band, the legend panel and the rulers.
    top = 70 if options.show_title else 8
    side, band = (RULER_SIDE + 4, RULER_BAND + 4) if options.show_rulers else (0, 0)

    def area_for(right: int) -> tuple[int, int, int, int]:
        return (side, top, max(1, width - side - right), max(1, height - top - band))

    right = _legend_surface(scene, 1.0).get_width() + 16 if options.show_legend else 0
    area = area_for(right)
    centre, scale = _fit_box(box, area, table.width, table.depth)
    if options.show_legend:
        legend_w = _legend_surface(scene, scale).get_width() + 16
        if legend_w != right:
            area = area_for(legend_w)
            centre, scale = _fit_box(box, area, table.width, table.depth)
    # The box's centre at the middle of the area left free.
    ax, ay = area[0] + area[2] / 2, area[1] + area[3] / 2
    vp = Viewport(centre, scale, (0, 0, width, height)).panned(ax - width / 2, ay - height / 2)
    surface = pygame.Surface(size)
    frame = draw_scene(surface, vp, adjudication, options)
    if odds is not None:
        from tabletop.draw.odds import draw_odds

        frame = draw_odds(surface, vp, adjudication.scenario, odds, frame=frame)
    return surface, vp, frame


REGIONS = ("table", "action")


