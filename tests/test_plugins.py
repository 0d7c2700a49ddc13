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
        text = path.read_text(encoding="utf-8")
        if "pygame" not in text:
            continue  # nothing to find; mutmut's trampolined copies are large and slow to walk
        tree = ast.parse(text)
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n == "pygame" or n.startswith("pygame.") or n.startswith("pygame_gui") for n in names):
                found.append(rel)
    return found


PAINTING = (
    "backdrop", "chrome", "compose", "labels", "legend", "marks", "models", "odds", "png", "primitives", "templates", "terrain", "text",
    "highlight", "slide", "animate", "checks",
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


def test_a_broken_plugin_in_a_scenario_is_named_as_the_plugins_fault(monkeypatch: pytest.MonkeyPatch) -> None:
    # Not a problem of the file (exit 2) but of the installed plug-in (exit 1): the file may be right.
    monkeypatch.setattr(rulesets, "_plugins", {"odd": EntryPoint("odd", "no_such_module_here:RULESET", rulesets.GROUP)})
    with pytest.raises(rulesets.BadPlugin) as err:
        scenario_io.loads('format = 1\nruleset = "odd"\n[table]\nwidth = 24\ndepth = 24\n', "odd.toml")
    assert str(err.value).startswith("ruleset plug-in 'odd' (no_such_module_here:RULESET) failed to load: No module named")


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


# --------------------------------------------------------------------------- a plug-in's fault is named (issue 37.9)

_TABLE = 'format = 1\nruleset = "rogue"\n[table]\nwidth = 24\ndepth = 24\n[[model]]\nid = "a"\nx = 12\ny = 12\nbase = 1\n[[template]]\nid = "t"\nshape = { kind = "circle", diameter = 3 }\nat = [12, 12]\n'

#: Plug-in modules that misbehave: at import, or in resolve.
ROGUES = {
    "exit0-at-import": "import sys\nsys.exit(0)\n",
    "exit-msg-at-import": "import sys\nsys.exit('plug-in says bye')\n",
    "raises-in-resolve": "def resolve(ctx):\n    raise KeyError('md')\n",
    "exits-in-resolve": "import sys\ndef resolve(ctx):\n    sys.exit(0)\n",
    "returns-none": "def resolve(ctx):\n    return None\n",
    "returns-bad-affected": "from tabletop.plugin import Resolution\ndef resolve(ctx):\n    return Resolution(ctx.coverage, affected=(1, 2))\n",
    "validate-exits": "import sys\nfrom tabletop.plugin import Resolution\ndef resolve(ctx):\n    return Resolution(ctx.coverage, ())\ndef validate(s):\n    sys.exit(3)\n",
}
EXPECTED = {
    "exit0-at-import": "failed to load: it called sys.exit(0)",
    "exit-msg-at-import": "failed to load: it called sys.exit('plug-in says bye')",
    "raises-in-resolve": "failed in resolve: KeyError: 'md'",
    "exits-in-resolve": "failed in resolve: it called sys.exit(0)",
    "returns-none": "returned from resolve a NoneType, not a Resolution",
    "returns-bad-affected": "returned from resolve a Resolution whose affected is not a list of model ids: (1, 2)",
    "validate-exits": "failed in validate: it called sys.exit(3)",
}


def _rogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> Path:
    """A plug-in named ``rogue`` (module ``rogue_<kind>``) and a table that uses it."""
    module = f"rogue_{kind.replace('-', '_')}"
    body = ROGUES[kind]
    if "def resolve" in body:
        hooks = ", validate=validate" if "def validate" in body else ""
        body += f"from tabletop.plugin import Ruleset\nRULESET = Ruleset(name='rogue', title='Rogue', resolve=resolve{hooks})\n"
    (tmp_path / f"{module}.py").write_text(body, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(rulesets, "_plugins", {"rogue": EntryPoint("rogue", f"{module}:RULESET", rulesets.GROUP)})
    monkeypatch.setattr(rulesets, "_LOADED", {})
    table = tmp_path / "rogue.toml"
    table.write_text(_TABLE, encoding="utf-8")
    return table


@pytest.mark.parametrize("kind", sorted(ROGUES))
@pytest.mark.parametrize("command", ["check", "odds", "explain", "render"])
def test_a_misbehaving_plugin_is_named_and_exits_1(kind: str, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop import cli

    table = _rogue(tmp_path, monkeypatch, kind)
    module = f"rogue_{kind.replace('-', '_')}"
    argv = [command, str(table)] + (["-o", str(tmp_path / "out.png")] if command == "render" else [])
    assert cli.main(argv) == 1
    out = capsys.readouterr()
    assert out.err == f"tabletop: ruleset plug-in 'rogue' ({module}:RULESET) {EXPECTED[kind]}\n"
    assert out.out == "" and "internal error" not in out.err
    assert not (tmp_path / "out.png").exists()


def test_a_plugin_exiting_at_import_does_not_stop_other_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop import cli

    _rogue(tmp_path, monkeypatch, "exit0-at-import")
    assert cli.main(["check", str(ROOT / "scenarios" / "default.toml")]) == 0
    assert "ruleset none" in capsys.readouterr().out


def test_the_dice_own_errors_still_pass_through_a_guarded_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fixed roll out of range is the file's fault (bad input), not the plug-in's."""
    from tabletop.adjudicate import AdjudicationError

    body = "from tabletop.dice import DiceError\nfrom tabletop.plugin import Ruleset\ndef resolve(ctx):\n    raise DiceError('roll strike fixed at 9, a D6 has 1-6')\nRULESET = Ruleset(name='rogue', title='Rogue', resolve=resolve)\n"
    (tmp_path / "rogue_dice.py").write_text(body, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(rulesets, "_plugins", {"rogue": EntryPoint("rogue", "rogue_dice:RULESET", rulesets.GROUP)})
    monkeypatch.setattr(rulesets, "_LOADED", {})
    with pytest.raises(AdjudicationError, match="template 't': roll strike fixed at 9"):
        adjudicate(scenario_io.loads(_TABLE, "x.toml"))


def test_a_plugin_that_exits_at_import_in_a_real_process(tmp_path: Path) -> None:
    """The installed case, end to end: a dist-info entry point whose module calls sys.exit(0)."""
    site = tmp_path / "site"
    info = site / "rogue-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rogue\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[tabletop.rulesets]\nrogue = rogue_exit:RULESET\n", encoding="utf-8")
    (site / "rogue_exit.py").write_text("import sys\nsys.exit(0)\n", encoding="utf-8")
    table = tmp_path / "rogue.toml"
    table.write_text(_TABLE, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    out = subprocess.run([sys.executable, "-m", "tabletop.cli", "check", str(table)], env=env, capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr == "tabletop: ruleset plug-in 'rogue' (rogue_exit:RULESET) failed to load: it called sys.exit(0)\n"
