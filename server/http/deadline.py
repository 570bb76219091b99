"""A deadline for receiving each HTTP request whole, against slow-loris connections.

uvicorn closes a connection left idle between requests (its keep-alive timeout) but sets no
limit on how long one request may take to arrive: a peer that sends a header line every few
seconds, or a body a byte at a time, would hold its connection (and, past the connection
limit, every other client's place) forever.  This protocol gives every request a deadline from
its first byte (or from the connection's opening) to its last; past it the peer gets `408` and
the connection is closed.  Nothing of such a request ever reaches the application whole, so
no tool runs for it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from vault_recall.server.http.refusals import Refusal, refusal_response

REQUEST_SECONDS = 10.0
_TIMEOUT_RESPONSE = refusal_response(
    Refusal(408, "request_timeout", "the request did not arrive in time; the connection is closed"), close=True
)


# Where the peer is before its request is whole: nothing sent yet, or its head or body underway.
_ARRIVING = (h11.IDLE, h11.SEND_BODY)


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, with a deadline for each request to arrive whole."""

    request_seconds = REQUEST_SECONDS

    def connection_made(self, transport: Any) -> None:
        self._deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()  # a pipelined request may have started already

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        super().connection_lost(exc)

    def _arriving(self) -> bool:
        """Is a request still arriving (or none begun yet)?  Once it is whole, h11 says DONE —
        or MUST_CLOSE, for a request sent with `Connection: close` or over HTTP/1.0 (Python's
        urllib, curl -H 'Connection: close'), which is just as whole."""
        return self.conn.their_state in _ARRIVING and not self.transport.is_closing()

    def _watch(self) -> None:
        """Keep a deadline running while a request is still arriving, and none once it has."""
        if not self._arriving():
            self._cancel()
        elif self._deadline is None:
            self._deadline = self.loop.call_later(self.request_seconds, self._too_slow)

    def _cancel(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self._arriving():
            return
        cycle = self.cycle  # the request still arriving, or the last one answered
        if cycle is None or not cycle.response_started or cycle.response_complete:
            self.transport.write(_TIMEOUT_RESPONSE)
        self.logger.warning("closed a connection whose request did not arrive within %.0f s", self.request_seconds)
        self.transport.close()
