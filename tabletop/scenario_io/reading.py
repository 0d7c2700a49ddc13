"""Reading: bytes to a document, a document to a validated :class:`~tabletop.model.Scenario`."""

from __future__ import annotations

import difflib
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
from tabletop.scenario_io.checks import _clean_loc, _collect_unknown, _document_problems, _extra, _message, _ruleset_checks
from tabletop.scenario_io.fields import _split_sub
from tabletop.scenario_io.limits import MAX_FILE_BYTES, MAX_TOTAL_VERTICES, SHAPE_KEYS
from tabletop.scenario_io.lines import _line_for, format_path, toml_lines
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
    try:
        if json_syntax:
            data = json.loads(text)
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
    if not isinstance(data, dict):
        raise ScenarioError([Problem(name, "", "the top level must be a table/object")])
    return data, text


def scenario_from_data(
    data: dict[str, Any],
    name: str = "<scenario>",
    text: str | None = None,
    catalogue: Mapping[str, Entry] | None = None,
) -> tuple[Scenario, list[Problem]]:
    """Validate parsed data and build a Scenario; returns it with warnings. Raises ScenarioError."""
    problems: list[Problem] = []
    warnings: list[Problem] = []
    line_map: list[dict[tuple[Any, ...], int]] = []  # built at the first problem: a clean file never needs it

    def problem(loc: Sequence[Any], message: str, warning: bool = False) -> None:
        if not line_map:
            line_map.append(toml_lines(text) if text is not None and not name.lower().endswith(".json") else {})
        p = Problem(name, format_path(loc), message, _line_for(line_map[0], loc), warning)
        (warnings if warning else problems).append(p)

    for loc, message in _document_problems(data):
        problem(loc, message)
    if problems:
        raise ScenarioError(problems)

    units = data.get("units", "in")
    if not isinstance(units, str) or units not in MM_PER_UNIT:
        units = "in"  # validation below reports the bad value; read lengths as inches meanwhile
    catalogue = catalogue if catalogue is not None else default_catalogue()

    parsed: Any = fast.validate(data, units)  # a valid file, without building the schema
    if parsed is None:
        from tabletop.scenario_io.schema import ScenarioIn, ValidationError  # pydantic: to name every problem

        try:
            parsed = ScenarioIn.model_validate(data, context={"units": units})
        except ValidationError as exc:
            for err in exc.errors():
                sub, message = _split_sub(_message(err))
                problem((*_clean_loc(err["loc"]), *sub), message)
            raise ScenarioError(problems) from None

    for loc, message in _collect_unknown(data):
        problem(loc, message, warning=True)

    table = Table(parsed.table.width, parsed.table.depth, parsed.table.grid, _extra(parsed.table))

    models: list[Model] = []
    for min_ in parsed.model:
        b = min_.base
        width = b.width if b.width is not None else b.length
        if b.shape == "round" and b.width is not None and b.width != b.length:
            width = b.length
        base = Base(b.shape, b.length, width)
        extra = _extra(min_)
        if _extra(b):
            extra["base_extra"] = _extra(b)
        models.append(
            Model(
                id=min_.id, x=min_.x, y=min_.y, base=base, name=min_.name, side=min_.side, unit=min_.unit, facing=min_.facing,
                z=min_.z, height=min_.height, stats=dict(min_.stats), tags=min_.tags, engaged=min_.engaged, extra=extra,
                sigma=min_.sigma,
            )
        )

    terrain: list[Terrain] = []
    for i, tin in enumerate(parsed.terrain):
        rect = RectSpec(tin.rect.x, tin.rect.y, tin.rect.length, tin.rect.width, tin.rect.rotation) if tin.rect else None
        piece = Terrain(
            id=tin.id, points=tin.points, rect=rect, name=tin.name, kind=tin.kind, height=tin.height,
            blocks_los=tin.blocks_los, stats=dict(tin.stats), tags=tin.tags, extra=_extra(tin),
        )
        poly = shapely.Polygon(piece.polygon)
        if not poly.is_valid:
            problem(("terrain", i, "points"), f"polygon is not simple ({shapely.is_valid_reason(poly)})")
        elif not poly.area > 0:
            problem(("terrain", i, "points"), "polygon has zero area")
        terrain.append(piece)

    total_vertices = sum(len(piece.polygon) for piece in terrain)
    if total_vertices > MAX_TOTAL_VERTICES:
        problem(("terrain",), f"{total_vertices:,} outline points in all; at most {MAX_TOTAL_VERTICES:,} (simplify the outlines)")

    templates: list[Template] = []
    for i, tpl_in in enumerate(parsed.template):
        shape: TemplateShape | None = None
        shape_name: str | None = None
        if isinstance(tpl_in.shape, str):
            entry = catalogue.get(tpl_in.shape)
            if entry is None:
                guess = difflib.get_close_matches(tpl_in.shape, list(catalogue), n=1, cutoff=0.5)
                hint = f" (did you mean {guess[0]!r}?)" if guess else f" (known: {', '.join(sorted(catalogue))})"
                problem(("template", i, "shape"), f"no template named {tpl_in.shape!r} in the catalogue{hint}")
            else:
                shape, shape_name = entry.shape, tpl_in.shape
        elif isinstance(tpl_in.shape, dict):
            shape, shape_problems_ = shape_from_table(tpl_in.shape, units)
            for field_name, message in shape_problems_:
                problem(("template", i, "shape", *([field_name] if field_name else [])), message)
            if shape is not None:
                label = tpl_in.shape.get("label")
                shape = TemplateShape(**{**shape.__dict__, "label": label if isinstance(label, str) else None})
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
        if tpl_in.at is None and "heading" in (data["template"][i] if isinstance(data.get("template"), list) else {}):
            problem(("template", i, "heading"), "heading is only used with at (direct takes its own heading)", warning=True)
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
        templates.append(Template(tpl_in.id, shape, placement, shape_name, tpl_in.battery, dict(tpl_in.weapon), dict(tpl_in.rolls), extra))

    # Identity and references.
    seen: dict[str, str] = {}
    named = [("model", i, m.id) for i, m in enumerate(models)] + [("terrain", i, p.id) for i, p in enumerate(terrain)]
    for kind, i, item_id in named:
        if item_id in seen:
            problem((kind, i, "id"), f"id {item_id!r} is already used by a {seen[item_id]}")
        else:
            seen[item_id] = kind
    template_ids: set[str] = set()
    for i, tpl in enumerate(templates):
        if tpl.id in template_ids:
            problem(("template", i, "id"), f"template id {tpl.id!r} is used twice")
        template_ids.add(tpl.id)
    model_ids = {m.id for m in models}

    def ref(loc: tuple[Any, ...], model_id: str | None, role: str) -> None:
        if model_id is not None and model_id not in model_ids:
            guess = difflib.get_close_matches(model_id, sorted(model_ids), n=1, cutoff=0.5)
            hint = f" (did you mean {guess[0]!r}?)" if guess else ""
            problem(loc, f"{role} {model_id!r} is not a model on this table{hint}")

    for i, m in enumerate(models):
        for other in m.engaged:
            ref(("model", i, "engaged"), other, "engaged model")
            if other == m.id:
                problem(("model", i, "engaged"), "a model cannot be engaged with itself")
        if not (0 <= m.x <= table.width and 0 <= m.y <= table.depth):
            problem(("model", i), f"model {m.id!r} stands off the table", warning=True)
    for i, tpl in enumerate(templates):
        p = tpl.placement
        if isinstance(p, Impact):
            ref(("template", i, "impact", "attacker"), p.attacker, "attacker")
            ref(("template", i, "impact", "target"), p.target, "target")
            if p.target is not None and p.target == p.attacker:
                problem(("template", i, "impact", "target"), "a model cannot aim at itself")
        elif isinstance(p, Direct):
            ref(("template", i, "direct", "attacker"), p.attacker, "attacker")
        elif isinstance(p, Explosion):
            ref(("template", i, "explosion", "model"), p.model, "model")

    backdrop: Backdrop | None = None
    if parsed.backdrop is not None:
        c = parsed.backdrop.corners
        backdrop = Backdrop(parsed.backdrop.image, (c[0], c[1], c[2], c[3]), _extra(parsed.backdrop))
        image = backdrop_path(backdrop, name)
        if image is not None and not image.is_file():
            what = "is not a file (a folder, device or pipe)" if image.exists() else "not found"
            problem(("backdrop", "image"), f"image {backdrop.image!r} {what} (looked for {image}); the table opens without it", warning=True)

    extra_top = _extra(parsed)
    scenario = Scenario(
        table=table, models=tuple(models), terrain=tuple(terrain), templates=tuple(templates),
        title=parsed.title, ruleset=parsed.ruleset, units=parsed.units, format=parsed.format, extra=extra_top,
        backdrop=backdrop,
    )
    if not problems:
        _ruleset_checks(scenario, problem)
    if problems:
        raise ScenarioError(problems)
    return scenario, warnings


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
