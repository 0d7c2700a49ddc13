"""The suite's own rules: no deadlines, derandomised CI, slow tests marked and still collected."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest
from hypothesis import settings

from .conftest import ROOT


def test_no_hypothesis_deadline_in_any_profile() -> None:
    # A deadline is a timing assertion: on a shared 2-core machine it fails for the wrong reason.
    assert settings.default.deadline is None
    for name in ("ci", "dev"):
        assert settings.get_profile(name).deadline is None


def test_ci_profile_replays_the_same_examples_every_run() -> None:
    ci = settings.get_profile("ci")
    assert ci.derandomize is True and ci.database is None and ci.print_blob is True


SLOW = {
    "tests/test_soak.py": "test_soak_20000_events_without_error_or_memory_growth",
    "tests/test_xvfb_app.py": None,  # the whole file (a module-level pytestmark)
    "tests/test_xvfb_trace.py": None,
    "tests/test_xvfb_present.py": None,
    "tests/test_xvfb_demo_menu.py": None,
    "tests/test_xvfb_window_manager.py": None,
    "tests/test_crash_recovery.py": "test_killed_app_offers_its_unsaved_work_back",
    "tests/test_no_data_lost.py": "test_a_save_killed_mid_write_leaves_a_whole_file",
    # one parameter: the real pip build of the example plug-in (the hand-written dist-info one stays fast)
    "tests/test_plugins.py": "test_example_plugin_runs_check_and_render_from_its_entry_point[pip]",
}


def _marked_slow(decorators: list[ast.expr]) -> bool:
    return any(ast.unparse(d) in ("pytest.mark.slow", "pytest.mark.slow()") for d in decorators)


def test_slow_tests_carry_the_marker_in_their_own_files() -> None:
    """The soak, the kill, the real-window and the build tests are marked slow where they are written
    (no list elsewhere), with a timeout of their own; `make test` skips them and CI runs them."""
    for path, name in SLOW.items():
        tree = ast.parse((ROOT / path).read_text())
        if name is None:
            marks = [n.value for n in tree.body if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in n.targets)]
            assert marks and "pytest.mark.slow" in ast.unparse(marks[0]), path
            continue
        if "[" in name:  # a pytest.param(..., id=..., marks=[...]) of that test
            func_name, param_id = name[:-1].split("[")
            [func] = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == func_name]
            params = [n for d in func.decorator_list for n in ast.walk(d) if isinstance(n, ast.Call) and ast.unparse(n.func) == "pytest.param"]
            [marks] = [k.value for p in params for k in p.keywords if k.arg == "marks" and any(
                i.arg == "id" and ast.literal_eval(i.value) == param_id for i in p.keywords)]
            items = marks.elts if isinstance(marks, ast.List | ast.Tuple) else [marks]
            assert _marked_slow(items), f"{path}::{name}"
            assert any(ast.unparse(m).startswith("pytest.mark.timeout(") for m in items), f"{path}::{name}"
            continue
        [func] = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name]
        assert _marked_slow(func.decorator_list), f"{path}::{name}"
        assert any(ast.unparse(d).startswith("pytest.mark.timeout(") for d in func.decorator_list), f"{path}::{name}"


def test_the_slow_tests_are_deselected_by_not_slow(pytestconfig: pytest.Config) -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--co", "-p", "no:cacheprovider", "-m", "slow", *SLOW],
        cwd=ROOT, capture_output=True, text=True, check=False,
    ).stdout
    for path, name in SLOW.items():
        assert (f"{path}::{name}" if name else path) in out, out


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
    assert equivalent_mutants([doc]) == {"tabletop.a.x_g__mutmut_1", "tabletop.a.x_g__mutmut_2"}


def test_cpu_tests_are_slow_tests_and_ci_runs_every_test_once() -> None:
    """A ``cpu`` mark never makes a test run in `make test` (every ``cpu`` test is ``slow``); `make test-all` (CI)
    selects no marker, so it runs every test once, in one run on every core whose file order xdist must not re-sort."""
    marked = 0
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                names = {ast.unparse(d) for d in node.decorator_list}
                if "pytest.mark.cpu" in names:
                    marked += 1
                    assert "pytest.mark.slow" in names, f"{path.name}::{node.name} is marked cpu but not slow"
    assert marked >= 10
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\ntest-all:", 1)[1].split("\n\n", 1)[0]
    runs = [line for line in recipe.splitlines() if "pytest" in line]
    assert len(runs) == 1 and ' -m "' not in runs[0], runs  # no marker expression: every test
    everyday = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    for run in (runs[0], everyday):
        assert "--dist loadfile --no-loadscope-reorder" in run, run


class _Item:
    """What the ordering hook reads of a collected test: its file and its marks."""

    def __init__(self, path: str, *marks: str) -> None:
        self.path, self.marks, self.name = path, set(marks), f"{path}::{len(marks)}"

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.marks else None


def test_the_run_starts_with_the_slow_files_then_the_photo_files_and_keeps_each_files_tests_in_order() -> None:
    """Worked order: the real-window file (a slow test, no cpu one) first, then the photo file (a cpu test), then the
    plain files by their number of tests (three before one); each file's tests stay together in written order."""
    from .conftest import pytest_collection_modifyitems

    items = [_Item("a_plain_one"), _Item("b_photo"), _Item("b_photo", "slow", "cpu"), _Item("c_plain_three"),
             _Item("c_plain_three"), _Item("d_window", "slow"), _Item("c_plain_three"), _Item("d_window")]
    written = list(items)
    pytest_collection_modifyitems(None, items)  # type: ignore[arg-type]
    assert [item.path for item in items] == ["d_window"] * 2 + ["b_photo"] * 2 + ["c_plain_three"] * 3 + ["a_plain_one"]
    for path in {item.path for item in items}:
        mine = [item for item in items if item.path == path]
        assert mine == [item for item in written if item.path == path]


def test_a_real_window_wait_ends_when_the_app_exits_and_shows_its_log(tmp_path: Path) -> None:
    """A real-window test waiting for a picture fails at once when the app has died, with its exit code and what it
    wrote, instead of retrying screenshots of a window that is gone until the deadline (minutes)."""
    import subprocess
    import sys
    import time

    from .xvfb import kill_group, popen_group, wait_until

    app = popen_group([sys.executable, "-c", "import sys; sys.stderr.write('Traceback: boom'); sys.exit(3)"],
                      log=tmp_path / "app.log", stdout=subprocess.DEVNULL)
    try:
        started = time.monotonic()
        with pytest.raises(pytest.fail.Exception) as failed:
            wait_until(lambda: False, "a picture", 600, app=app)
        assert time.monotonic() - started < 60
        assert "the app exited (3) while the test waited for a picture" in str(failed.value)
        assert "Traceback: boom" in str(failed.value)
    finally:
        kill_group(app)
