"""Named conditions: each a distribution of photos that differs from the mild baseline in one way.

``params(condition, rng)`` draws everything random about one photo except the layout's own draws:
camera, lens, table, mat, light, phone. Conditions are kept apart in every measurement, never pooled.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from benchmarks.photogen.phone import PhoneParams
from benchmarks.photogen.scene import LayoutParams
from benchmarks.photogen.textures import TEXTURED_MAT_KINDS, Colour


@dataclass(frozen=True)
class CameraParams:
    size: tuple[int, int] = (4032, 3024)
    focal_equiv_mm: float = 26.0
    elevation_deg: float = 60.0
    azimuth_deg: float = 0.0
    roll_deg: float = 0.0
    fill: float = 0.9
    """The table's outline spans this fraction of the frame's width or height, whichever is tighter."""
    k1: float = 0.0
    k2: float = 0.0
    principal_offset: tuple[float, float] = (0.0, 0.0)
    """Principal point's offset from the frame's centre, as fractions of the width and height."""
    cut_corner: int | None = None
    """Index (LL, LR, UR, UL) of a corner to leave outside the frame."""


@dataclass(frozen=True)
class EnvironmentParams:
    slab_thickness: float = 25.0
    slab_colour: Colour = (0.45, 0.32, 0.20)
    table_height: float = 760.0
    mat_kind: str = "felt"
    floor_kind: str = "planks"
    wall_gap: float = 700.0
    wall_colour: Colour = (0.82, 0.80, 0.74)
    lamp_height: float = 1500.0
    lamp_offset: tuple[float, float] = (0.0, 0.0)
    """Lamp position relative to the table's centre, as fractions of its width and depth."""
    lamp_size_mm: float = 150.0
    lamp_colour: Colour = (1.0, 0.92, 0.80)
    ambient: float = 0.35
    fill: float = 0.12
    gloss: float = 0.04
    shininess: float = 25.0


@dataclass(frozen=True)
class PhotoParams:
    condition: str
    camera: CameraParams
    environment: EnvironmentParams
    layout: LayoutParams
    phone: PhoneParams
    notes: tuple[str, ...] = field(default=())


TABLES_MM = ((1219.2, 1219.2), (1219.2, 914.4), (1828.8, 1219.2), (762.0, 762.0))
TABLE_WEIGHTS = (0.6, 0.2, 0.1, 0.1)
SLAB_COLOURS: tuple[Colour, ...] = ((0.45, 0.32, 0.20), (0.10, 0.10, 0.10), (0.85, 0.84, 0.80), (0.60, 0.46, 0.30), (0.25, 0.25, 0.27))
WALL_COLOURS: tuple[Colour, ...] = ((0.82, 0.80, 0.74), (0.70, 0.74, 0.78), (0.86, 0.84, 0.82), (0.55, 0.50, 0.42))


def _choice(rng: np.random.Generator, items: tuple, weights: tuple[float, ...] | None = None):
    p = None if weights is None else np.asarray(weights, float) / sum(weights)
    return items[int(rng.choice(len(items), p=p))]


def baseline(rng: np.random.Generator) -> PhotoParams:
    """Mild: a plain mat, the lamp well above, a lens with little distortion, 50-70 degrees above the table, JPEG 85-95."""
    size = _choice(rng, ((4032, 3024), (4000, 3000), (3264, 2448)), (0.7, 0.15, 0.15))
    camera = CameraParams(
        size=size,
        focal_equiv_mm=float(rng.uniform(24.0, 28.0)),
        elevation_deg=float(rng.uniform(50.0, 70.0)),
        azimuth_deg=float(rng.uniform(-12.0, 12.0)),
        roll_deg=float(rng.uniform(-2.0, 2.0)),
        fill=float(rng.uniform(0.80, 0.94)),
        k1=float(rng.uniform(-0.03, 0.0)),
        k2=float(rng.uniform(-0.005, 0.01)),
        principal_offset=(float(rng.normal(0, 0.004)), float(rng.normal(0, 0.004))),
    )
    env = EnvironmentParams(
        slab_thickness=float(rng.uniform(18.0, 45.0)),
        slab_colour=_choice(rng, SLAB_COLOURS),
        table_height=float(rng.uniform(720.0, 900.0)),
        mat_kind=_choice(rng, ("felt", "desert", "grass"), (0.7, 0.2, 0.1)),
        floor_kind=_choice(rng, ("planks", "tiles", "carpet")),
        wall_gap=float(rng.uniform(400.0, 1500.0)),
        wall_colour=_choice(rng, WALL_COLOURS),
        lamp_height=float(rng.uniform(1300.0, 2000.0)),
        lamp_offset=(float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.2, 0.5))),
        lamp_size_mm=float(rng.uniform(100.0, 400.0)),
        lamp_colour=_choice(rng, ((1.0, 0.92, 0.80), (1.0, 0.97, 0.93), (0.95, 0.97, 1.0))),
        ambient=float(rng.uniform(0.3, 0.5)),
        fill=float(rng.uniform(0.05, 0.2)),
        gloss=float(rng.uniform(0.01, 0.06)),
        shininess=float(rng.uniform(15.0, 40.0)),
    )
    layout = LayoutParams(table_mm=_choice(rng, TABLES_MM, TABLE_WEIGHTS), bases=int(rng.integers(22, 33)))
    phone = PhoneParams(
        exposure_ev=float(rng.uniform(-0.3, 0.2)),
        blur_px=float(rng.uniform(0.55, 0.9)),
        vignetting=float(rng.uniform(0.1, 0.3)),
        shot_noise=float(rng.uniform(0.0003, 0.0012)),
        read_noise=float(rng.uniform(0.001, 0.004)),
        sharpen=float(rng.uniform(0.3, 0.9)),
        jpeg_quality=int(rng.integers(85, 96)),
    )
    return PhotoParams("baseline", camera, env, layout, phone)


def _with(p: PhotoParams, name: str, camera: dict | None = None, environment: dict | None = None, layout: dict | None = None,
          phone: dict | None = None) -> PhotoParams:
    return PhotoParams(
        name,
        dataclasses.replace(p.camera, **(camera or {})),
        dataclasses.replace(p.environment, **(environment or {})),
        dataclasses.replace(p.layout, **(layout or {})),
        dataclasses.replace(p.phone, **(phone or {})),
    )


def barrel(rng: np.random.Generator) -> PhotoParams:
    """Barrel distortion of a phone's main lens: k1 -0.05 to -0.10."""
    return _with(baseline(rng), "barrel", camera={"k1": float(rng.uniform(-0.10, -0.05)), "k2": float(rng.uniform(0.0, 0.03))})


def steep(rng: np.random.Generator) -> PhotoParams:
    """A low, steep view: 30-40 degrees above the table."""
    return _with(baseline(rng), "steep", camera={"elevation_deg": float(rng.uniform(30.0, 40.0)), "fill": float(rng.uniform(0.85, 0.95))})


def textured(rng: np.random.Generator) -> PhotoParams:
    """Textured mats (grass, hex or square print, rocky); more base tops painted like the mat."""
    return _with(baseline(rng), "textured", environment={"mat_kind": _choice(rng, TEXTURED_MAT_KINDS)}, layout={"mat_top_weight": 4.0})


def uneven_light(rng: np.random.Generator) -> PhotoParams:
    """A lamp low over one side: a hotspot, long hard shadows, little ambient light."""
    side = float(rng.choice([-0.55, 0.55]))
    return _with(baseline(rng), "uneven_light", environment={
        "lamp_height": float(rng.uniform(450.0, 900.0)),
        "lamp_offset": (side + float(rng.uniform(-0.1, 0.1)), float(rng.uniform(-0.2, 0.4))),
        "lamp_size_mm": float(rng.uniform(30.0, 120.0)),
        "ambient": float(rng.uniform(0.06, 0.16)),
        "fill": float(rng.uniform(0.0, 0.08)),
        "gloss": float(rng.uniform(0.08, 0.3)),
        "shininess": float(rng.uniform(10.0, 30.0)),
    }, phone={"exposure_ev": float(rng.uniform(-0.2, 0.4))})


def jpeg_small(rng: np.random.Generator) -> PhotoParams:
    """A small photo (1600 x 1200) saved at JPEG quality 60-75."""
    return _with(baseline(rng), "jpeg_small", camera={"size": (1600, 1200)},
                 phone={"jpeg_quality": int(rng.integers(60, 76)), "blur_px": float(rng.uniform(0.5, 0.8))})


def ovals(rng: np.random.Generator) -> PhotoParams:
    """Oval bases (the catalogue's six sizes) among round ones."""
    return _with(baseline(rng), "ovals", layout={"oval_fraction": float(rng.uniform(0.3, 0.5)), "bases": int(rng.integers(18, 26))})


def clusters(rng: np.random.Generator) -> PhotoParams:
    """Units of 5-8 bases in base-to-base contact, among single bases."""
    return _with(baseline(rng), "clusters", layout={"clusters": int(rng.integers(2, 5)), "bases": int(rng.integers(28, 40))})


def overhang(rng: np.random.Generator) -> PhotoParams:
    """Figures reaching past their bases' rims (weapons, wings, arms) by 10-60 % of the radius."""
    return _with(baseline(rng), "overhang", layout={"overhang": (1.1, 1.6), "overhang_fraction": float(rng.uniform(0.5, 0.8))})


def terrain(rng: np.random.Generator) -> PhotoParams:
    """Hills and buildings with bases on them and across their edges; bases hidden behind them."""
    return _with(baseline(rng), "terrain", layout={
        "hills": int(rng.integers(2, 4)), "buildings": int(rng.integers(1, 3)), "walls": int(rng.integers(0, 3)),
        "bases_on_terrain": int(rng.integers(4, 9)), "bases": int(rng.integers(24, 32))})


def markers(rng: np.random.Generator) -> PhotoParams:
    """Four printed ArUco markers at the table's corners; terrain hiding some edges; a third of the photos cut a corner off."""
    p = baseline(rng)
    cut = int(rng.integers(0, 2)) if rng.random() < 1 / 3 else None  # a near corner: the one a phone held close loses
    return _with(p, "markers", camera={"cut_corner": cut, "k1": float(rng.uniform(-0.08, 0.0))},
                 layout={"markers": True, "edge_terrain": int(rng.integers(1, 4)), "hills": int(rng.integers(0, 2))})


CONDITIONS: dict[str, Callable[[np.random.Generator], PhotoParams]] = {
    "baseline": baseline,
    "barrel": barrel,
    "steep": steep,
    "textured": textured,
    "uneven_light": uneven_light,
    "jpeg_small": jpeg_small,
    "ovals": ovals,
    "clusters": clusters,
    "overhang": overhang,
    "terrain": terrain,
    "markers": markers,
}
"""Every named condition, in the order the issue's table lists them (markers last)."""


def describe(name: str) -> str:
    doc = CONDITIONS[name].__doc__ or ""
    return doc.strip().splitlines()[0]
