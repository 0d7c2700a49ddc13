"""What stands on the table: bases with figures, terrain, printed markers; the room and the lamp.

A scene is laid out from a condition's parameters and a random generator; everything here is in
table millimetres (origin at the table's lower-left corner, x right, y away from the camera, z up,
the table's top at z = 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from benchmarks.photogen.textures import Colour

ROUND_MM = (25.0, 28.0, 32.0, 40.0, 50.0, 60.0, 80.0, 100.0)
ROUND_WEIGHTS = (0.18, 0.14, 0.26, 0.16, 0.10, 0.07, 0.06, 0.03)
OVAL_MM = ((60.0, 35.0), (75.0, 42.0), (90.0, 52.0), (105.0, 70.0), (120.0, 92.0), (170.0, 105.0))
OVAL_WEIGHTS = (0.24, 0.24, 0.2, 0.14, 0.11, 0.07)
UNIT_SIZES_MM = (25.0, 28.0, 32.0, 40.0)
"""Infantry bases: the sizes a unit in base-to-base contact is made of."""

TOP_COLOURS: dict[str, Colour] = {
    "white": (0.90, 0.90, 0.87),
    "sand": (0.76, 0.65, 0.46),
    "black": (0.07, 0.07, 0.07),
    "grey": (0.50, 0.50, 0.49),
    "brown": (0.38, 0.27, 0.17),
    "flock": (0.36, 0.46, 0.20),
}
TOP_TEXTURE = {"white": "paint", "sand": "sand", "black": "paint", "grey": "rocky", "brown": "sand", "flock": "flock", "mat": "mat"}
SIDE_COLOURS: dict[str, Colour] = {"black": (0.06, 0.06, 0.06), "brown": (0.26, 0.18, 0.11), "grey": (0.32, 0.32, 0.32)}

PALETTES: tuple[tuple[Colour, ...], ...] = (
    ((0.55, 0.08, 0.07), (0.75, 0.65, 0.25), (0.20, 0.20, 0.22)),
    ((0.10, 0.22, 0.50), (0.80, 0.80, 0.82), (0.60, 0.60, 0.62)),
    ((0.25, 0.35, 0.15), (0.45, 0.35, 0.22), (0.70, 0.55, 0.45)),
    ((0.85, 0.85, 0.80), (0.15, 0.15, 0.15), (0.65, 0.15, 0.10)),
    ((0.40, 0.10, 0.45), (0.85, 0.70, 0.30), (0.30, 0.30, 0.30)),
    ((0.80, 0.45, 0.10), (0.20, 0.20, 0.20), (0.75, 0.75, 0.75)),
)


@dataclass(frozen=True)
class Part:
    """One ellipsoid of a figure: centre (world mm), semi-axes (mm), rotation about z (rad), colour (sRGB)."""

    centre: tuple[float, float, float]
    axes: tuple[float, float, float]
    angle: float
    colour: Colour


@dataclass(frozen=True)
class Figure:
    parts: tuple[Part, ...]
    reach_mm: float
    """Horizontal distance from the base's centre to the figure's farthest point."""


@dataclass(frozen=True)
class BaseSpec:
    """A base: footprint centre (x, y) at elevation z, its shape, paint and figure."""

    id: str
    x: float
    y: float
    z: float
    shape: str
    length: float
    width: float
    rotation_deg: float
    """Direction of the length axis, degrees counter-clockwise from +x."""
    height: float
    bevel: float
    """Inset of the top's edge from the footprint's, mm (0: a straight cylinder)."""
    top: str
    top_colour: Colour
    texture: str
    side_colour: Colour
    rim_band: float
    """Width of a band at the top's edge painted in the side's colour, mm."""
    figure: Figure | None = None
    on_terrain: int | None = None
    across_edge: bool = False
    cluster: int | None = None

    @property
    def radius(self) -> float:
        """Bounding radius of the footprint."""
        return self.length / 2

    @property
    def axes(self) -> tuple[float, float]:
        return self.length / 2, self.width / 2

    @property
    def inset_frac(self) -> float:
        return self.bevel / (0.25 * (self.length + self.width))


@dataclass(frozen=True)
class Terrain:
    """A hill (elliptic frustum) or a building or wall (box), on the table."""

    kind: str
    x: float
    y: float
    rotation_deg: float
    size: tuple[float, float]
    """Semi-axes of a hill's foot, half-lengths of a box."""
    height: float
    inset: float
    """A hill's top is inset this much from its foot, mm."""
    top_colour: Colour
    side_colour: Colour
    texture: str

    @property
    def radius(self) -> float:
        return math.hypot(*self.size) if self.kind != "hill" else max(self.size)

    @property
    def inset_frac(self) -> float:
        return self.inset / (0.5 * (self.size[0] + self.size[1]))

    def top_axes(self) -> tuple[float, float]:
        f = 1.0 - self.inset_frac
        return self.size[0] * f, self.size[1] * f

    def covers(self, x: float, y: float, margin: float) -> bool:
        """Whether a disc of radius ``margin`` at (x, y) would touch this piece's foot."""
        a = math.radians(self.rotation_deg)
        lx = math.cos(a) * (x - self.x) + math.sin(a) * (y - self.y)
        ly = -math.sin(a) * (x - self.x) + math.cos(a) * (y - self.y)
        if self.kind == "hill":
            return (lx / (self.size[0] + margin)) ** 2 + (ly / (self.size[1] + margin)) ** 2 < 1.0
        return abs(lx) < self.size[0] + margin and abs(ly) < self.size[1] + margin


@dataclass(frozen=True)
class Marker:
    """A printed ArUco marker lying flat on the table: its black square's side, position and turn."""

    id: int
    centre: tuple[float, float]
    size_mm: float
    rotation_deg: float
    margin_mm: float
    bits: np.ndarray = field(repr=False, compare=False)
    """The marker's cells (1 white, 0 black), border included, row 0 at the printed top."""

    def corners_mm(self) -> np.ndarray:
        """The black square's corners in OpenCV's order: the printed top-left, top-right, bottom-right, bottom-left."""
        h = self.size_mm / 2
        local = np.array([[-h, h], [h, h], [h, -h], [-h, -h]])
        a = math.radians(self.rotation_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return local @ rot.T + np.array(self.centre)


@dataclass(frozen=True)
class Light:
    position: tuple[float, float, float]
    intensity: float
    """Irradiance scale: 1 gives unit irradiance at the table's centre."""
    colour: Colour
    ambient: float
    fill_direction: tuple[float, float, float]
    fill: float
    size_mm: float
    """The lamp's diameter: sets the softness of shadows."""
    gloss: float
    """Specular strength of the mat (neoprene sheen: lamp hotspot)."""
    shininess: float


@dataclass(frozen=True)
class Scene:
    table_mm: tuple[float, float]
    slab_thickness: float
    slab_colour: Colour
    table_height: float
    mat_kind: str
    floor_kind: str
    wall_gap: float
    wall_colour: Colour
    bases: tuple[BaseSpec, ...]
    terrain: tuple[Terrain, ...]
    markers: tuple[Marker, ...]
    light: Light


# ---------------------------------------------------------------------------------------------- layout


@dataclass(frozen=True)
class LayoutParams:
    """The layout knobs a condition sets (see conditions.py)."""

    table_mm: tuple[float, float] = (1219.2, 1219.2)
    bases: int = 26
    oval_fraction: float = 0.0
    clusters: int = 0
    cluster_size: tuple[int, int] = (5, 8)
    overhang: tuple[float, float] = (0.55, 0.85)
    """Reach of a figure as a fraction of its base's radius: below 1 stays over its base."""
    overhang_fraction: float = 0.0
    """Fraction of figures given a reach from ``overhang``; the rest stay within their base."""
    hills: int = 0
    buildings: int = 0
    walls: int = 0
    bases_on_terrain: int = 0
    edge_terrain: int = 0
    """Tall pieces placed against the table's edges (hiding them from the camera)."""
    markers: bool = False
    mat_top_weight: float = 2.0
    """Relative frequency of base tops painted in the mat's colour."""
    margin_mm: float = 25.0


def _pick(rng: np.random.Generator, items: tuple, weights: tuple[float, ...]):
    w = np.asarray(weights, float)
    return items[int(rng.choice(len(items), p=w / w.sum()))]


def _paint(rng: np.random.Generator, mat_mean: np.ndarray, mat_weight: float) -> tuple[str, Colour, str, Colour, float]:
    names = ("white", "sand", "black", "grey", "brown", "flock", "mat")
    top = _pick(rng, names, (1.0, 2.0, 1.0, 0.7, 1.0, 1.0, mat_weight))
    if top == "mat":
        colour = tuple(float(v) for v in np.clip(mat_mean * rng.uniform(0.9, 1.1, 3), 0, 1))
    else:
        colour = tuple(float(v) for v in np.clip(np.array(TOP_COLOURS[top]) * rng.uniform(0.92, 1.08, 3), 0, 1))
    side_kind = _pick(rng, ("black", "brown", "grey", "same", "mat"), (5, 1.5, 1, 2, 1.5))
    if side_kind == "same":
        side = tuple(float(v) * 0.85 for v in colour)
    elif side_kind == "mat":
        side = tuple(float(v) for v in mat_mean * 0.9)
    else:
        side = SIDE_COLOURS[side_kind]
    band = float(rng.uniform(0.5, 1.5)) if rng.random() < 0.35 else 0.0
    return top, colour, TOP_TEXTURE[top], side, band  # type: ignore[return-value]


def _figure(rng: np.random.Generator, base: BaseSpec, palette: tuple[Colour, ...], reach_frac: float, overhang: bool) -> Figure:
    """An irregular figure of ellipsoids standing on the base: legs, body, head, arms or lobes, maybe a weapon."""
    a, b = base.axes
    r = min(a, b)
    top_z = base.z + base.height
    size = r if base.shape == "round" else 0.5 * (a + b)
    tall = size * rng.uniform(1.6, 2.8) if size < 22 else size * rng.uniform(0.9, 1.5)
    main, second, third = (palette[i] for i in rng.permutation(3))
    skin = (0.80, 0.62, 0.50) if rng.random() < 0.5 else third
    local: list[tuple[float, float, float, float, float, float, float, Colour]] = []  # x, y, z, ax, ay, az, angle, colour
    if size < 26 and base.shape == "round":  # a trooper
        leg = tall * 0.22
        sep = r * 0.25
        for s in (-1, 1):
            local.append((s * sep, rng.uniform(-0.1, 0.1) * r, leg, r * 0.2, r * 0.22, leg * 1.02, 0.0, second))
        body_z = 2 * leg + tall * 0.16
        local.append((0.0, 0.0, body_z, r * 0.42, r * 0.32, tall * 0.2, rng.uniform(0, math.pi), main))
        local.append((rng.uniform(-0.1, 0.1) * r, rng.uniform(-0.1, 0.1) * r, body_z + tall * 0.3, r * 0.22, r * 0.22, r * 0.24, 0.0, skin))
        arm_angle = rng.uniform(0, 2 * math.pi)
        local.append((math.cos(arm_angle) * r * 0.45, math.sin(arm_angle) * r * 0.45, body_z + tall * 0.05,
                      r * 0.35, r * 0.12, r * 0.12, arm_angle, third))
        if rng.random() < 0.5:  # a cloak or pack
            local.append((0.0, -0.25 * r, body_z, r * 0.4, r * 0.2, tall * 0.22, 0.0, second))
    else:  # a monster, a vehicle, a rider: a lumpy body and lobes
        lobes = int(rng.integers(4, 9))
        body_h = tall * 0.35
        ang = math.radians(base.rotation_deg)
        local.append((0.0, 0.0, body_h * 1.1, a * 0.55, b * 0.55, body_h, ang, main))
        for _ in range(lobes):
            t = rng.uniform(0, 2 * math.pi)
            rad = rng.uniform(0.2, 0.5)
            lx, ly = a * rad * math.cos(t), b * rad * math.sin(t)
            lx, ly = lx * math.cos(ang) - ly * math.sin(ang), lx * math.sin(ang) + ly * math.cos(ang)
            s = rng.uniform(0.15, 0.3) * size
            local.append((lx, ly, rng.uniform(0.6, 2.2) * body_h, s, s * rng.uniform(0.7, 1.3), s * rng.uniform(0.7, 1.4),
                          rng.uniform(0, math.pi), second if rng.random() < 0.6 else third))
        local.append((rng.uniform(-0.2, 0.2) * a, rng.uniform(-0.2, 0.2) * b, tall * 0.8, size * 0.22, size * 0.2, size * 0.22, 0.0, skin))
    # How far each part reaches horizontally from the centre; scale the layout to the wanted reach.
    def reach(parts: list) -> float:
        return max(math.hypot(p[0], p[1]) + max(p[3], p[4]) for p in parts)

    weapon = -1
    if overhang:
        out = rng.uniform(0, 2 * math.pi)
        length = reach_frac * r
        width = r * rng.uniform(0.06, 0.14)
        # A weapon, a wing or an arm reaching out past the rim, somewhere up the figure.
        local.append((math.cos(out) * length * 0.5, math.sin(out) * length * 0.5, tall * rng.uniform(0.25, 0.7),
                      length * 0.5, width, width * 1.2, out, third))
        weapon = len(local) - 1
        scale = 1.0
    else:
        scale = min(1.0, reach_frac * r / reach(local))
    parts = []
    for i, (x, y, z, ax, ay, az, angle, colour) in enumerate(local):
        k = 1.0 if i == weapon else scale
        # Every part's bottom at or above the base's top: a figure stands on its base, it does not sink into it.
        cz = top_z + max(z, 0.8 * az)
        parts.append(Part((base.x + x * k, base.y + y * k, float(cz)), (max(ax * k, 0.8), max(ay * k, 0.8), max(az, 0.8)),
                          float(angle), tuple(float(v) * rng.uniform(0.9, 1.1) for v in colour)))  # type: ignore[misc]
    reach_mm = max(math.hypot(p.centre[0] - base.x, p.centre[1] - base.y) + max(p.axes[0], p.axes[1]) for p in parts)
    return Figure(tuple(parts), reach_mm)


class _Layout:
    def __init__(self, params: LayoutParams, rng: np.random.Generator, mat_mean: np.ndarray) -> None:
        self.p = params
        self.rng = rng
        self.mat_mean = mat_mean
        self.bases: list[BaseSpec] = []
        self.terrain: list[Terrain] = []
        self.palettes = [PALETTES[i] for i in rng.choice(len(PALETTES), 3, replace=False)]

    # -- terrain
    def place_terrain(self) -> None:
        rng, (w, d) = self.rng, self.p.table_mm
        kinds = ["hill"] * self.p.hills + ["building"] * self.p.buildings + ["wall"] * self.p.walls
        for kind in kinds:
            for _ in range(200):
                t = self._terrain_piece(kind, rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * d)
                if self._terrain_free(t, 30.0):
                    self.terrain.append(t)
                    break
        for k in range(self.p.edge_terrain):
            side = k % 4 if self.p.edge_terrain >= 4 else int(rng.choice([1, 2, 3]))  # right, far, left preferred
            for _ in range(200):
                kind = "building" if rng.random() < 0.6 else "hill"
                t = self._terrain_piece(kind, 0, 0)
                ext = t.size[1] if kind == "building" else t.size[1]
                along = rng.uniform(0.3, 0.7)
                gap = rng.uniform(0.0, 10.0)
                rot = 0.0
                if side == 0:
                    x, y = along * w, ext + gap
                elif side == 1:
                    x, y, rot = w - ext - gap, along * d, 90.0
                elif side == 2:
                    x, y = along * w, d - ext - gap
                else:
                    x, y, rot = ext + gap, along * d, 90.0
                t = Terrain(t.kind, x, y, rot, t.size, t.height, t.inset, t.top_colour, t.side_colour, t.texture)
                if self._terrain_free(t, 20.0):
                    self.terrain.append(t)
                    break

    def _terrain_piece(self, kind: str, x: float, y: float) -> Terrain:
        rng = self.rng
        if kind == "hill":
            a, b = rng.uniform(90, 190), rng.uniform(70, 140)
            h = rng.uniform(22, 55)
            inset = h / math.tan(math.radians(rng.uniform(38, 62)))
            top = tuple(float(v) for v in np.clip(self.mat_mean * rng.uniform(0.8, 1.15, 3), 0, 1)) if rng.random() < 0.5 else (0.40, 0.45, 0.25)
            side = (0.36, 0.28, 0.20) if rng.random() < 0.5 else (0.45, 0.43, 0.40)
            return Terrain("hill", x, y, rng.uniform(0, 180), (a, b), h, inset, top, side, "grass" if rng.random() < 0.6 else "rocky")  # type: ignore[arg-type]
        if kind == "building":
            stone = [(0.62, 0.58, 0.52), (0.50, 0.45, 0.40), (0.72, 0.68, 0.60), (0.45, 0.35, 0.30)][int(rng.integers(4))]
            return Terrain("building", x, y, rng.uniform(0, 90), (rng.uniform(40, 100), rng.uniform(35, 80)), rng.uniform(60, 170), 0.0,
                           (0.30, 0.22, 0.20), stone, "brick")
        return Terrain("wall", x, y, rng.uniform(0, 180), (rng.uniform(45, 100), rng.uniform(4, 8)), rng.uniform(35, 80), 0.0,
                       (0.45, 0.43, 0.40), (0.55, 0.52, 0.48), "brick")

    def _terrain_free(self, t: Terrain, gap: float) -> bool:
        w, d = self.p.table_mm
        r = t.radius
        if t.kind == "hill":
            ok_inside = all(0 <= v for v in (t.x - t.size[0], t.y - t.size[0], w - t.x - t.size[0], d - t.y - t.size[0]))
        else:
            c = _box_corners(t)
            ok_inside = bool(np.all(c[:, 0] >= -1e-6) and np.all(c[:, 0] <= w + 1e-6) and np.all(c[:, 1] >= -1e-6) and np.all(c[:, 1] <= d + 1e-6))
        return ok_inside and all(math.hypot(t.x - o.x, t.y - o.y) > r + o.radius + gap for o in self.terrain)

    # -- bases
    def _size(self, oval: bool) -> tuple[str, float, float]:
        if oval:
            length, width = _pick(self.rng, OVAL_MM, OVAL_WEIGHTS)
            return "oval", length, width
        d = _pick(self.rng, ROUND_MM, ROUND_WEIGHTS)
        return "round", d, d

    def _make_base(self, shape: str, length: float, width: float, x: float, y: float, z: float, **extra: object) -> BaseSpec:
        rng = self.rng
        top, colour, texture, side, band = _paint(rng, self.mat_mean, self.p.mat_top_weight)
        height = float(rng.uniform(3.0, 5.0))
        bevel = 0.0 if rng.random() < 0.2 else float(rng.uniform(0.6, min(2.5, 0.6 * height)))
        rotation = float(rng.uniform(0, 180)) if shape == "oval" else 0.0
        base = BaseSpec(f"b{len(self.bases) + 1}", x, y, z, shape, length, width, rotation, height, bevel, top, colour, texture,
                        side, band, None, **extra)  # type: ignore[arg-type]
        if rng.random() < 0.08:  # an empty base: an objective marker or a casualty
            return base
        over = rng.random() < self.p.overhang_fraction
        frac = float(rng.uniform(*self.p.overhang)) if over else float(rng.uniform(0.55, 0.85))
        palette = self.palettes[int(rng.integers(len(self.palettes)))]
        fig = _figure(rng, base, palette, frac, over and frac > 1.0)
        return BaseSpec(**{**base.__dict__, "figure": fig})

    def _free(self, x: float, y: float, r: float, gap: float, z: float = 0.0) -> bool:
        w, d = self.p.table_mm
        m = self.p.margin_mm
        if not (m + r <= x <= w - m - r and m + r <= y <= d - m - r):
            return False
        if z == 0.0 and any(t.covers(x, y, r + 3.0) for t in self.terrain):
            return False
        return all(math.hypot(x - b.x, y - b.y) >= r + b.radius + gap - 1e-9 for b in self.bases)

    def place_clusters(self) -> None:
        rng = self.rng
        for c in range(self.p.clusters):
            size = float(rng.choice(UNIT_SIZES_MM))
            r = size / 2
            n = int(rng.integers(self.p.cluster_size[0], self.p.cluster_size[1] + 1))
            members: list[BaseSpec] = []
            for _ in range(300):
                x, y = rng.uniform(0, self.p.table_mm[0]), rng.uniform(0, self.p.table_mm[1])
                if self._free(x, y, r + 2 * size, 8.0):
                    b = self._make_base("round", size, size, x, y, 0.0, cluster=c)
                    self.bases.append(b)
                    members.append(b)
                    break
            tries = 0
            while members and len(members) < n and tries < 400:
                tries += 1
                m = members[int(rng.integers(len(members)))]
                ang = rng.uniform(0, 2 * math.pi)
                gap = float(rng.uniform(0.0, 0.3))
                x, y = m.x + (m.radius + r + gap) * math.cos(ang), m.y + (m.radius + r + gap) * math.sin(ang)
                if self._free(x, y, r, 0.0):
                    b = self._make_base("round", size, size, x, y, 0.0, cluster=c)
                    self.bases.append(b)
                    members.append(b)

    def place_on_terrain(self) -> None:
        rng = self.rng
        hills = [i for i, t in enumerate(self.terrain) if t.kind == "hill"]
        roofs = [i for i, t in enumerate(self.terrain) if t.kind == "building"]
        for k in range(self.p.bases_on_terrain):
            if not hills and not roofs:
                return
            use_roof = bool(roofs) and (not hills or rng.random() < 0.2)
            ti = int(rng.choice(roofs if use_roof else hills))
            t = self.terrain[ti]
            for _ in range(100):
                d = float(rng.choice(UNIT_SIZES_MM[:3]))
                r = d / 2
                across = rng.random() < 0.5
                if t.kind == "hill":
                    ta, tb = t.top_axes()
                    phi = rng.uniform(0, 2 * math.pi)
                    px, py = ta * math.cos(phi), tb * math.sin(phi)
                    nx, ny = math.cos(phi) / ta, math.sin(phi) / tb
                    nn = math.hypot(nx, ny)
                    inside = r * rng.uniform(0.3, 0.6) if across else r + rng.uniform(1, 0.5 * min(ta, tb))
                    lx, ly = px - nx / nn * inside, py - ny / nn * inside
                    if (lx / ta) ** 2 + (ly / tb) ** 2 > 1:
                        continue
                else:
                    lx = rng.uniform(-1, 1) * max(0.0, t.size[0] - r - 3)
                    ly = rng.uniform(-1, 1) * max(0.0, t.size[1] - r - 3)
                    across = False
                    if t.size[0] < r + 3 or t.size[1] < r + 3:
                        break
                a = math.radians(t.rotation_deg)
                x = t.x + lx * math.cos(a) - ly * math.sin(a)
                y = t.y + lx * math.sin(a) + ly * math.cos(a)
                if all(math.hypot(x - b.x, y - b.y) >= r + b.radius + 2 for b in self.bases):
                    self.bases.append(self._make_base("round", d, d, x, y, t.height, on_terrain=ti, across_edge=across))
                    break

    def place_singles(self, count: int) -> None:
        rng = self.rng
        tries = 0
        while count > 0 and tries < 5000:
            tries += 1
            shape, length, width = self._size(rng.random() < self.p.oval_fraction)
            r = length / 2
            x, y = rng.uniform(0, self.p.table_mm[0]), rng.uniform(0, self.p.table_mm[1])
            if self._free(x, y, r, float(rng.uniform(4.0, 30.0))):
                self.bases.append(self._make_base(shape, length, width, x, y, 0.0))
                count -= 1


def _box_corners(t: Terrain) -> np.ndarray:
    a = math.radians(t.rotation_deg)
    c, s = math.cos(a), math.sin(a)
    hx, hy = t.size
    local = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    return local @ np.array([[c, s], [-s, c]]) + np.array([t.x, t.y])


def layout(params: LayoutParams, rng: np.random.Generator, mat_mean: np.ndarray) -> tuple[tuple[BaseSpec, ...], tuple[Terrain, ...], tuple[Marker, ...]]:
    """Bases (with figures), terrain and markers for one photo."""
    lay = _Layout(params, rng, mat_mean)
    lay.place_terrain()
    lay.place_on_terrain()
    markers = _markers(params, rng) if params.markers else ()
    if markers:
        # Keep bases off the printed markers.
        for m in markers:
            lay.bases.append(BaseSpec("_marker", m.centre[0], m.centre[1], 0, "round", m.size_mm * 1.6, m.size_mm * 1.6, 0, 0, 0,
                                      "white", (1, 1, 1), "paint", (0, 0, 0), 0))
    lay.place_clusters()
    lay.place_singles(max(0, params.bases - len(lay.bases)))
    bases = tuple(b for b in lay.bases if b.id != "_marker")
    bases = tuple(BaseSpec(**{**b.__dict__, "id": f"b{i + 1}"}) for i, b in enumerate(bases))
    return bases, tuple(lay.terrain), markers


MARKER_DICTIONARY = "DICT_4X4_50"
MARKER_SIZE_MM = 50.0
"""The black square's side as ``tabletop photo markers`` prints it (its sheet and this generator must agree)."""
MARKER_MARGIN_MM = 8.0
"""White paper from the black square to the sheet's cut line."""
MARKER_TURN_DEG = (0.0, 90.0, 180.0, 270.0)
"""How marker k (LL, LR, UR, UL) is turned on the table: its printed lower-left cut corner lies in the table's corner."""


def _markers(params: LayoutParams, rng: np.random.Generator) -> tuple[Marker, ...]:
    """Four markers cut out of the printed sheet, one in each corner of the table: the cut corner at the printed
    lower-left of marker k pushed into corner k (LL, LR, UR, UL), the sheet turned by up to 1.5 degrees about it (as a
    hand lays it)."""
    import cv2

    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, MARKER_DICTIONARY))
    w, d = params.table_mm
    size, margin = MARKER_SIZE_MM, MARKER_MARGIN_MM
    reach = margin + size / 2
    out = []
    for k, (cx, cy) in enumerate([(0.0, 0.0), (w, 0.0), (w, d), (0.0, d)]):
        rot = MARKER_TURN_DEG[k] + float(rng.uniform(-1.5, 1.5))
        a = math.radians(rot)
        # The paper's centre lies (reach, reach) from its printed lower-left corner in the marker's own frame.
        centre = (cx + math.cos(a) * reach - math.sin(a) * reach, cy + math.sin(a) * reach + math.cos(a) * reach)
        img = cv2.aruco.generateImageMarker(dictionary, k, 6)  # 4x4 cells + border = 6 cells, one pixel each
        out.append(Marker(k, centre, size, rot, margin, (img > 127).astype(np.uint8)))
    return tuple(out)
