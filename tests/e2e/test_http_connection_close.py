"""Over a real `vault-recall http`: a request sent with `Connection: close` (Python's urllib,
HTTP/1.0 clients, curl -H 'Connection: close') that arrived whole is answered however long its
call takes, and a stream opened that way stays open; only a request still arriving is cut."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.edited_vault import SLOW, make_vault, serving_over_http
from tests.support.http_e2e import INITIALIZE, JSON_HEADERS, Endpoint, parse_response, post, running_endpoint

pytestmark = [pytest.mark.e2e]

DEADLINE = 0.5  # --request-timeout, its smallest


def session_headers(token: str, session: str) -> dict[str, str]:
    return {
        **JSON_HEADERS,
        "Authorization": f"Bearer {token}",
        "Mcp-Session-Id": session,
        "Mcp-Protocol-Version": "2025-11-25",
    }


@pytest.fixture
def endpoint_and_session(tmp_path: Path) -> Iterator[tuple[Endpoint, str, str]]:
    vault = make_vault(tmp_path / "Work", fillers=3000)
    token = serving_over_http(vault)
    with running_endpoint("--request-timeout", str(DEADLINE)) as endpoint:
        status, headers, _ = post(endpoint.port, INITIALIZE, {**JSON_HEADERS, "Authorization": f"Bearer {token}"})
        assert status == 200
        session = headers["mcp-session-id"]
        initialized = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
        assert post(endpoint.port, initialized, session_headers(token, session))[0] == 202
        yield endpoint, token, session


def test_a_call_that_takes_longer_than_the_deadline_is_answered_on_a_connection_to_close(
    endpoint_and_session: tuple[Endpoint, str, str],
) -> None:
    endpoint, token, session = endpoint_and_session
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": SLOW[0], "arguments": SLOW[1]},
        }
    ).encode()
    status, _, answer = post(endpoint.port, body, session_headers(token, session))  # sends Connection: close
    assert status == 200, answer[:200]
    assert "result" in json.loads(answer)
    assert "did not arrive" not in endpoint.log()


def test_a_stream_opened_on_a_connection_to_close_outlives_the_deadline(
    endpoint_and_session: tuple[Endpoint, str, str],
) -> None:
    endpoint, token, session = endpoint_and_session
    head = [
        "GET /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{endpoint.port}",
        "Connection: close",
        "Accept: text/event-stream",
        f"Authorization: Bearer {token}",
        f"Mcp-Session-Id: {session}",
        "Mcp-Protocol-Version: 2025-11-25",
    ]
    with socket.create_connection(("127.0.0.1", endpoint.port), timeout=30) as sock:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        opened = b""
        while b"\r\n\r\n" not in opened:
            opened += sock.recv(4096)
        assert parse_response(opened)[0] == 200
        # Nothing comes on this stream (the server sends no notifications of its own): the
        # connection is cut only if the deadline still ran. Four deadlines are a wide margin.
        sock.settimeout(4 * DEADLINE)
        with pytest.raises(TimeoutError):
            cut = sock.recv(4096)
            pytest.fail(f"the stream was cut while it was open: {cut!r}")
    assert "did not arrive" not in endpoint.log()
