"""Shared plumbing of the real-window tests: the tools they need, a private Xvfb display, waiting.

Every real-window test drives the app as a user would (xdotool) and reads screenshots; none of
them sleeps for a fixed time: each waits for a condition, with a deadline. ``xdotool search
--name`` never finds an SDL 2.32 window: search by ``--class`` (SDL_VIDEO_X11_WMCLASS) or ``--pid``.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")


def require(tools: Iterable[str]) -> None:
    """Skip without the tools, except in CI (``.ci/run`` installs them), where that is a failure."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have {', '.join(missing)} installed")
        pytest.skip(f"needs {', '.join(missing)}")


def run(cmd: list[str], env: dict[str, str], timeout: float = 20) -> str:
    """A tool's standard output (it must succeed)."""
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, check=True).stdout


def screenshot(window_id: str, png: Path, env: dict[str, str], timeout: float = 10) -> bool:
    """Whether ImageMagick's ``import`` saved that window to ``png``. False, not an error, when the
    window went away during the grab or ``import`` hung on it (SDL replaces its X window when it
    switches to or from full screen): the caller asks again, as it does for any unmet condition."""
    try:
        subprocess.run(["import", "-silent", "-window", window_id, str(png)], env=env, capture_output=True, timeout=timeout, check=True)
    except (subprocess.TimeoutExpired, subprocess.CalledProcessError) as error:
        # Shown with the test's output if it then fails waiting: the cause, not only "timed out waiting for ...".
        print(f"import -window {window_id}: {error}: {(error.stderr or b'').decode(errors='replace').strip()}", file=sys.stderr)
        return False
    return png.exists()


def wait_until(condition: Callable[[], T], what: str, timeout: float = 30.0,
               app: subprocess.Popen | None = None) -> T:  # type: ignore[type-arg]
    """Poll ``condition`` until it returns something true (returned); fail after ``timeout`` s, or as soon as ``app``
    (when given) has exited, with its exit code and what it wrote to its log (``popen_group(..., log=...)``): a window
    gone is otherwise only a screenshot that keeps failing until the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if app is not None and app.poll() is not None:
            pytest.fail(f"the app exited ({app.returncode}) while the test waited for {what}: {app_log(app)}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}" + (f"; the app's log: {app_log(app)}" if app is not None else ""))
        time.sleep(0.05)


def app_log(app: subprocess.Popen) -> str:  # type: ignore[type-arg]
    """The end of what ``app`` wrote to the log ``popen_group`` gave it (its standard error), or where nothing is."""
    log = getattr(app, "_tabletop_log", None)
    if log is None:
        return "(no log: started without popen_group's log)"
    text = Path(log).read_bytes().decode(errors="replace").strip()
    return f"{log}: " + (text[-4000:] if text else "(empty)")


def start_xvfb(screen: str = "1600x1000x24", timeout: float = 30.0) -> tuple[subprocess.Popen[bytes], str]:
    """A new Xvfb on a display it picks itself (``-displayfd``: no clash with another test's or
    anyone else's), returned once it accepts connections, with its ``DISPLAY`` value."""
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", screen, "-nolisten", "tcp", "-noreset"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    end = time.monotonic() + timeout
    data = b""
    try:
        while not data.endswith(b"\n"):
            if xvfb.poll() is not None or time.monotonic() > end:
                xvfb.kill()
                pytest.fail("Xvfb did not start")
            ready, _, _ = select.select([read_fd], [], [], 0.1)
            if ready:
                chunk = os.read(read_fd, 16)
                if not chunk:
                    break
                data += chunk
    finally:
        os.close(read_fd)
    display = f":{int(data.strip())}"
    # The number is written once the server listens; make sure a client really gets in before an app is
    # started on it. -noreset: without it the server resets when its last client leaves (this probe, an
    # xdotool call), and a client connecting meanwhile is refused ("no display", openbox exiting 1).
    probe = dict(os.environ, DISPLAY=display)
    while subprocess.run(["xdotool", "getdisplaygeometry"], env=probe, capture_output=True, timeout=timeout).returncode != 0:
        if xvfb.poll() is not None or time.monotonic() > end:
            xvfb.kill()
            pytest.fail(f"Xvfb on {display} does not accept clients")
        time.sleep(0.1)
    return xvfb, display


ROOT = Path(__file__).resolve().parent.parent


def app_env(display: str, wm_class: str, home: Path) -> dict[str, str]:
    """The environment of the app under test: that display, a window class to find it by, its own
    config and state folders (no real autosave), and this checkout on the path."""
    env = dict(os.environ)
    env.update(
        DISPLAY=display,
        SDL_VIDEODRIVER="x11",
        SDL_AUDIODRIVER="dummy",
        SDL_VIDEO_X11_WMCLASS=wm_class,
        PYGAME_HIDE_SUPPORT_PROMPT="1",
        XDG_STATE_HOME=str(home / "state"),
        XDG_CONFIG_HOME=str(home / "config"),
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
    )
    return env


def stop(*processes: subprocess.Popen[bytes] | None) -> None:
    """End the app and Xvfb started by a test, whatever state they are in (each with its process
    group, when it was started by ``popen_group``: the app's odds worker goes too)."""
    for p in processes:
        kill_group(p)


# --------------------------------------------------------------------------- starting and ending the app


def kill_group(process: subprocess.Popen | None, grace_s: float = 3.0) -> None:  # type: ignore[type-arg]
    """End ``process`` and every process of its group (the odds worker, multiprocessing's tracker),
    whatever state they are in: SIGTERM, then SIGKILL after ``grace_s`` (at once when it is 0: a
    crash); then reap it.

    ``process`` must have been started with ``start_new_session=True`` (its pid is its group's id);
    otherwise only the process itself is ended."""
    if process is None:
        return
    import signal

    group = process.pid if _leads_group(process) else None
    try:
        if process.poll() is None and grace_s > 0:
            if group is not None:
                _signal_group(group, signal.SIGTERM)
            else:
                process.terminate()
            try:
                process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                pass
    finally:
        if group is not None:
            _signal_group(group, signal.SIGKILL)  # the leader's children too, even when the leader already exited
        if process.poll() is None:
            process.kill()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for pipe in (process.stdin, process.stdout, process.stderr):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass


def _leads_group(process: subprocess.Popen) -> bool:  # type: ignore[type-arg]
    return getattr(process, "_tabletop_group", False)


def _signal_group(group: int, sig: int) -> None:
    try:
        os.killpg(group, sig)
    except (ProcessLookupError, PermissionError):
        pass


def popen_group(cmd: list[str], log: Path | None = None, **kwargs: object) -> subprocess.Popen:  # type: ignore[type-arg]
    """``subprocess.Popen`` in a process group of its own, for ``kill_group``/``stop``/``started``. ``log``: a file for
    its standard error (a pipe nobody reads blocks a program that writes more than the pipe holds; ``wait_until`` shows
    the file when the program exits or a wait runs out)."""
    if log is not None:
        with open(log, "wb") as stderr:  # the child keeps its own copy of the descriptor
            process = subprocess.Popen(cmd, start_new_session=True, stderr=stderr, **kwargs)  # type: ignore[call-overload]
        process._tabletop_log = log  # type: ignore[attr-defined]
    else:
        process = subprocess.Popen(cmd, start_new_session=True, **kwargs)  # type: ignore[call-overload]
    process._tabletop_group = True  # type: ignore[attr-defined]
    return process


@contextlib.contextmanager
def started(cmd: list[str], **kwargs: object) -> Iterator[subprocess.Popen]:  # type: ignore[type-arg]
    """The app (or any program) running in its own process group; the group is killed on leaving,
    whatever happened: a failed assertion, a timeout, an interrupted test run."""
    process = popen_group(cmd, **kwargs)
    try:
        yield process
    finally:
        kill_group(process)


def app_command(*args: str) -> list[str]:
    """The app as the ``tabletop`` command starts it, from this checkout."""
    return [sys.executable, "-c", "import sys; from tabletop.cli import main; sys.exit(main(sys.argv[1:]))", *args]


def window_of(app: subprocess.Popen, env: dict[str, str], timeout: float = 60.0) -> str:  # type: ignore[type-arg]
    """The id of ``app``'s mapped window (by pid: SDL 2.32 windows do not match ``--name``); fails
    at once if the app exits first."""

    def find() -> str | None:
        if app.poll() is not None:
            pytest.fail(f"the app exited ({app.returncode}) before showing a window")
        found = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(app.pid)], env=env, capture_output=True, text=True, timeout=20)
        return found.stdout.split()[0] if found.returncode == 0 and found.stdout.split() else None

    return wait_until(find, "the app's window", timeout)


def window_title(window_id: str, env: dict[str, str]) -> str:
    """The window's title as the window manager reads it ("" if the window is gone)."""
    done = subprocess.run(["xdotool", "getwindowname", window_id], env=env, capture_output=True, timeout=20)
    return done.stdout.decode("utf-8", errors="replace").strip() if done.returncode == 0 else ""


def window_size(window_id: str, env: dict[str, str]) -> tuple[int, int]:
    size = dict(line.split("=") for line in run(["xdotool", "getwindowgeometry", "--shell", window_id], env).split())
    return int(size["WIDTH"]), int(size["HEIGHT"])


def close_window(window_id: str, display: str) -> None:
    """Ask the window to close as a window manager's close button does: a ``WM_DELETE_WINDOW``
    client message (``xdotool windowclose`` would destroy the window instead)."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("X11") or "libX11.so.6"
    try:
        x11 = ctypes.CDLL(name)
    except OSError:
        pytest.fail("needs libX11 to send WM_DELETE_WINDOW") if os.environ.get("CI") else pytest.skip("needs libX11")

    class ClientMessage(ctypes.Structure):
        _fields_ = [
            ("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int), ("display", ctypes.c_void_p),
            ("window", ctypes.c_ulong), ("message_type", ctypes.c_ulong), ("format", ctypes.c_int), ("data", ctypes.c_long * 5),
        ]

    class Event(ctypes.Union):
        _fields_ = [("xclient", ClientMessage), ("pad", ctypes.c_long * 24)]

    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x11.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.POINTER(Event)]
    x11.XFlush.argtypes = [ctypes.c_void_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    dpy = x11.XOpenDisplay(display.encode())
    if not dpy:
        pytest.fail(f"cannot open display {display}")
    try:
        event = Event()
        event.xclient.type = 33  # ClientMessage
        event.xclient.window = int(window_id)
        event.xclient.message_type = x11.XInternAtom(dpy, b"WM_PROTOCOLS", 0)
        event.xclient.format = 32
        event.xclient.data[0] = x11.XInternAtom(dpy, b"WM_DELETE_WINDOW", 0)
        event.xclient.data[1] = 0  # CurrentTime
        x11.XSendEvent(dpy, int(window_id), 0, 0, ctypes.byref(event))
        x11.XFlush(dpy)
    finally:
        x11.XCloseDisplay(dpy)
