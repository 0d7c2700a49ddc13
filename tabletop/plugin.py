"""Everything a ruleset author needs, in one module.

A ruleset is a :class:`Ruleset` object published under the entry-point group
``tabletop.rulesets`` (see ``docs/plugins.md``)::

    [project.entry-points."tabletop.rulesets"]
    house = "house_rules:RULESET"

Its ``resolve`` function gets a :class:`Context` and returns a :class:`Resolution`;
optional hooks describe what to draw (:class:`Marks`), what to say in the results
panel and a side view. Import from here, not from the core's modules: this surface is
kept stable, the modules behind it may move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tabletop.adjudicate import Adjudication, TemplateResult
from tabletop.contact import model_margin, polygon_min_sdf
from tabletop.coverage import CONTACT_EPS_MM, DEFAULT_TOLERANCE_MM, Coverage, ModelCoverage
from tabletop.dice import RollSpec
from tabletop.model import At, Direct, Explosion, Impact, Model, PlacedTemplate, Scenario, Status, Template, TemplateShape, Terrain
from tabletop.placement import FOCUS_AT_TIP, line_of_fire
from tabletop.resolution import BatchOutcomes, BatchSampler, Context, PanelLine, Resolution, Ruleset, Step, with_statuses
from tabletop.shapes import base_polygon, local_outline, template_polygon, to_local, to_world
from tabletop.step_rules import Rule, RuleQuote, rule_book, rule_for, step_rule_hook
from tabletop.units import MM_PER_UNIT, LengthError, parse_length, to_units

if TYPE_CHECKING:
    from tabletop.sight import Sight, SightLine, SpanFn, base_line_of_sight, in_range, point_line_of_sight, structure_line_of_sight
    from tabletop.sight import line_of_fire as sight_between
    from tabletop.sight.focus import FocusSight, FocusView, Piece, Volume, grown_base, hidden_region, hiding_regions, seen_part
    from tabletop.marks import (
        BLOCKED_FILL,
        BLOCKED_HATCH,
        CHAIN,
        DAMAGE_TEXT,
        DODGE_PH,
        DODGE_PH3,
        GROUND_ZERO,
        HEAT_ALPHA,
        HIGHLIGHT,
        LEGEND_KINDS,
        LINK,
        NULLIFIED,
        ROSE,
        ROSE_HOT,
        ROSE_MIN_PX,
        TEMPLATE_EDGE,
        TEXT,
        TEXT_DIM,
        WARN,
        Arrow,
        Badge,
        Cell,
        Colour,
        FloatArray,
        Hatch,
        LegendEntry,
        Marks,
        Point,
        Rose,
        Stroke,
        Tag,
        Tint,
        heat_colour,
        link,
        mm,
        num_text,
        polygons_of,
        ring_top,
        terrain_point,
    )
    from tabletop.panel import display_names, id_list, named, num
    from tabletop.sideview import PAD_MIN_MM, PAD_SHARE, ElevationProfile, ProfileBlock, ProfileTrooper, terrain_blocks

__all__ = [
    # the contract
    "Ruleset", "Context", "Resolution", "Step", "RollSpec", "with_statuses", "PanelLine", "BatchSampler", "BatchOutcomes",
    "Adjudication", "TemplateResult",
    # the table
    "Scenario", "Model", "Terrain", "Template", "TemplateShape", "PlacedTemplate", "Status",
    "At", "Direct", "Explosion", "Impact", "Coverage", "ModelCoverage", "CONTACT_EPS_MM",
    # geometry
    "base_polygon", "template_polygon", "local_outline", "to_local", "to_world", "line_of_fire", "FOCUS_AT_TIP",
    "model_margin", "polygon_min_sdf", "MM_PER_UNIT", "LengthError", "parse_length", "to_units",
    # sight (tabletop.sight; its line_of_fire is re-exported as sight_between: placement's line_of_fire is a heading)
    "Sight", "SightLine", "SpanFn", "sight_between", "base_line_of_sight", "point_line_of_sight",
    "structure_line_of_sight", "in_range", "DEFAULT_TOLERANCE_MM",
    # what a blast focus at a height sees past terrain of limited height (tabletop.sight.focus)
    "Piece", "FocusView", "seen_part", "hidden_region", "hiding_regions", "FocusSight", "Volume", "grown_base",
    # marks
    "Marks", "Stroke", "Arrow", "link", "Rose", "Cell", "Badge", "Tint", "Hatch", "Tag", "LegendEntry", "LEGEND_KINDS",
    "Colour", "Point", "FloatArray", "heat_colour", "mm", "num_text", "ring_top", "polygons_of", "terrain_point",
    "TEXT", "TEXT_DIM", "TEMPLATE_EDGE", "NULLIFIED", "ROSE", "ROSE_HOT", "ROSE_MIN_PX", "CHAIN", "LINK", "GROUND_ZERO",
    "BLOCKED_FILL", "BLOCKED_HATCH", "DODGE_PH", "DODGE_PH3", "WARN", "DAMAGE_TEXT", "HIGHLIGHT", "HEAT_ALPHA",
    # results panel
    "num", "display_names", "id_list", "named",
    # the rule and seed quote of each step
    "Rule", "RuleQuote", "rule_book", "rule_for", "step_rule_hook",
    # side view
    "ElevationProfile", "ProfileTrooper", "ProfileBlock", "terrain_blocks", "PAD_MIN_MM", "PAD_SHARE",
]  # fmt: skip

#: Names loaded on first use: a ruleset's rules need none of the drawing vocabulary, so
#: ``tabletop check`` does not pay for it.
_LAZY: dict[str, str] = {
    "Sight": "tabletop.sight",
    "SightLine": "tabletop.sight",
    "SpanFn": "tabletop.sight",
    "base_line_of_sight": "tabletop.sight",
    "in_range": "tabletop.sight",
    "point_line_of_sight": "tabletop.sight",
    "structure_line_of_sight": "tabletop.sight",
    "sight_between": "tabletop.sight",
    "Piece": "tabletop.sight.focus",
    "FocusView": "tabletop.sight.focus",
    "seen_part": "tabletop.sight.focus",
    "hidden_region": "tabletop.sight.focus",
    "hiding_regions": "tabletop.sight.focus",
    "FocusSight": "tabletop.sight.focus",
    "Volume": "tabletop.sight.focus",
    "grown_base": "tabletop.sight.focus",
    "BLOCKED_FILL": "tabletop.marks",
    "BLOCKED_HATCH": "tabletop.marks",
    "CHAIN": "tabletop.marks",
    "DAMAGE_TEXT": "tabletop.marks",
    "DODGE_PH": "tabletop.marks",
    "DODGE_PH3": "tabletop.marks",
    "GROUND_ZERO": "tabletop.marks",
    "HEAT_ALPHA": "tabletop.marks",
    "HIGHLIGHT": "tabletop.marks",
    "LEGEND_KINDS": "tabletop.marks",
    "LINK": "tabletop.marks",
    "NULLIFIED": "tabletop.marks",
    "ROSE": "tabletop.marks",
    "ROSE_HOT": "tabletop.marks",
    "ROSE_MIN_PX": "tabletop.marks",
    "TEMPLATE_EDGE": "tabletop.marks",
    "TEXT": "tabletop.marks",
    "TEXT_DIM": "tabletop.marks",
    "WARN": "tabletop.marks",
    "Arrow": "tabletop.marks",
    "Badge": "tabletop.marks",
    "Cell": "tabletop.marks",
    "Colour": "tabletop.marks",
    "FloatArray": "tabletop.marks",
    "Hatch": "tabletop.marks",
    "LegendEntry": "tabletop.marks",
    "Marks": "tabletop.marks",
    "Point": "tabletop.marks",
    "Rose": "tabletop.marks",
    "Stroke": "tabletop.marks",
    "Tag": "tabletop.marks",
    "Tint": "tabletop.marks",
    "heat_colour": "tabletop.marks",
    "link": "tabletop.marks",
    "mm": "tabletop.marks",
    "num_text": "tabletop.marks",
    "polygons_of": "tabletop.marks",
    "ring_top": "tabletop.marks",
    "terrain_point": "tabletop.marks",
    "display_names": "tabletop.panel",
    "id_list": "tabletop.panel",
    "named": "tabletop.panel",
    "num": "tabletop.panel",
    "PAD_MIN_MM": "tabletop.sideview",
    "PAD_SHARE": "tabletop.sideview",
    "ElevationProfile": "tabletop.sideview",
    "ProfileBlock": "tabletop.sideview",
    "ProfileTrooper": "tabletop.sideview",
    "terrain_blocks": "tabletop.sideview",
}


#: Lazy names whose attribute in their module has another name.
_RENAMED = {"sight_between": "line_of_fire"}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tabletop.plugin' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), _RENAMED.get(name, name))
    globals()[name] = value
    return value
