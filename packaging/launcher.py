"""Entry point of the standalone build: the ``tabletop`` command, frozen.

PyInstaller starts here instead of the console script. ``freeze_support`` lets the
odds worker (a spawned process) start from the frozen executable.
"""

from __future__ import annotations

import multiprocessing
import os
import sys


def main() -> int:
    """Run ``tabletop`` with the process's arguments."""
    multiprocessing.freeze_support()
    # Window managers match the window to tabletop.desktop (StartupWMClass) by this class.
    os.environ.setdefault("SDL_VIDEO_X11_WMCLASS", "tabletop")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from tabletop.cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    sys.exit(main())
