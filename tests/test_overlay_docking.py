"""The overlay docking rule itself (tabletop.label_layout.overlays.dock_overlays), not only a golden image.

Found by mutation (issue 37): a sign slip in the docking was caught only by a golden render. The rule: an
overlay never docks over the table when a canvas margin has room for it; it goes to its preferred corner
when that is free; it never covers a base, an ``avoid`` rect or an earlier overlay; on the table (no margin
free) it slides inward, away from its corner, off the bases there.
"""

from __future__ import annotations


import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.label_layout.overlays import Overlay, dock_overlays

CORNERS = ("top_left", "top_right", "bottom_left", "bottom_right")


def _meets(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Rects (x, y, w, h) share interior."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _inside(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] >= b[0] and a[1] >= b[1] and a[0] + a[2] <= b[0] + b[2] and a[1] + a[3] <= b[1] + b[3]


@st.composite
def _tables_with_a_free_margin(draw: st.DrawFn) -> tuple[tuple[int, int], tuple[int, int, int, int], tuple[int, int], str, list[tuple[float, ...]]]:
    """A canvas, a table in it leaving one side's margin wide enough for the overlay, the overlay, bases on the table."""
    w, h = draw(st.integers(20, 200)), draw(st.integers(12, 120))
    side = draw(st.sampled_from(("left", "right", "top", "bottom")))
    cw, ch = draw(st.integers(400, 1600)), draw(st.integers(300, 1000))
    room_x, room_y = (w + 16, 0) if side in ("left", "right") else (0, h + 16)
    tw = draw(st.integers(100, max(100, cw - room_x - 1)))
    th = draw(st.integers(100, max(100, ch - room_y - 1)))
    if side == "left":
        tx, ty = cw - tw, draw(st.integers(0, max(0, ch - th)))
    elif side == "right":
        tx, ty = 0, draw(st.integers(0, max(0, ch - th)))
    elif side == "top":
        tx, ty = draw(st.integers(0, max(0, cw - tw))), ch - th
    else:
        tx, ty = draw(st.integers(0, max(0, cw - tw))), 0
    n = draw(st.integers(0, 30))
    bases = []
    for _ in range(n):
        x, y = draw(st.floats(tx, tx + tw - 10)), draw(st.floats(ty, ty + th - 10))
        r = draw(st.floats(3, 20))
        bases.append((x, y, x + r, y + r))
    corner = draw(st.sampled_from(CORNERS))
    return (cw, ch), (tx, ty, tw, th), (w, h), corner, bases


@settings(max_examples=300, deadline=None)
@given(_tables_with_a_free_margin())
def test_an_overlay_never_docks_over_the_table_when_a_margin_is_free(case: tuple) -> None:
    canvas, table, size, corner, bases = case
    docked = dock_overlays(canvas, table, bases, [Overlay("panel", size, corner)], margin=8)["panel"]
    assert docked is not None
    assert not _meets(docked, table), (docked, table)
    assert _inside(docked, (0, 0, *canvas))
    for b in bases:
        assert not _meets(docked, (b[0], b[1], b[2] - b[0], b[3] - b[1]))


def test_a_free_preferred_corner_of_the_canvas_is_taken_exactly() -> None:
    table = (200, 150, 400, 300)  # margins of 200 and 150 px all round on an 800 x 600 canvas
    for corner, want in (("top_left", (8, 8)), ("top_right", (800 - 8 - 100, 8)), ("bottom_left", (8, 600 - 8 - 40)),
                         ("bottom_right", (800 - 8 - 100, 600 - 8 - 40))):
        docked = dock_overlays((800, 600), table, [], [Overlay("o", (100, 40), corner)], margin=8)["o"]
        assert docked == (*want, 100, 40), corner


def test_beside_the_table_when_the_canvas_corner_is_taken() -> None:
    """The canvas's top-left corner taken: the overlay hugs the table's top edge from outside, above it."""
    table = (200, 150, 400, 300)
    docked = dock_overlays((800, 600), table, [], [Overlay("o", (100, 40), "top_left")], margin=8, avoid=[(0, 0, 150, 100)])["o"]
    assert docked is not None and not _meets(docked, table) and not _meets(docked, (0, 0, 150, 100))
    assert docked[1] + docked[3] <= 150 - 8 or docked[0] + docked[2] <= 200 - 8 or docked[0] >= 608 or docked[1] >= 458


CORNER_BLOCKS = [(0, 0, 120, 60), (680, 0, 120, 60), (0, 540, 120, 60), (680, 540, 120, 60)]


def test_with_the_canvas_corners_taken_the_overlay_hugs_the_table_from_outside_on_its_side() -> None:
    """Above the table for a top corner, below it for a bottom one, 8 px off its edge, at the canvas's side."""
    table = (200, 150, 400, 300)
    for corner, want in (("top_left", (8, 150 - 8 - 40)), ("top_right", (800 - 8 - 100, 150 - 8 - 40)),
                         ("bottom_left", (8, 450 + 8)), ("bottom_right", (800 - 8 - 100, 450 + 8))):
        docked = dock_overlays((800, 600), table, [], [Overlay("o", (100, 40), corner)], margin=8, avoid=CORNER_BLOCKS)["o"]
        assert docked == (*want, 100, 40), corner


def test_beside_a_full_height_table_the_overlay_hugs_its_side_from_outside() -> None:
    table = (300, 0, 200, 600)  # nothing above or below it
    for corner, want in (("top_left", (300 - 8 - 100, 8)), ("top_right", (500 + 8, 8)),
                         ("bottom_left", (300 - 8 - 100, 600 - 8 - 40)), ("bottom_right", (500 + 8, 600 - 8 - 40))):
        docked = dock_overlays((800, 600), table, [], [Overlay("o", (100, 40), corner)], margin=8, avoid=CORNER_BLOCKS)["o"]
        assert docked == (*want, 100, 40), corner


def test_on_the_table_the_slide_goes_inward_along_each_axis() -> None:
    """Bases along both side edges (full height): only a slide inward in x gets off them; along the top and
    bottom edges (full width): only a slide inward in y. A slide the wrong way leaves the canvas."""
    canvas, table = (800, 600), (0, 0, 800, 600)
    columns = [(0, 0, 60, 600), (740, 0, 800, 600)]
    rows = [(0, 0, 800, 50), (0, 550, 800, 600)]
    for bases, axis in ((columns, 0), (rows, 1)):
        for corner in CORNERS:
            docked = dock_overlays(canvas, table, bases, [Overlay("o", (100, 40), corner)], margin=8)["o"]
            assert docked is not None, (axis, corner)
            assert not any(_meets(docked, (b[0], b[1], b[2] - b[0], b[3] - b[1])) for b in bases)
            if axis == 0:
                assert 60 <= docked[0] and docked[0] + 100 <= 740
            else:
                assert 50 <= docked[1] and docked[1] + 40 <= 550


def test_overlays_in_order_never_overlap_each_other() -> None:
    table = (200, 150, 400, 300)
    panels = [Overlay(f"o{k}", (120, 50), "top_left") for k in range(6)]
    docked = dock_overlays((800, 600), table, [], panels, margin=8)
    rects = [r for r in docked.values() if r is not None]
    assert len(rects) == 6
    assert all(not _meets(a, table) for a in rects)
    assert all(not _meets(a, b) for i, a in enumerate(rects) for b in rects[i + 1:])


def test_on_a_table_filling_the_canvas_the_overlay_slides_inward_off_the_bases_at_every_corner() -> None:
    """No margin: on the table. A base sits in each corner, so every corner needs a slide; a slide the wrong way
    leaves the canvas and nothing fits."""
    canvas = (800, 600)
    table = (0, 0, 800, 600)
    bases = [(4, 4, 60, 60), (740, 4, 796, 60), (4, 540, 60, 596), (740, 540, 796, 596)]
    for corner in CORNERS:
        docked = dock_overlays(canvas, table, bases, [Overlay("o", (100, 40), corner)], margin=8)["o"]
        assert docked is not None, corner
        assert _inside(docked, (0, 0, *canvas))
        assert not any(_meets(docked, (b[0], b[1], b[2] - b[0], b[3] - b[1])) for b in bases)
        # Near its own corner: moved inward by less than half the canvas.
        cx = docked[0] if corner.endswith("left") else canvas[0] - docked[0] - docked[2]
        cy = docked[1] if corner.startswith("top") else canvas[1] - docked[1] - docked[3]
        assert cx < canvas[0] / 2 and cy < canvas[1] / 2, (corner, docked)


def test_on_the_table_the_emptiest_free_corner_wins() -> None:
    canvas = (800, 600)
    table = (0, 0, 800, 600)
    crowd = [(x, y, x + 12, y + 12) for x in range(120, 300, 20) for y in range(60, 200, 20)]  # near the top left
    docked = dock_overlays(canvas, table, crowd, [Overlay("o", (100, 40), "top_left")], margin=8)["o"]
    assert docked is not None and docked[1] < 300 and docked[0] > 400  # the top right: as near the top, fewer bases


def test_nowhere_to_go_is_none_not_a_rect_over_a_base() -> None:
    bases = np.array([[0, 0, 800, 600]], dtype=float)  # one base covering everything
    assert dock_overlays((800, 600), (0, 0, 800, 600), bases, [Overlay("o", (100, 40))], margin=8) == {"o": None}


def test_a_required_overlay_with_no_clear_place_goes_in_its_corner() -> None:
    # A 400 x 300 canvas, the table all of it, one base covering it all: nowhere is clear. An overlay that is not
    # required is not placed; a required one (the legend someone asked for) goes in its preferred corner, 8 px in:
    # top right, x = 400 - 8 - 120 = 272, y = 8. An overlay docked after it keeps off it (none here: nowhere left).
    canvas, table = (0, 0, 400, 300), (0, 0, 400, 300)
    bases = np.array([[0.0, 0.0, 400.0, 300.0]])
    got = dock_overlays(canvas, table, bases, [Overlay("title", (150, 40), "top_left"),
                                              Overlay("legend", (120, 90), "top_right", required=True)], margin=8)
    assert got["title"] is None
    assert got["legend"] == (272, 8, 120, 90)
    clear = dock_overlays(canvas, table, np.zeros((0, 4)), [Overlay("legend", (120, 90), "top_right", required=True)], margin=8)
    assert clear["legend"] == (272, 8, 120, 90)  # a free corner: where it went anyway
