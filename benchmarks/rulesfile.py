"""Rules files judged against the built-ins they restate: the same 300-model table, same run.

The 300-model table of ``tabletop.sample_tables.big_table`` (60 buildings, squads of two sides)
with its templates turned into attacks: six Robotech Blasts (three hit, three scatter; Dodge and
Roll with Impact for everyone under them) under ``robotech`` and under
``examples/rules/robotech-blast.rules.toml``; six WWPD templates (batteries of 1-3) under ``wwpd``
and under ``examples/rules/wwpd-battery.rules.toml``. Each is judged with ``adjudicate`` (table
geometry included), the two rulesets interleaved; medians of wall time. Target: the rules file
within 1.5x the built-in.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import sys
import time
from pathlib import Path

from tabletop import rulesfile
from tabletop.adjudicate import adjudicate
from tabletop.catalogue import default_catalogue
from tabletop.model import Impact, Model, Scenario, Template
from tabletop.sample_tables import big_table

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "examples" / "rules"
TARGET_RATIO = 1.5


def _clear_targets(models: tuple[Model, ...] | list[Model], radius: float) -> list[Model]:
    """side1 models with no side0 model within ``radius``: targets an attack may be aimed at."""
    side0 = [m for m in models if m.side == "side0"]
    return [m for m in models if m.side == "side1" and all(math.dist(m.centre, f.centre) > radius for f in side0)]


def robotech_table(models: int = 300) -> Scenario:
    """The big table as Robotech: mecha with DF/GN/PI, six Blasts from side0 at side1 squads."""
    s = big_table(models)
    ms = [dataclasses.replace(m, stats={"DF": 2 + k % 4, "GN": k % 2, "PI": k % 3}, side=m.side or "neutral") for k, m in enumerate(s.models)]
    firers = [m for m in ms if m.side == "side0"]
    targets = _clear_targets(ms, 2.5 * 25.4 + 25)  # no friend of the firers under a Blast aimed at them
    shape = default_catalogue()["robotech_blast"].shape
    tpls = []
    for i in range(6):
        rolls = {"strike": 5} if i % 2 == 0 else {"strike": 1, "scatter_direction": 1 + i % 6, "scatter_distance": 4 + i, "scatter_strike": 3}
        weapon = {"md": 8, "abilities": ["blast"], "dodge": "all", "roll_with_impact": "all"}
        tpls.append(Template(f"blast{i}", shape, Impact(firers[i * 7].id, targets[i * 3 % len(targets)].id), "robotech_blast", weapon=weapon, rolls=rolls))
    return dataclasses.replace(s, models=tuple(ms), templates=tuple(tpls), ruleset="robotech", units="in")


def wwpd_table(models: int = 300) -> Scenario:
    """The big table as WWPD: six templates (3" and 5" blasts, a rect) from side0 at side1, batteries of 1-3."""
    s = big_table(models)
    firers = [m for m in s.models if m.side == "side0"]
    targets = _clear_targets(s.models, 4 * 25.4)
    cat = default_catalogue()
    shapes = [("small_blast", cat["small_blast"].shape), ("large_blast", cat["large_blast"].shape), ("blast_strip_1x6", cat["blast_strip_1x6"].shape)]
    tpls = []
    for i in range(6):
        name, shape = shapes[i % 3]
        tpls.append(Template(f"shot{i}", shape, Impact(firers[i * 5].id, targets[i * 3 % len(targets)].id), name, battery=1 + i % 3))
    return dataclasses.replace(s, templates=tuple(tpls), ruleset="wwpd", units="in")


#: Line of sight to the target is left out of the timing (both rulesets have the setting): on this table of
#: 60 buildings it would refuse most shots, and it is the same core call in both.
SETTINGS = {"check_line_of_sight": False}


def compare(s: Scenario, rules_path: Path, repeat: int) -> dict[str, float]:
    """Median adjudication time (ms) under the built-in and under the rules file, interleaved."""
    filed = dataclasses.replace(s, ruleset=rulesfile.ruleset_for(rules_path).name)
    for _ in range(2):
        a, b = adjudicate(s, settings=SETTINGS), adjudicate(filed, settings=SETTINGS)
    allowed = [r.resolution.allowed for r in a.results]
    assert allowed == [r.resolution.allowed for r in b.results] and all(allowed), "the benchmark's attacks must be allowed"
    assert [r.resolution.affected for r in a.results] == [r.resolution.affected for r in b.results]
    built_ms, file_ms = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        adjudicate(s, settings=SETTINGS)
        t1 = time.perf_counter()
        adjudicate(filed, settings=SETTINGS)
        t2 = time.perf_counter()
        built_ms.append((t1 - t0) * 1000)
        file_ms.append((t2 - t1) * 1000)
    b, f = statistics.median(built_ms), statistics.median(file_ms)
    under = sum(len(r.resolution.affected) for r in a.results)
    return {"builtin_ms": b, "rules_file_ms": f, "ratio": f / b, "models_under": under}


def run(repeat: int) -> dict[str, dict[str, float]]:
    return {
        "robotech": compare(robotech_table(), RULES / "robotech-blast.rules.toml", repeat),
        "wwpd": compare(wwpd_table(), RULES / "wwpd-battery.rules.toml", repeat),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.rulesfile", description=__doc__)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    return 0 if report(run(10 if args.quick else 30)) else 1


def report(figures: dict[str, dict[str, float]]) -> bool:
    """Print the figures beside the target; whether every ratio meets it."""
    print("Rules files: the 300-model table judged (adjudicate) under a rules file and under the built-in it restates")
    ok = True
    for name, f in figures.items():
        good = f["ratio"] <= TARGET_RATIO
        ok &= good
        print(
            f"  {name:9s} built-in {f['builtin_ms']:6.1f} ms   rules file {f['rules_file_ms']:6.1f} ms   ratio {f['ratio']:.2f}"
            f"   ({int(f['models_under'])} models under the 6 attacks)   target <= {TARGET_RATIO}  → {'PASS' if good else 'MISS'}"
        )
    return ok


if __name__ == "__main__":
    sys.exit(main())
