"""Layer: template fills, outlines, visibility, scatter paths, foci and names (pygame)."""

from __future__ import annotations

import math

import numpy as np
import pygame

from tabletop.draw.layout import _candidates, _obstacles
from tabletop.draw.primitives import _arrow, _dashed, _disjoint, _fill_poly, _fill_ring, _screen_rect
from tabletop.draw.scene import _Scene, _TemplateArt, _bbox_visible, _hatch_cached, _hatch_spacing, _top_middle
from tabletop.draw.style import DrawOptions, FloatArray, SCATTER, SHADOW_FILL, SHADOW_HATCH, TEMPLATE_FILL, VISIBLE_FILL
from tabletop.draw.text import _blit_centred, _name_sizer, _text
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


def _draw_template_labels(surface: pygame.Surface, vp: Viewport, scene: _Scene, view: tuple[float, float, float, float]) -> list[pygame.Rect]:
    """Each template's name over its top; returns the rects drawn."""
    left, top, w, h = vp.rect
    rects: list[pygame.Rect] = []
    shown = [art for art in scene.templates if _bbox_visible(art.bbox, view)]
    rings = []
    for art in shown:
        true = scene.art.outlines.get(art.id) if scene.art is not None else None
        rings.append(vp.to_screen_array(true if true is not None else art.outline(art.placed, vp.scale)))
    tops = [_top_middle(ring) for ring in rings]
    # Ruleset tables crowd their templates with badges: keep the names off bases there. Plain
    # tables (300 models while dragging) only stack coincident names, which costs nothing.
    bases = _obstacles(scene, vp, [], _name_sizer(scene, scene.names_drawn)) if scene.art is not None else None
    for art, ring, (x0, y0) in zip(shown, rings, tops):
        colour = NULLIFIED if not art.allowed else (255, 236, 170)
        title = _text(art.label, 19, colour, (14, 16, 20, 200), bold=True)
        sub = _text(art.sublabel, 13, TEXT_DIM, (14, 16, 20, 200))
        block_h = title.get_height() + sub.get_height()
        half = max(title.get_width(), sub.get_width()) / 2
        # Over the template's top, moved along it or up when a base or another template's name is there.
        x, y = x0, y0
        span_x, span_y = int(3 * half + 30), int(4 * (block_h + 2) + 8)
        near = rects if bases is None else bases.near(pygame.Rect(int(x0) - span_x, int(y0) - span_y, 2 * span_x, span_y + 8)) + rects
        for dy, dx in ((0, 0), (0, 1), (0, -1), (1, 0), (1, 1), (1, -1), (2, 0), (2, 1), (2, -1), (3, 0)):
            cx = x0 + dx * (half + 24)
            cy = max(top + block_h + 2, y0 - 4 - dy * (block_h + 2))
            cx = min(max(cx, left + half + 2), left + w - half - 2)
            block = pygame.Rect(int(cx - half), int(cy - block_h), int(2 * half), block_h)
            if block.collidelist(near) < 0:
                x, y = cx, cy
                break
        else:
            y = max(top + block_h + 2, y0 - 4)
            x = min(max(x0, left + half + 2), left + w - half - 2)
            # Templates laid on the same spot (a Burst): stack their names instead of overprinting.
            for _ in range(len(shown)):
                block = pygame.Rect(int(x - half), int(y - block_h), int(2 * half), block_h)
                if block.collidelist(rects) < 0 or y - block_h - 2 < top + block_h:
                    break
                y -= block_h + 2
        rects.append(_blit_centred(surface, sub, x, y, "midbottom"))
        rects.append(_blit_centred(surface, title, x, y - sub.get_height(), "midbottom"))
        if not art.allowed:
            rects.append(_draw_refusal(surface, vp, scene, art, ring, rects))
    return rects


def _draw_refusal(surface: pygame.Surface, vp: Viewport, scene: _Scene, art: _TemplateArt, ring: FloatArray, taken: list[pygame.Rect]) -> pygame.Rect:
    """NULLIFIED / NOT ALLOWED and the reason, under the template but clear of the bases and names there."""
    word = "NULLIFIED" if art.reason and "nullif" in art.reason.lower() else "NOT ALLOWED"
    big = _text(word, 22, (255, 255, 255), (*NULLIFIED, 225), bold=True)
    parts = [big]
    if art.reason:
        reason = art.reason if len(art.reason) <= 60 else art.reason[:57] + "..."
        parts.append(_text(reason, 14, TEXT, (14, 16, 20, 220)))
    w = max(p.get_width() for p in parts)
    h = sum(p.get_height() for p in parts) + 2 * (len(parts) - 1)
    k = int(np.argmax(ring[:, 1]))
    ax, ay = float(ring[k, 0]), float(ring[k, 1])
    bounds = pygame.Rect(vp.rect)
    obstacles = _obstacles(scene, vp, taken, _name_sizer(scene, scene.names_drawn))
    # Below the template first, so the bases it would have hit stay visible.
    choices = [pygame.Rect(int(ax - w / 2), int(ay + 6), w, h), *_candidates(ax, ay, w, h, 0.0, "below")]
    inside = [r for r in choices if bounds.contains(r)] or [pygame.Rect(int(ax - w / 2), int(ay + 6), w, h).clamp(bounds)]
    near = obstacles.near(pygame.Rect(int(ax) - 200 - w, int(ay) - 200 - h, 400 + 2 * w, 400 + 2 * h))
    spot = pygame.Rect(next((r for r in inside if r.collidelist(near) < 0), inside[0]))
    y = spot.top
    for p in parts:
        _blit_centred(surface, p, spot.centerx, y, "midtop")
        y += p.get_height() + 2
    return spot
