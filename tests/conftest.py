"""Test setup: headless SDL before anything imports pygame."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest  # noqa: E402
from hypothesis import HealthCheck, Verbosity, settings  # noqa: E402

# Hypothesis profiles. "ci" (chosen when CI is set) is derandomised: every run tries the same
# examples, so a red CI run is red again on a rerun and on a laptop with
# HYPOTHESIS_PROFILE=ci; a failure prints its reproduce blob. "dev" explores new examples each run
# and replays past failures from .hypothesis/. Neither has a deadline: timing is not a unit
# test's business (pytest-timeout catches hangs). Pick one explicitly with HYPOTHESIS_PROFILE.
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# "mutation" (``make mutate``): the ci profile with a handful of examples per property, so that
# each of thousands of mutant runs stays short; the worked-answer tests do the killing.
settings.register_profile(
    "mutation",
    max_examples=10,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=list(HealthCheck),
)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.register_profile("debug", deadline=None, print_blob=True, verbosity=Verbosity.verbose)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


@pytest.fixture(autouse=True)
def _user_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep tests away from the real user's config, state and autosaves.

    A MonkeyPatch of its own, not the test's ``monkeypatch``: a test calling ``monkeypatch.undo()`` undid these too,
    and its next autosave went into the real state folder (a "crashed" session the user's app then offered back)."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(home / "config"))
        patch.setenv("XDG_STATE_HOME", str(home / "state"))
        patch.setenv("XDG_DATA_HOME", str(home / "data"))
        patch.setenv("XDG_CACHE_HOME", str(home / "cache"))
        yield
