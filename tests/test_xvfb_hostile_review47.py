"""A real window under Xvfb, driven by xdotool as a new user at a club night would: import a photo of a 24-inch table
into the app's default 48-inch one, click its corners, type the table's size in the import's field with Enter, then
Enter again to find the bases (the field kept the keyboard: that second Enter submitted the size again and the bases
were never looked for), resize the window in the middle of the review, accept and save. The saved table has the
photo's size, the photo as backdrop, and a base within 3 mm of every true base it proposes (flat discs: the app takes
each for a catalogue base of its size's height, see test_app_review).

Stop 47's leftovers (test_app_review_again), clicked in the same window: it is resized to the smallest size, 800x520,
where the review's panel is compact; after the save, the "Review photo" button opens the finished review again, and
the panel's "–" folds it away to show the photo."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

from .test_xvfb_review import import_by_dialog, photo_on_screen
from .xvfb import app_command, app_log, app_env, popen_group, require, run as _run, screenshot, start_xvfb, stop, wait_until, window_of, window_size

cv2 = pytest.importorskip("cv2")

pytestmark = [pytest.mark.xvfb, pytest.mark.slow, pytest.mark.timeout(600)]
TOOLS = ("Xvfb", "xdotool", "import")
TABLE_MM = 24 * 25.4


def _near(colour: tuple[int, ...], want: tuple[int, int, int], tol: int = 45) -> bool:
    return all(abs(int(a) - b) <= tol for a, b in zip(colour[:3], want))


def _shows(wid: str, env: dict[str, str], png: Path, points: list[tuple[float, float]], want: tuple[int, int, int]) -> bool:
    """Whether a screenshot shows ``want`` within 2 px of most of ``points``."""
    if not screenshot(wid, png, env):
        return False
    img = cv2.imread(str(png))
    if img is None:
        return False
    rgb = img[:, :, ::-1]
    h, w = rgb.shape[:2]
    hits = 0
    for x, y in points:
        xi, yi = round(x), round(y)
        patch = rgb[max(0, yi - 2):min(h, yi + 3), max(0, xi - 2):min(w, xi + 3)].reshape(-1, 3)
        hits += any(_near(tuple(c), want) for c in patch)
    return hits >= 0.6 * len(points)


def test_a_new_user_types_the_size_resizes_and_saves(tmp_path: Path) -> None:
    require(TOOLS)
    from tabletop import scenario_io
    from tabletop.app.layout import view_rect_for
    from tabletop.app.review import review_viewport
    from tabletop.app.review_draw import CHECK_COLOUR, SURE_COLOUR
    from tabletop.model import Scenario, Table
    from tabletop.photo.synth import synth_photo

    ph = synth_photo(6, size=(2400, 1800), n_bases=10, table_mm=(TABLE_MM, TABLE_MM))
    photo = tmp_path / "photo.jpg"
    cv2.imwrite(str(photo), ph.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    table = tmp_path / "table.toml"
    scenario_io.save(Scenario(Table(48 * 25.4, 48 * 25.4), title="club night", units="mm"), table)

    xvfb, display = start_xvfb("1600x1000x24")
    env = app_env(display, "tabletop-xvfb-hostile-review", tmp_path)
    app = None
    shots = tmp_path / "shots"
    shots.mkdir()
    try:
        app = popen_group(app_command(str(table)), env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, log=tmp_path / "app.log")
        wid = window_of(app, env)
        size = window_size(wid, env)
        view = view_rect_for(size)
        png = tmp_path / "shot.png"

        def click(x: float, y: float) -> None:
            _run(["xdotool", "mousemove", "--window", wid, str(round(x)), str(round(y)), "sleep", "0.1", "click", "1", "sleep", "0.2"], env)

        def key(name: str) -> None:
            _run(["xdotool", "key", "--window", wid, name, "sleep", "0.2"], env)

        import_by_dialog(wid, env, size, photo, tmp_path, click, key)

        # The corners, clicked where the photo is shown (room left round it for a corner the frame cut off).
        iw, ih = ph.image.shape[1], ph.image.shape[0]
        scale, left, top = photo_on_screen(view, iw, ih, (48 * 25.4, 48 * 25.4))  # the size field's, until typed
        corners = np.asarray(ph.corners_px) * scale + [left, top]
        spots = [(0.3, 0.3), (0.5, 0.5), (0.7, 0.6), (0.4, 0.8)]
        blurred = cv2.GaussianBlur(ph.image, (0, 0), 6)

        def photo_shown() -> bool:
            if not screenshot(wid, png, env):
                return False
            img = cv2.imread(str(png))
            return img is not None and all(
                _near(tuple(int(v) for v in img[round(top + fy * ih * scale), round(left + fx * iw * scale)][::-1]),
                      tuple(int(v) for v in blurred[round(fy * ih), round(fx * iw)][::-1]), 50) for fx, fy in spots)

        wait_until(photo_shown, "the photo shown for its corners", 60, app=app)
        for cx, cy in corners:
            click(cx, cy)
        key("BackSpace")  # the last one taken back and clicked again
        click(*corners[3])
        screenshot(wid, shots / "corners.png", env)

        # The table's size in the import's field: click, select all, type, Enter; then Enter to find the bases.
        click(view[0] + 12 + 90, view[1] + 12 + 15)
        key("ctrl+a")
        _run(["xdotool", "type", "--window", wid, "--delay", "15", "24x24in"], env)
        key("Return")
        key("Return")

        vp = review_viewport(view, (TABLE_MM, TABLE_MM))
        assert vp is not None
        rings = [vp.to_screen(b.x_mm + b.diameter_mm / 2 * math.cos(a), b.y_mm + b.diameter_mm / 2 * math.sin(a))
                 for b in ph.bases for a in np.linspace(0, 2 * math.pi, 12, endpoint=False)]

        def reviewing() -> bool:
            if not screenshot(wid, png, env):
                return False
            img = cv2.imread(str(png))
            if img is None:
                return False
            rgb = img[:, :, ::-1]
            hits = sum(_near(tuple(rgb[round(yy), round(xx)]), SURE_COLOUR) or _near(tuple(rgb[round(yy), round(xx)]), CHECK_COLOUR)
                       for xx, yy in rings if 0 <= round(xx) < rgb.shape[1] and 0 <= round(yy) < rgb.shape[0])
            return hits >= 0.25 * len(rings)

        wait_until(reviewing, "the bases found and drawn for review (Enter after the size field)", 240, app=app)
        # The review's panel is drawn with them, with no input from the user: its "Next (N)" button over the view's
        # background (an idle loop drew no frame after the import's, whose widgets were updated before it: no panel,
        # the dead size field and "0 models" stayed on screen until the mouse moved).
        import time

        time.sleep(1.0)
        assert screenshot(wid, shots / "review.png", env)
        rgb = cv2.imread(str(shots / "review.png"))[:, :, ::-1].astype(int)
        button = rgb[view[1] + 8 + 230 + 15, view[0] + 8 + 4 + 62]
        background = rgb[view[1] + 400, view[0] + 3]
        assert np.abs(button - background).max() > 12, (button, background)

        # The window resized in the middle of the review, to the smallest size: the app goes on (the panel rebuilt,
        # compact), then accepts and saves.
        small = (800, 520)
        _run(["xdotool", "windowsize", wid, str(small[0]), str(small[1])], env)
        wait_until(lambda: window_size(wid, env) == small, "the window resized", 30)
        for i in range(6):  # what the window shows over the next seconds, with no input
            screenshot(wid, shots / f"resized{i}.png", env)
            time.sleep(0.5)
        assert app.poll() is None, app_log(app)
        # The whole table refitted beside the compact panel (it kept the big window's zoom, the photo filling the view):
        # the view's background shows between the table and the view's right edge, and above the table's far edge.
        small_view = view_rect_for(small)
        fitted = review_viewport(small_view, (TABLE_MM, TABLE_MM))
        assert fitted is not None
        right, far = fitted.to_screen(TABLE_MM, TABLE_MM)
        shot = cv2.imread(str(shots / "resized5.png"))[:, :, ::-1].astype(int)
        for x, y in (((right + small_view[0] + small_view[2]) / 2, small_view[1] + small_view[3] / 2),
                     ((right + small_view[0] + small_view[2] / 2) / 2, (far + small_view[1]) / 2)):
            assert _near(tuple(shot[round(y), round(x)]), (24, 27, 32), 12), (x, y, shot[round(y), round(x)])
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

        # The review finished (Esc), opened again by its button over the view's top-right corner, clicked: the compact
        # panel is back (its Next button drawn where the table's background was).
        from tabletop.app.review import panel_rect

        view = view_rect_for(small)
        pl, pt, pw, ph_ = panel_rect(view)
        next_at = (pl + 2 + 4 + (pw - 16) // 4, pt + 2 + ph_ - 3 * 34 - 6 + 15)  # the panel's border, the button's middle
        fold_at = (pl + 2 + (pw - 16) - 24 + 14, pt + 2 + 2 + 12)

        def colour_at(at: tuple[int, int], name: str) -> tuple[int, ...] | None:
            if not screenshot(wid, shots / name, env):
                return None
            img = cv2.imread(str(shots / name))
            return None if img is None else tuple(int(v) for v in img[at[1], at[0]])

        def differs(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
            return max(abs(x - y) for x, y in zip(a, b)) > 12

        before = wait_until(lambda: colour_at(next_at, "finished.png"), "a screenshot", 30)
        from tabletop.app.review import reopen_button_place

        bl, bt, bw, bh = reopen_button_place(view, [])  # over the view's top-right corner (the table in view: no ruler there)
        click(bl + bw / 2, bt + bh / 2)  # "Review photo"

        def reopened() -> tuple[int, ...] | None:
            c = colour_at(next_at, "reopened.png")
            return c if c is not None and differs(c, before) else None

        shown = wait_until(reopened, "the review opened again by its button (its compact panel drawn)", 60, app=app)
        click(*fold_at)  # "–": folded to its title row, the photo where the panel was

        def folded() -> bool:
            c = colour_at(next_at, "folded.png")
            return c is not None and differs(c, shown)

        wait_until(folded, "the panel folded away", 60, app=app)
        assert app.poll() is None
    finally:
        stop(app, xvfb)

    assert (result.table.width, result.table.depth) == pytest.approx((TABLE_MM, TABLE_MM))
    assert result.backdrop is not None and result.backdrop.image == "photo.jpg"
    near = [min(math.hypot(m.x - b.x_mm, m.y - b.y_mm) for b in ph.bases) for m in result.models]
    assert sum(e < 3.0 for e in near) >= 0.7 * len(ph.bases), sorted(near)
