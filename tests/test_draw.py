"""Drawing: every scenario renders, statuses land in the right colours, odd cases do not crash."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pygame
import pytest

from tabletop import scenario_io
from tabletop.adjudicate import Adjudication, adjudicate
from tabletop.draw import DrawOptions, draw_scene, render_png, side_colour, status_colour
from tabletop.resolution import Step
from tabletop.viewport import Viewport

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"

SMALL = """
format = 1
title = "Draw test"
units = "in"

[table]
width = 24
depth = 16

[[model]]
id = "hit"
side = "red"
x = 6
y = 8
base = "25mm"

[[model]]
id = "miss"
side = "blue"
x = 18
y = 8
base = "25mm"

[[template]]
id = "t1"
shape = {kind = "circle", diameter = 5}
at = [5, 9.5]
"""


@pytest.fixture(autouse=True)
def _fonts() -> None:
    pygame.font.init()


def _adj(text: str) -> Adjudication:
    return adjudicate(scenario_io.loads(text))


def _surface_and_view(adj: Adjudication, size: tuple[int, int] = (800, 600)) -> tuple[pygame.Surface, Viewport]:
    table = adj.scenario.table
    return pygame.Surface(size), Viewport.fit(table.width, table.depth, (0, 0, *size))


def _loadable() -> list[Path]:
    return sorted(SCENARIOS.glob("*.toml"))


@pytest.mark.parametrize("path", _loadable(), ids=lambda p: p.name)
def test_every_scenario_renders(path: Path, tmp_path: Path) -> None:
    try:
        adj = adjudicate(scenario_io.load(path))
    except Exception as exc:  # a scenario another developer is still writing
        pytest.skip(f"{path.name} does not load/adjudicate yet: {exc}")
    out = tmp_path / f"{path.stem}.png"
    render_png(adj, out, size=(800, 500))
    assert out.is_file() and out.stat().st_size > 1000
    assert pygame.image.load(str(out)).get_size() == (800, 500)


def test_status_colours_at_base_centres(tmp_path: Path) -> None:
    adj = _adj(SMALL)
    models = adj.results[0].resolution.coverage.models
    assert models["hit"].status == "affected" and models["miss"].status == "outside"
    surface, vp = _surface_and_view(adj)
    draw_scene(surface, vp, adj, DrawOptions(show_legend=False))  # the legend box may sit over the table
    for model_id, status in (("hit", "affected"), ("miss", "outside")):
        m = adj.scenario.model(model_id)
        x, y = vp.to_screen(m.x, m.y)
        assert tuple(surface.get_at((round(x), round(y))))[:3] == status_colour(status)

    out = tmp_path / "small.png"
    render_png(adj, out, size=(900, 600), options=DrawOptions(show_legend=False, show_title=False))
    image = pygame.image.load(str(out))
    assert image.get_size() == (900, 600)


def test_colours_are_distinct_and_stable() -> None:
    colours = {status_colour(s) for s in ("affected", "total_cover", "outside", "user")}
    assert len(colours) == 4
    assert side_colour("Orks") == side_colour("Orks")
    assert side_colour("red") != side_colour("blue")
    assert side_colour(None) == side_colour("")


KINDS = {
    "circle": '{kind = "circle", diameter = 3}',
    "teardrop": '{kind = "teardrop", length = 8, tip_width = 0.6, end_width = 2.5}',
    "rect": '{kind = "rect", length = 6, width = 1}',
    "cone": '{kind = "cone", length = 6, angle = 60}',
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_template_kind_draws(kind: str) -> None:
    text = SMALL.replace('{kind = "circle", diameter = 5}', KINDS[kind]) + """
[[terrain]]
id = "house"
points = [[8, 8.5], [9, 8.5], [9, 10.5], [8, 10.5]]

[[model]]
id = "oval"
x = 12
y = 12
facing = 30
base = {shape = "oval", length = "60mm", width = "35mm"}
"""
    adj = _adj(text)
    surface, vp = _surface_and_view(adj)
    draw_scene(surface, vp, adj)
    draw_scene(surface, vp.zoomed(40, (400, 300)), adj, DrawOptions(selected="t1", hovered="oval"))


def test_buried_focus_draws() -> None:
    text = SMALL + """
[[terrain]]
id = "bunker"
name = "Bunker"
points = [[4, 8.5], [7, 8.5], [7, 11], [4, 11]]
"""
    adj = _adj(text)
    visible = adj.results[0].resolution.coverage.visible
    assert visible is not None and visible.buried
    assert visible.outer.geom_type == "Point"
    surface, vp = _surface_and_view(adj)
    draw_scene(surface, vp, adj)


def test_empty_table_draws(tmp_path: Path) -> None:
    adj = _adj('format = 1\n[table]\nwidth = 48\ndepth = 48\n')
    surface, vp = _surface_and_view(adj)
    draw_scene(surface, vp, adj, DrawOptions(selected="nothing", hovered="nothing"))
    render_png(adj, tmp_path / "empty.png")
    assert (tmp_path / "empty.png").is_file()


def test_selected_and_hovered_draw_on_top() -> None:
    text = SMALL.replace('at = [5, 9.5]', 'at = [5, 8]').replace("x = 6\n", "x = 7.9921\n")
    adj = _adj(text)
    assert adj.results[0].resolution.coverage.models["hit"].contested
    surface, vp = _surface_and_view(adj)
    draw_scene(surface, vp, adj)
    plain = surface.copy()
    draw_scene(surface, vp, adj, DrawOptions(selected="miss", hovered="hit"))
    # Selection ring around "miss" changes pixels just outside its base.
    m = adj.scenario.model("miss")
    x, y = vp.to_screen(m.x, m.y)
    r = m.base.length / 2 * vp.scale
    ring = [(round(x + r + d), round(y)) for d in range(3, 9)]
    assert any(surface.get_at(p) != plain.get_at(p) for p in ring)
    # Clearing the marks gives back the plain picture (the cached layer is reused).
    draw_scene(surface, vp, adj)
    assert pygame.image.tobytes(surface, "RGB") == pygame.image.tobytes(plain, "RGB")


def test_not_allowed_scatter_and_extra_templates_draw() -> None:
    adj = _adj(SMALL)
    result = adj.results[0]
    res = result.resolution
    moved = dataclasses.replace(res.placed, focus=(res.placed.focus[0] + 40, res.placed.focus[1] - 20))
    res = dataclasses.replace(
        res,
        allowed=False,
        reason="a friendly model is under the template (nullified)",
        steps=(Step("scatter", "scatters", placed=moved),),
        also_drawn=(dataclasses.replace(res.placed, focus=(300.0, 300.0)),),
    )
    adj2 = dataclasses.replace(adj, results=(dataclasses.replace(result, resolution=res),))
    surface, vp = _surface_and_view(adj2)
    draw_scene(surface, vp, adj2, DrawOptions(hovered="hit"))


def test_draw_respects_viewport_rect() -> None:
    adj = _adj(SMALL)
    surface = pygame.Surface((800, 600))
    surface.fill((1, 2, 3))
    vp = Viewport.fit(adj.scenario.table.width, adj.scenario.table.depth, (200, 100, 400, 300))
    draw_scene(surface, vp, adj)
    assert tuple(surface.get_at((10, 10)))[:3] == (1, 2, 3)
    assert tuple(surface.get_at((799, 599)))[:3] == (1, 2, 3)
    assert surface.get_clip() == surface.get_rect()
