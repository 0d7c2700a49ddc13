"""Where the Save As and Export dialogs start: beside the open file, else in the user's documents."""

from __future__ import annotations

import re
from pathlib import Path

import platformdirs


def default_folder(current: str | None) -> Path:
    """The open file's folder; for a table without a file (new, a demo's copy) the user's
    documents folder, else the home folder; never the process's working directory."""
    if current:
        return Path(current).absolute().parent
    documents = Path(platformdirs.user_documents_dir())
    return documents if documents.is_dir() else Path.home()


def suggested_path(current: str | None, title: str | None, suffix: str) -> str:
    """The path a dialog offers: the open file with ``suffix``, else a name made from the title."""
    if current:
        return str(Path(current).absolute().with_suffix(suffix))
    return str(default_folder(None) / (file_stem(title) + suffix))


def file_stem(title: str | None) -> str:
    """``"Ford ambush at dawn"`` → ``"ford-ambush-at-dawn"``; "table" without a usable title."""
    words = re.findall(r"[a-z0-9]+", (title or "").lower())
    return "-".join(words)[:60].strip("-") or "table"
