"""Waiting for a server to write the activity store (app/desktop/store_watch.py): on Linux the
kernel wakes the waiter on the write, and the tray's own reads never do; where there is no
inotify, the waiter is told to look once per poll interval instead."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support.activity_events import event
from vault_recall.app.desktop.store_watch import LOOK_AGAIN_SECONDS, LookAgain, StoreWatch
from vault_recall.server.activity.queries import news_after, recent_events
from vault_recall.server.activity.writer import ActivityWriter
from vault_recall.server.config.config_file import activity_path

LONG = 600.0  # a wait no test lets run out: it ends on a write, or the test fails by its deadline


def write_one() -> None:
    writer = ActivityWriter()
    assert writer.append(activity_path(), event())
    writer.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
def test_a_write_to_the_store_ends_the_wait_and_reads_do_not() -> None:
    write_one()  # the store and its folder exist
    watch = StoreWatch(activity_path())
    try:
        assert watch.by_kernel
        assert recent_events(activity_path()) and news_after(activity_path(), 0) is not None
        assert watch.wait(0) is False  # the reads above woke nothing
        woke: list[bool] = []
        waiter = threading.Thread(target=lambda: woke.append(watch.wait(LONG)))
        waiter.start()
        write_one()
        waiter.join(60)
        assert woke == [True]
    finally:
        watch.close()


def test_stop_ends_a_wait_at_once() -> None:
    write_one()
    watch = StoreWatch(activity_path(), poll_seconds=LONG)
    watch.wait(0)  # without the kernel, the first look is due at once
    woke: list[bool] = []
    waiter = threading.Thread(target=lambda: woke.append(watch.wait(LONG)))
    waiter.start()
    watch.stop()
    waiter.join(60)
    watch.close()
    assert woke == [False]


def test_without_inotify_the_waiter_is_told_to_look_once_per_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.platform", "darwin")  # how the watch finds there is no inotify
    write_one()
    watch = StoreWatch(activity_path(), poll_seconds=0.0)
    assert not watch.by_kernel
    assert watch.wait(LONG) is True and watch.wait(LONG) is True  # a look every time one is due
    slow = StoreWatch(activity_path(), poll_seconds=LONG)
    assert slow.wait(LONG) is True  # the first look is due at once
    assert slow.wait(0) is False  # the next only after the poll interval: a write alone is not heard
    watch.close()
    slow.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
def test_a_store_whose_folder_comes_later_is_watched_once_it_is_there(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("VAULT_RECALL_HOME", str(tmp_path / "not yet"))
    watch = StoreWatch(activity_path())
    try:
        assert not watch.by_kernel and watch.wait(0) is False
        write_one()  # the first server makes the folder and the store
        assert watch.wait(LONG) is True and watch.by_kernel
        woke: list[bool] = []
        waiter = threading.Thread(target=lambda: woke.append(watch.wait(LONG)))
        waiter.start()
        write_one()
        waiter.join(60)
        assert woke == [True]
    finally:
        watch.close()


def test_a_look_that_found_nothing_is_made_again_soon_and_news_ends_the_looks() -> None:
    again = LookAgain(poll_seconds=3600.0)
    assert again.at is None and not again.due()  # no look without a write
    pauses: list[float | None] = []
    for _ in range(len(LOOK_AGAIN_SECONDS) + 1):
        before = time.monotonic()
        again.looked(written=not pauses, heard=False)  # woken once, then nothing each time
        pauses.append(None if again.at is None else again.at - before)
    assert all(p is not None and 0 < p <= 1.0 for p in pauses[:-1]) and pauses[-1] is None
    again.looked(written=True, heard=None)  # busy: soon, then once a poll while it stays busy
    assert again.at is not None and again.at - time.monotonic() <= LOOK_AGAIN_SECONDS[0]
    for _ in LOOK_AGAIN_SECONDS:
        again.looked(written=False, heard=None)
    assert again.at is not None and again.at - time.monotonic() > 3000
    again.looked(written=False, heard=True)
    assert again.at is None  # news read: an idle tray reads nothing until the next write
