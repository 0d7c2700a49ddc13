"""List mutmut survivors with their diffs, re-run survivors against new tests, and sample unchecked mutants.

  python -m tests.mutants_tool list MUTANTS_DIR [PREFIX ...]          survivors (exit code 0) whose name starts with a PREFIX, with diffs
  python -m tests.mutants_tool check MUTANTS_DIR TEST_PATH NAME ...    run TEST_PATH (a file or node id inside MUTANTS_DIR) once per mutant
                                                               with that mutant switched on; print killed/survived per name

  python -m tests.mutants_tool screen MUTANTS_DIR TEST_PATH[,TEST_PATH...] NAME ...|@FILE|PREFIX*
                                                               the same, in ONE process (mutmut's trampoline reads the mutant
                                                               name at each call): seconds per mutant, not tens; functools
                                                               caches are cleared between mutants. A survivor here is worth a
                                                               `check` before it is called equivalent.

  python -m tests.mutants_tool apply MUTANTS_DIR OUT_DIR SCREEN_OUTPUT ...
                                                               copy mutmut's verdicts (the .meta files) to OUT_DIR with every
                                                               mutant a `screen`/`check` output calls killed marked killed, for
                                                               `python -m tests.mutation_score OUT_DIR`

MUTANTS_DIR is mutmut's mutants/ folder or a copy of it (cp -r mutants /tmp/mut-copy, then cp -r tests/. /tmp/mut-copy/tests/).
Copy your new test file into MUTANTS_DIR/tests/ before `check`.
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

PY = sys.executable
NAME = re.compile(r"^(?P<func>.+)__mutmut_(?P<n>\d+|orig)$")


def functions(path: Path) -> dict[str, str]:
    """Every function or method source in a mutants file, by its mangled name (methods: Class.name)."""
    text = path.read_text()
    lines = text.splitlines()
    tree = ast.parse(text)
    out: dict[str, str] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[child.name] = "\n".join(lines[child.lineno - 1 : child.end_lineno])
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")

    visit(tree, "")
    return out


def list_survivors(mutants_dir: Path, prefixes: list[str]) -> None:
    for meta in sorted(mutants_dir.rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        survivors = [k for k, v in codes.items() if v == 0 and (not prefixes or any(k.startswith(p) for p in prefixes))]
        if not survivors:
            continue
        funcs = functions(meta.with_suffix(""))
        print(f"######## {meta.relative_to(mutants_dir).with_suffix('')}: {len(survivors)} survivors")
        for name in survivors:
            local = name.rsplit(".", 1)[-1]
            m = NAME.match(local)
            if not m:
                print(name, "(no diff)")
                continue
            mutant = funcs.get(local)
            orig = funcs.get(f"{m['func']}__mutmut_orig")
            if mutant is None or orig is None:
                print(name, "(no diff)")
                continue
            a = orig.replace(f"{m['func']}__mutmut_orig", "F").splitlines()
            b = mutant.replace(local, "F").splitlines()
            diff = [ln for ln in difflib.unified_diff(a, b, lineterm="", n=0) if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
            print(f"== {name}")
            for ln in diff:
                print("   " + ln.strip()[:220])


def check(mutants_dir: Path, test: str, names: list[str]) -> None:
    for name in names:
        env = {**os.environ, "MUTANT_UNDER_TEST": name, "HYPOTHESIS_PROFILE": "mutation", "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        r = subprocess.run([PY, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", test], cwd=mutants_dir, env=env, capture_output=True, text=True)
        word = {0: "SURVIVED", 1: "killed  ", 3: "killed  "}.get(r.returncode, f"ERROR{r.returncode}")  # 4/5: bad test path
        print(f"{word} {name}", flush=True)


def survivors(mutants_dir: Path, prefix: str) -> list[str]:
    """Names mutmut judged survived (exit code 0) under ``prefix``."""
    out = []
    for meta in sorted(mutants_dir.rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        out += [k for k, v in codes.items() if v == 0 and k.startswith(prefix)]
    return out


def screen(mutants_dir: Path, tests: list[str], names: list[str]) -> None:
    """``check`` in this process: one ``pytest.main`` per mutant with MUTANT_UNDER_TEST switched."""
    import contextlib
    import functools
    import gc
    import io

    import pytest

    os.environ.update({"HYPOTHESIS_PROFILE": "mutation", "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})
    root = mutants_dir.resolve()
    os.chdir(root)
    sys.path.insert(0, str(root))
    # This tool was imported as tests.mutants_tool from wherever it was started: the mutants copy's
    # own tests (and tabletop, trampolines and all) must be the ones imported.
    for mod in [m for m in sys.modules if m.split(".")[0] in ("tests", "tabletop")]:
        del sys.modules[mod]
    args = ["-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-m", "not slow and not xvfb", *tests]
    for name in names:
        # A cache filled under the last mutant would answer for this one.
        for obj in gc.get_objects():
            if isinstance(obj, functools._lru_cache_wrapper):
                obj.cache_clear()
        os.environ["MUTANT_UNDER_TEST"] = name
        with contextlib.redirect_stdout(io.StringIO()):
            rc = pytest.main(args)
        word = {0: "SURVIVED", 1: "killed  "}.get(int(rc), f"ERROR{int(rc)}")
        print(f"{word} {name}", flush=True)
    os.environ["MUTANT_UNDER_TEST"] = ""


def apply(mutants_dir: Path, out_dir: Path, outputs: list[Path]) -> None:
    """OUT_DIR: mutmut's verdicts with the survivors that later tests killed (per screen/check outputs) marked killed."""
    killed = {line.split()[1] for f in outputs for line in f.read_text().splitlines() if line.startswith("killed")}
    flipped = 0
    for meta in sorted(mutants_dir.rglob("*.py.meta")):
        data = json.loads(meta.read_text())
        codes = data["exit_code_by_key"]
        for name in codes:
            if name in killed and codes[name] == 0:
                codes[name] = 1
                flipped += 1
        target = out_dir / meta.relative_to(mutants_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(data))
    print(f"{flipped} survivors marked killed ({len(killed)} names in the outputs)")


def unchecked(mutants_dir: Path, prefix: str) -> list[str]:
    out = []
    for meta in sorted(mutants_dir.rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        out += [k for k, v in codes.items() if v is None and k.startswith(prefix)]
    return out


def sample(mutants_dir: Path, out: Path, seed: int, n: int, prefix: str, tests: list[str], workers: int = 2) -> None:
    """Run a seeded random sample of ``n`` not-yet-checked mutants under ``prefix`` against ``tests``; append JSON lines to ``out``."""
    import random
    from concurrent.futures import ThreadPoolExecutor

    pool = unchecked(mutants_dir, prefix)
    chosen = sorted(random.Random(seed).sample(pool, min(n, len(pool))))
    done = set()
    if out.exists():
        done = {json.loads(line)["name"] for line in out.read_text().splitlines() if line.strip()}

    def one(name: str) -> dict:
        env = {**os.environ, "MUTANT_UNDER_TEST": name, "HYPOTHESIS_PROFILE": "mutation", "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        r = subprocess.run(["nice", "-n", "10", PY, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *tests], cwd=mutants_dir, env=env, capture_output=True, text=True)
        return {"name": name, "prefix": prefix, "pool": len(pool), "seed": seed, "tests": tests, "exit": r.returncode}

    with ThreadPoolExecutor(workers) as ex, out.open("a") as f:
        for res in ex.map(one, [c for c in chosen if c not in done]):
            f.write(json.dumps(res) + "\n")
            f.flush()


if __name__ == "__main__":
    cmd, mdir, *rest = sys.argv[1:]
    if cmd == "list":
        list_survivors(Path(mdir), rest)
    elif cmd == "sample":  # sample MUTANTS_DIR OUT SEED N PREFIX TEST...
        sample(Path(mdir), Path(rest[0]), int(rest[1]), int(rest[2]), rest[3], rest[4:])
    elif cmd == "screen":
        names: list[str] = []
        for arg in rest[1:]:
            if arg.startswith("@"):
                names += Path(arg[1:]).read_text().split()
            elif arg.endswith("*"):
                names += survivors(Path(mdir), arg[:-1])
            else:
                names.append(arg)
        screen(Path(mdir), rest[0].split(","), names)
    elif cmd == "apply":
        apply(Path(mdir), Path(rest[0]), [Path(r) for r in rest[1:]])
    elif cmd == "check":
        check(Path(mdir), rest[0], rest[1:])
    else:
        sys.exit(__doc__)

