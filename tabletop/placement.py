"""Where a template lies: its blast focus and axis from its placement rule."""

from __future__ import annotations

import math

from tabletop.model import At, Direct, Explosion, Impact, Model, PlacedTemplate, Scenario, Template, TemplateShape
from tabletop.shapes import base_edge_point


class PlacementError(ValueError):
    """A template that cannot be laid as written (unknown model, missing shape, ...)."""


#: Kinds whose blast focus is at a narrow end rather than the centre.
FOCUS_AT_TIP = ("teardrop", "cone")


def line_of_fire(attacker: Model, to: tuple[float, float]) -> float:
    """Heading (degrees) from the attacker's centre to a point; 0 when they coincide."""
    dx, dy = to[0] - attacker.x, to[1] - attacker.y
    if dx == 0 and dy == 0:
        return 0.0
    return math.degrees(math.atan2(dy, dx))


def place(template: Template, scenario: Scenario, shape: TemplateShape | None = None) -> PlacedTemplate:
    """Lay ``template`` on the table; ``shape`` overrides the template's own (rulesets size explosions)."""
    shape = shape or template.shape
    if shape is None:
        raise PlacementError(f"template {template.id!r} has no shape")
    models = scenario.models_by_id()

    def model(model_id: str, role: str) -> Model:
        try:
            return models[model_id]
        except KeyError:
            raise PlacementError(f"template {template.id!r}: {role} {model_id!r} is not a model on the table") from None

    p = template.placement
    if isinstance(p, At):
        return PlacedTemplate(template.id, shape, (p.x, p.y), p.heading)
    if isinstance(p, Impact):
        attacker = model(p.attacker, "attacker")
        if p.target is not None:
            target = model(p.target, "target")
            heading = line_of_fire(attacker, target.centre)
            if shape.kind in FOCUS_AT_TIP:
                focus = base_edge_point(target, heading + 180.0)
            else:
                focus = target.centre
        else:
            assert p.point is not None
            heading = line_of_fire(attacker, p.point)
            focus = p.point
        return PlacedTemplate(template.id, shape, focus, heading)
    if isinstance(p, Direct):
        attacker = model(p.attacker, "attacker")
        if shape.kind in FOCUS_AT_TIP:
            focus = base_edge_point(attacker, p.heading)
        else:
            focus = attacker.centre
        return PlacedTemplate(template.id, shape, focus, p.heading, user=attacker.id)
    if isinstance(p, Explosion):
        m = model(p.model, "model")
        return PlacedTemplate(template.id, shape, m.centre, 0.0, user=m.id)
    raise PlacementError(f"template {template.id!r}: unknown placement {p!r}")
