"""The activity store's file: one SQLite database in the state folder, its schema, and opening
it — to write (created, private to its owner, its schema made) or to read (read-only, never
creating it), with what keeps it from being read said in one sentence.

WAL mode lets many writers (one per client) and the tray's reads run side by side.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from vault_recall.server.errors import ActivityStoreError

SCHEMA_VERSION = 1
# How long a writer waits for another process's write to finish.  Writes take a millisecond
# or two, so this only matters under heavy contention; past it the event is dropped, not the call.
BUSY_TIMEOUT_MS = 2000

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


def store_problem(path: Path) -> str | None:
    """What keeps the activity store from being read, in one sentence a person can act on; None
    when it reads (or does not exist yet: no activity, which is not a problem)."""
    if not path.exists() and not path.is_symlink():
        return None
    fix = "move it away and Vault Recall starts a new one (calls answer either way)"
    damaged = f"activity store {path} is not an SQLite database (damaged, or not ours); {fix}"
    try:
        connection = connect(path, create=False)
    except ActivityStoreError as exc:
        return f"{exc}; {fix}"
    except sqlite3.DatabaseError:
        return damaged
    except sqlite3.Error as exc:
        return f"activity store {path} cannot be opened ({exc}); {fix}"
    try:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        connection.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError:
        return damaged
    finally:
        connection.close()
    if version > SCHEMA_VERSION:
        return f"activity store {path} was written by a newer Vault Recall (schema {version}); update this one"
    return None


@contextmanager
def reading(path: Path) -> Iterator[sqlite3.Connection | None]:
    """A read-only connection, or None when there is no store yet (or it cannot be opened:
    `store_problem` says why)."""
    if not path.exists():
        yield None
        return
    try:
        connection = connect(path, create=False)
    except (sqlite3.Error, ActivityStoreError):
        yield None
        return
    try:
        yield connection
    finally:
        connection.close()
