"""The suite's own rules: no deadlines, derandomised CI, slow tests marked and still collected."""

from __future__ import annotations

import ast
import tomllib

from hypothesis import settings

from .conftest import ROOT, SLOW_ELSEWHERE


def test_no_hypothesis_deadline_in_any_profile() -> None:
    # A deadline is a timing assertion: on a shared 2-core machine it fails for the wrong reason.
    assert settings.default.deadline is None
    for name in ("ci", "dev"):
        assert settings.get_profile(name).deadline is None


def test_ci_profile_replays_the_same_examples_every_run() -> None:
    ci = settings.get_profile("ci")
    assert ci.derandomize is True and ci.database is None and ci.print_blob is True


def test_slow_tests_named_elsewhere_exist() -> None:
    """Every node id in SLOW_ELSEWHERE names a test function that is really there."""
    for nodeid in SLOW_ELSEWHERE:
        path, name = nodeid.split("::")
        tree = ast.parse((ROOT / path).read_text())
        names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert name in names, nodeid


def test_pytest_config_has_a_timeout_and_the_slow_marker() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    ini = config["tool"]["pytest"]["ini_options"]
    assert ini["timeout"] == 120
    assert any(m.startswith("slow:") for m in ini["markers"])
    assert any(dep.startswith("pytest-timeout") for dep in config["project"]["optional-dependencies"]["test"])


def test_mutation_score_counts_each_way_and_leaves_out_listed_equivalents(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from .mutation_score import equivalent_mutants, score, tally

    (tmp_path / "tabletop").mkdir()
    codes = {"tabletop.contact.x_f__mutmut_1": 1, "tabletop.contact.x_f__mutmut_2": 0, "tabletop.contact.x_f__mutmut_3": 0,
             "tabletop.contact.x_f__mutmut_4": 33, "tabletop.contact.x_f__mutmut_5": None, "tabletop.contact.x_f__mutmut_6": 36}
    (tmp_path / "tabletop" / "contact.py.meta").write_text(json.dumps({"exit_code_by_key": codes}))
    c = tally(tmp_path, {"tabletop.contact.x_f__mutmut_3"})["tabletop.contact"]
    assert (c["killed"], c["survived"], c["equivalent"], c["no tests"], c["not checked"]) == (2, 1, 1, 1, 1)
    assert score(c) == 2 / 4
    doc = tmp_path / "testing.md"
    doc.write_text("- `tabletop.a.x_g__mutmut_1`, `tabletop.a.x_g__mutmut_2`: same `tabletop.a.x_g__mutmut_9`\nsee `tabletop.a.x_h__mutmut_3`\n")
    assert equivalent_mutants(doc) == {"tabletop.a.x_g__mutmut_1", "tabletop.a.x_g__mutmut_2"}
