"""The suite never touches the real user's folders, whatever a test does with its own monkeypatch."""

from __future__ import annotations

import os

import pytest


def test_undoing_a_tests_monkeypatch_keeps_the_user_folders_private(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """``monkeypatch.undo()`` in a test undid conftest's XDG folders too: the test's next autosave was written into
    the real state folder, where the user's app offered it back as a crashed session."""
    private = os.environ["XDG_STATE_HOME"]
    assert private.startswith(str(tmp_path_factory.getbasetemp()))
    monkeypatch.setenv("TABLETOP_PROBE", "1")
    monkeypatch.undo()
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        assert os.environ[name].startswith(str(tmp_path_factory.getbasetemp())), name
    assert os.environ["XDG_STATE_HOME"] == private
