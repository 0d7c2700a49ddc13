"""Deterministic large tables for benchmarks, soak tests and the app's stress checks."""

from __future__ import annotations

import math
import random

from tabletop.model import At, Base, Model, RectSpec, Scenario, Table, Template, TemplateShape, Terrain

INCH = 25.4


def big_table(models: int = 300, buildings: int = 60, templates: int = 6, seed: int = 7) -> Scenario:
    """A 6'×4' table with ``models`` round bases in squads, ``buildings`` rectangles and mixed templates."""
    rng = random.Random(seed)
    width, depth = 72 * INCH, 48 * INCH
    terrain = []
    for i in range(buildings):
        terrain.append(
            Terrain(
                f"b{i}",
                rect=RectSpec(rng.uniform(50, width - 50), rng.uniform(50, depth - 50), rng.uniform(40, 160), rng.uniform(30, 100), rng.uniform(0, 180)),
                kind="building",
            )
        )
    placed_models: list[Model] = []
    squads = max(1, models // 10)
    for s in range(squads):
        cx, cy = rng.uniform(80, width - 80), rng.uniform(80, depth - 80)
        for k in range(min(10, models - len(placed_models))):
            a = rng.uniform(0, 2 * math.pi)
            d = rng.uniform(0, 90)
            placed_models.append(
                Model(f"m{len(placed_models)}", cx + d * math.cos(a), cy + d * math.sin(a), Base.round(rng.choice([25.0, 32.0, 40.0])), side=f"side{s % 2}", unit=f"squad{s}")
            )
    while len(placed_models) < models:
        placed_models.append(Model(f"m{len(placed_models)}", rng.uniform(0, width), rng.uniform(0, depth), Base.round(25.0)))
    shapes = [
        TemplateShape.circle(5 * INCH),
        TemplateShape.teardrop(8 * INCH, 0.5 * INCH, 2.5 * INCH),
        TemplateShape.circle(3 * INCH),
        TemplateShape.teardrop(5 * INCH, 0.4 * INCH, 1.75 * INCH),
        TemplateShape("cone", length=6 * INCH, angle=90),
        TemplateShape("rect", length=6 * INCH, width=1 * INCH),
    ]
    tpls = []
    for i in range(templates):
        m = placed_models[rng.randrange(len(placed_models))]
        tpls.append(Template(f"t{i}", shapes[i % len(shapes)], At(m.x, m.y, rng.uniform(0, 360))))
    return Scenario(Table(width, depth), tuple(placed_models), tuple(terrain), tuple(tpls), title=f"Benchmark: {models} models, {buildings} buildings")
