"""Every ruleset's steps name models as players know them ("Battlepod (pod2)"), not by bare id."""
from __future__ import annotations

import dataclasses
import re

import pytest

from tabletop.adjudicate import adjudicate
from tabletop.panel import display_names, named
from tests.golden_rulings import SCENARIOS, TABLES, case_path
from tabletop.scenario_io import load

STEMS = sorted({p.stem for p in SCENARIOS.glob("*.toml")} | {f"t:{p.stem}" for p in TABLES.glob("*.toml")})


def test_named_keeps_the_id_beside_a_name() -> None:
    names = {"pod1": "Battlepod", "t": "t", "w": "Long wall"}
    assert named(["pod1", "t", "w", "ghost"], names) == "Battlepod (pod1), t, Long wall (w), ghost"
    assert named([], names) == ""


@pytest.mark.parametrize("stem", STEMS)
def test_steps_name_the_models_they_list(stem: str) -> None:
    scenario = load(case_path(stem))
    # A name unlike any id, so a step that prints a bare id cannot pass by accident.
    renamed = dataclasses.replace(
        scenario, models=tuple(dataclasses.replace(m, name=f"Named {k}") for k, m in enumerate(scenario.models)))
    names = display_names(renamed)
    for result in adjudicate(renamed).results:
        for step in result.resolution.steps:
            data = step.data or {}
            ids = [data["model"]] if isinstance(data.get("model"), str) else []
            ids += [i for i in data.get("models", []) if isinstance(i, str)]
            for i in ids:
                if i in names and f"({i})" in step.text:
                    assert f"{names[i]} ({i})" in step.text, (stem, step.text)
                elif i in names and re.search(rf"(?<![\w(]){re.escape(i)}(?![\w)])", step.text):
                    pytest.fail(f"{stem}: step names {i!r} by its bare id: {step.text}")
