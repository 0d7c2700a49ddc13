"""Worked geometry cases with hand-computed answers, to 0.001 mm and better."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from tabletop.contact import model_margin, round_margins, terrain_margin
from tabletop.coverage import cover, table_geometry
from tabletop.model import (
    At,
    Base,
    Direct,
    Impact,
    Model,
    PlacedTemplate,
    RectSpec,
    Scenario,
    Table,
    Template,
    TemplateShape,
    Terrain,
)
from tabletop.placement import place
from tabletop.shapes import template_polygon, template_sdf

INCH = 25.4
SMALL_BLAST = TemplateShape.circle(3 * INCH)  # R = 38.1 mm
TEARDROP = TemplateShape.teardrop(8 * INCH, 0.0, 2.5 * INCH)  # pointed tip, end circle r2 = 31.75 mm


def table(models: list[Model], terrain: list[Terrain] = (), templates: list[Template] = ()) -> Scenario:
    return Scenario(Table(1200, 1200), tuple(models), tuple(terrain), tuple(templates))


def status_of(placed: PlacedTemplate, models: list[Model], terrain: list[Terrain] = ()) -> dict[str, str]:
    cov = cover(placed, table_geometry(table(models, terrain)))
    return {k: v.status for k, v in cov.models.items()}


# ---------------------------------------------------------------- circles


@pytest.mark.parametrize(
    ("offset_mm", "status"),
    [
        (0.0, "affected"),  # tangent: 38.1 + 12.5 = 50.6 mm apart, mere contact counts
        (-0.01, "affected"),  # 0.01 mm inside
        (0.01, "outside"),  # 0.01 mm outside
        (-0.001, "affected"),
        (0.001, "outside"),
    ],
)
def test_round_base_near_tangent_to_circle(offset_mm: float, status: str) -> None:
    placed = PlacedTemplate("t", SMALL_BLAST, (500.0, 500.0), 0.0)
    m = Model("m", 500.0 + 50.6 + offset_mm, 500.0, Base.round(25.0))
    assert model_margin(placed, m) == pytest.approx(-offset_mm, abs=1e-9)
    assert status_of(placed, [m])["m"] == status


def test_a_buffer_polygon_would_get_the_contested_case_wrong() -> None:
    """Why we never let buffer() decide: its circle lies up to ~0.05 mm inside the true one."""
    focus = (0.0, 0.0)
    # Put the base 0.01 mm inside the true circle, in the direction of a polygon edge's midpoint.
    angle = math.pi / 64  # between two of buffer()'s vertices (quad_segs=16 → 64 per turn)
    d = 38.1 + 12.5 - 0.01
    centre = (d * math.cos(angle), d * math.sin(angle))
    approx = shapely.Point(focus).buffer(38.1)
    assert shapely.Point(centre).distance(approx) > 12.5  # the polygon says "not touching"...
    placed = PlacedTemplate("t", SMALL_BLAST, focus, 0.0)
    assert status_of(placed, [Model("m", *centre, Base.round(25.0))])["m"] == "affected"  # ...but it is


def test_round_margins_are_vectorised_and_exact() -> None:
    placed = PlacedTemplate("t", SMALL_BLAST, (0.0, 0.0), 0.0)
    centres = np.array([[0.0, 0.0], [50.6, 0.0], [0.0, -60.0]])
    radii = np.array([12.5, 12.5, 16.0])
    # 12.5 - (0 - 38.1) = 50.6; 12.5 - (50.6 - 38.1) = 0; 16 - (60 - 38.1) = -5.9
    np.testing.assert_allclose(round_margins(placed, centres, radii), [50.6, 0.0, -5.9], atol=1e-12)


# ---------------------------------------------------------------- teardrops


def _flank_tangent_centre(u: float, r: float, extra: float) -> tuple[float, float]:
    """Centre of a base of radius r touching the pointed teardrop's upper flank at axis position u.

    The flank is the tangent from the tip (origin) to the end circle (centre h = 171.45 mm, radius
    31.75 mm), so it makes angle b = asin(31.75 / 171.45) with the axis. A point (u, v) is at
    distance v cos b - u sin b from it; setting that to r + extra gives v.
    """
    h = 8 * INCH - 1.25 * INCH
    b = math.asin(1.25 * INCH / h)
    return (u, (r + extra + u * math.sin(b)) / math.cos(b))


@pytest.mark.parametrize(("extra", "status"), [(0.0, "affected"), (0.01, "outside"), (-0.01, "affected")])
def test_round_base_near_tangent_to_teardrop_flank(extra: float, status: str) -> None:
    placed = PlacedTemplate("t", TEARDROP, (0.0, 0.0), 0.0)
    x, y = _flank_tangent_centre(80.0, 12.5, extra)
    m = Model("m", x, y, Base.round(25.0))
    assert model_margin(placed, m) == pytest.approx(-extra, abs=1e-9)
    assert status_of(placed, [m])["m"] == status


@pytest.mark.parametrize(
    ("centre", "margin"),
    [
        ((-12.5, 0.0), 0.0),  # touching the pointed tip from behind
        ((-12.51, 0.0), -0.01),
        ((8 * INCH + 12.5, 0.0), 0.0),  # touching the far end of the end circle
        ((8 * INCH + 12.49, 0.0), 0.01),
        ((8 * INCH - 31.75, 31.75 + 12.5 + 0.01), -0.01),  # beside the end circle
    ],
)
def test_round_base_at_teardrop_ends(centre: tuple[float, float], margin: float) -> None:
    placed = PlacedTemplate("t", TEARDROP, (0.0, 0.0), 0.0)
    assert model_margin(placed, Model("m", *centre, Base.round(25.0))) == pytest.approx(margin, abs=1e-9)


def test_rotated_teardrop_matches_unrotated() -> None:
    x, y = _flank_tangent_centre(120.0, 12.5, 0.004)
    a = math.radians(37.0)
    rx, ry = 100 + x * math.cos(a) - y * math.sin(a), 200 + x * math.sin(a) + y * math.cos(a)
    placed = PlacedTemplate("t", TEARDROP, (100.0, 200.0), 37.0)
    assert model_margin(placed, Model("m", rx, ry, Base.round(25.0))) == pytest.approx(-0.004, abs=1e-9)


def test_sdf_agrees_with_fine_polygons() -> None:
    """The analytic distances lie between the inscribed and circumscribed polygons' distances."""
    rng = np.random.default_rng(3)
    for shape in (SMALL_BLAST, TEARDROP, TemplateShape.teardrop(127, 10.16, 44.45), TemplateShape("cone", length=150, angle=90), TemplateShape("rect", length=150, width=25)):
        placed = PlacedTemplate("t", shape, (10.0, -5.0), 23.0)
        inner = template_polygon(placed, 4096, outer=False)
        outer = template_polygon(placed, 4096, outer=True)
        pts = rng.uniform(-250, 250, size=(400, 2))
        sdf = template_sdf(placed, pts)
        outside = sdf > 0
        d_in = shapely.distance(shapely.points(pts[outside]), inner)
        d_out = shapely.distance(shapely.points(pts[outside]), outer)
        assert np.all(d_out - 1e-9 <= sdf[outside]) and np.all(sdf[outside] <= d_in + 1e-9)
        inside = ~outside
        depth = -sdf[inside]
        b_in = shapely.distance(shapely.points(pts[inside]), inner.exterior)
        b_out = shapely.distance(shapely.points(pts[inside]), outer.exterior)
        assert np.all(np.minimum(b_in, b_out) - 1e-3 <= depth) and np.all(depth <= np.maximum(b_in, b_out) + 1e-3)


# ---------------------------------------------------------------- other bases and shapes


@pytest.mark.parametrize(("offset", "status"), [(0.0, "affected"), (0.01, "outside"), (-0.01, "affected")])
def test_oval_and_rect_bases_near_tangent(offset: float, status: str) -> None:
    placed = PlacedTemplate("t", SMALL_BLAST, (0.0, 0.0), 0.0)
    oval = Model("oval", 38.1 + 30 + offset, 0.0, Base("oval", 60, 35), facing=0)  # long axis toward the focus
    rect = Model("rect", 0.0, -(38.1 + 12.5 + offset), Base("rect", 25, 25), facing=0)
    # A 25 mm square turned 45°: its corner, 12.5·√2 from its centre, points at the focus.
    diamond = Model("diamond", -(38.1 + 12.5 * math.sqrt(2) + offset), 0.0, Base("rect", 25, 25), facing=45)
    for m in (oval, rect, diamond):
        assert model_margin(placed, m) == pytest.approx(-offset, abs=1e-7), m.id
    assert status_of(placed, [oval, rect, diamond]) == {"oval": status, "rect": status, "diamond": status}


def test_cone_and_rect_templates() -> None:
    cone = PlacedTemplate("c", TemplateShape("cone", length=100, angle=90), (0.0, 0.0), 0.0)
    # On the 45° side line at distance 50, a base whose edge touches it from outside.
    edge_dir = np.array([math.cos(math.pi / 4), math.sin(math.pi / 4)])
    normal = np.array([-edge_dir[1], edge_dir[0]])
    c = edge_dir * 50 + normal * 12.5
    assert model_margin(cone, Model("m", *c, Base.round(25))) == pytest.approx(0.0, abs=1e-9)
    rect = PlacedTemplate("r", TemplateShape("rect", length=152.4, width=25.4), (0.0, 0.0), 90.0)
    # Turned to 90°: 152.4 mm along y, 25.4 mm along x. A base 12.7 + 12.5 right of the focus touches.
    assert model_margin(rect, Model("m", 25.2, 0.0, Base.round(25))) == pytest.approx(0.0, abs=1e-9)
    assert model_margin(rect, Model("m", 0.0, 76.2 + 12.5 + 1.0, Base.round(25))) == pytest.approx(-1.0, abs=1e-9)


# ---------------------------------------------------------------- a template inside a big base

BLAST_40 = TemplateShape.circle(40.0)  # R = 20 mm


@pytest.mark.parametrize("shape", ["rect", "oval"])
@pytest.mark.parametrize(
    ("focus", "margin"),
    [
        ((0.0, 0.0), 20.0),  # wholly inside: the base reaches the blast's centre, 20 mm deep
        ((30.0, -15.0), 20.0),  # still wholly inside, off centre
        ((55.0, 0.0), 20.0),  # crossing the edge x = 60: the edge alone would say 20 - 5 = 15
    ],
)
def test_a_template_inside_a_big_base_is_as_deep_as_its_deepest_point(shape: str, focus: tuple[float, float], margin: float) -> None:
    """A 40 mm blast on a 120 x 80 mm base: no edge of the base is inside the blast, the blast is inside the base."""
    placed = PlacedTemplate("t", BLAST_40, focus, 0.0)
    base = Model("big", 0.0, 0.0, Base(shape, 120.0, 80.0), facing=0.0)  # 120 mm along x
    assert model_margin(placed, base) == pytest.approx(margin, abs=1e-9)
    cov = cover(placed, table_geometry(table([base])))
    assert cov.models["big"].status == "affected" and cov.models["big"].margin_mm == pytest.approx(margin, abs=1e-9)


@pytest.mark.parametrize(
    ("shape", "depth"),
    [
        (TemplateShape("rect", length=30.0, width=10.0), 5.0),  # half the short side
        (TemplateShape("rect", length=10.0, width=24.0), 5.0),  # turned: the short side is the length
        (TemplateShape.teardrop(50.0, 10.0, 20.0), 10.0),  # the end circle's radius
        (TemplateShape("cone", length=40.0, angle=60.0), 40.0 * 0.5 / 1.5),  # inscribed circle: L sin30 / (1 + sin30)
        (TemplateShape("cone", length=30.0, angle=180.0), 15.0),  # a half disc: L / 2
    ],
)
def test_every_template_kind_inside_a_big_base(shape: TemplateShape, depth: float) -> None:
    placed = PlacedTemplate("t", shape, (-20.0, 0.0), 0.0)
    for kind in ("rect", "oval"):
        assert model_margin(placed, Model("big", 0.0, 0.0, Base(kind, 120.0, 80.0), facing=10.0)) == pytest.approx(depth, abs=1e-9), kind


def test_a_building_around_a_template_is_affected_with_the_template_depth() -> None:
    placed = PlacedTemplate("t", BLAST_40, (0.0, 0.0), 0.0)
    hall = [[-60.0, -40.0], [60.0, -40.0], [60.0, 40.0], [-60.0, 40.0]]
    assert terrain_margin(placed, np.array(hall)) == pytest.approx(20.0, abs=1e-9)
    cov = cover(placed, table_geometry(table([], [Terrain("hall", rect=RectSpec(0.0, 0.0, 120.0, 80.0), blocks_los=False)])))
    assert cov.terrain_affected == ("hall",)


# ---------------------------------------------------------------- placement


def test_teardrop_placement_from_attacker_and_target() -> None:
    attacker = Model("a", 0.0, 0.0, Base.round(25.0))
    target = Model("t", 30.0 * 4, 40.0 * 4, Base.round(40.0))  # 200 mm away along (0.6, 0.8)
    s = table([attacker, target])
    impact = place(Template("x", TEARDROP, Impact("a", "t")), s)
    # Tip on the target's edge nearest the attacker: centre − 20·(0.6, 0.8) = (108, 144).
    assert impact.focus == pytest.approx((108.0, 144.0))
    assert impact.heading == pytest.approx(math.degrees(math.atan2(0.8, 0.6)))
    direct = place(Template("y", TEARDROP, Direct("a", 90.0)), s)
    assert direct.focus == pytest.approx((0.0, 12.5))  # on the attacker's edge at heading 90
    assert direct.user == "a"
    circle = place(Template("z", SMALL_BLAST, Impact("a", "t")), s)
    assert circle.focus == (120.0, 160.0)
    at = place(Template("w", SMALL_BLAST, At(5.0, 6.0, 30.0)), s)
    assert (at.focus, at.heading) == ((5.0, 6.0), 30.0)


def test_impact_teardrop_always_affects_its_target_and_direct_never_its_user() -> None:
    attacker = Model("a", 0.0, 0.0, Base.round(25.0))
    target = Model("t", 150.0, 20.0, Base("oval", 60, 35), facing=10)
    s = table([attacker, target], templates=[Template("x", TEARDROP, Impact("a", "t")), Template("y", TEARDROP, Direct("a", 0.0))])
    geom = table_geometry(s)
    assert cover(place(s.templates[0], s), geom).models["t"].status == "affected"
    direct = cover(place(s.templates[1], s), geom)
    assert direct.models["a"].status == "user"
    assert direct.models["t"].status == "affected"


# ---------------------------------------------------------------- visibility


WALL = Terrain("wall", rect=RectSpec(25.0, 0.0, 10.0, 10.0))  # x 20..30, y -5..5
BIG = TemplateShape.circle(127.0)


def _shadow_edge_centre(r: float, inside_by: float) -> tuple[float, float]:
    """A base at x = 45 touching the shadow's upper edge (the ray y = x/4 through corner (20, 5)).

    Distance from (45, y) to the line x - 4y = 0 is (45 - 4y)/√17 for points below it (in shadow).
    Setting it to r + inside_by: y = (45 - (r + inside_by)·√17) / 4.
    """
    return (45.0, (45.0 - (r + inside_by) * math.sqrt(17)) / 4)


@pytest.mark.parametrize(
    ("centre", "status"),
    [
        ((45.0, 0.0), "total_cover"),  # 10.9 mm deep in the shadow
        ((45.0, 11.25), "affected"),  # centre on the shadow's edge: half in shadow, still affected
        (_shadow_edge_centre(5.0, 0.0), "affected"),  # grazing the shadow edge: grazing does not block
        (_shadow_edge_centre(5.0, 0.01), "total_cover"),  # 0.01 mm deeper: wholly hidden
        (_shadow_edge_centre(5.0, -0.01), "affected"),
        ((-45.0, 0.0), "affected"),  # in front of the focus, nothing between
        ((25.0, 0.0), "total_cover"),  # wholly inside the wall (an 8 mm base spans x 21..29)
    ],
)
def test_trooper_behind_building(centre: tuple[float, float], status: str) -> None:
    placed = PlacedTemplate("t", BIG, (0.0, 0.0), 0.0)
    diameter = 8.0 if centre == (25.0, 0.0) else 10.0
    assert status_of(placed, [Model("m", *centre, Base.round(diameter))], [WALL])["m"] == status


def test_base_touching_the_near_face_is_affected() -> None:
    placed = PlacedTemplate("t", BIG, (0.0, 0.0), 0.0)
    assert status_of(placed, [Model("m", 15.0, 0.0, Base.round(10.0))], [WALL])["m"] == "affected"


def test_low_walls_that_do_not_block_are_ignored() -> None:
    placed = PlacedTemplate("t", BIG, (0.0, 0.0), 0.0)
    hedge = Terrain("hedge", rect=RectSpec(25.0, 0.0, 10.0, 10.0), blocks_los=False)
    assert status_of(placed, [Model("m", 45.0, 0.0, Base.round(10.0))], [hedge])["m"] == "affected"


def test_focus_inside_a_building_sees_only_its_own_point() -> None:
    placed = PlacedTemplate("t", BIG, (25.0, 0.0), 0.0)
    statuses = status_of(placed, [Model("far", 60.0, 0.0, Base.round(10.0)), Model("on", 27.0, 0.0, Base.round(10.0))], [WALL])
    assert statuses == {"far": "total_cover", "on": "affected"}


def test_focus_on_a_building_edge_sees_along_and_away() -> None:
    placed = PlacedTemplate("t", BIG, (20.0, 0.0), 0.0)  # on the wall's near face
    statuses = status_of(
        placed,
        [Model("behind", 45.0, 0.0, Base.round(10.0)), Model("front", 0.0, 0.0, Base.round(10.0))],
        [WALL],
    )
    assert statuses == {"behind": "total_cover", "front": "affected"}


def test_terrain_affected_is_exact() -> None:
    placed = PlacedTemplate("t", SMALL_BLAST, (0.0, 0.0), 0.0)
    near = Terrain("near", rect=RectSpec(38.1 + 5.0, 0.0, 10.0, 10.0))  # face at x = 38.1: touching
    far = Terrain("far", rect=RectSpec(38.1 + 5.01, 0.0, 10.0, 10.0))  # 0.01 mm away
    cov = cover(placed, table_geometry(table([], [near, far])))
    assert cov.terrain_affected == ("near",)


def test_coincident_bases_are_judged_each_on_its_own() -> None:
    placed = PlacedTemplate("t", SMALL_BLAST, (0.0, 0.0), 0.0)
    twins = [Model("a", 50.6, 0.0, Base.round(25.0)), Model("b", 50.6, 0.0, Base.round(25.0)), Model("c", 50.6, 0.0, Base.round(24.0))]
    assert status_of(placed, twins) == {"a": "affected", "b": "affected", "c": "outside"}


def test_template_off_the_table_edge_is_judged_the_same() -> None:
    placed = PlacedTemplate("t", SMALL_BLAST, (-30.0, -30.0), 0.0)  # focus off the table's corner
    assert status_of(placed, [Model("m", 5.0, 5.0, Base.round(25.0))])["m"] == "affected"


def test_base_tangent_to_a_building_corner() -> None:
    # The wall's corner (20, 5) lies on the shadow's edge; a base touching that corner from
    # outside the shadow is visible, and so is one touching it from the lit side.
    placed = PlacedTemplate("t", BIG, (0.0, 0.0), 0.0)
    corner_touch = Model("m", 20.0, 5.0 + 5.0, Base.round(10.0))  # touches the corner from above
    assert status_of(placed, [corner_touch], [WALL])["m"] == "affected"


# ---------------------------------------------------------------- oval margins against a fine reference


def _oval_reference_margin(placed: PlacedTemplate, m: Model) -> float:
    """-min of the template's signed distance over the oval's edge: 2 million samples, then a
    golden-section search in the best sample's neighbourhood (an independent, slow answer)."""
    from tabletop.shapes import to_world

    a, b = m.base.length / 2, m.base.width / 2

    def f(t: np.ndarray) -> np.ndarray:
        return template_sdf(placed, to_world(a * np.cos(t), b * np.sin(t), (m.x, m.y), m.facing))

    n = 2_000_000
    ts = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    k = int(np.argmin(f(ts)))
    lo, hi = ts[k] - 2 * math.pi / n, ts[k] + 2 * math.pi / n
    g = (math.sqrt(5) - 1) / 2
    for _ in range(80):
        c, d = hi - g * (hi - lo), lo + g * (hi - lo)
        if f(np.array([c]))[0] < f(np.array([d]))[0]:
            hi = d
        else:
            lo = c
    return -float(f(np.array([(lo + hi) / 2]))[0])


@pytest.mark.parametrize("facing", [0.0, 17.3, 101.9, 243.7])
@pytest.mark.parametrize(
    ("template", "centre"),
    [
        (PlacedTemplate("t", SMALL_BLAST, (0.0, 0.0), 0.0), (71.3, 22.9)),  # near tangent
        (PlacedTemplate("t", SMALL_BLAST, (0.0, 0.0), 0.0), (90.0, -40.0)),  # apart
        (PlacedTemplate("t", TEARDROP, (0.0, 0.0), 12.0), (160.0, 70.0)),  # beside the flank
        (PlacedTemplate("t", TemplateShape("cone", length=100, angle=60), (0.0, 0.0), 0.0), (60.0, 55.0)),
    ],
)
def test_oval_margin_outside_matches_a_fine_reference(template: PlacedTemplate, centre: tuple[float, float], facing: float) -> None:
    """An oval near, across or clear of the template, at angles where its deepest point falls between
    the 720 first samples: the refined margin agrees with a 2-million-sample reference to 1e-7 mm."""
    from tabletop.shapes import deepest_point, to_local

    m = Model("oval", *centre, Base("oval", 60.0, 35.0), facing=facing)
    # The reference minimises over the edge: right while the template's deepest point is off the oval.
    u, v = to_local([deepest_point(template)[0]], m.centre, facing)
    assert (u[0] / 30.0) ** 2 + (v[0] / 17.5) ** 2 > 1.0
    want = _oval_reference_margin(template, m)
    assert model_margin(template, m) == pytest.approx(want, abs=1e-7)


def test_round_margins_of_no_bases_is_empty() -> None:
    placed = PlacedTemplate("t", SMALL_BLAST, (0.0, 0.0), 0.0)
    out = round_margins(placed, np.zeros((0, 2)), np.zeros(0))
    assert out.shape == (0,)


def test_a_blast_centred_just_inside_an_oval_edge_is_as_deep_as_its_radius() -> None:
    """The centre 0.0003 mm inside the true oval, between two vertices of any inscribed polygon: the
    base holds the blast's deepest point, so the margin is the full 20 mm, not 20 - 0.0003."""
    a, b, t = 30.0, 17.5, math.pi / 256
    focus = (a * math.cos(t) * (1 - 1e-5), b * math.sin(t) * (1 - 1e-5))
    placed = PlacedTemplate("t", BLAST_40, focus, 0.0)
    assert model_margin(placed, Model("oval", 0.0, 0.0, Base("oval", 2 * a, 2 * b), facing=0.0)) == pytest.approx(20.0, abs=1e-9)


def test_a_blast_centred_just_outside_an_oval_edge_is_not_as_deep_as_its_radius() -> None:
    a, b, t, d = 30.0, 17.5, math.pi / 256, 0.001  # 1 µm out along the normal, at a vertex of the 256-gon
    normal = np.array([b * math.cos(t), a * math.sin(t)])
    focus = np.array([a * math.cos(t), b * math.sin(t)]) + d * normal / np.hypot(*normal)
    placed = PlacedTemplate("t", BLAST_40, (float(focus[0]), float(focus[1])), 0.0)
    assert model_margin(placed, Model("oval", 0.0, 0.0, Base("oval", 2 * a, 2 * b), facing=0.0)) == pytest.approx(20.0 - d, abs=1e-7)


@pytest.mark.parametrize("d", [-0.001, 0.001])
@pytest.mark.parametrize("t", [0.3, 2.0, 4.4])
def test_a_blast_centred_a_micron_from_a_turned_oval_edge(t: float, d: float) -> None:
    """A 60 x 35 mm oval at (100, -50) turned 30°, the blast centre 1 µm inside (d < 0) or outside
    (d > 0) its edge along the normal at parameter ``t``: inside, the base holds the blast's deepest
    point (margin 20); outside, the margin is 20 - 0.001 (the oval's nearest point is 0.001 mm away)."""
    from tabletop.shapes import to_world

    a, b = 30.0, 17.5
    normal = np.array([b * math.cos(t), a * math.sin(t)])
    local = np.array([a * math.cos(t), b * math.sin(t)]) + d * normal / np.hypot(*normal)
    focus = to_world([local[0]], [local[1]], (100.0, -50.0), 30.0)[0]
    placed = PlacedTemplate("t", BLAST_40, (float(focus[0]), float(focus[1])), 0.0)
    oval = Model("oval", 100.0, -50.0, Base("oval", 2 * a, 2 * b), facing=30.0)
    assert model_margin(placed, oval) == pytest.approx(20.0 - max(d, 0.0), abs=1e-7)


@pytest.mark.parametrize("x", [1.0, 41.3, 99.2])
def test_rect_base_edge_nearest_point_anywhere_along_it(x: float) -> None:
    """The nearest point of a rect base's edge to a blast lies near its start, in its middle (between the
    search grid's points) or near its end: the margin is exact wherever it falls."""
    base = Model("r", 50.0, 20.0, Base("rect", 100.0, 40.0), facing=0.0)  # its edge y = 0 runs x = 0..100
    placed = PlacedTemplate("t", TemplateShape.circle(20.0), (x, -15.0), 0.0)  # 15 mm below it, R = 10
    assert model_margin(placed, base) == pytest.approx(-5.0, abs=1e-9)


# ---------------------------------------------------------------- base edges and shape checks


@pytest.mark.parametrize(
    ("shape", "rel", "dist"),
    [
        ("rect", 0.0, 30.0),  # along the facing: half the length
        ("rect", 90.0, 15.0),  # across it: half the width
        ("rect", 180.0, 30.0),
        ("rect", 10.0, 30.0 / math.cos(math.radians(10.0))),  # leaves through the short side
        ("rect", 45.0, 15.0 * math.sqrt(2)),  # leaves through the long side
        ("rect", -60.0, 15.0 / math.sin(math.radians(60.0))),
        ("oval", 0.0, 30.0),
        ("oval", 90.0, 15.0),
        ("oval", 45.0, 1.0 / math.sqrt((math.cos(math.pi / 4) / 30.0) ** 2 + (math.sin(math.pi / 4) / 15.0) ** 2)),
        ("round", 77.0, 30.0),
    ],
)
def test_base_edge_point_along_a_direction(shape: str, rel: float, dist: float) -> None:
    """From the base centre along ``facing + rel``: where the ray leaves a 60 x 30 mm base turned 30°."""
    from tabletop.shapes import base_edge_point

    base = Base(shape, 60.0, 60.0 if shape == "round" else 30.0)
    m = Model("m", 100.0, -50.0, base, facing=30.0)
    d = math.radians(30.0 + rel)
    assert base_edge_point(m, 30.0 + rel) == pytest.approx((100.0 + dist * math.cos(d), -50.0 + dist * math.sin(d)), abs=1e-9)


@pytest.mark.parametrize(
    ("shape", "problems"),
    [
        (TemplateShape.circle(40.0), []),
        (TemplateShape.circle(0.0), ["diameter must be positive"]),
        (TemplateShape.circle(-3.0), ["diameter must be positive"]),
        (TemplateShape.teardrop(200.0, 0.0, 60.0), []),
        (TemplateShape.teardrop(0.0, 0.0, 60.0), ["length must be positive"]),
        (TemplateShape.teardrop(200.0, -1.0, 60.0), ["tip_width must not be negative"]),
        (TemplateShape.teardrop(200.0, 10.0, 0.0), ["end_width must be positive"]),
        (TemplateShape.teardrop(60.0, 10.0, 60.0), ["length must exceed both widths (one end circle would swallow the other)"]),
        (TemplateShape.teardrop(60.0, 61.0, 20.0), ["length must exceed both widths (one end circle would swallow the other)"]),
        (TemplateShape.teardrop(61.0, 10.0, 60.0), []),
        (TemplateShape("rect", length=10.0, width=5.0), []),
        (TemplateShape("rect", length=0.0, width=5.0), ["length and width must be positive"]),
        (TemplateShape("rect", length=10.0, width=0.0), ["length and width must be positive"]),
        (TemplateShape("cone", length=100.0, angle=180.0), []),
        (TemplateShape("cone", length=0.0, angle=90.0), ["length must be positive"]),
        (TemplateShape("cone", length=100.0, angle=0.0), ["angle must be in (0, 180] degrees"]),
        (TemplateShape("cone", length=100.0, angle=180.5), ["angle must be in (0, 180] degrees"]),
        (TemplateShape("star"), ["unknown kind 'star'"]),
    ],
)
def test_shape_problems_name_what_is_wrong(shape: TemplateShape, problems: list[str]) -> None:
    from tabletop.shapes import shape_problems

    assert shape_problems(shape) == problems
