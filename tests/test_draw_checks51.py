"""A base found on a photo and not sure ("check") is marked on every picture of the table (stop 51): the app's frame,
the PNG and the SVG, with a legend row. Before, only the app's review drew the mark, so an exported picture or
``tabletop render`` showed such a base exactly like a measured one."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import replace

import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from tabletop.adjudicate import adjudicate  # noqa: E402
from tabletop.draw.plan import legend_rows  # noqa: E402
from tabletop.draw.png import render_frame  # noqa: E402
from tabletop.draw.scene import _scene  # noqa: E402
from tabletop.draw.style import CHECK_COLOUR, check_badge_centre  # noqa: E402
from tabletop.draw.svg import svg_document  # noqa: E402
from tabletop.model import CHECK_TAG, Scenario  # noqa: E402
from tabletop.scenario_io import load  # noqa: E402

from .conftest import SCENARIOS  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
LEGEND = "not sure (photo): check it"


def _tagged(*ids: str) -> Scenario:
    """The default table with the models ``ids`` tagged "check", as ``tabletop photo -o`` tags an unsure base."""
    s = load(SCENARIOS / "default.toml")
    return replace(s, models=tuple(replace(m, tags=(*m.tags, CHECK_TAG)) if m.id in ids else m for m in s.models))


def _near(rgb: tuple[int, ...], colour: tuple[int, int, int], tol: int = 40) -> bool:
    return all(abs(int(a) - b) <= tol for a, b in zip(rgb[:3], colour))


def _badge_pixel(surface: object, vp: object, s: Scenario, model_id: str) -> tuple[int, ...]:
    m = s.model(model_id)
    x, y = check_badge_centre(vp.to_screen(m.x, m.y), m.base.bounding_radius * vp.scale)  # type: ignore[attr-defined]
    # A pixel of the badge's disc beside its "!" (the ink of the mark is at its middle).
    return tuple(surface.get_at((round(x) - 5, round(y))))  # type: ignore[attr-defined]


def test_the_png_marks_a_base_to_check_and_only_it() -> None:
    s = _tagged("r2")
    surface, vp, _ = render_frame(adjudicate(s), (1600, 1000))
    assert _near(_badge_pixel(surface, vp, s, "r2"), CHECK_COLOUR)
    assert not _near(_badge_pixel(surface, vp, s, "r1"), CHECK_COLOUR)  # the same size, not tagged
    plain, vp0, _ = render_frame(adjudicate(_tagged()), (1600, 1000))
    assert vp0.scale == vp.scale and not _near(_badge_pixel(plain, vp0, s, "r2"), CHECK_COLOUR)


def test_the_legend_explains_the_mark_only_when_a_base_is_tagged() -> None:
    rows, _ = legend_rows(_scene(adjudicate(_tagged("r2"))))
    assert ("check", LEGEND, CHECK_COLOUR) in rows
    rows, _ = legend_rows(_scene(adjudicate(_tagged())))
    assert all(kind != "check" for kind, _, _ in rows)


def test_the_svg_marks_a_base_to_check_and_says_why() -> None:
    root = ET.fromstring(svg_document(adjudicate(_tagged("r2", "dread")), (1200, 800)))
    groups = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("class") == "model"}
    for model_id in ("r2", "dread"):  # a round base and an oval one
        g = groups[model_id]
        assert g.get("data-check") == "true"
        marks = [e for e in g if e.get("class") == "check"]
        assert any(e.get("stroke-dasharray") for e in marks)  # the outline dashed, over an ink one
        assert "not sure: check this base" in (g.findtext(f"{SVG}title") or "")
    assert groups["r1"].get("data-check") is None and not [e for e in groups["r1"] if e.get("class") == "check"]
    assert any(LEGEND in "".join(t.itertext()) for t in root.iter(f"{SVG}text"))


def _pilot_on(s: Scenario):  # noqa: ANN202
    import pygame  # noqa: F401

    from tabletop.app.pilot import Pilot

    return Pilot(s)


def _crowded() -> Scenario:
    """The default table (24 x 18 in) under a 100 mm base every 110 mm, every third tagged: no corner of it is clear."""
    from tabletop.model import Base, Model

    s = _tagged()
    step, size = 110.0, 100.0  # a loaded scenario is in mm, whatever its file's units
    bases = tuple(Model(f"c{i}_{j}", (i + 0.5) * step, (j + 0.5) * step, Base("round", size, size),
                        tags=(CHECK_TAG,) if (i + j) % 3 == 0 else ())
                  for i in range(int(s.table.width / step)) for j in range(int(s.table.depth / step)))
    return replace(s, models=bases, templates=())


@pytest.mark.parametrize("crowded", [False, True], ids=["default", "crowded"])
def test_k_shows_the_legend_with_its_check_row(crowded: bool) -> None:
    """In the app's default 1280x800 window, K shows the legend: on the default table with two bases tagged, and on one
    with a 100 mm base every 110 mm, where it fits nowhere clear of a base and goes in its corner over them. Before (review
    r52), a legend that fitted nowhere clear was dropped without a word, as the longer check row first made it on the
    default table."""
    import pygame

    p = _pilot_on(_crowded() if crowded else _tagged("r1", "r2"))
    try:
        p.step(2)
        p.key(pygame.K_k, unicode="k")
        p.step(3)
        assert p.app.state.view.show_legend
        legend = p.app._frame.overlays.get("legend")  # type: ignore[attr-defined]
        assert legend is not None
        x, y, w, h = legend
        view = p.app.view_rect
        assert view.contains(pygame.Rect(x, y, w, h))
    finally:
        p.close()


def test_the_status_bars_key_explains_the_mark_when_a_base_is_tagged() -> None:
    """The status bar's short key (the legend folded away) starts with the mark's badge and "check" where a base is
    tagged, and has no such entry otherwise."""
    from tabletop.app.layout import STATUS_H

    def key_has_badge(s: Scenario) -> bool:
        p = _pilot_on(s)
        try:
            p.step(2)
            h = p.screen.get_height()
            row = [tuple(p.screen.get_at((x, h - STATUS_H // 2))) for x in range(0, p.screen.get_width())]
            return any(_near(c, CHECK_COLOUR, 12) for c in row)
        finally:
            p.close()

    assert key_has_badge(_tagged("r2"))
    assert not key_has_badge(_tagged())


def test_a_base_drawn_too_small_for_a_badge_still_shows_a_dot() -> None:
    """Zoomed out until a 25 mm base is under 4 px across its radius, a tagged base gets a dot where its badge would
    be (a base to check never looks sure at any zoom)."""
    import pygame

    from tabletop.draw.checks import check_mark
    from tabletop.draw.style import CHECK_BADGE_MIN_BASE_PX

    surface = pygame.Surface((60, 60))
    surface.fill((0, 0, 0))
    r = CHECK_BADGE_MIN_BASE_PX - 1
    ring = np.column_stack([30 + r * np.cos(np.linspace(0, 2 * np.pi, 24, endpoint=False)),
                            30 + r * np.sin(np.linspace(0, 2 * np.pi, 24, endpoint=False))])
    rect = check_mark(surface, ring, (30.0, 30.0), r)
    x, y = check_badge_centre((30.0, 30.0), r)
    assert rect.collidepoint(round(x), round(y))
    assert _near(tuple(surface.get_at((round(x), round(y)))), CHECK_COLOUR, 12)
