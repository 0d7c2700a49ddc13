"""Found by a hostile review: no command writes over its own input, and bad outputs are bad input (exit 2)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tabletop import cli

from .conftest import SCENARIOS


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "d.toml"
    shutil.copy(SCENARIOS / "default.toml", path)
    return path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["render", "{t}", "-o", "{t}"],
        ["explain", "{t}", "-o", "{t}"],
        ["render", "{t}", "-o", "{d}/y.png", "--layout-json", "{d}/y.png"],
    ],
)
def test_an_output_that_is_the_input_is_refused_and_the_input_kept(
    argv: list[str], table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = table.read_bytes()
    code, err = _run([a.format(t=table, d=table.parent) for a in argv], capsys)
    # render refuses a .toml output by its extension before it gets that far; either way, one line.
    assert code == 2 and ("own input" in err or ".png or .svg" in err) and len(err.strip().splitlines()) == 1
    assert table.read_bytes() == before


def test_animate_over_its_input_is_refused(table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gif = tmp_path / "d.gif"
    shutil.copy(table, gif)  # an input that happens to carry the output's name
    before = gif.read_bytes()
    code, err = _run(["animate", str(gif), "-o", str(gif)], capsys)
    assert code == 2 and gif.read_bytes() == before


@pytest.mark.parametrize("name", ["x.gif", "x", "x.jpg", "x.png "])
def test_render_writes_png_or_svg_only(name: str, table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = table.parent / name
    code, err = _run(["render", str(table), "-o", str(out)], capsys)
    assert code == 2 and ".png or .svg" in err and not out.exists()


def test_layout_json_with_svg_is_refused_and_its_own_folder_is_named(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(["render", str(table), "-o", str(table.parent / "y.svg"), "--layout-json", str(table.parent / "l.json")], capsys)
    assert code == 2 and "--layout-json goes with a PNG" in err
    code, err = _run(["render", str(table), "-o", str(table.parent / "y.png"), "--layout-json", str(table.parent / "nosuch" / "l.json")], capsys)
    assert code == 2 and "nosuch" in err and "y.png" not in err


def test_animate_of_a_table_without_templates_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.toml"
    empty.write_text("format = 1\n[table]\nwidth = 24\ndepth = 18\n")
    code, err = _run(["animate", str(empty), "-o", str(tmp_path / "e.gif")], capsys)
    assert code == 2 and "no template" in err


@pytest.mark.parametrize("command", ["explain", "animate"])
def test_sharing_commands_check_seed_and_settings_like_check(command: str, table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    extra = ["-o", str(table.parent / "a.gif")] if command == "animate" else []
    assert _run([command, str(table), "--seed", "-1", *extra], capsys)[0] == 2
    code, err = _run([command, str(table), "--set", "nonsense=1", *extra], capsys)
    assert code == 2 and "nonsense" in err


def test_photo_never_writes_over_the_photo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo = tmp_path / "p.jpg"
    photo.write_bytes(b"not really a photo")
    code, err = _run(["photo", str(photo), "--table", "48x48in", "-o", str(photo)], capsys)
    assert code == 2 and "own input" in err and photo.read_bytes() == b"not really a photo"


def test_explain_never_prints_a_python_none(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("increments-cone", "increments-contained", "increments-wall"):
        assert cli.main(["explain", str(SCENARIOS / f"{name}.toml"), "--markdown"]) == 0
        assert "None" not in capsys.readouterr().out
