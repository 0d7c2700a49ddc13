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
