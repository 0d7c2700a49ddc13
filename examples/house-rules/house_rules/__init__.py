"""House rules: everyone a template touches takes a hit. Friendly fire allowed.

A complete Tabletop ruleset plug-in (see docs/plugins.md in Tabletop): the rules
(``resolve``), what they draw on the table (``marks``), their lines in the results
panel (``panel_lines``) and one setting. Everything comes from ``tabletop.plugin``.
"""

from __future__ import annotations

from pathlib import Path

from tabletop.plugin import (
    CHAIN,
    DAMAGE_TEXT,
    TEXT_DIM,
    WARN,
    Adjudication,
    Badge,
    Context,
    Marks,
    PanelLine,
    Resolution,
    Ruleset,
    Scenario,
    Step,
    Tag,
    TemplateResult,
    display_names,
    id_list,
)

#: Settings players may disagree on: name -> (default, why).
SETTINGS = {
    "hits": (1, "Hits each touched model takes. The club plays 1; some tables play 2 for big templates."),
}


def resolve(ctx: Context) -> Resolution:
    """Every model the template touches (status ``affected``) takes ``hits`` hits, whatever its side."""
    hits = int(ctx.settings.get("hits", SETTINGS["hits"][0]))
    models = ctx.scenario.models_by_id()
    attacker = models.get(ctx.template.attacker or "")
    touched = tuple(mid for mid in ctx.coverage.affected)
    friendly = [mid for mid in touched if attacker is not None and models[mid].side is not None and models[mid].side == attacker.side]
    steps = [Step("note", f"{len(touched)} model{'s' if len(touched) != 1 else ''} touched: {hits} hit{'s' if hits != 1 else ''} each")]
    if friendly:
        steps.append(Step("note", f"friendly fire on {', '.join(friendly)}"))
    return Resolution(
        coverage=ctx.coverage,
        affected=touched,
        details={"hits": {mid: hits for mid in touched}, "friendly": friendly},
        model_details={mid: {"hits": hits, "friendly": mid in friendly} for mid in touched},
        steps=tuple(steps),
    )


def marks(adj: Adjudication) -> Marks:
    """A hit count on every touched model; a warning badge on friends hit."""
    out = Marks()
    models = adj.scenario.models_by_id()
    for result in adj.results:
        d = result.resolution.details
        for mid, n in (d.get("hits") or {}).items():
            m = models[mid]
            out.tags.append(Tag(m.centre, f"{n} hit" if n == 1 else f"{n} hits", DAMAGE_TEXT))
            if mid in (d.get("friendly") or []):
                out.badges.append(Badge(m.centre, (("friendly fire!", WARN), (f"hit by {result.template.id}", TEXT_DIM)), WARN, clear=m.base.bounding_radius, prefer="below", priority=1))
        if d.get("hits"):
            out.add_legend("swatch", "touched: takes a hit", CHAIN)
        if d.get("friendly"):
            out.add_legend("swatch", "friendly fire", WARN)
    return out


def panel_lines(scenario: Scenario, result: TemplateResult) -> list[PanelLine]:
    """Who takes hits, and which of them are friends."""
    d = result.resolution.details
    names = display_names(scenario)
    hits = d.get("hits") or {}
    out: list[PanelLine] = [("head", f"{len(hits)} hit" + ("s" if len(hits) != 1 else "") + f": {id_list(list(hits), names)}")]
    if d.get("friendly"):
        out.append(("warn", f"friendly fire: {id_list(d['friendly'], names)}"))
    return out


def validate(scenario: Scenario) -> list[tuple[str, str]]:
    """A template must say who fires it, so friends can be told apart."""
    return [(f"template[{i}]", "house rules need an attacker (impact or direct)") for i, t in enumerate(scenario.templates) if t.attacker is None]


RULESET = Ruleset(
    name="house",
    title="House rules: everyone touched takes a hit",
    resolve=resolve,
    uses_visibility=False,
    validate=validate,
    settings=SETTINGS,
    doc="Every model a template touches takes a hit, friends included.",
    marks=marks,
    panel_lines=panel_lines,
    doc_path=Path(__file__).with_name("README.md"),
)
