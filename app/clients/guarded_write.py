"""Replacing a client's config file only if nobody changed it since it was read, and the
backups kept beside it.

A client app rewrites its own config file whenever it likes (Claude Code rewrites
`~/.claude.json` by read, change, rename).  An edit of ours that read the file, then replaced
it a moment later, would throw away whatever the app wrote in between.  So the replacement is
conditional: where the platform can swap two files atomically (Linux `renameat2` with
RENAME_EXCHANGE, macOS `renamex_np` with RENAME_SWAP), ours is swapped in and the file it
displaced is compared with what was read — if they differ, the app's version is swapped back
and the caller edits again from it.  Elsewhere the file is checked just before the rename,
which narrows the window to a few microseconds but cannot close it.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import re
import stat
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from vault_recall.app.state.atomic_write import temp_beside
from vault_recall.server.errors import VaultRecallError

BACKUP_SUFFIX = ".vault-recall.bak"
# Backups kept per file besides the oldest one (the person's original, never pruned): three in
# all, so installing and uninstalling again and again leaves no pile of files beside it.
KEEP_BACKUPS = 2
_BACKUP_NAME = re.compile(r"\.(\d{8}-\d{6})(?:-(\d+))?" + re.escape(BACKUP_SUFFIX) + r"$")


class Changed(VaultRecallError):
    """The file is no longer what was read: someone else wrote it meanwhile."""


@dataclass(frozen=True)
class Seen:
    """A file as it was read: its exact bytes (None: it did not exist) and its identity."""

    data: bytes | None
    identity: tuple[int, ...] | None


def identity(st: os.stat_result) -> tuple[int, ...]:
    """What changes whenever the file is written or replaced."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def read_seen(path: Path, limit: int) -> Seen:
    """Read `path` once, with the identity of the very file read (fstat of the open file).
    Raises OSError; a file over `limit` bytes raises ValueError."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return Seen(data=None, identity=None)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "not a regular file")
        if st.st_size > limit:
            raise ValueError(st.st_size)
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(len(data))
    return Seen(data=data, identity=identity(st))


def _swapper() -> object | None:
    """The C function that swaps two paths atomically, where the platform has one."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:  # pragma: no cover - Windows
        return None
    if sys.platform.startswith("linux") and hasattr(libc, "renameat2"):
        return libc.renameat2
    if sys.platform == "darwin" and hasattr(libc, "renamex_np"):  # pragma: no cover - not run here
        return libc.renamex_np
    return None


_SWAP = _swapper()
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # Linux; macOS's RENAME_SWAP is 2 as well


def swap(first: Path, second: Path) -> bool:
    """Swap two paths atomically; False where the platform (or file system) cannot."""
    if _SWAP is None:
        return False
    a, b = os.fsencode(first), os.fsencode(second)
    if sys.platform == "darwin":  # pragma: no cover - not run here
        result = _SWAP(a, b, _RENAME_EXCHANGE)  # type: ignore[operator]
    else:
        result = _SWAP(_AT_FDCWD, a, _AT_FDCWD, b, _RENAME_EXCHANGE)  # type: ignore[operator]
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # a file system without exchange (some FUSE and network mounts)
    raise OSError(code, os.strerror(code), str(second))


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _still(path: Path, seen: Seen) -> bool:
    try:
        return identity(os.lstat(path)) == seen.identity
    except FileNotFoundError:
        return seen.identity is None


def _sync_folder(folder: Path) -> None:
    if os.name == "posix":  # Windows cannot open (nor needs to sync) a folder
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def replace_if_unchanged(path: Path, seen: Seen, new: bytes | None, mode: int) -> None:
    """Make `path` hold `new` (None: remove it) — only if it still holds what `seen` read.

    Raises Changed when someone wrote it since (the file is then as they left it), OSError
    when it cannot be written.
    """
    if new is None:
        _remove_if_unchanged(path, seen)
    elif seen.identity is None:
        _create_if_absent(path, new, mode)
    else:
        _swap_in_if_unchanged(path, seen, new, mode)
    _sync_folder(path.parent)


def _create_if_absent(path: Path, new: bytes, mode: int) -> None:
    temp = temp_beside(path, new, mode)
    try:
        os.link(temp, path)  # fails if the file appeared meanwhile: nothing of theirs is lost
    except FileExistsError:
        raise Changed(str(path)) from None
    except OSError:
        # No hard links here (some file systems): the last look before the rename is all there is.
        if path.exists() or path.is_symlink():
            raise Changed(str(path)) from None
        os.replace(temp, path)
        return
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


def _swap_in_if_unchanged(path: Path, seen: Seen, new: bytes, mode: int) -> None:
    temp = temp_beside(path, new, mode)
    try:
        if not _still(path, seen):
            raise Changed(str(path))
        if not swap(temp, path):
            os.replace(temp, path)
            return
        # `temp` now names the file that was in place the instant ours went in.
        displaced = _read_bytes(temp)
        if displaced == seen.data:
            return
        if _read_bytes(path) == new:
            swap(temp, path)  # theirs back in place; ours leaves with the temp name
        else:
            # They wrote again on top of ours: what we displaced is not lost, it is kept.
            os.replace(temp, backup_name(path))
        raise Changed(str(path))
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


def _remove_if_unchanged(path: Path, seen: Seen) -> None:
    if not _still(path, seen):
        raise Changed(str(path))
    fd, parked = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".removed", dir=path.parent)
    os.close(fd)
    parked_path = Path(parked)
    try:
        os.replace(path, parked_path)
        if _read_bytes(parked_path) != seen.data:
            # Someone wrote in between: put theirs back unless a newer file is already there.
            try:
                os.link(parked_path, path)
            except FileExistsError:
                os.replace(parked_path, backup_name(path))
            raise Changed(str(path))
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(parked_path)


def backup_name(path: Path) -> Path:
    """A new name for every backup, so no earlier one (the person's original) is overwritten."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    # Numbered after the newest of the same second (not the first free number: pruning frees
    # numbers, and names must sort in the order the backups were made).
    numbers = [_number(b) for b in backups_of(path) if b.name.startswith(f"{path.name}.{stamp}")]
    number = max(numbers, default=0) + 1
    while True:
        suffix = "" if number == 1 else f"-{number}"
        candidate = path.with_name(f"{path.name}.{stamp}{suffix}{BACKUP_SUFFIX}")
        if not (candidate.exists() or candidate.is_symlink()):
            return candidate
        number += 1


def _number(backup: Path) -> int:
    matched = _BACKUP_NAME.search(backup.name)
    return int(matched.group(2) or 1) if matched else 1


def write_backup(path: Path, data: bytes, mode: int) -> Path:
    """Keep `data` (the file as it was) beside `path` under a new backup name."""
    backup = backup_name(path)
    fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    return backup


def backups_of(path: Path) -> list[Path]:
    """Our backups of `path`, oldest first."""
    found: list[tuple[str, int, Path]] = []
    prefix = path.name + "."
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    for name in names:
        if not name.startswith(prefix):
            continue
        matched = _BACKUP_NAME.fullmatch(name[len(path.name) :])
        if matched:
            found.append((matched.group(1), int(matched.group(2) or 1), path.with_name(name)))
    return [backup for _, _, backup in sorted(found)]


def prune_backups(path: Path, keep: int = KEEP_BACKUPS) -> list[Path]:
    """Remove all but the oldest backup (the original before our first change) and the newest
    `keep`; returns what was removed."""
    backups = backups_of(path)
    doomed = backups[1:-keep] if len(backups) > keep + 1 else []
    for backup in doomed:
        with contextlib.suppress(FileNotFoundError):
            backup.unlink()
    return doomed
