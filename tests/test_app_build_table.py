"""Building the real table fast (issue 20): trace terrain, place bases by tape measure, contact,
nudges and copies. The pilot rebuilds bundled scenarios from an empty table with these tools
alone and compares the result with the file to 0.01 mm."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pygame
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st


from tabletop.app.measure import (
    Contact,
    FromBase,
    FromEdges,
    PlacementTextError,
    base_extent,
    base_sdf,
    bearing_position,
    circle_points,
    contact_position,
    crossing_problem,
    edge_gap,
    edge_position,
    parse_placement,
    parse_row,
    polygon_problem,
    row_positions,
)
from tabletop.app.pilot import Pilot
from tabletop.app.state import (
    AddTerrain,
    CommandError,
    RotateTerrain,
    SetTerrainOutline,
    apply,
    empty_scenario,
    new_state,
)
from tabletop.app.measure import terrain_centre
from tabletop.app.tools.terrain import rotate_handle, snap_step
from tabletop.model import Base, Model, RectSpec, Scenario, Table, Terrain
from tabletop.scenario_io import load
from tabletop.shapes import base_outline

from .conftest import SCENARIOS
from .scenario_compare import differences

IN = 25.4
CTRL, SHIFT, ALT = pygame.KMOD_CTRL, pygame.KMOD_SHIFT, pygame.KMOD_ALT
TOL_MM = 0.01


# --------------------------------------------------------------------------- exact geometry


def _dense_sdf_outside(model: Model, point: tuple[float, float], n: int = 400_000) -> float:
    """Distance from an outside point to a base by brute force on a dense outline (independent check)."""
    ring = base_outline(model.base, model.x, model.y, model.facing, n)
    if model.base.shape == "rect":  # four exact corners: shapely's distance to the polygon is exact
        return float(shapely.distance(shapely.Polygon(ring), shapely.Point(point)))
    return float(np.min(np.hypot(ring[:, 0] - point[0], ring[:, 1] - point[1])))


@pytest.mark.parametrize(
    ("base", "facing", "point"),
    [
        (Base("oval", 90, 52), 135.0, (80.0, 10.0)),
        (Base("oval", 60, 35), 0.0, (0.0, 40.0)),  # straight above the short axis
        (Base("oval", 60, 35), 0.0, (50.0, 0.0)),  # on the long axis
        (Base("oval", 60, 35), 20.0, (31.0, 3.0)),  # just outside near the end
        (Base("rect", 50, 25), 30.0, (40.0, -30.0)),
    ],
)
def test_base_distance_is_exact_against_a_dense_outline(base: Base, facing: float, point: tuple[float, float]) -> None:
    m = Model("m", 0.0, 0.0, base, facing=facing)
    exact = float(base_sdf(m, [point])[0])
    assert exact > 0
    assert exact == pytest.approx(_dense_sdf_outside(m, point), abs=1e-4)


def test_oval_distance_is_negative_inside_and_zero_on_the_edge() -> None:
    m = Model("m", 10.0, 20.0, Base("oval", 90, 52), facing=30.0)
    on_edge = base_outline(m.base, m.x, m.y, m.facing, 32)
    assert np.max(np.abs(base_sdf(m, on_edge))) < 1e-9
    assert float(base_sdf(m, [(10.0, 20.0)])[0]) == pytest.approx(-26.0)


@pytest.mark.parametrize(
    ("base", "facing", "direction", "expected"),
    [
        (Base.round(25), 0.0, 180.0, 12.5),
        (Base("rect", 50, 20), 90.0, 0.0, 10.0),
        (Base("rect", 50, 20), 45.0, 0.0, (25 + 10) / math.sqrt(2)),
        (Base("oval", 90, 52), 135.0, 180.0, math.sqrt((45**2 + 26**2) / 2)),
    ],
)
def test_base_extent_is_the_support_function(base: Base, facing: float, direction: float, expected: float) -> None:
    assert base_extent(base, facing, direction) == pytest.approx(expected, abs=1e-12)
    ring = base_outline(base, 0, 0, facing, 200_000)
    d = math.radians(direction)
    assert float(np.max(ring[:, 0] * math.cos(d) + ring[:, 1] * math.sin(d))) == pytest.approx(expected, abs=1e-6)


BASES = st.sampled_from([Base.round(25), Base.round(40), Base("oval", 60, 35), Base("oval", 90, 52), Base("rect", 50, 25), Base("rect", 100, 60)])


@settings(max_examples=30, deadline=None)
@given(
    a=BASES,
    b=BASES,
    fa=st.floats(0, 360),
    fb=st.floats(0, 360),
    bearing=st.floats(0, 360),
    gap=st.floats(0, 80),
)
def test_a_base_put_at_an_edge_gap_has_that_gap_and_slides_into_contact_at_zero(a: Base, b: Base, fa: float, fb: float, bearing: float, gap: float) -> None:
    anchor = Model("a", 300.0, 300.0, a, facing=fa)
    mover = Model("b", 0.0, 0.0, b, facing=fb)
    x, y = bearing_position(mover, anchor, gap, bearing)
    placed = replace(mover, x=x, y=y)
    assert edge_gap(placed, anchor) == pytest.approx(gap, abs=1e-6)
    turn = (math.degrees(math.atan2(y - 300.0, x - 300.0)) - bearing + 180.0) % 360.0 - 180.0  # 360° is 0°
    assert abs(turn) < 1e-6 or gap == 0
    cx, cy = contact_position(placed, anchor)
    touching = replace(mover, x=cx, y=cy)
    assert abs(edge_gap(touching, anchor)) < 5e-4  # margin 0.000 mm
    assert abs(edge_gap(anchor, touching)) < 5e-4


def test_round_bases_in_contact_by_the_closed_form() -> None:
    anchor = Model("a", 100.0, 100.0, Base.round(32))
    mover = Model("b", 200.0, 160.0, Base.round(25))
    x, y = contact_position(mover, anchor)
    assert math.hypot(x - 100, y - 100) == pytest.approx(28.5, abs=1e-12)
    assert edge_gap(replace(mover, x=x, y=y), anchor) == pytest.approx(0.0, abs=1e-12)


def test_edge_position_measures_to_the_base_edge() -> None:
    table = Table(24 * IN, 18 * IN)
    assert edge_position(Base.round(25), 90, table, "left", 12.5 * IN, "bottom", 8 * IN) == pytest.approx((12.5 * IN + 12.5, 8 * IN + 12.5))
    x, y = edge_position(Base.round(25), 90, table, "right", 10.0, "top", 20.0)
    assert (x, y) == pytest.approx((24 * IN - 22.5, 18 * IN - 32.5))


# --------------------------------------------------------------------------- reading what was typed

TABLE = Scenario(Table(24 * IN, 24 * IN), models=(Model("r1", 100, 100, Base.round(25), name="Trooper 1"), Model("x", 10, 10, Base.round(25), name="Twin"), Model("y", 50, 10, Base.round(25), name="twin")), units="in")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('12.5" from left, 8" from bottom', FromEdges("left", 12.5 * IN, "bottom", 8 * IN)),
        ("8in from the bottom edge; 12.5 from left", FromEdges("left", 12.5 * IN, "bottom", 8 * IN)),
        ("30mm from top, 2cm from right", FromEdges("right", 20.0, "top", 30.0)),
        ('3.2" from Trooper 1, edge to edge, at 40°', FromBase("r1", 3.2 * IN, 40.0, True)),
        ("75mm from r1, centre to centre, at -90", FromBase("r1", 75.0, -90.0, False)),
        ("contact Trooper 1", Contact("r1")),
        ("move into base contact with trooper 1", Contact("r1")),
    ],
)
def test_typed_placements(text: str, expected: object) -> None:
    assert parse_placement(text, TABLE, "m") == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("12.5 from left, 8 from right", "one distance from left or right"),
        ("-2 from left, 8 from bottom", "cannot be negative"),
        ('3" from Nobody, at 10°', "no model called"),
        ('3" from twin, at 10°', "2 models are called"),
        ('3" from Trooper 1, edge to edge', "give the bearing"),
        ("somewhere nice", "write e.g."),
        ("", "nothing typed"),
    ],
)
def test_typed_placements_refused_with_the_reason(text: str, why: str) -> None:
    with pytest.raises(PlacementTextError, match=why):
        parse_placement(text, TABLE, "m")


def test_a_row_of_copies() -> None:
    m = Model("m", 100.0, 100.0, Base.round(25))
    assert np.allclose(row_positions(m, parse_row('3 at 1.5"', "in")), [(100 + k * 38.1, 100.0) for k in (1, 2, 3)])
    edge = parse_row('2 at 0.5", edge to edge, at 90°', "in")
    assert np.allclose(row_positions(m, edge), [(100.0, 100 + k * 37.7) for k in (1, 2)])
    with pytest.raises(PlacementTextError):
        parse_row("many", "in")


# --------------------------------------------------------------------------- outlines


@pytest.mark.parametrize(
    ("points", "why"),
    [
        ([(0, 0), (10, 0)], "at least 3 corners"),
        ([(0, 0), (10, 10), (20, 20)], "no area"),
        ([(0, 0), (10, 10), (10, 0), (0, 10)], "cross"),
        ([(0, 0), (10, 0), (10, 0), (0, 10)], "same point"),
    ],
)
def test_invalid_outlines_say_why(points: list[tuple[float, float]], why: str) -> None:
    assert why in (polygon_problem(points) or "")


def test_valid_outline_and_crossing_while_drawing() -> None:
    assert polygon_problem([(0, 0), (10, 0), (10, 10), (0, 10)]) is None
    open_path = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)]
    assert crossing_problem(open_path, (5.0, -5.0)) is not None
    assert crossing_problem(open_path, (0.0, 10.0)) is None
    assert crossing_problem(open_path, (0.0, 0.0)) is None  # closes on the first corner


def test_circle_points_lie_on_the_circle_with_small_sag() -> None:
    pts = np.array(circle_points((10.0, 20.0), 50.0))
    assert np.allclose(np.hypot(pts[:, 0] - 10, pts[:, 1] - 20), 50.0)
    n = len(pts)
    assert 50.0 * (1 - math.cos(math.pi / n)) <= 0.1


def test_terrain_commands_refuse_bad_outlines_and_rotate_about_the_centre() -> None:
    s0 = new_state(empty_scenario())
    s1 = apply(s0, AddTerrain(Terrain("t", points=((0, 0), (40, 0), (40, 20), (0, 20)))))
    with pytest.raises(CommandError, match="cross"):
        apply(s1, SetTerrainOutline("t", points=((0, 0), (40, 20), (40, 0), (0, 20))))
    s2 = apply(s1, RotateTerrain("t", 90.0))
    pts = np.array(s2.scenario.terrain[0].points)
    assert pts.mean(axis=0) == pytest.approx((20.0, 10.0))
    assert np.ptp(pts[:, 0]) == pytest.approx(20.0) and np.ptp(pts[:, 1]) == pytest.approx(40.0)
    s3 = apply(apply(s1, AddTerrain(Terrain("r", rect=RectSpec(100, 100, 30, 10)))), RotateTerrain("r", 15.0))
    assert s3.scenario.terrain_piece("r").rect == RectSpec(100, 100, 30, 10, 15.0)


# --------------------------------------------------------------------------- the pilot


class Builder:
    """The real app on the dummy display, used the way a player rebuilds a table."""

    def __init__(self, scenario: Scenario) -> None:
        self.p = Pilot(scenario)
        self.app = self.p.app

    def at(self, x_in: float, y_in: float) -> tuple[int, int]:
        return self.p.screen_of((x_in * IN, y_in * IN))

    def type(self, fields: dict[str, str]) -> None:
        """Type into the side panel's fields (real text events) and press Enter in the last one."""
        for name, text in fields.items():
            entry = self.app._fields[name]
            self.p.click(entry.rect.center)
            entry.set_text("")  # as select-all + delete
            for ch in text:
                self.p.post(pygame.TEXTINPUT, text=ch)
            self.p.step()
            assert entry.get_text() == text, (name, entry.get_text())
        self.p.key(pygame.K_RETURN)
        self.p.step(2)

    def zoom_at(self, x_in: float, y_in: float, steps: int) -> None:
        self.p.key(pygame.K_f)
        self.p.wheel(steps, self.at(x_in, y_in))

    def close(self) -> None:
        self.p.close()


def _file_placement_texts(file: Scenario) -> dict[str, str]:
    """How a player would measure each model of ``file`` with a tape (computed independently
    of the app: the extents by brute force over a dense outline)."""

    def extent(m: Model, direction: float) -> float:
        ring = base_outline(m.base, 0, 0, m.facing, 400_000)
        d = math.radians(direction)
        return float(np.max(ring[:, 0] * math.cos(d) + ring[:, 1] * math.sin(d)))

    t = file.table
    texts: dict[str, str] = {}
    for i, m in enumerate(file.models):
        if i % 2 == 0:
            texts[m.id] = f"{m.x - extent(m, 180):.7f}mm from left, {m.y - extent(m, 270):.7f}mm from bottom"
        else:
            texts[m.id] = f"{(t.depth - m.y - extent(m, 90)) / IN:.9f}\" from top, {(t.width - m.x - extent(m, 0)) / IN:.9f}\" from right"
    return texts


def _assert_same_models(rebuilt: Scenario, file: Scenario) -> None:
    assert len(rebuilt.models) == len(file.models)
    for got, want in zip(rebuilt.models, file.models):
        assert math.hypot(got.x - want.x, got.y - want.y) <= TOL_MM, (want.id, got.x - want.x, got.y - want.y)
        assert got.base == want.base and got.facing == pytest.approx(want.facing) and got.name == want.name and got.side == want.side, want.id


def test_rebuild_the_default_table_by_tracing_and_measuring() -> None:
    """Terrain traced (a polygon by its corners, a rectangle dragged, sized and turned with R),
    ten bases measured in from the table edges, one by distance and bearing from another."""
    file = load(SCENARIOS / "default.toml")
    b = Builder(empty_scenario(file.table.width, file.table.depth))
    app = b.app
    try:
        # --- the crates: a polygon, corner by corner, snapped to the 1/8" grid, closed on the first corner
        b.p.key(pygame.K_8)
        assert app.state.tool == "draw_terrain"
        b.zoom_at(9.75, 4.5, 12)
        assert snap_step(app) == pytest.approx(IN / 8)
        b.p.click(b.at(9, 4))
        b.p.click(b.at(10.5, 4))
        b.p.click(b.at(9.5, 5.5))
        b.p.key(pygame.K_BACKSPACE)  # a slip: take it back
        b.p.click(b.at(10.5, 5))
        b.p.click(b.at(9.5, 3.625))  # would cross the first side: refused with the reason
        assert app.message_is_error and "cross" in app.message
        b.p.click(b.at(9, 5))
        b.p.click(b.at(9, 4))  # the first corner closes it
        assert len(app.scenario.terrain) == 1
        b.type({"name": "Crates", "kind": "structure", "blocks_los": "no"})
        # --- the ruin: a rectangle dragged on the grid, then its size typed and turned 2 × 15° with R
        b.zoom_at(17, 8, 12)
        b.p.drag(b.at(15.5, 7.375), b.at(18.5, 8.625))
        assert len(app.scenario.terrain) == 2
        b.type({"name": "Ruined house", "size": "3in x 1.2in"})
        b.p.key(pygame.K_r)
        b.p.key(pygame.K_r)
        # --- the bases: added with +Model, then typed in as a tape measure reads
        b.p.key(pygame.K_f)
        texts = _file_placement_texts(file)
        sgt = file.model("sgt")
        r1 = file.model("r1")
        gap = math.hypot(r1.x - sgt.x, r1.y - sgt.y) - 16 - 12.5
        bearing = math.degrees(math.atan2(r1.y - sgt.y, r1.x - sgt.x))
        texts["r1"] = f"{gap:.7f}mm from Sergeant, edge to edge, at {bearing:.9f}°"
        for i, m in enumerate(file.models):
            b.p.key(pygame.K_6)
            b.p.click(b.at(1 + i * 2.0, 16.5))
            base = f"{m.base.length:g}mm" if m.base.shape == "round" else f"{m.base.shape} {m.base.length:g}x{m.base.width:g}mm"
            b.type({"name": m.name or "", "side": m.side or "", "base": base, "facing": f"{m.facing:g}", "place": texts[m.id]})
            assert not app.message_is_error, app.message
        b.p.key(pygame.K_ESCAPE)
        rebuilt = app.scenario
        _assert_same_models(rebuilt, file)
        worst = max(math.hypot(g.x - w.x, g.y - w.y) for g, w in zip(rebuilt.models, file.models))
        print(f"default.toml rebuilt: worst base centre off by {worst:.3g} mm")
        for want in file.terrain:
            got = next(t for t in rebuilt.terrain if t.name == want.name)
            assert (got.kind, got.blocks_los, got.height) == (want.kind, want.blocks_los, want.height)
            assert np.max(np.abs(np.array(got.polygon) - np.array(want.polygon))) <= TOL_MM, want.id
            print(f"{want.id}: worst corner off by {np.max(np.abs(np.array(got.polygon) - np.array(want.polygon))):.3g} mm")
        # every edit was its own undo step and undoing all of them empties the table
        steps = len(app.state.history.undo)
        assert steps >= 2 + 2 * len(file.models)
        for _ in range(steps):
            b.p.key(pygame.K_z, CTRL)
        assert app.scenario.models == () and app.scenario.terrain == ()
    finally:
        b.close()


def test_rebuild_the_cone_table_with_bases_put_in_contact() -> None:
    """increments-cone: two of its bases stand in base contact with the attacker; they are
    measured out at a bearing and then moved into contact."""
    file = load(SCENARIOS / "increments-cone.toml")
    b = Builder(empty_scenario(file.table.width, file.table.depth))
    app = b.app
    try:
        texts = {
            "torch": "1 from left, 5 from bottom",  # bare numbers: the table's inches
            "c1": '2" from torch, edge to edge, at 0°',
            "c2": "3 from left, 6 from bottom",
            "c3": "9 from right, 4 from top",
            "c4": "25mm from torch, edge to edge, at 180",
        }
        ids: dict[str, str] = {}
        for i, m in enumerate(file.models):
            b.p.key(pygame.K_6)
            b.p.click(b.at(0.7 + i * 2.3, 11))
            new_id = app.state.selection.id
            ids[m.id] = new_id
            b.type({"base": "1in", "place": texts[m.id].replace("torch", ids.get("torch", "torch"))})
            assert not app.message_is_error, app.message
        b.p.key(pygame.K_1)
        for name in ("c1", "c4"):
            b.p.click(b.p.screen_of(app.scenario.model(ids[name]).centre))
            assert edge_gap(app.scenario.model(ids[name]), app.scenario.model(ids["torch"])) > 20
            b.type({"place": f"contact {ids['torch']}"})
            assert edge_gap(app.scenario.model(ids[name]), app.scenario.model(ids["torch"])) == pytest.approx(0.0, abs=1e-9)
        rebuilt = app.scenario
        for got, want in zip(rebuilt.models, file.models):
            assert math.hypot(got.x - want.x, got.y - want.y) <= TOL_MM, want.id
            assert got.base == want.base
        # the same with the keyboard: select c4, Shift+click the attacker, C; one undo step
        b.p.key(pygame.K_LEFT, SHIFT)  # c4 (selected) 0.1" away from contact
        assert edge_gap(app.scenario.model(ids["c4"]), app.scenario.model(ids["torch"])) == pytest.approx(2.54)
        pygame.key.set_mods(SHIFT)
        b.p.click(b.p.screen_of(app.scenario.model(ids["torch"]).centre))
        pygame.key.set_mods(0)
        b.p.key(pygame.K_c)
        assert edge_gap(app.scenario.model(ids["c4"]), app.scenario.model(ids["torch"])) == pytest.approx(0.0, abs=1e-9)
        assert "0.000 mm" in app.message
        b.p.key(pygame.K_ESCAPE)
        # the pinned ruler reads 0.000 mm edge to edge between the attacker and a base in contact
        b.p.key(pygame.K_2)
        b.p.drag(b.p.screen_of(app.scenario.model(ids["torch"]).centre), b.p.screen_of(app.scenario.model(ids["c1"]).centre))
        b.p.key(pygame.K_p)
        assert app.state.pinned_rulers == ((ids["torch"], ids["c1"]),)
        from tabletop.app.tools.ruler import pinned_readings

        (reading,) = pinned_readings(app.scenario, app.state.pinned_rulers)
        assert f"{reading.edge_mm:.3f}" in ("0.000", "-0.000") and reading.centre_mm == pytest.approx(IN)
    finally:
        b.close()


def test_nudges_duplicates_rows_presets_and_multi_select() -> None:
    s = Scenario(Table(24 * IN, 24 * IN), models=(Model("a", 100.0, 100.0, Base.round(25)), Model("b", 200.0, 100.0, Base.round(25))), units="in")
    b = Builder(s)
    app = b.app
    try:
        b.p.click(b.p.screen_of((100.0, 100.0)))
        b.p.key(pygame.K_RIGHT)
        b.p.key(pygame.K_UP, SHIFT)
        b.p.key(pygame.K_LEFT, ALT)
        a = app.scenario.model("a")
        assert (a.x, a.y) == pytest.approx((100.9, 102.54))
        assert len(app.state.history.undo) == 3  # one undo step each
        # Shift+click adds b; both move together with an arrow
        b.p.post(pygame.KEYDOWN, key=pygame.K_LSHIFT, mod=SHIFT, unicode="", scancode=0)
        pygame.key.set_mods(SHIFT)
        b.p.click(b.p.screen_of((200.0, 100.0)))
        pygame.key.set_mods(0)
        assert set(r.id for r in app.state.selected) == {"a", "b"}
        b.p.key(pygame.K_DOWN)
        assert app.scenario.model("b").y == pytest.approx(99.0) and app.scenario.model("a").y == pytest.approx(101.54)
        # dragging one of them moves both, as one undo step
        steps = len(app.state.history.undo)
        start = b.p.screen_of(app.scenario.model("b").centre)
        b.p.drag(start, (start[0] + 30, start[1]))
        moved = 30 / app.viewport.scale
        assert app.scenario.model("b").x == pytest.approx(200.0 + moved, abs=1e-6)
        assert app.scenario.model("a").x == pytest.approx(100.9 + moved, abs=1e-6)
        assert len(app.state.history.undo) == steps + 1
        b.p.key(pygame.K_z, CTRL)
        assert app.scenario.model("b").x == pytest.approx(200.0)
        # Ctrl+D duplicates both 1" to the right, as one undo step
        b.p.key(pygame.K_d, CTRL)
        assert len(app.scenario.models) == 4
        assert {r.id for r in app.state.selected} == {"a2", "b2"}
        b.p.key(pygame.K_z, CTRL)
        assert len(app.scenario.models) == 2
        # Alt+3: the 40 mm preset on the selected base
        b.p.key(pygame.K_ESCAPE)
        b.p.click(b.p.screen_of(app.scenario.model("b").centre))
        b.p.key(pygame.K_3, ALT)
        assert app.scenario.model("b").base == Base.round(40.0)
        # a row of 3 copies, 1.5" apart centre to centre, with the placement in one undo step
        before = len(app.state.history.undo)
        b.type({"place": '1" from left, 2" from bottom', "row": '3 at 1.5"'})
        xs = sorted(m.x for m in app.scenario.models if m.base == Base.round(40.0))
        assert xs == pytest.approx([IN + 20 + k * 1.5 * IN for k in range(4)])
        assert len(app.state.history.undo) == before + 1
        # a drag box (Shift+drag on the empty table) selects what lies inside
        b.p.key(pygame.K_ESCAPE)
        pygame.key.set_mods(SHIFT)
        b.p.drag(b.p.screen_of((0.5 * IN, 1.0 * IN)), b.p.screen_of((8 * IN, 3.5 * IN)))
        pygame.key.set_mods(0)
        assert len(app.state.selected) == 4
        # Delete removes all of them as one undo step
        b.p.key(pygame.K_DELETE)
        assert len(app.scenario.models) == 1
        b.p.key(pygame.K_z, CTRL)
        assert len(app.scenario.models) == 5
    finally:
        pygame.key.set_mods(0)
        b.close()


def test_terrain_corners_rotation_circle_and_autosave(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "t.toml"
    from tabletop.scenario_io import save

    save(empty_scenario(24 * IN, 24 * IN), path)
    p = Pilot(path, autosave=True)
    app = p.app
    try:
        p.key(pygame.K_8)
        p.key(pygame.K_f)
        # a circle (a tree): Shift+drag from its centre
        pygame.key.set_mods(SHIFT)
        p.drag(p.screen_of((6 * IN, 6 * IN)), p.screen_of((7 * IN, 6 * IN)))
        pygame.key.set_mods(0)
        tree = app.scenario.terrain[-1]
        r = np.hypot(np.array(tree.points)[:, 0] - 6 * IN, np.array(tree.points)[:, 1] - 6 * IN)
        assert tree.kind == "tree" and np.allclose(r, IN)
        # a triangle; Enter closes it
        for c in ((12, 12), (16, 12), (14, 15)):
            p.click(p.screen_of((c[0] * IN, c[1] * IN)))
        p.key(pygame.K_RETURN)
        tri = app.scenario.terrain[-1]
        assert np.allclose(tri.points, [(12 * IN, 12 * IN), (16 * IN, 12 * IN), (14 * IN, 15 * IN)])
        # too few corners: refused with the reason
        p.click(p.screen_of((2 * IN, 20 * IN)))
        p.click(p.screen_of((4 * IN, 20 * IN)))
        p.key(pygame.K_RETURN)
        assert app.message_is_error and "3 corners" in app.message
        p.key(pygame.K_ESCAPE)
        # select the triangle: drag a corner, Ctrl+click a side to add one, Alt+click to remove it
        p.key(pygame.K_1)
        p.click(p.screen_of((14 * IN, 13 * IN)))
        assert app.state.selection is not None and app.state.selection.id == tri.id
        p.drag(p.screen_of((14 * IN, 15 * IN)), p.screen_of((14 * IN, 16 * IN)))
        assert app.scenario.terrain_piece(tri.id).points[2] == pytest.approx((14 * IN, 16 * IN))
        pygame.key.set_mods(CTRL)
        p.click(p.screen_of((14 * IN, 12 * IN)))
        pygame.key.set_mods(0)
        assert len(app.scenario.terrain_piece(tri.id).points) == 4
        # a corner dragged so that two sides cross stops at its last valid place, with the reason; Ctrl+Z
        four = app.scenario.terrain_piece(tri.id).points
        p.drag(p.screen_of((16 * IN, 12 * IN)), p.screen_of((10 * IN, 14 * IN)))
        dragged = app.scenario.terrain_piece(tri.id).points
        assert app.message_is_error and "cross" in app.message
        assert polygon_problem(dragged) is None and dragged[2] != pytest.approx((10 * IN, 14 * IN))
        p.key(pygame.K_z, CTRL)
        assert app.scenario.terrain_piece(tri.id).points == four
        pygame.key.set_mods(ALT)
        p.click(p.screen_of((14 * IN, 12 * IN)))
        pygame.key.set_mods(0)
        assert len(app.scenario.terrain_piece(tri.id).points) == 3
        # R turns 15° about the centroid, Shift+R 1°, Alt+R back 15°
        centre = np.array(app.scenario.terrain_piece(tri.id).points).mean(axis=0)
        p.key(pygame.K_r)
        p.key(pygame.K_r, SHIFT)
        p.key(pygame.K_r, ALT)
        after = np.array(app.scenario.terrain_piece(tri.id).points)
        first = after[0] - centre
        assert math.degrees(math.atan2(first[1], first[0])) - math.degrees(math.atan2(12 * IN - centre[1], 12 * IN - centre[0])) == pytest.approx(1.0)
        # the round handle above the piece turns it (1° steps) about its centre, one undo step
        before = np.array(app.scenario.terrain_piece(tri.id).points)
        handle = rotate_handle(app, app.scenario.terrain_piece(tri.id))
        hx, hy = p.screen_of(handle)
        c = np.array(terrain_centre(app.scenario.terrain_piece(tri.id)))
        reach = math.hypot(handle[0] - c[0], handle[1] - c[1])
        steps = len(app.state.history.undo)
        p.drag((hx, hy), p.screen_of((c[0] - reach, c[1])))  # a quarter turn counter-clockwise
        turned = np.array(app.scenario.terrain_piece(tri.id).points)
        expected = c + (before - c) @ np.array([[0.0, 1.0], [-1.0, 0.0]])
        assert np.max(np.abs(turned - expected)) < 1e-6
        assert len(app.state.history.undo) == steps + 1
        p.key(pygame.K_z, CTRL)
        # kind, height and blocks sight from the side panel
        p.click(p.screen_of(tuple(centre)))
        entry = app._fields["height"]
        entry.set_text("2in")
        assert app.apply_inspector()
        assert app.scenario.terrain_piece(tri.id).height == pytest.approx(2 * IN)
        # autosaved: the autosave file holds the edited table
        app.update(10.0)
        assert app.autosaver.failures == 0
        assert differences(load(app.autosaver.autosave_path), app.scenario) == []  # files hold lengths to 0.001 mm
    finally:
        pygame.key.set_mods(0)
        p.close()


def test_the_live_adjudication_follows_a_nudge_and_its_undo() -> None:
    """Contested stands 0.4 mm inside the blast: a 1 mm nudge away takes it out, Ctrl+Z puts it back."""
    p = Pilot(SCENARIOS / "default.toml")
    app = p.app

    def blast_affects_edge() -> bool:
        result = next(r for r in app.live_adjudication().results if r.template.id == "blast")
        return "edge" in result.resolution.affected

    try:
        assert blast_affects_edge()
        p.click(p.screen_of(app.scenario.model("edge").centre))
        assert app.state.selection is not None and app.state.selection.id == "edge"
        p.key(pygame.K_RIGHT)
        assert app.scenario.model("edge").x == pytest.approx(229.0)
        assert not blast_affects_edge()
        p.key(pygame.K_z, CTRL)
        assert blast_affects_edge()
        for _ in range(3):
            p.key(pygame.K_RIGHT, ALT)  # 0.1 mm each: 0.1 mm inside
        assert blast_affects_edge()
        p.key(pygame.K_RIGHT, ALT)
        p.key(pygame.K_RIGHT, ALT)  # 0.1 mm outside
        assert not blast_affects_edge()
        assert app.state.dirty and len(app.state.history.undo) == 5
    finally:
        p.close()


def test_untouched_panel_fields_change_nothing() -> None:
    """A facing or size shown rounded must not be written back when another field is edited."""
    s = Scenario(
        Table(24 * IN, 24 * IN),
        models=(Model("m", 100.0, 100.0, Base("oval", 60, 35), facing=37.123456789),),
        terrain=(Terrain("r", rect=RectSpec(300.0, 300.0, 1234.56789 / 10, 50.0000001, 12.3456789), height=76.123456789),),
        units="in",
    )
    p = Pilot(s)
    app = p.app
    try:
        p.click(p.screen_of((100.0, 100.0)))
        app._fields["name"].set_text("Oval")
        assert app.apply_inspector()
        assert app.scenario.model("m").facing == 37.123456789 and app.scenario.model("m").name == "Oval"
        p.key(pygame.K_ESCAPE)
        p.click(p.screen_of((300.0, 300.0)))
        app._fields["name"].set_text("Block")
        assert app.apply_inspector()
        assert app.scenario.terrain_piece("r").rect == s.terrain[0].rect and app.scenario.terrain_piece("r").height == 76.123456789
        app._fields["rotation"].set_text("45")
        assert app.apply_inspector()
        assert app.scenario.terrain_piece("r").rect == replace(s.terrain[0].rect, rotation=45.0)
    finally:
        p.close()
