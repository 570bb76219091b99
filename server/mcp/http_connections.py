"""What the endpoint's HTTP protocol tells the app about the connection a request came on.

uvicorn's ASGI interface says nothing of the connection behind a request; the guard needs two
things from it: whether a response was written whole (a client that hung up while its call ran
gets nothing, and uvicorn drops the response without a word), for telling changes only in
answers that were delivered (http_answers.py).
"""

from __future__ import annotations

from typing import Any

from vault_recall.server.mcp.http_deadline import DeadlineH11Protocol

CONNECTION_KEY = "vault_recall.connection"


class ConnectionHandle:
    """One request's view of its connection."""

    def __init__(self, cycle: Any) -> None:
        self._cycle = cycle

    def written(self) -> bool:
        """Was the response written whole?  uvicorn marks it complete only when it wrote the last
        of it to an open connection; for a closed one it drops it and leaves it incomplete."""
        return bool(self._cycle.response_complete)


class EndpointProtocol(DeadlineH11Protocol):
    """The endpoint's HTTP/1.1 protocol: the request deadline, and a ConnectionHandle in each
    request's scope."""

    def handle_events(self) -> None:
        super().handle_events()
        cycle = self.cycle
        # A request just parsed has its cycle, whose task has not run yet: the scope it will see
        # is this one.
        scope: dict[str, Any] | None = cycle.scope if cycle is not None else None  # type: ignore[assignment]
        if scope is not None and CONNECTION_KEY not in scope:
            scope[CONNECTION_KEY] = ConnectionHandle(cycle)
