"""JSON for people and programs: indented, with every flat list or object on one line."""

from __future__ import annotations

import json
from typing import Any

# ``JSONEncoder.encode`` without ``indent`` runs the C encoder; indented output would
# use the pure-Python one, several times slower on a 300-model report.
_FLAT = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))

try:
    from json.encoder import c_make_encoder as _c_make_encoder
except ImportError:  # a Python without the C accelerator
    _c_make_encoder = None


def _flat_encoder() -> Any:
    """``_FLAT.encode`` without building a new C encoder at every call (a report makes thousands).

    The same arguments ``JSONEncoder.iterencode`` passes, but no circular-reference markers:
    a flat value holds no container. A test holds the two to the same output."""
    if _c_make_encoder is None:
        return _FLAT.encode
    c_encode = _c_make_encoder(
        None, _FLAT.default, json.encoder.encode_basestring, None, _FLAT.key_separator, _FLAT.item_separator,
        _FLAT.sort_keys, _FLAT.skipkeys, _FLAT.allow_nan,
    )

    def encode(value: Any) -> str:
        return "".join(c_encode(value, 0))

    return encode


_encode_flat = _flat_encoder()


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
            out.append(_encode_flat(v))
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
