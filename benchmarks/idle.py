"""Idle cost of the app: CPU time of the app's process while nobody touches it, against the same
app with the mouse moving over the table, measured in the same run.

The real app (``python -m tabletop`` on the bundled default table) runs in a window of a private
Xvfb server (the dummy video driver when Xvfb or xdotool is missing); once its window is up and
the first frames are drawn it is left alone for ``--seconds`` and its CPU time (user + system,
from /proc) is read before and after. The baseline moves the pointer over the table with xdotool
for as long (every move is an event the app must answer: frames are drawn). Target: idle < 2 % of
one core.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_PERCENT = 2.0
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def _start_xvfb() -> tuple[subprocess.Popen[bytes], str] | None:
    if not (shutil.which("Xvfb") and shutil.which("xdotool")):
        return None
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1600x1000x24", "-nolisten", "tcp", "-noreset"],
                            pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    data = b""
    end = time.monotonic() + 30
    while not data.endswith(b"\n") and time.monotonic() < end:
        chunk = os.read(read_fd, 16)
        if not chunk:
            break
        data += chunk
    os.close(read_fd)
    if not data.strip():
        xvfb.kill()
        return None
    return xvfb, f":{int(data.strip())}"


def _window(app: subprocess.Popen[bytes], env: dict[str, str], timeout: float = 60) -> str | None:
    end = time.monotonic() + timeout
    while time.monotonic() < end and app.poll() is None:
        found = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(app.pid)], env=env, capture_output=True, text=True)
        if found.returncode == 0 and found.stdout.split():
            return found.stdout.split()[0]
        time.sleep(0.2)
    return None


def measure(seconds: float = 10.0, settle: float = 4.0) -> dict[str, float | str]:
    """Idle and moving-mouse CPU of the app, as % of one core, with the display used."""
    home = Path(tempfile.mkdtemp(prefix="tabletop-idle-"))
    env = dict(os.environ)
    env.update(SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1", XDG_STATE_HOME=str(home / "state"),
               XDG_CONFIG_HOME=str(home / "config"), PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    server = _start_xvfb()
    if server is not None:
        env.update(DISPLAY=server[1], SDL_VIDEODRIVER="x11")
    else:
        env.update(SDL_VIDEODRIVER="dummy")
    app = subprocess.Popen([sys.executable, "-c", "import sys; from tabletop.app import main; sys.exit(main())"],
                           env=env, cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wid = _window(app, env) if server is not None else None
        if server is not None and wid is None:
            raise RuntimeError("the app's window never appeared")
        time.sleep(settle)  # the first frames, fonts, the live adjudication
        c0, t0 = cpu_seconds(app.pid), time.monotonic()
        time.sleep(seconds)
        idle = (cpu_seconds(app.pid) - c0) / (time.monotonic() - t0) * 100
        moving = float("nan")
        if wid is not None:
            geometry = dict(line.split("=") for line in subprocess.run(
                ["xdotool", "getwindowgeometry", "--shell", wid], env=env, capture_output=True, text=True, check=True).stdout.split())
            w, h = int(geometry["WIDTH"]), int(geometry["HEIGHT"])
            c0, t0 = cpu_seconds(app.pid), time.monotonic()
            k = 0
            while time.monotonic() - t0 < seconds:
                x, y = 100 + (k * 37) % max(1, w // 2), 120 + (k * 23) % max(1, h // 2)
                subprocess.run(["xdotool", "mousemove", "--window", wid, str(x), str(y)], env=env, capture_output=True)
                k += 1
                time.sleep(0.02)
            moving = (cpu_seconds(app.pid) - c0) / (time.monotonic() - t0) * 100
        return {"idle_percent": idle, "moving_percent": moving, "display": "Xvfb" if server else "dummy", "seconds": seconds}
    finally:
        for p in (app, server[0] if server else None):
            if p is not None and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(home, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.idle", description=__doc__)
    ap.add_argument("--seconds", type=float, default=10.0, help="length of each measurement (default 10)")
    ap.add_argument("--quick", action="store_true", help="5 s measurements")
    args = ap.parse_args(argv)
    r = measure(5.0 if args.quick else args.seconds)
    idle = float(r["idle_percent"])
    print(f"the app left alone for {r['seconds']:.0f} s ({r['display']}): {idle:.2f} % of one core")
    print(f"  baseline, the same app with the mouse moving over the table: {float(r['moving_percent']):.1f} % of one core")
    print(f"  target: idle < {TARGET_PERCENT:g} %  → {'PASS' if idle < TARGET_PERCENT else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
