"""Writing a file so that a crash at any moment leaves the old version or the new one, whole."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def temp_beside(path: Path, data: bytes, mode: int) -> Path:
    """A new temporary file beside `path` (so a rename over it stays on one file system),
    holding `data` with `mode`, synced to disk."""
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            # By its name, not its descriptor: Windows has os.fchmod only from Python 3.13.  mkstemp
            # made it 0600 already; on Windows a mode keeps only its read-only bit.
            os.chmod(temp, mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    return Path(temp)


def write_atomically(path: Path, data: bytes, mode: int) -> None:
    """`data` written beside `path` and renamed over it; then the folder is synced so the rename
    lasts."""
    temp = temp_beside(path, data, mode)
    try:
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    if os.name == "posix":  # Windows cannot open (nor needs to sync) a folder
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
