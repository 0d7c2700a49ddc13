"""What ``render`` draws, read back from its layout JSON: every label placed by one layout, none over
another or over a base, leader-less labels beside their anchors, docked panels off the bases, and
labels that stay put while something else is dragged."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pygame
import pytest

from tabletop import scenario_io
from tabletop.adjudicate import adjudicate
from tabletop.draw import DrawOptions, draw_scene
from tabletop.draw.compose import _reset_caches
from tabletop.draw.png import render_frame
from tabletop.label_layout import check_layout
from tabletop.model import At
from tabletop.sample_tables import big_table
from tabletop.viewport import Viewport

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))
SIZES = [(800, 500), (1280, 800), (1920, 1080)]


def _meets(a: tuple[float, ...], box: tuple[float, ...]) -> bool:
    """Rect a (x, y, w, h) and box (x0, y0, x1, y1) share interior."""
    return a[0] < box[2] and box[0] < a[0] + a[2] and a[1] < box[3] and box[1] < a[1] + a[3]


def _assert_sound(doc: dict, where: str) -> None:
    assert set(doc) >= {"size", "labels", "bases", "hidden_labels"}, where
    for lab in doc["labels"]:
        assert set(lab) >= {"text", "rect", "anchor", "leader"}, where
        assert len(lab["rect"]) == 4 and len(lab["anchor"]) == 2 and isinstance(lab["leader"], bool)
    for b in doc["bases"]:
        assert set(b) >= {"id", "centre", "radius"} and b["radius"] > 0
    assert isinstance(doc["hidden_labels"], int) and doc["hidden_labels"] >= 0
    problems = check_layout(doc)
    assert not problems, f"{where}: {problems[:5]}"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
@pytest.mark.parametrize("region", ["table", "action"])
def test_every_scenario_lays_out_cleanly(path: Path, region: str) -> None:
    adj = adjudicate(scenario_io.load(path))
    _, vp, frame = render_frame(adj, (1280, 800), region=region)
    doc = frame.to_json()
    _assert_sound(doc, f"{path.stem}/{region}")
    assert doc["size"] == [1280, 800]
    # Every model on screen is in the document, and each named one has its name drawn or counted hidden.
    ids = {b["id"] for b in doc["bases"]}
    if region == "table":
        assert ids == {m.id for m in adj.scenario.models}
    names = {p.id for p in frame.placements if p.kind == "name"} | {h for h in frame.hidden if h.startswith("name:")}
    for m in adj.scenario.models:
        if m.id in ids and m.base.bounding_radius * vp.scale >= 5:
            assert f"name:{m.id}" in names, f"{path.stem}: {m.id} has no name"
    # Docked panels (title, legend, the hidden pill) never cover a base.
    for name, rect in frame.overlays.items():
        for b in frame.bases:
            assert not _meets(rect, b.box), f"{path.stem}: {name} covers {b.id}"


@pytest.mark.parametrize("path", [p for p in SCENARIOS if p.stem in ("robotech-scatter", "catastrophic-chain", "wwpd-battery-t")], ids=lambda p: p.stem)
def test_odds_labels_join_the_layout(path: Path) -> None:
    from tabletop import odds

    adj = adjudicate(scenario_io.load(path))
    result = odds.compute_odds(adj.scenario, seed=adj.seed, tolerance_mm=1.0, settings=adj.settings, keep_fixed_rolls=False)
    _, _, frame = render_frame(adj, (900, 700), odds=result)
    doc = frame.to_json()
    _assert_sound(doc, path.stem)
    assert any(p.kind == "odds" for p in frame.placements) or any(h.startswith("odds:") for h in frame.hidden)
    assert "odds_legend" in frame.overlays
    for b in frame.bases:
        assert not _meets(frame.overlays["odds_legend"], b.box)


def test_catastrophic_chain_troopers_is_named_and_uncovered() -> None:
    adj = adjudicate(scenario_io.load(ROOT / "scenarios" / "catastrophic-chain.toml"))
    _, _, frame = render_frame(adj)
    assert any(p.id == "name:troopers" for p in frame.placements)
    troopers = next(b for b in frame.bases if b.id == "troopers")
    for p in frame.placements:
        assert not _meets(p.rect, troopers.box), p.text


@pytest.mark.parametrize("stem", ["robotech-scatter", "robotech-hit", "robotech-volley"])
@pytest.mark.parametrize("size", [(1600, 1000), (1000, 700)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_dice_box_sits_at_its_template_or_has_a_leader_to_it(stem: str, size: tuple[int, int], tmp_path: Path) -> None:
    """The issue: ``render`` put the dice boxes of robotech-scatter (by the aim's rose, away from the
    template that landed) and robotech-hit (at a corner of the template's clear square, 20 px off its
    rim) far from their template with no leader. Each dice box belongs to the template where it
    landed: it touches its rim (within 12 px) or has a leader line from that rim."""
    from tabletop import cli

    out, layout = tmp_path / "t.png", tmp_path / "t.json"
    assert cli.main(["render", str(ROOT / "scenarios" / f"{stem}.toml"), "-o", str(out), "--size", f"{size[0]}x{size[1]}", "--layout-json", str(layout)]) == 0
    doc = json.loads(layout.read_text())
    _assert_sound(doc, stem)
    adj = adjudicate(scenario_io.load(ROOT / "scenarios" / f"{stem}.toml"))
    _, vp, _ = render_frame(adj, size)
    dice = [lab for lab in doc["labels"] if lab["kind"] == "dice"]
    assert len(dice) == len(adj.results) == 1
    (lab,) = dice
    placed = adj.results[0].resolution.placed
    cx, cy = vp.to_screen(*placed.focus)
    rim = placed.shape.reach * vp.scale
    assert abs(lab["anchor"][0] - cx) < 0.01 and abs(lab["anchor"][1] - cy) < 0.01, "anchored at the template where it landed"
    x, y, w, h = lab["rect"]
    nearest = (min(max(cx, x), x + w), min(max(cy, y), y + h))
    off_rim = ((nearest[0] - cx) ** 2 + (nearest[1] - cy) ** 2) ** 0.5 - rim
    assert off_rim > -0.5, "not over its template"
    assert lab["leader"] or off_rim <= 12.0, f"{stem}: the dice box is {off_rim:.1f} px off its template with no leader"
    if lab["leader"]:
        # The line is drawn: from the template's rim to the box, in light ink over the table.
        image = pygame.image.load(str(out))
        start = (cx + (nearest[0] - cx) * rim / (off_rim + rim), cy + (nearest[1] - cy) * rim / (off_rim + rim))
        mid = (round((start[0] + nearest[0]) / 2), round((start[1] + nearest[1]) / 2))
        lit = [sum(image.get_at((mid[0] + dx, mid[1] + dy))[:3]) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
        assert max(lit) > 600, "the leader is painted"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_crowded_tables(size: tuple[int, int], seed: int) -> None:
    s = big_table(120, 20, 5, seed=seed)
    adj = adjudicate(s)
    _, _, frame = render_frame(adj, size)
    doc = frame.to_json()
    _assert_sound(doc, f"seed {seed} {size}")
    assert doc["labels"], "a crowded table still shows labels"
    # Every name is drawn or counted: the hidden count is what was really left out.
    requested = {p.id for p in frame.placements} | set(frame.hidden)
    assert doc["hidden_labels"] == len(frame.hidden) == len(requested) - len(frame.placements)


def test_render_writes_the_layout_json(tmp_path: Path) -> None:
    from tabletop import cli

    out, layout = tmp_path / "t.png", tmp_path / "t.json"
    code = cli.main(["render", str(ROOT / "scenarios" / "default.toml"), "-o", str(out), "--size", "1000x700", "--layout-json", str(layout)])
    assert code == 0 and out.is_file()
    doc = json.loads(layout.read_text())
    _assert_sound(doc, "default")
    assert doc["size"] == [1000, 700]
    texts = {lab["text"] for lab in doc["labels"]}
    assert {"Trooper 1", "Sergeant", "Behind the wall"} <= texts
    # The labels are where the pixels are: each name pill is drawn dark where the JSON says it is.
    image = pygame.image.load(str(out))
    for lab in doc["labels"]:
        if lab["kind"] == "name":
            x, y, w, h = lab["rect"]
            assert tuple(image.get_at((x + w // 2, y + h // 2)))[:3] != (58, 84, 64), lab["text"]


def test_default_table_names_clear_their_neighbours() -> None:
    """The startup table: "Trooper 1" off the Sergeant's base; the teardrop's title off "Behind the wall"."""
    adj = adjudicate(scenario_io.load(ROOT / "scenarios" / "default.toml"))
    for size in SIZES:
        _, _, frame = render_frame(adj, size)
        by_text = {p.text: p for p in frame.placements}
        sergeant = next(b for b in frame.bases if b.id == "sgt")
        assert "Trooper 1" in by_text
        assert not _meets(by_text["Trooper 1"].rect, sergeant.box)
        wall = next(p for p in frame.placements if p.text == "Behind the wall")
        flame = next(p for p in frame.placements if p.id == "title:flame")
        assert not _meets(flame.rect, (wall.rect[0], wall.rect[1], wall.rect[0] + wall.rect[2], wall.rect[1] + wall.rect[3]))


def _drag_frames() -> tuple[Viewport, list]:
    s = scenario_io.load(ROOT / "scenarios" / "default.toml")
    first = s.templates[0]
    assert isinstance(first.placement, At)
    vp = Viewport.fit(s.table.width, s.table.depth, (0, 0, 1280, 800))
    adjs = []
    for k in range(6):
        at = dataclasses.replace(first.placement, x=first.placement.x + 2 * k, y=first.placement.y + k)
        adjs.append(adjudicate(dataclasses.replace(s, templates=(dataclasses.replace(first, placement=at), *s.templates[1:]))))
    return vp, adjs


def test_labels_stay_put_while_a_template_is_dragged() -> None:
    vp, adjs = _drag_frames()
    _reset_caches()
    surface = pygame.Surface((1280, 800))
    frame = draw_scene(surface, vp, adjs[0])
    first = {p.id: p.rect for p in frame.layout.placements}
    for adj in adjs[1:]:
        frame = draw_scene(surface, vp, adj, previous=frame)
        assert not check_layout(frame.to_json())
    last = {p.id: p.rect for p in frame.layout.placements}
    # Names of models the template's outline does not reach keep their exact rects.
    far = [k for k in first if k in ("name:dread", "name:gunner", "name:r4", "name:b1", "name:b2", "name:b3")]
    assert far
    for k in far:
        if k in last:
            assert last[k] == first[k], k


def test_hover_brings_a_hidden_label_back() -> None:
    s = big_table(300, 40, 6, seed=5)
    adj = adjudicate(s)
    vp = Viewport.fit(s.table.width, s.table.depth, (0, 0, 800, 500)).zoomed(2.0, (400, 250))
    surface = pygame.Surface((800, 500))
    _reset_caches()
    frame = draw_scene(surface, vp, adj)
    hidden_names = [h for h in frame.hidden if h.startswith("name:") and frame.owners.get(h)]
    assert hidden_names, "a crowded zoomed view hides some names"
    assert "hidden" in frame.overlays  # the "+n labels hidden" pill is drawn
    owner = frame.owners[hidden_names[0]]
    hovered = draw_scene(surface, vp, adj, DrawOptions(hovered=owner))
    ids = {p.id for p in hovered.extra}
    assert "tooltip" in ids
    assert hidden_names[0] in ids or hidden_names[0] in hovered.extra_hidden
    assert len(hovered.hidden) <= len(frame.hidden)


def test_app_ruler_readout_is_a_label_clear_of_the_others() -> None:
    from tabletop.app import overlays
    from tabletop.app.pilot import Pilot

    pilot = Pilot(ROOT / "scenarios" / "default.toml", size=(1280, 800))
    try:
        pilot.key(pygame.K_2)
        pilot.step(2)
        r1 = pilot.app.scenario.model("r1")
        start = pilot.screen_of((r1.x, r1.y))
        pilot.drag(start, (start[0] + 300, start[1] + 150))
        pilot.step(2)
        frame = overlays._frame[0]
        ruler = [p for p in frame.extra if p.id == "ruler"]
        assert ruler and ruler[0].text.startswith("centre to centre")
        others = [p for p in frame.placements if p.id != "ruler" and p.kind != "tooltip"]
        x, y, w, h = ruler[0].rect
        for p in others:
            assert not _meets(p.rect, (x, y, x + w, y + h)), p.text
        for b in frame.bases:
            assert not _meets(ruler[0].rect, b.box), b.id
    finally:
        pilot.close()


@pytest.mark.parametrize("name", ["robotech-scatter", "catastrophic-chain"])
def test_odds_shade_and_leaders_leave_the_table_labels_untouched(name: str) -> None:
    """With odds on, every table label and panel keeps exactly the pixels it has without them."""
    from tabletop import odds

    adj = adjudicate(scenario_io.load(ROOT / "scenarios" / f"{name}.toml"))
    result = odds.compute_odds(adj.scenario, seed=adj.seed, tolerance_mm=1.0, settings=adj.settings, keep_fixed_rolls=False)
    plain, _, frame = render_frame(adj, (900, 700))
    shaded, _, with_odds = render_frame(adj, (900, 700), odds=result)
    assert any(p.kind == "odds" and p.leader for p in with_odds.placements)
    for p in frame.placements:
        box = pygame.Rect(p.rect)
        a = pygame.image.tobytes(plain.subsurface(box), "RGB")
        b = pygame.image.tobytes(shaded.subsurface(box), "RGB")
        assert a == b, f"{name}: {p.text!r} changed under the odds overlay"


@pytest.mark.parametrize("scale", [1.0, 1.5, 2.0])
def test_a_leader_sprite_paints_exactly_the_strokes_it_replaces(scale: float) -> None:
    """Leaders are drawn once on a sprite and blitted: the same pixels as the three strokes on the frame,
    anywhere on it (also against its top and left edges, where the sprite starts at the origin)."""
    import random

    from tabletop.draw import labels
    from tabletop.draw.style import set_ui_scale
    from tabletop.label_layout import Placement

    rng = random.Random(int(scale * 10))
    set_ui_scale(scale)
    try:
        width = max(1, round(2 * scale))
        for _ in range(60):
            ax, ay = rng.uniform(0, 300), rng.uniform(0, 200)
            if rng.random() < 0.3:
                ax = rng.uniform(0, 3)
            x, y = rng.randint(0, 280), rng.randint(0, 190)
            p = Placement("l", (x, y, rng.randint(5, 40), rng.randint(5, 20)), True, 20, (ax, ay), rng.uniform(0, 12), "name", "x", 1.0)
            a, b = p.leader_line()
            if a == b:
                continue
            direct = pygame.Surface((320, 220))
            direct.fill((40, 90, 40))
            pygame.draw.line(direct, labels.LEADER_SHADOW, a, b, width + 2)
            pygame.draw.line(direct, labels.LEADER_INK, a, b, width)
            pygame.draw.circle(direct, labels.LEADER_INK, a, width + 1)
            sprited = pygame.Surface((320, 220))
            sprited.fill((40, 90, 40))
            labels.paint_leaders(sprited, [p])
            assert pygame.image.tobytes(sprited, "RGB") == pygame.image.tobytes(direct, "RGB"), (a, b)
    finally:
        set_ui_scale(1.0)
        _reset_caches()


def test_the_hidden_labels_note_says_hover_only_where_hovering_is_possible() -> None:
    """A still (a PNG, an SVG, an export) cannot be hovered: its note says why labels are missing."""
    from tabletop.draw.plan import hidden_words

    assert hidden_words(1, live=True) == "+1 label hidden · hover a model or zoom in"
    assert hidden_words(3, live=False) == "+3 labels hidden: no room at this size"
    s = big_table(300, 40, 6, seed=5)
    adj = adjudicate(s)
    vp = Viewport.fit(s.table.width, s.table.depth, (0, 0, 800, 500)).zoomed(2.0, (400, 250))
    pills = {}
    for live in (True, False):
        _reset_caches()
        surface = pygame.Surface((800, 500))
        frame = draw_scene(surface, vp, adj, DrawOptions(live=live))
        x, y, w, h = frame.overlays["hidden"]
        pills[live] = (w, pygame.image.tobytes(surface.subsurface((x, y, w, h)), "RGB"))
    assert pills[True] != pills[False]  # the two wordings are drawn, not one of them twice
