"""``none``: geometry only — who the template touches, what the focus sees."""

from __future__ import annotations

from tabletop.plugin import Context, Resolution, Ruleset


def resolve(ctx: Context) -> Resolution:
    """The coverage report, unchanged: no dice, nothing forbidden."""
    return Resolution(coverage=ctx.coverage, affected=ctx.coverage.affected)


RULESET = Ruleset(
    name="none",
    title="Geometry only",
    resolve=resolve,
    uses_visibility=True,
    doc="Statuses and margins from the spec's coverage rule, with blast-focus visibility.",
)
