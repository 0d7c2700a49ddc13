"""Hypothesis properties of coverage: rigid motions, bigger templates, occlusion."""

from __future__ import annotations

import dataclasses
import math

from hypothesis import HealthCheck, given, settings
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


@SETTINGS
@given(tables())
def test_shaped_base_margin_brackets_dense_sampling(case: tuple[Scenario, PlacedTemplate]) -> None:
    """Oval and rectangular margins: never below what 20,000 boundary samples show, and at most the sampling error above it."""
    import numpy as np

    from tabletop.contact import model_margin
    from tabletop.shapes import base_outline, template_sdf

    s, placed = case
    for m in s.models:
        if m.base.is_round:
            continue
        ring = base_outline(m.base, m.x, m.y, m.facing, segments=4096)
        closed = np.vstack([ring, ring[:1]])
        t = np.linspace(0.0, 1.0, 6, endpoint=False)
        pts = (closed[:-1, None, :] + (closed[1:] - closed[:-1])[:, None, :] * t[None, :, None]).reshape(-1, 2)
        sampled = -float(template_sdf(placed, pts).min())
        margin = model_margin(placed, m)
        # The exact margin takes the whole area into account: at least the boundary samples' margin.
        assert margin >= sampled - 1e-6
        step = float(np.hypot(*np.diff(pts, axis=0).T).max())
        interior = margin - sampled  # deepest point inside the base, or sampling between points
        assert interior <= step + 1e-4 or margin > 0  # 1e-4: chords of the 4096-gon sit inside the oval
