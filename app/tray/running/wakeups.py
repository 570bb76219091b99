"""When the tray's watcher wakes: when something it reads is written, or when something of its
own is due — never on a tick.

Each store the tray reads is watched as the activity store always was (desktop/store_watch.py:
the kernel's word on its folder), on a thread of its own that sleeps in the kernel: the
activity store (a recall), the OAuth store (an app waiting, a grant made or revoked), the
config file, and the request another `vault-recall` leaves.  A write wakes the watcher with
that watch's name.  The vault's folders (desktop/tree_watch.py) are waited on beside, by the
watcher itself.  What only time brings — the blue dot going out, the next health check, a
panel change that lasted — is a deadline the watcher sets.  Where the kernel cannot tell (no
inotify), each watch answers once every `poll_seconds`, as the tray looked before.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import weakref
from collections.abc import Iterable
from pathlib import Path

from vault_recall.app.desktop.store_watch import StoreWatch
from vault_recall.app.desktop.tree_watch import POLL_SECONDS as TREE_POLL_SECONDS
from vault_recall.app.desktop.tree_watch import TreeWatch
from vault_recall.server.config.config_file import config_path

# A watch's thread asks the kernel for this long at a time: it wakes for nothing in between.
IDLE_WAIT_SECONDS = 3600.0


class Wakeups:
    """`wait` on the watcher's thread; `wake` and `stop` from any."""

    def __init__(self) -> None:
        # A connected pair of sockets, not a pipe: select() waits on sockets on every platform
        # (on Windows on nothing else), and they take non-blocking mode everywhere.
        self._read, self._write = socket.socketpair()
        self._read.setblocking(False)
        self._write.setblocking(False)
        # Closed with this object when `close` never ran (a tray made but never run).
        weakref.finalize(self, _close_both, self._read, self._write)
        self._lock = threading.Lock()
        self._woken: set[str] = set()
        self._watches: list[StoreWatch] = []
        self._threads: list[threading.Thread] = []
        self._stopped = threading.Event()
        self._closed = False

    def watch(self, name: str, path: Path, poll_seconds: float) -> None:
        """Wake with `name` whenever `path` (a store, or any file) is written."""
        watch = StoreWatch(path, poll_seconds)
        self._watches.append(watch)

        def run() -> None:
            try:
                while not self._stopped.is_set():
                    if watch.wait(IDLE_WAIT_SECONDS):
                        self.wake(name)
            finally:
                watch.close()

        thread = threading.Thread(target=run, name=f"tray-wake-{name}", daemon=True)
        self._threads.append(thread)
        thread.start()

    def wake(self, name: str) -> None:
        with self._lock:
            if self._closed:
                return  # its descriptors are closed (and their numbers may be another file's now)
            self._woken.add(name)
            with contextlib.suppress(OSError):  # full: a wake-up is waiting already
                self._write.send(b"x")

    def wait(self, timeout: float | None, also: int | None = None) -> tuple[frozenset[str], bool]:
        """Sleep until a watch wakes it, the descriptor `also` is readable, or `timeout` seconds
        passed (None: no deadline): the names woken, and whether `also` is readable."""
        descriptors = [self._read.fileno()] if also is None else [self._read.fileno(), also]
        try:
            ready, _, _ = select.select(descriptors, [], [], None if timeout is None else max(0.0, timeout))
        except (OSError, ValueError):
            ready = []  # `also` closed meanwhile (the vault changed): looked at on the next round
        with contextlib.suppress(OSError):  # BlockingIOError: nothing more to read
            while self._read.recv(512):
                pass
        with self._lock:
            woken, self._woken = frozenset(self._woken), set()
        return woken, also is not None and also in ready

    def stop(self) -> None:
        """End every watch, and the watcher's wait, at once (from any thread)."""
        self._stopped.set()
        for watch in self._watches:
            watch.stop()
        self.wake("stop")

    def close(self) -> None:
        """On the watcher's thread, once it waits no more."""
        self.stop()
        for thread in self._threads:
            thread.join(5)
        with self._lock:
            self._closed = True
            for end in (self._read, self._write):
                with contextlib.suppress(OSError):
                    end.close()


def _close_both(*ends: socket.socket) -> None:
    for end in ends:
        end.close()


def seconds_until(times: Iterable[float | None], now: float) -> float:
    """Seconds from `now` until the earliest of `times` (monotonic; None: nothing due)."""
    return min((t for t in times if t is not None), default=now + IDLE_WAIT_SECONDS) - now


class VaultWatch:
    """The config file and the active vault's folders, on the watcher's thread: whether the
    health is to be looked at again, and what to sleep on for the folders."""

    def __init__(self) -> None:
        self._config_mtime: int | None = None
        self._tree: TreeWatch | None = None
        self._root: Path | None = None

    def config_changed(self) -> bool:
        """Did the config file change since the last look (its time; it may be gone)?"""
        try:
            mtime: int | None = config_path().stat().st_mtime_ns
        except OSError:
            mtime = None
        changed, self._config_mtime = mtime != self._config_mtime, mtime
        return changed

    def vault_changed(self, vault: Path | None, woken: bool) -> bool:
        """Is `vault` another vault than the last look's, or did a note or a folder in it
        change (`woken`: its folders' descriptor was readable)?"""
        if vault != self._root:
            if self._tree is not None:
                self._tree.close()
            self._tree, self._root = (TreeWatch(vault) if vault is not None else None), vault
            return True
        return self._tree is not None and (woken or not self._tree.by_kernel) and self._tree.changed()

    def fileno(self) -> int | None:
        """The folders' descriptor to sleep on (None: none, or watched by time)."""
        return self._tree.fileno() if self._tree is not None else None

    def due_at(self, now: float) -> float | None:
        """When the folders are to be looked at by time (no inotify here); None: never."""
        return now + TREE_POLL_SECONDS if self._tree is not None and not self._tree.by_kernel else None
