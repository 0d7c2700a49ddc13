"""An idle app draws nothing (issue 33: ~20 % of a core doing nothing). The CPU itself is measured
in ``make bench`` (benchmarks/idle.py); here the real loop of ``tabletop.app.window.run`` is run on
the dummy display and its frames are counted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pygame
import pytest

from tabletop.app.frames import FramePacer, same_key

from .conftest import ROOT, SCENARIOS


SCRIPT = r"""
import json, sys, threading, time
import pygame
from tabletop.app import window

seconds, scenario, script = float(sys.argv[1]), sys.argv[2], sys.argv[3]
drawn, apps, marks = [], [], {}
real_init, real_draw = window.TabletopApp.__init__, window.TabletopApp.draw

def init(self, *a, **k):
    k["autosave"] = False
    real_init(self, *a, **k)
    apps.append(self)

def draw(self, surface):
    drawn.append((time.monotonic() - start, bool(self.message) and self._now < self._message_until))
    real_draw(self, surface)

window.TabletopApp.__init__ = init
window.TabletopApp.draw = draw

from tabletop.app import frames
turns, real_next = [], frames.FramePacer.next_events

def next_events(self, app):
    events, dt = real_next(self, app)
    # (when, frames drawn before this turn, whether it brought a key press)
    turns.append((time.monotonic() - start, len(drawn), any(e.type == pygame.KEYDOWN for e in events)))
    return events, dt

frames.FramePacer.next_events = next_events

def driver():
    while not apps:
        time.sleep(0.01)
    app = apps[0]
    while not drawn:  # on a loaded machine the first frame can come seconds after the app is made
        time.sleep(0.01)
    if script == "key_then_flash":
        time.sleep(2.5)  # idle by now
        marks["key"] = time.monotonic() - start
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_g, mod=0, unicode="g", scancode=0))
        time.sleep(2.0)
        app.flash("a short note")
        app._message_until = app._now + 1.5  # runs out while idle (a wake every 0.5 s: not before it is drawn)
        marks["flash"] = time.monotonic() - start
    time.sleep(seconds)
    app.running = False

start = time.monotonic()
threading.Thread(target=driver, daemon=True).start()
code = window.run(scenario)
print(json.dumps({"code": code, "drawn": drawn, "marks": marks, "turns": turns}))
"""


def run_loop(seconds: float, script: str = "") -> dict[str, Any]:
    """The app's real loop (``window.run``) on the dummy display for ``seconds`` after ``script``
    (in a process of its own: ``run`` ends with ``pygame.quit()``); the times of the frames drawn."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(seconds), str(SCENARIOS / "default.toml"), script],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["code"] == 0
    return result


@pytest.mark.timeout(180)
def test_an_idle_app_stops_drawing() -> None:
    drawn = [t for t, _ in run_loop(4.0)["drawn"]]
    # At 60 fps four seconds are ~240 frames. Once the first frames are up (and the widgets' hover
    # time after the window's own events has passed) nothing is drawn. Counted from the first frame,
    # not the process's start: under load the start alone can take seconds.
    late = [t for t in drawn if t > drawn[0] + 2.5]
    assert len(drawn) < 120, len(drawn)
    assert late == [], f"{len(late)} frames drawn while idle"


@pytest.mark.timeout(180)
def test_input_is_drawn_at_once_and_a_message_running_out_is_drawn() -> None:
    """Counted in the loop's turns, not seconds: on a loaded machine a turn can come late, but the turn
    that takes a key press must draw it (not leave it to the next wake, half a second on)."""
    result = run_loop(4.0, "key_then_flash")
    drawn, marks, turns = result["drawn"], result["marks"], result["turns"]
    with_key = [k for k, (_, _, key) in enumerate(turns) if key]
    assert with_key, "the key press reached the loop"
    k = with_key[0]
    before, after = turns[k][1], turns[k + 1][1] if k + 1 < len(turns) else len(drawn)
    assert after > before, "the turn that took the key press drew it"
    after_flash = [(t, shown) for t, shown in drawn if t > marks["flash"]]
    assert after_flash and after_flash[0][1], "the message is drawn"
    assert not after_flash[-1][1], "and drawn away when it runs out"
    assert len(after_flash) <= 3, "and nothing else is drawn"


def test_frames_at_full_rate_while_fire_animates() -> None:
    class App:
        moving = True

        def animating(self) -> bool:
            return self.moving

        def typing_focused(self) -> bool:
            return False

        def frame_key(self) -> tuple[Any, ...]:
            return (1,)

    now = [100.0]
    pacer = FramePacer(clock=lambda: now[0])
    app = App()
    assert pacer.mode(app) == "active"
    app.moving = False
    now[0] += 2.0
    assert pacer.mode(app) == "idle"
    assert pacer.should_draw(app, []) is True  # a key never drawn
    assert pacer.should_draw(app, []) is False
    assert pacer.should_draw(app, [pygame.event.Event(pygame.MOUSEMOTION)]) is True


def test_keys_compare_tables_by_identity() -> None:
    a, b = [1], [1]
    assert same_key((a, "x", 1.0), (a, "x", 1.0))
    assert not same_key((a,), (b,))  # equal, but another object: another state
    assert not same_key((1,), (1, 2))
