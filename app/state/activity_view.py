"""Reading the activity store for the tray and the CLI: who recalled what, and when.

Read-only connections: viewing activity never creates or changes the store.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, assert_never

from vault_recall.server.activity.events import EventStatus, event_status
from vault_recall.server.activity.store import SCHEMA_VERSION, connect
from vault_recall.server.errors import ActivityStoreError


@dataclass(frozen=True, slots=True)
class OtherStatus:
    """An event's status that is none this version writes: one another version wrote."""

    word: str


def read_status(value: object) -> EventStatus | OtherStatus | None:
    """An event's status as its row holds it.  Every version of Vault Recall a person runs
    writes to the one store, so a row may hold a word an older or newer one wrote: that is
    kept as OtherStatus, shown as written and taken as the server's news that the vault
    looked otherwise than the last health check (as before the statuses were typed), rather
    than dropped as if the call had said nothing."""
    if value is None:
        return None
    known = event_status(value)
    return known if known is not None else OtherStatus(str(value))


def status_text(status: EventStatus | OtherStatus | None) -> str | None:
    """An event's status as written in its row (None: it has none)."""
    match status:
        case None | "ok" | "degraded" | "unavailable" | "error":
            return status
        case OtherStatus(word):
            return word
        case _:
            assert_never(status)


@dataclass(frozen=True)
class EventRow:
    id: int
    ts: float
    client: str
    client_name: str | None
    tool: str
    vault: str | None
    subject: str | None
    query: str | None
    status: EventStatus | OtherStatus | None  # read_status
    omitted: int | None
    duration_ms: float
    error: str | None
    returned: tuple[str, ...]  # note paths
    revisions: tuple[str | None, ...] = ()  # the revision each was given at (None: a line, not a note)
    client_version: str | None = None  # the version the client reported

    def given(self) -> list[tuple[str, str | None]]:
        """(path, the revision it was given at) for each returned note."""
        return [(path, self.revisions[i] if i < len(self.revisions) else None) for i, path in enumerate(self.returned)]


@dataclass(frozen=True)
class Recall:
    """A client's latest recall of one whole note: which revision it was given, and when."""

    client: str
    vault: str
    path: str
    revision: str
    ts: float


@dataclass(frozen=True)
class ClientSummary:
    client: str
    calls: int
    last_ts: float


_COLUMNS = (
    *("id", "ts", "client", "client_name", "tool", "vault", "subject", "query", "status", "omitted", "duration_ms"),
    *("error", "client_version"),
)
_EVENT_COLUMNS = ", ".join(_COLUMNS)


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


def recent_events(path: Path, limit: int = 20, client: str | None = None, after_id: int = 0) -> list[EventRow]:
    """The newest `limit` events (after `after_id`), returned oldest first."""
    where = "id > ?" + (" AND client = ?" if client else "")
    params: tuple[object, ...] = (after_id, *([client] if client else []), limit)
    with reading(path) as connection:
        if connection is None:
            return []
        try:
            sql = _with_notes(f"SELECT {_EVENT_COLUMNS} FROM events WHERE {where}")
            return _events(connection.execute(sql, params))
        except sqlite3.Error:
            return []


@dataclass(frozen=True)
class News:
    """What a look at the store found: its newest event's id, and the events after the one asked."""

    newest: int
    events: list[EventRow]


# One statement, so a look costs one query however many events came: the newest id beside the
# events after `after` with their notes.  A store whose newest id is below `after` was made again
# (deleted, or moved away): its events count from the start.
_NEWS = (
    "WITH m(newest) AS (SELECT COALESCE(MAX(id), 0) FROM events),"
    f" e AS (SELECT {_EVENT_COLUMNS} FROM events, m WHERE id > CASE WHEN m.newest >= :after THEN :after ELSE 0 END"
    " ORDER BY id DESC LIMIT :limit)"
    " SELECT m.newest, e.*, r.path, r.revision FROM m LEFT JOIN e ON 1 LEFT JOIN returned r ON r.event_id = e.id"
    " ORDER BY e.id, r.rowid"
)


def news_after(path: Path, after: int, limit: int = 50) -> News | None:
    """The newest `limit` events after the id `after` (all of a store made again since), oldest
    first, in one query; None when the store cannot be read right now (busy, say), which is not
    the same as empty.  No store yet: nothing new."""
    if not path.exists():
        return News(0, [])
    with reading(path) as connection:
        if connection is None:
            return None
        try:
            rows = connection.execute(_NEWS, {"after": after, "limit": limit}).fetchall()
        except sqlite3.Error:
            return None
    newest = int(rows[0][0]) if rows else 0
    return News(newest, _events(row[1:] for row in rows if row[1] is not None))


def latest_per_client(path: Path) -> list[ClientSummary]:
    """Each client's number of calls and its latest call, most recent first."""
    rows = _rows(
        path,
        "SELECT e.client, c.calls, e.ts FROM events e"
        " JOIN (SELECT client, COUNT(*) AS calls, MAX(id) AS last_id FROM events GROUP BY client) c"
        " ON e.id = c.last_id ORDER BY e.id DESC",
    )
    return [ClientSummary(client=r[0], calls=r[1], last_ts=r[2]) for r in rows]


def latest_recalls(path: Path, since: float, limit: int = 200) -> list[Recall]:
    """Each client's latest recall of each whole note (one handed out with its revision) since
    `since`, newest first, at most `limit`."""
    # SQLite takes the bare columns of a MAX() aggregate from the row holding the maximum: the
    # revision of each client's latest recall of the note.
    rows = _rows(
        path,
        "SELECT e.client, e.vault, r.path, r.revision, MAX(e.ts) FROM returned r"
        " JOIN events e ON e.id = r.event_id"
        " WHERE e.ts >= ? AND r.revision IS NOT NULL AND e.vault IS NOT NULL"
        " GROUP BY e.client, e.vault, r.path ORDER BY MAX(e.ts) DESC LIMIT ?",
        (since, limit),
    )
    return [Recall(client=r[0], vault=r[1], path=r[2], revision=r[3], ts=r[4]) for r in rows]


def newest_event_id(path: Path) -> int | None:
    """The newest event's id (0: no store or no events), or None when the store cannot be read
    right now (locked, say) — which is not the same as empty."""
    if not path.exists():
        return 0
    with reading(path) as connection:
        if connection is None:
            return None
        try:
            return int(connection.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0])
        except sqlite3.Error:
            return None


def count_events(path: Path) -> int:
    rows = _rows(path, "SELECT COUNT(*) FROM events")
    return int(rows[0][0]) if rows else 0


def _rows(path: Path, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
    """The rows of one query; none when there is no store yet or it cannot be read right now
    (the views show what they can rather than fail)."""
    with reading(path) as connection:
        if connection is None:
            return []
        try:
            return connection.execute(sql, params).fetchall()
        except sqlite3.Error:
            return []


def _with_notes(events_sql: str) -> str:
    """`events_sql` (the newest first, its last parameter the limit) joined with each event's
    notes in one statement, oldest event first: no query per event."""
    return (
        f"SELECT e.*, r.path, r.revision FROM ({events_sql} ORDER BY id DESC LIMIT ?) e"
        " LEFT JOIN returned r ON r.event_id = e.id ORDER BY e.id, r.rowid"
    )


def _events(rows: Iterable[Sequence[Any]]) -> list[EventRow]:
    """Events from rows of the event's columns, then one returned note's path and revision
    (NULL for an event without notes), an event's rows side by side, oldest event first."""
    gathered: dict[int, tuple[Sequence[Any], list[tuple[str, str | None]]]] = {}
    for row in rows:
        *fields, note, revision = row
        _, notes = gathered.setdefault(int(fields[0]), (fields, []))
        if note is not None:
            notes.append((str(note), revision if isinstance(revision, str) else None))
    return [_event(fields, notes) for fields, notes in gathered.values()]


def _event(fields: Sequence[Any], notes: list[tuple[str, str | None]]) -> EventRow:
    """One event from its columns' values and its returned notes."""
    columns = dict(zip(_COLUMNS, fields, strict=True))
    columns["status"] = read_status(columns["status"])
    return EventRow(
        **columns,
        returned=tuple(note for note, _ in notes),
        revisions=tuple(revision for _, revision in notes),
    )
