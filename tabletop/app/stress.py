"""A big, reproducible table for measuring the live loop (300 models, 60 buildings, 6 templates)."""

from __future__ import annotations

import random

from tabletop.catalogue import default_catalogue
from tabletop.model import At, Base, Model, RectSpec, Scenario, Table, Template, Terrain

INCH = 25.4


def stress_scenario(models: int = 300, buildings: int = 60, templates: int = 6, seed: int = 3) -> Scenario:
    """A 6'×4' table crowded with bases, buildings and templates (deterministic for ``seed``)."""
    rng = random.Random(seed)
    width, depth = 72 * INCH, 48 * INCH
    terrain = tuple(
        Terrain(
            f"b{i}",
            rect=RectSpec(rng.uniform(50, width - 50), rng.uniform(50, depth - 50), rng.uniform(40, 150), rng.uniform(40, 150), rng.uniform(0, 90)),
            kind="building",
        )
        for i in range(buildings)
    )
    bases = tuple(
        Model(f"m{i}", rng.uniform(20, width - 20), rng.uniform(20, depth - 20), Base.round(rng.choice([25.0, 32.0, 40.0])), side=rng.choice(["red", "blue"]))
        for i in range(models)
    )
    catalogue = default_catalogue()
    names = [n for n in ("large_blast", "flamer", "small_blast") if n in catalogue] or list(catalogue)
    laid = tuple(
        Template(
            f"t{i}",
            catalogue[names[i % len(names)]].shape,
            At(rng.uniform(100, width - 100), rng.uniform(100, depth - 100), rng.uniform(0, 360)),
            shape_name=names[i % len(names)],
        )
        for i in range(templates)
    )
    return Scenario(Table(width, depth), bases, terrain, laid, title=f"Stress: {models} models, {buildings} buildings, {templates} templates")
