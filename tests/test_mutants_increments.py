"""``increments``: worked answers for what the survivors of the mutation run showed untested.

The rules' outcomes on hand-made tables are frozen in the golden rulings (``tests/golden/tables/inc-*.toml``);
here: the paths no loadable table reaches (no grid, an unusable weapon), every validation message
word for word, the work limit's arithmetic, the squares a base stands in, what the ruleset draws
for its outline, and the panel and marks of hand-built details. Equivalents: docs/mutants/increments.md.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tabletop import rulesets
from tabletop.adjudicate import Adjudication, adjudicate, resolve_template
from tabletop.coverage import table_geometry
from tabletop.dice import Dice
from tabletop.rulesets.increments.limits import blast_work_problems
from tabletop.rulesets.increments.rules import Blast, Grid, WeaponError, occupied, parse_weapon, weapon_problems
from tabletop.scenario_io import loads

INC = rulesets.get("increments")
IN = 25.4


def table(models: str = "", templates: str = "", grid: str = "grid = 1\n", size: tuple[float, float] = (12, 12)) -> str:
    return f'format = 1\nruleset = "increments"\n[table]\nwidth = {size[0]}\ndepth = {size[1]}\n{grid}{models}{templates}'


def model(mid: str, x: float, y: float, base: float | str = 1, extra: str = "") -> str:
    return f'[[model]]\nid = "{mid}"\nx = {x}\ny = {y}\nbase = {base}\n{extra}'


def blast(tid: str = "b", at: str = "[5.5, 5.5]", weapon: str = "{ damage = 8 }", extra: str = "") -> str:
    return f'[[template]]\nid = "{tid}"\nshape = {{ kind = "circle", diameter = 3 }}\nat = {at}\nweapon = {weapon}\n{extra}'


def _resolve(scenario: Any) -> Any:
    return resolve_template(scenario, scenario.templates[0], table_geometry(scenario), Dice(1)).resolution


# ------------------------------------------------------------------ what no loadable table reaches


def test_a_table_without_a_grid_is_refused_with_its_coverage_kept() -> None:
    s = loads(table(model("m", 5.5, 5.5), blast()))
    res = _resolve(dataclasses.replace(s, table=dataclasses.replace(s.table, grid=None)))
    assert res.allowed is False and res.reason == "increments: the table has no grid (table.grid)"
    assert res.affected == () and res.coverage is not None and res.coverage.placed.id == "b"


def test_an_unusable_weapon_is_refused_naming_every_problem() -> None:
    s = loads(table(model("m", 5.5, 5.5), blast()))
    bad = dataclasses.replace(s.templates[0], weapon={"damage": -1, "shape": "square"})
    res = _resolve(dataclasses.replace(s, templates=(bad,)))
    assert res.allowed is False and res.affected == () and res.coverage is not None
    assert res.reason == "increments: weapon.damage must be a whole number >= 0, got -1; weapon.shape must be 'circle' or 'cone', got 'square'"


# ------------------------------------------------------------------ validation, word for word


@pytest.mark.parametrize(
    ("weapon", "problems"),
    [
        ({}, [("damage", "is required (the blast's full damage at Ground Zero)")]),
        ({"damage": True}, [("damage", "must be a whole number >= 0, got True")]),
        ({"damage": 0}, []),
        ({"damage": 4, "max_damage": 0}, []),
        ({"damage": 4, "max_damage": -1}, [("max_damage", "must be a whole number >= 0, got -1")]),
        ({"damage": 4, "increment": 0}, [("increment", "must be a whole number >= 1, got 0")]),
        ({"damage": 4, "shape": "square"}, [("shape", "must be 'circle' or 'cone', got 'square'")]),
        ({"damage": 4, "ground_zero": [1, 2]}, []),
        ({"damage": 4, "ground_zero": [1, 2, 3]}, [("ground_zero", "must be [col, row] of Ground Zero's lower-left square, got [1, 2, 3]")]),
        ({"damage": 4, "ground_zero": [1, "a"]}, [("ground_zero", "must be [col, row] of Ground Zero's lower-left square, got [1, 'a']")]),
        ({"damage": 4, "ground_zero": [1, True]}, [("ground_zero", "must be [col, row] of Ground Zero's lower-left square, got [1, True]")]),
        ({"damage": 4, "smothered_by": 5}, [("smothered_by", "must be a model id, got 5")]),
    ],
)
def test_weapon_problems_word_for_word(weapon: dict[str, Any], problems: list[tuple[str, str]]) -> None:
    assert weapon_problems(weapon) == problems


def test_parse_weapon_reads_ground_zero_as_col_row() -> None:
    assert parse_weapon({"damage": 1, "ground_zero": [2, 3]}).ground_zero == (2, 3)
    with pytest.raises(WeaponError, match="^weapon.damage is required"):
        parse_weapon({})


def _scenario_with(*weapons: dict[str, Any], grid: bool = True) -> Any:
    s = loads(table(model("m", 5.5, 5.5), "".join(blast(f"b{i}") for i in range(len(weapons)))))
    s = dataclasses.replace(s, templates=tuple(dataclasses.replace(t, weapon=w) for t, w in zip(s.templates, weapons)))
    return s if grid else dataclasses.replace(s, table=dataclasses.replace(s.table, grid=None))


def test_validate_names_the_missing_grid_and_an_unknown_smotherer() -> None:
    assert INC.validate(_scenario_with({"damage": 4}, grid=False)) == [
        ("table.grid", "the increments ruleset needs a square grid: set table.grid (the square size)")
    ]
    assert INC.validate(_scenario_with({"damage": 4, "smothered_by": "ghost"})) == [
        ("template[0].weapon.smothered_by", "'ghost' is not a model on this table")
    ]
    assert INC.validate(_scenario_with({"damage": 4, "smothered_by": "m"})) == []


def _limit(*weapons: dict[str, Any]) -> list[tuple[str, str]]:
    return blast_work_problems(_scenario_with(*weapons))


def _too_wide(i: int, damage: int, increment: int, across: int) -> tuple[str, str]:
    return (f"template[{i}].weapon.increment",
            f"a blast of {damage} damage in increments of {increment} squares spreads {across} squares across; at most 201 (lower increment or damage)")


def test_the_work_limit_arithmetic() -> None:
    # 8 damage: (8 + 12 * 4).bit_length() = 56 -> 6 rings; 16 * (2 * 6 + 1) = 208 squares across.
    assert _limit({"damage": 8, "increment": 16}) == [_too_wide(0, 8, 16, 208)]
    assert _limit({"damage": 8, "increment": 15}) == []  # 195
    # The larger of damage and max_damage counts (a smothering model takes the maximum).
    assert _limit({"damage": 1, "max_damage": 8, "increment": 16}) == [_too_wide(0, 8, 16, 208)]
    assert _limit({"damage": 8, "max_damage": 1, "increment": 16}) == [_too_wide(0, 8, 16, 208)]
    # 1 damage: (1 + 12).bit_length() = 4 rings; 30 * 9 = 270.
    assert _limit({"damage": 1, "increment": 30}) == [_too_wide(0, 1, 30, 270)]
    # Increment 1 by default: 2**100 damage spreads (2**100 + 1212).bit_length() = 101 rings, 203 across.
    assert _limit({"damage": 2**100}) == [_too_wide(0, 2**100, 1, 203)]
    # Exactly 201 across is allowed: 2**32 damage, 33 rings, 3 * 67.
    assert _limit({"damage": 2**32, "increment": 3}) == []
    assert _limit({"damage": 2**32, "increment": 4}) == [_too_wide(0, 2**32, 4, 268)]


def test_the_work_limit_leaves_unusable_weapons_to_validation_and_goes_on() -> None:
    assert _limit({"increment": 300}) == []  # no damage
    assert _limit({"damage": True, "increment": 300}) == []  # a bool is no damage
    assert _limit({"damage": 0, "increment": 300}) == []  # nothing spreads
    assert _limit({"damage": 8, "increment": "x"}) == []
    assert _limit({"damage": 8, "increment": True}) == []
    assert _limit({"damage": 0}, {"damage": 8, "increment": 16}) == [_too_wide(1, 8, 16, 208)]


# ------------------------------------------------------------------ the grid


def test_ring_damage_halves_and_stops_past_63_rings() -> None:
    b = Blast(Grid(IN), (5, 5), (5, 5), (0, 0), 1, 8, None, "chebyshev", 12, 12)
    assert [b.ring_damage(k) for k in (0, 1, 2, 3, 4)] == [8, 4, 2, 1, 0]
    assert b.ring_damage(63) == 0 and b.ring_damage(200) == 0


def test_a_one_damage_blast_reaches_ground_zero_only() -> None:
    b = Blast(Grid(IN), (5, 5), (5, 5), (0, 0), 1, 1, None, "chebyshev", 12, 12)
    assert b.rings == 0 and b.squares() == [(5, 5, 0)]


def test_the_nearest_ground_zero_square_is_clamped_into_the_block() -> None:
    b = Blast(Grid(1.0), (4, 5), (4, 5), (0, 1), 2, 8, None, "chebyshev", 12, 12)
    assert b.nearest_gz_centre(2, 2) == (4.5, 4.5)
    assert b.nearest_gz_centre(9, 1) == (5.5, 4.5)
    assert b.nearest_gz_centre(5, 9) == (5.5, 5.5)


def test_a_model_far_beyond_the_blast_takes_nothing() -> None:
    # A 0.1" grid on a 12" table: a model 7" away is 70 rings out, past the 63 a shift can count.
    text = table(model("near", 5.55, 5.55, 0.1) + model("far", 12.45, 5.55, 0.1), blast(at="[5.55, 5.55]", weapon="{ damage = 4 }"), grid="grid = 0.1\n", size=(13, 12))
    t = adjudicate(loads(text)).results[0].resolution
    assert t.model_details["far"]["damage"] == 0 and t.coverage.models["far"].status == "outside"
    assert t.model_details["near"]["damage"] == 4


@pytest.mark.parametrize(
    ("x", "y", "base", "squares"),
    [
        (5.5, 5.5, 1, [(5, 5)]),  # a 1" base filling a 1" square touches, but does not stand in, its neighbours
        (6.0, 5.5, 1, [(5, 5), (6, 5)]),  # centred on the line x = 6": its centre is in square 6 (was 5: 6 * 25.4 / 25.4 < 6)
        (6.0, 6.0, 1, [(5, 5), (6, 5), (5, 6), (6, 6)]),
        (6.4, 6.4, 1, [(6, 5), (5, 6), (6, 6)]),  # the corner of square [5, 5] is 0.57" away: out of reach
        (5.5, 5.5, 0.05, [(5, 5)]),  # a tiny base still stands in its own square
    ],
)
def test_the_squares_a_round_base_stands_in(x: float, y: float, base: float, squares: list[tuple[int, int]]) -> None:
    s = loads(table(model("m", x, y, base)))
    assert sorted(occupied(s.models[0], Grid(IN), "base")) == sorted(squares)
    assert occupied(s.models[0], Grid(IN), "centre") == [(int(x), int(y))]


def test_the_squares_an_oval_base_stands_in() -> None:
    # 2" x 1" along x, centred (7, 5.5): x 6..8, y 5..6 — exactly square row 5, columns 6 and 7.
    s = loads(table(model("m", 7, 5.5, '{ shape = "oval", length = 2, width = 1 }', "facing = 0\n")))
    assert sorted(occupied(s.models[0], Grid(IN), "base")) == [(6, 5), (7, 5)]
    # Turned to 90°: x 6.5..7.5, y 4.5..6.5.
    s = loads(table(model("m", 7, 5.5, '{ shape = "oval", length = 2, width = 1 }', "facing = 90\n")))
    assert sorted(occupied(s.models[0], Grid(IN), "base")) == [(6, 4), (6, 5), (6, 6), (7, 4), (7, 5), (7, 6)]


# ------------------------------------------------------------------ what the ruleset lays on the table


def test_a_chebyshev_circle_is_drawn_as_its_square_block() -> None:
    adj = adjudicate(loads(table(model("m", 5.5, 5.5), blast(weapon="{ damage = 8, increment = 2 }"))), tolerance_mm=3.0,
                     settings={"distance": "chebyshev"})
    res = adj.results[0].resolution
    placed = res.coverage.placed
    # 8 damage: rings 0-3; Ground Zero 2 squares; the block is 2 + 2 * 2 * 3 = 14 squares a side.
    assert placed.id == "b" and placed.shape.kind == "rect"
    assert placed.shape.length == placed.shape.width == pytest.approx(14 * IN)
    assert placed.shape.label == adj.scenario.templates[0].shape.label
    assert placed.focus == pytest.approx((6 * IN, 6 * IN)) and placed.heading == 0.0 and placed.user is None  # the block [5..6]: its centre
    assert res.coverage.tolerance_mm == 3.0 and res.coverage.visible is None


def test_a_one_damage_circle_is_drawn_as_one_square_and_other_distances_keep_the_circle() -> None:
    square = {"distance": "chebyshev"}
    placed = adjudicate(loads(table(model("m", 5.5, 5.5), blast(weapon="{ damage = 1 }"))), settings=square).results[0].resolution.coverage.placed
    assert placed.shape.kind == "rect" and placed.shape.length == pytest.approx(IN)
    for distance in ("euclidean", "alternating"):  # round readings keep the file's circle (the squares are drawn)
        placed = adjudicate(loads(table(model("m", 5.5, 5.5), blast())), settings={"distance": distance}).results[0].resolution.coverage.placed
        assert placed.shape.kind == "circle"


def test_a_cone_keeps_its_heading_to_six_decimals() -> None:
    text = table(model("gun", 1, 1) + model("m", 9.5, 6.5), '[[template]]\nid = "c"\nshape = { kind = "cone", length = 4, angle = 90 }\n'
                 'impact = { attacker = "gun", at = [6.5, 4.2] }\nweapon = { damage = 8, shape = "cone" }\n')
    res = adjudicate(loads(text)).results[0].resolution
    assert res.details["heading"] == round(res.coverage.placed.heading, 6) == 30.191623  # atan2(3.2, 5.5)
    assert res.coverage.placed.heading != round(res.coverage.placed.heading, 6)


def test_the_user_of_a_direct_blast_is_never_contested() -> None:
    text = table(model("f", 3.5, 3.5) + model("v", 4.5, 4.5), '[[template]]\nid = "d"\nshape = { kind = "circle", diameter = 3 }\n'
                 'direct = { attacker = "f", heading = 0 }\nweapon = { damage = 4 }\n')
    cov = adjudicate(loads(text), tolerance_mm=100.0).results[0].resolution.coverage
    assert cov.models["f"].status == "user" and cov.models["f"].contested is False
    assert cov.models["v"].contested is True  # within 100 mm, and not the user


# ------------------------------------------------------------------ panel and marks of hand-built details


def _adj(text: str, details: dict[str, Any] | None = None, model_details: dict[str, Any] | None = None) -> Adjudication:
    adj = adjudicate(loads(text))
    r = adj.results[0]
    res = r.resolution
    res = dataclasses.replace(res, details=res.details if details is None else details, model_details=res.model_details if model_details is None else model_details)
    return dataclasses.replace(adj, results=(dataclasses.replace(r, resolution=res),))


NAMED = table(model("m", 5.5, 5.5, extra='name = "Trooper"\n') + model("n", 8.5, 5.5), blast())


def test_panel_of_ids_that_are_not_on_the_table_shows_the_ids() -> None:
    details = {
        "damage": {"ghost": 3, "m": 0, "spook": 0},
        "cover": {"wall9": {"holds": True}, "wall8": {"roll": 4, "dc": 6, "holds": False}},
        "contained": {"enclosure": "room9", "breached": True},
        "smothered_by": "ghost",
    }
    adj = _adj(NAMED, details, {"ghost": {"ring": 2}, "spook": {"blocked_by": ["wall9"]}})
    assert INC.panel_lines(adj.scenario, adj.results[0]) == [
        ("bad", "ghost: 3 damage (ring 2)"),
        ("good", "spook: 0 — blocked by wall9"),
        ("note", "untouched: Trooper"),
        ("note", "cover wall9: cannot fail: holds"),
        ("note", "cover wall8: save 4 vs 6: fails"),
        ("warn", "contained by room9 (breached): +0 damage inside"),
        ("note", "smothered by ghost"),
    ]


def test_panel_of_a_refusal_and_of_bare_details() -> None:
    adj = _adj(NAMED, {}, {})
    res = dataclasses.replace(adj.results[0].resolution, allowed=False, reason="because")
    assert INC.panel_lines(adj.scenario, dataclasses.replace(adj.results[0], resolution=res)) == [("bad", "NOT ALLOWED: because")]
    adj = _adj(NAMED, {"damage": {"m": 0}}, {})
    assert INC.panel_lines(adj.scenario, adj.results[0]) == [("note", "untouched: Trooper")]


def test_marks_of_hand_built_details() -> None:
    adj = _adj(NAMED)
    d = dict(adj.results[0].resolution.details)
    d.pop("shape")
    d["smothered_by"] = "m"
    d["contained"] = {"enclosure": "hut", "bonus": 5, "rolls": "2+3"}
    art = INC.marks(_adj(NAMED, d))
    assert art.sublabels["b"] == "circle: 8 · 4 · 2 · 1 by ring"  # no shape given: a circle
    badge = [b for b in art.badges if b.prefer == "above"][0]
    assert [line for line, _ in badge.lines] == ["m smothers it: 8 − CON = 8", "contained by hut: +5 ()", "nothing gets out"]
    # A model's detail without a damage is 0 damage; two pieces that stop it are both named.
    art = INC.marks(_adj(NAMED, model_details={"m": {"blocked_by": ["wall", "rock"]}, "n": {}}))
    assert [t.text for t in art.tags] == ["0"]
    notes = [b for b in art.badges if b.prefer == "below"]
    assert [line for line, _ in notes[0].lines] == ["blocked by wall, rock"]


def test_marks_skip_refusals_and_name_the_highest_damage() -> None:
    adj = _adj(NAMED)
    refused = dataclasses.replace(adj.results[0].resolution, allowed=False)
    art = INC.marks(dataclasses.replace(adj, results=(dataclasses.replace(adj.results[0], resolution=refused),)))
    assert art.tints == [] and art.cells == []
    d = dict(adj.results[0].resolution.details)
    d["squares"] = [{"col": 5, "row": 5, "ring": 0}]  # no damage given: 0, drawn as nothing; the scale still runs to 1
    art = INC.marks(_adj(NAMED, d))
    assert art.cells == [] and ("heat", "damage per square (1 \u2013 1)") in [(k, t) for k, t, _ in art.legend]


# ------------------------------------------------------------------ fifth round: what the survivors showed


def test_the_work_limit_counts_the_contained_bonus_in_its_rings() -> None:
    # 50 damage: (50 + 12 * 6).bit_length() = 122 -> 7 rings; 13 * 15 = 195 across: allowed (with 13
    # per ring instead of 12 it would be 128 -> 8 rings, 221 across).
    assert _limit({"damage": 50, "increment": 13}) == []
    assert _limit({"damage": 50, "increment": 14}) == [_too_wide(0, 50, 14, 210)]


def test_a_cover_save_tie_holds_under_either_rule() -> None:
    from tabletop.rulesets.increments.rules import _holds, save_dc

    assert _holds(5, 5, 3, "roll_under_save") is True and _holds(6, 5, 3, "roll_under_save") is False
    dc = save_dc(8, "d20_plus_save_vs_damage")
    assert _holds(dc - 2, 2, 8, "d20_plus_save_vs_damage") is True and _holds(dc - 3, 2, 8, "d20_plus_save_vs_damage") is False


def _rect_margin(cx: float, facing: float) -> float:
    """The worked answer for a 20 x 10 mm base centred at (cx, 50) on box(0, 0, 100, 100): its deepest vertex's depth
    (its centre's, 0, at least), or minus the gap when it lies wholly beyond x = 100."""
    import math

    c, s = math.cos(math.radians(facing)), math.sin(math.radians(facing))
    xs = [cx + c * u - s * v for u in (-10, 10) for v in (-5, 5)]
    if min(xs) >= 100:
        return 100 - min(xs)
    return max([0.0, *(100 - x for x in xs if x < 100)])


@pytest.mark.parametrize("facing", [0, 30, 75, 120, 165, 210, 255, 300, 345])
@pytest.mark.parametrize("cx", [101.0, 104.0, 109.5])
def test_how_far_a_rect_base_reaches_into_the_blast(cx: float, facing: float) -> None:
    from shapely.geometry import box

    from tabletop.rulesets.increments.rules import _margin

    s = loads(table(model("r", 1, 1, base='{ shape = "rect", length = "20mm", width = "10mm" }', extra=f"facing = {facing}\n")))
    m = dataclasses.replace(s.models[0], x=cx, y=50.0)
    assert _margin(m, box(0, 0, 100, 100), "base") == pytest.approx(_rect_margin(cx, facing), abs=1e-9)


def test_nothing_reaches_an_empty_blast() -> None:
    import math

    from shapely.geometry import Polygon

    from tabletop.rulesets.increments.rules import _margin

    s = loads(table(model("m", 5, 5)))
    assert _margin(s.models[0], Polygon(), "base") == -math.inf


def test_the_drawn_block_keeps_the_templates_label_and_user() -> None:
    text = table(model("f", 3.5, 3.5) + model("v", 8.5, 8.5), '[[template]]\nid = "d"\nshape = { kind = "circle", diameter = 3, label = "Frag" }\n'
                 'direct = { attacker = "f", heading = 0 }\nweapon = { damage = 4 }\n')
    placed = adjudicate(loads(text), settings={"distance": "chebyshev"}).results[0].resolution.coverage.placed
    assert placed.shape.kind == "rect" and placed.shape.label == "Frag" and placed.user == "f"


def test_a_cone_heading_is_rounded_to_six_decimals_not_seven() -> None:
    text = table(model("gun", 1, 1) + model("m", 9.5, 6.5), '[[template]]\nid = "c"\nshape = { kind = "cone", length = 4, angle = 90 }\n'
                 'impact = { attacker = "gun", at = [6.5, 4.3] }\nweapon = { damage = 8, shape = "cone" }\n')
    res = adjudicate(loads(text)).results[0].resolution
    h = res.coverage.placed.heading
    assert round(h, 6) != round(h, 7)
    assert res.details["heading"] == round(h, 6)


def test_terrain_in_a_one_damage_square_is_hit() -> None:
    # 8 damage in 1-square increments: rings of 8, 4, 2, 1; the rubble lies in ring 3 only (damage 1).
    text = table(model("m", 5.5, 5.5), blast()) + '[[terrain]]\nid = "rubble"\nblocks_los = false\npoints = [[8.2, 5.2], [8.8, 5.2], [8.8, 5.8], [8.2, 5.8]]\n'
    res = adjudicate(loads(text)).results[0].resolution
    assert {"col": 8, "row": 5, "ring": 3, "damage": 1} in res.details["squares"]
    assert "rubble" in res.coverage.terrain_affected


def test_an_enclosure_listed_first_does_not_hide_the_cover_after_it() -> None:
    # A bunker holding the whole blast, then a wall without a save across part of it.
    text = table(model("m", 5.5, 5.5), blast()) + (
        '[[terrain]]\nid = "bunker"\ntags = ["enclosure"]\npoints = [[0.5, 0.5], [11.5, 0.5], [11.5, 11.5], [0.5, 11.5]]\n'
        '[[terrain]]\nid = "wall"\npoints = [[6.8, 3], [7.0, 3], [7.0, 8], [6.8, 8]]\n'
    )
    res = adjudicate(loads(text)).results[0].resolution
    assert res.details["contained"] is None
    assert res.details["cover"] == {"wall": {"save": None, "holds": True}}


def test_a_round_base_reaching_a_hair_into_a_square_stands_in_it() -> None:
    # Its edge 0.0005 mm past the line x = 6": the true circle stands in square 6, which a 256-sided
    # polygon (turned so no corner points along x) would miss by 0.0005 mm.
    s = loads(table(model("m", 5.5, 5.5, 1, "facing = 0.703125\n")))
    m = dataclasses.replace(s.models[0], x=6 * IN - IN / 2 + 0.0005)
    assert sorted(occupied(m, Grid(IN), "base")) == [(5, 5), (6, 5)]


def test_numbers_on_light_heat_are_drawn_dark() -> None:
    # 4 damage under a 37-damage top: heat colour summing to 481, just light enough for dark digits.
    from tabletop.marks import heat_colour

    assert sum(heat_colour(4, 37)) == 481
    d = dict(_adj(NAMED).results[0].resolution.details)
    d["squares"] = [{"col": 5, "row": 5, "ring": 0, "damage": 37}, {"col": 6, "row": 5, "ring": 3, "damage": 4}]
    cells = {c.text: c.dark for c in INC.marks(_adj(NAMED, d)).cells}
    assert cells["4"] is True


def test_the_outline_of_a_blast_on_a_fine_grid_keeps_every_step() -> None:
    # On a 1 mm grid a round blast's outline is a staircase of 1 mm steps: drawn as it is, its area is
    # exactly its squares' (a simplified outline would cut the corners).
    import shapely

    text = table(model("m", 5.5, 5.5), blast(), grid='grid = "1mm"\n')
    adj = adjudicate(loads(text), settings={"distance": "euclidean"})
    squares = adj.results[0].resolution.details["squares"]
    art = INC.marks(adj)
    from tabletop.rulesets.increments.marks import TEMPLATE_EDGE

    rings = [s.points for s in art.strokes if s.closed and s.colour == TEMPLATE_EDGE]
    area = sum(shapely.Polygon(r).area for r in rings)
    assert len(squares) > 20 and area == pytest.approx(len(squares) * 1.0)


def test_a_base_over_the_table_corner_behind_a_wall_is_in_total_cover() -> None:
    # Its base hangs over the lower-left corner: of its four squares only [0, 0] is on the table (the
    # blast reaches all four: Ground Zero [2, 2] is 2 and 3 squares away), and a wall without a save
    # stands between Ground Zero and all of them. Reachable, stopped: Total Cover.
    text = table(model("m", 0.1, 0.1), blast(at="[2.5, 2.5]")) + '[[terrain]]\nid = "wall"\npoints = [[1.2, -0.5], [1.4, -0.5], [1.4, 2.5], [-0.5, 2.5], [-0.5, 2.3], [1.2, 2.3]]\n'
    res = adjudicate(loads(text)).results[0].resolution
    assert sorted(occupied(loads(text).models[0], Grid(IN), "base")) == [(-1, -1), (-1, 0), (0, -1), (0, 0)]
    assert res.coverage.models["m"].status == "total_cover"
    assert res.model_details["m"]["blocked_by"] == ["wall"]


def test_cover_standing_on_a_ground_zero_square_does_not_shield_it() -> None:
    # A 2-square Ground Zero [5..6] x [5..6]; a crate without a save sits on the middle of square [6, 6]
    # (not on the origin square's centre): the blast starts in that square, so nothing stands between it and the trooper there.
    text = table(model("m", 6.5, 6.5, 0.3), blast(weapon="{ damage = 8, increment = 2 }")) + (
        '[[terrain]]\nid = "crate"\npoints = [[6.3, 6.3], [6.7, 6.3], [6.7, 6.7], [6.3, 6.7]]\n'
    )
    res = adjudicate(loads(text)).results[0].resolution
    assert res.details["ground_zero"]["cols"] == [5, 6] and res.details["ground_zero"]["rows"] == [5, 6]
    assert res.details["damage"]["m"] == 8 and res.coverage.models["m"].status == "affected"
    # (It does shield the squares beyond it, whose lines from Ground Zero start inside it.)
    assert res.details["cover"]["crate"] == {"save": None, "holds": True}
