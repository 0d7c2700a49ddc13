"""Work without bounds (issue 37, items 14 and 16), each bound checked on the work itself, not by a clock.

- ``odds`` on a Robotech volley grew with the square of the volley (200 missiles: 200 s, 700 MB): the leaf
  estimate ran ``resolve`` once per level of every random descent. Now once per descent at most, and not at
  all once the estimate must pass the exact limit.
- A table inside every limit (100 templates of 1,000-missile volleys) checked in a minute into a 25 MB
  report and froze the app for minutes: the volley limit is now 100 missiles (docs/limits.md), and the
  app's results panel shows a bounded number of lines.
- ``animate --width 4000`` of a 100-template table drew 300 frames of 10 megapixels (2 GB, minutes): an
  animation over 250 megapixels in all is refused before a frame is drawn, naming a width that fits.
- Long commands show a progress line on a terminal and Ctrl+C ends them with a message.
"""

from __future__ import annotations

import copy
import io
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tomli_w

from tabletop import cli, odds, scenario_io
from tabletop.adjudicate import adjudicate, settings_for
from tabletop.coverage import table_geometry
from tabletop.odds.limits import PROBES
from tabletop.odds.tree import _estimate_leaves, _Explorer

from tabletop.app.layout import STATUS_H

from .conftest import SCENARIOS

VOLLEY = tomllib.loads((SCENARIOS / "robotech-volley.toml").read_text(encoding="utf-8"))


def _volley(missiles: int, templates: int = 1) -> dict[str, Any]:
    data = copy.deepcopy(VOLLEY)
    template = data["template"][0]
    template["weapon"]["volley"] = missiles
    template.pop("rolls", None)
    data["template"] = [dict(template, id=f"volley{k}") for k in range(templates)]
    return data


def _scenario(data: dict[str, Any], tmp_path: Path, name: str = "t.toml") -> Any:
    path = tmp_path / name
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return scenario_io.load(path)


def _explorer(scenario: Any) -> _Explorer:
    return _Explorer(scenario, scenario.templates[0], table_geometry(scenario), settings_for(scenario, None), 1.0, False)


# --------------------------------------------------------------------------- odds: the leaf estimate


@pytest.mark.parametrize("missiles", [10, 50])
def test_the_leaf_estimate_resolves_at_most_once_per_descent(missiles: int, tmp_path: Path) -> None:
    ex = _explorer(_scenario(_volley(missiles), tmp_path))
    estimate = _estimate_leaves(ex, np.random.default_rng(1), PROBES)
    assert estimate > 20_000  # a volley's tree is huge: the odds sample it
    assert ex.runs <= PROBES  # was a run per level of each descent: 2,000+ for 50 missiles


def test_the_leaf_estimate_stops_once_it_must_pass_the_limit(tmp_path: Path) -> None:
    ex = _explorer(_scenario(_volley(50), tmp_path))
    assert _estimate_leaves(ex, np.random.default_rng(1), PROBES, above=20_000) > 20_000
    assert ex.runs == 1


def test_a_tree_of_millions_of_leaves_is_sampled_without_a_failed_enumeration_first() -> None:
    """club-blast with every die free has millions of leaves (a 192-descent estimate: 2.5 million at seed 1). With
    48 descents its estimate was 3,710, so the odds enumerated 20,000 leaves (15 s of CPU) before sampling anyway;
    now the estimate passes the limit and the odds sample at once."""
    from tabletop.odds.tree import _enumerate

    scenario = scenario_io.load(Path(__file__).resolve().parents[1] / "examples" / "rules" / "club-blast.toml")
    for seed in (1, 2, 3):
        ex = _explorer(scenario)
        assert _estimate_leaves(ex, np.random.default_rng([seed, 0]), PROBES, above=20_000) > 20_000
        assert ex.runs <= PROBES
    assert _enumerate(_explorer(scenario), 2_000) is None  # the tree is indeed past a limit: enumeration gives up


def test_following_a_runs_own_choices_keeps_the_estimate_unbiased(tmp_path: Path) -> None:
    """A descent that follows the uniform choices its run made is still a uniform random descent: on a fresh tree
    the mean of many probes is the number of leaves (one missile: 3,016 of them, counted by enumeration)."""
    from tabletop.odds.tree import _enumerate

    scenario = _scenario(_volley(1), tmp_path)
    leaves = _enumerate(_explorer(scenario), 100_000)
    assert leaves is not None and len(leaves) == 3016
    estimate = _estimate_leaves(_explorer(scenario), np.random.default_rng(3), 6000)
    assert 0.9 * len(leaves) <= estimate <= 1.1 * len(leaves), estimate


def test_odds_of_a_volley_resolve_as_often_whatever_its_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``resolve`` runs of ``odds`` on one volley do not grow with the missiles (each run does, linearly)."""
    import dataclasses

    from tabletop import rulesets

    real_get = rulesets.get
    real = real_get("robotech").resolve
    runs = [0]

    def counting(ctx: Any) -> Any:
        runs[0] += 1
        return real(ctx)

    counted = dataclasses.replace(real_get("robotech"), resolve=counting)
    monkeypatch.setattr(rulesets, "get", lambda name: counted if name == "robotech" else real_get(name))
    seen = {}
    for missiles in (5, 20, 60):
        runs[0] = 0
        odds.compute_odds(_scenario(_volley(missiles), tmp_path, f"v{missiles}.toml"), keep_fixed_rolls=False, samples=500)
        seen[missiles] = runs[0]
    assert max(seen.values()) <= 1 + 32 + 2, seen  # one estimate run, the batch's 32 checked rows


def test_a_volley_over_100_missiles_is_refused_naming_the_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "v.toml"
    path.write_text(tomli_w.dumps(_volley(101)), encoding="utf-8")
    assert cli.main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "template[0].weapon.volley" in err and "100" in err
    path.write_text(tomli_w.dumps(_volley(100)), encoding="utf-8")
    assert cli.main(["check", str(path)]) == 0


def test_check_of_a_table_at_the_limits_has_a_report_of_bounded_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """100 templates is the limit; ten of them at the volley limit tell the story: under 60 kB each (about 37 kB
    with the rulesets' wording of issue 32), so under 6 MB for a table at every limit (25 MB at the old limits)."""
    path = tmp_path / "v.toml"
    path.write_text(tomli_w.dumps(_volley(100, templates=10)), encoding="utf-8")
    assert cli.main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert len(out) < 10 * 60_000


# --------------------------------------------------------------------------- progress and Ctrl+C


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_shows_on_a_terminal_only_after_a_while_and_is_erased() -> None:
    from tabletop.progress import progress_line

    now = [0.0]
    term = _Terminal()
    with progress_line("odds", 100, stream=term, clock=lambda: now[0]) as step:
        step(0, "t0")  # at once: nothing yet
        assert term.getvalue() == ""
        now[0] = 0.7
        step(3, "t3")
        assert term.getvalue().endswith("odds: 3 of 100 templates (t3)… (Ctrl+C stops)\x1b[K")
        now[0] = 0.75
        step(4, "t4")  # too soon after the last
        assert "t4" not in term.getvalue()
        now[0] = 0.9
        step(5, "", total=120)
        assert "5 of 120 templates" in term.getvalue()
    assert term.getvalue().endswith("\r\x1b[K")  # erased
    pipe = io.StringIO()
    with progress_line("odds", 100, stream=pipe, clock=lambda: now[0]) as step:
        now[0] = 10.0
        step(50, "t50")
    assert pipe.getvalue() == ""


def test_odds_and_check_report_progress_per_template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "v.toml"
    path.write_text(tomli_w.dumps(_volley(4, templates=3)), encoding="utf-8")
    seen: list[tuple[str, int, str]] = []
    from tabletop import progress

    class Recording:
        def __init__(self, label: str, total: int, **_: Any) -> None:
            self.label = label

        def __enter__(self) -> Any:
            return lambda done, what="", total=None: seen.append((self.label, done, what))

        def __exit__(self, *exc: Any) -> None:
            return None

    monkeypatch.setattr(progress, "progress_line", Recording)
    assert cli.main(["odds", str(path), "--samples", "200"]) == 0
    assert cli.main(["check", str(path)]) == 0
    capsys.readouterr()
    assert [s for s in seen if s[0] == "odds"] == [("odds", k, f"volley{k}") for k in range(3)]
    assert [s for s in seen if s[0] == "adjudicating"][:3] == [("adjudicating", k, f"volley{k}") for k in range(3)]


@pytest.mark.parametrize("command", ["odds", "check", "render"])
def test_ctrl_c_ends_a_command_with_a_message_and_status_130(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop import adjudicate as adjudicate_module

    def interrupt(*a: Any, **k: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(odds, "compute_odds", interrupt)
    monkeypatch.setattr(adjudicate_module, "adjudicate", interrupt)
    out = tmp_path / "old.png"
    out.write_bytes(b"old")
    argv = {"odds": ["odds", str(SCENARIOS / "default.toml")], "check": ["check", str(SCENARIOS / "default.toml")],
            "render": ["render", str(SCENARIOS / "default.toml"), "-o", str(out)]}[command]
    assert cli.main(argv) == 130
    captured = capsys.readouterr()
    assert captured.err.strip() == "tabletop: interrupted (Ctrl+C)" and captured.out == ""
    assert out.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["old.png"]


# --------------------------------------------------------------------------- the app's results panel


def test_the_results_panel_shows_a_bounded_number_of_lines(tmp_path: Path) -> None:
    """Twenty 100-missile volleys were 4,400 lines: pygame_gui laid them out in 43 s on the frame loop."""
    from tabletop.app.panel_bounds import PANEL_LINES, TEMPLATE_LINES
    from tabletop.app.results_panel import results_html

    adj = adjudicate(_scenario(_volley(100, templates=20), tmp_path))
    for fired in (False, True):
        lines = results_html(adj, fired=fired).split("<br>")
        assert len(lines) <= PANEL_LINES
        assert any("more lines" in line and "tabletop explain" in line for line in lines)
    one = adjudicate(_scenario(_volley(100), tmp_path, "one.toml"))
    lines = results_html(one, fired=True).split("<br>")
    assert len(lines) <= TEMPLATE_LINES + 6 and "more lines of this template" in lines[-1]
    small = adjudicate(scenario_io.load(SCENARIOS / "robotech-volley.toml"))
    assert "more lines" not in results_html(small, fired=True)  # a real table shows everything


def test_the_apps_odds_show_their_progress_and_an_edit_or_odds_off_stops_the_job(tmp_path: Path) -> None:
    """The odds of a slow table (30 volleys of 100 missiles: some 10 s of the worker's time) run off the
    frame loop: the status bar says how many templates are done and draws a progress bar; an edit
    meanwhile makes the worker give the job up at its next template (it used to finish minutes of
    unwanted work before starting the new request), and so does turning the odds off (O)."""
    import pygame

    from tabletop.app.pilot import Pilot
    from tabletop.app.state import MoveModel

    p = Pilot(_scenario(_volley(100, templates=30), tmp_path))
    try:
        w = p.app.odds_worker
        p.key(pygame.K_o, unicode="o")

        def step_until(condition: Any, what: str, frames: int = 60 * 120) -> None:
            for _ in range(frames):  # frames of the loop: the app stays responsive meanwhile
                if condition():
                    return
                p.step()
            pytest.fail(f"never {what}")

        step_until(lambda: w.progress is not None and w.progress[0] >= 1, "any progress")
        done, total = w.progress  # type: ignore[misc]
        assert total == 30 and 1 <= done < 30
        assert f"{done}/30 templates" in p.app.odds_status() or f"{w.progress[0]}/30 templates" in p.app.odds_status()  # type: ignore[index]
        fraction = p.app.odds_fraction()
        assert fraction is not None and 0 < fraction < 1
        bar = pygame.surfarray.array3d(p.screen)[2, p.app.size[1] - STATUS_H + 1]
        assert tuple(bar) == (120, 170, 235)  # the bar's filled part, at the left of the status bar's top
        first = p.app.scenario
        pod = first.model("pod2")
        p.app.dispatch(MoveModel("pod2", pod.x + 5, pod.y))
        step_until(lambda: w.given_up == 1, "the superseded job given up")
        assert w.stale_dropped == 1 and w.result is None
        step_until(lambda: w.submitted == 2 and w.progress is not None and w.progress[0] >= 1, "the new job under way")
        p.key(pygame.K_o, unicode="o")  # odds off
        step_until(lambda: w.given_up == 2, "the job given up on odds off")
        assert p.app.odds_status() == "" and p.app.odds_fraction() is None and w.alive
    finally:
        p.close()


# --------------------------------------------------------------------------- animate


def _many_templates(count: int) -> dict[str, Any]:
    data = tomllib.loads((SCENARIOS / "default.toml").read_text(encoding="utf-8"))
    blast = next(t for t in data["template"] if t["id"] == "blast")
    data["template"] = [dict(blast, id=f"b{k}", at=[2 + (k % 10) * 2, 2 + (k // 10) * 1.5]) for k in range(count)]
    return data


def test_an_animation_over_the_pixel_budget_is_refused_naming_a_width_that_fits() -> None:
    from tabletop.draw.animate import MAX_ANIMATION_PIXELS, AnimationTooLarge, check_size, frame_size

    assert check_size(4, 800) == 12
    with pytest.raises(AnimationTooLarge, match=r"300 frames of 4000x2500 are 3,000 megapixels; the limit is 250: give --width (\d+) or less") as caught:
        check_size(100, 4000)
    import re

    fits = int(re.search(r"--width (\d+)", str(caught.value)).group(1))  # type: ignore[union-attr]
    assert check_size(100, fits) == 300 and 300 * fits * frame_size(fits)[1] <= MAX_ANIMATION_PIXELS
    with pytest.raises(AnimationTooLarge):
        check_size(100, fits + 1)
    with pytest.raises(AnimationTooLarge, match="too many to animate at any width"):
        check_size(100_000, 800)


def test_animate_refuses_a_too_large_animation_before_drawing_a_frame(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop.draw import animate

    def no_drawing(*a: Any, **k: Any) -> Any:
        raise AssertionError("a frame was drawn")

    monkeypatch.setattr(animate, "draw_slide", no_drawing)
    path = tmp_path / "many.toml"
    path.write_text(tomli_w.dumps(_many_templates(100)), encoding="utf-8")
    out = tmp_path / "a.gif"
    assert cli.main(["animate", str(path), "-o", str(out), "--width", "4000"]) == 2
    err = capsys.readouterr().err
    assert "megapixels; the limit is 250: give --width" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_animate_reports_progress_per_frame(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop import progress

    seen: list[tuple[int, int | None]] = []

    class Recording:
        def __init__(self, label: str, total: int, **_: Any) -> None:
            pass

        def __enter__(self) -> Any:
            return lambda done, what="", total=None: seen.append((done, total))

        def __exit__(self, *exc: Any) -> None:
            return None

    monkeypatch.setattr(progress, "progress_line", Recording)
    assert cli.main(["animate", str(SCENARIOS / "default.toml"), "-o", str(tmp_path / "a.gif"), "--width", "200"]) == 0
    capsys.readouterr()
    frames = [d for d, total in seen if total is not None]
    assert frames == list(range(1, len(frames) + 1)) and len(frames) >= 12 and all(total == len(frames) for _, total in seen if total)


def test_a_quantizer_out_of_memory_is_said_plainly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Pillow's quantizer reports a failed allocation as "quantization error" (how a 2 GB run of the issue ended):
    the command says the input is too large, status 2, and leaves no file."""
    from PIL import Image

    real = Image.Image.convert

    def failing(self: Image.Image, mode: str | None = None, *a: Any, **k: Any) -> Image.Image:
        if mode == "P":
            raise ValueError("quantization error")
        return real(self, mode, *a, **k)

    monkeypatch.setattr(Image.Image, "convert", failing)
    out = tmp_path / "a.gif"
    assert cli.main(["animate", str(SCENARIOS / "default.toml"), "-o", str(out), "--width", "200"]) == 2
    err = capsys.readouterr().err
    assert "too large" in err and "MemoryError" in err and "quantization error" not in err
    assert not out.exists()
