"""Where the bundled data lives: the catalogue (``assets/``) and the demo tables (``scenarios/``).

A source checkout and the PyInstaller build keep them beside the package; a wheel
install (``pipx install .``, ``pip install .``) puts them under
``<prefix>/share/tabletop/`` (pyproject's ``data-files``). Pure: no pygame.
"""

from __future__ import annotations

import site
import sys
from pathlib import Path

_BESIDE_PACKAGE = Path(__file__).resolve().parent.parent


def data_dir(name: str) -> Path:
    """The bundled folder ``name`` (``"assets"`` or ``"scenarios"``); the checkout's path when none exists."""
    candidates = [_BESIDE_PACKAGE / name, Path(sys.prefix) / "share" / "tabletop" / name]
    user_base = getattr(site, "USER_BASE", None)  # `pip install --user`
    if user_base:
        candidates.append(Path(user_base) / "share" / "tabletop" / name)
    return next((c for c in candidates if c.is_dir()), candidates[0])
