"""Build the standalone app: ``dist/tabletop/`` (one folder) with its launcher.

Usage: ``python packaging/build.py [--dist DIR] [--work DIR]`` from any directory;
``make dist`` runs it with the project's venv. Needs PyInstaller (``pip install '.[dist]'``).
Prints the build time and the size of the folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "packaging" / "tabletop.spec"
NAME = "tabletop"

LAUNCHER_SH = """\
#!/bin/sh
# Start Tabletop from this folder, wherever it was unpacked or linked from.
here="$(dirname "$(readlink -f "$0")")"
exec "$here/tabletop" "$@"
"""


def folder_size(path: Path) -> int:
    """Bytes in every file under ``path``."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def build(dist: Path, work: Path) -> Path:
    """Run PyInstaller on the spec and add the launcher files; returns the app folder."""
    cmd = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
           "--distpath", str(dist), "--workpath", str(work), str(SPEC)]
    subprocess.run(cmd, check=True, cwd=ROOT)
    app = dist / NAME
    sh = app / "tabletop.sh"
    sh.write_text(LAUNCHER_SH)
    sh.chmod(sh.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    shutil.copy2(ROOT / "tabletop" / "share" / "tabletop.desktop", app / "tabletop.desktop")
    shutil.copy2(ROOT / "tabletop" / "share" / "icon.png", app / "tabletop.png")
    shutil.copy2(ROOT / "packaging" / "install-desktop.sh", app / "install-desktop.sh")
    # The demo tables next to the executable too, where a user looks for them:
    # `cd dist/tabletop && ./tabletop check scenarios/default.toml`.
    shutil.copytree(ROOT / "scenarios", app / "scenarios", dirs_exist_ok=True)
    return app


def main(argv: list[str] | None = None) -> int:
    """Command line of the build helper."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder (default: dist/)")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "pyinstaller", help="PyInstaller's work folder")
    args = parser.parse_args(argv)
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        print("build: PyInstaller is not installed; run `pip install '.[dist]'` (or `make dist`)", file=sys.stderr)
        return 2
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    t0 = time.perf_counter()
    app = build(args.dist.resolve(), args.work.resolve())
    seconds = time.perf_counter() - t0
    print(f"built {app} in {seconds:.0f} s, {folder_size(app) / 1e6:.0f} MB; run {app / 'tabletop'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
