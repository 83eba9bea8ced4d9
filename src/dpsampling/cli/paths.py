"""Output paths checked before any work: a command that would fail to write its file after
minutes of computing refuses at once instead, in one line naming the flag, the path and why
(a folder where a file is meant, a regular file where a folder is meant, a folder missing or
not writable -- tried by creating a file, since os.access says yes to root on a read-only file
system)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def output_file(path, flag: str, suffixes: tuple = (), create_folders: bool = False) -> Path:
    """``path`` as a file the command can write (nothing is written); ``create_folders``: missing
    folders will be made, so the nearest existing one must be writable."""
    target = Path(path)
    if suffixes and target.suffix.lower() not in suffixes:
        raise ValueError(f"{flag} must end in {' or '.join(suffixes)}; got {str(path)!r}")
    folder = target.parent
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise ValueError(f"{flag} must be in a folder; got {str(path)!r} ({existing} is a file, not a folder)")
    if not folder.is_dir() and not create_folders:
        raise ValueError(f"{flag} must be in an existing folder; got {str(path)!r} ({folder} does not exist)")
    if target.is_dir():
        raise ValueError(f"{flag} must be a file; got {str(path)!r} (a folder)")
    try:
        with tempfile.NamedTemporaryFile(dir=existing or Path.cwd(), prefix=".dpsampling-check-"):
            pass
    except OSError as error:
        raise ValueError(f"{flag} must be a file in a writable folder; got {str(path)!r} ({existing}: cannot create "
                         f"a file there: {error.strerror})") from None
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{flag} must be a writable file; got {str(path)!r} (it exists, read-only)")
    return target


__all__ = ["output_file"]
