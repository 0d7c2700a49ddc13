"""``tabletop.shapes`` against answers worked by hand (written to kill mutmut's survivors)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tabletop.model import Base, Model, PlacedTemplate, TemplateShape
from tabletop.shapes import _local_outline_cached, base_outline, base_polygon, deepest_point, local_outline, local_sdf, template_polygon, template_sdf, to_local, to_world


@pytest.fixture(autouse=True)
def _fresh_outlines() -> None:
    """Outlines are cached per shape for the process: build them afresh, so that these tests run
    the outline code itself (under mutmut, a cache filled by earlier tests would hide a mutant)."""
    _local_outline_cached.cache_clear()


@pytest.mark.parametrize(
    ("u", "v", "want"),
    [
        # rect 40 x 20 (half 20 x 10), focus at its centre
        (0.0, 0.0, -10.0),  # centre: the long sides are 10 away
        (15.0, 0.0, -5.0),  # 5 from the short side u = 20
        (0.0, 7.0, -3.0),  # 3 from the long side v = 10
        (-18.0, -9.5, -0.5),  # inside near a corner: min(2, 0.5)
        (23.0, 0.0, 3.0),  # outside past the short side
        (0.0, -14.0, 4.0),  # outside past the long side
        (23.0, 14.0, 5.0),  # off the corner (20, 10): a 3-4-5 triangle
        (-23.0, -14.0, 5.0),  # off the opposite corner
    ],
)
def test_rect_signed_distance(u: float, v: float, want: float) -> None:
    got = local_sdf(TemplateShape("rect", length=40.0, width=20.0), np.array([u]), np.array([v]))
    assert got[0] == pytest.approx(want, abs=1e-12)


def test_circle_signed_distance() -> None:
    """Diameter 20: |p| - 10 at (6, 8) (on the rim), (0, 0) (-10), (-9, 12) (+5)."""
    got = local_sdf(TemplateShape.circle(20.0), np.array([6.0, 0.0, -9.0]), np.array([8.0, 0.0, 12.0]))
    assert got.tolist() == pytest.approx([0.0, -10.0, 5.0], abs=1e-12)


# Teardrop length 200, tip width 20, end width 60: tip circle r1 = 10 centred at u = 10, end circle
# r2 = 30 centred at u = 170 (h = 160 between the centres). The flank is the line tangent to both:
# normal (a, b) = (sqrt(63)/8, -1/8) = (0.992157, -0.125) in (|v|, u - 10), offset r1: the tip centre
# is -10 from it and the end centre b*160 - 10 = -30 (tangent to both, checked).
TEARDROP = TemplateShape.teardrop(200.0, 20.0, 60.0)


@pytest.mark.parametrize(
    ("u", "v", "want"),
    [
        (200.0, 0.0, 0.0),  # the far end's rim
        (0.0, 0.0, 0.0),  # the tip's rim
        (170.0, 0.0, -30.0),  # the end circle's centre
        (10.0, 0.0, -10.0),  # the tip circle's centre
        (-5.0, 0.0, 5.0),  # behind the tip
        (250.0, 0.0, 50.0),  # past the end
        (170.0, -45.0, 15.0),  # beside the end circle
        (90.0, 50.0, 50 * math.sqrt(63) / 8 - 20),  # beside the flank: a*50 + b*80 - 10 = 29.6078
        (90.0, -50.0, 50 * math.sqrt(63) / 8 - 20),  # the other flank
    ],
)
def test_teardrop_signed_distance(u: float, v: float, want: float) -> None:
    assert local_sdf(TEARDROP, np.array([u]), np.array([v]))[0] == pytest.approx(want, abs=1e-9)


# Cone length 100, angle 90: sides at +-45 degrees from the axis, apex at the focus.
CONE = TemplateShape("cone", length=100.0, angle=90.0)
S45 = 50 * math.sqrt(0.5)  # 35.355: the distance from (50, 0) or (0, 50) to a side at 45 degrees


@pytest.mark.parametrize(
    ("u", "v", "want"),
    [
        (50.0, 0.0, -S45),  # on the axis: nearer the sides (35.4) than the arc (50)
        (90.0, 0.0, -10.0),  # nearer the arc
        (150.0, 0.0, 50.0),  # past the arc
        (0.0, 50.0, S45),  # beside the apex, outside a side
        (0.0, -50.0, S45),
        (-30.0, 0.0, 30.0),  # behind the apex: its distance to the apex
        (100.0, 100.0, 100 * math.sqrt(2) - 100),  # outside the arc on a side's line
    ],
)
def test_cone_signed_distance(u: float, v: float, want: float) -> None:
    assert local_sdf(CONE, np.array([u]), np.array([v]))[0] == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize(
    ("shape", "heading", "point", "depth", "other"),
    [
        (TemplateShape.circle(50.0), 30.0, (5.0, 7.0), 25.0, None),  # the focus
        (TEARDROP, 90.0, (5.0, 177.0), 30.0, None),  # the end circle's centre, u = 170, turned to +y
        (TemplateShape.teardrop(200.0, 60.0, 20.0), 0.0, (35.0, 7.0), 30.0, None),  # a fat tip: its centre u = 30
        (TemplateShape("rect", length=80.0, width=30.0), 0.0, (-20.0, 7.0), 15.0, (30.0, 7.0)),  # the mid-line, 25 each side
        (TemplateShape("rect", length=30.0, width=80.0), 0.0, (5.0, -18.0), 15.0, (5.0, 32.0)),  # across when wider than long
        # a 60 degree cone: the inscribed circle's centre d on the axis touches the sides (rho = d sin 30)
        # and the arc (d + rho = 100): d = 66.667, rho = 33.333
        (TemplateShape("cone", length=100.0, angle=60.0), 0.0, (5.0 + 200 / 3, 7.0), 100 / 3, None),
        (TemplateShape("cone", length=100.0, angle=180.0), 0.0, (55.0, 7.0), 50.0, None),  # half disc: radius 50 at 50
        (TemplateShape("cone", length=100.0, angle=240.0), 0.0, (55.0, 7.0), 50.0, None),  # wider: the same circle
    ],
)
def test_deepest_point(shape: TemplateShape, heading: float, point: tuple[float, float], depth: float, other: tuple[float, float] | None) -> None:
    p, d, q = deepest_point(PlacedTemplate("t", shape, (5.0, 7.0), heading))
    assert p == pytest.approx(point, abs=1e-9)
    assert d == pytest.approx(depth, abs=1e-12)
    if other is None:
        assert q is None
    else:
        assert q == pytest.approx(other, abs=1e-9)


def test_circle_outlines_inscribed_and_circumscribed() -> None:
    """Radius 50 at 256 segments: inner vertices on the circle from angle 0; outer vertices at
    50 / cos(pi/256) = 50.003765 from angle pi/256, so each outer edge touches the circle."""
    shape = TemplateShape.circle(100.0)
    inner, outer = local_outline(shape, 256, False), local_outline(shape, 256, True)
    assert inner.shape == outer.shape == (256, 2)
    assert np.hypot(inner[:, 0], inner[:, 1]) == pytest.approx(np.full(256, 50.0))
    assert inner[0] == pytest.approx([50.0, 0.0]) and inner[64] == pytest.approx([0.0, 50.0], abs=1e-12)
    far = 50 / math.cos(math.pi / 256)
    assert far == pytest.approx(50.003765, abs=1e-6)
    assert outer[0] == pytest.approx([far * math.cos(math.pi / 256), far * math.sin(math.pi / 256)])
    assert outer[0] == pytest.approx([50.0, 50 * math.tan(math.pi / 256)])


def test_cone_outline_counts_and_radii() -> None:
    """A 90 degree cone at 256 segments gets ceil(256 * 90 / 360) = 64 arc steps: inner = apex + 65
    points on the arc (radius 100, from -45 to +45 degrees); outer = apex + both ends + 64 midpoints
    at 100 / cos(pi/256), the step being pi/128."""
    inner, outer = local_outline(CONE, 256, False), local_outline(CONE, 256, True)
    assert inner.shape == (66, 2) and outer.shape == (67, 2)
    assert inner[0].tolist() == [0.0, 0.0] and outer[0].tolist() == [0.0, 0.0]
    assert np.hypot(inner[1:, 0], inner[1:, 1]) == pytest.approx(np.full(65, 100.0))
    assert inner[1] == pytest.approx([100 * math.sqrt(0.5), -100 * math.sqrt(0.5)])
    assert inner[-1] == pytest.approx([100 * math.sqrt(0.5), 100 * math.sqrt(0.5)])
    assert outer[1] == pytest.approx(inner[1]) and outer[-1] == pytest.approx(inner[-1])
    mids = np.hypot(outer[2:-1, 0], outer[2:-1, 1])
    assert mids == pytest.approx(np.full(64, 100 / math.cos(math.pi / 256)))
    assert math.atan2(outer[2, 1], outer[2, 0]) == pytest.approx(-math.pi / 4 + math.pi / 256)
    # A 1 degree cone still gets 4 steps (ceil(256/360) = 1 is too coarse): 1 + 5 vertices.
    assert local_outline(TemplateShape("cone", length=100.0, angle=1.0), 256, False).shape == (6, 2)


def test_teardrop_outline_brackets_the_true_shape() -> None:
    """Every inner vertex lies on the teardrop's outline (signed distance 0); every outer vertex on
    or outside it, no farther than the larger outer-polygon excess of its circles: the end's
    30 (1/cos(pi/256) - 1) = 0.00226, the tip's (85 segments, below) 10 (1/cos(pi/85) - 1) = 0.00683."""
    excess = 10 * (1 / math.cos(math.pi / 85) - 1)
    inner, outer = local_outline(TEARDROP, 256, False), local_outline(TEARDROP, 256, True)
    assert np.abs(local_sdf(TEARDROP, inner[:, 0], inner[:, 1])).max() < 1e-9
    d = local_sdf(TEARDROP, outer[:, 0], outer[:, 1])
    assert d.min() > -1e-9 and d.max() <= excess + 1e-9
    # 85 is odd, so no tip vertex lies at angle 180: the nearest are pi/85 either side, at
    # u = 10 - 10 cos(pi/85) = 0.006829; the end circle has a vertex at angle 0, u = 200.
    assert inner[:, 0].min() == pytest.approx(10 - 10 * math.cos(math.pi / 85), abs=1e-12)
    assert inner[:, 0].max() == pytest.approx(200.0)
    # The tip circle (r1 = 10) gets max(16, int(256 * 10 / 30)) = 85 segments: its vertices near
    # the tip are 360/85 degrees apart around (10, 0).
    tip = inner[np.hypot(inner[:, 0] - 10, inner[:, 1]) < 10 + 1e-9]
    angles = np.sort(np.degrees(np.arctan2(tip[:, 1], tip[:, 0] - 10)) % 360)
    assert np.diff(angles).min() == pytest.approx(360 / 85, rel=1e-6)


def test_rect_template_polygon_turned_and_moved() -> None:
    """A 40 x 20 rect at (100, 100) with heading 90: its length runs along y, so 90..110 by 80..120."""
    poly = template_polygon(PlacedTemplate("t", TemplateShape("rect", length=40.0, width=20.0), (100.0, 100.0), 90.0))
    assert poly.bounds == pytest.approx((90.0, 80.0, 110.0, 120.0))
    assert poly.area == pytest.approx(800.0)


def test_base_outlines() -> None:
    """A 60 x 30 rect base at (100, 50) facing 90: local (u, v) -> (100 - v, 50 + u). A 40 x 20
    oval at 64 segments: inner from (20, 0), vertex 16 at (0, 10); outer from angle pi/64 scaled by
    1/cos(pi/64): (20, 10 tan(pi/64)) = (20, 0.49127)."""
    rect = base_outline(Base("rect", 60.0, 30.0), 100.0, 50.0, 90.0)
    assert rect == pytest.approx(np.array([[115.0, 20.0], [115.0, 80.0], [85.0, 80.0], [85.0, 20.0]]))
    oval = Base("oval", 40.0, 20.0)
    inner = base_outline(oval, 0.0, 0.0, 0.0, 64, False)
    outer = base_outline(oval, 0.0, 0.0, 0.0, 64, True)
    assert inner.shape == outer.shape == (64, 2)
    assert inner[0] == pytest.approx([20.0, 0.0]) and inner[16] == pytest.approx([0.0, 10.0], abs=1e-12)
    assert outer[0] == pytest.approx([20.0, 0.491268], abs=1e-6)
    poly = base_polygon(Model("m", 5.0, 6.0, oval, facing=0.0), 64, True)
    assert poly.bounds == pytest.approx((-15.0, -4.0, 25.0, 16.0))  # outer edges touch the oval's extremes


@pytest.mark.parametrize(
    ("heading", "u", "v"),
    [(0.0, 0.0, 10.0), (90.0, 10.0, 0.0), (180.0, 0.0, -10.0), (30.0, 5.0, 10 * math.cos(math.radians(30)))],
)
def test_to_local_and_back(heading: float, u: float, v: float) -> None:
    """The point (10, 20) seen from (10, 10): 10 mm straight up, i.e. along the axis when it
    points at 90 degrees, across it (+v, the left) when at 0."""
    got_u, got_v = to_local([(10.0, 20.0)], (10.0, 10.0), heading)
    assert (got_u[0], got_v[0]) == pytest.approx((u, v), abs=1e-12)
    assert to_world(got_u, got_v, (10.0, 10.0), heading)[0] == pytest.approx([10.0, 20.0])
    assert template_sdf(PlacedTemplate("t", TemplateShape.circle(30.0), (10.0, 10.0), heading), [(10.0, 20.0)])[0] == pytest.approx(-5.0)


@pytest.mark.parametrize(
    "shape",
    [
        TemplateShape.circle(0.5),
        TemplateShape.teardrop(0.9, 0.1, 0.5),
        TemplateShape("rect", length=0.5, width=0.5),
        TemplateShape("cone", length=0.5, angle=0.5),
    ],
)
def test_small_but_valid_shapes_have_no_problems(shape: TemplateShape) -> None:
    """Every measurement must be positive, not at least 1 mm: sub-millimetre shapes are valid."""
    from tabletop.shapes import shape_problems

    assert shape_problems(shape) == []


def test_a_cone_a_little_wider_than_a_half_disc_has_the_half_discs_deepest_circle() -> None:
    """Past 180 degrees the deepest circle is the half disc's: radius L/2 at L/2 (the sides no longer
    pinch it); the < 180 formula would give 100 sin(90.25)/(1 + sin(90.25)) = 49.9998."""
    p, depth, _ = deepest_point(PlacedTemplate("t", TemplateShape("cone", length=100.0, angle=180.5), (0.0, 0.0), 0.0))
    assert depth == pytest.approx(50.0, abs=1e-9) and p == pytest.approx((50.0, 0.0), abs=1e-9)


def test_a_thin_tipped_teardrops_outer_outline_contains_its_tip_circle() -> None:
    """Tip width 1 (r1 = 0.5, centred at u = 0.5), end width 60: the outer outline must contain the
    whole true shape, tip circle included: (0.5, +-0.49) and (0.01, 0) are inside it. A pointed tip
    at (0, 0) would leave them out (the flanks are only 0.09 mm off the axis at u = 0.5)."""
    import shapely

    outer = shapely.Polygon(local_outline(TemplateShape.teardrop(200.0, 1.0, 60.0), 256, True))
    for pt in ((0.5, 0.49), (0.5, -0.49), (0.01, 0.0)):
        assert outer.contains(shapely.Point(pt))


def test_teardrop_outer_outline_contains_its_whole_boundary() -> None:
    """Points of the true outline (end circle r2 = 30 at u = 170, tip circle r1 = 10 at u = 10, every
    degree) all lie in the outer outline, and the inner outline's area lies below the true area
    pi (10^2 + 30^2) / 2 + (flank trapezoid) and above 99.9 % of the outer's."""
    import shapely

    t = np.radians(np.arange(360))
    pts = np.concatenate([np.stack([170 + 30 * np.cos(t), 30 * np.sin(t)], 1), np.stack([10 + 10 * np.cos(t), 10 * np.sin(t)], 1)])
    outer = shapely.Polygon(local_outline(TEARDROP, 256, True))
    inner = shapely.Polygon(local_outline(TEARDROP, 256, False))
    keep = local_sdf(TEARDROP, pts[:, 0], pts[:, 1]) > -1e-9  # the points on the hull
    assert shapely.covers(outer.buffer(1e-9), shapely.points(pts[keep])).all()
    assert inner.area < outer.area and inner.area > 0.999 * outer.area


def test_a_teardrop_with_a_tiny_tip_gets_16_tip_segments() -> None:
    """Tip width 2 (r1 = 1), end 60: int(256 * 1 / 30) = 8, raised to 16: tip vertices 22.5 deg apart."""
    inner = local_outline(TemplateShape.teardrop(200.0, 2.0, 60.0), 256, False)
    tip = inner[np.hypot(inner[:, 0] - 1, inner[:, 1]) < 1 + 1e-9]
    angles = np.sort(np.degrees(np.arctan2(tip[:, 1], tip[:, 0] - 1)) % 360)
    assert np.diff(angles).min() == pytest.approx(22.5, rel=1e-9)


def test_a_179_degree_cone_gets_128_arc_steps() -> None:
    """ceil(256 * 179 / 360) = ceil(127.29) = 128 steps: apex + 129 inner arc points."""
    assert local_outline(TemplateShape("cone", length=100.0, angle=179.0), 256, False).shape == (130, 2)


def test_defaults_and_errors() -> None:
    """Default segments: 256 for templates (inscribed), 64 for bases (inscribed)."""
    from tabletop.shapes import ShapeError

    circle = TemplateShape.circle(100.0)
    assert local_outline(circle).shape == (256, 2)
    assert np.hypot(*local_outline(circle).T) == pytest.approx(np.full(256, 50.0))
    poly = template_polygon(PlacedTemplate("t", circle, (0.0, 0.0), 0.0))
    assert len(poly.exterior.coords) == 257 and poly.area < math.pi * 2500
    oval = Base("oval", 40.0, 20.0)
    assert base_outline(oval, 0.0, 0.0, 0.0).shape == (64, 2)
    assert base_outline(oval, 0.0, 0.0, 0.0)[0] == pytest.approx([20.0, 0.0])
    bp = base_polygon(Model("m", 0.0, 0.0, oval, facing=0.0))
    assert len(bp.exterior.coords) == 65 and bp.area < math.pi * 200
    with pytest.raises(ShapeError, match="unknown template kind 'blob'"):
        local_outline(TemplateShape("blob"))  # type: ignore[arg-type]


def test_a_tiny_teardrop_shorter_than_its_end_is_refused() -> None:
    from tabletop.shapes import shape_problems

    assert shape_problems(TemplateShape.teardrop(0.5, 0.1, 0.8)) == ["length must exceed both widths (one end circle would swallow the other)"]


def test_to_world_broadcasts_a_scalar_against_an_array() -> None:
    """u = 5 for two values of v (and the other way round), heading 0, focus at the origin."""
    assert to_world(5.0, [0.0, 1.0], (0.0, 0.0), 0.0) == pytest.approx(np.array([[5.0, 0.0], [5.0, 1.0]]))
    assert to_world([0.0, 1.0], 5.0, (0.0, 0.0), 0.0) == pytest.approx(np.array([[0.0, 5.0], [1.0, 5.0]]))


def test_teardrop_flank_just_past_the_tip_circles_tangent_point() -> None:
    """(u, v) = (4.204545, 50) on TEARDROP: k = 0.125 * 50 + a (u - 10) = 0.5 > 0, so its nearest
    point of the outline is on the flank (just past the tangent point), at a*50 + (-1/8)(u - 10) - 10
    = 40.332269; the tip circle is farther: hypot(50, u - 10) - 10 = 40.334752."""
    u = 10 + (0.5 - 0.125 * 50) / (math.sqrt(63) / 8)
    assert local_sdf(TEARDROP, np.array([u]), np.array([50.0]))[0] == pytest.approx(40.332269, abs=1e-6)


def test_signed_distance_to_an_unknown_kind_names_it() -> None:
    from tabletop.shapes import ShapeError

    with pytest.raises(ShapeError, match="unknown template kind 'blob'"):
        local_sdf(TemplateShape("blob"), np.array([0.0]), np.array([0.0]))  # type: ignore[arg-type]
