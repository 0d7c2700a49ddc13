"""Blast work no table needs, refused at load rather than run for minutes."""

from __future__ import annotations

from tabletop.plugin import Scenario

#: A blast up to 201 x 201 squares resolves in about 3 s; wider ones are refused at load.
MAX_BLAST_SQUARES_ACROSS = 201


def blast_work_problems(scenario: Scenario) -> list[tuple[str, str]]:
    """(field path, message) for each template whose blast would spread past the limit."""
    out: list[tuple[str, str]] = []
    for i, t in enumerate(scenario.templates):
        damage = max((v for v in (t.weapon.get("damage"), t.weapon.get("max_damage")) if isinstance(v, int) and not isinstance(v, bool)), default=0)
        increment = t.weapon.get("increment", 1)
        if isinstance(increment, bool) or not isinstance(increment, int) or damage < 1:
            continue  # weapon_problems names these
        # Each increment outward halves the damage, so it spreads for damage.bit_length() rings
        # (a contained blast gains at most 2D6 = 12 per ring).
        rings = (damage + 12 * damage.bit_length()).bit_length()
        across = increment * (2 * rings + 1)
        if across > MAX_BLAST_SQUARES_ACROSS:
            out.append(
                (f"template[{i}].weapon.increment",
                 f"a blast of {damage} damage in increments of {increment} squares spreads {across} squares across; "
                 f"at most {MAX_BLAST_SQUARES_ACROSS} (lower increment or damage)")
            )
    return out
