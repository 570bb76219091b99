"""A connection of ours outlives a full send buffer (app/desktop/session_bus.py): dbus-fast's
writer drops the connection when the socket says "try again", which a panel slow to read the
icon's pixmaps makes happen; ours waits and sends the rest.  On a real, private dbus-daemon."""

from __future__ import annotations

import asyncio
import os

import pytest
from dbus_fast import Message

from tests.support.parts import need
from tests.support.sni_host import start_session_bus
from vault_recall.app.desktop import session_bus

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


async def test_a_flood_of_large_messages_fills_the_buffer_and_the_connection_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    need("dbus-daemon")
    bus_process = start_session_bus()
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus_process.address)
    try:
        bus = await session_bus.connect()
        payload = os.urandom(200_000)
        for _ in range(300):  # 60 MB at once: far more than a socket's buffer
            bus.send(Message.new_signal("/flood", "test.Flood", "Big", "ay", [payload]))
        answer = await asyncio.wait_for(
            session_bus.call_on(
                bus, session_bus.BUS, session_bus.BUS_PATH, session_bus.BUS, "NameHasOwner", "s", ["x.y"]
            ),
            60,
        )
        assert answer == [False] and bus.connected
        bus.disconnect()
    finally:
        bus_process.stop()
