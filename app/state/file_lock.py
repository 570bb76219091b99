"""An exclusive lock on a file, held across processes, on every platform.

POSIX: `flock`, which waits for as long as another process holds the lock.  Windows has no
flock: `msvcrt.locking` locks a byte range instead (here the first byte, which may lie past the
end of an empty file); its blocking mode gives up with OSError after ten tries a second apart,
so we try again until it is ours, waiting as long as flock would.  The operating system drops
either lock when its process ends, however it ends: a crash leaves nothing stale.  Chosen over
the `filelock` library because the tray's own lock (app/tray/running/instance.py) already locks this
way: no dependency for twenty lines.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

if sys.platform == "win32":  # pragma: no cover - Windows (its logic is tested by _wait_for_range)
    import msvcrt

    def _lock(fd: int) -> None:
        _wait_for_range(fd, lambda: msvcrt.locking(fd, msvcrt.LK_LOCK, 1))

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _wait_for_range(fd: int, lock_first_byte: Callable[[], None]) -> None:
    """Windows: lock the file's first byte, trying again for as long as another process holds
    it (`lock_first_byte` raises OSError when its own tries ran out)."""
    while True:
        os.lseek(fd, 0, os.SEEK_SET)  # msvcrt locks from the current position
        try:
            lock_first_byte()
        except OSError:
            continue
        return


@contextlib.contextmanager
def held(path: Path) -> Iterator[None]:
    """Hold the exclusive lock on `path` (made 0600 if missing) for the `with` block."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        _lock(fd)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)
