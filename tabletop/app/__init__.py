"""The desktop app: pygame-ce + pygame-gui shell over the pure core.

``main(path)`` opens a window on ``path`` (or the bundled default table) and
returns the exit code. Importing this package does not import pygame.
"""

from __future__ import annotations


def main(path: str | None = None) -> int:
    """Run the desktop app on ``path`` (``None``: the bundled ``scenarios/default.toml``)."""
    from .window import run

    return run(path)


__all__ = ["main"]
