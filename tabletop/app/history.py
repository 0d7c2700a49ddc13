"""Undo/redo of the document: a bounded stack of immutable scenarios. Pure."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from tabletop.model import Scenario

MAX_UNDO = 200


@dataclass(frozen=True)
class History:
    """Scenarios before (``undo``) and after (``redo``) the current one, nearest last.

    ``gesture`` names the edit that made the current scenario: a later edit with
    the same gesture (the next motion event of one drag) replaces it instead of
    adding an undo step, so a drag is one undoable edit.
    """

    undo: tuple[Scenario, ...] = ()
    redo: tuple[Scenario, ...] = ()
    gesture: int | None = None
    redo_before: tuple[Scenario, ...] = ()
    """The redo steps the current edit cleared: a gesture cancelled (Esc mid-drag) gives them back."""

    def record(self, before: Scenario, gesture: int | None) -> History:
        """The history after an edit of ``before`` (made by ``gesture``, if any)."""
        if gesture is not None and gesture == self.gesture and self.undo:
            return History(self.undo, (), gesture, self.redo_before)
        return History((self.undo + (before,))[-MAX_UNDO:], (), gesture, self.redo)

    def cancelled(self, current: Scenario, gesture: int) -> tuple[History, Scenario]:
        """The edit ``gesture`` made taken back as if it never happened: no redo step of it (an undo would offer the
        cancelled drag to Ctrl+Y), the redo steps it cleared given back. Nothing when the last edit is another's."""
        if gesture != self.gesture or not self.undo:
            return self, current
        return History(self.undo[:-1], self.redo_before, None), self.undo[-1]

    def scenarios(self) -> tuple[Scenario, ...]:
        """Every scenario an undo or a redo can bring back (the ids in them are the table's, ``fresh_id``)."""
        return self.undo + self.redo + self.redo_before

    @cached_property
    def model_ids(self) -> frozenset[str]:
        """The ids of every model and terrain piece in ``scenarios``, worked out once per history: a batch of new ids (a
        row of copies, a photo's proposals) looks each up here (r51: 300 copies scanned 200 steps each, 1.6 s)."""
        return frozenset(i for s in self.scenarios() for i in (*(m.id for m in s.models), *(t.id for t in s.terrain)))

    @cached_property
    def template_ids(self) -> frozenset[str]:
        """The ids of every template in ``scenarios`` (their own namespace)."""
        return frozenset(t.id for s in self.scenarios() for t in s.templates)

    @property
    def can_undo(self) -> bool:
        return bool(self.undo)

    @property
    def can_redo(self) -> bool:
        return bool(self.redo)

    def undone(self, current: Scenario) -> tuple[History, Scenario]:
        """Step back: the new history and the scenario to show."""
        if not self.undo:
            return self, current
        return History(self.undo[:-1], self.redo + (current,), None), self.undo[-1]

    def redone(self, current: Scenario) -> tuple[History, Scenario]:
        """Step forward again after an undo."""
        if not self.redo:
            return self, current
        return History(self.undo + (current,), self.redo[:-1], None), self.redo[-1]
