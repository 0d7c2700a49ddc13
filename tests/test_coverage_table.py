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
