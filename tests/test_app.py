"""The desktop app headless: real pygame events through the pilot, assertions on state."""

from __future__ import annotations

import shutil
from pathlib import Path

import pygame
import pygame_gui
import pytest
from pygame_gui.windows import UIConfirmationDialog, UIFileDialog, UIMessageWindow

from tabletop.app import autosave
from tabletop.app.pilot import Pilot
from tabletop.app.widgets import UnsavedChangesDialog
from tabletop.app.state import Ref, Select
from tabletop.sample_tables import big_table as stress_scenario
from tabletop.model import At, Direct, Impact
from tabletop.scenario_io import load

from .scenario_compare import differences

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
DEFAULT = SCENARIOS / "default.toml"
CTRL = pygame.KMOD_LCTRL
SHIFT = pygame.KMOD_LSHIFT


@pytest.fixture()
def pilot():
    p = Pilot(DEFAULT)
    yield p
    p.close()


@pytest.fixture()
def copy_of_default(tmp_path: Path) -> Path:
    dst = tmp_path / "table.toml"
    shutil.copy(DEFAULT, dst)
    return dst


def statuses(p: Pilot, template_id: str) -> dict[str, str]:
    adj = p.app.live_adjudication()
    for r in adj.results:
        if r.template.id == template_id:
            return {i: c.status for i, c in r.resolution.coverage.models.items()}
    raise KeyError(template_id)


def windows(p: Pilot, kind: type) -> list:
    return [w for w in p.app.ui.get_root_container().elements if isinstance(w, kind) and w.alive()]


def test_opens_default_table_when_no_path() -> None:
    p = Pilot(None)
    assert p.app.scenario.title.startswith("Default table")
    assert p.app.state.path is None
    p.close()


# Bases a label is drawn over in the first frame (nothing of their fill shows): the only exceptions.
HIDDEN_BASES: dict[str, set[str]] = {}  # none: the label layout keeps every label off every base


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_bundled_scenario_renders_a_frame(path: Path) -> None:
    """Every base is drawn where it stands, filled with the colour of its worst status over the
    templates the core allows (outside when none reaches it)."""
    import numpy as np

    from tabletop.draw.style import STATUS_COLOURS

    rank = {"outside": 0, "user": 1, "total_cover": 2, "affected": 3}
    p = Pilot(path)
    try:
        p.step(2)
        shot = pygame.surfarray.array3d(p.screen).astype(int)
        xs, ys = np.meshgrid(np.arange(shot.shape[0]), np.arange(shot.shape[1]), indexing="ij")
        results = [r.resolution for r in p.app.live_adjudication().results if r.resolution.allowed]
        unseen = []
        for m in p.app.scenario.models:
            status = max((res.coverage.models[m.id].status for res in results if m.id in res.coverage.models), key=rank.__getitem__, default="outside")
            cx, cy = p.app.viewport.to_screen(m.x, m.y)
            disc = (xs - cx) ** 2 + (ys - cy) ** 2 <= (0.8 * m.base.bounding_radius * p.app.viewport.scale) ** 2
            colour = np.array(STATUS_COLOURS[status][:3])
            if not (disc & (shot == colour).all(axis=-1)).any():
                unseen.append((m.id, status))
        assert {i for i, _ in unseen} == HIDDEN_BASES.get(path.stem, set()), unseen
    finally:
        p.close()


def test_drag_template_changes_statuses_then_undo_redo(pilot: Pilot) -> None:
    before = statuses(pilot, "blast")
    assert before["sgt"] == "affected"
    focus = pilot.app.placed()["blast"].focus
    start = pilot.screen_of((focus[0] + 20, focus[1] + 20))  # grab inside the outline, off the bases
    pilot.app.state = pilot.app.state  # no-op: the pilot reads the live app
    pilot.click(start)
    assert pilot.app.state.selection == Ref("template", "blast")
    pilot.drag(start, (start[0] - 100, start[1] - 150), steps=12)
    after = statuses(pilot, "blast")
    assert after["sgt"] == "outside"
    moved = pilot.app.scenario.template("blast").placement
    assert isinstance(moved, At) and moved.x < focus[0]
    assert len(pilot.app.state.history.undo) == 1  # the whole drag is one edit
    pilot.key(pygame.K_z, CTRL)
    assert statuses(pilot, "blast") == before
    assert not pilot.app.state.dirty
    pilot.key(pygame.K_y, CTRL)
    assert statuses(pilot, "blast") == after
    pilot.key(pygame.K_z, CTRL | SHIFT)  # Ctrl+Shift+Z is redo too
    assert statuses(pilot, "blast") == after


def test_drag_model_out_of_the_blast(pilot: Pilot) -> None:
    sgt = pilot.app.scenario.model("sgt")
    start = pilot.screen_of(sgt.centre)
    pilot.drag(start, (start[0], start[1] + 200))
    assert pilot.app.scenario.model("sgt").y < sgt.y
    assert statuses(pilot, "blast")["sgt"] == "outside"
    assert pilot.app.state.selection == Ref("model", "sgt")


def test_rotate_with_keys_wheel_and_handle(pilot: Pilot) -> None:
    app = pilot.app
    focus = app.placed()["blast"].focus
    pilot.click(pilot.screen_of((focus[0] + 20, focus[1] + 20)))
    pilot.key(pygame.K_r)
    assert app.scenario.template("blast").placement.heading == pytest.approx(15.0)
    pilot.key(pygame.K_r, SHIFT)
    pilot.key(pygame.K_r, SHIFT)
    assert app.scenario.template("blast").placement.heading == pytest.approx(345.0)
    undo_depth = len(app.state.history.undo)
    pilot.wheel(1, mod=CTRL)
    pilot.wheel(1, mod=CTRL)
    assert app.scenario.template("blast").placement.heading == pytest.approx(355.0)
    assert len(app.state.history.undo) == undo_depth + 1  # consecutive wheel ticks coalesce
    # The direct template rotates with its handle.
    flame = app.placed()["flame"]
    from tabletop.app.overlays import handle_world

    pilot.click(pilot.screen_of((flame.focus[0] + 40 * 0.42, flame.focus[1] + 40 * 0.9)))
    assert app.state.selection == Ref("template", "flame")
    handle = pilot.screen_of(handle_world(app.placed()["flame"], app.viewport))
    gunner = app.scenario.model("gunner")
    target = pilot.screen_of((gunner.x + 300, gunner.y))  # due right: heading 0
    pilot.drag(handle, target)
    p = app.scenario.template("flame").placement
    assert isinstance(p, Direct)
    assert min(p.heading, 360 - p.heading) < 8


def test_wheel_zooms_around_the_cursor_and_panning(pilot: Pilot) -> None:
    app = pilot.app
    pos = (app.view_rect.left + 200, app.view_rect.top + 150)
    world = app.viewport.to_world(*pos)
    scale = app.viewport.scale
    pilot.wheel(2, pos)
    assert app.viewport.scale > scale
    assert app.viewport.to_world(*pos) == pytest.approx(world)
    centre = app.viewport.centre
    pilot.drag((pos[0] + 300, pos[1] + 300), (pos[0] + 400, pos[1] + 300), button=3)
    assert app.viewport.centre[0] < centre[0]
    centre = app.viewport.centre
    pilot.key(pygame.K_UP)
    assert app.viewport.centre[1] > centre[1]
    pilot.key(pygame.K_f)
    assert app.viewport.centre == pytest.approx((app.scenario.table.width / 2, app.scenario.table.depth / 2))


def test_save_with_ctrl_s(copy_of_default: Path) -> None:
    p = Pilot(copy_of_default)
    sgt = p.app.scenario.model("sgt")
    start = p.screen_of(sgt.centre)
    p.drag(start, (start[0] + 40, start[1]))
    assert p.app.state.dirty
    p.key(pygame.K_s, CTRL)
    assert not p.app.state.dirty
    assert differences(load(copy_of_default), p.app.scenario) == []  # lengths to 0.001 mm
    p.close()


def test_save_as_and_open_use_the_file_dialog(pilot: Pilot, tmp_path: Path) -> None:
    pilot.key(pygame.K_s, CTRL | SHIFT)
    dialogs = windows(pilot, UIFileDialog)
    assert len(dialogs) == 1
    target = tmp_path / "copy.toml"
    # typed into the path box (it has the keys when the dialog opens), Enter confirms
    pilot.key(pygame.K_a, CTRL)
    pilot.type(str(target))
    pilot.key(pygame.K_RETURN)
    pilot.step(2)
    assert target.exists() and pilot.app.state.path == str(target)
    assert not windows(pilot, UIFileDialog)
    pilot.key(pygame.K_o, CTRL)
    dialogs = windows(pilot, UIFileDialog)
    assert len(dialogs) == 1
    pilot.replace_text(dialogs[0].file_path_text_line, str(SCENARIOS / "robotech-hit.toml"))
    pilot.key(pygame.K_RETURN)
    pilot.step(2)
    assert pilot.app.scenario == load(SCENARIOS / "robotech-hit.toml")


@pytest.mark.parametrize(
    ("keys", "typed", "written", "refused"),
    [
        (CTRL | SHIFT, "plain", "plain.toml", None),  # no extension: the default is added
        (CTRL | SHIFT, "table.json", "table.json", None),
        (CTRL | SHIFT, "table.txt", None, "Save writes .toml or .json files"),
        (CTRL, "view", "view.png", None),
        (CTRL, "ruling.md", "ruling.md", None),
        (CTRL, "clip.webp", None, "Export writes .png, .svg, .gif or .md files"),
    ],
)
def test_save_as_and_export_names_an_extension_they_cannot_write(
    pilot: Pilot, tmp_path: Path, keys: int, typed: str, written: str | None, refused: str | None
) -> None:
    """A name without an extension gets the default; an extension the command cannot write is refused
    with a message, and nothing is written (not "clip.webp.png")."""
    pilot.key(pygame.K_s if keys & SHIFT else pygame.K_e, keys)
    dialogs = windows(pilot, UIFileDialog)
    pilot.post(pygame_gui.UI_FILE_DIALOG_PATH_PICKED, text=str(tmp_path / typed), ui_element=dialogs[-1], ui_object_id="#file_dialog")
    pilot.step()
    files = sorted(p.name for p in tmp_path.iterdir())
    if written is not None:
        assert files == [written]
        assert (tmp_path / written).stat().st_size > 0
    else:
        assert files == []
        messages = windows(pilot, UIMessageWindow)
        assert messages and refused in messages[-1].text_block.html_text


def test_broken_file_shows_errors_and_keeps_the_table(pilot: Pilot, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('format = 1\n[table]\nwidth = 24\ndepth = "lots"\n[[model]]\nid = "a"\nx = 1\n')
    before = pilot.app.scenario
    assert not pilot.app.open_file(str(bad))
    pilot.step()
    assert pilot.app.scenario is before
    messages = windows(pilot, UIMessageWindow)
    assert messages
    assert "depth" in messages[-1].text_block.html_text


def test_export_png(pilot: Pilot, tmp_path: Path) -> None:
    pilot.key(pygame.K_e, CTRL)
    assert windows(pilot, UIFileDialog)
    out = tmp_path / "view.png"
    assert pilot.app.export_png(str(out))
    img = pygame.image.load(str(out))
    assert img.get_size() == pilot.app.view_rect.size


def test_confirm_before_discarding_unsaved_work(pilot: Pilot) -> None:
    sgt = pilot.app.scenario.model("sgt")
    start = pilot.screen_of(sgt.centre)
    pilot.drag(start, (start[0] + 40, start[1]))
    edited = pilot.app.scenario
    pilot.key(pygame.K_n, CTRL)
    dialogs = windows(pilot, UnsavedChangesDialog)
    assert len(dialogs) == 1
    assert pilot.app.scenario is edited  # nothing discarded yet
    pilot.click(dialogs[0].discard_button.rect.center)
    pilot.step()
    assert pilot.app.scenario.models == ()
    assert not pilot.app.state.dirty


def test_quit_asks_when_dirty(pilot: Pilot) -> None:
    pilot.post(pygame.QUIT)
    pilot.step()
    assert not pilot.app.running  # clean: quits at once
    p = Pilot(DEFAULT)
    p.key(pygame.K_DELETE)  # nothing selected: nothing happens
    p.click(p.screen_of(p.app.scenario.model("sgt").centre))
    p.key(pygame.K_DELETE)
    assert "sgt" not in {m.id for m in p.app.scenario.models}
    p.post(pygame.QUIT)
    p.step()
    assert p.app.running and windows(p, UnsavedChangesDialog)
    p.close()


def test_impact_placement_pick_attacker_then_target(pilot: Pilot) -> None:
    app = pilot.app
    pilot.key(pygame.K_3)
    assert app.state.tool == "impact"
    pilot.click(pilot.screen_of(app.scenario.model("gunner").centre))
    assert app.state.pending_attacker == "gunner"
    pilot.click(pilot.screen_of(app.scenario.model("r4").centre))
    new = app.scenario.templates[-1]
    assert new.placement == Impact("gunner", target="r4")
    assert new.shape_name == app.state.new_shape
    assert statuses(pilot, new.id)["r4"] == "affected"
    assert app.state.tool == "select" and app.state.selection == Ref("template", new.id)


def test_direct_placement_pivots_on_the_attacker(pilot: Pilot) -> None:
    app = pilot.app
    pilot.key(pygame.K_4)
    gunner = app.scenario.model("gunner")
    start = pilot.screen_of(gunner.centre)
    pilot.drag(start, pilot.screen_of((gunner.x - 200, gunner.y)))
    new = app.scenario.templates[-1]
    assert isinstance(new.placement, Direct) and new.placement.attacker == "gunner"
    assert new.placement.heading == pytest.approx(180.0, abs=1.0)
    assert len(app.state.history.undo) == 1  # placing and aiming: one edit
    pilot.key(pygame.K_z, CTRL)
    assert all(t.id != new.id for t in app.scenario.templates)


def test_add_and_delete_models_and_buildings(pilot: Pilot) -> None:
    app = pilot.app
    n_models, n_terrain = len(app.scenario.models), len(app.scenario.terrain)
    pilot.key(pygame.K_6)
    pilot.click(pilot.screen_of((500.0, 60.0)))
    assert len(app.scenario.models) == n_models + 1
    new_model = app.scenario.models[-1]
    assert app.state.selection == Ref("model", new_model.id)
    pilot.key(pygame.K_7)
    pilot.click(pilot.screen_of((300.0, 300.0)))
    assert len(app.scenario.terrain) == n_terrain + 1
    pilot.key(pygame.K_DELETE)
    assert len(app.scenario.terrain) == n_terrain
    pilot.key(pygame.K_z, CTRL)
    assert len(app.scenario.terrain) == n_terrain + 1
    # Drag the building: one edit.
    pilot.key(pygame.K_1)
    piece = app.scenario.terrain[-1]
    before = piece.rect
    start = pilot.screen_of((before.x, before.y))
    undo = len(app.state.history.undo)
    pilot.drag(start, (start[0] + 50, start[1]))
    assert app.scenario.terrain[-1].rect.x > before.x
    assert len(app.state.history.undo) == undo + 1


def test_free_template_from_palette(pilot: Pilot) -> None:
    app = pilot.app
    pilot.key(pygame.K_5)
    pilot.drag(pilot.screen_of((400.0, 100.0)), pilot.screen_of((420.0, 120.0)))
    new = app.scenario.templates[-1]
    assert isinstance(new.placement, At)
    assert new.placement.x == pytest.approx(420.0, abs=2.0)


def test_edit_model_in_the_side_panel(pilot: Pilot) -> None:
    app = pilot.app
    pilot.click(pilot.screen_of(app.scenario.model("sgt").centre))
    fields = app._fields
    fields["side"].set_text("blue")
    fields["base"].set_text("40mm")
    fields["stats"].set_text("DF=4, GN=2")
    fields["tags"].set_text("infantry, martyr")
    assert app.apply_inspector()
    m = app.scenario.model("sgt")
    assert (m.side, m.base.length, m.stats, m.tags) == ("blue", 40.0, {"DF": 4.0, "GN": 2.0}, ("infantry", "martyr"))
    fields = app._fields
    fields["base"].set_text("huge")
    assert not app.apply_inspector()
    assert app.message_is_error


def test_choose_ruleset(pilot: Pilot) -> None:
    pilot.app.set_ruleset("robotech")
    assert pilot.app.scenario.ruleset == "robotech"
    pilot.key(pygame.K_z, CTRL)
    assert pilot.app.scenario.ruleset == "none"


def test_fire_none_shows_coverage_report(pilot: Pilot) -> None:
    pilot.key(pygame.K_RETURN)
    assert pilot.app.firing is not None
    pilot.step(3)
    text = pilot.app.results_box.html_text
    assert "affected" in text and "Contested" in text


def test_fire_animates_a_scatter() -> None:
    p = Pilot(SCENARIOS / "robotech-scatter.toml")
    adj = p.app.fire()
    assert adj is not None
    assert p.app.firing.keyframes, "a scatter moves the template step by step"
    p.step(int(p.app.firing.duration * 60) + 5)
    assert p.app.firing.done
    assert p.app.adjudication() is p.app.firing.adjudication
    assert "dice" in p.app.results_box.html_text
    p.close()


def test_what_if_rolls_change_what_fire_does() -> None:
    """The blast aims at pod1, (30", 10") = (762, 254) mm; Dice free (the default) sets the file's rolls
    aside. Seed 1 rolls Strike 2 (a miss: 2 + GN 1 < DF 4) and scatters it 4" in direction 5, 120° from
    the firer's line: (762 - 50.8, 254 + 50.8·√3) mm, hitting nobody. What-if Strike 6 hits pod1 where it
    stands; a what-if miss scattered 2" in direction 1 (straight on) lands at (812.8, 254) and, with
    Strike 6 after the scatter, still catches pod1 (2" from the new centre)."""

    def outcome(p: Pilot) -> tuple[tuple[float, float], list[str], dict[str, tuple[int, bool]]]:
        r = p.app.fire().results[0]
        return r.resolution.placed.focus, sorted(r.resolution.affected), {x.name: (x.total, x.fixed) for x in r.rolls}

    p = Pilot(SCENARIOS / "robotech-scatter.toml")
    try:
        assert p.app.state.seed == 1 and p.app.state.view.odds_dice_free
        focus, affected, rolls = outcome(p)
        assert focus == pytest.approx((711.2, 254 + 50.8 * 3**0.5), abs=1e-9) and affected == []
        assert rolls == {"strike": (2, False), "scatter_direction": (5, False), "scatter_distance": (4, False), "scatter_strike": (1, False)}
        assert p.app.set_what_if("strike=6")
        assert outcome(p) == ((pytest.approx(762.0), pytest.approx(254.0)), ["pod1"], {"strike": (6, True)})
        assert p.app.set_what_if("nonsense") is False and p.app.state.what_if == {"strike": 6}  # refused, the last one kept
        assert p.app.set_what_if("strike=1, scatter_direction=1, scatter_distance=2, scatter_strike=6")
        focus, affected, rolls = outcome(p)
        assert focus == pytest.approx((812.8, 254.0), abs=1e-9) and affected == ["pod1"]
        assert all(fixed for _, fixed in rolls.values()) and rolls["scatter_distance"] == (2, True)
        assert p.app.set_what_if("")  # none: the seeded dice again, the same as the first time
        focus, affected, rolls = outcome(p)
        assert focus == pytest.approx((711.2, 254 + 50.8 * 3**0.5), abs=1e-9) and affected == [] and rolls["strike"] == (2, False)
    finally:
        p.close()


def _drawn_texts(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[str]:
    """Every string ``module.name`` (a text-drawing function taking the string) draws from now on."""
    drawn: list[str] = []
    real = getattr(module, name)

    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        drawn.append(next(a for a in args if isinstance(a, str)))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, recording)
    return drawn


def test_help_overlay_lists_every_shortcut(pilot: Pilot, monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.app import overlays
    from tabletop.app.shortcuts import SHORTCUTS

    drawn = _drawn_texts(monkeypatch, overlays, "text")
    view = pilot.app.view_rect
    corner = (view.left + 3, view.top + 3)
    before = pilot.screen.get_at(corner)
    pilot.key(pygame.K_F1)
    assert pilot.app.state.view.show_help
    # Drawn: the title, and every shortcut's keys and what they do (wrapped, none cut off by the box).
    assert "Keyboard and mouse" in drawn
    lines = " ".join(drawn)
    missing = [(k, w) for k, w in SHORTCUTS if k not in drawn or w not in lines]
    assert missing == [], missing
    # The table behind is shaded: alpha 200 of (10, 12, 16) over it.
    shaded = pilot.screen.get_at(corner)
    for c in range(3):
        assert abs(shaded[c] - round(before[c] * 55 / 255 + (10, 12, 16)[c] * 200 / 255)) <= 2
    pilot.key(pygame.K_ESCAPE)
    assert not pilot.app.state.view.show_help
    drawn.clear()
    pilot.step()
    assert "Keyboard and mouse" not in drawn and tuple(pilot.screen.get_at(corner)) == tuple(before)


@pytest.mark.parametrize("size", [(640, 420), (800, 500), (1280, 800), (1920, 1080)])
def test_help_and_toolbar_fit_any_window(size: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    """No toolbar button is cut off or hidden under another, at the smallest window and up; the help
    overlay stays inside the window and, when it cannot show every shortcut, says how many are left out."""
    from tabletop.app import overlays
    from tabletop.app.layout import APP_TOOLBAR
    from tabletop.app.shortcuts import SHORTCUTS

    p = Pilot(None, size=size)
    try:
        buttons = [b for k, b in p.app.buttons.items() if k != "fire"] + [*p.app.tool_buttons.values(), p.app.demo_menu]
        assert len(buttons) == len(APP_TOOLBAR) + 1  # every item of the toolbar, and "?"
        rects = [b.get_abs_rect() for b in buttons]
        for i, r in enumerate(rects):
            assert 0 <= r.left and r.right <= size[0] and r.bottom <= p.app.view_rect.top, (size, buttons[i])
            assert all(not r.colliderect(o) for o in rects[i + 1 :]), (size, buttons[i])
        boxes: list[pygame.Rect] = []
        real_text = overlays.text

        def spy(surface: pygame.Surface, s: str, pos: tuple[float, float], *args: object, **kw: object) -> pygame.Rect:
            r = real_text(surface, s, pos, *args, **kw)  # type: ignore[arg-type]
            boxes.append(r)
            drawn.append(s)
            return r

        drawn: list[str] = []
        monkeypatch.setattr(overlays, "text", spy)
        p.key(pygame.K_F1)
        assert boxes and all(p.screen.get_rect().contains(r) for r in boxes)
        assert all(not a.colliderect(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
        keys_drawn = sum(k in drawn for k, _ in SHORTCUTS)
        if keys_drawn < len(SHORTCUTS):
            assert any(f"{len(SHORTCUTS) - keys_drawn} more" in s for s in drawn)
        if size >= (800, 500):
            assert keys_drawn == len(SHORTCUTS)
    finally:
        p.close()


def test_ruler_and_loupe(pilot: Pilot) -> None:
    app = pilot.app
    pilot.key(pygame.K_2)
    a, b = app.scenario.model("sgt"), app.scenario.model("r1")
    pilot.drag(pilot.screen_of(a.centre), pilot.screen_of(b.centre))
    reading = app.ruler
    assert reading is not None
    dist = ((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5
    assert reading.centre_mm == pytest.approx(dist)
    assert reading.edge_mm == pytest.approx(dist - 16 - 12.5)
    pilot.key(pygame.K_1)
    pilot.click(pilot.screen_of(app.scenario.model("edge").centre))
    from tabletop.app.overlays import loupe_target

    target = loupe_target(app.scenario.model("edge"), app.placed())
    assert target is not None and target.template_id == "blast"
    assert target.margin_mm == pytest.approx(0.4, abs=1e-6)
    pilot.step()


def test_hover_shows_margin(pilot: Pilot, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hovering "edge" draws its margin against every template, computed by the core: against the blast
    +0.400 mm (6" + 75.6 mm from the blast's centre: 63.5 + 12.5 - 75.6)."""
    from tabletop.contact import model_margin
    from tabletop.draw import models as draw_models

    drawn = _drawn_texts(monkeypatch, draw_models, "_text")
    edge = pilot.app.scenario.model("edge")
    placed = pilot.app.placed()
    assert model_margin(placed["blast"], edge) == pytest.approx(0.4, abs=1e-9)
    pilot.move(pilot.screen_of(edge.centre))
    assert pilot.app.hovered == Ref("model", "edge")
    lines = [t for t in drawn if ": " in t and t.endswith((" mm", "CONTESTED"))]
    assert any(t.startswith("blast: affected  +0.400 mm") for t in lines), lines
    for tid, template in placed.items():
        if tid in {r.template.id for r in pilot.app.live_adjudication().results}:
            margin = f"{model_margin(template, edge):+.3f}"  # then " mm", or " ± u mm" for an estimated template
            assert any(t.startswith(f"{tid}: ") and margin in t for t in lines), (tid, margin, lines)
    drawn.clear()
    pilot.move((pilot.app.view_rect.left + 5, pilot.app.view_rect.top + 5))  # off the base: no margins drawn
    assert pilot.app.hovered is None and not [t for t in drawn if t.startswith("blast: ")]


def test_demo_menu_opens_a_bundled_table(pilot: Pilot) -> None:
    pilot.post(pygame_gui.UI_DROP_DOWN_MENU_CHANGED, text="robotech-volley", ui_element=pilot.app.demo_menu, ui_object_id="#drop_down_menu")
    pilot.step()
    assert pilot.app.scenario == load(SCENARIOS / "robotech-volley.toml")
    assert pilot.app.state.path is None  # a demo opens as a copy


def test_autosave_after_edits_and_recovery_dialog(copy_of_default: Path) -> None:
    from tabletop.app.recovery_dialog import RecoveryDialog

    p = Pilot(copy_of_default, autosave=True)
    sgt = p.app.scenario.model("sgt")
    start = p.screen_of(sgt.centre)
    p.drag(start, (start[0] + 40, start[1]))
    edited = p.app.scenario
    p.step(int(2.2 * 60))
    assert p.app.autosaver.autosave_path.exists()
    assert differences(load(p.app.autosaver.autosave_path), edited) == []
    # Pretend the process died: its lock goes with it, the marker and the autosave stay; another start finds the autosave.
    p.close()
    rec = autosave.find_recovery()
    assert rec is not None
    q = Pilot(DEFAULT, recovery=rec)
    dialogs = windows(q, RecoveryDialog)
    assert dialogs
    q.click(dialogs[0].recover_button.rect.center)
    q.step()
    assert differences(q.app.scenario, edited) == []
    assert q.app.state.dirty and q.app.state.path == str(copy_of_default)
    q.close()


def _template_point_clear_of_bases(scenario, placed, clear_mm: float):  # type: ignore[no-untyped-def]
    """A point well inside ``placed`` with no base within ``clear_mm``, to grab the template rather than a model."""
    import numpy as np

    from tabletop.shapes import template_sdf

    for r in np.linspace(0, placed.shape.reach, 25):
        for a in np.linspace(0, 2 * np.pi, 24, endpoint=False):
            pt = (placed.focus[0] + r * np.cos(a), placed.focus[1] + r * np.sin(a))
            if template_sdf(placed, [pt])[0] < -3 and all(
                np.hypot(pt[0] - m.x, pt[1] - m.y) > m.base.bounding_radius + clear_mm for m in scenario.models
            ):
                return pt
    raise AssertionError("no free point inside the template")


def test_stress_table_follows_the_mouse() -> None:
    p = Pilot(stress_scenario())
    placed = p.app.placed()["t0"]
    focus = placed.focus
    start = p.screen_of(_template_point_clear_of_bases(p.app.scenario, placed, 20 / p.app.viewport.scale))
    p.press(start)
    for i in range(30):
        p.move((start[0] + 3 * i, start[1] + i), (1, 0, 0))
    p.release((start[0] + 90, start[1] + 30))
    moved = p.app.placed()["t0"].focus
    assert moved[0] > focus[0] and moved[1] < focus[1]  # right and down on screen: +x, -y on the table
    assert p.app.adjudication().results[0].resolution.placed.focus == moved
    assert len(p.app.state.history.undo) == 1  # one drag, one undo step
    p.close()


# --------------------------------------------------------------------------- odds (issue 7)

SCATTER = SCENARIOS / "robotech-scatter.toml"
ODDS_TIMEOUT_S = 90.0  # a generous ceiling for a slow CI machine, not a speed check


def _odds_on(p: Pilot) -> None:
    p.key(pygame.K_o, unicode="o")
    assert p.app.state.view.show_odds


def test_odds_toggle_labels_every_model() -> None:
    p = Pilot(SCATTER)
    try:
        assert not p.app.state.view.show_odds and p.app.state.view.odds_dice_free  # dice free by default
        _odds_on(p)
        assert p.app.odds_worker.pending
        assert "odds…" in p.app.odds_status()  # the progress note while the worker runs
        assert p.wait_for_odds(ODDS_TIMEOUT_S)
        odds = p.app.odds_worker.result
        assert odds is not None and odds.scenario is p.app.scenario
        blast = odds.template("blast")
        # Dice free: a hit (Strike 4+ on 1D6 + GN 1 against DF 5) is 1/2; a miss scatters to 6 × 11 points.
        assert blast.exact and len(blast.landing_points) == 67
        assert 0.0 < blast.models["pod3"].p_affected < 1.0
        assert blast.models["pod1"].p_affected > 0.5
        assert p.app.odds_status() == "odds ready"
        # The overlay is drawn: the legend's title colour is on screen.
        view = p.app.view_rect
        shot = pygame.surfarray.array3d(p.screen)[view.left : view.right, view.top : view.bottom]
        assert ((shot[..., 0] == 255) & (shot[..., 1] == 214) & (shot[..., 2] == 90)).any()
        # Moving the target asks again; the new result belongs to the new table.
        before = p.app.scenario
        pod1 = p.app.scenario.model("pod1")
        from tabletop.app.state import MoveModel

        p.app.dispatch(MoveModel("pod1", pod1.x + 30, pod1.y))
        p.step()
        assert p.app.odds_worker.pending
        assert p.wait_for_odds(ODDS_TIMEOUT_S)
        assert p.app.odds_worker.result is not None and p.app.odds_worker.result.scenario is not before
        # Off: the result is forgotten, the worker stays for next time.
        p.key(pygame.K_o, unicode="o")
        assert not p.app.state.view.show_odds and p.app.odds_worker.result is None and p.app.odds_status() == ""
    finally:
        p.close()


def test_odds_dice_free_toggle_keeps_the_files_rolls() -> None:
    p = Pilot(SCATTER)
    try:
        _odds_on(p)
        p.key(pygame.K_o, mod=SHIFT, unicode="O")
        assert not p.app.state.view.odds_dice_free
        assert p.wait_for_odds(ODDS_TIMEOUT_S)
        odds = p.app.odds_worker.result
        assert odds is not None
        # The file fixes every roll: one outcome, the scatter of the file (pod3 and the Spartan hit, pod1 missed).
        blast = odds.template("blast")
        assert blast.outcomes == 1
        assert blast.models["pod3"].p_affected == 1.0 and blast.models["pod1"].p_affected == 0.0
        # The toolbar button turns dice free back on.
        p.app._button(p.app.buttons["dice_free"])
        assert p.app.state.view.odds_dice_free
    finally:
        p.close()


def test_superseded_odds_result_is_ignored() -> None:
    from tabletop.app.state import MoveModel

    p = Pilot(SCATTER)
    try:
        _odds_on(p)
        w = p.app.odds_worker
        for _ in range(200):  # the debounce is counted in frames of 1/60 s
            if w.submitted:
                break
            p.step()
        assert w.submitted == 1 and w.running
        first = p.app.scenario
        pod3 = first.model("pod3")
        p.app.dispatch(MoveModel("pod3", pod3.x + 25.4, pod3.y))  # before the first job can have answered
        assert p.wait_for_odds(ODDS_TIMEOUT_S)
        assert w.stale_dropped >= 1  # the first job's answer came back and was dropped
        assert w.submitted == 2
        assert w.result is not None and w.result.scenario is p.app.scenario and w.result.scenario is not first
    finally:
        p.close()


def test_odds_worker_is_shut_down_on_close() -> None:
    p = Pilot(SCATTER)
    _odds_on(p)
    assert p.wait_for_odds(ODDS_TIMEOUT_S)
    w = p.app.odds_worker
    assert w.alive
    processes = [w.process]
    assert processes and all(proc is not None and proc.is_alive() for proc in processes)
    p.close()
    assert not w.alive
    for proc in processes:
        proc.join(timeout=10)
        assert not proc.is_alive()


def test_quit_shuts_the_odds_worker_down() -> None:
    p = Pilot(SCATTER)
    try:
        _odds_on(p)
        assert p.wait_for_odds(ODDS_TIMEOUT_S)
        p.key(pygame.K_q, mod=CTRL)
        assert not p.app.running and not p.app.odds_worker.alive
    finally:
        p.close()


# --------------------------------------------------------------------------- Infinity side view (issue 4)


def test_infinity_side_view_of_the_selected_template() -> None:
    p = Pilot(SCENARIOS / "infinity-hellcat.toml")
    try:
        assert p.app.elevation() is None  # nothing selected
        p.app.dispatch(Select(Ref("template", "shot1")))
        p.step()
        profile = p.app.elevation()
        assert profile is not None
        assert [t.id for t in profile.troopers] == ["fus1", "fus2", "fus3"]  # in order along the axis
        assert all(t.reached and t.silhouette == "S2" and (t.bottom, t.top) == (0.0, 40.0) for t in profile.troopers)
        assert profile.height == pytest.approx(22.225)
        rect = p.app.side_view_rect  # docked where it covers no base and no label
        corner = (rect.right - 1, rect.bottom - 1)  # the panel's accent border
        assert tuple(p.screen.get_at(corner))[:3] == (255, 214, 90)
        p.key(pygame.K_e, unicode="e")
        assert not p.app.state.view.show_elevation
        assert tuple(p.screen.get_at(corner))[:3] != (255, 214, 90)
        # Other rulesets have no side view.
        p.app.dispatch(Select(None))
        p.app.set_ruleset("none")
        p.app.dispatch(Select(Ref("template", "shot1")))
        assert p.app.elevation() is None
    finally:
        p.close()


# --------------------------------------------------------------------------- results panel per ruleset (issues 4/5/6)

PANEL_TEXT = {
    "infinity-hellcat": ["dodge PH (10)", "dodge PH-3 (7)", "cannot shoot back"],
    "infinity-hellcat-split": ["NULLIFIED", "Alguacil (alguacil) is a friendly trooper"],
    "robotech-hit": ["Strike 5 (GN 1): hit", "10 → 0 MD", "Command Points spent"],
    "robotech-scatter": ["Strike 3 (GN 1): miss", "scatter: direction 2"],
    "robotech-volley": ["Inescapable", "24 → 12 MD"],
    "wwpd-battery-t": ["unit squad_a: 3 hits", "no Leadership test"],
    "wwpd-friendly-fire": ["Leadership test for mortars"],
    "wwpd-behind-building": ["NOT ALLOWED", "not in line of sight"],
    "increments-circle": ["m1: 8 damage (ring 0)"],
    "increments-cone": ["c1: 2 damage (ring 1)"],
    "increments-contained": ["contained by cabin"],
    "increments-wall": ["blocked by wall"],
    "catastrophic-chain": ["EXPLODES (critical): RAV 2, AOE/2", "set off by scout", "VP: bomber counts as destroyed by red"],
    "catastrophic-dictator": ["Catastrophic Failure"],
    "catastrophic-martyr": ["(+1 Martyr)"],
    "catastrophic-assassin": ["EXPLODES (self destruct)"],
    "default": ["affected:"],
}


@pytest.mark.parametrize("name", sorted(PANEL_TEXT))
def test_results_panel_shows_the_ruleset_live_and_after_fire(name: str) -> None:
    import html

    p = Pilot(SCENARIOS / f"{name}.toml")
    try:
        p.step()
        live = html.unescape(p.app.results_box.html_text)
        for want in PANEL_TEXT[name]:
            assert want in live, (want, live)
        p.key(pygame.K_o, mod=SHIFT, unicode="O")  # Dice free off: Fire replays the file's fixed rolls
        assert not p.app.state.view.odds_dice_free
        p.key(pygame.K_RETURN)
        p.step(int(4 / (1 / 60)))  # let the animation run out
        fired = html.unescape(p.app.results_box.html_text)
        assert "Fired" in fired
        for want in PANEL_TEXT[name]:
            assert want in fired, (want, fired)
    finally:
        p.close()


def test_panel_text_covers_every_bundled_scenario() -> None:
    assert {p.stem for p in SCENARIOS.glob("*.toml")} == set(PANEL_TEXT)
