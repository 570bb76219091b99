"""A server stopped by a signal, as clients stop theirs, still writes the calls it answered."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import IO, Any

import pytest

from tests.support.e2e import vault_recall_command
from vault_recall.server.activity.database import connect

pytestmark = pytest.mark.e2e

HELLO: list[dict[str, Any]] = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


def _send(pipe: IO[bytes], message: dict[str, Any]) -> None:
    pipe.write((json.dumps(message) + "\n").encode())
    pipe.flush()


def _response(pipe: IO[bytes], request_id: int) -> dict[str, Any]:
    while line := pipe.readline():
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == request_id:
            return message
    raise AssertionError("the server closed stdout before answering")


def _call_then_signal(vault: Path, number: int) -> int:
    """Start a server, make one call, send the signal as soon as the answer is read."""
    argv = [*vault_recall_command(), "serve", "--client", "stopper", "--vault", str(vault)]
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    for message in HELLO:
        _send(server.stdin, message)
    _send(server.stdin, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_subjects"}})
    assert "result" in _response(server.stdout, 2)
    server.send_signal(number)
    try:
        return server.wait(timeout=30)  # a bound for a hang, not a speed check
    finally:
        server.kill()
        server.stdin.close()
        server.stdout.close()


def _events(home: Path) -> int:
    store = home / "activity.sqlite3"
    if not store.exists():
        return 0
    with sqlite3.connect(store) as connection:
        try:
            return int(connection.execute("SELECT COUNT(*) FROM events WHERE client = 'stopper'").fetchone()[0])
        except sqlite3.OperationalError:  # no table: nothing was ever written
            return 0


@pytest.mark.parametrize(("name", "runs"), [("SIGTERM", 5), ("SIGINT", 2), ("SIGHUP", 2)])
def test_the_last_event_is_kept_when_the_client_stops_the_server_with_a_signal(
    name: str, runs: int, shared_sample: Path, vault_recall_home: Path
) -> None:
    number = getattr(signal, name)
    codes = [_call_then_signal(shared_sample, number) for _ in range(runs)]
    assert codes == [-number] * runs  # the exit status still says which signal ended it
    assert _events(vault_recall_home) == runs


def test_stopping_never_hangs_on_a_store_another_process_holds_locked(
    shared_sample: Path, vault_recall_home: Path
) -> None:
    holder = connect(vault_recall_home / "activity.sqlite3")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert _call_then_signal(shared_sample, signal.SIGTERM) == -signal.SIGTERM
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@pytest.fixture(autouse=True)
def _posix_only() -> None:
    if os.name == "nt":
        pytest.skip("POSIX signals")
