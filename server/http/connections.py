"""What the endpoint's HTTP protocol knows of each connection, for the app behind it.

uvicorn's ASGI interface says nothing of the connection behind a request.  The app needs:
whether a response was written whole (a client that hung up while its call ran gets nothing,
and uvicorn drops the response without a word), for telling changes only in answers that were
delivered (server/http/answer_delivery.py); and which client each connection serves, for each client's share
of the connections (server/http/shares.py).  So each request's scope carries a ConnectionHandle.

The protocol also counts connections itself (uvicorn's own limit answers in a format of its
own): past MAX_CONNECTIONS, a new connection is refused in ours and closed.
"""

from __future__ import annotations

from typing import Any

from vault_recall.server.http.deadline import DeadlineH11Protocol
from vault_recall.server.http.refusals import Refusal, refusal_response
from vault_recall.server.http.shares import MAX_CONNECTIONS, ConnectionShares

CONNECTION_KEY = "vault_recall.connection"
_FULL = Refusal(
    503,
    "too_many_connections",
    f"the endpoint has {MAX_CONNECTIONS} connections open, as many as it holds; try again shortly",
)
_NOT_HTTP = Refusal(400, "bad_request", "the request is not HTTP/1.1 this endpoint can read")


class ConnectionHandle:
    """One request's view of its connection."""

    def __init__(self, protocol: EndpointProtocol, cycle: Any) -> None:
        self._protocol = protocol
        self._cycle = cycle

    def written(self) -> bool:
        """Was the response written whole?  uvicorn marks it complete only when it wrote the last
        of it to an open connection; for a closed one it drops it and leaves it incomplete."""
        return bool(self._cycle.response_complete)

    def claim(self, client: str) -> Refusal | None:
        """Count this connection for `client`, within its share (None), or say why not."""
        shares = self._protocol.shares
        return shares.claim(self._protocol, client) if shares is not None else None


class EndpointProtocol(DeadlineH11Protocol):
    """The endpoint's HTTP/1.1 protocol: the request deadline, the connection count, and a
    ConnectionHandle in each request's scope."""

    shares: ConnectionShares | None = None
    max_connections = MAX_CONNECTIONS

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            transport.write(refusal_response(_FULL, close=True))
            transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.shares is not None:
            self.shares.closed(self)
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        cycle = self.cycle
        # A request just parsed has its cycle, whose task has not run yet: the scope it will see
        # is this one.
        scope: dict[str, Any] | None = cycle.scope if cycle is not None else None  # type: ignore[assignment]
        if scope is not None and CONNECTION_KEY not in scope:
            scope[CONNECTION_KEY] = ConnectionHandle(self, cycle)

    def send_400_response(self, msg: str) -> None:
        """Bytes that are not an HTTP request: refused in the endpoint's format, then closed."""
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(refusal_response(_NOT_HTTP, close=True))
        self.transport.close()
