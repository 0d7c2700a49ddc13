"""The one way Tabletop writes a file: temp file in the same folder, fsync, rename, fsync the folder.

Readers see the old file or the new one, never half of one; a failure (full
disk, no permission) leaves the old file as it was and raises :class:`OutputError`
naming the path. Writing through a symbolic link writes the link's target and
keeps the link.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path


class OutputError(OSError):
    """An output file that cannot be written; the message names the path."""


def target_of(path: Path | str) -> Path:
    """The file a write to ``path`` should replace: the end of any chain of symbolic links."""
    text = str(path)
    if not text.strip():
        raise OutputError("output path is empty")
    p = Path(text)
    if p.is_symlink():
        return Path(os.path.realpath(p))
    return p


def check_writable(path: Path | str) -> Path:
    """Refuse, before any work is done, an output path that cannot become a regular file.

    Returns the path to write (the link's target for a symbolic link).
    """
    target = target_of(path)
    folder = target.parent if str(target.parent) else Path(".")
    if str(path).endswith(os.sep):
        raise OutputError(f"{path}: is a folder, not a file name")
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{path}: is a folder, not a file name")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputError(f"{path}: is not a regular file (a device, pipe or socket); write to a file")
    if not folder.is_dir():
        raise OutputError(f"{path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{path}: cannot write in folder {folder} (permission denied)")
    return target


def check_output(path: Path | str, inputs: Iterable[Path | str] = ()) -> Path:
    """:func:`check_writable`, and refuse an output that is one of the command's own ``inputs``
    (``render d.toml -o d.toml`` would replace the table with a picture)."""
    target = check_writable(path)
    for source in inputs:
        if source is None:
            continue
        try:
            same = os.path.samefile(target, source)
        except OSError:
            same = os.path.abspath(target) == os.path.abspath(target_of(source))
        if same:
            raise OutputError(f"{path}: is the command's own input {source}; write to another file")
    return target


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a folder; the rename itself is still atomic
    finally:
        os.close(fd)


@contextlib.contextmanager
def replacing(path: Path | str) -> Iterator[Path]:
    """Yield a temp path beside ``path`` (same suffix); on success it is synced and renamed over ``path``.

    On any failure the temp file is removed, ``path`` is untouched and the error
    is raised (an :class:`OutputError` for an OSError, naming the path).
    """
    import tempfile  # imports random and hashlib: only when a file is written

    target = check_writable(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{target.suffix}", dir=folder)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~_UMASK
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from exc
        raise
    _fsync_folder(folder)


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# Read once at import: os.umask is process-wide, so probing it later could race another thread.
_UMASK = _read_umask()


def atomic_write(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see the module doc); raises OutputError."""
    with replacing(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())


def write_with(path: Path | str, writer: Callable[[Path], object]) -> None:
    """Atomically replace ``path`` with what ``writer(temp_path)`` writes (e.g. a PNG encoder)."""
    with replacing(path) as tmp:
        writer(tmp)


class InputError(OSError):
    """An input file that cannot be read; the message says why (without the path)."""


def read_regular(path: Path | str, limit: int) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes; else InputError.

    A FIFO, a device (``/dev/zero``, ``/dev/urandom``), a socket or a folder — also
    behind a symbolic link — is refused before it is read: reading one would hang
    or never end.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError("no such file") from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError("is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise InputError("is not a regular file (a pipe, device or socket); give a file")
    if st.st_size > limit:
        raise InputError(f"file is {_size(st.st_size)}; the limit is {_size(limit)}")
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO since the stat, opening must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise InputError("is not a regular file (a pipe, device or socket); give a file")
        try:
            data = f.read(limit + 1)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise InputError(f"file is larger than the limit of {_size(limit)}")
    return data


def _size(n: int) -> str:
    """``n`` bytes for a message: "8.7 MB", "256 KB" (a limit under a megabyte is not "0 MB")."""
    return f"{n / (1024 * 1024):.1f} MB".replace(".0 MB", " MB") if n >= 1024 * 1024 else f"{max(1, round(n / 1024))} KB"
