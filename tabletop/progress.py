"""A progress line for long command-line work: on standard error, only when it is a terminal.

``with progress_line("odds", total) as step: ... step(done, "template t3")`` shows
``odds: 3 of 100 templates (t3)…`` once the work has lasted :data:`SHOW_AFTER_S`, rewrites it
at most every :data:`EVERY_S`, and erases it at the end, so a quick command prints nothing
and a pipe or a file never gets one (``tabletop check --json > out.json`` stays clean).
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import Protocol, TextIO

#: Work quicker than this shows no line at all.
SHOW_AFTER_S = 0.5
#: The line is rewritten at most this often.
EVERY_S = 0.1


class Step(Protocol):
    """``step(done, what="", total=None)``: ``done`` of the total (a new ``total`` if given) so far, on ``what``."""

    def __call__(self, done: int, what: str = "", total: int | None = None) -> None: ...


@contextlib.contextmanager
def progress_line(label: str, total: int, unit: str = "templates", stream: TextIO | None = None,
                  clock: Callable[[], float] = time.monotonic) -> Iterator[Step]:
    """Yield ``step(done, what, total)``; see the module doc. Ctrl+C still interrupts: the line is erased first."""
    out = sys.stderr if stream is None else stream
    try:
        shown = out.isatty()
    except (AttributeError, ValueError):
        shown = False
    start = clock()
    last = [-1.0]
    drawn = [False]
    count = [total]

    def step(done: int, what: str = "", total: int | None = None) -> None:
        if total is not None:
            count[0] = total
        if not shown:
            return
        now = clock()
        if now - start < SHOW_AFTER_S or now - last[0] < EVERY_S:
            return
        last[0] = now
        tail = f" ({what})" if what else ""
        text = f"{label}: {done} of {count[0]} {unit}{tail}… (Ctrl+C stops)"
        out.write("\r" + text[:200] + "\x1b[K")
        out.flush()
        drawn[0] = True

    try:
        yield step  # type: ignore[misc]
    finally:
        if drawn[0]:
            out.write("\r\x1b[K")
            out.flush()
