"""Output paths: create folders and check they can be written, with one clear error."""

from __future__ import annotations

import os
from pathlib import Path

from mjscope.exceptions import OutputError


def ensure_dir(path: str | Path, what: str = "output folder") -> Path:
    """Create a folder (and its parents) if needed.

    Args:
        path: The folder.
        what: What to call it in the error message.

    Returns:
        The folder as a ``Path``.

    Raises:
        OutputError: It cannot be created (a file is in the way, no permission, ...).
    """
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create {what} {str(p)!r}: {e.strerror}; choose another") from e
    return p


def check_writable(path: str | Path) -> Path:
    """Make sure a file's folder exists (creating it) and can be written.

    Args:
        path: The file to be written.

    Returns:
        The file path as a ``Path``.

    Raises:
        OutputError: The path is a folder, or its folder cannot be created or written.
    """
    p = Path(path)
    if p.is_dir():
        raise OutputError(f"{str(p)!r} is a folder; give a file name inside it")
    ensure_dir(p.parent, "folder")
    if not os.access(p.parent, os.W_OK):
        raise OutputError(f"folder {str(p.parent)!r} is not writable; choose another output path")
    return p
