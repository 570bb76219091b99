"""The activity store: one SQLite file that every server process appends one event per call to.

WAL mode lets many writers (one per client) and the tray's reads run side by side.  A writer
keeps its connection while the store file is the same one, and opens it again when the file
was deleted or replaced, so a store removed while servers run is simply created again.
Nothing here may fail a tool call: every problem is logged to stderr and the call answers as
if the store were not there.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import sqlite3
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_recall.server import defaults
from vault_recall.server.activity.events import ActivityEvent
from vault_recall.server.errors import ActivityStoreError

if TYPE_CHECKING:  # the store is told who called; it needs no part of the config to be
    from vault_recall.server.config.call_scope import ServeOptions
    from vault_recall.server.config.config_file import ActivitySettings

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
# How long a writer waits for another process's write to finish.  Writes take a millisecond
# or two, so this only matters under heavy contention; past it the event is dropped, not the call.
BUSY_TIMEOUT_MS = 2000
PRUNE_EVERY = 100  # events written by one process between two prunes

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL,
    client TEXT NOT NULL,
    client_name TEXT,
    client_version TEXT,
    pid INTEGER NOT NULL,
    tool TEXT NOT NULL,
    vault TEXT,
    subject TEXT,
    query TEXT,
    status TEXT,
    omitted INTEGER,
    duration_ms REAL NOT NULL,
    error TEXT
);
CREATE INDEX IF NOT EXISTS events_by_client ON events (client, id);
CREATE INDEX IF NOT EXISTS events_by_ts ON events (ts);
CREATE TABLE IF NOT EXISTS returned (
    event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    revision TEXT
);
CREATE INDEX IF NOT EXISTS returned_by_path ON returned (path, event_id);
CREATE INDEX IF NOT EXISTS returned_by_event ON returned (event_id);
"""


@dataclass(frozen=True)
class Call:
    """One tool call as the activity store is told of it: who asked, what, and what came of it."""

    options: ServeOptions
    tool: str
    arguments: dict[str, Any]
    result: dict[str, Any] | None  # the structured result; None for a refused call
    error: str | None
    started: float  # time.perf_counter() when the call began
    client_info: tuple[str | None, str | None]  # name and version the client reported
    # How the event is kept, from the config the call itself read (None: read it now).
    settings: ActivitySettings | None = None


def connect(path: Path, *, create: bool = True) -> sqlite3.Connection:
    """Open the store (creating it and its folder when `create`), with WAL and a busy timeout.

    Raises ActivityStoreError, without opening it, for something in the store's place that is
    not a regular file: SQLite would wait forever on a FIFO there.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise ActivityStoreError(f"{path} cannot be read: {exc.strerror}") from None
    else:
        if not stat.S_ISREG(st.st_mode):
            raise ActivityStoreError(f"{path} is not a regular file, so it cannot be the activity store")
    if create:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        _private(path)
    uri = path.as_uri() + ("" if create else "?mode=ro")
    connection = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    try:
        # Viewers (the tray, the CLI) wait briefly: a menu must not hang on a writer's lock.
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS if create else 200}")
        connection.execute("PRAGMA foreign_keys = ON")
        # In WAL mode NORMAL skips the fsync of every commit: a power cut may lose the last
        # few events, never corrupt the store, and a call does not wait on the disk.
        connection.execute("PRAGMA synchronous = NORMAL")
        if create:
            _ensure_schema(connection)
    except BaseException:
        connection.close()
        raise
    return connection


def _private(path: Path) -> None:
    """Make the store readable by its owner only, as the config is: it says which notes each
    client read and what it asked.  Created so before SQLite opens it (its -wal and -shm files
    take the same mode); a store made by an older version is narrowed, with its -wal and -shm."""
    if os.name == "nt":
        return  # the folder in the user's profile is private already; modes mean little there
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    except OSError:
        return  # SQLite says why it cannot be opened
    for name in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, 0o600)
        except OSError:
            continue  # absent, or another user's: nothing to narrow here


def _ensure_schema(connection: sqlite3.Connection) -> None:
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise ActivityStoreError(f"activity store schema {version} is newer than this Vault Recall's {SCHEMA_VERSION}")
    if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("BEGIN IMMEDIATE")
    try:
        if connection.execute("PRAGMA user_version").fetchone()[0] == 0:  # another process may have won
            # One statement at a time: executescript() would commit the open transaction.
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


class ActivityWriter:
    """Appends the events of one server process, on a thread of its own: a tool call hands its
    event over and answers at once, so a locked or slow store never delays a call.  Never raises.

    The connection stays open between events (closing the last connection to a WAL database
    checkpoints it, which costs more than the insert), but before each event the store's file
    identity is checked: a store deleted or replaced meanwhile is opened afresh.
    """

    QUEUE_LIMIT = 10_000  # events waiting; past it new ones are dropped (and said so)

    def __init__(self) -> None:
        self.written = 0
        self._connection: sqlite3.Connection | None = None
        self._identity: tuple[str, int, int] | None = None
        self._queue: queue.Queue[tuple[Path, ActivityEvent, int, int] | None] = queue.Queue(self.QUEUE_LIMIT)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._last_warning: str | None = None

    def submit(
        self,
        path: Path,
        event: ActivityEvent,
        retention_days: int = defaults.RETENTION_DAYS,
        max_events: int = defaults.MAX_EVENTS,
    ) -> None:
        """Queue one event for the writer thread (started on first use)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="activity-writer", daemon=True)
                self._thread.start()
        try:
            self._queue.put_nowait((path, event, retention_days, max_events))
        except queue.Full:
            log.warning("activity not recorded: %d events are already waiting for the store", self.QUEUE_LIMIT)

    def _warn(self, message: str) -> None:
        # Once per problem, not once per call: a store that cannot be opened stays so for a
        # while, and every client shows its server's stderr in its logs.
        if message != self._last_warning:
            log.warning("%s", message)
            self._last_warning = message

    def __enter__(self) -> ActivityWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued (waiting at most `timeout` seconds in all), then stop the thread.

        Also called from a signal handler (serve.py), so it never waits longer than `timeout`,
        even when the queue is full or the store is locked.
        """
        deadline = time.monotonic() + timeout
        thread = self._thread  # read without the lock: a signal may arrive while it is held
        if thread is not None:
            # Full: the thread is still writing; what it cannot write in time is lost.
            with contextlib.suppress(queue.Full):
                self._queue.put(None, timeout=max(0.0, deadline - time.monotonic()))
            thread.join(max(0.0, deadline - time.monotonic()))
        else:
            self._disconnect()  # events were appended directly, on this thread

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            try:
                self.append(*item)
            except Exception:  # the thread's entry point: one bad event must not stop the rest
                log.exception("activity not recorded: unexpected error")
        self._disconnect()  # SQLite connections belong to the thread that opened them

    def append(
        self,
        path: Path,
        event: ActivityEvent,
        retention_days: int = defaults.RETENTION_DAYS,
        max_events: int = defaults.MAX_EVENTS,
    ) -> bool:
        """Store one event now; False (and a line on stderr) when the store cannot take it."""
        try:
            connection = self._open(path)
        except (sqlite3.Error, OSError, ValueError, ActivityStoreError) as exc:
            self._warn(f"activity not recorded: cannot open {path}: {exc}")
            return False
        try:
            insert(connection, event)
            self.written += 1
            self._last_warning = None
            if self.written % PRUNE_EVERY == 1:
                prune(connection, retention_days, max_events)
            return True
        except (sqlite3.Error, ValueError) as exc:  # ValueError: text SQLite cannot store
            self._warn(f"activity not recorded in {path}: {exc}")
            self._disconnect()
            return False

    def _open(self, path: Path) -> sqlite3.Connection:
        if self._connection is not None and self._identity == _identity(path):
            return self._connection
        self._disconnect()
        self._connection = connect(path)
        self._identity = _identity(path)
        return self._connection

    def _disconnect(self) -> None:
        if self._connection is not None:
            self._connection.close()
        self._connection = None
        self._identity = None


def _identity(path: Path) -> tuple[str, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (str(path), st.st_dev, st.st_ino)


def insert(connection: sqlite3.Connection, event: ActivityEvent) -> int:
    connection.execute("BEGIN IMMEDIATE")
    try:
        cursor = connection.execute(
            "INSERT INTO events (ts, client, client_name, client_version, pid, tool, vault, subject, query,"
            " status, omitted, duration_ms, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                event.ts,
                event.client,
                event.client_name,
                event.client_version,
                event.pid,
                event.tool,
                event.vault,
                event.subject,
                event.query,
                event.status,
                event.omitted,
                event.duration_ms,
                event.error,
            ),
        )
        event_id = cursor.lastrowid
        assert event_id is not None
        connection.executemany(
            "INSERT INTO returned (event_id, path, revision) VALUES (?, ?, ?)",
            [(event_id, path, revision) for path, revision in event.returned],
        )
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    return event_id


def prune(connection: sqlite3.Connection, retention_days: int, max_events: int) -> None:
    """Drop events older than the retention and beyond the newest `max_events`."""
    cutoff = time.time() - retention_days * 86400
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.execute("DELETE FROM events WHERE ts < ?", (cutoff,))
        connection.execute(
            "DELETE FROM events WHERE id <= (SELECT id FROM events ORDER BY id DESC LIMIT 1 OFFSET ?)",
            (max_events,),
        )
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
