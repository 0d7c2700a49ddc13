"""A hostile user against crash recovery: the attacks that once lost work, each kept as a test.

The app runs headless (the pilot) with its autosave on, in the per-test state folder of conftest.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tabletop.app import autosave
from tabletop.app.commands import MoveModel, Undo
from tabletop.app.pilot import Pilot
from tabletop.scenario_io import load

from .conftest import SCENARIOS

DEFAULT = SCENARIOS / "default.toml"


@pytest.fixture()
def table(tmp_path: Path) -> Path:
    dst = tmp_path / "table.toml"
    shutil.copy(DEFAULT, dst)
    return dst


def test_an_undo_after_a_save_back_to_an_autosaved_table_is_autosaved_again(table: Path) -> None:
    """Edit (autosaved), edit, save, undo: the table is unsaved again and must be autosaved, though an
    autosave once held that same table (the save deleted it)."""
    p = Pilot(table, autosave=True)
    try:
        app = p.app
        sgt = app.scenario.model("sgt")
        app.dispatch(MoveModel("sgt", sgt.x + 20, sgt.y))
        p.step(3)
        assert app.autosaver.flush() or app.autosaver.autosave_path.exists()
        app.dispatch(MoveModel("sgt", sgt.x + 40, sgt.y))
        assert app.save()
        assert not app.autosaver.autosave_path.exists()
        app.dispatch(Undo())
        assert app.state.dirty
        p.step(3)
        app.autosaver.tick(app._now + autosave.DEBOUNCE_S + 1)
        assert app.autosaver.autosave_path.exists(), "the undone table is unsaved and has no autosave: a crash now loses it"
        assert load(app.autosaver.autosave_path).model("sgt").x == pytest.approx(sgt.x + 20)
    finally:
        p.close()
