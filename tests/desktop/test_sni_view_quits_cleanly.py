"""A look handed to the StatusNotifierItem view as Quit closes its connection must not be sent
(app/tray/views/status_notifier/bus_view.py): the loop still runs queued callbacks after the disconnect, and a signal
written then fails on the closed socket with a traceback in the tray's log.  On a real, private
dbus-daemon; the look is made to arrive exactly then, from the disconnect itself."""

from __future__ import annotations

import logging
import threading

import dbus_fast.aio
import pytest
from dbus_fast.aio import MessageBus

from tests.support.parts import need
from tests.support.sni_host import start_session_bus
from vault_recall.app.tray.views.protocol import Shown
from vault_recall.app.tray.views.status_notifier.bus_view import SniView

pytestmark = [pytest.mark.e2e]

LOOKS = (
    Shown(status="ok", recalling=False, tooltip="Vault Recall", items=()),
    Shown(status="ok", recalling=True, tooltip="Vault Recall: a recall", items=()),
)


def test_a_look_that_comes_as_quit_disconnects_is_not_sent(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    need("dbus-daemon")
    bus_process = start_session_bus()
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus_process.address)
    view = SniView(lambda action: None)
    late: list[BaseException | None] = []

    def look_late(_: object) -> None:
        try:
            view._show(LOOKS[1])  # as a look another thread queued runs now
            late.append(None)
        except BaseException as exc:  # what the late look raised is the finding
            late.append(exc)

    class LateLookBus(MessageBus):  # type: ignore[misc]
        def disconnect(self) -> None:
            super().disconnect()
            look_late(None)  # a look handed over as Quit closed the connection runs now

    monkeypatch.setattr(dbus_fast.aio, "MessageBus", LateLookBus)
    started = threading.Event()

    def quit_once_started() -> None:  # as the tray's worker does on Quit
        if started.wait(60):
            view.show(LOOKS[0])
            view.stop()

    view.show(LOOKS[0])
    quitter = threading.Thread(target=quit_once_started, name="quit")
    quitter.start()
    try:
        with caplog.at_level(logging.ERROR):
            view.run(started.set)  # on this thread: the view takes SIGINT and SIGTERM
        quitter.join(60)
        assert started.is_set(), "the view never started"
        assert late == [None], f"the look after the disconnect raised {late}"
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    finally:
        started.set()
        bus_process.stop()
