"""How much the results panel shows: its text box lays text out in time growing faster than its lines.

pygame_gui's text box took 43 s to lay out the 4,400 lines of twenty 100-missile volleys (a missile a
line), on the frame loop: the app froze while opening such a table. Each template shows at most
:data:`TEMPLATE_LINES` lines of its account and the panel at most :data:`PANEL_LINES` (about a
quarter of a second to lay out), each cut saying how much is left out and where to read it all.
Pure: no pygame.
"""

from __future__ import annotations

import html

#: Lines of one template's account (the ruleset's summary, then the steps and dice after Fire).
TEMPLATE_LINES = 40
#: Lines of the whole panel.
PANEL_LINES = 400
_WHERE = "Export (Ctrl+E) to .md, or tabletop explain FILE, gives them all"


def _note(text: str) -> str:
    return "<font color='#9aa4ae'>" + html.escape(f"{text}; {_WHERE}") + "</font>"


def template_lines(lines: list[str], limit: int = TEMPLATE_LINES) -> list[str]:
    """``lines`` (HTML) of one template, the excess replaced by one line saying how many."""
    if len(lines) <= limit:
        return lines
    left = len(lines) - (limit - 1)
    return [*lines[: limit - 1], _note(f"… {left:,} more lines of this template")]


def panel_lines(lines: list[str], limit: int = PANEL_LINES) -> list[str]:
    """The panel's ``lines`` (HTML; one may hold ``<br>``s), the excess replaced by one line saying how many."""
    heights = [1 + line.count("<br>") for line in lines]
    if sum(heights) <= limit:
        return lines
    kept, used = 0, 0
    while used + heights[kept] <= limit - 1:
        used += heights[kept]
        kept += 1
    return [*lines[:kept], _note(f"… {sum(heights[kept:]):,} more lines")]
