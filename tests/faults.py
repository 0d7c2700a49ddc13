"""Faults the tests inject into writers: a disk that fills up part-way through a write."""

from __future__ import annotations

import errno
import io
from typing import Any


class FullDisk(io.RawIOBase):
    """A file whose write stores half of the data, then fails with ENOSPC."""

    def __init__(self, path: Any, mode: str) -> None:
        self._f = open(path, mode)  # noqa: SIM115 - closed in close()

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._f.write(bytes(data)[: len(data) // 2])
        self._f.flush()
        raise OSError(errno.ENOSPC, "No space left on device")

    def fileno(self) -> int:
        return self._f.fileno()

    def close(self) -> None:
        self._f.close()
        super().close()
