"""The tray learns of recalls from what is new in the activity store (tray_app.TrayApp._hear,
which its watcher runs when a server writes the store): a store that is busy as the tray starts
must not make the recalls already there look new."""

from __future__ import annotations

import sqlite3
import time

from tests.support.activity_events import event
from tests.support.tray_standin import RecordingView
from vault_recall.app.tray.tray_app import TrayApp
from vault_recall.server.activity.store import ActivityWriter
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
