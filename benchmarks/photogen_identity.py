"""Is ``benchmarks/photogen`` in this checkout bit-identical to another checkout's? The same JPEG bytes and the same
truth JSON for every case, each rendered in its own process (``nice``-able, one at a time) from each tree.

    git worktree add --detach /tmp/old main
    nice -n 10 python -m benchmarks.photogen_identity --old /tmp/old            # every condition at 1200x900, four 12 MP
    nice -n 10 python -m benchmarks.photogen_identity --old /tmp/old --quick    # every condition at 480x360 only

A case is ``CONDITION:SEED[:WxH]`` (the condition's own frame size without ``WxH``) or ``kind/KIND:SEED`` for one of
``benchmarks.markers``' kinds of the markers condition (always its own 12 MP size). Nothing is read from or written to
the photo cache: each process gets an empty cache folder of its own. Prints each case's process CPU seconds, old and
new, and exits 1 if any case differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

DEFAULT_SIZE = "1200x900"
FULL_CASES = ("baseline:1000", "markers:1", "textured:25", "kind/short:3")
"""Full-size photos (12 MP, the 2.5 px/mm mat and the 2048 px shadow map a reduced size does not reach): two the
tests render, a hex-printed mat on a 6 x 4 ft table, and one of ``benchmarks.markers``' kinds (its own render steps)."""
MAT_CASES = ("textured:7", "textured:10")
"""The square and the hex print at a reduced size (seeds 1 and 2 of ``textured`` draw rocky mats)."""

_CHILD = r"""
import json, sys, time
from pathlib import Path
case, out = sys.argv[1], Path(sys.argv[2])
t0 = time.process_time()
import benchmarks.photogen as pg
if case.startswith("kind/"):
    from benchmarks.markers import cached_kind_photo
    kind, seed = case[5:].split(":")
    path, truth = cached_kind_photo(kind, int(seed))
    jpeg = path.read_bytes()
else:
    parts = case.split(":")
    size = tuple(int(v) for v in parts[2].split("x")) if len(parts) > 2 else None
    photo = pg.render_photo(parts[0], int(parts[1]), size)
    jpeg, truth = photo.jpeg, photo.truth
(out / "photo.jpg").write_bytes(jpeg)
(out / "truth.json").write_text(json.dumps(truth, indent=1))
(out / "run.json").write_text(json.dumps({"cpu_s": time.process_time() - t0, "module": pg.__file__}))
"""


def _conditions() -> list[str]:
    sys.path.insert(0, str(HERE))
    from benchmarks.photogen.conditions import CONDITIONS

    return list(CONDITIONS)


def default_cases(size: str = DEFAULT_SIZE) -> list[str]:
    """Every condition at ``size``, seeds 1 and 2; ``MAT_CASES`` at ``size``; ``jpeg_small`` at its own 1600x1200;
    ``FULL_CASES``."""
    cases = [f"{name}:{seed}:{size}" for name in _conditions() for seed in (1, 2)]
    return cases + [f"{case}:{size}" for case in MAT_CASES] + ["jpeg_small:3"] + list(FULL_CASES)


def render(tree: Path, case: str, work: Path) -> tuple[bytes, str, float]:
    """The case rendered by ``tree``'s generator in a fresh process: JPEG bytes, truth JSON text, CPU seconds."""
    out = Path(tempfile.mkdtemp(dir=work))
    env = {**os.environ, "PYTHONPATH": str(tree), "TABLETOP_PHOTOGEN_CACHE": str(out / "cache")}
    # Run from ``out``: the child's own folder must not put another checkout on its path.
    subprocess.run([sys.executable, "-c", _CHILD, case, str(out)], cwd=out, env=env, check=True)
    run = json.loads((out / "run.json").read_text())
    if not run["module"].startswith(str(tree)):
        raise RuntimeError(f"{case}: rendered by {run['module']}, not by {tree}")
    return (out / "photo.jpg").read_bytes(), (out / "truth.json").read_text(), float(run["cpu_s"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, required=True, help="the other checkout (e.g. a worktree of main)")
    ap.add_argument("--new", type=Path, default=HERE, help="this checkout by default")
    ap.add_argument("--quick", action="store_true", help="every condition at 480x360, seed 1, nothing full-size")
    ap.add_argument("cases", nargs="*", help="CONDITION:SEED[:WxH] or kind/KIND:SEED (default: see the module's doc)")
    args = ap.parse_args(argv)
    QUICK_CASES = [f"{name}:1:480x360" for name in _conditions()]
    cases = args.cases or (QUICK_CASES if args.quick else default_cases())
    differ = 0
    with tempfile.TemporaryDirectory(prefix="photogen-identity-") as tmp:
        work = Path(tmp)
        print(f"{'case':28} {'old s':>7} {'new s':>7}  result", flush=True)
        for case in cases:
            a_jpeg, a_truth, a_cpu = render(args.old.resolve(), case, work)
            b_jpeg, b_truth, b_cpu = render(args.new.resolve(), case, work)
            same = a_jpeg == b_jpeg and a_truth == b_truth
            differ += not same
            what = "identical" if same else ("JPEG differs" if a_jpeg != b_jpeg else "") + (" truth differs" if a_truth != b_truth else "")
            print(f"{case:28} {a_cpu:7.2f} {b_cpu:7.2f}  {what} ({len(b_jpeg)} bytes)", flush=True)
    print(f"{len(cases) - differ} of {len(cases)} cases identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
