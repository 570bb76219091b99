"""The tray's watcher sleeps until something it reads is written or something of its own is
due (app/tray/running/wakeups.py), not once a second: an OAuth app that starts waiting wakes it at
once, and between such writes it asks to sleep for as long as nothing is due."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.tray_standin import RecordingView
from vault_recall.app.tray.endpoint import app_grants
from vault_recall.app.tray.endpoint.app_grants import Approvals, read_approvals
from vault_recall.app.tray.running import tray_app, wakeups
from vault_recall.app.tray.running.tray_app import TrayApp
from vault_recall.app.tray.running.wakeups import Wakeups, seconds_until
from vault_recall.server.oauth import approvals as oauth_approvals
from vault_recall.server.oauth import store as oauth_store

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's word (inotify) is Linux's")


def test_a_write_wakes_the_watcher_with_the_name_of_what_was_written(tmp_path: Path) -> None:
    wake = Wakeups()
    try:
        wake.watch("config", tmp_path / "config.json", 3600.0)
        (tmp_path / "config.json.tmp").write_text("{}", encoding="utf-8")
        os.replace(tmp_path / "config.json.tmp", tmp_path / "config.json")  # written as the config is
        woken: frozenset[str] = frozenset()
        while "config" not in woken:  # bounded by the test's timeout; wakes only for a write
            woken, _ = wake.wait(60)
        assert woken == {"config"}
        wake.stop()
        assert "stop" in wake.wait(60)[0]
    finally:
        wake.close()


def test_the_next_wake_is_the_earliest_thing_due() -> None:
    assert seconds_until([None, 130.0, 112.5, None], now=100.0) == 12.5
    assert seconds_until([None], now=100.0) == wakeups.IDLE_WAIT_SECONDS


def _waiting(name: str = "Desk app") -> None:
    info = {"client_id": "app-1", "client_name": name, "redirect_uris": ["http://127.0.0.1:5000/cb"]}
    oauth_approvals.register_app("app-1", name, json.dumps(info), None)
    app = oauth_approvals.get_app("app-1")
    assert app is not None
    oauth_approvals.open_request(
        app,
        redirect_uri="http://127.0.0.1:5000/cb",
        redirect_explicit=True,
        code_challenge="c",
        state=None,
        scopes=(),
        resource="http://127.0.0.1:27183/mcp",
        issuer="http://127.0.0.1:27183",
    )


def test_an_idle_tray_sleeps_until_due_and_an_app_waiting_wakes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    with oauth_store.connect():
        pass  # the OAuth store exists, as once an app authorized: the old tray read it every second
    asked: list[float | None] = []
    reads: list[Approvals] = []
    changed = threading.Condition()
    wait = Wakeups.wait

    def recorded(self: Wakeups, timeout: float | None, also: int | None = None) -> tuple[frozenset[str], bool]:
        with changed:
            asked.append(timeout)
            changed.notify_all()
        return wait(self, timeout, also)

    def counted(now: float | None = None) -> Approvals:
        approvals = read_approvals(now)
        with changed:
            reads.append(approvals)
            changed.notify_all()
        return approvals

    monkeypatch.setattr(Wakeups, "wait", recorded)
    monkeypatch.setattr(app_grants, "read_approvals", counted)
    view = RecordingView()
    app = TrayApp(lambda backend, dispatch: view, "sni")
    runner = threading.Thread(target=app.run, name="tray")
    runner.start()
    try:
        with changed:
            # The first health check done, the watcher asks to sleep until the next thing due:
            # the next check (15 s at least) or the recalled notes' look (30 s), not a second.
            assert changed.wait_for(lambda: _settled(app, asked), 120)
            assert min(t for t in asked[-1:] if t is not None) > 10 * tray_app.POLL_SECONDS
            before = len(reads)
        _waiting()
        with changed:
            assert changed.wait_for(lambda: any(r.waiting for r in reads[before:]), 120)
        assert [w.name for w in app._approvals.approvals.waiting] == ["Desk app"]
    finally:
        app.dispatch(("quit",))
        runner.join(60)
    assert not runner.is_alive()


def _settled(app: Any, asked: list[float | None]) -> bool:
    return (
        app._health.report is not None
        and app._health.due_at() is not None
        and len(asked) >= 2
        and (asked[-1] is not None and asked[-1] > 1.0)
    )


def test_a_write_not_yet_shown_to_readers_is_read_again_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    """The OAuth store's write wakes the tray as it reaches the log, a moment before SQLite shows
    it: the read then finds nothing new, and no other write may come to wake it again."""
    told: list[tuple[str, str]] = []

    def notify(summary: str, body: str = "") -> None:
        told.append((summary, body))

    watch = app_grants.ApprovalsWatch(notify)
    later = app_grants.Approvals(waiting=(app_grants.Waiting("ABCD-EFGH", "Desk app", "desk-app"),))
    reads = iter([app_grants.Approvals(), later])
    monkeypatch.setattr(app_grants, "read_approvals", lambda now=None: next(reads))
    woken_at = time.monotonic()  # the clock the pauses after a write are counted on
    assert not watch.look(True, woken_at)  # not shown to readers yet
    again = watch.due_at()
    assert again < woken_at + 1.0  # looked for again within a second, not at the next minute's read
    assert watch.look(False, again) and watch.approvals == later
    assert told[0][0] == "“Desk app” asks to recall your notes (code ABCD-EFGH)"
