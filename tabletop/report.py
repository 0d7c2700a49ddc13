"""The ``check`` report: the spec's JSON object and a readable text table."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tabletop.jsonfmt import readable_json
from tabletop.adjudicate import Adjudication, TemplateResult
from tabletop.coverage import uncertainty_mm
from tabletop.model import PlacedTemplate, Scenario, TemplateShape
from tabletop.units import format_length, to_units

STATUS_WORDS = {
    "affected": "affected",
    "total_cover": "total cover",
    "outside": "outside",
    "user": "user",
}


def escape_text(text: str) -> str:
    """``text`` on one line with control characters and lone surrogates escaped (``\\x1b``).

    What a file holds (titles, names, values quoted in messages) must not drive the terminal.
    """
    out = []
    for ch in text:
        code = ord(ch)
        if code < 32 or 0x7F <= code < 0xA0 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def _clean(value: Any) -> Any:
    """Make ruleset details JSON-safe (tuples to lists, numpy scalars to floats)."""
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _num(value: float, digits: int) -> float:
    r = round(float(value), digits)
    return 0.0 if r == 0 else r


def point_in_units(p: tuple[float, float], units: str) -> list[float]:
    return [_num(to_units(p[0], units), 6), _num(to_units(p[1], units), 6)]


def shape_summary(shape: TemplateShape, units: str = "in") -> str:
    """In the table's units, e.g. ``circle Ø 5.00"``, ``circle Ø 40.00 mm`` or ``teardrop 8.00" long, ends 0.60"/2.50"``."""

    def L(mm: float) -> str:
        return format_length(mm, units)

    if shape.kind == "circle":
        return f"circle Ø {L(shape.diameter)}"
    if shape.kind == "teardrop":
        return f"teardrop {L(shape.length)} long, ends {L(shape.tip_width)}/{L(shape.end_width)}"
    if shape.kind == "rect":
        return f"rect {L(shape.length)} × {L(shape.width)}"
    return f"cone {L(shape.length)} long, {shape.angle:g}°"


def template_json(result: TemplateResult, units: str, sigmas: Mapping[str, float] | None = None) -> dict[str, Any]:
    """One template's entry in the spec's report; ``sigmas`` (model id → mm) adds ``sigma_mm``."""
    res = result.resolution
    placed: PlacedTemplate = res.placed
    models: dict[str, Any] = {}
    sigmas = sigmas or {}
    for model_id, c in res.coverage.models.items():
        entry: dict[str, Any] = {"status": c.status, "margin_mm": _num(c.margin_mm, 4), "contested": c.contested}
        if model_id in sigmas:
            entry["sigma_mm"] = _num(sigmas[model_id], 4)
        entry.update(_clean(res.model_details.get(model_id, {})))
        models[model_id] = entry
    details = dict(_clean(res.details))
    details.setdefault("dice", [r.as_dict() for r in result.rolls])
    return {
        "id": result.template.id,
        "shape": placed.shape.kind,
        "shape_name": result.template.shape_name,
        "focus": point_in_units(placed.focus, units),
        "heading": _num(placed.heading, 6),
        "size_uncertainty_mm": _num(placed.shape.size_uncertainty, 4),
        "affected": sorted(res.affected),
        "models": models,
        "terrain_affected": list(res.coverage.terrain_affected),
        "allowed": res.allowed,
        "reason": res.reason,
        "resolution": details,
    }


def model_sigmas(scenario: Scenario) -> dict[str, float]:
    """Model id → 1-sigma position uncertainty (mm) of the models that carry one."""
    return {m.id: m.sigma for m in scenario.models if m.sigma is not None}


def margin_text(margin_mm: float, uncertainty: float, digits: int = 3) -> str:
    """``+0.400 mm`` or, with an uncertainty, ``+0.400 ± 0.800 mm``."""
    text = f"{_num(margin_mm, digits):+.{digits}f}"
    if uncertainty > 0:
        text += f" ± {uncertainty:.{digits}f}"
    return text + " mm"


def report_json(adj: Adjudication) -> dict[str, Any]:
    """The whole ``check --json`` object."""
    s = adj.scenario
    return {
        "format": 1,
        "title": s.title,
        "ruleset": s.ruleset,
        "units": s.units,
        "seed": adj.seed,
        "tolerance_mm": adj.tolerance_mm,
        "templates": [template_json(r, s.units, model_sigmas(s)) for r in adj.results],
    }


def dumps(adj: Adjudication) -> str:
    try:
        return readable_json(report_json(adj))
    except (TypeError, ValueError) as exc:
        from tabletop import rulesets

        if not rulesets.is_plugin(adj.scenario.ruleset):
            raise  # ours (a built-in or a rules file): an internal error
        # A plug-in's details are written as they are: one that JSON cannot hold is the plug-in's fault.
        raise rulesets.PluginError(f"ruleset plug-in {adj.scenario.ruleset!r} put in its resolution what JSON cannot hold: {exc}") from exc


def _table(rows: list[list[str]], header: list[str]) -> list[str]:
    """A text table, every cell whole: the last column wraps onto lines of its own (:func:`_wrap`)."""
    wrapped = [(r[:-1], _wrap(r[-1], _SUMMARY_WIDTH)) for r in rows]
    widths = [max([len(header[i]), *(len(r[i]) for r, _ in wrapped)]) for i in range(len(header) - 1)]
    widths.append(max([len(header[-1]), *(len(line) for _, lines in wrapped for line in lines)]))
    fmt = "  ".join("{:<%d}" % w for w in widths)
    out = ["  " + fmt.format(*header).rstrip(), "  " + "  ".join("-" * w for w in widths)]
    for cells, lines in wrapped:
        out.append("  " + fmt.format(*cells, lines[0]).rstrip())
        out += ["  " + fmt.format(*([""] * len(cells)), more).rstrip() for more in lines[1:]]
    return out


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of about ``width`` characters, broken after a comma (or a space): never cut."""
    lines: list[str] = []
    line = ""
    for part in text.split(", "):
        candidate = f"{line}, {part}" if line else part
        if line and len(candidate) > width:
            lines.append(line + ",")
            line = part
        else:
            line = candidate
    lines.append(line)
    return lines


#: Width of the ruleset column before it wraps.
_SUMMARY_WIDTH = 56
#: Per-model details players look for first.
_FIRST = ("dodge", "damage", "final_damage", "explodes", "templates", "count", "caught_by", "silhouette")


def _detail_summary(details: Mapping[str, Any]) -> str:
    """A ruleset's per-model details for one column (the JSON has them all); :func:`_table` wraps it."""
    if isinstance(details.get("summary"), str):
        return details["summary"]
    parts: list[str] = []
    ordered = sorted(details.items(), key=lambda kv: (kv[0] not in _FIRST, _FIRST.index(kv[0]) if kv[0] in _FIRST else 0))
    for key, value in ordered:
        if isinstance(value, Mapping) or key in ("why", "relation", "silhouette_mm"):
            continue
        if isinstance(value, (list, tuple)):
            value = "/".join(str(v) for v in value) or "—"
        text = str(value)
        if len(text) > 24:
            continue  # sentences belong in the steps below the table
        parts.append(f"{key} {text}")
    return ", ".join(parts)


def report_text(adj: Adjudication) -> str:
    """A readable report: one table per template, then what the ruleset made of it."""
    s = adj.scenario
    lines = [f"{s.title or 'Untitled table'} — ruleset {s.ruleset}, seed {adj.seed}, tolerance {adj.tolerance_mm:g} mm"]
    names = {m.id: m.label for m in s.models}
    sigmas = model_sigmas(s)
    if not adj.results:
        lines += ["", "No templates on this table: nothing to adjudicate (add a [[template]] to the file)."]
    for result in adj.results:
        res = result.resolution
        placed = res.placed
        fx, fy = point_in_units(placed.focus, s.units)
        shape_name = f"{result.template.shape_name}: " if result.template.shape_name else ""
        lines.append("")
        lines.append(
            f"Template {result.template.id} — {shape_name}{shape_summary(placed.shape, s.units)}, "
            f"focus ({fx:g}, {fy:g}) {s.units}, heading {placed.heading:.1f}°"
            + (f", size ± {placed.shape.size_uncertainty:.1f} mm (an estimate)" if placed.shape.size_uncertainty else "")
        )
        rows: list[list[str]] = []
        for model_id, c in res.coverage.models.items():
            status = STATUS_WORDS.get(c.status, c.status)
            note = _detail_summary(res.model_details.get(model_id, {}))
            rows.append(
                [
                    names.get(model_id, model_id) + ("" if names.get(model_id) == model_id else f" ({model_id})"),
                    status,
                    margin_text(c.margin_mm, uncertainty_mm(placed.shape.size_uncertainty, sigmas.get(model_id)))[:-3],
                    "CONTESTED" if c.contested else "",
                    note,
                ]
            )
        lines += _table(rows, ["model", "status", "margin mm", "contested", "ruleset"])
        lines.append(f"  affected: {', '.join(res.affected) or 'none'}")
        if res.coverage.terrain_affected:
            lines.append(f"  terrain under the template: {', '.join(res.coverage.terrain_affected)}")
        if not res.allowed:
            lines.append(f"  NOT ALLOWED: {res.reason}")
        for step in res.steps:
            lines.append(f"  · {step.text}")
        for record in result.rolls:
            lines.append(f"  dice: {record.describe()}")
    return "\n".join(escape_text(line) for line in lines)
