"""Hostile requests against a real `vault-recall http` on 127.0.0.1: each is refused with a clear
status and sentence, none reaches a tool (the activity store stays empty), no token is logged,
and a well-formed request from a real client still works next to them."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests.support.e2e import call, copy_sample_vault
from tests.support.http_e2e import (
    INITIALIZE,
    JSON_HEADERS,
    Endpoint,
    http_client,
    parse_response,
    post,
    running_endpoint,
)

pytestmark = [pytest.mark.e2e]

REQUEST_SECONDS = 1.5


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Endpoint, dict[str, str], Path]]:
    """One endpoint for every case here (its own home: a client 'cursor' with a token, a revoked
    client 'gone'), started with a short request deadline."""
    home = tmp_path_factory.mktemp("security-home")
    vault = copy_sample_vault(tmp_path_factory.mktemp("security") / "Sample vault")
    env = {**os.environ, "VAULT_RECALL_HOME": str(home)}
    previous = os.environ.get("VAULT_RECALL_HOME")
    os.environ["VAULT_RECALL_HOME"] = str(home)
    try:
        from vault_recall.app.state.config_store import issue_token, revoke_token, update_config
        from vault_recall.server.config.config_file import Config, VaultEntry

        update_config(lambda c: Config(vaults=(VaultEntry("Sample", str(vault)),), active_vault="Sample"))
        tokens = {"cursor": issue_token("cursor")[0], "gone": issue_token("gone")[0]}
        revoke_token("gone")
    finally:
        if previous is None:
            del os.environ["VAULT_RECALL_HOME"]
        else:
            os.environ["VAULT_RECALL_HOME"] = previous
    with running_endpoint("--request-timeout", str(REQUEST_SECONDS), env=env) as endpoint:
        yield endpoint, tokens, home
    log = endpoint.log()
    for token in tokens.values():
        assert token not in log, "a token reached the endpoint's log"
    assert "vrt_wrong" not in log


def events(home: Path) -> int:
    store = home / "activity.sqlite3"
    if not store.exists():
        return 0
    with sqlite3.connect(store) as db:
        return int(db.execute("SELECT count(*) FROM events").fetchone()[0])


def refused(answer: tuple[int, dict[str, str], bytes], status: int, words: str) -> None:
    code, _headers, body = answer
    assert code == status, (code, body)
    sentence = json.loads(body)["error_description"]
    assert words in sentence, sentence


def with_token(token: str, **more: str) -> dict[str, str]:
    return {**JSON_HEADERS, "Authorization": f"Bearer {token}", **more}


def test_a_request_without_a_token_gets_401_saying_how_to_make_one(
    guarded: tuple[Endpoint, dict[str, str], Path],
) -> None:
    endpoint, _, home = guarded
    answer = post(endpoint.port, INITIALIZE, JSON_HEADERS)
    refused(answer, 401, "vault-recall client token")
    assert answer[1]["www-authenticate"].startswith('Bearer realm="vault-recall"')
    assert events(home) == 0


def test_a_wrong_or_revoked_token_gets_401(guarded: tuple[Endpoint, dict[str, str], Path]) -> None:
    endpoint, tokens, home = guarded
    refused(post(endpoint.port, INITIALIZE, with_token("vrt_wrong" + "x" * 40)), 401, "not valid")
    refused(post(endpoint.port, INITIALIZE, with_token(tokens["gone"])), 401, "revoked")
    refused(post(endpoint.port, INITIALIZE, with_token("x" * 5000)), 401, "too long")
    refused(
        post(endpoint.port, INITIALIZE, {**JSON_HEADERS, "Authorization": f"Basic {tokens['cursor']}"}), 401, "Bearer"
    )
    assert events(home) == 0


def test_a_foreign_host_is_refused_even_with_a_good_token(guarded: tuple[Endpoint, dict[str, str], Path]) -> None:
    endpoint, tokens, home = guarded
    for host in (
        "evil.example.com",
        f"evil.example.com:{endpoint.port}",
        "127.0.0.1.nip.io",
        "[::2]:80",
        "localhost.evil.com",
    ):
        refused(post(endpoint.port, INITIALIZE, with_token(tokens["cursor"]), host=host), 403, "not an address")
    assert events(home) == 0


def test_a_foreign_origin_is_refused_even_with_a_good_token(guarded: tuple[Endpoint, dict[str, str], Path]) -> None:
    endpoint, tokens, home = guarded
    for origin in ("http://evil.example.com", "https://evil.example.com:443", "null", "file://"):
        refused(post(endpoint.port, INITIALIZE, with_token(tokens["cursor"], Origin=origin)), 403, "web pages")
    # a page served from this machine's loopback may (the MCP Inspector's web UI is one)
    ok, _, _ = post(endpoint.port, INITIALIZE, with_token(tokens["cursor"], Origin="http://localhost:6274"))
    assert ok == 200
    assert events(home) == 0


def test_an_oversized_body_gets_413_before_it_is_read_or_parsed(guarded: tuple[Endpoint, dict[str, str], Path]) -> None:
    endpoint, tokens, home = guarded
    big = (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_subjects","x":"' + b"a" * 70_000 + b'"}}'
    )
    code, _, body = post(endpoint.port, big, with_token(tokens["cursor"]))
    assert code == 413 and b"too large" in body
    assert events(home) == 0


def test_a_slow_loris_connection_is_closed_with_408_and_others_are_served_meanwhile(
    guarded: tuple[Endpoint, dict[str, str], Path],
) -> None:
    endpoint, tokens, home = guarded
    slow = []
    for trickle in ("headers", "body"):  # a head never finished; a body sent a byte at a time
        sock = socket.create_connection(("127.0.0.1", endpoint.port), timeout=30)
        head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{endpoint.port}\r\n"
        if trickle == "body":
            head += f"Authorization: Bearer {tokens['cursor']}\r\nContent-Type: application/json\r\n"
            head += f"Accept: application/json, text/event-stream\r\nContent-Length: {len(INITIALIZE)}\r\n\r\n"
        sock.sendall(head.encode())
        slow.append((trickle, sock))

    async def a_real_client_meanwhile() -> None:
        async with http_client(endpoint.url, tokens["cursor"]) as session:
            assert (await call(session, "list_subjects"))["status"] == "ok"

    anyio.run(a_real_client_meanwhile)  # answered while both slow connections are still open
    for trickle, sock in slow:
        answer = b""
        deadline = time.monotonic() + 30  # bounded: the server closes long before
        with sock:
            while time.monotonic() < deadline:
                try:
                    sock.sendall(b"X-Slow: 1\r\n" if trickle == "headers" else b" ")
                    sock.settimeout(0.3)
                    chunk = sock.recv(4096)
                except TimeoutError:
                    continue
                except (BrokenPipeError, ConnectionResetError):
                    break
                if not chunk:
                    break
                answer += chunk
        assert time.monotonic() < deadline, f"the {trickle} trickle was never cut off"
        code = parse_response(answer)[0] if answer else 0
        assert code in (408, 0), (trickle, answer[:200])  # 0: closed before our next write read the 408
    deadline = time.monotonic() + 20  # the writer thread stores the event just after the answer
    while events(home) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert events(home) == 1  # the real client's one call, nothing from the slow ones
