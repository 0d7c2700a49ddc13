"""Photo analysis on the physically based generator's photos (``benchmarks.photogen``), per condition, never pooled.

``python -m benchmarks.photo_fresh --seeds 2000 2010 [--aided] [--unaided] [--conditions baseline,barrel]``: each
photo is rendered once (the generator's cache) and analysed once per code version (analyses cached beside it, keyed
by a hash of ``tabletop/photo``); printed per condition: recall, precision, median / 90th percentile / worst footprint
error, errors within 2 sigma, the share reported confident, confident ones within 3 sigma, **confidently wrong**
(confident, over 1 mm and over 3 sigma), sizes right, ovals' worst angle, corners' worst error, seconds per photo.
Recall counts every base in frame; a detection of a base hidden by its figure is not a false one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def code_version() -> str:
    h = hashlib.sha1()
    for p in sorted((ROOT / "tabletop" / "photo").glob("*.py")):
        h.update(p.read_bytes())
    return h.hexdigest()[:10]


def analyse(jpg: Path, truth: dict, aided: bool, version: str, cache: Path) -> dict:
    """The analysis of one photo as a JSON-able record (cached)."""
    out = cache / f"{jpg.parent.name}_{jpg.stem}_{'aided' if aided else 'unaided'}_{version}.json"
    if out.exists():
        return json.loads(out.read_text())
    from tabletop.photo.pipeline import analyse_photo
    from tabletop.photo.values import PhotoError

    corners = tuple(tuple(c) for c in truth["corners_px"]) if aided else None
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        r = analyse_photo(str(jpg), tuple(truth["table_mm"]), corners)  # type: ignore[arg-type]
        rec: dict = {"ok": True, "json": r.as_json(), "notes": list(r.notes)}
    except PhotoError as e:
        rec = {"ok": False, "error": str(e)}
    rec["seconds"] = time.perf_counter() - t0
    rec["cpu_seconds"] = time.process_time() - c0
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rec))
    return rec


def match(dets: list[dict], bases: list[dict]) -> list[tuple[int, int, float]]:
    """Each detection to the nearest unmatched true base within a quarter of its width."""
    pairs = []
    for i, d in enumerate(dets):
        for j, b in enumerate(bases):
            e = math.hypot(d["x_mm"] - b["x_mm"], d["y_mm"] - b["y_mm"])
            if e <= (b.get("diameter_mm") or b["width_mm"]) / 4:
                pairs.append((e, i, j))
    pairs.sort()
    used_d: set[int] = set()
    used_t: set[int] = set()
    out = []
    for e, i, j in pairs:
        if i not in used_d and j not in used_t:
            used_d.add(i)
            used_t.add(j)
            out.append((i, j, e))
    return out


def summarise(records: list[tuple[dict, dict]]) -> dict:
    n_truth = n_det = n_match = right = within2 = conf_n = conf_in3 = refused = 0
    errs: list[float] = []
    wrong: list[tuple] = []
    angles: list[float] = []
    corners: list[float] = []
    secs = [rec["seconds"] for _, rec in records]
    cpu = [rec.get("cpu_seconds", rec["seconds"]) for _, rec in records]
    for truth, rec in records:
        counted = {j for j, b in enumerate(truth["bases"]) if b["in_frame"]}
        n_truth += len(counted)
        if not rec["ok"]:
            refused += 1
            continue
        dets = rec["json"]["bases"]
        m = match(dets, truth["bases"])
        n_match += sum(1 for _, j, _ in m if j in counted)
        n_det += len(dets) - sum(1 for _, j, _ in m if j not in counted)
        corners.append(float(np.max(np.linalg.norm(np.subtract(rec["json"]["corners_px"], truth["corners_px"]), axis=1))))
        for i, j, e in m:
            d, b = dets[i], truth["bases"][j]
            errs.append(e)
            within2 += e <= 2 * d["sigma_mm"]
            if d.get("confident"):
                conf_n += 1
                conf_in3 += e <= 3 * d["sigma_mm"]
                if e > 1.0 and e > 3 * d["sigma_mm"]:
                    wrong.append((truth["seed"], b["id"], round(e, 2), d["sigma_mm"]))
            if b["shape"] == "round":
                right += d.get("diameter_mm") == b["diameter_mm"]
            elif d.get("shape") == "oval":
                right += d.get("length_mm") == b["length_mm"] and d.get("width_mm") == b["width_mm"]
                angles.append(abs((d["rotation_deg"] - b["rotation_deg"] + 90) % 180 - 90))
    return {
        "photos": len(records), "bases": n_truth, "refused": refused, "recall": n_match / max(1, n_truth),
        "precision": n_match / max(1, n_det), "median": statistics.median(errs) if errs else math.nan,
        "p90": float(np.percentile(errs, 90)) if errs else math.nan, "worst": max(errs) if errs else math.nan,
        "within2": within2 / max(1, len(errs)), "confident": conf_n / max(1, len(errs)), "conf_in3": conf_in3 / max(1, conf_n),
        "conf_wrong": len(wrong), "wrong": wrong, "size_right": right / max(1, len(errs)),
        "angle_worst": max(angles) if angles else None, "corners_worst": max(corners) if corners else None,
        "sec_median": statistics.median(secs), "sec_worst": max(secs), "cpu_median": statistics.median(cpu), "cpu_worst": max(cpu),
    }


def main(argv: list[str] | None = None) -> int:
    from benchmarks.photogen.conditions import CONDITIONS
    from benchmarks.photogen.generate import cache_dir, cached_photo

    ap = argparse.ArgumentParser(prog="python -m benchmarks.photo_fresh", description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", nargs=2, type=int, default=(2000, 2003), metavar=("FIRST", "END"))
    ap.add_argument("--conditions", default=",".join(c for c in CONDITIONS if c != "markers"))
    ap.add_argument("--unaided", action="store_true", help="find the corners (default: the true corners are given)")
    ap.add_argument("--cached-only", action="store_true", help="only photos already rendered")
    args = ap.parse_args(argv)
    version = code_version()
    cache = cache_dir() / "analysis"
    print(f"code {version}; seeds {args.seeds[0]}..{args.seeds[1] - 1}; corners {'found' if args.unaided else 'given'}")
    print("| condition | photos | bases | recall | precision | median | 90 % | worst | within 2σ | confident | confident within 3σ "
          "| confidently wrong | size right | oval angle worst | corners worst px | s / photo (CPU) |")
    print("|---|" + "---|" * 15)
    for cond in args.conditions.split(","):
        records = []
        for seed in range(*args.seeds):
            jpg = cache_dir() / cond / f"{seed}.jpg"
            if args.cached_only and not (jpg.exists() and jpg.with_suffix(".json").exists()):
                continue
            path, truth = cached_photo(cond, seed)
            records.append((truth, analyse(Path(path), truth, not args.unaided, version, cache)))
        if not records:
            continue
        r = summarise(records)
        angle = "" if r["angle_worst"] is None else f"{r['angle_worst']:.1f}°"
        corners = "" if r["corners_worst"] is None else f"{r['corners_worst']:.1f}"
        print(f"| {cond} | {r['photos']} | {r['bases']} | {r['recall']:.1%} | {r['precision']:.1%} | {r['median']:.2f} mm | "
              f"{r['p90']:.2f} mm | {r['worst']:.2f} mm | {r['within2']:.0%} | {r['confident']:.0%} | {r['conf_in3']:.1%} | "
              f"{r['conf_wrong']} | {r['size_right']:.0%} | {angle} | {corners} | {r['sec_median']:.1f} ({r['cpu_median']:.1f}), "
              f"worst {r['sec_worst']:.1f} ({r['cpu_worst']:.1f}) |", flush=True)
        for w in r["wrong"][:5]:
            print(f"    confidently wrong: seed {w[0]} base {w[1]}: {w[2]} mm, sigma {w[3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
