"""When a tool's answer over HTTP counts as delivered: once its response has been written whole
to a connection that was still open (delivery.py says why it matters).

The guard puts an `AnswerHolder` in each request's ASGI scope; call_tool hands the answer's
reservation to it (`HttpDelivery`), and the guard settles it as the response goes out: committed
when the response is the tool's result and the connection took all of it, released otherwise —
the client hung up while the call ran (the SDK answers into a closed connection, which drops it),
cancelled it (the SDK then answers with an error instead), or the session ended meanwhile.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from starlette.types import Message, Send

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

    from vault_recall.server.recall.answers.changed_since import Pending

ANSWER_KEY = "vault_recall.answer"
# Enough for any answer (budgets stop at 64 KiB); a longer response (a GET stream) is no answer.
_MAX_KEPT = 256 * 1024


class AnswerHolder:
    """The reservation of the one tool answer an HTTP request carries, until the guard knows
    whether its response reached the client.  Lives on the event loop only."""

    def __init__(self) -> None:
        self._pending: Pending | None = None
        self._closed = False

    @property
    def holding(self) -> bool:
        return self._pending is not None

    def hold(self, pending: Pending) -> None:
        if self._closed:  # the response went out already (the session ended under the call)
            pending.release()
            return
        if self._pending is not None:
            self._pending.release()
        self._pending = pending

    def settle(self, delivered: bool) -> None:
        pending, self._pending = self._pending, None
        if pending is None:
            return
        if delivered:
            pending.commit()
        else:
            pending.release()

    def close(self) -> None:
        """The request is over: whatever is still held was not delivered."""
        self._closed = True
        self.settle(False)


class HttpDelivery:
    """Hands each answer's reservation to the holder of the HTTP request it answers."""

    def hold(self, pending: Pending, context: Context[Any, Any] | None) -> None:
        holder = holder_of(context)
        if holder is None:  # no HTTP request behind this call (the app used in-process)
            pending.commit()
        else:
            holder.hold(pending)


def holder_of(context: Context[Any, Any] | None) -> AnswerHolder | None:
    try:
        request = context.request_context.request if context is not None else None
    except ValueError:
        return None
    found = request.scope.get(ANSWER_KEY) if request is not None else None
    return found if isinstance(found, AnswerHolder) else None


# How the SDK writes a response: its members in this order, so the third names what it is.
_HEAD = re.compile(rb'\{"jsonrpc":"2\.0","id":(?:-?\d+|"(?:[^"\\]|\\.)*"),"(result|error)":')


def is_result(body: bytes) -> bool:
    """Is this response body a JSON-RPC result (not an error), as JSON or as the last event of a
    text/event-stream?"""
    text = body.strip()
    if not text.startswith(b"{"):
        data = [line[5:].strip() for line in text.splitlines() if line.startswith(b"data:")]
        text = data[-1] if data else b""
    head = _HEAD.match(text)
    if head is not None:  # read from its first bytes, not parsed whole (up to 64 KiB)
        return head.group(1) == b"result"
    try:
        message = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(message, dict) and "result" in message and "error" not in message


class ResponseWatch:
    """The `send` of one request: settles the holder's reservation once the response is out.
    `written()` says whether the server wrote the whole response to the connection (False when
    the client had gone; None when the server cannot tell, and then it counts as written)."""

    def __init__(self, send: Send, holder: AnswerHolder, written: Callable[[], bool] | None) -> None:
        self._send = send
        self._holder = holder
        self._written = written
        self._status = 0
        self._body = bytearray()

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self._status = int(message["status"])
        elif message["type"] == "http.response.body":
            if len(self._body) <= _MAX_KEPT:
                self._body += message.get("body", b"")
            if not message.get("more_body", False) and self._holder.holding:
                answer = self._status == 200 and len(self._body) <= _MAX_KEPT and is_result(bytes(self._body))
                try:
                    await self._send(message)
                except BaseException:
                    self._holder.settle(False)
                    raise
                self._holder.settle(answer and (self._written is None or self._written()))
                return
        await self._send(message)
