"""Refusals in the app's words. Pure: no pygame.

Rulesets explain a refused template in the file's terms (``place it with impact =
{attacker, target}``), which is right for ``tabletop check`` but not for someone
laying templates with the mouse. Worse, a template laid with the Direct tool *has* an
attacker, yet Robotech answers "needs an attacker": it reads the attacker of an
``impact`` placement only, and the Direct tool makes a ``direct`` one. The app says
what to do with its tools instead, naming the attacker the template already has.

``app_reason`` rewrites one reason; ``for_the_app`` returns the adjudication with its
refusals rewritten (the same object when nothing changes, so drawing caches hold).
"""

from __future__ import annotations

from dataclasses import replace

from tabletop.adjudicate import Adjudication
from tabletop.model import At, Direct, Explosion, Impact, Scenario, Template

IMPACT_TOOL = "the Impact tool (3)"


def _ruleset_name(scenario: Scenario) -> str:
    """The ruleset's short name as the app's menu shows it ("Robotech")."""
    return scenario.ruleset.capitalize()


def _label(scenario: Scenario, model_id: str) -> str:
    try:
        return scenario.model(model_id).label
    except KeyError:
        return model_id


def _placed_how(scenario: Scenario, template: Template) -> str:
    p = template.placement
    if isinstance(p, Direct):
        return f"this one is aimed Direct from {_label(scenario, p.attacker)}"
    if isinstance(p, At):
        return "this one is a free template, with no attacker"
    if isinstance(p, Explosion):
        return f"this one is {_label(scenario, p.model)} exploding"
    return "this one has no attacker"


def app_reason(scenario: Scenario, template: Template, reason: str | None) -> str | None:
    """``reason`` (a ruleset's refusal of ``template``) as an instruction for the app's tools.

    Reasons that do not speak of the file's placement syntax are returned unchanged.
    """
    if not reason:
        return reason
    p = template.placement
    text = reason.lower()
    if "impact =" in text or "impact=" in text:
        if not isinstance(p, Impact):
            attacker = f"click {_label(scenario, p.attacker)}" if isinstance(p, Direct) else "click the attacker"
            # The instruction first: the table's banner shows the first 60 characters.
            return (
                f"Use {IMPACT_TOOL}: {attacker}, then the target (or a point, for indirect fire). "
                f"{_ruleset_name(scenario)} places this template by impact from an attacker; "
                f"{_placed_how(scenario, template)}: delete it (Del) and lay it again."
            )
        return reason.replace("impact = {attacker, target}", f"{IMPACT_TOOL}: the attacker, then the target")
    if "explosion =" in text or "explosion=" in text:
        if not isinstance(p, Explosion):
            return (
                f"{_ruleset_name(scenario)} resolves this template as a model exploding; {_placed_how(scenario, template)}. "
                "An exploding model's template sits on that model: no tool lays one yet, so set it in the file "
                "(explosion = {model})."
            )
    if "weapon.target" in text and isinstance(p, Impact) and p.target is None:
        return (
            f"{reason.split('(')[0].strip()}: lay it with {IMPACT_TOOL}: click {_label(scenario, p.attacker)}, "
            "then the target model instead of a point."
        )
    return reason


def for_the_app(adjudication: Adjudication) -> Adjudication:
    """``adjudication`` with every refusal's reason in the app's words (the same object if none changes)."""
    s = adjudication.scenario
    results = []
    changed = False
    for r in adjudication.results:
        res = r.resolution
        if not res.allowed and res.reason:
            reason = app_reason(s, r.template, res.reason)
            if reason != res.reason:
                r = replace(r, resolution=replace(res, reason=reason))
                changed = True
        results.append(r)
    return replace(adjudication, results=tuple(results)) if changed else adjudication


__all__ = ["app_reason", "for_the_app"]
