"""``coverage.ModelTable``: the array-backed mapping of model id -> ModelCoverage."""

from __future__ import annotations

import numpy as np

from tabletop.coverage import ModelCoverage, ModelTable


def table() -> ModelTable:
    ids = ("a", "b", "c")
    return ModelTable(
        ids,
        {k: i for i, k in enumerate(ids)},
        np.array(["affected", "outside", "total_cover"], dtype=object),
        np.array([1.5, -2.0, 0.25]),
        np.array([False, False, True]),
    )


def test_reads_each_model_from_its_arrays() -> None:
    t = table()
    assert list(t) == ["a", "b", "c"] and len(t) == 3
    assert t["b"] == ModelCoverage("outside", -2.0, False)
    assert t["c"] == ModelCoverage("total_cover", 0.25, True)


def test_equal_to_a_dict_with_the_same_entries_only() -> None:
    t = table()
    same = {"a": ModelCoverage("affected", 1.5, False), "b": ModelCoverage("outside", -2.0, False), "c": ModelCoverage("total_cover", 0.25, True)}
    assert t == same and t == table()
    assert t != {**same, "b": ModelCoverage("affected", -2.0, False)}
    assert t != {"a": same["a"]}
    assert t != [("a", same["a"])]  # not a mapping
    assert repr(t) == f"ModelTable({same!r})"


def test_with_status_changes_only_the_named_models_and_copies() -> None:
    t = table()
    u = t.with_status(["b", "c"], "affected")
    assert [u[k].status for k in u] == ["affected", "affected", "affected"]
    assert (u["b"].margin_mm, u["c"].contested) == (-2.0, True)  # margins and contest unchanged
    assert [t[k].status for k in t] == ["affected", "outside", "total_cover"]  # the original is untouched
    assert t.with_status([], "outside") == t


def test_ids_with_a_status_in_table_order_for_any_mapping() -> None:
    from tabletop.coverage import Coverage
    from tabletop.model import PlacedTemplate, TemplateShape

    placed = PlacedTemplate("t", TemplateShape.circle(50.0), (0.0, 0.0), 0.0)
    plain = {"z": ModelCoverage("affected", 1.0, False), "y": ModelCoverage("outside", -1.0, False), "x": ModelCoverage("affected", 2.0, False)}
    for models in (plain, table()):
        cov = Coverage(placed, models)
        want = ("z", "x") if models is plain else ("a",)
        assert cov.ids_with("affected") == want
        assert cov.affected == tuple(sorted(want))
    assert Coverage(placed, plain).ids_with("outside") == ("y",)
    assert Coverage(placed, plain).ids_with("total_cover") == ()


def test_table_geometry_base_polygons_are_the_model_bases_made_once() -> None:
    from tabletop.coverage import table_geometry
    from tabletop.model import Base, Model, Scenario, Table
    from tabletop.shapes import base_polygon

    models = (Model("a", 10.0, 10.0, Base.round(25.0)), Model("b", 100.0, 50.0, Base("rect", 60.0, 30.0), facing=20.0))
    geom = table_geometry(Scenario(Table(600, 600), models))
    for i, m in enumerate(models):
        for outer in (False, True):
            poly = geom.base_polygon(i, 64, outer)
            assert poly.equals_exact(base_polygon(m, 64, outer), 0.0)
            assert geom.base_polygon(i, 64, outer) is poly  # cached
    assert not geom.base_polygon(0, 64, False).equals(geom.base_polygon(0, 64, True))
    assert not geom.base_polygon(0, 64, False).equals(geom.base_polygon(1, 64, False))
