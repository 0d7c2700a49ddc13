"""The ``increments`` ruleset: per-square blast damage on a grid, cover, containment, smothering, 3D."""

from __future__ import annotations

from typing import Any

import pytest

from tabletop import rulesets
from tabletop.adjudicate import adjudicate
from tabletop.report import report_json
from tabletop.scenario_io import ScenarioError, load, loads

from .conftest import SCENARIOS


def run(source: str, settings: dict[str, Any] | None = None, replace: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
    """The first template's report entry for a bundled scenario (optionally edited) or TOML text."""
    if source.endswith(".toml"):
        text = (SCENARIOS / source).read_text(encoding="utf-8")
        for old, new in replace:
            assert old in text, old
            text = text.replace(old, new)
        scenario = loads(text, source)
    else:
        scenario = loads(source)
    return report_json(adjudicate(scenario, settings=settings))["templates"][0]


#: The square reading (issue 32 made the round one the default): a diagonal step counts 1 square, so a
#: circle blast is a square block. The hand counts below are for it.
SQUARE = {"distance": "chebyshev"}


def squares(t: dict[str, Any]) -> dict[tuple[int, int], int]:
    return {(s["col"], s["row"]): s["damage"] for s in t["resolution"]["squares"]}


def grid_table(models: str, weapon: str, placement: str = "at = [5.5, 5.5]", extra: str = "") -> str:
    """A 12" table with a 1" grid, the given models and one blast."""
    return (
        'format = 1\nruleset = "increments"\n[table]\nwidth = 12\ndepth = 12\ngrid = 1\n'
        f'{models}{extra}\n[[template]]\nid = "b"\nshape = {{ kind = "circle", diameter = 3 }}\n{placement}\nweapon = {weapon}\n'
    )


def model(mid: str, x: float, y: float, extra: str = "") -> str:
    return f'[[model]]\nid = "{mid}"\nx = {x}\ny = {y}\nbase = 1\n{extra}\n'


# ------------------------------------------------------------------ circle, rings, per-square damage


def test_circle_blast_damage_in_every_square_under_the_square_reading() -> None:
    t = run("increments-circle.toml", SQUARE)
    sq = squares(t)
    # Damage 8, increment 1, Ground Zero = square [5, 5]. Chebyshev rings: 8, 8//2 = 4, 4//2 = 2,
    # 2//2 = 1, then 0 (below 1: no effect). So a 7 x 7 block, cols/rows 2..8: 49 squares.
    assert len(sq) == 49
    for (c, r), dmg in sq.items():
        assert 2 <= c <= 8 and 2 <= r <= 8
        assert dmg == 8 >> max(abs(c - 5), abs(r - 5))
    assert sq[(5, 5)] == 8
    assert sq[(6, 4)] == 4
    assert sq[(3, 7)] == 2
    assert sq[(8, 2)] == 1
    assert (9, 5) not in sq
    res = t["resolution"]
    assert res["rings"] == [{"ring": 0, "damage": 8}, {"ring": 1, "damage": 4}, {"ring": 2, "damage": 2}, {"ring": 3, "damage": 1}]
    assert res["ground_zero"] == {"cols": [5, 5], "rows": [5, 5], "levels": [0, 0]}
    assert res["origin_square"] == [5, 5]
    # The drawn outline is the blast's true extent: a 7" square centred on Ground Zero's centre.
    assert (t["shape"], t["focus"], t["heading"]) == ("rect", [5.5, 5.5], 0.0)


def test_circle_blast_damage_per_model() -> None:
    t = run("increments-circle.toml")
    res = t["resolution"]
    # m1 (5.5, 5.5) fills square [5, 5]: 8.  m2 (7.5, 6.5) in [7, 6]: 2 squares out -> 2.
    # m3 (8.0, 5.5) straddles [7, 5] (2 out: 2) and [8, 5] (3 out: 1): the highest, 2.
    # m4 (9.5, 9.5) in [9, 9]: 4 out -> 0.  m5 (4.5, 5.5, z 3"): 1 square out, 3 levels up -> 3 out -> 1.
    # m6 (6.5, 5.5) shares an edge with Ground Zero but stands only in [6, 5]: 1 out -> 4, not 8.
    assert res["damage"] == {"m1": 8, "m2": 2, "m3": 2, "m4": 0, "m5": 1, "m6": 4}
    assert t["affected"] == ["m1", "m2", "m3", "m5", "m6"]
    assert t["models"]["m4"]["status"] == "outside"
    assert t["models"]["m5"]["levels_away"] == 3
    assert t["models"]["m3"]["ring"] == 2


def test_margins_are_measured_against_the_blast_squares() -> None:
    t = run("increments-circle.toml", SQUARE)
    m = t["models"]
    # The blast covers x, y in [2", 9"]. m1 centre (5.5, 5.5) is 3.5" from its edge, + r 0.5 = 4" = 101.6 mm.
    assert m["m1"]["margin_mm"] == pytest.approx(101.6, abs=1e-4)
    # m4 (9.5, 9.5): sqrt(0.5² + 0.5²) = 0.707107" from the corner (9, 9), - r 0.5 = -0.207107" = -5.2605 mm.
    assert m["m4"]["margin_mm"] == pytest.approx(-(2**0.5 * 0.5 - 0.5) * 25.4, abs=1e-4)
    assert m["m4"]["contested"] is False


def test_model_square_centre_setting() -> None:
    # m3's centre (8.0, 5.5) lies on the grid line: it belongs to the square to its right, [8, 5],
    # 3 out -> 1 (instead of 2 from [7, 5] under its base).
    t = run("increments-circle.toml", {"model_square": "centre"})
    assert t["resolution"]["damage"]["m3"] == 1
    assert t["resolution"]["damage"]["m2"] == 2


def test_alternating_diagonals_setting() -> None:
    t = run("increments-circle.toml", {"distance": "alternating"})
    sq = squares(t)
    # Distance = longer gap + shorter gap // 2. Reached while <= 3: offsets (a >= b) (0,0) 1 square,
    # (1,0) 4, (1,1) 4, (2,0) 4, (2,1) 8, (2,2) 4 [2 + 1 = 3], (3,0) 4, (3,1) 8 [3 + 0]; (3,2) = 4 is out.
    # 1 + 4 + 4 + 4 + 8 + 4 + 4 + 8 = 37 squares.
    assert len(sq) == 37
    assert sq[(7, 7)] == 1  # (2, 2): 3 out -> 8 >> 3 = 1
    assert sq[(8, 6)] == 1  # (3, 1): 3 out
    assert (8, 7) not in sq  # (3, 2): 4 out
    # m2 in [7, 6]: (2, 1) -> 2 + 0 = 2 out -> 2.
    assert t["resolution"]["damage"]["m2"] == 2


def test_euclidean_setting() -> None:
    t = run("increments-circle.toml", {"distance": "euclidean"})
    sq = squares(t)
    # ceil(sqrt(dx² + dy²)) <= 3, i.e. dx² + dy² <= 9: lattice points in a radius-3 disc:
    # rows dy = 0: 7, ±1: 2 * 5 (dx² <= 8), ±2: 2 * 5 (dx² <= 5), ±3: 2 * 1 -> 7 + 10 + 10 + 2 = 29.
    assert len(sq) == 29
    assert sq[(7, 7)] == 1  # sqrt(8) = 2.83 -> 3 out
    assert sq[(6, 6)] == 2  # sqrt(2) = 1.41 -> 2 out
    assert (8, 7) not in sq  # sqrt(13) = 3.6 -> 4 out


# ------------------------------------------------------------------ larger increments, Ground Zero shift


def test_larger_increment_and_shifted_ground_zero() -> None:
    weapon = "{ damage = 4, increment = 2 }"
    models = model("e", 7.5, 5.5) + model("f", 8.5, 5.5) + model("w", 2.5, 5.5)
    t = run(grid_table(models, weapon), SQUARE)
    res = t["resolution"]
    # Origin [5, 5]; a 2 x 2 Ground Zero holding it starts at 5 - (2 - 1) // 2 = 5: cols/rows 5..6.
    assert res["ground_zero"]["cols"] == [5, 6]
    assert res["ground_zero"]["rows"] == [5, 6]
    # Rings are 2 squares thick: 1-2 squares out -> 4 // 2 = 2; 3-4 out -> 1; 5+ -> 0.
    # e [7, 5]: 1 out -> 2. f [8, 5]: 2 out -> 2. w [2, 5]: 5 - 2 = 3 out -> 1.
    assert res["damage"] == {"e": 2, "f": 2, "w": 1}
    # Ground Zero shifted to start at [4, 4] (cols/rows 4..5, still holding [5, 5]):
    # e: 7 - 5 = 2 out -> 2; f: 3 out -> 1; w: 4 - 2 = 2 out -> 2.
    shifted = run(grid_table(models, "{ damage = 4, increment = 2, ground_zero = [4, 4] }"), SQUARE)
    assert shifted["resolution"]["damage"] == {"e": 2, "f": 1, "w": 2}
    # Ground Zero: 4 squares at 4. Ring 1 (1-2 out) fills cols/rows 2..7, a 6 x 6 block less Ground
    # Zero: 32 squares at 2. Ring 2 (3-4 out) reaches cols/rows 0..9: 10 x 10 = 100 squares in all.
    sq = squares(shifted)
    assert len(sq) == 100
    assert sum(1 for d in sq.values() if d == 4) == 4
    assert sum(1 for d in sq.values() if d == 2) == 6 * 6 - 4


def test_ground_zero_must_hold_the_origin_square() -> None:
    t = run(grid_table(model("e", 7.5, 5.5), "{ damage = 4, increment = 2, ground_zero = [2, 2] }"))
    assert t["allowed"] is False
    assert "does not hold the origin square [5, 5]" in t["reason"]


# ------------------------------------------------------------------ cone


def test_cone_damage_per_square() -> None:
    t = run("increments-cone.toml", SQUARE)
    sq = squares(t)
    # Emitted from torch's square [1, 5], heading 0°: a square is in the cone when the direction from
    # Ground Zero's centre to its centre is within 45°: |dy| <= dx. Damage 4, 2, 1.
    assert sq == {
        (1, 5): 4,
        (2, 4): 2, (2, 5): 2, (2, 6): 2,
        (3, 3): 1, (3, 4): 1, (3, 5): 1, (3, 6): 1, (3, 7): 1,
    }
    res = t["resolution"]
    # torch is the user of its own direct template; c1 [2, 5] -> 2; c2 [3, 7] -> 1;
    # c3 [2, 7] (dy 2 > dx 1: outside the cone) -> 0; c4 [0, 5] behind -> 0.
    assert res["damage"] == {"torch": 0, "c1": 2, "c2": 1, "c3": 0, "c4": 0}
    assert t["models"]["torch"]["status"] == "user"
    assert t["affected"] == ["c1", "c2"]
    assert t["models"]["c3"]["status"] == "outside"
    assert res["heading"] == 0.0


def test_diagonal_cone_from_a_point() -> None:
    t = run(grid_table("", '{ damage = 4, shape = "cone" }', "at = [5.5, 5.5]\nheading = 45"), SQUARE)
    # Heading 45°: directions 0°..90° are in, so dx >= 0 and dy >= 0.
    # Ring 1: [6, 5], [6, 6], [5, 6] -> 2; ring 2: [7, 5], [7, 6], [7, 7], [6, 7], [5, 7] -> 1.
    assert squares(t) == {
        (5, 5): 4,
        (6, 5): 2, (6, 6): 2, (5, 6): 2,
        (7, 5): 1, (7, 6): 1, (7, 7): 1, (6, 7): 1, (5, 7): 1,
    }


# ------------------------------------------------------------------ cover


def test_wall_stops_the_blast_when_it_makes_its_save() -> None:
    t = run("increments-wall.toml", SQUARE)
    res = t["resolution"]
    # Damage 16: rings 16, 8, 4, 2, 1. The wall (x 7.4..7.6, y 4..7) stands in column 7 (2 out): the
    # save's DC is 4. cover_save fixed 10: 10 + save 0 >= 4 -> holds.
    assert res["cover"] == {"wall": {"save": 0.0, "roll": 10, "dc": 4, "holds": True}}
    # near [4, 5]: 1 out -> 8. behind [8, 5]: the line from (5.5, 5.5) to (8.5, 5.5) crosses the wall -> 0.
    # wide [8, 8]: the line to (8.5, 8.5) passes x 7.4 at y 7.4, above the wall's end (7) -> 3 out -> 2.
    assert res["damage"] == {"near": 8, "behind": 0, "wide": 2}
    assert t["models"]["behind"]["status"] == "total_cover"
    assert t["models"]["behind"]["blocked_by"] == ["wall"]
    blocked = {(s["col"], s["row"]) for s in res["squares"] if s.get("blocked_by")}
    # Column 7 rows 4..6 (lines cross x 7.4 at y 4.55..6.45); column 8 rows 3..7 (e.g. [8, 7]: slope 2/3,
    # y at 7.4 = 6.77 < 7); column 9 rows 2..8 (e.g. [9, 8]: slope 3/4, y = 6.925 < 7).
    assert blocked == {(7, r) for r in range(4, 7)} | {(8, r) for r in range(3, 8)} | {(9, r) for r in range(2, 9)}
    assert all(s["damage"] == 0 for s in res["squares"] if s.get("blocked_by"))
    assert t["terrain_affected"] == ["wall"]


def test_wall_that_fails_its_save_lets_the_blast_through() -> None:
    # cover_save 3: 3 + 0 < 4 -> the wall fails; behind [8, 5] is 3 out -> 16 >> 3 = 2.
    t = run("increments-wall.toml", replace=(("cover_save = 10", "cover_save = 3"),))
    res = t["resolution"]
    assert res["cover"]["wall"]["holds"] is False
    assert res["damage"]["behind"] == 2
    assert not any(s.get("blocked_by") for s in res["squares"])


def test_roll_under_save_rule() -> None:
    # save 5, roll 3: 3 <= 5 holds under 'roll_under_save' (under the default, 3 + 5 >= 4 holds too);
    # roll 6: 6 > 5 fails, while the default 6 + 5 >= 4 holds.
    edit = (("stats = { save = 0 }", "stats = { save = 5 }"), ("cover_save = 10", "cover_save = 6"))
    assert run("increments-wall.toml", replace=edit)["resolution"]["damage"]["behind"] == 0
    t = run("increments-wall.toml", {"cover_save_rule": "roll_under_save"}, replace=edit)
    assert t["resolution"]["cover"]["wall"]["holds"] is False
    assert t["resolution"]["damage"]["behind"] == 2


@pytest.mark.parametrize(
    ("rule", "roll", "dc", "holds"),
    [
        # The wall (save 0) stands where the blast does 4 damage.
        # Default: d20 + save >= the damage: 4 >= 4 holds (a tie holds: the blast passes only on a failure).
        ("d20_plus_save_vs_damage", 4, 4, True),
        ("d20_plus_save_vs_damage", 3, 4, False),
        # Spycraft 2.0's Damage save: DC 10 + 4 // 2 = 12.
        ("dc_10_plus_half_damage", 12, 12, True),
        ("dc_10_plus_half_damage", 11, 12, False),
    ],
)
def test_cover_save_pass_rule(rule: str, roll: int, dc: int, holds: bool) -> None:
    t = run("increments-wall.toml", {"cover_save_rule": rule}, replace=(("cover_save = 10", f"cover_save = {roll}"),))
    assert t["resolution"]["cover"]["wall"] == {"save": 0.0, "roll": roll, "dc": dc, "holds": holds}
    assert t["resolution"]["damage"]["behind"] == (0 if holds else 2)


def test_cover_save_rule_default_is_the_seeds_reading() -> None:
    default, why = rulesets.get("increments").settings["cover_save_rule"]
    assert default == "d20_plus_save_vs_damage"
    assert "only proceeds through cover when the cover fails its Damage save" in why


def test_cover_without_a_save_always_holds_and_rolls_nothing() -> None:
    t = run("increments-wall.toml", replace=(("stats = { save = 0 }", ""), ("rolls = { cover_save = 10 }", "")))
    res = t["resolution"]
    assert res["cover"] == {"wall": {"save": None, "holds": True}}
    assert res["damage"]["behind"] == 0
    assert res["dice"] == []


# ------------------------------------------------------------------ contained blast


def test_contained_blast_gains_2d6_per_interrupted_increment() -> None:
    t = run("increments-contained.toml", SQUARE)
    res = t["resolution"]
    # The cabin spans x, y 4..7: squares 4..6 -> Ground Zero and ring 1 fit; rings 2 and 3 (damage 2, 1)
    # are interrupted: 2 x 2D6, fixed 5 and 7 = +12 in every square inside.
    assert res["contained"] == {"enclosure": "cabin", "interrupted": 2, "breached": False, "rolls": [5, 7], "bonus": 12}
    sq = squares(t)
    assert sq[(5, 5)] == 8 + 12
    assert sq[(4, 4)] == 4 + 12
    assert sq[(6, 5)] == 4 + 12
    # Squares outside the cabin take nothing.
    assert sq[(7, 5)] == 0 and sq[(8, 8)] == 0
    assert res["damage"] == {"inside": 16, "outside": 0}
    assert t["models"]["outside"]["status"] == "total_cover"
    assert t["models"]["outside"]["blocked_by"] == ["cabin"]


def test_contained_bonus_base_setting() -> None:
    # 'base': 8 + 12 = 20 spreads: Ground Zero 20, ring 1 -> 10.
    t = run("increments-contained.toml", {"contained_bonus": "base"})
    sq = squares(t)
    assert sq[(5, 5)] == 20
    assert t["resolution"]["damage"]["inside"] == 10


def test_breached_enclosure_does_not_contain_the_blast() -> None:
    t = run("increments-contained.toml", replace=(('tags = ["enclosure"]', 'tags = ["enclosure", "breached"]'),))
    res = t["resolution"]
    assert res["contained"]["breached"] is True
    assert "bonus" not in res["contained"]
    # No bonus; outside [8, 5] is 3 out -> 1.
    assert res["damage"] == {"inside": 4, "outside": 1}
    assert res["dice"] == []


def test_enclosure_that_fails_its_save_is_breached() -> None:
    # The cabin's walls (lines x, y = 4 and 7) touch ring-1 squares such as [4, 4]: DC 4.
    # cover_save 3 + save 0 < 4: breached, no containment dice are rolled.
    edit = (('tags = ["enclosure"]', 'tags = ["enclosure"]\nstats = { save = 0 }'), ("contained = [5, 7]", "cover_save = 3"))
    t = run("increments-contained.toml", replace=edit)
    res = t["resolution"]
    assert res["contained"]["dc"] == 4 and res["contained"]["roll"] == 3
    assert res["contained"]["breached"] is True
    assert res["damage"] == {"inside": 4, "outside": 1}
    assert [d["name"] for d in res["dice"]] == ["cover_save"]


# ------------------------------------------------------------------ body covering the blast


def test_character_smothering_the_blast() -> None:
    models = (
        model("hero", 5.5, 5.5, 'tags = ["covering_blast"]\nstats = { CON = 5 }')
        + model("n1", 6.5, 5.5) + model("n2", 7.5, 5.5)
    )
    t = run(grid_table(models, "{ damage = 8, max_damage = 12 }"))
    res = t["resolution"]
    # 8 - CON 5 = 3 spreads: Ground Zero 3, ring 1 -> 1, ring 2 -> 0. The hero takes the maximum, 12.
    assert res["smothered_by"] == "hero"
    assert res["spread_damage"] == 3
    assert res["damage"] == {"hero": 12, "n1": 1, "n2": 0}
    assert t["models"]["hero"]["covering_blast"] is True
    assert len(res["squares"]) == 9  # a 3 x 3 block


def test_smothered_by_weapon_key_and_default_maximum() -> None:
    models = model("hero", 5.5, 5.5, "stats = { CON = 9 }") + model("n1", 6.5, 5.5)
    t = run(grid_table(models, '{ damage = 8, smothered_by = "hero" }'))
    # 8 - 9 < 0 -> 0 spreads: nothing else is hurt; the hero takes the weapon's damage, 8.
    assert t["resolution"]["damage"] == {"hero": 8, "n1": 0}
    assert t["resolution"]["squares"] == []


# ------------------------------------------------------------------ vertical spread


def test_blast_spreads_vertically_as_horizontally() -> None:
    models = model("up1", 5.5, 5.5, "z = 1.5") + model("up2", 6.5, 5.5, "z = 2") + model("down", 5.5, 5.5, "z = 0.99")
    t = run(grid_table(models, "{ damage = 8 }"))
    # Levels are floor(z / 1"): up1 level 1 -> 1 out -> 4; up2 level 2, 1 square across -> max(1, 2) = 2 -> 2;
    # down level 0 -> Ground Zero -> 8.
    assert t["resolution"]["damage"] == {"up1": 4, "up2": 2, "down": 8}


# ------------------------------------------------------------------ validation


def test_missing_grid_is_a_problem_at_table_grid() -> None:
    text = grid_table(model("e", 5.5, 5.5), "{ damage = 4 }").replace("grid = 1\n", "")
    with pytest.raises(ScenarioError) as err:
        loads(text)
    assert [p.path for p in err.value.problems] == ["table.grid"]


def test_bad_weapon_tables_are_problems() -> None:
    text = grid_table(model("e", 5.5, 5.5), '{ increment = 0, shape = "square" }')
    with pytest.raises(ScenarioError) as err:
        loads(text)
    assert sorted(p.path for p in err.value.problems) == [
        "template[0].weapon.damage",
        "template[0].weapon.increment",
        "template[0].weapon.shape",
    ]


def test_ruleset_declares_its_rolls_and_settings() -> None:
    rs = rulesets.get("increments")
    assert rs.uses_visibility is False
    assert set(rs.rolls) == {"cover_save", "contained"}
    assert rs.rolls["cover_save"].sides == 20
    assert (rs.rolls["contained"].count, rs.rolls["contained"].sides) == (2, 6)
    assert set(rs.settings) == {"distance", "model_square", "cover_save_rule", "contained_bonus"}
    assert rs.doc_path is not None
    doc = rs.doc_path.read_text(encoding="utf-8")
    for setting, (default, why) in rs.settings.items():
        assert why and f"`{setting}`" in doc


def test_bundled_scenarios_load() -> None:
    for path in sorted(SCENARIOS.glob("increments-*.toml")):
        assert load(path).ruleset == "increments"
