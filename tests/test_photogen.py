"""The photo generator in benchmarks/photogen: its camera, its truth and its conditions agree with what it draws."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from benchmarks.photogen import CONDITIONS, render_photo
from benchmarks.photogen.camera import Camera, focal_px_for, look_at
from benchmarks.photogen.render import ID_BASE, ID_MAT, ID_MARKER
from benchmarks.photo_conditions import match, score_photo, summarise

SMALL = (640, 480)


@pytest.fixture(scope="module")
def baseline_photo():
    return render_photo("baseline", 11, size=SMALL, keep_ident=True)


def test_projection_is_opencvs():
    """The camera's distortion model is OpenCV's: cv2.projectPoints lands on the same pixels."""
    rot = look_at(np.array([600.0, -900.0, 1400.0]), np.array([610.0, 600.0, 0.0]), roll_deg=1.5)
    cam = Camera(4032, 3024, focal_px_for(4032, 3024, 26.0), 2020.0, 1500.0, rot, np.array([600.0, -900.0, 1400.0]), -0.08, 0.02)
    pts = np.array([[0, 0, 0], [1219.2, 0, 0], [1219.2, 1219.2, 0], [0, 1219.2, 0], [300, 400, 5]], float)
    ours = cam.project(pts)
    theirs, _ = cv2.projectPoints(pts, cam.rvec, cam.tvec, cam.K, cam.dist)
    assert np.abs(ours - theirs.reshape(-1, 2)).max() < 1e-6
    # A 26 mm-equivalent lens on a 4032 px wide 4:3 frame: 26 / 43.27 * 5040 px.
    assert cam.focal_px == pytest.approx(26 / math.hypot(36, 24) * 5040)


def test_rays_invert_projection():
    rot = look_at(np.array([0.0, -1000.0, 1000.0]), np.array([0.0, 0.0, 0.0]))
    cam = Camera(800, 600, 650.0, 401.0, 299.0, rot, np.array([0.0, -1000.0, 1000.0]), -0.1, 0.03)
    u, v = np.array([0.0, 799.0, 400.0, 13.5]), np.array([0.0, 599.0, 300.0, 580.25])
    d = cam.rays_at(u, v)
    t = -cam.centre[2] / d[2]
    hit = cam.centre[:, None] + t * d
    back = cam.project(hit.T)
    assert np.abs(back - np.stack([u, v], 1)).max() < 1e-6
    grid = cam.ray_grid()
    assert np.abs(grid[:, 580, 13] - cam.rays_at(np.array([13.0]), np.array([580.0]))[:, 0]).max() < 1e-5


def test_table_corners_are_where_the_truth_says(baseline_photo):
    """Just inside each true corner the ray hits the mat; just outside it does not."""
    truth, ident = baseline_photo.truth, baseline_photo.ident
    corners = np.array(truth["corners_px"])
    centre = corners.mean(axis=0)
    for c in corners:
        toward = (centre - c) / np.linalg.norm(centre - c)
        inside = np.round(c + 3 * toward).astype(int)
        outside = np.round(c - 3 * toward).astype(int)
        assert ident[inside[1], inside[0]] == ID_MAT
        assert ident[outside[1], outside[0]] != ID_MAT
    cam = truth["camera"]
    w, d = truth["table_mm"]
    pts = np.array([[0, 0, 0], [w, 0, 0], [w, d, 0], [0, d, 0]], float)
    px, _ = cv2.projectPoints(pts, np.array(cam["rvec"]), np.array(cam["tvec"]), np.array(cam["K"]), np.array(cam["dist"]))
    assert np.abs(px.reshape(-1, 2) - corners).max() < 0.01


def _far_edge_v(cam: Camera, x: float, y: float, z: float, r: float) -> float:
    """Image row of the point of a horizontal circle farthest up the image."""
    th = np.linspace(0, 2 * math.pi, 720, endpoint=False)
    pts = np.stack([x + r * np.cos(th), y + r * np.sin(th), np.full(th.size, z)], axis=1)
    return float(cam.project(pts)[:, 1].min())


def test_base_top_is_displaced_by_its_height():
    """The topmost point of each rendered base is its top rim's far point: height x cos(elevation) up the image from
    where a flat disc of the top's size would put it, and the truth's top centre is height x cot(elevation) beyond the footprint."""
    photo = render_photo("baseline", 3, size=(1600, 1200), keep_ident=True)
    truth, ident = photo.truth, photo.ident
    c = truth["camera"]
    cam = Camera(c["width"], c["height"], c["focal_px"], c["K"][0][2], c["K"][1][2], np.array(c["R"]), np.array(c["centre_mm"]),
                 c["dist"][0], c["dist"][1])
    elev = math.radians(c["elevation_deg"])
    errors, shifts = [], []
    for k, b in enumerate(truth["bases"]):
        if b["shape"] != "round" or b["visible_fraction"] < 0.99 or b["z_mm"] != 0:
            continue
        rows = np.nonzero((ident == ID_BASE + k).any(axis=1))[0]
        if rows.size < 8:
            continue
        r_top = b["diameter_mm"] / 2 - b["bevel_mm"]
        rendered = rows.min() - 0.5  # the edge lies between the first row that sees the base and the one above
        with_height = _far_edge_v(cam, b["x_mm"], b["y_mm"], b["height_mm"], r_top)
        flat = _far_edge_v(cam, b["x_mm"], b["y_mm"], 0.0, r_top)
        errors.append(rendered - with_height)
        shifts.append(flat - with_height)
        # The truth's top centre, taken back to the table plane through the camera, lies h cot(e) beyond the footprint.
        top = np.array(b["top_centre_px"])
        d = cam.rays_at(top[:1], top[1:])[:, 0]
        hit = cam.centre + (-cam.centre[2] / d[2]) * d
        beyond = math.hypot(hit[0] - b["x_mm"], hit[1] - b["y_mm"])
        assert beyond == pytest.approx(b["height_mm"] / math.tan(math.radians(cam.elevation_deg(np.array([b["x_mm"], b["y_mm"], 0.0]))))
                                       , rel=0.02)
    assert len(errors) >= 3
    assert np.median(np.abs(errors)) < 0.8
    assert np.median(shifts) > 1.5  # what a flat disc would get wrong, for scale


def test_reproducible_per_seed():
    a = render_photo("textured", 5, size=(320, 240))
    b = render_photo("textured", 5, size=(320, 240))
    c = render_photo("textured", 6, size=(320, 240))
    assert a.jpeg == b.jpeg and a.truth == b.truth
    assert a.jpeg != c.jpeg


@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_every_condition_renders(condition):
    photo = render_photo(condition, 2, size=(480, 360), keep_ident=True)
    t = photo.truth
    assert photo.image.shape == (360, 480, 3)
    assert t["condition"] == condition and len(t["bases"]) >= 10
    assert all(b["height_mm"] >= 3.0 and b["height_mm"] <= 5.0 for b in t["bases"])
    seen = set(np.unique(photo.ident[photo.ident >= ID_BASE]) - ID_BASE)
    assert len(seen) >= 0.6 * len(t["bases"])  # most bases are drawn (some hidden or cut by the frame)
    if condition == "ovals":
        assert any(b["shape"] == "oval" for b in t["bases"])
    if condition == "clusters":
        assert any(b["cluster"] is not None for b in t["bases"])
    if condition == "terrain":
        assert t["terrain"] and any(b["on_terrain"] for b in t["bases"])
    if condition == "markers":
        assert len(t["markers"]) == 4 and np.any(photo.ident >= ID_MARKER)
    if condition == "steep":
        assert 29 <= t["camera"]["elevation_deg"] <= 41
    if condition == "barrel":
        assert -0.1 <= t["camera"]["dist"][0] <= -0.05


def test_clusters_touch():
    t = render_photo("clusters", 4, size=(320, 240)).truth
    members = [b for b in t["bases"] if b["cluster"] is not None]
    assert len(members) >= 5
    touching = 0
    for i, a in enumerate(members):
        for b in members[i + 1:]:
            gap = math.hypot(a["x_mm"] - b["x_mm"], a["y_mm"] - b["y_mm"]) - (a["diameter_mm"] + b["diameter_mm"]) / 2
            assert gap >= -1e-6  # never overlapping
            touching += gap <= 0.3
    # Each unit grows one base at a time against one already placed: a tree of contacts.
    assert touching >= len(members) - len({b['cluster'] for b in members})


def test_harness_scoring():
    """Matching by nearest centre within half a width; a confident base 2 mm and 4 sigma off is confidently wrong."""
    truth = {"corners_px": [[0, 0]] * 4, "bases": [
        {"id": "b1", "x_mm": 100.0, "y_mm": 100.0, "shape": "round", "diameter_mm": 32.0, "in_frame": True, "visible_fraction": 1.0},
        {"id": "b2", "x_mm": 300.0, "y_mm": 100.0, "shape": "oval", "length_mm": 60.0, "width_mm": 35.0, "rotation_deg": 10.0,
         "in_frame": True, "visible_fraction": 1.0},
        {"id": "b3", "x_mm": 500.0, "y_mm": 100.0, "shape": "round", "diameter_mm": 25.0, "in_frame": True, "visible_fraction": 0.2}]}
    result = {"corners_px": [[1, 0]] * 4, "bases": [
        {"x_mm": 102.0, "y_mm": 100.0, "sigma_mm": 0.5, "confident": True},
        {"x_mm": 300.2, "y_mm": 100.0, "sigma_mm": 0.2, "shape": "oval", "rotation_deg": 175.0},
        {"x_mm": 900.0, "y_mm": 100.0, "sigma_mm": 0.2}]}
    pairs, spare, missed = match(result["bases"], truth["bases"])
    assert sorted((i, j) for i, j, _ in pairs) == [(0, 0), (1, 1)] and spare == {2} and missed == {2}
    rec = score_photo(result, truth, 1.0, None)
    s = summarise([{"condition": "c", "seed": 1, "given": rec}], ("given",))["c"]["given"]
    assert s["confidently_wrong"] == 1 and s["confident_phantoms"] == 1
    assert s["recall"] == 1.0 and s["precision"] == pytest.approx(2 / 3)
    assert s["orientation_median_deg"] == pytest.approx(15.0)
    assert s["corner_worst_px"] == pytest.approx(1.0)


def test_sampling_no_texels_gives_an_empty_array():
    """A surface no ray hits asks a texture for no texels (cv2.remap refuses an empty map): nothing is sampled."""
    from benchmarks.photogen.textures import sample

    grey = np.ones((8, 8), np.float32)
    colour = np.ones((8, 8, 3), np.float32)
    none = np.zeros(0, np.float32)
    assert sample(grey, none, none).shape == (0,)
    assert sample(colour, none, none).shape == (0, 3)
    assert sample(colour, np.array([1.5]), np.array([2.0])).shape == (1, 3)


def test_command_line_writes_a_photo_and_its_truth(tmp_path, capsys):
    """``python -m benchmarks.photogen CONDITION SEED -o ... --truth ...``: both files, and a line saying what was drawn."""
    import json

    from benchmarks.photogen.__main__ import main

    jpg, truth = tmp_path / "p.jpg", tmp_path / "p.json"
    assert main(["baseline", "3", "-o", str(jpg), "--truth", str(truth), "--size", "160x120"]) == 0
    assert cv2.imread(str(jpg)).shape == (120, 160, 3)
    t = json.loads(truth.read_text())
    assert t["image_size"] == [160, 120]
    assert f"{len(t['bases'])} bases" in capsys.readouterr().out
