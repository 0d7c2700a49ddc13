"""Opening a table whose judgement is long (issue 37, item 16: a table at the limits froze the app for
minutes, then seconds, with nothing shown): its progress is drawn on the window, Esc or closing the
window cancels the open and keeps the table before, and the first frame reuses the judgement."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import pygame
import pytest
import tomli_w

from tabletop.app import judging, live
from tabletop.app.pilot import Pilot

from .conftest import SCENARIOS

VOLLEY = tomllib.loads((SCENARIOS / "robotech-volley.toml").read_text(encoding="utf-8"))


def _five_volleys(tmp_path: Path) -> Path:
    data = copy.deepcopy(VOLLEY)
    template = data["template"][0]
    template.pop("rolls", None)
    data["template"] = [dict(template, id=f"volley{k}") for k in range(5)]
    path = tmp_path / "five.toml"
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def slow(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Every judgement counts as long (progress from the first template); the progress drawn, in order."""
    drawn: list[tuple[int, int]] = []
    real = judging._draw
    monkeypatch.setattr(judging, "PROGRESS_AFTER_S", 0.0)
    monkeypatch.setattr(judging, "REDRAW_EVERY_S", 0.0)

    def draw(surface: pygame.Surface, title: str, done: int, total: int, seconds: float) -> None:
        drawn.append((done, total))
        real(surface, title, done, total, seconds)

    monkeypatch.setattr(judging, "_draw", draw)
    return drawn


def _count_resolves(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = live.resolve_template

    def counted(scenario: Any, template: Any, *a: Any, **k: Any) -> Any:
        calls.append(template.id)
        return real(scenario, template, *a, **k)

    monkeypatch.setattr(live, "resolve_template", counted)
    return calls


def test_a_long_open_shows_its_progress_and_the_first_frame_reuses_the_judgement(slow: list[tuple[int, int]], tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = _five_volleys(tmp_path)
    p = Pilot()
    try:
        resolves = _count_resolves(monkeypatch)
        assert p.app.open_file(str(path))
        assert slow == [(k, 5) for k in range(5)]  # "judging template 1 of 5" ... "5 of 5"
        assert resolves == [f"volley{k}" for k in range(5)]
        p.step(3)  # drawing, hit-testing and the panels use that judgement: nothing is judged again
        assert resolves == [f"volley{k}" for k in range(5)]
        assert p.app.state.path == str(path) and "Opened five.toml" in p.app.message
    finally:
        p.close()


@pytest.mark.parametrize("how", ["escape", "close"])
def test_esc_or_closing_the_window_cancels_a_long_open_and_keeps_the_table(how: str, slow: list[tuple[int, int]], tmp_path: Path) -> None:
    path = _five_volleys(tmp_path)
    p = Pilot(SCENARIOS / "default.toml")
    try:
        before = p.app.state
        p.post(pygame.KEYDOWN, key=pygame.K_a, mod=0, unicode="a", scancode=0)  # typed meanwhile: stays for the app
        if how == "escape":
            p.post(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode="\x1b", scancode=0)
        else:
            p.post(pygame.QUIT)
        assert not p.app.open_file(str(path))
        assert p.app.state is before and "cancelled: this table stays" in p.app.message
        assert slow == []  # stopped at the first look at the keyboard, before anything was drawn
        queued = pygame.event.get((pygame.KEYDOWN, pygame.QUIT))
        assert [e.type for e in queued] == ([pygame.KEYDOWN] if how == "escape" else [pygame.KEYDOWN, pygame.QUIT])
        assert queued[0].key == pygame.K_a  # Esc is used up; the close still closes the app after
    finally:
        p.close()


def test_a_short_open_shows_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[int] = []
    monkeypatch.setattr(judging, "_draw", lambda *a: drawn.append(1))
    p = Pilot()
    try:
        assert p.app.open_file(str(SCENARIOS / "robotech-volley.toml"))
        assert drawn == []  # a few milliseconds: no box flashes up
    finally:
        p.close()
