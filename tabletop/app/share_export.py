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
            render_svg(adj, path, (max(320, r.width), max(240, r.height)), app._draw_options(selected=False), "table")
        elif suffix == ".gif":
            from tabletop.draw.animate import render_animation

            render_animation(adj, path, width=800)
        else:
            from tabletop.explain import explain_text

            atomic_write(path, explain_text(adj, markdown=True).encode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - a failed export is a message, the app carries on
        app.show_message("Could not export", html.escape(f"{path}: {type(exc).__name__}: {exc}"[:600]))
        return False
    app.flash(f"Exported {path} ({EXPORTS[suffix]})")
    return True
