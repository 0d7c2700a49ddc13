"""Odds off the frame: ``compute_odds`` in a worker process, newest request wins. Pure: no pygame.

The app asks for the odds of the scenario it shows after every change
(``request``); ``poll`` (once a frame) sends the newest request once the
scenario has been still for ``debounce_s`` and collects finished results. A
result computed for a request that has since been superseded is dropped. The
worker is a *process*, so the odds do not hold the GIL the drawing needs; it is
started with ``spawn`` because forking a process that owns an SDL window and its
threads is unsafe.

The worker dies with the app, however the app ends (even SIGKILL): it talks to the
app over one pipe only the app holds the other end of (an idle worker reads EOF
and exits), a watchdog thread in it exits when its parent is gone (a busy
worker), and on Linux the kernel sends it SIGKILL when the parent dies
(``PR_SET_PDEATHSIG``). It uses no queues, locks or shared memory, so nothing is
registered with multiprocessing's resource tracker, which exits as soon as the
worker is gone.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from typing import Any

from tabletop.model import Scenario
from tabletop.odds import OddsResult, compute_odds

#: Draws per template when an outcome tree is too big to enumerate: a 95% interval of
#: at most ±2 percentage points (1.96² / (4 × 0.02²) ≈ 2401), a quarter of the CLI's work.
ODDS_SAMPLES = 2401
#: Seconds the scenario must stay unchanged before its odds are computed.
DEBOUNCE_S = 0.15


@dataclass(frozen=True)
class OddsRequest:
    """What to compute: a scenario, the seed, and whether the file's fixed rolls are freed."""

    scenario: Scenario
    seed: int = 1
    dice_free: bool = True
    samples: int = ODDS_SAMPLES

    def same_as(self, other: OddsRequest | None) -> bool:
        """The same request (scenarios compared by identity: they are immutable values)."""
        return (
            other is not None
            and other.scenario is self.scenario
            and other.seed == self.seed
            and other.dice_free == self.dice_free
            and other.samples == self.samples
        )


def compute(request: OddsRequest, progress: Callable[[int, str], None] | None = None) -> OddsResult:
    """Run in the worker process; ``progress(templates done, template id)`` before each template."""
    return compute_odds(
        request.scenario, seed=request.seed, samples=request.samples, keep_fixed_rolls=not request.dice_free, progress=progress
    )


#: The worker's interim message, before each template: ``(PROGRESS, generation, templates done, templates)``.
PROGRESS = "progress"
#: The app's message to a busy worker: give up the job (it was superseded or the odds were turned off).
CANCEL = "cancel"
#: The error of a job given up on the app's word (the app drops its reply as stale).
CANCELLED = "cancelled"


class _GivenUp(Exception):
    """The app asked the worker to give up the job it is computing."""


#: Seconds between two checks, in the worker, that the app is still there.
PARENT_POLL_S = 0.5
PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int, poll_s: float = PARENT_POLL_S) -> None:
    """In a child process: end it when ``parent_pid`` is gone.

    Linux: the kernel sends SIGKILL when the parent dies (``prctl(PR_SET_PDEATHSIG)``).
    Everywhere: a daemon thread polls ``os.getppid()`` (a child whose parent died is
    adopted by another process) and ends the process.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)  # the process's own symbols include libc's prctl
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:
                os._exit(0)
            time.sleep(poll_s)

    if os.getppid() != parent_pid:  # the parent died before the signal was asked for
        os._exit(0)
    threading.Thread(target=watch, name="tabletop-odds-parent-watch", daemon=True).start()


def serve(conn: Connection, parent_pid: int) -> None:
    """The worker process: answer ``(generation, request)`` with ``(generation, result, error)`` until EOF."""
    # Ctrl+C in a terminal reaches the whole process group: the app stops on it (and ends this
    # worker); here it would only print a KeyboardInterrupt traceback under the app's message.
    # It started with SIGINT ignored (``_start_ignoring_sigint``); this keeps it so wherever it was started from.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent_pid)
    waiting: list[Any] = []  # a message read while computing, to be handled next
    while True:
        try:
            message = waiting.pop(0) if waiting else conn.recv()
        except (EOFError, OSError):
            return  # the app closed its end, or died
        if message is None:
            return
        if message[0] == CANCEL:
            continue  # the job it meant is already over
        gen, request = message
        total = len(request.scenario.templates)

        def progress(done: int, template_id: str, gen: int = gen, total: int = total) -> None:
            # Before each template: say how far the job is, and give it up if the app has spoken since
            # (it only speaks to a busy worker to cancel, or to end it).
            conn.send((PROGRESS, gen, done, total))
            if conn.poll():
                waiting.append(conn.recv())
                raise _GivenUp

        try:
            reply: tuple[int, OddsResult | None, str | None] = (gen, compute(request, progress), None)
        except _GivenUp:
            reply = (gen, None, CANCELLED)
        except (EOFError, BrokenPipeError):
            return
        except Exception as exc:  # noqa: BLE001 - any failure is the app's to show, the worker carries on
            reply = (gen, None, f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except (BrokenPipeError, EOFError, OSError):
            return


def _start_ignoring_sigint(process: Any) -> None:
    """Start ``process`` with SIGINT ignored, a disposition that survives fork and exec: the new
    Python then never installs its KeyboardInterrupt handler. Here SIGINT is blocked meanwhile, so
    one sent to this process is not lost but handled as usual once its handler is back (Linux
    keeps a blocked signal pending even while it is ignored)."""
    try:
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    except (AttributeError, OSError, ValueError):  # Windows: no process group shares a Ctrl+C there
        process.start()
        return
    try:
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (OSError, ValueError):  # not the main thread: no handler to swap
        handler = None
    try:
        process.start()
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


class OddsWorker:
    """One worker process computing odds; only the newest request's result is kept."""

    def __init__(self, debounce_s: float = DEBOUNCE_S) -> None:
        self.debounce_s = debounce_s
        self.result: OddsResult | None = None
        self.result_request: OddsRequest | None = None
        self.error: str | None = None
        self.submitted = 0
        self.stale_dropped = 0
        self.given_up = 0  # jobs the worker gave up part way when told (superseded, or the odds turned off)
        self.process: Any = None  # the multiprocessing Process, while it runs
        self._conn: Connection | None = None
        self._wanted: OddsRequest | None = None
        self._wanted_gen = 0
        self._changed_at = 0.0
        self._submitted_gen = 0
        self._done_gen = 0
        self._in_flight: int | None = None  # the generation the worker is computing
        self._cancel_sent: int | None = None  # the in-flight generation the worker was told to give up
        #: How far the job in the worker is: (templates done, templates), from its last progress message.
        self.progress: tuple[int, int] | None = None

    # ------------------------------------------------------------------ requests

    def request(self, request: OddsRequest, now: float) -> None:
        """Ask for ``request``'s odds (a no-op if it is the one already wanted)."""
        if request.same_as(self._wanted):
            return
        self._wanted = request
        self._wanted_gen += 1
        self._changed_at = now

    @property
    def pending(self) -> bool:
        """A wanted result has not arrived yet."""
        return self._wanted is not None and self._done_gen != self._wanted_gen

    def waiting_s(self, now: float) -> float:
        """Seconds since the pending request was made (0 when nothing is pending)."""
        return max(0.0, now - self._changed_at) if self.pending else 0.0

    @property
    def running(self) -> bool:
        """A job is in the worker."""
        return self._in_flight is not None

    # ------------------------------------------------------------------ the frame

    def poll(self, now: float) -> bool:
        """Collect a finished job and send the newest request when it is due; True when a new result arrived."""
        arrived = False
        if self._in_flight is not None:
            reply = self._receive()
            if reply is not None:
                gen, result, error = reply
                self._in_flight = None
                self._cancel_sent = None
                self.progress = None
                self.given_up += error == CANCELLED
                if gen != self._wanted_gen:
                    self.stale_dropped += 1
                else:
                    self._store(gen, result, error)
                    arrived = True
            elif self._in_flight != self._wanted_gen and self._cancel_sent != self._in_flight:
                # Superseded (an edit, Odds off): the worker gives it up at its next template instead
                # of finishing minutes of work nobody wants before it starts the new request.
                self._cancel_sent = self._in_flight
                try:
                    if self._conn is not None:
                        self._conn.send((CANCEL, self._in_flight))
                except (BrokenPipeError, EOFError, OSError) as exc:
                    self._lost(f"the odds worker stopped ({type(exc).__name__})")
        due = now - self._changed_at >= self.debounce_s
        if self._wanted is not None and self._submitted_gen != self._wanted_gen and due and self._in_flight is None:
            # One job at a time: a request superseded while the worker was busy is never started.
            conn = self._connection()
            try:
                conn.send((self._wanted_gen, self._wanted))
            except (BrokenPipeError, EOFError, OSError) as exc:
                self._lost(f"the odds worker stopped ({type(exc).__name__})")
            else:
                self._in_flight = self._wanted_gen
                self._submitted_gen = self._wanted_gen
                self.submitted += 1
        return arrived

    def _receive(self) -> tuple[int, OddsResult | None, str | None] | None:
        """The worker's answer if there is one (None: still working); a worker that died answers with an error."""
        conn = self._conn
        try:
            while conn is not None and conn.poll():
                reply = conn.recv()
                if reply[0] == PROGRESS:
                    if reply[1] == self._wanted_gen:
                        self.progress = (reply[2], reply[3])
                    continue
                return reply  # type: ignore[no-any-return]
            if conn is not None:
                return None if self.process is not None and self.process.is_alive() else self._died()
        except (EOFError, OSError):
            pass
        return self._died()

    def _died(self) -> tuple[int, OddsResult | None, str | None]:
        gen = self._in_flight if self._in_flight is not None else -1
        self._stop_process()
        return (gen, None, "the odds worker stopped unexpectedly")

    def _store(self, gen: int, result: OddsResult | None, error: str | None) -> None:
        if error is not None or result is None:
            self.error = error or "no result"
            self.result = None
            self.result_request = None
        else:
            self.error = None
            assert self._wanted is not None
            # The worker returns a copy of the scenario: hand back the very one that was asked about.
            self.result = replace(result, scenario=self._wanted.scenario)
            self.result_request = self._wanted
        self._done_gen = gen

    def _lost(self, message: str) -> None:
        self._stop_process()
        self._in_flight = None
        self._cancel_sent = None
        self.progress = None
        self._store(self._wanted_gen, None, message)

    def cancel(self) -> None:
        """Forget the wanted request and any result (the Odds toggle went off)."""
        self._wanted = None
        self._wanted_gen += 1
        self._submitted_gen = self._wanted_gen
        self._done_gen = self._wanted_gen
        self.result = None
        self.result_request = None
        self.error = None
        self.progress = None

    def _connection(self) -> Connection:
        """The pipe to the worker, starting the worker if it is not running."""
        if self._conn is None or self.process is None or not self.process.is_alive():
            self._stop_process()
            ctx = multiprocessing.get_context("spawn")
            ours, theirs = ctx.Pipe(duplex=True)
            process = ctx.Process(target=serve, args=(theirs, os.getpid()), name="tabletop-odds", daemon=True)
            _start_ignoring_sigint(process)
            theirs.close()  # only the worker holds its end: when the app dies, the worker reads EOF
            self.process, self._conn = process, ours
        return self._conn

    @property
    def alive(self) -> bool:
        """The worker process exists (started and not shut down)."""
        return self.process is not None

    def _stop_process(self) -> None:
        process, conn = self.process, self._conn
        self.process, self._conn = None, None
        if conn is not None:
            try:
                conn.close()  # an idle worker reads EOF and exits
            except OSError:
                pass
        if process is not None:
            if process.is_alive():
                process.terminate()  # a busy one is ended: a sampled volley can take seconds
            process.join(timeout=2.0)
            if process.is_alive():
                process.kill()
                process.join(timeout=2.0)

    def shutdown(self) -> None:
        """Stop the worker now: a running job is not waited for."""
        self._in_flight = None
        self._cancel_sent = None
        self.progress = None
        self._stop_process()
