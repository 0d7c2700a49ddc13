"""Presenter mode headless: real pygame events step through every explained step of every bundled
scenario; each step is its own picture; nothing covers the caption; a drag is a what-if; Esc leaves."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pygame
import pytest

from tabletop.adjudicate import adjudicate
from tabletop.app.pilot import Pilot
from tabletop.app.present import Presenter
from tabletop.draw.slide import type_sizes
from tabletop.explain import beats
from tabletop.scenario_io import load

from .conftest import SCENARIOS

BUNDLED = sorted(SCENARIOS.glob("*.toml"))
SIZE = (1280, 720)


@pytest.fixture(scope="module")
def screen():
    pygame.init()
    surface = pygame.display.set_mode(SIZE)
    yield surface
    pygame.display.quit()


def _key(presenter: Presenter, key: int) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode="", scancode=0))
    pygame.event.post(pygame.event.Event(pygame.KEYUP, key=key, mod=0, unicode="", scancode=0))
    for event in pygame.event.get():
        presenter.process_event(event)


def _mouse(presenter: Presenter, kind: int, pos: tuple[int, int], **extra: object) -> None:
    pygame.event.post(pygame.event.Event(kind, pos=pos, touch=False, **extra))
    for event in pygame.event.get():
        presenter.process_event(event)


def _shot(surface: pygame.Surface) -> str:
    return hashlib.sha1(pygame.image.tobytes(surface, "RGB")).hexdigest()


def _base_boxes(presenter: Presenter) -> list[pygame.Rect]:
    """Each base's screen box, as far as it is drawn (the table band clips the scene)."""
    assert presenter.frame is not None
    vp, table = presenter.frame.viewport, presenter.frame.table
    out = []
    for m in presenter.adjudication.scenario.models:
        x, y = vp.to_screen(m.x, m.y)
        r = vp.length_to_screen(m.base.bounding_radius) + 12  # with its rings
        box = pygame.Rect(round(x - r), round(y - r), round(2 * r), round(2 * r)).clip(table)
        if box.width and box.height:
            out.append(box)
    return out


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_forward_and_back_through_every_step(path: Path, screen: pygame.Surface) -> None:
    adj = adjudicate(load(path))
    presenter = Presenter(adj)
    expected = beats(adj)
    assert len(presenter.beats) == len(expected) >= len(adj.results)
    forward_keys = (pygame.K_PAGEDOWN, pygame.K_RIGHT, pygame.K_SPACE)
    shots: list[str] = []
    for i in range(len(presenter.beats)):
        frame = presenter.draw(screen)
        assert presenter.index == i
        shots.append(_shot(screen))
        # Nothing drawn on the table reaches the caption: the bands are apart, every base and label is in the table band.
        assert not frame.table.colliderect(frame.caption) and not frame.head.colliderect(frame.caption)
        assert frame.caption.bottom == SIZE[1] and frame.caption.height >= int(SIZE[1] * 0.16)
        for box in _base_boxes(presenter) + frame.texts:
            assert not box.colliderect(frame.caption), (box, frame.caption)
            assert frame.table.contains(box), (box, frame.table)
        # The caption panel shows the step's own words: its pixels change with the caption.
        _key(presenter, forward_keys[i % 3])
    assert presenter.index == len(presenter.beats) - 1  # the last step stays put
    assert len(set(shots)) == len(shots), "two steps look the same"
    back_keys = (pygame.K_PAGEUP, pygame.K_LEFT)
    for i in reversed(range(len(shots))):
        presenter.draw(screen)
        assert _shot(screen) == shots[i]
        _key(presenter, back_keys[i % 2])
    assert presenter.index == 0
    _key(presenter, pygame.K_ESCAPE)
    assert not presenter.running


def test_caption_text_is_in_the_panel_and_sized_for_a_projector(screen: pygame.Surface) -> None:
    presenter = Presenter(adjudicate(load(SCENARIOS / "wwpd-friendly-fire.toml")))
    frame = presenter.draw(screen)
    panel = screen.subsurface(frame.caption)
    # The caption is written in light type on the dark panel.
    light = sum(1 for x in range(0, panel.get_width(), 3) for y in range(0, panel.get_height(), 3) if sum(panel.get_at((x, y))[:3]) > 600)
    assert light > 200
    assert type_sizes(1080)["caption"] >= 44 and type_sizes(720)["caption"] >= 30
    assert type_sizes(2160)["caption"] > type_sizes(1080)["caption"]


def test_what_if_drag_restarts_from_the_new_placement(screen: pygame.Surface) -> None:
    presenter = Presenter(adjudicate(load(SCENARIOS / "default.toml")))
    frame = presenter.draw(screen)
    _key(presenter, pygame.K_PAGEDOWN)
    assert presenter.index == 1
    blast = next(r for r in presenter.adjudication.results if r.template.id == "blast")
    before = set(blast.resolution.affected)
    start = tuple(round(v) for v in frame.viewport.to_screen(*blast.resolution.placed.focus))
    end = (start[0], start[1] - round(frame.viewport.length_to_screen(5 * 25.4)))  # 5" up the table, off the troopers
    _mouse(presenter, pygame.MOUSEBUTTONDOWN, start, button=1)
    for k in range(1, 5):
        _mouse(presenter, pygame.MOUSEMOTION, (start[0], start[1] + (end[1] - start[1]) * k // 4), rel=(0, 0), buttons=(1, 0, 0))
        presenter.draw(screen)
    _mouse(presenter, pygame.MOUSEBUTTONUP, end, button=1)
    moved = next(r for r in presenter.adjudication.results if r.template.id == "blast")
    assert presenter.index == 0
    assert moved.resolution.placed.focus[1] > blast.resolution.placed.focus[1] + 4 * 25.4
    assert set(moved.resolution.affected) != before
    assert presenter.original.scenario.template("blast") == load(SCENARIOS / "default.toml").template("blast")
    _key(presenter, pygame.K_r)  # back to the table as it was
    assert presenter.adjudication is presenter.original


def test_f5_in_the_app_goes_full_screen_and_esc_comes_back() -> None:
    pilot = Pilot(SCENARIOS / "robotech-scatter.toml", size=(1000, 700))
    try:
        windowed = pilot.screen.get_size()
        pilot.key(pygame.K_F5)
        presenter = pilot.app.presenter
        assert presenter is not None
        assert pilot.screen.get_size() == tuple(pygame.display.get_desktop_sizes()[0])
        first = _shot(pilot.screen)
        pilot.key(pygame.K_PAGEDOWN)
        assert presenter.index == 1
        assert _shot(pilot.screen) != first
        assert presenter.frame is not None and presenter.frame.caption.bottom == pilot.screen.get_height()
        pilot.key(pygame.K_ESCAPE)
        assert pilot.app.presenter is None and pilot.app.running
        assert pilot.screen.get_size() == windowed
        pilot.step()
    finally:
        pilot.close()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("100000x600", "100000x600 is outside 320x240 to 8000x8000"),
        ("200x100", "200x100 is outside 320x240 to 8000x8000"),
        ("wide", "expected WIDTHxHEIGHT, e.g. 1280x720, got 'wide'"),
    ],
)
def test_present_window_size_errors_say_what_is_wrong(text: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop.cli import main

    assert main(["present", str(SCENARIOS / "default.toml"), "--window", text]) == 2
    assert message in capsys.readouterr().err


def test_a_steps_highlight_never_covers_the_tables_words() -> None:
    """Every step of every bundled table: inside each table label's box, the slide shows exactly the
    label as the scene drew it, dimmed like the table: no explosion's burst, template glow or step
    word over a name (catastrophic-chain step 3 covered "scout"; the step's words now go through the
    label layout first and the table's keep off them)."""
    from dataclasses import replace

    from tabletop.draw.compose import draw_scene
    from tabletop.draw.highlight import DIM
    from tabletop.draw.slide import SLIDE_OPTIONS, draw_slide, layout, scene_adjudication, slide_viewport, table_scale

    pygame.init()  # a test before may have closed the display: draw on a surface of our own
    screen = pygame.Surface(SIZE)
    checked = 0
    for path in BUNDLED:
        adj = adjudicate(load(path))
        shown = beats(adj)
        if not shown:
            continue
        bands = layout(SIZE, shown)
        vp = slide_viewport(adj.scenario, shown, bands.table)
        scale = table_scale(SIZE, adj, shown, bands, vp)
        for i in range(len(shown)):
            frame = draw_slide(screen, adj, shown, i, bands, vp, 1.0)
            plain = pygame.Surface(SIZE)
            plain.fill((0, 0, 0))
            options = replace(SLIDE_OPTIONS, ui_scale=scale, reserved=tuple(p.rect for p in frame.words))
            scene = draw_scene(plain, vp, scene_adjudication(adj, shown[i]), options)
            dim = pygame.Surface(SIZE, pygame.SRCALPHA)
            dim.fill(DIM)
            plain.blit(dim, (0, 0))
            assert frame.scene is not None
            assert [p.rect for p in scene.layout.placements] == [p.rect for p in frame.scene.layout.placements]
            for p in scene.layout.placements:
                r = pygame.Rect(p.rect).clip(bands.table)
                if r.width <= 0 or r.height <= 0:
                    continue
                assert r.collidelist(frame.texts) < 0, (path.name, i, p.id)
                got = pygame.image.tobytes(screen.subsurface(r), "RGB")
                want = pygame.image.tobytes(plain.subsurface(r), "RGB")
                assert got == want, (path.name, i, p.id)
                checked += 1
    assert checked > 100


def _slides(path: Path, size: tuple[int, int]):
    """Each step's slide of ``path`` at ``size``: (beat, frame, surface copy)."""
    from tabletop.draw.slide import draw_slide, layout, slide_viewport

    pygame.init()
    adj = adjudicate(load(path))
    shown = beats(adj)
    bands = layout(size, shown)
    vp = slide_viewport(adj.scenario, shown, bands.table)
    surface = pygame.Surface(size)
    for i, beat in enumerate(shown):
        frame = draw_slide(surface, adj, shown, i, bands, vp, 1.0)
        yield adj, beat, frame, surface.copy()


def test_a_missed_strike_labels_nobody_affected() -> None:
    """The issue: step 1 of robotech-scatter says "miss" and labelled the target "affected" (the
    template's coverage where it was aimed). A step shows the statuses after it, nothing else: after a
    miss nobody is affected, and the table under it shows nothing of the result still to come."""
    from tabletop.draw.style import status_colour

    slides = list(_slides(SCENARIOS / "robotech-scatter.toml", SIZE))
    adj, beat, frame, shot = slides[0]
    assert beat.caption.endswith("miss")
    assert "affected" not in beat.statuses.values()
    assert frame.scene is not None
    words = [p.text for p in frame.words]
    assert words == ["Roll: Strike 2"], words
    # The target's base is not painted as affected (it was, cyan-ringed and labelled).
    target = adj.scenario.model("pod1")
    x, y = frame.viewport.to_screen(target.x, target.y)
    assert tuple(shot.get_at((round(x), round(y) + 4)))[:3] != status_colour("affected")
    # Nothing of the outcome: no damage box, no dice box of the ruleset, no template title "blast".
    ids = {p.id for p in frame.scene.layout.placements}
    texts = {p.text for p in frame.scene.layout.placements}
    assert "title:blast" not in ids and not any("MD" in t or "dice" in t for t in texts), texts
    # Step 2, the scatter: the three bases under the landed template, not the target, each named once.
    _, beat2, frame2, _ = slides[1]
    assert sorted(p.text for p in frame2.words if p.kind == "step") == [
        "Battlepod: affected",
        "Officer's Pod: affected",
        "Spartan (friendly, hit by the scatter): affected",
    ]
    assert beat2.statuses["pod1"] == "outside"
    # The result shows the whole outcome again.
    result = slides[-1][2].scene.layout.placements  # type: ignore[union-attr]
    assert "title:blast" in {p.id for p in result} and any(p.text.startswith("blast: dice") for p in result)


@pytest.mark.parametrize(("strikes", "after_rolls"), [([1, 1, 1, 1], set()), ([3, 1, 5, 3], {"pod1", "pod2"})])
def test_a_volleys_statuses_follow_its_hits(strikes: list[int], after_rolls: set[str]) -> None:
    """A volley whose missiles all miss (GN 2: 1 + 2 = 3 < DF 5) scatters once: nobody is affected at its
    aim, at any of its four rolls. A volley whose missile 2 alone misses: missile 1 hits the aim, so
    pod1 and pod2 are affected from step 1 and stay so through missile 2's scatter (the scatter used
    to throw away every status but where it landed)."""
    import dataclasses

    scenario = load(SCENARIOS / "robotech-volley.toml")
    template = scenario.templates[0]
    template = dataclasses.replace(template, rolls={**template.rolls, "strike": strikes})
    adj = adjudicate(dataclasses.replace(scenario, templates=(template,)))
    shown = beats(adj)
    rolls = [b for b in shown if b.kind == "roll"]
    assert len(rolls) == 4
    for b in rolls:
        assert {m for m, s in b.statuses.items() if s == "affected"} == after_rolls, b.caption
    scatter = next(b for b in shown if b.kind == "scatter")
    assert after_rolls <= {m for m, s in scatter.statuses.items() if s == "affected"}
    assert scatter.dice_names == ("direction", "distance", "Strike")


@pytest.mark.parametrize("size", [SIZE, (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_step_words_go_through_the_tables_label_layout(path: Path, size: tuple[int, int]) -> None:
    """The issue: "Battlepod: affected" drawn over the "Battlepod" name, "Officer's Pod: affected" over the
    "0 MD" box (robotech-scatter), "troopers: affected" over the "boom" box (catastrophic-chain). Every
    slide's words, the step's and the table's, are one layout: none overlaps another or a base, a
    word away from its anchor has a leader, each changed status and each roll is written."""
    from tabletop.label_layout import check_layout

    for adj, beat, frame, _ in _slides(path, size):
        assert frame.scene is not None
        doc = frame.scene.to_json()
        assert not check_layout(doc), (beat.heading, check_layout(doc)[:3])
        assert not [h for h in frame.scene.hidden if h.startswith("step:")], beat.heading
        ids = {p.id for p in frame.words}
        assert {f"step:{m}" for m in beat.changed if m in {x.id for x in adj.scenario.models}} <= ids, beat.heading
        if beat.dice and beat.placed is not None:
            assert "step:dice" in ids
        for p in frame.words:
            for q in frame.scene.layout.placements:
                assert not pygame.Rect(p.rect).colliderect(q.rect), (beat.heading, p.text, q.text)


@pytest.mark.parametrize("size", [SIZE, (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_dice_are_written_for_the_back_of_the_room(size: tuple[int, int]) -> None:
    """The issue: dice chips ("2", "2 6 4") floated with no label, and the "blast: dice" box was ~11 px
    grey on dark on a projector. The step's dice say what was rolled, in the type of the slide's table
    words (1080 px: 27 px, dice 39 px), and the ruleset's dice box is scaled with the table's words."""
    from tabletop.draw.slide import type_sizes

    px = type_sizes(size[1])["label"]
    slides = list(_slides(SCENARIOS / "robotech-scatter.toml", size))
    (dice,) = [p for p in slides[1][2].words if p.kind == "dice"]
    assert dice.text == "Scatter: direction 2 · distance 6 · Strike 4"
    assert dice.rect[3] >= 1.45 * px
    (box,) = [p for p in slides[-1][2].scene.layout.placements if p.kind == "dice"]  # type: ignore[union-attr]
    assert box.text.startswith("blast: dice")
    assert box.rect[3] >= 4 * px, (box.rect, px)  # four lines at least as tall as the step's words
