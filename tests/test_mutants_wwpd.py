"""``wwpd``: worked answers for what the survivors of the mutation run showed untested.

Each test names the rule or the drawing choice it pins; the numbers are worked by hand from the
geometry (tables in mm where exact arithmetic matters). Equivalent mutants: docs/mutants/wwpd.md.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

from tabletop import rulesets
from tabletop.adjudicate import Adjudication, adjudicate, resolve_template
from tabletop.coverage import table_geometry
from tabletop.dice import Dice
from tabletop.marks import TEXT, WARN
from tabletop.report import report_json
from tabletop.rulesets.wwpd.rules import friends, lay
from tabletop.scenario_io import loads

WWPD = rulesets.get("wwpd")
REFUSAL_TAIL = " (the rules centre a template over a nominated target model)"


def mm_table(models: str, templates: str, terrain: str = "", size: int = 600) -> str:
    """A ``size`` mm square wwpd table."""
    return f'format = 1\nruleset = "wwpd"\nunits = "mm"\n[table]\nwidth = {size}\ndepth = {size}\n{models}{terrain}{templates}'


def in_table(models: str, templates: str, terrain: str = "") -> str:
    """A 48" wwpd table."""
    return f'format = 1\nruleset = "wwpd"\n[table]\nwidth = 48\ndepth = 48\n{models}{terrain}{templates}'


def model(mid: str, x: float, y: float, base: float, side: str = "blue", unit: str | None = None, name: str | None = None) -> str:
    extra = (f'unit = "{unit}"\n' if unit else "") + (f'name = "{name}"\n' if name else "")
    return f'[[model]]\nid = "{mid}"\nside = "{side}"\n{extra}x = {x}\ny = {y}\nbase = {base}\n'


def template(tid: str, shape: str, placement: str, extra: str = "") -> str:
    return f'[[template]]\nid = "{tid}"\nshape = {shape}\n{placement}\n{extra}'


def wall(tid: str, x0: float, y0: float, x1: float, y1: float, name: str | None = None) -> str:
    label = f'name = "{name}"\n' if name else ""
    return f'[[terrain]]\nid = "{tid}"\n{label}points = [[{x0}, {y0}], [{x1}, {y0}], [{x1}, {y1}], [{x0}, {y1}]]\n'


def run(text: str, settings: dict[str, Any] | None = None, tolerance_mm: float = 1.0) -> Adjudication:
    return adjudicate(loads(text), settings=settings, tolerance_mm=tolerance_mm)


def entry(text: str, settings: dict[str, Any] | None = None, tolerance_mm: float = 1.0) -> dict[str, Any]:
    return report_json(run(text, settings, tolerance_mm))["templates"][0]


CIRCLE = "{kind = \"circle\", diameter = 100}"
POINT = {"allow_point_aim": True}


# ------------------------------------------------------------------ laying the template


def test_a_half_turn_cone_reaches_its_full_length_across() -> None:
    s = loads(mm_table(model("a", 100, 100, 25), template("c", '{kind = "cone", length = 40, angle = 180}', "at = [300, 300]")))
    assert s.templates[0].shape.local_extent() == (0.0, 40.0, 40.0)  # sin 90° = 1: the same at a half turn


def test_a_rect_wider_than_long_keeps_its_axis_on_the_line_of_fire_and_spans_its_width() -> None:
    s = loads(mm_table(model("a", 100, 100, 25), template("r", '{kind = "rect", length = 20, width = 30}', "at = [300, 300]")))
    placed, extent = lay(s.templates[0].shape, "r", (300.0, 300.0), 90.0)
    assert placed.heading == 90.0 and extent == 30.0
    assert placed.focus == pytest.approx((300.0, 300.0))


def test_a_square_rect_lies_across_the_line_of_fire() -> None:
    # along == across: the rule's "longest dimension across" is satisfied by laying the axis across.
    s = loads(mm_table(model("a", 100, 100, 25), template("r", '{kind = "rect", length = 30, width = 30}', "at = [300, 300]")))
    placed, extent = lay(s.templates[0].shape, "r", (300.0, 300.0), 90.0)
    assert placed.heading == 180.0 and extent == 30.0


def test_nobody_is_the_friend_of_a_template_without_an_attacker() -> None:
    s = loads(mm_table(model("a", 100, 100, 25), ""))
    assert friends(None, s.models[0]) is False


# ------------------------------------------------------------------ what the rules refuse, word for word


@pytest.mark.parametrize(
    ("placement", "why"),
    [
        ('impact = { attacker = "gun", at = [300, 300] }', "aimed at a point, not a nominated target model"),
        ("at = [300, 300]", "laid at a point, not over a nominated target model"),
        ('direct = { attacker = "gun", heading = 90 }', "a direct template is not centred over a nominated target model"),
        ('explosion = { model = "gun" }', "an explosion is not a template weapon fired at a target"),
    ],
)
def test_an_aim_that_is_not_a_nominated_target_is_refused_in_these_words(placement: str, why: str) -> None:
    text = mm_table(model("gun", 300, 100, 25, "red") + model("t", 300, 300, 25), template("s", CIRCLE, placement))
    t = entry(text)
    assert t["allowed"] is False and t["reason"] == f"wwpd: {why}{REFUSAL_TAIL}"


def test_point_aims_are_refused_by_default_even_without_settings() -> None:
    scenario = loads(mm_table(model("gun", 300, 100, 25, "red") + model("t", 300, 300, 25), template("s", CIRCLE, "at = [300, 300]")))
    result = resolve_template(scenario, scenario.templates[0], table_geometry(scenario), Dice(1))
    assert result.resolution.allowed is False


def test_a_direct_template_keeps_its_attacker_for_sight_and_its_own_base() -> None:
    text = mm_table(model("gun", 300, 100, 25, "red", unit="g") + model("t", 300, 160, 25, unit="u"), template("s", CIRCLE, 'direct = { attacker = "gun", heading = 90 }'))
    adj = run(text, POINT)
    t = report_json(adj)["templates"][0]
    assert t["allowed"] is True
    # The sight check ran from the attacker (to the point the template centres on) ...
    assert t["resolution"]["line_of_sight"] is not None and t["resolution"]["line_of_sight"]["seen"] is True
    # ... and the attacker is the template's user: never affected by its own direct template.
    assert t["models"]["gun"]["status"] == "user"
    assert t["resolution"]["counts"] == {"u": 1}
    assert adj.results[0].resolution.coverage.models["gun"].status == "user"


def test_the_user_of_a_direct_teardrop_is_never_contested() -> None:
    # The tip lies on the attacker's base edge; its margin as the coverage measures it is 34.05 mm:
    # inside a 50 mm tolerance, yet the user of a template is never "contested".
    text = mm_table(model("gun", 300, 100, 25, "red"), template("s", '{kind = "teardrop", length = 200, tip_width = 0, end_width = 100}', 'direct = { attacker = "gun", heading = 90 }'))
    t = entry(text, POINT, tolerance_mm=50.0)
    assert t["models"]["gun"]["status"] == "user" and t["models"]["gun"]["contested"] is False
    assert t["models"]["gun"]["margin_mm"] == pytest.approx(34.0482, abs=1e-4)


# ------------------------------------------------------------------ line of sight and range


def test_a_refusal_names_the_target_by_its_name_and_id() -> None:
    text = in_table(model("gun", 24, 4, 1, "red") + model("t", 24, 24, 1, name="Sergeant Rock"),
                    template("s", '"small_blast"', 'impact = { attacker = "gun", target = "t" }'), wall("b1", 20, 12, 28, 16))
    t = entry(text)
    assert t["reason"] == "wwpd: Sergeant Rock (t) is not in line of sight of gun: blocked by b1"


def test_two_buildings_that_block_together_are_both_named() -> None:
    text = in_table(model("gun", 24, 4, 1, "red") + model("t", 24, 24, 1),
                    template("s", '"small_blast"', 'impact = { attacker = "gun", target = "t" }'),
                    wall("w1", 19, 12, 24, 16, "West wing") + wall("w2", 24, 12, 29, 16, "East wing"))
    t = entry(text)
    assert t["reason"] == "wwpd: t is not in line of sight of gun: blocked by West wing (w1), East wing (w2)"


def _partial_sight() -> str:
    # The building covers x <= 24.3": of the lines between the 1" bases only a 0.2" strip on the right is clear.
    return in_table(model("gun", 24, 4, 1, "red") + model("t", 24, 24, 1),
                    template("s", '"small_blast"', 'impact = { attacker = "gun", target = "t" }'), wall("b1", 19, 12, 24.3, 16))


def test_the_sight_check_uses_the_tolerance_it_is_given() -> None:
    loose = entry(_partial_sight(), tolerance_mm=10.0)["resolution"]["line_of_sight"]
    tight = entry(_partial_sight(), tolerance_mm=1.0)["resolution"]["line_of_sight"]
    assert loose["kind"] == tight["kind"] == "partial"
    # A 5.08 mm strip: contested within 10 mm, not within 1 mm.
    assert loose["contested"] is True and tight["contested"] is False


def test_a_point_aim_sight_check_uses_the_tolerance_it_is_given() -> None:
    text = in_table(model("gun", 24, 4, 1, "red"), template("s", '"small_blast"', 'impact = { attacker = "gun", at = [24, 24] }'), wall("b1", 19, 12, 24.3, 16))
    loose = entry(text, POINT, tolerance_mm=10.0)["resolution"]["line_of_sight"]
    tight = entry(text, POINT, tolerance_mm=1.0)["resolution"]["line_of_sight"]
    assert loose["contested"] != tight["contested"]


def test_sight_report_numbers_are_rounded_as_documented() -> None:
    sight = entry(in_table(model("gun", 20, 4, 1, "red") + model("t", 26, 22, 1),
                           template("s", '"small_blast"', 'impact = { attacker = "gun", target = "t" }'), wall("b1", 19, 12, 22.8, 14)))["resolution"]["line_of_sight"]
    assert sight["kind"] == "partial"
    frac = sight["visible_fraction"]
    assert frac == 0.896  # 43 of 48 sight lines clear: 0.8958333...
    coords = [c for ln in sight["lines"] for c in ln["from"] + ln["to"]]
    assert coords and all(c == round(c, 6) for c in coords)
    # Lines on a diagonal end at irrational points: some coordinate uses all six decimals.
    assert any(c != round(c, 5) for c in coords)


def _point_shot(at: tuple[float, float], weapon_range: str, measure: str) -> dict[str, Any]:
    text = mm_table(model("gun", 100, 100, 25, "red"), template("s", CIRCLE, f'impact = {{ attacker = "gun", at = [{at[0]}, {at[1]}] }}', f"weapon = {{ range = {weapon_range} }}\n"))
    return entry(text, {**POINT, "range_measure": measure})


def test_a_point_aim_range_centre_to_centre_is_inclusive() -> None:
    # (130, 140) is 30-40-50 from the gun: 50 mm exactly.
    t = _point_shot((130, 140), "50", "centre")
    assert t["allowed"] is True
    assert t["resolution"]["range"] == {"range": 50.0, "distance": 50.0, "measure": "centre", "in_range": True,
                                        "text": "50 mm (centre to centre) within the weapon's range of 50 mm"}


def test_a_point_aim_range_keeps_its_nanometre_of_slack() -> None:
    # 49.999999999 + 1e-9 is 50.0 in floating point: the slack makes 50 mm "within".
    assert _point_shot((130, 140), "49.999999999", "centre")["resolution"]["range"]["in_range"] is True


def test_a_point_aim_half_a_millimetre_out_of_range_is_refused() -> None:
    t = _point_shot((130, 140), "49.5", "centre")
    assert t["allowed"] is False
    assert t["reason"] == "wwpd: the point aimed at is out of range: 50 mm (centre to centre) beyond the weapon's range of 49.5 mm"


def test_a_point_aim_range_from_the_base_edge() -> None:
    # 50 mm centre to centre, the gun's base radius 12.5: 37.5 mm from its edge. Measured to the
    # base's outer polygon, so never more than the true distance (a shot is never refused by rounding).
    t = _point_shot((130, 140), "37.5", "edge")
    rng = t["resolution"]["range"]
    assert rng["in_range"] is True and rng["measure"] == "edge"
    assert 37.5 - 1e-4 < rng["distance"] <= 37.5
    assert _point_shot((130, 140), "37.4", "edge")["resolution"]["range"]["in_range"] is False


def test_range_numbers_are_rounded_to_six_decimals() -> None:
    # 10 cm = 3.937007874" ; (27, 9) is sqrt(3² + 5²) = 5.830951894...
    text = in_table(model("gun", 24, 4, 1, "red"), template("s", '"small_blast"', 'impact = { attacker = "gun", at = [27, 9] }', 'weapon = { range = "10cm" }\n'))
    rng = entry(text, {**POINT, "range_measure": "centre"})["resolution"]["range"]
    assert rng["range"] == 3.937008 and rng["distance"] == 5.830952


# ------------------------------------------------------------------ coverage of the battery


def test_a_model_exactly_one_tolerance_inside_is_contested() -> None:
    # 100 mm circle at (300, 300); a 20 mm base 59 mm away: margin 50 + 10 - 59 = 1.0 = the tolerance.
    text = mm_table(model("gun", 300, 100, 25, "red") + model("t", 300, 300, 25, unit="u") + model("edge", 359, 300, 20, unit="v"),
                    template("s", CIRCLE, 'impact = { attacker = "gun", target = "t" }'))
    adj = run(text)
    t = report_json(adj)["templates"][0]
    assert t["models"]["edge"]["margin_mm"] == pytest.approx(1.0, abs=1e-9)
    assert t["models"]["edge"]["contested"] is True and t["models"]["edge"]["contested_templates"] == ["s"]
    assert "contested_templates" not in t["models"]["t"]
    assert adj.results[0].resolution.coverage.models["edge"].contested is True


def test_the_battery_coverage_keeps_the_tolerance_it_was_given() -> None:
    text = mm_table(model("gun", 300, 100, 25, "red") + model("t", 300, 300, 25, unit="u"), template("s", CIRCLE, 'impact = { attacker = "gun", target = "t" }'))
    cov = run(text, tolerance_mm=5.0).results[0].resolution.coverage
    assert cov.tolerance_mm == 5.0 and cov.visible is None


def test_a_battery_of_three_has_the_middle_template_as_its_own() -> None:
    text = mm_table(model("gun", 300, 100, 25, "red") + model("t", 300, 300, 25, unit="u"),
                    template("s", CIRCLE, 'impact = { attacker = "gun", target = "t" }', "battery = 3\n"))
    res = run(text).results[0].resolution
    assert res.coverage.placed.id == "s#2" and res.coverage.placed.focus == pytest.approx((300.0, 300.0))
    assert [p.id for p in res.also_drawn] == ["s#1", "s#3"]


def test_a_model_on_the_edge_of_one_battery_member_is_contested_for_that_member_only() -> None:
    # Fire straight up at (300, 300): #1 at (350, 300), #2 at (250, 300) (pitch 100). A 20 mm base at
    # (409, 300) is 59 from #1: margin 1.0.
    text = mm_table(model("gun", 300, 100, 25, "red") + model("t", 300, 300, 25, unit="u") + model("e", 409, 300, 20, unit="v"),
                    template("s", CIRCLE, 'impact = { attacker = "gun", target = "t" }', "battery = 2\n"))
    t = entry(text)
    assert t["models"]["e"]["contested_templates"] == ["s#1"]
    assert t["models"]["e"]["under"] == ["s#1"]


def test_place_steps_say_where_each_template_was_laid() -> None:
    text = mm_table(model("gun", 300, 100, 25, "red") + model("t", 300, 250, 25, unit="u"),
                    template("s", CIRCLE, 'impact = { attacker = "gun", target = "t" }', "battery = 2\n"))
    res = run(text).results[0].resolution
    place = [s for s in res.steps if s.kind == "place"]
    assert [s.text for s in place] == ["template s#1 laid at (350, 250) mm, axis 180.0°", "template s#2 laid at (250, 250) mm, axis 180.0°"]
    assert [s.placed.id if s.placed else None for s in place] == ["s#1", "s#2"]


def test_notes_list_every_covered_model_and_every_friend() -> None:
    text = mm_table(
        model("gun", 300, 100, 25, "red", unit="mortars") + model("t", 300, 300, 25, unit="u") + model("t2", 320, 300, 25, unit="u")
        + model("f1", 280, 310, 25, "red", unit="mortars") + model("f2", 300, 330, 25, "red", unit="mortars"),
        template("s", CIRCLE, 'impact = { attacker = "gun", target = "t" }'),
    )
    notes = [s.text for s in run(text).results[0].resolution.steps if s.kind == "note"]
    assert "unit u: rate of fire 2 (hits only on t, t2)" in notes
    assert "friendly model(s) f1, f2 covered: unit mortars takes a Leadership test" in notes


def test_reported_foci_and_headings_are_rounded_to_six_decimals() -> None:
    # A diagonal line of fire: the foci and the heading are irrational numbers of inches.
    text = in_table(model("gun", 20, 4, 1, "red") + model("t", 26, 22, 1, unit="u"),
                    template("s", '"small_blast"', 'impact = { attacker = "gun", target = "t" }', "battery = 2\n"))
    adj = run(text)
    res = adj.results[0].resolution
    placed = {p.id: p for p in (res.coverage.placed, *res.also_drawn)}
    for m in report_json(adj)["templates"][0]["resolution"]["templates"]:
        p = placed[m["id"]]
        assert m["focus"] == [round(p.focus[0] / 25.4, 6), round(p.focus[1] / 25.4, 6)]
        assert m["heading"] == round(p.heading, 6)
        assert m["heading"] != round(p.heading, 5) or m["focus"][0] != round(p.focus[0] / 25.4, 5)


# ------------------------------------------------------------------ validation


def _with_ranges(*ranges: Any) -> list[tuple[str, str]]:
    text = mm_table(model("gun", 300, 100, 25, "red") + model("t", 300, 300, 25),
                    "".join(template(f"s{i}", CIRCLE, 'impact = { attacker = "gun", target = "t" }') for i in range(len(ranges))))
    s = loads(text)
    templates = tuple(dataclasses.replace(t, weapon={} if r is None else {"range": r}) for t, r in zip(s.templates, ranges))
    return WWPD.validate(dataclasses.replace(s, templates=templates))


def test_a_negative_range_is_a_problem_and_zero_or_small_ranges_are_not() -> None:
    assert _with_ranges(-3) == [("template[0].weapon.range", "a range cannot be negative, got -3")]
    assert _with_ranges(0) == [] and _with_ranges(0.5) == []


def test_validation_goes_on_past_a_template_without_or_with_a_bad_range() -> None:
    assert _with_ranges(None, -3) == [("template[1].weapon.range", "a range cannot be negative, got -3")]
    problems = _with_ranges("far", -3)
    assert [p[0] for p in problems] == ["template[0].weapon.range", "template[1].weapon.range"]


# ------------------------------------------------------------------ marks


def _marks(text: str, settings: dict[str, Any] | None = None) -> Any:
    return WWPD.marks(run(text, settings))


def _shot(gun: tuple[float, float], target: tuple[float, float], shape: str = CIRCLE, extra: str = "", more: str = "") -> str:
    return mm_table(model("gun", *gun, 25, "red") + model("t", *target, 25, unit="u") + more,
                    template("s", shape, 'impact = { attacker = "gun", target = "t" }', extra))


@pytest.mark.parametrize(
    ("gun", "target", "back", "prefer"),
    [
        ((200, 50), (200, 250), (200, 0), "above"),  # fire north: the line runs from the near edge, the badge beyond
        ((200, 550), (200, 250), (200, 600), "below"),  # fire south
        ((100, 250), (400, 250), (0, 250), "right"),  # fire east
        ((500, 250), (200, 250), (600, 250), "left"),  # fire west
    ],
)
def test_the_line_of_fire_runs_from_the_table_edge_and_the_badge_sits_beyond(gun: tuple[float, float], target: tuple[float, float], back: tuple[float, float], prefer: str) -> None:
    art = _marks(_shot(gun, target))
    line = art.strokes[0]
    assert line.width == 2 and line.dashed
    assert line.points.ravel().tolist() == pytest.approx([*back, *target])
    badge = art.badges[0]
    assert badge.prefer == prefer
    assert badge.lines[0] == ("Rate of fire", TEXT) and badge.lines[1][0] == "u: RoF 1"


def test_a_shot_that_covers_nobody_says_so_on_its_badge() -> None:
    text = mm_table(model("gun", 300, 100, 25, "red") + model("t", 300, 300, 25), template("s", CIRCLE, 'impact = { attacker = "gun", target = "t" }'))
    # The target has no unit and no side: it is its own unit and is counted; move it out of the way instead.
    scenario = loads(text)
    adj = adjudicate(scenario)
    res = adj.results[0].resolution
    empty = dataclasses.replace(res, details={**res.details, "counts": {}})
    art = WWPD.marks(dataclasses.replace(adj, results=(dataclasses.replace(adj.results[0], resolution=empty),)))
    assert art.badges[0].lines == (("No unit under the templates", TEXT),)


def test_the_arrow_is_drawn_only_with_thirty_mm_to_spare_behind_the_templates() -> None:
    # Target 300 mm from the near edge. Radius 269.5: 300 > 299.5 (+-0.4 for the polygon): an arrow.
    with_room = _marks(_shot((300, 5), (300, 300), '{kind = "circle", diameter = 539}'))
    assert len(with_room.arrows) == 1
    # Radius 280: 300 < 310: no arrow.
    assert _marks(_shot((300, 5), (300, 300), '{kind = "circle", diameter = 560}')).arrows == []


def test_the_badge_clears_the_whole_depth_of_a_battery_of_three() -> None:
    badge = _marks(_shot((300, 50), (300, 300), extra="battery = 3\n")).badges[0]
    assert badge.clear == pytest.approx(50.0, rel=2e-3)


def test_a_template_laid_by_the_table_edge_measures_its_depth_from_there() -> None:
    # Laid at a point (no attacker): the line of fire is the heading, 90° (north); the edge behind is y = 0.
    def laid(y: float) -> Any:
        return _marks(mm_table(model("gun", 100, 500, 25, "red"), template("s", CIRCLE, f"at = [300, {y}]\nheading = 90")), POINT)

    half_mm = laid(0.5)
    assert half_mm.strokes[0].points.ravel().tolist() == pytest.approx([300.0, 0.0, 300.0, 0.5])
    assert half_mm.badges[0].clear == pytest.approx(50.0, rel=2e-3)
    on_edge = laid(0)
    assert on_edge.strokes[0].points.ravel().tolist() == pytest.approx([300.0, 0.0, 300.0, 0.0])
    assert on_edge.badges[0].clear == 0.0  # nothing behind the focus to measure


def test_a_battery_line_runs_from_the_firers_right_even_past_nine_members() -> None:
    # Fire east: the firer's right is south; ids sort as text (#1, #10, #2, ...), positions do not.
    art = _marks(_shot((20, 300), (300, 300), '{kind = "circle", diameter = 20}', extra="battery = 10\n"))
    bar = [s for s in art.strokes if not s.dashed][0]
    ys = [p[1] for p in bar.points.tolist()]
    assert ys == sorted(ys) and len(ys) == 10
    assert bar.width == 2


def test_a_point_aim_is_marked_at_its_focus() -> None:
    text = mm_table(model("gun", 300, 100, 25, "red") + model("XXXX", 100, 500, 25), template("s", CIRCLE, "at = [300, 300]"))
    art = _marks(text, POINT)
    assert art.strokes[0].points.tolist()[1] == pytest.approx([300.0, 300.0])
    assert art.badges[0].anchor == pytest.approx((300.0, 300.0))


def _with_details(text: str, change: Any, settings: dict[str, Any] | None = None) -> Any:
    adj = run(text, settings)
    results = []
    for i, r in enumerate(adj.results):
        d = change(i, dict(r.resolution.details))
        results.append(dataclasses.replace(r, resolution=dataclasses.replace(r.resolution, details=d)))
    return dataclasses.replace(adj, results=tuple(results))


def test_marks_skip_a_result_without_counts_and_go_on() -> None:
    text = mm_table(model("gun", 300, 100, 25, "red") + model("t", 300, 300, 25, unit="u"),
                    template("s", CIRCLE, 'impact = { attacker = "gun", target = "t" }') + template("s2", CIRCLE, 'impact = { attacker = "gun", target = "t" }'))
    adj = _with_details(text, lambda i, d: {} if i == 0 else d)
    assert len(WWPD.marks(adj).badges) == 1


def test_marks_of_details_without_a_line_of_fire_fire_along_x() -> None:
    text = _shot((300, 100), (300, 300))

    def drop(i: int, d: dict[str, Any]) -> dict[str, Any]:
        d.pop("line_of_fire")
        return d

    art = WWPD.marks(_with_details(text, drop))
    assert art.strokes[0].points.tolist()[0] == pytest.approx([0.0, 300.0])
    assert art.badges[0].prefer == "right"


def test_sight_lines_are_drawn_only_when_the_report_says_unseen() -> None:
    text = in_table(model("gun", 24, 4, 1, "red") + model("t", 24, 24, 1, unit="u"),
                    template("s", '"small_blast"', 'impact = { attacker = "gun", target = "t" }'), wall("b1", 20, 12, 28, 16))
    seen_unknown = _with_details(text, lambda i, d: {**d, "line_of_sight": {k: v for k, v in d["line_of_sight"].items() if k != "seen"}})
    art = WWPD.marks(seen_unknown)
    assert not [s for s in art.strokes if s.colour == WARN]
    blocked = WWPD.marks(run(text))
    warn = [s for s in blocked.strokes if s.colour == WARN]
    assert warn and all(s.width == 2 and s.dashed and s.above for s in warn)


# ------------------------------------------------------------------ panel


def _panel(details: dict[str, Any]) -> list[Any]:
    text = _shot((300, 100), (300, 300))
    adj = _with_details(text, lambda i, d: details)
    return list(WWPD.panel_lines(adj.scenario, adj.results[0]))


def test_panel_of_bare_details_says_nothing() -> None:
    assert _panel({}) == []


def test_panel_names_nobody_when_the_covered_list_is_missing() -> None:
    assert _panel({"counts": {"u": 2}}) == [("bad", "unit u: 2 hits (only on none)")]
    assert _panel({"leadership_test": True, "leadership_unit": "g"}) == [("warn", "Leadership test for g: friendly none covered")]
