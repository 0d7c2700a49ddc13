"""What lies under a world point: models inside their base, templates inside their
outline (exact signed distance), terrain inside its polygon. Pure: no pygame."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import shapely

from tabletop.model import Model, PlacedTemplate, Point, Scenario
from tabletop.shapes import base_edge_point, template_sdf

from .state import Ref


def inside_base(model: Model, x: float, y: float, slack_mm: float = 0.0) -> bool:
    """Is (x, y) on the model's base (grown by ``slack_mm``)?"""
    dx, dy = x - model.x, y - model.y
    c, s = math.cos(math.radians(model.facing)), math.sin(math.radians(model.facing))
    u, v = dx * c + dy * s, -dx * s + dy * c
    a, b = model.base.length / 2 + slack_mm, model.base.width / 2 + slack_mm
    if model.base.shape == "rect":
        return abs(u) <= a and abs(v) <= b
    return (u / a) ** 2 + (v / b) ** 2 <= 1.0


def inside_base_array(model: Model, points: np.ndarray) -> np.ndarray:
    """Vectorised :func:`inside_base` for an (N, 2) array of world points."""
    dx, dy = points[:, 0] - model.x, points[:, 1] - model.y
    c, s = math.cos(math.radians(model.facing)), math.sin(math.radians(model.facing))
    u, v = dx * c + dy * s, -dx * s + dy * c
    a, b = model.base.length / 2, model.base.width / 2
    if model.base.shape == "rect":
        return (np.abs(u) <= a) & (np.abs(v) <= b)
    return (u / a) ** 2 + (v / b) ** 2 <= 1.0


def model_at(scenario: Scenario, x: float, y: float, slack_mm: float = 0.0) -> Model | None:
    """The model whose base holds (x, y); the smallest base (drawn on top) wins."""
    hits = [m for m in scenario.models if inside_base(m, x, y, slack_mm)]
    if not hits:
        return None
    return min(hits, key=lambda m: (m.base.length * m.base.width, math.hypot(x - m.x, y - m.y)))


def template_at(placed: Mapping[str, PlacedTemplate], x: float, y: float, slack_mm: float = 0.0) -> str | None:
    """Id of the template whose outline holds (x, y); the last laid (drawn on top) wins."""
    for template_id in reversed(list(placed)):
        if float(template_sdf(placed[template_id], [(x, y)])[0]) <= slack_mm:
            return template_id
    return None


def terrain_at(scenario: Scenario, x: float, y: float) -> str | None:
    """Id of the terrain piece holding (x, y), last drawn first."""
    point = shapely.Point(x, y)
    for piece in reversed(scenario.terrain):
        if shapely.Polygon(piece.polygon).covers(point):
            return piece.id
    return None


def item_at(
    scenario: Scenario,
    placed: Mapping[str, PlacedTemplate],
    x: float,
    y: float,
    slack_mm: float = 0.0,
    prefer: Ref | None = None,
) -> Ref | None:
    """What a click at (x, y) picks: the already selected item if it is under the
    point, else a model, else a template, else terrain."""
    if prefer is not None and hits(scenario, placed, prefer, x, y, slack_mm):
        return prefer
    model = model_at(scenario, x, y, slack_mm)
    if model is not None:
        return Ref("model", model.id)
    template_id = template_at(placed, x, y, slack_mm)
    if template_id is not None:
        return Ref("template", template_id)
    terrain_id = terrain_at(scenario, x, y)
    if terrain_id is not None:
        return Ref("terrain", terrain_id)
    return None


def hits(scenario: Scenario, placed: Mapping[str, PlacedTemplate], ref: Ref, x: float, y: float, slack_mm: float = 0.0) -> bool:
    """Is (x, y) on the item ``ref``?"""
    try:
        if ref.kind == "model":
            return inside_base(scenario.model(ref.id), x, y, slack_mm)
        if ref.kind == "template":
            p = placed.get(ref.id)
            return p is not None and float(template_sdf(p, [(x, y)])[0]) <= slack_mm
        return shapely.Polygon(scenario.terrain_piece(ref.id).polygon).covers(shapely.Point(x, y))
    except KeyError:
        return False


def rotation_handle(placed: PlacedTemplate, offset_mm: float) -> Point:
    """Where the rotation handle of a template sits: on its axis, past its far end."""
    reach = placed.shape.reach if placed.shape.kind != "circle" else placed.shape.radius
    d = reach + offset_mm
    h = math.radians(placed.heading)
    return (placed.focus[0] + d * math.cos(h), placed.focus[1] + d * math.sin(h))


def distance(a: Point, b: Point) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def closest_contact(model: Model, placed: PlacedTemplate) -> tuple[Point, Point, float]:
    """The nearest pair of points between a base and a template's outline, and the
    signed gap in mm (negative: the base reaches that far into the template).

    Round bases are exact (the template's signed distance and its gradient); other
    bases use the base-edge point facing the template.
    """
    centre = np.array([[model.x, model.y]])
    d = float(template_sdf(placed, centre)[0])
    eps = 1e-4
    gx = float(template_sdf(placed, centre + [[eps, 0.0]])[0] - template_sdf(placed, centre - [[eps, 0.0]])[0])
    gy = float(template_sdf(placed, centre + [[0.0, eps]])[0] - template_sdf(placed, centre - [[0.0, eps]])[0])
    norm = math.hypot(gx, gy)
    if norm < 1e-12:
        gx, gy, norm = 1.0, 0.0, 1.0
    ux, uy = gx / norm, gy / norm  # direction of increasing distance (outwards)
    boundary = (model.x - ux * d, model.y - uy * d)
    direction = math.degrees(math.atan2(-uy, -ux))  # from the centre towards the outline
    if d < 0:
        direction += 180.0  # inside: the nearest edge is the other way
    if model.base.is_round:
        r = model.base.length / 2
        edge = (model.x + math.cos(math.radians(direction)) * r, model.y + math.sin(math.radians(direction)) * r)
        return boundary, edge, d - r
    edge = base_edge_point(model, direction)
    gap = float(template_sdf(placed, [edge])[0])
    return boundary, edge, gap
