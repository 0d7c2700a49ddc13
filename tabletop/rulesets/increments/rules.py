"""``increments``: blast increments on a square grid.

Ground Zero (a block of ``increment`` × ``increment`` squares holding the origin
square) takes the full damage; each increment outward halves it (rounded down)
until it drops below 1. The blast never bends: cover between Ground Zero and a
square stops it unless the cover fails its Damage save. A blast held inside an
enclosure too small for it gains 2d6 per interrupted increment unless it breaches
the enclosure; a character smothering it takes the maximum and soaks its
Constitution before it spreads; it spreads vertically as horizontally.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from tabletop.plugin import (
    At,
    Context,
    Coverage,
    Direct,
    Explosion,
    Impact,
    Model,
    ModelCoverage,
    PlacedTemplate,
    Resolution,
    RollSpec,
    Ruleset,
    Scenario,
    Status,
    Step,
    TemplateShape,
    Terrain,
    base_polygon,
    display_names,
    line_of_fire,
    named,
    with_statuses,
)

from .limits import blast_work_problems

#: A base must reach this far (mm) into a square to stand in it: a base tangent
#: to a grid line (a 1" base filling a 1" square) does not stand in the next square.
OCCUPY_EPS_MM = 1e-6
#: Slack on the cone's 45° half-angle so a square on the diagonal is inside.
ANGLE_EPS_DEG = 1e-9

ROLLS: dict[str, RollSpec] = {
    "cover_save": RollSpec(1, 20, "Damage save of a cover piece (one per piece, terrain file order)"),
    "contained": RollSpec(2, 6, "bonus damage of a contained blast (one 2D6 per interrupted increment)"),
}

SETTINGS: dict[str, tuple[Any, str]] = {
    "distance": (
        "alternating",
        "How squares are counted outward from Ground Zero. The seed: a blast “expands as a radius” unless "
        "otherwise specified, so the default is round: 'alternating' (default) counts diagonals 1, 2, 1, 2 ... "
        "(the grid's usual round measure), 'euclidean' counts straight-line squares, rounded up. 'chebyshev' is "
        "the square reading: a diagonal step is 1 square, so a circle blast is a square block.",
    ),
    "model_square": (
        "base",
        "Which squares a model stands in: 'base' (every square its base reaches into; it takes the "
        "highest damage among them) or 'centre' (the square holding its base centre).",
    ),
    "cover_save_rule": (
        "d20_plus_save_vs_damage",
        "How a cover piece passes its Damage save (the seed: blast 'only proceeds through cover when the cover "
        "fails its Damage save', and gives no DC). 'd20_plus_save_vs_damage' (default): d20 + its stats.save >= "
        "the blast damage where it stands; 'dc_10_plus_half_damage': d20 + stats.save >= 10 + half that damage "
        "(rounded down), Spycraft 2.0's Damage save, which the seed does not quote; 'roll_under_save': "
        "d20 <= its stats.save. A tie always holds, and cover without a save never fails.",
    ),
    "contained_bonus": (
        "per_square",
        "Where a contained blast's 2D6 per interrupted increment goes: 'per_square' (added to the damage "
        "of every square inside the enclosure) or 'base' (added to the damage before it spreads).",
    ),
}


class WeaponError(ValueError):
    """A weapon table the ruleset cannot use."""


@dataclass(frozen=True)
class Weapon:
    """The ``weapon`` table of an increments template."""

    damage: int
    increment: int = 1
    shape: str = "circle"
    max_damage: int | None = None
    ground_zero: tuple[int, int] | None = None
    smothered_by: str | None = None


def weapon_problems(weapon: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, message) for every unusable key of a weapon table."""
    out: list[tuple[str, str]] = []

    def whole(key: str, low: int) -> None:
        v = weapon.get(key)
        if v is None:
            return
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            out.append((key, f"must be a whole number >= {low}, got {v!r}"))

    if "damage" not in weapon:
        out.append(("damage", "is required (the blast's full damage at Ground Zero)"))
    whole("damage", 0)
    whole("increment", 1)
    whole("max_damage", 0)
    if weapon.get("shape", "circle") not in ("circle", "cone"):
        out.append(("shape", f"must be 'circle' or 'cone', got {weapon.get('shape')!r}"))
    gz = weapon.get("ground_zero")
    if gz is not None and not (
        isinstance(gz, list) and len(gz) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in gz)
    ):
        out.append(("ground_zero", f"must be [col, row] of Ground Zero's lower-left square, got {gz!r}"))
    sb = weapon.get("smothered_by")
    if sb is not None and not isinstance(sb, str):
        out.append(("smothered_by", f"must be a model id, got {sb!r}"))
    return out


def parse_weapon(weapon: Mapping[str, Any]) -> Weapon:
    """The weapon table as a :class:`Weapon`; raises :class:`WeaponError`."""
    problems = weapon_problems(weapon)
    if problems:
        raise WeaponError("; ".join(f"weapon.{k} {m}" for k, m in problems))
    gz = weapon.get("ground_zero")
    return Weapon(
        damage=int(weapon["damage"]),
        increment=int(weapon.get("increment", 1)),
        shape=str(weapon.get("shape", "circle")),
        max_damage=None if weapon.get("max_damage") is None else int(weapon["max_damage"]),
        ground_zero=None if gz is None else (int(gz[0]), int(gz[1])),
        smothered_by=weapon.get("smothered_by"),
    )


def validate(scenario: Scenario) -> list[tuple[str, str]]:
    """The table needs a grid; every template needs a usable weapon table."""
    problems: list[tuple[str, str]] = []
    if scenario.table.grid is None:
        problems.append(("table.grid", "the increments ruleset needs a square grid: set table.grid (the square size)"))
    ids = {m.id for m in scenario.models}
    for i, t in enumerate(scenario.templates):
        for key, message in weapon_problems(t.weapon):
            problems.append((f"template[{i}].weapon.{key}", message))
        sb = t.weapon.get("smothered_by")
        if isinstance(sb, str) and sb not in ids:
            problems.append((f"template[{i}].weapon.smothered_by", f"{sb!r} is not a model on this table"))
    if not problems:
        problems.extend(blast_work_problems(scenario))
    return problems


# --------------------------------------------------------------------------- grid


@dataclass(frozen=True)
class Grid:
    """Square ``size`` mm from the table's origin; ``level`` is a square's height too."""

    size: float

    def square_of(self, x: float, y: float) -> tuple[int, int]:
        # A point on a grid line belongs to the square above/right of it; the slack keeps a line
        # given in inches on its line after the trip through mm (6" / 1" = 5.999999999999999).
        return math.floor(x / self.size + 1e-9), math.floor(y / self.size + 1e-9)

    def level_of(self, z: float | None) -> int:
        return 0 if z is None else math.floor(z / self.size + 1e-9)

    def centre(self, col: int, row: int) -> tuple[float, float]:
        return ((col + 0.5) * self.size, (row + 0.5) * self.size)

    def box(self, col: int, row: int) -> Polygon:
        g = self.size
        return shapely.box(col * g, row * g, (col + 1) * g, (row + 1) * g)


def block_start(origin: int, n: int) -> int:
    """First index of a Ground Zero block of ``n`` holding ``origin``, centred (the extra to the upper/right)."""
    return origin - (n - 1) // 2


def gap(i: int, lo: int, hi: int) -> int:
    """Squares from index ``i`` to the block ``lo..hi`` (0 inside)."""
    return max(lo - i, 0, i - hi)


def measure(gaps: tuple[int, ...], rule: str) -> float:
    """Distance in squares for per-axis gaps under the ``distance`` setting."""
    if rule == "euclidean":
        return math.sqrt(sum(g * g for g in gaps))
    ordered = sorted(gaps, reverse=True)
    if rule == "alternating":
        return ordered[0] + sum(ordered[1:]) // 2
    return float(ordered[0])


@dataclass
class Blast:
    """Everything fixed before dice: grid, Ground Zero, shape, damage per ring."""

    grid: Grid
    cols: tuple[int, int]
    rows: tuple[int, int]
    levels: tuple[int, int]
    increment: int
    damage: int
    cone_heading: float | None
    rule: str
    table_cols: int
    table_rows: int
    gz_point: tuple[float, float] = field(default=(0.0, 0.0))

    def ring(self, col: int, row: int, level_gap: int = 0) -> int | None:
        """Increments outward from Ground Zero (0 inside it); None outside a cone's 90°."""
        gx = gap(col, *self.cols)
        gy = gap(row, *self.rows)
        if self.cone_heading is not None and (gx or gy):
            cx, cy = self.grid.centre(col, row)
            ang = math.degrees(math.atan2(cy - self.gz_point[1], cx - self.gz_point[0]))
            off = abs((ang - self.cone_heading + 180.0) % 360.0 - 180.0)
            if off > 45.0 + ANGLE_EPS_DEG:
                return None
        d = measure((gx, gy, level_gap), self.rule)
        return 0 if d == 0 else math.ceil(d / self.increment - 1e-9)

    def ring_damage(self, k: int, base: int | None = None) -> int:
        d = self.damage if base is None else base
        return d >> k if k < 63 else 0

    @property
    def rings(self) -> int:
        """Outermost ring with damage >= 1 (-1 when even Ground Zero takes none)."""
        if self.damage < 1:
            return -1
        return self.damage.bit_length() - 1

    def squares(self) -> list[tuple[int, int, int]]:
        """(col, row, ring) of every table square the blast reaches with damage >= 1, before cover."""
        k_max = self.rings
        if k_max < 0:
            return []
        reach = k_max * self.increment
        out: list[tuple[int, int, int]] = []
        for row in range(max(0, self.rows[0] - reach), min(self.table_rows - 1, self.rows[1] + reach) + 1):
            for col in range(max(0, self.cols[0] - reach), min(self.table_cols - 1, self.cols[1] + reach) + 1):
                k = self.ring(col, row)
                if k is not None and k <= k_max:
                    out.append((col, row, k))
        return out

    def nearest_gz_centre(self, col: int, row: int) -> tuple[float, float]:
        c = min(max(col, self.cols[0]), self.cols[1])
        r = min(max(row, self.rows[0]), self.rows[1])
        return self.grid.centre(c, r)


def _origin(ctx: Context) -> tuple[tuple[float, float], float, float | None]:
    """Origin point, axis heading and origin elevation of the blast."""
    p = ctx.template.placement
    models = ctx.scenario.models_by_id()
    if isinstance(p, Impact):
        attacker = models[p.attacker]
        if p.target is not None:
            target = models[p.target]
            return target.centre, line_of_fire(attacker, target.centre), target.z
        assert p.point is not None
        return p.point, line_of_fire(attacker, p.point), None
    if isinstance(p, At):
        return (p.x, p.y), p.heading, None
    if isinstance(p, Direct):
        attacker = models[p.attacker]
        return attacker.centre, p.heading, attacker.z
    assert isinstance(p, Explosion)
    m = models[p.model]
    return m.centre, 0.0, m.z


def occupied(model: Model, grid: Grid, mode: str) -> list[tuple[int, int]]:
    """The squares a model stands in (see the ``model_square`` setting)."""
    if mode == "centre":
        return [grid.square_of(model.x, model.y)]
    g = grid.size
    r = model.base.bounding_radius
    c0, r0 = grid.square_of(model.x - r, model.y - r)
    c1, r1 = grid.square_of(model.x + r, model.y + r)
    out: list[tuple[int, int]] = []
    poly = None if model.base.is_round else base_polygon(model, 256, False)
    for row in range(r0, r1 + 1):
        for col in range(c0, c1 + 1):
            if poly is None:
                dx = max(col * g - model.x, 0.0, model.x - (col + 1) * g)
                dy = max(row * g - model.y, 0.0, model.y - (row + 1) * g)
                inside = dx == 0 and dy == 0
                if inside or math.hypot(dx, dy) < model.base.length / 2 - OCCUPY_EPS_MM:
                    out.append((col, row))
            elif poly.intersection(grid.box(col, row)).area > OCCUPY_EPS_MM * g:
                out.append((col, row))
    return out


def _margin(model: Model, area: BaseGeometry, mode: str) -> float:
    """How far the base (or, with ``centre``, its centre) reaches into ``area`` (mm; < 0: apart)."""
    if area.is_empty:
        return -math.inf
    centre = shapely.Point(model.x, model.y)
    inside = area.covers(centre)
    sdf = -area.boundary.distance(centre) if inside else area.distance(centre)
    if mode == "centre":
        return -sdf
    if model.base.is_round:
        return model.base.length / 2 - sdf
    # Non-round bases: exact when apart; when overlapping, the deepest vertex or the centre.
    poly = base_polygon(model, 256, False)
    if not poly.intersects(area):
        return -poly.distance(area)
    pts = [shapely.Point(p) for p in poly.exterior.coords[:-1]] + [centre]
    return max(area.boundary.distance(p) if area.covers(p) else 0.0 for p in pts)


def _crosses(segment: BaseGeometry, poly: Polygon) -> bool:
    # The segment's interior meets the polygon's interior: grazing an edge or corner does not count.
    return bool(shapely.relate_pattern(segment, poly, "T********"))


def _refused(ctx: Context, reason: str, rule: str) -> Resolution:
    """A blast that cannot be laid: nobody affected, one step giving the reason and its rule."""
    nobody = with_statuses(ctx.coverage, {i: "outside" for i, c in ctx.coverage.models.items() if c.status != "user"})
    return Resolution(nobody, (), False, reason, steps=(Step("note", f"Not allowed: {reason}", rule=rule),))


def resolve(ctx: Context) -> Resolution:
    """Per-square damage, cover saves, containment and smothering; damage per model."""
    scenario = ctx.scenario
    settings = ctx.settings
    rule = str(settings.get("distance", SETTINGS["distance"][0]))
    mode = str(settings.get("model_square", "base"))
    save_rule = str(settings.get("cover_save_rule", "d20_plus_save_vs_damage"))
    bonus_mode = str(settings.get("contained_bonus", "per_square"))
    if scenario.table.grid is None:
        return _refused(ctx, "increments: the table has no grid (table.grid)", "squares")
    try:
        weapon = parse_weapon(ctx.template.weapon)
    except WeaponError as exc:
        return _refused(ctx, f"increments: {exc}", "ground_zero")
    grid = Grid(scenario.table.grid)
    models = scenario.models_by_id()
    names = display_names(scenario)
    origin, heading, origin_z = _origin(ctx)
    oc, orow = grid.square_of(*origin)
    n = weapon.increment
    steps: list[Step] = []

    if weapon.ground_zero is not None:
        c0, r0 = weapon.ground_zero
        if not (c0 <= oc < c0 + n and r0 <= orow < r0 + n):
            return _refused(
                ctx, f"increments: Ground Zero {n}×{n} from square [{c0}, {r0}] does not hold the origin square [{oc}, {orow}]", "gz_shift",
            )
    else:
        c0, r0 = block_start(oc, n), block_start(orow, n)
    olevel = grid.level_of(origin_z)
    l0 = block_start(olevel, n)

    # A character smothering the blast soaks its Constitution before it spreads.
    smother_id = weapon.smothered_by
    if smother_id is None:
        for m in scenario.models:
            if "covering_blast" in m.tags and any(
                c0 <= c < c0 + n and r0 <= r < r0 + n for c, r in occupied(m, grid, mode)
            ):
                smother_id = m.id
                break
    spread = weapon.damage
    if smother_id is not None:
        con = int(models[smother_id].stats.get("CON", 0))
        spread = max(weapon.damage - con, 0)
        steps.append(Step(
            "note", f"{named([smother_id], names)} covers the blast with its body: {weapon.damage} − CON {con} = {spread} spreads",
            data={"model": smother_id}, rule="smother",
        ))

    table_cols = math.ceil(scenario.table.width / grid.size - 1e-9)
    table_rows = math.ceil(scenario.table.depth / grid.size - 1e-9)
    blast = Blast(
        grid, (c0, c0 + n - 1), (r0, r0 + n - 1), (l0, l0 + n - 1), n, spread,
        heading if weapon.shape == "cone" else None, rule, table_cols, table_rows,
    )
    gz_x = (c0 + n / 2) * grid.size
    gz_y = (r0 + n / 2) * grid.size
    blast.gz_point = (gz_x, gz_y)
    reached = blast.squares()
    ring_of = {(c, r): k for c, r, k in reached}

    # Terrain: the enclosure holding the blast, and the cover pieces.
    gz_centre = shapely.Point(grid.centre(oc, orow))
    enclosure: Terrain | None = None
    cover_pieces: list[tuple[Terrain, Polygon]] = []
    for t in scenario.terrain:
        poly = Polygon(t.polygon)
        holds_origin = poly.contains(gz_centre)
        if "enclosure" in t.tags and holds_origin:
            if enclosure is None:
                enclosure = t
            continue
        if holds_origin:
            continue  # The blast goes off inside it: it is no cover against itself.
        if t.blocks_los or "save" in t.stats:
            cover_pieces.append((t, poly))

    # Containment: rings with a square outside the enclosure are interrupted.
    contained: dict[str, Any] | None = None
    breached = False
    encl_poly: Polygon | None = None
    bonus = 0
    interrupted = 0
    if enclosure is not None:
        encl_poly = Polygon(enclosure.polygon)
        bad_rings = {k for c, r, k in reached if not encl_poly.covers(shapely.Point(grid.centre(c, r)))}
        interrupted = len(bad_rings)
        if interrupted == 0:
            encl_poly = None  # Big enough to hold the blast: nothing is contained.
        else:
            record: dict[str, Any] = {"enclosure": enclosure.id, "interrupted": interrupted}
            if "breached" in enclosure.tags:
                breached = True
                record["breached_by"] = "tag"
                steps.append(Step("note", f"{named([enclosure.id], names)} is breached (tag): the blast pierces it and spreads normally, no bonus", rule="breached"))
            elif "save" in enclosure.stats:
                walls = [blast.ring_damage(k) for c, r, k in reached if encl_poly.boundary.intersects(grid.box(c, r))]
                dc = max(walls, default=0)
                roll = ctx.dice.roll("cover_save", ROLLS["cover_save"], f"{named([enclosure.id], names)} holds the blast in?")
                holds = _holds(roll, enclosure.stats["save"], dc, save_rule)
                breached = not holds
                record.update({"save": enclosure.stats["save"], "roll": roll, "dc": save_dc(dc, save_rule), "holds": holds})
                steps.append(Step(
                    "roll", f"{named([enclosure.id], names)} Damage save {roll} vs {save_dc(dc, save_rule)}: {'holds' if holds else 'breached'}",
                    rule="cover_save" if holds else "breached",
                ))
            record["breached"] = breached
            contained = record

    # Cover saves: one per piece standing between Ground Zero and a reached square.
    segments: dict[tuple[int, int], BaseGeometry] = {}
    for c, r, k in reached:
        a = blast.nearest_gz_centre(c, r)
        b = grid.centre(c, r)
        segments[(c, r)] = shapely.LineString([a, b]) if a != b else shapely.Point(a)
    crossing: dict[str, list[tuple[int, int]]] = {}
    for t, poly in cover_pieces:
        hit = [sq for sq, seg in segments.items() if not isinstance(seg, shapely.Point) and _crosses(seg, poly)]
        if encl_poly is not None and not breached:
            hit = [sq for sq in hit if encl_poly.covers(shapely.Point(grid.centre(*sq)))]
        if hit:
            crossing[t.id] = hit
    cover_report: dict[str, dict[str, Any]] = {}
    holding: set[str] = set()
    for t, poly in cover_pieces:
        if t.id not in crossing:
            continue
        if "save" not in t.stats:
            holding.add(t.id)
            cover_report[t.id] = {"save": None, "holds": True}
            steps.append(Step("note", f"{t.id} has no Damage save: it always stops the blast", rule="cover_holds"))
            continue
        dc = max((blast.ring_damage(k) for sq, k in ring_of.items() if poly.intersects(grid.box(*sq))), default=0)
        roll = ctx.dice.roll("cover_save", ROLLS["cover_save"], f"{t.id} Damage save")
        holds = _holds(roll, t.stats["save"], dc, save_rule)
        if holds:
            holding.add(t.id)
        cover_report[t.id] = {"save": t.stats["save"], "roll": roll, "dc": save_dc(dc, save_rule), "holds": holds}
        steps.append(Step(
            "roll", f"{t.id} Damage save {roll} (+{t.stats['save']:g}) vs {save_dc(dc, save_rule)}: {'holds' if holds else 'fails'}",
            rule="cover_save",
        ))

    # Containment bonus dice.
    if contained is not None and not breached:
        rolls = [ctx.dice.roll("contained", ROLLS["contained"], f"contained blast, interrupted increment {i + 1}") for i in range(interrupted)]
        bonus = sum(rolls)
        contained["rolls"] = rolls
        contained["bonus"] = bonus
        steps.append(Step(
            "roll", f"blast contained by {named([enclosure.id], names) if enclosure else '?'}: +{bonus} ({' + '.join(map(str, rolls))})", rule="contained",
        ))

    def inside_enclosure(c: int, r: int) -> bool:
        return encl_poly is not None and encl_poly.covers(shapely.Point(grid.centre(c, r)))

    def square_damage(c: int, r: int, level_gap: int = 0) -> tuple[int, int | None, list[str]]:
        """(damage, ring, ids of what stops it) at a square, at ``level_gap`` levels from Ground Zero."""
        k = blast.ring(c, r, level_gap)
        if k is None:
            return 0, None, []
        base_damage = spread
        boosted = contained is not None and not breached
        if boosted and bonus_mode == "base":
            base_damage = spread + bonus
        dmg = blast.ring_damage(k, base_damage)
        if dmg < 1:
            return 0, k, []
        if encl_poly is not None and not breached and not inside_enclosure(c, r):
            return 0, k, [enclosure.id] if enclosure else []
        seg = segments.get((c, r))
        if seg is None:
            a, b = blast.nearest_gz_centre(c, r), grid.centre(c, r)
            seg = shapely.LineString([a, b]) if a != b else shapely.Point(a)
        stoppers = [
            t.id for t, poly in cover_pieces
            if (t.id in holding or "save" not in t.stats) and not isinstance(seg, shapely.Point) and _crosses(seg, poly)
        ]
        if stoppers:
            return 0, k, stoppers
        if boosted and bonus_mode == "per_square" and inside_enclosure(c, r):
            dmg += bonus
        return dmg, k, []

    squares_out: list[dict[str, Any]] = []
    for c, r, k in reached:
        dmg, _, stop = square_damage(c, r)
        entry: dict[str, Any] = {"col": c, "row": r, "ring": k, "damage": dmg}
        if stop:
            entry["blocked_by"] = stop
        squares_out.append(entry)

    # Models.
    area_boxes = [grid.box(c, r) for c, r, _ in reached]
    area = shapely.union_all(area_boxes) if area_boxes else shapely.Polygon()
    user = ctx.placed.user
    damage: dict[str, int] = {}
    statuses: dict[str, ModelCoverage] = {}
    model_details: dict[str, dict[str, Any]] = {}
    model_steps: list[Step] = []
    by_ring: dict[int, list[str]] = {}
    for m in scenario.models:
        lgap = gap(grid.level_of(m.z), l0, l0 + n - 1)
        best, best_ring, stopped, reachable = 0, None, [], False
        for c, r in occupied(m, grid, mode):
            dmg, k, stop = square_damage(c, r, lgap)
            if k is not None and blast.ring_damage(k) >= 1 and 0 <= c < table_cols and 0 <= r < table_rows:
                reachable = True
            if dmg > best:
                best, best_ring = dmg, k
            for s in stop:
                if s not in stopped:
                    stopped.append(s)
        detail: dict[str, Any] = {"damage": best, "ring": best_ring}
        if m.id == smother_id:
            best = weapon.max_damage if weapon.max_damage is not None else weapon.damage
            detail = {"damage": best, "ring": 0, "covering_blast": True}
        elif best == 0 and stopped:
            detail["blocked_by"] = stopped
        if lgap:
            detail["levels_away"] = lgap
        status: Status
        if m.id == user:
            status, best = "user", 0
            detail = {"damage": 0, "ring": None}
        elif best >= 1:
            status = "affected"
        elif reachable and stopped:
            status = "total_cover"
        else:
            status = "outside"
        margin = _margin(m, area, mode)
        if not math.isfinite(margin):
            margin = -1e9
        statuses[m.id] = ModelCoverage(status, margin, status != "user" and abs(margin) <= ctx.tolerance_mm)
        damage[m.id] = best
        model_details[m.id] = detail
        if status == "affected" and m.id == smother_id:
            model_steps.append(Step("note", f"{named([m.id], names)} covers the blast: it takes the maximum, {best}", data={"model": m.id}, rule="smother_max"))
        elif status == "affected" and lgap:
            model_steps.append(Step(
                "note", f"{named([m.id], names)}, {lgap} level(s) from Ground Zero, counts them like squares: increment {best_ring}, {best} damage",
                data={"model": m.id, "levels_away": lgap, "damage": best}, rule="height",
            ))
        elif status == "affected":
            by_ring.setdefault(best_ring or 0, []).append(m.id)
        elif status == "total_cover":
            walls = named(stopped, names)
            enclosed = enclosure is not None and enclosure.id in stopped
            model_steps.append(Step(
                "note", f"{named([m.id], names)}: the blast is stopped by {walls}" + (" (it stays inside)" if enclosed else ": it never bends round it"),
                data={"model": m.id, "terrain": list(stopped)}, rule="contained" if enclosed else "stopped",
            ))
        elif status == "outside" and margin >= -1e-9:
            if lgap:
                model_steps.append(Step(
                    "note", f"{named([m.id], names)} is {lgap} level(s) from Ground Zero: counted like squares, the blast has no effect there",
                    data={"model": m.id, "levels_away": lgap}, rule="height",
                ))
            else:
                model_steps.append(Step(
                    "note", f"{named([m.id], names)} only touches the blast's squares: it stands in none of them",
                    data={"model": m.id}, rule="squares",
                ))

    shape = ctx.placed.shape
    if weapon.shape == "circle" and rule == "chebyshev" and blast.rings >= 0:
        # The blast's true outline is then a square block: draw that instead of the file's shape.
        side = (n + 2 * n * blast.rings) * grid.size
        shape = TemplateShape("rect", length=side, width=side, label=shape.label)
    placed = PlacedTemplate(ctx.template.id, shape, (gz_x, gz_y), heading if weapon.shape == "cone" else 0.0, user)
    damaged_area = shapely.union_all([grid.box(s["col"], s["row"]) for s in squares_out if s["damage"] >= 1]) if squares_out else shapely.Polygon()
    terrain_hit = tuple(
        t.id for t in scenario.terrain
        if t.id in cover_report or (not damaged_area.is_empty and Polygon(t.polygon).intersects(damaged_area))
    )
    coverage = Coverage(placed, statuses, terrain_hit, None, ctx.tolerance_mm)
    affected = tuple(sorted(i for i, s in statuses.items() if s.status == "affected"))
    measured = {
        "alternating": "as a radius, diagonals counted 1, 2, 1, 2",
        "euclidean": "as a radius, straight-line squares rounded up",
    }.get(rule, "in squares, a diagonal step counting 1: a square block")
    steps.insert(0, Step(
        "place",
        f"Ground Zero {n}×{n} at squares [{c0}..{c0 + n - 1}, {r0}..{r0 + n - 1}] (origin [{oc}, {orow}]), "
        f"{weapon.shape}, {spread} damage spreading",
        placed,
        rule="ground_zero_placed",
    ))
    steps.insert(1, Step(
        "note", f"Increments of {n} square(s) counted outward {measured} (setting distance = {rule})",
        data={"distance": rule}, rule="radius" if rule in ("alternating", "euclidean") else "squares",
    ))
    for ring in sorted(by_ring):
        ids = by_ring[ring]
        amounts = "/".join(str(a) for a in sorted({damage[i] for i in ids}))
        if ring == 0:
            steps.append(Step("note", f"In Ground Zero: {named(ids, names)}: the full damage, {amounts}",
                              data={"models": ids, "ring": 0}, rule="ground_zero"))
        else:
            steps.append(Step("note", f"Increment {ring} out from Ground Zero: {named(ids, names)}: halved {ring} time(s), {amounts} damage",
                              data={"models": ids, "ring": ring}, rule="halved"))
    steps.extend(model_steps)

    details: dict[str, Any] = {
        "origin_square": [oc, orow],
        "ground_zero": {"cols": [c0, c0 + n - 1], "rows": [r0, r0 + n - 1], "levels": [l0, l0 + n - 1]},
        "increment": n,
        "shape": weapon.shape,
        "heading": round(heading, 6) if weapon.shape == "cone" else None,
        "base_damage": weapon.damage,
        "spread_damage": spread,
        "rings": [{"ring": k, "damage": blast.ring_damage(k)} for k in range(blast.rings + 1)],
        "squares": squares_out,
        "damage": damage,
        "cover": cover_report,
        "contained": contained,
        "smothered_by": smother_id,
    }
    return Resolution(
        coverage=coverage,
        affected=affected,
        details=details,
        model_details=model_details,
        steps=tuple(steps),
    )


COVER_SAVE_RULES = ("d20_plus_save_vs_damage", "dc_10_plus_half_damage", "roll_under_save")


def save_dc(damage: int, rule: str) -> int:
    """The number d20 + save must reach against ``damage`` under ``rule`` (the damage itself by default)."""
    return 10 + damage // 2 if rule == "dc_10_plus_half_damage" else damage


def _holds(roll: int, save: float, damage: int, rule: str) -> bool:
    """Does a cover piece pass its Damage save against ``damage``? Ties hold: the blast passes only on a failure."""
    if rule == "roll_under_save":
        return roll <= save
    return roll + save >= save_dc(damage, rule)


RULESET = Ruleset(
    name="increments",
    title="Blast increments on a square grid",
    resolve=resolve,
    uses_visibility=False,
    rolls=ROLLS,
    validate=validate,
    settings=SETTINGS,
    doc="Ground Zero takes full damage, halved (rounded down) per increment outward; cover stops the blast "
    "unless it fails its Damage save; contained blasts gain 2D6 per interrupted increment; body covering; 3D spread.",
)
