"""Soak: 20,000 scripted drag, rotate and undo events in the headless app — no error, bounded memory."""

from __future__ import annotations

import gc
import os
import random

import pygame
import pytest

from tabletop.app.pilot import Pilot
from tabletop.sample_tables import big_table

EVENTS = 20_000
WARMUP_EVENTS = 5_000  # past the 200-step undo limit, so the history is as full as it gets
EVENTS_PER_FRAME = 40
"""Events posted between two frames: about two gestures (a drag's 4-14 moves, its keys, an undo) land in one frame. The
events are what the soak is about; a frame of 300 models (a fresh label layout after each drop) costs about as much as
40 of them, so at 10 per frame the soak spent most of CI's two minutes drawing (2026-11-29: 107 s of CPU at 10 per
frame, 75 s at 20, both beside the other test worker). The price: the memory check spans 375 frames after the warm-up,
not 1,500, so a leak per frame must be about four times larger to fail it; a leak per event is caught as before."""


def rss_mib() -> float:
    """Current resident set size of this process."""
    with open(f"/proc/{os.getpid()}/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def scripted_events(pilot: Pilot, rng: random.Random):  # type: ignore[no-untyped-def]
    """An endless script: drag a template or a model, rotate, undo, sometimes redo."""
    left, top, w, h = pilot.app.view_rect
    while True:
        placed = list(pilot.app.placed().values())
        target = rng.choice(placed)
        if rng.random() < 0.3:
            m = rng.choice(pilot.app.scenario.models)
            start = pilot.screen_of((m.x, m.y))
        else:
            start = pilot.screen_of(target.focus)
        start = (min(max(start[0], left + 5), left + w - 5), min(max(start[1], top + 5), top + h - 5))
        yield pygame.MOUSEMOTION, {"pos": start, "rel": (0, 0), "buttons": (0, 0, 0), "touch": False}
        yield pygame.MOUSEBUTTONDOWN, {"pos": start, "button": 1, "touch": False}
        x, y = start
        for _ in range(rng.randint(4, 14)):
            dx, dy = rng.randint(-6, 6), rng.randint(-6, 6)
            x = min(max(x + dx, left + 5), left + w - 5)
            y = min(max(y + dy, top + 5), top + h - 5)
            yield pygame.MOUSEMOTION, {"pos": (x, y), "rel": (dx, dy), "buttons": (1, 0, 0), "touch": False}
        yield pygame.MOUSEBUTTONUP, {"pos": (x, y), "button": 1, "touch": False}
        for key, mod in ((pygame.K_r, rng.choice([0, pygame.KMOD_SHIFT])), (pygame.K_z, pygame.KMOD_CTRL)):
            yield pygame.KEYDOWN, {"key": key, "mod": mod, "unicode": "", "scancode": 0}
            yield pygame.KEYUP, {"key": key, "mod": mod, "unicode": "", "scancode": 0}
        if rng.random() < 0.3:
            yield pygame.KEYDOWN, {"key": pygame.K_y, "mod": pygame.KMOD_CTRL, "unicode": "", "scancode": 0}
            yield pygame.KEYUP, {"key": pygame.K_y, "mod": pygame.KMOD_CTRL, "unicode": "", "scancode": 0}


@pytest.mark.slow
@pytest.mark.timeout(600)  # ~40 s alone on a quiet machine; far longer on a shared, loaded one
def test_soak_20000_events_without_error_or_memory_growth() -> None:
    pilot = Pilot(big_table(300, 60, 6), size=(1280, 800))
    rng = random.Random(11)
    script = scripted_events(pilot, rng)
    baseline: float | None = None
    for n in range(1, EVENTS + 1):
        kind, attrs = next(script)
        pilot.post(kind, **attrs)
        if n % EVENTS_PER_FRAME == 0:
            pilot.step()  # any exception in the app fails the test here
        if n == WARMUP_EVENTS:
            pilot.step()
            gc.collect()
            baseline = rss_mib()
    pilot.step()
    gc.collect()
    end = rss_mib()
    assert baseline is not None
    assert end <= baseline * 1.10, f"memory grew from {baseline:.0f} MiB to {end:.0f} MiB"
    assert len(pilot.app.state.history.undo) <= 200
    # The app still works after the soak: the table is adjudicated and drawable.
    assert pilot.app.adjudication().results
    pilot.close()
