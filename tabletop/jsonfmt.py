"""JSON for people and programs: indented, with every flat list or object on one line."""

from __future__ import annotations

import json
from typing import Any

# ``JSONEncoder.encode`` without ``indent`` runs the C encoder; indented output would
# use the pure-Python one, several times slower on a 300-model report.
_FLAT = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


def _key(key: object) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool) or key is None:
        return json.dumps(key)
    return _FLAT.encode(key)  # numbers, as json.dumps writes dict keys


def _is_flat(value: object) -> bool:
    if isinstance(value, dict):
        return not any(isinstance(v, (dict, list, tuple)) for v in value.values())
    if isinstance(value, (list, tuple)):
        return not any(isinstance(v, (dict, list, tuple)) for v in value)
    return True


def readable_json(value: Any, indent: int = 2) -> str:
    """``value`` as JSON, indented like ``json.dumps(indent=2)`` except that a list or
    object holding no list or object stays on one line (a point, a model's status)."""
    out: list[str] = []

    def write(v: Any, level: int) -> None:
        if _is_flat(v):
            out.append(_FLAT.encode(v))
            return
        inner = " " * (indent * (level + 1))
        if isinstance(v, dict):
            out.append("{\n")
            for k, (key, item) in enumerate(v.items()):
                out.append(f"{inner}{_FLAT.encode(_key(key))}: ")
                write(item, level + 1)
                out.append(",\n" if k < len(v) - 1 else "\n")
            out.append(" " * (indent * level) + "}")
        else:
            out.append("[\n")
            for k, item in enumerate(v):
                out.append(inner)
                write(item, level + 1)
                out.append(",\n" if k < len(v) - 1 else "\n")
            out.append(" " * (indent * level) + "]")

    write(value, 0)
    return "".join(out)
