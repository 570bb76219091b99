"""One tray per person: a lock the running tray holds, and requests other commands leave it.

The tray holds an exclusive lock on `tray.lock` in the state folder for its whole life (the
operating system drops it when the process ends, however it ends: a crash leaves nothing
stale), with its process id written inside.  A second `vault-recall` finds the lock taken and
leaves a request instead of starting: `show` (the running tray says where it is) or `quit`
(`vault-recall quit`).  A request is one small file, `tray.request`, that the tray's watcher
looks for once a second, takes and removes — the same on every platform, with no socket or bus
name to secure.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

from vault_recall.app.state.atomic_write import write_atomically
from vault_recall.server.config.config_file import state_dir

LOCK_FILE = "tray.lock"
REQUEST_FILE = "tray.request"
REQUESTS = ("show", "quit")

if sys.platform == "win32":  # pragma: no cover - Windows (not run here)
    import msvcrt

    def _try_lock(fd: int, exclusive: bool) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        with contextlib.suppress(OSError):
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int, exclusive: bool) -> bool:
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _folder(folder: Path | None) -> Path:
    folder = folder or state_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


class TrayLock:
    """The lock of the running tray, held until `release` or the process ends."""

    def __init__(self, fd: int, folder: Path) -> None:
        self._fd: int | None = fd
        self.folder = folder

    def release(self) -> None:
        if self._fd is not None:
            _unlock(self._fd)
            os.close(self._fd)
            self._fd = None


def acquire(folder: Path | None = None) -> TrayLock | None:
    """Become the one running tray: the lock, or None when another tray holds it.  A request
    left for a tray that has ended since is dropped: it was not meant for this one."""
    folder = _folder(folder)
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    if not _try_lock(fd, exclusive=True):
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode("ascii"))
    (folder / REQUEST_FILE).unlink(missing_ok=True)
    return TrayLock(fd, folder)


def running_pid(folder: Path | None = None) -> int | None:
    """The running tray's process id (0 when it cannot be read), or None when none runs."""
    path = _folder(folder) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        if _try_lock(fd, exclusive=False):
            _unlock(fd)
            return None  # nobody holds it
        text = os.read(fd, 32).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    return int(text) if text.isdigit() else 0


def send(request: str, folder: Path | None = None) -> int | None:
    """Leave `request` for the running tray; its process id, or None when no tray runs."""
    if request not in REQUESTS:
        raise ValueError(f"unknown tray request {request!r}")
    folder = _folder(folder)
    pid = running_pid(folder)
    if pid is not None:
        write_atomically(folder / REQUEST_FILE, request.encode("ascii"), 0o600)
    return pid


def request_path(folder: Path | None = None) -> Path:
    """Where a request for the running tray is left (the tray watches it)."""
    return (folder or state_dir()) / REQUEST_FILE


def take_request(folder: Path | None = None) -> str | None:
    """In the running tray: the request waiting for it, if any, removed (one stat otherwise)."""
    path = request_path(folder)
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return None
    path.unlink(missing_ok=True)
    return text if text in REQUESTS else None


def wait_until_ended(timeout: float, folder: Path | None = None) -> bool:
    """Wait (at most `timeout` seconds) for the running tray to end; True once none runs."""
    deadline = time.monotonic() + timeout
    while running_pid(folder) is not None:
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True
