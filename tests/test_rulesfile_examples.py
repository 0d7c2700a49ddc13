"""The three worked examples of examples/rules/: each ruling worked by hand, then checked, explained,
presented and animated exactly as a built-in ruleset's scenario.

Lengths are in inches (the files' unit); a 1" base has radius 0.5. A round base is under a circle
of radius R when (distance between centres) - 0.5 <= R, wholly under when distance + 0.5 <= R.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pygame
import pytest
from PIL import Image, ImageChops

from tabletop import rulesets
from tabletop.adjudicate import Adjudication, adjudicate
from tabletop.cli import main
from tabletop.explain import beats, explain_text
from tabletop.odds import compute_odds
from tabletop.scenario_io import load

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "rules"
IN = 25.4


def judged(name: str, **kwargs: object) -> Adjudication:
    return adjudicate(load(EXAMPLES / f"{name}.toml"), **kwargs)  # type: ignore[arg-type]


def statuses(adj: Adjudication) -> dict[str, str]:
    return {m: str(c.status) for m, c in adj.results[0].resolution.coverage.models.items()}


# --------------------------------------------------------------------------- 1. club blast


def test_club_blast_worked_by_hand() -> None:
    """Gunner (10, 10), Aim 3, fires the large 5" blast (radius 2.5) at target (30, 10): line of fire 0°.

    To hit: 2D6 = 4, + Aim 3 = 7 < 8: a miss. Scatter die 5: not 1-2, an arrow. Direction D12 = 3:
    3 o'clock, 90° clockwise from away (0°), so -90°: south. Distance 2D6 7 - Aim 3 = 4": the hole
    lands at (30, 6).
      target (30, 10): 4 away, 4 - 0.5 = 3.5 > 2.5: not under (outside).
      a (30, 6.5): 0.5 away, 0.5 + 0.5 = 1 <= 2.5: wholly under, hit.
      b (32.2, 6): 2.2 away: under (1.7), not wholly (2.7): partial; the wall at x = 31.4 lies
        between the hole and b: in cover.
      c (28.2, 4.5): sqrt(1.8² + 1.5²) = 2.343: under, partial.
      d (30, 3.3): 2.7 away: under (2.2), partial.
      pal (27.5, 6), the gunner's side: 2.5 away: under (2.0), partial; friends are hit too.
      far (40, 20): outside.
    Partial rolls in table order b, c, d, pal: 5 hit, 2 miss, 4 hit, 6 hit.
    Damage 2 each to a, b, d, pal. Armour saves in id order a, b, d, pal with 3, 4, 3, 6:
      a 3 < 5 fails: 2; b 4 + 1 (cover) = 5 >= 5 saved: 0; d 3 < 4 fails: 2; pal 6 >= 6 saved: 0.
    """
    adj = judged("club-blast")
    res = adj.results[0].resolution
    d = res.details
    assert d["to_hit"] == {"roll": 4, "total": 7, "needs": 8, "hit": False}
    assert d["scatter"]["die"] == 5 and d["scatter"]["direction"] == 3 and d["scatter"]["distance"] == pytest.approx(4.0)
    assert d["impact_point"] == pytest.approx([30.0, 6.0])
    assert res.placed.focus == pytest.approx((30 * IN, 6 * IN))
    s = statuses(adj)
    assert s["target"] == "outside" and s["far"] == "outside" and s["gunner"] == "outside"
    assert sorted(res.affected) == ["a", "b", "c", "d", "pal"]
    assert d["damage"] == {"a": 2, "b": 2, "c": 0, "d": 2, "pal": 2}
    assert d["final_damage"] == {"a": 2, "b": 0, "c": 0, "d": 2, "pal": 0}
    assert res.model_details["b"]["why"].endswith("in cover")
    assert d["saves"]["b"]["armour"] == {"needs": 5, "roll": 4, "total": 5, "success": True}
    assert [(r.name, r.total) for r in adj.results[0].rolls] == [
        ("to_hit", 4), ("scatter_die", 5), ("scatter_direction", 3), ("scatter_distance", 7),
        ("partial", 5), ("partial", 2), ("partial", 4), ("partial", 6),
        ("armour", 3), ("armour", 4), ("armour", 3), ("armour", 6),
    ]


def test_club_blast_a_hit_on_the_scatter_die_stays_and_partials_setting() -> None:
    """Scatter die 1 shows HIT: the hole stays on the target (30, 10). Under it then: the target
    (wholly), nobody else (a at (30, 6.5) is 3.5 away: 3.0 > 2.5). With the partials setting at 1
    a partly covered model is always hit (the D6 is still rolled: 1 >= 1)."""
    s = load(EXAMPLES / "club-blast.toml")
    import dataclasses

    t = dataclasses.replace(s.templates[0], rolls={"to_hit": 2, "scatter_die": 1, "armour": [1]})
    adj = adjudicate(dataclasses.replace(s, templates=(t,)))
    res = adj.results[0].resolution
    assert res.details["hit"] is True and res.details["scattered"] is False
    assert sorted(res.affected) == ["target"]
    assert res.details["final_damage"] == {"target": 2}
    t = dataclasses.replace(s.templates[0], rolls={**s.templates[0].rolls, "partial": [1, 1, 1, 1]})
    adj = adjudicate(dataclasses.replace(s, templates=(t,)), settings={"partials": 1})
    assert adj.results[0].resolution.details["damage"] == {"a": 2, "b": 2, "c": 2, "d": 2, "pal": 2}


# --------------------------------------------------------------------------- 2. club flamer


def test_club_flamer_worked_by_hand() -> None:
    """Burner (10, 10), base radius 0.5, flames along heading 0: the teardrop's tip touches the base at
    (10.5, 10). Tip circle r1 = 0.25 centred at x = 10.75; end circle r2 = 1.5 centred at
    x = 10.5 + 8 - 1.5 = 17; straight flanks between.
      friend (13, 10.6): 0.6 off the axis where the flank is about 0.25 + (2.25/6.25)·1.25 ≈ 0.7 wide:
        under (its base reaches the axis), partly.
      x1 (14.5, 10): on the axis: wholly under.
      y1 (17, 12.3): 2.3 from the end circle's centre: 2.3 - 1.5 = 0.8 > 0.5: not under.
      y2 (17, 11.8): 1.8 - 1.5 = 0.3 < 0.5: under (margin 0.2" = 5.08 mm).
      z (16.5, 8.8): 1.3 from the end centre, its centre inside the template; but the stone wall
        (x 14.9-15.1, y 7.5-9.6) hides it from the tip: from (10.5, 10) the wall spans bearings
        -29.6° to -5.2°, z's base -16.0° to -6.6°: total cover.
      far (20, 10): 3 from the end centre: outside. The burner is the template's user.
    No roll to hit; one hit each to friend, x1, y2. Saves in id order friend, x1, y2 with 2, 4, 6:
      friend 2 < 3 keeps its hit; x1 4 >= 4 and y2 6 >= 5 shrug theirs off.
    """
    adj = judged("club-flamer")
    res = adj.results[0].resolution
    assert res.placed.focus == pytest.approx((10.5 * IN, 10 * IN))
    s = statuses(adj)
    assert s == {"burner": "user", "friend": "affected", "x1": "affected", "y1": "outside", "y2": "affected", "z": "total_cover", "far": "outside"}
    assert res.coverage.models["y2"].margin_mm == pytest.approx(0.2 * IN, abs=1e-6)
    assert res.details["damage"] == {"friend": 1, "x1": 1, "y2": 1}
    assert res.details["final_damage"] == {"friend": 1, "x1": 0, "y2": 0}
    assert [r.total for r in adj.results[0].rolls] == [2, 4, 6]
    assert "to_hit" not in res.details


# --------------------------------------------------------------------------- 3. club shell


def test_club_shell_worked_by_hand() -> None:
    """The shell bursts at (6.5, 6.5) on a 1" grid: its square is (6, 6); the burst has radius 3 and
    catches a model whose centre is within 3. Damage 8, halved per square out (Chebyshev):
      gz (6.3, 6.6): square (6, 6), 0 out: 8.
      n1 (7.4, 6.2): square (7, 6), 1 out: 4.
      diag (4.6, 8.4): square (4, 8), 2 out (a diagonal step counts 1); centre 2.687 away: 2.
      n2 (8.5, 8.5): square (8, 8), 2 out; centre 2.828 away: 2.
      n3 (9.3, 6.5): square (9, 6), 3 out; centre 2.8 away: 1.
      edge (6.5, 9.8): its base reaches the burst (3.3 - 0.5 = 2.8 < 3) but its centre is 3.3 away:
        not caught (outside), nothing.
    """
    adj = judged("club-shell")
    res = adj.results[0].resolution
    assert res.details["damage"] == {"diag": 2, "gz": 8, "n1": 4, "n2": 2, "n3": 1}
    assert statuses(adj)["edge"] == "outside"
    assert math.hypot(4.6 - 6.5, 8.4 - 6.5) == pytest.approx(2.687, abs=1e-3)
    assert adj.results[0].rolls == ()
    steps = {st.data.get("model"): st.rule for st in res.steps if st.data.get("model")}
    assert steps["gz"] == "effect_ground" and steps["n3"] == "effect_square"


# --------------------------------------------------------------------------- as a built-in


EXAMPLE_NAMES = ["club-blast", "club-flamer", "club-shell"]


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_checked_like_a_built_in(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "check", str(EXAMPLES / f"{name}.rules.toml"), "--scenario", str(EXAMPLES / f"{name}.toml")]) == 0
    capsys.readouterr()
    assert main(["check", "--json", str(EXAMPLES / f"{name}.toml")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["templates"][0]["allowed"] is True
    assert report["ruleset"].endswith(f"{name}.rules.toml")
    assert main(["rules", "explain", str(EXAMPLES / f"{name}.rules.toml")]) == 0
    words = capsys.readouterr().out
    assert "What each model suffers" in words and "Under the template" in words


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_explained_with_a_quote_for_every_step(name: str) -> None:
    adj = judged(name)
    rules_path = EXAMPLES / f"{name}.rules.toml"
    text = " ".join(rules_path.with_suffix("").with_suffix(".txt").read_text(encoding="utf-8").split())
    ruleset = rulesets.get(adj.scenario.ruleset)
    for step in adj.results[0].resolution.steps:
        rule = ruleset.step_rule(step) if ruleset.step_rule else None
        assert rule is not None, step.text
        assert " ".join(rule[1].split()) in text, (step.text, rule[1])
    explained = explain_text(adj, markdown=True)
    assert explained.count("> ") >= len(adj.results[0].resolution.steps)


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_presented_step_by_step(name: str) -> None:
    from tabletop.app.present import Presenter

    pygame.init()
    screen = pygame.display.set_mode((1280, 720))
    try:
        adj = judged(name)
        presenter = Presenter(adj)
        assert len(presenter.beats) == len(beats(adj)) >= 3
        shots = []
        for i in range(len(presenter.beats)):
            presenter.draw(screen)
            assert presenter.index == i
            shots.append(pygame.image.tobytes(screen, "RGB"))
            for event in (pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RIGHT, mod=0, unicode="", scancode=0),):
                presenter.process_event(event)
        assert len(set(shots)) == len(shots), "two steps look the same"
    finally:
        pygame.display.quit()


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_animated(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"{name}.gif"
    assert main(["animate", str(EXAMPLES / f"{name}.toml"), "-o", str(out), "--width", "480"]) == 0
    assert "frames" in capsys.readouterr().out
    with Image.open(out) as im:
        frames = []
        for k in range(im.n_frames):
            im.seek(k)
            frames.append(im.convert("RGB").copy())
    assert len(frames) >= 10
    assert any(ImageChops.difference(a, b).getbbox() is not None for a, b in zip(frames, frames[1:]))


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_rendered_with_odds(name: str, tmp_path: Path) -> None:
    out = tmp_path / f"{name}.png"
    assert main(["render", str(EXAMPLES / f"{name}.toml"), "-o", str(out), "--odds", "--size", "800x500"]) == 0
    assert Image.open(out).size == (800, 500)
    odds = compute_odds(load(EXAMPLES / f"{name}.toml"))
    assert all(0.0 <= m.p_affected <= 1.0 for m in odds.templates[0].models.values())
