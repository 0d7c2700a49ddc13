"""Random app sessions (drags, typed fields, undo, save, load, crashes) through real pygame
events: nothing raises, the table always loads back from its file, and after a crash the last
edit comes back from the emergency copy."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pygame
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from tabletop.app import autosave
from tabletop.app.pilot import Pilot
from tabletop.app.recovery_dialog import RecoveryDialog
from tabletop.app.state import parse_numbers
from tabletop.app.validate import check_seed, document_problem
from tabletop.scenario_io import load

from .conftest import SCENARIOS
from .scenario_compare import differences

DEFAULT = SCENARIOS / "default.toml"
CTRL = pygame.KMOD_LCTRL
MODELS = ["sgt", "t1", "t2"]
TYPED = st.one_of(
    st.sampled_from(["DF=4, GN=2", "DF=" + "9" * 401, "DF=1e400", "DF=nan", "", "x", "DF=-3.5", "A=1 2 3", "DF=1e9", "DF=1e10"]),
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=14),
)


class AppSession(RuleBasedStateMachine):
    """One app on a copy of the default table, with autosave on."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="session-"))
        self.path = self.folder / "table.toml"
        shutil.copy(DEFAULT, self.path)
        self.p = Pilot(self.path, autosave=True)
        self.models = [m for m in MODELS if any(x.id == m for x in self.p.app.scenario.models)]

    @rule(which=st.integers(0, 2), dx=st.integers(-80, 80), dy=st.integers(-80, 80))
    def drag_a_model(self, which: int, dx: int, dy: int) -> None:
        ids = [m.id for m in self.p.app.scenario.models]
        if not ids:
            return
        m = self.p.app.scenario.model(ids[which % len(ids)])
        start = self.p.screen_of(m.centre)
        self.p.drag(start, (start[0] + dx, start[1] + dy), steps=3)

    @rule(field=st.sampled_from(["stats", "base", "side", "tags"]), text=TYPED)
    def type_in_the_side_panel(self, field: str, text: str) -> None:
        app = self.p.app
        if not app.scenario.models:
            return
        self.p.key(pygame.K_ESCAPE)
        self.p.click(self.p.screen_of(app.scenario.models[0].centre))
        if field not in app._fields:
            return
        before = app.scenario
        app._fields[field].set_text(text)
        if not app.apply_inspector():
            assert app.scenario is before

    @rule(text=TYPED)
    def type_a_seed(self, text: str) -> None:
        before = self.p.app.state.seed
        try:
            wanted = check_seed(text)
        except ValueError:
            wanted = None
        assert self.p.app.set_seed(text) is (wanted is not None)
        assert self.p.app.state.seed == (before if wanted is None else wanted) == self.p.app.live.seed
        assert self.p.app.message_is_error is (wanted is None)

    @rule(text=TYPED)
    def type_what_if(self, text: str) -> None:
        before = self.p.app.state.what_if
        try:
            wanted = parse_numbers(text)
        except ValueError:
            wanted = None
        assert self.p.app.set_what_if(text) is (wanted is not None)
        assert self.p.app.state.what_if == (before if wanted is None else wanted)
        assert self.p.app.message_is_error is (wanted is None)

    @rule()
    def undo(self) -> None:
        self.p.key(pygame.K_z, CTRL)

    @rule()
    def redo(self) -> None:
        self.p.key(pygame.K_y, CTRL)

    @rule()
    def save(self) -> None:
        self.p.key(pygame.K_s, CTRL)
        assert not self.p.app.state.dirty
        assert differences(load(self.path), self.p.app.scenario) == []  # lengths to 0.001 mm

    @rule()
    def load(self) -> None:
        if self.path.exists() and not self.p.app.state.dirty:
            assert self.p.app.open_file(str(self.path))

    @rule(seconds=st.sampled_from([0.1, 2.5]))
    def wait(self, seconds: float) -> None:
        self.p.step(int(seconds * 60))

    @rule()
    def crash(self) -> None:
        last = self.p.app.scenario
        copy = self.p.app.crash(RuntimeError("simulated"))
        self.p.close()
        assert copy is not None
        rec = autosave.find_recovery()
        assert rec is not None and rec.emergency == copy
        self.p = Pilot(DEFAULT, autosave=True, recovery=rec)
        dialogs = [w for w in self.p.app.ui.get_root_container().elements if isinstance(w, RecoveryDialog) and w.alive()]
        assert dialogs
        self.p.click(dialogs[0].recover_button.rect.center)
        self.p.step(2)  # the button's event
        assert differences(self.p.app.scenario, last) == []  # the last edit came back (lengths to 0.001 mm)
        assert self.p.app.state.path == str(self.path)

    @invariant()
    def the_table_loads_back_from_its_file(self) -> None:
        assert document_problem(self.p.app.scenario) is None

    def teardown(self) -> None:
        self.p.close()
        for rec in autosave.find_recoveries(claim=False):
            autosave.discard_recovery(rec)
        shutil.rmtree(self.folder, ignore_errors=True)


def test_random_app_sessions_lose_nothing() -> None:
    run_state_machine_as_test(
        AppSession,
        settings=settings(max_examples=6, stateful_step_count=12, derandomize=True, deadline=None, database=None),
    )
