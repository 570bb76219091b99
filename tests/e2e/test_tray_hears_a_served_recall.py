"""End to end: a recall made through a real `vault-recall serve` process reaches the tray's blue
dot by the write itself (app/desktop/store_watch.py), not by the tray's poll: the poll interval
here is longer than the test may take."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import anyio
import pytest

from tests.support.e2e import call, serving
from tests.support.tray_standin import RecordingView
from vault_recall.app.tray.running import tray_app
from vault_recall.app.tray.running.tray_app import TrayApp

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.e2e,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's word (inotify) is Linux's"),
]

NEVER = 3600.0  # the tray's poll interval here: no look comes from it while the test runs


async def test_a_served_recall_wakes_the_tray_before_any_poll(
    shared_sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tray_app, "POLL_SECONDS", NEVER)
    view = RecordingView()
    app = TrayApp(lambda backend, dispatch: view, "sni")
    runner = threading.Thread(target=app.run, name="tray")
    runner.start()
    try:
        async with serving("cursor", shared_sample) as session:
            since = time.perf_counter()
            answer = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
            assert answer["records"]
            heard = await anyio.to_thread.run_sync(view.until_dot, since, time.monotonic() + 60)
        assert heard, "the recall never reached the tray's icon"
        assert app.state.recent and app.state.recent[-1].tool == "recall_context"
    finally:
        app.dispatch(("quit",))
        runner.join(60)
    assert not runner.is_alive()
