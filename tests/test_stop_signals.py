"""Which signals stop the app: SIGHUP is left alone when the app was started under ``nohup``."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from tabletop.app.lifecycle import stop_signals


@pytest.fixture
def sighup() -> Iterator[None]:
    before = signal.getsignal(signal.SIGHUP)
    try:
        yield
    finally:
        signal.signal(signal.SIGHUP, before)


def test_sigint_sigterm_and_sighup_stop_an_app_started_from_a_terminal(sighup: None) -> None:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    assert set(stop_signals()) >= {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def test_an_app_started_under_nohup_keeps_ignoring_sighup(sighup: None) -> None:
    """``nohup tabletop table.toml &`` asks for the app to outlive the terminal: a hangup must not stop it."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    assert signal.SIGHUP not in stop_signals()
    assert {signal.SIGINT, signal.SIGTERM} <= set(stop_signals())
