"""Stopping a real `vault-recall http` with SIGTERM or SIGINT while clients are connected and
calls are running: it ends by the signal, says so in one line on stderr, never a traceback, and
keeps the activity of the calls it answered."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from pathlib import Path

import pytest

from tests.support.edited_vault import SLOW, make_vault, serving_over_http
from tests.support.http_e2e import Endpoint, running_endpoint
from tests.support.mid_call import caught_mid_call
from tests.support.raw_peers import PROTOCOL, HttpPeer

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")]


def events(home: Path) -> int:
    with sqlite3.connect(home / "activity.sqlite3") as db:
        return int(db.execute("SELECT count(*) FROM events").fetchone()[0])


async def busy(endpoint: Endpoint, token: str, vault: Path, number: int) -> None:
    """A session with its GET stream open, one call answered, six slow calls sent: the signal
    arrives while the endpoint is held in the middle of one of them."""
    peer = await HttpPeer(endpoint.port, token).open()
    assert (await peer.call("list_subjects", {})).result is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", endpoint.port)
    try:
        writer.write(
            (
                f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                "Accept: text/event-stream\r\n"
                f"Mcp-Session-Id: {peer._session}\r\nMcp-Protocol-Version: {PROTOCOL}\r\n\r\n"
            ).encode()
        )
        assert b" 200 " in await reader.readuntil(b"\r\n")
        calls = [asyncio.create_task(peer.call(*SLOW)) for _ in range(6)]
        async with caught_mid_call(endpoint.process.pid, vault):
            endpoint.process.send_signal(number)  # delivered as the endpoint goes on
        await asyncio.gather(*calls, return_exceptions=True)  # ended with the process
    finally:
        writer.close()


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
def test_a_signal_stops_the_endpoint_with_calls_running_in_one_line_and_no_traceback(
    tmp_path: Path, vault_recall_home: Path, name: str
) -> None:
    number = getattr(signal, name)
    vault = make_vault(tmp_path / "Work", fillers=3000)
    token = serving_over_http(vault)
    with running_endpoint() as endpoint:
        asyncio.run(busy(endpoint, token, vault, number))
        assert endpoint.process.wait(30) == -number  # a bound for a hang, not a speed check
    lines = endpoint.log().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"vault-recall http: stopped by {name}"), lines
    assert events(vault_recall_home) >= 1  # the call it answered


def test_a_stop_with_nothing_running_says_only_that_it_stopped(tmp_path: Path) -> None:
    serving_over_http(make_vault(tmp_path / "Work", fillers=0))
    with running_endpoint() as endpoint:
        endpoint.process.send_signal(signal.SIGTERM)
        assert endpoint.process.wait(30) == -signal.SIGTERM
    assert endpoint.log().splitlines() == ["vault-recall http: stopped by SIGTERM"]
