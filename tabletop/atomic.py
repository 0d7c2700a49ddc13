"""The one way Tabletop writes a file: temp file in the same folder, fsync, rename, fsync the folder.

Readers see the old file or the new one, never half of one; a failure (full
disk, no permission) leaves the old file as it was and raises :class:`OutputError`
naming the path. Writing through a symbolic link writes the link's target and
keeps the link. The data is whole in memory before the temp file is made: an
encoder that fails quietly on a full disk (``pygame.image.save``) never writes
a file, and the written size is checked against it.

The target is resolved twice: when a command starts (:func:`check_output`, so bad
paths fail before the work) and again just before the rename, so a path swapped
during a long render for a link to one of the command's inputs is refused then.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

#: Longest file name (one path component) most file systems take, in bytes.
NAME_MAX_BYTES = 255
#: The temp file's name: short, so any legal output name has a temp name beside it.
TEMP_PREFIX, TEMP_SUFFIX = ".tabletop-", ".tmp"

Inputs = Iterable["Path | str | None"]


class OutputError(OSError):
    """An output file that cannot be written; the message names the path."""


def _shown(path: Path | str) -> str:
    """``path`` for a message: a name too long to read is cut in the middle."""
    text = str(path)
    return text if len(text) <= 120 else f"{text[:60]}…{text[-40:]}"


def _check_names(path: Path | str) -> None:
    """Refuse a path with a name (any component) longer than the file system takes."""
    for part in Path(path).parts:
        size = len(os.fsencode(part))
        if size > NAME_MAX_BYTES:
            raise OutputError(f"{_shown(path)}: the file name is {size} bytes long; the limit is {NAME_MAX_BYTES} bytes")


def target_of(path: Path | str) -> Path:
    """The file a write to ``path`` should replace: the end of any chain of symbolic links."""
    text = str(path)
    if not text.strip():
        raise OutputError("output path is empty")
    _check_names(text)
    p = Path(text)
    try:
        if p.is_symlink():
            resolved = Path(os.path.realpath(p))
            _check_names(resolved)
            return resolved
    except OSError as exc:
        raise OutputError(f"{_shown(path)}: cannot write: {exc.strerror or exc}") from None
    return p


def check_writable(path: Path | str) -> Path:
    """Refuse, before any work is done, an output path that cannot become a regular file.

    Returns the path to write (the link's target for a symbolic link).
    """
    target = target_of(path)
    folder = target.parent if str(target.parent) else Path(".")
    if str(path).endswith(os.sep):
        raise OutputError(f"{_shown(path)}: is a folder, not a file name")
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"{_shown(path)}: cannot write: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{_shown(path)}: is a folder, not a file name")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputError(f"{_shown(path)}: is not a regular file (a device, pipe or socket); write to a file")
    if not folder.is_dir():
        raise OutputError(f"{_shown(path)}: folder {_shown(folder)} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{_shown(path)}: cannot write in folder {_shown(folder)} (permission denied)")
    return target


def _refuse_inputs(path: Path | str, target: Path, inputs: Inputs) -> None:
    """Raise OutputError if ``target`` is one of ``inputs`` (the same file by any name: same inode)."""
    for source in inputs:
        if source is None:
            continue
        try:
            same = os.path.samefile(target, source)
        except OSError:
            try:
                same = os.path.abspath(target) == os.path.abspath(target_of(source))
            except OutputError:
                same = False
        if same:
            raise OutputError(f"{_shown(path)}: is the command's own input {_shown(source)}; write to another file")


def check_output(path: Path | str, inputs: Inputs = ()) -> Path:
    """:func:`check_writable`, and refuse an output that is one of the command's own ``inputs``
    (``render d.toml -o d.toml`` would replace the table with a picture)."""
    target = check_writable(path)
    _refuse_inputs(path, target, inputs)
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


def _still_the_target(path: Path | str, target: Path, inputs: Inputs) -> None:
    """Just before the rename: ``path`` still leads to ``target``, a regular file or nothing, and no input."""
    now = target_of(path)
    if os.path.abspath(now) != os.path.abspath(target):
        raise OutputError(f"{_shown(path)}: changed while it was being written (it now leads to {_shown(now)}); nothing written")
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputError(f"{_shown(path)}: changed while it was being written (no longer a regular file); nothing written")
    _refuse_inputs(path, target, inputs)


@contextlib.contextmanager
def replacing(path: Path | str, inputs: Inputs = ()) -> Iterator[Path]:
    """Yield a temp path beside ``path``'s target; on success it is synced and renamed over that target.

    On any failure the temp file is removed, ``path`` is untouched and the error
    is raised (an :class:`OutputError` for an OSError, naming the path). The temp
    file has a short name of its own (``.tabletop-XXXXXXXX.tmp``), never the
    target's suffix: what it holds is written by the caller, not guessed from a name.
    """
    import tempfile  # imports random and hashlib: only when a file is written

    inputs = [s for s in inputs if s is not None]
    target = check_output(path, inputs)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=folder)
    except OSError as exc:
        raise OutputError(f"{_shown(path)}: cannot write: {exc.strerror or exc}") from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~_UMASK
        os.chmod(tmp, mode)
        _still_the_target(path, target, inputs)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise OutputError(f"{_shown(path)}: cannot write: {exc.strerror or exc}") from exc
        raise
    _fsync_folder(folder)


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# Read once at import: os.umask is process-wide, so probing it later could race another thread.
_UMASK = _read_umask()


def atomic_write(path: Path | str, data: bytes, inputs: Inputs = ()) -> None:
    """Write ``data`` to ``path`` atomically (see the module doc); raises OutputError.

    ``inputs``: the files the command read; the write is refused if ``path`` leads to
    one of them when the file is replaced (checked again just before the rename).
    """
    with replacing(path, inputs) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
            written = os.fstat(f.fileno()).st_size
        if written != len(data):
            raise OSError(errno.ENOSPC, f"only {written} of {len(data)} bytes written (is the disk full?)")


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
        size, most = _size(st.st_size), _size(limit)
        if size == most:  # just over: "file is 10 MB; the limit is 10 MB" would read as no reason at all
            size, most = f"{st.st_size:,} bytes", f"{most} ({limit:,} bytes)"
        raise InputError(f"file is {size}; the limit is {most}")
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
