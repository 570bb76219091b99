"""The endpoint's guard when a client leaves just as the SDK delivers its last notification.

The SDK answers a notification with 202 and hands it to the session after; if the client ended
the session in between, the hand-over fails, and the SDK logs a traceback and sends a 500 on
top of the 202 (which uvicorn refuses with a traceback of its own).  The end-to-end test of a
client leaving mid-call met this about one run in five; here the same order of events is
played on purpose.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import anyio
import pytest
from starlette.types import Message, Receive, Scope, Send

from vault_recall.server.http.guard import EndpointGuard, client_left_quietly

pytestmark = pytest.mark.anyio


def _scope() -> dict[str, Any]:
    return {
        "type": "http",
        "path": "/mcp",
        "method": "POST",
        "headers": [(b"host", b"127.0.0.1:27183"), (b"authorization", b"Bearer secret-token")],
    }


async def _receive() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


def _guard(app: Any) -> EndpointGuard:
    return EndpointGuard(
        app,
        allowed_hosts=frozenset({"127.0.0.1"}),
        path="/mcp",
        client_of=lambda token: "claude-code" if token == "secret-token" else None,
    )


async def _accepted_then_session_gone(scope: Scope, receive: Receive, send: Send) -> None:
    """What the SDK does for a notification whose session closed after the 202 went out."""
    await send({"type": "http.response.start", "status": 202, "headers": []})
    await send({"type": "http.response.body", "body": b"", "more_body": False})
    try:
        raise anyio.ClosedResourceError
    except anyio.ClosedResourceError:
        await send({"type": "http.response.start", "status": 500, "headers": []})
        await send({"type": "http.response.body", "body": b"error", "more_body": False})
        raise


async def test_a_notification_whose_session_closed_after_its_202_ends_quietly() -> None:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        if sent and not sent[-1].get("more_body", False) and sent[-1]["type"] == "http.response.body":
            raise RuntimeError("Unexpected ASGI message sent, after response already completed.")  # as uvicorn
        sent.append(message)

    await _guard(_accepted_then_session_gone)(_scope(), _receive, send)
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [202]


async def test_a_closed_stream_before_any_answer_is_still_an_error() -> None:
    async def fails_first(scope: Scope, receive: Receive, send: Send) -> None:
        raise anyio.ClosedResourceError

    async def send(message: Message) -> None:
        raise AssertionError("nothing was to be sent")

    with pytest.raises(anyio.ClosedResourceError):
        await _guard(fails_first)(_scope(), _receive, send)


def _record(exc: BaseException | None) -> logging.LogRecord:
    info: tuple[Any, Any, Any] | None = None
    try:
        if exc is not None:
            raise exc
    except BaseException:
        info = sys.exc_info()
    return logging.LogRecord(
        "mcp.server.streamable_http", logging.ERROR, __file__, 1, "Error handling POST request", (), info
    )


@pytest.mark.parametrize("error", [anyio.ClosedResourceError(), anyio.BrokenResourceError()])
def test_the_sdk_log_of_a_client_that_left_is_one_line(error: BaseException) -> None:
    record = _record(error)
    assert client_left_quietly(record)
    text = logging.Formatter("%(message)s").format(record)
    assert "Traceback" not in text and "\n" not in text
    assert "client ended the session" in text


def test_any_other_error_keeps_its_traceback() -> None:
    record = _record(ValueError("a real bug"))
    assert client_left_quietly(record)
    text = logging.Formatter("%(message)s").format(record)
    assert "Traceback" in text and "a real bug" in text
