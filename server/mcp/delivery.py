"""When an answer counts as delivered: the moment its reservation of changes told and notes
handed out (recall/changed_since.py, `Pending`) is committed, or released to be told next time.

A tool's answer is built on a worker thread, but it may never reach the client: the client
cancels the request (`notifications/cancelled`, after which the SDK writes nothing for it), the
call is interrupted, or the transport is gone.  So call_tool gives the reservation to the
server's `Delivery`, and the transport settles it:

- `AtOnce`: in-process use, where the caller gets the answer as call_tool returns;
- `StdioDelivery`: commits when the answer is handed to the writer that puts it on stdout, and
  releases when the request's task ends without that (cancelled, or an error written instead);
- the HTTP endpoint's own (server/http/answer_delivery.py): commits when the response has been written to a
  connection still open.
"""

from __future__ import annotations

import asyncio
from contextvars import ContextVar
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCResponse, RequestId

Sent = TypeVar("Sent", contravariant=True)

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

    from vault_recall.server.recall.answers.changed_since import Pending


class WriteStream(Protocol[Sent]):
    """What the SDK's server writes its messages to (the SDK's own protocol is private)."""

    async def send(self, item: Sent, /) -> None: ...

    async def aclose(self) -> None: ...

    async def __aenter__(self) -> Any: ...

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None: ...


class Delivery(Protocol):
    def hold(self, pending: Pending, context: Context[Any, Any] | None) -> None:
        """Take an answer's reservation; commit or release it once the answer's fate is known."""


class AtOnce:
    """Nothing stands between the answer and its caller: told as it is returned."""

    def hold(self, pending: Pending, context: Context[Any, Any] | None) -> None:
        pending.commit()


def request_id_of(context: Context[Any, Any] | None) -> RequestId | None:
    try:
        return context.request_context.request_id if context is not None else None
    except ValueError:  # a Context made outside a request
        return None


# The answer the current request's task is about to write, and its reservation.  The SDK runs
# each request in a task of its own and writes the answer from that same task, right after the
# handler returns: so what call_tool sets here is what the write below finds.
_answering: ContextVar[tuple[RequestId, Pending] | None] = ContextVar("vault_recall_answering", default=None)


class StdioDelivery:
    """Told once the answer is handed to the stdout writer (`watch` wraps the stream the SDK
    writes to); a request whose task ends without that releases what it reserved."""

    def hold(self, pending: Pending, context: Context[Any, Any] | None) -> None:
        request_id = request_id_of(context)
        task = asyncio.current_task()
        if request_id is None or task is None:
            pending.commit()
            return
        _answering.set((request_id, pending))
        # Cancelled after the handler returned, or the write failed: nothing was handed over.
        # After a commit, release is a no-op.
        task.add_done_callback(lambda _task: pending.release())

    def watch(self, stream: WriteStream[SessionMessage]) -> WriteStream[SessionMessage]:
        return DeliveredWrites(stream)


class DeliveredWrites:
    """The server's write stream, settling each answer's reservation as the answer passes."""

    def __init__(self, inner: WriteStream[SessionMessage]) -> None:
        self._inner = inner

    async def send(self, item: SessionMessage, /) -> None:
        held = _answering.get()
        message = item.message
        if held is None or not isinstance(message, JSONRPCResponse | JSONRPCError) or message.id != held[0]:
            await self._inner.send(item)
            return
        _answering.set(None)
        pending = held[1]
        try:
            await self._inner.send(item)
        except BaseException:
            pending.release()
            raise
        if isinstance(message, JSONRPCResponse):
            pending.commit()
        else:
            pending.release()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> DeliveredWrites:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)
