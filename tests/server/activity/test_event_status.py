"""An event's status read back from the activity store (server/activity/event_rows.py): the
statuses this version writes come back as themselves, and a word another version wrote to the
shared store is kept as written, as OtherStatus, never dropped nor mistaken for one of ours."""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import get_args

import pytest

from tests.support.activity_events import event, store_events
from vault_recall.server.activity.event_rows import OtherStatus, read_status, status_text
from vault_recall.server.activity.events import EventStatus, event_from_result
from vault_recall.server.activity.queries import news_after, recent_events


def stored(tmp_path: Path, status: object) -> Path:
    """A store holding one event whose status column holds `status`, as any version wrote it."""
    store = tmp_path / "activity.sqlite3"
    assert store_events(store, event(returned=(("A.md", "r1"),)))
    with closing(sqlite3.connect(store)) as raw, raw:
        raw.execute("UPDATE events SET status = ?", (status,))
    return store


@pytest.mark.parametrize("status", [*get_args(EventStatus), None])
def test_a_status_this_version_writes_is_read_as_itself(tmp_path: Path, status: EventStatus | None) -> None:
    store = stored(tmp_path, status)
    (row,) = recent_events(store)
    assert row.status == status and status_text(row.status) == status
    news = news_after(store, 0)
    assert news is not None and [e.status for e in news.events] == [status]


@pytest.mark.parametrize(("written", "word"), [("paused", "paused"), ("OK", "OK"), ("", ""), (3, "3")])
def test_a_word_another_version_wrote_is_kept_as_written(tmp_path: Path, written: object, word: str) -> None:
    (row,) = recent_events(stored(tmp_path, written))
    assert row.status == OtherStatus(word) and status_text(row.status) == word
    assert row.returned == ("A.md",)  # the rest of the event as ever


def test_reading_a_status_tells_ours_from_others() -> None:
    assert [read_status(s) for s in ("ok", "degraded", "unavailable", "error", None)] == [
        "ok",
        "degraded",
        "unavailable",
        "error",
        None,
    ]
    assert read_status("Degraded") == OtherStatus("Degraded")


@pytest.mark.parametrize(
    ("result", "status"),
    [
        ({"status": "ok", "records": []}, "ok"),
        ({"status": "degraded"}, "degraded"),
        ({"status": "unavailable", "reason": "gone"}, "unavailable"),
        (None, "error"),  # refused: no result
        ({}, "error"),
        ({"records": []}, None),  # a result without a status (no tool gives one)
    ],
)
def test_an_event_keeps_how_its_call_ended(result: dict[str, object] | None, status: EventStatus | None) -> None:
    made = event_from_result(
        client="c",
        tool="recall_context",
        arguments={},
        result=result,
        error=None,
        started=time.perf_counter(),
        client_info=(None, None),
        keep_query_text=True,
    )
    assert made.status == status
