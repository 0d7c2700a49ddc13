"""What each ruleset decided, as short lines for the results panel. Pure: no pygame.

``ruleset_lines(scenario, result)`` asks the scenario's ruleset (its ``panel_lines`` hook,
which reads ``resolution.details``, ``model_details`` and ``steps``) and returns
``(style, text)`` pairs; the window colours them by style (``head``, ``good``, ``bad``,
``warn``, ``note``).
"""

from __future__ import annotations

from tabletop import rulesets
from tabletop.adjudicate import TemplateResult
from tabletop.model import Scenario
from tabletop.panel import Line

__all__ = ["Line", "ruleset_lines"]


def ruleset_lines(scenario: Scenario, result: TemplateResult) -> list[Line]:
    """The ruleset's own account of one template (empty for a ruleset without one, or an unknown one)."""
    try:
        fn = rulesets.get(scenario.ruleset).panel_lines
    except rulesets.UnknownRuleset:
        return []
    if fn is None:
        return []
    try:
        return fn(scenario, result)
    except rulesets.PluginError as exc:  # an installed plug-in's fault: said in the panel, the app carries on
        return [("bad", f"({exc})")]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a ruleset whose details changed shape
        return [("bad", f"(cannot summarise the {scenario.ruleset} details: {exc})")]
