"""``render FILE -o OUT.svg``: the drawing as vectors, every base and template named by id."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tabletop.adjudicate import adjudicate
from tabletop.draw import DrawOptions
from tabletop.draw.svg import render_svg, svg_document
from tabletop.scenario_io import load

from .conftest import ROOT, SCENARIOS

SVG = "{http://www.w3.org/2000/svg}"
BUNDLED = sorted(SCENARIOS.glob("*.toml"))


def _ids(root: ET.Element) -> list[str]:
    return [e.get("id", "") for e in root.iter() if e.get("id")]


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_svg_parses_and_names_every_base_and_template(path: Path, tmp_path: Path) -> None:
    scenario = load(path)
    out = tmp_path / "table.svg"
    render_svg(adjudicate(scenario), out, (1200, 800), None, "table")
    root = ET.parse(out).getroot()
    assert root.tag == f"{SVG}svg"
    assert root.get("width") == "1200" and root.get("viewBox") == "0 0 1200 800"
    ids = _ids(root)
    assert len(ids) == len(set(ids)), "duplicate element ids"
    for m in scenario.models:
        assert m.id in ids
    for t in scenario.templates:
        assert t.id in ids or f"template.{t.id}" in ids
    # A base is drawn as a shape filled with its status colour, inside its group.
    first = next(e for e in root.iter() if e.get("id") == scenario.models[0].id)
    assert any(child.tag in (f"{SVG}circle", f"{SVG}polygon") and child.get("fill", "").startswith("#") for child in first)


def test_statuses_and_the_action_view() -> None:
    adj = adjudicate(load(SCENARIOS / "default.toml"))
    root = ET.fromstring(svg_document(adj, (1000, 700), region="action"))
    status = {e.get("id"): e.get("data-status") for e in root.iter() if e.get("class") == "model"}
    assert status["b2"] == "total_cover" and status["b1"] == "affected" and status["r4"] == "outside" and status["gunner"] == "user"
    # The visible region and its shadow are drawn for the teardrop behind the building.
    flame = next(e for e in root.iter() if e.get("id") == "flame")
    assert any(child.get("class") == "shadow" for child in flame)
    table = ET.fromstring(svg_document(adj, (1000, 700), region="table"))
    r_action = next(e for e in root.iter() if e.get("id") == "sgt").find(f"{SVG}circle")
    r_table = next(e for e in table.iter() if e.get("id") == "sgt").find(f"{SVG}circle")
    assert float(r_action.get("r")) > float(r_table.get("r"))  # zoomed on the action


def test_options_hide_names_grid_and_legend() -> None:
    adj = adjudicate(load(SCENARIOS / "default.toml"))
    full = svg_document(adj, (900, 600))
    bare = svg_document(adj, (900, 600), DrawOptions(show_names=False, show_grid=False, show_legend=False))
    assert 'class="grid"' in full and 'class="grid"' not in bare
    assert 'id="tabletop.legend"' in full and 'id="tabletop.legend"' not in bare
    assert ">Sergeant<" in full and ">Sergeant<" not in bare


def test_scatter_arrow_and_marks_are_drawn() -> None:
    adj = adjudicate(load(SCENARIOS / "robotech-scatter.toml"))
    root = ET.fromstring(svg_document(adj))
    assert any(e.get("class") == "scatter" for e in root.iter())
    assert any(e.get("class") == "ruleset-marks" for e in root.iter())


def test_svg_needs_no_pygame() -> None:
    code = (
        "import sys; from tabletop.scenario_io import load; from tabletop.adjudicate import adjudicate; "
        "from tabletop.draw.svg import svg_document; "
        f"svg_document(adjudicate(load({str(SCENARIOS / 'default.toml')!r}))); assert 'pygame' not in sys.modules"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_template_sharing_a_model_id_still_gets_a_unique_element_id() -> None:
    """Ids are unique among models and among templates, not across them: the SVG must stay valid."""
    from dataclasses import replace as _replace

    from tabletop.adjudicate import adjudicate as _adjudicate
    from tabletop.scenario_io import load as _load

    s = _load(SCENARIOS / "default.toml")
    clash = s.models[0].id
    s = _replace(s, templates=(_replace(s.templates[0], id=clash), *s.templates[1:]))
    root = ET.fromstring(svg_document(_adjudicate(s), (900, 600)))
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids))
    assert clash in ids and f"template.{clash}" in ids


def test_ids_that_look_like_the_drawings_own_stay_unique() -> None:
    """A hostile table: models named like other elements' ids. Every id in the SVG stays unique."""
    from dataclasses import replace as _replace

    from tabletop.adjudicate import adjudicate as _adjudicate
    from tabletop.scenario_io import load as _load

    s = _load(SCENARIOS / "default.toml")
    renamed = {"sgt": "terrain-crates", "b1": "blast", "b3": "template-blast", "r1": "tabletop-legend"}
    s = _replace(
        s,
        models=tuple(_replace(m, id=renamed.get(m.id, m.id)) for m in s.models),
        templates=tuple(_replace(t, placement=t.placement) for t in s.templates),
    )
    root = ET.fromstring(svg_document(_adjudicate(s), (900, 600)))
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids))
    assert {"terrain-crates", "blast", "template-blast", "crates", "template.blast"} <= set(ids)


# --------------------------------------------------------------------------- one label layout, rulers, legend


def _layout_doc(root: ET.Element, size: tuple[int, int]) -> dict[str, object]:
    """The ``check_layout`` document of an SVG: its labels' boxes (``data-rect``) and its bases."""
    labels = []
    for e in root.iter():
        if e.get("class") == "label":
            x, y, w, h = (float(v) for v in e.get("data-rect", "").split())
            ax, ay = (float(v) for v in e.get("data-anchor", "").split())
            labels.append(
                {"id": e.get("data-id"), "rect": [x, y, w, h], "text": e.get("data-id"), "anchor": [ax, ay], "clear": float(e.get("data-clear", "0")), "leader": e.get("data-leader") == "1"}
            )
    bases = []
    for e in root.iter():
        if e.get("class") == "model":
            c = e.find(f"{SVG}circle")
            if c is not None:
                bases.append({"id": e.get("id"), "centre": [float(c.get("cx")), float(c.get("cy"))], "radius": float(c.get("r"))})
            else:  # an oval or square base: the circle round its outline
                pts = [tuple(float(v) for v in p.split(",")) for p in e.find(f"{SVG}polygon").get("points", "").split()]
                xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
                bases.append({"id": e.get("id"), "centre": [cx, cy], "radius": max(max(xs) - cx, max(ys) - cy)})
    return {"size": list(size), "labels": labels, "bases": bases}


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
@pytest.mark.parametrize("size", [(1600, 1000), (900, 600)])
def test_labels_never_overlap_each_other_or_a_base(path: Path, size: tuple[int, int]) -> None:
    from tabletop.label_layout import check_layout

    adj = adjudicate(load(path))
    text = svg_document(adj, size)
    root = ET.fromstring(text)
    doc = _layout_doc(root, size)
    assert doc["labels"], "no label drawn"
    assert check_layout(doc) == []
    # Every model name on screen is drawn, or counted in the "+n labels hidden" note.
    drawn = {lab["id"] for lab in doc["labels"]}  # type: ignore[index]
    # (The PNG names no base under 5 px across its radius: nor does the SVG.)
    big = {b["id"] for b in doc["bases"] if b["radius"] >= 5}  # type: ignore[index]
    missing = [m.id for m in adj.scenario.models if m.id in big and f"name:{m.id}" not in drawn]
    note = next((e for e in root.iter() if e.get("id") == "tabletop.hidden"), None)
    if missing:
        assert note is not None
        words = "".join(note.itertext())
        assert int(words.split()[0].lstrip("+")) >= len(missing)


def test_the_labels_come_from_the_one_layout() -> None:
    """The SVG's rects are what ``layout_labels`` returns for its requests (no second label rule)."""
    adj = adjudicate(load(SCENARIOS / "robotech-scatter.toml"))
    root = ET.fromstring(svg_document(adj))
    kinds = {e.get("data-kind") for e in root.iter() if e.get("class") == "label"}
    assert {"name", "title", "dice"} <= kinds
    # "Battlepod (target)" no longer sits on the scatter dice: its box keeps off the numbered discs.
    doc = _layout_doc(root, (1600, 1000))
    target = next(lab for lab in doc["labels"] if lab["id"] == "name:pod1")  # "Battlepod (target)"  # type: ignore[index]
    x, y, w, h = target["rect"]
    discs = [e for e in root.iter() if e.tag == f"{SVG}circle" and e.get("r") == "10"]
    assert discs
    for d in discs:
        cx, cy = float(d.get("cx")), float(d.get("cy"))
        assert not (x - 10 < cx < x + w + 10 and y - 10 < cy < y + h + 10), (cx, cy, target["rect"])


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_rulers_title_and_legend_match_the_png(path: Path) -> None:
    from tabletop.draw.plan import legend_rows, title_lines
    from tabletop.draw.scene import _scene

    adj = adjudicate(load(path))
    root = ET.fromstring(svg_document(adj, (1600, 1000)))
    rulers = next(e for e in root.iter() if e.get("id") == "tabletop.rulers")
    ticks = ["".join(t.itertext()) for t in rulers.iter(f"{SVG}text")]
    assert '0"' in ticks and f'{round(adj.scenario.table.width / 25.4)}"' in ticks
    scene = _scene(adj)
    rows, sides = legend_rows(scene)
    legend = next(e for e in root.iter() if e.get("id") == "tabletop.legend")
    entries = ["".join(t.itertext()) for t in legend.iter(f"{SVG}text") if t.get("class") == "legend-entry"]
    assert entries == [text for _, text, _ in rows + sides]
    title = next(e for e in root.iter() if e.get("id") == "tabletop.title")
    assert ["".join(t.itertext()) for t in title.iter(f"{SVG}text")] == list(title_lines(scene))


def test_the_png_draws_the_same_legend_and_title_text() -> None:
    """The PNG's legend and title panels are rendered from the same pure rows (``draw/plan.py``)."""
    import tabletop.draw.chrome as chrome
    import tabletop.draw.legend as legend
    from tabletop.draw.compose import _reset_caches
    from tabletop.draw.plan import legend_rows, title_lines
    from tabletop.draw.png import render_frame
    from tabletop.draw.scene import _scene

    adj = adjudicate(load(SCENARIOS / "robotech-scatter.toml"))
    seen: list[str] = []
    real_legend, real_chrome = legend._text, chrome._text

    def spy(text: str, *args: object, **kwargs: object) -> object:
        seen.append(text)
        return real_legend(text, *args, **kwargs)  # type: ignore[arg-type]

    _reset_caches()
    legend._text = chrome._text = spy  # type: ignore[assignment]
    try:
        render_frame(adj, (1600, 1000))
    finally:
        legend._text, chrome._text = real_legend, real_chrome
        _reset_caches()
    rows, sides = legend_rows(_scene(adj))
    for _, text, _ in rows + sides:
        assert text in seen
    assert all(line in seen for line in title_lines(_scene(adj)))


def test_label_priorities_are_the_pngs() -> None:
    from tabletop.draw import labels, marks, models
    from tabletop.draw import svg

    assert {k: v for k, v in labels.PRIORITY.items() if k in svg.PRIORITY} == svg.PRIORITY
    assert svg.BASE_PAD == labels.BASE_PAD and svg.FOCUS_PAD == labels.FOCUS_PAD
    assert svg.NAME_SIDES == models._NAME_SIDES and svg.NAME_MIN_PX == models.NAME_MIN_PX and svg.PREFER == marks._PREFER


def test_statuses_read_without_colour_as_in_the_png() -> None:
    """Affected bases carry a cross and bases in total cover hatching, as the PNG draws them."""
    from tabletop.adjudicate import adjudicate as _adjudicate
    from tabletop.scenario_io import load as _load

    root = ET.fromstring(svg_document(_adjudicate(_load(SCENARIOS / "default.toml")), (1600, 1000)))
    models = {e.get("id"): e for e in root.iter() if e.get("class") == "model"}
    def patterns(model_id: str) -> set[str]:
        return {p.get("class") for p in models[model_id].iter() if (p.get("class") or "").startswith("pattern")}
    assert patterns("sgt") == {"pattern affected"}
    assert patterns("b2") == {"pattern total-cover"}
    assert patterns("r4") == set()  # outside: plain
