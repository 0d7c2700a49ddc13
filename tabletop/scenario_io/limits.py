"""Limits a scenario file must keep (docs/limits.md), and how a bad value is quoted in a message."""

from __future__ import annotations

import re
from typing import Any


MAX_FILE_BYTES = 10 * 1024 * 1024
_ID = re.compile(r"[A-Za-z0-9_-]+")
#: Limits a real table can hold (docs/limits.md); lengths are bounded in :mod:`tabletop.units`.
MAX_ANGLE_DEG = 36_000.0  # a hundred turns: headings past that are typing errors
MAX_STAT = 1_000_000  # |a stat|, a weapon number, a setting without a stated range
MAX_EXACT_INT = 2**53  # larger whole numbers do not survive a float
#: The dice seed, in a file (``seed``) or on the command line (``--seed``): 0 <= seed <= MAX_SEED.
MAX_SEED = 2**63 - 1
MIN_GRID_MM = 1.0
MAX_GRID_SQUARES = 4_000_000  # a 6' x 4' table on a 1 mm grid is 2.2 million squares
MAX_VERTICES = 10_000  # points of one terrain outline
MAX_TOTAL_VERTICES = 20_000  # points of all outlines: a blast over 20,000 takes about 9 s of shadow casting
MAX_ITEMS = 10_000  # models, terrain pieces, templates, list entries
MAX_BATTERY = 50
# Models x templates bounds the work of a check: 5,000 models under 100 table-wide templates take about 9 s.
MAX_MODELS = 5_000
MAX_TERRAIN = 1_000
MAX_TEMPLATES = 100
MAX_DEPTH = 12  # nesting of tables and lists anywhere in a scenario (the format itself needs 4)
MAX_FREE_DEPTH = 6  # nesting inside weapon, stats, rolls
MAX_ROLL = 1000  # a fixed die result
MAX_SIGMA_MM = 1000.0  # a position error beyond a metre is no measurement
MAX_IMAGE_PX = 1_000_000.0  # |a backdrop corner| in image pixels
#: Problems of one file named at once: enough for every typo of a hand-written table, not 5,000 lines of one mistake.
MAX_PROBLEMS = 50
#: Keys of an inline template shape table.
SHAPE_KEYS = frozenset({"kind", "diameter", "radius", "length", "width", "tip_width", "end_width", "angle", "label", "size_uncertainty"})
#: Weapon counts the rulesets turn into work, with the most a table can field. A volley is resolved missile by
#: missile (and shown a line each): 100 templates of 100-missile volleys over 300 models check in about a second
#: and their odds take about 0.3 s a template; the game's largest volleys are a few dozen missiles.
WEAPON_COUNTS: dict[str, int] = {"volley": 100, "burst": 100, "increment": 1000, "damage": 100_000, "max_damage": 100_000, "md": 100_000}
#: Stats the rulesets turn into work.
STAT_COUNTS: dict[str, int] = {"damage_tracks": 1000}


def _shown(value: Any) -> str:
    """A value quoted in a message: short, and never 4 MB of it."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_EXACT_INT:
        # Counted without str(): log10(2) per bit gives the digits or one less; one power of ten decides.
        digits = int((abs(value).bit_length() - 1) * 0.30102999566398) + 1
        if abs(value) >= 10**digits:
            digits += 1
        return f"a {digits}-digit number"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
