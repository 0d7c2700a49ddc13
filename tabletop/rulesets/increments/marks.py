"""Increments: what the ruleset draws on the table, as marks (data; ``tabletop.draw`` paints them).

Read from ``TemplateResult.resolution`` only: details, model_details, steps, also_drawn.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import shapely
from shapely.geometry import Polygon

from tabletop.plugin import (
    BLOCKED_FILL,
    BLOCKED_HATCH,
    DAMAGE_TEXT,
    GROUND_ZERO,
    HEAT_ALPHA,
    TEMPLATE_EDGE,
    TEXT,
    TEXT_DIM,
    WARN,
    Adjudication,
    Badge,
    Cell,
    Colour,
    FloatArray,
    Hatch,
    Marks,
    Stroke,
    Tag,
    Tint,
    heat_colour,
    num_text,
    polygons_of,
)


def _fill(adj: Adjudication, art: Marks) -> None:
    scenario = adj.scenario
    g = scenario.table.grid
    if not g:
        return
    models = scenario.models_by_id()
    results = [r for r in adj.results if r.resolution.allowed and isinstance(r.resolution.details.get("squares"), list)]
    top = max((int(s.get("damage", 0)) for r in results for s in r.resolution.details["squares"]), default=1)
    top = max(top, 1)
    for result in results:
        res = result.resolution
        d = res.details
        art.replaced.add(result.template.id)
        squares = d["squares"]
        if not squares:
            continue
        cr = np.array([(int(q["col"]), int(q["row"])) for q in squares], dtype=float).reshape(-1, 2)
        # Exactly shared edges (k * g on both sides): the fast coverage union applies.
        boxes = shapely.box(cr[:, 0] * g, cr[:, 1] * g, (cr[:, 0] + 1) * g, (cr[:, 1] + 1) * g)
        blocked: dict[str, list[int]] = {}
        colours: dict[int, Colour] = {}
        for k, q in enumerate(squares):
            c, r, dmg = cr[k, 0], cr[k, 1], int(q.get("damage", 0))
            box = (c * g, r * g, (c + 1) * g, (r + 1) * g)
            centre = ((c + 0.5) * g, (r + 0.5) * g)
            by = q.get("blocked_by") or []
            if dmg >= 1:
                colour = colours.get(dmg) or colours.setdefault(dmg, heat_colour(dmg, top))
                art.tints.append(Tint(box, colour, HEAT_ALPHA))
                art.cells.append(Cell(centre, g, str(dmg), dark=sum(colour) > 480, heat=dmg))
            elif by:
                art.tints.append(Tint(box, BLOCKED_FILL, 170))
                art.cells.append(Cell(centre, g, "0", dark=False, heat=0))
                for piece in by:
                    blocked.setdefault(str(piece), []).append(k)
        area = shapely.coverage_union_all(boxes).simplify(0)  # no vertex mid-edge: the name goes over the middle
        for t in scenario.terrain:
            piece = Polygon(t.polygon)
            if piece.intersects(area):
                x0, _, x1, y1 = piece.bounds
                art.name_at[t.id] = ((x0 + x1) / 2, y1)  # on its top edge: the squares' numbers stay readable
        for part in polygons_of(area):
            ring = np.asarray(part.exterior.coords)
            art.strokes.append(Stroke(ring, TEMPLATE_EDGE, 2, closed=True))
            art.outlines.setdefault(result.template.id, ring)
        art.extent.append(area.bounds)
        cover = d.get("cover") or {}
        contained = d.get("contained") or {}
        for piece, picks in blocked.items():
            art.hatches.append(Hatch(_square_hatch(cr[picks], g, 5), BLOCKED_HATCH))
            why = ""
            info = cover.get(piece) if isinstance(cover, Mapping) else None
            if isinstance(info, Mapping) and info.get("roll") is not None:
                why = f" (save {info['roll']} + {num_text(info.get('save') or 0)} vs {info.get('dc')}: holds)"
            elif isinstance(contained, Mapping) and contained.get("enclosure") == piece:
                why = " (contained)"
            art.add_legend("hatch", f"blocked by {piece}{why}", BLOCKED_HATCH)
        gz = d.get("ground_zero") or {}
        if gz.get("cols") and gz.get("rows"):
            (c0, c1), (r0, r1) = gz["cols"], gz["rows"]
            x0, y0, x1, y1 = c0 * g, r0 * g, (c1 + 1) * g, (r1 + 1) * g
            art.strokes.append(Stroke(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float), GROUND_ZERO, 3, closed=True, above=True))
            art.add_legend("outline", "Ground Zero", GROUND_ZERO)
        rings = d.get("rings") or []
        if rings:
            shape = str(d.get("shape", "circle"))
            art.sublabels[result.template.id] = f"{shape}: " + " · ".join(str(x.get("damage")) for x in rings) + " by ring"
        lines: list[tuple[str, Colour]] = []
        if d.get("smothered_by"):
            lines.append((f"{d['smothered_by']} smothers it: {d.get('base_damage')} − CON = {d.get('spread_damage')}", TEXT))
        if isinstance(contained, Mapping) and contained:
            if contained.get("breached"):
                lines.append((f"{contained.get('enclosure')} breached: the blast spreads", TEXT))
            elif contained.get("bonus") is not None:
                rolls = contained.get("rolls") or []
                dice = " + ".join(str(x) for x in rolls) if isinstance(rolls, list) else ""
                lines.append((f"contained by {contained.get('enclosure')}: +{contained.get('bonus')} ({dice})", WARN))
                lines.append(("nothing gets out", TEXT_DIM))
        if lines:
            bx0, by0, bx1, by1 = area.bounds
            art.badges.append(Badge(((bx0 + bx1) / 2, by1), tuple(lines), WARN, prefer="above"))
        art.add_legend("heat", f"damage per square (1 \u2013 {top})", heat_colour(top, top))
        for mid, md in res.model_details.items():
            m = models.get(mid)
            if m is None or res.coverage.models.get(mid) is None or res.coverage.models[mid].status == "user":
                continue
            dmg = int(md.get("damage", 0) or 0)
            if dmg == 0 and not md.get("blocked_by"):
                continue
            art.tags.append(Tag(m.centre, f"{dmg} dmg" if dmg else "0", DAMAGE_TEXT if dmg else TEXT))
            notes: list[tuple[str, Colour]] = []
            if md.get("covering_blast"):
                notes.append(("smothering the blast", TEXT_DIM))
            if md.get("blocked_by"):
                notes.append((f"blocked by {', '.join(md['blocked_by'])}", TEXT_DIM))
            if md.get("levels_away"):
                notes.append((f"{md['levels_away']} levels away", TEXT_DIM))
            if notes:
                art.badges.append(Badge(m.centre, tuple(notes), BLOCKED_HATCH, clear=m.base.bounding_radius, prefer="below"))


def _square_hatch(cells: FloatArray, g: float, lines: int) -> FloatArray:
    """(M, 2, 2) 45° hatching of grid squares (col, row), ``lines`` per side, continuous across squares."""
    d = g / lines
    cs = np.arange(-lines + 1, lines) * d  # y = x + c through a square at the origin
    a = np.stack([np.maximum(-cs, 0.0), np.maximum(cs, 0.0)], axis=-1)
    b = np.stack([g - np.maximum(cs, 0.0), g + np.minimum(cs, 0.0)], axis=-1)
    unit = np.stack([a, b], axis=1)  # (L, 2, 2)
    offsets = (np.asarray(cells, dtype=float) * g)[:, None, None, :]
    return (unit[None] + offsets).reshape(-1, 2, 2)


def marks(adj: Adjudication) -> Marks:
    """The marks of every template in ``adj``."""
    art = Marks()
    _fill(adj, art)
    return art
