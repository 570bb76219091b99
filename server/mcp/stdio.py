"""MCP over stdio, where every request that carries an id gets an answer.

The SDK's stdio transport reads a line, validates it as a JSON-RPC message and, when that
fails, drops it with a debug log: a client that sent a request with a lone surrogate in a
string, arguments nested hundreds deep, a 5,000-digit number, `params` as a list, an id but
no method or `"jsonrpc": "1.0"` waits forever for its answer.  Here each line the SDK would
drop is answered first with a JSON-RPC error naming the problem in one sentence (-32700 when
the line is not JSON at all, -32600 when it is not a request, -32602 when its params are
unreadable), through the same writer as every other message.  The SDK still does everything
else (claiming stdout, the session, the tools).
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import AsyncIterator
from io import TextIOWrapper
from typing import Any

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from vault_recall.server.mcp.delivery import StdioDelivery
from vault_recall.server.mcp.early_initialize import EarlyInitialize
from vault_recall.server.mcp.sdk_private import lowlevel_server

log = logging.getLogger(__name__)

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
# Where a line is not JSON at all, its id is looked for as written at the top of the message.
_ID = re.compile(r'"id"\s*:\s*(-?\d{1,18}(?![\d.eE])|"(?:[^"\\\n]|\\.){0,256}")')
_MAX_DIGITS = 4300  # Python's own limit for turning digits into an int

# What the SDK's JSON parser says when it refuses a line, in words a client's author can act on.
_JSON_PROBLEMS = (
    ("recursion limit", "the message nests too deeply to be read"),
    ("number out of range", "a number in the message is too large to be read"),
    ("hex escape", "a string holds an unpaired surrogate escape (such as \\ud800), which is not Unicode text"),
    ("surrogate", "a string holds an unpaired surrogate escape (such as \\ud800), which is not Unicode text"),
    ("control character", "a string holds a raw control character (escape it)"),
)


class _Digits(int):
    """A number too long to read, kept as its length (json.loads cannot hold it otherwise)."""


def _read_int(digits: str) -> int:
    return int(digits) if len(digits) <= _MAX_DIGITS else _Digits(len(digits))


def _loose(line: str) -> Any:
    """The line as Python reads JSON, or None when even that fails."""
    try:
        return json.loads(line, parse_int=_read_int)
    except (ValueError, RecursionError):
        return None


def _request_id(message: Any, line: str) -> types.RequestId | None:
    if isinstance(message, dict):
        found = message.get("id")
        return found if isinstance(found, str | int) and not isinstance(found, bool | _Digits) else None
    match = _ID.search(line[:2048])
    if match is None:
        return None
    raw = match.group(1)
    if raw.startswith('"'):
        try:
            text = json.loads(raw)
        except ValueError:
            return None
        return text if isinstance(text, str) else None
    return int(raw)


def refusal(line: str) -> types.JSONRPCError | bool | None:
    """The answer to a line the SDK would drop: an error response, True for a line needing
    none (blank, a notification, a malformed response to us), None for a line the SDK reads."""
    if not line.strip():
        return True
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValidationError as exc:
        first = exc.errors()[0]
    message = _loose(line)
    code, sentence = _diagnose(message, first)
    if isinstance(message, dict) and "id" not in message:
        log.warning("ignored a notification that cannot be read: %s", sentence)
        return True  # a notification gets no answer, whatever is wrong with it
    if isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message):
        log.warning("ignored a response that cannot be read: %s", sentence)
        return True
    return types.JSONRPCError(
        jsonrpc="2.0", id=_request_id(message, line), error=types.ErrorData(code=code, message=sentence)
    )


def _diagnose(message: Any, first: Any) -> tuple[int, str]:
    if first["type"] == "json_invalid":
        text = str(first.get("msg", "")).lower()
        problem = next((words for key, words in _JSON_PROBLEMS if key in text), None)
        if message is None and problem is None:
            return PARSE_ERROR, "Parse error: the line is not valid JSON"
        problem = problem or "the message cannot be read"
        if isinstance(message, dict) and "method" in message:
            return INVALID_PARAMS, f"Invalid params: {problem}"
        return INVALID_REQUEST, f"Invalid request: {problem}"
    if not isinstance(message, dict):
        return INVALID_REQUEST, "Invalid request: a message must be one JSON object (batches are not supported)"
    if message.get("jsonrpc") != "2.0":
        return INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"'
    if "method" not in message:
        return INVALID_REQUEST, "Invalid request: it has no method"
    if not isinstance(message["method"], str):
        return INVALID_REQUEST, "Invalid request: method must be text"
    if "params" in message and not isinstance(message["params"], dict):
        return INVALID_PARAMS, "Invalid params: params must be an object of named parameters"
    if "id" in message and _request_id(message, "") is None:
        return INVALID_REQUEST, "Invalid request: id must be text or a whole number"
    return INVALID_REQUEST, "Invalid request: the message does not have the shape of a JSON-RPC request"


class _AnsweredLines:
    """stdin's lines, as the SDK's reader takes them — the first one, read before the SDK was
    loaded (serve.py), then the rest — with every line it would drop answered here through the
    writer the SDK gives the server."""

    def __init__(self, source: anyio.AsyncFile[str], first: str = "") -> None:
        self._source = source
        self._first = first
        self._writer: Any = None
        self._ready = anyio.Event()

    def answer_through(self, writer: Any) -> None:
        self._writer = writer
        self._ready.set()

    def __aiter__(self) -> AsyncIterator[str]:
        return self

    async def __anext__(self) -> str:
        await self._ready.wait()
        while True:
            line, self._first = self._first, ""
            if not line:
                line = await self._source.readline()
            if not line:
                raise StopAsyncIteration
            answer = refusal(line)
            if answer is None:
                return line
            if isinstance(answer, types.JSONRPCError):
                await self._writer.send(SessionMessage(answer))


class _AnsweredAlready:
    """The server's write stream, less the SDK's own answer to the `initialize` answered before
    it was loaded (early_initialize.py): the client gets one answer per request."""

    def __init__(self, inner: Any, answered: EarlyInitialize) -> None:
        self._inner = inner
        self._answered: EarlyInitialize | None = answered

    async def send(self, item: SessionMessage, /) -> None:
        message = item.message
        answered = self._answered
        answers = isinstance(message, types.JSONRPCResponse | types.JSONRPCError)
        if answered is not None and answers and message.id == answered.request_id:  # type: ignore[union-attr]
            self._answered = None
            if isinstance(message, types.JSONRPCError):
                log.warning("the SDK refused the initialize already answered: %s", message.error.message)
            return
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _AnsweredAlready:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        result: bool | None = await self._inner.__aexit__(*exc)
        return result


async def serve_stdio(server: Any, first: bytes = b"", answered: EarlyInitialize | None = None) -> None:
    """Run an MCPServer over this process's stdin and stdout until the client closes stdin;
    `first` is stdin's first line when it was read before (serve.py), `answered` its answer
    when one was written then."""
    # UTF-8 whatever the platform's default; bytes that are not UTF-8 become U+FFFD and are
    # then refused as any other unreadable text would be.
    stdin = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    lines = _AnsweredLines(stdin, first.decode("utf-8", errors="replace"))
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
        lines.answer_through(write_stream)
        # A change is told once its answer is handed to the stdout writer (delivery.py).
        delivery = StdioDelivery()
        server.delivery = delivery
        lowlevel = lowlevel_server(server)
        writes = delivery.watch(write_stream if answered is None else _AnsweredAlready(write_stream, answered))
        await lowlevel.run(read_stream, writes, lowlevel.create_initialization_options())
