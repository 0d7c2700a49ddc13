"""A table's first judgement when it is long (one at the scenario limits takes seconds): its progress on the
window, and Esc (or closing the window) to cancel the open.

The judgement runs on the frame loop, but every tenth of a second it shows how far it got and reads the
keyboard, so the window never looks hung; a short one shows nothing.
"""

from __future__ import annotations

import time

import pygame

from tabletop.model import Scenario

from .live import LiveAdjudicator
from .overlays import INK, PAPER, text

PROGRESS_AFTER_S = 0.3
"""Judgements shorter than this show nothing (most tables: a few milliseconds)."""
REDRAW_EVERY_S = 0.1
BAR = (232, 170, 60)


class JudgingCancelled(Exception):
    """The user pressed Esc or closed the window while a table was being judged."""


def judge_with_progress(live: LiveAdjudicator, scenario: Scenario, title: str) -> bool:
    """Judge ``scenario`` (cached in ``live``, so the first frame reuses it); False when the user cancelled.

    A ruleset's error is left for the normal judgement to show: True.
    """
    start = time.perf_counter()
    shown = [0.0]

    def step(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - start < PROGRESS_AFTER_S or now - shown[0] < REDRAW_EVERY_S:
            return
        shown[0] = now
        _check_cancel()
        surface = pygame.display.get_surface()
        if surface is not None:
            _draw(surface, title, done, total, now - start)
            pygame.display.flip()

    try:
        live.adjudicate(scenario, progress=step)
    except JudgingCancelled:
        return False
    except Exception:  # noqa: BLE001 - the app's own judgement reports it on the next frame
        return True
    return True


def _check_cancel() -> None:
    """Esc or a window close cancels; every other key or close event stays queued for the app, in order."""
    events = pygame.event.get((pygame.KEYDOWN, pygame.QUIT))
    cancel = False
    for event in events:
        if event.type == pygame.QUIT or event.key == pygame.K_ESCAPE:
            cancel = True
    for event in events:
        if not (event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE):
            pygame.event.post(event)  # a close still closes the app once the open is cancelled
    if cancel:
        raise JudgingCancelled


def _draw(surface: pygame.Surface, title: str, done: int, total: int, seconds: float) -> None:
    width, height = surface.get_size()
    box = pygame.Rect(0, 0, min(560, width - 40), 92)
    box.center = (width // 2, height // 2)
    pygame.draw.rect(surface, INK, box, border_radius=8)
    pygame.draw.rect(surface, PAPER, box, 1, border_radius=8)
    text(surface, title, (box.x + 16, box.y + 12), size=18, bold=True)
    text(surface, f"judging template {done + 1} of {total} · {seconds:.1f} s · Esc cancels", (box.x + 16, box.y + 38), size=15)
    bar = pygame.Rect(box.x + 16, box.bottom - 20, box.width - 32, 8)
    pygame.draw.rect(surface, (70, 74, 82), bar, border_radius=4)
    pygame.draw.rect(surface, BAR, (bar.x, bar.y, round(bar.width * done / max(1, total)), bar.height), border_radius=4)


__all__ = ["PROGRESS_AFTER_S", "JudgingCancelled", "judge_with_progress"]
