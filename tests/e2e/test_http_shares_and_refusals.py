"""Over a real `vault-recall http`: one client cannot take the endpoint from the others (each
holds its share of sessions and connections), every refusal comes in one format with one
sentence, Host and Origin compare without case, and a GET stream asked to resume is opened."""

from __future__ import annotations

import asyncio
import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.support.edited_vault import make_vault
from tests.support.http_e2e import (
    INITIALIZE,
    JSON_HEADERS,
    Endpoint,
    parse_response,
    post,
    raw_request,
    running_endpoint,
)
from tests.support.raw_peers import PROTOCOL, HttpPeer, http_exchange

pytestmark = [pytest.mark.e2e]


@contextmanager
def serving_three_clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Endpoint, dict[str, str]]]:
    """An endpoint with clients `hog`, `polite` and `other`, in a home of its own."""
    home = tmp_path_factory.mktemp("shares-home")
    vault = make_vault(tmp_path_factory.mktemp("shares") / "Work", fillers=0)
    previous = os.environ.get("VAULT_RECALL_HOME")
    os.environ["VAULT_RECALL_HOME"] = str(home)
    try:
        from vault_recall.app.state.config_store import issue_token, update_config
        from vault_recall.server.config.config_file import Config, VaultEntry

        update_config(lambda c: Config(vaults=(VaultEntry("Work", str(vault)),), active_vault="Work"))
        tokens = {client: issue_token(client)[0] for client in ("hog", "polite", "other")}
    finally:
        if previous is None:
            del os.environ["VAULT_RECALL_HOME"]
        else:
            os.environ["VAULT_RECALL_HOME"] = previous
    with running_endpoint(env={**os.environ, "VAULT_RECALL_HOME": str(home)}) as running:
        yield running, tokens
        assert "Traceback" not in running.log(), running.log()


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Endpoint, dict[str, str]]]:
    """One endpoint for the tests that leave it as they found it."""
    with serving_three_clients(tmp_path_factory) as running:
        yield running


@pytest.fixture
def own_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Endpoint, dict[str, str]]]:
    """An endpoint for one test, which fills it."""
    with serving_three_clients(tmp_path_factory) as running:
        yield running


def one_sentence(body: bytes) -> tuple[str, str]:
    """The refusal's code and sentence; fails unless the body is exactly that."""
    refusal = json.loads(body)
    assert set(refusal) == {"error", "error_description"}, refusal
    sentence = refusal["error_description"]
    assert isinstance(sentence, str) and 10 < len(sentence) < 300 and "\n" not in sentence, sentence
    return refusal["error"], sentence


async def answered(port: int, token: str) -> bool:
    """Can this client open a session and have a tool answer in it?"""
    peer = await HttpPeer(port, token).open()
    return (await peer.call("list_subjects", {})).result is not None


def test_a_client_opening_sessions_and_never_ending_them_leaves_room_for_every_other_client(
    own_endpoint: tuple[Endpoint, dict[str, str]],
) -> None:
    running, tokens = own_endpoint
    hog = {**JSON_HEADERS, "Authorization": f"Bearer {tokens['hog']}"}

    async def scenario() -> None:
        gate = asyncio.Semaphore(16)

        async def open_one() -> str:
            async with gate:
                reply = await http_exchange(running.port, hog, INITIALIZE)
            assert reply is not None and reply.status == 200, reply
            return reply.headers["mcp-session-id"]

        sessions = await asyncio.gather(*(open_one() for _ in range(1030)))  # past the endpoint's 1,024
        assert await answered(running.port, tokens["polite"])
        # The hog keeps its newest sessions, its share; its oldest were ended for it.
        newest = {**hog, "Mcp-Session-Id": sessions[-1], "Mcp-Protocol-Version": PROTOCOL}
        ping = b'{"jsonrpc":"2.0","id":2,"method":"ping"}'
        reply = await http_exchange(running.port, newest, ping)
        assert reply is not None and reply.status == 200
        oldest = {**newest, "Mcp-Session-Id": sessions[0]}
        reply = await http_exchange(running.port, oldest, ping)
        assert reply is not None and reply.status == 404
        assert one_sentence(reply.body)[0] == "unknown_session"

    asyncio.run(scenario())


async def hold_a_stream(port: int, token: str) -> tuple[asyncio.StreamWriter, int, bytes]:
    """Open a session and its GET stream on one connection, and keep it: the connection, and the
    status and body of the answer that refused it (200 and the stream's head when none did)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    auth = f"Authorization: Bearer {token}\r\nHost: 127.0.0.1:{port}\r\n"
    writer.write(
        (
            f"POST /mcp HTTP/1.1\r\n{auth}Content-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(INITIALIZE)}\r\n\r\n"
        ).encode()
        + INITIALIZE
    )
    status, headers, _ = parse_response(await reader.readuntil(b"\r\n\r\n"))
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    if status != 200:
        return writer, status, body
    writer.write(
        (
            f"GET /mcp HTTP/1.1\r\n{auth}Accept: text/event-stream\r\nMcp-Session-Id: {headers['mcp-session-id']}\r\n"
            f"Mcp-Protocol-Version: {PROTOCOL}\r\n\r\n"
        ).encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    return writer, parse_response(head)[0], head


def test_a_client_holding_connections_open_gets_its_share_and_every_other_client_is_answered(
    own_endpoint: tuple[Endpoint, dict[str, str]],
) -> None:
    running, tokens = own_endpoint

    async def scenario() -> None:
        held: list[asyncio.StreamWriter] = []
        refusals: list[bytes] = []
        try:
            for _ in range(300):  # past the endpoint's 256 connections
                try:
                    writer, status, body = await hold_a_stream(running.port, tokens["other"])
                except (asyncio.IncompleteReadError, ConnectionError):
                    continue  # closed on it
                held.append(writer)
                if status != 200:
                    assert status == 429, body
                    refusals.append(body)
            assert refusals, "the client was never held to its share"
            assert one_sentence(refusals[0])[0] == "too_many_connections"
            assert await answered(running.port, tokens["polite"])
        finally:
            for writer in held:
                writer.close()

    asyncio.run(scenario())


def test_host_and_origin_are_compared_without_case_by_every_check(endpoint: tuple[Endpoint, dict[str, str]]) -> None:
    running, tokens = endpoint
    headers = {**JSON_HEADERS, "Authorization": f"Bearer {tokens['polite']}", "Origin": "http://LOCALHOST:6274"}
    status, _, body = post(running.port, INITIALIZE, headers, host=f"LOCALHOST:{running.port}")
    assert status == 200, body
    assert "result" in json.loads(body)


def test_a_get_stream_asked_to_resume_from_an_event_is_opened_afresh(endpoint: tuple[Endpoint, dict[str, str]]) -> None:
    running, tokens = endpoint
    auth = {**JSON_HEADERS, "Authorization": f"Bearer {tokens['polite']}"}
    status, headers, _ = post(running.port, INITIALIZE, auth)
    assert status == 200
    request = (
        f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\nAuthorization: Bearer {tokens['polite']}\r\n"
        f"Accept: text/event-stream\r\nMcp-Session-Id: {headers['mcp-session-id']}\r\n"
        f"Mcp-Protocol-Version: {PROTOCOL}\r\nLast-Event-ID: 41\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", running.port), timeout=30) as sock:
        sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(4096)
    status, headers, _ = parse_response(head)
    assert status == 200 and headers["content-type"].startswith("text/event-stream")


def test_every_refusal_is_a_status_and_one_sentence_in_one_format(endpoint: tuple[Endpoint, dict[str, str]]) -> None:
    running, tokens = endpoint
    port = running.port
    auth = {**JSON_HEADERS, "Authorization": f"Bearer {tokens['polite']}"}
    session = post(port, INITIALIZE, auth)[1]["mcp-session-id"]
    in_session = {**auth, "Mcp-Session-Id": session, "Mcp-Protocol-Version": PROTOCOL}
    ping = b'{"jsonrpc":"2.0","id":3,"method":"ping"}'

    def raw(
        method: str, headers: dict[str, str], body: bytes = b"", path: str = "/mcp"
    ) -> tuple[int, dict[str, str], bytes]:
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
        lines += [f"{k}: {v}" for k, v in headers.items()] + [f"Content-Length: {len(body)}", "", ""]
        return parse_response(raw_request(port, "\r\n".join(lines).encode() + body))

    cases = {
        "no token": (post(port, INITIALIZE, JSON_HEADERS), 401),
        "foreign host": (post(port, INITIALIZE, auth, host="evil.example"), 403),
        "foreign origin": (post(port, INITIALIZE, {**auth, "Origin": "http://evil.example"}), 403),
        "another path": (post(port, INITIALIZE, auth, path="/other"), 404),
        "no session id": (post(port, ping, {**auth, "Mcp-Protocol-Version": PROTOCOL}), 400),
        "unknown session": (post(port, ping, {**in_session, "Mcp-Session-Id": "f" * 32}), 404),
        "body not JSON": (post(port, b"{not json", in_session), 400),
        "not JSON-RPC": (post(port, b'{"hello": 1}', in_session), 400),
        "wrong content type": (post(port, ping, {**in_session, "Content-Type": "text/plain"}), 400),
        "accepts no JSON": (post(port, ping, {**in_session, "Accept": "text/plain"}), 406),
        "body too large": (post(port, b"[" + b" " * 70_000 + b"]", in_session), 413),
        "method not allowed": (raw("PUT", in_session, ping), 405),
        "OAuth token by GET": (raw("GET", {}, path="/token"), 405),
        "OAuth registration by GET": (raw("GET", {}, path="/register"), 405),
        "OAuth authorization by DELETE": (raw("DELETE", {}, path="/authorize"), 405),
        "not HTTP": (parse_response(raw_request(port, b"HELLO THERE\r\n\r\n")), 400),
    }
    for name, ((status, _, body), expected) in cases.items():
        assert status == expected, (name, status, body)
        one_sentence(body)
    # A wrong method at an OAuth path names what the path takes.
    assert json.loads(cases["OAuth token by GET"][0][2])["error_description"] == "/token takes POST only"
    assert json.loads(cases["OAuth authorization by DELETE"][0][2])["error_description"] == (
        "/authorize takes GET and POST only"
    )
