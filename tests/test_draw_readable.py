"""Readable without colour and on any display: WCAG AA contrast of every text/background pair the table
uses, statuses that differ by pattern as well as colour, the colour-blind palette, the UI scale."""

from __future__ import annotations

from pathlib import Path

import pygame
import pytest

from tabletop import scenario_io
from tabletop.adjudicate import adjudicate
from tabletop.draw import chrome, labels, marks as paint_marks, models, odds as draw_odds, templates
from tabletop.draw.png import render_frame
from tabletop.draw.scene import _scene
from tabletop.draw.style import (
    BACKGROUND,
    CONTESTED_COLOUR,
    PALETTES,
    PANEL,
    STATUS_COLOURS,
    TABLE_FILL,
    DrawOptions,
    auto_ui_scale,
    blend,
    contrast_ratio,
    luminance,
    set_palette,
)
from tabletop.marks import BADGE_BACK, TEXT, TEXT_DIM

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))
AA = 4.5

NAME_PILL = (14, 16, 20)
RULER_BACK, RULER_INK = (20, 22, 26), (220, 220, 210)

#: (what, text colour, background) for the table's own text.
PAIRS = [
    ("model name", TEXT, NAME_PILL),
    ("template title", templates.TITLE_INK, NAME_PILL),
    ("refused template title", templates.TITLE_REFUSED, NAME_PILL),
    ("template sublabel", TEXT_DIM, NAME_PILL),
    ("NOT ALLOWED banner", (255, 255, 255), templates.REFUSAL_BACK),
    ("refusal reason", TEXT, NAME_PILL),
    ("title", (250, 250, 250), chrome.TITLE_BACK),
    ("title line", TEXT_DIM, chrome.TITLE_BACK),
    ("terrain name", (235, 235, 235), (30, 30, 34)),
    ("ruler numbers", RULER_INK, RULER_BACK),
    ("hidden-label pill", TEXT, labels.PILL_BACK),
    ("tooltip", TEXT, PANEL[:3]),
    ("tooltip margins", TEXT_DIM, PANEL[:3]),
    ("tooltip contested", CONTESTED_COLOUR, PANEL[:3]),
    ("odds label", draw_odds.PAPER, draw_odds.LABEL_BG[:3]),
    ("grid number, light", paint_marks.CELL_LIGHT_INK, paint_marks.CELL_DARK_HALO),
    ("grid number, dark", paint_marks.CELL_DARK_INK, paint_marks.CELL_LIGHT_HALO),
]
# The legend panel is translucent: over the table's felt and over the window's background.
PAIRS += [(f"legend over {name}", TEXT, blend(PANEL[:3], PANEL[3], under)) for name, under in (("felt", TABLE_FILL), ("background", BACKGROUND))]


def test_contrast_formula_matches_wcag() -> None:
    assert contrast_ratio((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast_ratio((119, 119, 119), (255, 255, 255)) == pytest.approx(4.48, abs=0.01)  # the classic just-fails grey
    assert luminance((255, 255, 255)) == pytest.approx(1.0)


@pytest.mark.parametrize("what, ink, back", PAIRS, ids=[p[0] for p in PAIRS])
def test_table_text_meets_wcag_aa(what: str, ink: tuple[int, int, int], back: tuple[int, int, int]) -> None:
    assert contrast_ratio(ink, back) >= AA, f"{what}: {contrast_ratio(ink, back):.2f}:1"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_ruleset_text_meets_wcag_aa(path: Path) -> None:
    """Every badge line, arrow tag and tag a ruleset writes, on the backing it is drawn on."""
    art = _scene(adjudicate(scenario_io.load(path))).art
    if art is None:
        pytest.skip("ruleset draws no marks")
    for badge in art.badges:
        for text, colour in badge.lines:
            assert contrast_ratio(colour, BADGE_BACK) >= AA, f"badge {text!r}: {contrast_ratio(colour, BADGE_BACK):.2f}"
    for arrow in art.arrows:
        if arrow.tag:
            assert contrast_ratio((15, 15, 15), arrow.colour) >= AA, f"arrow tag {arrow.tag!r}"
    for _, text, colour in art.tags:
        assert contrast_ratio(colour, (15, 15, 15)) >= AA, f"tag {text!r}"


def test_the_old_refusal_red_failed() -> None:
    # Why REFUSAL_BACK exists: white on the NULLIFIED red is under AA.
    from tabletop.marks import NULLIFIED

    assert contrast_ratio((255, 255, 255), NULLIFIED) < AA <= contrast_ratio((255, 255, 255), templates.REFUSAL_BACK)


@pytest.mark.parametrize("palette", list(PALETTES))
def test_statuses_differ_in_lightness_too(palette: str) -> None:
    """Seen in greyscale, affected, total cover and outside are still three different fills."""
    c = PALETTES[palette]
    lum = sorted(luminance(c[s]) for s in ("affected", "total_cover", "outside"))
    assert lum[1] - lum[0] > 0.03 and lum[2] - lum[1] > 0.2


def test_statuses_differ_by_pattern() -> None:
    """An affected base carries a cross, a base in total cover hatching, an outside base neither."""
    adj = adjudicate(scenario_io.load(ROOT / "scenarios" / "default.toml"))
    surface, vp, frame = render_frame(adj, (1600, 1000), DrawOptions(show_names=False))
    ink = models.PATTERN_INK
    seen = {}
    for m in adj.scenario.models:
        status = _scene(adj).worst[_scene(adj).model_index[m.id]]
        x, y = vp.to_screen(m.x, m.y)
        r = m.base.bounding_radius * vp.scale
        foci = [vp.to_screen(*t.placed.focus) for t in _scene(adj).templates]
        if not m.base.is_round or r < 10 or any(abs(fx - x) < r and abs(fy - y) < r for fx, fy in foci):
            continue  # a template's focus cross is drawn over this base
        # The hatching's middle chord runs down-right through the centre; only a cross has the other diagonal.
        cross = [(x + 0.2 * r, y - 0.2 * r), (x - 0.2 * r, y + 0.2 * r)]
        hatch = [(x - 0.2 * r, y - 0.2 * r), (x + 0.2 * r, y + 0.2 * r)]
        def on(pts: list[tuple[float, float]]) -> bool:
            near = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
            return all(any(tuple(surface.get_at((round(px) + dx, round(py) + dy)))[:3] == ink for dx, dy in near) for px, py in pts)

        seen.setdefault(status, []).append((on(cross), on(hatch)))
    assert all(c for c, _ in seen["affected"])
    assert all(h and not c for c, h in seen["total_cover"])
    assert all(not c and not h for c, h in seen.get("outside", []))


def test_colour_blind_palette_recolours_statuses() -> None:
    adj = adjudicate(scenario_io.load(ROOT / "scenarios" / "default.toml"))
    try:
        surface, vp, _ = render_frame(adj, (1000, 700), DrawOptions(palette="cb", show_names=False))
        m = adj.scenario.model("b3")  # affected
        x, y = vp.to_screen(m.x, m.y)
        r = m.base.bounding_radius * vp.scale
        assert tuple(surface.get_at((round(x), round(y + 0.6 * r))))[:3] == PALETTES["cb"]["affected"]
        assert STATUS_COLOURS["affected"] == PALETTES["cb"]["affected"]
        surface, vp, _ = render_frame(adj, (1000, 700), DrawOptions(show_names=False))
        assert tuple(surface.get_at((round(x), round(y + 0.6 * r))))[:3] == PALETTES["default"]["affected"]
    finally:
        set_palette("default")


def test_render_palette_flag(tmp_path: Path) -> None:
    from tabletop import cli

    a, b = tmp_path / "a.png", tmp_path / "b.png"
    scenario = str(ROOT / "scenarios" / "default.toml")
    assert cli.main(["render", scenario, "-o", str(a), "--size", "600x400"]) == 0
    assert cli.main(["render", scenario, "-o", str(b), "--size", "600x400", "--palette", "cb"]) == 0
    assert pygame.image.tobytes(pygame.image.load(str(a)), "RGB") != pygame.image.tobytes(pygame.image.load(str(b)), "RGB")
    assert cli.main(["render", scenario, "-o", str(b), "--palette", "neon"]) == 2
    set_palette("default")


@pytest.mark.parametrize(
    "desktop, setting, expected",
    [((1920, 1080), None, 1.0), ((1366, 768), None, 1.0), ((2560, 1440), None, 1.25), ((3840, 2160), None, 2.0), (None, None, 1.0), ((3840, 2160), "1.5", 1.5), ((1920, 1080), "x", 1.0), ((1920, 1080), "9", 4.0)],
)
def test_auto_ui_scale(desktop: tuple[int, int] | None, setting: str | None, expected: float) -> None:
    assert auto_ui_scale(desktop, setting) == expected


def test_ui_scale_grows_text_and_keeps_the_layout_clean() -> None:
    from tabletop.label_layout import check_layout

    adj = adjudicate(scenario_io.load(ROOT / "scenarios" / "robotech-scatter.toml"))
    try:
        _, _, small = render_frame(adj, (1920, 1080))
        _, _, big = render_frame(adj, (3840, 2160), DrawOptions(ui_scale=2.0))
        size = {p.id: p.rect[2:] for p in small.placements}
        grown = [p for p in big.placements if p.id in size]
        assert grown and all(p.rect[3] >= 1.8 * size[p.id][1] for p in grown)
        assert not check_layout(big.to_json())
    finally:
        render_frame(adj, (200, 200), DrawOptions())  # back to scale 1 for the other tests


def test_app_palette_key_and_help() -> None:
    from tabletop.app.pilot import Pilot
    from tabletop.app.shortcuts import SHORTCUTS

    assert any(keys == "Shift+B" and "Colour-blind" in what for keys, what in SHORTCUTS)
    pilot = Pilot(ROOT / "scenarios" / "default.toml", size=(1000, 700))
    try:
        assert pilot.app._draw_options().palette == "default"
        pilot.key(pygame.K_b, mod=pygame.KMOD_LSHIFT)
        pilot.step(2)
        assert pilot.app.state.view.palette_cb and pilot.app._draw_options().palette == "cb"
        assert STATUS_COLOURS["affected"] == PALETTES["cb"]["affected"]
        pilot.key(pygame.K_b, mod=pygame.KMOD_LSHIFT)
        pilot.step(2)
        assert pilot.app._draw_options().palette == "default"
        assert STATUS_COLOURS["affected"] == PALETTES["default"]["affected"]
        pilot.key(pygame.K_b)  # plain B is the photo backdrop's: the palette stays
        pilot.step(2)
        assert pilot.app._draw_options().palette == "default"
    finally:
        pilot.close()
        set_palette("default")


def test_a_refusal_reason_is_wrapped_whole_under_its_banner_not_cut() -> None:
    """The reason ends with what to do ("place it with impact = {attacker, target} ..."): cut at 57
    characters it lost exactly that, so it is wrapped on up to three lines of 60 characters."""
    from tabletop.draw.scene import REFUSAL_LINE_CHARS, REFUSAL_MAX_LINES, refusal_lines

    reason = "a Robotech Blast needs an attacker: place it with impact = {attacker, target} (or at for Indirect Fire)"
    lines = refusal_lines(reason)
    assert lines == ["a Robotech Blast needs an attacker: place it with impact =", "{attacker, target} (or at for Indirect Fire)"]
    assert " ".join(lines) == reason
    assert refusal_lines("short") == ["short"]
    long = " ".join(["word"] * 100)  # 499 characters: more than three lines hold
    cut = refusal_lines(long)
    assert len(cut) == REFUSAL_MAX_LINES and cut[-1].endswith(" …")
    assert all(len(line) <= REFUSAL_LINE_CHARS for line in cut)
