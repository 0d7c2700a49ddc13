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


def file_weight(items: list[pytest.Item]) -> int:
    """How early a test file should start, from its marks: 1 with a ``cpu`` test (12 MP photos rendered and
    analysed), 2 with another ``slow`` test and no ``cpu`` one (the soak, real windows, kills, builds: mostly other
    processes' work, and the soak's memory check wants a worker whose own heap no photo has grown), else 0."""
    if any(item.get_closest_marker("cpu") for item in items):
        return 1
    return 2 if any(item.get_closest_marker("slow") for item in items) else 0


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Heavy files first (see ``file_weight``), then the files with most tests (pytest-xdist's own order), each
    file's tests together in their written order. Run with ``--dist loadfile --no-loadscope-reorder`` (the Makefile
    does), the workers take the long files first, and the run ends on short ones instead of one worker finishing a
    12 MP photo file or the soak alone while the other core idles."""
    by_file: dict[Path, list[pytest.Item]] = {}
    for item in items:
        by_file.setdefault(item.path, []).append(item)
    rank = {path: (-file_weight(tests), -len(tests)) for path, tests in by_file.items()}
    items.sort(key=lambda item: rank[item.path])  # stable: a file's tests keep their order


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
