"""Printed corner markers (issue 35): the table's corners from ``table_from_markers`` against the generator's truth, on
three kinds of photo made by ``benchmarks.photogen`` (its ``markers`` condition: the sheet's pieces in the table's
corners, 12 MP, lens k1 0 to -0.08 with the baseline's k2 and principal point's offset):

- ``whole``: the whole table in the frame, no terrain against its edges;
- ``terrain``: the whole table in the frame, 1-3 tall pieces against its edges (the condition as drawn);
- ``cut``: as ``terrain``, with one near corner left outside the frame (its marker unseen);
- ``short``: as ``terrain``, with one piece not pushed home (``short_of_corner``): 3-20 mm short of its corner along
  one of the table's edges, or in from one of them. The truth's corners are the table's; ``short`` in the truth says
  which piece and how.

Each kind takes the condition's own draw for a seed and sets only what makes the kind, so the same seed gives the same
table, light and phone in every kind. Photos are rendered once into the generator's cache (``markers-kinds/``).
Reported per kind: each corner's error (px) whose marker is seen, and each cut corner's, median and worst, how many are
over 1 px, and how many lie within two and three of their sigmas (a sigma that says how sure a corner is).

``--decompose`` refits each photo with parts of the truth put in, one at a time and together: the generator's lens held
exactly (``L``), each marker's black square's sides where the generator drew them (``C``), and the table's side points
found moved onto the true sides (``S``, the same points: what is seen of each side is unchanged, only where). Which part
brings the corner outside the frame within 1 px says where its error comes from.

``--sides`` reports, per table side in the camera's fit, how far its edge points lie from the generator's true side
(px, positive outward): their median (what the side's own offset takes) and what is left after a straight line along
the side is taken out (the bend neither its offset nor its turn takes, which the lens then bends to join and a corner
outside the frame moves by several times). A change to how sides are followed shows there on every side of every
photo, not only on the few corners outside the frame it happens to move past 1 px.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from tabletop.photo.markers import UNSURE_CORNER_PX

KINDS = ("whole", "terrain", "cut", "short")

SHORT_MM = (3.0, 20.0)
"""How far a piece not pushed home lies from its corner (mm): a sheet left where it was dropped, not slid into place."""


def short_of_corner(seed: int) -> dict:
    """Which piece of the ``short`` kind's photo for ``seed`` lies off its corner and how: the marker (0-3), the table
    side it is moved along (``along``: the far corner of that side) or in from (``in``), and by how much (mm). Drawn from
    the seed, so each photo has its own."""
    rng = np.random.default_rng([seed, 35])
    k = int(rng.integers(4))
    side_end = int((k + (1 if rng.random() < 0.5 else -1)) % 4)
    return {"marker": k, "side_end": side_end, "how": "along" if rng.random() < 0.6 else "in",
            "mm": float(rng.uniform(*SHORT_MM))}


def _moved_markers(laid, seed: int):  # noqa: ANN001, ANN202 - benchmarks.photogen.scene's _markers, wrapped
    """``laid`` (the scene's marker layout) with the ``short`` kind's piece moved off its corner."""
    short = short_of_corner(seed)

    def moved(params, rng):  # noqa: ANN001, ANN202
        found = list(laid(params, rng))
        w, d = params.table_mm
        corners = np.array([(0.0, 0.0), (w, 0.0), (w, d), (0.0, d)])
        k, j = short["marker"], short["side_end"]
        along = (corners[j] - corners[k]) / np.linalg.norm(corners[j] - corners[k])
        if short["how"] == "in":
            # In from the side running from corner k to corner j: towards the table's middle, across that side.
            across = np.array([-along[1], along[0]])
            if float((corners.mean(axis=0) - corners[k]) @ across) < 0:
                across = -across
            step = across * short["mm"]
        else:
            step = along * short["mm"]
        m = found[k]
        found[k] = dataclasses.replace(m, centre=(m.centre[0] + float(step[0]), m.centre[1] + float(step[1])))
        return tuple(found)

    return moved



def kind_params(kind: str, seed: int):  # noqa: ANN201 - benchmarks.photogen's PhotoParams
    """The ``markers`` condition's parameters for ``seed``, made into ``kind``."""
    from benchmarks.photogen.conditions import markers
    from benchmarks.photogen.generate import _rngs

    params = markers(_rngs("markers", seed)[0])
    cut = None
    if kind == "cut":
        cut = seed % 2  # a near corner (LL or LR): the one a phone held close loses
    camera = dataclasses.replace(params.camera, cut_corner=cut)
    layout = params.layout
    if kind == "whole":
        layout = dataclasses.replace(layout, edge_terrain=0)
    return dataclasses.replace(params, camera=camera, layout=layout)


def cached_kind_photo(kind: str, seed: int) -> tuple[Path, dict]:
    """The photo of ``kind`` for ``seed`` (its JPEG path and truth), rendered once."""
    from benchmarks.photogen import generate as gen
    from benchmarks.photogen.render import ID_MARKER, ID_MAT, cast, scene_objects, shade, shadow_map

    from benchmarks.photogen.conditions import markers

    if kind != "short" and kind_params(kind, seed) == markers(gen._rngs("markers", seed)[0]):
        return gen.cached_photo("markers", seed)  # the condition's own photo
    jpg = gen.cache_dir() / f"markers-kinds.r{gen.CONDITION_REVISION['markers']}" / f"{kind}-{seed}.jpg"
    meta = jpg.with_suffix(".json")
    if jpg.exists() and meta.exists():
        return jpg, json.loads(meta.read_text())
    # render_photo's own steps, with the kind's parameters.
    _, rng_layout, rng_tex, rng_render, rng_phone = gen._rngs("markers", seed)
    params = kind_params(kind, seed)
    from benchmarks.photogen import scene as scene_module

    laid = scene_module._markers
    if kind == "short":
        scene_module._markers = _moved_markers(laid, seed)
    try:
        scene, ctx = gen.build_scene(params, rng_layout, rng_tex)
    finally:
        scene_module._markers = laid
    camera = gen.place_camera(params, scene)
    jitter = rng_render.random((2, camera.height, camera.width), dtype=np.float32) - np.float32(0.5)
    dirs = camera.ray_grid(jitter)
    del jitter
    gb = cast(camera, scene, ctx, dirs, scene_objects(scene))
    sm = shadow_map(scene, 2048 if camera.width >= 3000 else 1024)
    radiance = shade(camera, scene, gb, dirs, sm, rng_render)
    del dirs
    meter = (gb.ident == ID_MAT) | (gb.ident >= ID_MARKER)
    _, jpeg = gen.develop(radiance, params.phone, rng_phone, gen.linear(scene.light.colour), meter)
    truth = gen.make_truth(params, seed, scene, camera, gb.t, gb.ident)
    truth["kind"] = kind
    if kind == "short":
        truth["short"] = short_of_corner(seed)
    gen.write_cached(jpg, jpeg)
    gen.write_cached(meta, json.dumps(truth, indent=1).encode())
    return jpg, truth


def true_lens(truth: dict):  # noqa: ANN201 - tabletop.photo.camera.LensFile
    """The generator's lens for a photo as a calibrated lens file would give it (an exact calibration)."""
    import ast

    from tabletop.photo.camera import LensFile

    cam = truth["camera"] if isinstance(truth["camera"], dict) else ast.literal_eval(truth["camera"])
    k = cam["K"]
    return LensFile(tuple(truth["image_size"]), float(k[0][0]), (float(k[0][2]), float(k[1][2])), float(cam["dist"][0]),
                    float(cam["dist"][1]), 0.0)


def measure(kind: str, seed: int, calibrated: bool = False, check_home: bool = True) -> dict:
    """One photo: each corner's error (px), whether its marker was seen, its sigma, and the fit's CPU time; with
    ``calibrated``, the fit given the generator's lens as the phone's calibration (``--camera``); without
    ``check_home``, every piece found taken as in its corner (as before the check)."""
    from tabletop.photo.imageio import load_image
    from tabletop.photo.markers import table_from_markers

    path, truth = cached_kind_photo(kind, seed)
    image = load_image(path).pixels
    c0 = time.process_time()
    fit = table_from_markers(image, tuple(truth["table_mm"]), lens=true_lens(truth) if calibrated else None, check_home=check_home)
    cpu = time.process_time() - c0
    out = _with_short({"kind": kind, "seed": seed, "cpu_s": cpu, "in_frame": truth["corners_in_frame"], "seen": [], "errors": None,
                       "sigmas": None}, fit, truth)
    if fit is None or fit.corners_px is None:
        return out
    err = np.linalg.norm(np.asarray(fit.corners_px) - np.asarray(truth["corners_px"]), axis=1)
    out.update(seen=list(fit.seen), errors=[float(e) for e in err], sigmas=[float(s) for s in fit.corner_sigma_px or ()],
               from_marker=list(fit.from_marker))
    return out


def _with_short(out: dict, fit, truth: dict) -> dict:  # noqa: ANN001
    """A row with the pieces the fit left out as not in their corners, and for the ``short`` kind which piece was."""
    out["not_home"] = [] if fit is None else list(fit.not_home)
    out["home_gaps"] = [] if fit is None else [list(g) for g in fit.home_gaps]
    if truth.get("short") is not None:
        out["short"] = truth["short"]
    return out


def _generator_camera(truth: dict):  # noqa: ANN202 - benchmarks.photogen.camera.Camera
    from benchmarks.photogen.camera import Camera

    c = truth["camera"]
    k = c["K"]
    return Camera(c["width"], c["height"], float(k[0][0]), float(k[0][2]), float(k[1][2]), np.array(c["R"]), np.array(c["centre_mm"]),
                  float(c["dist"][0]), float(c["dist"][1]))


def _true_sightings(truth: dict, seen: set[int]) -> list:
    """The markers ``seen`` as found exactly: each black square's sides as the generator projects them (its paper's height)."""
    from tabletop.photo.markers import Sighting

    cam = _generator_camera(truth)
    out = []
    for m in truth["markers"]:
        if m["id"] not in seen:
            continue
        mm = np.array(m["corners_mm"])
        t = np.linspace(0.05, 0.95, 60)[:, None]
        sides = [cam.project(np.concatenate([mm[s] + t * (mm[(s + 1) % 4] - mm[s]), np.full((len(t), 1), 0.12)], axis=1))
                 for s in range(4)]
        out.append(Sighting(m["id"], np.stack([side[0] for side in sides]), (sides[0], sides[1], sides[2], sides[3])))
    return out


def _onto_true_side(points_px: np.ndarray, j: int, truth: dict) -> np.ndarray:
    """Photo pixels moved onto the generator's image of the table's side ``j`` (corner j to j + 1), each to its nearest
    point in undistorted normalised coordinates."""
    cam = _generator_camera(truth)
    w, d = truth["table_mm"]
    ends = cam.to_camera(np.array([[0, 0, 0], [w, 0, 0], [w, d, 0], [0, d, 0]], float)[[j, (j + 1) % 4]])
    a, b = ends[0, :2] / ends[0, 2], ends[1, :2] / ends[1, 2]
    x, y = cam.undistort((points_px[:, 0] - cam.cx) / cam.focal_px, (points_px[:, 1] - cam.cy) / cam.focal_px)
    along = (b - a) / np.linalg.norm(b - a)
    q = a + ((np.stack([x, y], axis=1) - a) @ along)[:, None] * along
    xd, yd = cam.distort(q[:, 0], q[:, 1])
    return np.stack([cam.focal_px * xd + cam.cx, cam.focal_px * yd + cam.cy], axis=1)


BEND_RUN_POINTS = 15
"""Side points (about 3 px apart along the side) over which a side's departure from a straight line is smoothed."""


def side_departure(points: np.ndarray, j: int, truth: dict) -> dict:
    """How edge points (photo px) found along the table's side ``j`` depart from the generator's image of it: signed
    distances (px, positive away from the table's middle), their median, their scatter (RMS) about the straight line
    along the side that best fits them, and their bend: that scatter smoothed along the side (RMS and largest)."""
    import tabletop.photo.markers as mk

    true = _onto_true_side(points, j, truth)
    centre = np.mean(truth["corners_px"], axis=0)
    signed = np.sign(np.sum((points - true) * (true - centre), axis=1)) * np.linalg.norm(points - true, axis=1)
    along = mk._along(points)
    line = np.stack([np.ones_like(along), along], axis=1)
    left = signed - line @ np.linalg.lstsq(line, signed, rcond=None)[0]
    # Smoothed along the side (each point's median with its neighbours, over about 45 px): the points' own scatter
    # averages out in the fit, a bend over a stretch of the side does not.
    bend = mk._running_median(left[np.argsort(along)], BEND_RUN_POINTS)
    return {"points": len(points), "median": float(np.median(signed)), "scatter_rms": float(np.sqrt(np.mean(left ** 2))),
            "bend_rms": float(np.sqrt(np.nanmean(bend ** 2))), "bend_max": float(np.nanmax(np.abs(bend)))}


def side_errors(kind: str, seed: int) -> dict:
    """One photo: per table side in the fit with the sides, how its edge points depart from the generator's true side
    (``side_departure``), and the corner outside the frame's error and sigma (None when every corner is seen)."""
    import tabletop.photo.markers as mk
    from tabletop.photo.imageio import load_image

    path, truth = cached_kind_photo(kind, seed)
    image = load_image(path).pixels
    captured: list = []
    held = mk._fit_with_sides

    def keep_fit(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        out = held(*args, **kwargs)
        captured.append(out)
        return out

    mk._fit_with_sides = keep_fit
    try:
        fit = mk.table_from_markers(image, tuple(truth["table_mm"]))
    finally:
        mk._fit_with_sides = held
    out: dict = {"kind": kind, "seed": seed, "cut": None, "sides": []}
    if fit is None or fit.corners_px is None or not captured:
        return out
    err = np.linalg.norm(np.asarray(fit.corners_px) - np.asarray(truth["corners_px"]), axis=1)
    unseen = [i for i in range(4) if not fit.from_marker[i]]
    if unseen and fit.corner_sigma_px is not None:
        out["cut"] = [float(err[unseen[0]]), float(fit.corner_sigma_px[unseen[0]])]
    model = captured[-1][0]
    out["sides"] = [dict(side=j, **side_departure(points, j, truth)) for j, points in model.sides]  # photo pixels
    return out


def sides_summary(rows: list[dict]) -> str:
    """Over every side of every photo: its points' median distance from the true side, their scatter about a straight
    line and their bend (that scatter smoothed along the side), median and 90th percentile; how many sides bend by over
    0.1 and 0.2 px RMS."""
    sides = [s for r in rows for s in r["sides"]]
    if not sides:
        return "no sides"
    med = np.abs([s["median"] for s in sides])
    bend = np.array([s["bend_rms"] for s in sides])
    scatter = np.array([s["scatter_rms"] for s in sides])
    return (f"{len(sides)} sides of {len(rows)} photos: |median| median {np.median(med):.3f} px, 90 % {np.percentile(med, 90):.3f} px; "
            f"scatter RMS median {np.median(scatter):.3f} px, 90 % {np.percentile(scatter, 90):.3f} px; "
            f"bend RMS median {np.median(bend):.3f} px, 90 % {np.percentile(bend, 90):.3f} px, over 0.1 px {int(np.sum(bend > 0.1))}, "
            f"over 0.2 px {int(np.sum(bend > 0.2))}")


DECOMPOSITION = ("---", "L--", "-C-", "--S", "LC-", "L-S", "-CS", "LCS")
"""Which parts of the truth are put in: L the lens (held exactly), C the markers' squares, S the table's side points."""


def decompose(kind: str, seed: int) -> dict:
    """One photo refitted with each combination of ``DECOMPOSITION``: per combination the error (px) and sigma of the
    corner whose marker is not seen (else of the worst corner), and the seen corners' worst error."""
    import tabletop.photo.markers as mk
    from tabletop.photo.imageio import load_image

    path, truth = cached_kind_photo(kind, seed)
    image = load_image(path).pixels
    found = mk.find_markers(image)
    out: dict = {"kind": kind, "seed": seed}
    held = (mk.CALIBRATED_K_SIGMA, mk.CALIBRATED_CENTRE_SIGMA, mk._table_side)
    for parts in DECOMPOSITION:
        lens_exact, corners_exact, sides_exact = (c != "-" for c in parts)
        sightings = _true_sightings(truth, {s.id for s in found}) if corners_exact else found
        try:
            if lens_exact:
                mk.CALIBRATED_K_SIGMA, mk.CALIBRATED_CENTRE_SIGMA = 1e-7, 1e-8
            if sides_exact:
                def onto_truth(grey, colour, model, p, cov, j, follow=held[2]):  # noqa: ANN001, ANN202
                    und = follow(grey, colour, model, p, cov, j)
                    lens = model.camera(p).distortion
                    return und if len(und) == 0 else lens.remove(_onto_true_side(lens.apply(und), j, truth))

                mk._table_side = onto_truth
            fit = mk.table_from_markers(image, tuple(truth["table_mm"]), sightings=sightings,
                                        lens=true_lens(truth) if lens_exact else None)
        finally:
            mk.CALIBRATED_K_SIGMA, mk.CALIBRATED_CENTRE_SIGMA, mk._table_side = held
        if fit is None or fit.corners_px is None:
            out[parts] = None
            continue
        err = np.linalg.norm(np.asarray(fit.corners_px) - np.asarray(truth["corners_px"]), axis=1)
        unseen = [i for i in range(4) if not fit.from_marker[i]]
        i = unseen[0] if unseen else int(np.argmax(err))
        out[parts] = {"error": float(err[i]), "sigma": float(fit.corner_sigma_px[i]),  # type: ignore[index]
                      "seen_worst": float(max(err[k] for k in range(4) if k != i))}
    return out


def summary(rows: list[dict]) -> str:
    lines = []
    for kind in KINDS:
        rs = [r for r in rows if r["kind"] == kind]
        if not rs:
            continue
        seen, cut, failed = [], [], []
        for r in rs:
            if r["errors"] is None:
                failed.append(r["seed"])
                continue
            for k, e in enumerate(r["errors"]):
                (seen if r["from_marker"][k] else cut).append((e, r["seed"], r["sigmas"][k]))
        line = f"{kind:8s} {len(rs):3d} photos"
        for name, vals in (("seen", seen), ("unseen", cut)):
            if vals:
                worst = max(vals)
                over = sum(1 for v in vals if v[0] > 1.0)
                within = [sum(1 for v in vals if v[0] <= k * v[2]) for k in (2, 3)]
                line += (f" | {name} corners {len(vals)}: median {statistics.median(v[0] for v in vals):.2f} px, worst "
                         f"{worst[0]:.2f} px (seed {worst[1]}, sigma {worst[2]:.2f}), over 1 px: {over}, within 2 / 3 sigmas: "
                         f"{within[0]} / {within[1]}")
        if failed:
            line += f" | no corners: seeds {failed}"
        sure = [v for v in seen + cut if v[2] <= UNSURE_CORNER_PX]
        line += (f" | sure (sigma <= {UNSURE_CORNER_PX:g} px): {len(sure)}, of them over 1 px: {sum(1 for v in sure if v[0] > 1.0)}"
                 f" | a piece left out as not home: {sum(1 for r in rs if r.get('not_home'))} photos")
        judged = [(g[2] / g[3], g[2], r["seed"]) for r in rs for g in r.get("home_gaps", [])
                  if kind != "short" or g[0] != r["short"]["marker"]]
        if judged:
            z = max(judged)
            line += (f" | sides judged beyond a piece (the moved one's left out): {len(judged)}, gap over 1 px: "
                     f"{sum(1 for j in judged if j[1] > 1.0)}, largest gap / sigma {z[0]:.2f} ({z[1]:.2f} px, seed {z[2]})")
        if kind == "short":
            line += "\n" + short_summary(rs)
        lines.append(line)
    return "\n".join(lines)


def short_summary(rows: list[dict]) -> str:
    """The ``short`` kind: per photo the moved piece's corner (its error, sigma, whether left out), and over them how
    many were left out, how many are called sure (sigma within ``UNSURE_CORNER_PX``) and over 1 px, and beyond 3 sigmas."""
    moved = []
    for r in rows:
        k = r["short"]["marker"]
        if r["errors"] is None:
            moved.append((r["seed"], r["short"], None, None, k in r.get("not_home", [])))
        else:
            moved.append((r["seed"], r["short"], r["errors"][k], r["sigmas"][k], k in r.get("not_home", [])))
    placed = [m for m in moved if m[2] is not None]
    return (f"         moved pieces {len(moved)}: left out {sum(1 for m in moved if m[4])}, no corners {len(moved) - len(placed)}, "
            f"their corners over 1 px {sum(1 for m in placed if m[2] > 1.0)}, sure and over 1 px "
            f"{sum(1 for m in placed if m[2] > 1.0 and m[3] <= UNSURE_CORNER_PX)}, beyond 3 sigmas "
            f"{sum(1 for m in placed if m[2] > 3 * m[3])}; not caught: "
            + (", ".join(f"seed {m[0]} ({m[1]['how']} {m[1]['mm']:.1f} mm, {m[2] if m[2] is None else round(m[2], 2)} px)"
                         for m in moved if not m[4]) or "none"))


def decomposition_summary(rows: list[dict]) -> str:
    """Per combination of the truth put in: the corners' (outside the frame, else the worst) median error, how many over
    1 px, and the worst error over its sigma."""
    lines = ["parts  photos  median px  over 1 px  worst px  worst error/sigma"]
    for parts in DECOMPOSITION:
        vals = [r[parts] for r in rows if r.get(parts) is not None]
        if vals:
            lines.append(f"{parts}    {len(vals):4d}  {statistics.median(v['error'] for v in vals):9.2f}  {sum(v['error'] > 1 for v in vals):9d}"
                         f"  {max(v['error'] for v in vals):8.2f}  {max(v['error'] / v['sigma'] for v in vals):17.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.markers", description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=int, default=20, help="photos per kind (seeds 1..N)")
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--seeds", help="seeds to take instead of --first/--photos, e.g. 1-7,9,11-20")
    ap.add_argument("--json", type=Path, help="write every photo's row here")
    ap.add_argument("--render-only", action="store_true")
    ap.add_argument("--calibrated", action="store_true", help="give the fit the generator's lens as the phone's calibration")
    ap.add_argument("--trust-pieces", action="store_true",
                    help="take every piece found as in its corner (no check that the table's edges meet at its corner point)")
    ap.add_argument("--decompose", action="store_true",
                    help="refit with parts of the truth put in (L lens, C markers' squares, S side points) and print each corner's error")
    ap.add_argument("--sides", action="store_true",
                    help="per table side, its edge points' distance from the true side: median and bend (px)")
    args = ap.parse_args(argv)
    seeds = list(range(args.first, args.first + args.photos))
    if args.seeds:
        seeds = []
        for part in args.seeds.split(","):
            lo, _, hi = part.partition("-")
            seeds += list(range(int(lo), int(hi or lo) + 1))
    rows = []
    for kind in args.kinds.split(","):
        for seed in seeds:
            try:
                if args.render_only:
                    cached_kind_photo(kind, seed)
                    print(f"rendered {kind} {seed}", flush=True)
                    continue
                if args.sides:
                    r = side_errors(kind, seed)
                    rows.append(r)
                    cells = " ".join(f"{s['side']}:{s['median']:+.2f}/{s['bend_rms']:.2f}" for s in r["sides"])
                    cut = "" if r["cut"] is None else f"cut {r['cut'][0]:.2f} (sigma {r['cut'][1]:.2f}) "
                    print(f"{kind:8s} seed {seed:3d}: {cut}sides median/bend px {cells}", flush=True)
                    continue
                if args.decompose:
                    d = decompose(kind, seed)
                    rows.append(d)
                    cells = " ".join(f"{p}:" + ("-" if d[p] is None else f"{d[p]['error']:.2f}/{d[p]['sigma']:.2f}") for p in DECOMPOSITION)
                    print(f"{kind:8s} seed {seed:3d}: {cells}", flush=True)
                    continue
                r = measure(kind, seed, args.calibrated, not args.trust_pieces)
            except Exception as e:  # noqa: BLE001 - the generator cannot draw this one: said, not hidden
                print(f"{kind:8s} seed {seed:3d}: not rendered ({type(e).__name__}: {str(e).splitlines()[-1][:80]})", flush=True)
                continue
            rows.append(r)
            errs = "-" if r["errors"] is None else " ".join(f"{e:.2f}{'' if m else '*'}" for e, m in zip(r["errors"], r["from_marker"]))
            print(f"{kind:8s} seed {seed:3d}: {errs}  ({r['cpu_s']:.2f} s CPU)", flush=True)
    if rows and args.sides:
        print(sides_summary(rows))
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    elif rows and args.decompose:
        print(decomposition_summary(rows))
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    elif rows:
        print(summary(rows))
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
