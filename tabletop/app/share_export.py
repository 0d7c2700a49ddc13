"""The Export dialog's formats: PNG (the view as it is), SVG, an animated GIF of the Fire sequence
and the Markdown explanation, chosen by the file's extension."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from tabletop.scenario_io import atomic_write

#: Extension -> what the Export dialog writes.
EXPORTS: dict[str, str] = {
    ".png": "the view as a PNG",
    ".svg": "the table as an SVG (vector)",
    ".gif": "the Fire sequence as an animated GIF",
    ".md": "the ruling step by step, in Markdown",
}


def export_as(app: Any, path: str) -> bool:
    """Write what ``app`` shows to ``path`` in the format its extension names; a failure is a message."""
    suffix = Path(path).suffix.lower()
    if suffix == ".png" or suffix not in EXPORTS:
        return bool(app.export_png(path if suffix == ".png" else path + ".png"))
    adj = app.adjudication()
    try:
        if suffix == ".svg":
            from tabletop.draw.svg import render_svg

            r = app.view_rect
            render_svg(adj, path, (max(320, r.width), max(240, r.height)), app._draw_options(still=True), "table")
        elif suffix == ".gif":
            from tabletop.draw.animate import render_animation

            render_animation(adj, path, width=800)
        else:
            atomic_write(path, markdown_export(app, adj).encode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - a failed export is a message, the app carries on
        app.show_message("Could not export", html.escape(f"{path}: {type(exc).__name__}: {exc}"[:600]))
        return False
    app.flash(f"Exported {path} ({EXPORTS[suffix]})")
    return True


def markdown_export(app: Any, adj: Any) -> str:
    """The ruling in Markdown, then the rolls it shows and their log (``--rolls`` replays it).

    After a Fire the shown ruling is the Fire's (Dice free: the file's fixed rolls set aside,
    what-if rolls applied); otherwise the live one, with the file's fixed rolls.
    """
    from tabletop.explain import explain_text
    from tabletop.replay import rolls_markdown

    firing = app.firing
    fired = firing is not None and firing.done and firing.adjudication is adj
    dice_free = bool(fired and firing.dice_free)
    what_if = firing.what_if if fired else None
    lines = explain_text(adj, markdown=True).rstrip("\n").split("\n")
    note = (
        "*Dice free: every die rolled, the file's fixed rolls set aside. The rolls are listed under Dice, with their log to replay them.*"
        if dice_free
        else "*The rolls are listed under Dice, with their log to replay them.*"
    )
    at = next((i for i, line in enumerate(lines) if line.startswith("*Ruleset:")), None)
    if at is not None:
        lines[at + 1 : at + 1] = ["", note]
    return "\n".join(lines) + "\n" + rolls_markdown(adj, dice_free=dice_free, what_if=what_if)
