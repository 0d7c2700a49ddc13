"""The ``render --layout-json`` document: :func:`layout_json` writes it, :func:`check_layout` checks
every promise the layout makes against it. Pure: no pygame."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tabletop.label_layout.geometry import rect_box_gap
from tabletop.label_layout.requests import AWAY, NEAR_GAP, Placement


@dataclass(frozen=True)
class BaseMark:
    """A base as the layout JSON records it: ``centre`` (screen px) and ``radius``, the half-width of its box."""

    id: str
    centre: tuple[float, float]
    radius: float

    @property
    def box(self) -> tuple[float, float, float, float]:
        """The square x0, y0, x1, y1 the layout keeps labels off."""
        x, y = self.centre
        return (x - self.radius, y - self.radius, x + self.radius, y + self.radius)


def _num(v: float) -> float | int:
    r = round(float(v), 3)
    return int(r) if r == int(r) else r


def layout_json(size: Sequence[float], placements: Iterable[Placement], bases: Iterable[BaseMark], hidden: int | Sequence[str]) -> dict[str, Any]:
    """The ``render --layout-json`` document of what was drawn, in screen px.

    ``{"size": [w, h], "labels": [{"text", "rect": [x, y, w, h], "anchor": [x, y], "leader": bool, "id",
    "kind", "clear"}], "bases": [{"id", "centre": [x, y], "radius"}], "hidden_labels": n}``; ``id``,
    ``kind`` and ``clear`` extend the issue's format (the checker reads ``clear`` when present).
    """
    return {
        "size": [int(size[0]), int(size[1])],
        "labels": [
            {
                "text": p.text,
                "rect": [int(v) for v in p.rect],
                "anchor": [_num(p.anchor[0]), _num(p.anchor[1])],
                "leader": bool(p.leader),
                "id": p.id,
                "kind": p.kind,
                "clear": _num(p.clear),
            }
            for p in placements
        ],
        "bases": [{"id": b.id, "centre": [_num(b.centre[0]), _num(b.centre[1])], "radius": _num(b.radius)} for b in bases],
        "hidden_labels": hidden if isinstance(hidden, int) else len(hidden),
    }


def check_layout(doc: Mapping[str, Any], gap: float = NEAR_GAP, tol: float = 0.01) -> list[str]:
    """Problems in a layout JSON document; empty when it keeps every promise.

    Reported: a label outside the canvas; two labels overlapping; a label on a base's box (centre ±
    radius); a leader-less label more than ``gap`` px from its anchor's clear square (the label's
    ``clear`` if given, else the box of a base containing the anchor, else the anchor point), or more
    than :data:`~tabletop.label_layout.requests.AWAY` px from the circle of that radius round its
    anchor (a label that far away must show what it belongs to). ``tol`` px absorbs the rounding of
    the document's numbers.
    """
    problems: list[str] = []
    cw, ch = doc["size"]
    labels = list(doc.get("labels", []))
    bases = [BaseMark(str(b["id"]), (float(b["centre"][0]), float(b["centre"][1])), float(b["radius"])) for b in doc.get("bases", [])]

    def name(lab: Mapping[str, Any]) -> str:
        return repr(lab.get("text") or lab.get("id") or "?")

    rects = [tuple(float(v) for v in lab["rect"]) for lab in labels]
    for lab, (x, y, w, h) in zip(labels, rects):
        if x < -tol or y < -tol or x + w > cw + tol or y + h > ch + tol:
            problems.append(f"label {name(lab)} at {list(lab['rect'])} is outside the {cw}×{ch} canvas")
    by_x = sorted(range(len(rects)), key=lambda i: rects[i][0])
    for n, i in enumerate(by_x):
        x, y, w, h = rects[i]
        for j in by_x[n + 1 :]:
            u, v, p, q = rects[j]
            if u >= x + w - tol:
                break
            if v < y + h - tol and y < v + q - tol and u < x + w - tol and x < u + p - tol:
                problems.append(f"labels {name(labels[i])} and {name(labels[j])} overlap")
    for lab, (x, y, w, h) in zip(labels, rects):
        for b in bases:
            bx0, by0, bx1, by1 = b.box
            if bx0 < x + w - tol and x < bx1 - tol and by0 < y + h - tol and y < by1 - tol:
                problems.append(f"label {name(lab)} covers base {b.id!r}")
    for lab, rect in zip(labels, rects):
        if lab.get("leader"):
            continue
        axp, ayp = float(lab["anchor"][0]), float(lab["anchor"][1])
        clear = lab.get("clear")
        if clear is None:
            owners = [b.radius for b in bases if b.box[0] <= axp <= b.box[2] and b.box[1] <= ayp <= b.box[3]]
            clear = max(owners, default=0.0)
        c = float(clear)
        d = rect_box_gap(rect, (axp - c, ayp - c, axp + c, ayp + c))
        if d > gap + tol:
            problems.append(f"label {name(lab)} has no leader but lies {d:.1f} px from its anchor")
            continue
        round_gap = rect_box_gap(rect, (axp, ayp, axp, ayp)) - max(c, 0.0)
        if round_gap > AWAY + tol:
            problems.append(f"label {name(lab)} has no leader but lies {round_gap:.1f} px from its anchor's clear circle")
    return problems
