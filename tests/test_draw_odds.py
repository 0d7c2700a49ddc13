"""``draw_odds``: the heat map, the landing points, the labels and the legend, headless."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pygame
import pytest

from tabletop.draw_odds import disc_radius, draw_odds, heat_colour, heat_grid, model_label, percent
from tabletop.odds import OddsResult, compute_odds
from tabletop.scenario_io import load
from tabletop.viewport import Viewport

ROOT = Path(__file__).resolve().parent.parent
SCATTER = ROOT / "scenarios" / "robotech-scatter.toml"
BACKGROUND = (40, 70, 45)
INCH = 25.4


@pytest.fixture(scope="module")
def scatter_odds() -> OddsResult:
    return compute_odds(load(SCATTER), keep_fixed_rolls=False)


def _canvas(odds: OddsResult, size: tuple[int, int] = (900, 700)) -> tuple[pygame.Surface, Viewport]:
    pygame.font.init()
    surface = pygame.Surface(size)
    surface.fill(BACKGROUND)
    t = odds.scenario.table
    return surface, Viewport.fit(t.width, t.depth, (0, 0, *size), 20)


def _px(surface: pygame.Surface, vp: Viewport, world: tuple[float, float]) -> tuple[int, int, int]:
    x, y = vp.to_screen(*world)
    return tuple(surface.get_at((round(x), round(y))))[:3]  # type: ignore[return-value]


def test_scatter_heat_map_and_landing_points_are_drawn(scatter_odds: OddsResult) -> None:
    surface, vp = _canvas(scatter_odds)
    draw_odds(surface, vp, scatter_odds.scenario, scatter_odds, legend=False)
    blast = scatter_odds.template("blast")
    aim = blast.landings[0][0].focus  # the most likely landing: a hit, on the target's centre
    assert blast.landings[0][1] == pytest.approx(0.5)
    # The aim point is under the template half the time and more: strongly shaded.
    assert _px(surface, vp, aim) != BACKGROUND
    # Every scatter landing point shows (a disc at least DISC_MIN_PX across), off the labels.
    changed = sum(_px(surface, vp, (x, y)) != BACKGROUND for x, y, _p in blast.landing_points)
    assert changed == len(blast.landing_points) == 67
    # Along a scatter direction, 13" from the aim (past the 12" maximum + template radius) nothing is drawn.
    far = (aim[0] - 16 * INCH, aim[1])
    assert _px(surface, vp, far) == BACKGROUND
    # The heat map is one translucent tint: a point 8" out along direction 4 (west) is tinted, not painted over.
    west = (aim[0] - 8 * INCH, aim[1] + 1.5 * INCH)
    r, g, b = _px(surface, vp, west)
    assert (r, g, b) != BACKGROUND and r > BACKGROUND[0]
    # Exactly the heat colour of its chance over the background, at alpha 185 * sqrt(p): within the
    # blends of the 3 x 3 heat cells around it (the field is smooth-scaled to the screen).
    field = heat_grid(scatter_odds)
    assert field is not None
    (x0, y0, x1, y1), grid = field
    nx, ny = grid.shape
    i, j = int((west[0] - x0) / (x1 - x0) * nx), int((west[1] - y0) / (y1 - y0) * ny)
    blends = []
    for p in grid[i - 1 : i + 2, j - 1 : j + 2].ravel():
        a = min(185.0, 185.0 * math.sqrt(max(0.0, min(1.0, p)))) / 255.0
        heat = heat_colour(float(p))
        blends.append([bg + (h - bg) * a for bg, h in zip(BACKGROUND, heat)])
    lo, hi = np.min(blends, axis=0), np.max(blends, axis=0)
    assert all(lo[k] - 2 <= (r, g, b)[k] <= hi[k] + 2 for k in range(3)), ((r, g, b), lo, hi)


def test_heat_grid_matches_the_odds_heat(scatter_odds: OddsResult) -> None:
    field = heat_grid(scatter_odds)
    assert field is not None
    (x0, y0, x1, y1), grid = field
    nx, ny = grid.shape
    aim = scatter_odds.template("blast").landings[0][0].focus
    i = int((aim[0] - x0) / (x1 - x0) * nx)
    j = int((aim[1] - y0) / (y1 - y0) * ny)
    cx = x0 + (i + 0.5) * (x1 - x0) / nx
    cy = y0 + (j + 0.5) * (y1 - y0) / ny
    assert grid[i, j] == pytest.approx(float(scatter_odds.template("blast").heat([(cx, cy)])[0]))
    assert 0.5 <= grid.max() <= 1.0


def test_labels_give_chance_and_expected_damage(scatter_odds: OddsResult) -> None:
    s = scatter_odds.scenario
    blast = scatter_odds.template("blast")
    m = blast.models["pod1"]
    label = model_label(s, scatter_odds, "pod1")
    assert label == [f"{percent(m.p_affected)} · {m.expected_damage:.1f} MD"]
    assert model_label(s, scatter_odds, "destroid") == []  # the firer: never affected, no label
    # The label is drawn near the base: above it, the box's border is on screen.
    surface, vp = _canvas(scatter_odds)
    before = pygame.surfarray.array3d(surface).copy()
    draw_odds(surface, vp, s, scatter_odds, legend=False)
    after = pygame.surfarray.array3d(surface)
    pod = s.model("pod1")
    cx, cy = (round(v) for v in vp.to_screen(pod.x, pod.y))
    r = round(vp.length_to_screen(pod.base.bounding_radius))
    above = np.any(before[cx - 20 : cx + 20, cy - r - 30 : cy - r - 6] != after[cx - 20 : cx + 20, cy - r - 30 : cy - r - 6])
    assert above


def test_no_damage_rulesets_show_chance_only() -> None:
    odds = compute_odds(load(ROOT / "scenarios" / "infinity-hellcat.toml"))
    s = odds.scenario
    assert model_label(s, odds, "fus1") == ["shot1 100%", "shot2 100%"]  # two templates: prefixed
    assert heat_grid(odds) is None  # nothing can move: no heat field, only the landing dots
    surface, vp = _canvas(odds)
    draw_odds(surface, vp, s, odds)
    # A single landing is a small ring (no disc over the models it lands on).
    x, y = vp.to_screen(*odds.templates[0].landing_points[0][:2])
    assert tuple(surface.get_at((round(x) + 6, round(y))))[:3] != BACKGROUND


def test_legend_is_drawn_in_the_chosen_corner(scatter_odds: OddsResult) -> None:
    surface, vp = _canvas(scatter_odds)
    surface.fill(BACKGROUND)
    vp = Viewport((-10_000.0, -10_000.0), vp.scale, vp.rect)  # looking far off the table: only the legend
    draw_odds(surface, vp, scatter_odds.scenario, scatter_odds, note="dice free", legend_corner="topright")
    w, h = surface.get_size()
    assert tuple(surface.get_at((w - 30, 64 + 20)))[:3] != BACKGROUND
    assert tuple(surface.get_at((30, h - 30)))[:3] == BACKGROUND


@pytest.mark.parametrize(("p", "text"), [(1.0, "100%"), (0.999, ">99%"), (0.63, "63%"), (0.004, "<1%"), (0.0, "<1%")])
def test_percent(p: float, text: str) -> None:
    assert percent(p) == text


def test_disc_area_grows_with_the_chance() -> None:
    assert disc_radius(0.5) ** 2 == pytest.approx(2 * disc_radius(0.25) ** 2)
    assert disc_radius(1e-6) == 2.5  # DISC_MIN_PX: the least likely landing point still shows
    assert (disc_radius(1.0), disc_radius(0.25)) == (30.0, 15.0)  # DISC_PX_AT_1 * sqrt(p)
    assert math.isfinite(disc_radius(0.0))
