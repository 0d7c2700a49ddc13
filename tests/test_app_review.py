"""The photo review after an import (issue 35, item 2), headless, with real pygame events: the list of bases to check, N,
a click that fits a missed base, a drag that refits, Delete, the no-rim offer and M, the size menu, a "?" outline turned
into a base, one undo step per edit, Esc."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pygame
import pygame_gui
import pytest

cv2 = pytest.importorskip("cv2")

from tabletop import scenario_io  # noqa: E402
from tabletop.app.pilot import Pilot  # noqa: E402
from tabletop.app.review import (PhotoReview, doubt, manual_model, parse_size_label, point_in_polygon,  # noqa: E402
                                 review_viewport, size_label, size_options)
from tabletop.app.review_draw import CHECK_COLOUR, SURE_COLOUR  # noqa: E402
from tabletop.model import CHECK_TAG, PROPOSED_TAG, Base, Model, Scenario, Table  # noqa: E402
from tabletop.photo.synth import synth_photo  # noqa: E402
from tabletop.photo.values import Unfitted  # noqa: E402

TABLE = 24 * 25.4
CTRL = pygame.KMOD_LCTRL


@pytest.fixture(scope="module")
def photo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    """A synthetic 3200x2400 photo of a 24-inch table with 14 bases (flat discs) and its truth."""
    ph = synth_photo(6, size=(3200, 2400), n_bases=14, table_mm=(TABLE, TABLE))
    path = tmp_path_factory.mktemp("review") / "table.jpg"
    cv2.imwrite(str(path), ph.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path, ph


def _imported(tmp_path: Path, photo: tuple[Path, object]) -> Pilot:
    """The app after importing the photo by clicking its four corners and pressing Enter: the review is open."""
    path, ph = photo
    table = tmp_path / "table.toml"
    scenario_io.save(Scenario(Table(TABLE, TABLE), title="review test", units="mm"), table)
    p = Pilot(table)
    import_photo(p, photo)
    return p


def import_photo(p: Pilot, photo: tuple[Path, object]) -> None:
    """Import the photo by clicking its four corners and pressing Enter; the review is then open."""
    path, ph = photo
    assert p.app.start_photo_import(str(path))
    job = p.app.photo_import
    view = p.app.view_rect
    for c in ph.corners_px:  # type: ignore[attr-defined]
        p.click(tuple(round(v) for v in job.to_screen(view, c)))
    p.key(pygame.K_RETURN)
    p.app.wait_photo_import()
    p.step(3)
    assert p.app.photo_import is None and p.app.review is not None, p.app.message


def _truth_error(ph: object, m: Model) -> float:
    return min(math.hypot(m.x - b.x_mm, m.y - b.y_mm) for b in ph.bases)  # type: ignore[attr-defined]


def _colour_near(surface: pygame.Surface, at: tuple[float, float], colour: tuple[int, int, int], radius: int = 2, tol: int = 40) -> bool:
    x0, y0 = round(at[0]), round(at[1])
    for dx in range(-radius, radius + 1):
        for dy in range(-radius, radius + 1):
            c = surface.get_at((x0 + dx, y0 + dy))
            if all(abs(a - b) <= tol for a, b in zip(c[:3], colour)):
                return True
    return False


def test_review_lists_fits_refits_deletes_and_undoes(tmp_path: Path, photo: tuple[Path, object]) -> None:
    _, ph = photo
    p = _imported(tmp_path, photo)
    app = p.app
    try:
        review = app.review
        assert review is not None
        s = app.scenario
        proposed = [m for m in s.models if PROPOSED_TAG in m.tags]
        unsure = [m for m in proposed if CHECK_TAG in m.tags]
        assert proposed and unsure, "the photo has bases to check"
        # The panel lists the bases to check, most doubtful first.
        ui = app._review_ui
        assert ui is not None and ui["panel"].alive()
        listed = [label.split()[0] for label in (item["text"] for item in ui["list"].item_list)]
        order = sorted(unsure, key=lambda m: -doubt(m.sigma or 0, review.confidence(m)))
        # Then each outline seen but not placed, as "?" (on this photo of flat discs the tall-base model finds one).
        assert listed == [m.id for m in order] + ["?"] * len(review.open_unfitted(s))
        unfitted = len(review.open_unfitted(s))
        assert ui["title"].text == f"To check: {len(unsure)}" + (f" · not fitted: {unfitted}" if unfitted else "")
        # Drawn: a base to check has its orange "!" badge, a sure one its cyan ring.
        vp = app.viewport
        worst = order[0]
        cx, cy = vp.to_screen(worst.x, worst.y)
        r = worst.base.bounding_radius * vp.scale
        assert _colour_near(p.screen, (cx + 0.72 * r + 4, cy - 0.72 * r - 4), CHECK_COLOUR)
        sure = next((m for m in proposed if CHECK_TAG not in m.tags), None)
        if sure is not None:
            sx, sy = vp.to_screen(sure.x, sure.y)
            assert _colour_near(p.screen, (sx + sure.base.length / 2 * vp.scale, sy), SURE_COLOUR, radius=3)

        # T (or the panel's button, clicked): the judged table's bases over the photo, or the photo under the rings.
        probe = tuple(round(v) for v in vp.to_screen(worst.x + 0.25 * worst.base.length, worst.y - 0.1 * worst.base.length))
        photo_there = tuple(p.screen.get_at(probe))[:3]
        assert review.show_photo
        p.key(pygame.K_t)
        assert not review.show_photo and tuple(p.screen.get_at(probe))[:3] != photo_there
        p.click(ui["photo"].rect.center)
        p.step(2)
        assert review.show_photo and tuple(p.screen.get_at(probe))[:3] == photo_there

        # N: the most doubtful one is selected and zoomed to; Shift+N goes back round the list.
        before_scale = app.viewport.scale
        p.key(pygame.K_n)
        assert app.state.selection is not None and app.state.selection.id == order[0].id
        assert app.viewport.scale > before_scale
        if len(order) > 1:
            p.key(pygame.K_n)
            assert app.state.selection.id == order[1].id
            p.key(pygame.K_n, pygame.KMOD_LSHIFT)
            assert app.state.selection.id == order[0].id
        # A click on a list entry goes to it too (a real click on the selection list's item).
        if len(order) > 1:
            p.key(pygame.K_f)
            item = ui["list"].item_list[1]["button_element"]
            p.click(item.rect.center)
            p.step(2)  # the item's button, then the list's own event
            assert app.state.selection.id == order[1].id
        app.fit_beside_review_panel()
        p.key(pygame.K_ESCAPE)  # deselect
        assert app.review is not None and app.state.selection is None

        # A missed base: every truth base the analysis did not propose; a click on it fits it.
        missed = [b for b in ph.bases if min(math.hypot(m.x - b.x_mm, m.y - b.y_mm) for m in s.models) > b.diameter_mm / 4]
        assert missed, "this photo has a base the analysis missed"
        b = missed[0]
        steps = len(app.state.history.undo)
        p.click(p.screen_of((b.x_mm + 2.0, b.y_mm - 1.5)))
        added = [m for m in app.scenario.models if m.id not in {x.id for x in s.models}]
        assert len(added) == 1, app.message
        new = added[0]
        # Within 3 mm: this photo's bases are flat discs and the app takes each for a catalogue base 3.5-5 mm tall, whose
        # footprint lies a couple of millimetres from its top rim (the Xvfb test measures 0.5 mm on tall bases).
        assert math.hypot(new.x - b.x_mm, new.y - b.y_mm) < 3.0 and new.sigma is not None and new.sigma > 0
        assert PROPOSED_TAG in new.tags and app.message.startswith(f"Added {new.id}")
        assert len(app.state.history.undo) == steps + 1
        # A second click on it adds nothing: it is there already.
        p.click(p.screen_of((new.x, new.y + 3)))
        assert len(app.scenario.models) == len(s.models) + 1
        p.key(pygame.K_z, CTRL)
        assert new.id not in {m.id for m in app.scenario.models}
        p.key(pygame.K_y, CTRL)

        # A proposal dragged 6 mm off its base is fitted again where it is dropped: back where the analysis had it, one
        # undo step.
        target = min(proposed, key=lambda m: _truth_error(ph, m))
        steps = len(app.state.history.undo)
        start = p.screen_of((target.x, target.y))
        p.drag(start, p.screen_of((target.x + 4.5, target.y - 4.0)))
        moved = app.scenario.model(target.id)
        assert math.hypot(moved.x - target.x, moved.y - target.y) < 0.3, app.message
        assert "fitted where dropped" in app.message
        assert len(app.state.history.undo) == steps + 1
        p.key(pygame.K_z, CTRL)
        assert app.scenario.model(target.id) == target

        # Delete removes one (a false one, say); undo brings it back.
        p.click(p.screen_of((target.x, target.y)))
        assert app.state.selection is not None and app.state.selection.id == target.id
        p.key(pygame.K_DELETE)
        assert target.id not in {m.id for m in app.scenario.models}
        p.key(pygame.K_z, CTRL)
        assert app.scenario.model(target.id) == target and app.state.selection is None

        # A click on bare mat: no rim; M lays a circle of the menu's size there; Esc first drops the offer.
        bare = _bare_spot(app.scenario, ph, review)
        p.click(p.screen_of(bare))
        assert review.offer is not None and app.message.startswith("No base rim found here"), app.message
        p.key(pygame.K_ESCAPE)
        assert review.offer is None and app.review is not None
        p.click(p.screen_of(bare))
        p.key(pygame.K_m)
        hand = app.scenario.models[-1]
        assert (hand.x, hand.y) == pytest.approx(bare, abs=1.0) and hand.base == Base.round(review.manual_size[0])
        assert hand.sigma == pytest.approx(0.5) and CHECK_TAG not in hand.tags
        p.step(2)
        # The button, clicked with no click to lay a circle at, says what to do instead of staying greyed.
        count = len(app.scenario.models)
        p.click(ui["manual"].rect.center)
        p.step(2)
        assert "click a base on the photo first" in app.message and len(app.scenario.models) == count

        # The size menu, clicked: the selected base becomes 40 mm (no rim of that size here: only resized).
        assert app.state.selection is not None and app.state.selection.id == hand.id
        # The menu shows the selected base's size (rebuilt to show it: read it from the panel each time).
        assert app._review_ui["size"].selected_option[0] == size_label(*review.manual_size)
        _choose(p, app._review_ui["size"], "40 mm")
        assert app.scenario.model(hand.id).base == Base.round(40.0)
        assert review.manual_size == (40.0, 40.0)
        p.key(pygame.K_z, CTRL)
        assert app.scenario.model(hand.id).base == hand.base

        # Saved, the review goes on (the backdrop's path is rewritten relative to the file).
        p.key(pygame.K_s, CTRL)
        p.step(2)
        assert not app.state.dirty and app.review is not None and ui["panel"].alive()
        # Esc with nothing selected finishes the review; the photo stays as the backdrop.
        p.key(pygame.K_ESCAPE)
        p.key(pygame.K_ESCAPE)
        p.step(2)
        assert app.review is None and not ui["panel"].alive()
        assert app.scenario.backdrop is not None
    finally:
        p.close()


def _bare_spot(scenario: Scenario, ph: object, review: PhotoReview) -> tuple[float, float]:
    """A point of plain mat: far from every base, true or proposed, inside the table, where no rim is fitted (the
    synthetic terrain's straight edges are no base, but a corner of one may pass for an arc)."""
    from tabletop.photo.local import fit_base_at

    rng = np.random.default_rng(3)
    taken = [(m.x, m.y) for m in scenario.models] + [(b.x_mm, b.y_mm) for b in ph.bases]  # type: ignore[attr-defined]
    for _ in range(2000):
        x, y = rng.uniform(60, TABLE - 60, 2)
        if all(math.hypot(x - a, y - b) > 70 for a, b in taken) and fit_base_at(review.rectified(), float(x), float(y)) is None:
            return float(x), float(y)
    raise AssertionError("no bare spot")


def _choose(p: Pilot, menu: pygame_gui.elements.UIDropDownMenu, option: str) -> None:
    """Open a drop-down with a real click and click one of its options."""
    p.click(menu.rect.center)
    p.step()
    expanded = menu.current_state
    lst = expanded.options_selection_list
    for _ in range(40):
        buttons = {item["text"]: item["button_element"] for item in lst.item_list if item.get("button_element") is not None}
        if option in buttons:
            p.click(buttons[option].rect.center)
            p.step(4)  # the option's button, the list's event, the menu's event
            return
        p.wheel(-1, lst.rect.center)  # scroll the list down to the option
    raise AssertionError(f"{option!r} not in the menu")


def test_a_question_mark_outline_becomes_a_base_by_a_click(tmp_path: Path, photo: tuple[Path, object]) -> None:
    """A thing seen but not fitted is drawn as its outline with "?"; a click in it fits a base there, and the "?" goes."""
    _, ph = photo
    p = _imported(tmp_path, photo)
    app = p.app
    try:
        review = app.review
        assert review is not None
        # Make one of the true bases "seen but not fitted": its proposal gone, its outline reported instead.
        m = min((m for m in app.scenario.models), key=lambda m: _truth_error(ph, m))
        b = min(ph.bases, key=lambda b: math.hypot(m.x - b.x_mm, m.y - b.y_mm))
        p.click(p.screen_of((m.x, m.y)))
        p.key(pygame.K_DELETE)
        t = np.linspace(0, 2 * math.pi, 24, endpoint=False)
        outline = tuple((b.x_mm + 0.6 * b.diameter_mm * math.cos(a), b.y_mm + 0.45 * b.diameter_mm * math.sin(a)) for a in t)
        review.result = replace(review.result, unfitted=(Unfitted(b.x_mm, b.y_mm, outline),))
        p.step(2)
        assert review.open_unfitted(app.scenario)
        assert any("not fitted" in item["text"] for item in app._review_ui["list"].item_list)
        # A click near the outline's edge (inside it) fits at its centre.
        p.click(p.screen_of((b.x_mm + 0.5 * b.diameter_mm, b.y_mm)))
        added = app.scenario.models[-1]
        # Where the analysis had found it, give or take a neighbouring size's footprint (the local fit sees a crop).
        assert math.hypot(added.x - m.x, added.y - m.y) < 1.5, app.message
        assert not review.open_unfitted(app.scenario)
        p.key(pygame.K_z, CTRL)  # undone, the "?" is back
        assert review.open_unfitted(app.scenario)
        # The whole import undone: the photo is no longer the table's, and the review ends with it.
        while app.scenario.backdrop is not None:
            p.key(pygame.K_z, CTRL)
        p.step(2)
        assert app.review is None and app._review_ui is None
    finally:
        p.close()


def test_review_rules() -> None:
    assert doubt(0.4, 0.8) > doubt(0.4, 0.9) > doubt(0.2, 0.9)
    assert doubt(0.1, 0.0) == pytest.approx(2.0)  # an unsure base with no confidence at all comes first
    for label in size_options():
        size = parse_size_label(label)
        assert size is not None and size_label(*size) == label
    assert parse_size_label("33 mm") is None
    assert parse_size_label("90x52 mm oval") == (90.0, 52.0)
    square = ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0))
    assert point_in_polygon(5, 5, square) and not point_in_polygon(11, 5, square)
    oval = manual_model("p1", 1, 2, (90.0, 52.0))
    assert oval.base == Base("oval", 90.0, 52.0) and oval.tags == (PROPOSED_TAG,)
    # The review's view: the whole table right of the panel, the table's centre in the free part's centre.
    vp = review_viewport((0, 44, 940, 730), (TABLE, TABLE))
    assert vp is not None
    left, _ = vp.to_screen(0, 0)
    right, _ = vp.to_screen(TABLE, 0)
    assert left >= 270 + 16 and right <= 940
    # Unfitted outlines covered by a base are not open any more.
    ring = tuple((50 + 10 * math.cos(a), 50 + 10 * math.sin(a)) for a in np.linspace(0, 6.2, 20))
    review = PhotoReview(None, type("R", (), {"unfitted": (Unfitted(50, 50, ring),)})())
    assert len(review.open_unfitted(Scenario(Table(100, 100)))) == 1
    covered = Scenario(Table(100, 100), (Model("m", 51, 49, Base.round(25)),))
    assert review.open_unfitted(covered) == []


def cut_photo(tmp_path: Path) -> tuple[Path, np.ndarray, np.ndarray]:
    """A synthetic photo of a table whose lower-left corner the frame cut off (30 px beyond its left edge): its path, its
    pixels and its true corners (file px, LL, LR, UR, UL)."""
    ph = synth_photo(5, size=(2400, 1800), n_bases=8)
    x0 = int(ph.corners_px[0][0] + 30)
    image = np.ascontiguousarray(ph.image[:, x0:])
    path = tmp_path / "cut.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return path, image, np.asarray(ph.corners_px) - [x0, 0]


def test_a_corner_cut_off_by_the_frame_is_clicked_beside_the_photo_and_dragged(tmp_path: Path) -> None:
    """The corners phase: a corner placed beyond the photo's edge (the table cut by the frame), another dragged with the
    loupe; Enter places the outside one from the two sides running to it. Two corners outside are refused, saying why."""
    path, image, truth = cut_photo(tmp_path)
    table = tmp_path / "t.toml"
    scenario_io.save(Scenario(Table(48 * 25.4, 48 * 25.4), title="cut", units="mm"), table)
    p = Pilot(table)
    try:
        app = p.app
        assert app.start_photo_import(str(path))
        job = app.photo_import
        view = app.view_rect
        guess = truth[0] + [-6.0, 5.0]  # by eye, beyond the photo's left edge
        screen = [tuple(round(v) for v in job.to_screen(view, c)) for c in (guess, *truth[1:])]
        assert not job.frame(view)[0].collidepoint(screen[0])  # in the room left round the photo
        off = (screen[1][0] + 25, screen[1][1] - 20)
        for pos in (screen[0], off, screen[2], screen[3]):
            p.click(pos)
        assert len(job.clicks) == 4 and job.outside() == [0]
        p.drag(off, screen[1])  # the lower-right corner dragged onto its place
        assert math.dist(job.clicks[1], truth[1]) < 3 / job.frame(view)[1]
        assert "outside the photo" in " ".join(app.photo_hint())
        # Two outside: refused before any work, with what to do.
        saved = job.clicks[2]
        job.clicks[2] = (image.shape[1] + 40.0, saved[1])
        p.key(pygame.K_RETURN)
        assert job.phase == "corners" and app.message_is_error and "at most one corner may" in app.message
        job.clicks[2] = saved
        p.key(pygame.K_RETURN)
        assert job.phase == "detecting"
        app.wait_photo_import()
        p.step(3)
        assert app.photo_import is None and app.scenario.backdrop is not None, app.message
        placed = np.asarray(app.scenario.backdrop.corners[0])
        # The clicked corners are a screen pixel (3 photo pixels) off: the sides through them place it within a few.
        assert np.linalg.norm(placed - truth[0]) < 6.0, placed
    finally:
        p.close()
