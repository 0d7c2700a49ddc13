"""Tabletop: settle area-of-effect templates in miniature wargames.

The package's core (geometry, rules, scenario I/O) never imports pygame; only
``tabletop.app`` and ``tabletop.draw`` do.
"""

from __future__ import annotations

__version__ = "0.1.0"
