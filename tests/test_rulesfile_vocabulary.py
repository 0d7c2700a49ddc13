"""Words of the rules-file vocabulary the worked examples do not use, each on a small table worked by hand:
a fraction of the base, cover that blocks by height, sight from the focus by silhouettes, a template at the
end of a range, to-hit modifiers by range band, rerolls, directions numbered from north anticlockwise,
a save that halves, a save that cancels the attack."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tabletop.adjudicate import adjudicate
from tabletop.scenario_io import load

HEAD = '''format = 1
units = "in"
[game]
name = "vocab"
title = "Vocabulary"
[source]
cite = "Tabletop's tests"
sentences = ["A test sentence."]
[stats]
SV = { default = 7 }
[weapon]
range = {}
'''

TABLE = '''format = 1
ruleset = "vocab.rules.toml"
units = "in"
[table]
width = 40
depth = 40
'''


def model(mid: str, x: float, y: float, base: float = 1.0, extra: str = "") -> str:
    return f'[[model]]\nid = "{mid}"\nx = {x}\ny = {y}\nbase = {base}\n{extra}\n'


def judge(tmp_path: Path, rules: str, table: str, **kwargs: object):  # type: ignore[no-untyped-def]
    (tmp_path / "vocab.rules.toml").write_text(HEAD + rules, encoding="utf-8")
    (tmp_path / "t.toml").write_text(TABLE + table, encoding="utf-8")
    return adjudicate(load(tmp_path / "t.toml"), **kwargs).results[0]  # type: ignore[arg-type]


def test_a_fraction_of_the_base(tmp_path: Path) -> None:
    """A 4" circle (R = 2) at (20, 20). A 2" base (r = 1) centred d = 2" away, its centre on the edge: the lens
    r²·acos((d²+r²-R²)/2dr) + R²·acos((d²+R²-r²)/2dR) - ½·sqrt((-d+r+R)(d+r-R)(d-r+R)(d+r+R))
    = 1.3181 + 4·0.5054 - 1.9365 = 1.4036, a share of 1.4036 / π = 0.447 (a circle's edge bends away from it).
    With fraction = 0.4 it counts, with 0.5 it does not. A base d = 1.4" away: 1.9513 + 4·0.4828 - 1.2998 =
    2.5826, a share of 0.822: it counts for both."""
    table = model("edge", 22, 20, 2) + model("in", 20, 21.4, 2) + '[[template]]\nid = "t"\nshape = { kind = "circle", diameter = 4 }\nat = [20, 20]\n'
    from tabletop.model import Base, Model, PlacedTemplate, TemplateShape
    from tabletop.rulesfile.values import area_share

    burst = PlacedTemplate("t", TemplateShape.circle(4 * 25.4), (20 * 25.4, 20 * 25.4), 0.0)
    assert area_share(burst, Model("e", 22 * 25.4, 20 * 25.4, Base.round(2 * 25.4))) == pytest.approx(0.447, abs=0.001)
    assert area_share(burst, Model("i", 20 * 25.4, 21.4 * 25.4, Base.round(2 * 25.4))) == pytest.approx(0.822, abs=0.001)
    loose = judge(tmp_path, '[under]\ncounts = "fraction"\nfraction = 0.4\n', table)
    assert sorted(loose.resolution.affected) == ["edge", "in"]
    strict = judge(tmp_path, '[under]\ncounts = "fraction"\nfraction = 0.5\n', table)
    assert sorted(strict.resolution.affected) == ["in"]
    assert strict.resolution.coverage.models["edge"].status == "outside"


def test_cover_that_blocks_by_height(tmp_path: Path) -> None:
    """A wall 30 mm high between the focus (20, 20) and a model at (22, 20): it blocks a model 25 mm tall
    (total cover), not one 50 mm tall; a hedge of another kind never blocks."""
    rules = '[[cover]]\nkinds = ["wall"]\nmin_height = "model.height"\neffect = "blocks"\n'
    terrain = '[[terrain]]\nid = "w"\nkind = "wall"\nheight = "30mm"\nrect = { x = 21, y = 20, length = 0.2, width = 3 }\n'
    tpl = '[[template]]\nid = "t"\nshape = { kind = "circle", diameter = 5 }\nat = [20, 20]\n'
    short = judge(tmp_path, rules, model("m", 22, 20, 1, 'height = "25mm"') + terrain + tpl)
    assert short.resolution.coverage.models["m"].status == "total_cover"
    tall = judge(tmp_path, rules, model("m", 22, 20, 1, 'height = "50mm"') + terrain + tpl)
    assert tall.resolution.affected == ("m",)
    hedge = judge(tmp_path, rules, model("m", 22, 20, 1, 'height = "25mm"') + terrain.replace('"wall"', '"hedge"') + tpl)
    assert hedge.resolution.affected == ("m",)


def test_sight_from_the_focus_by_silhouettes(tmp_path: Path) -> None:
    """A building (no height: it hides at any height) between the focus (20, 20) and a model at (23, 20),
    wide enough to cover its whole base as seen from the focus: hidden. With sight "none": under it."""
    terrain = '[[terrain]]\nid = "b"\nrect = { x = 21.5, y = 20, length = 0.5, width = 4 }\n'
    table = model("m", 23, 20) + terrain + '[[template]]\nid = "t"\nshape = { kind = "circle", diameter = 7 }\nat = [20, 20]\n'
    hidden = judge(tmp_path, '[sight]\nfrom_focus = "silhouettes"\n', table)
    assert hidden.resolution.coverage.models["m"].status == "total_cover"
    assert any(s.rule == "sight_focus" for s in hidden.resolution.steps)
    open_ = judge(tmp_path, '[sight]\nfrom_focus = "none"\n', table)
    assert open_.resolution.affected == ("m",)


def test_a_template_at_the_end_of_a_range(tmp_path: Path) -> None:
    """Placement at the end of weapon.range (8") from the firer at (5, 5) along its heading 90° (up the
    table): the circle's focus at (5, 13)."""
    table = model("gun", 5, 5) + model("m", 5, 13.5) + '[[template]]\nid = "t"\nshape = { kind = "circle", diameter = 2 }\ndirect = { attacker = "gun", heading = 90 }\nweapon = { range = 8 }\n'
    res = judge(tmp_path, '[placement]\non = "range"\ndistance = "weapon.range"\n', table).resolution
    assert res.placed.focus == pytest.approx((5 * 25.4, 13 * 25.4))
    assert res.affected == ("m",)


def test_to_hit_modifiers_by_range_band_and_a_reroll(tmp_path: Path) -> None:
    """2D6 >= 8, -1 beyond 12" (range centre to centre); 2s rolled again once. The target is 20" away.
    Rolls [2, 9]: the 2 is rolled again, 9 - 1 = 8: a hit. Rolls [8]: 8 - 1 = 7: a miss."""
    rules = (
        '[target]\nrange_measure = "centre"\n[to_hit]\nroll = "2d6 >= 8"\nreroll = [2]\n'
        'modifiers = [{ if = "range > 12in", add = -1 }]\n'
    )
    base = model("gun", 5, 5) + model("m", 25, 5) + '[[template]]\nid = "t"\nshape = { kind = "circle", diameter = 2 }\nimpact = { attacker = "gun", target = "m" }\n'
    hit = judge(tmp_path, rules, base + "rolls = { to_hit = [2, 9] }\n")
    assert [(r.name, r.total) for r in hit.rolls] == [("to_hit", 2), ("to_hit", 9)]
    assert hit.resolution.details["to_hit"] == {"roll": 9, "total": 8, "needs": 8, "hit": True}
    miss = judge(tmp_path, rules, base + "rolls = { to_hit = [8] }\n")
    assert miss.resolution.details["to_hit"]["hit"] is False


def test_directions_from_north_anticlockwise(tmp_path: Path) -> None:
    """Always scatters; a D4: face 1 north (90°), then anticlockwise every 90°: face 2 points west.
    2D6 = 7 inches: from (20, 20) to (13, 20)."""
    rules = '[scatter]\nwhen = "always"\ndirection = { roll = "d4", first = "north", turn = "anticlockwise" }\n'
    table = model("m", 13, 20) + '[[template]]\nid = "t"\nshape = { kind = "circle", diameter = 2 }\nat = [20, 20]\nrolls = { scatter_direction = 2, scatter_distance = 7 }\n'
    res = judge(tmp_path, rules, table).resolution
    assert res.placed.focus == pytest.approx((13 * 25.4, 20 * 25.4))
    assert math.isclose(res.details["scatter"]["heading"], 180.0)
    assert res.affected == ("m",)


def test_a_save_that_halves_and_one_that_cancels(tmp_path: Path) -> None:
    """Damage 5 to both models; "tough" (D6 >= 4, models in weapon.tough) halves it: 5 // 2 = 2. Then
    "jammer" (D6 >= 6, anyone the attack hits, in id order) cancels the whole attack on a 6."""
    rules = (
        '[weapon.tough]\ndefault = []\n[weapon.damage]\ndefault = 5\n'
        '[effect]\nkind = "damage"\namount = "weapon.damage"\n'
        '[saves.tough]\nroll = "d6"\nneeds = 4\nwho = "weapon.tough"\nsuccess = "half"\n'
        '[saves.jammer]\nroll = "d6"\nneeds = 6\nattempt = "hit"\nsuccess = "cancel"\n'
    )
    table = model("a", 20, 20) + model("b", 20.5, 20) + '[[template]]\nid = "t"\nshape = { kind = "circle", diameter = 3 }\nat = [20, 20]\nweapon = { tough = ["b"] }\n'
    halved = judge(tmp_path, rules, table + "rolls = { tough = 5, jammer = [1, 2] }\n").resolution.details
    assert halved["damage"] == {"a": 5, "b": 5} and halved["final_damage"] == {"a": 5, "b": 2}
    cancelled = judge(tmp_path, rules, table + "rolls = { tough = 5, jammer = [6] }\n")
    assert cancelled.resolution.details["final_damage"] == {"a": 0, "b": 0}
    assert cancelled.resolution.details["cancelled_by"] == "a"
    assert [(r.name, r.total) for r in cancelled.rolls] == [("tough", 5), ("jammer", 6)]  # b never tries: already cancelled
