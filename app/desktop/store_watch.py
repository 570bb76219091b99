"""Waiting for a server to write the activity store, instead of asking it once a second.

Every event a server records is a write to the store's write-ahead log (`<store>-wal`); a store
made again is a new file in its folder.  On Linux the kernel says so (inotify, the same calls
as tree_watch.py): `wait` sleeps in the kernel until then, so a recall reaches the tray at once
and an idle tray reads nothing.  The folder is watched, not the files: the log comes and goes
(the last connection to close folds it into the store and deletes it).  The tray's own reads
never write either file (they may make an empty log, which is no write), so they never wake
it.  Where there is no inotify, or the folder does not exist yet, `wait` answers True every
`poll_seconds`: the caller then looks, as it always did.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from vault_recall.app.desktop.tree_watch import (
    IN_CLOEXEC,
    IN_CREATE,
    IN_DELETE,
    IN_DELETE_SELF,
    IN_IGNORED,
    IN_MODIFY,
    IN_MOVE_SELF,
    IN_MOVED_FROM,
    IN_MOVED_TO,
    IN_NONBLOCK,
    IN_ONLYDIR,
    IN_Q_OVERFLOW,
    inotify_events,
    kernel,
)

STORE_EVENTS = IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF
POLL_SECONDS = 1.0
FOLDER_SECONDS = 1.0  # how often a missing folder is looked for (a stat)
# A write wakes the watcher as it reaches the store's log, a moment before the writer publishes
# it to readers (SQLite's WAL index); a look that finds nothing new, or the store busy, is
# made again after these pauses.
LOOK_AGAIN_SECONDS = (0.02, 0.05, 0.1, 0.2, 0.5)


class StoreWatch:
    """`wait(timeout)` on one thread (the tray's watcher); `stop()` from any, to end a wait."""

    def __init__(self, store: Path, poll_seconds: float = POLL_SECONDS) -> None:
        self.store = store
        self._log = store.name + "-wal"
        self._poll_seconds = poll_seconds
        self._libc = kernel()
        self._fd: int | None = None
        self._stopped = threading.Event()
        self._wake = os.pipe() if self._libc is not None else None  # ends a wait in select()
        self._next_look = 0.0
        self._start()

    @property
    def by_kernel(self) -> bool:
        return self._fd is not None

    def _start(self) -> None:
        if self._libc is None:
            return
        fd = self._libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            return
        if self._libc.inotify_add_watch(fd, os.fsencode(self.store.parent), STORE_EVENTS | IN_ONLYDIR) < 0:
            os.close(fd)  # no folder yet: no store either, looked for every poll
            return
        self._fd = fd

    def wait(self, timeout: float) -> bool:
        """Block until a server wrote the store (True) or `timeout` seconds passed (False).
        Without the kernel's word: True once every `poll_seconds`, for the caller to look."""
        deadline = time.monotonic() + timeout
        while self._fd is None and self._libc is not None:  # no folder yet: looked for often
            self._start()
            if self._fd is not None:
                return True  # and maybe a store in it, made before the watch
            if self._stopped.wait(max(0.0, min(FOLDER_SECONDS, deadline - time.monotonic()))):
                return False
            if time.monotonic() >= deadline:
                return False
        if self._fd is None:
            return self._poll(timeout)
        assert self._wake is not None
        while True:  # events about other files (the -shm, a reader's empty log) wait on
            ready, _, _ = select.select([self._fd, self._wake[0]], [], [], max(0.0, deadline - time.monotonic()))
            if self._stopped.is_set() or self._fd not in ready:
                return False
            if self._drain():
                return True

    def _poll(self, timeout: float) -> bool:
        now = time.monotonic()
        if now < self._next_look and self._stopped.wait(min(timeout, self._next_look - now)):
            return False
        if time.monotonic() < self._next_look:
            return False
        self._next_look = time.monotonic() + self._poll_seconds
        return True

    def _drain(self) -> bool:
        """Read every event waiting (a burst of writes is one wake-up); True when one was about
        the store or its log."""
        assert self._fd is not None
        written = False
        for event in inotify_events(self._fd):
            if event is None:
                return True
            _wd, mask, name = event
            if mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF):
                self._close_fd()  # the folder went: polled until it is back
                return True
            # The log only counts written: a reader that finds no log (the last writer folded it
            # in) makes an empty one, and must not wake the tray it is part of.
            written |= (
                bool(mask & IN_Q_OVERFLOW) or name == self.store.name or (name == self._log and bool(mask & IN_MODIFY))
            )
        return written

    def stop(self) -> None:
        """End the current wait and every later one at once (from any thread)."""
        self._stopped.set()
        if self._wake is not None:
            with contextlib.suppress(OSError):
                os.write(self._wake[1], b"x")

    def _close_fd(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def close(self) -> None:
        """Release the kernel's watch; on the thread that waits, once it waits no more."""
        self._close_fd()
        if self._wake is not None:
            for end in self._wake:
                with contextlib.suppress(OSError):
                    os.close(end)
            self._wake = None


class LookAgain:
    """When to look at the store again without being woken: soon after a wake whose look found
    nothing new (the write not yet published) or the store busy; then, while it stays busy,
    once every `poll_seconds`; after a look that found news, not before the next write (an idle
    tray reads nothing)."""

    def __init__(self, poll_seconds: float) -> None:
        self.at: float | None = None  # monotonic time of the next unwoken look; None: none
        self._poll_seconds = poll_seconds
        self._pauses: Iterator[float] = iter(())

    def due(self) -> bool:
        return self.at is not None and time.monotonic() >= self.at

    def looked(self, written: bool, heard: bool | None) -> None:
        """After a look: `written` when a write woke it; `heard` True for news, False for none,
        None for a busy store."""
        if written:
            self._pauses = iter(LOOK_AGAIN_SECONDS)
        pause = None if heard else next(self._pauses, None)
        if pause is not None:
            self.at = time.monotonic() + pause
        else:
            self.at = time.monotonic() + self._poll_seconds if heard is None else None
