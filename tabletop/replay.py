"""A ruling's roll log: written with what it explains, read back to replay exactly those rolls.

Every die of a resolution is logged (``TemplateResult.rolls``). An export writes the log as a
small TOML table, template id → roll name → totals in the order they were rolled::

    [blast]
    strike = [2]
    scatter_direction = [5]

``tabletop explain FILE --rolls LOG`` (and ``check``, ``render``, ``present``, ``animate``) fixes
each template's rolls to the log's, so the seed and the file's own fixed rolls no longer decide
them: the reader sees the rolls the export showed. ``LOG`` is that TOML file, or a Markdown
export holding it in a fenced block opened by ROLLS_FENCE. Pure: no pygame.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from tabletop.adjudicate import Adjudication
from tabletop.model import Scenario
from tabletop.scenario_io import Problem, ScenarioError

#: The fence line that opens the roll log in a Markdown export.
ROLLS_FENCE = "```toml tabletop-rolls"

RollLog = dict[str, dict[str, list[int]]]


def roll_log(adj: Adjudication) -> RollLog:
    """Every roll of ``adj``, by template id and roll name, totals in the order rolled."""
    log: RollLog = {}
    for result in adj.results:
        rolls: dict[str, list[int]] = {}
        for record in result.rolls:
            rolls.setdefault(record.name, []).append(int(record.total))
        log[result.template.id] = rolls
    return log


def rolls_toml(log: RollLog) -> str:
    """``log`` as TOML, one table per template (an empty table: it rolled nothing)."""
    lines: list[str] = []
    for template_id, rolls in log.items():
        if lines:
            lines.append("")
        lines.append(f"[{_key(template_id)}]")
        lines += [f"{_key(name)} = [{', '.join(str(t) for t in totals)}]" for name, totals in rolls.items()]
    return "\n".join(lines) + "\n"


def rolls_markdown(adj: Adjudication, *, dice_free: bool, what_if: Mapping[str, object] | None = None) -> str:
    """The Markdown section an export ends with: the rolls as a table, how they were made, and the
    log in a fenced block that ``--rolls`` reads back."""
    how = (
        f"seed {adj.seed}, dice free: every die was rolled, the table file's fixed rolls set aside"
        if dice_free
        else f"seed {adj.seed}: the table file's fixed rolls, the other dice rolled"
    )
    if what_if:
        how += "; what-if rolls " + ", ".join(f"{k}={v}" for k, v in what_if.items())
    lines = ["", "## Dice", "", f"These are the rolls shown above ({how}).", ""]
    rows = [(r.template.id, rec) for r in adj.results for rec in r.rolls]
    if rows:
        lines += ["| Template | Roll | Dice | Total | How |", "|---|---|---|---|---|"]
        for template_id, rec in rows:
            faces = "+".join(map(str, rec.faces)) if len(rec.faces) > 1 else ""
            total = f"{rec.total} ({faces})" if faces else str(rec.total)
            lines.append(f"| `{template_id}` | {rec.name} | {rec.spec.label()} | {total} | {'fixed' if rec.fixed else 'rolled'} |")
    else:
        lines.append("No dice were rolled.")
    lines += [
        "",
        "To replay exactly these rolls: `tabletop explain TABLE.toml --rolls THIS.md` "
        "(`check`, `render`, `present` and `animate` take `--rolls` too).",
        "",
        ROLLS_FENCE,
        rolls_toml(roll_log(adj)).rstrip("\n"),
        "```",
        "",
    ]
    return "\n".join(lines)


def read_roll_log(path: str | Path) -> RollLog:
    """The roll log in ``path`` (a TOML file, or a Markdown export's fenced block).

    Raises ScenarioError naming the file, the field and the line of every problem.
    """
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError([Problem(name, "", f"cannot read the roll log: {exc}")]) from None
    offset = 0
    if Path(path).suffix.lower() in (".md", ".markdown") or ROLLS_FENCE in text:
        match = re.search(r"^" + re.escape(ROLLS_FENCE) + r"[ \t]*\n(.*?)^```", text, re.S | re.M)
        if match is None:
            raise ScenarioError([Problem(name, "", f"no roll log: a Markdown export holds it in a block opened by {ROLLS_FENCE!r}")])
        offset = text[: match.start(1)].count("\n")
        text = match.group(1)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        raise ScenarioError([Problem(name, "", f"not a roll log: {exc}", line + offset if line else None)]) from None
    problems: list[Problem] = []
    log: RollLog = {}
    for template_id, rolls in data.items():
        if not isinstance(rolls, dict):
            problems.append(Problem(name, template_id, "must be a table of roll name = [totals]", _line_of(text, template_id, offset)))
            continue
        log[template_id] = {}
        for roll, totals in rolls.items():
            values = totals if isinstance(totals, list) else [totals]
            if not values or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                problems.append(Problem(name, f"{template_id}.{roll}", f"must be a list of whole numbers, got {totals!r}", _line_of(text, roll, offset)))
                continue
            log[template_id][roll] = [int(v) for v in values]
    if problems:
        raise ScenarioError(problems)
    return log


def with_rolls(scenario: Scenario, log: RollLog, source: str = "--rolls") -> Scenario:
    """``scenario`` with each template's fixed rolls replaced by the log's (templates the log does
    not name keep theirs). Raises ScenarioError when the log names a template the table lacks."""
    ids = {t.id for t in scenario.templates}
    unknown = [tid for tid in log if tid not in ids]
    if unknown:
        have = ", ".join(sorted(ids)) or "none"
        raise ScenarioError([Problem(source, tid, f"the table has no template {tid!r} (it has: {have})") for tid in unknown])
    templates = tuple(replace(t, rolls={k: list(v) for k, v in log[t.id].items()}) if t.id in log else t for t in scenario.templates)
    return replace(scenario, templates=templates)


def unreplayed(adj: Adjudication, log: RollLog) -> list[str]:
    """Rolls of ``adj`` the log did not fix (drawn from the seed instead): the table is not the one
    the log was written for. Each as ``template.roll``."""
    return [f"{r.template.id}.{rec.name}" for r in adj.results if r.template.id in log for rec in r.rolls if not rec.fixed]


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _line_of(text: str, key: str, offset: int) -> int | None:
    for i, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith((key, f"[{key}]", f'"{key}"')):
            return i + offset
    return None
