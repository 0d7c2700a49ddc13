"""One photo from (condition, seed): scene, camera, render, phone, ground truth; cached on disk."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from benchmarks.photogen.camera import Camera, focal_px_for, look_at
from benchmarks.photogen.conditions import CONDITIONS, PhotoParams
from benchmarks.photogen.phone import develop
from benchmarks.photogen.render import ID_BASE, ID_MARKER, ID_MAT, Context, cast, scene_objects, shade, shadow_map
from benchmarks.photogen.scene import MARKER_DICTIONARY, BaseSpec, Light, Scene, layout
from benchmarks.photogen.textures import NoiseBank, linear, make_floor, make_mat
from tabletop.atomic import atomic_write

GENERATOR_VERSION = "1"
"""Part of every cache key: bump it whenever a photo for the same (condition, seed) would change."""
CONDITION_REVISION = {"markers": 2}
"""A condition changed on its own (its photos differ, the others' do not): its cache folder is revised, not every one.
``markers`` 2: the printed sheet's size, margin and cut corner (``tabletop photo markers``)."""

RIM_SAMPLES = 72
VISIBLE_DEPTH_TOLERANCE_MM = 2.0
OCCLUDED_BELOW = 0.9
"""A base is marked occluded when less than this fraction of its top rim is seen."""


@dataclass(frozen=True)
class Photo:
    image: np.ndarray
    """The photo as a decoder reads the JPEG (BGR, uint8)."""
    jpeg: bytes
    truth: dict
    ident: np.ndarray | None = None
    """Per pixel, which surface the centre ray hit (render.ID_*), when asked for."""
    seconds: float = 0.0


def _rngs(condition: str, seed: int) -> list[np.random.Generator]:
    root = np.random.SeedSequence([int(seed), zlib.crc32(condition.encode())])
    return [np.random.default_rng(s) for s in root.spawn(5)]


def build_scene(params: PhotoParams, rng_layout: np.random.Generator, rng_tex: np.random.Generator) -> tuple[Scene, Context]:
    env = params.environment
    table = params.layout.table_mm
    px_per_mm = 2.5 if params.camera.size[0] >= 3000 else 1.25
    mat, mean = make_mat(env.mat_kind, table, px_per_mm, rng_tex)
    floor = make_floor(env.floor_kind, rng_tex)
    noise = NoiseBank.make(rng_tex)
    bases, terrain, markers = layout(params.layout, rng_layout, mean)
    w, d = table
    lamp = np.array([w / 2 + env.lamp_offset[0] * w, d / 2 + env.lamp_offset[1] * d, env.lamp_height])
    centre = np.array([w / 2, d / 2, 0.0])
    r = float(np.linalg.norm(lamp - centre))
    intensity = r * r / (env.lamp_height / r)
    el, az = math.radians(rng_tex.uniform(25, 60)), rng_tex.uniform(0, 2 * math.pi)
    light = Light(tuple(lamp), intensity, env.lamp_colour, env.ambient, (math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)),
                  env.fill, env.lamp_size_mm, env.gloss, env.shininess)
    scene = Scene(table, env.slab_thickness, env.slab_colour, env.table_height, env.mat_kind, env.floor_kind, env.wall_gap, env.wall_colour,
                  bases, terrain, markers, light)
    _bake_contact_shadows(mat, px_per_mm, scene)
    return scene, Context(scene, mat, px_per_mm, mean, floor, noise)


def _bake_contact_shadows(mat: np.ndarray, s: float, scene: Scene) -> None:
    """Darken the mat where a base or a terrain piece meets it: the light there is hemmed in (ambient occlusion)."""
    h = mat.shape[0]
    mask = np.full(mat.shape[:2], 255, np.uint8)
    for b in scene.bases:
        if b.z == 0:
            cv2.ellipse(mask, ((b.x * s, (scene.table_mm[1] - b.y) * s), (b.length * s, b.width * s), -b.rotation_deg), 0, -1)
    for t in scene.terrain:
        if t.kind == "hill":
            cv2.ellipse(mask, ((t.x * s, (scene.table_mm[1] - t.y) * s), (2 * t.size[0] * s, 2 * t.size[1] * s), -t.rotation_deg), 0, -1)
        else:
            box = cv2.boxPoints(((t.x * s, (scene.table_mm[1] - t.y) * s), (2 * t.size[0] * s, 2 * t.size[1] * s), -t.rotation_deg))
            cv2.fillPoly(mask, [np.round(box).astype(np.int32)], 0)
    if h == 0 or mask.all():
        return
    dist_px = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
    # occlusion = 1 - 0.35 * exp(-(dist_px / s) / 1.5), a band of rows at a time (each pixel on its own)
    for r0 in range(0, h, 64):
        dist = dist_px[r0:r0 + 64] / s
        occlusion = np.negative(dist)
        occlusion /= 1.5
        np.exp(occlusion, out=occlusion)
        occlusion *= 0.35
        np.subtract(1.0, occlusion, out=occlusion)
        mat[r0:r0 + 64] *= occlusion[..., None]


def place_camera(params: PhotoParams, scene: Scene) -> Camera:
    """The phone in front of the table at the condition's elevation, as far back as the wanted fill needs."""
    cp = params.camera
    width, height = cp.size
    f = focal_px_for(width, height, cp.focal_equiv_mm)
    cx = (width - 1) / 2 + cp.principal_offset[0] * width
    cy = (height - 1) / 2 + cp.principal_offset[1] * height
    w, d = scene.table_mm
    target = np.array([w / 2, d / 2, 0.0])
    el, az = math.radians(cp.elevation_deg), math.radians(cp.azimuth_deg)
    toward = np.array([math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), math.sin(el)])
    outline = np.array([[0, 0, 0], [w, 0, 0], [w, d, 0], [0, d, 0], [0, 0, -scene.slab_thickness], [w, 0, -scene.slab_thickness]], float)

    def camera_at(centre: np.ndarray, look: np.ndarray) -> Camera:
        return Camera(width, height, f, cx, cy, look_at(centre, look, cp.roll_deg), centre, cp.k1, cp.k2)

    def spread(cam: Camera) -> float:
        px = cam.project(outline)
        if not np.all(np.isfinite(px)):
            return math.inf
        return float(np.max(np.maximum(np.abs(px[:, 0] - cx) / (width / 2), np.abs(px[:, 1] - cy) / (height / 2))))

    lo, hi = 100.0, 50000.0
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        if spread(camera_at(target + mid * toward, target)) > cp.fill:
            lo = mid
        else:
            hi = mid
    cam = camera_at(target + hi * toward, target)
    if cp.cut_corner is not None:
        corner = outline[cp.cut_corner]
        away = corner - target
        # Sideways only: along the table's width, so the other near corner stays in the frame (a diagonal shift took
        # both near corners out in half the photos).
        away[1:] = 0.0
        away /= np.linalg.norm(away)
        margin = 0.04 * width
        for step in range(1, 400):
            shift = -away * step * 5.0
            trial = camera_at(target + hi * toward + shift, target + shift)
            px = trial.project(outline[:4])
            u, v = px[cp.cut_corner]
            if u < -margin or u > width + margin or v < -margin or v > height + margin:
                cam = trial
                break
    return cam


def _truth_base(b: BaseSpec, camera: Camera, depth: np.ndarray, ident: np.ndarray | None, index: int) -> dict:
    a, c = b.axes
    k = 1.0 - b.inset_frac
    ang = math.radians(b.rotation_deg)
    th = np.linspace(0, 2 * math.pi, RIM_SAMPLES, endpoint=False)
    ex, ey = a * k * np.cos(th), c * k * np.sin(th)
    rim = np.stack([b.x + math.cos(ang) * ex - math.sin(ang) * ey, b.y + math.sin(ang) * ex + math.cos(ang) * ey,
                    np.full(th.size, b.z + b.height)], axis=1)
    px = camera.project(rim)
    z = camera.depth(rim)
    finite = np.all(np.isfinite(px), axis=1)
    px = np.where(finite[:, None], px, -1.0)
    iu, iv = np.round(px[:, 0]).astype(int), np.round(px[:, 1]).astype(int)
    inside = finite & (iu >= 0) & (iu < camera.width) & (iv >= 0) & (iv < camera.height)
    seen = np.zeros(th.size, bool)
    seen[inside] = depth[iv[inside], iu[inside]] >= z[inside] - VISIBLE_DEPTH_TOLERANCE_MM
    visible = float(seen.mean())
    centre_px = camera.project(np.array([[b.x, b.y, b.z], [b.x, b.y, b.z + b.height]]))
    out: dict[str, object] = {
        "id": b.id,
        "x_mm": round(b.x, 4),
        "y_mm": round(b.y, 4),
        "z_mm": round(b.z, 4),
        "shape": b.shape,
    }
    if b.shape == "round":
        out["diameter_mm"] = b.length
    else:
        out.update({"length_mm": b.length, "width_mm": b.width, "rotation_deg": round(b.rotation_deg % 180.0, 4)})
    out.update({
        "height_mm": round(b.height, 4),
        "bevel_mm": round(b.bevel, 4),
        "top": b.top,
        "texture": b.texture,
        "rim_band_mm": round(b.rim_band, 3),
        "figure": b.figure is not None,
        "figure_reach_mm": round(b.figure.reach_mm, 3) if b.figure else 0.0,
        "overhangs": bool(b.figure and b.figure.reach_mm > a),
        "on_terrain": b.on_terrain is not None,
        "across_edge": b.across_edge,
        "cluster": b.cluster,
        "in_frame": bool(inside.all()),
        "visible_fraction": round(visible, 4),
        "occluded": visible < OCCLUDED_BELOW,
        "footprint_centre_px": [round(float(v), 3) for v in centre_px[0]],
        "top_centre_px": [round(float(v), 3) for v in centre_px[1]],
    })
    return out


def make_truth(params: PhotoParams, seed: int, scene: Scene, camera: Camera, depth: np.ndarray, ident: np.ndarray | None) -> dict:
    w, d = scene.table_mm
    corners = camera.project(np.array([[0, 0, 0], [w, 0, 0], [w, d, 0], [0, d, 0]], float))
    in_frame = [bool(0 <= u <= camera.width - 1 and 0 <= v <= camera.height - 1) for u, v in corners]
    centre = np.array([w / 2, d / 2, 0.0])
    markers = []
    for m in scene.markers:
        mm = m.corners_mm()
        pts = np.concatenate([mm, np.full((4, 1), 0.12)], axis=1)
        markers.append({"id": m.id, "dictionary": MARKER_DICTIONARY, "size_mm": m.size_mm, "margin_mm": round(m.margin_mm, 3),
                        "rotation_deg": round(m.rotation_deg, 4), "corners_mm": mm.round(4).tolist(),
                        "corners_px": camera.project(pts).round(3).tolist()})
    return {
        "generator": "benchmarks.photogen",
        "version": GENERATOR_VERSION + (f".r{CONDITION_REVISION[params.condition]}" if params.condition in CONDITION_REVISION else ""),
        "condition": params.condition,
        "seed": int(seed),
        "image_size": [camera.width, camera.height],
        "table_mm": [w, d],
        "corners_px": corners.round(3).tolist(),
        "corners_in_frame": in_frame,
        "camera": {**camera.as_json(), "elevation_deg": round(camera.elevation_deg(centre), 3)},
        "jpeg_quality": params.phone.jpeg_quality,
        "mat": scene.mat_kind,
        "slab_thickness_mm": round(scene.slab_thickness, 3),
        "light": {"position_mm": [round(v, 2) for v in scene.light.position], "ambient": round(scene.light.ambient, 3),
                  "gloss": round(scene.light.gloss, 3)},
        "bases": [_truth_base(b, camera, depth, ident, i) for i, b in enumerate(scene.bases)],
        "terrain": [{"kind": t.kind, "x_mm": round(t.x, 3), "y_mm": round(t.y, 3), "size_mm": [round(v, 3) for v in t.size],
                     "height_mm": round(t.height, 3), "rotation_deg": round(t.rotation_deg, 3)} for t in scene.terrain],
        "markers": markers,
    }


def render_photo(condition: str, seed: int, size: tuple[int, int] | None = None, keep_ident: bool = False) -> Photo:
    """Render the photo of ``condition`` number ``seed`` (``size`` overrides the condition's frame size)."""
    if condition not in CONDITIONS:
        raise KeyError(f"unknown condition {condition!r}: one of {', '.join(CONDITIONS)}")
    t0 = time.perf_counter()
    rng_params, rng_layout, rng_tex, rng_render, rng_phone = _rngs(condition, seed)
    params = CONDITIONS[condition](rng_params)
    if size is not None:
        params = dataclasses.replace(params, camera=dataclasses.replace(params.camera, size=(int(size[0]), int(size[1]))))
    scene, ctx = build_scene(params, rng_layout, rng_tex)
    camera = place_camera(params, scene)
    jitter = rng_render.random((2, camera.height, camera.width), dtype=np.float32) - np.float32(0.5)
    dirs = camera.ray_grid(jitter)
    del jitter
    gb = cast(camera, scene, ctx, dirs, scene_objects(scene))
    sm = shadow_map(scene, 2048 if camera.width >= 3000 else 1024)
    radiance = shade(camera, scene, gb, dirs, sm, rng_render)
    del dirs
    meter = (gb.ident == ID_MAT) | (gb.ident >= ID_MARKER)
    image, jpeg = develop(radiance, params.phone, rng_phone, linear(scene.light.colour), meter)
    truth = make_truth(params, seed, scene, camera, gb.t, gb.ident)
    return Photo(image, jpeg, truth, gb.ident if keep_ident else None, time.perf_counter() - t0)


# ---------------------------------------------------------------------------------------------- cache


def cache_root() -> Path:
    """``$TABLETOP_PHOTOGEN_CACHE`` or ~/.cache/tabletop-photogen: the photos (one folder per generator version)
    and what is measured of them."""
    return Path(os.environ.get("TABLETOP_PHOTOGEN_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "tabletop-photogen"))


def cache_dir() -> Path:
    """The cache's folder of this generator version's photos."""
    return cache_root() / f"v{GENERATOR_VERSION}"


def write_cached(path: Path, data: bytes) -> None:
    """``data`` into the cache at ``path``, its folder made first; atomically (``tabletop.atomic``): a run stopped
    mid-write leaves no half a photo for the next to read."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, data)


def cached_photo(condition: str, seed: int, size: tuple[int, int] | None = None) -> tuple[Path, dict]:
    """The photo's JPEG path and its truth, rendered once and kept in the cache."""
    tag = f"{seed}" if size is None else f"{seed}_{size[0]}x{size[1]}"
    folder = condition if condition not in CONDITION_REVISION else f"{condition}.r{CONDITION_REVISION[condition]}"
    jpg = cache_dir() / folder / f"{tag}.jpg"
    meta = jpg.with_suffix(".json")
    if jpg.exists() and meta.exists():
        return jpg, json.loads(meta.read_text())
    photo = render_photo(condition, seed, size)
    write_cached(jpg, photo.jpeg)
    write_cached(meta, json.dumps(photo.truth, indent=1).encode())
    return jpg, photo.truth
