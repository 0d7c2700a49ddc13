"""Geometry only: one ruleset, one folder.

``rules.py`` the rules (``resolve``, settings, checks); ``README.md`` its documentation page. ``RULESET`` (here) is the registered object, with every hook attached.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tabletop.rulesets.none import rules

RULESET = replace(
    rules.RULESET,
    doc_path=Path(__file__).with_name("README.md"),
)
