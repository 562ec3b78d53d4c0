"""Output paths: create folders and check they can be written, with one clear error."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mjscope.exceptions import OutputError

STDOUT = "-"
"""The path that means "standard output" (``--json -``)."""


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
    """Make sure a file's folder exists (creating it) and can be written (``-``: stdout).

    Args:
        path: The file to be written.

    Returns:
        The file path as a ``Path``.

    Raises:
        OutputError: The path is a folder, or its folder cannot be created or written.
    """
    p = Path(path)
    if str(path) == STDOUT:  # ``--json -``: standard output, nothing to check
        return p
    if p.is_dir():
        raise OutputError(f"{str(p)!r} is a folder; give a file name inside it")
    ensure_dir(p.parent, "folder")
    # A real probe file: os.access says yes to root on read-only or pseudo file systems (/proc).
    probe = p.with_name(f".{p.name}.probe-{os.getpid()}")
    try:
        probe.open("x").close()
        probe.unlink()
    except OSError as e:
        raise OutputError(
            f"folder {str(p.parent)!r} is not writable ({e.strerror}); choose another output path"
        ) from e
    return p


def part_path(path: Path) -> Path:
    """The hidden file beside ``path`` that is filled first and then renamed over ``path``.

    It keeps ``path``'s suffix (writers pick the format from it) and this process's id (two
    runs writing the same name do not share a part file).
    """
    return path.with_name(f".{path.stem}.{os.getpid()}.part{path.suffix}")


def move_into_place(part: Path, path: Path) -> None:
    """Rename the finished ``part`` over ``path`` (atomic on one file system).

    Raises:
        OutputError: The rename failed (the folder was removed, ...); ``part`` is removed.
    """
    try:
        os.replace(part, path)
    except OSError as e:
        part.unlink(missing_ok=True)
        raise output_error(path, e.strerror or str(e)) from e


def output_error(path: Path, reason: str) -> OutputError:
    """One-line error naming the file, the reason and the fix."""
    first = (reason.strip().splitlines() or ["I/O error"])[0]
    return OutputError(
        f"cannot write {str(path)!r}: {first}; check the folder and the free disk space, "
        "or choose another output path"
    )


@contextmanager
def atomic_path(path: str | Path, suffix: str | None = None) -> Iterator[Path]:
    """A partial file beside ``path`` to write into; renamed over ``path`` on success.

    On any error (or Ctrl-C) inside the block, the partial file is removed and an earlier
    ``path`` stays as it was.

    Args:
        path: The file to write.
        suffix: The partial file's suffix (default: ``path``'s, so writers that pick a format
            by extension still do).

    Yields:
        The partial file's path.

    Raises:
        OutputError: ``path`` cannot be written, or the rename fails.
    """
    p = check_writable(path)
    tmp = part_path(p if suffix is None else p.with_suffix(suffix))
    try:
        yield tmp
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise output_error(p, e.strerror or str(e)) from e
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    move_into_place(tmp, p)


def write_bytes(path: str | Path, content: bytes) -> Path:
    """Write a file whole: into a partial file beside it, then renamed over it.

    An earlier file of that name is replaced only once the new one is complete; a failed write
    (a full disk) removes the partial file and raises one clear error.

    Args:
        path: The file to write.
        content: Its bytes.

    Returns:
        The file path as a ``Path``.

    Raises:
        OutputError: The file cannot be written.
    """
    with atomic_path(path) as tmp:
        tmp.write_bytes(content)
    return Path(path)


def write_text(path: str | Path, text: str) -> Path:
    """Write a UTF-8 text file whole, as :func:`write_bytes` does; ``"-"``: to standard output.

    Raises:
        OutputError: The file cannot be written.
    """
    if str(path) == STDOUT:  # ``--json -``: the summary alone on stdout
        sys.stdout.write(text)
        sys.stdout.flush()
        return Path(STDOUT)
    return write_bytes(path, text.encode("utf-8"))


def check_json_path(path: str | None, flag: str = "--json") -> Path | None:
    """A ``--json PATH|-`` option checked before a run: ``-``, or a writable ``.json`` file.

    Raises:
        OutputError: Another suffix, or the path cannot be written.
    """
    if path is None:
        return None
    if path != STDOUT and Path(path).suffix.lower() != ".json":
        raise OutputError(f"{flag} {path!r} must end in .json (or be - for stdout)")
    return check_writable(path)


def write_json(path: str | Path, obj: Any, default: Callable[[Any], Any] | None = None) -> Path:
    """Write ``obj`` as indented JSON with :func:`write_text` (``"-"``: to standard output).

    ``default`` is as in ``json.dumps``.
    """
    return write_text(path, json.dumps(obj, indent=2, default=default) + "\n")
