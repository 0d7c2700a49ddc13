"""Terrain tools: trace a piece (polygon by corners, rectangle by a drag, circle by Shift+drag),
and the handles the Select tool shows on a selected piece (corners, rotation).

Points snap to the grid while the grid is shown (hold Alt for a free point). A polygon
closes on its first corner or with Enter; Backspace takes back the last corner; Esc drops
it. An outline that would cross itself, or has fewer than 3 corners or no area, is refused
with the reason in the status bar.
"""

from __future__ import annotations

import math

import pygame

from tabletop.model import Point, RectSpec, Terrain
from tabletop.units import format_length
from tabletop.viewport import nice_grid_step

from .. import overlays
from ..measure import circle_points, crossing_problem, polygon_problem, rect_from_corners, rotate_points, round_piece, snap, terrain_centre
from ..state import AddTerrain, Ref, Select, SetTerrainOutline, fresh_id
from .base import Gesture, Pointer, Tool, ToolHost

CLOSE_PX = 9  # a click this close to the first corner closes the outline
DRAG_PX = 6  # a press that moves this far is a drag (rectangle, circle), not a corner
VERTEX_PX = 8  # how close a press must be to grab a corner
EDGE_PX = 6  # how close a Ctrl+click must be to an edge to add a corner there
ROTATE_HANDLE_PX = 28  # the rotation handle's distance above a selected piece


def snap_step(host: ToolHost) -> float | None:
    """The grid step drawing snaps to: the grid as drawn (the table's squares, else the view's
    inch grid), or None when the grid is hidden."""
    if not host.state.view.show_grid:
        return None
    scale = host.viewport.scale
    grid = host.scenario.table.grid
    if grid:
        return float(grid * max(1, math.ceil(12.0 / max(grid * scale, 1e-9))))
    return nice_grid_step(scale)


def snapped(host: ToolHost, at: Pointer) -> Point:
    """``at`` on the grid unless Alt is held."""
    if at.mod & pygame.KMOD_ALT:
        return at.world
    return snap(at.world, snap_step(host))


def new_piece(host: ToolHost, points: tuple[Point, ...] | None = None, rect: RectSpec | None = None, kind: str = "building") -> str | None:
    """Add a traced piece (a building that blocks sight; edit it in the side panel) and select it."""
    tid = fresh_id(host.scenario, "terrain", used=host.state.history.model_ids)
    piece = Terrain(tid, points=points, rect=rect, kind=kind)
    if host.dispatch(AddTerrain(piece)):
        host.dispatch(Select(Ref("terrain", tid)))
        units = host.scenario.units
        circle = round_piece(piece)
        if circle is not None:
            (cx, cy), r = circle
            what = f"round, Ø {format_length(2 * r, units)}, centre {format_length(cx, units)}, {format_length(cy, units)}"
        elif rect is not None:
            what = f"{format_length(rect.length, units)} × {format_length(rect.width, units)}, centre {format_length(rect.x, units)}, {format_length(rect.y, units)}"
        else:
            what = f"{len(points or ())} corners"
        host.flash(f"Added {tid} ({what}): type its exact size and centre, height and kind in the side panel")
        return tid
    return None


class DrawTerrainTool(Tool):
    """Click corners for a polygon; drag for a rectangle; Shift+drag from the centre for a circle."""

    name = "draw_terrain"
    label = "Trace"
    tip = "Trace terrain: click corners (Enter or the first corner closes), drag a rectangle, Shift+drag a circle (8)"

    def __init__(self) -> None:
        super().__init__()
        self.corners: list[Point] = []
        self.press_screen: tuple[int, int] | None = None
        self.circle = False

    def press(self, host: ToolHost, at: Pointer) -> None:
        p = snapped(host, at)
        self.press_screen = at.screen
        self.circle = bool(at.mod & pygame.KMOD_SHIFT)
        self.gesture = Gesture("trace", p, last=p)

    def drag(self, host: ToolHost, at: Pointer) -> None:
        if self.gesture is not None:
            self.gesture.last = snapped(host, at)

    def _dragged(self, at: Pointer) -> bool:
        if self.press_screen is None:
            return False
        return math.hypot(at.screen[0] - self.press_screen[0], at.screen[1] - self.press_screen[1]) >= DRAG_PX

    def release(self, host: ToolHost, at: Pointer) -> None:
        g = self.gesture
        self.gesture = None
        if g is None:
            return
        if self._dragged(at) and not self.corners:
            if self.circle:
                radius = math.hypot(g.last[0] - g.start[0], g.last[1] - g.start[1])
                if radius <= 0:
                    host.flash("Not added: a circle needs a radius", error=True)
                    return
                new_piece(host, points=circle_points(g.start, radius), kind="tree")
                return
            rect = rect_from_corners(g.start, g.last)
            if rect.length <= 0 or rect.width <= 0:
                host.flash("Not added: the rectangle has no area", error=True)
                return
            new_piece(host, rect=rect)
            return
        self.add_corner(host, g.start, at)
        self.press_screen = None

    def add_corner(self, host: ToolHost, p: Point, at: Pointer | None = None) -> None:
        """A click: the next corner, or (on the first corner) close the outline."""
        if len(self.corners) >= 3 and at is not None:
            fx, fy = host.viewport.to_screen(*self.corners[0])
            if math.hypot(at.screen[0] - fx, at.screen[1] - fy) <= CLOSE_PX:
                self.finish(host)
                return
        problem = crossing_problem(self.corners, p)
        if problem is not None:
            host.flash(f"Corner refused: {problem}", error=True)
            return
        self.corners.append(p)

    def finish(self, host: ToolHost) -> bool:
        """Close the outline and add the piece; refused (with the reason) when it is not a valid outline."""
        problem = polygon_problem(self.corners)
        if problem is not None:
            host.flash(f"Not added: {problem}", error=True)
            return False
        points = tuple(self.corners)
        self.corners = []
        return new_piece(host, points=points) is not None

    def key(self, host: ToolHost, event: pygame.event.Event) -> bool:
        if not self.corners:
            return False
        if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.finish(host)
            return True
        if event.key == pygame.K_BACKSPACE:
            self.corners.pop()
            return True
        return False

    def cancel(self, host: ToolHost) -> bool:
        had = bool(self.corners) or self.gesture is not None
        self.corners = []
        self.gesture = None
        return had

    def deactivate(self, host: ToolHost) -> None:
        super().deactivate(host)
        self.corners = []

    def draw(self, host: ToolHost, surface: pygame.Surface) -> None:
        vp = host.viewport
        g = self.gesture
        if g is not None and not self.corners and self.press_screen is not None and g.last != g.start:
            centre = vp.to_screen(*g.start)
            if self.circle:
                r = math.hypot(g.last[0] - g.start[0], g.last[1] - g.start[1])
                pygame.draw.circle(surface, overlays.ACCENT, centre, max(1, vp.length_to_screen(r)), 2)
                pygame.draw.line(surface, overlays.ACCENT, vp.to_screen(g.start[0] - r, g.start[1]), vp.to_screen(g.start[0] + r, g.start[1]), 1)
                pygame.draw.line(surface, overlays.ACCENT, (centre[0], centre[1] - 6), (centre[0], centre[1] + 6), 2)
                pygame.draw.line(surface, overlays.ACCENT, (centre[0] - 6, centre[1]), (centre[0] + 6, centre[1]), 2)
                overlays.label_box(surface, [self.size_words(host)], (round(centre[0]) + 10, round(centre[1]) + 8), 17)
            else:
                rect = rect_from_corners(g.start, g.last)
                pygame.draw.lines(surface, overlays.ACCENT, True, vp.to_screen_array(rect.corners()), 2)
                mx, my = vp.to_screen(rect.x, rect.y)
                overlays.label_box(surface, [self.size_words(host)], (round(mx) - 40, round(my) - 12), 17)
            return
        if not self.corners:
            return
        pts = [vp.to_screen(*p) for p in self.corners]
        mouse = host.mouse_world
        if mouse is not None:
            pts_open = pts + [vp.to_screen(*snap(mouse, snap_step(host)))]
        else:
            pts_open = pts
        if len(pts_open) >= 2:
            pygame.draw.lines(surface, overlays.ACCENT, False, pts_open, 2)
        for i, p in enumerate(pts):
            pygame.draw.circle(surface, overlays.INK, p, 6 if i == 0 else 4)
            pygame.draw.circle(surface, overlays.ACCENT, p, 5 if i == 0 else 3)

    def size_words(self, host: ToolHost) -> str:
        """What the drag in progress makes, in the table's units: "Ø 8" · centre 20", 30"" or "6" × 4"·"."""
        g = self.gesture
        if g is None:
            return ""
        units = host.scenario.units
        if self.circle:
            r = math.hypot(g.last[0] - g.start[0], g.last[1] - g.start[1])
            return f"Ø {format_length(2 * r, units)} · centre {format_length(g.start[0], units)}, {format_length(g.start[1], units)}"
        rect = rect_from_corners(g.start, g.last)
        return f"{format_length(rect.length, units)} × {format_length(rect.width, units)} · centre {format_length(rect.x, units)}, {format_length(rect.y, units)}"

    def hint(self, host: ToolHost) -> list[str]:
        step = snap_step(host)
        grid = f' · snaps to {step / 25.4:g}" (Alt: free)' if step else ""
        if self.gesture is not None and self.press_screen is not None and self.gesture.last != self.gesture.start and not self.corners:
            return [f"{'Circle' if self.circle else 'Rectangle'}: {self.size_words(host)} (Alt: off the grid)"]
        if self.corners:
            return [f"Trace: {len(self.corners)} corners · Enter or the first corner closes · Backspace takes one back · Esc drops{grid}"]
        return [f"Trace: click corners · drag a rectangle · Shift+drag a circle{grid}"]


# --------------------------------------------------------------------------- editing a selected piece


def corner_at(host: ToolHost, piece: Terrain, screen: tuple[int, int]) -> int | None:
    """Index of the corner of ``piece`` under ``screen`` (within a few pixels)."""
    best: tuple[float, int] | None = None
    for i, p in enumerate(piece.polygon):
        sx, sy = host.viewport.to_screen(*p)
        d = math.hypot(sx - screen[0], sy - screen[1])
        if d <= VERTEX_PX and (best is None or d < best[0]):
            best = (d, i)
    return None if best is None else best[1]


def edge_at(host: ToolHost, piece: Terrain, screen: tuple[int, int]) -> tuple[int, Point] | None:
    """The side of ``piece`` under ``screen``: the index of its first corner and the nearest point."""
    pts = piece.polygon
    vp = host.viewport
    for i in range(len(pts)):
        a, b = vp.to_screen(*pts[i]), vp.to_screen(*pts[(i + 1) % len(pts)])
        dx, dy = b[0] - a[0], b[1] - a[1]
        length2 = dx * dx + dy * dy
        if length2 < 1:
            continue
        t = max(0.0, min(1.0, ((screen[0] - a[0]) * dx + (screen[1] - a[1]) * dy) / length2))
        px, py = a[0] + t * dx, a[1] + t * dy
        if math.hypot(px - screen[0], py - screen[1]) <= EDGE_PX:
            wa, wb = pts[i], pts[(i + 1) % len(pts)]
            return i, (wa[0] + t * (wb[0] - wa[0]), wa[1] + t * (wb[1] - wa[1]))
    return None


def rotate_handle(host: ToolHost, piece: Terrain) -> Point:
    """The rotation handle of a selected piece (world mm): above its centre, past its top."""
    cx, cy = terrain_centre(piece)
    top = max(y for _, y in piece.polygon)
    return (cx, top + host.viewport.length_to_world(ROTATE_HANDLE_PX))


def with_corner_moved(piece: Terrain, index: int, p: Point) -> tuple[Point, ...]:
    pts = list(piece.polygon)
    pts[index] = p
    return tuple(pts)


def with_corner_added(piece: Terrain, after: int, p: Point) -> tuple[Point, ...]:
    pts = list(piece.polygon)
    pts.insert(after + 1, p)
    return tuple(pts)


def with_corner_removed(piece: Terrain, index: int) -> tuple[Point, ...]:
    pts = list(piece.polygon)
    del pts[index]
    return tuple(pts)


def outline_command(piece: Terrain, points: tuple[Point, ...], gesture: int | None = None) -> SetTerrainOutline:
    return SetTerrainOutline(piece.id, points=points, gesture=gesture)


def rotated_outline(piece: Terrain, degrees: float, gesture: int | None = None) -> SetTerrainOutline:
    """``piece`` (as it was when the turn began) turned by ``degrees`` about its centre."""
    if piece.rect is not None:
        from dataclasses import replace

        return SetTerrainOutline(piece.id, rect=replace(piece.rect, rotation=(piece.rect.rotation + degrees) % 360.0), gesture=gesture)
    assert piece.points is not None
    return SetTerrainOutline(piece.id, points=rotate_points(piece.points, terrain_centre(piece), degrees), gesture=gesture)


def draw_terrain_handles(host: ToolHost, surface: pygame.Surface, piece: Terrain) -> None:
    """The rotation handle over a selected piece (its corners are drawn with the selection)."""
    vp = host.viewport
    c = vp.to_screen(*terrain_centre(piece))
    h = vp.to_screen(*rotate_handle(host, piece))
    top = vp.to_screen(terrain_centre(piece)[0], max(y for _, y in piece.polygon))
    pygame.draw.line(surface, overlays.ACCENT, top, h, 1)  # from the piece's top, not its centre: its label sits inside
    pygame.draw.circle(surface, overlays.INK, h, overlays.HANDLE_RADIUS_PX + 2)
    pygame.draw.circle(surface, overlays.ACCENT, h, overlays.HANDLE_RADIUS_PX)
    pygame.draw.circle(surface, overlays.ACCENT, c, 4, 1)
