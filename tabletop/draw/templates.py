"""Layer: template fills, outlines, visibility, scatter paths, foci and names (pygame)."""

from __future__ import annotations

import math

import numpy as np
import pygame

from tabletop.draw.labels import PRIORITY, Label, block
from tabletop.draw.primitives import _arrow, _dashed, _disjoint, _fill_poly, _fill_ring, _screen_rect
from tabletop.draw.scene import _Scene, _TemplateArt, _bbox_visible, _hatch_cached, _hatch_spacing, _top_middle, refusal_lines
from tabletop.draw.style import DrawOptions, FloatArray, SCATTER, SHADOW_FILL, SHADOW_HATCH, TEMPLATE_FILL, VISIBLE_FILL
from tabletop.draw.text import _text
from tabletop.label_layout import LabelRequest
from tabletop.marks import NULLIFIED, TEMPLATE_EDGE, TEXT, TEXT_DIM
from tabletop.viewport import Viewport


def _draw_template_fills(overlay: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions, view: tuple[float, float, float, float]) -> list[pygame.Rect]:
    """Translucent template areas on the shared overlay; returns the screen areas touched, disjoint."""
    alpha = max(0, min(255, options.template_alpha))
    touched: list[pygame.Rect] = []
    replaced = scene.art.replaced if scene.art is not None else set()
    for art in scene.templates:
        if not _bbox_visible(art.bbox, view):
            continue
        touched.append(_screen_rect(vp, art.bbox))
        for other in art.also:
            _fill_ring(overlay, vp, art.outline(other, vp.scale), (*TEMPLATE_FILL, alpha // 2))
        if not art.allowed:
            for p in art.fill:
                _fill_poly(overlay, vp, p, (*NULLIFIED, alpha // 2))
            continue
        if options.show_visibility and art.visible is not None:
            for p in art.visible:
                _fill_poly(overlay, vp, p, (*VISIBLE_FILL, alpha))
            for p in art.shadow:
                _fill_poly(overlay, vp, p, (*SHADOW_FILL, min(255, 90 + alpha)))
        elif art.id not in replaced:
            _fill_ring(overlay, vp, art.outline(art.placed, vp.scale), (*TEMPLATE_FILL, alpha))
    # One blit per cluster of templates, not of their bounding box: templates spread over
    # the table would otherwise blend the whole screen through per-pixel alpha.
    return _disjoint(touched)


def _draw_template_lines(surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions, view: tuple[float, float, float, float]) -> None:
    replaced = scene.art.replaced if scene.art is not None else set()
    for art in scene.templates:
        if not _bbox_visible(art.bbox, view):
            continue
        if options.show_visibility and art.allowed and art.shadow_geom is not None and art.shadow:
            spacing = _hatch_spacing(vp.scale, 8.0)
            hatch = _hatch_cached(art.hatches, 0, art.shadow_geom, vp, spacing, 45.0)
            if len(hatch):
                for a, b in vp.to_screen_array(hatch.reshape(-1, 2)).reshape(-1, 2, 2).tolist():
                    pygame.draw.line(surface, SHADOW_HATCH, a, b, 1)
        for g in art.ghosts:
            _dashed(surface, vp.to_screen_array(art.outline(g, vp.scale)), (220, 220, 220), 1, 6, 6)
        for other in art.also:
            pygame.draw.lines(surface, TEMPLATE_EDGE, True, vp.to_screen_array(art.outline(other, vp.scale)).tolist(), 1)
        ring = vp.to_screen_array(art.outline(art.placed, vp.scale))
        if not art.allowed:
            _dashed(surface, ring, NULLIFIED, 3, 12, 8)
            if art.cross is not None:
                for a, b in vp.to_screen_array(art.cross.reshape(-1, 2)).reshape(-1, 2, 2).tolist():
                    pygame.draw.line(surface, NULLIFIED, a, b, 3)
        elif art.id not in replaced:
            pygame.draw.lines(surface, (40, 30, 10), True, ring.tolist(), 4)
            pygame.draw.lines(surface, TEMPLATE_EDGE, True, ring.tolist(), 2)


def _draw_scatter(surface: pygame.Surface, vp: Viewport, scene: _Scene) -> None:
    """Original aim (an X) to final point, as an arrow above the bases it crosses."""
    segments = [seg for art in scene.templates for seg in art.paths]
    for segment in segments:
        (ax, ay), end = vp.to_screen_array(segment).tolist()
        for colour, width, head in (((10, 10, 10), 7, 22), (SCATTER, 3, 18)):
            _arrow(surface, (ax, ay), end, colour, width, head)
        for colour, width in (((10, 10, 10), 5), (SCATTER, 2)):
            pygame.draw.line(surface, colour, (ax - 7, ay - 7), (ax + 7, ay + 7), width)
            pygame.draw.line(surface, colour, (ax - 7, ay + 7), (ax + 7, ay - 7), width)


def _draw_focus(surface: pygame.Surface, vp: Viewport, scene: _Scene, view: tuple[float, float, float, float]) -> None:
    replaced = scene.art.replaced if scene.art is not None else set()
    for art in scene.templates:
        if not _bbox_visible(art.bbox, view):
            continue
        p = art.placed
        fx, fy = vp.to_screen(*p.focus)
        if p.shape.kind != "circle" and art.id not in replaced:  # a circle's axis changes nothing it covers
            h = math.radians(p.heading)
            reach = p.shape.reach * 0.92
            ex, ey = vp.to_screen(p.focus[0] + reach * math.cos(h), p.focus[1] + reach * math.sin(h))
            head = max(8.0, min(16.0, vp.length_to_screen(reach) * 0.15))
            _arrow(surface, (fx, fy), (ex, ey), (20, 20, 20), 4, head + 2)
            _arrow(surface, (fx, fy), (ex, ey), TEMPLATE_EDGE, 2, head)
        if art.id in replaced:
            continue  # the ruleset marks its own origin (Ground Zero)
        arm = 11
        for colour, width in (((10, 10, 10), 5), ((255, 255, 255), 2)):
            pygame.draw.line(surface, colour, (fx - arm, fy), (fx + arm, fy), width)
            pygame.draw.line(surface, colour, (fx, fy - arm), (fx, fy + arm), width)
        pygame.draw.circle(surface, (10, 10, 10), (fx, fy), 6, 3)
        pygame.draw.circle(surface, (255, 255, 255), (fx, fy), 5, 1)


#: The refusal banner's background: NULLIFIED darkened so white text on it passes WCAG AA.
REFUSAL_BACK = (178, 24, 24)
TITLE_INK = (255, 236, 170)
#: A refused template's name: NULLIFIED lightened to read on the dark pill (WCAG AA).
TITLE_REFUSED = (255, 110, 110)


def _template_labels(vp: Viewport, scene: _Scene, view: tuple[float, float, float, float]) -> list[Label]:
    """Each template's name (and the line under it) over its top, and a refused template's banner under it."""
    out: list[Label] = []
    for art in scene.templates:
        if not _bbox_visible(art.bbox, view):
            continue
        true = scene.art.outlines.get(art.id) if scene.art is not None else None
        ring = vp.to_screen_array(true if true is not None else art.outline(art.placed, vp.scale))
        x0, y0 = _top_middle(ring)
        colour = TITLE_REFUSED if not art.allowed else TITLE_INK
        parts = [_text(art.label, 19, colour, (14, 16, 20), bold=True)]
        if art.sublabel:
            parts.append(_text(art.sublabel, 13, TEXT_DIM, (14, 16, 20)))
        surf = block(parts)
        text = art.label + (f" · {art.sublabel}" if art.sublabel else "")
        request = LabelRequest(f"title:{art.id}", (x0, y0), surf.get_size(), PRIORITY["title"], ("above", "above_right", "above_left", "right", "left"), 2.0, True, "title", text)
        out.append(Label(request, surf))
        if not art.allowed:
            out.append(_refusal(art, ring))
    return out


def _refusal(art: _TemplateArt, ring: FloatArray) -> Label:
    """NULLIFIED / NOT ALLOWED and the reason, under the template (a leader back to it when moved)."""
    word = "NULLIFIED" if art.reason and "nullif" in art.reason.lower() else "NOT ALLOWED"
    parts = [_text(word, 22, (255, 255, 255), REFUSAL_BACK, bold=True)]
    if art.reason:
        parts.extend(_text(line, 14, TEXT, (14, 16, 20)) for line in refusal_lines(art.reason))
    surf = block(parts)
    k = int(np.argmax(ring[:, 1]))
    anchor = (float(ring[k, 0]), float(ring[k, 1]))
    text = word + (f": {art.reason}" if art.reason else "")
    request = LabelRequest(f"refusal:{art.id}", anchor, surf.get_size(), PRIORITY["refusal"], ("below", "below_right", "below_left", "right", "left"), 2.0, True, "refusal", text)
    return Label(request, surf)
