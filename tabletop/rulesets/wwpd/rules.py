"""``wwpd``: the template rules of the 2012 WWPD blog post.

A template is centred over a nominated target model with its longest dimension
across the line of fire; a battery of identical weapons lays its templates side
by side along that line (the "T"). Every model whose base meets a template is
counted once per template, per unit, friend or foe; a friendly model covered
means the firing unit takes a Leadership test. No scatter, no dice.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import shapely

from tabletop.plugin import (
    CONTACT_EPS_MM,
    At,
    Context,
    Coverage,
    Direct,
    LengthError,
    Impact,
    Model,
    ModelCoverage,
    PlacedTemplate,
    Resolution,
    Ruleset,
    Scenario,
    Step,
    TemplateShape,
    base_line_of_sight,
    base_polygon,
    display_names,
    in_range,
    line_of_fire,
    named,
    parse_length,
    point_line_of_sight,
    to_units,
    to_world,
    with_statuses,
)

NO_SIDE = ("", "neutral")
RANGE_MEASURES = ("edge", "centre")

SETTINGS: dict[str, tuple[Any, str]] = {
    "battery_overlap": (
        0.0,
        "How far neighbouring battery templates overlap, as a fraction of one template's extent along "
        "the line (0 = just touching, the widest T; the rules allow 'touching or overlapping').",
    ),
    "even_battery_centre": (
        "between",
        "With an even battery: 'between' puts the target where the middle two templates touch; "
        "'template' centres one template on the target and the extra one goes to the firer's left.",
    ),
    "allow_point_aim": (
        False,
        "Allow a template laid at a point instead of over a nominated target model (the rules require a target).",
    ),
    "check_line_of_sight": (
        True,
        "The seed: the target model must be 'in range and line of site'. Refuse a shot when no straight line "
        "joins any part of the firer's base to any part of the target's without crossing terrain that blocks "
        "line of sight (other models never block: the seed does not say they do).",
    ),
    "range_measure": (
        "edge",
        "How weapon.range is measured: 'edge' (default) from the firer's base edge to the target's base edge, "
        "or 'centre' from centre to centre. The seed gives no method.",
    ),
}


def lay(shape: TemplateShape, template_id: str, centre: tuple[float, float], fire: float) -> tuple[PlacedTemplate, float]:
    """``shape`` centred on ``centre`` with its longest dimension across the line of fire ``fire``.

    Returns the placed template and its extent along the line across the line of fire.
    The centre of a template is the centre of its bounding box in its own frame.
    """
    u_min, u_max, half_v = shape.local_extent()
    along, across = u_max - u_min, 2 * half_v
    if shape.kind == "circle" or along >= across:
        # The axis carries the longest dimension: lay it across the line of fire.
        heading, extent = fire + 90.0, along
    else:
        # Wider than long (a wide cone, a rect given width-first): the axis stays on the line of fire.
        heading, extent = fire, across
    u_mid = (u_min + u_max) / 2
    focus = to_world([-u_mid], [0.0], centre, heading)[0]
    return PlacedTemplate(template_id, shape, (float(focus[0]), float(focus[1])), heading), extent


def battery_offsets(n: int, pitch: float, even_centre: str) -> list[float]:
    """Offsets of ``n`` template centres along the battery line (+ = the firer's left)."""
    offsets = [(k - (n - 1) / 2) * pitch for k in range(n)]
    if n % 2 == 0 and even_centre == "template":
        offsets = [o + pitch / 2 for o in offsets]
    return offsets


def unit_key(model: Model) -> str:
    """A model's unit; a model without one is a unit of its own, named by its id."""
    return model.unit or model.id


def friends(a: Model | None, b: Model) -> bool:
    """Same side, and that side is a real one (``neutral`` is nobody's friend)."""
    if a is None or a.side is None or b.side is None:
        return False
    return a.side == b.side and a.side not in NO_SIDE


def _aim(ctx: Context) -> tuple[tuple[float, float], float, Model | None, str | None, str | None]:
    """(centre, line of fire, attacker, target id, why the aim breaks the rules or None)."""
    p = ctx.template.placement
    models = ctx.scenario.models_by_id()
    if isinstance(p, Impact):
        attacker = models[p.attacker]
        if p.target is not None:
            target = models[p.target]
            return target.centre, line_of_fire(attacker, target.centre), attacker, target.id, None
        assert p.point is not None
        return p.point, line_of_fire(attacker, p.point), attacker, None, "aimed at a point, not a nominated target model"
    if isinstance(p, At):
        return (p.x, p.y), p.heading, None, None, "laid at a point, not over a nominated target model"
    if isinstance(p, Direct):
        attacker = models[p.attacker]
        return ctx.placed.focus, p.heading, attacker, None, "a direct template is not centred over a nominated target model"
    return ctx.placed.focus, ctx.placed.heading, None, None, "an explosion is not a template weapon fired at a target"


def weapon_range_mm(weapon: Mapping[str, Any], units: str) -> float | None:
    """``weapon.range`` in mm (a number in the file's units, or a length such as "24in"); None when absent."""
    value = weapon.get("range")
    return None if value is None else parse_length(value, units)


def _sight_and_range(
    ctx: Context, attacker: Model | None, target_id: str | None, centre: tuple[float, float]
) -> tuple[dict[str, Any] | None, dict[str, Any] | None, str | None]:
    """The seed's "target model in range and line of site": (sight report, range report, why refused or None)."""
    if attacker is None:
        return None, None, None
    scenario, units = ctx.scenario, ctx.scenario.units
    models = scenario.models_by_id()
    target = models.get(target_id) if target_id is not None else None
    what = f"{target.label} ({target.id})" if target is not None and target.label != target.id else target_id or "the point aimed at"
    refusal: str | None = None
    sight_info: dict[str, Any] | None = None
    if bool(ctx.settings.get("check_line_of_sight", True)):
        if target is not None:
            sight = base_line_of_sight(attacker, target, scenario.terrain, tolerance_mm=ctx.tolerance_mm)
        else:
            sight = point_line_of_sight(attacker, centre, scenario.terrain, tolerance_mm=ctx.tolerance_mm)
        sight_info = {
            "kind": sight.kind,
            "seen": sight.seen,
            "visible_fraction": round(sight.visible_fraction, 3),
            "blocked_by": list(sight.blocked_by),
            "contested": sight.contested,
            "reason": sight.reason,
            "lines": [
                {"from": [round(to_units(c, units), 6) for c in ln.start[:2]], "to": [round(to_units(c, units), 6) for c in ln.end[:2]], "clear": ln.clear}
                for ln in sight.lines
            ],
        }
        if not sight.seen:
            names = {t.id: t.label if t.label == t.id else f"{t.label} ({t.id})" for t in scenario.terrain}
            blockers = ", ".join(names.get(i, i) for i in sight.blocked_by) or "terrain"
            refusal = f"wwpd: {what} is not in line of sight of {attacker.label}: blocked by {blockers}"
    range_info: dict[str, Any] | None = None
    reach = weapon_range_mm(ctx.template.weapon, units)
    if reach is not None:
        measure = str(ctx.settings.get("range_measure", "edge"))
        measure = measure if measure in RANGE_MEASURES else "edge"
        if target is not None:
            ok, dist = in_range(attacker, target, reach, measure)  # type: ignore[arg-type]
        else:
            if measure == "edge":
                dist = float(shapely.distance(base_polygon(attacker, 1024, outer=True), shapely.Point(centre)))
            else:
                dist = math.hypot(centre[0] - attacker.x, centre[1] - attacker.y)
            ok = dist <= reach + 1e-9
        how = "base edge to base edge" if measure == "edge" else "centre to centre"
        text = f"{to_units(dist, units):.4g} {units} ({how}) {'within' if ok else 'beyond'} the weapon's range of {to_units(reach, units):g} {units}"
        range_info = {"range": round(to_units(reach, units), 6), "distance": round(to_units(dist, units), 6), "measure": measure, "in_range": ok, "text": text}
        if not ok and refusal is None:
            refusal = f"wwpd: {what} is out of range: {text}"
    return sight_info, range_info, refusal


def strictly_under(coverage: Coverage) -> tuple[Coverage, list[str]]:
    """``coverage`` with bases that only touch the template's edge taken out, and their ids.

    The seed: "A model is under a template if any portion of its base (or hull) is under the
    template": a base tangent to the edge has no portion under it.
    """
    tangent = [i for i, c in coverage.models.items() if c.status == "affected" and c.margin_mm <= CONTACT_EPS_MM]
    if not tangent:
        return coverage, []
    return with_statuses(coverage, {i: "outside" for i in tangent}), tangent


def combine(members: list[Coverage], primary: PlacedTemplate, scenario: Scenario, tolerance_mm: float) -> Coverage:
    """One coverage for a battery: affected when under any member; the margin is the deepest."""
    models: dict[str, ModelCoverage] = {}
    for m in scenario.models:
        covs = [c.models[m.id] for c in members]
        status = "affected" if any(c.status == "affected" for c in covs) else covs[0].status
        margin = max(c.margin_mm for c in covs)
        models[m.id] = ModelCoverage(status, margin, status != "user" and abs(margin) <= tolerance_mm)
    hit = {t for c in members for t in c.terrain_affected}
    terrain = tuple(t.id for t in scenario.terrain if t.id in hit)
    return Coverage(primary, models, terrain, None, tolerance_mm)


def resolve(ctx: Context) -> Resolution:
    """Lay the template (or the battery's T), count covered models per unit, flag friendly fire."""
    template = ctx.template
    shape = ctx.placed.shape
    centre, fire, attacker, target_id, bad_aim = _aim(ctx)
    n = max(1, template.battery)
    overlap = float(ctx.settings.get("battery_overlap", 0.0))
    if not 0.0 <= overlap < 1.0:
        overlap = 0.0
    even_centre = str(ctx.settings.get("even_battery_centre", "between"))
    names = display_names(ctx.scenario)

    first, extent = lay(shape, template.id, centre, fire)
    pitch = extent * (1.0 - overlap)
    across = math.radians(fire + 90.0)
    placed: list[PlacedTemplate] = []
    for k, off in enumerate(battery_offsets(n, pitch, even_centre)):
        c = (centre[0] + off * math.cos(across), centre[1] + off * math.sin(across))
        p, _ = lay(shape, template.id if n == 1 else f"{template.id}#{k + 1}", c, fire)
        placed.append(PlacedTemplate(p.id, p.shape, p.focus, p.heading, user=ctx.placed.user))
    covers, tangents = [], []
    for p in placed:
        strict, touching = strictly_under(ctx.cover(p))
        covers.append(strict)
        tangents.append(touching)
    primary_index = (n - 1) // 2 if not (n % 2 == 0 and even_centre == "template") else n // 2
    coverage = combine(covers, placed[primary_index], ctx.scenario, ctx.tolerance_mm)

    counts: dict[str, int] = {}
    covered: dict[str, list[str]] = {}
    model_details: dict[str, dict[str, Any]] = {}
    friendly: list[str] = []
    for m in ctx.scenario.models:
        under = [p.id for p, c in zip(placed, covers) if c.models[m.id].status == "affected"]
        contested = [p.id for p, c in zip(placed, covers) if c.models[m.id].status != "user" and c.models[m.id].contested]
        detail: dict[str, Any] = {"templates": len(under), "unit": unit_key(m)}
        if n > 1 and under:
            detail["under"] = under
        if contested:
            detail["contested_templates"] = contested
        model_details[m.id] = detail
        if under:
            key = unit_key(m)
            counts[key] = counts.get(key, 0) + len(under)
            covered.setdefault(key, []).append(m.id)
            if friends(attacker, m):
                friendly.append(m.id)

    allowed, reason, refused_by = True, None, None
    if bad_aim is not None and not bool(ctx.settings.get("allow_point_aim", False)):
        allowed, reason, refused_by = False, f"wwpd: {bad_aim} (the rules centre a template over a nominated target model)", "nominate"
    sight_info, range_info, refusal = _sight_and_range(ctx, attacker, target_id, centre)
    if refusal is not None and allowed:
        allowed, reason = False, refusal
        refused_by = "sight" if sight_info is not None and not sight_info["seen"] else "range"

    units = ctx.scenario.units
    steps: list[Step] = []
    for k, p in enumerate(placed):
        fx, fy = to_units(p.focus[0], units), to_units(p.focus[1], units)
        rule = "place" if n == 1 else "battery_centre" if k == primary_index else "battery_line"
        steps.append(Step("place", f"template {p.id} laid at ({fx:g}, {fy:g}) {units}, axis {p.heading:.1f}°", p, rule=rule))
    if sight_info is not None:
        steps.append(Step("note", f"line of sight: {sight_info['reason']}", data={"model": target_id} if target_id else {}, rule="sight"))
    if range_info is not None:
        steps.append(Step("note", f"range: {range_info['text']}", data={"model": target_id} if target_id else {}, rule="range"))
    if not allowed:
        steps.append(Step("note", f"Not allowed: {reason}", rule=refused_by))
    for p, touching in zip(placed, tangents):
        if touching:
            steps.append(Step(
                "note",
                f"template {p.id}: {named(touching, names)} only {'touches' if len(touching) == 1 else 'touch'} its edge "
                f"(margin 0.0 mm): not under it",
                data={"models": touching, "template": p.id}, rule="touching",
            ))
    for m in ctx.scenario.models:
        under = model_details[m.id].get("under", [])
        if len(under) > 1:
            steps.append(Step(
                "note", f"{named([m.id], names)} is under {len(under)} templates ({', '.join(under)}): counted {len(under)} times",
                data={"model": m.id, "templates": list(under)}, rule="counted_twice",
            ))
    for key in counts:
        steps.append(Step(
            "note", f"unit {key}: rate of fire {counts[key]} (hits only on {named(covered[key], names)})",
            data={"unit": key, "models": covered[key], "count": counts[key]}, rule="rate_of_fire",
        ))
    firing_unit = unit_key(attacker) if attacker is not None else None
    if friendly:
        steps.append(Step(
            "note", f"friendly model(s) {named(friendly, names)} covered: unit {firing_unit} takes a Leadership test",
            data={"models": friendly}, rule="leadership",
        ))

    details: Mapping[str, Any] = {
        "target": target_id,
        "line_of_fire": round(fire, 6),
        "battery": n,
        "templates": [
            {"id": p.id, "focus": [round(to_units(p.focus[0], units), 6), round(to_units(p.focus[1], units), 6)], "heading": round(p.heading, 6)}
            for p in placed
        ],
        "counts": counts,
        "covered": {k: sorted(v) for k, v in covered.items()},
        "leadership_test": bool(friendly),
        "leadership_unit": firing_unit if friendly else None,
        "friendly_covered": sorted(friendly),
        "line_of_sight": sight_info,
        "range": range_info,
    }
    return Resolution(
        coverage=coverage,
        affected=coverage.affected,
        allowed=allowed,
        reason=reason,
        details=details,
        model_details=model_details,
        steps=tuple(steps),
        also_drawn=tuple(p for i, p in enumerate(placed) if i != primary_index),
    )


def validate(scenario: Scenario) -> list[tuple[str, str]]:
    """Weapon ranges that cannot be read: (field path, message)."""
    problems: list[tuple[str, str]] = []
    for i, t in enumerate(scenario.templates):
        if "range" not in t.weapon:
            continue
        try:
            reach = weapon_range_mm(t.weapon, scenario.units)
        except LengthError as exc:
            problems.append((f"template[{i}].weapon.range", f"{exc} (the weapon's range, in the file's units or e.g. \"24in\")"))
            continue
        if reach is not None and reach < 0:
            problems.append((f"template[{i}].weapon.range", f"a range cannot be negative, got {t.weapon['range']!r}"))
    return problems


RULESET = Ruleset(
    name="wwpd",
    title="WWPD template rules (2012)",
    resolve=resolve,
    uses_visibility=False,
    rolls={},
    validate=validate,
    settings=SETTINGS,
    doc="Templates centred over the target, longest dimension across the line of fire; the target in line of "
    "sight (base to base, past terrain) and in range (weapon.range); batteries as a T; "
    "counts per unit (once per template), hits only on covered models; Leadership test on friendly fire.",
)
