"""The activity store: schema, pruning, queries, and writing that never raises."""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

from tests.support.activity_events import event, store_events
from vault_recall.server.activity.database import SCHEMA_VERSION, connect
from vault_recall.server.activity.events import event_from_result
from vault_recall.server.activity.queries import count_events, latest_per_client, prune, recent_events
from vault_recall.server.activity.writer import ActivityWriter


def test_events_are_stored_with_what_they_returned(tmp_path: Path) -> None:
    store = tmp_path / "state/activity.sqlite3"
    with ActivityWriter() as writer:
        assert writer.append(store, event(subject="build", query="bazel", returned=(("A.md", "r1"), ("B.md", "r2"))))
        assert writer.append(store, event("zed", tool="read_note", returned=(("A.md", "r1"),)))
    rows = recent_events(store)
    assert [(r.client, r.tool, r.returned) for r in rows] == [
        ("cursor", "recall_context", ("A.md", "B.md")),
        ("zed", "read_note", ("A.md",)),
    ]
    assert {(s.client, s.calls) for s in latest_per_client(store)} == {("cursor", 1), ("zed", 1)}
    with closing(sqlite3.connect(store)) as raw, raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_old_and_surplus_events_are_pruned_with_what_they_returned(tmp_path: Path) -> None:
    store = tmp_path / "activity.sqlite3"
    with ActivityWriter() as writer:
        now = time.time()
        writer.append(store, event(ts=now - 40 * 86400, returned=(("Old.md", None),)))
        for i in range(150):
            writer.append(store, event(ts=now - 150 + i, returned=((f"N{i}.md", None),)))
    connection = connect(store)
    try:
        prune(connection, retention_days=30, max_events=100)
        assert connection.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 100
        assert connection.execute("SELECT MIN(ts) FROM events").fetchone()[0] == pytest.approx(now - 100)
        assert connection.execute("SELECT COUNT(*) FROM returned").fetchone()[0] == 100
        assert connection.execute("SELECT COUNT(*) FROM returned WHERE path = 'Old.md'").fetchone()[0] == 0
    finally:
        connection.close()


def test_a_store_from_a_newer_version_is_left_alone_and_the_event_dropped(tmp_path: Path) -> None:
    store = tmp_path / "activity.sqlite3"
    with closing(sqlite3.connect(store)) as raw, raw:
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    assert store_events(store, event()) is False
    with closing(sqlite3.connect(store)) as raw, raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1


@pytest.mark.parametrize("make", ["folder", "garbage"])
def test_a_store_that_cannot_be_used_drops_the_event_without_raising(tmp_path: Path, make: str) -> None:
    store = tmp_path / "activity.sqlite3"
    if make == "folder":
        store.mkdir()
    else:
        store.write_bytes(b"not a database" * 100)
    assert store_events(store, event()) is False
    assert recent_events(store) == []


def test_a_store_that_stays_unusable_is_reported_once_until_it_works_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = tmp_path / "activity.sqlite3"
    store.mkdir()
    with ActivityWriter() as writer:
        for _ in range(5):
            assert writer.append(store, event()) is False
        assert len([r for r in caplog.records if "activity not recorded" in r.getMessage()]) == 1
        store.rmdir()
        assert writer.append(store, event()) is True
        store.unlink()
        store.mkdir()  # broken again: said again
        assert writer.append(store, event()) is False
    assert len([r for r in caplog.records if "activity not recorded" in r.getMessage()]) == 2


def test_reading_a_missing_store_creates_nothing(tmp_path: Path) -> None:
    store = tmp_path / "none/activity.sqlite3"
    assert recent_events(store) == [] and latest_per_client(store) == [] and count_events(store) == 0
    assert not store.parent.exists()


def test_query_text_is_not_kept_when_the_config_says_so() -> None:
    keep = event_from_result(
        client="c",
        tool="search_notes",
        arguments={"query": "secret plan"},
        result={"status": "ok", "records": []},
        error=None,
        started=time.perf_counter(),
        client_info=("Cursor", "1.2"),
        keep_query_text=True,
    )
    drop = event_from_result(
        client="c",
        tool="search_notes",
        arguments={"query": "secret plan"},
        result={"status": "ok", "records": []},
        error=None,
        started=time.perf_counter(),
        client_info=(None, None),
        keep_query_text=False,
    )
    assert (keep.query, keep.client_name, keep.client_version) == ("secret plan", "Cursor", "1.2")
    assert drop.query is None


def test_an_error_is_recorded_as_an_error() -> None:
    failed = event_from_result(
        client="c",
        tool="read_note",
        arguments={"note": "x"},
        result=None,
        error="no note 'x'",
        started=time.perf_counter(),
        client_info=(None, None),
        keep_query_text=True,
    )
    assert (failed.status, failed.error, failed.query, failed.returned) == ("error", "no note 'x'", "x", ())


def test_errors_do_not_keep_query_text_when_it_is_off() -> None:
    failed = event_from_result(
        client="c",
        tool="read_note",
        arguments={"note": "divorce lawyer"},
        result=None,
        error="Error executing tool read_note: no note 'divorce lawyer' that this client can read",
        started=time.perf_counter(),
        client_info=(None, None),
        keep_query_text=False,
    )
    assert failed.query is None
    assert failed.error is not None and "divorce" not in failed.error


def test_text_sqlite_cannot_store_drops_the_event_without_raising(tmp_path: Path) -> None:
    with ActivityWriter() as writer:
        assert writer.append(tmp_path / "a.sqlite3", event(query="bad \ud800 surrogate")) is False
        assert writer.append(tmp_path / "a.sqlite3", event(query="fine")) is True


def test_queued_events_are_written_by_the_time_the_writer_closes(tmp_path: Path) -> None:
    store = tmp_path / "a.sqlite3"
    with ActivityWriter() as writer:
        for n in range(50):
            writer.submit(store, event(f"c{n % 5}"))
    assert count_events(store) == 50


def test_a_record_given_without_its_text_is_recorded_without_a_revision() -> None:
    # recall_context's first record when it is too large for the budget: no text, so no
    # revision the client could hold out of date (the tray marks only those).
    event = event_from_result(
        client="c",
        tool="recall_context",
        arguments={"subject": "db", "query": "postgres"},
        result={
            "status": "ok",
            "records": [
                {"path": "Big.md", "revision": "a" * 64, "bytes": 6498, "hint": "too large"},
                {"path": "Small.md", "revision": "b" * 64, "text": "Backups run nightly."},
            ],
        },
        error=None,
        started=time.perf_counter(),
        client_info=(None, None),
        keep_query_text=True,
    )
    assert event.returned == (("Big.md", None), ("Small.md", "b" * 64))
