"""What a drawn frame holds in screen pixels: the labels placed, the bases, the docked overlays.
Pure: no pygame.

``draw_scene`` returns a :class:`Frame`; the app passes its ``layout`` back as ``previous`` while
dragging (labels do not jump), and later layers (the hover tooltip, the odds labels and legend, the
app's side view and hints) keep clear of what it holds. ``tabletop render --layout-json`` writes
:meth:`Frame.to_json`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from tabletop.label_layout import BaseMark, Layout, Overlay, Placement, Rect, dock_overlays, layout_json


@dataclass(frozen=True)
class Frame:
    """One frame's text and obstacles, in screen px.

    ``layout``: the table's labels (names, titles, badges, banners...). ``bases``: every base on
    screen. ``overlays``: docked panels drawn (title, legend, hidden-label pill...), by id.
    ``regions``: other fixed pixels labels avoid (the rulers). ``extra``: labels laid out over the
    frame afterwards (the hover tooltip, odds labels), ``extra_hidden`` those of them dropped.
    ``owners``: label id -> the model whose hover brings it back.
    """

    size: tuple[int, int]
    layout: Layout = field(default_factory=lambda: Layout(()))
    bases: tuple[BaseMark, ...] = ()
    overlays: Mapping[str, Rect] = field(default_factory=dict)
    regions: tuple[Rect, ...] = ()
    extra: tuple[Placement, ...] = ()
    extra_hidden: tuple[str, ...] = ()
    owners: Mapping[str, str] = field(default_factory=dict)

    @property
    def placements(self) -> tuple[Placement, ...]:
        """Every label drawn, table labels first."""
        return self.layout.placements + self.extra

    @property
    def hidden(self) -> tuple[str, ...]:
        """Ids of the labels not drawn for lack of room (one brought back by a hover is not hidden)."""
        back = {p.id for p in self.extra}
        out = [h for h in self.layout.hidden if h not in back]
        return tuple(out + [h for h in self.extra_hidden if h not in out])

    def owner_at(self, x: float, y: float) -> str | None:
        """The model whose label (its name, a badge of its ruling, its tooltip) is drawn over screen (x, y), the one drawn
        last first: a click on what is drawn as a base's is a click on that base."""
        for p in reversed(self.placements):
            owner = self.owners.get(p.id)
            if owner is not None:
                rx, ry, rw, rh = p.rect
                if rx <= x < rx + rw and ry <= y < ry + rh:
                    return owner
        return None

    def taken(self) -> list[Rect]:
        """Every rect a later label or panel must keep off: labels, overlays and regions."""
        return [p.rect for p in self.placements] + list(self.overlays.values()) + list(self.regions)

    def base_boxes(self) -> np.ndarray:
        """(N, 4) x0, y0, x1, y1 boxes of the bases."""
        if not self.bases:
            return np.zeros((0, 4))
        return np.array([b.box for b in self.bases], dtype=float)

    def adding(self, placements: Iterable[Placement] = (), hidden: Iterable[str] = (), overlays: Mapping[str, Rect] | None = None) -> Frame:
        """This frame with more labels (and hidden ids, and overlays) laid over it."""
        more = dict(self.overlays)
        more.update(overlays or {})
        return replace(self, extra=self.extra + tuple(placements), extra_hidden=self.extra_hidden + tuple(hidden), overlays=more)

    def dock(self, overlays: Sequence[Overlay], table: Sequence[float] | None = None, canvas: Sequence[float] | None = None, margin: int = 8) -> dict[str, Rect | None]:
        """Where panels drawn over this frame go: never over a base, a label or another panel."""
        area = canvas if canvas is not None else (0, 0, *self.size)
        return dock_overlays(area, table if table is not None else area, self.base_boxes(), overlays, margin=margin, avoid=self.taken())

    def to_json(self) -> dict[str, Any]:
        """The ``render --layout-json`` document (see :func:`tabletop.label_layout.layout_json`)."""
        return layout_json(self.size, self.placements, self.bases, len(self.hidden))
