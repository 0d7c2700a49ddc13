"""After Fire, what is drawn is what is touched, and an export can be replayed (issue 33, item 3).

robotech-scatter's file fixes its rolls (a scatter to direction 2, 6"); Fire with Dice free rolls
them all with seed 1 (strike 2, direction 5, 4"). The Fire result is what the view draws, so it is
also what the loupe measures, what a click selects, what a drag moves, and what an export writes,
with the rolls it shows; ``tabletop explain --rolls`` replays that export.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pygame
import pytest

from tabletop.app import overlays
from tabletop.app.live import placed_templates
from tabletop.app.pilot import Pilot
from tabletop.app.share_export import export_as
from tabletop.cli import main as cli_main
from tabletop.replay import ROLLS_FENCE, read_roll_log

from .conftest import ROOT, SCENARIOS

TABLE = SCENARIOS / "robotech-scatter.toml"
CTRL = pygame.KMOD_LCTRL


def fired(p: Pilot) -> None:
    """Enter, then frames until the Fire animation is over."""
    assert p.app.state.view.odds_dice_free  # the default: Fire rolls every die
    p.key(pygame.K_RETURN)
    for _ in range(600):
        if p.app.firing is not None and p.app.firing.done:
            break
        p.step()
    assert p.app.firing is not None and p.app.firing.done


@pytest.fixture()
def pilot():  # type: ignore[no-untyped-def]
    p = Pilot(TABLE)
    fired(p)
    yield p
    p.close()


def test_fire_moves_the_template_away_from_the_files_landing(pilot: Pilot) -> None:
    shown = placed_templates(pilot.app.adjudication())["blast"]
    live = placed_templates(pilot.app.live_adjudication())["blast"]
    assert math.dist(shown.focus, live.focus) > 50  # the two landings are far apart: the tests below can tell them apart


def test_the_loupe_measures_the_template_drawn(pilot: Pilot, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    monkeypatch.setattr(overlays, "draw_loupe", lambda surface, rect, model, placed, view: seen.append((placed, view)))
    tomahawk = pilot.app.scenario.model("destroid")
    pilot.click(pilot.screen_of(tomahawk.centre))
    pilot.step()
    assert pilot.app.state.selection is not None and pilot.app.state.selection.id == "destroid"
    assert pilot.app.firing is not None and pilot.app.adjudication() is pilot.app.firing.adjudication  # a click is not an edit
    placed, view = seen[-1]
    result = pilot.app.adjudication().results[0]
    assert placed == result.resolution.placed  # the landed template, not the file's landing
    # The hover label's margin is the shown coverage's; the loupe says the same.
    assert view.margin_mm == pytest.approx(result.resolution.coverage.models["destroid"].margin_mm, abs=0.01)


def test_the_landed_template_is_selected_by_a_click_and_the_files_landing_is_not(pilot: Pilot) -> None:
    shown = placed_templates(pilot.app.adjudication())["blast"]
    live = placed_templates(pilot.app.live_adjudication())["blast"]
    pilot.click(pilot.screen_of(live.focus))
    pilot.step()
    assert pilot.app.state.selection is None or pilot.app.state.selection.id != "blast"
    pilot.key(pygame.K_ESCAPE)
    pilot.move(pilot.screen_of(shown.focus))
    assert pilot.app.hovered is not None and pilot.app.hovered.id == "blast"
    pilot.click(pilot.screen_of(shown.focus))
    pilot.step()
    assert pilot.app.state.selection is not None and pilot.app.state.selection.id == "blast"


def test_the_landed_template_can_be_dragged(pilot: Pilot) -> None:
    shown = placed_templates(pilot.app.adjudication())["blast"]
    before = pilot.app.scenario.template("blast")
    start = pilot.screen_of(shown.focus)
    pilot.drag(start, (start[0] + 40, start[1] + 30))
    assert pilot.app.state.dirty
    assert pilot.app.scenario.template("blast").placement != before.placement


def _export_with_ctrl_e(p: Pilot, path: Path) -> None:
    """Ctrl+E, the path typed over the suggested one, Enter: as a user exports."""
    p.key(pygame.K_e, mod=CTRL)
    p.step()
    [dialog] = list(p.app._dialogs)
    p.replace_text(dialog.file_path_text_line, str(path))
    p.key(pygame.K_RETURN)
    p.step(3)
    assert not p.app._dialogs, "Enter in the path box confirms the export"


def test_markdown_export_records_the_rolls_it_shows_and_explain_replays_them(pilot: Pilot, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ruling.md"
    _export_with_ctrl_e(pilot, out)
    text = out.read_text(encoding="utf-8")
    fired_rolls = {rec.name: rec.total for rec in pilot.app.firing.adjudication.results[0].rolls}  # type: ignore[union-attr]
    assert fired_rolls != pilot.app.scenario.template("blast").rolls  # Dice free: not the file's rolls
    assert read_roll_log(out) == {"blast": {k: [v] for k, v in fired_rolls.items()}}
    assert "dice free" in text.lower() and ROLLS_FENCE in text
    for name, total in fired_rolls.items():
        assert re.search(rf"\| {name} \| [0-9]*D6 \| {total}\b", text), name
    # A forum reader with the table and the export gets the same steps, word for word.
    assert cli_main(["explain", str(TABLE), "--markdown", "--rolls", str(out)]) == 0
    replayed = capsys.readouterr().out
    body = text.split("\n## Dice")[0]
    body = "\n".join(line for line in body.splitlines() if not line.startswith("*Dice free") and not line.startswith("*The rolls are listed"))
    assert re.sub(r"\n+", "\n", replayed.strip()) == re.sub(r"\n+", "\n", body.strip())
    # ... and without the log, the file's own rolls: another ruling (what the issue saw).
    assert cli_main(["explain", str(TABLE), "--markdown"]) == 0
    assert re.sub(r"\n+", "\n", capsys.readouterr().out.strip()) != re.sub(r"\n+", "\n", body.strip())


def test_check_replays_the_rolls_too(pilot: Pilot, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    out = tmp_path / "ruling.md"
    assert export_as(pilot.app, str(out))
    assert cli_main(["check", str(TABLE), "--json", "--rolls", str(out)]) == 0
    [template] = json.loads(capsys.readouterr().out)["templates"]
    coverage = pilot.app.firing.adjudication.results[0].resolution.coverage  # type: ignore[union-attr]
    # where the Fire landed: every model's margin to the template drawn in the app
    assert {k: v["margin_mm"] for k, v in template["models"].items()} == pytest.approx(
        {k: c.margin_mm for k, c in coverage.models.items()}, abs=1e-3
    )
    assert template["resolution"]["scatter_direction"] == 5 and template["resolution"]["scatter_distance"] == 4.0


def test_a_roll_log_for_another_table_is_refused_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.toml"
    log.write_text("[nosuch]\nstrike = [2]\n\n[blast]\nstrike = 'x'\n")
    assert cli_main(["explain", str(TABLE), "--rolls", str(log)]) == 2
    err = capsys.readouterr().err
    assert "blast.strike" in err and "whole numbers" in err and "line 5" not in err
    log.write_text("[nosuch]\nstrike = [2]\n")
    assert cli_main(["check", str(TABLE), "--rolls", str(log)]) == 2
    assert "no template 'nosuch'" in capsys.readouterr().err


def test_a_short_roll_log_warns_that_the_seed_rolled_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.toml"
    log.write_text("[blast]\nstrike = [2]\n")
    assert cli_main(["check", str(TABLE), "--rolls", str(log)]) == 0
    assert "blast.scatter_direction" in capsys.readouterr().err


def test_explain_with_rolls_runs_as_a_command(tmp_path: Path) -> None:
    log = tmp_path / "log.toml"
    log.write_text("[blast]\nstrike = [6]\n")
    done = subprocess.run([sys.executable, "-m", "tabletop.cli", "explain", str(TABLE), "--rolls", str(log)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "6" in done.stdout
