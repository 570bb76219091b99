"""Refreshes asked from several threads at once (the health check's, the action worker's, the
watcher's) must show the state gathered last, last: a refresh that gathered first and handed
its menu over later would leave the menu older than the disk."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.support.menu_walk import find
from tests.support.tray_standin import RecordingView
from vault_recall.app.tray.menu import snapshot as tray_state
from vault_recall.app.tray.menu.items import TrayState
from vault_recall.app.tray.running import tray_app
from vault_recall.app.tray.running.tray_app import TrayApp

WAIT = 60.0  # generous: nothing here is timed


class Watched:
    """A lock that says when a thread starts waiting for it (the second refresh, held back)."""

    def __init__(self, waiting: threading.Condition, seen: list[str]) -> None:
        self._lock = threading.Lock()
        self._waiting = waiting
        self._seen = seen

    def __enter__(self) -> None:
        if not self._lock.acquire(blocking=False):
            with self._waiting:
                self._seen.append("waits")
                self._waiting.notify_all()
            self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def test_two_refreshes_at_once_show_the_state_gathered_last_last(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    dump = tmp_path / "menu.json"
    monkeypatch.setenv(tray_app.MENU_DUMP_ENV, str(dump))
    view = RecordingView()
    app = TrayApp(lambda backend, dispatch: view, "sni")
    real = tray_state.gather
    events = threading.Condition()
    seen: list[str] = []
    first_may_go = threading.Event()

    def gather(health: Any, **kwargs: Any) -> TrayState:
        state: TrayState = real(health, **kwargs)
        with events:
            number = sum(1 for s in seen if s.startswith("gathered"))
            seen.append(f"gathered {number}")
            events.notify_all()
        if number == 0:
            assert first_may_go.wait(WAIT)
        return dataclasses.replace(state, version=f"gathered {number}")

    monkeypatch.setattr(tray_state, "gather", gather)
    app._refreshing = Watched(events, seen)  # type: ignore[assignment]
    first = threading.Thread(target=app.refresh)
    first.start()
    with events:
        assert events.wait_for(lambda: "gathered 0" in seen, WAIT)
    second = threading.Thread(target=app.refresh)
    second.start()
    # The second refresh either waits for the first (right) or gathers beside it (wrong).
    with events:
        assert events.wait_for(lambda: "waits" in seen or "gathered 1" in seen, WAIT)
    first_may_go.set()
    first.join(WAIT)
    second.join(WAIT)
    assert seen == ["gathered 0", "waits", "gathered 1"]
    assert app.state.version == "gathered 1"
    assert find(view.shown[-1][1].items, "Help", "Vault Recall gathered 1")  # the menu shown last
    assert "gathered 1" in dump.read_text(encoding="utf-8")
