"""The newcomer's bug list of issue 16, one test (or more) per bug, through real pygame events."""

from __future__ import annotations

import warnings
from pathlib import Path

import pygame
import pytest

from tabletop.app.pilot import Pilot
from tabletop.scenario_io import load

from .conftest import SCENARIOS
from .scenario_compare import differences

DEFAULT = SCENARIOS / "default.toml"
CTRL = pygame.KMOD_LCTRL


@pytest.fixture()
def pilot():  # type: ignore[no-untyped-def]
    p = Pilot(DEFAULT)
    yield p
    p.close()


# --------------------------------------------------------------------------- the Demo tables drop-down


def test_demo_menu_opens_over_the_table_and_an_item_is_clicked(pilot: Pilot) -> None:
    menu = pilot.app.demo_menu
    pilot.click(menu.rect.center)
    pilot.step(2)
    selection = menu.current_state.options_selection_list  # type: ignore[attr-defined]
    # The list opens down over the table, long enough to show items (it was a 3 px sliver).
    assert selection.rect.top >= menu.rect.bottom - 4 and selection.rect.height > 200
    item = next(i for i in selection.item_list if i["text"] == "robotech-volley")
    assert item["button_element"] is not None
    target = item["button_element"].rect
    assert pilot.app.view_rect.contains(target) or target.top > pilot.app.view_rect.top
    pilot.move(target.center)
    pilot.click(target.center)
    pilot.step(3)  # the list's selection, then the drop-down's change, then the app opens the table
    assert pilot.app.scenario.title == load(SCENARIOS / "robotech-volley.toml").title
    assert pilot.app.state.path is None  # a demo opens as a copy


def test_widgets_under_the_drop_down_layer_still_take_clicks(pilot: Pilot) -> None:
    """The drop-down's layer covers the window but takes no hover: the table and the panel still work."""
    sergeant = pilot.app.scenario.model("sgt")
    pilot.click(pilot.screen_of(sergeant.centre))
    assert pilot.app.state.selection is not None and pilot.app.state.selection.id == sergeant.id
    odds = pilot.app.buttons["odds"]
    pilot.click(odds.rect.center)
    pilot.step()
    assert pilot.app.state.view.show_odds


# --------------------------------------------------------------------------- font warnings


def test_no_font_warnings_at_start_nor_in_the_first_frames() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = Pilot(DEFAULT)
        try:
            p.step(3)
            p.click(p.app.demo_menu.rect.center)  # the drop-down's list
            p.step(2)
            p.key(pygame.K_ESCAPE)
            p.key(pygame.K_n, mod=CTRL)  # nothing unsaved: a new table; then a dialog's fonts
            p.key(pygame.K_o, mod=CTRL)
            p.step(3)
        finally:
            p.close()
    fonts = [str(w.message) for w in caught if "font" in str(w.message).lower()]
    assert fonts == []


# --------------------------------------------------------------------------- a click is not a drag


def _point_on(p: Pilot, template_id: str, along_mm: float) -> tuple[int, int]:
    """A pixel on ``template_id``, ``along_mm`` from its attacker's centre along its heading, clear of bases."""
    import math

    from tabletop.app.hit import item_at, model_at

    t = p.app.scenario.template(template_id)
    attacker = p.app.scenario.model(t.placement.attacker)  # type: ignore[union-attr]
    h = math.radians(t.placement.heading)  # type: ignore[union-attr]
    world = (attacker.x + along_mm * math.cos(h), attacker.y + along_mm * math.sin(h))
    pos = p.screen_of(world)
    w = p.app.viewport.to_world(*pos)
    assert model_at(p.app.scenario, w[0], w[1], p.app.slack_mm()) is None
    ref = item_at(p.app.scenario, p.app.placed(), w[0], w[1], p.app.slack_mm())
    assert ref is not None and ref.id == template_id
    return pos


@pytest.mark.parametrize("along_mm", [55.0, 70.0])
def test_clicking_a_direct_teardrop_changes_nothing(pilot: Pilot, along_mm: float) -> None:
    before = pilot.app.scenario
    pos = _point_on(pilot, "flame", along_mm)
    for _ in range(2):  # select it, then click it again while selected
        pilot.click(pos)
        pilot.step()
        assert pilot.app.state.selection is not None and pilot.app.state.selection.id == "flame"
        assert pilot.app.scenario.template("flame").placement.heading == 65  # type: ignore[union-attr]
        assert pilot.app.scenario is before and not pilot.app.state.dirty
        assert not pilot.app.state.history.can_undo


def test_a_small_wobble_is_still_a_click_but_a_drag_re_aims(pilot: Pilot) -> None:
    pos = _point_on(pilot, "flame", 60.0)
    pilot.drag(pos, (pos[0] + 2, pos[1] - 1), steps=2)
    assert not pilot.app.state.dirty and pilot.app.scenario.template("flame").placement.heading == 65  # type: ignore[union-attr]
    pilot.drag(pos, (pos[0] + 40, pos[1]), steps=6)
    assert pilot.app.state.dirty and pilot.app.scenario.template("flame").placement.heading != 65  # type: ignore[union-attr]
    pilot.key(pygame.K_z, mod=CTRL)
    assert not pilot.app.state.dirty and pilot.app.scenario.template("flame").placement.heading == 65  # type: ignore[union-attr]


def test_clicking_models_templates_and_buildings_changes_nothing(pilot: Pilot) -> None:
    s = pilot.app.scenario
    inch = 25.4
    # a base, the free blast away from its bases, the crates (a building)
    targets = [s.model("sgt").centre, (6 * inch, 11 * inch), (9.75 * inch, 4.5 * inch)]
    for world in targets:
        pos = pilot.screen_of(world)
        pilot.click(pos)
        pilot.step()
        assert pilot.app.state.selection is not None
        assert pilot.app.scenario is s and not pilot.app.state.dirty and not pilot.app.state.history.can_undo


# --------------------------------------------------------------------------- the results panel during a drag


def test_results_panel_follows_the_live_answer_during_a_drag(pilot: Pilot) -> None:
    from tabletop.app.results_panel import results_html

    inch = 25.4
    before = pilot.app.results_box.html_text
    assert "Sergeant" in before
    start, end = pilot.screen_of((6 * inch, 9.6 * inch)), pilot.screen_of((10 * inch, 15 * inch))
    pilot.press(start)
    for i in range(1, 9):
        pilot.move((start[0] + (end[0] - start[0]) * i // 8, start[1] + (end[1] - start[1]) * i // 8), (1, 0, 0))
    pilot.step(20)  # a third of a second with the button still held
    assert pilot.app.dragging
    live = results_html(pilot.app.live_adjudication(), fired=False, errors=pilot.app.live.errors, dice_free=pilot.app.state.view.odds_dice_free)
    assert pilot.app.results_box.html_text == live != before
    pilot.release(end)


# --------------------------------------------------------------------------- Seed and What-if apply on focus loss


def _type_into(p: Pilot, entry, text: str) -> None:  # type: ignore[no-untyped-def]
    """Click the box, clear it with Backspace, type ``text`` (real key and text-input events)."""
    p.click(entry.rect.center)
    assert entry.is_focused
    p.key(pygame.K_END)
    for _ in range(len(entry.get_text())):
        p.key(pygame.K_BACKSPACE)
    for ch in text:
        p.post(pygame.TEXTINPUT, text=ch)
        p.step()
    assert entry.get_text() == text


def test_seed_typed_applies_when_the_box_loses_focus(pilot: Pilot) -> None:
    _type_into(pilot, pilot.app.seed_entry, "42")
    assert pilot.app.state.seed == 1  # still typing
    pilot.click(pilot.screen_of((2 * 25.4, 2 * 25.4)))  # the empty table takes the focus
    assert not pilot.app.seed_entry.is_focused
    assert pilot.app.state.seed == 42 and pilot.app.live.seed == 42


def test_fire_clicked_right_after_typing_a_seed_uses_it(pilot: Pilot) -> None:
    _type_into(pilot, pilot.app.seed_entry, "7")
    pilot.click(pilot.app.buttons["fire"].rect.center)
    pilot.step()
    assert pilot.app.firing is not None and pilot.app.firing.adjudication.seed == 7


def test_what_if_applies_on_focus_loss_and_a_bad_seed_is_refused(pilot: Pilot) -> None:
    _type_into(pilot, pilot.app.whatif_entry, "roll=5")
    pilot.click(pilot.screen_of((2 * 25.4, 2 * 25.4)))
    assert pilot.app.state.what_if == {"roll": 5}
    _type_into(pilot, pilot.app.seed_entry, "12x")
    pilot.click(pilot.screen_of((2 * 25.4, 2 * 25.4)))
    assert pilot.app.state.seed == 1 and pilot.app.seed_entry.get_text() == "1"
    assert pilot.app.message_is_error and "seed" in pilot.app.message.lower()


# --------------------------------------------------------------------------- Dice free: the button and Fire agree


def _fire(p: Pilot):  # type: ignore[no-untyped-def]
    p.click(p.app.buttons["fire"].rect.center)
    p.step()  # the button's press event
    assert p.app.firing is not None
    p.step(int(p.app.firing.duration * 60) + 3)  # the animation runs out
    assert p.app.firing.done
    return p.app.firing.adjudication


def _highlighted(p: Pilot) -> bool:
    b = p.app.buttons["dice_free"]
    return bool(b.object_ids) and b.object_ids[-1] == "#tool_active"


def test_dice_free_button_and_fire_agree() -> None:
    p = Pilot(SCENARIOS / "robotech-scatter.toml")
    try:
        # Dice free by default (as the odds): the button is lit and Fire rolls every die.
        assert p.app.state.view.odds_dice_free and _highlighted(p)
        rolls = [rec for r in _fire(p).results for rec in r.rolls]
        assert rolls and not any(rec.fixed for rec in rolls)
        assert "dice free" in p.app.results_box.html_text
        # Off: the button goes dark and Fire replays the file's fixed rolls (the worked example).
        p.click(p.app.buttons["dice_free"].rect.center)
        p.step()
        assert not p.app.state.view.odds_dice_free and not _highlighted(p)
        adj = _fire(p)
        rolls = [rec for r in adj.results for rec in r.rolls]
        fixed = {rec.name: rec.total for rec in rolls if rec.fixed}
        assert fixed.get("strike") == 2 and fixed.get("scatter_direction") == 2
        assert "the file&#x27;s fixed rolls" in p.app.results_box.html_text or "the file's fixed rolls" in p.app.results_box.html_text
        # Typed what-if rolls count either way.
        p.key(pygame.K_o, mod=pygame.KMOD_LSHIFT, unicode="O")
        assert p.app.state.view.odds_dice_free and _highlighted(p)
        assert p.app.set_what_if("strike=6")
        rolls = {rec.name: rec for r in _fire(p).results for rec in r.rolls}
        assert rolls["strike"].fixed and rolls["strike"].total == 6
        assert not any(rec.fixed for name, rec in rolls.items() if name != "strike")
    finally:
        p.close()


# --------------------------------------------------------------------------- unsaved changes: Save / Discard / Cancel


def _unsaved_dialogs(p: Pilot) -> list:  # type: ignore[type-arg]
    from tabletop.app.widgets import UnsavedChangesDialog

    return [w for w in p.app.ui.get_root_container().elements if isinstance(w, UnsavedChangesDialog) and w.alive()]


def _edit(p: Pilot) -> None:
    start = p.screen_of(p.app.scenario.model("sgt").centre)
    p.drag(start, (start[0] + 40, start[1]))
    assert p.app.state.dirty


@pytest.fixture()
def table(tmp_path: Path) -> Path:
    dst = tmp_path / "table.toml"
    dst.write_text(DEFAULT.read_text())
    return dst


def test_new_with_unsaved_changes_offers_save_which_saves_then_starts_the_new_table(table: Path) -> None:
    p = Pilot(table)
    try:
        _edit(p)
        edited = p.app.scenario
        p.click(p.app.buttons["new"].rect.center)
        p.step()
        (dialog,) = _unsaved_dialogs(p)
        assert [b.text for b in (dialog.save_button, dialog.discard_button, dialog.cancel_button)] == ["Save", "Discard", "Cancel"]
        p.click(dialog.save_button.rect.center)
        p.step()
        assert differences(load(table), edited) == []  # saved first …
        assert p.app.scenario.models == () and not p.app.state.dirty  # … then the new table
        assert not _unsaved_dialogs(p)
    finally:
        p.close()


def test_quit_save_on_a_table_without_a_file_asks_where_then_quits(tmp_path: Path) -> None:
    import pygame_gui
    from pygame_gui.windows import UIFileDialog

    p = Pilot(load(DEFAULT))  # no path: a table never saved
    try:
        _edit(p)
        edited = p.app.scenario
        p.post(pygame.QUIT)
        p.step()
        p.click(_unsaved_dialogs(p)[0].save_button.rect.center)
        p.step()
        assert p.app.running
        (files,) = [w for w in p.app.ui.get_root_container().elements if isinstance(w, UIFileDialog) and w.alive()]
        target = tmp_path / "kept"
        p.post(pygame_gui.UI_FILE_DIALOG_PATH_PICKED, text=str(target), ui_element=files, ui_object_id="#file_dialog")
        p.step()
        assert differences(load(tmp_path / "kept.toml"), edited) == []
        assert not p.app.running
    finally:
        p.close()


def test_save_that_fails_stays_and_cancel_keeps_everything(table: Path) -> None:
    from pygame_gui.windows import UIMessageWindow

    p = Pilot(table)
    try:
        _edit(p)
        edited = p.app.scenario
        # Cancel: nothing happens.
        p.key(pygame.K_n, mod=CTRL)
        p.click(_unsaved_dialogs(p)[0].cancel_button.rect.center)
        p.step()
        assert not _unsaved_dialogs(p) and p.app.scenario is edited and p.app.state.dirty
        # Saving fails (the folder is gone): a message, and the table stays, unsaved.
        table.unlink()
        table.parent.rename(table.parent.with_name(table.parent.name + "-gone"))
        p.post(pygame.QUIT)
        p.step()
        p.click(_unsaved_dialogs(p)[0].save_button.rect.center)
        p.step()
        assert p.app.running and p.app.scenario is edited and p.app.state.dirty
        assert [w for w in p.app.ui.get_root_container().elements if isinstance(w, UIMessageWindow) and w.alive()]
    finally:
        p.close()


# --------------------------------------------------------------------------- the odds worker dies with the app

APP_WITH_ODDS = """
import sys
from tabletop.app import window
from tabletop.app.odds_worker import OddsRequest
samples, wait_for_result = int(sys.argv[2]), sys.argv[3] == "idle"
window.TabletopApp.odds_request = lambda self: OddsRequest(self.scenario, self.state.seed, True, samples)
frames = {"n": 0, "said": False}
update = window.TabletopApp.update
def injected(self, dt):
    frames["n"] += 1
    if frames["n"] == 3:
        self.toggle_odds()
    update(self, dt)
    w = self.odds_worker
    ready = w.result is not None if wait_for_result else w.running
    if w.process is not None and ready and not frames["said"]:
        frames["said"] = True
        print(w.process.pid, flush=True)
window.TabletopApp.update = injected
sys.exit(window.run(sys.argv[1]))
"""


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.add(int(stat.parent.name))
    return out


def _running(pid: int) -> bool:
    """``pid`` exists and is not a zombie waiting to be reaped."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize(("state", "samples"), [("idle", 500), ("busy", 20000)])
def test_the_odds_worker_and_the_resource_tracker_die_with_a_killed_app(state: str, samples: int) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    from .conftest import ROOT

    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1")
    scenario = SCENARIOS / "robotech-volley.toml"
    from .xvfb import kill_group, popen_group

    app = popen_group([sys.executable, "-c", APP_WITH_ODDS, str(scenario), str(samples), state], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert app.stdout is not None
        line = app.stdout.readline().strip()
        assert line.isdigit(), app.stderr.read() if app.stderr else line
        worker = int(line)
        children = _children(app.pid)
        assert worker in children and _running(worker)
        commands = {c: Path(f"/proc/{c}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace") for c in children}
        assert any("resource_tracker" in cmd for cmd in commands.values()), commands  # the tracker is checked too
        app.send_signal(signal.SIGKILL)
        app.wait(10)
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline and any(_running(c) for c in children):
            time.sleep(0.1)
        assert not [c for c in children if _running(c)], "left behind after the app was killed"
    finally:
        kill_group(app)  # the app and whatever it left in its group, whatever happened


# --------------------------------------------------------------------------- stale display


def test_could_not_open_the_file_goes_with_its_dismiss(pilot: Pilot, tmp_path: Path) -> None:
    from pygame_gui.windows import UIMessageWindow

    bad = tmp_path / "bad.toml"
    bad.write_text('format = 1\n[table]\nwidth = 24\ndepth = "lots"\n')
    assert not pilot.app.open_file(str(bad))
    pilot.step()
    (window,) = [w for w in pilot.app.ui.get_root_container().elements if isinstance(w, UIMessageWindow) and w.alive()]
    assert pilot.app.message == "Could not open the file"
    pilot.click(window.dismiss_button.rect.center)
    pilot.step(2)
    assert not window.alive()
    assert pilot.app.message == ""  # the status bar no longer says it


def test_hover_tooltip_follows_an_undo(pilot: Pilot) -> None:
    sgt = pilot.app.scenario.model("sgt")
    start = pilot.screen_of(sgt.centre)
    end = (start[0] + 60, start[1] - 60)
    pilot.drag(start, end)
    pilot.move(end)
    assert pilot.app.hovered is not None and pilot.app.hovered.id == "sgt"
    pilot.key(pygame.K_z, mod=CTRL)  # the Sergeant goes back: the mouse is over empty table now
    assert pilot.app.scenario.model("sgt").centre == sgt.centre
    assert pilot.app.hovered is None or pilot.app.hovered.id != "sgt"
    assert pilot.app._draw_options().hovered != "sgt"


def test_hover_tooltip_hides_while_a_dialog_is_open(pilot: Pilot) -> None:
    sgt = pilot.app.scenario.model("sgt")
    start = pilot.screen_of(sgt.centre)
    pilot.drag(start, (start[0] + 30, start[1]))
    pilot.move((start[0] + 30, start[1]))
    assert pilot.app.hovered is not None and pilot.app._draw_options().hovered == "sgt"
    pilot.key(pygame.K_n, mod=CTRL)  # unsaved: the dialog opens over the table
    assert _unsaved_dialogs(pilot)
    assert pilot.app._draw_options().hovered is None
    pilot.click(_unsaved_dialogs(pilot)[0].cancel_button.rect.center)
    pilot.step()
    assert pilot.app._draw_options().hovered is None  # not back until the mouse moves on the table


def test_ruler_reading_goes_when_select_is_chosen_again(pilot: Pilot) -> None:
    a, b = pilot.screen_of((2 * 25.4, 2 * 25.4)), pilot.screen_of((8 * 25.4, 2 * 25.4))
    pilot.click(pilot.app.tool_buttons["ruler"].rect.center)
    pilot.step()
    pilot.drag(a, b)
    assert pilot.app.ruler is not None
    pilot.click(pilot.app.tool_buttons["select"].rect.center)
    pilot.step()
    assert pilot.app.state.tool == "select" and pilot.app.ruler is None
    pilot.key(pygame.K_2)
    pilot.drag(a, b)
    assert pilot.app.ruler is not None
    pilot.key(pygame.K_1)
    assert pilot.app.ruler is None


# --------------------------------------------------------------------------- refusals in the app's words


def test_robotech_refusal_of_a_direct_template_names_the_impact_tool_and_its_attacker(pilot: Pilot) -> None:
    import html

    pilot.app.set_ruleset("robotech")  # the default table under Robotech: a free blast and a Direct teardrop
    pilot.step(20)
    text = html.unescape(pilot.app.results_box.html_text)
    assert "impact = {" not in text and "needs an attacker" not in text
    assert "Use the Impact tool (3): click Flamer, then the target" in text  # the teardrop has an attacker: named
    assert "aimed Direct from Flamer" in text
    assert "Use the Impact tool (3): click the attacker" in text  # the free blast has none
    drawn = pilot.app._in_app_words(pilot.app.adjudication())
    reasons = {r.template.id: r.resolution.reason for r in drawn.results}
    assert all(reason is not None and reason.startswith("Use the Impact tool (3)") for reason in reasons.values())
    assert pilot.app._in_app_words(pilot.app.adjudication()) is drawn  # cached while the table is unchanged


def test_app_reason_leaves_other_refusals_alone() -> None:
    from tabletop.adjudicate import adjudicate
    from tabletop.app.advice import app_reason, for_the_app

    s = load(SCENARIOS / "infinity-hellcat-split.toml")
    adj = adjudicate(s)
    assert for_the_app(adj) is adj  # "is a friendly trooper" is already about the table
    t = s.templates[0]
    assert app_reason(s, t, "the point of impact is beyond the weapon's range of 30\"") == "the point of impact is beyond the weapon's range of 30\""
    assert app_reason(s, t, None) is None
