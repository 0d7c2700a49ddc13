"""The desktop app: pygame-ce + pygame-gui shell over the pure core.

``main(path)`` opens a window on ``path`` (or the bundled default table) and
returns the exit code. Importing this package does not import pygame.
"""

from __future__ import annotations


def main(path: str | None = None) -> int:
    """Run the desktop app on ``path`` (``None``: the bundled ``scenarios/default.toml``)."""
    import os

    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # before pygame is imported: stdout stays quiet
    from .window import run

    return run(path)


__all__ = ["main"]
