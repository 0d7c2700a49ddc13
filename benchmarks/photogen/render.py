"""Ray casting a scene into a G-buffer, shadow rays through a light-space depth map, shading in linear light.

The floor and the wall are intersected by every ray; everything else only by the rays inside its
projected bounding box, so a 12 MP frame costs a few passes over the image plus small boxes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from benchmarks.photogen import raycast
from benchmarks.photogen.camera import Camera, look_at
from benchmarks.photogen.scene import BaseSpec, Figure, Light, Marker, Scene, Terrain
from benchmarks.photogen.textures import NoiseBank, linear, sample

BBOX_MARGIN_PX = 3
WALL_SKIRTING_MM = 90.0
PAPER_MM = 0.12
"""A printed marker lies this far above the mat (paper)."""
EDGE_ROUNDING_MM = 0.45
"""Width of the rounded outer edge of a base's top: it catches the light as a thin highlight or shadow."""

ID_FLOOR, ID_WALL, ID_MAT, ID_SLAB, ID_LEG = 1, 2, 3, 4, 5
ID_MARKER, ID_TERRAIN, ID_BASE, ID_FIGURE = 20, 50, 1000, 5000


@dataclass
class Context:
    """What shaders read: textures and the scene."""

    scene: Scene
    mat: np.ndarray
    """Linear float32 (rows from y = depth down to 0)."""
    mat_px_per_mm: float
    mat_mean: np.ndarray
    floor: np.ndarray
    noise: NoiseBank

    def mat_at(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        s = self.mat_px_per_mm
        return sample(self.mat, x * s - 0.5, (self.scene.table_mm[1] - y) * s - 0.5).T


class Renderable(Protocol):
    ident: int

    def bounds(self) -> np.ndarray: ...
    def hit(self, o: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, object]: ...
    def shade(self, p: np.ndarray, n: np.ndarray, payload: object, ctx: Context) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...


def _take(payload: object, at: np.ndarray) -> object:
    """The payload's values at the ray indices ``at`` (along its last axis)."""
    if isinstance(payload, tuple):
        return tuple(_take(x, at) for x in payload)
    if isinstance(payload, np.ndarray):
        return np.take(payload, at, axis=-1)
    return payload


def _box_points(centre: tuple[float, float], half: tuple[float, float], z0: float, z1: float, angle: float, steps: int = 9) -> np.ndarray:
    s = np.linspace(-1, 1, steps)
    pts = []
    for z in (z0, z1):
        for a in s:
            pts += [(a * half[0], -half[1], z), (a * half[0], half[1], z), (-half[0], a * half[1], z), (half[0], a * half[1], z)]
    p = np.array(pts)
    c, si = math.cos(angle), math.sin(angle)
    x = c * p[:, 0] - si * p[:, 1] + centre[0]
    y = si * p[:, 0] + c * p[:, 1] + centre[1]
    return np.stack([x, y, p[:, 2]], axis=1)


def _ellipse_points(x: float, y: float, a: float, b: float, angle: float, z: float, n: int = 32) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    # Circumscribe the polygon so the ellipse lies inside it.
    k = 1.0 / math.cos(math.pi / n)
    ex, ey = a * k * np.cos(t), b * k * np.sin(t)
    c, s = math.cos(angle), math.sin(angle)
    return np.stack([x + c * ex - s * ey, y + s * ex + c * ey, np.full(n, z)], axis=1)


def _tone(ctx: Context, which: str, p: np.ndarray, amount: float, stretch: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
    return 1.0 + amount * ctx.noise.sample(which, p[0], p[1] + 0.37 * p[2], stretch)


class Slab:
    """The table: its top is the mat, its front and sides a painted or wooden face."""

    ident = ID_MAT

    def __init__(self, scene: Scene) -> None:
        w, d = scene.table_mm
        self.centre, self.half = (w / 2, d / 2), (w / 2, d / 2)
        self.z0, self.z1 = -scene.slab_thickness, 0.0
        self.side = linear(scene.slab_colour)

    def bounds(self) -> np.ndarray:
        return _box_points(self.centre, self.half, self.z0, self.z1, 0.0, 17)

    def hit(self, o, d):
        t, n, face, _ = raycast.box(o, d, self.centre, self.half, self.z0, self.z1, 0.0, with_local=False)
        return t, n, (face, None)

    def shade(self, p, n, payload, ctx):
        face, _ = payload
        top = face == 2
        alb = np.empty((3, p.shape[1]), np.float32)
        # Written a row at a time (a mask across the second axis of a (3, m) array is numpy's slow path), by np.place:
        # several times faster than a mask assignment when, as here, nearly every ray hit the top.
        if top.any():
            mat = ctx.mat_at(p[0, top], p[1, top])
            for i in range(3):
                np.place(alb[i], top, mat[i])
        side = ~top
        if side.any():
            grain = _tone(ctx, "medium", p[:, side][[0, 2, 1]] * np.array([[0.15], [3.0], [1.0]], np.float32), 0.08)
            face_alb = self.side[:, None] * grain
            for i in range(3):
                alb[i, side] = face_alb[i]
        ident = np.where(top, ID_MAT, ID_SLAB).astype(np.int32)
        gloss = np.where(top, ctx.scene.light.gloss, 0.03).astype(np.float32)
        return alb, gloss, ident


class Leg:
    ident = ID_LEG

    def __init__(self, x: float, y: float, scene: Scene) -> None:
        self.centre, self.half = (x, y), (30.0, 30.0)
        self.z0, self.z1 = -scene.table_height, -scene.slab_thickness
        self.colour = linear(scene.slab_colour) * 0.7

    def bounds(self):
        return _box_points(self.centre, self.half, self.z0, self.z1, 0.0, 3)

    def hit(self, o, d):
        t, n, _, _ = raycast.box(o, d, self.centre, self.half, self.z0, self.z1, 0.0, with_local=False)
        return t, n, None

    def shade(self, p, n, payload, ctx):
        m = p.shape[1]
        return np.repeat(self.colour[:, None], m, 1), np.full(m, 0.02, np.float32), np.full(m, ID_LEG, np.int32)


class BaseObject:
    """A base: a bevelled elliptic frustum, its top painted and textured, a rounded edge, maybe a painted rim band."""

    def __init__(self, base: BaseSpec, index: int) -> None:
        self.b = base
        self.ident = ID_BASE + index
        self.angle = math.radians(base.rotation_deg)
        self.top = linear(base.top_colour)
        self.side = linear(base.side_colour)
        self.mat_offset = ((index * 137.0) % 600.0 + 100.0, (index * 291.0) % 600.0 + 100.0)

    def bounds(self):
        b = self.b
        a, c = b.axes
        return np.concatenate([_ellipse_points(b.x, b.y, a, c, self.angle, b.z), _ellipse_points(b.x, b.y, a, c, self.angle, b.z + b.height)])

    def hit(self, o, d):
        b = self.b
        t, n, part, local = raycast.frustum(o, d, (b.x, b.y, b.z), b.axes, self.angle, b.height, b.inset_frac)
        return t, n, (part, local)

    def shade(self, p, n, payload, ctx):
        b = self.b
        part, local = payload
        m = p.shape[1]
        top = part == 1
        alb = np.repeat(self.side[:, None], m, 1) * _tone(ctx, "fine", p, 0.04)
        gloss = np.full(m, 0.04, np.float32)
        if top.any():
            pt = p[:, top]
            if b.texture == "mat":
                tex = ctx.mat_at(pt[0] - b.x + self.mat_offset[0], pt[1] - b.y + self.mat_offset[1])
                tex = tex * (self.top / np.maximum(linear(ctx.mat_mean), 1e-4))[:, None]
            else:
                amount = {"paint": (0.015, 0.01), "sand": (0.16, 0.06), "flock": (0.28, 0.10), "rocky": (0.06, 0.16)}[b.texture]
                tex = self.top[:, None] * _tone(ctx, "fine", pt, amount[0]) * _tone(ctx, "medium", pt, amount[1])
                if b.texture == "flock":
                    tex[0] *= 1.0 + 0.25 * np.clip(ctx.noise.sample("medium", pt[0] * 3, pt[1] * 3), 0, None)
            rho = local[2, top]
            top_r = 0.5 * (b.length + b.width) / 2 * (1 - b.inset_frac)
            if b.rim_band > 0:
                band = rho > 1.0 - b.rim_band / top_r
                tex[:, band] = self.side[:, None]
            alb[:, top] = tex
            # The top's rounded edge: its normal turns outward over the last fraction of a millimetre.
            edge = np.clip((rho - (1.0 - EDGE_ROUNDING_MM / top_r)) / (EDGE_ROUNDING_MM / top_r), 0.0, 1.0) * 1.3
            rx, ry = pt[0] - b.x, pt[1] - b.y
            rn = np.sqrt(rx * rx + ry * ry) + 1e-6
            nt = np.stack([edge * rx / rn, edge * ry / rn, np.ones_like(edge)])
            n[:, top] = nt / np.sqrt((nt * nt).sum(0))
            gloss[top] = 0.03
        return alb, gloss, np.full(m, self.ident, np.int32)


class FigureObject:
    def __init__(self, figure: Figure, index: int) -> None:
        self.f = figure
        self.ident = ID_FIGURE + index
        self.colours = np.array([linear(p.colour) for p in figure.parts], np.float32).T
        self.gloss = 0.06 + 0.3 * (np.arange(len(figure.parts)) % 4 == 3)

    def bounds(self):
        pts = []
        for p in self.f.parts:
            r = math.hypot(p.axes[0], p.axes[1])
            for sx in (-1, 1):
                for sy in (-1, 1):
                    for sz in (-1, 1):
                        pts.append((p.centre[0] + sx * r, p.centre[1] + sy * r, p.centre[2] + sz * p.axes[2]))
        return np.array(pts)

    def hit(self, o, d):
        m = d.shape[1]
        best = np.full(m, np.inf)
        normal = np.zeros((3, m), np.float32)
        which = np.zeros(m, np.int16)
        for i, p in enumerate(self.f.parts):
            t, n = raycast.ellipsoid(o, d, np.array(p.centre), np.array(p.axes), p.angle)
            closer = t < best
            best = np.where(closer, t, best)
            normal[:, closer] = n[:, closer]
            which[closer] = i
        return best, normal, which

    def shade(self, p, n, payload, ctx):
        which = payload
        alb = self.colours[:, which] * _tone(ctx, "medium", p, 0.07)
        return alb, self.gloss[which].astype(np.float32), np.full(p.shape[1], self.ident, np.int32)


class TerrainObject:
    def __init__(self, t: Terrain, index: int) -> None:
        self.t = t
        self.ident = ID_TERRAIN + index
        self.angle = math.radians(t.rotation_deg)
        self.top = linear(t.top_colour)
        self.side = linear(t.side_colour)

    def bounds(self):
        t = self.t
        if t.kind == "hill":
            return np.concatenate([_ellipse_points(t.x, t.y, *t.size, self.angle, 0.0),
                                   _ellipse_points(t.x, t.y, *t.top_axes(), self.angle, t.height)])
        return _box_points((t.x, t.y), t.size, 0.0, t.height, self.angle)

    def hit(self, o, d):
        t = self.t
        if t.kind == "hill":
            tt, n, part, local = raycast.frustum(o, d, (t.x, t.y, 0.0), t.size, self.angle, t.height, t.inset_frac)
            return tt, n, (part == 1, local)
        tt, n, face, local = raycast.box(o, d, (t.x, t.y), t.size, 0.0, t.height, self.angle)
        return tt, n, (face == 2, local)

    def shade(self, p, n, payload, ctx):
        top, local = payload
        m = p.shape[1]
        t = self.t
        alb = np.empty((3, m), np.float32)
        if t.kind == "hill":
            amount = (0.22, 0.10) if t.texture == "grass" else (0.06, 0.2)
            alb[:, top] = self.top[:, None] * _tone(ctx, "fine", p[:, top], amount[0]) * _tone(ctx, "medium", p[:, top], amount[1])
            alb[:, ~top] = self.side[:, None] * _tone(ctx, "medium", p[:, ~top], 0.15)
        else:
            alb[:, top] = self.top[:, None] * _tone(ctx, "medium", p[:, top], 0.1)
            side = ~top
            lx, ly, z = local[0, side], local[1, side], local[2, side]
            along = np.where(np.abs(np.abs(lx) - t.size[0]) < 1e-3, ly, lx)
            row = np.floor(z / 9.0)
            brick = np.mod(along + 12.0 * (row % 2), 24.0)
            mortar = (np.mod(z, 9.0) < 1.0) | (brick < 1.0)
            tone = _tone(ctx, "coarse", p[:, side], 0.12) * np.where(mortar, 0.65, 1.0)
            alb[:, side] = self.side[:, None] * tone
        return alb, np.full(m, 0.03, np.float32), np.full(m, self.ident, np.int32)


class MarkerObject:
    """A printed marker: white paper with a black-and-white cell pattern, flat on the mat."""

    def __init__(self, marker: Marker) -> None:
        self.m = marker
        self.ident = ID_MARKER + marker.id
        self.angle = math.radians(marker.rotation_deg)
        self.half = marker.size_mm / 2 + marker.margin_mm

    def bounds(self):
        return _box_points(self.m.centre, (self.half, self.half), PAPER_MM, PAPER_MM, self.angle, 5)

    def hit(self, o, d):
        t = raycast.plane_z(o, d, PAPER_MM)
        tt = np.where(np.isfinite(t), t, 0.0)
        x, y = o[0] + tt * d[0] - self.m.centre[0], o[1] + tt * d[1] - self.m.centre[1]
        c, s = math.cos(self.angle), math.sin(self.angle)
        lx, ly = c * x + s * y, -s * x + c * y
        inside = (np.abs(lx) <= self.half) & (np.abs(ly) <= self.half)
        t = np.where(inside, t, np.inf)
        n = np.zeros((3, d.shape[1]), np.float32)
        n[2] = 1.0
        return t, n, np.stack([lx, ly])

    def shade(self, p, n, payload, ctx):
        lx, ly = payload
        cells = self.m.bits.shape[0]
        size = self.m.size_mm
        col = np.floor((lx + size / 2) / size * cells).astype(np.int64)
        row = np.floor((size / 2 - ly) / size * cells).astype(np.int64)
        inside = (col >= 0) & (col < cells) & (row >= 0) & (row < cells)
        white = np.ones(lx.shape, bool)
        white[inside] = self.m.bits[row[inside], col[inside]] > 0
        v = np.where(white, linear((0.93, 0.93, 0.91))[0], linear((0.05, 0.05, 0.05))[0]).astype(np.float32)
        return np.stack([v, v, v * 0.98]), np.full(lx.shape, 0.08, np.float32), np.full(lx.shape, self.ident, np.int32)


def scene_objects(scene: Scene, with_markers: bool = True) -> list:
    """Everything but the floor and the wall, in a fixed order."""
    w, d = scene.table_mm
    objs: list = [Slab(scene)]
    inset = 60.0
    for x, y in ((inset, inset), (w - inset, inset), (w - inset, d - inset), (inset, d - inset)):
        objs.append(Leg(x, y, scene))
    objs += [TerrainObject(t, i) for i, t in enumerate(scene.terrain)]
    if with_markers:
        objs += [MarkerObject(m) for m in scene.markers]
    objs += [BaseObject(b, i) for i, b in enumerate(scene.bases)]
    objs += [FigureObject(b.figure, i) for i, b in enumerate(scene.bases) if b.figure is not None]
    return objs


@dataclass
class GBuffer:
    t: np.ndarray
    """Camera-frame depth (mm) of the nearest surface, inf where none."""
    normal: np.ndarray
    albedo: np.ndarray
    gloss: np.ndarray
    ident: np.ndarray


def pixel_box(camera: Camera, points: np.ndarray) -> tuple[int, int, int, int] | None:
    """Rows and columns (r0, r1, c0, c1) of the photo that may see ``points``' hull; None if none."""
    px = camera.project(points)
    if not np.all(np.isfinite(px)):
        return 0, camera.height, 0, camera.width
    c0 = max(0, int(math.floor(px[:, 0].min())) - BBOX_MARGIN_PX)
    c1 = min(camera.width, int(math.ceil(px[:, 0].max())) + BBOX_MARGIN_PX + 1)
    r0 = max(0, int(math.floor(px[:, 1].min())) - BBOX_MARGIN_PX)
    r1 = min(camera.height, int(math.ceil(px[:, 1].max())) + BBOX_MARGIN_PX + 1)
    if c0 >= c1 or r0 >= r1:
        return None
    return r0, r1, c0, c1


def cast(camera: Camera, scene: Scene, ctx: Context | None, dirs: np.ndarray, objects: list, room: bool = True) -> GBuffer:
    """Nearest surfaces along every ray; with ``ctx`` None only the depth (a shadow map).

    The floor and the wall are intersected by every ray first (their depth is what the objects must beat) but shaded
    last, only where no object was nearer: the table hides most of them.
    """
    h, w = camera.height, camera.width
    o = camera.centre.astype(np.float64)
    shade = ctx is not None
    t_buf = np.full((h, w), np.inf, np.float32)
    gb = GBuffer(t_buf, np.zeros((3, h, w), np.float32) if shade else np.empty(0), np.zeros((3, h, w), np.float32) if shade else np.empty(0),
                 np.zeros((h, w), np.float32) if shade else np.empty(0), np.zeros((h, w), np.int32) if shade else np.empty(0))
    is_wall = _room_depth(o, dirs, scene, gb) if room else None
    for obj in objects:
        box = pixel_box(camera, obj.bounds())
        if box is None:
            continue
        r0, r1, c0, c1 = box
        # A band of rows at a time: every ray is cast and shaded on its own, and a band's arrays stay in the cache
        # (the table's box is half a 12 MP frame).
        for b0 in range(r0, r1, CAST_BAND_ROWS):
            _cast_band(obj, o, dirs, gb, ctx, b0, min(r1, b0 + CAST_BAND_ROWS), c0, c1)
    if room and shade:
        _shade_room(o, dirs, scene, ctx, gb, is_wall)
    return gb


CAST_BAND_ROWS = 48
"""Rows of an object's pixel box cast at a time."""


def _cast_band(obj: Renderable, o: np.ndarray, dirs: np.ndarray, gb: GBuffer, ctx: Context | None, r0: int, r1: int, c0: int,
               c1: int) -> None:
    """``obj`` where it is nearer than what the G-buffer holds, in rows r0:r1 and columns c0:c1 of the frame."""
    d = dirs[:, r0:r1, c0:c1].reshape(3, -1)
    t, n, payload = obj.hit(o, d)
    cur = gb.t[r0:r1, c0:c1]
    win2 = t.reshape(cur.shape) < cur
    if not win2.any():
        return
    # The winners' indices once, then takes along the rays' axis and a row at a time: numpy's mask indexing across
    # the second axis of a (3, m) array is several times slower.
    at = np.flatnonzero(win2)
    t_win = t[at]
    cur[win2] = t_win
    if ctx is None:
        return
    p = o[:, None].astype(np.float32) + t_win.astype(np.float32) * np.take(d, at, axis=1)
    nn = np.take(n, at, axis=1)  # a copy: the shader may turn its normals
    alb, gloss, ident = obj.shade(p, nn, _take(payload, at), ctx)
    for i in range(3):
        gb.normal[i, r0:r1, c0:c1][win2] = nn[i]
        gb.albedo[i, r0:r1, c0:c1][win2] = alb[i]
    gb.gloss[r0:r1, c0:c1][win2] = gloss
    gb.ident[r0:r1, c0:c1][win2] = ident


def _room_depth(o: np.ndarray, dirs: np.ndarray, scene: Scene, gb: GBuffer) -> np.ndarray:
    """The floor's or the wall's depth along every ray into ``gb.t``; which of the two each ray meets (h, w)."""
    d = dirs.reshape(3, -1)
    tf = raycast.plane_z(o, d, -scene.table_height).astype(np.float32, copy=False)
    tw = raycast.plane_y(o, d, scene.table_mm[1] + scene.wall_gap).astype(np.float32, copy=False)
    is_wall = tw < tf
    np.copyto(tf, tw, where=is_wall)  # the nearer of the two: np.where(is_wall, tw, tf)
    gb.t[...] = tf.reshape(gb.t.shape)
    return is_wall.reshape(gb.t.shape)


def _shade_room(o: np.ndarray, dirs: np.ndarray, scene: Scene, ctx: Context, gb: GBuffer, is_wall: np.ndarray) -> None:
    """The floor and the wall where no object hid them (no object's ident was written there), a band of rows at a
    time (each pixel on its own)."""
    h = gb.t.shape[0]
    for r0 in range(0, h, CAST_BAND_ROWS):
        r1 = min(h, r0 + CAST_BAND_ROWS)
        _shade_room_band(o, dirs[:, r0:r1].reshape(3, -1), scene, ctx, gb.t[r0:r1].reshape(-1), gb.albedo[:, r0:r1].reshape(3, -1),
                         gb.normal[:, r0:r1].reshape(3, -1), gb.ident[r0:r1].reshape(-1), is_wall[r0:r1].reshape(-1))


def _shade_room_band(o: np.ndarray, dirs: np.ndarray, scene: Scene, ctx: Context, t_all: np.ndarray, alb: np.ndarray,
                     normal: np.ndarray, ident: np.ndarray, is_wall: np.ndarray) -> None:
    """``_shade_room`` on some rows (flattened: dirs (3, m), the G-buffer's t, albedo, normal and ident as views)."""
    floor_z = -scene.table_height
    at = np.flatnonzero(ident == 0)
    if at.size == 0:
        return
    d = np.take(dirs, at, axis=1)
    t = t_all[at]
    wall_here = is_wall[at]
    finite = np.isfinite(t)
    tt = np.where(finite, t, np.float32(0.0))
    # The hit point o + tt * d (float64: o is), each coordinate only where a surface reads it.
    fl = ~wall_here & finite
    at_floor = at[fl]
    floor = sample(ctx.floor, o[0] + tt[fl] * d[0, fl], o[1] + tt[fl] * d[1, fl], border=cv2.BORDER_WRAP)
    for i in range(3):
        alb[i, at_floor] = floor[:, i]
    normal[2, at_floor] = 1.0
    ident[at_floor] = ID_FLOOR
    wl = wall_here
    at_wall = at[wl]
    wall = linear(scene.wall_colour)
    px_wall = o[0] + tt[wl] * d[0, wl]
    pz_wall = o[2] + tt[wl] * d[2, wl]
    skirting = pz_wall < floor_z + WALL_SKIRTING_MM
    tone = 1.0 + 0.04 * ctx.noise.sample("coarse", px_wall * 0.2, pz_wall * 0.2)
    wc = np.where(skirting, 0.8, 1.0) * tone
    wall_alb = wall[:, None] * wc
    for i in range(3):
        alb[i, at_wall] = wall_alb[i]
    normal[1, at_wall] = -1.0
    ident[at_wall] = ID_WALL


# ---------------------------------------------------------------------------------------------- light


def light_camera(scene: Scene, resolution: int) -> Camera:
    """A pinhole at the lamp looking at the table, wide enough to see the table and what stands on it."""
    w, d = scene.table_mm
    eye = np.array(scene.light.position, float)
    target = np.array([w / 2, d / 2, 0.0])
    rot = look_at(eye, target)
    margin = 200.0
    pts = np.array([[x, y, z] for x in (-margin, w + margin) for y in (-margin, d + margin) for z in (0.0, 200.0)])
    cam = (pts - eye) @ rot.T
    extent = float(np.max(np.abs(cam[:, :2] / cam[:, 2:3])))
    f = (resolution / 2 - 2) / extent
    return Camera(resolution, resolution, f, (resolution - 1) / 2, (resolution - 1) / 2, rot, eye)


@dataclass
class ShadowMap:
    camera: Camera
    depth: np.ndarray
    texel_mm: float


def shadow_map(scene: Scene, resolution: int) -> ShadowMap:
    cam = light_camera(scene, resolution)
    dirs = cam.ray_grid()
    gb = cast(cam, scene, None, dirs, scene_objects(scene, with_markers=False), room=False)
    dist = float(np.linalg.norm(cam.centre - np.array([scene.table_mm[0] / 2, scene.table_mm[1] / 2, 0.0])))
    return ShadowMap(cam, gb.t, dist / cam.focal_px)


POISSON = np.array([[0.0, 0.0], [0.62, 0.45], [-0.7, 0.3], [0.1, -0.8], [-0.45, -0.6]], np.float32)


def _dot3(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``(a * b).sum(0)`` for (3, m) arrays (``b`` may be (3, 1)), summed as numpy sums over axis 0: (a0 b0 + a1 b1) + a2 b2."""
    out = np.multiply(a[0], b[0], out=out)
    term = a[1] * b[1]
    out += term
    np.multiply(a[2], b[2], out=term)
    out += term
    return out


SHADE_BAND_ROWS = 16
"""Rows lit at a time within a chunk: the few dozen passes over each band's arrays stay in the cache."""


def _light_space(sm: ShadowMap, p: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Surface points nudged off their surface, in the shadow map's camera frame (3, m): one matrix product."""
    cam = sm.camera
    # q = p + off * n - centre (float32, in place: the same operations in the same order)
    q = np.multiply(n, 1.5 * sm.texel_mm)
    q += p
    q -= cam.centre[:, None].astype(np.float32)
    return cam.rotation.astype(np.float32) @ q


def _lit_fraction(sm: ShadowMap, qc: np.ndarray, offsets: np.ndarray, lamp_mm: float) -> np.ndarray:
    """How much of the lamp each point sees (percentage-closer filtering, penumbra from the blocker's distance), from
    its place ``qc`` in the shadow map's camera frame and the filter's turned ``offsets`` (texels per texel of radius)."""
    cam = sm.camera
    z = qc[2]
    # u = f * qc[0] / z + cx, v likewise
    u = np.multiply(qc[0], cam.focal_px)
    u /= z
    u += cam.cx
    v = np.multiply(qc[1], cam.focal_px)
    v /= z
    v += cam.cy
    bias = 0.5 * sm.texel_mm
    blocker = sample(sm.depth, u, v, cv2.INTER_NEAREST, cv2.BORDER_CONSTANT, float("inf"))
    # radius = clip(lamp_mm * gap / max(blocker, 1) / texel * 0.5, 0.7, 8), gap = clip(z - blocker, 0) or 0 where not finite
    radius = np.subtract(z, blocker)
    np.clip(radius, 0.0, None, out=radius)
    radius[~np.isfinite(radius)] = 0.0
    radius *= lamp_mm
    radius /= np.maximum(blocker, 1.0)
    radius /= sm.texel_mm
    radius *= 0.5
    np.clip(radius, 0.7, 8.0, out=radius)
    lit = np.zeros(z.shape, np.float32)
    at_u, at_v = np.empty_like(u), np.empty_like(v)
    for off_xy in offsets:
        if not off_xy.any():
            # No offset: u + radius * 0 is u (radius is finite), so the lookup is the blocker's own.
            lit += z <= blocker + bias
            continue
        np.multiply(radius, off_xy[0], out=at_u)
        at_u += u
        np.multiply(radius, off_xy[1], out=at_v)
        at_v += v
        dz = sample(sm.depth, at_u, at_v, cv2.INTER_NEAREST, cv2.BORDER_CONSTANT, float("inf"))
        dz += bias
        lit += z <= dz
    lit /= len(offsets)
    return lit


def shade(camera: Camera, scene: Scene, gb: GBuffer, dirs: np.ndarray, sm: ShadowMap, rng: np.random.Generator,
          rows_per_chunk: int = 384) -> np.ndarray:
    """Linear-light image (h, w, 3): lamp (inverse square, shadowed), directional fill, ambient, specular sheen.

    Each chunk of ``rows_per_chunk`` rows draws one turn of the shadow filter and goes to the shadow map's frame in one
    matrix product; then it is lit a band of rows at a time, in place on a few arrays (every in-place form computes
    the float32 operations of the plain expression in its comment, in the same order).
    """
    h, w = camera.height, camera.width
    light = scene.light
    lamp = np.array(light.position, np.float32)[:, None]
    lamp_col = linear(light.colour)[:, None]
    fill_dir = np.array(light.fill_direction, np.float32)[:, None]
    fill_dir /= np.linalg.norm(fill_dir)
    out = np.empty((h, w, 3), np.float32)
    o = camera.centre.astype(np.float32)[:, None]
    for r0 in range(0, h, rows_per_chunk):
        r1 = min(h, r0 + rows_per_chunk)
        t = gb.t[r0:r1].reshape(-1)
        d = dirs[:, r0:r1].reshape(3, -1)
        n = gb.normal[:, r0:r1].reshape(3, -1)
        finite = np.isfinite(t)
        tt = np.where(finite, t, 0.0)
        p = np.multiply(tt, d)  # p = o + tt * d
        p += o
        del tt
        qc = _light_space(sm, p, n)
        turn = float(rng.uniform(0, 2 * math.pi))
        rot2 = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]], np.float32)
        offsets = POISSON @ rot2.T
        for b0 in range(r0, r1, SHADE_BAND_ROWS):
            b1 = min(r1, b0 + SHADE_BAND_ROWS)
            at = slice((b0 - r0) * w, (b1 - r0) * w)
            vis = _lit_fraction(sm, qc[:, at], offsets, light.size_mm)
            _shade_band(light, lamp, lamp_col, fill_dir, p[:, at], d[:, at], n[:, at], gb.albedo[:, b0:b1].reshape(3, -1),
                        gb.gloss[b0:b1].reshape(-1), finite[at], vis, out[b0:b1])
    return out


def _shade_band(light: Light, lamp: np.ndarray, lamp_col: np.ndarray, fill_dir: np.ndarray, p: np.ndarray, d: np.ndarray,
                n: np.ndarray, alb: np.ndarray, gloss: np.ndarray, finite: np.ndarray, vis: np.ndarray, out: np.ndarray) -> None:
    """Radiance of a band of rows into ``out`` (rows, w, 3): the lamp's direct light and sheen (``vis`` of it seen), fill
    and ambient."""
    to_l = np.subtract(lamp, p)
    r2 = _dot3(to_l, to_l)
    inv = np.sqrt(r2)  # inv = 1 / sqrt(r2)
    np.divide(1.0, inv, out=inv)
    to_l *= inv
    del inv
    ndl = _dot3(n, to_l)
    np.clip(ndl, 0.0, None, out=ndl)
    lamp_r2 = np.divide(light.intensity, r2)
    direct = lamp_r2 * ndl  # direct = intensity / r2 * ndl * vis
    direct *= vis
    half = np.negative(d)  # view = -d / sqrt(d . d); half = to_l + view, normalised (+ 1e-9)
    half /= np.sqrt(_dot3(d, d))
    half += to_l
    del to_l
    norm = _dot3(half, half)
    np.sqrt(norm, out=norm)
    norm += 1e-9
    half /= norm
    # spec = gloss * (intensity / r2) * vis * clip(n . half, 0, 1) ** shininess * (ndl > 0)
    nh = _dot3(n, half, out=norm)
    del half
    np.clip(nh, 0.0, 1.0, out=nh)
    spec = gloss * lamp_r2
    spec *= vis
    spec *= nh ** light.shininess
    spec *= ndl > 0
    del nh, lamp_r2
    fill = _dot3(n, fill_dir, out=r2)  # fill = light.fill * clip(n . fill_dir, 0)
    np.clip(fill, 0.0, None, out=fill)
    fill *= light.fill
    amb = n[2] * 0.35  # amb = ambient * (0.65 + 0.35 * n[2])
    amb += 0.65
    amb *= light.ambient
    # rad = alb * (lamp_col * direct + fill + amb) + lamp_col * spec * 6
    rad = lamp_col * direct
    rad += fill
    rad += amb
    rad *= alb
    glint = lamp_col * spec
    glint *= 6.0
    rad += glint
    del glint
    if not finite.all():
        rad[:, ~finite] = 0.2
    # Interleaved into (rows, w, 3) by OpenCV (a plain copy, several times faster than numpy's transposing one).
    rows, w = out.shape[:2]
    merged = cv2.merge([rad[i].reshape(rows, w) for i in range(3)], dst=out)
    if not np.shares_memory(merged, out):
        out[...] = merged
