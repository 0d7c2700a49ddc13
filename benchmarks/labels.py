"""Label layout speed: 300 labels among 300 bases at 1920×1080, against a naive all-pairs layout, same run.

Two scenes. The 300-model sample table (``big_table(300, 60, 6)``) fitted to the canvas, a name under
each model and a title over each template. A crowded one: 300 round bases (radius 10.6–16.9 px, the 300-model sample table's) in squads over the canvas,
each with a name label (40–90 × 16 px) below it, plus 12 template titles and badges with leaders. Target: the
layout of a drag frame (the last frame's layout given, one label moved, and the same with its model's
base moved along as when a model is dragged) ≤ 1 ms of CPU, against the full pass on the same frame in
the same run; a layout from nothing is timed against a naive baseline
that places the same labels with the same candidates in the same order, but tests each candidate
against every obstacle and label placed so far (no spatial hash), and against the general path (the
one that takes a last frame) run from nothing; its cost is split into the obstacles and grid (a layout of
no labels) and the labels (per candidate tried). A layout from nothing is also held to 1 ms and the
verdict printed, met or not.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from tabletop.label_layout import Layout, LabelRequest, base_boxes, candidate_rects, layout_labels

TARGET_MS = 1.0
SIZE = (1920, 1080)


def scene(n: int = 300, size: tuple[int, int] = SIZE, seed: int = 3) -> tuple[list[LabelRequest], np.ndarray, np.ndarray]:
    """``n`` bases in squads with a name each, a few titles and badges: (requests, base boxes, foci)."""
    rng = np.random.default_rng(seed)
    w, h = size
    squads = rng.uniform((80, 80), (w - 80, h - 80), (max(1, n // 10), 2))
    centres = squads[rng.integers(0, len(squads), n)] + rng.normal(0, 70, (n, 2))
    centres = np.clip(centres, (20, 20), (w - 20, h - 20))
    radii = rng.choice([10.6, 13.5, 16.9], n)
    requests = [
        LabelRequest(f"m{i}", (float(x), float(y)), (float(rng.integers(40, 90)), 16.0), priority=1, sides=("below",), clear=float(r) + 2, kind="name")
        for i, ((x, y), r) in enumerate(zip(centres.tolist(), radii.tolist()))
    ]
    foci = rng.uniform((100, 100), (w - 100, h - 100), (6, 2))
    for j, (x, y) in enumerate(foci.tolist()):
        requests.append(LabelRequest(f"t{j}", (x, y - 60), (140.0, 38.0), priority=3, sides=("above",), kind="title"))
        requests.append(LabelRequest(f"b{j}", (x, y), (90.0, 34.0), priority=2, sides=("right",), clear=8.0, kind="badge"))
    return requests, base_boxes(centres, radii, pad=2.0), foci


def sample_table(size: tuple[int, int] = SIZE) -> tuple[list[LabelRequest], np.ndarray, np.ndarray]:
    """The 300-model sample table (``big_table(300, 60, 6)``) fitted to the canvas: a name per model
    (8 px a character + 10 px), a title per template over its focus: (requests, base boxes, foci)."""
    from tabletop.sample_tables import big_table
    from tabletop.viewport import Viewport

    s = big_table(300, 60, 6)
    vp = Viewport.fit(s.table.width, s.table.depth, (0, 0, size[0], size[1]))
    centres = vp.to_screen_array([(m.x, m.y) for m in s.models])
    radii = np.array([m.base.bounding_radius for m in s.models]) * vp.scale
    requests = [
        LabelRequest(m.id, (float(x), float(y)), (8.0 * len(m.label) + 10, 16.0), priority=1, sides=("below",), clear=float(r) + 2, kind="name", text=m.label)
        for m, (x, y), r in zip(s.models, centres.tolist(), radii.tolist())
    ]
    foci = []
    for t in s.templates:
        at = getattr(t.placement, "x", None), getattr(t.placement, "y", None)
        if at[0] is None:
            continue
        fx, fy = vp.to_screen(at[0], at[1])
        foci.append((fx, fy))
        requests.append(LabelRequest(f"title:{t.id}", (fx, fy - 40), (8.0 * len(t.id) + 20, 38.0), priority=3, sides=("above",), kind="title", text=t.id))
    return requests, base_boxes(centres, radii, pad=2.0), np.array(foci).reshape(-1, 2)


def naive_layout(size: tuple[int, int], requests: list[LabelRequest], bases: np.ndarray, foci: np.ndarray, pad: float = 4.0) -> list[tuple[str, tuple[int, int, int, int]]]:
    """The same greedy placement with an all-pairs overlap test per candidate (the O(n²) baseline)."""
    taken = [tuple(b) for b in bases.tolist()] + [(x - pad, y - pad, x + pad, y + pad) for x, y in foci.tolist()]
    out = []
    w0, h0 = size
    for r in sorted(requests, key=lambda q: -q.priority):
        for (x, y, w, h), _ in candidate_rects(r):
            if x < 0 or y < 0 or x + w > w0 or y + h > h0:
                continue
            if all(not (a0 < x + w and x < a1 and b0 < y + h and y < b1) for a0, b0, a1, b1 in taken):
                taken.append((x, y, x + w, y + h))
                out.append((r.id, (x, y, w, h)))
                break
    return out


def median_ms(fn: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Median ms of ``fn`` by ``clock`` (wall by default; ``time.process_time`` for CPU)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times) * 1000


def measure(repeat: int = 200, which: str = "crowded") -> dict[str, float]:
    """Median CPU ms of a full layout, of a drag frame (the previous layout given, one label moved)
    by the incremental path and by the full pass, of that frame with the label's base moved too, and
    of the naive baseline; wall ms of the layout."""
    import tabletop.label_layout.search as search

    requests, bases, foci = scene() if which == "crowded" else sample_table()
    fast = median_ms(lambda: layout_labels(SIZE, requests, bases, foci), repeat)
    # CPU time of this process too: on a shared, loaded machine wall time includes waiting for a core.
    cpu = median_ms(lambda: layout_labels(SIZE, requests, bases, foci), repeat, time.process_time)
    first: Layout = layout_labels(SIZE, requests, bases, foci)
    # A drag frame: one label's anchor moved 3 px, everything else as the last frame.
    moved = list(requests)
    moved[0] = dataclasses.replace(requests[0], anchor=(requests[0].anchor[0] + 3, requests[0].anchor[1] + 2))
    stable = median_ms(lambda: layout_labels(SIZE, moved, bases, foci, previous=first), repeat, time.process_time)
    # The same with the model's base moved along (a model dragged in the app): an obstacle gone, one new.
    dragged = np.array(bases, dtype=float)
    dragged[0] += (3, 2, 3, 2)
    stable_base = median_ms(lambda: layout_labels(SIZE, moved, dragged, foci, previous=first), repeat, time.process_time)
    search._INCREMENTAL = False
    try:
        full_frame = median_ms(lambda: layout_labels(SIZE, moved, bases, foci, previous=first), repeat, time.process_time)
        same_frame = layout_labels(SIZE, moved, bases, foci, previous=first)
        same_base_frame = layout_labels(SIZE, moved, dragged, foci, previous=first)
    finally:
        search._INCREMENTAL = True
    incremental_same = layout_labels(SIZE, moved, bases, foci, previous=first) == same_frame
    incremental_same &= layout_labels(SIZE, moved, dragged, foci, previous=first) == same_base_frame
    naive = median_ms(lambda: naive_layout(SIZE, requests, bases, foci), max(5, repeat // 20), time.process_time)
    # The general path (the one that takes a last frame) laid out from nothing, for the ratio and the answer.
    search._FRESH = False
    try:
        general = median_ms(lambda: layout_labels(SIZE, requests, bases, foci), repeat, time.process_time)
        general_same = layout_labels(SIZE, requests, bases, foci) == first
    finally:
        search._FRESH = True
    # Where a layout from nothing goes: the same call without labels (obstacles snapped, the grid
    # filled, an empty Layout), and the rest: sorting, the candidates tried, the placements.
    setup = median_ms(lambda: layout_labels(SIZE, [], bases, foci), repeat, time.process_time)
    slots = {r.id: len(candidate_rects(r)) for r in requests}
    tried = sum(p.slot + 1 for p in first.placements) + sum(slots[i] for i in first.hidden)
    placed = {p.id: p.rect for p in first.placements}
    same = dict(naive_layout(SIZE, requests, bases, foci)) == placed
    return {
        "labels": float(len(requests)),
        "bases": float(len(bases)),
        "placed": float(len(first.placements)),
        "hidden": float(first.hidden_count),
        "leaders": float(sum(p.leader for p in first.placements)),
        "fast_ms": fast,
        "cpu_ms": cpu,
        "stable_ms": stable,
        "stable_base_ms": stable_base,
        "full_frame_ms": full_frame,
        "naive_ms": naive,
        "general_ms": general,
        "general_same": float(general_same),
        "setup_ms": setup,
        "tried": float(tried),
        "ratio": naive / cpu,
        "frame_ratio": full_frame / stable,
        "same_answer": float(same),
        "incremental_same": float(incremental_same),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the layout times (CPU), the ratios to the baselines and the target."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.labels", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args(argv)
    repeat = 40 if args.quick else 200
    for which, title in (("sample", "the 300-model sample table"), ("crowded", "a crowded table (300 bases in tight squads)")):
        fig = measure(repeat, which)
        print(
            f"Label layout, {title} at {SIZE[0]}×{SIZE[1]}: {int(fig['labels'])} labels among {int(fig['bases'])} bases "
            f"({int(fig['placed'])} placed, {int(fig['leaders'])} with leaders, {int(fig['hidden'])} hidden); CPU medians"
        )
        print(
            f"  drag frame (last frame's layout given, one label moved) {fig['stable_ms']:.2f} ms, with its base moved too "
            f"{fig['stable_base_ms']:.2f} ms   the first by the full pass {fig['full_frame_ms']:.2f} ms   ratio {fig['frame_ratio']:.1f}×   "
            f"same answers: {bool(fig['incremental_same'])}"
        )
        print(
            f"  full layout from nothing {fig['cpu_ms']:.2f} ms (wall {fig['fast_ms']:.2f} ms)   naive all-pairs baseline {fig['naive_ms']:.1f} ms   "
            f"ratio {fig['ratio']:.0f}×   same placements as baseline: {bool(fig['same_answer'])}"
        )
        labels_ms = max(0.0, fig["cpu_ms"] - fig["setup_ms"])
        print(
            f"    the general path (the one given a last frame) from nothing {fig['general_ms']:.2f} ms, "
            f"{fig['general_ms'] / fig['cpu_ms']:.2f}× the flat loop; same answer: {bool(fig['general_same'])}"
        )
        print(
            f"    of which obstacles and grid (a layout of no labels) {fig['setup_ms']:.2f} ms; the labels "
            f"{labels_ms:.2f} ms: {int(fig['tried'])} candidates tried, {1000 * labels_ms / max(1.0, fig['tried']):.2f} µs each "
            f"(sorting and placements included)"
        )
        ok = max(fig["stable_ms"], fig["stable_base_ms"]) <= TARGET_MS
        cold = fig["cpu_ms"] <= TARGET_MS
        print(
            f"  target: ≤ {TARGET_MS:g} ms per drag frame  → {'PASS' if ok else 'MISS'}"
            f"   (a layout from nothing, on opening a file or zooming, {fig['cpu_ms']:.2f} ms: {'PASS' if cold else 'MISS'})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
