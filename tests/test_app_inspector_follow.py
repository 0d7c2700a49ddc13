"""The inspector follows a template's drop, turn and undo in place: its widgets are not rebuilt each time (rebuilt,
they took a third of the soak's time), and what it shows stays true."""

from __future__ import annotations

import math

import pygame

from tabletop.app.pilot import Pilot
from tabletop.app.state import Ref, Select, Undo
from tabletop.model import At, Direct

from .conftest import SCENARIOS


def test_dragging_and_turning_a_free_template_keeps_its_fields_and_follows_its_heading() -> None:
    p = Pilot(SCENARIOS / "default.toml")
    try:
        app = p.app
        app.dispatch(Select(Ref("template", "blast")))
        p.step()
        heading, shape = app._fields["heading"], app._fields["shape"]
        assert heading.get_text() == "0"
        start = app.placed()["blast"].focus
        a, b = p.screen_of(start), p.screen_of((start[0] + 40.0, start[1] + 25.0))
        p.press(a)
        for k in range(1, 6):
            p.move((a[0] + (b[0] - a[0]) * k // 5, a[1] + (b[1] - a[1]) * k // 5), (1, 0, 0))
            p.step()
            assert app._fields["heading"] is heading and app._fields["shape"] is shape  # the same widgets
        p.release(b)
        p.step()
        placement = app.scenario.template("blast").placement
        assert isinstance(placement, At) and math.hypot(placement.x - start[0], placement.y - start[1]) > 20.0
        p.key(pygame.K_r)  # R turns 15 degrees
        p.step()
        assert app._fields["heading"] is heading and heading.get_text() == "15"
        p.key(pygame.K_z, mod=pygame.KMOD_CTRL)  # undo the turn: the field follows back
        p.step()
        assert heading.get_text() == "0"
        p.key(pygame.K_r, mod=pygame.KMOD_SHIFT)  # Shift+R turns 15 degrees back
        p.step()
        assert heading.get_text() == "345"
    finally:
        p.close()


def test_a_typed_heading_is_kept_while_the_template_moves_and_applies_with_enter() -> None:
    p = Pilot(SCENARIOS / "default.toml")
    try:
        app = p.app
        app.dispatch(Select(Ref("template", "flame")))
        p.step()
        heading = app._fields["heading"]
        assert heading.get_text() == "65"
        p.click(heading.rect.center)
        heading.set_text("")
        p.type("100")
        p.step()
        assert heading.get_text() == "100"  # being typed: not overwritten by the follower
        p.key(pygame.K_RETURN)
        p.step()
        placement = app.scenario.template("flame").placement
        assert isinstance(placement, Direct) and placement.heading == 100.0
        assert app._fields["heading"].get_text() == "100"
    finally:
        p.close()


def test_another_template_shows_its_own_fields_in_the_same_widgets_and_another_kind_rebuilds() -> None:
    """One template after another has the same rows: the widgets are kept and their words changed (making pygame_gui's
    widgets afresh cost ~10 ms a change of selection, a quarter of the soak's time); a model has other rows: rebuilt."""
    p = Pilot(SCENARIOS / "default.toml")
    try:
        app = p.app
        app.dispatch(Select(Ref("template", "blast")))
        p.step()
        first, heading = app._fields["shape"], app._inspector_texts[0][0]
        blast_title = heading.text
        app.dispatch(Select(Ref("template", "flame")))
        p.step()
        assert app._fields["shape"] is first and app._fields["shape"].get_text() == "infinity_large_teardrop"
        assert app._fields["heading"].get_text() == "65"
        assert app._inspector_texts[0][0] is heading and heading.text != blast_title and "flame" in heading.text
        model = app.scenario.models[0]
        app.dispatch(Select(Ref("model", model.id)))
        p.step()
        assert "shape" not in app._fields and first not in app._inspector and not first.alive()
        assert app._fields["id"].get_text() == model.id
    finally:
        p.close()


def test_one_model_after_another_shows_each_ones_fields_and_edits_the_right_one() -> None:
    """The widgets kept from one model to the next: every field shows the new model's value, an edit applies to it
    alone, and what was typed for the model before is not carried to it."""
    p = Pilot(SCENARIOS / "default.toml")
    try:
        app = p.app
        a, b = app.scenario.models[0], app.scenario.models[1]
        app.dispatch(Select(Ref("model", a.id)))
        p.step()
        name = app._fields["name"]
        p.click(name.rect.center)
        p.type("half typed")
        p.step()
        app.dispatch(Select(Ref("model", b.id)))
        p.step()
        assert app._fields["name"] is name and not name.is_focused
        b_now = app.scenario.model(b.id)
        for field, want in (("name", b_now.name or ""), ("id", b_now.id), ("side", b_now.side or ""), ("place", "")):
            assert app._fields[field].get_text() == want, field
        p.click(app._fields["side"].rect.center)
        app._fields["side"].set_text("")
        p.type("neutral")
        p.key(pygame.K_RETURN)
        p.step()
        assert app.scenario.model(b.id).side == "neutral" and app.scenario.model(a.id) == a
    finally:
        p.close()


def test_a_focused_but_untouched_heading_follows_an_undo_so_enter_does_not_undo_it_again() -> None:
    """The Heading field clicked (focused) but not typed in, then the turn undone: the field shows the heading the
    template has, so Enter applies nothing stale."""
    p = Pilot(SCENARIOS / "default.toml")
    try:
        app = p.app
        app.dispatch(Select(Ref("template", "blast")))
        p.step()
        p.key(pygame.K_r)
        p.step()
        heading = app._fields["heading"]
        assert heading.get_text() == "15"
        p.click(heading.rect.center)
        assert heading.is_focused
        app.dispatch(Undo())  # as Ctrl+Z does (a focused field takes the keys)
        p.step()
        assert heading.get_text() == "0"
        p.key(pygame.K_RETURN)
        p.step()
        placement = app.scenario.template("blast").placement
        assert isinstance(placement, At) and placement.heading == 0.0
    finally:
        p.close()


def test_turning_a_model_keeps_its_fields_and_its_facing_follows_unless_typed_in() -> None:
    """The gunner faces 90 degrees (default.toml). R turns the selected model 15 degrees counter-clockwise (105), Ctrl+Z
    turns it back (90), Shift+R turns it 1 degree (91; the Facing field's tip says so): the same Facing widget shows each, and the panel's
    other widgets are not rebuilt. A facing the user is typing is left alone by a turn, and Enter applies it."""
    p = Pilot(SCENARIOS / "default.toml")
    try:
        app = p.app
        app.dispatch(Select(Ref("model", "gunner")))
        p.step()
        facing, name = app._fields["facing"], app._fields["name"]
        assert facing.get_text() == "90"
        for keys, shown in (((pygame.K_r, 0),), "105"), (((pygame.K_z, pygame.KMOD_CTRL),), "90"), (((pygame.K_r, pygame.KMOD_SHIFT),), "91"):
            for key, mod in keys:
                p.key(key, mod=mod)
            p.step()
            assert app._fields["facing"] is facing and app._fields["name"] is name
            assert facing.get_text() == shown
            assert app.scenario.model("gunner").facing == float(shown)
        p.click(facing.rect.center)
        facing.set_text("")
        p.type("200")
        p.step()
        app.dispatch(Undo())  # the Shift+R turn undone under the typing: the typed text stays
        p.step()
        assert app.scenario.model("gunner").facing == 90.0 and facing.get_text() == "200"
        p.key(pygame.K_RETURN)
        p.step()
        assert app.scenario.model("gunner").facing == 200.0
    finally:
        p.close()
