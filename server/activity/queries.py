"""Every statement on the activity store's events, in one place: the insert and the prune the
writer runs, the reads of the tray and the command line (who recalled what, and when), and the
doctor's look for its own probe call.  Nothing else in the project writes SQL against the store.

Reads use read-only connections (database.reading): viewing activity never creates or changes
the store, and a store that cannot be read right now answers as empty, or None where that
differs.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from vault_recall.server.activity.database import reading
from vault_recall.server.activity.event_rows import ClientSummary, EventRow, News, Recall, read_status
from vault_recall.server.activity.events import ActivityEvent

_COLUMNS = (
    *("id", "ts", "client", "client_name", "tool", "vault", "subject", "query", "status", "omitted", "duration_ms"),
    *("error", "client_version"),
)
_EVENT_COLUMNS = ", ".join(_COLUMNS)


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


# The doctor's probe: a call it made itself, found by the process that made it or by the version
# it reported, and taken out again.  Its own connections, which wait up to two seconds for a
# writer (the probe's server may be storing that very call).


def has_call_of(path: Path, pid: int, client_name: str) -> bool:
    """Whether the store holds a call the process `pid` made as the client `client_name`."""
    row = _probe_row(path, "SELECT COUNT(*) FROM events WHERE pid = ? AND client_name = ?", (pid, client_name))
    return bool(row and row[0])


def client_of_call(path: Path, client_name: str, client_version: str) -> str | None:
    """The client the newest call made as `client_name` at `client_version` was recorded under."""
    row = _probe_row(
        path,
        "SELECT client FROM events WHERE client_name = ? AND client_version = ? ORDER BY id DESC LIMIT 1",
        (client_name, client_version),
    )
    return str(row[0]) if row else None


def _probe_row(path: Path, query: str, parameters: tuple[object, ...]) -> tuple[object, ...] | None:
    """The first row `query` finds, read only; None where there is no store, it cannot be read,
    or nothing matches."""
    if not path.exists():
        return None
    try:
        connection = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True, timeout=2)
    except sqlite3.Error:
        return None
    try:
        row: tuple[object, ...] | None = connection.execute(query, parameters).fetchone()
    except sqlite3.Error:
        return None
    finally:
        connection.close()
    return row


def forget_calls_of(path: Path, pid: int, client_name: str) -> None:
    """Take the calls the process `pid` made as `client_name` out of the store.  Best effort: a
    store busy past the timeout keeps them."""
    try:
        connection = sqlite3.connect(path, timeout=2)
    except sqlite3.Error:
        return
    try:
        with connection:
            found = "SELECT id FROM events WHERE pid = ? AND client_name = ?"
            connection.execute(f"DELETE FROM returned WHERE event_id IN ({found})", (pid, client_name))
            connection.execute("DELETE FROM events WHERE pid = ? AND client_name = ?", (pid, client_name))
    except sqlite3.Error:
        pass
    finally:
        connection.close()
