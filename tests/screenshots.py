"""The README's pictures, made by one command: ``make screenshots`` (``python -m tests.screenshots``).

The app's pictures come from the real app in a window of a private Xvfb server, driven with
xdotool as a user drives it (clicks, drags, keys, typing); where each widget and base is comes
from the same app run headless at the window's size. The others come from the command line
(``render``, ``animate``). ``tests/test_xvfb_screenshots.py`` makes every picture again and
fails when one no longer matches the one in ``docs/images`` (:func:`differs`, a tolerant
comparison: font antialiasing and the status bar's timings do not count, a moved panel does).

    python -m tests.screenshots                 # all of them, into docs/images
    python -m tests.screenshots app.png --out /tmp/shots
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
SCENARIOS = ROOT / "scenarios"
APP_SIZE = (1280, 800)
IN = 25.4


# --------------------------------------------------------------------------- a real window


def _start_xvfb(screen: str = "1600x1000x24") -> tuple[subprocess.Popen[bytes], str]:
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", screen, "-nolisten", "tcp", "-noreset"],
                            pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    data = b""
    end = time.monotonic() + 30
    while not data.endswith(b"\n"):
        if time.monotonic() > end or xvfb.poll() is not None:
            xvfb.kill()
            raise RuntimeError("Xvfb did not start")
        chunk = os.read(read_fd, 16)
        if not chunk:
            break
        data += chunk
    os.close(read_fd)
    return xvfb, f":{int(data.strip())}"


def _stop(*processes: subprocess.Popen[bytes] | None) -> None:
    for p in processes:
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)


@dataclass
class Window:
    """The app's window on a private display: xdotool and a screenshot by its id."""

    wid: str
    env: dict[str, str]
    process: subprocess.Popen[bytes]

    def xdo(self, *args: str) -> None:
        subprocess.run(["xdotool", *args], env=self.env, check=True, capture_output=True, timeout=60)

    def click(self, pos: tuple[float, float], modifier: str | None = None) -> None:
        x, y = (str(round(v)) for v in pos)
        down = ["keydown", modifier] if modifier else []
        up = ["keyup", modifier] if modifier else []
        self.xdo("mousemove", "--window", self.wid, x, y, "sleep", "0.2", *down, "click", "1", *up, "sleep", "0.3")

    def move(self, pos: tuple[float, float]) -> None:
        self.xdo("mousemove", "--window", self.wid, str(round(pos[0])), str(round(pos[1])), "sleep", "0.3")

    def drag(self, start: tuple[float, float], end: tuple[float, float], steps: int = 12) -> None:
        moves: list[str] = []
        for i in range(1, steps + 1):
            x = start[0] + (end[0] - start[0]) * i / steps
            y = start[1] + (end[1] - start[1]) * i / steps
            moves += ["mousemove", "--window", self.wid, str(round(x)), str(round(y)), "sleep", "0.04"]
        self.xdo("mousemove", "--window", self.wid, str(round(start[0])), str(round(start[1])), "sleep", "0.2",
                 "mousedown", "1", "sleep", "0.1", *moves, "sleep", "0.2", "mouseup", "1", "sleep", "0.3")

    def key(self, *names: str) -> None:
        self.xdo("windowfocus", "--sync", self.wid)
        self.xdo("key", "--window", self.wid, "--delay", "120", *names)
        time.sleep(0.3)

    def type(self, text: str) -> None:
        self.xdo("windowfocus", "--sync", self.wid)
        self.xdo("type", "--window", self.wid, "--delay", "40", text)
        time.sleep(0.3)

    def grab(self, png: Path) -> bool:
        try:
            subprocess.run(["import", "-silent", "-window", self.wid, str(png)], env=self.env, check=True, capture_output=True, timeout=20)
        except (subprocess.TimeoutExpired, subprocess.CalledProcessError):
            return False
        return png.exists()

    def settled_shot(self, out: Path, timeout: float = 60.0) -> None:
        """Screenshots until two in a row are alike (the app has stopped drawing), the last kept as ``out``."""
        end = time.monotonic() + timeout
        previous: Any = None
        time.sleep(0.8)
        with tempfile.TemporaryDirectory() as tmp:
            shot = Path(tmp) / "shot.png"
            while time.monotonic() < end:
                if self.grab(shot):
                    pixels = _pixels(shot)
                    if previous is not None and pixels.shape == previous.shape and (pixels != previous).mean() < 1e-4:
                        out.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copy(shot, out)
                        return
                    previous = pixels
                time.sleep(0.5)
        raise RuntimeError(f"{out.name}: the window never settled")


@contextmanager
def real_window(command: list[str], home: Path, screen: str = "1600x1000x24") -> Iterator[Window]:
    """``command`` (a Python program) showing a window on a private Xvfb; both ended on leaving."""
    xvfb, display = _start_xvfb(screen)
    env = dict(os.environ)
    env.update(DISPLAY=display, SDL_VIDEODRIVER="x11", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1",
               XDG_STATE_HOME=str(home / "state"), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
               TABLETOP_UI_SCALE="1", PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    app = None
    try:
        app = subprocess.Popen([sys.executable, *command], env=env, cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        end = time.monotonic() + 60
        wid = ""
        while not wid:
            if app.poll() is not None:
                raise RuntimeError(f"the app exited: {app.stderr.read().decode() if app.stderr else ''}")
            if time.monotonic() > end:
                raise RuntimeError("the app's window never appeared")
            found = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(app.pid)], env=env, capture_output=True, text=True)
            wid = found.stdout.split()[0] if found.returncode == 0 and found.stdout.split() else ""
            time.sleep(0.2)
        window = Window(wid, env, app)
        window.settled_shot(home / "first.png")  # up and drawn
        yield window
    finally:
        _stop(app, xvfb)


def app_command(scenario: Path, size: tuple[int, int] = APP_SIZE) -> list[str]:
    """The desktop app's own loop (``tabletop FILE``) in a window of ``size``."""
    return ["-c", f"import sys; from tabletop.app.window import run; sys.exit(run({str(scenario)!r}, {size!r}))"]


def pilot(scenario: Path | Any, size: tuple[int, int] = APP_SIZE) -> Any:
    """The same app headless at the window's size: where things are on the screen."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ["TABLETOP_UI_SCALE"] = "1"
    from tabletop.app.pilot import Pilot

    return Pilot(scenario, size)


def _pixels(png: Path) -> Any:
    import numpy as np
    from PIL import Image

    with Image.open(png) as im:
        return np.asarray(im.convert("RGB"), dtype=np.int16)


# --------------------------------------------------------------------------- the pictures


def shot_app(out: Path, work: Path) -> None:
    """The app on the default table: the sergeant selected (panel and loupe), a hover tooltip."""
    scenario = SCENARIOS / "default.toml"
    p = pilot(scenario)
    try:
        sergeant = p.screen_of(p.app.scenario.model("sgt").centre)
        contested = p.screen_of(p.app.scenario.model("edge").centre)
    finally:
        p.close()
    with real_window(app_command(scenario), work) as w:
        w.click(sergeant)
        w.move(contested)
        w.settled_shot(out)


def shot_app_drag(out: Path, work: Path) -> None:
    """The sergeant dragged out of the blast: the hover margins and the loupe."""
    scenario = SCENARIOS / "default.toml"
    p = pilot(scenario)
    try:
        sergeant = p.screen_of(p.app.scenario.model("sgt").centre)
        away = p.screen_of((2.7 * IN, 12.1 * IN))
    finally:
        p.close()
    with real_window(app_command(scenario), work) as w:
        w.drag(sergeant, away)
        w.settled_shot(out)


def shot_app_build(out: Path, work: Path) -> None:
    """Building a table: a ruler pinned to an oval base, a placement typed in the side panel, a piece traced."""
    scenario = SCENARIOS / "default.toml"
    p = pilot(scenario)
    try:
        s = p.app.scenario
        trooper4, walker, trooper2 = (p.screen_of(s.model(i).centre) for i in ("r4", "dread", "r2"))
        corners = [p.screen_of((x * IN, y * IN)) for x, y in ((7, 15), (10, 15), (11, 17))]
        from tabletop.app.state import Ref, Select

        p.app.dispatch(Select(Ref("model", "r2")))
        p.step()
        place = p.app._fields["place"].rect.center
        trace = p.app.tool_buttons["draw_terrain"].rect.center
    finally:
        p.close()
    with real_window(app_command(scenario), work) as w:
        w.click(trooper4)
        w.click(walker, "shift")
        w.key("p")
        w.click(trooper2)
        w.click(place)
        w.type('3.2" from Trooper 1, edge to edge, at 40')
        w.click(trace)
        for c in corners:
            w.click(c)
        w.move((corners[-1][0] + 60, corners[-1][1] + 40))
        w.settled_shot(out)


def shot_photo_import(out: Path, work: Path) -> None:
    """A synthetic photo read by ``tabletop photo``, opened in the app: a base contested by its ±."""
    import cv2

    from tabletop import scenario_io
    from tabletop.cli import main as cli
    from tabletop.model import At, Template
    from tabletop.catalogue import default_catalogue
    from tabletop.photo.synth import synth_photo

    photo = synth_photo(3, size=(2400, 1800), n_bases=14)
    image = work / "table.jpg"
    cv2.imwrite(str(image), photo.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    table = work / "table.toml"
    with open(os.devnull, "w") as quiet:
        stdout, sys.stdout = sys.stdout, quiet
        try:
            assert cli(["photo", str(image), "--table", "48x48in", "-o", str(table)]) == 0
        finally:
            sys.stdout = stdout
    s = scenario_io.load(table)
    from dataclasses import replace

    import math

    small = [m for m in s.models if m.base.length <= 40] or list(s.models)
    base = min(small, key=lambda m: math.hypot(m.x - 0.5 * s.table.width, m.y - 0.45 * s.table.depth))
    blast = default_catalogue()["large_blast"]
    radius = blast.shape.diameter / 2  # type: ignore[union-attr]
    # the template's edge 0.5 mm over the base's: inside, but by less than the photo's ±
    at = (base.x + radius + base.base.length / 2 - 0.5, base.y)
    s = replace(s, title="From a photo", templates=(Template("blast", blast.shape, At(at[0], at[1], 0.0), shape_name="large_blast"),))
    scenario_io.save(s, table)
    p = pilot(table)
    try:
        target = p.screen_of(base.centre)
    finally:
        p.close()
    with real_window(app_command(table), work) as w:
        w.click(target)
        w.settled_shot(out)


def shot_presenter(out: Path, work: Path) -> None:
    """``tabletop present`` on a chain reaction, at step 3 of 5."""
    command = ["-m", "tabletop.cli", "present", str(SCENARIOS / "catastrophic-chain.toml"), "--window", "1280x720"]
    with real_window(command, work) as w:
        w.key("Right", "Right")
        w.settled_shot(out)


def _cli(args: list[str]) -> None:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([sys.executable, "-m", "tabletop.cli", *args], env=env, cwd=ROOT, check=True, capture_output=True, timeout=600)


def shot_default(out: Path, work: Path) -> None:
    _cli(["render", str(SCENARIOS / "default.toml"), "-o", str(out)])


def shot_odds(out: Path, work: Path) -> None:
    _cli(["render", str(SCENARIOS / "robotech-scatter.toml"), "--odds", "--view", "action", "-o", str(out)])


def shot_fire(out: Path, work: Path) -> None:
    _cli(["animate", str(SCENARIOS / "robotech-scatter.toml"), "-o", str(out)])


#: Every README picture and what makes it; ``window``: it needs Xvfb and xdotool.
@dataclass(frozen=True)
class Shot:
    make: Callable[[Path, Path], None]
    window: bool


SHOTS: dict[str, Shot] = {
    "default.png": Shot(shot_default, False),
    "app.png": Shot(shot_app, True),
    "app-drag.png": Shot(shot_app_drag, True),
    "app-build.png": Shot(shot_app_build, True),
    "presenter.png": Shot(shot_presenter, True),
    "fire.gif": Shot(shot_fire, False),
    "photo-import.png": Shot(shot_photo_import, True),
    "odds.png": Shot(shot_odds, False),
}


def make(name: str, out_dir: Path) -> Path:
    """Make the picture ``name`` into ``out_dir``; its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / name
    with tempfile.TemporaryDirectory(prefix="tabletop-shot-") as tmp:
        made = Path(tmp) / name
        SHOTS[name].make(made, Path(tmp))
        shutil.move(str(made), out)
    return out


# --------------------------------------------------------------------------- comparing pictures


def frames(path: Path) -> list[Any]:
    """The picture's frames (one for a PNG), RGB arrays."""
    import numpy as np
    from PIL import Image, ImageSequence

    with Image.open(path) as im:
        return [np.asarray(f.convert("RGB"), dtype=np.int16) for f in ImageSequence.Iterator(im)]


def differs(a: Path, b: Path, cell: int = 4, level: int = 48, share: float = 0.01) -> str | None:
    """Why picture ``b`` is not picture ``a``; None when they match.

    They match when they have the same size and frame count, and at most ``share`` of the
    ``cell``×``cell`` blocks differ by more than ``level`` (of 255) in their mean colour: block
    means smooth out font antialiasing and a changed digit in the status bar, while a moved
    panel, a new toolbar button or another layout changes far more blocks."""
    import numpy as np

    fa, fb = frames(a), frames(b)
    if len(fa) != len(fb):
        return f"{len(fb)} frames, not {len(fa)}"
    for i, (x, y) in enumerate(zip(fa, fb)):
        if x.shape != y.shape:
            return f"frame {i}: {y.shape[1]}x{y.shape[0]} px, not {x.shape[1]}x{x.shape[0]}"
        h, w = (x.shape[0] // cell) * cell, (x.shape[1] // cell) * cell

        def blocks(img: Any) -> Any:
            return img[:h, :w].reshape(h // cell, cell, w // cell, cell, 3).mean(axis=(1, 3))

        changed = float((np.abs(blocks(x) - blocks(y)).max(axis=2) > level).mean())
        if changed > share:
            return f"frame {i}: {changed:.1%} of the picture changed (at most {share:.0%} may)"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.screenshots", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help=f"pictures to make (default: all of {', '.join(SHOTS)})")
    ap.add_argument("--out", type=Path, default=IMAGES, help="where to write them (default: docs/images)")
    args = ap.parse_args(argv)
    missing = [t for t in ("Xvfb", "xdotool", "import") if shutil.which(t) is None]
    for name in args.names or list(SHOTS):
        if name not in SHOTS:
            ap.error(f"no picture {name!r}; there are {', '.join(SHOTS)}")
        if SHOTS[name].window and missing:
            print(f"{name}: skipped, needs {', '.join(missing)}", file=sys.stderr)
            continue
        start = time.monotonic()
        path = make(name, args.out)
        print(f"wrote {path} ({time.monotonic() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
