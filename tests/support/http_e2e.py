"""Talking to a real `vault-recall http` process over real HTTP on 127.0.0.1, with the MCP SDK's
Streamable HTTP client."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.support.e2e import vault_recall_command

URL_LINE = re.compile(r"Vault Recall endpoint: (http://\S+)")


def mcp_http_client(headers: dict[str, str] | None = None, auth: Any = None) -> Any:
    """An httpx client with the SDK's Streamable HTTP timeouts (30 s, 300 s to read), for a
    client that sends its own headers or authentication: the SDK makes it only in a private
    module (tests/server/mcp/test_sdk_private.py fails when it moves)."""
    from mcp.shared._httpx_utils import create_mcp_http_client

    return create_mcp_http_client(headers=headers, auth=auth)


@dataclass
class Endpoint:
    """A running `vault-recall http` process: its URL and what it wrote to stderr so far."""

    process: subprocess.Popen[str]
    url: str
    stderr: list[str] = field(default_factory=list)

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1].split("/")[0])

    def log(self) -> str:
        return "".join(self.stderr)


@contextmanager
def running_endpoint(*extra: str, env: dict[str, str] | None = None, timeout: float = 30.0) -> Iterator[Endpoint]:
    """Start `vault-recall http --listen 127.0.0.1:0` (any free port) and wait for its address line."""
    command = [*vault_recall_command(), "http", "--listen", "127.0.0.1:0", *extra]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env or dict(os.environ), bufsize=1
    )
    assert process.stdout is not None and process.stderr is not None
    endpoint = Endpoint(process=process, url="")
    errors = process.stderr

    def drain() -> None:
        for line in errors:
            endpoint.stderr.append(line)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    found = threading.Event()

    def first_line() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            match = URL_LINE.search(line)
            if match:
                endpoint.url = match.group(1)
                found.set()

    watcher = threading.Thread(target=first_line, daemon=True)
    watcher.start()
    try:
        if not found.wait(timeout):
            raise AssertionError(f"the endpoint did not start: {endpoint.log()}")
        yield endpoint
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        reader.join(5)
        watcher.join(5)
        process.stdout.close()
        process.stderr.close()


@asynccontextmanager
async def http_client(
    url: str, token: str | None, *, mode: str = "legacy", headers: dict[str, str] | None = None, name: str = "tests"
) -> AsyncIterator[Client]:
    """An SDK client session over Streamable HTTP sending `token` as its bearer token.

    mode "legacy" is the initialize handshake with a session (what today's clients do);
    "auto" probes the 2026-07-28 per-request protocol first.
    """
    sent = dict(headers or {})
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    http = mcp_http_client(headers=sent)
    async with http:
        from mcp_types import Implementation

        transport = streamable_http_client(url, http_client=http)
        client = Client(
            transport, mode=mode, read_timeout_seconds=60, client_info=Implementation(name=name, version="1")
        )
        async with client as session:
            yield session


def raw_request(port: int, data: bytes, *, timeout: float = 10.0) -> bytes:
    """Send raw bytes to the endpoint and return everything it answers until it closes (or timeout)."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
                if b"\r\n\r\n" in b"".join(chunks) and _complete(b"".join(chunks)):
                    break
        except TimeoutError:
            pass
        return b"".join(chunks)


def _complete(response: bytes) -> bool:
    head, _, body = response.partition(b"\r\n\r\n")
    match = re.search(rb"content-length: (\d+)", head, re.IGNORECASE)
    return match is not None and len(body) >= int(match.group(1))


def post(
    port: int, body: bytes, headers: dict[str, str], *, path: str = "/mcp", host: str | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP/1.1 POST (so any Host can be sent); (status, headers, body)."""
    lines = [f"POST {path} HTTP/1.1", f"Host: {host if host is not None else f'127.0.0.1:{port}'}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    lines += [f"Content-Length: {len(body)}", "", ""]
    answer = raw_request(port, "\r\n".join(lines).encode("latin-1") + body)
    return parse_response(answer)


def parse_response(answer: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    status = int(status_line.split()[1]) if status_line.startswith("HTTP/") else 0
    parsed: dict[str, Any] = {}
    for line in header_lines:
        key, _, value = line.partition(":")
        parsed[key.strip().lower()] = value.strip()
    return status, parsed, body


INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}'
)
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
