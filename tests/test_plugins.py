"""Rulesets as plug-ins: discovery through entry points, the example package, the public surface."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from tabletop import rulesets, scenario_io
from tabletop.adjudicate import adjudicate
from tabletop.app.elevation import elevation_profile, has_side_view
from tabletop.app.results import ruleset_lines

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "house-rules"
HOUSE_SCENARIO = EXAMPLE / "scenarios" / "friendly-fire.toml"
BUILT_INS = ("none", "infinity", "robotech", "wwpd", "increments", "catastrophic")


def _dist_info_install(tmp_path: Path) -> Path:
    """The example as pip leaves it, written by hand: its package and a dist-info naming its entry point.

    Fast and needs no build backend; importlib.metadata reads it exactly as an installed one.
    """
    site = tmp_path / "site"
    info = site / "tabletop_house_rules-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tabletop-house-rules\nVersion: 0.1.0\n", encoding="utf-8")
    # The entry points exactly as the example's pyproject.toml declares them.
    pyproject = (EXAMPLE / "pyproject.toml").read_text(encoding="utf-8")
    section = pyproject.split('[project.entry-points."tabletop.rulesets"]', 1)[1].split("\n[", 1)[0]
    lines = [ln.strip() for ln in section.splitlines() if "=" in ln and not ln.strip().startswith("#")]
    entries = "".join(ln.replace('"', "") + "\n" for ln in lines)
    (info / "entry_points.txt").write_text("[tabletop.rulesets]\n" + entries, encoding="utf-8")
    shutil.copytree(EXAMPLE / "house_rules", site / "house_rules")
    return site


def _pip_install(tmp_path: Path) -> Path:
    """A real ``pip install`` of the example package (its own pyproject.toml) into a target directory."""
    site = tmp_path / "site"
    source = tmp_path / "house-rules"  # a copy: the build leaves build/ and *.egg-info next to the sources
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    out = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-cache-dir", "--target", str(site), str(source)],
        capture_output=True, text=True, timeout=300,
    )
    if out.returncode != 0 and "setuptools" in out.stderr and ("No matching distribution" in out.stderr or "Could not find a version" in out.stderr):
        pytest.skip("no build backend reachable offline to build the example")
    assert out.returncode == 0, out.stderr
    assert (site / "tabletop_house_rules-0.1.0.dist-info" / "entry_points.txt").is_file()
    return site


# The real pip build is slow (an isolated setuptools build): CI runs it, `make test` keeps the dist-info one.
@pytest.mark.parametrize(
    "install",
    [
        pytest.param(_dist_info_install, id="dist-info"),
        pytest.param(_pip_install, id="pip", marks=[pytest.mark.slow, pytest.mark.timeout(300)]),
    ],
)
def test_example_plugin_runs_check_and_render_from_its_entry_point(install: Callable[[Path], Path], tmp_path: Path) -> None:
    site = install(tmp_path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    names = subprocess.run(
        [sys.executable, "-c", "from tabletop import rulesets; print(' '.join(rulesets.names()))"],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert names.returncode == 0, names.stderr
    assert names.stdout.split() == [*BUILT_INS, "house"]

    check = subprocess.run([sys.executable, "-m", "tabletop.cli", "check", str(HOUSE_SCENARIO)], env=env, capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr
    assert "ruleset house" in check.stdout
    assert "affected: e1, e2, pal" in check.stdout  # the friend in the blast is hit too
    assert "friendly fire on pal" in check.stdout

    out = tmp_path / "house.png"
    render = subprocess.run([sys.executable, "-m", "tabletop.cli", "render", str(HOUSE_SCENARIO), "-o", str(out)], env=env, capture_output=True, text=True, timeout=120)
    assert render.returncode == 0, render.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_the_plugin_its_scenario_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    check = subprocess.run([sys.executable, "-m", "tabletop.cli", "check", str(HOUSE_SCENARIO)], env=env, capture_output=True, text=True, timeout=120)
    assert check.returncode == 2
    assert "friendly-fire.toml:4: ruleset: unknown ruleset 'house'" in check.stderr
    assert "Traceback" not in check.stderr


@pytest.fixture
def house(monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    import house_rules

    monkeypatch.setitem(rulesets._REGISTERED, "house", house_rules.RULESET)
    monkeypatch.setitem(rulesets._LOADED, "house", house_rules.RULESET)
    return house_rules


def test_example_marks_and_panel_lines(house: object) -> None:
    adj = adjudicate(scenario_io.load(HOUSE_SCENARIO))
    (result,) = adj.results
    assert ruleset_lines(adj.scenario, result) == [("head", "3 hits: Enemy 1, Enemy 2, Pal"), ("warn", "friendly fire: Pal")]
    marks = rulesets.get("house").marks
    assert marks is not None
    drawn = marks(adj)
    assert drawn is not None
    assert sorted(t.text for t in drawn.tags) == ["1 hit"] * 3
    (badge,) = drawn.badges
    assert badge.lines[0][0] == "friendly fire!" and badge.anchor == adj.scenario.model("pal").centre
    assert not has_side_view("house")


@pytest.mark.parametrize(
    ("written", "suggestion"),
    [("infinty", "infinity"), ("Robotech", "robotech"), ("wwdp", "wwpd"), ("catastrophe", "catastrophic")],
)
def test_a_misspelt_ruleset_gets_the_nearest_name(written: str, suggestion: str) -> None:
    text = f'format = 1\nruleset = "{written}"\n[table]\nwidth = 24\ndepth = 24\n'
    with pytest.raises(scenario_io.ScenarioError) as err:
        scenario_io.loads(text, "typo.toml")
    assert str(err.value) == f"typo.toml:2: ruleset: unknown ruleset {written!r}: did you mean \"{suggestion}\"?"


def test_an_unrelated_name_lists_the_known_ones() -> None:
    with pytest.raises(scenario_io.ScenarioError) as err:
        scenario_io.loads('format = 1\nruleset = "zzzz"\n[table]\nwidth = 24\ndepth = 24\n', "x.toml")
    assert "known: 'none', 'infinity'" in str(err.value)


def test_built_ins_load_without_package_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    # Run from a source tree (no dist-info): no entry points at all, the built-ins still work.
    monkeypatch.setattr(rulesets, "_plugins", {})
    monkeypatch.setattr(rulesets, "_LOADED", {})
    assert rulesets.names() == BUILT_INS
    assert rulesets.get("infinity").side_view is not None
    with pytest.raises(rulesets.UnknownRuleset, match="did you mean \"infinity\""):
        rulesets.get("infinty")


def test_built_ins_are_registered_as_entry_points_too() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for name, target in rulesets.BUILT_IN.items():
        assert f'{name} = "{target}"' in pyproject
        loaded = EntryPoint(name, target, rulesets.GROUP).load()
        assert loaded is rulesets.get(name) and loaded.name == name


def test_a_broken_plugin_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rulesets, "_plugins", {"odd": EntryPoint("odd", "tabletop.model:Scenario", rulesets.GROUP)})
    with pytest.raises(rulesets.BadPlugin, match="'odd' is a type, not a tabletop.plugin.Ruleset"):
        rulesets.get("odd")


@pytest.mark.parametrize("name", BUILT_INS)
def test_each_built_in_documents_itself_and_answers_its_hooks(name: str) -> None:
    rs = rulesets.get(name)
    assert rs.doc_path is not None and rs.doc_path.read_text(encoding="utf-8").startswith("#")
    assert rs.doc_path.parent == ROOT / "tabletop" / "rulesets" / name
    assert has_side_view(name) == (name == "infinity")
    assert (rs.marks is None) == (name == "none") and (rs.panel_lines is None) == (name == "none")


def test_side_view_only_where_the_ruleset_has_one() -> None:
    adj = adjudicate(scenario_io.load(ROOT / "scenarios" / "robotech-hit.toml"))
    assert elevation_profile(adj.scenario, adj.results[0], adj.settings) is None
    adj = adjudicate(scenario_io.load(ROOT / "scenarios" / "infinity-hellcat.toml"))
    profile = elevation_profile(adj.scenario, adj.results[0], adj.settings)
    assert profile is not None and profile.troopers


def _tabletop_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
    return [m for m in out if m == "tabletop" or m.startswith("tabletop.")]


@pytest.mark.parametrize("folder", sorted(p for p in (ROOT / "tabletop" / "rulesets").iterdir() if p.is_dir() and (p / "__init__.py").exists()), ids=lambda p: p.name)
def test_ruleset_folders_import_only_the_plugin_surface(folder: Path) -> None:
    allowed = {"tabletop.plugin", f"tabletop.rulesets.{folder.name}"}
    for path in sorted(folder.glob("*.py")):
        for module in _tabletop_imports(path):
            assert module in allowed or module.startswith(f"tabletop.rulesets.{folder.name}."), f"{path.name} imports {module}"


def test_example_imports_only_the_plugin_surface() -> None:
    for path in EXAMPLE.rglob("*.py"):
        assert set(_tabletop_imports(path)) <= {"tabletop.plugin"}, path


def _pygame_importers(root: Path, skip: tuple[str, ...]) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(skip):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n == "pygame" or n.startswith("pygame.") or n.startswith("pygame_gui") for n in names):
                found.append(rel)
    return found


PAINTING = (
    "backdrop", "chrome", "compose", "labels", "legend", "marks", "models", "odds", "png", "primitives", "templates", "terrain", "text",
    "highlight", "slide", "animate",
)  # fmt: skip


def test_core_modules_never_import_pygame() -> None:
    # Everything but the shell (tabletop/app and the painting modules of tabletop/draw) is pure,
    # including the drawing pipeline's own first steps: style, scene preparation and label layout.
    shell = ("app/", *(f"draw/{name}.py" for name in PAINTING))
    assert _pygame_importers(ROOT / "tabletop", shell) == []
    assert {p.stem for p in (ROOT / "tabletop" / "draw").glob("*.py")} == {"__init__", "style", "scene", "frame", "plan", "svg", "svg_text", "svg_primitives", *PAINTING}


def test_the_pure_drawing_steps_load_without_pygame() -> None:
    code = "import sys, tabletop.draw, tabletop.draw.scene, tabletop.draw.frame, tabletop.draw.plan, tabletop.label_layout, tabletop.plugin; print('pygame' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_a_broken_plugin_in_a_scenario_is_a_clean_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rulesets, "_plugins", {"odd": EntryPoint("odd", "no_such_module_here:RULESET", rulesets.GROUP)})
    with pytest.raises(scenario_io.ScenarioError) as err:
        scenario_io.loads('format = 1\nruleset = "odd"\n[table]\nwidth = 24\ndepth = 24\n', "odd.toml")
    assert str(err.value).startswith("odd.toml:2: ruleset: ruleset plug-in 'odd' (no_such_module_here:RULESET) failed to load: No module named")


def test_no_module_outside_the_rulesets_names_a_ruleset() -> None:
    """Issue 13's grep: drawing, the app and the core know no ruleset by name (the registry is in rulesets/)."""
    import re

    package = Path(__file__).resolve().parent.parent / "tabletop"
    names = re.compile(r"robotech|infinity|wwpd|increments|catastrophic")
    found = [
        f"{path.relative_to(package)}:{n}: {line.strip()}"
        for path in sorted(package.rglob("*.py"))
        if "rulesets" not in path.relative_to(package).parts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if names.search(line)
    ]
    assert found == []
