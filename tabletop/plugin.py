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

from tabletop.adjudicate import Adjudication, TemplateResult
from tabletop.contact import model_margin, polygon_min_sdf
from tabletop.coverage import CONTACT_EPS_MM, Coverage, ModelCoverage
from tabletop.dice import RollSpec
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
from tabletop.model import At, Direct, Explosion, Impact, Model, PlacedTemplate, Scenario, Status, Template, TemplateShape, Terrain
from tabletop.panel import display_names, id_list, num
from tabletop.placement import FOCUS_AT_TIP, line_of_fire
from tabletop.resolution import Context, PanelLine, Resolution, Ruleset, Step, with_statuses
from tabletop.shapes import base_polygon, local_outline, template_polygon, to_local, to_world
from tabletop.step_rules import RuleQuote, StepRule, rule_for, step_rule_hook
from tabletop.sideview import PAD_MIN_MM, PAD_SHARE, ElevationProfile, ProfileBlock, ProfileTrooper, terrain_blocks
from tabletop.units import MM_PER_UNIT, LengthError, parse_length, to_units

__all__ = [
    # the contract
    "Ruleset", "Context", "Resolution", "Step", "RollSpec", "with_statuses", "PanelLine",
    "Adjudication", "TemplateResult",
    # the table
    "Scenario", "Model", "Terrain", "Template", "TemplateShape", "PlacedTemplate", "Status",
    "At", "Direct", "Explosion", "Impact", "Coverage", "ModelCoverage", "CONTACT_EPS_MM",
    # geometry
    "base_polygon", "template_polygon", "local_outline", "to_local", "to_world", "line_of_fire", "FOCUS_AT_TIP",
    "model_margin", "polygon_min_sdf", "MM_PER_UNIT", "LengthError", "parse_length", "to_units",
    # marks
    "Marks", "Stroke", "Arrow", "link", "Rose", "Cell", "Badge", "Tint", "Hatch", "Tag", "LegendEntry", "LEGEND_KINDS",
    "Colour", "Point", "FloatArray", "heat_colour", "mm", "num_text", "ring_top", "polygons_of", "terrain_point",
    "TEXT", "TEXT_DIM", "TEMPLATE_EDGE", "NULLIFIED", "ROSE", "ROSE_HOT", "ROSE_MIN_PX", "CHAIN", "LINK", "GROUND_ZERO",
    "BLOCKED_FILL", "BLOCKED_HATCH", "DODGE_PH", "DODGE_PH3", "WARN", "DAMAGE_TEXT", "HIGHLIGHT", "HEAT_ALPHA",
    # results panel
    "num", "display_names", "id_list",
    # the rule and seed quote of each step
    "StepRule", "RuleQuote", "rule_for", "step_rule_hook",
    # side view
    "ElevationProfile", "ProfileTrooper", "ProfileBlock", "terrain_blocks", "PAD_MIN_MM", "PAD_SHARE",
]  # fmt: skip
