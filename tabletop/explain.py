"""A resolution explained step by step: what each step says, the rule it applies (with the seed
sentence it rests on) and what it touches on the table. Pure: no pygame.

:func:`beats` turns an :class:`~tabletop.adjudicate.Adjudication` into the sequence presenter
mode shows one at a time and the animation draws; :func:`explain_text` writes the same steps as
plain text or Markdown, ready to paste into a forum or a chat.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tabletop import rulesets
from tabletop.adjudicate import Adjudication, TemplateResult
from tabletop.coverage import TableGeometry, cover, table_geometry
from tabletop.model import PlacedTemplate, Point, Scenario
from tabletop.resolution import Step

_RANK = {"outside": 0, "user": 1, "total_cover": 2, "affected": 3}
STATUS_WORDS = {"affected": "affected", "total_cover": "total cover", "outside": "outside", "user": "user"}


@dataclass(frozen=True)
class Beat:
    """One step of a resolution as it is shown: a caption, its rule, and what it touches."""

    template_id: str
    number: int  # 1-based within its template
    count: int  # beats of its template
    kind: str  # the step's kind, or "result" for a template's outcome
    caption: str
    rule: str | None
    quote: str | None
    placed: PlacedTemplate | None  # where the template is at this step
    previous: PlacedTemplate | None  # where it was just before (a scatter's start)
    touched: tuple[str, ...]  # model ids this step is about
    changed: tuple[str, ...]  # model ids whose status changes at this step
    statuses: Mapping[str, str] = field(default_factory=dict)  # every model's status as of this step
    dice: tuple[int, ...] = ()
    dice_names: tuple[str, ...] = ()  # what each die of ``dice`` was rolled for ("Strike", "direction"), "" if not known
    explosion: bool = False
    sight_from: Point | None = None  # the blast focus, when sight lines decide who is hit

    @property
    def heading(self) -> str:
        """``shot1 · step 2 of 4``."""
        return f"{self.template_id} · step {self.number} of {self.count}"


def _names_in(text: str, scenario: Scenario) -> list[str]:
    """Model ids named in ``text`` (by id or label, as whole words)."""
    out: list[str] = []
    for m in scenario.models:
        for name in {m.id, m.label}:
            if name and re.search(r"(?<![\w'])" + re.escape(name) + r"(?![\w])", text):
                out.append(m.id)
                break
    return out


#: Keys of a step's data that name the models it is about: one id, or a list of ids.
_MODEL_KEYS = ("model", "models", "units")


def step_models(step: Step, scenario: Scenario) -> list[str]:
    """Ids of the models ``step`` is about: those its data names (``model``, ``models``, ``units``),
    then those its text names by id or label."""
    ids = {m.id for m in scenario.models}
    out: list[str] = []
    for key in _MODEL_KEYS:
        value = step.data.get(key)
        for mid in [value] if isinstance(value, str) else value if isinstance(value, (list, tuple)) else ():
            if isinstance(mid, str) and mid in ids and mid not in out:
                out.append(mid)
    out += [mid for mid in _names_in(step.text, scenario) if mid not in out]
    return out


_DICE_TEXT = re.compile(r"(Strike|save|roll|direction)\s+(\d+)")
_DICE_SUM = re.compile(r"\((\d+(?:\s*\+\s*\d+)+)\)")


#: A step's data keys that hold dice, and what each was rolled for.
_DICE_KEYS = {"direction": "direction", "distance_rolled": "distance", "strike_roll": "Strike"}


def _dice(step: Step) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Dice faces a roll or scatter step shows (from its data, else its text), and what each was for."""
    if step.kind not in ("roll", "scatter"):
        return (), ()
    faces: list[int] = []
    names: list[str] = []
    for key, name in _DICE_KEYS.items():
        value = step.data.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            faces.append(value)
            names.append(name)
        elif isinstance(value, (list, tuple)):
            got = [int(v) for v in value if isinstance(v, int) and not isinstance(v, bool)]
            faces.extend(got)
            names.extend([name] * len(got))
    if faces:
        return tuple(faces), tuple(names)
    summed = _DICE_SUM.search(step.text)
    if summed:
        got = tuple(int(v) for v in re.findall(r"\d+", summed.group(1)))
        return got, ("",) * len(got)
    found = _DICE_TEXT.search(step.text)
    if found is None:
        return (), ()
    return (int(found.group(2)),), (found.group(1),)


def _coverage_statuses(placed: PlacedTemplate, geometry: TableGeometry, uses_visibility: bool, tolerance_mm: float) -> dict[str, str]:
    cov = cover(placed, geometry, use_visibility=uses_visibility, tolerance_mm=tolerance_mm, users=(placed.user,) if placed.user else ())
    return {mid: str(c.status) for mid, c in cov.models.items()}


def _final_statuses(result: TemplateResult) -> dict[str, str]:
    res = result.resolution
    out = {mid: str(c.status) for mid, c in res.coverage.models.items()}
    for mid in res.affected:
        out[mid] = "affected"
    return out


def template_beats(
    adj: Adjudication, result: TemplateResult, geometry: TableGeometry | None = None, start: Mapping[str, str] | None = None
) -> list[Beat]:
    """The beats of one template: each of its ruleset's steps, then its outcome."""
    scenario = adj.scenario
    geometry = geometry if geometry is not None else table_geometry(scenario)
    try:
        ruleset = rulesets.get(scenario.ruleset)
        hook, uses_visibility = ruleset.step_rule, ruleset.uses_visibility
    except rulesets.UnknownRuleset:
        hook, uses_visibility = None, True
    res = result.resolution
    tid = result.template.id
    steps = list(res.steps)
    count = len(steps) + 1
    base = {m.id: "outside" for m in scenario.models}
    base.update(start or {})
    statuses = dict(base)
    current: PlacedTemplate | None = None
    out: list[Beat] = []
    # Where the template finally rests; a placement a later step scatters it away from, and that is
    # none of these, is only where it was aimed: nobody under it is affected there (a missed Strike).
    rests = (res.placed, *res.also_drawn)
    last_scatter = max((k for k, st in enumerate(steps) if st.kind == "scatter" and st.placed is not None), default=-1)
    for k, step in enumerate(steps):
        previous = current
        after = dict(statuses)
        if step.placed is not None:
            aim_only = step.kind != "scatter" and k < last_scatter and step.placed not in rests
            if not aim_only:
                for mid, s in _coverage_statuses(step.placed, geometry, uses_visibility, adj.tolerance_mm).items():
                    if _RANK.get(s, 0) > _RANK.get(after.get(mid, "outside"), 0):
                        after[mid] = s
            current = step.placed
        changed = tuple(mid for mid in after if after[mid] != statuses.get(mid))
        named = step_models(step, scenario)
        touched = list(dict.fromkeys([*named, *changed]))
        if not touched and step.placed is not None:
            touched = [mid for mid, s in after.items() if s in ("affected", "total_cover")]
        rule_quote = hook(step) if hook is not None else None
        faces, names = _dice(step)
        focus = current.focus if current is not None and uses_visibility and touched else None
        out.append(
            Beat(
                template_id=tid,
                number=k + 1,
                count=count,
                kind=step.kind,
                caption=step.text,
                rule=rule_quote[0] if rule_quote else None,
                quote=rule_quote[1] if rule_quote else None,
                placed=current if current is not None else None,
                previous=previous if step.kind == "scatter" else None,
                touched=tuple(touched),
                changed=changed,
                statuses=after,
                dice=faces,
                dice_names=names,
                explosion=step.kind == "explode",
                sight_from=focus,
            )
        )
        statuses = after
    final = {**statuses, **_final_statuses(result)}
    changed = tuple(mid for mid in final if final[mid] != statuses.get(mid))
    out.append(
        Beat(
            template_id=tid,
            number=count,
            count=count,
            kind="result",
            caption=outcome(result, scenario),
            rule=None,
            quote=None,
            placed=res.placed,
            previous=None,
            touched=tuple(sorted(res.affected)) if res.allowed else (),
            changed=changed,
            statuses=final,
            sight_from=res.placed.focus if uses_visibility and res.affected else None,
        )
    )
    return out


def beats(adj: Adjudication, geometry: TableGeometry | None = None) -> list[Beat]:
    """Every template's beats, in file order: what presenter mode steps through."""
    geometry = geometry if geometry is not None else table_geometry(adj.scenario)
    out: list[Beat] = []
    for result in adj.results:
        out.extend(template_beats(adj, result, geometry))
    return out


def _label(scenario: Scenario, model_id: str) -> str:
    try:
        m = scenario.model(model_id)
    except KeyError:
        return model_id
    return m.label if m.label == m.id else f"{m.label} ({m.id})"


def outcome(result: TemplateResult, scenario: Scenario) -> str:
    """One line: who the template affects, or why it is not allowed."""
    res = result.resolution
    tid = result.template.id
    if not res.allowed:
        return f"{tid}: not allowed: {res.reason}"
    if not res.affected:
        return f"{tid}: nobody affected"
    names = ", ".join(_label(scenario, m) for m in sorted(res.affected))
    return f"{tid}: {len(res.affected)} affected: {names}"


# --------------------------------------------------------------------------- text


def _detail(details: Mapping[str, Any]) -> str:
    """A ruleset's per-model details as one short phrase (the JSON report has them all)."""
    parts: list[str] = []
    why = details.get("why")
    if isinstance(why, str):
        parts.append(why)
    for key, value in details.items():
        if key in ("why", "relation", "silhouette_mm", "silhouette", "summary") or isinstance(value, Mapping):
            continue
        if isinstance(value, (list, tuple)):
            value = "/".join(str(v) for v in value)
        text = ("yes" if value else "no") if isinstance(value, bool) else "none" if value is None else str(value)
        if len(text) <= 40:
            parts.append(f"{key.replace('_', ' ')} {text}")
    return "; ".join(parts)


def who_rows(result: TemplateResult, scenario: Scenario) -> list[tuple[str, str, str, str]]:
    """(model, status, margin, why) for every model the template touches or the ruleset speaks of."""
    res = result.resolution
    rows: list[tuple[str, str, str, str]] = []
    for mid, c in res.coverage.models.items():
        status = "affected" if mid in res.affected else str(c.status)
        details = res.model_details.get(mid, {})
        if status == "outside" and not c.contested:
            continue
        shown = round(c.margin_mm, 1) + 0.0  # a tangent base's -1e-12 mm is 0.0, never "-0.0"
        margin = f"{shown:+.1f} mm" + (" (contested)" if c.contested else "")
        word = STATUS_WORDS.get(status, status)
        if not res.allowed and status == "affected":
            word = "under it (attack not allowed)"
        rows.append((_label(scenario, mid), word, margin, _detail(details)))
    rows.sort(key=lambda r: (-_RANK.get(r[1].replace(" ", "_"), 0), r[0]))
    return rows


# An underscore inside a word (large_blast) is never emphasis in CommonMark, so it stays readable.
_MD_SPECIAL = re.compile(r"([\\`*\[\]<|~])|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def _md_text(text: str) -> str:
    """Text from a file (a name, an id, a caption) shown literally in Markdown, never as markup."""
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), " ".join(text.split()))


def _md_code(text: str) -> str:
    """A code span holding ``text`` literally, whatever backticks it contains."""
    text = " ".join(text.split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_cell(text: str) -> str:
    return _md_text(text) or "—"


def explain_text(adj: Adjudication, markdown: bool = False) -> str:
    """The steps of every template with their rules and seed quotes, then who is affected and why."""
    scenario = adj.scenario
    try:
        title = rulesets.get(scenario.ruleset).title
    except rulesets.UnknownRuleset:
        title = scenario.ruleset
    name = scenario.title or "Untitled table"
    geometry = table_geometry(scenario)
    lines: list[str] = []
    if markdown:
        lines += [
            f"# {_md_text(name)}",
            "",
            f"*Ruleset: {_md_text(title)} ({_md_text(scenario.ruleset)}) · seed {adj.seed}*",
        ]
    else:
        lines += [name, f"Ruleset: {title} ({scenario.ruleset}), seed {adj.seed}"]
    for result in adj.results:
        t = result.template
        shape = t.shape_name or result.resolution.placed.shape.kind
        lines.append("")
        lines.append(f"## Template {_md_code(t.id)} ({_md_text(shape)})" if markdown else f"Template {t.id} ({shape})")
        if markdown:
            lines.append("")
        steps = template_beats(adj, result, geometry)[:-1]
        if not steps:
            lines.append("  (no ruleset steps: geometry only)" if not markdown else "*(no ruleset steps: geometry only)*")
        for beat in steps:
            if markdown:
                lines.append(f"{beat.number}. {_md_text(beat.caption)}")
                if beat.rule:
                    lines.append(f"   *Rule: {_md_text(beat.rule)}*")
                    lines.append(f"   > “{_md_text(beat.quote)}”")
            else:
                lines.append(f"  {beat.number}. {beat.caption}")
                if beat.rule:
                    lines.append(f"     Rule: {beat.rule}")
                    lines.append(f"     “{beat.quote}”")
        result_line = outcome(result, scenario)
        if steps or markdown:
            lines.append("")
        lines.append(f"**Result:** {_md_text(result_line)}" if markdown else f"  Result: {result_line}")
        rows = who_rows(result, scenario)
        if rows:
            lines.append("")
            if markdown:
                lines.append(f"### Who is affected and why ({_md_text(t.id)})")
                lines.append("")
                lines.append("| Model | Status | Margin | Why |")
                lines.append("|---|---|---|---|")
                lines += [f"| {' | '.join(_md_cell(c) for c in row)} |" for row in rows]
            else:
                widths = [max(len(r[i]) for r in [("model", "status", "margin", "why"), *rows]) for i in range(3)]
                lines.append("  " + "  ".join(h.ljust(w) for h, w in zip(("model", "status", "margin"), widths)) + "  why")
                for row in rows:
                    lines.append(("  " + "  ".join(c.ljust(w) for c, w in zip(row[:3], widths)) + "  " + row[3]).rstrip())
    return "\n".join(lines).rstrip() + "\n"


__all__: Sequence[str] = ("Beat", "beats", "template_beats", "outcome", "explain_text", "who_rows", "step_models", "STATUS_WORDS")
