"""Mutation score per core module from a mutmut 3 run (``make mutate`` prints it).

Usage: ``python -m tests.mutation_score [MUTANTS_DIR]`` (default ``mutants/``).

Reads ``mutants/**/*.py.meta`` (mutmut's own record of each mutant's exit code) and the
mutants listed as equivalent in docs/testing.md and docs/mutants/*.md (list items ``- `name`, `name`: why``), and prints, per
module: killed, survived, equivalent, no covering test, not yet checked, and the score
killed / (checked - equivalent). Timeouts count as killed (the test noticed: it hung).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KILLED = {1, 3, 36, -24, 24, 152, 255}  # a failing test, a pytest internal error, a timeout
SURVIVED = {0}
NO_TESTS = {5, 33}
EQUIVALENT_ITEM = re.compile(r"^\s*[-*]\s*`tabletop\.")
MUTANT_NAME = re.compile(r"`(tabletop\.[\w.]+__mutmut_\d+)`")


def equivalent_mutants(docs: list[Path] | None = None) -> set[str]:
    """Mutant names docs/testing.md and docs/mutants/*.md list as equivalent (each with its reason)."""
    if docs is None:
        docs = [ROOT / "docs" / "testing.md", *sorted((ROOT / "docs" / "mutants").glob("*.md"))]
    names: set[str] = set()
    lines = [line for doc in docs if doc.exists() for line in doc.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if EQUIVALENT_ITEM.match(line):  # a list item that starts with mutant names: all of them
            head = line.split(": ", 1)[0]
            names.update(MUTANT_NAME.findall(head))
    return names


def tally(mutants_dir: Path, equivalent: set[str]) -> dict[str, Counter[str]]:
    """Per module (dotted name), how many mutants ended each way."""
    out: dict[str, Counter[str]] = {}
    for meta in sorted(mutants_dir.rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        module = ".".join(meta.relative_to(mutants_dir).with_suffix("").with_suffix("").parts)
        c: Counter[str] = Counter()
        for name, code in codes.items():
            if code is None:
                c["not checked"] += 1
            elif name in equivalent and code in SURVIVED:
                c["equivalent"] += 1
            elif code in KILLED:
                c["killed"] += 1
            elif code in SURVIVED:
                c["survived"] += 1
            elif code in NO_TESTS:
                c["no tests"] += 1
            else:
                c["other"] += 1
        out[module] = c
    return out


def score(c: Counter[str]) -> float | None:
    """Killed share of the checked, non-equivalent mutants (None when none was checked)."""
    judged = c["killed"] + c["survived"] + c["no tests"] + c["other"]
    return c["killed"] / judged if judged else None


def main(argv: list[str]) -> int:
    mutants_dir = Path(argv[0]) if argv else ROOT / "mutants"
    table = tally(mutants_dir, equivalent_mutants())
    cols = ("killed", "survived", "equivalent", "no tests", "other", "not checked")
    print(f"{'module':34} " + " ".join(f"{c:>11}" for c in cols) + "      score")
    total: Counter[str] = Counter()
    for module, c in table.items():
        total += c
        s = score(c)
        print(f"{module:34} " + " ".join(f"{c[k]:>11}" for k in cols) + (f"  {s:8.1%}" if s is not None else "         -"))
    s = score(total)
    print(f"{'core':34} " + " ".join(f"{total[k]:>11}" for k in cols) + (f"  {s:8.1%}" if s is not None else "         -"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
