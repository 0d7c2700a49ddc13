"""Odds off the frame: ``compute_odds`` in a worker process, newest request wins. Pure: no pygame.

The app asks for the odds of the scenario it shows after every change
(``request``); ``poll`` (once a frame) submits the newest request once the
scenario has been still for ``debounce_s`` and collects finished results. A
result computed for a request that has since been superseded is dropped. The
worker is a *process* (``ProcessPoolExecutor(max_workers=1)``), so the odds do
not hold the GIL the drawing needs; it is started with ``spawn`` because forking
a process that owns an SDL window and its threads is unsafe.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, replace

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


def compute(request: OddsRequest) -> OddsResult:
    """Run in the worker process."""
    return compute_odds(
        request.scenario, seed=request.seed, samples=request.samples, keep_fixed_rolls=not request.dice_free
    )


class OddsWorker:
    """One worker process computing odds; only the newest request's result is kept."""

    def __init__(self, debounce_s: float = DEBOUNCE_S) -> None:
        self.debounce_s = debounce_s
        self.result: OddsResult | None = None
        self.result_request: OddsRequest | None = None
        self.error: str | None = None
        self.submitted = 0
        self.stale_dropped = 0
        self._pool: ProcessPoolExecutor | None = None
        self._wanted: OddsRequest | None = None
        self._wanted_gen = 0
        self._changed_at = 0.0
        self._submitted_gen = 0
        self._done_gen = 0
        self._jobs: dict[Future[OddsResult], int] = {}

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
        """A job is in the worker (or queued for it)."""
        return bool(self._jobs)

    # ------------------------------------------------------------------ the frame

    def poll(self, now: float) -> bool:
        """Collect finished jobs and submit the newest request when it is due; True when a new result arrived."""
        arrived = False
        for fut in [f for f in self._jobs if f.done()]:
            gen = self._jobs.pop(fut)
            if fut.cancelled():
                continue
            if gen != self._wanted_gen:
                self.stale_dropped += 1
                continue
            exc = fut.exception()
            if exc is not None:
                self.error = f"{type(exc).__name__}: {exc}"
                self.result = None
                self.result_request = None
            else:
                self.error = None
                assert self._wanted is not None
                # The worker returns a copy of the scenario: hand back the very one that was asked about.
                self.result = replace(fut.result(), scenario=self._wanted.scenario)
                self.result_request = self._wanted
            self._done_gen = gen
            arrived = True
        due = now - self._changed_at >= self.debounce_s
        if self._wanted is not None and self._submitted_gen != self._wanted_gen and due:
            for fut in list(self._jobs):
                if fut.cancel():  # queued behind the running job: never start it
                    self._jobs.pop(fut)
            self._jobs[self._executor().submit(compute, self._wanted)] = self._wanted_gen
            self._submitted_gen = self._wanted_gen
            self.submitted += 1
        return arrived

    def cancel(self) -> None:
        """Forget the wanted request and any result (the Odds toggle went off)."""
        self._wanted = None
        self._wanted_gen += 1
        self._submitted_gen = self._wanted_gen
        self._done_gen = self._wanted_gen
        self.result = None
        self.result_request = None
        self.error = None
        for fut in list(self._jobs):
            if fut.cancel():
                self._jobs.pop(fut)

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    @property
    def alive(self) -> bool:
        """The worker process pool exists (started and not shut down)."""
        return self._pool is not None

    def shutdown(self) -> None:
        """Stop the worker now: queued jobs are cancelled, a running one is not waited for."""
        pool, self._pool = self._pool, None
        self._jobs.clear()
        if pool is None:
            return
        # A sampled volley can take seconds: end the worker instead of waiting for it.
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in processes:
            if proc.is_alive():
                proc.terminate()
        for proc in processes:
            proc.join(timeout=2.0)
