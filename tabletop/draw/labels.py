"""Every text on the table through one label layout (pygame side).

The layers say what text they want (:class:`Label`: a :class:`~tabletop.label_layout.LabelRequest`
and its rendered surface); :func:`place_and_paint` docks the title and legend, lays every label out
at once with :func:`~tabletop.label_layout.layout_labels` (clear of each other, the bases, the
template foci, the rulers and the docked panels), draws leaders for labels moved away from their
anchors, the labels, the panels and a "+n labels hidden" pill, and returns the :class:`Frame`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pygame

from tabletop.draw.frame import Frame
from tabletop.draw.plan import hidden_words
from tabletop.draw.style import ui_scale
from tabletop.draw.text import _KEY, _text
from tabletop.label_layout import BaseMark, Layout, LabelRequest, Overlay, Placement, Rect, base_boxes, dock_overlays, layout_labels
from tabletop.marks import TEXT

#: Priorities: what survives a crowded table first.
PRIORITY = {
    "tooltip": 100.0,
    "refusal": 95.0,
    "title": 85.0,
    "dice": 75.0,
    "badge": 60.0,
    "tag": 55.0,
    "name": 50.0,
    "arrow": 45.0,
    "odds": 40.0,
    # As a model's name (ties go to the model: terrain names come later in the request list). Below
    # it, every hidden name would look for lower-priority labels to evict, every frame.
    "terrain": 50.0,
}
#: Added to the priority of a hovered model's labels (brings them back).
HOVER_BOOST = 1000.0
#: Pixels kept around a base (the selection ring) and a template focus (its cross).
BASE_PAD = 2.0
FOCUS_PAD = 12.0
LEADER_INK = (225, 225, 225)
LEADER_SHADOW = (15, 15, 15)
PILL_BACK = (14, 16, 20)


class Label(NamedTuple):
    """A text to place: its request, its pixels, and the model whose hover brings it back (if any)."""

    request: LabelRequest
    surface: pygame.Surface
    owner: str | None = None


def block(parts: Sequence[pygame.Surface]) -> pygame.Surface:
    """Rendered lines stacked and centred into one colour-keyed surface (cached by its lines: a
    template's title and sub-line are the same surfaces frame after frame while it is dragged)."""
    if len(parts) == 1:
        return parts[0]
    key = tuple(parts)  # the text cache's surfaces themselves: held here, so never a reused id
    got = _blocks.get(key)
    if got is not None:
        _blocks.move_to_end(key)
        return got
    w = max(p.get_width() for p in parts)
    h = sum(p.get_height() for p in parts)
    surf = pygame.Surface((w, h))
    surf.fill(_KEY)
    y = 0
    for p in parts:
        surf.blit(p, ((w - p.get_width()) // 2, y))
        y += p.get_height()
    surf.set_colorkey(_KEY, pygame.RLEACCEL)
    _blocks[key] = surf
    while len(_blocks) > 256:
        _blocks.popitem(last=False)
    return surf


_blocks: OrderedDict[tuple[pygame.Surface, ...], pygame.Surface] = OrderedDict()


def bases_on_screen(centres: np.ndarray, radii: np.ndarray, ids: Sequence[str], clip: pygame.Rect) -> tuple[np.ndarray, tuple[BaseMark, ...]]:
    """Boxes (padded) of the bases meeting ``clip`` and their marks for the layout JSON (the last
    answer again while the bases stay put, as they do while a template is dragged)."""
    if not len(ids):
        return np.zeros((0, 4)), ()
    key = (centres.tobytes(), radii.tobytes(), tuple(clip))
    if _on_screen and _on_screen[0][0] == key and _on_screen[0][1] == ids:
        return _on_screen[0][2]
    got = _bases_on_screen(centres, radii, ids, clip)
    got[0].setflags(write=False)  # shared by the frames that reuse it
    _on_screen[:] = [(key, list(ids), got)]
    return got


_on_screen: list[tuple[tuple[object, ...], list[str], tuple[np.ndarray, tuple[BaseMark, ...]]]] = []


def _bases_on_screen(centres: np.ndarray, radii: np.ndarray, ids: Sequence[str], clip: pygame.Rect) -> tuple[np.ndarray, tuple[BaseMark, ...]]:
    on = (centres[:, 0] + radii >= clip.left) & (centres[:, 0] - radii <= clip.right) & (centres[:, 1] + radii >= clip.top) & (centres[:, 1] - radii <= clip.bottom)
    idx = np.nonzero(on)[0]
    c, r = centres[idx], radii[idx]
    marks = tuple(BaseMark(ids[i], (x, y), rr) for i, (x, y), rr in zip(idx.tolist(), c.tolist(), r.tolist()))
    return base_boxes(c, r, BASE_PAD), marks


def paint_leaders(surface: pygame.Surface, placements: Sequence[Placement]) -> None:
    """A thin line from each moved label back to its anchor's ring."""
    surface.fblits(_leader_sprites(placements))


def _leader_sprites(placements: Sequence[Placement]) -> list[tuple[pygame.Surface, tuple[int, int]]]:
    """Each leader drawn once on its own colour-keyed sprite (cached by its ends): while dragging most
    labels keep their leaders, and one blit each costs far less than three strokes."""
    width = max(1, round(2 * ui_scale()))
    out: list[tuple[pygame.Surface, tuple[int, int]]] = []
    for p in placements:
        if not p.leader:
            continue
        a, b = p.leader_line()
        if a == b:
            continue
        key = (a, b, width)
        got = _leaders.get(key)
        if got is None:
            got = _leaders[key] = _leader_sprite(a, b, width)
            if len(_leaders) > 2048:
                _leaders.clear()
                _leaders[key] = got
        out.append(got)
    return out


def _leader_sprite(a: tuple[float, float], b: tuple[float, float], width: int) -> tuple[pygame.Surface, tuple[int, int]]:
    # Strokes drawn at a whole-pixel offset land on the same pixels as on the frame (the ends stay
    # right of and below the sprite's origin, where pygame rounds the same way).
    pad = width + 4
    # (near the frame's top or left edge the sprite starts at 0 on that axis, so it is drawn alike)
    ox, oy = max(0, int(min(a[0], b[0])) - pad), max(0, int(min(a[1], b[1])) - pad)
    w = int(max(a[0], b[0])) + pad + 1 - ox
    h = int(max(a[1], b[1])) + pad + 1 - oy
    sprite = pygame.Surface((w, h))
    sprite.fill(_KEY)
    la, lb = (a[0] - ox, a[1] - oy), (b[0] - ox, b[1] - oy)
    pygame.draw.line(sprite, LEADER_SHADOW, la, lb, width + 2)
    pygame.draw.line(sprite, LEADER_INK, la, lb, width)
    pygame.draw.circle(sprite, LEADER_INK, la, width + 1)
    sprite.set_colorkey(_KEY, pygame.RLEACCEL)
    return sprite, (ox, oy)


_leaders: dict[tuple[object, ...], tuple[pygame.Surface, tuple[int, int]]] = {}


def paint(surface: pygame.Surface, placements: Sequence[Placement], surfaces: dict[str, pygame.Surface]) -> None:
    surface.fblits([*_leader_sprites(placements), *((surfaces[p.id], p.rect[:2]) for p in placements if p.id in surfaces)])


def hidden_pill(count: int, live: bool) -> pygame.Surface:
    """The "+n labels hidden" note."""
    return _text(hidden_words(count, live), 13, TEXT, PILL_BACK, bold=True)


_docks: dict[tuple[object, ...], dict[str, Rect | None]] = {}
_last_pill: list[Rect] = []


def _dock(
    canvas: tuple[int, int, int, int], table: Sequence[float], bases: np.ndarray, overlays: list[Overlay], avoid: Sequence[Rect], stay: bool = False
) -> dict[str, Rect | None]:
    """:func:`dock_overlays`, remembered: while a template is dragged the bases and panels stay put."""
    key = (canvas, tuple(table), tuple(overlays), bases.tobytes(), tuple(tuple(r) for r in avoid))
    got = _docks.get(key)
    if got is None and stay:
        # While dragging: last frame's places, if they are still clear (the panels do not jump).
        last = _docks.get(("last", canvas, tuple(table), tuple(overlays)))
        if last is not None and all(r is not None and _free_of(r, canvas, bases, [*avoid, *(o for o in last.values() if o is not r)]) for r in last.values()):
            got = last
    if got is None:
        if len(_docks) > 32:
            _docks.clear()
        got = _docks[key] = dock_overlays(canvas, table, bases, overlays, margin=8, avoid=avoid)
    _docks[("last", canvas, tuple(table), tuple(overlays))] = got
    return dict(got)


def _free_of(rect: Rect, canvas: tuple[int, int, int, int], bases: np.ndarray, rects: Sequence[Rect]) -> bool:
    x, y, w, h = rect
    if x < canvas[0] or y < canvas[1] or x + w > canvas[0] + canvas[2] or y + h > canvas[1] + canvas[3]:
        return False
    if len(bases) and bool(np.any((bases[:, 0] < x + w) & (x < bases[:, 2]) & (bases[:, 1] < y + h) & (y < bases[:, 3]))):
        return False
    return not any(r[0] < x + w and x < r[0] + r[2] and r[1] < y + h and y < r[1] + r[3] for r in rects)


def place_and_paint(
    surface: pygame.Surface,
    clip: pygame.Rect,
    table: Sequence[float],
    labels: Sequence[Label],
    bases: np.ndarray,
    base_marks: tuple[BaseMark, ...],
    foci: np.ndarray,
    panels: Sequence[tuple[Overlay, pygame.Surface]],
    regions: Sequence[Rect],
    previous: Layout | None,
    live: bool = False,
) -> tuple[Frame, dict[str, Label]]:
    """Dock ``panels`` (title, legend), lay ``labels`` out, paint everything; the frame and the labels by id."""
    canvas = (clip.left, clip.top, clip.width, clip.height)
    docked = _dock(canvas, table, bases, [o for o, _ in panels], regions, stay=previous is not None) if panels else {}
    overlays = {k: v for k, v in docked.items() if v is not None}
    fixed = [*regions, *overlays.values()]
    by_id = {lab.request.id: lab for lab in labels}
    requests = [lab.request for lab in labels]
    focus_pad = FOCUS_PAD * ui_scale()
    layout = layout_labels(canvas, requests, bases=bases, foci=foci, regions=fixed, previous=previous, focus_pad=focus_pad)
    pill_at: Rect | None = None
    if layout.hidden:
        pill = hidden_pill(len(layout.hidden), live)
        taken = [*fixed, *(p.rect for p in layout.placements)]
        last = _last_pill[0] if _last_pill and previous is not None else None
        if last is not None and last[2:] == pill.get_size() and _free_of(last, canvas, bases, taken):
            pill_at = last  # where it was last frame: the pill does not wander while dragging
        else:
            pill_at = dock_overlays(canvas, table, bases, [Overlay("hidden", pill.get_size(), "bottom_right")], margin=8, avoid=taken)["hidden"]
        if pill_at is None:
            # No free corner: reserve one off the bases and panels (wide enough for any count) and lay out again.
            widest = hidden_pill(len(labels), live)
            spot = _dock(canvas, table, bases, [Overlay("hidden", widest.get_size(), "bottom_right")], fixed)
            if spot["hidden"] is not None:
                pill_at = spot["hidden"]
                layout = layout_labels(canvas, requests, bases=bases, foci=foci, regions=[*fixed, pill_at], previous=previous, focus_pad=focus_pad)
    paint(surface, layout.placements, {k: v.surface for k, v in by_id.items()})
    for overlay, surf in panels:
        rect = overlays.get(overlay.id)
        if rect is not None:
            surface.blit(surf, rect[:2])
    if layout.hidden and pill_at is not None:
        pill = hidden_pill(len(layout.hidden), live)
        surface.blit(pill, pill_at[:2])
        overlays["hidden"] = (pill_at[0], pill_at[1], pill.get_width(), pill.get_height())
        _last_pill[:] = [overlays["hidden"]]
    owners = {lab.request.id: lab.owner for lab in labels if lab.owner is not None}
    frame = Frame(surface.get_size(), layout, base_marks, overlays, tuple(regions), owners=owners)
    return frame, by_id


def place_over(surface: pygame.Surface, frame: Frame, labels: Sequence[Label], canvas: pygame.Rect, must: Sequence[str] = ()) -> Frame:
    """Lay ``labels`` over an already drawn ``frame`` (clear of its labels, panels and bases), paint them
    and return the frame with them; ids in ``must`` that find no room are laid again over the labels
    (not the panels or bases) and, failing that, at their first candidate (a tooltip is always shown)."""
    if not labels:
        return frame
    box = (canvas.left, canvas.top, canvas.width, canvas.height)
    layout = layout_labels(box, [lab.request for lab in labels], bases=frame.base_boxes(), regions=frame.taken())
    placed = list(layout.placements)
    hidden = list(layout.hidden)
    for lab in labels:
        rid = lab.request.id
        if rid in must and rid in hidden:
            again = layout_labels(box, [lab.request], bases=frame.base_boxes(), regions=[*frame.overlays.values(), *frame.regions, *(p.rect for p in placed)])
            got = again.placements[0] if again.placements else None
            if got is None:
                w, h = lab.request.wh
                x = min(max(canvas.left, round(lab.request.anchor[0] + lab.request.clear + 14)), canvas.right - w)
                y = min(max(canvas.top, round(lab.request.anchor[1] - h / 2)), canvas.bottom - h)
                r = lab.request
                got = Placement(rid, (x, y, w, h), False, -1, r.anchor, r.clear, r.kind, r.text, r.priority)
            placed.append(got)
            hidden.remove(rid)
    # Leaders of these labels never cross the labels already drawn: those pixels go back on top.
    lines = [p.leader_line() for p in placed if p.leader]
    kept = []
    if lines:
        spans = [(min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1])) for a, b in lines]
        for p in frame.placements:
            x, y, w, h = p.rect
            if any(x0 <= x + w and x <= x1 and y0 <= y + h and y <= y1 for x0, y0, x1, y1 in spans):
                box = pygame.Rect(p.rect).clip(surface.get_rect())
                if box.width > 0 and box.height > 0:
                    kept.append((surface.subsurface(box).copy(), box.topleft))
    paint_leaders(surface, placed)
    if kept:
        surface.fblits(kept)
    by_id = {lab.request.id: lab.surface for lab in labels}
    surface.fblits([(by_id[p.id], p.rect[:2]) for p in placed if p.id in by_id])
    return frame.adding(placed, hidden)
