"""Compare scenarios the way saving promises: every length within the file's write resolution."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from tabletop.units import WRITE_RESOLUTION_MM


def differences(a: Any, b: Any, tolerance: float = WRITE_RESOLUTION_MM, where: str = "scenario") -> list[str]:
    """Where ``a`` and ``b`` differ: numbers by more than ``tolerance`` (mm), anything else at all."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        if type(a) is not type(b):
            return [f"{where}: {type(a).__name__} != {type(b).__name__}"]
        out: list[str] = []
        for field in dataclasses.fields(a):
            out += differences(getattr(a, field.name), getattr(b, field.name), tolerance, f"{where}.{field.name}")
        return out
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            return [f"{where}: keys {sorted(map(str, a))} != {sorted(map(str, b))}"]
        return [d for k in a for d in differences(a[k], b[k], tolerance, f"{where}[{k!r}]")]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return [f"{where}: {len(a)} items != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, tolerance, f"{where}[{i}]")]
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) and not isinstance(b, bool):
        return [] if abs(a - b) <= tolerance else [f"{where}: {a!r} != {b!r}"]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]
