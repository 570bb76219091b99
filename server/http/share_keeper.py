"""The ASGI side of each client's share of the endpoint (server/http/shares.py says what the shares
are): between the guard, which has named the client by its token, and the SDK's transport.

Every request counts its connection for its client.  A request that may open a session is let
through unless no room could be made for it; the session it opens is read off the response's
`Mcp-Session-Id`, and room is then made by ending its client's least recently used idle session.  The
other requests of a session mark it busy while they run, and a DELETE or a 404 ends it.

A session is ended the way its client would end it: a DELETE with its id and the credential
that opened it, handed to the SDK's transport, which closes it and answers 404 for it after.
"""

from __future__ import annotations

import anyio
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.authentication import AuthCredentials
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vault_recall.server.http.connections import CONNECTION_KEY, ConnectionHandle
from vault_recall.server.http.refusals import send_refusal
from vault_recall.server.http.shares import SessionShares

SESSION_HEADER = "mcp-session-id"


def opens_a_session(scope: Scope, headers: Headers) -> bool:
    """Would the SDK open a session for this request?  A POST without a session id, on the
    protocol with sessions (the 2026 protocol, named in its header, has none)."""
    if scope["method"] != "POST" or SESSION_HEADER in headers:
        return False
    version = headers.get("mcp-protocol-version")
    return version is None or version in HANDSHAKE_PROTOCOL_VERSIONS


class ShareKeeper:
    """ASGI middleware keeping each client within its share of connections and sessions."""

    def __init__(self, app: ASGIApp, *, path: str, sessions: SessionShares | None = None) -> None:
        self.app = app
        self.path = path
        self.sessions = sessions or SessionShares()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        if scope["type"] != "http" or not isinstance(user, AuthenticatedUser):
            await self.app(scope, receive, send)
            return
        client = user.access_token.client_id
        connection = scope.get(CONNECTION_KEY)
        if isinstance(connection, ConnectionHandle):
            refusal = connection.claim(client)
            if refusal is not None:
                await send_refusal(send, refusal, close=True)
                return
        headers = Headers(scope=scope)
        if opens_a_session(scope, headers):
            await self._opening(scope, receive, send, client, user)
            return
        session = headers.get(SESSION_HEADER)
        if session is None:
            await self.app(scope, receive, send)
            return
        await self._in_session(scope, receive, send, session)

    async def _opening(self, scope: Scope, receive: Receive, send: Send, client: str, user: AuthenticatedUser) -> None:
        admission = self.sessions.admit(client, anyio.current_time())
        if admission.refusal is not None:
            await send_refusal(send, admission.refusal)
            return
        opened: str | None = None

        async def watch(message: Message) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and int(message["status"]) < 400:
                found = Headers(raw=list(message.get("headers", []))).get(SESSION_HEADER)
                opened = found or None
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            ending = self.sessions.opened(admission.ticket, opened, user, anyio.current_time())
            for session, owner in ending:  # room for the one just opened
                await self._end(session, owner)

    async def _in_session(self, scope: Scope, receive: Receive, send: Send, session: str) -> None:
        call = scope["method"] == "POST"
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        self.sessions.begin(session, call=call, now=anyio.current_time())
        try:
            await self.app(scope, receive, watch)
        finally:
            gone = status == 404 or (scope["method"] == "DELETE" and 200 <= status < 300)
            self.sessions.end(session, call=call, gone=gone, now=anyio.current_time())

    async def _end(self, session: str, owner: AuthenticatedUser) -> None:
        """End `session` for its client: the DELETE it would send itself, to the SDK directly."""
        scope: Scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "DELETE",
            "scheme": "http",
            "path": self.path,
            "raw_path": self.path.encode("ascii"),
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"127.0.0.1"), (SESSION_HEADER.encode("ascii"), session.encode("ascii"))],
            "client": None,
            "server": None,
            "state": {},
            "user": owner,
            "auth": AuthCredentials([]),
        }

        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Message) -> None:
            return None

        with anyio.CancelScope(shield=True):  # ended whole, or the client would keep a dead session
            await self.app(scope, receive, send)
