"""Old home of the odds overlay: ``tabletop.draw_odds`` is ``tabletop.draw.odds`` (same module object)."""

from __future__ import annotations

import sys

from tabletop.draw import odds as _odds

sys.modules[__name__] = _odds
