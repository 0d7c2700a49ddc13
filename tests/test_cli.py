"""The command line: reports, exit codes, and no pygame on the check path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop import cli

from .conftest import ROOT, SCENARIOS

DEFAULT = SCENARIOS / "default.toml"


def test_check_json_follows_the_spec(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", str(DEFAULT), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["format"] == 1 and report["ruleset"] == "none" and report["units"] == "in"
    blast, flame = report["templates"]
    assert blast["id"] == "blast" and blast["shape"] == "circle" and blast["focus"] == [6.0, 9.0]
    assert blast["affected"] == ["edge", "r1", "r2", "sgt"]
    # Sergeant: 32 mm base centred on the focus: 16 - (0 - 63.5) = 79.5 mm.
    assert blast["models"]["sgt"] == {"status": "affected", "margin_mm": 79.5, "contested": False}
    # The contested trooper stands 75.6 mm from the focus: 12.5 - (75.6 - 63.5) = 0.4 mm.
    assert blast["models"]["edge"] == {"status": "affected", "margin_mm": 0.4, "contested": True}
    assert set(blast["models"]) == {"sgt", "r1", "r2", "edge", "r4", "gunner", "b1", "b2", "b3", "dread"}
    assert blast["allowed"] is True and blast["reason"] is None and isinstance(blast["resolution"], dict)
    assert flame["shape"] == "teardrop"
    assert flame["models"]["gunner"]["status"] == "user"
    assert flame["models"]["b2"]["status"] == "total_cover"
    assert flame["models"]["b3"]["status"] == "affected"  # half in the ruin's shadow
    assert flame["terrain_affected"] == ["ruin"]


def test_tolerance_changes_what_is_contested(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", str(DEFAULT), "--json", "--tolerance", "0.3"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["templates"][0]["models"]["edge"]["contested"] is False


def test_check_text_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", str(DEFAULT)]) == 0
    out = capsys.readouterr().out
    assert "Template blast" in out and "CONTESTED" in out and "total cover" in out


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.name)
def test_every_bundled_scenario_checks(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    import tomllib

    data = tomllib.loads(path.read_text())
    assert [t["id"] for t in report["templates"]] == [t["id"] for t in data.get("template", [])]
    assert {m for t in report["templates"] for m in t["models"]} <= {m["id"] for m in data.get("model", [])}


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["check"], 2),
        (["check", str(DEFAULT), "--tolerance", "lots"], 2),
        (["check", str(DEFAULT), "--bogus"], 2),
        (["render", str(DEFAULT)], 2),  # -o is required
        (["--help"], 0),
    ],
)
def test_exit_codes(argv: list[str], code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(argv) == code
    assert "Traceback" not in capsys.readouterr().err


def test_check_never_imports_pygame() -> None:
    code = (
        "import sys, contextlib, io, importlib, pkgutil, tabletop, tabletop.cli as c, tabletop.rulesets\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = c.main(['check', {str(DEFAULT)!r}, '--json'])\n"
        "assert rc == 0, rc\n"
        "for name in ['units', 'model', 'shapes', 'contact', 'placement', 'visibility', 'coverage', 'dice',\n"
        "             'resolution', 'adjudicate', 'report', 'catalogue', 'scenario_io', 'viewport',\n"
        "             'marks', 'panel', 'sideview', 'plugin']:\n"
        "    importlib.import_module('tabletop.' + name)\n"
        "for m in pkgutil.iter_modules(tabletop.rulesets.__path__):\n"
        "    importlib.import_module('tabletop.rulesets.' + m.name)\n"
        "print('pygame' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_console_script_runs_check() -> None:
    out = subprocess.run([sys.executable, "-m", "tabletop.cli", "check", str(DEFAULT)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Template flame" in out.stdout


def test_render_with_odds_and_free_rolls(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The odds picture labels pod1 with its exact dice-free chance, 13/24 = 54 %, and expected damage
    185/36 = 5.1 MD (the fractions `tabletop odds --json` reports), and draws the odds legend (its
    title colour); the same render without --odds has neither."""
    import pygame

    from tabletop.draw import odds as draw_odds

    labels: dict[str, list[str]] = {}
    real = draw_odds.model_label

    def recording(scenario, odds, model_id):  # type: ignore[no-untyped-def]
        labels[model_id] = real(scenario, odds, model_id)
        return labels[model_id]

    monkeypatch.setattr(draw_odds, "model_label", recording)
    out, plain = tmp_path / "odds.png", tmp_path / "plain.png"
    argv = ["render", str(SCENARIOS / "robotech-scatter.toml"), "--view", "action"]
    assert cli.main([*argv, "--odds", "--free-rolls", "-o", str(out)]) == 0
    assert labels["pod1"] == ["54% · 5.1 MD"]
    labels.clear()
    assert cli.main([*argv, "-o", str(plain)]) == 0
    assert labels == {}
    assert capsys.readouterr().out == f"wrote {out}\nwrote {plain}\n"

    def title_pixels(path: Path) -> int:
        a = pygame.surfarray.array3d(pygame.image.load(str(path)))
        assert a.shape == (1600, 1000, 3)  # the default --size
        return int(((a[..., 0] == 255) & (a[..., 1] == 214) & (a[..., 2] == 90)).sum())

    assert title_pixels(out) > 0 and title_pixels(plain) == 0


def test_odds_frees_every_die_by_default_as_the_app_does(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(SCENARIOS / "robotech-scatter.toml")
    assert cli.main(["odds", path, "--json", "--keep-fixed-rolls"]) == 0
    kept = json.loads(capsys.readouterr().out)
    assert kept["dice_free"] is False
    fixed = kept["templates"][0]["models"]["pod1"]
    assert fixed["p_affected"] in (0.0, 1.0) and fixed["exact"]
    assert cli.main(["odds", path, "--json"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert default["dice_free"] is True
    free = default["templates"][0]["models"]["pod1"]
    # Hit on D6 + GN 1 >= 5: 1/2; otherwise the scatter must leave it under the template:
    # 1/2 x 1/12 (a 2D6 of 2 moves 2", within the 2.5" radius plus its base) = 1/24. Total 13/24.
    assert free["fraction"] == "13/24"
    assert cli.main(["odds", path, "--json", "--free-rolls"]) == 0  # the old flag: the default now, still accepted
    assert json.loads(capsys.readouterr().out)["templates"][0]["models"]["pod1"]["fraction"] == "13/24"


def test_odds_text_says_which_dice_are_free_and_names_models_as_check_does(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(SCENARIOS / "robotech-scatter.toml")
    assert cli.main(["odds", path]) == 0
    out = capsys.readouterr().out
    assert "dice free: the rolls the file fixes are set aside too" in out
    assert "Officer's Pod (officer)" in out
    assert cli.main(["odds", path, "--keep-fixed-rolls"]) == 0
    assert "the rolls the file fixes are kept" in capsys.readouterr().out
