"""The process around a window: opening a display, and stopping on a signal without asking.

* ``open_display``: the window, or ``NoDisplay`` when there is no screen to show it on. With
  neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` SDL quietly falls back to its ``offscreen``
  driver and the app would run unseen forever; a headless driver is used only when
  ``SDL_VIDEODRIVER`` asks for it (tests, screenshots).
* ``SignalStop`` and ``on_signals``: SIGINT, SIGTERM and SIGHUP end the app at once. SDL
  would turn SIGTERM (and SIGINT, unless Python's own handler is in place) into a quit
  event, and a quit with unsaved changes opens a dialog nobody answers: the handler here
  raises ``SignalStop`` in the frame loop instead, which writes the emergency copy and exits
  (``128 + signal``). A watchdog ends the process two seconds after the signal if the exit
  itself hangs, but never before the table was written.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

#: SDL drivers that show nothing: used only when SDL_VIDEODRIVER names them.
HEADLESS_DRIVERS = ("offscreen", "dummy", "evdev")
#: Seconds from a signal to the end of the process, at most (unless the table is still being written).
STOP_WITHIN_S = 2.0


class NoDisplay(Exception):
    """No screen to open a window on; the message says what to set."""


def asked_drivers() -> list[str]:
    """The drivers ``SDL_VIDEODRIVER`` names (SDL accepts a comma-separated list)."""
    return [d.strip().lower() for d in os.environ.get("SDL_VIDEODRIVER", "").split(",") if d.strip()]


def no_display_message(detail: str) -> str:
    where = "set DISPLAY (X11) or WAYLAND_DISPLAY, or run it on a desktop" if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")) else "run it on a desktop"
    return f"no display: {detail}; the app needs a screen ({where})"


def check_display() -> None:
    """After ``pygame.display.init``: raise ``NoDisplay`` unless a real screen (or an asked-for headless driver) is there."""
    import pygame

    try:
        if not pygame.display.get_init():
            pygame.display.init()
        driver = pygame.display.get_driver()
    except pygame.error as exc:
        raise NoDisplay(no_display_message(str(exc) or "the video system did not start")) from None
    if driver.lower() in HEADLESS_DRIVERS and driver.lower() not in asked_drivers():
        names = [v for v in ("DISPLAY", "WAYLAND_DISPLAY") if os.environ.get(v)]
        detail = f"only SDL's {driver} driver started" + (f" ({', '.join(names)} set but not reachable)" if names else " (neither DISPLAY nor WAYLAND_DISPLAY is set)")
        raise NoDisplay(no_display_message(detail))


def open_display(size: Any, flags: int = 0) -> Any:
    """``pygame.display.set_mode(size, flags)`` on a real screen; ``NoDisplay`` when there is none."""
    import pygame

    check_display()
    try:
        return pygame.display.set_mode(size, flags)
    except pygame.error as exc:
        raise NoDisplay(no_display_message(str(exc) or "no window could be opened")) from None


# --------------------------------------------------------------------------- signals


class SignalStop(BaseException):
    """A signal asked the app to stop (a BaseException, as KeyboardInterrupt: no ``except Exception`` keeps it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal_name(signum))
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def signal_name(signum: int) -> str:
    try:
        name = signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
    return f"{name} (Ctrl+C)" if signum == signal.SIGINT else name


def stop_signals() -> list[int]:
    """The signals that stop the app: SIGINT, SIGTERM, and SIGHUP unless it was ignored (``nohup``)."""
    wanted = [signal.SIGINT, signal.SIGTERM]
    for name in ("SIGHUP", "SIGBREAK"):
        sig = getattr(signal, name, None)
        if sig is not None and signal.getsignal(sig) != signal.SIG_IGN:
            wanted.append(sig)
    return wanted


class Stopping:
    """What a stop signal started: which signal, and whether the table is safe yet."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.saved = threading.Event()  # set once the table is written (or there was nothing to write)
        self.shielded = False  # the app is already on its way out: a signal no longer interrupts it
        self.watchdog: threading.Thread | None = None


@contextmanager
def on_signals(rescue: Callable[[int], None] | None = None, within_s: float = STOP_WITHIN_S) -> Iterator[Stopping]:
    """While inside: the first stop signal raises ``SignalStop`` in the main thread (unless
    ``shielded``); later ones are ignored (a second Ctrl+C must not break the emergency write).
    The caller sets ``saved`` once the table is safe. A watchdog thread ends the process
    (``os._exit(128 + signal)``) if it is still there ``within_s`` after the signal; if by
    ``0.7 * within_s`` nothing was saved (the main thread is stuck), it calls ``rescue(signum)``
    itself first, and it never ends the process before that returns. The previous handlers
    come back on leaving (the watchdog stays armed)."""
    state = Stopping()

    def watch(signum: int, start: float) -> None:
        if not state.saved.wait(within_s * 0.7) and rescue is not None:
            try:
                rescue(signum)
            except BaseException:  # noqa: BLE001 - the watchdog itself must not die before it ends the process
                pass
        left = start + within_s - 0.1 - time.monotonic()
        if left > 0:
            time.sleep(left)  # the ordinary exit has until then
        os._exit(128 + signum)

    def handler(signum: int, frame: FrameType | None) -> None:
        if state.signum is not None:
            return
        state.signum = signum
        state.watchdog = threading.Thread(target=watch, args=(signum, time.monotonic()), name="tabletop-stop-watchdog", daemon=True)
        state.watchdog.start()
        if not state.shielded:
            raise SignalStop(signum)

    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in stop_signals():
            try:
                previous[sig] = signal.signal(sig, handler)
            except (OSError, ValueError):
                continue
    try:
        yield state
    finally:
        for sig, old in previous.items():
            try:
                signal.signal(sig, old if old is not None else signal.SIG_DFL)
            except (OSError, ValueError, TypeError):
                pass


__all__ = ["NoDisplay", "SignalStop", "Stopping", "check_display", "on_signals", "open_display", "signal_name"]
