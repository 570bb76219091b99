"""The tray moving from one view to another in the same process (tray_app.TrayApp.run): the
next view takes over with the same state, and a backend that cannot run sends the tray back
to the one it left, for good.  The views are stand-ins recording what happens to them: a
backend that fails here cannot be had for real on this machine."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

import pytest

from vault_recall.app.desktop.tray_hosts import Hosts
from vault_recall.app.tray.menu.tree import Action
from vault_recall.app.tray.running.tray_app import TrayApp
from vault_recall.app.tray.views.protocol import Shown


class StandIn:
    def __init__(self, backend: str, log: list[str], fail: bool) -> None:
        self.backend, self.log, self.fail = backend, log, fail
        self.shown: list[Shown] = []
        self.stopped = threading.Event()

    def show(self, shown: Shown) -> None:
        self.shown.append(shown)

    def notify(self, message: str) -> bool:
        return False

    def run(self, started: Callable[[], None]) -> None:
        self.log.append(f"run {self.backend}")
        if self.fail:
            raise RuntimeError(f"{self.backend} cannot run here")
        started()
        self.stopped.wait(30)

    def stop(self) -> None:
        self.stopped.set()


def test_a_backend_that_cannot_run_sends_the_tray_back_to_the_one_it_left() -> None:
    log: list[str] = []
    views: list[StandIn] = []

    def make(backend: str, dispatch: Callable[[Action], None]) -> StandIn:
        log.append(f"make {backend}")
        views.append(StandIn(backend, log, fail=backend == "gtk"))
        return views[-1]

    app = TrayApp(make, "sni", follow=True)
    app._hosts = None  # no real panels here: the test plays what their watch would report
    assert app._follower is not None and app._follower.gtk is not None
    runner = threading.Thread(target=app.run)
    runner.start()
    try:
        # An XEmbed tray alone, for long enough: the tray moves to GTK's view, which fails.
        app._follower.gtk = lambda: True
        app._follower.seen(Hosts(sni=False, xembed=True), time.monotonic() - 60)
        app._follow_panels()
        deadline = time.monotonic() + 30
        while not (len(views) == 3 and log[-1] == "run sni") and time.monotonic() < deadline:
            views[-1].stopped.wait(0.01)
        assert log == ["make sni", "run sni", "make gtk", "run gtk", "make sni", "run sni"]
        assert views[2].shown and views[2].shown[-1].items == views[0].shown[-1].items  # the same menu
        # GTK is not tried again, however long the XEmbed tray stays alone.
        assert app._follower.backend == "sni" and app._follower.switch_to(time.monotonic() + 600) is None
    finally:
        app.dispatch(("quit",))
        runner.join(30)
    assert not runner.is_alive()


def test_a_look_sent_after_the_statusnotifieritem_view_stopped_is_dropped_quietly() -> None:
    """A click still being handled as the person quits refreshes the menu after the view's loop
    has closed: that must not end the worker thread with a traceback."""
    pytest.importorskip("dbus_fast", reason="the StatusNotifierItem view is Linux's")
    from vault_recall.app.tray.views.status_notifier.bus_view import SniView

    view = SniView(lambda action: None)
    loop = asyncio.new_event_loop()
    loop.close()
    view._loop = loop  # as after its run: asyncio.run closed the loop
    view.show(Shown(status="ok", recalling=False, tooltip="Vault Recall", items=()))
