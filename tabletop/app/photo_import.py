"""File → Import photo…: pick a photo, click the table's corners, find the bases off the frame loop,
and lay them on the table as proposed models over the photo (issue 17, item 3).

The flow is a small state machine held by the app (``PhotoImport``); OpenCV is loaded only when
a photo is imported. Detection runs in a thread (OpenCV releases the GIL), so the window keeps
drawing; the result becomes one undoable ``ImportPhoto`` command.
"""

from __future__ import annotations

import atexit
import html
import math
import os
import threading
import time
import weakref
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pygame

from tabletop.model import CHECK_TAG, PROPOSED_TAG, Backdrop, Model, Scenario
from tabletop.photo.values import COARSE_MM_PER_PX

from . import overlays, review_draw
from .backdrop import OPACITY_STEP
from .review import compact, model_for
from .review_mode import DUPLICATE_MM, ReviewMixin
from .state import AcceptProposed, ImportPhoto, Ref, fresh_id

__all__ = ["PhotoImport", "PhotoImportMixin", "proposed_models"]

PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff", ".bmp"}
CORNER_NAMES = ("lower-left", "lower-right", "upper-right", "upper-left")
#: ``find_table``'s confidence from which Enter accepts its corners without clicks: the
#: pipeline's own line (below it ``tabletop photo`` refuses an outline found unaided).
AUTO_CONFIDENCE = 0.3
LOUPE_SIZE = 180
LOUPE_ZOOM = 4.0
OUTSIDE_MARGIN = 0.12
"""Room left round the photo (a fraction of the view on each side) to place a corner the frame cut off."""
NUDGE_PX = 1.0
"""An arrow key moves the corner last placed this many of the photo's own pixels: finer than a click where the photo is
shown scaled down (at 800x520 a screen pixel covers about 9 of a 12 MP photo's), the loupe showing where it lands."""
FOUR_PLACED = "Enter: find the bases · drag a corner to adjust it (the loupe follows)"
ONE_OUTSIDE = "The {} corner lies outside the photo: the two sides running to it place it"
NUDGE_HINT = " · arrow keys: move it a photo pixel"
NUDGE_KEYS = {pygame.K_LEFT: (-1, 0), pygame.K_RIGHT: (1, 0), pygame.K_UP: (0, -1), pygame.K_DOWN: (0, 1)}
GRAB_PX = 12
"""A press this close to a corner placed already drags it."""
EXIT_WAIT_S = 60.0
"""How long a quitting app waits for a photo's background work still running (an import cancelled, or the app closed
while the bases are looked for)."""

_WORKERS: weakref.WeakSet[threading.Thread] = weakref.WeakSet()


def _start_worker(thread: threading.Thread) -> None:
    _WORKERS.add(thread)
    thread.start()


@atexit.register
def _wait_for_workers() -> None:
    """Let the photo threads still running finish before the interpreter ends: a daemon thread stopped inside OpenCV's
    C++ code ends the process with "terminate called without an active exception" (SIGABRT, exit status 134) after the
    user quit cleanly. The window is gone by then; only the process lingers."""
    deadline = time.monotonic() + EXIT_WAIT_S
    for thread in list(_WORKERS):
        thread.join(max(0.0, deadline - time.monotonic()))


@dataclass
class PhotoImport:
    """One import in progress: the photo, the corners clicked (file pixels), the background work."""

    path: str
    table_mm: tuple[float, float]
    loaded: Any  # tabletop.photo.values.LoadedImage
    preview: pygame.Surface
    full: pygame.Surface
    clicks: list[tuple[float, float]] = field(default_factory=list)
    steps: list[float] = field(default_factory=list)
    """Per corner in ``clicks``: how many file pixels one screen pixel covered where it was last placed (the click's
    grain: the analysis takes a corner the table's edges do not confirm as that loose, ``pipeline.click_sigma_px``)."""
    auto: Any = None  # TableFit from find_table, when it has finished
    phase: str = "corners"  # corners → detecting → (done: the import object is dropped)
    started: float = 0.0
    result: Any = None
    error: str | None = None
    thread: threading.Thread | None = None
    finder: threading.Thread | None = None
    size_entry: Any = None  # the "table size" text field shown while corners are clicked
    dragging: int | None = None  # the corner being dragged (an index into ``clicks``)
    active: int | None = None  # the corner last placed or dragged: the arrow keys move it (``NUDGE_PX``)
    nudged: bool = False  # the arrow keys moved it since the pointer last moved: the loupe shows it, not the pointer
    marked: Any = None  # the printed corner markers' fit, when the photo shows them (``tabletop.photo.markers``)
    markers_unused: bool = False  # three or four markers seen that make no table's outline (the sheet itself, pieces off)
    markers_refit: bool = False  # the markers fitted again for a size just entered: Enter meanwhile lets the analysis fit them
    refused: bool = False  # the photo does not show enough of the table (``error`` says what to do)
    guidance_px: int = 0
    """How high the guidance box reaches above the view's bottom (screen px, its gap included): the photo is shown above
    it (at 800x520 it hid the lower corners of a photo narrower than 4:3). It only grows during an import, so the photo
    does not jump as the guidance's lines change."""
    guidance_view: tuple[int, int] = (0, 0)  # the view size ``guidance_px`` is for

    def frame(self, view: pygame.Rect) -> tuple[pygame.Rect, float]:
        """Where the whole photo is shown in ``view`` and its scale (screen px per file px): with ``OUTSIDE_MARGIN`` round
        it, and above the guidance where that reaches higher than the margin (``guidance_px``)."""
        (left, top, width, height), scale = photo_frame(tuple(view), self.loaded.original_size, self.guidance_px)  # type: ignore[arg-type]
        return pygame.Rect(left, top, width, height), scale

    def outside(self) -> list[int]:
        """The corners placed outside the photo."""
        from tabletop.photo.imageio import corners_outside

        return corners_outside(self.clicks, self.loaded.original_size)

    def to_file(self, view: pygame.Rect, pos: tuple[int, int]) -> tuple[float, float]:
        """The file point at the middle of what screen pixel ``pos`` shows (file pixels are centred on whole numbers,
        as the analysis counts them; a screen pixel shows 1/scale of them from its left edge)."""
        rect, scale = self.frame(view)
        return ((pos[0] - rect.left + 0.5) / scale - 0.5, (pos[1] - rect.top + 0.5) / scale - 0.5)

    def to_screen(self, view: pygame.Rect, p: tuple[float, float]) -> tuple[float, float]:
        """Where file point ``p`` is shown (``to_file``'s inverse: a whole number is a screen pixel's middle)."""
        rect, scale = self.frame(view)
        return (rect.left + (p[0] + 0.5) * scale - 0.5, rect.top + (p[1] + 0.5) * scale - 0.5)

    def step(self, view: pygame.Rect) -> float:
        """How many file pixels one screen pixel covers where the photo is shown in ``view``."""
        return 1.0 / self.frame(view)[1]

    def auto_corners(self) -> tuple[tuple[float, float], ...] | None:
        """The printed markers' corners (file pixels), else ``find_table``'s when it is confident and they make a table
        inside the photo, else None."""
        if self.marked is not None and self.marked.corners_px is not None:
            from tabletop.photo.imageio import to_file

            return tuple((float(x), float(y)) for x, y in to_file(np.asarray(self.marked.corners_px), self.loaded.scale))
        if self.markers_refit or self.auto is None or self.auto.confidence < AUTO_CONFIDENCE:
            return None  # (the markers being fitted for a new size: theirs will be offered, not the edges')
        from tabletop.photo.imageio import check_corners, to_file
        from tabletop.photo.values import PhotoError

        corners = tuple((float(x), float(y)) for x, y in to_file(np.asarray(self.auto.corners_px), self.loaded.scale))
        try:
            check_corners((corners[0], corners[1], corners[2], corners[3]), self.loaded.original_size)
        except PhotoError:
            return None  # the user clicks them
        return corners


def loupe_box(view: pygame.Rect, pointer: tuple[int, int]) -> pygame.Rect:
    """Where the loupe is drawn: over the view's top-right corner, or its top-left (under the size field) while the
    pointer is in that corner. In a small window the photo reaches under the top-right box, and the loupe hid the very
    corner being clicked (at 800x520 the table's upper-right one)."""
    spots = [(view.right - LOUPE_SIZE - 12, view.top + 12), (view.left + 12, view.top + 54)]  # 54: under the size field
    for x, y in spots:
        box = pygame.Rect(x, y, LOUPE_SIZE, LOUPE_SIZE)
        if not box.inflate(2 * GRAB_PX, 2 * GRAB_PX).collidepoint(pointer):
            return box
    return pygame.Rect(*spots[0], LOUPE_SIZE, LOUPE_SIZE)  # a view too small for either to miss the pointer


def _bgr_surface(bgr: np.ndarray) -> pygame.Surface:
    rgb = np.ascontiguousarray(bgr[:, :, ::-1])
    h, w = rgb.shape[:2]
    surface = pygame.image.frombuffer(rgb.tobytes(), (w, h), "RGB")
    return surface.convert() if pygame.display.get_surface() is not None else surface.copy()


def proposed_models(scenario: Scenario, bases: Any, used: Collection[str] = ()) -> tuple[Model, ...]:
    """One model per detection (round, or oval along its long axis), tagged ``proposed`` (and ``check`` where the
    analysis is not confident of it), carrying its 1-sigma error; none where a model not proposed (accepted, or
    placed by hand) already stands within ``DUPLICATE_MM``. Their ids are none of ``used`` (``fresh_id``)."""
    out: list[Model] = []
    s = scenario
    standing = [m for m in scenario.models if PROPOSED_TAG not in m.tags]
    for b in bases:
        if any(math.hypot(m.x - b.x_mm, m.y - b.y_mm) < DUPLICATE_MM for m in standing):
            continue  # a base already on the table (accepted from an earlier import, or placed by hand)
        m = model_for(fresh_id(s, "p", used=used), b)
        out.append(m)
        s = Scenario(s.table, s.models + (m,), s.terrain)
    return tuple(out)


def image_reference(image: str, scenario_path: str | None) -> str:
    """The backdrop's ``image``: relative to the scenario file when it has one, else absolute."""
    full = os.path.abspath(image)
    if scenario_path is None:
        return Path(full).as_posix()
    try:
        return Path(os.path.relpath(full, os.path.abspath(Path(scenario_path).parent))).as_posix()
    except ValueError:  # another drive
        return Path(full).as_posix()


def _markers_for(job: PhotoImport, table: tuple[float, float]) -> None:
    """The printed markers' fit for a table of ``table`` mm into ``job`` (a thread's work): their outline when they make
    one; kept only if the size asked for is still the job's (it may change while they are fitted)."""
    try:
        from tabletop.photo.markers import table_from_markers

        marked = table_from_markers(job.loaded.pixels, table)
    except Exception:  # noqa: BLE001 - no markers: the table's edges, or the user's clicks
        marked = None
    if tuple(job.table_mm) != tuple(table):
        return
    job.marked = marked if marked is not None and marked.corners_px is not None else None
    job.markers_unused = marked is not None and marked.corners_px is None and len(marked.seen) >= 3
    job.markers_refit = False


def table_line(table_mm: tuple[float, float]) -> str:
    """The import guidance's last line: the table's size, and where to change it."""
    w, d = table_mm
    return f"table {w / 25.4:.4g}\" × {d / 25.4:.4g}\" ({w:.0f} × {d:.0f} mm): change it in the field above, Enter"


def guidance_height_px(lines: int) -> int:
    """How high ``lines`` of the import's guidance reach above the view's bottom, drawn 12 px up from it at 20 px a
    line, with a gap of 6 px to the photo above them (screen px)."""
    return 12 + 20 * lines + 6


def guidance_room_px(view: tuple[int, int, int, int], last_line: str) -> int:
    """How high the import's guidance reaches above the view's bottom at its longest while corners are placed (all four,
    one outside the photo; ``last_line``: the table size's line), so the photo shown above it never moves under the
    pointer when that line comes (screen px, its gap included)."""
    size = review_draw.SMALL_LEGEND_FONT if compact(view) else 19
    most = review_draw.fit_lines([FOUR_PLACED, ONE_OUTSIDE.format("upper-right"), f"Backspace: undo a corner{NUDGE_HINT} · Esc: cancel",
                                  last_line], view[2] - 36, size)
    return guidance_height_px(len(most))


def photo_frame(view: tuple[int, int, int, int], size: tuple[int, int], guidance_px: int = 0) -> tuple[tuple[int, int, int, int], float]:
    """Where a photo of ``size`` is shown in ``view`` for its corners (left, top, width, height) and its scale (screen px
    per file px): with ``OUTSIDE_MARGIN`` round it, and above the guidance where that reaches higher than the margin."""
    x, y, vw, vh = view
    w, h = size
    under = max(0, guidance_px - round(OUTSIDE_MARGIN * vh))
    scale = min(vw * (1 - 2 * OUTSIDE_MARGIN) / w, (vh * (1 - 2 * OUTSIDE_MARGIN) - under) / h)
    rw, rh = max(1, round(w * scale)), max(1, round(h * scale))
    cx, cy = x + vw // 2, y + vh // 2 - under // 2  # pygame's Rect.center
    return (cx - rw // 2, cy - rh // 2, rw, rh), scale


class PhotoImportMixin(ReviewMixin):
    """Part of ``TabletopApp``: the import flow, the backdrop's opacity and on/off, proposed bases; the review after
    an import (``ReviewMixin``)."""

    photo_import: PhotoImport | None = None

    # ------------------------------------------------------------------ starting

    def ask_import_photo(self) -> None:
        start = str(Path(self.state.path).parent) if self.state.path else str(Path.cwd())
        self._file_dialog("Import photo of the table", lambda p: self.start_photo_import(p), start, True, PHOTO_SUFFIXES)

    def start_photo_import(self, path: str, table_mm: tuple[float, float] | None = None) -> bool:
        """Load the photo and ask for its corners; the table size is the current table's."""
        from tabletop.photo.values import PhotoError

        try:
            from tabletop.photo.imageio import load_image

            loaded = load_image(path)
        except PhotoError as exc:
            self.show_message("Could not import the photo", html.escape(str(exc)))
            return False
        table = table_mm or (self.scenario.table.width, self.scenario.table.depth)
        full = _bgr_surface(loaded.pixels)
        job = PhotoImport(path, table, loaded, full, full, started=self._now)
        job.preview = pygame.transform.smoothscale(full, job.frame(self.view_rect)[0].size)
        self.end_review(say=False)  # another photo: the last one's review is over

        def find() -> None:
            _markers_for(job, table)
            try:
                from tabletop.photo.rectify import find_table

                job.auto = find_table(loaded.pixels)
            except Exception:  # noqa: BLE001 - no outline found: the user clicks the corners
                job.auto = None

        job.finder = threading.Thread(target=find, name="find-table", daemon=True)
        _start_worker(job.finder)
        job.size_entry = self._size_entry(table)
        self.photo_import = job
        self._guidance(job)  # the photo's place before the first frame: a click (or a test) maps through it
        self.flash(f"Photo {Path(path).name}: click the table's {CORNER_NAMES[0]} corner")
        return True

    def _size_entry(self, table: tuple[float, float]) -> Any:
        from pygame_gui.elements import UITextEntryLine

        w, d = table
        text = f"{w / 25.4:g}x{d / 25.4:g}in" if abs(w / 25.4 - round(w / 25.4, 2)) < 1e-6 and abs(d / 25.4 - round(d / 25.4, 2)) < 1e-6 else f"{w:g}x{d:g}mm"
        view = self.view_rect
        entry = UITextEntryLine(pygame.Rect(view.left + 12, view.top + 12, 180, 30), self.ui, initial_text=text)
        entry.set_tooltip("The table's size: 48x48in, 1220x1220mm, 120x90cm; Enter applies it")
        return entry

    def photo_size_entered(self, element: Any, text: str) -> bool:
        """The table-size field was submitted: take the new size (a bad one is said, the old kept)."""
        job = self.photo_import
        if job is None or element is not job.size_entry:
            return False
        from tabletop.photo.imageio import parse_table_size
        from tabletop.photo.values import PhotoError

        self.ui.set_focus_set(None)  # done typing: Enter goes back to the import (the element's own unfocus left the
        # manager's focus on it, and every Enter after it submitted the field again instead of finding the bases)
        try:
            size = parse_table_size(text.strip().replace("×", "x").replace(" ", ""))
        except PhotoError as exc:
            self.flash(str(exc).replace("--table: ", "table size: "), error=True)
            return True
        if job.phase == "corners" and all(abs(a - b) < 1e-6 for a, b in zip(size, job.table_mm)) and self._find_bases(job):
            # The size in use submitted again: an Enter meant for the import that reached the field first (a second
            # Enter queued before the field let go of the keyboard, or the size already right).
            return True
        job.table_mm = size
        self.flash(f"Table {job.table_mm[0]:.0f} × {job.table_mm[1]:.0f} mm: the import sets the table to this size")
        if job.marked is not None or job.markers_unused or (job.finder is not None and job.finder.is_alive()):
            # The markers' outline is fitted for a table size: the one drawn was the old size's (a corner outside the
            # frame then lay far inside the mat: h50). Fitted again for this one; meanwhile none is offered.
            job.marked, job.markers_unused, job.markers_refit = None, False, True
            job.finder = threading.Thread(target=_markers_for, args=(job, size), name="find-markers", daemon=True)
            _start_worker(job.finder)
        return True

    def _find_bases(self, job: PhotoImport) -> bool:
        """Enter: find the bases from the corners clicked, the printed markers' or the outline found; False when there
        are none yet."""
        if len(job.clicks) == 4:
            self.detect_photo(tuple(job.clicks), tuple(job.steps) if len(job.steps) == 4 else None)
        elif not job.clicks and (job.marked is not None or job.markers_refit):
            # The printed markers give the corners (and the lens); fitted for a size just entered, the analysis fits
            # them itself for it (not the table's outline found meanwhile: the markers are the surer).
            self.detect_photo(None)
        elif not job.clicks and job.auto_corners() is not None:
            self.detect_photo(job.auto_corners())
        else:
            return False
        return True

    def _end_photo_import(self) -> None:
        job = self.photo_import
        if job is not None and job.size_entry is not None:
            job.size_entry.kill()
        self.photo_import = None

    # ------------------------------------------------------------------ corners

    def photo_hint(self) -> list[str]:
        job = self.photo_import
        if job is None:
            return []
        if job.phase == "detecting":
            return [f"Finding the bases… {self._now - job.started:.1f} s"]
        n = len(job.clicks)
        if n < 4:
            lines = [f"Click the table's {CORNER_NAMES[n]} corner ({n + 1}/4) · cut off by the frame? Click it beyond the photo"]
        else:
            out = job.outside()
            lines = [FOUR_PLACED]
            if len(out) == 1:
                lines.append(ONE_OUTSIDE.format(CORNER_NAMES[out[0]]))
            if len(out) > 1:
                lines = [f"Only one corner may lie outside the photo ({len(out)} do): drag them onto the table's corners, "
                         "or photograph the whole table"]
        if job.clicks:
            auto = ""
        elif job.finder is not None and job.finder.is_alive():
            auto = " · looking for printed markers and the table's edges…"
        elif job.auto_corners() is None:
            auto = (" · the printed markers seen do not make a table's outline (is each piece in its corner?): click the corners"
                    if job.markers_unused else " · no printed markers or sure outline found: click the corners")
        else:
            auto = (" · Enter: use the corners from the printed markers (dashed)" if job.marked is not None
                    else " · Enter: use the corners found (dashed)")
        nudge = NUDGE_HINT if job.clicks else ""
        lines.append(f"Backspace: undo a corner{nudge} · Esc: cancel{auto}")
        lines.append(table_line(job.table_mm))
        return lines

    def photo_event(self, event: pygame.event.Event) -> bool:
        """Route ``event`` to the import in progress (or the review after it); True when it took it."""
        job = self.photo_import
        if job is None:
            return self.review_event(event)
        if event.type == pygame.KEYDOWN:
            if event.key == pygame.K_ESCAPE:
                self.cancel_photo_import()
            elif job.phase != "corners":
                return True
            elif event.key == pygame.K_BACKSPACE and job.clicks:
                job.clicks.pop()
                del job.steps[len(job.clicks):]
                job.dragging = None  # the corner held may be the one taken back: the rest of the drag moves nothing
                job.active, job.nudged = (len(job.clicks) - 1 if job.clicks else None), False
            elif event.key in NUDGE_KEYS and job.active is not None and job.dragging is None:
                self._nudge_corner(job, *NUDGE_KEYS[event.key])
            elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                self._find_bases(job)
            return True
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and job.phase == "corners":
            if self.view_rect.collidepoint(event.pos):
                self._corner_press(job, event.pos)
            return True
        if event.type == pygame.MOUSEMOTION:
            job.nudged = False  # the loupe follows the pointer again
        if event.type == pygame.MOUSEMOTION and job.dragging is not None and job.phase == "corners":
            self._place_corner(job, job.dragging, event.pos)
            return False  # the mouse position is still tracked (the loupe follows it)
        if event.type == pygame.MOUSEBUTTONUP and event.button == 1 and job.dragging is not None:
            if job.phase == "corners":
                self._place_corner(job, job.dragging, event.pos)
            job.dragging = None
            return True
        if event.type in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEWHEEL):
            return True  # the table under the photo does not react meanwhile
        return False

    def _corner_at(self, job: PhotoImport, pos: tuple[int, int]) -> tuple[float, float]:
        """The file pixel under ``pos``, kept within the area a corner may lie in (a photo's width or height beyond it)."""
        x, y = job.to_file(self.view_rect, pos)
        w, h = job.loaded.original_size
        return (min(2.0 * w, max(-float(w), x)), min(2.0 * h, max(-float(h), y)))

    def _place_corner(self, job: PhotoImport, i: int, pos: tuple[int, int]) -> None:
        """Corner ``i`` (the next one when ``i`` is ``len(job.clicks)``) where ``pos`` shows, with the click's grain."""
        corner, step = self._corner_at(job, pos), job.step(self.view_rect)
        if i == len(job.clicks):
            job.clicks.append(corner)
        else:
            job.clicks[i] = corner
        del job.steps[len(job.clicks):]
        job.steps += [step] * (len(job.clicks) - len(job.steps))  # a corner set by a test or a script: this grain too
        job.steps[i] = step
        job.active, job.nudged = i, False

    def _nudge_corner(self, job: PhotoImport, dx: int, dy: int) -> None:
        """An arrow key: the corner last placed moves ``NUDGE_PX`` of the photo's pixels, placed now to that grain (the
        analysis takes it as such a click, ``pipeline.click_sigma_px``, where the table's edges do not confirm it), and
        the loupe shows it until the pointer moves."""
        i = job.active
        assert i is not None and i < len(job.clicks)
        w, h = job.loaded.original_size
        x, y = job.clicks[i]
        job.clicks[i] = (min(2.0 * w, max(-float(w), x + dx * NUDGE_PX)), min(2.0 * h, max(-float(h), y + dy * NUDGE_PX)))
        job.steps[i] = min(job.steps[i], NUDGE_PX)
        job.nudged = True

    def _corner_press(self, job: PhotoImport, pos: tuple[int, int]) -> None:
        """A press in the corners phase: on a corner placed already it drags it; else it places the next corner (and
        drags it until the button comes up, so it can be set with the loupe)."""
        view = self.view_rect
        near = [(i, (job.to_screen(view, c)[0] - pos[0]) ** 2 + (job.to_screen(view, c)[1] - pos[1]) ** 2) for i, c in enumerate(job.clicks)]
        near = [(i, d) for i, d in near if d <= GRAB_PX ** 2]
        if near:
            job.dragging = min(near, key=lambda item: item[1])[0]
        elif len(job.clicks) < 4:
            self._place_corner(job, len(job.clicks), pos)
            job.dragging = len(job.clicks) - 1

    def cancel_photo_import(self) -> None:
        self._end_photo_import()
        self.flash("Photo import cancelled")

    def detect_photo(self, corners: Any, steps: tuple[float, ...] | None = None) -> None:
        """Find the bases in a thread; ``poll_photo_import`` picks the result up. ``corners`` None: the printed
        markers give them. A corner outside the photo is placed from the two sides running to it first. ``steps``: the
        corners were clicked where one screen pixel covered this many file pixels (each): where the table's edges do not
        confirm them, the analysis takes each as loose as such a click."""
        job = self.photo_import
        assert job is not None
        if job.size_entry is not None and job.size_entry.alive():
            # A size typed and left without Enter (the corners clicked next) is the size meant: never the old one silently.
            from tabletop.photo.imageio import parse_table_size
            from tabletop.photo.values import PhotoError

            typed = job.size_entry.get_text().strip().replace("×", "x").replace(" ", "")
            try:
                job.table_mm = parse_table_size(typed)
            except PhotoError as exc:
                self.flash(str(exc).replace("--table: ", "table size: ") + " (the field above: fix it, then Enter)", error=True)
                return
        c = None if corners is None else tuple((float(x), float(y)) for x, y in corners)
        from tabletop.photo.imageio import corners_outside

        out = [] if c is None else corners_outside(c, job.loaded.original_size)
        if len(out) > 1:
            from tabletop.photo.outside import refusal

            said = refusal(out)
            self.flash(said[0].upper() + said[1:], error=True)
            return
        if c is not None:
            from tabletop.photo.imageio import check_corners
            from tabletop.photo.values import PhotoError

            try:  # said here, with the corners kept to drag: the analysis would end the import with "could not read the photo"
                check_corners((c[0], c[1], c[2], c[3]), job.loaded.original_size, "the corners clicked", allow_outside=True)
            except PhotoError as exc:
                self.flash(f"{str(exc)[0].upper()}{str(exc)[1:]}: drag them into place (Backspace takes the last one back)", error=True)
                return
        job.phase, job.started = "detecting", self._now
        if job.size_entry is not None:
            job.size_entry.disable()
        self.flash("Finding the bases… (the window stays live)")

        def work() -> None:
            try:
                from tabletop.photo.pipeline import analyse_image
                from tabletop.photo.values import PhotoError

                if c is None:
                    job.result = analyse_image(job.loaded, job.table_mm)
                    return
                quad = (c[0], c[1], c[2], c[3])
                grain = None if steps is None else (steps[0], steps[1], steps[2], steps[3])
                try:
                    from tabletop.photo.outside import with_outside_placed
                    from tabletop.photo.pipeline import click_sigma_px

                    clicked = None if grain is None else tuple(click_sigma_px(step) for step in grain)
                    # (A PhotoError is a ValueError: "no corner outside" was once told by catching ValueError first, and
                    # the refusal of a corner that cannot be placed was swallowed, the click used as given.)
                    quad, sigmas = with_outside_placed(job.loaded, quad, clicked)  # type: ignore[arg-type]
                except PhotoError as exc:
                    job.error, job.refused = str(exc), True
                    return
                job.result = analyse_image(job.loaded, job.table_mm, quad, corner_sigma_px=sigmas, corner_step_px=grain)
            except Exception as exc:  # noqa: BLE001 - shown to the user; the table is unchanged
                job.error = str(exc) or type(exc).__name__

        job.thread = threading.Thread(target=work, name="find-bases", daemon=True)
        _start_worker(job.thread)

    def poll_photo_import(self) -> None:
        """Called every update: when detection has finished, lay the photo and the proposals on the table (and open
        their review); keep the review's panel in step."""
        self.review_sync_ui()
        job = self.photo_import
        if job is None or job.phase != "detecting" or job.thread is None:
            return
        if job.thread.is_alive():
            self.flash(f"Finding the bases… {self._now - job.started:.1f} s")
            return
        self._end_photo_import()
        if job.error is not None or job.result is None:
            title = "The photo does not show enough of the table" if job.refused else "Could not read the photo"
            self.show_message(title, html.escape(job.error or "no result"))
            return
        result = job.result
        backdrop = Backdrop(image_reference(job.path, self.state.path), tuple((round(x, 2), round(y, 2)) for x, y in result.corners_px))  # type: ignore[arg-type]
        # A demo table nobody has touched (opened as a copy, no file, no change): the photo is the table, not drawn
        # among the demo's troopers, templates and buildings (h50). Ctrl+Z brings the demo back.
        s = self.scenario
        demo = self.state.path is None and not self.state.dirty and bool(s.models or s.templates or s.terrain)
        used = self.state.history.model_ids | {m.id for m in s.models} | {t.id for t in s.terrain}  # the demo too: an undo brings it back
        models = proposed_models(Scenario(s.table) if demo else s, result.bases, used)
        replaced = 0 if demo else sum(PROPOSED_TAG in m.tags for m in s.models)
        if self.dispatch(ImportPhoto(backdrop, models, job.table_mm, fresh=demo)):
            self.backdrops.visible = True
            self.start_review(job.loaded, result, tuple(m.id for m in models))
            self._refresh_widgets()
            # The panel, the inspector and the size field gone in this very frame: the widgets were updated before the
            # import finished, and an idle loop draws no other frame until the user moves (the real window showed the
            # review without its panel, the dead size field and "0 models" until then).
            self.review_sync_ui()
            self.ui.update(0.0)
            unsure = sum(CHECK_TAG in m.tags for m in models)
            self.flash(f"{len(models)} bases found, {unsure} to check (calibration ±{result.calibration_rms_mm:.2f} mm): "
                       "N goes to the next to check, a click on a missed base fits it, A accepts"
                       + (f" · the last import's {replaced} proposals not accepted are replaced (Ctrl+Z brings them back)" if replaced else "")
                       + (" · the demo table's pieces are set aside (Ctrl+Z brings them back)" if demo else ""))
            if result.coarse:
                self.show_message("A coarse photo: check every base", html.escape(
                    f"This photo shows up to {result.mm_per_px:.2f} mm of the table per pixel. Above {COARSE_MM_PER_PX} mm "
                    "some bases are missed and some are placed millimetres off. Check each proposed base against the "
                    "photo before accepting it, or photograph the table closer or at full resolution."))

    def wait_photo_import(self, timeout: float = 120.0) -> None:
        """Block until the background work is done (tests and scripted runs)."""
        self.wait_reopen(timeout)
        job = self.photo_import
        if job is None:
            return
        for t in (job.finder, job.thread):
            if t is not None:
                t.join(timeout)

    # ------------------------------------------------------------------ proposals and the backdrop

    def proposed_ids(self) -> tuple[str, ...]:
        return tuple(m.id for m in self.scenario.models if PROPOSED_TAG in m.tags)

    def selected_to_confirm(self) -> str | None:
        """The one base selected, when it is proposed or still marked to check (A confirms it)."""
        sel = self.state.selection
        if sel is None or sel.kind != "model" or self.state.also_selected:
            return None
        try:
            m = self.scenario.model(sel.id)
        except KeyError:
            return None
        return m.id if PROPOSED_TAG in m.tags or CHECK_TAG in m.tags else None

    def accept_proposed(self) -> None:
        """A: accept the selected base, or every proposal when none is selected.

        The base selected was looked at on its own: accepted, it is no longer "check this base" either (an accepted
        base still marked to check is confirmed the same way). "Accept all", or several selected at once, makes the
        proposals ordinary bases but keeps the mark on the ones to check: nobody looked at them one by one, and the
        analysis's doubt must not vanish unseen (the review still lists them, N goes to them)."""
        group = [r.id for r in self.state.selected if r.kind == "model" and r.id in self.proposed_ids()]
        if self.state.also_selected and group:
            # Several selected (a box, Shift+clicks): accepted together, their doubt kept as an accept of all keeps it.
            if self.dispatch(AcceptProposed(tuple(group))):
                doubted = sum(CHECK_TAG in self.scenario.model(i).tags for i in group)
                self.flash(f"Accepted the {len(group)} selected base{'s' if len(group) != 1 else ''}"
                           + (f"; {doubted} still marked to check: A on one alone confirms it" if doubted else ""))
            return
        one = self.selected_to_confirm()
        if one is not None:
            m = self.scenario.model(one)
            if self.dispatch(AcceptProposed((one,), confirm=True)):
                self.flash(f"{one} confirmed" + (" (accepted)" if PROPOSED_TAG in m.tags else "")
                           + (": no longer marked to check" if CHECK_TAG in m.tags else ""))
            return
        ids = self.proposed_ids()
        if not ids:
            self.flash("No proposal left to accept: select a base marked to check and A confirms it")
            return
        if self.dispatch(AcceptProposed(ids)):
            doubted = sum(CHECK_TAG in self.scenario.model(i).tags for i in ids)
            self.flash(f"Accepted {len(ids)} base{'s' if len(ids) != 1 else ''} from the photo"
                       + (f"; {doubted} still marked to check (nobody looked at them): N goes to them, A on one confirms it"
                          if doubted else ""))

    def toggle_backdrop(self) -> None:
        if self.scenario.backdrop is None:
            self.flash("No backdrop: File → Import photo… lays one under the table")
            return
        self.backdrops.visible = not self.backdrops.visible
        if not self.backdrops.visible:
            self.flash("Backdrop hidden (B)")
            return
        # Say "shown" only when there is a picture to show; otherwise why not.
        if self.backdrops.layer(self.scenario, self.state.path) is None:
            self.flash(f"Backdrop cannot be shown: {self.backdrops.error or 'its image has no file to be read from (save the table first)'}", error=True)
        else:
            self.flash("Backdrop shown (B)")

    def step_backdrop_opacity(self, delta: float) -> None:
        value = self.backdrops.step_opacity(delta)
        self.flash(f"Backdrop opacity {value:.0%} ([ / ])")

    def photo_key(self, event: pygame.event.Event) -> bool:
        """The backdrop and proposal shortcuts (B, [ and ], A); True when handled."""
        if getattr(event, "mod", 0) & (pygame.KMOD_CTRL | pygame.KMOD_META):
            if event.key == pygame.K_i:
                if getattr(event, "mod", 0) & pygame.KMOD_SHIFT:
                    self.reopen_review()
                else:
                    self.ask_import_photo()
                return True
            return False
        if self.review_key(event):
            return True
        if event.key == pygame.K_b and not getattr(event, "mod", 0) & pygame.KMOD_SHIFT:  # Shift+B: the palette
            self.toggle_backdrop()
        elif event.key == pygame.K_LEFTBRACKET:
            self.step_backdrop_opacity(-OPACITY_STEP)
        elif event.key == pygame.K_RIGHTBRACKET:
            self.step_backdrop_opacity(OPACITY_STEP)
        elif event.key == pygame.K_a and (self.proposed_ids() or self.selected_to_confirm() is not None or self.review is not None):
            self.accept_proposed()
        else:
            return False
        return True

    # ------------------------------------------------------------------ drawing

    def draw_proposed(self, surface: pygame.Surface) -> None:
        """Each proposed base (found on the photo, not yet accepted) with its sigma; the ones to check stand out; while
        reviewing, the things seen but not fitted too (``review_draw``)."""
        self.draw_review(surface, self.scenario)

    def _guidance(self, job: PhotoImport) -> tuple[list[str], int]:
        """The import's guidance lines as drawn and their font size; keeps ``job.guidance_px`` (the room the photo leaves
        under it) up to date: it grows with the lines, and starts again in a view of another size."""
        view = self.view_rect
        # Broken to the view's width (at 800x520 the guidance ran off the view's left edge: its first words unread), in
        # the review's smaller font where the view is small; the photo is shown above it.
        size = review_draw.SMALL_LEGEND_FONT if compact(tuple(view)) else 19  # type: ignore[arg-type]
        hint = self.photo_hint()
        lines = review_draw.fit_lines(hint, view.width - 36, size)
        if job.guidance_view != view.size:
            job.guidance_view, job.guidance_px = view.size, 0
        job.guidance_px = max(job.guidance_px, guidance_height_px(len(lines)), guidance_room_px(tuple(view), hint[-1]))  # type: ignore[arg-type]
        return lines, size

    def draw_photo_import(self, surface: pygame.Surface) -> None:
        """The photo with the corners so far, a loupe at the pointer, and the guidance."""
        job = self.photo_import
        if job is None:
            return
        view = self.view_rect
        surface.fill((16, 18, 22), view)
        lines, size = self._guidance(job)
        rect, scale = job.frame(view)
        if job.preview.get_size() != rect.size:
            job.preview = pygame.transform.smoothscale(job.full, rect.size)
        surface.blit(job.preview, rect.topleft)
        pygame.draw.rect(surface, (70, 74, 82), rect.inflate(2, 2), 1)  # beyond it: where a corner cut off may be placed
        auto = job.auto_corners()
        if auto is not None and not job.clicks:
            pts = [job.to_screen(view, p) for p in auto]
            for a, b in zip(pts, pts[1:] + pts[:1]):
                overlays._dashed(surface, (255, 220, 90), a, b)
        pts = [job.to_screen(view, p) for p in job.clicks]
        if len(pts) >= 2:
            pygame.draw.lines(surface, (255, 120, 40), len(pts) == 4, pts, 2)
        for i, p in enumerate(pts):
            pygame.draw.circle(surface, (255, 120, 40), p, 6, 2)
            overlays.text(surface, CORNER_NAMES[i], (p[0] + 8, p[1] - 8), (255, 255, 255), 15, "bottomleft")
        mouse = self.mouse_screen
        self.photo_loupe_rect: pygame.Rect | None = None
        centre: tuple[float, float] | None = None  # the file point at the loupe's middle
        if job.phase == "corners" and job.nudged and job.active is not None and job.active < len(job.clicks):
            # The corner the arrow keys moved: it moves a photo pixel, under a screen pixel here, so the loupe shows it.
            centre = job.clicks[job.active]
            at = job.to_screen(view, centre)
            mouse = (round(at[0]), round(at[1]))
        elif job.phase == "corners" and mouse is not None and rect.collidepoint(mouse):
            centre = job.to_file(view, mouse)
        if centre is not None and mouse is not None:
            fx, fy = centre
            src = LOUPE_SIZE / LOUPE_ZOOM
            area = pygame.Rect(round(fx - src / 2), round(fy - src / 2), round(src), round(src)).clip(job.full.get_rect())
            if area.width > 0 and area.height > 0:
                piece = pygame.transform.scale(job.full.subsurface(area), (round(area.width * LOUPE_ZOOM), round(area.height * LOUPE_ZOOM)))
                box = loupe_box(view, mouse)
                self.photo_loupe_rect = box
                surface.fill((0, 0, 0), box)
                # File pixel j spans j - 0.5 .. j + 0.5: the crosshair (the box's middle) on the point the pointer places.
                surface.blit(piece, (box.centerx + (area.left - 0.5 - fx) * LOUPE_ZOOM, box.centery + (area.top - 0.5 - fy) * LOUPE_ZOOM))
                pygame.draw.line(surface, (255, 120, 40), (box.centerx - 10, box.centery), (box.centerx + 10, box.centery), 1)
                pygame.draw.line(surface, (255, 120, 40), (box.centerx, box.centery - 10), (box.centerx, box.centery + 10), 1)
                pygame.draw.rect(surface, (255, 255, 255), box, 2)
        # Where it always was (``draw_message``'s place, kept inside the view): lower, it leaves the photo's edge in sight.
        self.photo_hint_rect = overlays.label_box(surface, lines, (view.left + 12, view.bottom - guidance_height_px(len(lines)) + 6), size)
