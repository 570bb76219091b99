"""Vault folders opened by descriptor, each relative to its parent and never through a symlink.

Checking a path for symlinks and then opening it by name leaves a gap: a folder swapped for a
symlink to somewhere else between the two is followed, and text from outside the vault gets
read.  Here every folder below the vault's root is opened with O_NOFOLLOW relative to the
descriptor of the folder above it, and notes are opened relative to their folder's
descriptor, so what is read is always inside the folders that were checked.  (The root itself
may be a symlink: the person chose that path.)  Where the platform cannot open relative to a
descriptor (Windows), paths are opened by name as before.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from types import TracebackType

# Linux and macOS open relative to a folder descriptor; Windows does not.
BY_DESCRIPTOR = os.open in os.supports_dir_fd and os.scandir in os.supports_fd
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_ROOT_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC
FOLDER_FLAGS = _ROOT_FLAGS | getattr(os, "O_NOFOLLOW", 0)
# O_NONBLOCK: a FIFO put in a note's place must not block the call (fstat then refuses it).
NOTE_FLAGS = (
    os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
)
# A symlink where a folder or note was (ELOOP), or a file where a folder was (ENOTDIR): for a
# reader, what was listed is simply not there any more.
_REPLACED = (errno.ELOOP, errno.ENOTDIR, errno.ENOENT)


def open_root(root: Path) -> int:
    return os.open(root, _ROOT_FLAGS)


def open_folder(name: str, parent: int) -> int:
    """A folder's descriptor, opened relative to its parent's; FileNotFoundError when a symlink
    (or anything but a folder) is there now."""
    try:
        return os.open(name, FOLDER_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno in _REPLACED:
            raise FileNotFoundError(errno.ENOENT, "not a folder of the vault any more", name) from None
        raise


class FolderChain:
    """The descriptors from the vault's root down to one folder, for one pass that opens notes
    in path order: a folder is opened once for all the notes in it, and closed when the pass
    moves on.  Nothing is kept beyond the pass (`close`, or use it as a context manager)."""

    def __init__(self, root: Path) -> None:
        self._prefix = f"{root}{os.sep}"
        self._names: list[str] = []
        self._folder = ""
        self._fds: list[int] = [open_root(root)] if BY_DESCRIPTOR else []

    def __enter__(self) -> FolderChain:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        while self._fds:
            os.close(self._fds.pop())
        self._names = []

    def _folder_fd(self, folder: str) -> int:
        if folder == self._folder:
            return self._fds[-1]
        parts = folder.split("/") if folder else []
        keep = 0
        while keep < len(self._names) and keep < len(parts) and self._names[keep] == parts[keep]:
            keep += 1
        while len(self._names) > keep:
            self._names.pop()
            os.close(self._fds.pop())
        self._folder = "/".join(self._names)
        for name in parts[keep:]:
            fd = open_folder(name, self._fds[-1])
            self._fds.append(fd)
            self._names.append(name)
            self._folder = "/".join(self._names)
        return self._fds[-1]

    def open_note(self, path: str) -> int:
        """A read-only descriptor of the note at the vault path `path`, never through a symlink;
        FileNotFoundError when it (or a folder on its way) is not what was listed any more."""
        if not BY_DESCRIPTOR:  # pragma: no cover - Windows
            return _open_note_by_name(self._prefix + path, path)
        folder, _, name = path.rpartition("/")
        try:
            return os.open(name, NOTE_FLAGS, dir_fd=self._folder_fd(folder))
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise FileNotFoundError(errno.ENOENT, "not a note of the vault any more", path) from None
            raise


def _open_note_by_name(file_path: str, note_path: str) -> int:  # pragma: no cover - Windows
    try:
        return os.open(file_path, NOTE_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FileNotFoundError(errno.ENOENT, "not a note of the vault any more", note_path) from None
        raise
