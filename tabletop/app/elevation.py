"""The side view of the selected template, for the rulesets that have one. Pure: no pygame
(``overlays.draw_elevation`` draws it).

The profile types live in :mod:`tabletop.sideview`; each ruleset builds its own through its
``side_view`` hook, so this module names none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop import rulesets
from tabletop.adjudicate import TemplateResult
from tabletop.model import Scenario
from tabletop.sideview import PAD_MIN_MM, PAD_SHARE, ElevationProfile, ProfileBlock, ProfileTrooper

__all__ = [
    "PAD_MIN_MM",
    "PAD_SHARE",
    "ElevationProfile",
    "ProfileBlock",
    "ProfileTrooper",
    "elevation_profile",
    "has_side_view",
]


def has_side_view(ruleset_name: str) -> bool:
    """Whether the ruleset called ``ruleset_name`` draws a side view (False for unknown names)."""
    try:
        return rulesets.get(ruleset_name).side_view is not None
    except rulesets.UnknownRuleset:
        return False


def elevation_profile(scenario: Scenario, result: TemplateResult, settings: Mapping[str, Any]) -> ElevationProfile | None:
    """The side view of ``result``'s template on ``scenario``; None when its ruleset has none."""
    if not has_side_view(scenario.ruleset):
        return None
    hook = rulesets.get(scenario.ruleset).side_view
    assert hook is not None
    return hook(scenario, result, settings)
