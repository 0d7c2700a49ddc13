"""The app's pure core: commands, undo/redo, live adjudication cache, hit-testing, autosave."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import time

import pytest

from tabletop.adjudicate import adjudicate
from tabletop.app import autosave
from tabletop.app.hit import closest_contact, item_at, model_at, template_at
from tabletop.app.live import LiveAdjudicator, placed_templates
from tabletop.app.state import (
    AddModel,
    AddTemplate,
    CommandError,
    DeleteItem,
    EditModel,
    MarkSaved,
    MoveModel,
    MoveTemplate,
    Redo,
    Ref,
    RotateTemplate,
    Select,
    SetRuleset,
    Undo,
    apply,
    new_state,
    parse_numbers,
)
from tabletop.sample_tables import big_table as stress_scenario
from tabletop.model import At, Base, Direct, Impact, Model, PlacedTemplate, Template, TemplateShape
from tabletop.report import report_json
from tabletop.scenario_io import load, save

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "scenarios" / "default.toml"


@pytest.fixture()
def state():
    return new_state(load(DEFAULT), str(DEFAULT))


def test_pure_modules_do_not_import_pygame() -> None:
    code = (
        "import sys; import tabletop.app, tabletop.app.state, tabletop.app.history, tabletop.app.live, "
        "tabletop.app.hit, tabletop.app.autosave, tabletop.app.shortcuts, tabletop.app.odds_worker, "
        "tabletop.app.elevation, tabletop.app.results, tabletop.app.advice, tabletop.app.validate; print('pygame' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


def test_move_model_is_undoable_and_marks_dirty(state) -> None:
    assert not state.dirty
    s2 = apply(state, MoveModel("sgt", 100.0, 120.0))
    assert s2.scenario.model("sgt").centre == (100.0, 120.0)
    assert s2.dirty
    s3 = apply(s2, Undo())
    assert s3.scenario is state.scenario
    assert not s3.dirty  # back to the saved scenario
    s4 = apply(s3, Redo())
    assert s4.scenario.model("sgt").centre == (100.0, 120.0)


def test_one_drag_is_one_undo_step(state) -> None:
    s = state
    for i in range(10):
        s = apply(s, MoveTemplate("blast", 100.0 + i, 200.0, gesture=7))
    assert len(s.history.undo) == 1
    s = apply(s, MoveTemplate("blast", 300.0, 200.0, gesture=8))
    assert len(s.history.undo) == 2
    s = apply(apply(s, Undo()), Undo())
    assert s.scenario == state.scenario


def test_a_cancelled_gesture_is_as_if_it_never_happened(state) -> None:
    """Worked by hand: move A (gesture 1), undo it (redo holds A), drag B (gesture 2, three moves: one undo step, the redo
    cleared), cancel gesture 2: the scenario is the start, the undo empty, the redo A again; Redo gives A."""
    from tabletop.app.state import CancelGesture

    a = apply(state, MoveModel("sgt", 100.0, 120.0, gesture=1))
    back = apply(a, Undo())
    assert back.history.redo == (a.scenario,)
    s = back
    for i in range(3):
        s = apply(s, MoveTemplate("blast", 100.0 + i, 200.0, gesture=2))
    assert s.history.redo == () and len(s.history.undo) == 1
    assert apply(s, CancelGesture(3)) is s  # another gesture's cancel changes nothing
    cancelled = apply(s, CancelGesture(2))
    assert cancelled.scenario is state.scenario and cancelled.history.undo == () and cancelled.history.redo == (a.scenario,)
    assert apply(cancelled, Redo()).scenario == a.scenario
    assert not cancelled.dirty


def test_noop_edit_leaves_history_alone(state) -> None:
    m = state.scenario.model("sgt")
    assert apply(state, MoveModel("sgt", m.x, m.y)) is state


def test_template_moves_by_placement(state) -> None:
    s = apply(state, MoveTemplate("blast", 50.0, 60.0))
    assert s.scenario.template("blast").placement == At(50.0, 60.0, 0.0)
    # A direct template pivots around its attacker: dragging sets its heading.
    gunner = s.scenario.model("gunner")
    s = apply(s, MoveTemplate("flame", gunner.x, gunner.y + 100.0))
    p = s.scenario.template("flame").placement
    assert isinstance(p, Direct) and p.heading == pytest.approx(90.0)
    s = apply(s, RotateTemplate("flame", 370.0))
    assert s.scenario.template("flame").placement.heading == pytest.approx(10.0)


def test_impact_template_reaims_at_a_point(state) -> None:
    s = apply(state, AddTemplate(Template("t9", TemplateShape.circle(76.2), Impact("gunner", target="sgt"))))
    s = apply(s, MoveTemplate("t9", 200.0, 220.0))
    assert s.scenario.template("t9").placement == Impact("gunner", None, (200.0, 220.0))


def test_delete_model_removes_templates_that_need_it(state) -> None:
    s = apply(state, DeleteItem(Ref("model", "gunner")))
    assert all(t.id != "flame" for t in s.scenario.templates)
    assert apply(s, Undo()).scenario == state.scenario


def test_selection_cleared_when_item_goes(state) -> None:
    s = apply(state, Select(Ref("model", "sgt")))
    s = apply(s, DeleteItem(Ref("model", "sgt")))
    assert s.selection is None


def test_bad_commands_raise(state) -> None:
    with pytest.raises(CommandError):
        apply(state, MoveModel("nobody", 0, 0))
    with pytest.raises(CommandError):
        apply(state, SetRuleset("chess"))
    with pytest.raises(CommandError):
        apply(state, AddModel(Model("sgt", 0, 0, Base.round(25))))
    with pytest.raises(CommandError):
        apply(state, EditModel("sgt", {"colour": "red"}))


def test_edit_model_and_mark_saved(state) -> None:
    s = apply(state, EditModel("sgt", {"side": "blue", "stats": {"DF": 4.0}, "tags": ("infantry",)}))
    m = s.scenario.model("sgt")
    assert (m.side, m.stats, m.tags) == ("blue", {"DF": 4.0}, ("infantry",))
    assert s.dirty
    s = apply(s, MarkSaved("/tmp/x.toml"))
    assert not s.dirty and s.path == "/tmp/x.toml"


def test_parse_numbers() -> None:
    assert parse_numbers("DF=4, GN=2.5; scatter=3 5") == {"DF": 4, "GN": 2.5, "scatter": [3, 5]}
    assert parse_numbers("  ") == {}
    with pytest.raises(ValueError):
        parse_numbers("DF")
    with pytest.raises(ValueError):
        parse_numbers("DF=x")


# --------------------------------------------------------------------------- live adjudication


def _report(adj):
    data = report_json(adj)
    for t in data["templates"]:
        t.pop("resolution", None)
    return data


def test_live_matches_core_and_reuses_geometry() -> None:
    s = stress_scenario()
    live = LiveAdjudicator()
    assert _report(live.adjudicate(s)) == _report(adjudicate(s))
    rebuilds = live.stats.geometry_rebuilds
    for i in range(5):
        t = s.templates[0]
        p = t.placement
        s = replace(s, templates=(replace(t, placement=replace(p, x=p.x + 7, y=p.y + 3)),) + s.templates[1:])
        live.adjudicate(s)
    assert live.stats.geometry_rebuilds == rebuilds  # moving a template keeps the geometry
    assert _report(live.adjudicate(s)) == _report(adjudicate(s))
    s = replace(s, models=(replace(s.models[0], x=s.models[0].x + 5),) + s.models[1:])
    assert _report(live.adjudicate(s)) == _report(adjudicate(s))
    assert live.stats.geometry_rebuilds == rebuilds + 1


def test_dragging_one_template_recomputes_only_that_template() -> None:
    """300 models, 60 buildings, 6 templates: each drag step costs one coverage, not six.

    (How long that takes is measured by `make bench`, not asserted here.)
    """
    s = stress_scenario()
    live = LiveAdjudicator()
    live.adjudicate(s)
    computed = live.stats.coverages_computed
    for i in range(12):
        t = s.templates[i % 6]
        p = t.placement
        moved = replace(t, placement=replace(p, x=p.x + 2, y=p.y + 1))
        s = replace(s, templates=tuple(moved if x.id == t.id else x for x in s.templates))
        live.adjudicate(s)
        assert live.stats.coverages_computed == computed + i + 1


def test_dragging_a_model_keeps_shadows_and_other_bases_margins() -> None:
    """A model drag rebuilds the geometry but reuses visible regions and shaped-base margins; answers stay exact."""
    from tabletop import scenario_io

    s = scenario_io.load(Path(__file__).resolve().parent.parent / "scenarios" / "default.toml")
    live = LiveAdjudicator()
    live.adjudicate(s)
    first = live.geometry(s)
    regions, margins = first.regions, first.shaped_margins
    assert regions and margins  # the default table has a building in a template and an oval base
    cached = dict(regions)
    i = next(k for k, m in enumerate(s.models) if m.base.is_round)
    for step in range(6):
        m = s.models[i]
        s = replace(s, models=s.models[:i] + (replace(m, x=m.x + 4.5, y=m.y - 2.0),) + s.models[i + 1 :])
        assert _report(live.adjudicate(s)) == _report(adjudicate(s))
        geometry = live.geometry(s)
        assert geometry is not first and geometry.regions is regions and geometry.shaped_margins is margins
    assert all(regions[k] is v for k, v in cached.items())  # no shadow was cast again
    # New terrain: shadows are cast afresh.
    t = s.terrain[0]
    s = replace(s, terrain=(replace(t, points=tuple((x + 3.0, y) for x, y in t.polygon), rect=None),) + s.terrain[1:])
    assert _report(live.adjudicate(s)) == _report(adjudicate(s))
    assert live.geometry(s).regions is not regions


# --------------------------------------------------------------------------- hit-testing


def test_hit_testing(state) -> None:
    s = state.scenario
    placed = placed_templates(adjudicate(s))
    sgt = s.model("sgt")
    assert model_at(s, sgt.x + 15.9, sgt.y) is not None  # 32 mm base: 16 mm radius
    assert model_at(s, sgt.x + 16.1, sgt.y) is None or model_at(s, sgt.x + 16.1, sgt.y).id != "sgt"
    blast = placed["blast"]
    assert template_at(placed, blast.focus[0] + 63.0, blast.focus[1]) == "blast"
    assert template_at(placed, blast.focus[0] + 64.0, blast.focus[1]) is None
    assert item_at(s, placed, sgt.x, sgt.y) == Ref("model", "sgt")
    assert item_at(s, placed, blast.focus[0] + 50, blast.focus[1] - 30) == Ref("template", "blast")
    # The selected template wins over the base on top of it.
    assert item_at(s, placed, sgt.x, sgt.y, prefer=Ref("template", "blast")) == Ref("template", "blast")


def test_closest_contact_is_exact_for_round_bases() -> None:
    placed = PlacedTemplate("t", TemplateShape.circle(127.0), (0.0, 0.0), 0.0)
    m = Model("m", 75.6, 0.0, Base.round(25.0))
    boundary, edge, gap = closest_contact(m, placed)
    assert gap == pytest.approx(-0.4, abs=1e-6)
    assert boundary == pytest.approx((63.5, 0.0), abs=1e-6)
    assert edge == pytest.approx((63.1, 0.0), abs=1e-6)


# --------------------------------------------------------------------------- autosave


def test_autosave_debounce_and_clean_exit(state) -> None:
    saver = autosave.Autosaver(debounce_s=2.0)
    saver.start(state.path)
    assert saver.marker_path.exists()
    s2 = apply(state, MoveModel("sgt", 10.0, 10.0))
    saver.changed(s2.scenario, now=100.0)
    assert not saver.tick(101.0)
    assert saver.tick(102.5)
    assert load(saver.autosave_path) == s2.scenario
    saver.stop()
    assert not saver.marker_path.exists() and not saver.autosave_path.exists() and not saver.folder.exists()


def test_recovery_offered_only_after_a_crash(state, tmp_path: Path) -> None:
    saver = autosave.Autosaver()
    saver.start("x.toml")
    save(state.scenario, saver.autosave_path)
    # A run still going (it holds its lock): no offer.
    assert autosave.find_recovery() is None
    # A run that is over (its lock released, as when its process dies): offer, with the file it was editing.
    saver.release()
    rec = autosave.find_recovery()
    assert rec is not None and rec.original_path == "x.toml" and rec.session == saver.session
    assert autosave.load_recovery(rec) == state.scenario
    autosave.discard_recovery(rec)
    assert autosave.find_recovery() is None and not saver.folder.exists()


# --------------------------------------------------------------------------- Infinity side elevation

ELEVATION_TABLE = """\
format = 1
title = "Infinity: troopers at different heights"
ruleset = "infinity"
units = "mm"

[table]
width = 300
depth = 200

[[model]]
id = "ground"
side = "red"
x = 100
y = 100
base = "25mm"
stats = { S = 2 }

[[model]]
id = "ledge"
side = "red"
x = 125
y = 100
z = 30
height = 20
base = "25mm"

[[model]]
id = "roof"
side = "red"
x = 75
y = 100
z = 37
height = 25
base = "25mm"

[[model]]
id = "balcony"
side = "red"
x = 100
y = 125
z = 50
base = "25mm"
stats = { S = 1 }

[[model]]
id = "far"
side = "red"
x = 200
y = 100
base = "25mm"

[[terrain]]
id = "wall"
rect = { x = 145, y = 100, length = 10, width = 20 }
height = 30
blocks_los = false

[[template]]
id = "mine"
shape = "infinity_circular"
at = [100, 100]
heading = 0
weapon = { side = "blue", focus_z = 0 }
"""


def _elevation(tmp_path: Path, settings: dict | None = None):  # type: ignore[no-untyped-def]
    from tabletop.app.elevation import elevation_profile

    path = tmp_path / "z.toml"
    path.write_text(ELEVATION_TABLE)
    scenario = load(path)
    adj = adjudicate(scenario, settings=settings)
    return elevation_profile(scenario, adj.results[0], adj.settings), adj


def test_elevation_profile_of_troopers_at_different_heights(tmp_path: Path) -> None:
    # Circular template, Ø 3" = 76.2 mm: R = 38.1 mm, its height is R; focus at (100, 100), z 0.
    # Along the axis at u the upright template reaches up to sqrt(R² - u²).
    profile, adj = _elevation(tmp_path)
    assert profile.vertical_model == "x" and profile.focus_z == 0.0
    assert profile.height == pytest.approx(38.1)
    assert (profile.u_min, profile.u_max) == (pytest.approx(-38.1), pytest.approx(38.1))
    assert max(z for _, z in profile.reach) == pytest.approx(38.1, abs=1e-3)
    t = {x.id: x for x in profile.troopers}
    assert set(t) == {"ground", "ledge", "roof", "balcony"}  # "far" is clear of the flat template
    # ground: S2 = 40 mm tall on the table, spans the focus level.
    g = t["ground"]
    assert (g.u0, g.u1, g.bottom, g.top, g.silhouette) == (pytest.approx(-12.5), pytest.approx(12.5), 0.0, 40.0, "S2")
    assert g.reached and g.on_axis and g.status == "affected"
    # ledge: base across u in [12.5, 37.5], silhouette 30..50; reach at u = 12.5 is 35.99 >= 30.
    le = t["ledge"]
    assert (le.u0, le.u1, le.bottom, le.top) == (pytest.approx(12.5), pytest.approx(37.5), 30.0, 50.0)
    assert le.reached and le.status == "affected"
    # roof: u in [-37.5, -12.5], from z 37: the reach tops out at 35.99, 1.01 mm short.
    r = t["roof"]
    assert not r.reached and r.status == "outside"
    assert "1.0 mm" in r.why
    # balcony: its base does not cross the axis (25 mm off it, radius 12.5): only the flat
    # template could reach it, and it stands at z 50 (S1, 25 mm tall).
    b = t["balcony"]
    assert not b.on_axis and not b.reached and (b.bottom, b.top) == (50.0, 75.0)
    assert b.status == "outside"
    # The wall crosses the axis from u = 40 to 50.
    assert [(x.id, round(x.u0, 6), round(x.u1, 6), x.height) for x in profile.blocks] == [("wall", 40.0, 50.0, 30.0)]
    # The statuses are the ruleset's own.
    res = adj.results[0].resolution
    assert {i for i in res.affected} == {"ground", "ledge"}


def test_elevation_profile_cylinder_reaches_the_roof(tmp_path: Path) -> None:
    profile, _adj = _elevation(tmp_path, {"vertical_model": "cylinder"})
    assert profile.vertical_model == "cylinder"
    zs = sorted({round(z, 6) for _, z in profile.reach})
    assert zs == [-38.1, 38.1]  # a box ±R around the focus level
    t = {x.id: x for x in profile.troopers}
    assert t["roof"].reached and t["roof"].status == "affected"  # 37 <= 38.1
    assert not t["balcony"].reached  # 50 > 38.1


# --------------------------------------------------------------------------- results lines per ruleset

RESULT_LINES = {
    "infinity-hellcat": ["shot 1 of burst 2 · impact on Fusilier 1",
                         "Fusilier 1: dodge PH (10) — clear line of fire to the attacker (full: nothing in between); may shoot back",
                         "Fusilier 3: dodge PH-3 (7) — no line of fire to the attacker: blocked by Fusilier 1 (fus1), Fusilier 2 (fus2) "
                         "[contested: blockers 1 mm smaller would show it; a judge's call]; cannot shoot back"],
    "infinity-hellcat-split": ["NULLIFIED: shot nullified: Alguacil (alguacil) is a friendly trooper in the area of effect",
                               "Fusilier 2: the shot is null: any ARO against the attacker is a Normal Roll (can shoot back)"],
    "robotech-hit": ["Strike 5 (GN 1): hit", "Battlepod (DF 3): 5 → 2 MD — dodge 2+1=3 vs 5: failed; rolls with impact 5→2",
                     "Battlepod (target) (DF 4): 10 → 0 MD — dodge 6+0=6 vs 5: dodged", "Bunker (structure): 5 MD",
                     "Command Points spent: Battlepod (target) 1, Battlepod 2"],
    "robotech-scatter": ["Strike 3 (GN 1): miss", "scatter: direction 2, 6\"; new Strike 5", "Battlepod (DF 3): 5 MD"],
    "robotech-volley": ["missile 4: Strike 5 → hit", "Battlepod (target) (DF 4): 24 → 12 MD — cannot dodge (4 missiles: Inescapable); rolls with impact 24→12",
                        "Command Points spent: Battlepod (target) 1"],
    "wwpd-battery-t": ["battery of 2 templates", "unit squad_a: 3 hits (only on a2, t)", "no Leadership test (no friendly model covered)"],
    "wwpd-friendly-fire": ["unit assault: 1 hit (only on r1)", "Leadership test for mortars: friendly r1 covered"],
    "wwpd-behind-building": ["NOT ALLOWED: wwpd: t is not in line of sight of gun: blocked by Ruined building (b1)"],
    "increments-circle": ["m1: 8 damage (ring 0)", "m6: 4 damage (ring 1)", "m5: 1 damage (ring 3)", "untouched: m4"],
    "increments-cone": ["c1: 2 damage (ring 1)", "c2: 1 damage (ring 2)"],
    "increments-contained": ["inside: 16 damage (ring 1)", "outside: 0 — blocked by cabin", "contained by cabin (holds): +12 damage inside"],
    "increments-wall": ["behind: 0 — blocked by wall", "cover wall: save 10 vs 4: holds"],
    "catastrophic-chain": ["EXPLODES (critical): RAV 2, AOE/2", "→ scout (set off by carrier): RAV 2, AOE/2, catches bomber, carrier",
                           "→ bomber (set off by scout): RAV 3, AOE/3, catches scout, tank", "VP: bomber counts as destroyed by red"],
    "catastrophic-dictator": ["Catastrophic Failure: no Defensive Fire this activation", "EXPLODES (critical): RAV 3, AOE/3"],
    "catastrophic-martyr": ["EXPLODES (critical): RAV 4, AOE/4 (+1 Martyr)", "VP: Keith's Hunter (4.5\" away) scores for patrick"],
    "catastrophic-assassin": ["EXPLODES (self destruct): RAV 2, AOE/2", "VP: Assassin counts as destroyed by alan"],
    "default": [],
}


@pytest.mark.parametrize("name", sorted(RESULT_LINES))
def test_ruleset_lines_for_every_bundled_scenario(name: str) -> None:
    from tabletop.app.results import ruleset_lines

    scenario = load(ROOT / "scenarios" / f"{name}.toml")
    adj = adjudicate(scenario, seed=1)
    lines = [text for r in adj.results for _style, text in ruleset_lines(scenario, r)]
    for want in RESULT_LINES[name]:
        assert want in lines, (want, lines)
    if scenario.ruleset == "none":
        assert lines == []


def test_every_bundled_scenario_has_expected_result_lines() -> None:
    assert {p.stem for p in (ROOT / "scenarios").glob("*.toml")} == set(RESULT_LINES)
