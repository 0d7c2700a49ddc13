"""Line of sight / line of fire between silhouettes: worked cases and properties."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import shapely
import shapely.affinity
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString

from tabletop.model import Base, Model, RectSpec, Terrain
from tabletop.sight import GRAZE_MM, Sight, base_line_of_sight, in_range, line_of_fire

IN = 25.4
S2 = 40.0  # Infinity S2: 25 mm base, 40 mm tall


def trooper(mid: str, x_in: float, y_in: float, height: float | None = S2, z: float = 0.0, d: float = 25.0) -> Model:
    return Model(mid, x_in * IN, y_in * IN, Base.round(d), z=z, height=height)


def at_mm(mid: str, x: float, y: float, height: float | None = S2, z: float = 0.0, base: Base | None = None) -> Model:
    return Model(mid, x, y, base or Base.round(25.0), z=z, height=height)


def wall(tid: str, x: float, y: float, length: float, width: float, height: float | None = None, name: str | None = None) -> Terrain:
    return Terrain(tid, rect=RectSpec(x, y, length, width), name=name, height=height)


KIND_ORDER = {"none": 0, "partial": 1, "full": 2}


# --------------------------------------------------------------------------- the issue's worked examples


def test_issue_example_second_trooper_sees_past_the_first() -> None:
    attacker = trooper("att", 30, 6)
    first = trooper("t1", 30, 13)
    second = trooper("t2", 30.45, 14.2)
    # Precondition of the example: the centre-to-centre line crosses the first trooper's base.
    centre_line = LineString([second.centre, attacker.centre])
    assert centre_line.distance(shapely.Point(first.centre)) < first.base.length / 2
    sight = line_of_fire(second, attacker, (), (attacker, first, second))
    assert sight.kind == "partial"
    assert sight.seen and sight.exact and not sight.contested
    assert sight.blocked_by == ("t1",)
    assert sight.visible_fraction > 0.5
    assert 0.1 < sight.clear_fraction < 0.9
    assert "t1" in sight.reason and "%" in sight.reason
    clear = [ln for ln in sight.lines if ln.clear]
    assert clear, "clear sight lines are given for drawing"
    for ln in clear:  # each drawn clear line really misses the first trooper's base
        seg = LineString([ln.start[:2], ln.end[:2]])
        assert seg.distance(shapely.Point(first.centre)) >= first.base.length / 2 - 1e-6
    # The first trooper itself sees the attacker in full.
    assert line_of_fire(first, attacker, (), (attacker, first, second)).kind == "full"


def test_issue_example_thin_post_does_not_hide_a_trooper() -> None:
    viewer, target = at_mm("v", 0, 0), at_mm("t", 200, 0)
    post = wall("p", 100, 0, 5, 5, name="Post")  # unlimited height, on the centre line
    assert LineString([viewer.centre, target.centre]).intersects(shapely.Polygon(post.polygon))
    sight = line_of_fire(viewer, target, [post])
    assert sight.kind == "partial"
    assert sight.blocked_by == ("p",) and not sight.contested
    assert sight.visible_fraction == pytest.approx(1.0)
    assert 0.3 < sight.clear_fraction < 0.95
    assert "Post (p)" in sight.reason


def test_seed_fusiliers_in_a_row_only_the_first_sees_the_hellcat() -> None:
    """Seed 004: 'The other two Fusiliers do not have LoF to the Hellcat because the first Fusilier
    is blocking him.' Equal bases in a line: the outer tangents only touch the first, and touching blocks."""
    hellcat = at_mm("hellcat", 0, 0)
    f1, f2, f3 = at_mm("f1", 0, 100), at_mm("f2", 0, 130), at_mm("f3", 0, 160)
    table = (hellcat, f1, f2, f3)
    assert line_of_fire(f1, hellcat, (), table).kind == "full"
    for f in (f2, f3):
        sight = line_of_fire(f, hellcat, (), table)
        assert sight.kind == "none", sight.reason
        assert sight.exact
        assert sight.contested  # a first Fusilier 1 mm narrower would let it see: the judge's call
        assert "f1" in sight.blocked_by
    # Step the second Fusilier aside by 1 mm: the first no longer hides it completely.
    moved = dataclasses.replace(f2, x=1.0)
    aside = line_of_fire(moved, hellcat, (), (hellcat, f1, moved, f3))
    assert aside.kind == "partial" and aside.contested
    assert line_of_fire(moved, hellcat, (), (hellcat, f1, moved, f3), tolerance_mm=0.0).contested is False


def test_a_sliver_past_a_trooper_is_sight_but_contested() -> None:
    """Like scenarios/infinity-hellcat-split.toml: Fusilier 3 stands 0.05 mm off the line through
    Fusilier 1 and the Hellcat; exactly, a 0.05 mm corridor is open."""
    hellcat, f1 = at_mm("hellcat", 0, 0), at_mm("f1", 0, 180)
    f3 = at_mm("f3", 0.05 * (1 + 60 / 180), 240)
    sight = line_of_fire(f3, hellcat, (), (hellcat, f1, f3))
    assert sight.kind == "partial" and sight.exact
    assert sight.contested and "contested" in sight.reason


# --------------------------------------------------------------------------- walls and heights


@pytest.mark.parametrize(
    ("height", "viewer_z", "kind", "exact", "contested"),
    [
        (None, 0.0, "none", True, False),  # unlimited wall: hidden
        (60.0, 0.0, "none", True, False),  # taller than both silhouettes
        (40.0, 0.0, "none", True, True),  # exactly as tall: the top lines touch it (touching blocks); 1 mm lower shows them
        (20.0, 0.0, "partial", False, False),  # low wall: sight over it
        (60.0, 80.0, "partial", False, False),  # tall wall, viewer on a tower: sight down over it
        (None, 80.0, "none", True, False),  # no height can see over an unlimited wall
    ],
)
def test_wide_wall(height: float | None, viewer_z: float, kind: str, exact: bool, contested: bool) -> None:
    viewer, target = at_mm("v", 0, 0, z=viewer_z), at_mm("t", 200, 0)
    w = wall("w", 100, 0, 10, 300, height=height, name="Wall")
    sight = line_of_fire(viewer, target, [w])
    assert sight.kind == kind, sight.reason
    assert sight.exact is exact
    assert sight.contested is contested
    assert sight.blocked_by == ("w",)
    if kind == "none":
        assert sight.reason.startswith("blocked by Wall (w)")
        assert sight.visible_fraction == 0.0
    else:
        clear = [ln for ln in sight.lines if ln.clear]
        assert clear
        for ln in clear:  # the drawn line passes above the wall where it crosses it
            (x0, _, z0), (x1, _, z1) = ln.start, ln.end
            for x in (95.0, 105.0):
                assert z0 + (z1 - z0) * (x - x0) / (x1 - x0) > (height or math.inf)


def test_low_wall_near_an_elevated_viewer_hides_nothing_of_a_far_target() -> None:
    """Lines from a viewer at z 100 descend over a 30 mm wall right in front of it."""
    viewer, target = at_mm("v", 0, 0, z=100.0), at_mm("t", 300, 0)
    sight = line_of_fire(viewer, target, [wall("w", 30, 0, 6, 200, height=30.0)])
    assert sight.seen
    assert sight.visible_fraction == pytest.approx(1.0)


def test_target_on_a_roof_is_seen_over_the_parapet_by_a_taller_viewer() -> None:
    building = wall("b", 250, 0, 100, 100, height=50.0, name="Bunker")
    viewer, target = at_mm("v", 0, 0, height=40.0), at_mm("t", 250, 0, z=50.0)
    sight = line_of_fire(viewer, target, [building])
    assert sight.seen
    low_target = at_mm("t", 310, 0)  # on the ground behind the bunker
    assert line_of_fire(viewer, low_target, [building]).kind == "none"


def test_other_troopers_are_blockers_only_up_to_their_height() -> None:
    viewer, target = at_mm("v", 0, 0, height=55.0), at_mm("t", 200, 0, height=55.0)
    prone = at_mm("p", 100, 0, height=12.5)
    sight = line_of_fire(viewer, target, (), (viewer, target, prone))
    assert sight.kind == "partial"
    assert sight.visible_fraction == pytest.approx(1.0)
    assert sight.clear_fraction == pytest.approx(1.0)  # every line clears it at the top


def test_a_slit_narrower_than_the_sampling_is_found_by_the_critical_lines() -> None:
    """Two unlimited walls leave a 0.04 mm slanted slit: sampled lines all miss it, a tangent line does not."""

    def line_y(x: float) -> float:
        return 5.0 + 0.03 * (x - 150.0)

    half = 0.02
    upper = Terrain("u", points=((140, line_y(140) + half), (160, line_y(160) + half), (160, 300), (140, 300)))
    lower = Terrain("l", points=((140, -300), (160, -300), (160, line_y(160) - half), (140, line_y(140) - half)))
    viewer, target = at_mm("v", 0, 0), at_mm("t", 300, 0)
    sight = line_of_fire(viewer, target, [upper, lower])
    assert sight.kind == "partial", sight.reason
    assert sight.exact
    assert sight.clear_fraction == 0.0  # no sampled line made it: the decision came from the exact check
    through = [ln for ln in sight.lines if ln.clear]
    assert through
    seg = LineString([through[0].start[:2], through[0].end[:2]])
    assert not seg.intersects(shapely.Polygon(upper.polygon)) and not seg.intersects(shapely.Polygon(lower.polygon))
    closed = Terrain("l", points=((140, -300), (160, -300), (160, line_y(160) + half), (140, line_y(140) + half)))
    assert line_of_fire(viewer, target, [upper, closed]).kind == "none"


def test_rect_and_oval_bases_and_a_non_convex_building() -> None:
    viewer = at_mm("v", 0, 0, base=Base("rect", 50, 30))
    target = at_mm("t", 200, 0, base=Base("oval", 60, 35))
    ell = Terrain("L", points=((90, -40), (120, -40), (120, 10), (110, 10), (110, -30), (90, -30)), name="Ell")
    sight = line_of_fire(viewer, target, [ell])
    assert sight.kind == "partial"
    assert sight.blocked_by == ("L",)
    assert 0.2 < sight.visible_fraction <= 1.0
    # The notch of the L is open towards +y: a blocker of the notch's shape would hide more.
    solid = Terrain("S", rect=RectSpec(105, -15, 30, 50))
    assert line_of_fire(viewer, target, [solid]).clear_fraction <= sight.clear_fraction


def test_models_in_base_contact_see_each_other() -> None:
    a, b = at_mm("a", 0, 0), at_mm("b", 25, 0)
    sight = line_of_fire(a, b, (), (a, b, at_mm("c", 12.5, 30)))
    assert sight.kind == "full"


def test_terrain_that_does_not_block_sight_is_ignored() -> None:
    hedge = dataclasses.replace(wall("h", 100, 0, 10, 300), blocks_los=False)
    assert line_of_fire(at_mm("v", 0, 0), at_mm("t", 200, 0), [hedge]).kind == "full"


# --------------------------------------------------------------------------- wwpd: nominate a target in range and line of sight


def test_wwpd_target_behind_a_building_is_not_in_line_of_sight() -> None:
    firer = Model("gun", 0, 0, Base.round(25))
    target = Model("inf", 300, 0, Base.round(25))
    ruin = Terrain("b1", rect=RectSpec(150, 0, 80, 200), name="Ruined building")
    sight = base_line_of_sight(firer, target, [ruin])
    assert sight.kind == "none" and not sight.contested
    assert sight.reason == "blocked by Ruined building (b1)"
    # Heights are ignored unless both models have one: a 30 mm ruin still blocks a flat check.
    low = dataclasses.replace(ruin, height=30.0)
    assert base_line_of_sight(firer, target, [low]).kind == "none"
    tall_firer = dataclasses.replace(firer, height=60.0)
    tall_target = dataclasses.replace(target, height=60.0)
    assert base_line_of_sight(tall_firer, tall_target, [low]).seen
    # Beside the building, in the open: seen.
    assert base_line_of_sight(firer, Model("inf", 300, 350, Base.round(25)), [ruin]).kind == "full"


@pytest.mark.parametrize(
    ("measure", "range_mm", "expected", "distance"),
    [("edge", 175.0, True, 175.0), ("edge", 174.9, False, 175.0), ("centre", 199.9, False, 200.0), ("centre", 200.0, True, 200.0)],
)
def test_in_range(measure: str, range_mm: float, expected: bool, distance: float) -> None:
    a, b = Model("a", 0, 0, Base.round(25)), Model("b", 200, 0, Base.round(25))
    ok, dist = in_range(a, b, range_mm, measure)  # type: ignore[arg-type]
    assert ok is expected
    assert dist == pytest.approx(distance)


def test_in_range_edge_with_rect_bases_and_touching() -> None:
    a = Model("a", 0, 0, Base("rect", 40, 20), facing=0.0)
    b = Model("b", 100, 0, Base("rect", 40, 20), facing=90.0)
    assert in_range(a, b, 70.0) == (True, pytest.approx(70.0))
    c = Model("c", 30, 0, Base.round(20))
    assert in_range(a, c, 0.0) == (True, 0.0)
    with pytest.raises(ValueError, match="measure"):
        in_range(a, b, 1.0, "feet")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- properties

COORD = st.integers(-400, 400).map(lambda v: v / 2)
PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw: st.DrawFn) -> tuple[Model, Model, list[Terrain], list[Model]]:
    def base() -> Base:
        shape = draw(st.sampled_from(["round", "round", "rect", "oval"]))
        length = float(draw(st.integers(20, 50)))
        return Base(shape, length, length if shape == "round" else float(draw(st.integers(15, 40))))

    viewer = Model("v", draw(COORD), draw(COORD), base(), facing=float(draw(st.integers(0, 359))))
    target = Model("t", draw(COORD), draw(COORD), base(), facing=float(draw(st.integers(0, 359))))
    terrain = [
        Terrain(f"w{i}", rect=RectSpec(draw(COORD), draw(COORD), float(draw(st.integers(1, 80))), float(draw(st.integers(1, 80))), float(draw(st.integers(0, 179)))))
        for i in range(draw(st.integers(0, 3)))
    ]
    others = [Model(f"m{i}", draw(COORD), draw(COORD), Base.round(25.0)) for i in range(draw(st.integers(0, 2)))]
    return viewer, target, terrain, others


def _shift(t: Terrain, dx: float, dy: float) -> Terrain:
    assert t.rect is not None
    return dataclasses.replace(t, rect=dataclasses.replace(t.rect, x=t.rect.x + dx, y=t.rect.y + dy))


@PROPS
@given(tables(), st.integers(-200, 200), st.integers(-200, 200))
def test_moving_everything_together_changes_nothing(table: tuple[Model, Model, list[Terrain], list[Model]], dx: int, dy: int) -> None:
    viewer, target, terrain, others = table
    before = line_of_fire(viewer, target, terrain, others)
    moved = [dataclasses.replace(m, x=m.x + dx, y=m.y + dy) for m in (viewer, target, *others)]
    after = line_of_fire(moved[0], moved[1], [_shift(t, dx, dy) for t in terrain], moved[2:])
    assert after.kind == before.kind
    assert after.seen == before.seen
    assert set(after.blocked_by) == set(before.blocked_by)
    assert abs(after.visible_fraction - before.visible_fraction) <= 0.05


@PROPS
@given(tables(), st.data())
def test_adding_a_blocker_never_shows_more(table: tuple[Model, Model, list[Terrain], list[Model]], data: st.DataObject) -> None:
    viewer, target, terrain, others = table
    before = line_of_fire(viewer, target, terrain, others)
    extra = Terrain(
        "extra",
        rect=RectSpec(data.draw(COORD), data.draw(COORD), float(data.draw(st.integers(1, 60))), float(data.draw(st.integers(1, 60))), 0.0),
    )
    after = line_of_fire(viewer, target, [*terrain, extra], others)
    assert KIND_ORDER[after.kind] <= KIND_ORDER[before.kind]
    assert after.visible_fraction <= before.visible_fraction + 1e-12
    assert after.clear_fraction <= before.clear_fraction + 1e-12


@PROPS
@given(tables())
def test_without_blockers_sight_is_full(table: tuple[Model, Model, list[Terrain], list[Model]]) -> None:
    viewer, target, _, _ = table
    sight = line_of_fire(viewer, target)
    assert sight.kind == "full"
    assert sight.visible_fraction == 1.0 and sight.clear_fraction == 1.0
    assert sight.blocked_by == ()


@PROPS
@given(tables())
# Found by hypothesis: a critical line past a 25 mm base ends on an oval's circumscribed 64-gon, 0.012 mm out.
@example(table=(Model("v", 0.0, 0.0, Base("oval", 20.0, 15.0), facing=0.0), Model("t", 17.5, 15.5, Base("oval", 20.0, 21.0), facing=0.0),
                [], [Model("m0", 17.5, 17.5, Base.round(25.0))]))
@example(table=(Model("v", 0.0, 0.0, Base.round(20.0), facing=0.0), Model("t", 17.5, 15.5, Base("oval", 20.0, 21.0), facing=0.0),
                [], [Model("m0", 17.5, 17.5, Base.round(25.0))]))
def test_every_clear_line_drawn_is_clear_and_joins_the_two_bases(table: tuple[Model, Model, list[Terrain], list[Model]]) -> None:
    viewer, target, terrain, others = table
    sight: Sight = line_of_fire(viewer, target, terrain, others)
    from tabletop.shapes import base_polygon

    from tabletop.sight.silhouettes import OVAL_SEGMENTS

    def slack(m: Model) -> float:
        # A critical line touches an oval's footprint at a vertex of the OVAL_SEGMENTS-gon round it, up to
        # its sagitta outside the ellipse (0.012 mm on a 20 mm oval); found by hypothesis on 2026-11-26.
        return m.base.bounding_radius * (1 / math.cos(math.pi / OVAL_SEGMENTS) - 1) if m.base.shape == "oval" else 0.0

    va, tb = base_polygon(viewer, 256, outer=True), base_polygon(target, 256, outer=True)
    for ln in sight.lines:
        assert shapely.distance(shapely.Point(ln.start[:2]), va) <= slack(viewer) + 1e-6
        assert shapely.distance(shapely.Point(ln.end[:2]), tb) <= slack(target) + 1e-6
        if not ln.clear:
            continue
        seg = LineString([ln.start[:2], ln.end[:2]])
        for t in terrain:
            assert not seg.relate_pattern(shapely.Polygon(t.polygon), "T********")
        for m in others:
            assert seg.distance(shapely.Point(m.centre)) >= m.base.length / 2 - 1e-6


def test_sight_is_symmetric_on_an_open_table() -> None:
    rng = np.random.default_rng(4)
    for _ in range(10):
        a = at_mm("a", *rng.uniform(-100, 100, 2))
        b = at_mm("b", *rng.uniform(150, 300, 2))
        posts = [wall(f"p{i}", *rng.uniform(0, 200, 2), 5, 5) for i in range(3)]
        assert line_of_fire(a, b, posts).seen == line_of_fire(b, a, posts).seen


def test_graze_tolerance_is_tiny() -> None:
    assert GRAZE_MM < 1e-6


def test_point_line_of_sight_for_indirect_fire() -> None:
    """Robotech: an Indirect Fire point must be 'within LOS to any friendly mecha or the attacking mecha'."""
    from tabletop.sight import point_line_of_sight

    mecha = Model("m", 0, 0, Base.round(40), height=50.0)
    bunker = wall("b", 150, 0, 40, 200, name="Bunker")
    assert point_line_of_sight(mecha, (300.0, 0.0), [bunker]).kind == "none"
    assert point_line_of_sight(mecha, (300.0, 300.0), [bunker]).kind == "full"
    low = dataclasses.replace(bunker, height=20.0)
    assert point_line_of_sight(mecha, (300.0, 0.0), [low], z=0.0).seen  # over a low bunker, with heights
    assert point_line_of_sight(mecha, (300.0, 0.0), [low]).kind == "none"  # flat without the point's height


def test_a_blocker_overlapping_a_base_makes_the_answer_sampled() -> None:
    viewer, target = at_mm("v", 0, 0), at_mm("t", 200, 0)
    sight = line_of_fire(viewer, target, [wall("w", 0, 20, 40, 20)])
    assert sight.seen and not sight.exact


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_flat_seen_does_not_depend_on_the_sampling(table: tuple[Model, Model, list[Terrain], list[Model]]) -> None:
    """Flat check: the critical lines make seen / not seen exact, so 4x finer sampling never finds more."""
    viewer, target, terrain, others = table
    coarse = line_of_fire(viewer, target, terrain, others, samples=8)
    fine = line_of_fire(viewer, target, terrain, others, samples=96)
    if coarse.exact:
        assert coarse.seen == fine.seen, (coarse.reason, fine.reason)


def test_structure_as_target() -> None:
    """Robotech: 'target any structure or enemy mecha within range and Line of Sight (LOS)'."""
    from tabletop.sight import structure_line_of_sight

    mecha = Model("m", 0, 0, Base.round(40))
    tower = Terrain("tw", rect=RectSpec(300, 0, 40, 40), name="Tower")
    screen = wall("s", 150, 0, 20, 300, name="Screen")
    assert structure_line_of_sight(mecha, tower, [tower]).kind == "full"  # never blocks itself
    hidden = structure_line_of_sight(mecha, tower, [tower, screen])
    assert hidden.kind == "none" and hidden.reason == "blocked by Screen (s)"
    short = wall("s", 150, 0, 20, 120, name="Screen")
    part = structure_line_of_sight(mecha, tower, [tower, short])
    assert part.kind == "none"  # the short screen still covers the whole tower from this mecha
    l_shape = Terrain("L", points=((280, -60), (340, -60), (340, 60), (320, 60), (320, -40), (280, -40)), name="Ell")
    half = structure_line_of_sight(mecha, l_shape, [wall("s", 150, 40, 20, 120)])
    assert half.kind == "partial"
    assert 0.0 < half.visible_fraction < 1.0


@PROPS
@given(tables(), st.data())
def test_with_heights_a_new_blocker_never_shows_more_of_the_target(table: tuple[Model, Model, list[Terrain], list[Model]], data: st.DataObject) -> None:
    viewer, target, terrain, others = table
    tall = st.sampled_from([12.5, 25.0, 40.0, 55.0])
    viewer = dataclasses.replace(viewer, height=data.draw(tall), z=data.draw(st.sampled_from([0.0, 0.0, 30.0])))
    target = dataclasses.replace(target, height=data.draw(tall))
    others = [dataclasses.replace(m, height=data.draw(tall)) for m in others]
    terrain = [dataclasses.replace(t, height=data.draw(st.one_of(st.none(), st.floats(1.0, 80.0)))) for t in terrain]
    before = line_of_fire(viewer, target, terrain, others, tolerance_mm=0.0)
    extra = Terrain("extra", rect=RectSpec(data.draw(COORD), data.draw(COORD), 30.0, 8.0, 45.0), height=data.draw(st.floats(1.0, 80.0)))
    after = line_of_fire(viewer, target, [*terrain, extra], others, tolerance_mm=0.0)
    assert after.visible_fraction <= before.visible_fraction + 1e-12
    assert after.clear_fraction <= before.clear_fraction + 1e-12
    if before.exact and after.exact:
        assert KIND_ORDER[after.kind] <= KIND_ORDER[before.kind]


def test_answers_are_remembered_by_value_not_by_object() -> None:
    viewer, target = at_mm("v", 0, 0), at_mm("t", 200, 0)
    first = line_of_fire(viewer, target, [wall("w", 100, 0, 10, 100)])
    # The same table rebuilt: the same answer (the very object, from the cache).
    assert line_of_fire(at_mm("v", 0, 0), at_mm("t", 200, 0), [wall("w", 100, 0, 10, 100)]) is first
    # The wall moved off the line, or made 1 mm tall: a new answer, not the remembered one.
    assert first.kind == "none"
    assert line_of_fire(viewer, target, [wall("w", 100, 200, 10, 100)]).kind == "full"
    assert line_of_fire(viewer, target, [wall("w", 100, 0, 10, 100, height=1.0)]).seen
    # Heights come through span: a different span is a different question.
    low = line_of_fire(viewer, target, [wall("w", 100, 0, 10, 100, height=30.0)])
    tall = line_of_fire(viewer, target, [wall("w", 100, 0, 10, 100, height=30.0)], span=lambda m: (0.0, 20.0))
    assert low.seen and not tall.seen


# --------------------------------------------------------------------------- a blast focus in height (sight/focus.py)


def _below_the_top_somewhere(piece: shapely.Polygon, h: float, f: float, t: float, q: tuple[float, float], steps: int = 4000) -> bool:
    """Brute force: is the line from (0, 0, f) to (q, t) below ``h`` at some point inside the piece's footprint?"""
    s = np.linspace(0.0, 1.0, steps + 1)
    xs, ys, zs = s * q[0], s * q[1], f + (t - f) * s
    inside = shapely.contains_xy(piece, xs, ys)
    return bool(np.any(inside & (zs < h)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    x0=st.floats(10, 60), y0=st.floats(-30, 20), turn=st.floats(0, 360), bend=st.booleans(),
    h=st.floats(0, 80), f=st.floats(0, 60), t=st.floats(0, 80),
    qx=st.floats(-20, 120), qy=st.floats(-60, 60),
)
def test_the_region_a_piece_hides_is_where_the_line_passes_below_its_top(
    x0: float, y0: float, turn: float, bend: bool, h: float, f: float, t: float, qx: float, qy: float
) -> None:
    """hidden_region against sampling the line itself, for a wall or an L-shaped (non-convex) ruin at any turn:
    they agree wherever the point is not within 0.05 mm of the region's edge (where a finite sample cannot
    tell). Checked by hand with 3,000 examples of each shape."""
    from tabletop.sight.focus import Piece, hidden_region

    outline = [(0, 0), (20, 0), (20, 4), (4, 4), (4, 15), (0, 15)] if bend else [(0, 0), (20, 0), (20, 4), (0, 4)]
    piece = shapely.affinity.translate(shapely.affinity.rotate(shapely.Polygon(outline), turn, origin=(0, 0)), x0, y0)
    if piece.distance(shapely.Point(0, 0)) < 1.0:
        return  # a focus on or inside the piece is its own case (tested by hand)
    if min(abs(h - f), abs(h - t)) < 1e-6:
        return  # a line grazing the top to rounding: the sample cannot tell
    region = hidden_region(Piece("p", piece, h), (0.0, 0.0), f, t, 300.0)
    q = shapely.Point(qx, qy)
    if region is not None and region.boundary.distance(q) < 0.05:
        return
    hidden = region is not None and region.contains(q)
    assert hidden == _below_the_top_somewhere(piece, h, f, t, (qx, qy))


def _clear_to(piece: shapely.Polygon, h: float, f: float, q: tuple[float, float], z: float) -> bool:
    """Exactly: does the line from (0, 0, f) to (q, z) stay at or above ``h`` wherever it is over the (convex) piece?"""
    seg = shapely.LineString([(0.0, 0.0), q])
    cut = seg.intersection(piece)
    if cut.is_empty:
        return True
    length = math.hypot(*q)
    for x, y in shapely.get_coordinates(cut):
        s = math.hypot(x, y) / length if length else 0.0
        if f + (z - f) * s < h - 1e-9:
            return False
    return True


def _seen_in_ball_by_sampling(piece: shapely.Polygon, h: float, f: float, radius: float, centre: tuple[float, float], r: float, bottom: float, top: float) -> bool:
    """Brute force over plan points of the base inside the template (a circle of ``radius`` about the focus): the
    highest part of the silhouette over each point that the ball holds, and the exact line to it."""
    k = np.arange(240)
    rho = r * np.sqrt((k + 0.5) / len(k))
    th = k * math.pi * (3 - math.sqrt(5))
    pts = np.column_stack([centre[0] + rho * np.cos(th), centre[1] + rho * np.sin(th)])
    ring = np.column_stack([centre[0] + r * np.cos(np.linspace(0, 2 * math.pi, 120, endpoint=False)), centre[1] + r * np.sin(np.linspace(0, 2 * math.pi, 120, endpoint=False))])
    for qx, qy in np.concatenate([pts, ring]):
        d = math.hypot(qx, qy)
        if d > radius:
            continue
        e = math.sqrt(radius**2 - d * d)
        z = min(top, f + e)
        if z < max(bottom, f - e):
            continue
        if _clear_to(piece, h, f, (float(qx), float(qy)), z):
            return True
    return False


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turn=st.floats(0, 360), wall_d=st.floats(6, 20), h=st.floats(1, 70), f=st.floats(0, 40),
    bearing=st.floats(-40, 40), dist=st.floats(16, 45), bottom=st.sampled_from([0.0, 0.0, 15.0, 30.0]),
    tall=st.sampled_from([25.0, 40.0, 55.0]),
)
def test_the_ball_lets_the_focus_see_only_what_it_holds(
    turn: float, wall_d: float, h: float, f: float, bearing: float, dist: float, bottom: float, tall: float
) -> None:
    """FocusSight.view in a ball (a circle's 3D area under the default reading) against brute force: sampled points
    of the base, the highest part of the silhouette the ball holds over each, the exact line to it. Where moving
    the wall's top or the trooper by 0.3 mm changes the sampled answer, the case is too close to sample: skipped."""
    from tabletop.model import Base, Model, PlacedTemplate, TemplateShape
    from tabletop.sight.focus import FocusSight, Piece, Volume

    radius = 38.1
    a = math.radians(turn)
    # A wall 3 mm thick and 30 mm long across the bearing `turn`, its near face wall_d from the focus.
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    corners = [wall_d * u - 15 * v, (wall_d + 3) * u - 15 * v, (wall_d + 3) * u + 15 * v, wall_d * u + 15 * v]
    piece = shapely.Polygon(corners)
    b = a + math.radians(bearing)
    centre = (dist * math.cos(b), dist * math.sin(b))
    trooper = Model("m", centre[0], centre[1], Base.round(25.0))
    placed = PlacedTemplate("g", TemplateShape("circle", diameter=2 * radius), (0.0, 0.0), 0.0)
    top = bottom + tall
    view = FocusSight(placed, f, [Piece("w", piece, h)]).view(trooper, bottom, top, Volume(ball=radius))
    sampled = _seen_in_ball_by_sampling(piece, h, f, radius, centre, 12.5, bottom, top)
    nudged = {
        _seen_in_ball_by_sampling(piece, h + dh, f, radius, centre, 12.5 + dr, bottom, top)
        for dh, dr in ((0.3, -0.3), (-0.3, 0.3))
    }
    if len(nudged | {sampled}) > 1:
        return
    assert view.seen == sampled
