"""The scenario's backdrop photo in the app: rectified once per image and corners, opacity, on/off.

OpenCV is loaded here only when a scenario with a ``[backdrop]`` is drawn (``tabletop.photo``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pygame

from tabletop.draw.backdrop import BackdropLayer
from tabletop.model import Scenario
from tabletop.scenario_io import backdrop_path

#: The rectified image's longest side in pixels: about a photo's own resolution on a 4' table
#: (4000 px over 1219 mm is 3.3 px/mm), and 27 MB of pixels.
MAX_SIDE_PX = 3000
OPACITY_STEP = 0.1


def rectified_rgb(image: Path, corners: Any, table_mm: tuple[float, float], max_side: int = MAX_SIDE_PX) -> np.ndarray:
    """The table seen from above as RGB (row 0 = far edge), at the photo's own scale or ``max_side``.

    Raises ``tabletop.photo.values.PhotoError`` for a photo that cannot be read.
    """
    from tabletop.photo.imageio import load_image, to_working
    from tabletop.photo.rectify import rectify

    loaded = load_image(image)
    work = to_working(np.asarray(corners, dtype=float), loaded.scale)
    c = [(float(x), float(y)) for x, y in work]
    w, d = table_mm
    # The photo's own resolution along the table's longest edge, capped.
    edge_px = max(np.linalg.norm(work[1] - work[0]), np.linalg.norm(work[2] - work[3])) / w
    edge_px = max(edge_px, np.linalg.norm(work[3] - work[0]) / d, np.linalg.norm(work[2] - work[1]) / d)
    px_per_mm = float(min(max(edge_px, 0.25), max_side / max(w, d)))
    top_down = rectify(loaded.pixels, (c[0], c[1], c[2], c[3]), (w, d), px_per_mm).image
    return np.ascontiguousarray(top_down[:, :, ::-1])


def rgb_surface(rgb: np.ndarray) -> pygame.Surface:
    """A pygame Surface of an (h, w, 3) uint8 RGB array."""
    h, w = rgb.shape[:2]
    surface = pygame.image.frombuffer(np.ascontiguousarray(rgb, dtype=np.uint8).tobytes(), (w, h), "RGB")
    return surface.convert() if pygame.display.get_surface() is not None else surface.copy()


@dataclass
class Backdrops:
    """The app's backdrop: shown or not, how opaque, and the rectified image of the last key."""

    visible: bool = True
    opacity: float = 1.0
    _key: tuple[object, ...] | None = None
    _layer: BackdropLayer | None = None
    error: str | None = None
    _errors_said: set[tuple[object, ...]] = field(default_factory=set)

    def key_for(self, scenario: Scenario, scenario_path: str | None) -> tuple[object, ...] | None:
        b = scenario.backdrop
        if b is None:
            return None
        image = backdrop_path(b, scenario_path)
        if image is None:
            return None
        try:
            mtime = os.stat(image).st_mtime_ns
        except OSError:
            mtime = None
        return (str(image), mtime, b.corners, scenario.table.width, scenario.table.depth)

    def layer(self, scenario: Scenario, scenario_path: str | None) -> BackdropLayer | None:
        """The layer to draw now (None: no backdrop, hidden, or unreadable — ``error`` says why)."""
        if not self.visible:
            return None
        key = self.key_for(scenario, scenario_path)
        if key is None:
            self.error = None
            return None
        if key != self._key:
            self._key, self._layer, self.error = key, None, None
            image = Path(str(key[0]))
            if key[1] is None:
                self.error = f"backdrop {scenario.backdrop.image if scenario.backdrop else image}: not found"
            else:
                try:
                    rgb = rectified_rgb(image, scenario.backdrop.corners if scenario.backdrop else (), (scenario.table.width, scenario.table.depth))
                    self._layer = BackdropLayer(rgb_surface(rgb), (scenario.table.width, scenario.table.depth), self.opacity)
                except Exception as exc:  # noqa: BLE001 - a bad photo is a note in the status bar, never a crash
                    self.error = f"backdrop {image.name}: {exc}"
        if self._layer is not None:
            self._layer.opacity = self.opacity
        return self._layer

    def new_error(self) -> str | None:
        """The error of the current key, once."""
        if self.error is None or self._key is None or self._key in self._errors_said:
            return None
        self._errors_said.add(self._key)
        return self.error

    def step_opacity(self, delta: float) -> float:
        self.opacity = round(min(1.0, max(0.1, self.opacity + delta)), 2)
        return self.opacity
