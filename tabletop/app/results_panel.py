"""The results panel's text: per template who is affected and why, and after Fire the dice."""

from __future__ import annotations

import html

from tabletop.adjudicate import Adjudication
from tabletop.coverage import uncertainty_mm
from tabletop.report import STATUS_WORDS, margin_text, model_sigmas, report_text

from .advice import for_the_app
from .panel_bounds import panel_lines, template_lines
from .results import ruleset_lines
from .rules_menu import settings_line


RESULT_COLOURS = {"head": "#ffd65a", "good": "#7bd88f", "bad": "#ff7b6b", "warn": "#ffb454", "note": "#c9ced6"}


def results_html(adj: Adjudication, fired: bool, errors: dict[str, str] | None = None, dice_free: bool | None = None) -> str:
    """The results panel: per template, who is affected, contested margins, and after Fire the report with dice.

    ``dice_free``: the Dice free button (None: not said). The live view shows the file's
    fixed rolls; Fire sets them aside when the dice are free.
    """
    adj = for_the_app(adj)  # refusals name what to do with the app's tools
    s = adj.scenario
    names = {m.id: m.label for m in s.models}
    sigmas = model_sigmas(s)
    out: list[str] = []
    if not adj.results and not errors:
        return "<font color='#9aa4ae'>No templates yet: pick a tool (Impact, Direct, Free) and click the table.</font>"
    fixed = any(t.rolls for t in s.templates)
    if fired:
        dice = "" if dice_free is None or not fixed else (", dice free (the file's fixed rolls set aside)" if dice_free else ", the file's fixed rolls")
        out.append("<b><font color='#ff9a6a'>Fired</font></b> — " + html.escape(f"ruleset {s.ruleset}, seed {adj.seed}{dice}"))
    elif fixed and dice_free is not None:
        how = "rolls every die (Dice free: the file's fixed rolls set aside)" if dice_free else "uses the file's fixed rolls (Dice free is off)"
        out.append("<font color='#9aa4ae'>" + html.escape(f"Live, seed {adj.seed}, with the file's fixed rolls. Fire (Enter) {how} and animates.") + "</font>")
    else:
        out.append("<font color='#9aa4ae'>" + html.escape(f"Live, seed {adj.seed}. Fire (Enter) rolls the dice and animates.") + "</font>")
    shown = settings_line(s.ruleset, adj.settings)
    if shown is not None:  # the ruleset's settings as this table uses them (Ruleset ▸ Settings… changes them)
        out.append("<font color='#9aa4ae'>" + html.escape(shown) + "</font>")
    for r in adj.results:
        res = r.resolution
        cov = res.coverage
        out.append(f"<br><b><font color='#ffd65a'>{html.escape(r.template.id)}</font></b> "
                   + html.escape(f"{r.template.shape_name or res.placed.shape.kind}"))
        affected = ", ".join(names.get(i, i) for i in res.affected) or "none"
        out.append("<font color='#ff7b6b'>affected:</font> " + html.escape(affected))
        cover_ids = cov.ids_with("total_cover")
        if cover_ids:
            out.append("<font color='#6fa8ff'>total cover:</font> " + html.escape(", ".join(names.get(i, i) for i in cover_ids)))
        contested = [(i, c) for i, c in cov.models.items() if c.contested]
        size = res.placed.shape.size_uncertainty
        if size:
            out.append("<font color='#ffb454'>" + html.escape(f"template size is an estimate: ± {size:.1f} mm") + "</font>")
        for i, c in contested:
            margin = margin_text(c.margin_mm, uncertainty_mm(size, sigmas.get(i)))
            out.append("<font color='#ffffff'>contested:</font> " + html.escape(f"{names.get(i, i)} {margin} ({STATUS_WORDS.get(c.status, c.status)})"))
        if cov.terrain_affected:
            out.append("terrain: " + html.escape(", ".join(cov.terrain_affected)))
        lines = ruleset_lines(s, r)
        if not res.allowed and not any(line.startswith(("NOT ALLOWED", "NULLIFIED", "FAILS")) for _, line in lines):
            out.append("<font color='#ff5050'>NOT ALLOWED:</font> " + html.escape(str(res.reason)))
        account = []
        for style, line in lines:
            account.append(f"<font color='{RESULT_COLOURS.get(style, '#d0d4da')}'>" + html.escape(line) + "</font>")
        if fired:
            for step in res.steps:
                account.append("· " + html.escape(step.text))
            for rec in r.rolls:
                account.append("<font color='#b9c0c8'>dice: " + html.escape(rec.describe()) + "</font>")
            if not lines:  # a ruleset without its own summary: its plain details
                for k, v in res.details.items():
                    if not isinstance(v, (dict, list)):
                        account.append(html.escape(f"{k}: {v}"))
        out += template_lines(account)
    for tid, msg in (errors or {}).items():
        out.append(f"<br><font color='#ff5050'>{html.escape(tid)}: {html.escape(msg)}</font>")
    return "<br>".join(panel_lines(out))


def full_report(adj: Adjudication) -> str:
    """The text report of a Fire (for the log and tests)."""
    return report_text(adj)
