"""A base found on a photo and not sure ("check") is marked on every picture of the table (stop 51): the app's frame,
the PNG and the SVG, with a legend row. Before, only the app's review drew the mark, so an exported picture or
``tabletop render`` showed such a base exactly like a measured one."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import replace

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
LEGEND = "check this base (photo: not sure)"


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
        assert marks and marks[0].get("stroke-dasharray")
        assert "not sure: check this base" in (g.findtext(f"{SVG}title") or "")
    assert groups["r1"].get("data-check") is None and not [e for e in groups["r1"] if e.get("class") == "check"]
    assert any(LEGEND in "".join(t.itertext()) for t in root.iter(f"{SVG}text"))
