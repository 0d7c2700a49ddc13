"""Reading: bytes to a document, a document to a validated :class:`~tabletop.model.Scenario`."""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import shapely

from tabletop.atomic import InputError, read_regular
from tabletop.catalogue import Entry, default_catalogue, shape_from_table
from tabletop.model import At, Backdrop, Base, Direct, Explosion, Impact, Model, RectSpec, Scenario, Table, Template, TemplateShape, Terrain
from tabletop.scenario_io import fast
from tabletop.scenario_io.checks import nearest, _clean_loc, _collect_unknown, _document_problems, _extra, _message, _ruleset_checks, _seed_problem
from tabletop.scenario_io.fields import _split_sub
from tabletop.scenario_io.limits import _ID, MAX_FILE_BYTES, MAX_PROBLEMS, MAX_TOTAL_VERTICES, SHAPE_KEYS
from tabletop.scenario_io.lines import _line_for, format_path, json_duplicate_keys, json_lines, toml_lines
from tabletop.scenario_io.problems import Problem, ScenarioError
from tabletop.units import MM_PER_UNIT


def read_document(path: Path | str) -> tuple[dict[str, Any], str]:
    """Parse a TOML or JSON file into a dict; returns (data, text). Raises ScenarioError."""
    path = Path(path)
    name = str(path)
    try:
        raw = read_regular(path, MAX_FILE_BYTES)
    except InputError as exc:
        message = str(exc)
        if message.startswith("file is"):
            message = message.replace("the limit is", "scenarios are limited to")
        raise ScenarioError([Problem(name, "", message)]) from None
    return parse_document(raw, name, json_syntax=path.suffix.lower() == ".json")


def parse_document(raw: bytes, name: str, json_syntax: bool = False) -> tuple[dict[str, Any], str]:
    """Parse bytes of TOML (or JSON) into a dict; raises ScenarioError naming the line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ScenarioError([Problem(name, "", f"not valid UTF-8 (byte {exc.start})", line)]) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    repeated = False

    def no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal repeated
        out = dict(pairs)
        repeated = repeated or len(out) != len(pairs)
        return out

    try:
        if json_syntax:
            # JSON's parsers keep the last of two equal keys without a word (TOML refuses them): a
            # table with "units" twice would be read in whichever came last.
            data = json.loads(text, object_pairs_hook=no_repeats)
        else:
            data = tomllib.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError([Problem(name, "", f"JSON syntax: {exc.msg} (column {exc.colno})", exc.lineno)]) from None
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        at_line = int(m.group(1)) if m else None
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg)
        raise ScenarioError([Problem(name, "", f"TOML syntax: {msg}", at_line)]) from None
    except RecursionError:
        raise ScenarioError([Problem(name, "", "nested too deeply to be a scenario")]) from None
    except ValueError as exc:  # e.g. JSON numbers too large to convert
        raise ScenarioError([Problem(name, "", f"cannot parse: {exc}")]) from None
    if repeated:
        raise ScenarioError([
            Problem(name, format_path(path), f"given twice in one object (first on line {first}); JSON would keep only the last: give it once", line)
            for path, line, first in json_duplicate_keys(text)[:MAX_PROBLEMS]
        ] or [Problem(name, "", "a key is given twice in one object; JSON would keep only the last: give each key once")])
    if not isinstance(data, dict):
        raise ScenarioError([Problem(name, "", "the top level must be a table/object")])
    return data, text


class _Report:
    """The problems and warnings of one document, each located by its field path and line."""

    def __init__(self, name: str, text: str | None) -> None:
        self.name = name
        self.text = text
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self._lines: dict[tuple[Any, ...], int] | None = None  # mapped at the first problem: a clean file never needs it

    def line(self, loc: Sequence[Any]) -> int | None:
        if self._lines is None:
            if self.text is None:
                self._lines = {}
            elif self.name.lower().endswith(".json"):
                self._lines = json_lines(self.text)
            else:
                self._lines = toml_lines(self.text)
        return _line_for(self._lines, loc)

    def __call__(self, loc: Sequence[Any], message: str, warning: bool = False, line_of: Sequence[Any] | None = None) -> None:
        """Report ``message`` for the field ``loc``, at the line of ``line_of`` (the field's own by default)."""
        p = Problem(self.name, format_path(loc), message, self.line(loc if line_of is None else line_of), warning)
        (self.warnings if warning else self.problems).append(p)

    def error(self) -> ScenarioError:
        """Every problem, warnings beside them, in the order of the file; at most :data:`MAX_PROBLEMS`."""
        found = sorted([*self.problems, *self.warnings], key=lambda p: (p.line is not None, p.line or 0, p.warning))
        if len(found) > MAX_PROBLEMS:
            more = len(found) - MAX_PROBLEMS + 1
            found = [*found[: MAX_PROBLEMS - 1], Problem(self.name, "", f"... and {more:,} more problems (fix these and check again)")]
        return ScenarioError(found)


def _table_at(data: Any, loc: Sequence[Any]) -> Any:
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _misspelt(data: Any, loc: Sequence[Any], unknown: Mapping[tuple[Any, ...], str]) -> str | None:
    """The unknown key beside the required field ``loc`` that looks like a misspelling of it."""
    table = _table_at(data, loc[:-1])
    if not isinstance(table, dict) or not isinstance(loc[-1], str):
        return None
    keys = [str(k) for k in table if (*loc[:-1], k) in unknown]
    return nearest(loc[-1], keys)


def _schema_parse(data: dict[str, Any], units: str, report: _Report, unknown: dict[tuple[Any, ...], str]) -> Any:
    """The document through the pydantic schema: the parsed document, or None with every problem reported."""
    from tabletop.scenario_io.schema import ScenarioIn, ValidationError  # pydantic: to name every problem

    try:
        return ScenarioIn.model_validate(data, context={"units": units})
    except ValidationError as exc:
        for err in exc.errors():
            sub, message = _split_sub(_message(err))
            loc = (*_clean_loc(err["loc"]), *sub)
            line_of = None
            if err.get("type") == "missing":
                typo = _misspelt(data, loc, unknown)
                if typo is not None:
                    message = f"is required (the unknown key {typo!r} looks like a misspelling of {loc[-1]!r})"
                    unknown.pop((*loc[:-1], typo), None)  # said here: not again as a warning
                    line_of = (*loc[:-1], typo)  # the line to edit is the misspelt key's, not its table's
            report(loc, message, line_of=line_of)
    return None


def _each_valid(data: dict[str, Any], key: str, kind: str, units: str) -> list[tuple[int, Any]]:
    """(index, parsed item) of the items of a list that are valid on their own (the document is not)."""
    from tabletop.scenario_io import schema

    items = data.get(key)
    if not isinstance(items, list):
        return []
    cls = getattr(schema, kind)
    out = []
    for i, item in enumerate(items):
        try:
            out.append((i, cls.model_validate(item, context={"units": units})))
        except schema.ValidationError:
            continue
    return out


def _one_valid(data: dict[str, Any], key: str, kind: str, units: str) -> Any:
    from tabletop.scenario_io import schema

    if key not in data:
        return None
    try:
        return getattr(schema, kind).model_validate(data[key], context={"units": units})
    except schema.ValidationError:
        return None


def _raw_ids(data: dict[str, Any], key: str) -> list[tuple[int, str]]:
    items = data.get(key)
    if not isinstance(items, list):
        return []
    return [(i, item["id"]) for i, item in enumerate(items) if isinstance(item, dict) and isinstance(item.get("id"), str) and _ID.fullmatch(item["id"])]


def _model(min_: Any) -> Model:
    b = min_.base
    width = b.width if b.width is not None else b.length
    if b.shape == "round" and b.width is not None and b.width != b.length:
        width = b.length
    base = Base(b.shape, b.length, width)
    extra = _extra(min_)
    if _extra(b):
        extra["base_extra"] = _extra(b)
    return Model(
        id=min_.id, x=min_.x, y=min_.y, base=base, name=min_.name, side=min_.side, unit=min_.unit, facing=min_.facing,
        z=min_.z, height=min_.height, stats=dict(min_.stats), tags=min_.tags, engaged=min_.engaged, extra=extra,
        sigma=min_.sigma,
    )


def _terrain(i: int, tin: Any, report: _Report) -> Terrain:
    rect = RectSpec(tin.rect.x, tin.rect.y, tin.rect.length, tin.rect.width, tin.rect.rotation) if tin.rect else None
    piece = Terrain(
        id=tin.id, points=tin.points, rect=rect, name=tin.name, kind=tin.kind, height=tin.height,
        blocks_los=tin.blocks_los, stats=dict(tin.stats), tags=tin.tags, extra=_extra(tin),
    )
    poly = shapely.Polygon(piece.polygon)
    if not poly.is_valid:
        report(("terrain", i, "points"), f"polygon is not simple ({shapely.is_valid_reason(poly)})")
    elif not poly.area > 0:
        report(("terrain", i, "points"), "polygon has zero area")
    return piece


def _template_shape(i: int, raw: Any, units: str, catalogue: Mapping[str, Entry], report: _Report) -> tuple[TemplateShape | None, str | None]:
    """A template's shape and catalogue name from its ``shape`` value (a name or a table), reporting what is wrong."""
    if isinstance(raw, str):
        entry = catalogue.get(raw)
        if entry is None:
            guess = nearest(raw, list(catalogue), cutoff=0.5)
            hint = f" (did you mean {guess!r}?)" if guess else f" (known: {', '.join(sorted(catalogue))})"
            report(("template", i, "shape"), f"no template named {raw!r} in the catalogue{hint}")
            return None, None
        return entry.shape, raw
    if isinstance(raw, dict):
        shape, shape_problems = shape_from_table(raw, units)
        for field_name, message in shape_problems:
            report(("template", i, "shape", *([field_name] if field_name else [])), message)
        if shape is not None:
            label = raw.get("label")
            shape = TemplateShape(**{**shape.__dict__, "label": label if isinstance(label, str) else None})
        return shape, None
    return None, None


def _template(i: int, tpl_in: Any, raw: dict[str, Any], shape: TemplateShape | None, shape_name: str | None, report: _Report) -> Template:
    placement: At | Impact | Direct | Explosion
    if tpl_in.at is not None:
        placement = At(tpl_in.at[0], tpl_in.at[1], tpl_in.heading)
    elif tpl_in.impact is not None:
        placement = Impact(tpl_in.impact.attacker, tpl_in.impact.target, tpl_in.impact.at)
    elif tpl_in.direct is not None:
        placement = Direct(tpl_in.direct.attacker, tpl_in.direct.heading)
    else:
        assert tpl_in.explosion is not None
        placement = Explosion(tpl_in.explosion.model)
    if tpl_in.at is None and "heading" in raw:
        report(("template", i, "heading"), "heading is only used with at (direct takes its own heading)", warning=True)
    extra = _extra(tpl_in)
    for sub_name, sub in (("impact", tpl_in.impact), ("direct", tpl_in.direct), ("explosion", tpl_in.explosion)):
        if sub is not None and _extra(sub):
            extra[f"{sub_name}_extra"] = _extra(sub)
    if isinstance(tpl_in.shape, dict):
        shape_extra = {k: v for k, v in tpl_in.shape.items() if k not in SHAPE_KEYS}
        if shape_extra:
            extra["shape_extra"] = shape_extra
        if "radius" in tpl_in.shape and "diameter" not in tpl_in.shape:
            extra["shape_radius"] = True
    return Template(tpl_in.id, shape, placement, shape_name, tpl_in.battery, dict(tpl_in.weapon), dict(tpl_in.rolls), extra)


def scenario_from_data(
    data: dict[str, Any],
    name: str = "<scenario>",
    text: str | None = None,
    catalogue: Mapping[str, Entry] | None = None,
) -> tuple[Scenario, list[Problem]]:
    """Validate parsed data and build a Scenario; returns it with warnings.

    Raises ScenarioError naming every problem (up to :data:`MAX_PROBLEMS`): a problem in one
    part does not hide those of another (a misspelt ruleset, a misspelt template name and a
    bad base are named together), with the warnings beside them.
    """
    report = _Report(name, text)
    for loc, message in _document_problems(data):
        report(loc, message)
    if report.problems:
        raise report.error()  # limits that make reading further unsafe or pointless
    data, catalogue = _rules_file(data, name, catalogue, report)

    units = data.get("units", "in")
    if not isinstance(units, str) or units not in MM_PER_UNIT:
        units = "in"  # validation below reports the bad value; read lengths as inches meanwhile
    catalogue = catalogue if catalogue is not None else default_catalogue()
    unknown = dict(_collect_unknown(data))

    parsed: Any = fast.validate(data, units)  # a valid file, without building the schema
    if parsed is None:
        parsed = _schema_parse(data, units, report, unknown)
    for loc, message in unknown.items():
        report(loc, message, warning=True)
    seed_message = _seed_problem(data)
    if seed_message:
        report(("seed",), seed_message)

    # What can be checked of the parts that are valid on their own, when the whole is not.
    if parsed is not None:
        table_in = parsed.table
        models_in = list(enumerate(parsed.model))
        terrain_in = list(enumerate(parsed.terrain))
        templates_in = list(enumerate(parsed.template))
    else:
        table_in = _one_valid(data, "table", "TableIn", units)
        models_in = _each_valid(data, "model", "ModelIn", units)
        terrain_in = _each_valid(data, "terrain", "TerrainIn", units)
        templates_in = _each_valid(data, "template", "TemplateIn", units)

    models = [_model(min_) for _, min_ in models_in]
    terrain = [_terrain(i, tin, report) for i, tin in terrain_in]
    total_vertices = sum(len(piece.polygon) for piece in terrain)
    if total_vertices > MAX_TOTAL_VERTICES:
        report(("terrain",), f"{total_vertices:,} outline points in all; at most {MAX_TOTAL_VERTICES:,} (simplify the outlines)")

    raw_templates = data.get("template") if isinstance(data.get("template"), list) else []
    templates: list[Template] = []
    valid_templates = dict(templates_in)
    for i, raw in enumerate(raw_templates):
        shape, shape_name = _template_shape(i, raw.get("shape") if isinstance(raw, dict) else None, units, catalogue, report)
        if i in valid_templates:
            templates.append(_template(i, valid_templates[i], raw, shape, shape_name, report))

    # Identity and references, over every id the file gives (a model with a bad field is still on the table).
    seen: dict[str, str] = {}
    for kind, i, item_id in [("model", i, v) for i, v in _raw_ids(data, "model")] + [("terrain", i, v) for i, v in _raw_ids(data, "terrain")]:
        if item_id in seen:
            report((kind, i, "id"), f"id {item_id!r} is already used by a {seen[item_id]}")
        else:
            seen[item_id] = kind
    template_ids: set[str] = set()
    for i, template_id in _raw_ids(data, "template"):
        if template_id in template_ids:
            report(("template", i, "id"), f"template id {template_id!r} is used twice")
        template_ids.add(template_id)
    model_ids = {v for _, v in _raw_ids(data, "model")}

    def ref(loc: tuple[Any, ...], model_id: str | None, role: str) -> None:
        if model_id is not None and model_id not in model_ids:
            guess = nearest(model_id, sorted(model_ids), cutoff=0.5)
            hint = f" (did you mean {guess!r}?)" if guess else ""
            report(loc, f"{role} {model_id!r} is not a model on this table{hint}")

    for (i, _), m in zip(models_in, models):
        for other in m.engaged:
            ref(("model", i, "engaged"), other, "engaged model")
            if other == m.id:
                report(("model", i, "engaged"), "a model cannot be engaged with itself")
        if table_in is not None and not (0 <= m.x <= table_in.width and 0 <= m.y <= table_in.depth):
            report(("model", i), f"model {m.id!r} stands off the table", warning=True)
    for (i, _), tpl in zip(templates_in, templates):
        p = tpl.placement
        if isinstance(p, Impact):
            ref(("template", i, "impact", "attacker"), p.attacker, "attacker")
            ref(("template", i, "impact", "target"), p.target, "target")
            if p.target is not None and p.target == p.attacker:
                report(("template", i, "impact", "target"), "a model cannot aim at itself")
        elif isinstance(p, Direct):
            ref(("template", i, "direct", "attacker"), p.attacker, "attacker")
        elif isinstance(p, Explosion):
            ref(("template", i, "explosion", "model"), p.model, "model")

    if parsed is None or report.problems:
        raise report.error()

    backdrop: Backdrop | None = None
    if parsed.backdrop is not None:
        c = parsed.backdrop.corners
        backdrop = Backdrop(parsed.backdrop.image, (c[0], c[1], c[2], c[3]), _extra(parsed.backdrop))
        image = backdrop_path(backdrop, name)
        if image is not None and not image.is_file():
            what = "is not a file (a folder, device or pipe)" if image.exists() else "not found"
            report(("backdrop", "image"), f"image {backdrop.image!r} {what} (looked for {image}); the table opens without it", warning=True)

    table = Table(table_in.width, table_in.depth, table_in.grid, _extra(table_in))
    scenario = Scenario(
        table=table, models=tuple(models), terrain=tuple(terrain), templates=tuple(templates),
        title=parsed.title, ruleset=parsed.ruleset, units=parsed.units, format=parsed.format, extra=_extra(parsed),
        backdrop=backdrop,
    )
    _ruleset_checks(scenario, report)
    if report.problems:
        raise report.error()
    return scenario, report.warnings


def _rules_file(data: dict[str, Any], name: str, catalogue: Mapping[str, Entry] | None, report: _Report) -> tuple[dict[str, Any], Mapping[str, Entry] | None]:
    """A ``ruleset`` naming a rules file (docs/rules-files.md): compiled, named by its key, its templates
    added to the catalogue. A rules file with problems stops the reading: its problems (in its own
    file and lines), then the scenario's ``ruleset`` line."""
    from tabletop.rulesets import BUILT_IN

    ruleset = data.get("ruleset")
    if not isinstance(ruleset, str) or ruleset in BUILT_IN:
        return data, catalogue
    from tabletop import rulesfile

    data, catalogue, found = rulesfile.for_scenario(data, name, catalogue)
    if found:
        elsewhere = [p for kind, value in found if kind == "problems" for p in value]
        for kind, value in found:
            if kind != "problems":
                report(("ruleset",), value)
        raise ScenarioError([*elsewhere, *report.problems])
    return data, catalogue


def backdrop_path(backdrop: Backdrop, scenario_path: Path | str | None) -> Path | None:
    """Where the backdrop's image is: its path read relative to the scenario file's folder.

    None when the scenario has no file (``<scenario>``-style names) and the path is relative.
    """
    image = Path(os.path.expanduser(backdrop.image))
    if image.is_absolute():
        return image
    if scenario_path is None or str(scenario_path).startswith("<"):
        return None
    return Path(scenario_path).parent / image


def rebase_backdrop(scenario: Scenario, old_path: Path | str | None, new_path: Path | str) -> Scenario:
    """``scenario`` with its backdrop's image path made relative to ``new_path`` (a Save As elsewhere)."""
    b = scenario.backdrop
    if b is None:
        return scenario
    image = backdrop_path(b, old_path)
    if image is None:
        return scenario
    try:
        rel = os.path.relpath(os.path.abspath(image), os.path.abspath(Path(new_path).parent))
    except ValueError:  # another drive (Windows): keep it absolute
        rel = os.path.abspath(image)
    rel = Path(rel).as_posix()
    if rel == b.image:
        return scenario
    from dataclasses import replace

    return replace(scenario, backdrop=replace(b, image=rel))


def load_with_warnings(path: Path | str, catalogue: Mapping[str, Entry] | None = None) -> tuple[Scenario, list[Problem]]:
    """Load a scenario file; returns it with its warnings. Raises ScenarioError."""
    data, text = read_document(path)
    return scenario_from_data(data, str(path), text, catalogue)


def load(path: Path | str, catalogue: Mapping[str, Entry] | None = None) -> Scenario:
    """Load a scenario file. Raises ScenarioError with one Problem per problem."""
    return load_with_warnings(path, catalogue)[0]


def loads(text: str, name: str = "<scenario>.toml", catalogue: Mapping[str, Entry] | None = None) -> Scenario:
    """Load a scenario from TOML (or, for a ``.json`` name, JSON) text."""
    data, text = parse_document(text.encode("utf-8"), name, json_syntax=name.lower().endswith(".json"))
    return scenario_from_data(data, name, text, catalogue)[0]
