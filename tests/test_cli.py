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


# --------------------------------------------------------------------------- messages of the command line (issue 33)


@pytest.mark.parametrize(("typed", "meant"), [("chek", "check"), ("rendr", "render"), ("Odds", "odds"), ("explian", "explain")])
@pytest.mark.parametrize("with_file", [True, False])
def test_a_misspelt_command_gets_a_did_you_mean(typed: str, meant: str, with_file: bool, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no file named like the typo here
    monkeypatch.setattr(cli, "run_app", lambda path: pytest.fail(f"opened the app on {path!r}"))
    assert cli.main([typed, str(DEFAULT)] if with_file else [typed]) == 2
    err = capsys.readouterr().err
    assert f"tabletop: error: unknown command {typed!r}; did you mean {meant!r}? try `tabletop --help`" in err


def test_a_file_named_like_a_command_opens_in_the_app(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chek").write_text("format = 1\n")
    opened: list[str | None] = []
    monkeypatch.setattr(cli, "run_app", lambda path: opened.append(path) or 0)
    assert cli.main(["chek"]) == 0 and cli.main(["table.toml"]) == 0
    assert opened == ["chek", "table.toml"]


def test_a_table_in_mm_reports_its_templates_in_mm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mm.toml"
    path.write_text(
        'format = 1\nunits = "mm"\n[table]\nwidth = 600\ndepth = 600\n[[model]]\nid = "a"\nx = 100\ny = 100\nbase = 25\n'
        '[[template]]\nid = "t"\nshape = { kind = "circle", diameter = 40 }\nat = [100, 100]\n'
        '[[template]]\nid = "u"\nshape = { kind = "teardrop", length = 200, tip_width = 10, end_width = 60 }\nat = [100, 100]\n',
        encoding="utf-8",
    )
    assert cli.main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Template t — circle Ø 40.00 mm, focus (100, 100) mm" in out
    assert "Template u — teardrop 200.00 mm long, ends 10.00 mm/60.00 mm, focus (100, 100) mm" in out
    assert '"' not in out


def test_the_text_table_never_cuts_a_cell(capsys: pytest.CaptureFixture[str]) -> None:
    # Infinity's details are longer than the column: every one is printed whole, the column wraps.
    assert cli.main(["check", str(SCENARIOS / "infinity-hellcat.toml")]) == 0
    out = capsys.readouterr().out
    assert "…" not in out
    rows = out.split("Template shot1")[1].split("affected:")[0]
    for detail in ("dodge PH-3", "can_shoot_back False", "dodge_target 7", "change_facing PH-3"):
        assert detail in rows
    lines = rows.splitlines()
    start = next(i for i, line in enumerate(lines) if "Fusilier 2 (fus2)" in line)
    column = lines[start].index("dodge PH-3")
    assert lines[start + 1][:column].strip() == "" and lines[start + 1][column:].startswith("dodge_target 7")


def test_a_table_without_templates_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.toml"
    path.write_text('format = 1\ntitle = "Setup"\n[table]\nwidth = 24\ndepth = 24\n', encoding="utf-8")
    assert cli.main(["check", str(path)]) == 0
    assert capsys.readouterr().out == (
        "Setup — ruleset none, seed 1, tolerance 1 mm\n\nNo templates on this table: nothing to adjudicate (add a [[template]] to the file).\n"
    )


def test_photo_of_a_degenerate_image_prints_no_numpy_warnings(tmp_path: Path) -> None:
    """A 20000x64 photo: numpy warned of empty slices with its source paths; the user gets one line."""
    import numpy as np
    from PIL import Image

    image = tmp_path / "strip.png"
    Image.fromarray(np.full((64, 20000, 3), 128, np.uint8)).save(image)
    out = subprocess.run([sys.executable, "-m", "tabletop.cli", "photo", str(image), "--table", "48x48in"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "Warning" not in out.stderr and ".py:" not in out.stderr
    assert out.stderr.startswith("tabletop photo: error: ") and out.stderr.count("\n") == 1


def test_a_sys_exit_from_outside_tabletop_is_named_and_ours_keeps_its_status(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """After parsing, a SystemExit is not argparse's: from foreign code (a plug-in hook no guard
    covers) it is named and exits 1 instead of passing for a clean exit 0; from our own code it stands."""
    (tmp_path / "foreign_exit.py").write_text("import sys\ndef leave(*args, **kwargs):\n    sys.exit(0)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import foreign_exit

    monkeypatch.setattr(cli, "run_check", foreign_exit.leave)
    assert cli.main(["check", str(DEFAULT)]) == 1
    err = capsys.readouterr().err
    assert err == f"tabletop: stopped by sys.exit(0) in {tmp_path / 'foreign_exit.py'}:3, code that is not Tabletop's (a plug-in?)\n"

    # Tabletop's own code raising SystemExit (here: its parser's error) keeps its status.
    monkeypatch.setattr(cli, "run_check", cli._Parser(prog="tabletop").error)
    assert cli.main(["check", str(DEFAULT)]) == 2
    assert "stopped by" not in capsys.readouterr().err
