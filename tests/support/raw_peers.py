"""MCP clients that speak the wire themselves, for what the SDK's client does not let a test do:
many calls of one client at once, a `notifications/cancelled` at any moment, a connection hung
up while its call runs — and a record of exactly which answers arrived.

`StdioPeer` drives a real `vault-recall serve` over its pipes; `HttpPeer` a real `vault-recall
http` session over raw HTTP/1.1 on 127.0.0.1, one connection per request.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any

PROTOCOL = "2025-11-25"

# When to cancel or hang up: seconds after the request (a moment drawn at random by a stress
# test), or an event to wait for (`tests.support.mid_call.seen_mid_call`: the server seen in the
# middle of the call), which assumes nothing about how long the call takes.
Moment = float | Awaitable[object]


async def came_first(answer: asyncio.Future[Any], moment: Moment) -> bool:
    """Wait for `answer` or `moment`, whichever comes first: True when the moment did (the
    answer is not there yet)."""
    if isinstance(moment, float | int):
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(answer), moment)
        return not answer.done()
    event = asyncio.ensure_future(moment)
    try:
        await asyncio.wait({answer, event}, timeout=120, return_when=asyncio.FIRST_COMPLETED)
    finally:
        event.cancel()
    if answer.done():
        return False
    event.result()  # the event's own failure (never seen mid-call) is the test's
    return True


@dataclass
class Answer:
    """What came back for one request: None when nothing did (cancelled, or hung up on)."""

    request_id: int
    tool: str
    arguments: dict[str, Any]
    message: dict[str, Any] | None

    @property
    def result(self) -> dict[str, Any] | None:
        """The tool's structured result when a successful answer arrived."""
        if self.message is None or "result" not in self.message:
            return None
        result = self.message["result"]
        if result.get("isError"):
            return None
        content: dict[str, Any] = result["structuredContent"]
        return content


def _initialize(request_id: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }


def _call(request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _cancel(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}


class StdioPeer:
    """One `vault-recall serve` process and the answers read from its stdout, by request id."""

    def __init__(self, command: Sequence[str]) -> None:
        self._command = list(command)
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.unmatched: list[dict[str, Any]] = []
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None

    async def __aenter__(self) -> StdioPeer:
        self._process = await asyncio.create_subprocess_exec(
            *self._command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=1 << 20,
        )
        self._reader = asyncio.create_task(self._read())
        hello = next(self._ids)
        answer = await self._exchange(_initialize(hello), hello)
        assert "result" in answer, answer
        await self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    async def __aexit__(self, *exc: object) -> None:
        process = self._process
        assert process is not None and process.stdin is not None
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            process.kill()
            await process.wait()
        if self._reader is not None:
            await self._reader

    async def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        while line := await self._process.stdout.readline():
            message = json.loads(line)
            waiter = self._waiting.pop(message.get("id"), None)
            if waiter is None:
                self.unmatched.append(message)
            elif not waiter.done():
                waiter.set_result(message)
        for waiter in self._waiting.values():
            if not waiter.done():
                waiter.set_exception(AssertionError("the server closed stdout before answering"))

    async def _send(self, message: dict[str, Any]) -> None:
        assert self._process is not None and self._process.stdin is not None
        self._process.stdin.write(json.dumps(message).encode() + b"\n")
        await self._process.stdin.drain()

    async def _exchange(self, message: dict[str, Any], request_id: int) -> dict[str, Any]:
        waiter = self._waiting[request_id] = asyncio.get_running_loop().create_future()
        await self._send(message)
        return await asyncio.wait_for(waiter, 120)

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    async def call(self, tool: str, arguments: dict[str, Any], *, cancel_after: Moment | None = None) -> Answer:
        """Call a tool; with `cancel_after`, send `notifications/cancelled` at that moment.
        A cancelled call may still be answered (it was done first); else its answer is None."""
        request_id = next(self._ids)
        waiter = self._waiting[request_id] = asyncio.get_running_loop().create_future()
        await self._send(_call(request_id, tool, arguments))
        if cancel_after is None:
            return Answer(request_id, tool, arguments, await asyncio.wait_for(waiter, 120))
        if await came_first(waiter, cancel_after):
            await self._send(_cancel(request_id))
        # The server answers nothing for a request it cancelled; a ping answered after the
        # cancel was read proves no late answer is still coming.
        await self.ping()
        self._waiting.pop(request_id, None)
        return Answer(request_id, tool, arguments, waiter.result() if waiter.done() else None)

    async def ping(self) -> None:
        request_id = next(self._ids)
        assert "result" in await self._exchange({"jsonrpc": "2.0", "id": request_id, "method": "ping"}, request_id)


@dataclass
class HttpReply:
    status: int
    headers: dict[str, str]
    body: bytes


async def http_exchange(
    port: int, head: dict[str, str], body: bytes, *, hang_up_after: Moment | None = None, timeout: float = 120
) -> HttpReply | None:
    """One POST on a connection of its own.  With `hang_up_after`, the client stops sending
    (half-closes) at that moment after its request: the server sees it gone, and whatever it
    had written before is still read here.  None when no whole response came back."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        lines = ["POST /mcp HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Content-Length: {len(body)}"]
        lines += [f"{k}: {v}" for k, v in head.items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        await writer.drain()
        reading = asyncio.create_task(_read_response(reader))
        if hang_up_after is not None and await came_first(reading, hang_up_after):
            writer.write_eof()
        try:
            return await asyncio.wait_for(reading, timeout)
        except (asyncio.IncompleteReadError, ConnectionError):
            return None
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


async def _read_response(reader: asyncio.StreamReader) -> HttpReply:
    status_line = await reader.readuntil(b"\r\n")
    status = int(status_line.split()[1])
    headers: dict[str, str] = {}
    while (line := await reader.readuntil(b"\r\n")) != b"\r\n":
        key, _, value = line.decode("latin-1").partition(":")
        headers[key.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return HttpReply(status, headers, body)


class HttpPeer:
    """One session of a real `vault-recall http`, every request on a connection of its own."""

    def __init__(self, port: int, token: str) -> None:
        self.port = port
        self._token = token
        self._ids = itertools.count(1)
        self._session = ""

    def _head(self) -> dict[str, str]:
        head = {
            "Authorization": f"Bearer {self._token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if self._session:
            head |= {"Mcp-Session-Id": self._session, "Mcp-Protocol-Version": PROTOCOL}
        return head

    async def open(self) -> HttpPeer:
        reply = await http_exchange(self.port, self._head(), json.dumps(_initialize(next(self._ids))).encode())
        assert reply is not None and reply.status == 200, reply
        self._session = reply.headers["mcp-session-id"]
        await self.notify({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    async def notify(self, message: dict[str, Any]) -> None:
        reply = await http_exchange(self.port, self._head(), json.dumps(message).encode())
        assert reply is not None and reply.status == 202, reply

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        cancel_after: Moment | None = None,
        hang_up_after: Moment | None = None,
    ) -> Answer:
        request_id = next(self._ids)
        body = json.dumps(_call(request_id, tool, arguments)).encode()
        exchange = asyncio.create_task(http_exchange(self.port, self._head(), body, hang_up_after=hang_up_after))
        if cancel_after is not None and await came_first(exchange, cancel_after):
            await self.notify(_cancel(request_id))
        reply = await exchange
        message = json.loads(reply.body) if reply is not None and reply.status == 200 else None
        return Answer(request_id, tool, arguments, message)
