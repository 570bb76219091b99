"""Whether the desktop portal can choose folders, asked on a real (private) session bus.

At login the portal is started by D-Bus activation and may not answer within a call's wait;
the tray asks when it builds its menu, so a first unanswered question must not turn the
portal off for the rest of the session — while a refusal (no portal here) is kept.
"""

from __future__ import annotations

from collections.abc import Iterator

import anyio.to_thread
import pytest
from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus

from tests.support.parts import need
from tests.support.sni_host import SessionBus, start_session_bus
from vault_recall.app.desktop import folder_portal, session_bus

pytestmark = pytest.mark.anyio


@pytest.fixture
def bus(monkeypatch: pytest.MonkeyPatch) -> Iterator[SessionBus]:
    need("dbus-daemon")
    started = start_session_bus()
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", started.address)
    monkeypatch.setattr(folder_portal, "_known", None)
    monkeypatch.setattr(folder_portal, "_unanswered_at", None)
    monkeypatch.setattr(session_bus, "CALL_SECONDS", 1.0)
    try:
        yield started
    finally:
        started.stop()


class PlayedPortal:
    """The portal's name on the bus, answering the FileChooser version — or, while `silent`,
    taking every question and answering none (a portal still starting)."""

    def __init__(self) -> None:
        self.silent = True
        self.asked = 0

    async def start(self, address: str) -> MessageBus:
        connection = await MessageBus(bus_address=address).connect()

        def handle(message: Message) -> Message | bool | None:
            if message.message_type != MessageType.METHOD_CALL or message.path != folder_portal.PORTAL_PATH:
                return None
            self.asked += 1
            if self.silent:
                return True  # taken, never answered
            return Message.new_method_return(message, "v", [Variant("u", 4)])

        connection.add_message_handler(handle)
        await connection.request_name(folder_portal.PORTAL)
        return connection


async def test_a_portal_that_does_not_answer_yet_is_asked_again_later(
    bus: SessionBus, monkeypatch: pytest.MonkeyPatch
) -> None:
    portal = PlayedPortal()
    connection = await portal.start(bus.address)
    try:
        assert await anyio.to_thread.run_sync(folder_portal.available) is False
        assert await anyio.to_thread.run_sync(folder_portal.available) is False
        assert portal.asked == 1  # the second question waited for ASK_AGAIN_SECONDS
        portal.silent = False
        monkeypatch.setattr(folder_portal, "ASK_AGAIN_SECONDS", 0.0)
        assert await anyio.to_thread.run_sync(folder_portal.available) is True
        assert await anyio.to_thread.run_sync(folder_portal.available) is True
        assert portal.asked == 2  # an answer is kept
    finally:
        connection.disconnect()


async def test_no_portal_on_the_bus_is_an_answer_and_is_kept(bus: SessionBus, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(folder_portal, "ASK_AGAIN_SECONDS", 0.0)
    assert await anyio.to_thread.run_sync(folder_portal.available) is False
    assert folder_portal._known is False  # the bus said no one holds the name
    portal = PlayedPortal()
    portal.silent = False
    connection = await portal.start(bus.address)
    try:
        assert await anyio.to_thread.run_sync(folder_portal.available) is False
        assert portal.asked == 0
    finally:
        connection.disconnect()
