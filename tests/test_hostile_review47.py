"""A hostile review of issue 35's review flow (stop 46): the app's photo import and review driven by the headless pilot
with real pygame events, and ``tabletop photo --review`` / ``photo markers`` from the command line, as a new or careless
user would use them at a club night. Each test fails on what was found; the ones not fixed here are strict xfails saying
what was done, what happened and what should happen."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pygame
import pytest

cv2 = pytest.importorskip("cv2")

from tabletop import scenario_io  # noqa: E402
from tabletop.app.pilot import Pilot  # noqa: E402
from tabletop.model import CHECK_TAG, PROPOSED_TAG, Scenario, Table  # noqa: E402
from tabletop.photo import cli as photo_cli  # noqa: E402
from tabletop.photo.synth import synth_photo  # noqa: E402

from .test_app_review import import_photo as _import  # noqa: E402

TABLE = 24 * 25.4


@pytest.fixture(scope="module")
def photo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    """A synthetic 3200x2400 photo of a 24-inch table with 14 bases (flat discs) and its truth (test_app_review's)."""
    ph = synth_photo(6, size=(3200, 2400), n_bases=14, table_mm=(TABLE, TABLE))
    path = tmp_path_factory.mktemp("hostile47") / "table.jpg"
    cv2.imwrite(str(path), ph.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path, ph


def _pilot(tmp_path: Path) -> Pilot:
    table = tmp_path / "table.toml"
    scenario_io.save(Scenario(Table(TABLE, TABLE), title="hostile review", units="mm"), table)
    return Pilot(table)


# ---------------------------------------------------------------------------------------------- the corners phase


def test_backspace_while_a_corner_is_held_does_not_crash(tmp_path: Path, photo: tuple[Path, object]) -> None:
    """A press places a corner and holds it (to set it with the loupe); Backspace meanwhile took that corner back, and
    the next mouse motion wrote to the corner no longer there: IndexError out of the event loop (fixed)."""
    path, ph = photo
    p = _pilot(tmp_path)
    try:
        app = p.app
        assert app.start_photo_import(str(path))
        job = app.photo_import
        at = tuple(round(v) for v in job.to_screen(app.view_rect, ph.corners_px[0]))  # type: ignore[attr-defined]
        p.press(at)
        assert job.clicks and job.dragging == 0
        p.key(pygame.K_BACKSPACE)
        p.move((at[0] + 6, at[1] + 4), (1, 0, 0))
        p.release((at[0] + 6, at[1] + 4))
        assert job.clicks == [] and job.dragging is None
        p.click(at)  # the next press places the lower-left corner again
        assert len(job.clicks) == 1 and math.dist(job.clicks[0], ph.corners_px[0]) < 3 / job.frame(app.view_rect)[1]  # type: ignore[attr-defined]
    finally:
        p.close()


def test_corners_clicked_in_the_wrong_order_are_said_and_kept(tmp_path: Path, photo: tuple[Path, object]) -> None:
    """Four corners clicked crossing (lower-left, upper-right, lower-right, upper-left) and Enter: the import ended with
    "Could not read the photo: --corners: the corners cross ..." (the photo was read; the flag is the command line's) and
    every click was lost, the file to be picked again. Now it is said at once and the corners stay to be dragged (fixed)."""
    path, ph = photo
    p = _pilot(tmp_path)
    try:
        app = p.app
        assert app.start_photo_import(str(path))
        job = app.photo_import
        c = ph.corners_px  # type: ignore[attr-defined]
        for corner in (c[0], c[2], c[1], c[3]):
            p.click(tuple(round(v) for v in job.to_screen(app.view_rect, corner)))
        p.key(pygame.K_RETURN)
        assert app.photo_import is job and job.phase == "corners" and len(job.clicks) == 4
        assert app.message_is_error and "cross" in app.message and "--corners" not in app.message, app.message
        assert not app._message_titles, "no message window: the corners are there to be dragged"
    finally:
        p.close()


def _corners_clicked(p: Pilot, photo: tuple[Path, object]) -> object:
    path, ph = photo
    assert p.app.start_photo_import(str(path))
    job = p.app.photo_import
    for c in ph.corners_px:  # type: ignore[attr-defined]
        p.click(tuple(round(v) for v in job.to_screen(p.app.view_rect, c)))
    assert len(job.clicks) == 4
    return job


def test_enter_after_the_table_size_finds_the_bases(tmp_path: Path, photo: tuple[Path, object]) -> None:
    """The size typed in its field and Enter, then Enter to find the bases: the field kept the keyboard (its own unfocus
    left the window's focus on it), so every Enter submitted the size again and the bases were never looked for until
    the user clicked somewhere (fixed)."""
    p = _pilot(tmp_path)
    try:
        job = _corners_clicked(p, photo)
        p.replace_text(job.size_entry, "30x30in")  # type: ignore[attr-defined]
        p.key(pygame.K_RETURN)
        p.step(2)
        assert job.table_mm == pytest.approx((762.0, 762.0)) and not p.app._typing()  # type: ignore[attr-defined]
        assert job.phase == "corners"  # type: ignore[attr-defined]
        p.key(pygame.K_RETURN)
        assert job.phase == "detecting", p.app.message  # type: ignore[attr-defined]
        p.key(pygame.K_ESCAPE)  # cancelled mid-way: the table is unchanged
        assert p.app.photo_import is None and p.app.scenario.backdrop is None
        # The two Enters in one turn of the loop (a quick hand, a loaded machine): the second reached the field before
        # it let go of the keyboard (the real window lost it so in 2 of 3 runs on the shared machine).
        job = _corners_clicked(p, photo)
        p.replace_text(job.size_entry, "30x30in")  # type: ignore[attr-defined]
        for _ in range(2):
            p.post(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode="\r", scancode=0)
            p.post(pygame.KEYUP, key=pygame.K_RETURN, mod=0, unicode="\r", scancode=0)
        p.step(3)
        assert job.phase == "detecting" and job.table_mm == pytest.approx((762.0, 762.0)), p.app.message  # type: ignore[attr-defined]
        p.key(pygame.K_ESCAPE)
    finally:
        p.close()


def test_a_size_typed_without_enter_is_the_size_used(tmp_path: Path, photo: tuple[Path, object]) -> None:
    """A new user types the table's size and goes on to click the corners: the size applied only on Enter, so the bases
    were found on the old table's size, each off by the ratio, with nothing said (fixed: the field's text is taken when
    the bases are looked for; a size that is not one is said and nothing starts)."""
    path, ph = photo
    p = _pilot(tmp_path)
    try:
        app = p.app
        assert app.start_photo_import(str(path))
        job = app.photo_import
        p.replace_text(job.size_entry, "30x30in")  # typed, no Enter; then the corners are clicked
        for c in ph.corners_px:  # type: ignore[attr-defined]
            p.click(tuple(round(v) for v in job.to_screen(app.view_rect, c)))
        p.replace_text(job.size_entry, "30 by 30")
        p.click(app.view_rect.center)
        p.key(pygame.K_RETURN)
        assert job.phase == "corners" and app.message_is_error and "table size" in app.message, app.message
        p.replace_text(job.size_entry, "30x30in")
        p.click(app.view_rect.center)
        p.key(pygame.K_RETURN)
        assert job.phase == "detecting" and job.table_mm == pytest.approx((762.0, 762.0))
        p.key(pygame.K_ESCAPE)
    finally:
        p.close()


QUIT_MID_WAY = """
import sys
import pygame
from pathlib import Path
from tabletop import scenario_io
from tabletop.app.pilot import Pilot
from tabletop.model import Scenario, Table
from tabletop.photo.synth import synth_photo

photo, table = Path(sys.argv[1]), Path(sys.argv[2])
ph = synth_photo(6, size=(1600, 1200), n_bases=6, table_mm=(609.6, 609.6))
import cv2
cv2.imwrite(str(photo), ph.image)
scenario_io.save(Scenario(Table(609.6, 609.6), title="quit", units="mm"), table)
p = Pilot(table)
assert p.app.start_photo_import(str(photo))
job = p.app.photo_import
for c in ph.corners_px:
    p.click(tuple(round(v) for v in job.to_screen(p.app.view_rect, c)))
p.key(pygame.K_RETURN)
assert job.phase == "detecting"
p.key(pygame.K_ESCAPE)  # cancelled mid-way, and the app closed at once
p.close()
sys.exit(0)
"""


def test_quitting_while_the_bases_are_looked_for_ends_cleanly(tmp_path: Path) -> None:
    """An import cancelled mid-way (or the app closed while the bases are looked for), then the app closed: the analysis
    thread, a daemon, was stopped by the interpreter's end inside OpenCV's C++ code and the process died with "terminate
    called without an active exception" (SIGABRT, exit status 134) after a clean quit (fixed: the photo threads still
    running are waited for at exit)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", QUIT_MID_WAY, str(tmp_path / "p.jpg"), str(tmp_path / "t.toml")],
                          cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})
    assert done.returncode == 0 and "terminate called" not in done.stderr, (done.returncode, done.stderr[-2000:])


# ---------------------------------------------------------------------------------------------- the review


def test_a_proposal_dragged_onto_another_base_is_not_stacked_on_it(tmp_path: Path, photo: tuple[Path, object]) -> None:
    """A proposal dropped 3.6 mm from another base's centre was refitted onto that base: two models on one base, the
    same place to 0.03 mm, each counted by a template (fixed: it stays where dropped and the message names the other)."""
    p = _pilot(tmp_path)
    try:
        _import(p, photo)
        app = p.app
        proposed = [m for m in app.scenario.models if PROPOSED_TAG in m.tags]
        a, b = min(((a, b) for a in proposed for b in proposed if a.id != b.id and a.base == b.base),
                   key=lambda ab: math.hypot(ab[0].x - ab[1].x, ab[0].y - ab[1].y))
        steps = len(app.state.history.undo)
        drop = (b.x + 3.0, b.y + 2.0)
        p.drag(p.screen_of((a.x, a.y)), p.screen_of(drop))
        moved = app.scenario.model(a.id)
        assert math.hypot(moved.x - b.x, moved.y - b.y) > 2.0, app.message
        assert b.id in app.message and len(app.state.history.undo) == steps + 1
        p.key(pygame.K_z, pygame.KMOD_LCTRL)
        assert app.scenario.model(a.id) == a
    finally:
        p.close()


def test_importing_the_same_photo_again_does_not_double_its_bases(tmp_path: Path, photo: tuple[Path, object]) -> None:
    """A user who finished the review with Esc and imports the photo again to get it back (a finished review cannot be
    reopened) got every base twice: 14 models became 28, and the new review listed the old proposals among its own
    (fixed: an import replaces the proposals not yet accepted, in its one undo step)."""
    p = _pilot(tmp_path)
    try:
        _import(p, photo)
        app = p.app
        first = len(app.scenario.models)
        unsure = len(app.review.unsure(app.scenario))  # type: ignore[union-attr]
        p.key(pygame.K_ESCAPE)  # nothing selected: the review is finished
        assert app.review is None
        before = app.scenario.models
        _import(p, photo)
        assert f"the last import's {first} proposals not accepted are replaced" in app.message, app.message
        assert len(app.scenario.models) == first
        assert len(app.review.unsure(app.scenario)) == unsure  # type: ignore[union-attr]
        p.key(pygame.K_ESCAPE)
        p.key(pygame.K_z, pygame.KMOD_LCTRL)  # the second import undone in one step: the first's proposals are back
        assert app.scenario.models == before
    finally:
        p.close()


def test_an_accepted_base_is_not_proposed_again(tmp_path: Path, photo: tuple[Path, object]) -> None:
    """Bases accepted from a first import stay, and the same photo imported again proposes none on top of them."""
    from tabletop.app.state import AcceptProposed

    p = _pilot(tmp_path)
    try:
        _import(p, photo)
        app = p.app
        found = app.scenario.models
        keep = found[: len(found) // 2]
        assert keep and app.dispatch(AcceptProposed(tuple(m.id for m in keep)))
        p.key(pygame.K_ESCAPE)
        _import(p, photo)
        models = app.scenario.models
        assert {m.id for m in keep} <= {m.id for m in models}
        assert len(models) == len(found), (len(models), len(found))
        for a in models:
            twins = [b for b in models if b.id != a.id and math.hypot(a.x - b.x, a.y - b.y) < 3.0]
            assert not twins, (a.id, [b.id for b in twins])
    finally:
        p.close()


def test_save_as_keeps_the_proposals_and_rebases_the_photo_in_every_version(tmp_path: Path) -> None:
    """Save As elsewhere: the photo's path follows the file in the table and in every version the undo history holds
    (worked by hand: pics/photo.jpg from tables/a.toml is ../pics/photo.jpg, from b.toml beside pics it is
    pics/photo.jpg), the proposals stay, and it is not an undo step (stop 49: a first Ctrl+Z after a Save changed
    nothing to see). An import still replaces the proposals not accepted."""
    from tabletop.app.edits import edit_scenario
    from tabletop.app.state import AppState, ImportPhoto, MarkSaved, MoveModel, apply
    from tabletop.model import Backdrop, Base, Model

    disc = Base.round(32.0)
    corners = ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0))
    s = Scenario(Table(600.0, 400.0), (Model("a", 100.0, 100.0, disc, tags=(PROPOSED_TAG,)), Model("b", 200.0, 100.0, disc)), (),
                 backdrop=Backdrop("../pics/photo.jpg", corners))
    assert [m.id for m in edit_scenario(s, ImportPhoto(Backdrop("photo.jpg", corners), ())).models] == ["b"]
    state = apply(AppState(scenario=s, path=str(tmp_path / "tables" / "a.toml"), saved=s), MoveModel("b", 210.0, 100.0))
    assert len(state.history.undo) == 1
    saved = apply(state, MarkSaved(str(tmp_path / "b.toml")))
    assert not saved.dirty and len(saved.history.undo) == 1
    assert saved.scenario.backdrop.image == "pics/photo.jpg" and [m.id for m in saved.scenario.models] == ["a", "b"]
    assert saved.history.undo[0].backdrop.image == "pics/photo.jpg"


@pytest.mark.slow
@pytest.mark.cpu
def test_the_apps_import_says_what_the_analysis_noted(tmp_path: Path) -> None:
    """The app never showed the analysis's notes (the command prints them on stderr). Imported with Enter (the printed
    markers' corners) at a wrong table size (1000 x 1219.2 mm for a 1219.2 mm square), every base came out "to check" at
    7-10 mm and nothing said why; the markers' note asks whether the size is right (fixed: the review's legend shows
    every note)."""
    photogen = pytest.importorskip("benchmarks.photogen")
    path, truth = photogen.cached_photo("markers", 1)
    p = _pilot(tmp_path)
    try:
        app = p.app
        assert app.start_photo_import(str(path), table_mm=(1000.0, float(truth["table_mm"][1])))
        app.wait_photo_import()  # the markers found in the background: Enter takes their corners
        p.key(pygame.K_RETURN)
        app.wait_photo_import()
        p.step(3)
        assert app.review is not None, app.message
        assert all(CHECK_TAG in m.tags for m in app.scenario.models)
        from tabletop.app.review_draw import review_legend

        legend = " ".join(" ".join(review_legend(app.review, app.scenario)).split())  # the notes' lines joined
        # The size question first, in one sentence (stop 49: it came last of eleven lines, after four about the pieces).
        assert "Photo: the printed markers (" in legend and "do not fit a table of the size given" in legend, legend
        assert "is the size right" in legend and legend.count("not in its corner") <= 1, legend
        pygame.image.save(p.screen, str(tmp_path / "legend.png"))
    finally:
        p.close()


# ---------------------------------------------------------------------------------------------- the command line


def _parse(argv: list[str]) -> object:
    from tabletop.cli import build_parser

    return build_parser().parse_args(argv)


def test_a_negative_corner_may_start_a_point() -> None:
    """``--corners -326,2385 3900,2400 ...`` (a table cut by the frame's left edge) was refused by argparse with
    "argument --corners: expected at least one argument" (fixed: a point starting with a minus is a value)."""
    from tabletop.photo.imageio import parse_corners

    args = _parse(["photo", "x.jpg", "--table", "48x48in", "--corners", "-326,2385", "3900,2400", "3500,300", "-400,-3.5", "--json"])
    assert args.image == ["x.jpg"] and args.json  # type: ignore[attr-defined]
    assert parse_corners(args.corners) == ((-326.0, 2385.0), (3900.0, 2400.0), (3500.0, 300.0), (-400.0, -3.5))  # type: ignore[attr-defined]
    args = _parse(["photo", "x.jpg", "--table", "48x48in", "--corners", "-326,2385 3900,2400 3500,300 400,300", "-o", "t.toml"])
    assert args.output == "t.toml"  # type: ignore[attr-defined]
    with pytest.raises(SystemExit):  # an unknown option is still one
        _parse(["photo", "x.jpg", "--table", "48x48in", "--cornrs", "1,2"])


def test_review_given_before_the_photo_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``tabletop photo --review table.jpg --table 48x48in``: argparse gives the photo to --review (its sheet is optional)
    and the command said "give one photo", which the user had (fixed: it says what happened)."""
    for name in ("table.jpg", "table.png"):
        assert photo_cli.main(["--review", str(tmp_path / name), "--table", "48x48in"]) == 2
        err = capsys.readouterr().err
        assert "--review took" in err and name in err and "Traceback" not in err


def test_the_scenario_and_the_contact_sheet_are_not_one_file(tmp_path: Path, photo: tuple[Path, object],
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """``-o same.png --review same.png``: the scenario was written, then the sheet over it, and the command still said
    "wrote same.png" for the scenario (fixed: refused before any work)."""
    path, _ = photo
    out = tmp_path / "same.png"
    assert photo_cli.main([str(path), "--table", "24x24in", "-o", str(out), "--review", str(tmp_path / "." / "same.png")]) == 2
    assert "both name" in capsys.readouterr().err and not out.exists()


def test_review_lists_and_sheets_the_same_bases_most_doubtful_first(tmp_path: Path, photo: tuple[Path, object],
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The text list, the contact sheet's tiles and the scenario's ``check`` tags name the same bases, in doubt order."""
    path, _ = photo
    sheet, scenario = tmp_path / "sheet.png", tmp_path / "t.toml"
    assert photo_cli.main([str(path), "--table", "24x24in", "--base-height", "0", "--review", str(sheet), "-o", str(scenario)]) == 0
    lines = capsys.readouterr().out.splitlines()
    listed = [line.split()[0] for line in lines if line.strip().startswith("b") and "tile" in line]
    tiles = [int(line.split("tile")[-1]) for line in lines if "tile" in line]
    assert listed and tiles == list(range(1, len(tiles) + 1))
    doubts = [float(re.search(r"±([\d.]+) mm", line).group(1)) / max(float(re.search(r"confidence ([\d.]+)", line).group(1)), 0.05)  # type: ignore[union-attr]
              for line in lines if line.strip().startswith("b") and "tile" in line]
    assert doubts == sorted(doubts, reverse=True)
    checked = [m.id for m in scenario_io.load(scenario).models if CHECK_TAG in m.tags]
    assert sorted(checked) == sorted(listed)
    img = cv2.imread(str(sheet))
    cols = min(4, len(tiles))
    rows = math.ceil(len(tiles) / cols)
    assert img.shape[1] == cols * (280 + 8) + 8 and img.shape[0] == 40 + rows * (280 + 46 + 8) + 8


def test_the_marker_sheet_prints_to_scale(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The PNG at 300 dpi: four black squares of 50 mm, each cut line 8 mm outside it; the PDF one A4 page."""
    from PIL import Image

    png, pdf = tmp_path / "m.png", tmp_path / "m.pdf"
    assert photo_cli.main(["markers", "-o", str(png)]) == 0 and photo_cli.main(["markers", "-o", str(pdf)]) == 0
    im = Image.open(png)
    assert im.size == (2480, 3508) and round(im.info["dpi"][0]) == 300
    a = np.asarray(im.convert("L"))
    n, _, stats, _ = cv2.connectedComponentsWithStats((a < 60).astype(np.uint8))
    squares = [s for s in stats[1:] if s[4] > 100_000]
    assert len(squares) == 4
    for x, y, w, h, _ in squares:
        assert abs(w / 300 * 25.4 - 50) < 0.1 and abs(h / 300 * 25.4 - 50) < 0.1
        # The dashed cut line (grey) 8 mm left of the square, on the square's middle row or a dash's gap beside it.
        row = a[y + h // 2 - 40:y + h // 2 + 40, x - 120:x]
        cols = np.nonzero(((row > 80) & (row < 200)).any(axis=0))[0]
        assert cols.size and abs((120 - cols.min()) / 300 * 25.4 - 8) < 0.3
    media = re.search(rb"MediaBox \[ 0 0 ([\d.]+) ([\d.]+) \]", pdf.read_bytes())
    assert media is not None and abs(float(media.group(1)) - 595.28) < 0.5 and abs(float(media.group(2)) - 841.89) < 0.5
    assert photo_cli.main(["markers", "-o", str(tmp_path / "m.svg")]) == 2


def test_delete_while_a_base_is_dragged_ends_the_drag_first(tmp_path: Path) -> None:
    """Delete pressed with a base held mid-drag deleted it, and the release then moved a base no longer there: the
    message was the raw "no item 'a'" (fixed: the drag is cancelled, then the base deleted; one undo brings it back
    where it stood before the drag)."""
    from tabletop.model import Base, Model

    table = tmp_path / "table.toml"
    scenario_io.save(Scenario(Table(TABLE, TABLE), (Model("a", 200.0, 200.0, Base.round(32.0)),), title="drag", units="mm"), table)
    p = Pilot(table)
    try:
        app = p.app
        start = p.screen_of((200.0, 200.0))
        p.press(start)
        for k in range(1, 5):
            p.move((start[0] + 10 * k, start[1]), buttons=(1, 0, 0))
        p.key(pygame.K_DELETE)
        p.release((start[0] + 40, start[1]))
        p.step(2)
        assert app.scenario.models == (), app.scenario.models
        assert not app.message_is_error, app.message
        p.key(pygame.K_z, pygame.KMOD_LCTRL)
        (back,) = app.scenario.models
        assert (back.id, back.x, back.y) == ("a", 200.0, 200.0)
    finally:
        p.close()
