"""Has anything that can change a vault's health changed under its folder since the last look?

On Linux the kernel says so (inotify, through ctypes: nothing to compile): a watch on every
folder of the vault but hidden ones, plus `.obsidian` for the settings that decide what is a
note (app.json, templates.json).  A look reads whatever events came, without waiting, and
answers True when a note (`.md`) or a folder was added, written, moved or removed, or its
permissions changed (a folder that cannot be read hides its notes); it costs
nothing while nothing changes, however big the vault, and a note in a subfolder is seen as soon
as one at the root.  Elsewhere, or when the kernel refuses more watches, the answer comes from
the folders' modification times, looked at every few seconds (notes added, removed or renamed;
an edit in place then waits for the tray's periodic check).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import struct
import sys
import time
from collections.abc import Iterator
from pathlib import Path

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF = 0x400, 0x800
IN_Q_OVERFLOW, IN_IGNORED, IN_ISDIR = 0x4000, 0x8000, 0x40000000
IN_ONLYDIR, IN_DONT_FOLLOW = 0x01000000, 0x02000000
IN_NONBLOCK, IN_CLOEXEC = 0o4000, 0o2000000
FOLDER_EVENTS = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE) | (
    IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW
)
EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then the name, NUL-padded
SETTINGS = frozenset({"app.json", "templates.json"})  # .obsidian files that decide what a note is
# Watches one vault may take; a vault with more folders than this is looked at by time.
MAX_WATCHES = 20_000
POLL_SECONDS = 5.0
MAX_POLLED_FOLDERS = 5_000


def kernel() -> ctypes.CDLL | None:
    """The C library, to ask the kernel for inotify; None where there is none (not Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.inotify_init1  # noqa: B018 - present in every glibc and musl since 2.9
    except (OSError, AttributeError):
        return None
    return libc


class TreeWatch:
    """`changed()` once a second from the tray's watcher; `close()` when the vault changes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._libc = kernel()
        self._fd: int | None = None
        self._folders: dict[int, Path] = {}  # watch descriptor → folder
        self._settings_wd: int | None = None
        self._root_wd: int | None = None
        self._refused = self._libc is None  # no inotify here, or not enough watches for this vault
        self._polled: dict[Path, int] | None = None  # folder → mtime, when watching by time
        self._next_poll = 0.0
        self._start()

    # -- the kernel's way ---------------------------------------------------------------------

    def _start(self) -> None:
        if not self._refused:
            assert self._libc is not None
            fd = self._libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
            if fd >= 0:
                self._fd = fd
                watched = self._watch_tree(self.root)
                if watched and self._folders:
                    self._root_wd = next(iter(self._folders))
                    self._watch_settings()
                    return
                self._refused = not watched
                self._close_fd()
        self._polled = self._folder_times()  # the folder is missing now, or the kernel refused

    def _add(self, folder: Path, mask: int = FOLDER_EVENTS) -> int | None:
        assert self._libc is not None and self._fd is not None
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), mask)
        if wd < 0:
            return None if ctypes.get_errno() in (errno.ENOENT, errno.ENOTDIR, errno.EACCES) else -1
        return int(wd)

    def _watch_tree(self, top: Path) -> bool:
        """Watch `top` and every visible folder under it; False when the kernel will not."""
        stack = [top]
        while stack:
            folder = stack.pop()
            if len(self._folders) >= MAX_WATCHES:
                return False
            wd = self._add(folder)
            if wd == -1:
                return False  # ENOSPC (the user's watch limit) or ENOMEM
            if wd is None:
                continue  # gone or unreadable meanwhile: the next health check says so
            self._folders[wd] = folder
            with contextlib.suppress(OSError), os.scandir(folder) as entries:
                stack += [
                    Path(e.path) for e in entries if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
                ]
        return True

    def _watch_settings(self) -> None:
        wd = self._add(self.root / ".obsidian")
        self._settings_wd = wd if wd is not None and wd >= 0 else None

    def _drain(self) -> bool:
        assert self._fd is not None
        changed = False
        for event in inotify_events(self._fd):
            if event is None:
                return True
            changed |= self._event(*event)
        return changed

    def _event(self, wd: int, mask: int, name: str) -> bool:
        if mask & IN_Q_OVERFLOW:
            return True  # events were lost: something changed, no telling what
        if mask & IN_IGNORED:
            self._folders.pop(wd, None)
            return False
        if wd == self._settings_wd:
            return name in SETTINGS
        folder = self._folders.get(wd)
        if folder is None:
            return False
        if mask & (IN_DELETE_SELF | IN_MOVE_SELF):
            if wd == self._root_wd:
                self._root_wd = None  # the watch follows the folder where it went: start again
            return True
        if not name:
            # About the watched folder itself: its permissions (told to its parent's watch too,
            # but never to the root's), so a root that cannot be read any more is seen at once.
            return bool(mask & IN_ATTRIB) and wd == self._root_wd
        if name.startswith("."):
            return False  # hidden files and folders are never notes
        if mask & IN_ISDIR:
            # A folder made unreadable hides its notes; made readable, it may be watched now.
            if mask & (IN_CREATE | IN_MOVED_TO | IN_ATTRIB):
                self._watch_tree(folder / name)  # a folder moved in may hold notes and folders
            return bool(mask & (IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_ATTRIB))
        return name.endswith(".md")

    def _close_fd(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._folders.clear()

    # -- by time --------------------------------------------------------------------------------

    def _folder_times(self) -> dict[Path, int]:
        times: dict[Path, int] = {}
        stack = [self.root, self.root / ".obsidian"]
        while stack and len(times) < MAX_POLLED_FOLDERS:
            folder = stack.pop()
            try:
                times[folder] = folder.stat().st_mtime_ns
                with os.scandir(folder) as entries:
                    stack += [
                        Path(e.path) for e in entries if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
                    ]
            except OSError:
                continue
        return times

    # -- asking -------------------------------------------------------------------------------

    def changed(self) -> bool:
        """Did anything that matters change since the last look?  Never waits."""
        if self._fd is not None:
            changed = self._drain()
            if self._root_wd not in self._folders:  # the vault's folder went (moved, deleted)
                self._close_fd()
                self._start()
                return True
            return changed
        now = time.monotonic()
        if now < self._next_poll:
            return False
        self._next_poll = now + POLL_SECONDS
        if not self._refused and self.root.is_dir():  # the folder is back: the kernel watches again
            self._start()
            return True
        times = self._folder_times()
        changed = times != self._polled
        self._polled = times
        return changed

    @property
    def by_kernel(self) -> bool:
        return self._fd is not None

    def fileno(self) -> int | None:
        """The kernel's descriptor, readable once something happened (`changed` then says
        whether it matters): what a watcher sleeps on.  None while watching by time."""
        return self._fd

    def close(self) -> None:
        self._close_fd()


def inotify_events(fd: int) -> Iterator[tuple[int, int, str] | None]:
    """(watch, mask, name) of every event waiting on the non-blocking inotify `fd`, read until
    none is left; None, last, when `fd` cannot be read (the caller takes it for a change)."""
    while True:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            yield None
            return
        offset = 0
        while offset + EVENT.size <= len(data):
            wd, mask, _cookie, length = EVENT.unpack_from(data, offset)
            name = data[offset + EVENT.size : offset + EVENT.size + length].rstrip(b"\0")
            offset += EVENT.size + length
            yield wd, mask, os.fsdecode(name)
