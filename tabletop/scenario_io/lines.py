"""Line numbers of fields in a TOML text, and field paths as a user reads them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_\-]+)\s*(?:\.\s*[A-Za-z0-9_\-"']+\s*)*=""")


def toml_lines(text: str) -> dict[tuple[Any, ...], int]:
    """Map field paths (``("model", 3, "base")``) to 1-based line numbers of a TOML text."""
    lines: dict[tuple[Any, ...], int] = {}
    counts: dict[tuple[Any, ...], int] = {}
    current: tuple[Any, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            parts = tuple(p.strip().strip("\"'") for p in header.group(2).split("."))
            if header.group(1) == "[[":
                index = counts.get(parts, 0)
                counts[parts] = index + 1
                current = (*parts, index)
            else:
                current = parts
            lines.setdefault(current, number)
            continue
        key = _KEY.match(line)
        if key:
            lines.setdefault((*current, key.group(1).strip("\"'")), number)
    return lines


def _line_for(lines: Mapping[tuple[Any, ...], int], path: Sequence[Any]) -> int | None:
    for n in range(len(path), 0, -1):
        if tuple(path[:n]) in lines:
            return lines[tuple(path[:n])]
    return None


def format_path(loc: Sequence[Any]) -> str:
    """``("model", 3, "base")`` -> ``model[3].base``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out
