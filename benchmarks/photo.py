"""Photo import: accuracy and speed on synthetic 12-megapixel photos of a 48"x48" table (issue 17).

Each photo is drawn with known truth (tabletop.photo.synth), written as JPEG, and read
back through the whole command path (load, find the table unaided, detect). Printed:
every target beside its figure, and a naive baseline measured in the same run (plain
HoughCircles on the top-down image with the same corners, no rim fit).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from tabletop.photo import BASE_SIZES_MM
from tabletop.photo.pipeline import analyse_photo
from tabletop.photo.rectify import rectify
from tabletop.photo.synth import Score, score, synth_photo
from tabletop.photo.values import Detection, PhotoError, PhotoResult


def naive_hough(image: np.ndarray, corners: tuple, table_mm: tuple[float, float]) -> list[Detection]:
    """The obvious way: HoughCircles on a 2 px/mm top-down image, diameter snapped, no rim fit."""
    s = 2.0
    top = rectify(image, corners, table_mm, s).image
    gray = cv2.GaussianBlur(cv2.cvtColor(top, cv2.COLOR_BGR2GRAY), (0, 0), 1.5)
    found = cv2.HoughCircles(gray, cv2.HOUGH_GRADIENT, dp=1, minDist=10 * s, param1=60, param2=30,
                             minRadius=int(0.45 * min(BASE_SIZES_MM) * s), maxRadius=int(0.55 * max(BASE_SIZES_MM) * s))
    out = []
    sizes = np.array(BASE_SIZES_MM)
    for x, y, r in ([] if found is None else found[0]):
        d = float(sizes[np.argmin(np.abs(sizes - 2 * r / s))])
        out.append(Detection(float(x / s), float(table_mm[1] - y / s), d, float(2 * r / s), 1.0, 1.0))
    return out


def run(photos: int, seed0: int = 100) -> dict[str, float]:
    """Measure every figure over ``photos`` synthetic photos."""
    scores: list[Score] = []
    naive_scores: list[Score] = []
    times, cpu_times, naive_times, corner_errors, cal = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(photos):
            photo = synth_photo(seed0 + k)
            path = Path(tmp) / f"table{k}.jpg"
            cv2.imwrite(str(path), photo.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                result: PhotoResult | None = analyse_photo(path, photo.table_mm, base_height_mm=0.0)
            except PhotoError as e:  # the table not found: every base missed, the corners infinitely off
                result, refused = None, str(e)
            times.append(time.perf_counter() - t0)
            # CPU time of this process (all its threads): less disturbed than wall time on a shared machine.
            cpu_times.append(time.process_time() - c0)
            if result is None:
                print(f"  photo {k + 1} (seed {seed0 + k}): refused: {refused}", flush=True)
                corner_errors.append(math.inf)
                scores.append(score([], photo.bases))
                corners = photo.corners_px  # the baseline is given the true corners
            else:
                corner_errors.append(float(np.max(np.linalg.norm(np.subtract(result.corners_px, photo.corners_px), axis=1))))
                cal.append(result.calibration_rms_mm)
                scores.append(score(list(result.bases), photo.bases))
                corners = result.corners_px
            image = cv2.imread(str(path))
            t0 = time.perf_counter()
            naive = naive_hough(image, corners, photo.table_mm)
            naive_times.append(time.perf_counter() - t0)
            naive_scores.append(score(naive, photo.bases))
            s = scores[-1]
            errs = s.centre_errors_mm
            centre = f"centre median {statistics.median(errs):.3f} mm worst {max(errs):.3f} mm" if errs else "no base matched"
            print(f"  photo {k + 1} (seed {seed0 + k}): {s.matched}/{s.truth} found, {s.detected - s.matched} false, "
                  f"diameter right {s.diameter_right}, {centre}, corners {corner_errors[-1]:.2f} px, "
                  f"{times[-1]:.2f} s wall, {cpu_times[-1]:.2f} s CPU", flush=True)

    def pooled(ss: list[Score]) -> dict[str, float]:
        errs = [e for s in ss for e in s.centre_errors_mm]
        matched = sum(s.matched for s in ss)
        return {
            "recall": matched / sum(s.truth for s in ss),
            "precision": matched / max(1, sum(s.detected for s in ss)),
            "diameter_right": sum(s.diameter_right for s in ss) / max(1, matched),
            "centre_median_mm": statistics.median(errs) if errs else math.nan,
            "centre_worst_mm": max(errs) if errs else math.nan,
            "within_2_sigma": sum(s.within_2_sigma for s in ss) / max(1, matched),
        }

    ours, naive = pooled(scores), pooled(naive_scores)
    ours.update(corner_worst_px=max(corner_errors), seconds_median=statistics.median(times), seconds_worst=max(times),
                cpu_seconds_median=statistics.median(cpu_times), cpu_seconds_worst=max(cpu_times),
                calibration_rms_mm=statistics.median(cal) if cal else math.nan)
    naive.update(seconds_median=statistics.median(naive_times))
    return {**{f"ours_{k}": v for k, v in ours.items()}, **{f"naive_{k}": v for k, v in naive.items()}}


def main(argv: list[str] | None = None) -> int:
    """Print each figure against its target, and the naive baseline beside it."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.photo", description=__doc__)
    ap.add_argument("--photos", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="3 photos")
    ap.add_argument("--seed0", type=int, default=100,
                    help="first seed (default 100, the figures in docs/photo.md; 200 is the held-out second set)")
    args = ap.parse_args(argv)
    n = 3 if args.quick else args.photos
    print(f"Photo import: {n} synthetic 4000x3000 photos of a 48\"x48\" table, 40 bases each (bases, miniatures, terrain,"
          " perspective, uneven light, blur, noise, JPEG)")
    import cv2 as _cv2

    print(f"seeds {args.seed0}..{args.seed0 + n - 1}; OpenCV threads: {_cv2.getNumThreads()} on {os.cpu_count()} CPUs")
    f = run(n, args.seed0)

    def line(name: str, value: float, target: str, ok: bool, naive: str = "") -> None:
        print(f"  {name:<34} {value:>9}   target {target:<10} {'PASS' if ok else 'MISS'}   {naive}")

    print()
    line("recall", f"{f['ours_recall']:.1%}", ">= 97 %", f["ours_recall"] >= 0.97, f"naive {f['naive_recall']:.1%}")
    line("precision", f"{f['ours_precision']:.1%}", ">= 97 %", f["ours_precision"] >= 0.97, f"naive {f['naive_precision']:.1%}")
    line("diameter right", f"{f['ours_diameter_right']:.1%}", ">= 97 %", f["ours_diameter_right"] >= 0.97,
         f"naive {f['naive_diameter_right']:.1%}")
    ratio = f["naive_centre_median_mm"] / f["ours_centre_median_mm"]
    line("centre error, median", f"{f['ours_centre_median_mm']:.3f} mm", "<= 0.25 mm", f["ours_centre_median_mm"] <= 0.25,
         f"naive {f['naive_centre_median_mm']:.3f} mm ({ratio:.1f}x ours)")
    line("centre error, worst", f"{f['ours_centre_worst_mm']:.3f} mm", "<= 1.0 mm", f["ours_centre_worst_mm"] <= 1.0,
         f"naive {f['naive_centre_worst_mm']:.3f} mm")
    line("corners found unaided, worst", f"{f['ours_corner_worst_px']:.2f} px", "<= 4 px", f["ours_corner_worst_px"] <= 4.0)
    line("seconds per photo, median", f"{f['ours_seconds_median']:.2f} s", "< 3 s", f["ours_seconds_median"] < 3.0,
         f"naive (Hough only, after loading and corners) {f['naive_seconds_median']:.2f} s")
    line("seconds per photo, worst", f"{f['ours_seconds_worst']:.2f} s", "< 3 s", f["ours_seconds_worst"] < 3.0)
    print(f"  CPU seconds per photo (all threads): median {f['ours_cpu_seconds_median']:.2f} s, worst {f['ours_cpu_seconds_worst']:.2f} s "
          "(wall time on a shared machine includes waiting for the cores)")
    print(f"  errors within 2 sigma: {f['ours_within_2_sigma']:.0%} (86 % expected if sigma is honest); "
          f"calibration error median ±{f['ours_calibration_rms_mm']:.2f} mm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
