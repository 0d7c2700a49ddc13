"""Blast increments on a square grid: one ruleset, one folder.

``rules.py`` the rules (``resolve``, settings, checks); ``marks.py`` what it draws on the table; ``panel.py`` its results-panel lines; ``README.md`` its documentation page; ``rules_text.py`` the rule and seed sentence of each step. ``RULESET`` (here) is the registered object, with every hook attached.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tabletop.plugin import step_rule_hook
from tabletop.rulesets.increments import marks, panel, rules, rules_text

RULESET = replace(
    rules.RULESET,
    marks=marks.marks,
    panel_lines=panel.panel_lines,
    doc_path=Path(__file__).with_name("README.md"),
    step_rule=step_rule_hook(rules_text.RULES),
)
