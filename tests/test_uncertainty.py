"""Uncertainty widens "contested": template size estimates (issue 15.3) and photo positions (17.4)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop import cli, scenario_io
from tabletop.adjudicate import adjudicate
from tabletop.catalogue import load_catalogue, read_catalogue
from tabletop.coverage import cover, is_contested, table_geometry
from tabletop.model import At, Backdrop, Base, Model, PlacedTemplate, Scenario, Table, Template, TemplateShape
from tabletop.report import margin_text, report_json, report_text

BLAST = TemplateShape.circle(76.2)  # small_blast: published, r = 38.1 mm
BASE = 25.0  # r = 12.5 mm: margin = 50.6 - distance of the centres


def _one(distance: float, sigma: float | None = None, shape: TemplateShape = BLAST, tolerance: float = 1.0) -> tuple[float, bool]:
    s = Scenario(Table(1000, 1000), (Model("m", 500 + distance, 500, Base.round(BASE), sigma=sigma),))
    c = cover(PlacedTemplate("t", shape, (500, 500), 0.0), table_geometry(s), tolerance_mm=tolerance)
    return c.models["m"].margin_mm, c.models["m"].contested


@pytest.mark.parametrize(
    ("distance", "sigma", "margin", "contested"),
    [
        (49.7, None, 0.9, True),  # within the 1 mm tolerance
        (49.4, None, 1.2, False),  # published template, no sigma: 1.2 > 1
        (49.4, 0.0, 1.2, False),
        (49.4, 0.2, 1.2, True),  # 1 + 2 * 0.2 = 1.4 >= 1.2
        (51.8, 0.2, -1.2, True),  # the same on the outside
        (51.8, 0.09, -1.2, False),  # 1 + 0.18 < 1.2
        (52.5, 0.5, -1.9, True),  # 1 + 1.0 = 2.0 >= 1.9
        (52.7, 0.5, -2.1, False),  # 2.1 > 2.0
    ],
)
def test_contested_band_worked(distance: float, sigma: float | None, margin: float, contested: bool) -> None:
    m, c = _one(distance, sigma)
    assert m == pytest.approx(margin, abs=1e-9)
    assert c is contested
    assert is_contested(margin, 1.0, 0.0, sigma) is contested


def test_an_approximate_teardrop_widens_by_its_uncertainty() -> None:
    entry = load_catalogue(include_user=False)["infinity_small_teardrop"]
    assert entry.approximate and entry.shape.size_uncertainty == pytest.approx(12.7)  # the note's ±0.5"
    measured = replace(entry.shape, size_uncertainty=0.0)
    # On the axis past the wide end: the far edge is 127 mm from the tip, so a 25 mm base
    # centred at 127 + 12.5 + 5 mm is 5 mm clear of it.
    margin, contested = _one(127 + 12.5 + 5, shape=entry.shape)
    assert margin == pytest.approx(-5.0, abs=1e-9) and contested  # 5 <= 1 + 12.7
    assert _one(127 + 12.5 + 5, shape=measured) == (pytest.approx(-5.0, abs=1e-9), False)
    assert _one(127 + 12.5 + 13.8, shape=entry.shape)[1] is False  # 13.8 > 13.7


def test_catalogue_uncertainties() -> None:
    entries = load_catalogue(include_user=False)
    for name, e in entries.items():
        if e.approximate:
            assert e.shape.size_uncertainty > 0, name
        else:
            assert e.shape.size_uncertainty == 0, name
    assert entries["small_blast"].shape.size_uncertainty == 0


def test_a_users_measured_template_removes_the_uncertainty(tmp_path: Path) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text('[templates.infinity_small_teardrop]\nkind = "teardrop"\nlength = "5.1in"\ntip_width = "0.4in"\nend_width = "1.8in"\n')
    entries = load_catalogue([mine], include_user=False, missing_ok=False)
    assert entries["infinity_small_teardrop"].shape.size_uncertainty == 0
    assert entries["infinity_small_teardrop"].shape.length == pytest.approx(129.54)
    # ...and one that states its own figure keeps it.
    mine.write_text('units = "mm"\n[templates.x]\nkind = "circle"\ndiameter = 80\nsize_uncertainty = 1.5\n')
    assert read_catalogue(mine)["x"].shape.size_uncertainty == 1.5
    mine.write_text('[templates.x]\nkind = "circle"\ndiameter = 3\nsize_uncertainty = "-1mm"\n')
    with pytest.raises(ValueError, match="templates.x.size_uncertainty: must not be negative"):
        read_catalogue(mine)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 200), st.floats(0, 200), st.floats(0, 3)), min_size=1, max_size=12),
    st.floats(0, 5), st.floats(0, 5), st.floats(0, 3), st.sampled_from(["circle", "teardrop"]),
)
def test_more_uncertainty_never_makes_fewer_contested(
    spots: list[tuple[float, float, float]], size_a: float, size_more: float, sigma_more: float, kind: str
) -> None:
    shape = BLAST if kind == "circle" else TemplateShape.teardrop(127, 10, 45)
    models = tuple(Model(f"m{i}", x, y, Base.round(BASE), sigma=s) for i, (x, y, s) in enumerate(spots))
    less = Scenario(Table(1000, 1000), models)
    more = replace(less, models=tuple(replace(m, sigma=(m.sigma or 0) + sigma_more) for m in models))
    placed_less = PlacedTemplate("t", replace(shape, size_uncertainty=size_a), (100, 100), 30.0)
    placed_more = PlacedTemplate("t", replace(shape, size_uncertainty=size_a + size_more), (100, 100), 30.0)
    a = cover(placed_less, table_geometry(less))
    b = cover(placed_more, table_geometry(more))
    for m in models:
        assert a.models[m.id].margin_mm == b.models[m.id].margin_mm
        if a.models[m.id].contested:
            assert b.models[m.id].contested


def _photo_scenario() -> Scenario:
    return Scenario(
        Table(1000, 1000),
        (Model("near", 500 + 49.4, 500, Base.round(BASE), sigma=0.2), Model("exact", 500 - 49.4, 500, Base.round(BASE))),
        templates=(Template("t", BLAST, At(500, 500)),),
        units="mm",
    )


def test_report_fields_and_plus_minus() -> None:
    adj = adjudicate(_photo_scenario())
    rep = report_json(adj)
    t = rep["templates"][0]
    assert t["size_uncertainty_mm"] == 0.0
    assert t["models"]["near"] == {"status": "affected", "margin_mm": 1.2, "contested": True, "sigma_mm": 0.2}
    assert t["models"]["exact"] == {"status": "affected", "margin_mm": 1.2, "contested": False}
    text = report_text(adj)
    assert "+1.200 ± 0.400" in text
    assert margin_text(0.4, 0.8, 1) == "+0.4 ± 0.8 mm" and margin_text(0.4, 0.0, 1) == "+0.4 mm"


def test_rulesets_that_build_their_own_coverage_are_widened() -> None:
    # wwpd judges a volley itself with the tolerance alone; the adjudicator widens its flags.
    s = replace(_photo_scenario(), ruleset="wwpd", templates=(Template("t", BLAST, At(500, 500), weapon={}),))
    adj = adjudicate(s)
    assert adj.results[0].resolution.coverage.models["near"].contested
    assert not adj.results[0].resolution.coverage.models["exact"].contested


SIGMA_FILE = """format = 1
units = "mm"
[table]
width = 1000
depth = 800
[backdrop]
image = "photos/table.jpg"
corners = [[10.5, 900], [1200, 910], [1180, 20], [30, 15.25]]
[[model]]
id = "b1"
x = 100
y = 200
base = 32
sigma = 0.25
[[template]]
id = "t"
shape = {kind = "circle", diameter = 76.2, size_uncertainty = 2}
at = [100, 200]
"""


def test_sigma_backdrop_and_shape_uncertainty_round_trip(tmp_path: Path) -> None:
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "table.jpg").write_bytes(b"not read by the loader")
    path = tmp_path / "t.toml"
    path.write_text(SIGMA_FILE)
    s, warnings = scenario_io.load_with_warnings(path)
    assert warnings == []
    assert s.models[0].sigma == 0.25
    assert s.templates[0].shape is not None and s.templates[0].shape.size_uncertainty == 2.0
    assert s.backdrop == Backdrop("photos/table.jpg", ((10.5, 900.0), (1200.0, 910.0), (1180.0, 20.0), (30.0, 15.25)))
    assert scenario_io.backdrop_path(s.backdrop, path) == tmp_path / "photos" / "table.jpg"
    out = tmp_path / "again.toml"
    scenario_io.save(s, out)
    assert scenario_io.load(out) == s
    assert 'image = "photos/table.jpg"' in out.read_text()
    # Saved elsewhere, the path is made relative to the new file.
    (tmp_path / "sub").mkdir()
    moved = scenario_io.rebase_backdrop(s, path, tmp_path / "sub" / "t.toml")
    assert moved.backdrop is not None and moved.backdrop.image == "../photos/table.jpg"


def test_backdrop_is_ignored_by_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.toml"
    path.write_text(SIGMA_FILE)
    assert cli.main(["check", "--json", str(path)]) == 0
    out = capsys.readouterr()
    rep = json.loads(out.out)
    assert "backdrop" not in json.dumps(rep)
    assert rep["templates"][0]["size_uncertainty_mm"] == 2.0
    assert rep["templates"][0]["models"]["b1"]["sigma_mm"] == 0.25
    assert "photos/table.jpg" in out.err and "not found" in out.err  # a warning, not an error


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (("sigma = 0.25", "sigma = -1"), "model[0].sigma: must not be negative"),
        (("sigma = 0.25", 'sigma = "200cm"'), "model[0].sigma: a position uncertainty must be at most"),
        (("sigma = 0.25", 'sigma = "x"'), "model[0].sigma"),
        (("[30, 15.25]]", "]"), "backdrop.corners: must be 4 image points"),
        (("[30, 15.25]", "[30, nan]"), "backdrop.corners[3]: must be finite"),
        (("[30, 15.25]", '[30, "a"]'), "backdrop.corners[3]: must be a number"),
        (('image = "photos/table.jpg"', "image = 3"), "backdrop.image: must be text"),
        (('image = "photos/table.jpg"', 'image = " "'), "backdrop.image: must name an image file"),
        (('image = "photos/table.jpg"\n', ""), "backdrop.image: is required"),
        (("size_uncertainty = 2", "size_uncertainty = -2"), "template[0].shape.size_uncertainty: must not be negative"),
    ],
)
def test_bad_sigma_and_backdrop_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], change: tuple[str, str], needle: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(SIGMA_FILE.replace(*change))
    assert cli.main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert needle in err, err
    assert "Traceback" not in err
