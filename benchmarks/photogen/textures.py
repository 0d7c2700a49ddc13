"""Procedural textures: the mat printed on the table, the floor, paint and flock on base tops.

Colours are given as sRGB triples (0-1, as a painter would pick them) and returned *linear*
(the renderer works in linear light; the phone pipeline applies the tone curve).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

Colour = tuple[float, float, float]

MAT_KINDS = ("felt", "grass", "hex", "square", "rocky", "desert")
TEXTURED_MAT_KINDS = ("grass", "hex", "square", "rocky")


_LUT_SIZE = 4096
_S = np.linspace(0.0, 1.0, _LUT_SIZE, dtype=np.float64)
_LINEAR_BAND = 1 << 18
_LINEAR_LUT = np.where(_S <= 0.04045, _S / 12.92, ((_S + 0.055) / 1.055) ** 2.4).astype(np.float32)


def linear(c: Colour | np.ndarray) -> np.ndarray:
    """sRGB (0-1) to linear light (through a 12-bit table for images: a print has no finer steps)."""
    c = np.asarray(c, dtype=np.float32)
    if c.size > 4096:
        # _LINEAR_LUT[(clip(c, 0, 1) * (LUT size - 1) + 0.5) as int32], a band of values at a time (in the cache)
        flat = c.reshape(-1)
        out = np.empty(flat.size, np.float32)
        for i in range(0, flat.size, _LINEAR_BAND):
            x = np.clip(flat[i:i + _LINEAR_BAND], 0.0, 1.0)
            x *= _LUT_SIZE - 1
            x += 0.5
            out[i:i + _LINEAR_BAND] = _LINEAR_LUT[x.astype(np.int32)]
        return out.reshape(c.shape)
    c = np.clip(c, 0.0, 1.0)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).astype(np.float32)


def value_noise(shape: tuple[int, int], cell_px: float, rng: np.random.Generator) -> np.ndarray:
    """Smooth noise of unit spread with features about ``cell_px`` texels across (cubic-interpolated random grid)."""
    h, w = shape
    cell = max(1.0, cell_px)
    gh, gw = int(math.ceil(h / cell)) + 3, int(math.ceil(w / cell)) + 3
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    big = cv2.resize(grid, (int(gw * cell), int(gh * cell)), interpolation=cv2.INTER_CUBIC)
    oy, ox = int(rng.integers(0, max(1, int(cell)))), int(rng.integers(0, max(1, int(cell))))
    out = big[oy:oy + h, ox:ox + w]
    return out / max(float(out.std()), 1e-6)


def fbm(shape: tuple[int, int], cell_px: float, octaves: int, rng: np.random.Generator, gain: float = 0.5) -> np.ndarray:
    """Sum of value-noise octaves, each half the size of the last: unit spread.

    Summed on a grid coarse enough for the finest octave (4 texels per feature) and resized once.
    """
    k = max(1, int(cell_px / 2 ** (octaves - 1) / 4))
    small = (max(2, -(-shape[0] // k)), max(2, -(-shape[1] // k)))
    out = np.zeros(small, np.float32)
    amp = 1.0
    for i in range(octaves):
        out += amp * value_noise(small, cell_px / 2**i / k, rng)
        amp *= gain
    if k > 1:
        out = cv2.resize(out, (small[1] * k, small[0] * k), interpolation=cv2.INTER_CUBIC)[: shape[0], : shape[1]]
    return out / max(float(out[::4, ::4].std()), 1e-6)


def tileable_noise(n: int, cell_px: float, rng: np.random.Generator) -> np.ndarray:
    """Noise on an n x n torus (FFT-filtered white noise), unit spread: sampled anywhere with wrap-around."""
    white = rng.standard_normal((n, n)).astype(np.float32)
    k = np.fft.fftfreq(n)[:, None] ** 2 + np.fft.rfftfreq(n)[None, :] ** 2
    f = np.exp(-k * (math.pi * cell_px) ** 2 / 2)
    out = np.fft.irfft2(np.fft.rfft2(white) * f, s=(n, n)).astype(np.float32)
    return out / max(float(out.std()), 1e-6)


def sample(img: np.ndarray, u: np.ndarray, v: np.ndarray, interpolation: int = cv2.INTER_LINEAR,
           border: int = cv2.BORDER_REPLICATE, value: float = 0.0) -> np.ndarray:
    """``img`` at texel positions (u, v) (1-D arrays of any length): (m,) or (m, channels)."""
    m = u.size
    if m == 0:
        # No texel asked for (a surface no ray hit): cv2.remap refuses an empty map.
        channels = img.shape[2:] if img.ndim == 3 else ()
        return np.zeros((0, *channels), img.dtype)
    cols = 4096 if m > 4096 else max(m, 1)
    rows = -(-m // cols)
    out = cv2.remap(img, _remap_grid(u, rows, cols), _remap_grid(v, rows, cols), interpolation, borderMode=border, borderValue=value)
    return out.reshape(rows * cols, -1)[:m] if img.ndim == 3 else out.ravel()[:m]


def _remap_grid(a: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Texel coordinates ``a`` (any shape, m values) as a (rows, cols) float32 map, padded with zeros; ``a`` itself
    when it already is one (a float32 array of rows * cols values): no copy."""
    flat = a.ravel()
    if flat.size == rows * cols and flat.dtype == np.float32:
        return flat.reshape(rows, cols)
    grid = np.zeros(rows * cols, np.float32)
    grid[: flat.size] = flat
    return grid.reshape(rows, cols)


@dataclass(frozen=True)
class NoiseBank:
    """A few tileable noise images sampled at world millimetres (for small surfaces: base tops, figures, walls)."""

    fine: np.ndarray
    """Features ~0.3 mm: sand grains, flock."""
    medium: np.ndarray
    """~2 mm: paint and stone patches."""
    coarse: np.ndarray
    """~15 mm: wall plaster, shading variation."""
    texels_per_mm: float = 4.0

    @staticmethod
    def make(rng: np.random.Generator, n: int = 512) -> NoiseBank:
        return NoiseBank(tileable_noise(n, 1.2, rng), tileable_noise(n, 6.0, rng), tileable_noise(n, 40.0, rng))

    def sample(self, which: str, x_mm: np.ndarray, y_mm: np.ndarray, stretch: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
        """Noise ``which`` at world points (1-D arrays of mm)."""
        img: np.ndarray = getattr(self, which)
        n = img.shape[0]
        u = np.mod(np.asarray(x_mm, np.float32) * (self.texels_per_mm / stretch[0]), n)
        v = np.mod(np.asarray(y_mm, np.float32) * (self.texels_per_mm / stretch[1]), n)
        return sample(img, u, v, border=cv2.BORDER_WRAP)


MAT_COLOURS: dict[str, list[Colour]] = {
    "felt": [(0.28, 0.42, 0.22), (0.45, 0.42, 0.36), (0.33, 0.35, 0.37), (0.62, 0.55, 0.40), (0.20, 0.22, 0.20), (0.38, 0.30, 0.22)],
    "grass": [(0.30, 0.45, 0.18), (0.38, 0.48, 0.20), (0.27, 0.38, 0.20)],
    "hex": [(0.55, 0.50, 0.36), (0.34, 0.46, 0.24), (0.42, 0.42, 0.40)],
    "square": [(0.22, 0.27, 0.33), (0.40, 0.40, 0.38), (0.30, 0.40, 0.24)],
    "rocky": [(0.45, 0.42, 0.38), (0.50, 0.42, 0.33), (0.36, 0.36, 0.36)],
    "desert": [(0.72, 0.60, 0.42), (0.66, 0.52, 0.36)],
}


def make_mat(kind: str, size_mm: tuple[float, float], px_per_mm: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The mat as a linear-light float32 image (rows from the far edge, y = depth, down to y = 0) and its mean colour (sRGB)."""
    w, h = int(round(size_mm[0] * px_per_mm)), int(round(size_mm[1] * px_per_mm))
    shape = (h, w)
    s = px_per_mm
    base = np.array(MAT_COLOURS[kind][int(rng.integers(len(MAT_COLOURS[kind])))], np.float32)
    grain = rng.standard_normal(shape).astype(np.float32)  # per texel: printed or woven grain
    if kind == "felt":
        mottle = fbm(shape, 150 * s, 3, rng)
        img = np.empty((*shape, 3), np.float32)
        for rows in _bands(shape[0]):
            img[rows] = base[None, None, :] * (1.0 + 0.035 * mottle[rows] + 0.025 * grain[rows])[..., None]
    elif kind in ("grass", "hex", "desert"):
        patches = fbm(shape, 120 * s, 4, rng)
        detail = fbm(shape, 3 * s, 2, rng)
        dry = np.clip(0.5 + 0.6 * patches, 0, 1)[..., None]
        if kind == "desert" or (kind == "hex" and base[0] > 0.5):
            other = base * np.array([1.08, 1.05, 0.95], np.float32)
        else:
            other = np.array([0.55, 0.52, 0.28], np.float32)
        mix = 0.45 if kind == "grass" else 0.25
        flock = 0.16 if kind == "grass" else 0.05
        speckle = 0.10 if kind == "grass" else 0.04
        img = np.empty((*shape, 3), np.float32)
        for rows in _bands(shape[0]):
            img[rows] = base[None, None, :] * (1 - mix * dry[rows]) + other[None, None, :] * mix * dry[rows]
            img[rows] *= (1.0 + flock * grain[rows] + speckle * detail[rows])[..., None]
        if kind == "grass":
            dirt = fbm(shape, 60 * s, 3, rng) > 1.6
            img[dirt] = img[dirt] * 0.4 + np.array([0.38, 0.28, 0.18], np.float32) * 0.6
            specks = rng.random(shape) < 0.02
            img[specks] *= 0.55
    elif kind == "square":
        mottle = fbm(shape, 200 * s, 3, rng)
        img = np.empty((*shape, 3), np.float32)
        for rows in _bands(shape[0]):
            img[rows] = base[None, None, :] * (1.0 + 0.05 * mottle[rows] + 0.03 * grain[rows])[..., None]
    else:  # rocky
        rock = fbm(shape, 40 * s, 5, rng)
        ridges = np.abs(fbm(shape, 90 * s, 4, rng))
        img = np.empty((*shape, 3), np.float32)
        for rows in _bands(shape[0]):
            img[rows] = base[None, None, :] * (1.0 + 0.18 * rock[rows] + 0.06 * grain[rows])[..., None]
            crack = np.clip(1.0 - ridges[rows] / 0.08, 0, 1)
            img[rows] *= (1.0 - 0.55 * crack)[..., None]
        _pebbles(img, s, rng, count=int(size_mm[0] * size_mm[1] / 4000))
    img8 = np.clip(img, 0, 1, out=img)
    if kind == "hex":
        _hex_grid(img8, s, rng)
    elif kind == "square":
        _square_grid(img8, s, rng)
    mean = _column_means(img8.reshape(-1, 3))
    return linear(img8), mean


def _bands(height: int, rows: int = 64) -> list[slice]:
    """Slices of ``rows`` rows covering ``height``: a mat's per-texel arithmetic a band at a time stays in the cache
    (each texel is computed on its own, so the mat is the same to the bit)."""
    return [slice(r0, min(height, r0 + rows)) for r0 in range(0, height, rows)]


def _column_means(rows: np.ndarray) -> np.ndarray:
    """``rows.mean(axis=0)`` of an (n, 3) float32 array, to the bit: numpy sums each column row after row in float32,
    then divides by n. Summed here one contiguous column at a time (numpy's own walk goes three values per step)."""
    column = np.empty(rows.shape[0], np.float32)
    total = np.empty(rows.shape[1], np.float32)
    for j in range(rows.shape[1]):
        column[...] = rows[:, j]
        total[j] = np.add.accumulate(column, out=column)[-1]
    return total / rows.shape[0]


def _hex_grid(img: np.ndarray, s: float, rng: np.random.Generator) -> None:
    """Printed hex lines (flat-to-flat 1.5-2 inch) drawn anti-aliased over the print."""
    flat = float(rng.choice([38.1, 44.45, 50.8])) * s
    side = flat / math.sqrt(3)
    h, w = img.shape[:2]
    ink = tuple(float(v) for v in np.clip(_column_means(img.reshape(-1, 3)) * 0.45, 0, 1))
    lines = []
    ox, oy = rng.uniform(0, 3 * side), rng.uniform(0, flat)
    for col in range(int(w / (1.5 * side)) + 3):
        cx = ox + col * 1.5 * side - 2 * side
        shift = (col % 2) * flat / 2
        for row in range(int(h / flat) + 3):
            cy = oy + row * flat + shift - flat
            pts = [(cx + side * math.cos(math.radians(60 * k)), cy + side * math.sin(math.radians(60 * k))) for k in range(7)]
            lines.append(np.array(pts, np.float64))
    shift_bits = 4
    poly = [np.round(p * (1 << shift_bits)).astype(np.int32) for p in lines]
    cv2.polylines(img, poly, False, ink, thickness=max(1, int(round(0.6 * s))), lineType=cv2.LINE_AA, shift=shift_bits)


def _square_grid(img: np.ndarray, s: float, rng: np.random.Generator) -> None:
    pitch = float(rng.choice([25.4, 50.8])) * s
    h, w = img.shape[:2]
    ink = tuple(float(v) for v in np.clip(_column_means(img.reshape(-1, 3)) * 1.9, 0, 1))
    shift_bits = 4
    x = rng.uniform(0, pitch)
    while x < w:
        cv2.line(img, (int(x * 16), 0), (int(x * 16), h * 16), ink, max(1, int(round(0.5 * s))), cv2.LINE_AA, shift_bits)
        x += pitch
    y = rng.uniform(0, pitch)
    while y < h:
        cv2.line(img, (0, int(y * 16)), (w * 16, int(y * 16)), ink, max(1, int(round(0.5 * s))), cv2.LINE_AA, shift_bits)
        y += pitch


def _pebbles(img: np.ndarray, s: float, rng: np.random.Generator, count: int) -> None:
    h, w = img.shape[:2]
    for _ in range(count):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        a, b = rng.uniform(1.5, 6) * s, rng.uniform(1.0, 4) * s
        tone = float(rng.uniform(0.7, 1.25))
        c = tuple(float(v) for v in np.clip(img[int(cy) % h, int(cx) % w] * tone, 0, 1))
        cv2.ellipse(img, ((cx, cy), (2 * a, 2 * b), float(rng.uniform(0, 180))), c, -1, cv2.LINE_AA)
        dark = tuple(float(v) * 0.6 for v in c)
        cv2.ellipse(img, ((cx, cy + 0.35 * b), (2 * a, 2 * b), 0), dark, max(1, int(s * 0.4)), cv2.LINE_AA)


def make_floor(kind: str, rng: np.random.Generator, size: int = 2048) -> np.ndarray:
    """A floor tile (1 texel per mm, wraps), linear light: wooden planks, tiles or carpet."""
    shape = (size, size)
    if kind == "planks":
        wood = np.array(rng.choice([(0.55, 0.38, 0.22), (0.70, 0.55, 0.38), (0.35, 0.24, 0.15)]), np.float32)
        img = np.empty((size, size, 3), np.float32)
        plank_w = int(rng.integers(100, 180))
        grain = cv2.resize(rng.standard_normal((size, size // 64)).astype(np.float32), (size, size), interpolation=cv2.INTER_CUBIC)
        grain = grain.T  # streaks along x
        for y0 in range(0, size, plank_w):
            img[y0:y0 + plank_w] = wood * float(rng.uniform(0.82, 1.15))
        img *= (1.0 + 0.10 * grain[:size, :size])[..., None]
        for y0 in range(0, size, plank_w):
            img[y0:y0 + 2] *= 0.45
    elif kind == "tiles":
        c = np.array(rng.choice([(0.75, 0.73, 0.70), (0.45, 0.43, 0.42), (0.62, 0.52, 0.42)]), np.float32)
        img = np.broadcast_to(c, (size, size, 3)).copy() * (1.0 + 0.04 * fbm(shape, 60, 3, rng))[..., None]
        pitch = 256
        img[::pitch] *= 0.5
        img[:, ::pitch] *= 0.5
    else:  # carpet
        c = np.array(rng.choice([(0.40, 0.36, 0.33), (0.25, 0.28, 0.35), (0.45, 0.20, 0.18)]), np.float32)
        img = np.broadcast_to(c, (size, size, 3)).copy() * (1.0 + 0.12 * rng.standard_normal(shape).astype(np.float32)
                                                             + 0.05 * fbm(shape, 200, 2, rng))[..., None]
    return linear(np.clip(img, 0, 1))
