"""Golden rulings: everything each ruleset says about every bundled scenario, under every setting.

A ruling is what a player reads and the table shows: the ``check --json`` report (affected
models, margins, statuses, every roll), every step (kind, text, the template it places, its
data), the ruleset's marks (plain data),
its panel lines and its side view. ``test_golden_rulings`` recomputes each case and compares it
with ``tests/golden/rulings.json``, field by field, so a change to any rule, sentence or mark
fails with the path of what moved.

The cases: each scenario in ``scenarios/`` with its ruleset's defaults and seed 1; then each
declared setting moved alone to each value it allows (``true``/``false``, every listed choice);
then seeds 2 and 3 with the file's fixed rolls dropped (other dice); then four jittered
tables (every model moved a little, aims turned, so other models are caught, missed and
contested; rolls dropped on two of them). Numbers are rounded to 1e-4 (a tenth of a micrometre) so the
file is the same on every platform.

The expected values were checked by the rulesets' worked-answer tests before they were frozen
here; when a change is *meant* to alter a ruling, regenerate and review the diff in the commit:

    .venv/bin/python -m tests.golden_rulings --update
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from tabletop.adjudicate import Adjudication
    from tabletop.model import Scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
#: Hand-made tables for what no bundled scenario shows (a refused Ground Zero, an enclosure's save,
#: odd bases, other placements): keys ``t:stem``; each file's comment says what it shows.
TABLES = Path(__file__).resolve().parent / "golden" / "tables"
#: A judge's worked tables (issue 32): keys ``r:stem``; each file's comments work out its answer.
JUDGED = Path(__file__).resolve().parent / "rulings"
RULINGS = Path(__file__).resolve().parent / "golden" / "rulings.json"
SEEDS = (2, 3)
JITTERS = (1, 2, 3, 4)
#: How far a jittered table moves each model (1 sigma, mm) and turns a direct template (degrees).
JITTER_MM = 12.0
JITTER_DEG = 25.0


def plain(value: Any) -> Any:
    """``value`` as JSON data: dataclasses and named tuples as dicts/lists, floats rounded to 1e-4."""
    if value is None or isinstance(value, (bool, str, int)) and not isinstance(value, enum.Enum):
        return value
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, (float, np.floating)):
        x = float(value)
        if not math.isfinite(x):
            return repr(x)
        x = round(x, 4)
        return 0.0 if x == 0 else x
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {name: plain(getattr(value, name)) for name in value._fields}
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "geom_type") and hasattr(value, "bounds"):  # a shapely geometry
        return {"geom_type": value.geom_type, "area": plain(value.area), "bounds": plain(list(value.bounds)) if not value.is_empty else []}
    return repr(value)


def setting_variants(ruleset_name: str) -> Iterator[tuple[str, Any]]:
    """Every (setting, value) that differs from the ruleset's default: bools flipped, every other choice."""
    from tabletop import rulesets
    from tabletop.settings import specs

    for name, spec in specs(rulesets.get(ruleset_name).settings).items():
        if spec.kind == "bool":
            yield name, not spec.default
        elif spec.kind == "choice":
            for choice in spec.choices:
                if choice != spec.default:
                    yield name, choice


def cases() -> list[str]:
    """Every case key: ``stem``, ``stem/setting=value``, ``stem/seed=N``, ``stem/jitter=K`` (tables: ``t:stem``, no jitter)."""
    from tabletop.scenario_io import load

    keys: list[str] = []
    for path in [*sorted(SCENARIOS.glob("*.toml")), *sorted(TABLES.glob("*.toml")), *sorted(JUDGED.glob("*.toml"))]:
        ruleset = load(path).ruleset
        stem = path.stem if path.parent == SCENARIOS else f"t:{path.stem}" if path.parent == TABLES else f"r:{path.stem}"
        keys.append(stem)
        keys += [f"{stem}/{name}={json.dumps(value)}" for name, value in setting_variants(ruleset)]
        keys += [f"{stem}/seed={seed}" for seed in SEEDS]
        if path.parent == SCENARIOS:
            keys += [f"{stem}/jitter={k}" for k in JITTERS]
    return keys


def case_path(stem: str) -> Path:
    """The scenario file of a case key's stem."""
    if stem.startswith("t:"):
        return TABLES / f"{stem[2:]}.toml"
    if stem.startswith("r:"):
        return JUDGED / f"{stem[2:]}.toml"
    return SCENARIOS / f"{stem}.toml"


def without_fixed_rolls(scenario: Scenario) -> Scenario:
    """The scenario with every template's fixed rolls dropped (the seed decides them all)."""
    return dataclasses.replace(scenario, templates=tuple(dataclasses.replace(t, rolls={}) for t in scenario.templates))


def jittered(scenario: Scenario, k: int) -> Scenario:
    """The scenario with each model moved by a seeded random offset, direct aims turned and impact points moved."""
    from tabletop.model import Direct, Impact

    rng = np.random.default_rng(1000 + k)
    w, d = scenario.table.width, scenario.table.depth
    models = []
    for m in scenario.models:
        dx, dy = rng.normal(0.0, JITTER_MM, 2)
        r = m.base.bounding_radius
        x = float(np.clip(m.x + dx, r, max(r, w - r)))
        y = float(np.clip(m.y + dy, r, max(r, d - r)))
        models.append(dataclasses.replace(m, x=x, y=y))
    templates = []
    for t in scenario.templates:
        p = t.placement
        if isinstance(p, Direct):
            p = dataclasses.replace(p, heading=(p.heading + float(rng.uniform(-JITTER_DEG, JITTER_DEG))) % 360.0)
        elif isinstance(p, Impact) and p.point is not None:
            dx, dy = rng.normal(0.0, JITTER_MM, 2)
            p = dataclasses.replace(p, point=(p.point[0] + float(dx), p.point[1] + float(dy)))
        templates.append(dataclasses.replace(t, placement=p))
    out = dataclasses.replace(scenario, models=tuple(models), templates=tuple(templates))
    return without_fixed_rolls(out) if k % 2 else out


def case_adjudication(key: str) -> Adjudication:
    """The adjudication of one case key (its table, seed and settings)."""
    from tabletop.adjudicate import adjudicate
    from tabletop.scenario_io import load

    stem, _, variant = key.partition("/")
    scenario = load(case_path(stem))
    seed, overrides = 1, {}
    if variant.startswith("seed="):
        seed = int(variant.removeprefix("seed="))
        scenario = without_fixed_rolls(scenario)
    elif variant.startswith("jitter="):
        scenario = jittered(scenario, int(variant.removeprefix("jitter=")))
    elif variant:
        name, _, value = variant.partition("=")
        overrides = {name: json.loads(value)}
    return adjudicate(scenario, seed=seed, settings=overrides)


def ruling(key: str) -> dict[str, Any]:
    """What the scenario's ruleset says for one case key, as JSON data."""
    from tabletop import rulesets
    from tabletop.report import report_json

    adj = case_adjudication(key)
    scenario = adj.scenario
    ruleset = rulesets.get(scenario.ruleset)
    out: dict[str, Any] = {"report": plain(report_json(adj))}
    # What the app animates and explains, step by step (the report leaves the steps out).
    out["steps"] = {
        r.template.id: [[s.kind, s.text, s.placed.id if s.placed is not None else None, plain(s.data), s.rule] for s in r.resolution.steps]
        for r in adj.results
    }
    if ruleset.marks is not None:
        out["marks"] = plain(ruleset.marks(adj))
    if ruleset.panel_lines is not None:
        out["panel"] = {r.template.id: plain(ruleset.panel_lines(scenario, r)) for r in adj.results}
    if ruleset.side_view is not None:
        out["side_view"] = {r.template.id: plain(ruleset.side_view(scenario, r, adj.settings)) for r in adj.results}
    if ruleset.step_rule is not None:
        out["step_rules"] = [plain(ruleset.step_rule(step)) for r in adj.results for step in r.resolution.steps]
    return out


def first_difference(want: Any, got: Any, path: str = "") -> str | None:
    """The path and both values where ``got`` first differs from ``want``, or None."""
    if isinstance(want, dict) and isinstance(got, dict):
        for k in sorted(set(want) | set(got)):
            if k not in got or k not in want:
                return f"{path}/{k}: {'missing' if k not in got else 'unexpected'}"
            found = first_difference(want[k], got[k], f"{path}/{k}")
            if found:
                return found
        return None
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            return f"{path}: {len(want)} items expected, {len(got)} found"
        for i, (a, b) in enumerate(zip(want, got)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if want == got else f"{path}: expected {want!r}, got {got!r}"


def update() -> dict[str, Any]:
    """Recompute every case and write ``RULINGS``."""
    rulings = {key: ruling(key) for key in cases()}
    RULINGS.write_text(json.dumps(rulings, indent=0, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return rulings


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python -m tests.golden_rulings --update")
    written = update()
    print(f"wrote {len(written)} rulings to {RULINGS} ({RULINGS.stat().st_size // 1024} KiB)")
