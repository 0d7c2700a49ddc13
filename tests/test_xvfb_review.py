"""A real window under Xvfb, driven by xdotool: import a photo of a table with the printed corner markers, review it
(add a missed base by a click, drag a wrong one onto its base, delete the false ones), accept, save, and read the saved
table back: the bases the review touched are within 0.5 mm of the truth (issue 35's test).

The photo is ``benchmarks.photogen``'s ``markers`` condition (12 MP, tall bases), with a round red token painted on
the mat: an objective marker the analysis takes for a base. Which bases are missed, wrong or false is not written
into the test: it analyses the photo itself first (the app runs the same analysis) and picks them against the
generator's truth; the photo is the first of the condition's seeds that has all three (as the analysis improves, a
seed may lose its wrong proposal: the test then takes the next, instead of failing for a better answer).
"""

from __future__ import annotations

import math
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pygame
import pytest

from .test_xvfb_fire_shown import _changed
from .xvfb import app_command, app_env, popen_group, require, run as _run, screenshot, start_xvfb, stop, wait_until, window_of, window_size

cv2 = pytest.importorskip("cv2")
photogen = pytest.importorskip("benchmarks.photogen")

pytestmark = [pytest.mark.xvfb, pytest.mark.slow, pytest.mark.timeout(900)]
TOOLS = ("Xvfb", "xdotool", "import")
SEEDS = (116,)
"""A markers photo showing all three things the review must fix: a missed base, a wrong proposal and the token proposed.
Rare together (seed 7 of 1-40 did until stop 43's footprint fit put its wrong proposal right; of 41-120 only 74 and 116
do), so it is named, not searched for: each photo tried costs a render and an analysis in CI. On 74 the missed base is
a small one with its top painted as the mat, its rim seen on barely more than half the rays: until stop 44 the app's
click, a couple of millimetres off at the first zoom, found no rim there; now it is added within 0.5 mm, but the
analysis proposes another base of that photo 1.6 mm from its truth at sigma 0.42 mm, which the last check refuses."""
TOKEN_AT, TOKEN_MM = (175.0, 550.0), 30.0
WHEEL_NOTCHES = 20
"""Zoom in 1.15^20, about 16 times: a millimetre is then ten pixels or so."""


def _photo_with_token(out: Path, seed: int) -> dict:
    """The generator's photo with a red token (a flat disc 30 mm across, 0.8 mm thick) painted on bare mat; its truth."""
    path, truth = photogen.cached_photo("markers", seed)
    img = cv2.imread(str(path))
    cam = truth["camera"]
    k, dist, rvec, tvec = (np.asarray(cam[key], dtype=np.float64) for key in ("K", "dist", "rvec", "tvec"))

    def project(points: np.ndarray) -> np.ndarray:
        px, _ = cv2.projectPoints(points, rvec, tvec, k, dist)
        return px.reshape(-1, 2)

    th = np.linspace(0, 2 * math.pi, 180, endpoint=False)
    r = TOKEN_MM / 2
    disc = np.column_stack([TOKEN_AT[0] + r * np.cos(th), TOKEN_AT[1] + r * np.sin(th), np.full(th.size, 0.8)])
    ring = np.column_stack([TOKEN_AT[0] + 0.7 * r * np.cos(th), TOKEN_AT[1] + 0.7 * r * np.sin(th), np.full(th.size, 0.8)])
    shift = 4
    cv2.fillPoly(img, [np.round(project(disc) * (1 << shift)).astype(np.int32)], (40, 40, 190), cv2.LINE_AA, shift)
    cv2.polylines(img, [np.round(project(ring) * (1 << shift)).astype(np.int32)], True, (230, 230, 230), 3, cv2.LINE_AA, shift)
    cv2.imwrite(str(out), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return truth


def _plan(photo: Path, truth: dict) -> tuple[list, dict, tuple, list] | None:
    """The analysis the app will make, and against the truth: a missed base the local fit places well, a wrong
    proposal that refits well on its base, and the false proposals (one of them the token); None when the photo
    lacks one of them."""
    from tabletop.photo.imageio import load_image
    from tabletop.photo.local import fit_base_at, rectified_for
    from tabletop.photo.pipeline import analyse_image
    from tabletop.photo.values import PhotoError

    loaded = load_image(photo)
    try:
        result = analyse_image(loaded, tuple(truth["table_mm"]))
    except PhotoError:
        return None  # no table found unaided (markers not all seen): the app would ask for corners
    if result.coarse:
        return None  # the app would first warn about the photo's scale: another review than this test drives
    rect = rectified_for(loaded, result)
    bases = [b for b in truth["bases"] if b["z_mm"] == 0]

    def nearest(d: object) -> tuple[float, dict]:
        return min((math.hypot(b["x_mm"] - d.x_mm, b["y_mm"] - d.y_mm), b) for b in truth["bases"])  # type: ignore[attr-defined]

    proposals = list(result.bases)
    missed = []
    for b in bases:
        size = b.get("diameter_mm") or b["length_mm"]
        if b["in_frame"] and not b["occluded"] and min(math.hypot(d.x_mm - b["x_mm"], d.y_mm - b["y_mm"]) for d in proposals) > size / 4:
            fit = fit_base_at(rect, b["x_mm"] + 2.0, b["y_mm"] - 1.5)
            if fit is not None and math.hypot(fit.x_mm - b["x_mm"], fit.y_mm - b["y_mm"]) < 0.35:
                missed.append(b)
    wrong = []
    false = []
    for d in proposals:
        e, b = nearest(d)
        if e > (b.get("diameter_mm") or b["length_mm"]) / 2:
            false.append(d)
        elif e > 0.5:  # off by more than the review must deliver; refitted where dropped as the app does, at its own shape
            fit = fit_base_at(rect, b["x_mm"], b["y_mm"], shape="oval" if getattr(d, "shape", "round") == "oval" else "round")
            if fit is not None and math.hypot(fit.x_mm - b["x_mm"], fit.y_mm - b["y_mm"]) < 0.35 and fit.diameter_mm == (b.get("diameter_mm") or b["length_mm"]):
                wrong.append((d, b))
    if not missed or not wrong or not any(math.hypot(d.x_mm - TOKEN_AT[0], d.y_mm - TOKEN_AT[1]) < 5 for d in false):
        return None
    return proposals, missed[0], wrong[0], false


def _photo_to_review(out: Path) -> tuple[dict, tuple[list, dict, tuple, list]]:
    """The first seed's photo with a missed base, a wrong proposal and the token proposed: its truth and plan."""
    for seed in SEEDS:
        truth = _photo_with_token(out, seed)
        plan = _plan(out, truth)
        if plan is not None:
            return truth, plan
    pytest.fail(f"none of the markers photos (seeds {', '.join(map(str, SEEDS))}) has a missed base, a wrong proposal and the "
                "token proposed: the detector changed; find another seed that has (the search is in the closing note of stop 43)")


def _near(colour: tuple[int, ...], want: tuple[int, int, int], tol: int = 45) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(colour[:3], want))


def _shows(wid: str, env: dict[str, str], png: Path, points: list[tuple[float, float]], want: tuple[int, int, int]) -> bool:
    """A screenshot in which some pixel within 2 px of one of ``points`` has colour ``want``."""
    if not screenshot(wid, png, env):
        return False
    img = pygame.image.load(str(png))
    w, h = img.get_size()
    for x, y in points:
        for dx in range(-2, 3):
            for dy in range(-2, 3):
                px, py = round(x) + dx, round(y) + dy
                if 0 <= px < w and 0 <= py < h and _near(tuple(img.get_at((px, py))), want):
                    return True
    return False


def import_by_dialog(wid: str, env: dict[str, str], size: tuple[int, int], photo: Path, tmp_path: Path,
                     click: Callable[[float, float], None], key: Callable[[str], None]) -> None:
    """File → Import photo… with the mouse: the toolbar's button, the photo's path typed into the app's file dialog, OK."""
    from tabletop.app.layout import toolbar_layout

    png = tmp_path / "shot.png"
    places, _ = toolbar_layout(size[0])
    x, y, bw, bh = places["photo"]
    # A frame the app has drawn, not the blank window mapped before it: compared with a blank one, any first frame
    # "changed" over 5 % of the window, the dialog was taken as open, and the clicks and the path typed after it went
    # to the table instead (seen once in a fresh-clone CI run: the dialog was still open at the end, its photo never read).
    wait_until(lambda: screenshot(wid, png, env) and _drawn(png), "a first frame drawn", 30)
    before = tmp_path / "before-dialog.png"
    png.replace(before)
    click(x + bw / 2, y + bh / 2)
    dl, dt = (size[0] - 560) // 2, (size[1] - 440) // 2  # the dialog: 560x440, centred
    # Seen open before its field is clicked: the button's press reaches the app as an event queued
    # behind the raw clicks already waiting, so on a loaded machine a click sent 0.5 s later could be
    # handled before the dialog existed (and the markers' outline was then waited for in vain).
    wait_until(lambda: _changed(wid, env, before, tmp_path / "dialog.png"), "the import dialog", 60)
    click(dl + 280, dt + 80)  # its path field
    key("ctrl+a")
    _run(["xdotool", "type", "--window", wid, "--delay", "15", str(photo)], env)
    # The dialog reads the path typed an event later (a frame later): an OK clicked at once on a loaded machine could
    # reach it before, with no file taken. Its delete button (grey until the path names an existing file) says when.
    delete = (slice(dt + 48 - 7, dt + 48 + 7), slice(dl + 43 - 7, dl + 43 + 7))
    def file_taken() -> bool:
        if not screenshot(wid, png, env):
            return False
        img = cv2.imread(str(png))
        return img is not None and int(img[delete].max()) > 180
    wait_until(file_taken, "the typed path taken by the dialog (its delete button lit)", 30)
    click(dl + 475, dt + 414)  # OK


def _drawn(png: Path) -> bool:
    """The screenshot shows the app drawn: more than a few colours (a window mapped but not yet drawn is one)."""
    img = cv2.imread(str(png))
    return img is not None and len(np.unique(img[::8, ::8].reshape(-1, 3), axis=0)) > 8


def photo_on_screen(view: tuple[int, int, int, int], iw: int, ih: int, table_mm: tuple[float, float]) -> tuple[float, float, float]:
    """Where the import shows an ``iw`` x ``ih`` photo for its corners: (scale, left, top), room left round it for a corner
    the frame cut off and above the guidance (the app's own ``photo_frame``, the guidance at its longest for a table of
    ``table_mm``: the room the app keeps from the start); file point p is at p * scale + (left, top) on the screen
    (``PhotoImport.to_screen``: a file pixel's centre is a whole number, a screen pixel's middle too)."""
    from tabletop.app.photo_import import guidance_room_px, photo_frame, table_line

    pygame.font.init()
    (left, top, _, _), scale = photo_frame(view, (iw, ih), guidance_room_px(view, table_line(table_mm)))
    return scale, left + 0.5 * scale - 0.5, top + 0.5 * scale - 0.5


def test_review_a_photo_in_a_real_window(tmp_path: Path) -> None:
    require(TOOLS)
    from tabletop import scenario_io
    from tabletop.app.layout import ZOOM_STEP, view_rect_for
    from tabletop.app.review import review_viewport
    from tabletop.app.review_draw import SURE_COLOUR
    from tabletop.model import Scenario, Table

    photo = tmp_path / "photo.jpg"
    truth, (proposals, missed, (wrong, wrong_truth), false) = _photo_to_review(photo)
    table = tmp_path / "table.toml"
    w_mm, d_mm = truth["table_mm"]
    scenario_io.save(Scenario(Table(w_mm, d_mm), title="review", units="mm"), table)

    xvfb, display = start_xvfb("1600x1000x24")
    env = app_env(display, "tabletop-xvfb-review", tmp_path)
    app = None
    try:
        # In a process group of its own: the teardown ends it and anything it started, whatever happened.
        app = popen_group(app_command(str(table)), env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, log=tmp_path / "app.log")
        wid = window_of(app, env)
        size = window_size(wid, env)
        view = view_rect_for(size)
        png = tmp_path / "shot.png"

        def click(x: float, y: float) -> None:
            _run(["xdotool", "mousemove", "--window", wid, str(round(x)), str(round(y)), "sleep", "0.1", "click", "1", "sleep", "0.2"], env)

        def key(name: str) -> None:
            _run(["xdotool", "key", "--window", wid, name, "sleep", "0.2"], env)

        # File → Import photo…: the toolbar's button, the path typed into the app's file dialog, OK.
        import_by_dialog(wid, env, size, photo, tmp_path, click, key)

        # The corners: the printed markers' outline is offered (drawn dashed) once found; Enter takes it.
        iw, ih = truth["image_size"]
        scale, left, top = photo_on_screen(view, iw, ih, (w_mm, d_mm))
        c = np.asarray(truth["corners_px"]) * scale + [left, top]
        side = [tuple(c[0] + (c[1] - c[0]) * t) for t in np.linspace(0.2, 0.8, 13)]
        wait_until(lambda: _shows(wid, env, png, side, (255, 220, 90)), "the markers' outline", 540, app=app)  # a 12 MP photo read and fitted: minutes on a loaded machine (a run beside `make bench` and a second worker gave up at 300 s; cause not established)
        key("Return")

        # The review: every proposal drawn; wait for a sure one's ring.
        vp = review_viewport(view, (w_mm, d_mm))
        assert vp is not None
        ring = [vp.to_screen(d.x_mm + d.diameter_mm / 2 * math.cos(a), d.y_mm + d.diameter_mm / 2 * math.sin(a))
                for d in proposals if d.confident for a in np.linspace(0, 2 * math.pi, 16, endpoint=False)]
        wait_until(lambda: _shows(wid, env, png, ring, SURE_COLOUR), "the proposals drawn for review", 300, app=app)

        # A missed base: one click on it.
        click(*vp.to_screen(missed["x_mm"] + 2.0, missed["y_mm"] - 1.5))
        # The false ones (the token, and whatever else no base stands under): select, Delete.
        for d in false:
            click(*vp.to_screen(d.x_mm, d.y_mm))
            key("Delete")
        # A wrong one, a millimetre or so off: zoomed in on it with the wheel (the app zooms about the pointer, as the
        # test's copy of the view does), dragged onto its base; it refits where dropped.
        at = tuple(round(v) for v in vp.to_screen(wrong.x_mm, wrong.y_mm))
        _run(["xdotool", "mousemove", "--window", wid, str(at[0]), str(at[1]), "sleep", "0.2"], env)
        for _ in range(WHEEL_NOTCHES):
            _run(["xdotool", "click", "4", "sleep", "0.05"], env)
            vp = vp.zoomed(ZOOM_STEP, at)
        a, b = vp.to_screen(wrong.x_mm, wrong.y_mm), vp.to_screen(wrong_truth["x_mm"], wrong_truth["y_mm"])
        steps = ["xdotool", "mousemove", "--window", wid, str(round(a[0])), str(round(a[1])), "sleep", "0.2", "mousedown", "1", "sleep", "0.2"]
        for i in range(1, 9):
            steps += ["mousemove", "--window", wid, str(round(a[0] + (b[0] - a[0]) * i / 8)), str(round(a[1] + (b[1] - a[1]) * i / 8)), "sleep", "0.05"]
        steps += ["sleep", "0.2", "mouseup", "1", "sleep", "0.3"]
        _run(steps, env)
        # Accept every proposal (Esc: nothing selected, so A takes them all), save.
        key("Escape")
        key("a")
        key("ctrl+s")

        def saved() -> Scenario | None:
            try:
                s = scenario_io.load(table)
            except Exception:  # noqa: BLE001 - being written
                return None
            return s if s.models and not any("proposed" in m.tags for m in s.models) else None

        result = wait_until(saved, "the reviewed table saved", 60, app=app)
    finally:
        stop(app, xvfb)

    def error(x: float, y: float, b: dict) -> float:
        return math.hypot(x - b["x_mm"], y - b["y_mm"])

    models = result.models
    assert result.backdrop is not None and result.backdrop.image == "photo.jpg"
    # The missed base, added by the click: within 0.5 mm of its truth.
    added = min(models, key=lambda m: error(m.x, m.y, missed))
    assert error(added.x, added.y, missed) < 0.5, added
    # The wrong one, refitted where dropped: within 0.5 mm of its truth, at its size.
    moved = min(models, key=lambda m: error(m.x, m.y, wrong_truth))
    assert error(moved.x, moved.y, wrong_truth) < 0.5, moved
    assert moved.base.length == (wrong_truth.get("diameter_mm") or wrong_truth["length_mm"])
    # The false ones are gone; every other proposal is saved as proposed (accepted, no longer tagged).
    for d in false:
        assert all(math.hypot(m.x - d.x_mm, m.y - d.y_mm) > 5 for m in models)
    kept = [d for d in proposals if d is not wrong and all(d is not f for f in false)]
    assert len(models) == len(kept) + 1 + 1
    for d in kept:
        m = min(models, key=lambda m: math.hypot(m.x - d.x_mm, m.y - d.y_mm))
        assert (m.x, m.y) == pytest.approx((round(d.x_mm, 2), round(d.y_mm, 2)), abs=0.011)
    # Each of them stands on a true base (the analysis's own error, not the review's, decides how near).
    for m in models:
        assert min(error(m.x, m.y, b) for b in truth["bases"]) < max(1.0, 3 * (m.sigma or 0.0)), m
