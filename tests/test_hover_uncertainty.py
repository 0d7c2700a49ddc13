"""The hover card reads a margin with its ± where the template's size or the model's position is uncertain."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tabletop.adjudicate import adjudicate
from tabletop.draw.scene import _margins_of
from tabletop.scenario_io import load

from .conftest import SCENARIOS

INCH = 25.4


def test_an_approximate_teardrop_gives_its_half_inch_and_a_published_blast_none() -> None:
    adj = adjudicate(load(SCENARIOS / "default.toml"))
    rows = {tid: (margin, contested, u) for tid, _, margin, contested, u in _margins_of(adj, "b1")}
    margin, contested, u = rows["flame"]
    assert u == pytest.approx(0.5 * INCH)  # the catalogue's Infinity teardrop: length ±0.5"
    assert contested and abs(margin) > 1.0  # contested only because of that ±
    sgt = {tid: u for tid, _, _, _, u in _margins_of(adj, "sgt")}
    assert sgt["blast"] == 0.0  # a published 5" blast: no ±


def test_a_measured_position_adds_two_sigmas() -> None:
    s = load(SCENARIOS / "default.toml")
    s = replace(s, models=tuple(replace(m, sigma=0.4) if m.id == "sgt" else m for m in s.models))
    rows = {tid: u for tid, _, _, _, u in _margins_of(adjudicate(s), "sgt")}
    assert rows["blast"] == pytest.approx(0.8)
