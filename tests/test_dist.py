"""The standalone build (`make dist`): it starts without the project's venv.

Builds ``dist/tabletop/`` with PyInstaller (or reuses it when it is newer than every
source file), then runs the built executable with a bare environment from another
directory: ``check`` and ``render`` on a bundled table, and the window under Xvfb,
whose screenshot must show the table's felt where the table belongs.

The build tests skip without PyInstaller; the window test skips without Xvfb, xdotool, ImageMagick's
``import`` or ``xdpyinfo``, unless ``CI`` is set (CI installs them).
"""

from __future__ import annotations

import configparser
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pygame
import pytest

from .xvfb import popen_group, require, screenshot, stop

from tabletop import resources
from tabletop.draw import TABLE_FILL
from tabletop.scenario_io import load
from tabletop.viewport import Viewport

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("tabletop", "assets", "scenarios", "packaging", "pyproject.toml")
TOOLS = ("Xvfb", "xdotool", "import", "xdpyinfo")
WM_CLASS = "tabletop-dist-test"



def test_data_dir_is_beside_the_package_in_a_checkout() -> None:
    assert resources.data_dir("assets") == ROOT / "assets"
    assert resources.data_dir("scenarios") == ROOT / "scenarios"


def test_data_dir_falls_back_to_the_install_prefix_of_a_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A wheel (pipx install .) has no assets/ beside site-packages/tabletop; pyproject's data-files put it in <prefix>/share.
    prefix = tmp_path / "venv"
    (prefix / "share" / "tabletop" / "assets").mkdir(parents=True)
    monkeypatch.setattr(resources, "_BESIDE_PACKAGE", tmp_path / "site-packages")
    monkeypatch.setattr(sys, "prefix", str(prefix))
    monkeypatch.setattr(resources.site, "USER_BASE", str(tmp_path / "user"))
    assert resources.data_dir("assets") == prefix / "share" / "tabletop" / "assets"
    # Nowhere: the checkout's path, so the error names the file a developer expects.
    assert resources.data_dir("scenarios") == tmp_path / "site-packages" / "scenarios"
    (tmp_path / "user" / "share" / "tabletop" / "scenarios").mkdir(parents=True)
    assert resources.data_dir("scenarios") == tmp_path / "user" / "share" / "tabletop" / "scenarios"


def test_the_package_ships_a_desktop_entry_and_an_icon() -> None:
    share = ROOT / "tabletop" / "share"
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    entry.read(share / "tabletop.desktop", encoding="utf-8")
    desktop = entry["Desktop Entry"]
    assert desktop["Type"] == "Application" and desktop["Name"] == "Tabletop"
    assert desktop["Exec"].split()[0] == "tabletop" and desktop["Icon"] == "tabletop"
    assert desktop["Categories"].endswith(";")
    icon = pygame.image.load(str(share / "icon.png"))
    assert icon.get_size() == (256, 256)
    assert icon.get_at((128, 128))[3] == 255 and icon.get_at((0, 0))[3] == 0  # opaque mat, transparent corners
    assert (share / "icon.ico").read_bytes()[:4] == b"\x00\x00\x01\x00"  # ICO header


def _newest_source_mtime() -> float:
    newest = 0.0
    for name in SOURCES:
        path = ROOT / name
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
        newest = max([newest, *(p.stat().st_mtime for p in files)])
    return newest


@pytest.fixture(scope="module")
def app_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built one-folder app: ``dist/tabletop`` when fresh, else a new build in a temporary folder."""
    pytest.importorskip("PyInstaller")
    existing = ROOT / "dist" / "tabletop"
    exe = existing / "tabletop"
    if exe.is_file() and (existing / "tabletop.sh").is_file() and exe.stat().st_mtime > _newest_source_mtime():
        return existing
    out = tmp_path_factory.mktemp("dist")
    build = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build.py"), "--dist", str(out), "--work", str(out / "work")],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-4000:]
    return out / "tabletop"


def _bare_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment with no Python, no venv and no project on any path."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    env.update(extra)
    return env


def _run_built(app_dir: Path, args: list[str], home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(app_dir / "tabletop"), *args], env=_bare_env(home), cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_the_build_has_its_launcher_desktop_entry_and_data(app_dir: Path) -> None:
    internal = app_dir / "_internal"
    assert os.access(app_dir / "tabletop", os.X_OK) and os.access(app_dir / "tabletop.sh", os.X_OK)
    assert "Exec=tabletop" in (app_dir / "tabletop.desktop").read_text()
    assert (internal / "assets" / "templates.toml").read_bytes() == (ROOT / "assets" / "templates.toml").read_bytes()
    bundled = sorted(p.name for p in (internal / "scenarios").glob("*.toml"))
    assert bundled == sorted(p.name for p in (ROOT / "scenarios").glob("*.toml"))
    assert (internal / "pygame_gui" / "data" / "NotoSans-Regular.ttf").is_file()
    assert (internal / "pygame_gui" / "data" / "default_theme.json").is_file()


@pytest.mark.slow
def test_built_check_adjudicates_a_bundled_table_outside_the_venv(app_dir: Path, tmp_path: Path) -> None:
    result = _run_built(app_dir, ["check", "scenarios/default.toml"], tmp_path, cwd=app_dir)
    assert result.returncode == 0, result.stderr
    # The catalogue came from the bundle: the named shapes are sized.
    assert 'Template blast — large_blast: circle Ø 5.00"' in result.stdout
    assert "affected: edge, r1, r2, sgt" in result.stdout
    assert "Behind the wall (b2)  total cover" in result.stdout
    # Same answer from another directory, through the shell launcher, on the bundled copy.
    bundled = app_dir / "_internal" / "scenarios" / "default.toml"
    via_sh = subprocess.run([str(app_dir / "tabletop.sh"), "check", str(bundled)], env=_bare_env(tmp_path), cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert via_sh.returncode == 0 and via_sh.stdout == result.stdout


@pytest.mark.slow
def test_built_check_reports_bad_input_in_one_line(app_dir: Path, tmp_path: Path) -> None:
    result = _run_built(app_dir, ["check", "missing.toml"], tmp_path, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == "missing.toml: no such file"


@pytest.mark.slow
def test_built_render_draws_the_table(app_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "table.png"
    scenario = app_dir / "scenarios" / "infinity-hellcat.toml"
    result = _run_built(app_dir, ["render", str(scenario), "-o", str(out), "--size", "800x500"], tmp_path, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    pixels = pygame.surfarray.array3d(pygame.image.load(str(out)))
    assert pixels.shape[:2] == (800, 500)
    felt = np.abs(pixels.astype(int) - np.array(TABLE_FILL)).sum(axis=2) <= 12
    assert felt.mean() > 0.2, f"only {felt.mean():.1%} of the picture is table felt"


def _require_tools() -> None:
    require(TOOLS)


def _felt_fraction(png: Path, rect: tuple[int, int, int, int]) -> float:
    """Share of the pixels in ``rect`` (x0, y0, x1, y1) that are the table's felt colour."""
    pixels = pygame.surfarray.array3d(pygame.image.load(str(png))).astype(int)
    x0, y0, x1, y1 = rect
    region = pixels[x0:x1, y0:y1]
    if region.size == 0:
        return 0.0
    return float((np.abs(region - np.array(TABLE_FILL)).sum(axis=2) <= 12).mean())


@pytest.mark.slow
@pytest.mark.xvfb
def test_built_app_opens_its_window_on_the_default_table(app_dir: Path, tmp_path: Path) -> None:
    _require_tools()
    from tabletop.app.window import PANEL_W, STATUS_H, TOOLBAR_H

    display = f":{random.randint(260, 360)}"
    env = _bare_env(tmp_path, DISPLAY=display, SDL_AUDIODRIVER="dummy", SDL_VIDEO_X11_WMCLASS=WM_CLASS)
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1600x1000x24", "-nolisten", "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    app = None
    try:
        for _ in range(200):
            if subprocess.run(["xdpyinfo"], env=env, capture_output=True).returncode == 0:
                break
            time.sleep(0.05)
        else:
            pytest.fail("Xvfb did not start")
        app = popen_group([str(app_dir / "tabletop")], env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # SDL 2.32 windows do not match `xdotool search --name`: find ours by its class.
        found = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--class", WM_CLASS], env=env, capture_output=True, text=True, timeout=60)
        assert found.returncode == 0 and found.stdout.split(), f"no window; app exit {app.poll()}"
        wid = found.stdout.split()[0]
        geometry = subprocess.run(["xdotool", "getwindowgeometry", "--shell", wid], env=env, capture_output=True, text=True, check=True).stdout
        size = dict(line.split("=") for line in geometry.split())
        w, h = int(size["WIDTH"]), int(size["HEIGHT"])
        default = load(app_dir / "_internal" / "scenarios" / "default.toml")
        vp = Viewport.fit(default.table.width, default.table.depth, (0, TOOLBAR_H, w - PANEL_W, h - TOOLBAR_H - STATUS_H), margin_px=36)
        x0, y0 = (round(v) for v in vp.to_screen(0, default.table.depth))
        x1, y1 = (round(v) for v in vp.to_screen(default.table.width, 0))
        table = (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))

        shot = tmp_path / "window.png"
        fraction, grabbed = 0.0, False
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the first frames may still be black
            if not screenshot(wid, shot, env):
                time.sleep(0.1)
                continue  # a grab that hung or failed is asked for again, as in the other real-window tests
            grabbed = True
            fraction = _felt_fraction(shot, table)
            if fraction > 0.5:
                break
        assert grabbed, f"no screenshot of the window could be taken in 60 s; app exit {app.poll()}"
        if os.environ.get("TABLETOP_KEEP_SHOTS"):
            shutil.copy(shot, Path(os.environ["TABLETOP_KEEP_SHOTS"]) / "dist-window.png")
        assert fraction > 0.5, f"only {fraction:.1%} of the table area {table} is felt"
        # The felt stops at the table's edge: the margin left of the table is not felt.
        assert _felt_fraction(shot, (max(0, table[0] - 30), table[1], table[0] - 2, table[3])) < 0.05
        assert app.poll() is None, app.stderr.read().decode() if app.stderr else ""
    finally:
        stop(app, xvfb)  # the app with its process group, whatever happened
