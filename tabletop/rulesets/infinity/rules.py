"""``infinity``: Infinity (Corvus Belli) Direct and Impact template weapons.

Each ``[[template]]`` is one shot (a Burst is several templates). The core lays
the template and computes the 2D coverage with blast-focus visibility; this
module adds what the rules add: terrain heights, the 3D reach of the template
(the "X" of a horizontal and a vertical template), close-combat contagion, the
friendly/neutral nullification, the main-target checks and, for every affected
enemy, how it may react (Dodge at PH or PH-3, shooting back). See
``tabletop/rulesets/infinity/README.md`` for the rules and every choice made.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import shapely
from shapely.geometry import LineString, Point
from shapely.geometry import Polygon as ShapelyPolygon

from tabletop.plugin import (
    CONTACT_EPS_MM,
    DEFAULT_TOLERANCE_MM,
    FOCUS_AT_TIP,
    Context,
    Coverage,
    Direct,
    Explosion,
    Impact,
    LengthError,
    Model,
    PlacedTemplate,
    Resolution,
    Ruleset,
    Scenario,
    Sight,
    SpanFn,
    Status,
    Step,
    Template,
    base_polygon,
    model_margin,
    named,
    parse_length,
    polygon_min_sdf,
    sight_between,
    FocusSight,
    FocusView,
    Piece,
    Volume,
    grown_base,
    template_polygon,
    to_local,
    with_statuses,
)

#: Silhouette templates: S -> (base diameter, height) in mm.
SILHOUETTES: dict[int, tuple[float, float]] = {
    1: (25.0, 25.0),
    2: (25.0, 40.0),
    3: (40.0, 32.0),
    4: (55.0, 32.0),
    5: (40.0, 45.0),
    6: (40.0, 55.0),
    7: (55.0, 67.0),
    8: (70.0, 70.0),
}

#: Ammunition without a Damage value (FAQ 1.3: may be fired with allies in the area).
NO_DAMAGE_AMMO = frozenset({"smoke", "eclipse", "nimbus"})
VERTICAL_MODELS = ("x", "cylinder", "x_slice")
DODGE_MOD = -3

SETTINGS: dict[str, tuple[Any, str]] = {
    "vertical_model": (
        "x",
        "How far a template reaches up and down (its height is its radius, or half the width of a teardrop). "
        "'x' (default) adds the seed's second, upright template so the cross-section is an X: a circular "
        "template has no direction, so its upright twin turns about the Blast Focus and sweeps a ball of the "
        "template's radius (a body of revolution); a teardrop's stands on its axis. 'cylinder' is the generous "
        "reading: the whole template extruded up and down by its height. 'x_slice' is the literal slice: the "
        "upright template on the axis (the line of fire) only, for circles too. The Blast Focus draws line of fire "
        "only inside the area: in the ball or the cylinder's slab the line must end on a part of the silhouette "
        "inside it; over the flat template of an X the silhouette counts whole.",
    ),
    "prone_height_mm": (
        12.5,
        "Silhouette height (mm) of a trooper tagged 'prone' (at most its standing height). The rules "
        "text quoted gives no number; 12.5 mm is half an S1, about a model lying flat.",
    ),
    "default_silhouette": (
        2,
        "Silhouette (1-8) of a trooper with neither 'height' nor stats.S; S2 (25 x 40 mm) is the "
        "common infantry value.",
    ),
    "models_block_lof": (
        True,
        "Whether other troopers' silhouettes block line of fire (an affected trooper's to the attacker, "
        "the attacker's to its main target); the seed: 'the first Fusilier is blocking him'. Line of fire "
        "runs from any part of one silhouette to any part of the other; a line touching a silhouette is blocked.",
    ),
}


@dataclass(frozen=True)
class Span:
    """A trooper's vertical extent: from the base's elevation to the top of its silhouette."""

    bottom: float
    top: float
    source: str


def _setting(ctx: Context, name: str) -> Any:
    return ctx.settings.get(name, SETTINGS[name][0])


def silhouette_span(model: Model, settings: Mapping[str, Any]) -> Span:
    """The trooper's vertical span [z, z + height] (mm) and where the height came from."""
    z = model.z or 0.0
    s_value = model.stats.get("S")
    if model.height is not None:
        height, source = model.height, "height"
    elif s_value is not None and int(s_value) in SILHOUETTES:
        height, source = SILHOUETTES[int(s_value)][1], f"S{int(s_value)}"
    else:
        default = int(settings.get("default_silhouette", SETTINGS["default_silhouette"][0]))
        height, source = SILHOUETTES.get(default, SILHOUETTES[2])[1], f"S{default} (default)"
    if "prone" in model.tags:
        prone = float(settings.get("prone_height_mm", SETTINGS["prone_height_mm"][0]))
        if prone < height:
            height, source = prone, f"{source}, prone"
    return Span(z, z + height, source)


def relation(model: Model, side: str | None, attacker_id: str | None) -> str:
    """``attacker``, ``friendly``, ``neutral`` or ``enemy`` as seen by the side that shoots."""
    if model.id == attacker_id:
        return "attacker"
    if (model.side or "").lower() == "neutral":
        return "neutral"
    if side is not None and model.side == side:
        return "friendly"
    if "impersonation" in model.tags:
        return "friendly"  # FAQ: an Impersonation marker counts as a friendly trooper
    return "enemy"


def has_no_damage(weapon: Mapping[str, Any]) -> bool:
    """A weapon with no Damage value (Smoke, Eclipse, Nimbus ...), per the FAQ."""
    if str(weapon.get("ammo", "")).lower() in NO_DAMAGE_AMMO:
        return True
    damage = weapon.get("damage")
    return damage is not None and (damage is False or damage == 0 or damage == "-")


def focus_elevation(template: Template, scenario: Scenario) -> tuple[float, str]:
    """Elevation (mm) of the blast focus and why: ``weapon.focus_z``, else the base it is laid from."""
    if "focus_z" in template.weapon:
        return parse_length(template.weapon["focus_z"], scenario.units), "weapon.focus_z"
    models = scenario.models_by_id()
    p = template.placement
    if isinstance(p, Direct) and p.attacker in models:
        return models[p.attacker].z or 0.0, f"the attacker {p.attacker}'s base"
    if isinstance(p, Impact) and p.target is not None and p.target in models:
        return models[p.target].z or 0.0, f"the main target {p.target}'s base"
    return 0.0, "the table (z = 0)"


# --------------------------------------------------------------------------- placement


def _shifted(placed: PlacedTemplate, distance: float) -> PlacedTemplate:
    h = math.radians(placed.heading)
    fx, fy = placed.focus
    return replace(placed, focus=(fx + distance * math.cos(h), fy + distance * math.sin(h)))


def clear_of_attacker(placed: PlacedTemplate, attacker: Model) -> PlacedTemplate:
    """Slide a Direct teardrop along its axis until it only touches the attacker's base.

    The core lays the tip on the base edge; for a round base that is already tangent,
    but a square or oval base can poke into the tip's round end.
    """
    if model_margin(placed, attacker) <= 1e-6:
        return placed
    lo, hi = 0.0, attacker.base.bounding_radius * 2 + placed.shape.reach
    for _ in range(80):
        mid = (lo + hi) / 2
        if model_margin(_shifted(placed, mid), attacker) > 0.0:
            lo = mid
        else:
            hi = mid
    return _shifted(placed, hi)


# --------------------------------------------------------------------------- 3D


def _axis_interval(placed: PlacedTemplate, model: Model) -> tuple[float, float] | None:
    """Where (along the axis, from the focus) the model's base crosses the template's axis line."""
    if model.base.is_round:
        u, v = to_local([(model.x, model.y)], placed.focus, placed.heading)
        r = model.base.length / 2
        off = abs(float(v[0]))
        if off > r + CONTACT_EPS_MM:
            return None
        half = math.sqrt(max(r * r - off * off, 0.0))
        return float(u[0]) - half, float(u[0]) + half
    far = placed.shape.reach + model.base.bounding_radius * 2 + math.hypot(model.x - placed.focus[0], model.y - placed.focus[1])
    h = math.radians(placed.heading)
    fx, fy = placed.focus
    axis = LineString([(fx - far * math.cos(h), fy - far * math.sin(h)), (fx + far * math.cos(h), fy + far * math.sin(h))])
    hit = base_polygon(model, 1024, outer=True).intersection(axis)
    if hit.is_empty:
        return None
    coords = shapely.get_coordinates(hit)
    u, _v = to_local(coords, placed.focus, placed.heading)
    return float(u.min()), float(u.max())


def _plan_distance(placed: PlacedTemplate, model: Model) -> float:
    """Plan distance (mm) from the blast focus to the nearest point of ``model``'s base (0 inside it)."""
    fx, fy = placed.focus
    if model.base.is_round:
        return max(0.0, math.hypot(model.x - fx, model.y - fy) - model.base.length / 2)
    return float(base_polygon(model, 1024, outer=True).distance(Point(fx, fy)))


def vertical_reach(placed: PlacedTemplate, model: Model, span: Span, focus_z: float, vertical_model: str) -> tuple[bool, str]:
    """Does the template's 3D area meet the trooper's silhouette? (Its base already meets the flat area.)

    ``x``: the flat template plus the upright one; a circle has no direction, so its upright
    template turns about the focus and sweeps a ball of the template's radius; a teardrop's
    stands on its axis. ``x_slice``: the upright template on the axis only, circles too.
    ``cylinder``: the flat template extruded up and down by its height.
    """
    height = placed.shape.half_width
    lo, hi = span.bottom - focus_z, span.top - focus_z
    if lo <= CONTACT_EPS_MM and hi >= -CONTACT_EPS_MM:
        return True, "its silhouette spans the template's level"
    if vertical_model == "cylinder":
        if lo <= height + CONTACT_EPS_MM and hi >= -height - CONTACT_EPS_MM:
            return True, f"within the template's height (±{height:.1f} mm of the focus)"
        return False, f"beyond the template's height (±{height:.1f} mm of the focus level)"
    where = f"{lo:.1f} mm above" if lo > 0 else f"{-hi:.1f} mm below"
    if vertical_model == "x" and placed.shape.kind == "circle":
        # The upright circle turned about the focus: a ball of radius R centred on the focus.
        radius = placed.shape.diameter / 2
        gap = min(abs(lo), abs(hi))
        nearest = math.hypot(_plan_distance(placed, model), gap)
        if nearest <= radius + CONTACT_EPS_MM:
            return True, (
                f"its silhouette ({where} the focus) comes within {nearest:.1f} mm of the Blast Focus: inside the ball "
                f"of radius {radius:.1f} mm the upright circle sweeps about its centre"
            )
        return False, (
            f"its silhouette ({where} the focus) is {nearest:.1f} mm from the Blast Focus at its nearest: the ball of "
            f"radius {radius:.1f} mm the upright circle sweeps about its centre misses it by {nearest - radius:.1f} mm"
        )
    interval = _axis_interval(placed, model)
    if interval is None:
        return False, f"{where} the flat template and clear of the upright one along the axis"
    u0, u1 = interval
    # The upright template has the flat one's outline in the (along-axis, height) plane.
    upright = PlacedTemplate(placed.id, placed.shape, (0.0, 0.0), 0.0)
    ring = [(u0, lo), (u1, lo), (u1, hi), (u0, hi)] if u1 > u0 else [(u0, lo), (u0 + 1e-9, lo), (u0, hi)]
    gap = polygon_min_sdf(upright, ring)
    if gap <= CONTACT_EPS_MM:
        return True, "its silhouette meets the upright template along the axis"
    return False, f"its silhouette ({where} the focus) misses the upright template by {gap:.1f} mm"


def reach_margin(placed: PlacedTemplate, model: Model, span: Span, focus_z: float, vertical_model: str) -> float:
    """How far (mm) the silhouette reaches into the template's 3D area by the vertical test alone (< 0: how far
    it misses); ``inf`` where the flat template decides (the silhouette spans the focus level and the reading
    is not a ball: the plan margin then says how sure it is)."""
    lo, hi = span.bottom - focus_z, span.top - focus_z
    spans_level = lo <= CONTACT_EPS_MM and hi >= -CONTACT_EPS_MM
    gap = 0.0 if spans_level else min(abs(lo), abs(hi))
    if vertical_model == "x" and placed.shape.kind == "circle":
        return placed.shape.diameter / 2 - math.hypot(_plan_distance(placed, model), gap)
    if spans_level:
        return math.inf
    if vertical_model == "cylinder":
        return placed.shape.half_width - gap
    interval = _axis_interval(placed, model)
    if interval is None:
        return -math.inf
    u0, u1 = interval
    upright = PlacedTemplate(placed.id, placed.shape, (0.0, 0.0), 0.0)
    ring = [(u0, lo), (u1, lo), (u1, hi), (u0, hi)] if u1 > u0 else [(u0, lo), (u0 + 1e-9, lo), (u0, hi)]
    return -polygon_min_sdf(upright, ring)


def focus_volume(placed: PlacedTemplate, vertical_model: str) -> Volume:
    """The template's 3D area as the Blast Focus's line of fire must stay in it: a ball for a circle under
    ``x``, a slab under ``cylinder``; no cap for the flat and upright sheets (the silhouette over the flat
    template counts whole)."""
    if vertical_model == "x" and placed.shape.kind == "circle":
        return Volume(ball=placed.shape.diameter / 2)
    if vertical_model == "cylinder":
        return Volume(half_height=placed.shape.half_width)
    return Volume()


def focus_pieces(ctx: Context) -> tuple[Piece, ...]:
    """The terrain that can hide a trooper from a blast focus: pieces that block line of fire."""
    return tuple(
        Piece(t.id, poly, t.height)
        for t, poly in zip(ctx.geometry.terrain, ctx.geometry.terrain_polygons, strict=True)
        if t.blocks_los
    )


# --------------------------------------------------------------------------- line of fire to the attacker


def in_front_arc(trooper: Model, other: Model) -> bool:
    """Is some of ``other``'s base in ``trooper``'s 180° front arc (the half-plane ahead of its facing)?"""
    f = math.radians(trooper.facing)
    ahead = (other.x - trooper.x) * math.cos(f) + (other.y - trooper.y) * math.sin(f)
    return ahead > -other.base.bounding_radius + CONTACT_EPS_MM


class LineOfFire(NamedTuple):
    """Line of fire from one trooper to another: seen or not, in words, and the sight behind it."""

    seen: bool
    reason: str
    sight: Sight | None = None  # None when the front arc decided


def sight_span(settings: Mapping[str, Any]) -> SpanFn:
    """A trooper's silhouette (bottom, top) in mm, for :mod:`tabletop.sight`."""

    def span(model: Model) -> tuple[float, float]:
        s = silhouette_span(model, settings)
        return (s.bottom, s.top)

    return span


def silhouette_sight(
    viewer: Model, target: Model, scenario: Scenario, settings: Mapping[str, Any], tolerance_mm: float = DEFAULT_TOLERANCE_MM
) -> Sight:
    """Line of fire from any part of ``viewer``'s silhouette to any part of ``target``'s.

    Blockers: terrain with ``blocks_los`` (up to its height) and, with ``models_block_lof``,
    every other trooper's silhouette.
    """
    models = scenario.models if settings.get("models_block_lof", True) else ()
    return sight_between(viewer, target, scenario.terrain, models, span=sight_span(settings), tolerance_mm=tolerance_mm)


def blocker_names(ids: Iterable[str], scenario: Scenario) -> str:
    """Blockers in words: ``terrain Wall (w1)``, ``Fusilier 1 (fus1)``."""
    models = scenario.models_by_id()
    terrain = {t.id: t for t in scenario.terrain}
    out = []
    for i in ids:
        if i in terrain:
            label = terrain[i].label
            out.append(f"terrain {label}" + (f" ({i})" if label != i else ""))
        elif i in models:
            out.append(_names([i], models))
        else:
            out.append(i)
    return ", ".join(out)


def sight_words(sight: Sight, to: str, scenario: Scenario, tolerance_mm: float = DEFAULT_TOLERANCE_MM) -> str:
    """``full`` / ``partial`` (with the visible fraction) / ``none`` line of fire to ``to``, in words."""
    names = blocker_names(sight.blocked_by, scenario)
    if sight.kind == "full":
        text = f"clear line of fire to {to} (full: nothing in between)"
    elif sight.kind == "partial":
        hidden = f"; partly hidden by {names}" if names else ""
        if sight.clear_fraction >= 1.0 and names:
            hidden = f"; only lower sight lines are hidden, by {names}"
        text = f"partial line of fire to {to} ({sight.visible_fraction:.0%} of its base in view{hidden})"
    else:
        text = f"no line of fire to {to}: blocked by {names}" if names else f"no line of fire to {to}"
    if sight.contested:
        change = "larger would hide it" if sight.seen else "smaller would show it"
        text += f" [contested: blockers {tolerance_mm:g} mm {change}; a judge's call]"
    return text


def sight_details(sight: Sight) -> dict[str, Any]:
    """What a :class:`Sight` adds to a model's report entry (lines in mm, with heights)."""
    return {
        "kind": sight.kind,
        "visible_fraction": round(sight.visible_fraction, 3),
        "clear_fraction": round(sight.clear_fraction, 3),
        "blocked_by": list(sight.blocked_by),
        "contested": sight.contested,
        "exact": sight.exact,
        "lines_mm": [
            {"from": [round(c, 3) for c in ln.start], "to": [round(c, 3) for c in ln.end], "clear": ln.clear}
            for ln in sight.lines
        ],
    }


def lof_to_attacker(
    trooper: Model, attacker: Model, scenario: Scenario, settings: Mapping[str, Any], tolerance_mm: float = DEFAULT_TOLERANCE_MM
) -> LineOfFire:
    """Line of fire from ``trooper`` to ``attacker``: the front arc first, then silhouette to silhouette."""
    if not in_front_arc(trooper, attacker):
        return LineOfFire(False, f"the attacker is outside its 180° front arc (facing {trooper.facing:g}°)")
    sight = silhouette_sight(trooper, attacker, scenario, settings, tolerance_mm)
    return LineOfFire(sight.seen, sight_words(sight, "the attacker", scenario, tolerance_mm), sight)


def lof_to_target(
    attacker: Model, target: Model, scenario: Scenario, settings: Mapping[str, Any], tolerance_mm: float = DEFAULT_TOLERANCE_MM
) -> LineOfFire:
    """The attacker's line of fire to its main target: front arc, then silhouette to silhouette."""
    if not in_front_arc(attacker, target):
        return LineOfFire(False, f"the main target is outside the attacker's 180° front arc (facing {attacker.facing:g}°)")
    sight = silhouette_sight(attacker, target, scenario, settings, tolerance_mm)
    return LineOfFire(sight.seen, sight_words(sight, "the main target", scenario, tolerance_mm), sight)


# --------------------------------------------------------------------------- close combat


def close_combats(models: Iterable[Model]) -> list[set[str]]:
    """Groups of troopers in the same close combat (``engaged`` links, either direction)."""
    links: dict[str, set[str]] = {}
    for m in models:
        for other in m.engaged:
            links.setdefault(m.id, set()).add(other)
            links.setdefault(other, set()).add(m.id)
    groups: list[set[str]] = []
    seen: set[str] = set()
    for start in links:
        if start in seen:
            continue
        group, todo = set(), [start]
        while todo:
            cur = todo.pop()
            if cur in group:
                continue
            group.add(cur)
            todo.extend(links.get(cur, ()))
        seen |= group
        groups.append(group)
    return groups


# --------------------------------------------------------------------------- resolve


def _names(ids: Iterable[str], models: Mapping[str, Model]) -> str:
    ids = list(ids)
    return named(ids, {i: models[i].label for i in ids})


def _in_area_text(ids: Iterable[str], models: Mapping[str, Model]) -> str:
    return _names(ids, models) or "nobody"


def _height_words(piece_ids: Iterable[str], scenario: Scenario) -> str:
    """``terrain Wall (w1), 11 mm high`` for each piece (``of unlimited height`` without one)."""
    terrain = {t.id: t for t in scenario.terrain}
    out = []
    for i in piece_ids:
        t = terrain.get(i)
        if t is None:
            out.append(i)
            continue
        height = "of unlimited height" if t.height is None else f"{t.height:g} mm high"
        out.append(f"{blocker_names([i], scenario)}, {height}")
    return "; ".join(out)


def resolve(ctx: Context) -> Resolution:
    """One shot of an Infinity template weapon."""
    scenario, template, weapon = ctx.scenario, ctx.template, ctx.template.weapon
    models = scenario.models_by_id()
    placement = template.placement
    steps: list[Step] = []
    details: dict[str, Any] = {}
    model_details: dict[str, dict[str, Any]] = {m.id: {} for m in scenario.models}

    vertical_model = str(_setting(ctx, "vertical_model"))
    if vertical_model not in VERTICAL_MODELS:
        vertical_model = "x"
    settings = {name: _setting(ctx, name) for name in SETTINGS}

    attacker_id = template.attacker or weapon.get("attacker")
    attacker = models.get(attacker_id) if isinstance(attacker_id, str) else None
    side = attacker.side if attacker is not None else weapon.get("side")
    kind = "direct" if isinstance(placement, Direct) else "impact" if isinstance(placement, Impact) else "free"
    main_target = placement.target if isinstance(placement, Impact) and placement.target else weapon.get("target")
    speculative = isinstance(placement, Impact) and placement.point is not None
    deployable = bool(weapon.get("deployable", False))
    burst = int(weapon.get("burst", 1) or 1)
    no_damage = has_no_damage(weapon)
    aro = weapon.get("aro") is True

    # Placement: a Direct teardrop touches the attacker's base and never passes through it.
    placed, coverage = ctx.placed, ctx.coverage
    if kind == "direct" and attacker is not None and placed.shape.kind in FOCUS_AT_TIP:
        clear = clear_of_attacker(placed, attacker)
        if clear != placed:
            moved = math.hypot(clear.focus[0] - placed.focus[0], clear.focus[1] - placed.focus[1])
            text = f"The teardrop cut into {attacker.label}'s base: slid {moved:.2f} mm along its axis so it only touches it."
            steps.append(Step("note", text, data={"model": attacker.id}, rule="slide_direct_teardrop"))
            placed, coverage = clear, ctx.cover(clear)
    tip = placed.shape.kind in FOCUS_AT_TIP
    where, place_rule = {
        "direct": ("narrow end on the attacker's base edge", "place_direct_teardrop") if tip else ("centred on the attacker", "place_direct_circle"),
        "impact": (
            ("aimed at a point (speculative attack)", "place_speculative")
            if speculative
            else ("narrow end on the main target's base edge nearest the attacker", "place_impact_teardrop")
            if tip
            else ("centred on the main target", "place_impact_circle")
        ),
        "free": ("laid at a point", "place_free"),
    }[kind]
    steps.append(Step("place", f"{template.shape_name or placed.shape.kind} template, {kind} placement: {where}.", placed, rule=place_rule))

    focus_z, focus_z_why = focus_elevation(template, scenario)
    spans = {m.id: silhouette_span(m, settings) for m in scenario.models}
    statuses: dict[str, Status] = {mid: c.status for mid, c in coverage.models.items()}

    # Line of fire from the Blast Focus: to any part of the silhouette inside the template's area, past terrain
    # up to its height. Where the area is a solid (a ball, a slab), the line must end inside it.
    outline = template_polygon(placed, 256, outer=True)
    pieces = tuple(p for p in focus_pieces(ctx) if p.polygon.intersects(outline))
    with_height = any(p.height is not None for p in pieces)
    volume = focus_volume(placed, vertical_model)
    sight = FocusSight(placed, focus_z, pieces)
    flat_sight = FocusSight(placed, focus_z, tuple(replace(p, height=None) for p in pieces))
    in_area = [m for m in scenario.models if statuses[m.id] in ("affected", "total_cover")]
    hidden_by: dict[str, tuple[str, ...]] = {}
    seen_over: dict[str, tuple[str, ...]] = {}
    # The guide: carry uncertainty into "contested". A model's band: the tolerance, 2 sigma of its position and
    # of the model the focus is laid from (the main target, or a Direct template's attacker).
    focus_source = models.get(placement.target) if isinstance(placement, Impact) and placement.target else attacker if kind == "direct" else None
    focus_sigma = 2.0 * ((focus_source.sigma or 0.0) if focus_source is not None else 0.0)
    bands = {m.id: ctx.tolerance_mm + 2.0 * (m.sigma or 0.0) + focus_sigma for m in in_area}
    variants: dict[tuple[bool, float], FocusSight] = {}
    lof_contested: dict[str, str] = {}

    def in_3d(m: Model) -> bool:
        span = spans[m.id]
        off_level = span.bottom > focus_z + CONTACT_EPS_MM or span.top < focus_z - CONTACT_EPS_MM
        return with_height or (off_level and (volume.ball is not None or volume.half_height is not None))

    for m in in_area:
        if not pieces:
            continue
        span = spans[m.id]
        if in_3d(m):
            view = sight.view(m, span.bottom, span.top, volume)
            statuses[m.id] = "affected" if view.seen else "total_cover"
            if view.seen and coverage.models[m.id].status == "total_cover":
                seen_over[m.id] = flat_sight.view(m, span.bottom, span.top, volume).hidden_by
            elif not view.seen:
                hidden_by[m.id] = view.hidden_by
        else:  # level with the focus, terrain of unlimited height: the core's plan shadow decided
            view = FocusView(statuses[m.id] == "affected", ())
            if not view.seen:
                hidden_by[m.id] = flat_sight.view(m, span.bottom, span.top, volume).hidden_by
        # Within the band of the other answer: the pieces higher and larger (when seen), or lower with the
        # trooper nearer (when hidden), decide the other way.
        band = bands[m.id]
        key = (view.seen, band)
        if key not in variants:
            variants[key] = sight.adjusted(band, band) if view.seen else sight.adjusted(-band)
        other = variants[key].view(m if view.seen else grown_base(m, band), span.bottom, span.top, volume)
        if other.seen != view.seen:
            lof_contested[m.id] = (
                f"terrain {band:g} mm higher or wider would hide it" if view.seen
                else f"terrain {band:g} mm lower, or the trooper {band:g} mm nearer a clear line, would show it"
            )

    def line_end(mid: str) -> str:
        """Where the best line from the focus ends: the silhouette's top, or the highest part of it the 3D area holds."""
        span, m = spans[mid], models[mid]
        near = sight.top_at(span.top, volume, _plan_distance(placed, m))
        if volume.ball is not None and near < span.top - 1e-9:
            return (
                f"the highest part of its silhouette inside the ball of radius {volume.ball:.1f} mm (its top is "
                f"{span.top:g} mm; over its nearest point the ball reaches {near:.1f} mm)"
            )
        if volume.ball is not None and span.top < focus_z and focus_z - span.top <= volume.ball:
            reach = math.sqrt(volume.ball**2 - (focus_z - span.top) ** 2)
            return f"the top of its silhouette ({span.top:g} mm; the ball of radius {volume.ball:.1f} mm holds it within {reach:.1f} mm of the focus in plan)"
        if near < span.top - 1e-9:
            return f"the highest part of its silhouette within the template's height ({near:.1f} mm of its {span.top:g} mm)"
        return f"the top of its silhouette ({span.top:g} mm)"

    def contested_words(mid: str) -> str:
        return f" [contested: {lof_contested[mid]}; a judge's call]" if mid in lof_contested else ""

    for mid, low in seen_over.items():
        model_details[mid]["why"] = f"terrain {', '.join(low)} is too low to hide it from the blast focus" + contested_words(mid)
    for mid in [i for i in lof_contested if i not in seen_over and i not in hidden_by]:
        model_details[mid]["why"] = "the blast focus sees it past terrain within the tolerance" + contested_words(mid)
    for mid, by in hidden_by.items():
        model_details[mid]["why"] = "Total Cover: no line of fire from the blast focus inside the template" + (
            f" (hidden by {', '.join(by)})" if by else ""
        ) + contested_words(mid)

    # 3D reach: the flat template at the focus's level plus the upright one.
    seen_from_focus = {m.id for m in in_area if statuses[m.id] == "affected"}
    out_of_reach: dict[str, str] = {}
    reach_contested: dict[str, float] = {}
    size = placed.shape.size_uncertainty
    for m in in_area:
        reached, why = vertical_reach(placed, m, spans[m.id], focus_z, vertical_model)
        margin = reach_margin(placed, m, spans[m.id], focus_z, vertical_model)
        if math.isfinite(margin) and abs(margin) <= bands[m.id] + size:
            reach_contested[m.id] = margin
        if not reached:
            statuses[m.id] = "outside"
            out_of_reach[m.id] = why
            model_details[m.id]["why"] = f"out of the template's 3D reach: {why}"

    # Contested when the answer (affected or not) could flip: by the line of fire where the trooper is reached,
    # by the reach where it is seen, by both where it is neither.
    doubtful = {
        m.id for m in in_area
        if (m.id in lof_contested and (m.id not in out_of_reach or m.id in reach_contested))
        or (m.id in reach_contested and (m.id in seen_from_focus or m.id in lof_contested))
    }
    lof_contested = {i: w for i, w in lof_contested.items() if i in doubtful}
    reach_contested = {i: v for i, v in reach_contested.items() if i in doubtful}
    reached_ids = [m.id for m in in_area if statuses[m.id] == "affected"]
    focus_at = f"z {focus_z:g} mm"
    if reached_ids:
        steps.append(Step(
            "note",
            f"In the area of effect (base touching or under the template, seen from the Blast Focus): {_in_area_text(reached_ids, models)}.",
            data={"models": reached_ids}, rule="affected",
        ))
    for mid, low in seen_over.items():
        steps.append(Step(
            "note",
            f"{_names([mid], models)}: {_height_words(low, scenario)}, {'is' if len(low) == 1 else 'are'} too low to hide it: "
            f"a line from the Blast Focus ({focus_at}) to {line_end(mid)} clears it{contested_words(mid)}.",
            data={"model": mid, "terrain": list(low), "contested": mid in lof_contested}, rule="focus_sees",
        ))
    for mid in [m.id for m in in_area if m.id in lof_contested and m.id not in seen_over and m.id not in hidden_by]:
        steps.append(Step(
            "note",
            f"{_names([mid], models)}: line of fire from the Blast Focus ({focus_at}) to {line_end(mid)} passes the "
            f"terrain within the tolerance: seen{contested_words(mid)}.",
            data={"model": mid, "contested": True}, rule="focus_sees",
        ))
    for mid in [m.id for m in in_area if m.id in hidden_by and statuses[m.id] == "total_cover"]:
        by = hidden_by[mid]
        behind = f"hidden by {_height_words(by, scenario)}" if by else "hidden by terrain"
        steps.append(Step(
            "note",
            f"{_names([mid], models)}: Total Cover: no line of fire from the Blast Focus ({focus_at}) inside the template "
            f"to any part of its silhouette; the best line, to {line_end(mid)}, is {behind}{contested_words(mid)}.",
            data={"model": mid, "terrain": list(by), "contested": mid in lof_contested}, rule="total_cover",
        ))
    reach_rule = "height" if vertical_model == "cylinder" else "x_reach"
    for mid, why in out_of_reach.items():
        span = spans[mid]
        doubt = (
            f" [contested: {abs(reach_contested[mid]):.1f} mm short, within the band of {bands[mid] + size:g} mm; a judge's call]"
            if mid in reach_contested else ""
        )
        steps.append(Step(
            "note",
            f"{_names([mid], models)} (silhouette {span.bottom:g}-{span.top:g} mm, Blast Focus at {focus_at}) is out of "
            f"the template's 3D reach: {why}{doubt}.",
            data={"model": mid, "silhouette_mm": [span.bottom, span.top], "focus_z_mm": focus_z, "contested": bool(doubt)},
            rule=reach_rule,
        ))
    for mid in [m.id for m in in_area if m.id in reach_contested and m.id not in out_of_reach and statuses[m.id] == "affected"]:
        span = spans[mid]
        m = models[mid]
        _reached, why = vertical_reach(placed, m, span, focus_z, vertical_model)
        steps.append(Step(
            "note",
            f"{_names([mid], models)} (silhouette {span.bottom:g}-{span.top:g} mm, Blast Focus at {focus_at}) is inside the "
            f"template's 3D reach by {reach_contested[mid]:.1f} mm, within the band of {bands[mid] + size:g} mm (the tolerance, "
            f"the template's size uncertainty and 2 sigma): {why} [contested: a judge's call].",
            data={"model": mid, "silhouette_mm": [span.bottom, span.top], "focus_z_mm": focus_z, "contested": True},
            rule=reach_rule,
        ))
    for mid in doubtful:
        model_details[mid]["focus_contested"] = True

    # Close combat: one affected trooper in a close combat affects all of them.
    for group in close_combats(scenario.models):
        hit = sorted(i for i in group if statuses.get(i) == "affected")
        if not hit:
            continue
        for mid in sorted(group):
            if mid in statuses and statuses[mid] not in ("affected", "user"):
                statuses[mid] = "affected"
                model_details[mid]["why"] = f"in close combat with {_names(hit, models)}, who is affected"
        members = sorted(group & statuses.keys())
        steps.append(Step("note", f"Close combat: {_names(members, models)} are all affected.", data={"models": members}, rule="close_combat"))

    relations = {m.id: relation(m, side, attacker_id) for m in scenario.models}
    for m in scenario.models:
        span = spans[m.id]
        model_details[m.id] = {
            "relation": relations[m.id],
            "silhouette_mm": [round(span.bottom, 3), round(span.top, 3)],
            "silhouette": span.source,
            **model_details[m.id],
        }

    refusals: list[tuple[str, str]] = []  # (reason, rule id)
    declared = main_target if isinstance(main_target, str) and main_target in models else None
    if declared is not None and "camouflaged" in models[declared].tags and (kind == "impact" or aro):
        refusals.append((
            f"{_names([declared], models)} is a Camouflage Marker: it cannot be declared the "
            f"{'main target' if kind == 'impact' else 'target'} of a template attack (the FAQ affects a marker only "
            "as a bystander when the attack hits an enemy trooper not in Camouflaged state)",
            "camouflage_target",
        ))
    # Main target rules (Impact): it must be declared and must end up inside the area.
    if kind == "impact" and speculative and placed.shape.kind != "circle":
        refusals.append((
            "a teardrop impact template is laid from its main target's base edge; "
            "only a circular template can be aimed at a point (speculative attack)",
            "speculative_circle_only",
        ))
    elif kind == "impact" and main_target is None and not no_damage:
        refusals.append(("an impact template needs a main target (add weapon.target for a speculative attack)", "main_target"))
    elif declared is not None and statuses.get(declared) != "affected" and kind != "direct":
        refusals.append((f"the attack fails: the main target {_names([declared], models)} is not in the area of effect", "main_target"))
    # An aimed Impact shot needs line of fire to its main target (a speculative shot does not).
    if kind == "impact" and not speculative and attacker is not None and declared is not None:
        target_lof = lof_to_target(attacker, models[declared], scenario, settings, ctx.tolerance_mm)
        details["main_target_lof"] = target_lof.reason
        if target_lof.sight is not None:
            model_details[declared]["lof_from_attacker"] = sight_details(target_lof.sight)
        if not target_lof.seen and not refusals:
            refusals.append((f"the attacker cannot declare this attack: {target_lof.reason}", "main_target"))
    # A Direct Template ARO whose declared target is not under it is cancelled (FAQ): nobody suffers it.
    cancelled = kind == "direct" and aro and declared is not None and statuses.get(declared) != "affected"
    bystanders: list[str] = []
    if cancelled:
        bystanders = [i for i, s in statuses.items() if s == "affected"]
        missed = {
            "total_cover": "is under the template but in Total Cover from its Blast Focus",
            "outside": "is not affected: out of the template's 3D reach" if coverage.models[declared].status != "outside" else "is not under the template",
        }.get(str(statuses.get(declared)), "is not affected by the template")
        refusals.append((
            f"the ARO is cancelled: its declared target {_names([declared], models)} {missed}"
            + (f", so {_names(bystanders, models)} {'is' if len(bystanders) == 1 else 'are'} not affected" if bystanders else ""),
            "aro_cancelled",
        ))
        for i in bystanders:
            statuses[i] = "outside"
            model_details[i]["why"] = "the ARO is cancelled: the template does not affect its declared target (FAQ)"

    final = with_statuses(coverage, statuses)
    if doubtful:
        entries = dict(final.models)
        for mid in doubtful:
            entries[mid] = entries[mid]._replace(contested=True)
        final = replace(final, models=entries)
    affected = final.affected
    for m in scenario.models:
        if "camouflaged" in m.tags and statuses[m.id] == "affected":
            model_details[m.id]["camouflage_marker"] = "affected like a trooper (FAQ)"
            if m.id != declared:
                steps.append(Step(
                    "note", f"{_names([m.id], models)} is a Camouflage Marker in the area of effect: affected as a bystander (FAQ).",
                    data={"model": m.id}, rule="camouflage_bystander",
                ))

    # Friendly and Neutral troopers: the shot is nullified (that shot only).
    friends = [i for i in affected if relations[i] in ("friendly", "neutral", "attacker")]
    shot_nullified = bool(friends) and not no_damage
    if shot_nullified:
        # An Impersonation Marker is refused by its own FAQ sentence ("it counts as a friendly trooper").
        markers = [i for i in friends if relations[i] == "friendly" and "impersonation" in models[i].tags and models[i].side != side]
        others = [i for i in friends if i not in markers]
        if others:
            words = "; ".join(
                f"{_names([i], models)} is {'the attacker itself' if relations[i] == 'attacker' else 'a ' + relations[i] + ' trooper'}"
                for i in others
            )
            refusals.append((f"shot nullified: {words} in the area of effect", "nullified"))
        if markers:
            refusals.append((
                f"shot nullified: {_names(markers, models)} {'is an Impersonation Marker' if len(markers) == 1 else 'are Impersonation Markers'} "
                "in the area of effect, which counts as a friendly trooper (FAQ)",
                "impersonation",
            ))
        if weapon.get("expendable"):
            details["expendable_use_spent"] = True
    elif friends:
        what = weapon.get("ammo") or "damage -"
        steps.append(Step(
            "note", f"No Damage value ({what}): allowed with {_names(friends, models)} in the area (FAQ).",
            data={"models": friends}, rule="no_damage_allies",
        ))
    allowed = not refusals
    reason = "; ".join(r for r, _ in refusals) if refusals else None

    # Reactions of every affected enemy.
    dodge: dict[str, str] = {}
    nullified = not allowed
    for mid in affected:
        if relations[mid] != "enemy":
            continue
        m = models[mid]
        if attacker is None:
            lof, lof_why = False, "no attacker on the table to draw line of fire to"
        else:
            lof_result = lof_to_attacker(m, attacker, scenario, settings, ctx.tolerance_mm)
            lof, lof_why = lof_result.seen, lof_result.reason
            if lof_result.sight is not None:
                model_details[mid]["lof_to_attacker"] = sight_details(lof_result.sight)
        minus = deployable or not lof
        why = "deployable weapon" if deployable else lof_why
        entry: dict[str, Any] = {"can_shoot_back": lof}
        if nullified:
            entry["aro"] = "the shot is null: any ARO against the attacker is a Normal Roll"
        else:
            dodge[mid] = "PH-3" if minus else "PH"
            entry["dodge"] = dodge[mid]
            if "PH" in m.stats:
                entry["dodge_target"] = int(m.stats["PH"]) + (DODGE_MOD if minus else 0)
            entry["dodge_roll"] = "Normal Roll" if kind != "impact" else "Face to Face Roll against the attack roll"
            entry["change_facing"] = "PH-3"
            if lof:
                entry["shoot_back"] = (
                    "Normal Roll, then it still suffers the template"
                    if kind == "direct"
                    else "Face to Face Roll against the attack roll"
                )
        entry["why"] = f"{model_details[mid]['why']}; {why}" if "why" in model_details[mid] else why
        model_details[mid].update(entry)
        if not nullified:
            rule = "dodge_ph3_deployable" if deployable else "dodge_ph3_lof" if not lof else "dodge_ph"
            steps.append(Step(
                "note", f"{m.label}: dodge {dodge[mid]} ({why}); {'may shoot back' if lof else 'cannot shoot back'}.",
                data={"model": mid, "dodge": dodge[mid], "lof": lof, "deployable": deployable}, rule=rule,
            ))

    critical = None
    if kind == "impact" and main_target is not None and not nullified:
        critical = main_target
    details.update(
        {
            "placement": kind,
            "main_target": main_target,
            "speculative": speculative,
            "shot": _shot_number(scenario, template),
            "burst": burst,
            "deployable": deployable,
            "nullified": shot_nullified,
            "dodge": dodge,
            "attack_roll": (
                "none (Direct Template: no roll to hit)"
                if kind == "direct"
                else "BS Attack, compared with each affected enemy separately"
            ),
            "critical_affects_only": critical,
            "partial_cover_arm_bonus": 0,
            "focus_z_mm": round(focus_z, 3),
            "focus_z_from": focus_z_why,
            "vertical_model": vertical_model,
            "template_height_mm": round(placed.shape.half_width, 3),
        }
    )
    if aro:
        details["aro"] = True
        details["cancelled"] = cancelled
    for text, rule in refusals:
        names = [declared] if rule in ("camouflage_target", "main_target", "aro_cancelled") and declared else []
        if rule == "aro_cancelled":
            names += bystanders
        elif rule == "nullified":
            names += [i for i in friends if not ("impersonation" in models[i].tags and models[i].side != side)]
        elif rule == "impersonation":
            names += [i for i in friends if "impersonation" in models[i].tags and models[i].side != side]
        steps.append(Step("note", f"Not allowed: {text}.", data={"models": names}, rule=rule))
    if allowed or not cancelled:
        steps.append(Step("note", "Partial Cover gives no +3 ARM/BTS against a template.", rule="no_partial_cover"))
    return Resolution(
        coverage=final,
        affected=affected,
        allowed=allowed,
        reason=reason,
        details=details,
        model_details=model_details,
        steps=tuple(steps),
    )


def _shot_number(scenario: Scenario, template: Template) -> int:
    """1-based position of this shot among the file's shots by the same attacker with the same weapon name."""
    key = (template.attacker or template.weapon.get("attacker"), template.weapon.get("name"))
    n = 0
    for t in scenario.templates:
        if (t.attacker or t.weapon.get("attacker"), t.weapon.get("name")) == key:
            n += 1
        if t.id == template.id:
            break
    return n


# --------------------------------------------------------------------------- validation


def validate(scenario: Scenario) -> list[tuple[str, str]]:
    """Infinity-specific data checks: silhouettes, weapon references, settings."""
    problems: list[tuple[str, str]] = []
    ids = {m.id for m in scenario.models}
    for i, m in enumerate(scenario.models):
        s = m.stats.get("S")
        if s is not None and (s != int(s) or int(s) not in SILHOUETTES):
            problems.append((f"model[{i}].stats.S", f"silhouette must be a whole number 1-8, got {s:g}"))
    for i, t in enumerate(scenario.templates):
        if isinstance(t.placement, Explosion):
            problems.append((f"template[{i}].explosion", "infinity has no explosion templates: use direct, impact or at"))
        for key in ("target", "attacker"):
            ref = t.weapon.get(key)
            if ref is not None and ref not in ids:
                problems.append((f"template[{i}].weapon.{key}", f"{ref!r} is not a model on this table"))
        burst = t.weapon.get("burst", 1)
        if isinstance(burst, bool) or not isinstance(burst, int) or burst < 1:
            problems.append((f"template[{i}].weapon.burst", f"must be a whole number >= 1, got {burst!r}"))
        if "focus_z" in t.weapon:
            try:
                parse_length(t.weapon["focus_z"], scenario.units)
            except LengthError as exc:
                problems.append((f"template[{i}].weapon.focus_z", str(exc)))
    settings = scenario.extra.get("settings", {})
    if isinstance(settings, Mapping):
        vm = settings.get("vertical_model")
        if vm is not None and vm not in VERTICAL_MODELS:
            problems.append(("settings.vertical_model", f"must be one of {', '.join(VERTICAL_MODELS)}, got {vm!r}"))
        ds = settings.get("default_silhouette")
        if ds is not None and ds not in SILHOUETTES:
            problems.append(("settings.default_silhouette", f"must be a whole number 1-8, got {ds!r}"))
    return problems


RULESET = Ruleset(
    name="infinity",
    title="Infinity — template weapons",
    resolve=resolve,
    uses_visibility=True,
    validate=validate,
    settings=SETTINGS,
    doc=(
        "Direct and Impact templates (Circular, Small and Large Teardrop), one template per shot. "
        "Blast focus line of fire with terrain heights, 3D reach (the X of a flat and an upright "
        "template), close-combat contagion, shots nullified by friendly or neutral troopers, main "
        "target checks, and Dodge at PH or PH-3 for every affected enemy. See tabletop/rulesets/infinity/README.md."
    ),
)

__all__ = [
    "RULESET",
    "SILHOUETTES",
    "LineOfFire",
    "Span",
    "silhouette_span",
    "silhouette_sight",
    "relation",
    "lof_to_attacker",
    "lof_to_target",
    "sight_details",
    "vertical_reach",
]
