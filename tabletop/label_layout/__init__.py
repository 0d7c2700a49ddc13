"""One label layout for the app and ``tabletop render``: every text on the table placed in screen pixels.

The package: ``requests`` (what is asked and answered, the candidate rects), ``geometry`` (obstacles and
the spatial hash), ``search`` (:func:`layout_labels`), ``overlays`` (:func:`dock_overlays`), ``document``
(the layout JSON and its checker). Import from here.

Pure code (no pygame). Every text on the table (model names, template titles, ruleset badges and
numbers, odds labels, dice boxes, ruler readouts, tooltips, refusal banners) is a :class:`LabelRequest`:
an anchor (screen px), a size, a priority, preferred sides, a ``clear`` radius kept free around the
anchor (a base's radius for its name), whether a leader line is allowed, and a kind for styling.
:func:`layout_labels` returns a :class:`Layout`: one integer rect per placed label, whether a leader
line is drawn, and the ids of the labels dropped for lack of room (the hidden count).

Algorithm
---------
* The anchor's clear region is the square ``anchor ± clear`` (round bases are treated by their box,
  as the layout JSON checker does). Each label has a fixed, small candidate set (:func:`candidate_rects`):
  the *near ring*, slots 0..11, touching that square at a 1 px gap: its 8 sides and corners (preferred
  sides first), then 4 slides along its bottom and top edges; then, if the request allows a leader,
  5 *leader rings* of 8 positions each (slots 12..51), 12, 28, 52, 84 and 124 px out from the square.
  A label on a leader ring is drawn with a leader line; so is one of the near ring that lies more than
  :data:`AWAY` (12) px from the anchor's clear *circle* (a corner of a large clear square: a template's
  dice box at the corner of its reach is as far out as the first leader ring). ``LabelRequest.leader``
  says whether a label may go out to the leader rings; whether a placement shows a leader is geometry.
* Obstacles are snapped outward to integers and put in a uniform grid (a spatial hash, ``cell`` px
  cells): base boxes, template foci (a ``focus_pad`` px box around each point), fixed regions (docked
  overlays). Label rects are integers, so the snapped test "do they share interior" is exact.
* Requests are taken by priority (highest first; ties in request order). Each takes its first
  candidate that lies inside the canvas and meets no obstacle and no label placed so far (a flat Python
  loop over the few grid cells it touches: cheaper at this size than any per-candidate numpy call),
  else it is dropped (``Layout.hidden``).
* Stable from frame to frame: given ``previous`` (the last frame's Layout), a label whose id, anchor,
  size, clear radius and leader permission are unchanged first keeps its old rect, if that rect is
  still inside the canvas and clear of the obstacles and of the labels kept before it (by priority).
  The others are then placed as above, trying their previous slot (the same side of the moved anchor)
  first, so a dragged model's name travels with it. A label that finds no room may evict *strictly
  lower-priority* kept labels from the best candidate (fewest evicted, then nearest) they alone block;
  those are placed again afterwards, by priority. A label looked at before an eviction did not see
  the room it frees (a dragged name's old side held by a kept label that a later label evicts): if
  one could reach it (or it is the evictor's own old side), the pass starts again at once with the
  evicted labels no longer kept. Each start keeps fewer labels, so this ends; in the pass that stands,
  every place that ends free was free when a label looked at it.
  Kept labels do not drift back towards their anchors when room frees up nearby: while dragging that
  is what we want; lay out without ``previous`` when the interaction ends to let everything settle.
* Incremental: when ``previous`` is this function's own layout of the same canvas, its placements are
  known to be inside the canvas and clear of each other and of its obstacles, and it hands on its grid
  (its obstacles and placements; cells are replaced on write, never changed in place, so the last
  frame's layout stays as it was). A frame starts from a copy of that grid, takes out the labels not
  kept and the obstacles gone and puts in the new ones (found from the rows of the obstacle array that
  changed): an unchanged label keeps its rect with no grid walk unless an obstacle new this frame meets
  it. A label hidden last frame that asks the same looks only at its candidates meeting space freed
  since (labels not kept, obstacles gone); each of its other candidates is still blocked by what blocked
  it then. The answer is exactly the full pass's (a hypothesis property drags random tables through
  both and checks the grid handed on); a drag frame costs a fraction of a layout.

Guarantees (hypothesis properties on crowded random tables at three canvas sizes, tests/test_label_layout.py)
-----------------------------------------------------------------------------------------------------------
* No two placed rects overlap (touching edges is not overlap); none meets a base box, a focus box or a
  fixed region; all lie inside the canvas.
* A placement without a leader lies within :data:`NEAR_GAP` (4) px of its anchor's clear square
  (Euclidean distance between the two rects) and within :data:`AWAY` (12) px of the circle of radius
  ``clear`` round its anchor; leader placements are on a leader ring (at least 12 px out from the
  square, only when the request allows it) or more than :data:`AWAY` px from that circle.
* Lowest priorities are dropped first: for a dropped label, every candidate is outside the canvas,
  meets an obstacle, or meets a placed label of equal or higher priority (with or without ``previous``).
* With ``previous``: the same input gives the same layout; when one label moves far away (off the
  canvas, or into empty space) every other label keeps its rect exactly, except labels its new base
  now covers and, when the freed room lets a label hidden last frame come back, labels of lower
  priority than that one (pushed out, as the priority rule requires). A dragged label keeps its side
  (its last slot, at the moved anchor) whenever that place is inside the canvas and free in the result.
* Deterministic: the same input gives the same output. Anchors outside the canvas are not laid out
  (``Layout.offscreen``) and not counted as hidden.

Speed (``python -m benchmarks.labels``, CPU time on the shared 2-core VM): a drag frame (the last
frame's layout given, one label moved) costs 0.38 ms on the 300-model sample table at 1920×1080 and
0.44–0.60 ms on the crowded table; 0.40–0.68 and 0.52–0.57 ms with the model's base moved along, as
when a model is dragged (three runs on 2026-11-26; in the same runs the code that filled the grid each
frame took 0.64–0.72 and 0.99–1.03 ms, and 0.72–0.74 and 1.16–1.19 ms with the base moved). The
issue's 1 ms target is met with room to spare for the layout the app runs every frame while something
is dragged. Where a drag frame goes: the obstacle array, the pass over every request asking whether
it changed, the placements and the Layout (about 0.35 ms with nothing moved), then the few searches.

A layout from nothing (opening a file, zooming, panning) takes one flat loop (the search and the grid
insert inlined, placements built once in their final order; exactly the general path's answer, a
hypothesis property compares both and a plain all-pairs greedy) and costs 3.1–3.3 ms for 300 labels
among 300 bases where half the names need a leader (4.1–4.35 ms on 2026-11-26, a slower day; about
1.1× faster than the general path, 21–25× the all-pairs baseline), so 1 ms is not reached there.
Where it goes: 0.22 ms for the obstacles and the grid, then about 0.63 µs per candidate tried, ~4,500
of them (~15 a label, most blocked by a neighbouring base): each is a few integer compares and a walk
over one or two grid cells in plain Python. Even with every label taking its first candidate (306
labels spread over an empty canvas) the loop costs ~0.75 ms, ~2.4 µs a label, so 300 labels cannot
fit in 1 ms in this interpreter however the blocked candidates are found. Deciding up front with numpy
which candidates a fixed obstacle blocks was tried twice (exact both times; see the git history). The
second time every candidate of every label was built at once and the loop walked only the clear ones
against a grid of the labels alone: 1.7-2 ms of numpy (much of it page faults on this VM's large
temporaries) saved about as much, so 3.4-4.6 ms against 4.2-5.4 ms in the same noisy runs, and the
loop over the ~1,000 clear candidates tried still cost ~0.9 ms on its own. An exact greedy in numpy
rounds (every label at its first candidate clear of obstacles and settled labels, settled once no
earlier label could still take a place meeting it) was costed on 2026-11-26 with a prototype, not
kept: building the ~16,000 candidate rects of the 306 labels at once (the same float operations,
checked against :func:`candidate_rects`) took 0.53 ms, and sorting them against the fixed obstacles
with two summed-area tables of 8 px cells (surely clear, surely blocked, or to be tested) 1.6–1.9 ms
in all, still leaving 2,000–2,700 to be tested, before any label is weighed against another. Tried on
the flat loop and not kept, none faster beyond the noise: zip over rings permuted by itemgetter with
no canvas test for rings wholly inside the canvas, plain 4-tuple grid items, cells gathered by
slicing, grid cells of 24 to 128 px, no last-blocker memo (slower), a garbage-collector pause (~2 %);
a second blocker memo would save ~350 walks of ~3,950 for 4 more compares on every one of ~4,500
candidates.

:func:`dock_overlays` places fixed overlays (title, legend, side view, hints) outside the table area if
there is room, else in the emptiest corner, never over a base; pass the rects it returns to
:func:`layout_labels` as ``regions``. :func:`layout_json` and :func:`check_layout` define and check
the ``render --layout-json`` document.
"""

from __future__ import annotations

from tabletop.label_layout.document import BaseMark, check_layout, layout_json
from tabletop.label_layout.geometry import base_boxes, rect_box_gap
from tabletop.label_layout.overlays import Overlay, dock_overlays
from tabletop.label_layout.requests import AWAY, LEADER_RINGS, NEAR_GAP, SIDES, LabelRequest, Layout, Placement, Rect, away, candidate_rects
from tabletop.label_layout.search import layout_labels

__all__ = [
    "AWAY",
    "LEADER_RINGS",
    "NEAR_GAP",
    "SIDES",
    "BaseMark",
    "LabelRequest",
    "Layout",
    "Overlay",
    "Placement",
    "Rect",
    "base_boxes",
    "candidate_rects",
    "away",
    "check_layout",
    "dock_overlays",
    "layout_json",
    "layout_labels",
    "rect_box_gap",
]
