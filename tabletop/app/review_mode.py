"""The app's photo review (issue 35, item 2): part of ``TabletopApp`` through ``PhotoImportMixin``.

While a review is open (from the end of an import until the user finishes it):

- every proposal is drawn with its sigma as a band; the ones to check are orange, dashed and badged "!", and listed in
  a panel over the table's left edge, most doubtful first; ``N`` (``Shift+N``) goes to the next (previous) one and
  zooms to it; a click on the list does the same;
- a click on the photo where no base is fits one there (``fit_base_at``: the analysis's own stages on a crop round
  the click, round or oval, about 0.1 s) and adds it with its sigma; where no rim is found the app says so and ``M``
  (or the panel's button) lays a circle of the size chosen in the panel's menu;
- a proposal dragged to a new place is fitted again where it is dropped (the move and the fit one undo step);
  ``Delete`` removes a false one; the size menu refits the selected one at that size;
- a thing seen but not fitted is drawn as its outline with a "?"; a click on it fits a base there;
- ``B`` shows or hides the photo under the judged table; ``A`` accepts the proposals; ``Esc`` (nothing selected)
  finishes the review;
- a finished review opens again (``Ctrl+Shift+I``, or the "Review photo" button over the table view's top-right corner
  while the table has a photo, clear of the rulers' labels): this session's review of that photo as it was left, else one rebuilt from the table
  itself (its backdrop's corners, its proposals and the bases still tagged ``check``), so after Save and Open too;
- the size menu shows the selected base's size (nothing selected: the size ``M`` lays);
- in a small window the panel is compact (two buttons to a row, a short list that scrolls) and folds away to its
  title row ("–").

Doubt ("check"): a base the user has looked at and fixed or confirmed on its own (dragged and refitted, given a
size from the menu, accepted alone with ``A``) loses its ``check`` tag; "accept all" keeps it on every base nobody
looked at, and the review still lists those (accepted, still to check) until each is confirmed.

Every edit goes through ``dispatch`` as one command, so each is one undo step.
"""

from __future__ import annotations

import html
import math
import threading
import time
from dataclasses import replace
from typing import Any

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UIDropDownMenu, UILabel, UIPanel, UISelectionList

from tabletop.model import CHECK_TAG, PROPOSED_TAG, Scenario
from tabletop.viewport import MAX_SCALE, Viewport

from . import overlays, review_draw
from .hit import item_at
from .review import (COMPACT_ROWS, PANEL_ROW, ROOMY_ROWS, PhotoReview, compact, corners_key, manual_model, model_for,
                     panel_rect, panel_shift, parse_size_label, reopen_button_place, reopened_result, review_viewport, size_label,
                     size_options)
from .state import AddModel, EditModel, Ref, Select, fresh_id

CLICK_SLOP_PX = 4
"""A press and release this close together on the photo is a click (fit a base there), not a pan."""
FOCUS_BASES_ACROSS = 5.0
"""``N`` zooms so the view's shorter side spans this many of the base's diameters (at least)."""
AIM_PX = 6
"""How far from the base's centre a hand's click may land, in screen pixels (the aim and the press's slop): where a
pixel is coarse, the local fit searches that far round the click."""
DUPLICATE_MM = 3.0
"""A base fitted this close to one already on the table is that base (it is selected, not added twice)."""
KEPT_REVIEWS = 2
"""Finished reviews kept to open again as they were left (each holds its photo's pixels: tens of MB at 12 MP)."""
REOPEN_TIP = ("Review the table's photo again (Ctrl+Shift+I): its proposals' rings, the bases still to check, a click "
              "on a missed base fits it")


class ReviewMixin:
    """Part of ``TabletopApp``: the photo review's events, keys, panel, edits and drawing."""

    review: PhotoReview | None = None
    _review_press: tuple[str, Any, tuple[int, int], tuple[float, float]] | None = None
    _review_ui: dict[str, Any] | None = None
    _review_list_key: Any = None
    _review_list_items: list[tuple[str, str, Any]] = []
    _review_list_scrolled_to: int | None = None
    """The list's entry last scrolled into sight (``_sync_list_highlight``)."""
    _review_list_unfitted: Any = None
    """The "?" entry last clicked: highlighted while nothing is selected."""
    _kept_reviews: dict[tuple[tuple[float, float], ...], PhotoReview] | None = None
    _reopening: tuple[threading.Thread, dict[str, Any], tuple[tuple[float, float], ...]] | None = None
    _reopen_button: Any = None

    # ------------------------------------------------------------------ starting and finishing

    def start_review(self, loaded: Any, result: Any, model_ids: tuple[str, ...]) -> None:
        """Open the review of an imported photo whose bases became the models ``model_ids`` (in ``result.bases``' order)."""
        review = PhotoReview(loaded, result, dict(zip(model_ids, result.bases)))
        sizes = [(float(b.diameter_mm), float(b.width_mm if b.shape == "oval" else b.diameter_mm)) for b in result.bases]
        if sizes:
            review.manual_size = max(set(sizes), key=sizes.count)  # the table's commonest size
        self.review = review
        self._review_list_key = None
        self.fit_beside_review_panel()

    def fit_beside_review_panel(self) -> None:
        """Show the whole table in the part of the view the review panel leaves free (the panel sits over its left)."""
        vp = self._review_fit(self.review is not None and self.review.folded)
        if vp is not None:
            self.viewport = vp

    def _review_fit(self, folded: bool, view: pygame.Rect | None = None) -> Viewport | None:
        """The whole table beside the panel (folded: under its title row, above the legend's strip; unfolded in a roomy
        view whose column under the panel cannot hold the legend: above the legend's strip)."""
        t = self.scenario.table
        v = tuple(view if view is not None else self.view_rect)
        strip = 0
        if folded:
            # The folded legend's keys (not the line a click with no rim adds for a while: the fit stays as it is).
            size = review_draw.SMALL_LEGEND_FONT
            lines = review_draw.fit_lines(list(review_draw.FOLDED_LEGEND), v[2] - 28, size)
            strip = overlays.message_size(lines, size)[1] + 12  # its gap to the view's edge; the ruler's labels
        elif not compact(v) and self.review is not None:  # type: ignore[arg-type]
            # Not the line a click with no rim adds for a while: the fit stays as it is.
            legend = review_draw.review_legend(replace(self.review, offer=None), self.scenario)
            strip = self._roomy_legend(legend, v)[3]  # type: ignore[arg-type]
        return review_viewport(v, (t.width, t.depth), folded=folded, bottom_px=strip)  # type: ignore[arg-type]

    @staticmethod
    def _roomy_legend(legend: list[str], view: tuple[int, int, int, int]) -> tuple[list[str], tuple[int, int], int, int]:
        """Where a roomy view's legend goes beside the unfolded panel, never over the table: in the column under the
        panel (in the small font) when that holds all of it, else along the view's bottom (beside the panel where it
        reaches down so far) in a strip the table's fit leaves free. Over the view's bottom it hid 6-8 % of the table at
        1280x800 and more than a third at 1024x600 (now a compact view). (lines, top-left, font size, the strip's
        height: 0 in the column.)"""
        left, top, width, height = view
        p_left, p_top, p_w, p_h = panel_rect(view)
        column = pygame.Rect(p_left, p_top + p_h + 8, p_w - 8, top + height - 8 - (p_top + p_h + 8))
        size = review_draw.SMALL_LEGEND_FONT
        lines = review_draw.fit_lines(legend, column.width - 12, size)
        if overlays.message_size(lines, size)[1] <= column.height:
            return lines, column.topleft, size, 0
        lines = review_draw.fit_lines(legend, width - 28)
        h = overlays.message_size(lines)[1]
        if top + height - h - 8 >= p_top + p_h + 8:
            return lines, (left + 8, top + height - h - 8), review_draw.LEGEND_FONT, h + 16
        # The panel reaches down into the strip: the strip runs beside it.
        beside = p_left + p_w + 8
        lines = review_draw.fit_lines(legend, left + width - beside - 20)
        h = overlays.message_size(lines)[1]
        return lines, (beside, top + height - h - 8), review_draw.LEGEND_FONT, h + 16

    def review_resized(self, before: pygame.Rect, shown: Viewport) -> None:
        """The window was resized mid-review. Where the review showed the whole table (as it opens, after the panel's
        fold, after ``F``), it shows the whole table in the new view, beside the panel as it is now (compact or not);
        zoomed in (``N``, the wheel), the photo point in the middle of the part the panel leaves free stays there, at the
        same zoom, as the table view keeps its centre and zoom."""
        review = self.review
        if review is None:
            return
        if self._shows_review_fit(shown, before):
            self.fit_beside_review_panel()
            return
        was = panel_shift(tuple(before), review.folded)  # type: ignore[arg-type]
        now = panel_shift(tuple(self.view_rect), review.folded)  # type: ignore[arg-type]
        x = shown.centre[0] + was / shown.scale
        self.viewport = Viewport((x - now / shown.scale, shown.centre[1]), shown.scale, self.viewport.rect)

    def _shows_review_fit(self, shown: Viewport, view: pygame.Rect | None = None) -> bool:
        """Whether ``shown`` is the review's whole table beside its panel (as it opens, after a fold, after ``F``) in
        ``view`` (the view now by default)."""
        fit = self._review_fit(self.review is not None and self.review.folded, view)
        return fit is not None and abs(fit.scale - shown.scale) <= 1e-6 * fit.scale and math.hypot(
            fit.centre[0] - shown.centre[0], fit.centre[1] - shown.centre[1]) * shown.scale < 0.5

    def end_review(self, say: bool = True) -> None:
        """Close the review (kept to open again). Where it showed the whole table beside its panel, the whole table is
        shown in the whole view again: the panel's room left empty, the table off-centre, stayed after a finish and
        after another photo's import was started and cancelled (h50)."""
        if self.review is None:
            return
        whole = self._shows_review_fit(self.viewport)
        review, self.review = self.review, None
        self._keep_review(review)
        self._review_press = None
        self._kill_review_ui()
        if whole:
            self.fit()
        if say:
            left = sum(PROPOSED_TAG in m.tags for m in self.scenario.models)
            doubted = sum(CHECK_TAG in m.tags for m in self.scenario.models)
            self.flash("Review finished" + (f": {left} proposal{'s' if left != 1 else ''} not yet accepted (A accepts)" if left else "")
                       + (f", {doubted} base{'s' if doubted != 1 else ''} still to check" if doubted else "")
                       + " · Ctrl+Shift+I (or Review photo, top right) opens it again")

    def _keep_review(self, review: PhotoReview) -> None:
        """Keep a finished review to open again as it was (its photo read, its confidences and "?" outlines)."""
        kept = dict(self._kept_reviews or {})
        key = corners_key(review.result.corners_px)
        kept.pop(key, None)
        kept[key] = review
        while len(kept) > KEPT_REVIEWS:
            kept.pop(next(iter(kept)))
        self._kept_reviews = kept

    def reopen_review(self) -> bool:
        """Ctrl+Shift+I, or the "Review photo" button: open the review of the table's photo again. This session's
        review of that photo comes back as it was left; else (the table opened from a file, the app started again) one
        is rebuilt from the table in a thread: the photo read from the backdrop's file, its camera and lens from the
        backdrop's corners; the proposals and the bases to check are the table's own (tags ``proposed`` and ``check``).
        True when the review is open (or being rebuilt)."""
        if self.photo_import is not None:
            self.flash("A photo is being imported: finish it first (Esc cancels it)", error=True)
            return False
        if self.review is not None:
            self.flash("The photo's review is open (its panel, top left): Esc finishes it")
            return True
        if self._reopening is not None:
            self.flash("Reading the photo to review it again…")
            return True
        backdrop = self.scenario.backdrop
        if backdrop is None:
            self.flash("No photo to review: this table has none (the Photo… button, Ctrl+I, imports one)", error=True)
            return False
        table = (float(self.scenario.table.width), float(self.scenario.table.depth))
        key = corners_key(backdrop.corners)
        kept = (self._kept_reviews or {}).get(key)
        if kept is not None and tuple(kept.result.table_mm) == table:
            self._open_again(kept)
            return True
        from tabletop.scenario_io import backdrop_path

        path = backdrop_path(backdrop, self.state.path)
        if path is None:
            self.flash(f"Cannot review the photo: its path {backdrop.image!r} is relative and this table has no file yet "
                       "(save it next to the photo)", error=True)
            return False
        holder: dict[str, Any] = {}

        def work() -> None:
            try:
                from tabletop.photo.imageio import load_image

                loaded = load_image(path)
                holder["review"] = PhotoReview(loaded, reopened_result(loaded, backdrop.corners, table))
            except Exception as exc:  # noqa: BLE001 - said to the user; the table is unchanged
                holder["error"] = f"{path}: {exc or type(exc).__name__}"

        from .photo_import import _start_worker

        thread = threading.Thread(target=work, name="reopen-review", daemon=True)
        self._reopening = (thread, holder, key)
        _start_worker(thread)
        self.flash("Reading the photo to review it again… (the window stays live)")
        return True

    def _poll_reopening(self) -> None:
        job = self._reopening
        if job is None or job[0].is_alive():
            return
        self._reopening = None
        _, holder, key = job
        if "error" in holder:
            self.show_message("Could not review the photo again", html.escape(holder["error"]))
        elif self.scenario.backdrop is None or corners_key(self.scenario.backdrop.corners) != key or self.photo_import is not None:
            self.flash("The table's photo changed while it was read: Ctrl+Shift+I reviews the one it has now", error=True)
        else:
            self._open_again(holder["review"])

    def _open_again(self, review: PhotoReview) -> None:
        """Open ``review`` (kept or rebuilt) over the table as it is now, and say what is left in it."""
        review.offer = None
        review.cursor = None
        proposed = [m for m in self.scenario.models if PROPOSED_TAG in m.tags]
        sizes = [(float(m.base.length), float(m.base.width)) for m in proposed]
        if sizes:
            review.manual_size = max(set(sizes), key=sizes.count)
        self.review = review
        self._review_list_key = None
        self.backdrops.visible = True
        self.fit_beside_review_panel()
        self.review_sync_ui()
        unsure = len(review.unsure(self.scenario))
        unfitted = len(review.open_unfitted(self.scenario))
        if not proposed and not unsure and not unfitted:
            self.flash("Nothing left to review on this photo: every base from it is accepted and none is marked to check. "
                       "A click on a missed base fits it; Esc finishes")
            return
        self.flash(f"Reviewing the photo again: {len(proposed)} proposal{'s' if len(proposed) != 1 else ''} not yet accepted, "
                   f"{unsure} to check" + (f", {unfitted} seen but not fitted" if unfitted else "")
                   + " · N goes to the next to check, A accepts, Esc finishes")

    def wait_reopen(self, timeout: float = 120.0) -> None:
        """Block until a review being rebuilt has its photo read (tests and scripted runs)."""
        if self._reopening is not None:
            self._reopening[0].join(timeout)

    # ------------------------------------------------------------------ events

    def review_event(self, event: pygame.event.Event) -> bool:
        """The table's mouse while reviewing: a click on the photo fits a base; a dragged proposal refits where dropped.
        True when the event was handled here."""
        if self.review is None or self.state.tool != "select":
            return False
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and self.view_rect.collidepoint(event.pos):
            world = self.viewport.to_world(*event.pos)
            ref = item_at(self.scenario, self.placed(), world[0], world[1], self.slack_mm(), prefer=self.state.selection)
            owner = self.label_owner(event.pos) if ref is None else None
            if owner is not None:
                ref = Ref("model", owner)  # its name label: the base is picked (the select tool does the same), no fit
            if ref is not None and ref.kind == "model":
                m = self.scenario.model(ref.id)
                self._review_press = ("model", ref.id, event.pos, (m.x, m.y))
            elif ref is None:
                self._review_press = ("photo", None, event.pos, world)
            else:
                self._review_press = None
            return False  # the select tool selects, drags or pans as usual
        if event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self._review_press is not None:
            press, self._review_press = self._review_press, None
            if self.dragging:
                self._table_mouse(event)  # the tool or the pan ends first
            kind, model_id, pos, where = press
            if kind == "photo" and math.hypot(event.pos[0] - pos[0], event.pos[1] - pos[1]) <= CLICK_SLOP_PX:
                self.review_click(where[0], where[1])
            elif kind == "model":
                try:
                    m = self.scenario.model(model_id)
                except KeyError:
                    return True
                if (PROPOSED_TAG in m.tags or CHECK_TAG in m.tags) and math.hypot(m.x - where[0], m.y - where[1]) > 1e-6:
                    self.review_refit(m.id, self.state.history.gesture)
            return True
        return False

    def review_key(self, event: pygame.event.Event) -> bool:
        """N / Shift+N, M and Esc while reviewing; True when handled."""
        if self.review is None or getattr(event, "mod", 0) & (pygame.KMOD_CTRL | pygame.KMOD_META | pygame.KMOD_ALT):
            return False
        shift = bool(getattr(event, "mod", 0) & pygame.KMOD_SHIFT)
        if event.key == pygame.K_n:
            self.review_next(-1 if shift else 1)
        elif event.key == pygame.K_m:
            self.review_manual()
        elif event.key == pygame.K_t:
            self.review_toggle_photo()
        elif event.key == pygame.K_ESCAPE:
            if self.review.offer_current(self.scenario, self.state.selection):
                self.review.offer = None
            elif self.state.selection is not None or self.state.also_selected:
                return False
            else:
                self.end_review()
        else:
            return False
        return True

    def review_ui_event(self, event: pygame.event.Event) -> bool:
        """The review panel's widgets; True when the event was one of theirs."""
        if not hasattr(event, "ui_element"):
            return False
        element = event.ui_element
        if event.type == pygame_gui.UI_BUTTON_PRESSED and self._reopen_button is not None and element is self._reopen_button:
            self.reopen_review()
            return True
        ui = self._review_ui
        if ui is None:
            return False
        if event.type == pygame_gui.UI_BUTTON_PRESSED:
            actions = {"next": lambda: self.review_next(1), "manual": self.review_manual, "accept": self.accept_proposed,
                       "finish": self.end_review, "photo": self.review_toggle_photo, "fold": self.review_fold}
            for key, action in actions.items():
                if element is ui.get(key):
                    action()
                    return True
            return False
        if event.type == pygame_gui.UI_DROP_DOWN_MENU_CHANGED and element is ui.get("size"):
            size = parse_size_label(event.text)
            if size is not None:
                self.review_choose_size(size)
            return True
        # A click on the entry already highlighted (the selection's, since N highlights it too) is, to pygame_gui, its
        # deselection, and a quick second click a double click: each is the same "show me this one" (r51).
        if event.type in (pygame_gui.UI_SELECTION_LIST_NEW_SELECTION, pygame_gui.UI_SELECTION_LIST_DROPPED_SELECTION,
                          pygame_gui.UI_SELECTION_LIST_DOUBLE_CLICKED_SELECTION) and element is ui.get("list"):
            self._review_list_scrolled_to = None  # shown again, and highlighted again if the click dropped it
            for label, kind, item in self._review_list_items:
                if label == event.text:
                    if kind == "model":
                        self.review_focus(item)
                    else:
                        self.dispatch(Select(None))  # the outline is what is looked at now: its entry keeps the highlight
                        self._review_list_unfitted = item
                        self._zoom_to(item.x_mm, item.y_mm, 40.0)
            return True
        return False

    # ------------------------------------------------------------------ edits

    def review_click(self, x: float, y: float) -> bool:
        """A click on the photo at table (x, y) mm: fit a base there (inside a "?" outline: at its centre)."""
        review = self.review
        assert review is not None
        unfitted = review.unfitted_at(self.scenario, x, y)
        at = (unfitted.x_mm, unfitted.y_mm) if unfitted is not None else (x, y)
        review.offer_raised = False
        if unfitted is not None and unfitted.raised:
            # Fitted on the table's plane it lands where the photo shows its top, millimetres to centimetres from where
            # it stands (a hill's height, unknown), at the sigma of a base on the mat (h50: 19 mm off at ±0.4 mm).
            review.offer, review.offer_raised = at, True
            review.offer_made_on(self.scenario, self.state.selection)
            self.flash(f"That base stands on a raised surface (a hill, a roof): where it stands depends on its height, which "
                       f"the photo does not give. M lays a {review_draw.review_size_text(review.manual_size)} circle there "
                       "to drag where it stands", error=True)
            return False
        from tabletop.photo.local import LOCAL_MAX_REACH_MM

        aim_mm = AIM_PX / self.viewport.scale
        if aim_mm > LOCAL_MAX_REACH_MM:
            review.offer = None
            self.flash(f"Zoom in to add a base: at this zoom a click could mean anything within {aim_mm:.0f} mm "
                       "(the wheel zooms where the pointer is)", error=True)
            return False
        detection, ms = self._fit(at[0], at[1], aim_mm=aim_mm)
        table = self.scenario.table
        if detection is None and not (0.0 <= at[0] <= table.width and 0.0 <= at[1] <= table.depth):
            review.offer = None
            self.flash(f"No base rim found there ({ms:.0f} ms), and that is off the table: click a base on it", error=True)
            return False
        if detection is None:
            review.offer = at
            review.offer_made_on(self.scenario, self.state.selection)
            what = "in that outline" if unfitted is not None else "here"
            self.flash(f"No base rim found {what} ({ms:.0f} ms): M adds a {review_draw.review_size_text(review.manual_size)} "
                       "circle there (the review panel's menu picks another size)", error=True)
            return False
        review.offer = None
        near = [m for m in self.scenario.models if math.hypot(m.x - detection.x_mm, m.y - detection.y_mm) < DUPLICATE_MM]
        if near:
            self.dispatch(Select(Ref("model", near[0].id)))
            self.flash(f"That base is already on the table ({near[0].label}): selected")
            return False
        model = model_for(fresh_id(self.scenario, "p", used=self.state.history.model_ids), detection)
        if self.dispatch(AddModel(model)):
            review.detections[model.id] = detection
            self.dispatch(Select(Ref("model", model.id)))
            self.flash(f"Added {model.id}: {self._describe(detection)} (fitted in {ms:.0f} ms)"
                       + (" · check it" if CHECK_TAG in model.tags else ""))
            return True
        return False

    def review_refit(self, model_id: str, gesture: int | None) -> None:
        """Fit the proposal ``model_id`` again where it now lies (after a drag: the same undo step as the drag). The
        user put it there by eye: it is no longer "check this base", whatever the fit's own confidence (its sigma
        stays the fit's)."""
        review = self.review
        assert review is not None
        m = self.scenario.model(model_id)
        shape = "oval" if m.base.shape == "oval" and not m.base.is_round else "round"
        detection, ms = self._fit(m.x, m.y, shape=shape)
        other = None if detection is None else next(
            (o for o in self.scenario.models if o.id != m.id and math.hypot(o.x - detection.x_mm, o.y - detection.y_mm) < DUPLICATE_MM), None)
        if other is not None:
            # The rim found is another base's: snapped onto it, the two would be one base counted twice.
            self.dispatch(EditModel(m.id, {"sigma": max(m.sigma or 0.0, 0.5), "tags": tuple(t for t in m.tags if t != CHECK_TAG)}, gesture))
            self.flash(f"The rim where {m.id} was dropped is {other.label}'s ({ms:.0f} ms): {m.id} left where you put it "
                       "(Delete it if it is the same base)", error=True)
            return
        if detection is None:
            self.dispatch(EditModel(m.id, {"sigma": max(m.sigma or 0.0, 0.5), "tags": tuple(t for t in m.tags if t != CHECK_TAG)}, gesture))
            self.flash(f"No base rim where {m.id} was dropped ({ms:.0f} ms): left where you put it, ±{max(m.sigma or 0.0, 0.5):.1f} mm")
            return
        fitted = model_for(m.id, detection)
        changes = {"x": fitted.x, "y": fitted.y, "base": fitted.base, "facing": fitted.facing, "sigma": fitted.sigma,
                   "tags": tuple(t for t in m.tags if t != CHECK_TAG)}
        if self.dispatch(EditModel(m.id, changes, gesture)):
            review.detections[m.id] = detection
            self.flash(f"{m.id} fitted where dropped: {self._describe(detection)} ({ms:.0f} ms)")

    def review_manual(self) -> None:
        """M: lay a circle of the chosen size where the last click found no rim."""
        review = self.review
        assert review is not None
        if not review.offer_current(self.scenario, self.state.selection):
            self.flash("M lays a circle where a click found no base rim: click a base on the photo first", error=True)
            return
        new_id = fresh_id(self.scenario, "p", used=self.state.history.model_ids)
        model = manual_model(new_id, review.offer[0], review.offer[1], review.manual_size)
        if review.offer_raised:
            model = replace(model, tags=(*model.tags, CHECK_TAG))  # laid where the photo shows its top, not where it stands
        if self.dispatch(AddModel(model)):
            review.offer, review.offer_raised = None, False
            self.dispatch(Select(Ref("model", model.id)))
            self.flash(f"Added {model.id} by hand: {review_draw.review_size_text(review.manual_size)}, ±{model.sigma:.1f} mm (drag to place it)")

    def review_choose_size(self, size: tuple[float, float]) -> None:
        """The size menu: the selected proposal fitted again at that size (or just resized), and the size of the next
        circle laid by hand. The user chose its size: the base is no longer "check this base"."""
        review = self.review
        assert review is not None
        review.manual_size = size
        sel = self.state.selection
        if sel is None or sel.kind != "model":
            self.flash(f"Circles laid by hand (M) are now {review_draw.review_size_text(size)}")
            return
        m = self.scenario.model(sel.id)
        length, width = size
        oval = abs(length - width) > 1e-9
        detection, ms = self._fit(m.x, m.y, shape="oval" if oval else "round", sizes=None if oval else (length,))
        if detection is not None and any(o.id != m.id and math.hypot(o.x - detection.x_mm, o.y - detection.y_mm) < DUPLICATE_MM
                                         for o in self.scenario.models):
            detection = None  # a neighbour's rim of that size: not this base's
        if detection is not None and (not oval or (detection.diameter_mm, detection.width_mm) == size):
            fitted = model_for(m.id, detection)
            changes = {"x": fitted.x, "y": fitted.y, "base": fitted.base, "facing": fitted.facing, "sigma": fitted.sigma,
                       "tags": tuple(t for t in m.tags if t != CHECK_TAG)}
            if self.dispatch(EditModel(m.id, changes)):
                review.detections[m.id] = detection
                self.flash(f"{m.id} fitted at {review_draw.review_size_text(size)}: {self._describe(detection)} ({ms:.0f} ms)")
            return
        from tabletop.model import Base

        base = Base.round(length) if not oval else Base("oval", length, width)
        if self.dispatch(EditModel(m.id, {"base": base, "tags": tuple(t for t in m.tags if t != CHECK_TAG)})):
            self.flash(f"{m.id} is now {review_draw.review_size_text(size)} (no rim of that size found: its place is unchanged)")

    def review_toggle_photo(self) -> None:
        """T: the photo under the fitted rings, or the judged table's bases drawn over it."""
        review = self.review
        assert review is not None
        review.show_photo = not review.show_photo
        if review.show_photo and not self.backdrops.visible:
            self.backdrops.visible = True
        self.flash("The photo under each proposal: its ring on the real base (T: the judged table)" if review.show_photo
                   else "The judged table's bases drawn over the photo (T: the photo under the rings)")
        if self._review_ui is not None and "photo" in self._review_ui:
            self._review_ui["photo"].set_text(self._photo_button_text())

    def _photo_button_text(self) -> str:
        review = self.review
        assert review is not None
        if compact(tuple(self.view_rect)):  # type: ignore[arg-type]
            return "Judged (T)" if review.show_photo else "Photo (T)"
        return "Judged table (T)" if review.show_photo else "Photo under rings (T)"

    def review_fold(self) -> None:
        """The panel's "–" / "+": fold it away to its title row (the photo whole in a small window), or back."""
        review = self.review
        assert review is not None
        before = self._review_fit(review.folded)
        review.folded = not review.folded
        if before is not None and before == self.viewport:
            self.fit_beside_review_panel()  # the whole table shown as the review showed it: now beside the panel as it is
        self._kill_review_ui()
        self.review_sync_ui()
        self.flash("Review panel folded: + opens it again (N, M, T, A and Esc still work)" if review.folded else "Review panel open")

    def review_next(self, step: int = 1) -> None:
        """N: select the next base to check and zoom to it."""
        review = self.review
        assert review is not None
        m = review.next_unsure(self.scenario, step)
        if m is None:
            self.flash("No base left to check" + (": the ? outlines are things seen but not fitted" if review.open_unfitted(self.scenario) else ""))
            return
        self.review_focus(m.id)

    def review_focus(self, model_id: str) -> None:
        m = self.scenario.model(model_id)
        self.dispatch(Select(Ref("model", m.id)))
        if self.review is not None:
            self.review.cursor = m.id
        self._zoom_to(m.x, m.y, m.base.bounding_radius * 2)
        conf = self.review.confidence(m) if self.review is not None else 1.0
        self.flash(f"{m.id}: {m.base.length:g} mm, ±{m.sigma or 0:.2f} mm, confidence {conf:.2f}: check it against the photo "
                   "(drag it to refit, Delete if false, the size menu to resize)")

    def _zoom_to(self, x: float, y: float, size_mm: float) -> None:
        """Centre (x, y) in the part of the view the panel leaves free, zoomed in to show ``size_mm`` well."""
        view = self.view_rect
        scale = min(view.width, view.height) / (FOCUS_BASES_ACROSS * max(size_mm, 10.0))
        scale = min(MAX_SCALE, max(self.viewport.scale, scale))
        folded = self.review is not None and self.review.folded
        shift = panel_shift(tuple(view), folded) if self._review_ui is not None else 0.0  # type: ignore[arg-type]
        self.viewport = Viewport((x - shift / scale, y), scale, self.viewport.rect)

    def _fit(self, x: float, y: float, shape: str = "any", sizes: tuple[float, ...] | None = None,
             aim_mm: float = 0.0) -> tuple[Any, float]:
        """``fit_base_at`` on the photo under review, searching at least ``aim_mm`` round the point (a click's
        uncertainty at the view's zoom); the detection (or None) and the milliseconds it took."""
        from tabletop.photo import BASE_SIZES_MM
        from tabletop.photo.local import LOCAL_REACH_MM, fit_base_at

        review = self.review
        assert review is not None
        t0 = time.perf_counter()
        try:
            detection = fit_base_at(review.rectified(), x, y, sizes or BASE_SIZES_MM, shape, max(LOCAL_REACH_MM, aim_mm))
        except Exception as exc:  # noqa: BLE001 - a failed fit is "no rim here", never a crash of the app
            self.flash(f"The fit failed: {exc}", error=True)
            detection = None
        review.last_fit_ms = (time.perf_counter() - t0) * 1000
        return detection, review.last_fit_ms

    @staticmethod
    def _describe(detection: Any) -> str:
        size = (f"{detection.diameter_mm:g}x{detection.width_mm:g} mm oval" if detection.shape == "oval"
                else f"{detection.diameter_mm:g} mm")
        return f"{size} ±{detection.sigma_mm:.2f} mm"

    # ------------------------------------------------------------------ the panel

    def _kill_review_ui(self) -> None:
        if self._review_ui is not None:
            self._review_ui["panel"].kill()
            if "size" in self._review_ui:
                self._review_ui["size"].kill()
        self._review_ui = None
        self._review_list_key = None
        self._review_list_unfitted = None

    def _sync_reopen_button(self) -> None:
        """The "Review photo" button over the view's top-right corner while the table has a photo and no review (or
        import) is open: the way back into a finished review."""
        wanted = self.review is None and self.photo_import is None and self.scenario.backdrop is not None
        button = self._reopen_button
        if wanted and (button is None or not button.alive()):
            # Its corner; the next frame moves it where a ruler is there (``place_reopen_button``).
            spot = reopen_button_place(tuple(self.view_rect), [])  # type: ignore[arg-type]
            self._reopen_button = UIButton(pygame.Rect(spot), "Review photo", self.ui, starting_height=2, tool_tip_text=REOPEN_TIP)
            self.ui.update(0.0)  # made after this frame's widgets were updated: drawn in this very frame
        elif not wanted and button is not None:
            button.kill()
            self._reopen_button = None

    def place_reopen_button(self, frame: Any) -> Any:
        """Keep the "Review photo" button clear of the rulers drawn in ``frame`` (moved only when its corner is not);
        ``frame`` with the button in it, so the panels docked over the table (the odds' legend, the loupe, the hints)
        keep off it too."""
        button = self._reopen_button
        if button is None or not button.alive():
            return frame
        own = tuple(button.rect)
        spot = reopen_button_place(tuple(self.view_rect), [r for r in frame.regions if tuple(r) != own])  # type: ignore[arg-type]
        if spot != own:
            button.set_position(spot[:2])
        return frame.adding(overlays={"review_button": spot})

    def _size_shown(self) -> str:
        """What the size menu shows: the selected base's size, or (none selected) the size M lays."""
        review = self.review
        assert review is not None
        sel = self.state.selection
        if sel is not None and sel.kind == "model" and not self.state.also_selected:
            try:
                m = self.scenario.model(sel.id)
            except KeyError:
                m = None
            if m is not None:
                return size_label(m.base.length, m.base.width if m.base.shape == "oval" else None)
        return size_label(*review.manual_size)

    def _size_menu(self, rect: pygame.Rect, start: str) -> UIDropDownMenu:
        options = size_options()
        if start not in options:
            options = [start] + options  # a size off the catalogue (set in the inspector): shown as it is
        # Its list opens down to the window's bottom at most (at 800x520 it ran 60 px below it, its last entries out
        # of reach): where there is less room than it needs, it scrolls.
        room = self.overlay.get_container().get_rect().height - rect.bottom - 4
        menu = UIDropDownMenu(options, start, rect, self.ui, container=self.overlay, expansion_height_limit=max(60, room))
        menu.set_tooltip("The selected base's size: choose another and it is fitted again at it (nothing selected: the "
                         "size M lays by hand)")
        return menu

    def _sync_size_menu(self) -> None:
        ui = self._review_ui
        menu = None if ui is None else ui.get("size")
        if menu is None:
            return
        want = self._size_shown()
        # Rebuilt only when what it should show changes (another base selected, this one resized): a choice the user
        # just made is still on its way as the menu's event, which must find this very menu.
        if want == ui.get("size_for") or menu.current_state is not menu.menu_states["closed"]:
            return
        rect = menu.relative_rect.copy()
        menu.kill()
        ui["size"] = self._size_menu(rect, want)
        ui["size_for"] = want

    def review_sync_ui(self) -> None:
        """Build the review panel when a review is open (again after the window's widgets were rebuilt), drop it when
        none is, and keep its list in step with the table."""
        self._poll_reopening()
        if self.review is not None and not self._review_photo_shown():
            self.end_review(say=False)  # another table opened, or the import undone: the photo is not this table's now
        self._sync_reopen_button()
        if self.review is None:
            if self._review_ui is not None:
                self._kill_review_ui()
            return
        ui = self._review_ui
        if ui is None or not ui["panel"].alive():
            self._build_review_ui()
            ui = self._review_ui
        assert ui is not None
        self._sync_size_menu()
        review = self.review
        review.offer_current(self.scenario, self.state.selection)  # a later edit or selection: the offer's line goes
        unsure = review.unsure(self.scenario)
        unfitted = review.open_unfitted(self.scenario)
        key = (tuple((m.id, m.sigma, m.base) for m in unsure), tuple((u.x_mm, u.y_mm) for u in unfitted), review.offer is not None)
        if key == self._review_list_key:
            self._sync_list_highlight()
            return
        self._review_list_key = key
        self._review_list_scrolled_to = None  # a new list: its highlighted entry brought into sight again
        items: list[tuple[str, str, Any]] = []
        for m in unsure:
            size = size_label(m.base.length, m.base.width if m.base.shape == "oval" else None)
            items.append((f"{m.id}  {size}  ±{m.sigma or 0:.2f}", "model", m.id))
        for u in unfitted:
            items.append((f"?  not fitted at {u.x_mm:.0f}, {u.y_mm:.0f}", "unfitted", u))
        self._review_list_items = items
        if "list" in ui:
            ui["list"].set_item_list([label for label, _, _ in items])
        ui["title"].set_text(f"To check: {len(unsure)}" + (f" · not fitted: {len(unfitted)}" if unfitted else ""))
        self._sync_list_highlight()

    def _sync_list_highlight(self) -> None:
        """The list's highlight on the base selected on the table, however it was selected (N, Shift+N, a click on the
        photo, the list itself), scrolled into sight; none when the selection is not listed. A "?" entry clicked keeps its
        highlight while nothing is selected (it lets the selection go and zooms to the outline)."""
        ui = self._review_ui
        listing = None if ui is None else ui.get("list")
        if listing is None:
            return
        sel = self.state.selection
        wanted = None
        if sel is not None:
            self._review_list_unfitted = None
        if sel is not None and sel.kind == "model" and not self.state.also_selected:
            wanted = next((i for i, (_, kind, item) in enumerate(self._review_list_items) if kind == "model" and item == sel.id), None)
        elif sel is None and self._review_list_unfitted is not None:
            wanted = next((i for i, (_, kind, item) in enumerate(self._review_list_items)
                           if kind == "unfitted" and item is self._review_list_unfitted), None)
        changed = False
        for i, entry in enumerate(listing.item_list):
            on = i == wanted
            if entry["selected"] != on:
                entry["selected"], changed = on, True
                button = entry["button_element"]
                if button is not None and on:
                    button.select()
                elif button is not None:
                    button.unselect()
        bar = listing.scroll_bar
        # Brought into sight when the highlighted entry changes, not on every frame: the user may scroll the list away
        # from it (the wheel, the bar) with the base still selected (r51: it snapped back at once).
        if wanted is not None and bar is not None and wanted != self._review_list_scrolled_to:
            self._review_list_scrolled_to = wanted
            # The compact panel's list shows a few rows: the highlighted one brought into them.
            row = listing.list_item_height
            total = row * len(listing.item_list)
            seen = listing.list_and_scroll_bar_container.relative_rect.height
            start = bar.start_percentage * total
            top = wanted * row
            if top < start or top + row > start + seen:
                bar.set_scroll_from_start_percentage(min(top, max(0, total - seen)) / total)
                listing.update(0.0)
                changed = True
        if changed:
            self.ui.update(0.0)  # this frame's widgets were updated before the key: drawn right in this very frame

    def _review_photo_shown(self) -> bool:
        """Whether the table's backdrop is still the photo under review (its corners; its path is rewritten on saving)."""
        review, backdrop = self.review, self.scenario.backdrop
        if review is None or backdrop is None:
            return False
        # Both to 0.01 px, as an import writes them: a file's corners given finer (written by hand, another tool) are
        # the same photo (the review opened on them closed again at once, with no word).
        return corners_key(backdrop.corners) == corners_key(review.result.corners_px)

    def _build_review_ui(self) -> None:
        """The panel: its title ("To check: N") and fold button; unfolded, the list of bases to check, the size menu across
        the panel, Next and Circle, the photo toggle, Accept and Finish (in a small view two to a row, the list shorter)."""
        review = self.review
        assert review is not None
        view = tuple(self.view_rect)
        left, top, w, h = panel_rect(view, review.folded)  # type: ignore[arg-type]
        panel = UIPanel(pygame.Rect(left, top, w, h), manager=self.ui, starting_height=2)
        iw = w - 16
        title = UILabel(pygame.Rect(4, 2, iw - 32, 24), "To check", self.ui, container=panel)
        fold = UIButton(pygame.Rect(iw - 24, 2, 28, 24), "+" if review.folded else "–", self.ui, container=panel,
                        tool_tip_text="Open the review panel again" if review.folded else
                        "Fold the panel away to its title row, to see the whole photo (the keys go on working)")
        ui: dict[str, Any] = {"panel": panel, "title": title, "fold": fold}
        self._review_ui = ui
        self._review_list_key = None
        if review.folded:
            return
        small = compact(view)  # type: ignore[arg-type]
        rows = COMPACT_ROWS if small else ROOMY_ROWS
        half = iw // 2 - 2
        right = iw // 2 + 6
        ui["list"] = UISelectionList(pygame.Rect(4, 28, iw, max(60, h - 28 - rows * PANEL_ROW - 8)), [], self.ui, container=panel)
        y = h - rows * PANEL_ROW - 6
        # The size menu across the panel, under the list (the selected base's size): at half the panel's width its list
        # cut the ovals' names ("60x35 mm o…"). On the window's overlay layer, over the panel: inside it the open list was
        # clipped and the buttons below it took its clicks.
        inner = panel.get_container().get_rect()
        ui["size_for"] = self._size_shown()
        ui["size"] = self._size_menu(pygame.Rect(inner.left + 4, inner.top + y, iw, 30), ui["size_for"])
        y += PANEL_ROW
        ui["next"] = UIButton(pygame.Rect(4, y, half, 30), "Next (N)", self.ui, container=panel,
                              tool_tip_text="Select the next base to check and zoom to it (Shift+N: the previous one)")
        ui["manual"] = UIButton(pygame.Rect(right, y, half, 30), "Circle (M)", self.ui, container=panel,
                                tool_tip_text="Lay a base of the menu's size where the last click found no rim (click a missed base on "
                                "the photo first; a greyed button would not say why, so this one stays live and says it)")
        y += PANEL_ROW
        photo_tip = "Show the judged table's bases over the photo, or the photo under each fitted ring (B hides the photo altogether)"
        accept_tip = ("Accept the selected base (you looked at it: it is no longer marked to check); none selected: every "
                      "proposal, the ones to check staying marked")
        finish_tip = ("Close this panel; the photo stays as the table's backdrop (B shows or hides it; Ctrl+Shift+I or the "
                      "Review photo button opens the review again)")
        if small:
            ui["photo"] = UIButton(pygame.Rect(4, y, half, 30), self._photo_button_text(), self.ui, container=panel, tool_tip_text=photo_tip)
            ui["accept"] = UIButton(pygame.Rect(right, y, half, 30), "Accept (A)", self.ui, container=panel, tool_tip_text=accept_tip)
            y += PANEL_ROW
            ui["finish"] = UIButton(pygame.Rect(4, y, iw, 30), "Finish (Esc)", self.ui, container=panel, tool_tip_text=finish_tip)
        else:
            ui["photo"] = UIButton(pygame.Rect(4, y, iw, 30), self._photo_button_text(), self.ui, container=panel, tool_tip_text=photo_tip)
            y += PANEL_ROW
            ui["accept"] = UIButton(pygame.Rect(4, y, iw, 30), "Accept the proposals (A)", self.ui, container=panel, tool_tip_text=accept_tip)
            y += PANEL_ROW
            ui["finish"] = UIButton(pygame.Rect(4, y, iw, 30), "Finish the review (Esc)", self.ui, container=panel, tool_tip_text=finish_tip)

    # ------------------------------------------------------------------ drawing

    def draw_review(self, surface: pygame.Surface, scenario: Scenario) -> None:
        view = self.view_rect
        review_draw.draw_review(surface, self.viewport, view, scenario, self.review)
        self.review_legend_rect: pygame.Rect | None = None
        if self.review is None or self.photo_import is not None:
            return
        small = compact(tuple(view))  # type: ignore[arg-type]
        # Folded, in any view: the panel's buttons are gone, so the legend is their keys.
        legend = review_draw.review_legend(self.review, scenario, short=small or self.review.folded)
        if not small and not self.review.folded:
            lines, at, size, _ = self._roomy_legend(legend, tuple(view))  # type: ignore[arg-type]
            self.review_legend_rect = overlays.label_box(surface, lines, at, size)
            return
        size = review_draw.SMALL_LEGEND_FONT
        if self.review.folded:
            # Along the view's bottom, in the strip the table's fit leaves free (``_review_fit``).
            lines = review_draw.fit_lines(legend, view.width - 28, size)
            w, h = overlays.message_size(lines, size)
            self.review_legend_rect = overlays.label_box(surface, lines, (view.left + 8, view.bottom - h - 8), size)
            return
        # In the column under the compact panel: the table is fitted beside the panel, so the legend covers none of it.
        left, top, w, h = panel_rect(tuple(view))  # type: ignore[arg-type]
        column = pygame.Rect(left, top + h + 8, w - 8, view.bottom - 8 - (top + h + 8))  # clear of the left ruler too
        lines = review_draw.small_legend(legend, column.width, column.height, size)
        self.review_legend_rect = overlays.label_box(surface, lines, column.topleft, size)
