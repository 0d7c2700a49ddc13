"""Hypothesis properties of coverage: rigid motions, bigger templates, occlusion."""

from __future__ import annotations

import dataclasses
import math

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tabletop.coverage import cover, table_geometry
from tabletop.model import Base, Model, PlacedTemplate, RectSpec, Scenario, Table, TemplateShape, Terrain

COORD = st.integers(-800, 800).map(lambda v: v / 4)  # quarter-millimetre grid, exact in floats
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def bases(draw: st.DrawFn) -> Base:
    shape = draw(st.sampled_from(["round", "round", "oval", "rect"]))
    length = draw(st.integers(20, 80)) * 1.0
    width = length if shape == "round" else draw(st.integers(15, 60)) * 1.0
    return Base(shape, length, width)


@st.composite
def tables(draw: st.DrawFn) -> tuple[Scenario, PlacedTemplate]:
    n = draw(st.integers(1, 8))
    models = tuple(
        Model(f"m{i}", draw(COORD), draw(COORD), draw(bases()), facing=float(draw(st.integers(0, 359))))
        for i in range(n)
    )
    k = draw(st.integers(0, 3))
    terrain = tuple(
        Terrain(
            f"w{i}",
            rect=RectSpec(draw(COORD), draw(COORD), draw(st.integers(5, 120)) * 1.0, draw(st.integers(5, 60)) * 1.0, float(draw(st.integers(0, 179)))),
        )
        for i in range(k)
    )
    kind = draw(st.sampled_from(["circle", "teardrop", "rect", "cone"]))
    if kind == "circle":
        shape = TemplateShape.circle(draw(st.integers(40, 260)) * 1.0)
    elif kind == "teardrop":
        end = draw(st.integers(20, 70)) * 1.0
        shape = TemplateShape.teardrop(draw(st.integers(80, 260)) * 1.0, draw(st.sampled_from([0.0, 10.0, 15.0])), end)
    elif kind == "rect":
        shape = TemplateShape("rect", length=draw(st.integers(20, 200)) * 1.0, width=draw(st.integers(10, 100)) * 1.0)
    else:
        shape = TemplateShape("cone", length=draw(st.integers(50, 250)) * 1.0, angle=float(draw(st.integers(20, 180))))
    placed = PlacedTemplate("t", shape, (draw(COORD), draw(COORD)), float(draw(st.integers(0, 359))))
    return Scenario(Table(2000, 2000), models, terrain), placed


def _moved(s: Scenario, placed: PlacedTemplate, dx: float, dy: float, turns: int) -> tuple[Scenario, PlacedTemplate]:
    """Rotate by ``turns`` quarter turns about the origin, then translate (exact on our grid)."""

    def rot(x: float, y: float) -> tuple[float, float]:
        for _ in range(turns % 4):
            x, y = -y, x
        return (x + dx, y + dy)

    models = tuple(dataclasses.replace(m, x=rot(m.x, m.y)[0], y=rot(m.x, m.y)[1], facing=m.facing + 90 * turns) for m in s.models)
    terrain = tuple(dataclasses.replace(t, rect=None, points=tuple(rot(*p) for p in t.polygon)) for t in s.terrain)
    moved = dataclasses.replace(placed, focus=rot(*placed.focus), heading=placed.heading + 90 * turns)
    return dataclasses.replace(s, models=models, terrain=terrain), moved


@SETTINGS
@given(tables(), COORD, COORD, st.integers(0, 3))
def test_moving_everything_together_changes_no_status(case: tuple[Scenario, PlacedTemplate], dx: float, dy: float, turns: int) -> None:
    s, placed = case
    before = cover(placed, table_geometry(s))
    s2, placed2 = _moved(s, placed, dx, dy, turns)
    after = cover(placed2, table_geometry(s2))
    # Trigonometry of the turned heading moves margins by ~1e-13 mm; exclude exact tangents.
    keep = [k for k, c in before.models.items() if abs(c.margin_mm) >= 1e-7]
    assert {k: before.models[k].status for k in keep} == {k: after.models[k].status for k in keep}
    for k, c in before.models.items():
        assert math.isclose(c.margin_mm, after.models[k].margin_mm, abs_tol=1e-6)


@SETTINGS
@given(tables(), st.floats(1.01, 2.0))
def test_a_bigger_template_never_affects_fewer_models(case: tuple[Scenario, PlacedTemplate], factor: float) -> None:
    s, placed = case
    shape = placed.shape
    grown = dataclasses.replace(
        shape,
        diameter=shape.diameter * factor,
        length=shape.length * factor,
        width=shape.width * factor,
        tip_width=shape.tip_width * factor,
        end_width=shape.end_width * factor,
    )
    geom = table_geometry(s)
    small = cover(placed, geom)
    big = cover(dataclasses.replace(placed, shape=grown), geom)
    assert set(small.affected) <= set(big.affected)
    assert set(small.ids_with("affected")) | set(small.ids_with("total_cover")) <= set(big.ids_with("affected")) | set(big.ids_with("total_cover"))


@SETTINGS
@given(tables())
def test_occlusion_never_adds_a_model(case: tuple[Scenario, PlacedTemplate]) -> None:
    s, placed = case
    with_terrain = cover(placed, table_geometry(s))
    bare = cover(placed, table_geometry(dataclasses.replace(s, terrain=())))
    assert set(with_terrain.affected) <= set(bare.affected)
    # Terrain changes who is seen, never who is touched.
    assert {k: c.margin_mm for k, c in with_terrain.models.items()} == {k: c.margin_mm for k, c in bare.models.items()}


def _sampled_margin(placed: PlacedTemplate, m: Model) -> tuple[float, float]:
    """Margin of ``m``'s base from dense samples of its whole area (edge and interior), and how far
    the true margin can lie above it: every point of the base is within that distance of a sample,
    and the signed distance changes by at most 1 mm per mm."""
    import numpy as np

    from tabletop.shapes import base_outline, template_sdf, to_world

    ring = base_outline(m.base, m.x, m.y, m.facing, segments=4096)
    closed = np.vstack([ring, ring[:1]])
    t = np.linspace(0.0, 1.0, 6, endpoint=False)
    edge = (closed[:-1, None, :] + (closed[1:] - closed[:-1])[:, None, :] * t[None, :, None]).reshape(-1, 2)
    edge_step = float(np.hypot(*np.diff(edge, axis=0).T).max())
    a, b, h = m.base.length / 2, m.base.width / 2, 1.0
    u, v = np.meshgrid(np.arange(-a, a + h, h), np.arange(-b, b + h, h))
    u, v = u.ravel(), v.ravel()
    keep = (np.abs(u) <= a) & (np.abs(v) <= b) if m.base.shape == "rect" else (u / a) ** 2 + (v / b) ** 2 <= 1.0
    interior = to_world(u[keep], v[keep], (m.x, m.y), m.facing)
    pts = np.vstack([edge, interior])
    # A point of the base either has its whole grid cell inside (a sample within h/sqrt(2)), or a cell
    # corner outside, so the edge within h*sqrt(2), and an edge sample within edge_step/2 of that.
    # 1e-4: chords of the 4096-gon sit inside the oval.
    slack = h * math.sqrt(2) + edge_step / 2 + 1e-4
    return -float(template_sdf(placed, pts).min()), slack


@SETTINGS
@given(tables())
def test_shaped_base_margin_matches_dense_sampling_of_its_area(case: tuple[Scenario, PlacedTemplate]) -> None:
    """Oval and rectangular margins: never below what dense samples of the base's area show, and at
    most the sampling error above it -- whether the template crosses the base's edge or lies inside it."""
    s, placed = case
    from tabletop.contact import model_margin

    for m in s.models:
        if m.base.is_round:
            continue
        sampled, slack = _sampled_margin(placed, m)
        margin = model_margin(placed, m)
        assert sampled - 1e-6 <= margin <= sampled + slack, (m, sampled, margin)


@SETTINGS
@given(st.sampled_from(["rect", "oval"]), st.integers(20, 120), st.integers(20, 80), COORD, COORD, st.integers(0, 359), st.integers(4, 30))
def test_a_blast_inside_a_shaped_base_has_its_radius_as_margin(
    shape: str, length: int, width: int, fx: float, fy: float, facing: int, radius: int
) -> None:
    """A blast whose centre lies on a base reaches at least its radius into it (the base holds the
    blast's deepest point), exactly the radius when the blast lies wholly inside the base."""
    from tabletop.contact import model_margin
    from tabletop.shapes import to_local

    m = Model("m", 0.0, 0.0, Base(shape, float(length), float(width)), facing=float(facing))
    assume(not m.base.is_round)  # a round base's margin is its own closed form, r - sdf(centre)
    # Keep the centre on the base: scale it into the base's own frame.
    u, v = to_local([(fx, fy)], (0.0, 0.0), float(facing))
    a, b = length / 2, width / 2
    scale = max(abs(u[0]) / a, abs(v[0]) / b) if shape == "rect" else math.hypot(u[0] / a, v[0] / b)
    k = 0.999 / scale if scale > 0.999 else 1.0
    focus = (fx * k, fy * k)
    placed = PlacedTemplate("t", TemplateShape.circle(2.0 * radius), focus, 0.0)
    margin = model_margin(placed, m)
    assert margin >= radius - 1e-9
    sampled, slack = _sampled_margin(placed, m)
    assert sampled - 1e-6 <= margin <= sampled + slack
