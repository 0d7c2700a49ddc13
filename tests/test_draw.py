"""Drawing: every scenario renders, statuses land in the right colours, odd cases do not crash."""

from __future__ import annotations

import dataclasses
import math
import random
from pathlib import Path

import pygame
import pytest

from tabletop import draw, marks, rulesets, scenario_io
from tabletop.adjudicate import Adjudication, adjudicate
from tabletop.draw import DrawOptions, compose, draw_scene, render_png, side_colour, status_colour
from tabletop.draw import marks as paint_marks
from tabletop.draw import models as draw_models
from tabletop.draw import scene as dscene
from tabletop.draw.style import BACKGROUND
from tabletop.marks import Marks
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
    adj = adjudicate(scenario_io.load(path))  # a bundled scenario that does not load is a failure
    out = tmp_path / f"{path.stem}.png"
    render_png(adj, out, size=(800, 500))
    image = pygame.image.load(str(out))
    assert image.get_size() == (800, 500)
    # The table was drawn: its felt covers the middle of the picture, not the window background.
    felt = sum(1 for x in range(300, 500, 10) for y in range(150, 350, 10) if tuple(image.get_at((x, y)))[:3] != BACKGROUND[:3])
    assert felt >= 300, f"{path.name}: only {felt} of 400 probes off the background"


def test_status_colours_at_base_centres(tmp_path: Path) -> None:
    adj = _adj(SMALL)
    models = adj.results[0].resolution.coverage.models
    assert models["hit"].status == "affected" and models["miss"].status == "outside"
    surface, vp = _surface_and_view(adj)
    draw_scene(surface, vp, adj, DrawOptions(show_legend=False))  # the legend box may sit over the table
    for model_id, status in (("hit", "affected"), ("miss", "outside")):
        m = adj.scenario.model(model_id)
        x, y = vp.to_screen(m.x, m.y)
        r = m.base.bounding_radius * vp.scale
        # Beside the centre, off the status pattern and the facing tick: the fill colour.
        assert tuple(surface.get_at((round(x), round(y + 0.6 * r))))[:3] == status_colour(status)
        # At the centre: the affected base's cross, the outside base's plain fill.
        centre = tuple(surface.get_at((round(x), round(y))))[:3]
        assert (centre == (20, 20, 20)) == (status == "affected")

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
    surface.fill((0, 0, 0))
    draw_scene(surface, vp, adj)
    # The template's fill reaches its focus's surroundings: pixels next to the focus changed colour
    # from the bare felt drawn with no template at all.
    bare = dataclasses.replace(adj, results=())
    empty = surface.copy()
    draw_scene(empty, vp, bare)
    fx, fy = vp.to_screen(*adj.results[0].resolution.placed.focus)
    assert pygame.image.tobytes(surface, "RGB") != pygame.image.tobytes(empty, "RGB")
    around = [(round(fx) + dx, round(fy) + dy) for dx in range(-12, 13, 4) for dy in range(-12, 13, 4)]
    assert any(surface.get_at(p) != empty.get_at(p) for p in around), kind
    # Zoomed in on the oval with it hovered and the template selected: still a picture, not the background.
    zoomed = surface.copy()
    draw_scene(zoomed, vp.zoomed(40, (400, 300)), adj, DrawOptions(selected="t1", hovered="oval"))
    assert pygame.image.tobytes(zoomed, "RGB") != pygame.image.tobytes(surface, "RGB")


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
    # A focus buried in a building sees nothing: the hit base keeps its outside colour.
    assert adj.results[0].resolution.coverage.models["hit"].status != "affected"
    m = adj.scenario.model("hit")
    x, y = vp.to_screen(m.x, m.y)
    r = m.base.bounding_radius * vp.scale
    assert tuple(surface.get_at((round(x), round(y + 0.6 * r))))[:3] == status_colour(adj.results[0].resolution.coverage.models["hit"].status)


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
    plain_surface, _ = _surface_and_view(adj)
    draw_scene(plain_surface, vp, adj, DrawOptions(hovered="hit"))
    # The refusal, the scatter arrow and the extra template all change the picture.
    assert pygame.image.tobytes(surface, "RGB") != pygame.image.tobytes(plain_surface, "RGB")
    ex, ey = vp.to_screen(300.0, 300.0)
    assert surface.get_at((round(ex), round(ey))) != plain_surface.get_at((round(ex), round(ey)))


def test_draw_respects_viewport_rect() -> None:
    adj = _adj(SMALL)
    surface = pygame.Surface((800, 600))
    surface.fill((1, 2, 3))
    vp = Viewport.fit(adj.scenario.table.width, adj.scenario.table.depth, (200, 100, 400, 300))
    draw_scene(surface, vp, adj)
    assert tuple(surface.get_at((10, 10)))[:3] == (1, 2, 3)
    assert tuple(surface.get_at((799, 599)))[:3] == (1, 2, 3)
    assert surface.get_clip() == surface.get_rect()


# --------------------------------------------------------------------------- ruleset overlays


def _scenario(name: str) -> Adjudication:
    return adjudicate(scenario_io.load(SCENARIOS / f"{name}.toml"))


PLAIN = DrawOptions(show_legend=False, show_title=False, show_names=False, show_rulers=False)


def _art(adj: Adjudication) -> Marks:
    art = dscene._scene(adj).art
    assert art is not None
    return art


def _words(art: Marks) -> str:
    """Every piece of text the ruleset's overlays show, one per line."""
    texts = [text for label in art.badges for text, _ in label.lines]
    texts += [text for _, text, _ in art.tags] + list(art.sublabels.values())
    texts += [text for _, text, _ in art.legend] + [p.tag for p in art.arrows if p.tag]
    return "\n".join(texts)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("robotech-hit", ["Strike 4 + GN 1 = 5 vs DF 5: hit", "\u221210 MD \u00b7 final 0", "dodged (6 vs 5) \u00b7 1 CP", "bunker: \u22125 MD", "0 MD"]),
        ("robotech-scatter", ["Strike 2 + GN 1 = 3 vs DF 5: miss", 'Scatter: direction 2, 6" (2D6)', "Scatter Strike 4 + 1 = 5", "aimed here"]),
        ("robotech-volley", ["M1\u2013M4 (4 missiles)", "M3: 7 hit", "Inescapable (4 missiles)", "rolled with impact"]),
        ("increments-wall", ["8 dmg", "blocked by wall (save 10 + 0 vs 4: holds)", "Ground Zero", "circle: 16 \u00b7 8 \u00b7 4 \u00b7 2 \u00b7 1 by ring"]),
        ("increments-contained", ["contained by cabin: +12 (5 + 7)", "16 dmg", "blocked by cabin"]),
        ("increments-circle", ["1 dmg", "3 levels away"]),
        ("wwpd-battery-t", ["squad_a: RoF 3", "squad_b: RoF 1", "#1", "#2", "\u00d72", "line of fire"]),
        ("wwpd-friendly-fire", ["Leadership test! (mortars)", "friendly fire", "raiders: RoF 1"]),
        ("infinity-hellcat", ["Dodge PH (10) \u00b7 2 shots", "Dodge PH-3 (7) \u00b7 2 shots", "may shoot back", "cannot shoot back"]),
        ("infinity-hellcat-split", ["friendly trooper: nullifies shot2", "ARO vs shot2: Normal Roll", "Dodge PH (10)"]),
        ("catastrophic-chain", ["carrier explodes: RAV 2 \u00b7 AOE 2", "RAV 3 \u00b7 AOE 3", "bomber (Martyr): red scores it", "chain reaction (in order)"]),
        ("catastrophic-dictator", ["2nd Attack Roll 10: Catastrophic Failure!", "Dictator explodes: RAV 3 \u00b7 AOE 3"]),
        ("catastrophic-assassin", ["Assassin (Martyr): alan scores it", "ranger, warden: bruce scores"]),
    ],
)
def test_each_ruleset_says_what_it_decided(name: str, expected: list[str]) -> None:
    words = _words(_art(_scenario(name)))
    for text in expected:
        assert text in words, f"{text!r} missing from the {name} overlays:\n{words}"


def test_no_ruleset_draws_no_overlay() -> None:
    # The 300-model benchmark table runs ruleset none: its frames must not pay for overlays.
    assert dscene._scene(_scenario("default")).art is None


def test_increments_squares_carry_their_damage_tint() -> None:
    adj = _scenario("increments-circle")
    surface, vp = _surface_and_view(adj, (900, 900))
    frame = draw_scene(surface, vp, adj, PLAIN)
    labelled = [pygame.Rect(r) for r in frame.taken()]
    g = adj.scenario.table.grid
    assert g is not None
    occupied = {(int(m.x // g), int(m.y // g)) for m in adj.scenario.models}
    squares = adj.results[0].resolution.details["squares"]
    top = max(s["damage"] for s in squares)
    checked = set()
    for s in squares:
        if (s["col"], s["row"]) in occupied or s["damage"] in checked:
            continue
        # Off the square's centre (where its number is) and off the grid lines.
        x, y = vp.to_screen((s["col"] + 0.25) * g, (s["row"] + 0.75) * g)
        if any(r.collidepoint(x, y) for r in labelled):
            continue  # a label (a badge, a name) lies over it
        heat = marks.heat_colour(s["damage"], top)
        a = marks.HEAT_ALPHA / 255
        expected = [round(h * a + f * (1 - a)) for h, f in zip(heat, draw.TABLE_FILL)]
        got = tuple(surface.get_at((round(x), round(y))))[:3]
        assert all(abs(e - v) <= 3 for e, v in zip(expected, got)), (s, expected, got)
        checked.add(s["damage"])
    assert checked == {1, 2, 4}  # every ring with a free square was looked at


def test_increments_blocked_squares_are_hatched() -> None:
    adj = _scenario("increments-wall")
    surface, vp = _surface_and_view(adj, (900, 900))
    frame = draw_scene(surface, vp, adj, PLAIN)
    labelled = [pygame.Rect(r) for r in frame.taken()]
    g = adj.scenario.table.grid
    assert g is not None
    blocked = [s for s in adj.results[0].resolution.details["squares"] if s.get("blocked_by")]
    assert blocked
    s = blocked[-1]
    x0, y1 = vp.to_screen(s["col"] * g, (s["row"] + 1) * g)
    x1, y0 = vp.to_screen((s["col"] + 1) * g, s["row"] * g)
    pixels = {tuple(surface.get_at((x, y)))[:3] for x in range(round(x0) + 3, round(x1) - 3) for y in range(round(y1) + 3, round(y0) - 3)}
    assert marks.BLOCKED_HATCH in pixels


def test_robotech_scatter_rose_points_six_ways_from_the_aim() -> None:
    adj = _scenario("robotech-scatter")
    surface, vp = _surface_and_view(adj, (1200, 1200))
    vp = vp.zoomed(3.0, vp.to_screen(30 * 25.4, 8 * 25.4))
    draw_scene(surface, vp, adj, PLAIN)
    (rose,) = _art(adj).roses
    assert rose.rolled == (2,)
    # Direction 1 points straight away from the firer (at 10, 10; the aim at 30, 10): east.
    assert rose.first == pytest.approx(0.0, abs=1e-6)
    cx, cy = vp.to_screen(*rose.centre)
    length = paint_marks._rose_length(vp, rose)
    for k in range(1, 7):
        h = math.radians(rose.first - 60 * (k - 1))
        colour = marks.ROSE_HOT if k in rose.rolled else marks.ROSE
        along = [(cx + math.cos(h) * length * t, cy - math.sin(h) * length * t) for t in (0.5, 0.6, 0.7)]
        assert any(tuple(surface.get_at((round(x), round(y))))[:3] == colour for x, y in along), k


def test_robotech_without_scatter_draws_no_rose() -> None:
    assert _art(_scenario("robotech-hit")).roses == []


def test_catastrophic_chain_arrows_follow_the_explosions() -> None:
    art = _art(_scenario("catastrophic-chain"))
    chain = [p for p in art.arrows if p.colour == marks.CHAIN]
    assert [p.tag for p in chain] == ["1", "2"]
    assert chain[0].b == chain[1].a  # the scout is caught, then explodes in turn


def test_infinity_close_combat_is_linked_and_explained() -> None:
    text = """
format = 1
ruleset = "infinity"
units = "mm"
[table]
width = 1000
depth = 1000
[[model]]
id = "a"
side = "nomads"
x = 100
y = 500
base = 25
[[model]]
id = "t"
side = "pano"
x = 500
y = 500
base = 25
[[model]]
id = "e1"
side = "pano"
x = 520
y = 500
base = 25
engaged = ["e2"]
[[model]]
id = "e2"
side = "pano"
x = 620
y = 500
base = 25
[[template]]
id = "g"
shape = "infinity_circular"
impact = { attacker = "a", target = "t" }
"""
    adj = _adj(text)
    assert "e2" in adj.results[0].resolution.affected
    art = _art(adj)
    (link,) = [p for p in art.arrows if p.tag == "CC"]
    assert {link.a, link.b} == {(520.0, 500.0), (620.0, 500.0)} and link.colour == marks.LINK
    assert "affected via close combat" in _words(art)
    surface, vp = _surface_and_view(adj)
    vp = vp.zoomed(4.0, vp.to_screen(570, 500))
    frame = draw_scene(surface, vp, adj, PLAIN)
    labelled = [pygame.Rect(r) for r in frame.taken()]
    # Between the bases, off every label (the "CC" tag sits beside the link's middle): the link's colour.
    free = [vp.to_screen(x, 500) for x in range(540, 605, 5)]
    free = [(x, y) for x, y in free if not any(r.collidepoint(x, y) for r in labelled)]
    assert free and all(tuple(surface.get_at((round(x), round(y))))[:3] == marks.LINK for x, y in free)
    assert any(p.text == "CC" for p in frame.placements)


def test_action_view_zooms_on_the_templates(tmp_path: Path) -> None:
    adj = _scenario("robotech-scatter")
    table = render_png(adj, tmp_path / "table.png")
    action = render_png(adj, tmp_path / "action.png", region="action")
    assert action.scale > 1.5 * table.scale
    x0, y0, x1, y1 = action.visible_world_bounds()
    res = adj.results[0].resolution
    for p in (res.placed, *res.also_drawn):  # the final template and the aim it scattered from
        fx, fy = p.focus
        r = p.shape.reach
        assert x0 <= fx - r and fx + r <= x1 and y0 <= fy - r and fy + r <= y1
    for model_id in res.affected:
        m = adj.scenario.model(model_id)
        assert x0 <= m.x <= x1 and y0 <= m.y <= y1
    # Kept on the table: no felt-less margin where the table is larger than the view.
    assert x0 >= -1 and y0 >= -1 - 200  # the title band may show a little below y = 0
    assert pygame.image.load(str(tmp_path / "action.png")).get_size() == (1600, 1000)
    with pytest.raises(ValueError):
        render_png(adj, tmp_path / "bad.png", region="nowhere")


def test_table_view_is_the_default(tmp_path: Path) -> None:
    adj = _scenario("wwpd-battery-t")
    default = render_png(adj, tmp_path / "a.png", size=(800, 500))
    table = render_png(adj, tmp_path / "b.png", size=(800, 500), region="table")
    assert default == table
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


@pytest.mark.parametrize("path", _loadable(), ids=lambda p: p.name)
def test_badges_never_overlap(path: Path) -> None:
    from tabletop.draw.png import render_frame

    adj = adjudicate(scenario_io.load(path))
    for region in ("table", "action"):
        _, _, frame = render_frame(adj, region=region)
        rects = [pygame.Rect(p.rect) for p in frame.placements]
        assert len(rects) == len({p.id for p in frame.placements})
        for i, a in enumerate(rects):
            assert a.collidelist(rects[i + 1 :]) < 0, f"{path.name}: labels overlap at {a}"
        if region == "table":
            # Every badge is drawn or counted as hidden: none is silently lost.
            art = dscene._scene(adj).art
            shown = sum(1 for p in frame.placements if p.id.startswith("badge:"))
            hidden = sum(1 for h in frame.hidden if h.startswith("badge:"))
            assert shown + hidden == (len(art.badges) if art is not None else 0)


def test_cli_render_view_flag(tmp_path: Path) -> None:
    from tabletop import cli

    out = tmp_path / "action.png"
    assert cli.main(["render", str(SCENARIOS / "increments-wall.toml"), "-o", str(out), "--view", "action", "--size", "800x500"]) == 0
    assert pygame.image.load(str(out)).get_size() == (800, 500)
    assert cli.main(["render", str(SCENARIOS / "increments-wall.toml"), "-o", str(out), "--view", "sideways"]) == 2


NO_OVERLAY = {"none"}  # geometry only: nothing but the template and the statuses to draw


@pytest.mark.parametrize("path", _loadable(), ids=lambda p: p.name)
def test_overlay_builders_do_not_fail(path: Path) -> None:
    # _ruleset_art swallows errors so the app never falls over on odd details: call the builder raw.
    adj = adjudicate(scenario_io.load(path))
    build = rulesets.get(adj.scenario.ruleset).marks
    if adj.scenario.ruleset in NO_OVERLAY:
        assert build is None
        return
    assert build is not None, f"ruleset {adj.scenario.ruleset} lost its overlay"
    art = build(adj)
    assert art is not None
    assert art.badges or art.tags or art.tints


def _frame_sequence(table: str = "big") -> list[tuple[Viewport, Adjudication, DrawOptions]]:
    """Frames as the app draws them: a template dragged, a model dragged, hover, a pan, zoom."""
    from tabletop.app.live import LiveAdjudicator
    from tabletop.model import At
    from tabletop.sample_tables import big_table

    s = big_table(80, 16, 4) if table == "big" else scenario_io.load(SCENARIOS / table)
    live = LiveAdjudicator()
    size = (960, 640)
    vp = Viewport.fit(s.table.width, s.table.depth, (0, 0, *size))
    frames = []
    first = s.templates[0]
    if isinstance(first.placement, At):
        for k in range(4):
            at = dataclasses.replace(first.placement, x=first.placement.x + 9 * k, y=first.placement.y + 4 * k)
            s = dataclasses.replace(s, templates=(dataclasses.replace(first, placement=at), *s.templates[1:]))
            frames.append((vp, live.adjudicate(s), DrawOptions()))
    else:
        # New adjudications of the same models (other dice): names and sprites stay cached.
        for seed in (1, 1, 2, 3):
            live.seed = seed
            frames.append((vp, live.adjudicate(s), DrawOptions()))
    # Drag the first template's target when it has one (the template follows it), else a model.
    target = getattr(first.placement, "target", None)
    i = next((k for k, m in enumerate(s.models) if m.id == target), 0)
    hovered = s.models[(i + 3) % len(s.models)].id
    for k in range(3):
        m = s.models[i]
        moved = dataclasses.replace(m, x=m.x + 7, y=m.y - 3)
        s = dataclasses.replace(s, models=(*s.models[:i], moved, *s.models[i + 1 :]))
        frames.append((vp, live.adjudicate(s), DrawOptions(selected=moved.id, hovered=hovered)))
    last = frames[-1][1]
    frames += [(vp.panned(13, -7), last, DrawOptions()), (vp.panned(13, -7), last, DrawOptions())]
    zoomed = vp.zoomed(4.0, about=(400.0, 300.0))
    frames += [(zoomed, last, DrawOptions()), (zoomed, last, DrawOptions())]
    return frames


@pytest.mark.parametrize("table", ["big", "infinity-hellcat.toml", "robotech-volley.toml", "wwpd-battery-t.toml", "catastrophic-chain.toml"])
def test_cached_frames_equal_fresh_frames(table: str) -> None:
    """Every layer, sprite and name cache gives exactly the pixels of a draw from nothing."""
    frames = _frame_sequence(table)
    fresh = []
    for vp, adj, options in frames:
        compose._reset_caches()
        surface = pygame.Surface(vp.rect[2:])
        draw_scene(surface, vp, adj, options)
        fresh.append(pygame.image.tobytes(surface, "RGB"))
    compose._reset_caches()
    surface = pygame.Surface(frames[0][0].rect[2:])
    hits = halos = bases = unders = 0
    for k, (vp, adj, options) in enumerate(frames):
        for _ in range(2 if k in (0, 4) else 1):  # settle once so later frames meet warm caches
            draw_scene(surface, vp, adj, options)
        assert pygame.image.tobytes(surface, "RGB") == fresh[k], f"frame {k} differs from a fresh draw"
        # Labels keep clear of model names whether the names came from the cache or not.
        assert dscene._scene(adj).names_drawn
        hits += bool(compose._board and compose._board[0].surface is not None)
        unders += bool(compose._under and compose._under[0].surface is not None)
        halos = max(halos, sum(1 for key in draw_models._sprites if key[0] == "halo"))
        bases = max(bases, sum(1 for key in draw_models._sprites if key[0] != "halo"))
    # The caches were really used, not bypassed.
    assert hits >= 5 and bases >= 5 and unders >= 5
    if table == "big":
        assert halos >= 1 and bases >= 50


def test_a_template_dragged_across_a_building_matches_a_fresh_draw() -> None:
    """The settled view blits the board with the buildings on it; where the tint or a terrain hit is
    drawn over a building, the building must go back on top, exactly as a draw from nothing."""
    from tabletop.app.live import LiveAdjudicator
    from tabletop.model import At
    from tabletop.sample_tables import big_table

    s = big_table(40, 12, 2)
    building = next(t for t in s.terrain if t.blocks_los)
    xs, ys = zip(*building.polygon)
    first = s.templates[0]
    assert isinstance(first.placement, At)
    live = LiveAdjudicator()
    vp = Viewport.fit(s.table.width, s.table.depth, (0, 0, 800, 500))
    options = DrawOptions(show_visibility=False)  # the tint covers the building too
    frames = []
    for k in range(4):
        at = dataclasses.replace(first.placement, x=min(xs) + 6 * k, y=(min(ys) + max(ys)) / 2)
        frames.append(live.adjudicate(dataclasses.replace(s, templates=(dataclasses.replace(first, placement=at), *s.templates[1:]))))
    compose._reset_caches()
    surface = pygame.Surface((800, 500))
    draw_scene(surface, vp, frames[0], options)
    for k, adj in enumerate(frames):
        draw_scene(surface, vp, adj, options)
        got = pygame.image.tobytes(surface, "RGB")
        assert compose._under and compose._under[0].surface is not None
        compose._reset_caches()
        fresh = pygame.Surface((800, 500))
        draw_scene(fresh, vp, adj, options)
        assert got == pygame.image.tobytes(fresh, "RGB"), f"frame {k} differs from a fresh draw"
        draw_scene(surface, vp, adj, options)  # warm the caches again
        draw_scene(surface, vp, adj, options)


def test_base_sprite_equals_direct_draw() -> None:
    rng = random.Random(7)
    for _ in range(300):
        cx, cy, r = rng.uniform(40, 1500), rng.uniform(40, 900), rng.uniform(1.5, 60)
        rw = max(1, min(5, round(r * 0.2)))
        a = rng.uniform(0, 2 * math.pi)
        tick_a = (cx + math.cos(a) * r * 0.45, cy - math.sin(a) * r * 0.45)
        tick_b = (cx + math.cos(a) * (r - 2), cy - math.sin(a) * (r - 2))
        direct = pygame.Surface((1600, 1000))
        pygame.draw.circle(direct, (200, 10, 10), (cx, cy), r)
        pygame.draw.circle(direct, (10, 200, 10), (cx, cy), r, rw)
        if r >= 5:
            pygame.draw.line(direct, (20, 20, 20), tick_a, tick_b, rw)
        sprite, at = draw_models._base_sprite((cx, cy), r, (200, 10, 10), (10, 200, 10), rw, tick_a, tick_b)
        blitted = pygame.Surface((1600, 1000))
        blitted.blit(sprite, at)
        assert pygame.image.tobytes(blitted, "RGB") == pygame.image.tobytes(direct, "RGB")
