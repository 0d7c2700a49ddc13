"""The Select tool: pick and drag models, templates (move, aim, rotate by the handle) and buildings;
Shift+click or a Shift+drag box for several; on a selected building, drag its corners, Ctrl+click
a side to add a corner, Alt+click a corner (or Delete over it) to remove it, drag its handle to turn it."""

from __future__ import annotations

import math

import pygame

from tabletop.model import Direct, Explosion, Point, Terrain

from .. import overlays
from ..hit import distance, item_at
from ..measure import PlacementTextError, contact_position, edge_gap
from ..state import DeleteItem, MoveItems, MoveModel, MoveTemplate, MoveTerrain, Ref, RotateTemplate, Select, SelectMany, item_exists
from .base import Gesture, Pointer, Tool, ToolHost
from .terrain import (
    corner_at,
    draw_terrain_handles,
    edge_at,
    outline_command,
    rotate_handle,
    rotated_outline,
    snapped,
    with_corner_added,
    with_corner_moved,
    with_corner_removed,
)

#: How far (px) the pointer must move with the button held before a press becomes a drag:
#: a click on an item selects it and changes nothing (no re-aim, no undo step).
DRAG_THRESHOLD_PX = 4.0


class SelectTool(Tool):
    """Press on an item to select it and drag it; on empty table, drag to pan."""

    name = "select"
    label = "Select"
    tip = "Select and drag models, templates and buildings (1)"

    def __init__(self) -> None:
        super().__init__()
        self.piece: Terrain | None = None  # the building as it was when a corner drag or a turn began
        self.corner: int | None = None
        self.box: tuple[Point, Point] | None = None
        self.hover_corner: int | None = None

    def _selected_piece(self, host: ToolHost) -> Terrain | None:
        sel = host.state.selection
        if sel is None or sel.kind != "terrain" or host.state.also_selected:
            return None
        try:
            return host.scenario.terrain_piece(sel.id)
        except KeyError:
            return None

    def _press_piece(self, host: ToolHost, at: Pointer, piece: Terrain) -> bool:
        """Presses on a selected building's handles; True when one was used."""
        vp = host.viewport
        hx, hy = vp.to_screen(*rotate_handle(host, piece))
        ref = Ref("terrain", piece.id)
        if math.hypot(at.screen[0] - hx, at.screen[1] - hy) <= overlays.HANDLE_RADIUS_PX + 4:
            self.piece = piece
            self.gesture = Gesture("turn_terrain", at.world, ref, host.next_gesture(), last=at.world)
            return True
        i = corner_at(host, piece, at.screen)
        if i is not None and at.mod & pygame.KMOD_ALT:
            self.remove_corner(host, piece, i)
            return True
        if i is not None:
            self.piece, self.corner = piece, i
            self.gesture = Gesture("corner", at.world, ref, host.next_gesture(), last=at.world)
            return True
        if at.mod & (pygame.KMOD_CTRL | pygame.KMOD_META):
            edge = edge_at(host, piece, at.screen)
            if edge is not None:
                p = snapped(host, Pointer(edge[1], at.screen, at.button, at.mod))
                if host.dispatch(outline_command(piece, with_corner_added(piece, edge[0], p))):
                    host.flash(f"Corner added to {piece.id} (drag it; Alt+click or Delete over it removes it)")
                return True
        return False

    def remove_corner(self, host: ToolHost, piece: Terrain, index: int) -> None:
        if len(piece.polygon) <= 3:
            host.flash("Not removed: a piece needs at least 3 corners", error=True)
            return
        if host.dispatch(outline_command(piece, with_corner_removed(piece, index))):
            host.flash(f"Corner {index + 1} of {piece.id} removed")

    def press(self, host: ToolHost, at: Pointer) -> None:
        s = host.scenario
        placed = host.placed()
        (x, y), pos = at.world, at.screen
        sel = host.state.selection
        piece = self._selected_piece(host)
        if piece is not None and self._press_piece(host, at, piece):
            return
        if at.mod & pygame.KMOD_SHIFT:
            ref = item_at(s, placed, x, y, host.slack_mm())
            if ref is None:
                self.box = (at.world, at.world)
                self.gesture = Gesture("box", at.world, None, last=at.world)
                return
            chosen = host.state.selected
            host.dispatch(SelectMany(tuple(r for r in chosen if r != ref) if ref in chosen else chosen + (ref,)))
            return
        if host.state.also_selected:
            ref = item_at(s, placed, x, y, host.slack_mm())
            if ref is not None and ref in host.state.selected:
                self.gesture = Gesture("move_many", at.world, ref, host.next_gesture(), last=at.world)
                return
        # the rotation handle first, then the item under the mouse, else pan
        if sel is not None and sel.kind == "template" and sel.id in placed:
            hx, hy = host.viewport.to_screen(*overlays.handle_world(placed[sel.id], host.viewport))
            if math.hypot(pos[0] - hx, pos[1] - hy) <= overlays.HANDLE_RADIUS_PX + 4:
                self.gesture = Gesture("rotate", at.world, sel, host.next_gesture(), last=at.world, start_screen=at.screen)
                return
        ref = item_at(s, placed, x, y, host.slack_mm(), prefer=sel)
        if ref is None:
            owner = host.label_owner(pos)  # a base's name label: what is drawn as the base's picks the base
            ref = Ref("model", owner) if owner is not None else None
        if ref != sel:
            host.dispatch(Select(ref))
        if ref is None:
            host.start_pan(at)
            return
        g = host.next_gesture()
        if ref.kind == "model":
            m = s.model(ref.id)
            self.gesture = Gesture("move_model", at.world, ref, g, (m.x - x, m.y - y), at.world)
        elif ref.kind == "template":
            t = s.template(ref.id)
            if isinstance(t.placement, Explosion):
                host.flash("An explosion sits on its model: move the model")
                return
            if isinstance(t.placement, Direct):
                self.gesture = Gesture("aim", at.world, ref, g, last=at.world)
            else:
                focus = placed[ref.id].focus if ref.id in placed else at.world
                self.gesture = Gesture("move_template", at.world, ref, g, (focus[0] - x, focus[1] - y), at.world)
        else:
            self.gesture = Gesture("move_terrain", at.world, ref, g, last=at.world)
        if self.gesture is not None:
            self.gesture.start_screen = at.screen

    def drag(self, host: ToolHost, at: Pointer) -> None:
        d = self.gesture
        if d is None:
            return
        if d.kind == "box":
            self.box = (d.start, at.world)
            return
        if d.ref is None:
            return
        if d.kind == "move_many":
            dx, dy = at.world[0] - d.last[0], at.world[1] - d.last[1]
            if dx or dy:
                host.dispatch(MoveItems(host.state.selected, dx, dy, d.undo_group))
            d.last = at.world
            return
        if d.kind == "corner" and self.piece is not None and self.corner is not None:
            current = self._selected_piece(host) or self.piece
            host.dispatch(outline_command(current, with_corner_moved(current, self.corner, snapped(host, at)), d.undo_group))
            return
        if d.kind == "turn_terrain" and self.piece is not None:
            centre = _centre(self.piece)
            a0 = math.atan2(d.start[1] - centre[1], d.start[0] - centre[0])
            a1 = math.atan2(at.world[1] - centre[1], at.world[0] - centre[0])
            degrees = math.degrees(a1 - a0)
            step = 15.0 if at.mod & pygame.KMOD_SHIFT else 1.0
            degrees = round(degrees / step) * step
            host.dispatch(rotated_outline(self.piece, degrees, d.undo_group))
            return
        if not d.moved:
            start = d.start_screen or at.screen
            if math.hypot(at.screen[0] - start[0], at.screen[1] - start[1]) < DRAG_THRESHOLD_PX:
                return
            d.moved = True
        drag_item(host, d, at)

    def release(self, host: ToolHost, at: Pointer) -> None:
        d = self.gesture
        self.gesture = None
        self.piece = None
        self.corner = None
        if d is not None and d.kind == "box" and self.box is not None:
            (x0, y0), (x1, y1) = self.box
            self.box = None
            lo, hi = (min(x0, x1), min(y0, y1)), (max(x0, x1), max(y0, y1))
            host.dispatch(SelectMany(host.state.selected + items_in_box(host, lo, hi)))

    def cancel(self, host: ToolHost) -> bool:
        self.box = None
        self.piece = None
        self.corner = None
        return super().cancel(host)

    def hover(self, host: ToolHost, at: Pointer) -> None:
        piece = self._selected_piece(host)
        self.hover_corner = corner_at(host, piece, at.screen) if piece is not None else None

    def key(self, host: ToolHost, event: pygame.event.Event) -> bool:
        if event.key == pygame.K_c and not getattr(event, "mod", 0) & (pygame.KMOD_CTRL | pygame.KMOD_META):
            models = [r for r in host.state.selected if r.kind == "model"]
            if len(models) != 2 or len(host.state.selected) != 2:
                host.flash("Contact: select the base to move, then Shift+click the base it goes to", error=True)
                return True
            mover, anchor = (host.scenario.model(r.id) for r in models)
            try:
                x, y = contact_position(mover, anchor)
            except PlacementTextError as exc:
                host.flash(f"Contact: {exc}", error=True)
                return True
            if host.dispatch(MoveModel(mover.id, x, y), validate=True):
                host.flash(f"{mover.label} moved into base contact with {anchor.label} (edge to edge {edge_gap(host.scenario.model(mover.id), anchor):.3f} mm)")
            return True
        if event.key in (pygame.K_DELETE, pygame.K_BACKSPACE) and host.state.also_selected:
            refs = host.state.selected
            g = host.next_gesture()
            for r in refs:
                if item_exists(host.scenario, r):  # a template goes with its model
                    host.dispatch(DeleteItem(r, g))
            host.flash(f"Deleted {len(refs)} items (Ctrl+Z brings them back)")
            return True
        if event.key in (pygame.K_DELETE, pygame.K_BACKSPACE) and self.hover_corner is not None:
            piece = self._selected_piece(host)
            if piece is not None and self.hover_corner < len(piece.polygon):
                self.remove_corner(host, piece, self.hover_corner)
                self.hover_corner = None
                return True
        return False

    def draw(self, host: ToolHost, surface: pygame.Surface) -> None:
        piece = self._selected_piece(host)
        if piece is not None:
            draw_terrain_handles(host, surface, piece)
            if self.hover_corner is not None and self.hover_corner < len(piece.polygon):
                pygame.draw.circle(surface, overlays.PAPER, host.viewport.to_screen(*piece.polygon[self.hover_corner]), VERTEX_RING, 2)
        if self.box is not None:
            a, b = host.viewport.to_screen(*self.box[0]), host.viewport.to_screen(*self.box[1])
            rect = pygame.Rect(min(a[0], b[0]), min(a[1], b[1]), abs(a[0] - b[0]), abs(a[1] - b[1]))
            pygame.draw.rect(surface, overlays.ACCENT, rect, 1)

    def hint(self, host: ToolHost) -> list[str]:
        if self._selected_piece(host) is not None:
            return ["Building: drag corners · Ctrl+click a side adds a corner · Alt+click / Delete over a corner removes it · handle or R/Shift+R turns it (15°/1°)"]
        if host.state.also_selected:
            return [f"{len(host.state.selected)} selected: drag one to move them all · arrows nudge · Ctrl+D duplicates"]
        return []


VERTEX_RING = 9


def _centre(piece: Terrain) -> Point:
    from ..measure import terrain_centre

    return terrain_centre(piece)


def items_in_box(host: ToolHost, lo: Point, hi: Point) -> tuple[Ref, ...]:
    """Models whose centre, terrain whose outline, free templates whose focus lie in the box."""
    def inside(p: Point) -> bool:
        return lo[0] <= p[0] <= hi[0] and lo[1] <= p[1] <= hi[1]

    s = host.scenario
    refs = [Ref("model", m.id) for m in s.models if inside(m.centre)]
    refs += [Ref("terrain", t.id) for t in s.terrain if all(inside(p) for p in t.polygon)]
    placed = host.placed()
    refs += [Ref("template", t.id) for t in s.templates if t.id in placed and inside(placed[t.id].focus)]
    return tuple(refs)


def drag_item(host: ToolHost, d: Gesture, at: Pointer) -> None:
    """One step of a gesture that moves, aims or rotates ``d.ref``."""
    assert d.ref is not None
    x, y = at.world
    if d.kind == "move_model":
        host.dispatch(MoveModel(d.ref.id, x + d.offset[0], y + d.offset[1], d.undo_group))
    elif d.kind == "move_template":
        host.dispatch(MoveTemplate(d.ref.id, x + d.offset[0], y + d.offset[1], d.undo_group))
    elif d.kind == "aim":
        host.dispatch(MoveTemplate(d.ref.id, x, y, d.undo_group))
    elif d.kind == "rotate":
        placed = host.placed().get(d.ref.id)
        if placed is not None and distance(at.world, placed.focus) > 1e-6:
            heading = math.degrees(math.atan2(y - placed.focus[1], x - placed.focus[0]))
            host.dispatch(RotateTemplate(d.ref.id, round(heading, 6), d.undo_group))
    elif d.kind == "move_terrain":
        dx, dy = x - d.last[0], y - d.last[1]
        if dx or dy:
            host.dispatch(MoveTerrain(d.ref.id, dx, dy, d.undo_group))
    d.last = at.world
