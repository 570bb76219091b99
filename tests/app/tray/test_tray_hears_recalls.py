"""The tray learns of recalls from what is new in the activity store (tray_app.TrayApp._hear,
which its watcher runs when a server writes the store): a store that is busy as the tray starts
must not make the recalls already there look new."""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support.activity_events import event
from tests.support.tray_standin import RecordingView
from vault_recall.app.tray.running import tray_app
from vault_recall.app.tray.running.tray_app import TrayApp
from vault_recall.server.activity.event_rows import News
from vault_recall.server.activity.queries import news_after
from vault_recall.server.activity.writer import ActivityWriter
from vault_recall.server.config.config_file import activity_path


def recall(writer: ActivityWriter, note: str, ts: float) -> None:
    assert writer.append(activity_path(), event(vault="Work", returned=((note, "r1"),), ts=ts))


def test_recalls_made_before_a_tray_that_started_on_a_busy_store_are_not_news() -> None:
    writer = ActivityWriter()
    for n in range(3):
        recall(writer, f"Old {n}.md", time.time() - 600 + n)
    writer.close()
    # Another process holds the store for itself (SQLite's exclusive locking) as the tray starts.
    holder = sqlite3.connect(activity_path(), isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    view = RecordingView()
    try:
        app = TrayApp(lambda backend, dispatch: view, "sni")
    finally:
        holder.execute("COMMIT")
        holder.close()
    app._hear()  # the store is readable again: the three recalls were there before the tray
    assert not view.dot_shown()
    writer = ActivityWriter()
    recall(writer, "New.md", time.time())
    writer.close()
    app._hear()
    assert view.dot_shown()  # and one made since is news
    assert [e.returned for e in app.state.recent] == [("Old 0.md",), ("Old 1.md",), ("Old 2.md",), ("New.md",)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's word (inotify) is Linux's")
@pytest.mark.parametrize("first_look", ["nothing yet", "busy"])
def test_a_write_the_first_look_missed_is_looked_for_again_before_any_poll(
    first_look: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write wakes the tray as it reaches the store's log, a moment before SQLite shows it
    to readers; the look made in that moment finds nothing (or the store busy), and no other
    write may follow.  The tray must look again by itself, not wait for its poll."""
    writer = ActivityWriter()
    recall(writer, "Before.md", time.time() - 60)  # the store, its folder and its log exist
    monkeypatch.setattr(tray_app, "POLL_SECONDS", 3600.0)  # no look comes from the poll here
    looks: list[int] = []

    def stale_first(path: Path, after: int, limit: int = 50) -> News | None:
        looks.append(after)
        if len(looks) == 1:
            return None if first_look == "busy" else News(after, [])
        return news_after(path, after, limit)

    monkeypatch.setattr(tray_app, "news_after", stale_first)
    view = RecordingView()
    app = TrayApp(lambda backend, dispatch: view, "sni")
    runner = threading.Thread(target=app.run, name="tray")
    runner.start()
    try:
        since = time.perf_counter()
        recall(writer, "New.md", time.time())
        assert view.until_dot(since, time.monotonic() + 60), "the write was never looked for again"
        assert len(looks) >= 2 and app.state.recent[-1].returned == ("New.md",)
    finally:
        writer.close()
        app.dispatch(("quit",))
        runner.join(60)
    assert not runner.is_alive()
