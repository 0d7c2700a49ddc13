"""A rules file's resolution for many dice at once (the odds' ``sample_batch``)."""

from __future__ import annotations

from tabletop.resolution import BatchSampler, Context
from tabletop.rulesfile.compile import Rules


def sample_batch(rules: Rules, ctx: Context) -> BatchSampler | None:
    """Not yet vectorised: the odds resolve one sample at a time."""
    return None
