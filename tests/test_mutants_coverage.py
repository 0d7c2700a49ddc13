"""``coverage._meets_visible``'s fine fallback, reached on purpose, with answers worked by hand.

The scene: a 6" blast (R = 76.2 mm) centred on the origin and a building ``[20, 40] x [0, 20]``
whose bottom edge lies on the x axis, a line through the focus. Its shadow is the wedge of angles
0..45 degrees beyond the building, so its lower edge is the x axis itself: a point just below it is
seen, a point just above it (x > 20) is hidden.

The template is turned by -180/256 degrees (a circle's heading changes nothing true about it): the
circumscribed 256-gon then has a vertex on the x axis (R / cos(pi/256) = R + 0.00574 mm there) and
the inscribed 256-gon an edge midpoint at angle 0 and at -1.40625 degrees (R cos(pi/256) = R - 0.00574 mm).
A base within those 0.006 mm of the rim is left open by the default brackets, and the
40,000-gons (gap 2.4e-7 mm) settle it. Each test checks that the fine step really ran.
"""

from __future__ import annotations

import math

import numpy as np

import pytest

import tabletop.coverage as coverage
from tabletop.coverage import cover, table_geometry
from tabletop.model import Base, Model, PlacedTemplate, Scenario, Table, Terrain, TemplateShape
from tabletop.shapes import FINE_SEGMENTS

R = 76.2
HEADING = -180 / 256  # puts an outer vertex and an inner edge midpoint on the x axis
BUILDING = Terrain("wall", points=((20.0, 0.0), (40.0, 0.0), (40.0, 20.0), (20.0, 20.0)))
BLAST = PlacedTemplate("blast", TemplateShape.circle(2 * R), (0.0, 0.0), HEADING)


def polar(distance: float, degrees: float) -> tuple[float, float]:
    t = math.radians(degrees)
    return distance * math.cos(t), distance * math.sin(t)


@pytest.fixture
def fine_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Segment counts of every visible region the coverage builds (FINE_SEGMENTS = the fallback ran)."""
    calls: list[int] = []
    real = coverage.visible_region

    def spy(placed, obstacles, segments=256, inner_t=None, outer_t=None):  # type: ignore[no-untyped-def]
        calls.append(segments)
        return real(placed, obstacles, segments, inner_t, outer_t)

    monkeypatch.setattr(coverage, "visible_region", spy)
    return calls


def judge(model: Model, use_visibility: bool = True) -> tuple[str, float]:
    geom = table_geometry(Scenario(Table(600, 600), (model,), (BUILDING,)))
    c = cover(BLAST, geom, use_visibility=use_visibility).models[model.id]
    return c.status, c.margin_mm


# A round 25 mm base (r = 12.5) whose centre is D = R + r - d from the focus overlaps the blast by d.
R_BASE = 12.5


def test_round_base_overlapping_the_rim_by_a_micron_in_the_open_is_affected(fine_calls: list[int]) -> None:
    """d = 0.001 mm at -1.40625 deg (below the x axis: seen). The inscribed 256-gon's edge midpoint
    there is 0.00574 mm inside the rim, deeper than the base reaches, so the default bracket leaves
    it open; the inscribed 40,000-gon is 2.4e-7 mm inside, which the base reaches: affected, +0.001."""
    d = 0.001
    base = Model("b", *polar(R + R_BASE - d, -1.40625), Base.round(25.0))
    status, margin = judge(base)
    assert status == "affected"
    assert margin == pytest.approx(0.001, abs=1e-9)
    assert FINE_SEGMENTS in fine_calls


def test_round_base_tangent_to_the_rim_in_the_open_is_affected(fine_calls: list[int]) -> None:
    """d = 0 (tangent) at -1.40625 deg: no polygon inside the circle reaches it (the fine one misses by
    2.4e-7 mm) and every polygon around it does, so neither bracket decides; grazing the template
    in the open counts as seen (the fallback's last line): affected, margin 0."""
    base = Model("b", *polar(R + R_BASE, -1.40625), Base.round(25.0))
    status, margin = judge(base)
    assert status == "affected"
    assert margin == pytest.approx(0.0, abs=1e-9)
    assert FINE_SEGMENTS in fine_calls


def test_round_base_overlapping_only_behind_the_wall_is_in_total_cover(fine_calls: list[int]) -> None:
    """d = 0.001 mm, centre at 0.003 rad (0.171887 deg) above the x axis. Centre (88.69860, 0.266097);
    the base crosses the x axis at x = 88.69860 - sqrt(12.5^2 - 0.266097^2) = 76.20143, 0.00143 mm
    beyond the rim, so the part of the base below the axis (seen) never touches the template. The
    overlap (chord half-length sqrt(2 d R r / (R + r)) = 0.147 mm, i.e. 0.0019 rad either side of
    0.003 rad) lies wholly above the axis, in the shadow. The default outer 256-gon reaches R + 0.00574
    on the axis, so it leaves the base open; the fine one (R + 2.4e-7) does not: total cover, +0.001."""
    base = Model("b", *polar(R + R_BASE - 0.001, math.degrees(0.003)), Base.round(25.0))
    status, margin = judge(base)
    assert status == "total_cover"
    assert margin == pytest.approx(0.001, abs=1e-9)
    assert FINE_SEGMENTS in fine_calls
    # Without the wall it is simply affected (the status comes from the shadow, not the margin).
    assert judge(base, use_visibility=False) == ("affected", pytest.approx(0.001, abs=1e-9))


# An oval base 40 x 25 (a = 20, b = 12.5) faced along the line to the focus: its near tip is the
# point nearest the focus, so its centre at D = R + a - d overlaps the blast by d. The tip's radius
# of curvature is b^2 / a = 7.8125 mm.


def oval(distance_deg: float, d: float) -> Model:
    return Model("o", *polar(R + 20.0 - d, distance_deg), Base("oval", 40.0, 25.0), facing=distance_deg)


def test_oval_base_overlapping_the_rim_by_a_micron_in_the_open_is_affected(fine_calls: list[int]) -> None:
    """d = 0.001 mm at -1.40625 deg (seen): the inscribed 256-gon is 0.00574 mm inside the rim there,
    the fine one 2.4e-7 mm; the oval's fine 4096-gon reaches its tip to within 6e-6 mm: affected."""
    status, margin = judge(oval(-1.40625, 0.001))
    assert status == "affected"
    assert margin == pytest.approx(0.001, abs=1e-6)
    assert FINE_SEGMENTS in fine_calls


def test_oval_base_tangent_to_the_rim_in_the_open_is_affected(fine_calls: list[int]) -> None:
    """d = 0: touching (margin 0), neither bracket decides, grazing counts as seen: affected."""
    status, margin = judge(oval(-1.40625, 0.0))
    assert status == "affected"
    assert margin == pytest.approx(0.0, abs=1e-6)
    assert FINE_SEGMENTS in fine_calls


def test_oval_base_overlapping_only_behind_the_wall_is_in_total_cover(fine_calls: list[int]) -> None:
    """d = 0.001 mm, tip direction 0.003 rad above the axis. Near its tip the oval follows its
    circle of curvature (7.8125 mm, centre 84.011 mm from the focus), so along a ray at angle t it
    lies 0.001 - (84.011 / 2)(84.011 / 7.8125 - 1)(t - 0.003)^2 = 0.001 - 409.7 (t - 0.003)^2 mm
    inside the rim: the overlap spans t = 0.003 +- 0.00156 rad, all above the axis (hidden); on the
    axis the oval is 0.0027 mm beyond the rim, inside the default outer 256-gon (R + 0.00574) but
    well clear of the fine brackets (2.4e-7 mm template, 6e-6 mm base): total cover."""
    status, margin = judge(oval(math.degrees(0.003), 0.001))
    assert status == "total_cover"
    assert margin == pytest.approx(0.001, abs=1e-6)
    assert FINE_SEGMENTS in fine_calls
    assert judge(oval(math.degrees(0.003), 0.001), use_visibility=False)[0] == "affected"


# A rectangular base 50 x 25 faced along the line to the focus: its near face (local x = -25) is
# perpendicular to that line, so its centre at D = R + 25 - d overlaps the blast by d.


def rect(direction_deg: float, d: float) -> Model:
    return Model("r", *polar(R + 25.0 - d, direction_deg), Base("rect", 50.0, 25.0), facing=direction_deg)


def test_rect_base_overlapping_the_rim_in_the_open_is_affected(fine_calls: list[int]) -> None:
    """d = 0.001 mm at -1.40625 deg: the flat face is 0.001 mm inside the rim, the inscribed 256-gon
    0.00574 mm inside it there: open at the default step, reached by the fine one: affected."""
    status, margin = judge(rect(-1.40625, 0.001))
    assert status == "affected"
    assert margin == pytest.approx(0.001, abs=1e-6)
    assert FINE_SEGMENTS in fine_calls


def test_rect_base_overlapping_only_behind_the_wall_is_in_total_cover(fine_calls: list[int]) -> None:
    """d = 0.001 mm, face normal at 0.008 rad above the axis. Along a ray at angle t the face lies
    (R - d) / cos(t - 0.008) from the focus, i.e. R - 0.001 + 38.1 (t - 0.008)^2: inside the rim for
    t = 0.008 +- 0.00512 rad (all above the axis, hidden); on the axis 0.00144 mm beyond the rim,
    within the default outer 256-gon, clear of the fine one: total cover."""
    status, margin = judge(rect(math.degrees(0.008), 0.001))
    assert status == "total_cover"
    assert margin == pytest.approx(0.001, abs=1e-6)
    assert FINE_SEGMENTS in fine_calls
    assert judge(rect(math.degrees(0.008), 0.001), use_visibility=False)[0] == "affected"


def test_bases_far_from_the_rim_are_settled_without_the_fine_step(fine_calls: list[int]) -> None:
    """Clear cases need no fine step: a round base overlapping by 5 mm at -30 deg (open) is affected;
    one centred at (60, 14) (lowest point 1.5 mm above the axis, angles 0..45 deg, beyond the wall)
    is in total cover; so is the rect faced at 10 deg with d = 5 (its lowest corner, local (-25, -12.5),
    lands at (72.29, 0.05): 0.05 mm above the axis)."""
    assert judge(Model("b", *polar(R + R_BASE - 5.0, -30.0), Base.round(25.0)))[0] == "affected"
    assert judge(Model("b", 60.0, 14.0, Base.round(25.0)))[0] == "total_cover"
    assert judge(rect(10.0, 5.0))[0] == "total_cover"
    assert FINE_SEGMENTS not in fine_calls


def test_round_base_in_the_shadow_touching_its_edge_at_the_rim_is_affected(fine_calls: list[int]) -> None:
    """Centre (R, 12.5): the base lies above the x axis (hidden) except the one point (R, 0) where it
    touches the shadow's edge, on the blast's rim. The ray to (R, 0) runs along the wall's bottom
    edge, not through it: seen (grazing does not block). So affected, with margin
    R + r - |c| = 88.7 - sqrt(76.2^2 + 12.5^2) = 88.7 - 77.21846 = 11.48154. The default brackets
    leave it open (the inscribed 256-gon stops 0.00574 short of (R, 0); the outer region is exactly
    r away); the fine inscribed polygon reaches within 2.4e-7 mm of (R, 0): r + 2e-15 away."""
    status, margin = judge(Model("b", R, 12.5, Base.round(25.0)))
    assert status == "affected"
    assert margin == pytest.approx(88.7 - math.hypot(76.2, 12.5), abs=1e-9)
    assert margin == pytest.approx(11.48154, abs=1e-5)
    assert FINE_SEGMENTS in fine_calls


def test_rect_base_in_the_shadow_touching_the_rim_with_a_corner_on_its_edge_is_affected(fine_calls: list[int]) -> None:
    """A 50 x 25 rect base centred at (R + 25, 12.5): its bottom-left corner is (R, 0), on the rim and
    on the shadow's edge; everything else is outside the blast or above the axis. It touches the
    blast only at that corner (margin 0) and that corner is seen (grazing): affected. Neither bracket
    decides (inscribed polygons stop short of the rim, the outer region contains the corner)."""
    status, margin = judge(Model("r", R + 25.0, 12.5, Base("rect", 50.0, 25.0), facing=0.0))
    assert status == "affected"
    assert margin == pytest.approx(0.0, abs=1e-9)
    assert FINE_SEGMENTS in fine_calls


def test_a_slanted_oval_a_hair_above_the_shadow_edge_is_in_total_cover(fine_calls: list[int]) -> None:
    """A 60 x 10 oval (a = 30, b = 5) faced at 45 degrees reaches sqrt(a^2 sin^2 45 + b^2 cos^2 45)
    = sqrt(462.5) = 21.50581 below its centre. Centred 0.01 mm higher than that, at x = 50, its
    lowest point is 0.01 mm above the x axis (the shadow's edge), near x = 30, behind the wall; all
    of it lies within 45 degrees and past x = 20: hidden, though deep inside the blast. Total cover.
    Its circumscribed 64-gon dips 0.0225 mm below the true lowest point (so below the axis): the
    default brackets leave it open, and the inscribed polygon must not be swapped for that one."""
    centre_y = math.sqrt(30.0**2 / 2 + 5.0**2 / 2) + 0.01
    status, margin = judge(Model("o", 50.0, centre_y, Base("oval", 60.0, 10.0), facing=45.0))
    assert status == "total_cover"
    assert margin > 20.0  # deep inside: its centre is 54.5 mm from the focus
    assert FINE_SEGMENTS in fine_calls


@pytest.mark.parametrize(
    ("margin", "args", "want"),
    [
        (1.0, (1.0,), True),  # |margin| = tolerance: contested (the band is closed)
        (-1.0, (1.0,), True),
        (1.0 + 1e-9, (1.0,), False),  # no size uncertainty, no sigma by default
        (1.5, (1.0, 0.5), True),  # tolerance 1 + size 0.5
        (1.5 + 1e-9, (1.0, 0.5), False),
        (2.0, (1.0, 0.0, 0.5), True),  # tolerance 1 + 2 sigma (0.5 each)
        (2.0 + 1e-9, (1.0, 0.0, 0.5), False),
        (2.5, (1.0, 0.5, 0.5), True),  # the plain sum 1 + 0.5 + 2 x 0.5
    ],
)
def test_is_contested_band(margin: float, args: tuple[float, ...], want: bool) -> None:
    assert coverage.is_contested(margin, *args) is want


def _table(rows: dict[str, tuple[str, float, bool]]) -> coverage.ModelTable:
    import numpy as np

    ids = tuple(rows)
    return coverage.ModelTable(
        ids,
        {k: i for i, k in enumerate(ids)},
        np.array([r[0] for r in rows.values()], dtype=object),
        np.array([r[1] for r in rows.values()]),
        np.array([r[2] for r in rows.values()]),
    )


# A ruleset's own coverage flags contested by the tolerance (1 mm) alone; widen_contested adds the
# template's size uncertainty and 2 sigma of each model's position.
ROWS = {
    "near": ("affected", 1.3, False),  # outside the 1 mm tolerance, inside 1 + 0.5
    "far": ("outside", -1.6, False),  # outside 1 + 0.5, inside 1 + 0.5 + 2 x 0.1 = 1.7 with sigma 0.1
    "me": ("user", 0.2, False),  # the user is never contested
    "flagged": ("affected", 0.4, True),  # already contested: stays so
}


@pytest.mark.parametrize("as_table", [True, False])
def test_widen_contested_adds_size_uncertainty_and_two_sigma(as_table: bool) -> None:
    shape = TemplateShape("circle", diameter=100.0, size_uncertainty=0.5)
    placed = PlacedTemplate("t", shape, (0.0, 0.0), 0.0)
    models = _table(ROWS) if as_table else {k: coverage.ModelCoverage(*v) for k, v in ROWS.items()}
    cov = coverage.Coverage(placed, models, tolerance_mm=1.0)
    wide = coverage.widen_contested(cov, {})
    assert {k: c.contested for k, c in wide.models.items()} == {"near": True, "far": False, "me": False, "flagged": True}
    wider = coverage.widen_contested(cov, {"far": 0.1, "me": 5.0})
    assert {k: c.contested for k, c in wider.models.items()} == {"near": True, "far": True, "me": False, "flagged": True}
    # Statuses, margins and order are kept; the input is untouched.
    assert list(wider.models) == ["near", "far", "me", "flagged"]
    assert [(c.status, c.margin_mm) for c in wider.models.values()] == [(v[0], v[1]) for v in ROWS.values()]
    assert [c.contested for c in cov.models.values()] == [False, False, False, True]
    assert wider.models["far"] == coverage.ModelCoverage("outside", -1.6, True)
    if as_table:
        assert isinstance(wider.models, coverage.ModelTable)


def test_widen_contested_with_a_whole_mm_of_size_uncertainty() -> None:
    """Size uncertainty 1 mm, no sigmas: the band is 1 + 1 = 2 mm, so a margin of 1.8 is contested."""
    placed = PlacedTemplate("t", TemplateShape("circle", diameter=100.0, size_uncertainty=1.0), (0.0, 0.0), 0.0)
    cov = coverage.Coverage(placed, _table({"a": ("affected", 1.8, False), "b": ("outside", -2.1, False)}), tolerance_mm=1.0)
    assert [c.contested for c in coverage.widen_contested(cov, {}).models.values()] == [True, False]


def test_widen_contested_without_any_uncertainty_returns_the_coverage_itself() -> None:
    placed = PlacedTemplate("t", TemplateShape.circle(100.0), (0.0, 0.0), 0.0)
    cov = coverage.Coverage(placed, _table(ROWS), tolerance_mm=1.0)
    assert coverage.widen_contested(cov, {}) is cov
    assert coverage.widen_contested(cov, {"near": 0.01}) is cov  # 1.3 > 1 + 0.02: nothing changes


def test_visible_region_cache_keeps_the_256_most_recent() -> None:
    """The region cache is least-recently-used with room for 256: after 258 different blasts the
    first two are gone, the newest is there, and a region read again moves to the back."""
    geom = table_geometry(Scenario(Table(600, 600), (), (BUILDING,)))
    blasts = [PlacedTemplate("b", TemplateShape.circle(50.0), (float(-i), -5.0), 0.0) for i in range(258)]
    first = geom.visible_region(blasts[2], (0,), 256)
    for p in blasts[3:]:
        geom.visible_region(p, (0,), 256)
    assert geom.visible_region(blasts[2], (0,), 256) is first  # still cached; now the most recent
    for p in blasts[:2]:
        geom.visible_region(p, (0,), 256)
    keys = [k[0] for k in geom.regions]
    assert len(keys) == 256
    assert keys[-3:] == [blasts[2], blasts[0], blasts[1]]
    assert blasts[3] not in keys and blasts[4] not in keys and blasts[5] in keys


def test_shaped_margins_are_cached_per_base_and_pose_oldest_out_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two 50 x 25 rect bases faced along x, their near short faces 10 and 20 mm beyond a 100 mm
    blast's rim on the x axis: margins -10 and -20, each its own (the cache is keyed by base and
    pose). With room for 2, a third base pushes out the first one cached."""
    monkeypatch.setattr(coverage, "_MARGIN_CACHE_SIZE", 2)
    placed = PlacedTemplate("t", TemplateShape.circle(100.0), (0.0, 0.0), 0.0)
    models = tuple(Model(f"r{k}", 50.0 + d + 25.0, 0.0, Base("rect", 50.0, 25.0), facing=0.0) for k, d in enumerate((10.0, 20.0, 30.0)))
    geom = table_geometry(Scenario(Table(600, 600), models))
    c = cover(placed, geom, use_visibility=False)
    assert [c.models[m.id].margin_mm for m in models] == pytest.approx([-10.0, -20.0, -30.0], abs=1e-6)
    assert [k[2] for k in geom.shaped_margins] == [95.0, 105.0]  # the first base (x = 85) went out first
    assert list(geom.shaped_margins.values()) == pytest.approx([-20.0, -30.0], abs=1e-6)


@pytest.mark.parametrize(
    ("ring", "name"),
    [
        (((-70.0, -10.0), (-50.0, -10.0), (-50.0, 10.0), (-70.0, 10.0)), "left"),  # its right side touches (-50, 0)
        (((-10.0, -70.0), (10.0, -70.0), (10.0, -50.0), (-10.0, -50.0)), "below"),  # its top touches (0, -50)
        (((50.0, -10.0), (70.0, -10.0), (70.0, 10.0), (50.0, 10.0)), "right"),
        (((-10.0, 50.0), (10.0, 50.0), (10.0, 70.0), (-10.0, 70.0)), "above"),
    ],
)
def test_terrain_touching_the_blast_at_its_leftmost_or_lowest_point_is_under_it(ring: tuple[tuple[float, float], ...], name: str) -> None:
    """A 100 mm blast at the origin; a 20 x 20 mm piece touching its rim at (+-50, 0) or (0, +-50):
    on the template's bounding box exactly, so the candidate search must pad that box on every side."""
    placed = PlacedTemplate("t", TemplateShape.circle(100.0), (0.0, 0.0), 0.0)
    piece = Terrain(name, points=ring, blocks_los=False)
    apart = Terrain("apart", points=tuple((x * 1.01, y * 1.01) for x, y in ring), blocks_los=False)
    geom = table_geometry(Scenario(Table(600, 600), (), (piece, apart)))
    assert cover(placed, geom).terrain_affected == (name,)


def test_cover_contested_band_user_visible_region_and_tolerance() -> None:
    """A 100 mm blast (R = 50) and 25 mm bases (r = 12.5): a centre 61.5 mm out gives margin
    50 + 12.5 - 61.5 = 1.0, exactly the 1 mm tolerance: contested (the band is closed). The user's
    own model at margin 1.0 is never contested. The wall's shadow is kept on the coverage."""
    placed = PlacedTemplate("t", TemplateShape.circle(100.0), (0.0, 0.0), 0.0, user="u")
    models = (Model("a", -61.5, 0.0, Base.round(25.0)), Model("u", 0.0, -61.5, Base.round(25.0)), Model("b", -62.0, 0.0 + 200, Base.round(25.0)))
    geom = table_geometry(Scenario(Table(600, 600), models, (BUILDING,)))
    c = cover(placed, geom, tolerance_mm=1.0)
    assert c.models["a"] == coverage.ModelCoverage("affected", 1.0, True)
    assert c.models["u"] == coverage.ModelCoverage("user", 1.0, False)
    assert c.tolerance_mm == 1.0 and cover(placed, geom, tolerance_mm=2.5).tolerance_mm == 2.5
    assert c.visible is not None and c.visible.shadow is not None
    assert c.visible.shadow.area > 0
    assert cover(placed, geom, use_visibility=False).visible is None


def test_a_geometry_without_sigmas_counts_every_model_as_exactly_placed() -> None:
    """A TableGeometry made without the sigmas array (older callers) bands by the tolerance alone:
    margins 1.0 (contested) and 1.5 (not) against 1 mm, for one model and for two."""
    from dataclasses import replace

    placed = PlacedTemplate("t", TemplateShape.circle(100.0), (0.0, 0.0), 0.0)
    for models in ((Model("a", -61.5, 0.0, Base.round(25.0)),), (Model("a", -61.5, 0.0, Base.round(25.0)), Model("b", 61.0, 0.0, Base.round(25.0), sigma=5.0))):
        geom = replace(table_geometry(Scenario(Table(600, 600), models)), sigmas=np.zeros(0))
        c = cover(placed, geom, tolerance_mm=1.0)
        assert [c.models[m.id].contested for m in models] == [True, False][: len(models)]
