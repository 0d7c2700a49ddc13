"""The photo review's polish from h50's hostile review (issue 35, stop 50), headless with real pygame events.

Each test opens the review on a table whose backdrop is a drawn photo (a green table on a grey floor, no bases on it:
drawn in a fraction of a second, where ``synth.py``'s photo costs seconds) and whose bases are written in the table
(the review rebuilt from the table, as after Save and Open: about 2 s a test)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pygame
import pytest

cv2 = pytest.importorskip("cv2")

from tabletop import scenario_io  # noqa: E402
from tabletop.app.pilot import Pilot  # noqa: E402
from tabletop.model import CHECK_TAG, PROPOSED_TAG  # noqa: E402
from tabletop.model import Backdrop, Base, Model, Scenario, Table  # noqa: E402
from tabletop.photo.values import Unfitted  # noqa: E402

TABLE = 24 * 25.4
CORNERS = ((400.0, 2100.0), (2900.0, 2150.0), (2500.0, 500.0), (700.0, 450.0))
"""The drawn photo's table corners (file px: lower-left, lower-right, upper-right, upper-left)."""


def _photo_table(tmp_path: Path, n: int = 6, check: int = 3) -> Path:
    """A table with a drawn 3200x2400 photo as its backdrop and ``n`` proposed 32 mm bases on it in a row, the first
    ``check`` of them to check (sigma 0.3 mm, 0.1 mm more each: the list's order is the reverse of theirs)."""
    img = np.full((2400, 3200, 3), 110, np.uint8)
    cv2.fillPoly(img, [np.array(CORNERS, np.int32)], (70, 140, 60))
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), img)
    models = tuple(Model(f"p{i}", 100.0 + 70 * (i % 6), 200.0 + 30 * (i % 3) + 90 * (i // 6), Base.round(32.0),
                         tags=(PROPOSED_TAG, CHECK_TAG) if i < check else (PROPOSED_TAG,), sigma=round(0.3 + 0.1 * i, 3))
                   for i in range(n))
    table = tmp_path / "table.toml"
    scenario_io.save(Scenario(Table(TABLE, TABLE), models, title="a photo", units="mm", backdrop=Backdrop(str(photo), CORNERS)), table)
    return table


def _reviewing(tmp_path: Path, size: tuple[int, int] = (1280, 800), n: int = 6, check: int = 3) -> Pilot:
    """The app on ``_photo_table`` with its review opened again (Ctrl+Shift+I: rebuilt in a thread, then drawn)."""
    p = Pilot(_photo_table(tmp_path, n, check), size=size)
    try:
        p.key(pygame.K_i, pygame.KMOD_LCTRL | pygame.KMOD_LSHIFT)
        p.app.wait_reopen()
        p.step(3)
        assert p.app.review is not None, p.app.message
    except BaseException:
        p.close()
        raise
    return p


def _highlighted(app: object) -> list[str]:
    """The ids of the review list's highlighted entries."""
    listing = app._review_ui["list"]  # type: ignore[attr-defined]
    return [entry["text"].split()[0] for entry in listing.item_list if entry["selected"]]


@pytest.mark.parametrize("size", [(1280, 800), (800, 520)])
def test_the_lists_highlight_follows_n_and_shift_n(tmp_path: Path, size: tuple[int, int]) -> None:
    """N and Shift+N select the next (previous) base to check: the list highlights it too, as a click on the list did,
    and in the compact panel (800x520: four rows of nine) scrolls it into sight; Esc (nothing selected) clears it. Before:
    the highlight stayed where the last click on the list left it, or on nothing (h50, stop 50)."""
    p = _reviewing(tmp_path, size, n=12, check=9)
    app = p.app
    try:
        listing = app._review_ui["list"]
        order = [entry["text"].split()[0] for entry in listing.item_list]
        assert order == [f"p{i}" for i in range(8, -1, -1)]  # most doubtful (the largest sigma) first
        assert _highlighted(app) == []
        for expected in order:
            p.key(pygame.K_n)
            assert app.state.selection.id == expected and _highlighted(app) == [expected]
            shown = next(e["button_element"] for e in listing.item_list if e["selected"])
            assert shown is not None and shown.is_selected
            assert listing.list_and_scroll_bar_container.rect.contains(shown.rect), (expected, shown.rect)
        p.key(pygame.K_n, pygame.KMOD_LSHIFT)
        assert app.state.selection.id == order[-2] and _highlighted(app) == [order[-2]]
        p.key(pygame.K_ESCAPE)
        assert app.state.selection is None and _highlighted(app) == []
        # A "?" entry clicked (a thing seen but not fitted) after N: the base is let go, the "?" keeps the highlight.
        ring = tuple((500.0 + 12 * np.cos(a), 500.0 + 12 * np.sin(a)) for a in np.linspace(0, 6.28, 12, endpoint=False))
        app.review.result = replace(app.review.result, unfitted=(Unfitted(500.0, 500.0, ring),))
        p.key(pygame.K_n)
        p.step(2)
        question = listing.item_list[-1]
        assert question["text"].startswith("?")
        if listing.scroll_bar is not None:  # the compact list: scrolled to its last entry, as the wheel would
            listing.scroll_bar.set_scroll_from_start_percentage(1.0)
        p.step(2)
        p.click(question["button_element"].rect.center)
        p.step(2)
        assert app.state.selection is None and _highlighted(app) == ["?"]
    finally:
        p.close()


def _label_centre(app: object, model_id: str) -> tuple[int, int]:
    """The middle of ``model_id``'s name label as the last frame drew it."""
    x, y, w, h = next(pl.rect for pl in app._frame.placements if pl.id == f"name:{model_id}")  # type: ignore[attr-defined]
    return (x + w // 2, y + h // 2)


def test_a_click_on_a_bases_label_selects_that_base(tmp_path: Path) -> None:
    """A click on a base's name label (drawn under its ring) selects the base, in the review and after it: what is
    drawn as a base's is touched as that base. Before, in the review, it ran a missed-base search there ("No base rim
    found here", M offered a circle beside the base); outside the review it panned, selecting nothing (h50, stop 50)."""
    p = _reviewing(tmp_path)
    app = p.app
    try:
        count = len(app.scenario.models)
        for model_id in ("p0", "p4"):
            at = _label_centre(app, model_id)
            m = app.scenario.model(model_id)
            assert abs(at[1] - app.viewport.to_screen(m.x, m.y)[1]) > m.base.length / 2 * app.viewport.scale  # off the base
            p.click(at)
            assert app.state.selection is not None and app.state.selection.id == model_id, app.message
            assert app.review.offer is None and "No base rim" not in app.message and len(app.scenario.models) == count
        p.key(pygame.K_ESCAPE)
        p.key(pygame.K_ESCAPE)  # deselected, then the review finished
        assert app.review is None
        p.step(2)
        p.click(_label_centre(app, "p2"))
        assert app.state.selection is not None and app.state.selection.id == "p2"
    finally:
        p.close()


def test_a_deleted_bases_id_is_not_given_to_the_next_base_added(tmp_path: Path) -> None:
    """p4 deleted, then a circle laid by hand (a click where no rim is, M): the new base is not p4, and undoing both
    brings p4 back beside nothing of the same name; redone, the two are two ids. Before: the new base was p4 (h50,
    stop 50), so "p4" named two bases in one table's life."""
    p = _reviewing(tmp_path)
    app = p.app
    try:
        gone = app.scenario.model("p4")
        p.click(p.screen_of((gone.x, gone.y)))
        assert app.state.selection.id == "p4"
        p.key(pygame.K_DELETE)
        assert "p4" not in {m.id for m in app.scenario.models}
        p.click(p.screen_of((300.0, 450.0)))  # bare mat on the drawn photo: no rim, M offered
        assert app.review.offer is not None, app.message
        p.key(pygame.K_m)
        added = app.scenario.models[-1]
        assert added.id != "p4" and added.id not in {"p0", "p1", "p2", "p3", "p5"}, added.id
        p.key(pygame.K_z, pygame.KMOD_LCTRL)
        p.key(pygame.K_z, pygame.KMOD_LCTRL)
        ids = [m.id for m in app.scenario.models]
        assert "p4" in ids and added.id not in ids and len(ids) == len(set(ids))
        p.key(pygame.K_y, pygame.KMOD_LCTRL)
        p.key(pygame.K_y, pygame.KMOD_LCTRL)
        ids = [m.id for m in app.scenario.models]
        assert added.id in ids and "p4" not in ids and len(ids) == len(set(ids))
        # A copy (Ctrl+D) is not given a deleted id either: p2's copy deleted, the next copy of it is another.
        p.key(pygame.K_ESCAPE)
        p.click(p.screen_of((app.scenario.model("p2").x, app.scenario.model("p2").y)))
        p.key(pygame.K_d, pygame.KMOD_LCTRL)
        copy = app.state.selection.id
        p.key(pygame.K_DELETE)
        p.click(p.screen_of((app.scenario.model("p2").x, app.scenario.model("p2").y)))
        p.key(pygame.K_d, pygame.KMOD_LCTRL)
        again = app.state.selection.id
        assert again != copy and again not in ids, (copy, again)
    finally:
        p.close()


def test_the_no_rim_offer_goes_with_a_later_edit_or_selection(tmp_path: Path) -> None:
    """A click where no rim is offers M's circle there ("No base rim found there: M adds a 32 mm circle" in the legend).
    A later click on a base and Delete drop the offer: the legend's line goes and M lays nothing at the old spot. Before,
    both stayed (h50, stop 50). A zoom (the wheel) is no edit: the offer stays, and M lays its circle where clicked."""
    from tabletop.app.review_draw import review_legend

    p = _reviewing(tmp_path)
    app = p.app
    try:
        bare = (300.0, 450.0)
        p.click(p.screen_of(bare))
        assert app.review.offer is not None and any("No base rim found there" in line for line in review_legend(app.review, app.scenario))
        m = app.scenario.model("p3")
        p.click(p.screen_of((m.x, m.y)))
        p.key(pygame.K_DELETE)
        assert app.review.offer is None
        assert not any("No base rim" in line for line in review_legend(app.review, app.scenario))
        count = len(app.scenario.models)
        p.key(pygame.K_m)
        assert len(app.scenario.models) == count and "click a base on the photo first" in app.message

        p.click(p.screen_of(bare))
        p.wheel(1, p.screen_of((200.0, 300.0)))
        assert app.review.offer is not None
        p.key(pygame.K_m)
        hand = app.scenario.models[-1]
        assert len(app.scenario.models) == count + 1 and (hand.x, hand.y) == pytest.approx(bare, abs=1.0)
    finally:
        p.close()


def _colour_near(surface: pygame.Surface, at: tuple[float, float], colour: tuple[int, int, int], radius: int = 2, tol: int = 40) -> bool:
    x0, y0 = round(at[0]), round(at[1])
    return any(all(abs(a - b) <= tol for a, b in zip(tuple(surface.get_at((x0 + dx, y0 + dy)))[:3], colour))
               for dx in range(-radius, radius + 1) for dy in range(-radius, radius + 1))


def test_bases_still_to_check_stay_marked_after_the_review(tmp_path: Path) -> None:
    """Accept all (the bases to check keep their mark), then finish the review: each base still to check keeps its
    orange "!" badge and dashed ring over the table, a sure one has none. Before, once the review was finished they were
    drawn as every other base (h50, stop 50): an answer the app is not sure of looked sure."""
    from tabletop.app.review_draw import CHECK_COLOUR

    p = _reviewing(tmp_path)
    app = p.app
    try:
        p.key(pygame.K_a)
        assert not any(PROPOSED_TAG in m.tags for m in app.scenario.models)
        p.key(pygame.K_ESCAPE)
        assert app.review is None and "3 bases still to check" in app.message
        p.key(pygame.K_HOME)
        p.step(2)
        vp = app.viewport
        for m in app.scenario.models:
            cx, cy = vp.to_screen(m.x, m.y)
            r = m.base.bounding_radius * vp.scale
            badge = (cx + 0.72 * r + 4, cy - 0.72 * r - 4)
            assert _colour_near(p.screen, badge, CHECK_COLOUR) == (CHECK_TAG in m.tags), m.id
    finally:
        p.close()


def test_a_notice_does_not_swallow_esc_or_ctrl_i(tmp_path: Path) -> None:
    """The notice an import of a coarse photo shows over the review ("A coarse photo: check every base", a message with
    only its Dismiss button): Esc dismisses it (and only it: the review stays open); shown again, Ctrl+I dismisses it
    and opens the import's file dialog, Ctrl pressed first keeping it. Before, both keys did nothing while it was open
    (h50, stop 50)."""
    p = _reviewing(tmp_path)
    app = p.app
    try:
        title = "A coarse photo: check every base"
        app.show_message(title, "This photo shows up to 1.40 mm of the table per pixel.")
        p.step(2)
        assert app._modal_open()
        p.key(pygame.K_ESCAPE)
        assert not app._modal_open() and app.review is not None and app.message != title
        app.show_message(title, "This photo shows up to 1.40 mm of the table per pixel.")
        p.step(2)
        p.key(pygame.K_LCTRL, pygame.KMOD_LCTRL)
        assert app._messages and app._messages[-1].alive()
        p.key(pygame.K_i, pygame.KMOD_LCTRL)
        assert not any(w.alive() for w in app._messages) and len(app._dialogs) == 1
        assert next(iter(app._dialogs)).window_display_title == "Import photo of the table"
    finally:
        p.close()


def test_the_whole_table_is_centred_again_after_the_review(tmp_path: Path) -> None:
    """The review shows the whole table beside its panel (off-centre). Another photo's import started over it and
    cancelled (Esc), or the review finished: the whole table in the whole view again, as Home shows it. Before, the
    review's off-centre fit stayed, the panel's room empty (h50, stop 50). Zoomed in on a base, finishing keeps the zoom."""
    p = _reviewing(tmp_path)
    app = p.app
    try:
        table = p.app.state.path
        assert table is not None
        photo = str(Path(table).parent / "table.jpg")
        app.fit()
        home = app.viewport
        app.fit_beside_review_panel()
        assert app.viewport.centre[0] < home.centre[0] - 50
        assert app.start_photo_import(photo)
        p.step(2)
        p.key(pygame.K_ESCAPE)
        assert app.photo_import is None and app.review is None
        assert app.viewport.centre == pytest.approx(home.centre) and app.viewport.scale == pytest.approx(home.scale)

        p.key(pygame.K_i, pygame.KMOD_LCTRL | pygame.KMOD_LSHIFT)  # the review again (kept): beside its panel
        p.step(2)
        assert app.review is not None and app.viewport.centre[0] < home.centre[0] - 50
        p.key(pygame.K_ESCAPE)
        assert app.review is None and app.viewport.centre == pytest.approx(home.centre)

        p.key(pygame.K_i, pygame.KMOD_LCTRL | pygame.KMOD_LSHIFT)
        p.step(2)
        p.key(pygame.K_n)
        zoomed = app.viewport
        p.key(pygame.K_ESCAPE)
        p.key(pygame.K_ESCAPE)  # deselected, then finished
        assert app.review is None and app.viewport == zoomed
    finally:
        p.close()


def test_the_photo_buttons_tooltip_goes_with_its_dialog_and_names_markers_and_review(tmp_path: Path) -> None:
    """The Photo… button's tooltip, shown after a second's hover, goes when its click opens the import's file dialog
    (before, it stayed drawn over the dialog: the dialog did not take the mouse from the widgets under it), and says how
    the corners are found (the printed markers) and that the bases are then reviewed (h50, stop 50)."""
    p = Pilot(_photo_table(tmp_path))
    app = p.app
    try:
        button = app.buttons["photo"]
        assert "markers" in button.tool_tip_text and "review" in button.tool_tip_text
        p.move(button.rect.center)
        p.step(80)  # the theme's tooltip delay is a second: 60 frames
        assert button.tool_tip is not None
        p.click(button.rect.center)
        p.step(80)
        assert len(app._dialogs) == 1 and button.tool_tip is None
        dialog = next(iter(app._dialogs))
        p.click(dialog.cancel_button.rect.center)
        p.step(2)
        assert not app._dialogs and not app._modal_open()
    finally:
        p.close()


@pytest.mark.parametrize("size", [(1280, 800), (800, 520)])
def test_the_size_menu_shows_whole_names_inside_the_window(tmp_path: Path, size: tuple[int, int]) -> None:
    """The size menu, opened by a click: every entry's name fits its row ("60x35 mm oval", not "60x35 mm o…": the menu
    was half the panel's width, its list 80-105 px for names of up to 115 px), and the list ends inside the window above
    the status bar (at 800x520 it ran 60 px below the window's bottom). A click on an oval's entry resizes the selected
    base to it (h50, stop 50)."""
    p = _reviewing(tmp_path, size)
    app = p.app
    try:
        p.key(pygame.K_n)
        chosen = app.state.selection.id
        menu = app._review_ui["size"]
        p.click(menu.rect.center)
        p.step(2)
        listing = menu.current_state.options_selection_list
        assert listing.rect.bottom <= app.overlay.get_container().get_rect().bottom, (listing.rect, size)
        shown = [e for e in listing.item_list if e["button_element"] is not None]
        assert any("oval" in e["text"] for e in shown)
        for e in shown:
            button = e["button_element"]
            assert button.font.size(e["text"])[0] <= button.rect.width - 4, (e["text"], button.rect.width)
        oval = next(e for e in shown if e["text"] == "60x35 mm oval")
        p.click(oval["button_element"].rect.center)
        p.step(3)
        base = app.scenario.model(chosen).base
        assert (base.shape, base.length, base.width) == ("oval", 60.0, 35.0), app.message
        closed = app._review_ui["size"].current_state.selected_option_button
        assert closed.font.size("60x35 mm oval")[0] <= closed.rect.width - 4
    finally:
        p.close()


def test_a_long_note_in_the_legends_column_is_broken_only_to_the_column() -> None:
    """The reopened review's note (245 characters) in the column under the full panel (255 px, the small font): before,
    it was broken at 110 characters first and then to the column, so a line of 40 characters was followed by one of
    14 ("  1 px", "  measured again on the"). Now each line but a paragraph's last is full: the next line's first word
    would not have fitted on it."""
    from tabletop.app import overlays, review_draw
    from tabletop.app.review import REOPENED_NOTE, PhotoReview
    from tabletop.model import Scenario, Table

    pygame.font.init()

    class _Result:
        notes = (REOPENED_NOTE,)
        unfitted = ()

    review = PhotoReview(loaded=None, result=_Result())
    legend = review_draw.review_legend(review, Scenario(Table(600, 600)))
    assert f"Photo: {REOPENED_NOTE}" in legend  # whole, for the place it is drawn to break
    width, size = 255 - 12, review_draw.SMALL_LEGEND_FONT
    lines = review_draw.fit_lines([f"Photo: {REOPENED_NOTE}"], width, size)
    font = overlays.font(size)
    for line, after in zip(lines, lines[1:]):
        assert font.size(f"{line} {after.split()[0]}")[0] > width, (line, after)
    assert " ".join(" ".join(lines).split()) == f"Photo: {REOPENED_NOTE}"


def test_a_base_accepted_in_the_review_shows_the_photo_under_a_thin_ring(tmp_path: Path) -> None:
    """p4 (sure) selected and accepted with A: while the photo is shown, its base is the photo (the drawn table's green,
    BGR 70, 140, 60) inside a thin white ring, so it can still be checked against what the photo shows; T (the judged
    table) draws it as the table does. Before, an accepted base was an opaque disc over the photo (h50)."""
    from tabletop.app.review_draw import ACCEPTED_COLOUR
    from tabletop.app.state import Ref, Select

    photo_green = (60, 140, 70)
    p = _reviewing(tmp_path)
    app = p.app
    try:
        app.dispatch(Select(Ref("model", "p4")))
        p.key(pygame.K_a)
        app.dispatch(Select(None))  # selected, the selection's own ring is drawn over it
        p.step(2)
        m = app.scenario.model("p4")
        assert PROPOSED_TAG not in m.tags and CHECK_TAG not in m.tags
        vp = app.viewport
        centre = vp.to_screen(m.x, m.y)
        r = m.base.bounding_radius * vp.scale
        assert _colour_near(p.screen, (centre[0] - r / 2, centre[1]), photo_green, tol=12)
        assert _colour_near(p.screen, (centre[0] - r, centre[1]), ACCEPTED_COLOUR, tol=12)
        p.key(pygame.K_t)  # the judged table: the base as the table draws it
        p.step(2)
        assert not _colour_near(p.screen, (centre[0] - r / 2, centre[1]), photo_green, radius=0, tol=12)
    finally:
        p.close()


def test_a_click_on_the_highlighted_entry_shows_its_base_again(tmp_path: Path) -> None:
    """N selects and highlights p2; the view moved away, a click on its (highlighted) entry shows it again and keeps it
    highlighted. Before, pygame_gui took that click for the entry's deselection, which nothing handled (r51)."""
    from tabletop.viewport import Viewport

    p = _reviewing(tmp_path)
    app = p.app
    try:
        listing = app._review_ui["list"]
        p.key(pygame.K_n)
        p.step(2)
        chosen = app.state.selection.id
        app.viewport = Viewport((20.0, 20.0), app.viewport.scale, app.viewport.rect)
        p.step(2)
        entry = next(e for e in listing.item_list if e["selected"])
        p.click(entry["button_element"].rect.center)
        p.step(3)
        m = app.scenario.model(chosen)
        assert app.state.selection.id == chosen and _highlighted(app) == [chosen]
        assert app.view_rect.collidepoint(app.viewport.to_screen(m.x, m.y))
    finally:
        p.close()


def test_the_compact_list_scrolls_away_from_the_selected_entry(tmp_path: Path) -> None:
    """At 800x520 with p8 selected (N), the wheel over the list scrolls it down and it stays there; the next N (a new
    entry highlighted) brings that entry into sight. Before, every frame scrolled the selected entry back (r51)."""
    p = _reviewing(tmp_path, (800, 520), n=12, check=9)
    app = p.app
    try:
        listing = app._review_ui["list"]
        p.key(pygame.K_n)
        p.step(2)
        bar = listing.scroll_bar
        assert bar is not None and bar.start_percentage == 0.0
        for _ in range(6):
            p.wheel(-1, listing.rect.center)
            p.step(1)
        scrolled = bar.start_percentage
        assert scrolled > 0.3
        p.step(3)
        assert bar.start_percentage == scrolled
        p.key(pygame.K_n)  # p7: the second entry, above the rows now shown
        p.step(2)
        assert _highlighted(app) == ["p7"] and bar.start_percentage < scrolled
    finally:
        p.close()


def test_the_historys_ids_are_every_step_s_models_terrain_and_templates() -> None:
    """Worked: an undo step with m1 and terrain t9, a redo step with m2, a cleared redo step with m3 and template b1 ->
    model_ids {m1, t9, m2, m3} and template_ids {b1}; fresh_id then skips m1-m3 on a table holding none of them."""
    from tabletop.app.edits import fresh_id
    from tabletop.app.history import History
    from tabletop.model import Template, Terrain

    table = Table(600, 600)
    m = lambda i: Model(i, 10.0, 10.0, Base.round(32.0))  # noqa: E731
    undo = Scenario(table, (m("m1"),), (Terrain("t9", ((0, 0), (10, 0), (10, 10))),))
    redo = Scenario(table, (m("m2"),))
    cleared = Scenario(table, (m("m3"),), templates=(Template("b1", "small_blast", 10.0, 10.0),))
    h = History((undo,), (redo,), None, (cleared,))
    assert h.model_ids == {"m1", "t9", "m2", "m3"} and h.template_ids == {"b1"}
    assert fresh_id(Scenario(table), "m", used=h.model_ids) == "m4"
