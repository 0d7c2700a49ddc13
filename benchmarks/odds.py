"""Odds sampling speed: the vectorised circle path against a per-sample shapely loop, same run.

50 round bases (25, 32 and 40 mm) spread over a 6'×4' table, a 5" circular
template scattered continuously around an aim point among them. Targets:
at least 2,000,000 samples per second, and at least 100× the shapely loop.

Then the Robotech volley with every die free: the ruleset's batch path at 10^5 and
10^6 samples (samples/s, peak RSS) against the per-sample path in the same run.
Targets: at least 100,000 samples/s, and memory flat in the sample count.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import shapely

from tabletop.odds import CHUNK, circle_hit_probability, scatter_foci

INCH = 25.4
TARGET_RATE = 2_000_000
TARGET_RATIO = 100.0


def bases(n: int = 50, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """``n`` round bases in squads around the middle of a 6'×4' table: centres (n, 2), radii (n,)."""
    rng = np.random.default_rng(seed)
    centres = np.column_stack([rng.normal(36 * INCH, 6 * INCH, n), rng.normal(24 * INCH, 4 * INCH, n)])
    radii = rng.choice([12.5, 16.0, 20.0], n)
    return centres, radii


def shapely_loop(centres: np.ndarray, radii: np.ndarray, foci: np.ndarray, radius: float) -> np.ndarray:
    """The obvious way: per sample, the template as a shapely polygon tested against every base."""
    polys = shapely.buffer(shapely.points(centres), radii, quad_segs=32)
    shapely.prepare(polys)
    hits = np.zeros(len(centres))
    for x, y in foci:
        template = shapely.Point(x, y).buffer(radius, quad_segs=32)
        hits += shapely.intersects(polys, template)
    return hits / len(foci)


def _rate(fn: object, samples: int, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return samples / statistics.median(times)


def measure(fast_samples: int = 2_000_000, loop_samples: int = 4_000, repeat: int = 5) -> dict[str, float]:
    """Samples per second of both paths on the same table, and their ratio."""
    centres, radii = bases()
    radius = 2.5 * INCH
    aim = (36 * INCH, 24 * INCH)
    foci = scatter_foci(aim, fast_samples, (0.0, 12 * INCH), seed=1)
    few = foci[:loop_samples]
    circle_hit_probability(centres, radii, foci[:CHUNK], radius)  # warm up
    fast = _rate(lambda: circle_hit_probability(centres, radii, foci, radius), fast_samples, repeat)
    slow = _rate(lambda: shapely_loop(centres, radii, few, radius), loop_samples, max(1, repeat // 2))
    # Same answers on the shared samples (polygons only bracket the circles: allow a sliver).
    agree = float(np.max(np.abs(circle_hit_probability(centres, radii, few, radius) - shapely_loop(centres, radii, few, radius))))
    return {"fast_per_s": fast, "shapely_per_s": slow, "ratio": fast / slow, "max_disagreement": agree, "bases": float(len(radii))}


VOLLEY = Path(__file__).resolve().parent.parent / "scenarios" / "robotech-volley.toml"
VOLLEY_TARGET_RATE = 100_000


def volley(samples: int, batch: bool = True) -> dict[str, float]:
    """``odds`` of the Robotech volley, every die free, in a fresh process: samples/s and peak RSS (MiB).

    ``batch`` uses the ruleset's vectorised ``sample_batch``; without it every distinct leaf of the
    roll tree runs ``resolve`` (the per-sample path). Peak RSS of a separate process (VmHWM, which
    starts afresh at exec; ``ru_maxrss`` would carry this parent's peak over on Linux), and the
    same figure just before sampling (imports and the scenario loaded).
    """
    code = (
        "import json, resource, time\n"
        "def peak():\n"
        "    try:\n"
        "        with open('/proc/self/status') as f:\n"
        "            return next(int(x.split()[1]) / 1024 for x in f if x.startswith('VmHWM:'))\n"
        "    except (OSError, StopIteration):\n"
        "        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "from tabletop import odds, scenario_io\n"
        f"s = scenario_io.load({str(VOLLEY)!r})\n"
        "before = peak()\n"
        "t0 = time.perf_counter()\n"
        f"odds.compute_odds(s, samples={samples}, keep_fixed_rolls=False, exact_limit=0, batch={batch})\n"
        "dt = time.perf_counter() - t0\n"
        "print(json.dumps({'seconds': dt, 'rss_mib': peak(), 'before_mib': before}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    fig = json.loads(out.stdout.strip().splitlines()[-1])
    return {"samples": float(samples), "per_s": samples / fig["seconds"], "rss_mib": fig["rss_mib"],
            "before_mib": fig["before_mib"], "seconds": fig["seconds"]}


def main(argv: list[str] | None = None) -> int:
    """Print both rates, the ratio and the targets; then the Robotech volley's rate and memory."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.odds", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer samples and repetitions")
    ap.add_argument(
        "--volley", type=int, nargs="*", default=None, metavar="N",
        help="sample counts for the Robotech volley (default 100000 1000000; --quick: 10000 100000)",
    )
    ap.add_argument(
        "--per-sample", type=int, default=None, metavar="N",
        help="samples for the volley's per-sample path, the baseline of the ratio (default 5000; --quick: 2000; 0: skip)",
    )
    args = ap.parse_args(argv)
    if args.per_sample is None:
        args.per_sample = 2_000 if args.quick else 5_000
    fig = measure(500_000, 1_000, 3) if args.quick else measure()
    ok_rate = fig["fast_per_s"] >= TARGET_RATE
    ok_ratio = fig["ratio"] >= TARGET_RATIO
    print(f"Odds sampling: 5\" circle against {int(fig['bases'])} round bases, continuous scatter ({os.cpu_count()} cores)")
    print(f"  vectorised {fig['fast_per_s'] / 1e6:.2f} M samples/s (chunks of {CHUNK})   "
          f"shapely loop {fig['shapely_per_s'] / 1e3:.1f} k samples/s   ratio {fig['ratio']:.0f}×")
    print(f"  largest difference in a base's chance between the two: {fig['max_disagreement']:.4f}")
    print(f"  target: ≥ {TARGET_RATE / 1e6:.0f} M samples/s → {'PASS' if ok_rate else 'MISS'};  "
          f"≥ {TARGET_RATIO:.0f}× the shapely loop → {'PASS' if ok_ratio else 'MISS'}")
    counts = args.volley if args.volley is not None else ([10_000, 100_000] if args.quick else [100_000, 1_000_000])
    if counts:
        print("Odds of a Robotech volley (scenarios/robotech-volley.toml, every die free), each run in a fresh process")
        rows = [volley(n) for n in counts]
        for row in rows:
            print(f"  batch path       {int(row['samples']):>9,} samples  {row['per_s']:9,.0f} samples/s  {row['seconds']:7.2f} s  peak RSS {row['rss_mib']:4.0f} MiB ({row['before_mib']:.0f} before sampling)")
        slow = volley(args.per_sample, batch=False) if args.per_sample > 0 else None
        if slow is not None:
            print(f"  per-sample path  {int(slow['samples']):>9,} samples  {slow['per_s']:9,.0f} samples/s  {slow['seconds']:7.2f} s  peak RSS {slow['rss_mib']:4.0f} MiB ({slow['before_mib']:.0f} before sampling)")
            print("                   (the per-sample path runs resolve for every distinct leaf of the roll tree: nearly every sample)")
            print(f"  batch / per-sample: {rows[-1]['per_s'] / slow['per_s']:,.0f}×")
        flat = rows[-1]["rss_mib"] <= 1.5 * rows[0]["rss_mib"] + 50
        fast = min(r["per_s"] for r in rows) >= VOLLEY_TARGET_RATE
        print(f"  target: memory flat in the sample count → {'PASS' if flat else 'MISS'};  "
              f"≥ {VOLLEY_TARGET_RATE:,} samples/s → {'PASS' if fast else 'MISS'}")
    return 0 if math.isfinite(fig["ratio"]) else 1


if __name__ == "__main__":
    sys.exit(main())
