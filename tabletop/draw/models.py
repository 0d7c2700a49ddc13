"""Layer: model bases, their sprites, selection and hover marks, names and margins (pygame)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pygame

from tabletop.draw.primitives import _dashed, _fill_ring
from tabletop.draw.scene import (
    _BIG_PX,
    _Scene,
    _circle_ring_screen,
    _grown,
    _margins_of,
    _model_outline_px,
    _world_outline,
)
from tabletop.draw.style import (
    PATTERN_INK,
    CONTESTED_COLOUR,
    CONTESTED_DASH,
    Colour,
    DrawOptions,
    FloatArray,
    HOVER_COLOUR,
    PANEL,
    SELECT_COLOUR,
    _STATUS_WORDS,
    ui_scale,
)
from tabletop.draw.labels import BASE_PAD, PRIORITY, Label
from tabletop.draw.text import _KEY, _text
from tabletop.label_layout import LabelRequest
from tabletop.marks import TEXT, TEXT_DIM
from tabletop.viewport import Viewport


def _draw_models(surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions) -> None:
    n = len(scene.models)
    if not n:
        return
    left, top, w, h = vp.rect
    sc = vp.to_screen_array(scene.centres)
    r = scene.radii * vp.scale
    shown = (sc[:, 0] + r >= left) & (sc[:, 0] - r <= left + w) & (sc[:, 1] + r >= top) & (sc[:, 1] - r <= top + h)
    rad = np.radians(scene.facing)
    unit = np.stack([np.cos(rad), -np.sin(rad)], axis=-1)
    tick_a = sc + unit * (r * 0.45)[:, None]
    tick_b = sc + unit * (r - np.clip(r * 0.12, 1, 3))[:, None]
    ring_w = np.clip(np.rint(r * 0.2), 1, 5).astype(int)
    sc_l, r_l, a_l, b_l, rw_l = sc.tolist(), r.tolist(), tick_a.tolist(), tick_b.tolist(), ring_w.tolist()
    round_mask = scene.round_mask
    fills, rings = scene.fills, scene.rings
    # Every non-round outline in one projection; zoomed-in ones get finer rings on demand.
    outline_px: dict[int, FloatArray] = {}
    if scene.outline_index:
        projected = vp.to_screen_array(scene.outline_all)
        for k, i in enumerate(scene.outline_index):
            outline_px[i] = projected[scene.outline_offsets[k] : scene.outline_offsets[k + 1]]

    def outline(i: int) -> FloatArray:
        return _model_outline_px(scene, vp, i, outline_px)

    def grown(i: int, px: float) -> FloatArray:
        return _grown(outline(i), sc_l[i], px)

    draw_circle, draw_poly, draw_line = pygame.draw.circle, pygame.draw.polygon, pygame.draw.line
    # A view drawn twice in a row (a template or a model is being dragged): round bases
    # become cached sprites, blitted in one call. A new view (panning) draws directly.
    # Sprites are keyed by what they show, so a dragged model leaves the others' intact.
    sprites = None
    if _sprites_view and _sprites_view[0] == vp:
        sprites = _sprites
        if len(sprites) > 8 * n + 64:
            sprites.clear()
    else:
        _sprites.clear()
        _sprites_view[:] = [vp]
    facing_l = scene.facing.tolist()
    batch: list[tuple[pygame.Surface, tuple[int, int]]] = []
    for i in np.nonzero(shown)[0].tolist():
        c, radius = sc_l[i], r_l[i]
        if radius < 1.5:
            if batch:
                surface.fblits(batch)
                batch.clear()
            draw_circle(surface, fills[i], c, 2)
            continue
        # Left of or above the surface origin pygame rounds coordinates another way, so a
        # sprite would be a pixel off: those bases are drawn directly.
        if sprites is not None and round_mask[i] and radius < _SPRITE_MAX_PX and min(c) - radius > 4:
            key = (c[0], c[1], radius, facing_l[i], fills[i], rings[i])
            sprite = sprites.get(key)
            if sprite is None:
                sprite = sprites[key] = _base_sprite(c, radius, fills[i], rings[i], rw_l[i], a_l[i], b_l[i])
            batch.append(sprite)
            continue
        if batch:  # keep the painter's order of overlapping bases
            surface.fblits(batch)
            batch.clear()
        if round_mask[i] and radius < 4000:
            draw_circle(surface, fills[i], c, radius)
            draw_circle(surface, rings[i], c, radius, rw_l[i])
        else:
            pts = outline(i)
            if radius > _BIG_PX / 2:
                _fill_ring(surface, vp, _world_outline(scene, i, vp), fills[i])
                draw_poly(surface, rings[i], pts.tolist(), rw_l[i])
            else:
                # Ring colour, then the fill shrunk inside it: two fills beat one wide outline.
                draw_poly(surface, rings[i], pts.tolist())
                draw_poly(surface, fills[i], _grown(pts, c, -rw_l[i]).tolist())
        if radius >= 5:
            draw_line(surface, (20, 20, 20), a_l[i], b_l[i], max(1, rw_l[i]))
    if batch:
        surface.fblits(batch)
    _draw_status_patterns(surface, scene, shown, sc_l, r_l)
    # Halos after every base so a neighbour never hides them.
    halos: list[tuple[pygame.Surface, tuple[int, int]]] = []
    for i in np.nonzero(shown & scene.contested)[0].tolist():
        c, radius = sc_l[i], max(r_l[i], 3.0)
        halo_key = ("halo", c[0], c[1], radius, facing_l[i], scene.models[i].base)
        halo = sprites.get(halo_key) if sprites is not None else None
        if halo is not None:
            halos.append(halo)
            continue
        if round_mask[i]:
            ring = _circle_ring_screen(c[0], c[1], radius + 4, max(24, min(720, int(radius))))
        else:
            ring = grown(i, 4)
        if sprites is not None and radius < _SPRITE_MAX_PX and float(ring.min()) > 4:
            halo = sprites[halo_key] = _halo_sprite(ring)
            halos.append(halo)
            continue
        if halos:
            surface.fblits(halos)
            halos.clear()
        _draw_halo(surface, ring)
    if halos:
        surface.fblits(halos)


_SPRITE_MAX_PX = 64.0



def _draw_status_patterns(surface: pygame.Surface, scene: _Scene, shown: np.ndarray, centres: list[list[float]], radii: list[float]) -> None:
    """Affected bases carry a cross, bases in total cover diagonal hatching, outside ones nothing."""
    worst = scene.worst
    if not worst:
        return
    line = pygame.draw.line
    for i in np.nonzero(shown)[0].tolist():
        status = worst[i]
        r = radii[i]
        if r < 6 or status not in ("affected", "total_cover"):
            continue
        cx, cy = centres[i]
        width = max(2, min(4, round(r * 0.09)))
        if status == "affected":
            k = r * 0.42
            line(surface, PATTERN_INK, (cx - k, cy - k), (cx + k, cy + k), width)
            line(surface, PATTERN_INK, (cx - k, cy + k), (cx + k, cy - k), width)
        else:
            # Three chords at 45°, a third of the radius apart: hatching that stays inside the ring.
            for off in (-0.45, 0.0, 0.45):
                d = off * r
                half = math.sqrt(max(0.0, (0.8 * r) ** 2 - d * d))
                ox, oy = d * 0.7071, d * 0.7071
                line(surface, PATTERN_INK, (cx + ox - half * 0.7071, cy - oy - half * 0.7071), (cx + ox + half * 0.7071, cy - oy + half * 0.7071), max(1, width - 1))


_sprites: dict[tuple[object, ...], tuple[pygame.Surface, tuple[int, int]]] = {}


_sprites_view: list[Viewport] = []


def _draw_halo(surface: pygame.Surface, ring: FloatArray) -> None:
    """The contested ring: solid, with dashes over it."""
    pygame.draw.lines(surface, CONTESTED_COLOUR, True, ring.tolist(), 3)
    _dashed(surface, ring, CONTESTED_DASH, 3, 5, 6)


def _halo_sprite(ring: FloatArray) -> tuple[pygame.Surface, tuple[int, int]]:
    """``_draw_halo`` of screen ``ring`` on a colour key, and where to blit it."""
    x0, y0 = (math.floor(v) - 4 for v in ring.min(axis=0).tolist())
    x1, y1 = (math.ceil(v) + 4 for v in ring.max(axis=0).tolist())
    surf = pygame.Surface((x1 - x0 + 1, y1 - y0 + 1))
    surf.fill(_KEY)
    _draw_halo(surf, ring - np.array([x0, y0], dtype=float))
    surf.set_colorkey(_KEY, pygame.RLEACCEL)
    return surf, (x0, y0)


def _base_sprite(
    c: Sequence[float], radius: float, fill: Colour, ring: Colour, ring_w: int, tick_a: Sequence[float], tick_b: Sequence[float]
) -> tuple[pygame.Surface, tuple[int, int]]:
    """A round base as drawn by ``_draw_models``, on a colour key, and where to blit it.

    Drawn at the same sub-pixel offset, so the blit gives exactly the pixels a direct
    draw would (a test compares them).
    """
    half = math.ceil(radius) + 3
    ix, iy = math.floor(c[0]), math.floor(c[1])
    dx, dy = half - ix, half - iy
    surf = pygame.Surface((2 * half + 2, 2 * half + 2))
    surf.fill(_KEY)
    centre = (c[0] + dx, c[1] + dy)
    pygame.draw.circle(surf, fill, centre, radius)
    pygame.draw.circle(surf, ring, centre, radius, ring_w)
    if radius >= 5:
        pygame.draw.line(surf, (20, 20, 20), (tick_a[0] + dx, tick_a[1] + dy), (tick_b[0] + dx, tick_b[1] + dy), max(1, ring_w))
    surf.set_colorkey(_KEY, pygame.RLEACCEL)
    return surf, (ix - half, iy - half)


def _draw_marks(surface: pygame.Surface, vp: Viewport, scene: _Scene, options: DrawOptions) -> None:
    """Selection and hover: drawn on top of the cached layer, so moving the mouse is cheap."""
    for mark, colour, width in ((options.hovered, HOVER_COLOUR, 2), (options.selected, SELECT_COLOUR, 3)):
        if mark is None:
            continue
        i = scene.model_index.get(mark, -1)
        if i >= 0:
            m = scene.models[i]
            c = vp.to_screen(m.x, m.y)
            r = scene.radii[i] * vp.scale
            pad = 9 if scene.contested[i] else 4
            if scene.round_mask[i] and r < 4000:
                pygame.draw.circle(surface, colour, c, r + pad + width, width)
            else:
                pygame.draw.polygon(surface, colour, _grown(_model_outline_px(scene, vp, i), c, pad + width).tolist(), width)
            continue
        for k, t in enumerate(scene.terrain):
            if t.id == mark:
                pts = vp.to_screen_array(scene.terrain_rings[k]).tolist()
                pygame.draw.polygon(surface, colour, pts, width)
        for art in scene.templates:
            if art.id == mark:
                ring = vp.to_screen_array(art.outline(art.placed, vp.scale)).tolist()
                pygame.draw.lines(surface, colour, True, ring, width)


# Name pills by (label, font size, UI scale): the same for every scene, so a drag does not re-look them up in the text cache.
_name_labels: dict[tuple[str, int, float], pygame.Surface] = {}


def _model_names(vp: Viewport, scene: _Scene, clip: pygame.Rect) -> list[Label]:
    """A label request per model name on screen (below its base first); cached for the view and models."""
    if not scene.models:
        return []
    scene.names_drawn = True
    md = scene.model_data
    key = (vp, tuple(clip), ui_scale())
    if md is not None and md.names is not None and md.names[0] == key:
        return md.names[1]
    left, top, w, h = clip
    sc = vp.to_screen_array(scene.centres)
    r = scene.radii * vp.scale
    shown = (r >= NAME_MIN_PX) & (sc[:, 0] >= left) & (sc[:, 0] <= left + w) & (sc[:, 1] >= top) & (sc[:, 1] <= top + h)
    sizes = np.clip(np.rint(r * 0.8), 12, 16).astype(int).tolist()
    sc_l, r_l = sc.tolist(), r.tolist()
    pill = (14, 16, 20)
    models = scene.models
    cache = _name_labels
    if len(cache) > 4 * len(models) + 256:
        cache.clear()
    scale = ui_scale()
    priority = PRIORITY["name"]
    out: list[Label] = []
    # Dragging a model makes new model tuples every frame: the other names' labels are the same objects.
    last = _name_requests.get(key)
    if last is None:
        _name_requests.clear()
        last = _name_requests[key] = {}
    for i in np.nonzero(shown)[0].tolist():
        m = models[i]
        x, y = sc_l[i]
        rkey = (m.id, m.label, x, y, r_l[i])
        got = last.get(rkey)
        if got is None:
            ckey = (m.label, sizes[i], scale)
            label = cache.get(ckey)
            if label is None:
                label = cache[ckey] = _text(m.label, sizes[i], TEXT, pill, bold=True)
            request = LabelRequest(f"name:{m.id}", (x, y), label.get_size(), priority, _NAME_SIDES, r_l[i] + BASE_PAD, True, "name", m.label)
            if len(last) > 4 * len(models) + 256:
                last.clear()
            got = last[rkey] = Label(request, label, m.id)
        out.append(got)
    if md is not None:
        md.names = (key, out)  # names depend on the models and the view only
    return out


_name_requests: dict[tuple[object, ...], dict[tuple[object, ...], Label]] = {}

#: Bases smaller than this (screen radius, px) carry no name: at that zoom the table is a crowd.
NAME_MIN_PX = 5.0

_NAME_SIDES = ("below", "above", "right", "left", "below_right", "below_left", "above_right", "above_left")


def _tooltip(vp: Viewport, scene: _Scene, hovered: str) -> Label | None:
    """The hovered model's margins to every template, as a label beside its base."""
    i = scene.model_index.get(hovered)
    if i is None:
        return None
    m = scene.models[i]
    lines = [(m.label if m.label == m.id else f"{m.label} ({m.id})", 16, TEXT)]
    for tid, status, margin, contested, uncertainty in _margins_of(scene.adjudication, m.id):
        plus_minus = f" ± {uncertainty:.3f}" if uncertainty > 0 else ""
        text = f"{tid}: {_STATUS_WORDS.get(status, status)}  {margin:+.3f}{plus_minus} mm" + ("  CONTESTED" if contested else "")
        lines.append((text, 14, CONTESTED_COLOUR if contested else TEXT_DIM))
    surfs = [_text(t, sz, c, bold=k == 0) for k, (t, sz, c) in enumerate(lines)]
    pad = round(6 * ui_scale())
    width = max(s.get_width() for s in surfs) + 2 * pad
    height = sum(s.get_height() for s in surfs) + 8
    box = pygame.Surface((width, height))
    box.fill(_KEY)
    pygame.draw.rect(box, PANEL[:3], box.get_rect(), border_radius=6)
    pygame.draw.rect(box, (120, 120, 120), box.get_rect(), 1, border_radius=6)
    yy = 4
    for s in surfs:
        box.blit(s, (pad, yy))
        yy += s.get_height()
    box.set_colorkey(_KEY, pygame.RLEACCEL)
    sx, sy = vp.to_screen(m.x, m.y)
    r = m.base.bounding_radius * vp.scale
    request = LabelRequest("tooltip", (sx, sy), box.get_size(), PRIORITY["tooltip"], ("right", "left", "below_right", "above_right"), r + 12, True, "tooltip", lines[0][0])
    return Label(request, box, m.id)
