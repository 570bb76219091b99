"""What every request to `vault-recall http` passes before the MCP transport sees it.

In this order, cheapest first, so a refused request costs next to nothing and never reaches a
tool: the Host header must name this endpoint and an Origin header (sent by web pages) must be
one of its own addresses — against DNS rebinding and cross-site requests; the OAuth routes go to
their own app (server/http/oauth/routes.py); any other path must be the endpoint's; the bearer token must
be a client's token in the config as it is now, or an OAuth access token of a live grant.
Refusals are one clear sentence in JSON; a 401 also names, in `WWW-Authenticate`, where a client
finds how to authorize (RFC 9728's `resource_metadata`).  The token is never logged or passed
on: the transport sees only the client id it names.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from typing import Protocol
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.authentication import AuthCredentials
from starlette.datastructures import Headers
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vault_recall.server.config.bearer_tokens import MAX_TOKEN_LENGTH, token_hash
from vault_recall.server.errors import ConfigError, OAuthStoreError
from vault_recall.server.http.answer_delivery import ANSWER_KEY, AnswerHolder, ResponseWatch
from vault_recall.server.http.connections import CONNECTION_KEY, ConnectionHandle
from vault_recall.server.http.refusals import Refusal, SdkRefusals
from vault_recall.server.oauth import store as oauth_store
from vault_recall.server.oauth import tokens as oauth_tokens

log = logging.getLogger(__name__)

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
# Where a client refused with 401 looks for OAuth: the protected resource's and the
# authorization server's metadata (RFC 9728, RFC 8414, OpenID discovery, each also with the
# endpoint's path after it), then the endpoints it falls back to without metadata, and the
# revocation a client may try when signing out (tests/server/http/oauth/test_paths.py holds
# these to every path oauth_routes serves).
OAUTH_PATHS = (
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
    "/register",
    "/authorize",
    "/token",
    "/revoke",
)
REALM = "vault-recall"


class OAuthRoutes(Protocol):
    """The OAuth side of the endpoint as the guard sees it (server/http/oauth/routes.py:OAuthEndpoint)."""

    def handles(self, path: str) -> bool: ...

    def address_for(self, host_header: str | None) -> OAuthAddress | None: ...

    async def __call__(self, scope: Scope, receive: Receive, send: Send, host_header: str | None) -> None: ...


class OAuthAddress(Protocol):
    @property
    def resource(self) -> str: ...

    @property
    def resource_metadata(self) -> str: ...


def host_name(value: str | None) -> str | None:
    """The host a Host header names, lowercased and without its port ('[::1]:80' → '::1')."""
    if not value or len(value) > 300:
        return None
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        rest = value[end + 1 :]
        if end < 0 or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return value[1:end]
    name, _, port = value.partition(":")
    if port and not port.isdigit():
        return None
    return name or None


def origin_host(origin: str) -> str | None:
    """The host of an Origin header ('http://localhost:5173' → 'localhost'); None for 'null' or junk."""
    try:
        parts = urlsplit(origin.strip())
        hostname = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not hostname:
        return None
    return hostname.lower()


def check_host_and_origin(headers: Headers, allowed: frozenset[str]) -> Refusal | None:
    """None when the request is addressed to this endpoint and not sent by a foreign web page."""
    host = headers.get("host")
    if host_name(host) not in allowed:
        shown = (host or "")[:100]
        return Refusal(
            403,
            "forbidden_host",
            f"Host {shown!r} is not an address of this endpoint (it answers to {', '.join(sorted(allowed))}; "
            "start it with --allow-host NAME to add one)",
        )
    origin = headers.get("origin")
    if origin is not None and origin_host(origin) not in allowed:
        return Refusal(
            403,
            "forbidden_origin",
            f"requests from web pages at {origin[:100]!r} are refused: "
            "only this endpoint's own addresses may send an Origin",
        )
    return None


def as_the_sdk_reads(scope: Scope) -> list[tuple[bytes, bytes]]:
    """The request's headers as the SDK behind the guard should see them, once the guard has
    let the request through.

    - Host and Origin lowercased: the guard compares names without case, as DNS does, and the
      SDK's own check of the same names (a second lock on the same door) compares them as
      written; `Host: LOCALHOST:27183` passed the one and got 421 from the other.
    - No Last-Event-ID: the endpoint keeps no events to replay, and the SDK, asked to replay
      with none kept, answered nothing (a 500).  Without it, the GET opens a fresh stream, as
      a server that does not resume streams may.
    """
    headers: list[tuple[bytes, bytes]] = []
    for name, value in scope["headers"]:
        if name in (b"host", b"origin"):
            value = value.lower()
        elif name == b"last-event-id":
            continue
        headers.append((name, value))
    return headers


def looks_for_oauth(path: str) -> bool:
    return any(path == known or path.startswith(known + "/") for known in OAUTH_PATHS)


def bearer_token(headers: Headers) -> str | None:
    value = headers.get("authorization")
    if value is None:
        return None
    scheme, _, token = value.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


class EndpointGuard:
    """ASGI middleware in front of the MCP app: Host/Origin, path, then the client's token.

    `client_of(token)` reads the config (so runs on a worker thread, with a limiter of its
    own: a busy tool pool never delays a token check) and raises ConfigError when the config
    is broken.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: frozenset[str],
        path: str,
        client_of: Callable[[str], str | None],
        on_startup: Callable[[], None] | None = None,
        oauth: OAuthRoutes | None = None,
    ) -> None:
        self.app = app
        self.allowed_hosts = allowed_hosts
        self.path = path
        self.client_of = client_of
        self.on_startup = on_startup
        self.oauth = oauth
        self._limiter: anyio.CapacityLimiter | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            if self.on_startup is not None:
                self.on_startup()
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            return  # websockets are not served here; uvicorn refuses the upgrade
        headers = Headers(scope=scope)
        refusal = check_host_and_origin(headers, self.allowed_hosts)
        if refusal is None and self.oauth is not None and self.oauth.handles(scope["path"]):
            await self.oauth(scope, receive, send, headers.get("host"))
            return
        if refusal is None and self.oauth is None and looks_for_oauth(scope["path"]):
            # A client looking for OAuth after a 401 shows this to its person: say how this
            # endpoint is reached instead, in the `error_description` clients show.
            refusal = Refusal(
                404,
                "oauth_not_offered",
                "this endpoint offers no OAuth (it was started with --no-oauth): each client sends its own token "
                "as 'Authorization: Bearer <token>', and this client's token was missing or refused; on the "
                "computer running Vault Recall, `vault-recall doctor` says why and `vault-recall install CLIENT "
                "--form http` writes a new one into the client's config",
            )
        if refusal is None and scope["path"] != self.path:
            refusal = Refusal(404, "not_found", f"nothing here: the MCP endpoint is {self.path}")
        client: str | None = None
        if refusal is None:
            client, refusal = await self._client(headers)
            if refusal is not None and refusal.status == 401 and self.oauth is not None:
                address = self.oauth.address_for(headers.get("host"))
                if address is not None:
                    refusal = dataclasses.replace(refusal, resource_metadata=address.resource_metadata)
        if refusal is not None:
            await _refuse(send, refusal)
            return
        assert client is not None
        scope["headers"] = as_the_sdk_reads(scope)
        # What the SDK's session handling and our tools read: the client the token names.  The
        # token itself stays here; its hash stands in for it.
        token = AccessToken(token=token_hash(bearer_token(headers) or ""), client_id=client, scopes=[])
        scope["user"] = AuthenticatedUser(token)
        scope["auth"] = AuthCredentials([])
        # A tool's answer is told as delivered only once its response is out (server/http/answer_delivery.py).
        holder = scope[ANSWER_KEY] = AnswerHolder()
        connection = scope.get(CONNECTION_KEY)
        # The SDK's own refusals leave in our format, like ours (server/http/refusals.py).
        watch = ResponseWatch(
            SdkRefusals(send).send, holder, connection.written if isinstance(connection, ConnectionHandle) else None
        )
        answered = _AnsweredOnce(watch.send)
        try:
            await self.app(scope, receive, answered.send)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            if not answered.done:
                raise
            # A notification was accepted (202) just as its client ended the session: nothing
            # is left to hand it to, and nobody is waiting for anything more.
            log.info("a client ended its session while its last notification was delivered")
        finally:
            holder.close()

    async def _client(self, headers: Headers) -> tuple[str | None, Refusal | None]:
        token = bearer_token(headers)
        if not token:
            return None, Refusal(
                401,
                "missing_token",
                "this endpoint needs the client's token: send 'Authorization: Bearer <token>' "
                "(make one with `vault-recall client token CLIENT`)"
                + (", or authorize with OAuth" if self.oauth is not None else ""),
            )
        if len(token) > MAX_TOKEN_LENGTH:
            return None, Refusal(401, "invalid_token", "this token is not valid: it is far too long to be one")
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(8)
        if self.oauth is not None and token.startswith(oauth_store.ACCESS_PREFIX):
            address = self.oauth.address_for(headers.get("host"))
            if address is None:  # an address OAuth is not offered at: no token was issued for it
                return None, Refusal(
                    401,
                    "invalid_token",
                    "this access token is not valid at this address: OAuth is offered only on this computer's "
                    "loopback address or at the endpoint's https --public-url; use a client token here",
                )
            return await self._grant_client(token, address.resource)
        try:
            client = await anyio.to_thread.run_sync(self.client_of, token, limiter=self._limiter)
        except ConfigError as exc:
            log.warning("refused a request: the config cannot be read: %s", exc)
            return None, Refusal(
                503,
                "config_broken",
                "Vault Recall's config file is broken, so no token can be checked; its owner can see why "
                "with `vault-recall status`",
            )
        if client is None:
            return None, Refusal(
                401, "invalid_token", "this token is not valid: it was revoked, replaced by a newer one, or mistyped"
            )
        return client, None

    async def _grant_client(self, token: str, resource: str) -> tuple[str | None, Refusal | None]:
        """The client an OAuth access token acts as, from its grant in the store as it is now —
        if it was issued for `resource`, this endpoint at the address it was reached by."""
        assert self._limiter is not None
        try:
            client, why = await anyio.to_thread.run_sync(
                oauth_tokens.client_of_access_token, token, resource, limiter=self._limiter
            )
        except OAuthStoreError as exc:
            log.warning("refused a request: %s", exc)
            return None, Refusal(
                503, "store_broken", "Vault Recall's OAuth store cannot be read; see the endpoint's log"
            )
        if client is None:
            return None, Refusal(401, "invalid_token", why)
        return client, None


def www_authenticate(refusal: Refusal) -> str:
    """RFC 6750's challenge: no error code when no token came, else `invalid_token` and why;
    and RFC 9728's pointer to the resource metadata, where OAuth is offered."""
    parts = [f'realm="{REALM}"']
    if refusal.error != "missing_token":
        parts.append('error="invalid_token"')
        parts.append(f'error_description="{_quoted(refusal.description)}"')
    if refusal.resource_metadata is not None:
        parts.append(f'resource_metadata="{_quoted(refusal.resource_metadata)}"')
    return "Bearer " + ", ".join(parts)


def _quoted(text: str) -> str:
    """Inside an HTTP quoted-string: ASCII only, quotes and backslashes escaped."""
    ascii_text = text.encode("ascii", "replace").decode("ascii")
    return ascii_text.replace("\\", "\\\\").replace('"', '\\"')


async def _refuse(send: Send, refusal: Refusal) -> None:
    body = json.dumps({"error": refusal.error, "error_description": refusal.description}).encode("utf-8") + b"\n"
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode("ascii")),
        (b"cache-control", b"no-store"),
    ]
    if refusal.status == 401:
        headers.append((b"www-authenticate", www_authenticate(refusal).encode("ascii")))
    await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class _AnsweredOnce:
    """The ASGI `send` of one request, which drops whatever comes after the response is
    complete.  The SDK answers a notification with 202 first and delivers it after; when the
    session closed in between (its client left), it tries to send a 500 on top of the 202,
    which uvicorn refuses with an error of its own."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self.done = False

    async def send(self, message: Message) -> None:
        if self.done:
            return
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            self.done = True
        await self._send(message)


def client_left_quietly(record: logging.LogRecord) -> bool:
    """A logging filter for the SDK's transport: a message for a session its client has just
    ended, or a request whose client hung up before it had sent it all, is one line, not a
    traceback — the client left, nothing went wrong here."""
    error = record.exc_info[1] if record.exc_info else None
    if isinstance(error, anyio.ClosedResourceError | anyio.BrokenResourceError):
        record.msg = "a request arrived as its client ended the session; there was nobody left to answer"
    elif isinstance(error, ClientDisconnect):
        record.msg = "a client hung up before its request arrived whole; there was nobody left to answer"
    else:
        return True
    record.args = ()
    record.exc_info = None
    record.exc_text = None
    return True
