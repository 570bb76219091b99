"""Every refusal of `vault-recall http` in one format: the status, and a JSON body
`{"error": code, "error_description": one sentence}` a person or a program can act on.

The guard refuses in it itself (server/http/guard.py), as do the connection shares and the request
deadline.  The SDK's transport refuses in its own words and shapes — a JSON-RPC error object
without an id, or a line of plain text — so `SdkRefusals` puts each of those into this format
on its way out, with a sentence of ours.  A JSON-RPC error that answers a request (it carries
the request's id) is an answer, not a refusal: it is passed on as it is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from starlette.types import Message, Send

# Bodies longer than this are no refusal the SDK makes; they pass unchanged.
_MAX_REFUSAL = 16 * 1024


# The `error` of every refusal the endpoint answers with: words a client may act on (and
# docs/troubleshooting.md explains), so the set is closed.
RefusalCode = Literal[
    "bad_request",
    "bad_content_type",
    "not_json",
    "missing_session",
    "unknown_session",
    "session_ended",
    "stream_open",
    "method_not_allowed",
    "not_acceptable",
    "body_too_large",
    "request_timeout",
    "forbidden_host",
    "forbidden_origin",
    "not_found",
    "oauth_not_offered",
    "missing_token",
    "invalid_token",
    "config_broken",
    "store_broken",
    "too_many_connections",
    "too_many_sessions",
    "refused",
]


@dataclass(frozen=True)
class Refusal:
    status: int
    error: RefusalCode
    description: str
    resource_metadata: str | None = None  # a 401's pointer to how to authorize here (RFC 9728)


def refusal_body(error: RefusalCode, description: str) -> bytes:
    return json.dumps({"error": error, "error_description": description}).encode("utf-8") + b"\n"


def refusal_response(refusal: Refusal, *, close: bool = False) -> bytes:
    """A whole HTTP/1.1 response for `refusal`, for the protocol to write itself."""
    body = refusal_body(refusal.error, refusal.description)
    head = (
        f"HTTP/1.1 {refusal.status} {_REASONS.get(refusal.status, 'Refused')}\r\n"
        "content-type: application/json\r\ncache-control: no-store\r\n"
        + ("connection: close\r\n" if close else "")
        + f"content-length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


_REASONS = {400: "Bad Request", 408: "Request Timeout", 429: "Too Many Requests", 503: "Service Unavailable"}

# What the SDK's words mean, as (status, words in its message, our code, our sentence); the first
# match wins, and a status with no match gets the last entry of its status, or a general one.
_SDK_REFUSALS: tuple[tuple[int, str, RefusalCode, str], ...] = (
    (
        400,
        "missing session id",
        "missing_session",
        "this request needs the Mcp-Session-Id header of its session; open a session with an initialize request first",
    ),
    (400, "content-type", "bad_content_type", "a POST to this endpoint must carry Content-Type: application/json"),
    (400, "parse error", "not_json", "the request body is not JSON"),
    (400, "", "bad_request", "the request body is not one JSON-RPC message this endpoint can read"),
    (
        403,
        "origin",
        "forbidden_origin",
        "requests from web pages at this Origin are refused: only this endpoint's own addresses may send an Origin",
    ),
    (
        404,
        "",
        "unknown_session",
        "there is no session with this Mcp-Session-Id (it ended, expired or was never "
        "opened): open a new one with an initialize request",
    ),
    (405, "", "method_not_allowed", "this endpoint answers POST, GET and DELETE only"),
    (406, "", "not_acceptable", "send Accept: application/json, text/event-stream with every request"),
    (409, "", "stream_open", "this session has its GET stream open already; a session has one at a time"),
    (413, "", "body_too_large", "the request body is too large: this endpoint takes at most 64 KiB"),
    (415, "", "bad_content_type", "a POST to this endpoint must carry Content-Type: application/json"),
    (421, "", "forbidden_host", "the Host header does not name this endpoint"),
    (
        500,
        "terminated",
        "session_ended",
        "the session ended while this request was being answered; open a new one with an initialize request",
    ),
    (
        503,
        "sessions",
        "too_many_sessions",
        "the endpoint has as many sessions open as it can hold; end one "
        "(DELETE) or try again when an idle one has expired",
    ),
)
_GENERAL: tuple[RefusalCode, str] = ("refused", "the endpoint could not answer this request; its log says why")


def sdk_refusal(status: int, body: bytes) -> Refusal | None:
    """Our refusal for a response of the SDK's, or None when it is an answer to pass on."""
    if status < 400:
        return None
    text = body.decode("utf-8", "replace")
    try:
        message = json.loads(text) if text.strip() else None
    except ValueError:
        message = None
    if isinstance(message, dict):
        if message.get("jsonrpc") == "2.0" and message.get("id") is not None:
            return None  # answers a request: the client reads it as JSON-RPC
        if "error_description" in message:
            return None  # ours already
        error = message.get("error")
        text = str(error.get("message", "")) if isinstance(error, dict) else text
    words = text.lower()
    chosen: tuple[RefusalCode, str] | None = None
    for code, needle, error_code, sentence in _SDK_REFUSALS:
        if code == status and needle in words:
            chosen = (error_code, sentence)
            break
    error_code, sentence = chosen or _GENERAL
    return Refusal(status, error_code, sentence)


async def send_refusal(send: Send, refusal: Refusal, *, close: bool = False) -> None:
    """Answer a request with `refusal` (and close its connection after, with `close`)."""
    body = refusal_body(refusal.error, refusal.description)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode("ascii")),
        (b"cache-control", b"no-store"),
    ]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class SdkRefusals:
    """The `send` of one request, putting a refusal of the SDK's into our format: the start of a
    response of 400 or more is held until its body is whole, then sent with our body."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._held: Message | None = None
        self._body = bytearray()

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start" and int(message["status"]) >= 400:
            self._held = message
            return
        if self._held is None or message["type"] != "http.response.body":
            await self._send(message)
            return
        self._body += message.get("body", b"")
        if message.get("more_body", False) and len(self._body) <= _MAX_REFUSAL:
            return
        start, self._held = self._held, None
        refusal = sdk_refusal(int(start["status"]), bytes(self._body)) if len(self._body) <= _MAX_REFUSAL else None
        if refusal is None:
            await self._send(start)
            await self._send({**message, "body": bytes(self._body)})
            return
        # The body has ended here: one still coming waited above, and one too long was passed on.
        await _send_instead(self._send, start, refusal.error, refusal.description)


async def _send_instead(send: Send, start: Message, error: RefusalCode, description: str) -> None:
    """The response `start` began (its status and other headers kept), with our one-sentence
    body in place of the one it had."""
    body = refusal_body(error, description)
    kept = [(k, v) for k, v in start.get("headers", []) if k.lower() not in (b"content-type", b"content-length")]
    headers = [*kept, (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode("ascii"))]
    await send({**start, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class WrongMethod:
    """The `send` of one OAuth request, putting a route's 405 (Starlette's line of plain text)
    into our format, naming the methods the path takes — every other response passes as it is."""

    def __init__(self, send: Send, path: str) -> None:
        self._send = send
        self._path = path
        self._held: Message | None = None

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start" and int(message["status"]) == 405:
            self._held = message
            return
        if self._held is None:
            await self._send(message)
            return
        if message["type"] != "http.response.body" or message.get("more_body", False):
            return  # the refusal's own plain text is replaced whole once it ends
        start, self._held = self._held, None
        allow = next((v.decode("latin-1") for k, v in start.get("headers", []) if k.lower() == b"allow"), "")
        # OPTIONS (CORS) and HEAD come with the others; the methods a client means are these.
        methods = [m.strip() for m in allow.split(",") if m.strip() and m.strip() not in ("OPTIONS", "HEAD")]
        takes = " and ".join(sorted(methods)) if methods else "other methods"
        await _send_instead(self._send, start, "method_not_allowed", f"{self._path} takes {takes} only")
