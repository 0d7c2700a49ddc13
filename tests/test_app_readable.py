"""Issue 33's "hard to read or stale" list, on the app's side: nothing cut, nothing stale."""

from __future__ import annotations

import warnings
from typing import Any

import pygame
import pytest

from tabletop.app import overlays
from tabletop.app.pilot import Pilot
from tabletop.app.state import Ref, Select
from tabletop.app.status_bar import wrap_words
from tabletop.app.widgets import text_width

from .conftest import SCENARIOS

DEFAULT = SCENARIOS / "default.toml"


@pytest.fixture()
def pilot():  # type: ignore[no-untyped-def]
    p = Pilot(DEFAULT)
    yield p
    p.close()


def drawn_texts(p: Pilot, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, pygame.Rect, tuple[int, int, int]]]:
    """Every string the app's overlays draw in one frame, with where and in what colour."""
    seen: list[tuple[str, pygame.Rect, tuple[int, int, int]]] = []
    real = overlays.text

    def text(surface: Any, s: str, pos: Any, colour: Any = overlays.PAPER, *a: Any, **k: Any) -> pygame.Rect:
        rect = real(surface, s, pos, colour, *a, **k)
        seen.append((s, rect, tuple(colour)))
        return rect

    monkeypatch.setattr(overlays, "text", text)
    p.step()
    monkeypatch.setattr(overlays, "text", real)
    return seen


# --------------------------------------------------------------------------- Demo tables


def test_demo_tables_names_are_whole_and_the_list_stays_over_the_table(pilot: Pilot) -> None:
    menu = pilot.app.demo_menu
    pilot.click(menu.rect.center)
    pilot.step(2)
    listing = menu.current_state.options_selection_list
    assert listing.rect.right <= pilot.app.view_rect.right, "the list does not cover the side panel"
    assert listing.rect.left >= 0 and listing.rect.bottom <= pilot.app.size[1]
    for item in listing.item_list:
        button = item["button_element"]
        assert button is not None
        assert text_width(pilot.app.ui, item["text"]) <= button.rect.width - 8, f"{item['text']!r} is cut"
    # and an item is still picked with the mouse
    button = next(i["button_element"] for i in listing.item_list if i["text"] == "robotech-scatter")
    pilot.move(button.rect.center)
    pilot.click(button.rect.center)
    pilot.step(3)
    assert pilot.app.scenario.title.startswith("Robotech")


# --------------------------------------------------------------------------- the panel's header


def test_a_template_panel_header_is_whole_and_warns_nothing() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = Pilot(SCENARIOS / "robotech-scatter.toml")
        try:
            p.app.dispatch(Select(Ref("template", "blast")))
            p.step(2)
            texts = [e.text for e in p.app._inspector if hasattr(e, "text") and isinstance(e.text, str)]
        finally:
            p.close()
    assert [str(w.message) for w in caught if "too small" in str(w.message)] == []
    assert "Template blast" in texts
    assert any("Tomahawk" in t and "Battlepod" in t for t in texts), texts


# --------------------------------------------------------------------------- the status bar


def test_a_long_status_message_is_shown_whole(pilot: Pilot, monkeypatch: pytest.MonkeyPatch) -> None:
    message = "Not applied: " + " ".join(f"word{i}" for i in range(60)) + " THE-END"
    pilot.app.flash(message, error=True)
    seen = drawn_texts(pilot, monkeypatch)
    words = " ".join(s for s, _, _ in seen)
    for word in message.split():
        assert word in words, f"{word} is not drawn"
    width, height = pilot.app.size
    for s, rect, _ in seen:
        if any(w in s for w in ("word", "THE-END")):
            assert 0 <= rect.left and rect.right <= width and rect.bottom <= height, s


def test_a_message_that_fits_when_the_parts_make_room_stays_on_the_bar(pilot: Pilot, monkeypatch: pytest.MonkeyPatch) -> None:
    message = "Saved /home/someone/Documents/tabletop/club-night-tables/2026/the-long-name-of-the-table-we-rebuilt.toml"
    pilot.move(pilot.app.view_rect.center)  # the pointer's coordinates are shown too
    pilot.app.flash(message)
    seen = drawn_texts(pilot, monkeypatch)
    bar_top = pilot.app.size[1] - 26
    [(_, rect, _)] = [(s, r, c) for s, r, c in seen if s == message]
    assert rect.top >= bar_top and rect.right <= pilot.app.size[0]


def test_wrap_words_breaks_between_words_and_cuts_a_word_too_long() -> None:
    width_of = len
    assert wrap_words("aa bb cc", width_of, 5) == ["aa bb", "cc"]
    assert wrap_words("abcdefghij", width_of, 4) == ["abcd", "efgh", "ij"]


def test_a_not_applied_error_goes_when_the_next_placement_succeeds(pilot: Pilot, monkeypatch: pytest.MonkeyPatch) -> None:
    app = pilot.app
    model = app.scenario.models[0]
    app.dispatch(Select(Ref("model", model.id)))
    pilot.step()
    pilot.replace_text(app._fields["place"], "3 from the lft, 4 from the bottom")
    pilot.key(pygame.K_RETURN)
    pilot.step()
    assert app.message_is_error and "Not applied" in app.message
    pilot.replace_text(app._fields["place"], "3 from left, 4 from bottom")
    pilot.key(pygame.K_RETURN)
    pilot.step()
    assert app.scenario.model(model.id).x != model.x
    seen = drawn_texts(pilot, monkeypatch)
    assert not [s for s, _, _ in seen if "Not applied" in s], "the old error is not shown beside the new table"


def test_odds_on_never_says_computing_beside_odds_ready(pilot: Pilot, monkeypatch: pytest.MonkeyPatch) -> None:
    pilot.click(pilot.app.buttons["odds"].rect.center)
    pilot.step()
    assert pilot.app.state.view.show_odds
    assert pilot.wait_for_odds()
    seen = " | ".join(s for s, _, _ in drawn_texts(pilot, monkeypatch))
    assert "odds ready" in seen
    assert "computing" not in seen
