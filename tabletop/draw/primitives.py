"""Pygame drawing primitives: dashed lines, arrows, ring and polygon fills, the shared overlay."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pygame
import shapely
from shapely.geometry import Polygon

from tabletop.draw.scene import _Poly, _clip_box, _is_big, _polys
from tabletop.draw.style import Colour, FloatArray
from tabletop.viewport import Viewport


def _ipoints(points: FloatArray) -> list[tuple[int, int]]:
    return [(int(x), int(y)) for x, y in np.rint(points).tolist()]


def _dashed(
    surface: pygame.Surface,
    points: FloatArray,
    colour: Colour,
    width: int = 2,
    dash: float = 10.0,
    gap: float = 7.0,
    closed: bool = True,
) -> None:
    """A dashed polyline through screen ``points`` (dashes follow curves)."""
    pts = np.asarray(points, dtype=float)
    if closed and len(pts) and not np.array_equal(pts[0], pts[-1]):
        pts = np.vstack([pts, pts[:1]])
    if len(pts) < 2:
        return
    seg = np.hypot(*np.diff(pts, axis=0).T)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    total = float(s[-1])
    period = dash + gap
    if total <= 0:
        return
    if total / period > 3000:  # off-screen giants at loupe zoom: solid is fine
        pygame.draw.lines(surface, colour, False, _ipoints(pts), width)
        return
    starts = np.arange(0.0, total, period)
    ends = np.minimum(starts + dash, total)
    xa, ya = np.interp(starts, s, pts[:, 0]), np.interp(starts, s, pts[:, 1])
    xb, yb = np.interp(ends, s, pts[:, 0]), np.interp(ends, s, pts[:, 1])
    i0 = np.searchsorted(s, starts, side="right")
    i1 = np.searchsorted(s, ends, side="left")
    for k in range(len(starts)):
        run = [(xa[k], ya[k])]
        if i1[k] > i0[k]:
            run.extend(map(tuple, pts[i0[k] : i1[k]]))
        run.append((xb[k], yb[k]))
        pygame.draw.lines(surface, colour, False, run, width)


def _arrow(surface: pygame.Surface, a: tuple[float, float], b: tuple[float, float], colour: Colour, width: int, head: float) -> None:
    ax, ay = a
    bx, by = b
    length = math.hypot(bx - ax, by - ay)
    if length < 1:
        return
    ux, uy = (bx - ax) / length, (by - ay) / length
    head = min(head, length * 0.6)
    base = (bx - ux * head, by - uy * head)
    pygame.draw.line(surface, colour, (ax, ay), base, width)
    left = (base[0] - uy * head * 0.5, base[1] + ux * head * 0.5)
    right = (base[0] + uy * head * 0.5, base[1] - ux * head * 0.5)
    pygame.draw.polygon(surface, colour, [(bx, by), left, right])


def _fill_ring(target: pygame.Surface, vp: Viewport, ring: FloatArray, colour: tuple[int, ...]) -> None:
    """Fill the world polygon ``ring``, clipped to the view when it is huge on screen."""
    lo, hi = ring.min(axis=0), ring.max(axis=0)
    if _is_big((lo[0], lo[1], hi[0], hi[1]), vp):
        for piece in _polys(shapely.clip_by_rect(shapely.make_valid(Polygon(ring)), *_clip_box(vp))):
            _fill_poly(target, vp, piece, colour)
        return
    if len(ring) >= 3:
        pygame.draw.polygon(target, colour, vp.to_screen_array(ring).tolist())


def _fill_poly(overlay: pygame.Surface, vp: Viewport, poly: _Poly, rgba: tuple[int, ...]) -> None:
    if _is_big(poly.bbox, vp):
        for piece in _polys(shapely.clip_by_rect(poly.geom, *_clip_box(vp))):
            if not _is_big(piece.bbox, vp):
                _fill_poly(overlay, vp, piece, rgba)
        return
    if poly.triangles is not None:
        tris = vp.to_screen_array(poly.triangles.reshape(-1, 2)).reshape(-1, 3, 2)
        for tri in tris.tolist():
            pygame.draw.polygon(overlay, rgba, tri)
        return
    pts = vp.to_screen_array(poly.ring)
    if len(pts) >= 3:
        pygame.draw.polygon(overlay, rgba, pts.tolist())


def _screen_rect(vp: Viewport, bbox: Sequence[float], pad: int = 4) -> pygame.Rect:
    (x0, y0), (x1, y1) = vp.to_screen_array([[bbox[0], bbox[3]], [bbox[2], bbox[1]]]).tolist()
    return pygame.Rect(int(x0) - pad, int(y0) - pad, int(x1 - x0) + 2 * pad + 1, int(y1 - y0) + 2 * pad + 1)


_overlays: dict[tuple[int, int], pygame.Surface] = {}


def _overlay_for(size: tuple[int, int]) -> pygame.Surface:
    surf = _overlays.get(size)
    if surf is None:
        _overlays.clear()
        surf = _overlays[size] = pygame.Surface(size, pygame.SRCALPHA)
        surf.fill((0, 0, 0, 0))
    return surf


def _disjoint(rects: list[pygame.Rect]) -> list[pygame.Rect]:
    """Rects covering ``rects`` that do not overlap (overlapping ones merged into their union)."""
    out: list[pygame.Rect] = []
    for rect in rects:
        rect = pygame.Rect(rect)
        k = rect.collidelist(out)
        while k >= 0:
            rect.union_ip(out.pop(k))
            k = rect.collidelist(out)
        out.append(rect)
    return out
