"""The label layout: worked placements, the overlay dock, the layout JSON checker, and hypothesis
properties on random crowded tables at three canvas sizes (no overlaps, nothing on a base or a focus,
inside the canvas, leader-less labels near their anchors, lowest priorities dropped first, stable
from frame to frame)."""

from __future__ import annotations

import dataclasses
import json
import math
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tabletop.label_layout import (
    AWAY,
    LEADER_RINGS,
    NEAR_GAP,
    SIDES,
    BaseMark,
    LabelRequest,
    Layout,
    Overlay,
    base_boxes,
    candidate_rects,
    check_layout,
    dock_overlays,
    layout_json,
    layout_labels,
    rect_box_gap,
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CANVASES = [(800, 500), (1280, 800), (1600, 1000)]
RESERVED = (300, 220)  # bottom-right corner kept empty in random scenes: somewhere "far away" to move a label


def meets(rect: tuple[float, ...], box: tuple[float, ...]) -> bool:
    """Rect (x, y, w, h) and box (x0, y0, x1, y1) share interior."""
    x, y, w, h = rect
    return x < box[2] and box[0] < x + w and y < box[3] and box[1] < y + h


def as_box(rect: tuple[float, ...]) -> tuple[float, ...]:
    return (rect[0], rect[1], rect[0] + rect[2], rect[1] + rect[3])


@dataclasses.dataclass
class Scene:
    size: tuple[int, int]
    requests: list[LabelRequest]
    bases: list[BaseMark]
    foci: list[tuple[float, float]]
    regions: list[tuple[int, int, int, int]]

    @property
    def boxes(self) -> list[tuple[float, float, float, float]]:
        return [b.box for b in self.bases]

    def run(self, previous: Layout | None = None) -> Layout:
        return layout_labels(self.size, self.requests, [b.box for b in self.bases], self.foci, self.regions, previous=previous)

    def fixed(self) -> list[tuple[float, ...]]:
        """Every fixed obstacle box: bases, foci (4 px pad), regions."""
        return self.boxes + [(x - 4, y - 4, x + 4, y + 4) for x, y in self.foci] + [as_box(r) for r in self.regions]


def random_scene(seed: int, size: tuple[int, int], n_bases: int, n_free: int, with_region: bool) -> Scene:
    """A crowded table: bases in squads, a name for each, free labels (titles, badges, tooltips), foci."""
    rng = random.Random(seed)
    w, h = size
    rw, rh = RESERVED

    def spot(margin: float) -> tuple[float, float]:
        while True:
            x, y = rng.uniform(margin, w - margin), rng.uniform(margin, h - margin)
            if not (x > w - rw - margin and y > h - rh - margin):
                return x, y

    squads = [spot(40) for _ in range(max(1, n_bases // 8))]
    bases: list[BaseMark] = []
    requests: list[LabelRequest] = []
    for i in range(n_bases):
        sx, sy = rng.choice(squads)
        x = min(max(sx + rng.gauss(0, 50), 20), w - 20)
        y = min(max(sy + rng.gauss(0, 50), 20), h - 20)
        if x > w - rw - 30 and y > h - rh - 30:
            continue
        r = rng.choice([6.0, 10.6, 13.5, 16.9, 25.0])
        bases.append(BaseMark(f"m{i}", (x, y), r))
        requests.append(
            LabelRequest(
                f"name{i}", (x, y), (rng.randint(20, 90), rng.choice([14, 16, 18])), priority=rng.randint(0, 3),
                sides=("below",), clear=r, leader=rng.random() < 0.8, kind="name", text=f"Model {i}",
            )
        )
    foci = [spot(30) for _ in range(rng.randint(0, 4))]
    for j in range(n_free):
        x, y = spot(10)
        requests.append(
            LabelRequest(
                f"free{j}", (x, y), (rng.uniform(30, 140), rng.uniform(12, 44)), priority=rng.randint(0, 6),
                sides=tuple(rng.sample(SIDES, rng.randint(0, 2))), clear=rng.choice([0.0, 5.0, 12.0]),
                leader=rng.random() < 0.7, kind="badge", text=f"badge {j}",
            )
        )
    regions = [(8, 8, min(260, w // 3), 60)] if with_region else []
    return Scene(size, requests, bases, foci, regions)


scenes = st.builds(
    random_scene,
    seed=st.integers(0, 2**32),
    size=st.sampled_from(CANVASES),
    n_bases=st.integers(0, 160),
    n_free=st.integers(0, 40),
    with_region=st.booleans(),
)


def assert_guarantees(scene: Scene, layout: Layout) -> None:
    """Every promise of the layout, checked from scratch against the scene."""
    reqs = {r.id: r for r in scene.requests}
    placed = layout.placements
    w, h = scene.size
    seen = [p.id for p in placed] + list(layout.hidden) + list(layout.offscreen)
    assert sorted(seen) == sorted(reqs), "every request is placed, hidden or off screen, once"
    fixed = scene.fixed()
    for p in placed:
        x, y, pw, ph = p.rect
        r = reqs[p.id]
        assert (pw, ph) == r.wh
        assert 0 <= x and 0 <= y and x + pw <= w and y + ph <= h, f"{p.id} outside the canvas"
        assert not any(meets(p.rect, b) for b in fixed), f"{p.id} on a base, focus or region"
        # How far the label lies from the round region it belongs to (a base, a template's reach).
        off_circle = rect_box_gap(p.rect, (*r.anchor, *r.anchor)) - max(r.clear, 0.0)
        if p.slot >= 12:
            assert p.leader and r.leader, f"{p.id} on a leader ring without a leader"
        elif p.leader:
            assert off_circle > AWAY, f"{p.id} next to its anchor with a leader"
        else:
            clear = (r.anchor[0] - r.clear, r.anchor[1] - r.clear, r.anchor[0] + r.clear, r.anchor[1] + r.clear)
            assert rect_box_gap(p.rect, clear) <= NEAR_GAP, f"{p.id} without a leader is far from its anchor"
            assert off_circle <= AWAY, f"{p.id} without a leader lies {off_circle:.1f} px from its anchor's circle"
    boxes = [as_box(p.rect) for p in placed]
    for i in range(len(placed)):
        for j in range(i + 1, len(placed)):
            assert not meets(placed[i].rect, boxes[j]), f"{placed[i].id} overlaps {placed[j].id}"
    # Lowest priorities dropped first: each place a dropped label could take is off the canvas, on a
    # fixed obstacle, or (at least partly) taken by a label at least as important.
    for d in layout.hidden:
        r = reqs[d]
        for rect, _ in candidate_rects(r):
            x, y, cw, ch = rect
            if x < 0 or y < 0 or x + cw > w or y + ch > h or any(meets(rect, b) for b in fixed):
                continue
            blockers = [p for p in placed if meets(rect, as_box(p.rect))]
            assert any(p.priority >= r.priority for p in blockers), f"{d} dropped while {rect} was free or held only by lower priorities"
    for p in placed:
        ax, ay = p.anchor
        assert 0 <= ax <= w and 0 <= ay <= h
    for i in layout.offscreen:
        ax, ay = reqs[i].anchor
        assert not (0 <= ax <= w and 0 <= ay <= h)


@SETTINGS
@given(scenes)
def test_random_crowded_tables_keep_every_promise(scene: Scene) -> None:
    layout = scene.run()
    assert_guarantees(scene, layout)
    doc = layout_json(scene.size, layout.placements, scene.bases, layout.hidden)
    assert check_layout(json.loads(json.dumps(doc))) == []
    assert doc["hidden_labels"] == layout.hidden_count
    assert scene.run() == layout, "deterministic"


@SETTINGS
@given(scenes, st.integers(0, 10_000), st.booleans())
def test_moving_one_label_far_away_leaves_the_others_exactly(scene: Scene, pick: int, offscreen: bool) -> None:
    """Off the canvas or into the empty reserved corner: every other label keeps its rect exactly."""
    first = scene.run()
    assert scene.run(previous=first) == first, "the same frame again changes nothing"
    if not scene.requests:
        return
    k = pick % len(scene.requests)
    old = scene.requests[k]
    w, h = scene.size
    to = (w + 500.0, h / 2) if offscreen else (w - RESERVED[0] / 2, h - RESERVED[1] / 2)
    moved_bases = [dataclasses.replace(b, centre=to) if b.centre == old.anchor and old.kind == "name" else b for b in scene.bases]
    moved = dataclasses.replace(scene, requests=[*scene.requests[:k], dataclasses.replace(old, anchor=to), *scene.requests[k + 1 :]], bases=moved_bases)
    second = moved.run(previous=first)
    assert_guarantees(moved, second)
    before = {p.id: p.rect for p in first.placements}
    after = {p.id: p.rect for p in second.placements}
    changed = [i for i, rect in before.items() if i != old.id and after.get(i) != rect]
    # A label whose rect the moved base now covers must move (its neighbourhood changed).
    new_base = [b.box for b in moved_bases if b.centre == to]
    displaced = {p.id for p in first.placements if p.id != old.id and any(meets(p.rect, b) for b in new_base)}
    if not first.hidden and not displaced:
        assert changed == [], f"{changed} moved though only {old.id} did"
    else:
        # Room freed where the label was lets a label hidden last frame come back, and a displaced
        # label needs a new place: they may push out (and so move) only less important labels.
        prio = {r.id: r.priority for r in scene.requests}
        movers = [i for i in first.hidden if second.get(i) is not None] + sorted(displaced)
        top = max((prio[i] for i in movers), default=-1e9)
        assert all(i in displaced or prio[i] < top for i in changed), f"{changed} moved though only {old.id} did"


@SETTINGS
@given(scenes, st.integers(0, 2**32))
def test_with_a_previous_frame_of_other_priorities_lowest_are_still_dropped_first(scene: Scene, seed: int) -> None:
    """Kept labels may sit where a more important one now needs to be: it evicts them."""
    rng = random.Random(seed)
    shuffled = dataclasses.replace(scene, requests=[dataclasses.replace(r, priority=rng.randint(0, 6)) for r in scene.requests])
    previous = shuffled.run()
    assert_guarantees(scene, scene.run(previous=previous))


@SETTINGS
@given(scenes, st.floats(-30, 30), st.floats(-30, 30))
# name0's old side was held by the kept name6 when name0 was placed, and name3 (its spot now under
# name0's base) evicted name6 only afterwards: the side ended free with name0 on a leader elsewhere.
@example(random_scene(12, (800, 500), 9, 0, False), 15.0, 22.0)
# name0 itself evicted the label on its old side, for its slot 0 which that label also blocked.
@example(random_scene(2390852193, (800, 500), 44, 0, False), 23.0, 9.0)
def test_dragging_keeps_every_promise_and_the_dragged_label_keeps_its_side(scene: Scene, dx: float, dy: float) -> None:
    """A dragged label keeps its side (its last slot at the moved anchor) when that place is free in
    the result, even where a label kept on it was evicted by another one, or by the dragged label."""
    first = scene.run()
    names = [r for r in scene.requests if r.kind == "name" and first.get(r.id) is not None]
    if not names:
        return
    r = names[0]
    ax, ay = r.anchor[0] + dx, r.anchor[1] + dy
    moved_bases = [dataclasses.replace(b, centre=(ax, ay)) if b.centre == r.anchor else b for b in scene.bases]
    reqs = [dataclasses.replace(q, anchor=(ax, ay)) if q.id == r.id else q for q in scene.requests]
    moved = dataclasses.replace(scene, requests=reqs, bases=moved_bases)
    second = moved.run(previous=first)
    assert_guarantees(moved, second)
    # Its previous side, at the new anchor, if that place is free: it keeps it rather than jumping.
    was = first.get(r.id)
    assert was is not None
    again = candidate_rects(dataclasses.replace(r, anchor=(ax, ay)))[was.slot][0]
    w, h = moved.size
    others = [as_box(p.rect) for p in second.placements if p.id != r.id]
    free = 0 <= again[0] and 0 <= again[1] and again[0] + again[2] <= w and again[1] + again[3] <= h
    if r.id in second.offscreen:
        return  # dragged off the canvas: not laid out at all (the anchor is not on screen)
    if free and not any(meets(again, b) for b in moved.fixed() + others):
        assert second.get(r.id).rect == again  # type: ignore[union-attr]


def assert_grid_holds_exactly_its_layout(layout: Layout) -> None:
    """The grid a layout hands to the next frame holds its fixed obstacles and its placements, nothing else."""
    from tabletop.label_layout.geometry import _Grid

    assert layout._canvas is not None and layout._grid is not None
    want = _Grid(layout._canvas, layout._cell)
    want.fill(layout._fixed_arr.tolist())
    for p in layout.placements:
        x, y, w, h = p.rect
        want.add(x, y, x + w, y + h, p.id)
    assert [set(c) for c in layout._grid] == [set(c) for c in want.cells]


@SETTINGS
@given(scenes, st.integers(0, 2**32), st.sampled_from([(0, 0), (37, -20), (-60, -45)]))
def test_the_incremental_path_gives_exactly_the_full_layout(scene: Scene, seed: int, origin: tuple[int, int]) -> None:
    """Given its own last frame, the layout starts from that frame's grid and reuses what did not
    change; over a drag of several frames (labels and bases moved near and far, off the canvas too,
    labels gone, foci moved, regions appearing and gone, priorities changed; canvases at the origin
    or not) it answers exactly as the full pass, and its grid holds exactly its obstacles and labels."""
    import tabletop.label_layout.search as search

    canvas = (*origin, *scene.size)

    def run(s: Scene, previous: Layout | None = None) -> Layout:
        return layout_labels(canvas, s.requests, [b.box for b in s.bases], s.foci, s.regions, previous=previous)

    rng = random.Random(seed)
    fast = slow = run(scene)
    assert_grid_holds_exactly_its_layout(fast)
    for _ in range(6):
        reqs = list(scene.requests)
        bases = list(scene.bases)
        for _ in range(rng.choice([1, 1, 2, 6])):
            if not reqs:
                break
            k = rng.randrange(len(reqs))
            r = reqs[k]
            far = rng.random() < 0.2
            dx, dy = (rng.uniform(-400, 400), rng.uniform(-300, 300)) if far else (rng.uniform(-25, 25), rng.uniform(-25, 25))
            reqs[k] = dataclasses.replace(r, anchor=(r.anchor[0] + dx, r.anchor[1] + dy))
            bases = [dataclasses.replace(b, centre=reqs[k].anchor) if b.centre == r.anchor and r.kind == "name" else b for b in bases]
        if reqs and rng.random() < 0.2:
            k = rng.randrange(len(reqs))
            reqs[k] = dataclasses.replace(reqs[k], priority=reqs[k].priority + rng.choice([-2, 3]))
        if reqs and rng.random() < 0.15:  # a label (and a model's base) gone
            r = reqs.pop(rng.randrange(len(reqs)))
            bases = [b for b in bases if not (r.kind == "name" and b.centre == r.anchor)]
        foci = [(x + rng.uniform(-15, 15), y) for x, y in scene.foci] if rng.random() < 0.4 else scene.foci
        regions = scene.regions
        if rng.random() < 0.2:
            regions = [*regions, (rng.randrange(scene.size[0] - 80), rng.randrange(scene.size[1] - 50), 80, 50)]
        elif regions and rng.random() < 0.2:
            regions = regions[1:]
        scene = dataclasses.replace(scene, requests=reqs, bases=bases, foci=foci, regions=regions)
        fast = run(scene, previous=fast)
        search._INCREMENTAL = False
        try:
            slow = run(scene, previous=slow)
        finally:
            search._INCREMENTAL = True
        assert (fast.placements, fast.hidden, fast.offscreen) == (slow.placements, slow.hidden, slow.offscreen)
        assert_grid_holds_exactly_its_layout(fast)


def greedy_reference(canvas: tuple[int, int, int, int], requests: list[LabelRequest], fixed: list[tuple[float, ...]]) -> tuple[list[tuple[str, tuple[int, ...], bool, int]], list[str], list[str]]:
    """A layout from nothing, written the plain way: by priority (ties in request order), each label
    takes its first candidate inside the canvas that shares no interior with any obstacle (snapped
    outward to integers) or any label placed before it; else it is hidden."""
    x, y, w, h = canvas
    taken = [(math.floor(a), math.floor(b), math.ceil(c), math.ceil(d)) for a, b, c, d in fixed]
    placed, hidden, offscreen = [], [], []
    for r in sorted(requests, key=lambda q: -q.priority):
        if not (x <= r.anchor[0] <= x + w and y <= r.anchor[1] <= y + h):
            offscreen.append(r.id)
            continue
        for slot, (rect, lead) in enumerate(candidate_rects(r)):
            inside = x <= rect[0] and y <= rect[1] and rect[0] + rect[2] <= x + w and rect[1] + rect[3] <= y + h
            if inside and not any(meets(rect, t) for t in taken if t[2] > t[0] and t[3] > t[1]):
                taken.append(as_box(rect))
                placed.append((r.id, rect, lead, slot))
                break
        else:
            hidden.append(r.id)
    return placed, hidden, offscreen


@SETTINGS
@given(scenes, st.sampled_from([(0, 0), (37, -20)]))
def test_a_layout_from_nothing_is_the_plain_greedy_one(scene: Scene, origin: tuple[int, int]) -> None:
    """The flat loop of a layout from nothing (no ``previous``) answers exactly as the general path
    and as the plain greedy placement above, on crowded random tables, canvases at the origin or not."""
    import tabletop.label_layout.search as search

    canvas = (*origin, *scene.size)
    args = (canvas, scene.requests, scene.boxes, scene.foci, scene.regions)
    fast = layout_labels(*args)
    search._FRESH = False
    try:
        general = layout_labels(*args)
    finally:
        search._FRESH = True
    assert fast == general and fast._asked == general._asked and fast._fixed == general._fixed
    assert [type(v) for p in fast.placements for v in p.rect] == [int] * 4 * len(fast.placements)
    placed, hidden, offscreen = greedy_reference(canvas, scene.requests, scene.fixed())
    assert [(p.id, p.rect, p.leader, p.slot) for p in fast.placements] == placed
    assert (list(fast.hidden), list(fast.offscreen)) == (hidden, offscreen)


# --------------------------------------------------------------------------- worked cases


def test_a_lone_name_goes_under_its_base_one_pixel_clear() -> None:
    name = LabelRequest("n", (100.0, 100.0), (40, 16), sides=("below",), clear=10.0)
    layout = layout_labels((400, 300), [name], base_boxes([(100, 100)], [10]))
    (p,) = layout.placements
    assert p.rect == (80, 111, 40, 16) and not p.leader and p.slot == 0
    assert layout.hidden == ()


def test_sides_are_tried_in_the_preferred_order_then_the_default_one() -> None:
    # A base right under the anchor blocks "below"; "right" is next by default.
    bases = base_boxes([(100, 100), (100, 130)], [10, 10])
    name = LabelRequest("n", (100.0, 100.0), (40, 16), sides=("below",), clear=10.0)
    (p,) = layout_labels((400, 300), [name], bases).placements
    assert p.rect == (111, 92, 40, 16) and p.slot == 1
    left_first = dataclasses.replace(name, sides=("below", "left"))
    (q,) = layout_labels((400, 300), [left_first], bases).placements
    assert q.rect == (49, 92, 40, 16)


def test_the_higher_priority_takes_the_better_place() -> None:
    low = LabelRequest("low", (100.0, 100.0), (40, 16), priority=0, sides=("below",), clear=10.0)
    high = LabelRequest("high", (100.0, 100.0), (40, 16), priority=5, sides=("below",), clear=10.0)
    layout = layout_labels((400, 300), [low, high], base_boxes([(100, 100)], [10]))
    assert [p.id for p in layout.placements] == ["high", "low"]
    assert layout.get("high").rect == (80, 111, 40, 16)  # type: ignore[union-attr]
    assert layout.get("low").rect == (111, 92, 40, 16)  # type: ignore[union-attr]


def test_when_room_runs_out_the_lowest_priority_is_hidden() -> None:
    # A 50×20 canvas holds one 40×16 label beside a point anchor, not two.
    a = LabelRequest("a", (25.0, 2.0), (40, 16), priority=1, leader=False)
    b = LabelRequest("b", (25.0, 2.0), (40, 16), priority=2, leader=False)
    layout = layout_labels((50, 20), [a, b])
    assert [p.id for p in layout.placements] == ["b"]
    assert layout.hidden == ("a",) and layout.hidden_count == 1


def test_near_the_edge_a_label_flips_to_the_side_that_fits() -> None:
    name = LabelRequest("n", (390.0, 100.0), (40, 16), sides=("right",), clear=5.0)
    (p,) = layout_labels((400, 300), [name]).placements
    assert p.rect[0] + p.rect[2] <= 400 and p.slot > 0 and not p.leader


def test_a_boxed_in_label_moves_out_with_a_leader() -> None:
    # Bases all round the anchor: the near ring is taken, the first leader ring is not.
    ring = [(100 + dx, 100 + dy) for dx in (-60, -30, 0, 30, 60) for dy in (-40, -20, 0, 20, 40) if (dx, dy) != (0, 0)]
    bases = base_boxes([(100, 100), *ring], 10)
    name = LabelRequest("n", (100.0, 100.0), (20, 10), sides=("below",), clear=10.0)
    (p,) = layout_labels((600, 400), [name], bases).placements
    assert p.leader and p.slot >= 12
    start, end = p.leader_line()
    assert abs(((start[0] - 100) ** 2 + (start[1] - 100) ** 2) ** 0.5 - 10) < 1e-9  # starts on the clear ring
    assert rect_box_gap(p.rect, (100 - 10, 100 - 10, 110, 110)) >= LEADER_RINGS[0]
    no_leader = dataclasses.replace(name, leader=False)
    assert layout_labels((600, 400), [no_leader], bases).hidden == ("n",)


def test_foci_and_regions_are_kept_free() -> None:
    title = LabelRequest("t", (100.0, 100.0), (60, 20), sides=("above",))
    # A focus right above the anchor and a docked overlay to its right.
    layout = layout_labels((400, 300), [title], foci=[(100, 85)], regions=[(101, 60, 200, 60)])
    (p,) = layout.placements
    assert not meets(p.rect, (96, 81, 104, 89)) and not meets(p.rect, (101, 60, 301, 120))
    # Above meets the focus, below and right the overlay: left, the next side, is free.
    assert p.rect == (39, 90, 60, 20) and p.slot == 3 and not p.leader


@SETTINGS
@given(scenes)
def test_each_placement_is_its_slot_in_candidate_rects(scene: Scene) -> None:
    """The layout's flat search and the public candidate list agree, slot for slot."""
    reqs = {r.id: r for r in scene.requests}
    for p in scene.run().placements:
        rect, lead = candidate_rects(reqs[p.id])[p.slot]
        assert (rect, lead) == (p.rect, p.leader)
        assert 12 + 8 * len(LEADER_RINGS) == len(candidate_rects(dataclasses.replace(reqs[p.id], leader=True)))


def test_a_canvas_left_of_and_above_zero_takes_the_candidate_round_the_origin() -> None:
    # "right" of a point at (-10, 0): (-9, -8, 40, 16), which holds (0, 0) strictly inside. Nothing
    # blocks it, with or without a last frame (the general path) or from nothing (the flat loop).
    import tabletop.label_layout.search as search

    label = LabelRequest("n", (-10.0, 0.0), (40, 16), sides=("right",))
    for fresh in (True, False):
        search._FRESH = fresh
        try:
            (p,) = layout_labels((-100, -100, 300, 300), [label]).placements
        finally:
            search._FRESH = True
        assert p.rect == (-9, -8, 40, 16) and p.slot == 0


def test_anchors_off_the_canvas_are_neither_placed_nor_hidden() -> None:
    layout = layout_labels((400, 300), [LabelRequest("far", (-50.0, 10.0), (30, 12))])
    assert layout.placements == () and layout.hidden == () and layout.offscreen == ("far",)


def test_a_label_bigger_than_the_canvas_is_hidden() -> None:
    assert layout_labels((100, 50), [LabelRequest("big", (50.0, 25.0), (120, 20))]).hidden == ("big",)


def test_a_kept_low_priority_label_gives_way_to_a_more_important_newcomer() -> None:
    # Frame 1: "low" alone takes its favourite spot. Frame 2: "high" needs the only spot there is.
    low = LabelRequest("low", (25.0, 2.0), (40, 16), priority=1, leader=False)
    first = layout_labels((50, 20), [low])
    assert first.placements[0].id == "low"
    high = LabelRequest("high", (25.0, 2.0), (40, 16), priority=2, leader=False)
    second = layout_labels((50, 20), [low, high], previous=first)
    assert [p.id for p in second.placements] == ["high"] and second.hidden == ("low",)


def test_an_unchanged_label_keeps_its_rect_even_where_a_fresh_layout_would_differ() -> None:
    # Frame 1: a label's favourite side is blocked by another label; frame 2 the blocker is gone but
    # so is nothing else near: it stays (no jumping while dragging); a fresh layout settles it.
    a = LabelRequest("a", (100.0, 100.0), (40, 16), priority=2, sides=("below",), clear=10.0)
    b = LabelRequest("b", (100.0, 100.0), (40, 16), priority=1, sides=("below",), clear=10.0)
    first = layout_labels((400, 300), [a, b])
    second = layout_labels((400, 300), [b], previous=first)
    assert second.get("b").rect == first.get("b").rect != layout_labels((400, 300), [b]).get("b").rect  # type: ignore[union-attr]


def test_the_layout_does_not_import_pygame() -> None:
    code = "import sys, tabletop.label_layout; print('pygame' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- layout JSON


def test_layout_json_has_the_issue_format() -> None:
    name = LabelRequest("n", (100.25, 100.0), (40, 16), sides=("below",), clear=10.0, text="Trooper 1")
    layout = layout_labels((400, 300), [name], base_boxes([(100.25, 100)], [10]))
    doc = layout_json((400, 300), layout.placements, [BaseMark("t1", (100.25, 100.0), 10.0)], layout.hidden)
    assert doc == {
        "size": [400, 300],
        "labels": [{"text": "Trooper 1", "rect": [80, 111, 40, 16], "anchor": [100.25, 100], "leader": False, "id": "n", "kind": "label", "clear": 10}],
        "bases": [{"id": "t1", "centre": [100.25, 100], "radius": 10}],
        "hidden_labels": 0,
    }
    assert check_layout(doc) == []


def _doc(labels: list[dict], bases: list[dict] | None = None) -> dict:
    return {"size": [400, 300], "labels": labels, "bases": bases or [], "hidden_labels": 0}


def _lab(text: str, rect: list[int], anchor: list[float], leader: bool = False, **extra: object) -> dict:
    return {"text": text, "rect": rect, "anchor": anchor, "leader": leader, **extra}


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        (_doc([_lab("a", [10, 10, 40, 16], [30, 8]), _lab("b", [45, 20, 40, 16], [65, 18])]), "labels 'a' and 'b' overlap"),
        (_doc([_lab("a", [10, 10, 40, 16], [30, 8])], [{"id": "m1", "centre": [30, 30], "radius": 10}]), "label 'a' covers base 'm1'"),
        (_doc([_lab("a", [100, 100, 40, 16], [30, 8])]), "label 'a' has no leader but lies"),
        (_doc([_lab("a", [380, 10, 40, 16], [378, 8])]), "label 'a' at [380, 10, 40, 16] is outside the 400×300 canvas"),
        # The anchor is a base centre: the gap counts from the base's box (radius 10), and 5 px is too far.
        (_doc([_lab("a", [45, 20, 40, 16], [30, 30])], [{"id": "m1", "centre": [30, 30], "radius": 10}]), "label 'a' has no leader but lies 5.0 px"),
    ],
)
def test_check_layout_names_each_problem(doc: dict, problem: str) -> None:
    problems = check_layout(doc)
    assert any(p.startswith(problem) for p in problems), problems


@pytest.mark.parametrize(
    "doc",
    [
        _doc([_lab("a", [10, 10, 40, 16], [30, 8]), _lab("b", [50, 10, 40, 16], [70, 8])]),  # touching is fine
        _doc([_lab("a", [43, 20, 40, 16], [30, 30])], [{"id": "m1", "centre": [30, 30], "radius": 10}]),  # 3 px off its base
        _doc([_lab("a", [200, 200, 40, 16], [30, 8], leader=True)]),  # far, with a leader
        _doc([_lab("a", [44, 20, 40, 16], [30, 30], clear=12)]),  # its own clear radius
    ],
)
def test_check_layout_accepts_good_layouts(doc: dict) -> None:
    assert check_layout(doc) == []


# --------------------------------------------------------------------------- docking


def test_overlays_dock_outside_the_table_when_there_is_room() -> None:
    # Table on the left 1000 px of a 1280 canvas: the legend goes in the right strip.
    docked = dock_overlays((1280, 800), (0, 0, 1000, 800), base_boxes([(500, 400)], 20), [Overlay("legend", (200, 120), "top_right")])
    x, y, w, h = docked["legend"]  # type: ignore[misc]
    assert (x, y, w, h) == (1072, 8, 200, 120)
    assert x >= 1000


def test_overlays_go_to_the_emptiest_corner_and_never_cover_a_base() -> None:
    # The table fills the canvas; bases crowd the top-left corner, one sits in the top-right corner.
    bases = base_boxes([(30, 30), (80, 40), (40, 90), (1240, 30), (60, 760)], 15)
    docked = dock_overlays((1280, 800), (0, 0, 1280, 800), bases, [Overlay("title", (300, 50), "top_left"), Overlay("legend", (200, 100), "top_left")])
    title, legend = docked["title"], docked["legend"]
    assert title is not None and legend is not None
    for rect in (title, legend):
        assert not any(meets(rect, b) for b in bases.tolist())
    assert title == (972, 742, 300, 50)  # bottom right: the only base-free corner
    assert not meets(legend, as_box(title))


def test_an_overlay_that_fits_nowhere_is_not_docked() -> None:
    bases = base_boxes([(x, y) for x in range(20, 400, 40) for y in range(20, 300, 40)], 18)
    assert dock_overlays((400, 300), (0, 0, 400, 300), bases, [Overlay("side view", (150, 100))]) == {"side view": None}


@SETTINGS
@given(st.integers(0, 2**32), st.sampled_from(CANVASES), st.integers(0, 120))
def test_docked_overlays_never_cover_a_base_or_each_other(seed: int, size: tuple[int, int], n: int) -> None:
    rng = random.Random(seed)
    w, h = size
    tw, th = rng.randint(w // 2, w), rng.randint(h // 2, h)
    table = (rng.randint(0, w - tw), rng.randint(0, h - th), tw, th)
    centres = [(rng.uniform(table[0], table[0] + tw), rng.uniform(table[1], table[1] + th)) for _ in range(n)]
    bases = base_boxes(centres, [rng.choice([6, 12, 20]) for _ in centres]) if centres else []
    overlays = [Overlay(f"o{k}", (rng.randint(40, 320), rng.randint(20, 160)), rng.choice(["top_left", "top_right", "bottom_left", "bottom_right"])) for k in range(4)]
    docked = dock_overlays(size, table, bases, overlays)
    rects = [r for r in docked.values() if r is not None]
    for r in rects:
        assert 0 <= r[0] and 0 <= r[1] and r[0] + r[2] <= w and r[1] + r[3] <= h
        assert not any(meets(r, b) for b in (bases.tolist() if len(centres) else []))
    for i in range(len(rects)):
        for j in range(i + 1, len(rects)):
            assert not meets(rects[i], as_box(rects[j]))
    # With nothing on the table, every overlay that fits the canvas is docked.
    if not centres:
        assert all(docked[o.id] is not None for o in overlays[:1])


# --------------------------------------------------------------------------- odd requests, from nothing


@st.composite
def requests_and_obstacles(draw: st.DrawFn) -> tuple[list[LabelRequest], list[tuple[int, int, int, int]], tuple[int, int, int, int]]:
    """Random requests (half-pixel and whole anchors, zero, negative and odd clears, all side orders,
    with and without leaders) and integer obstacles (thin, cell-sized, wide regions, touching)."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    canvas = (rng.randint(-40, 40), rng.randint(-40, 40), rng.randint(60, 700), rng.randint(60, 500))
    reqs = []
    for i in range(rng.randint(1, 30)):
        ax = rng.choice([rng.uniform(-60, 760), float(rng.randint(-40, 740)), rng.randint(-40, 740) + 0.5, float(canvas[0]), float(canvas[0] + canvas[2])])
        ay = rng.choice([rng.uniform(-60, 560), float(rng.randint(-40, 540)), rng.randint(-40, 540) + 0.5, float(canvas[1]), float(canvas[1] + canvas[3])])
        size = (rng.choice([rng.uniform(0.2, 150), rng.randint(1, 120), 900.0]), rng.choice([rng.uniform(0.5, 45), 16]))
        clear = rng.choice([0.0, -4.0, 3, 5.5, 10.0, rng.uniform(0, 40), 2000.0])
        reqs.append(LabelRequest(f"r{i}", (ax, ay), size, priority=rng.randint(0, 2), sides=tuple(rng.sample(SIDES, rng.randint(0, 3))), clear=clear, leader=rng.random() < 0.7))
    boxes = []
    for _ in range(rng.randint(0, 60)):
        a, b = rng.randint(-50, 760), rng.randint(-50, 560)
        boxes.append((a, b, a + rng.choice([1, 2, 7, 8, 9, 16, 17, 39, rng.randint(1, 300)]), b + rng.choice([1, 8, 9, rng.randint(1, 50)])))
    return reqs, boxes, canvas


@SETTINGS
@given(requests_and_obstacles())
def test_a_layout_from_nothing_of_odd_requests_is_the_plain_greedy_one(case: tuple) -> None:
    """Anchors on and off the canvas edges, negative and huge clears, labels wider than the canvas,
    priority ties, regions: the layout from nothing answers as the general path and the plain greedy."""
    import tabletop.label_layout.search as search

    reqs, boxes, canvas = case
    regions = [(a, b, c - a, d - b) for a, b, c, d in boxes[:3]]
    bases = boxes[3:]
    fast = layout_labels(canvas, reqs, bases or None, None, regions)
    search._FRESH = False
    try:
        general = layout_labels(canvas, reqs, bases or None, None, regions)
    finally:
        search._FRESH = True
    assert fast == general and fast._asked == general._asked and fast._fixed == general._fixed
    placed, hidden, offscreen = greedy_reference(canvas, reqs, [*bases, *boxes[:3]])
    assert [(p.id, p.rect, p.leader, p.slot) for p in fast.placements] == placed
    assert (list(fast.hidden), list(fast.offscreen)) == (hidden, offscreen)


@SETTINGS
@given(requests_and_obstacles(), st.integers(0, 2**32))
def test_the_candidates_meeting_freed_space_are_found_ring_by_ring(case: tuple, seed: int) -> None:
    """A label hidden last frame looks only at its candidates meeting space freed since (a drag frame):
    those found ring by ring (rings whose box misses the space, or whose inner square holds it, skipped)
    are exactly the candidates, in slot order, that meet it."""
    from tabletop.label_layout.search import _reopened

    reqs, boxes, _ = case
    rng = random.Random(seed)
    freed = [(a, b, c - a, d - b) for a, b, c, d in boxes[:4]]
    for r in reqs:
        # and rects round the anchor, inside and across its rings
        ax, ay = int(r.anchor[0]), int(r.anchor[1])
        near = [(ax + rng.randint(-180, 180), ay + rng.randint(-140, 140), rng.randint(1, 90), rng.randint(1, 40)) for _ in range(rng.randint(0, 3))]
        for f in (freed, near, freed + near):
            want = [(s, rect, lead) for s, (rect, lead) in enumerate(candidate_rects(r)) if any(meets(rect, as_box(b)) for b in f)]
            assert _reopened(r, [as_box(b) for b in f]) == want


def test_a_label_touching_an_obstacle_or_the_canvas_edge_is_placed_there() -> None:
    # Under the anchor, 1 px clear: rect (80, 111, 40, 16). A base ending exactly at its left edge
    # (x1 = 80) and one starting exactly at its bottom (y0 = 127) only touch it; the canvas ends at 127.
    name = LabelRequest("n", (100.0, 100.0), (40, 16), sides=("below",), clear=10.0)
    (p,) = layout_labels((0, 0, 400, 127), [name], [(60, 105, 80, 125), (80, 127, 120, 140)]).placements
    assert p.rect == (80, 111, 40, 16) and p.slot == 0
    # One pixel more of either and "below" is taken: the next side, right, is used.
    (q,) = layout_labels((0, 0, 400, 127), [name], [(60, 105, 81, 125)]).placements
    assert q.slot == 1


def test_a_label_at_the_corner_of_a_large_clear_region_gets_a_leader() -> None:
    # A dice box beside a template 60 px in radius, its preferred side below-left: the corner of the
    # clear square is (200 - 61, 200 + 61), hypot(61, 61) - 60 = 26.3 px off the template's rim, more
    # than AWAY (12): a leader shows what it belongs to. Below (1 px off the rim) needs none; nor does
    # the corner of a small base's square (hypot(11, 11) - 10 = 5.6 px).
    box = LabelRequest("dice", (200.0, 200.0), (80, 20), sides=("below_left",), clear=60.0, leader=False, kind="dice")
    (p,) = layout_labels((600, 400), [box]).placements
    assert p.rect == (59, 261, 80, 20) and p.slot == 0
    assert p.leader
    start, end = p.leader_line()
    assert abs(math.dist(start, (200, 200)) - 60) < 1e-9 and end == (139, 261)
    (q,) = layout_labels((600, 400), [dataclasses.replace(box, sides=("below",))]).placements
    assert q.rect == (160, 261, 80, 20) and not q.leader
    (n,) = layout_labels((600, 400), [dataclasses.replace(box, clear=10.0)]).placements
    assert n.rect[:2] == (109, 211) and not n.leader
    doc = layout_json((600, 400), [p, q._replace(id="q")], [], 0)
    assert check_layout(doc) == []
    doc["labels"][0]["leader"] = False
    (problem,) = check_layout(doc)
    assert "has no leader but lies 26.3 px from its anchor's clear circle" in problem
