"""The MCP SDK's authorization-server provider over our OAuth store (server/oauth/).

The SDK's handlers (mcp.server.auth.handlers) parse and check every OAuth request — PKCE, the
redirect URI, the client's grant types, code expiry — and call this provider for what is ours:
where apps and grants are kept, and that a person approves each authorization.  `authorize`
answers no code: it opens a request and sends the browser to a page that waits for the person
(`vault-recall client approve CODE`, or the tray); only then is a code handed out.

The store is SQLite on disk, so every call runs on a worker thread: the event loop never waits
for the file.  One provider serves one address (issuer and resource), so a code or token names
the address it was asked for.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
import time
from dataclasses import dataclass
from functools import partial
from typing import TypeVar
from urllib.parse import unquote, urlsplit

import anyio
import anyio.to_thread
from mcp.server.auth.middleware.client_auth import AuthenticationError, ClientAuthenticator
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    IdentityAssertionParams,
    RefreshToken,
    RegistrationError,
    TokenError,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl
from starlette.requests import Request

from vault_recall.server.errors import ApprovalError, FormRefused, GrantGone
from vault_recall.server.http.address import is_loopback
from vault_recall.server.http.oauth.forms import read_form
from vault_recall.server.oauth import approvals as oauth_approvals
from vault_recall.server.oauth import client_ids
from vault_recall.server.oauth import store as oauth_store
from vault_recall.server.oauth import tokens as oauth_tokens
from vault_recall.server.oauth.resources import other_resource, same_resource

T = TypeVar("T")
# What the person running `vault-recall http` in a terminal needs to see: who waits for approval
# and what became of it (the endpoint shows this logger's INFO lines; never a secret).
events = logging.getLogger("vault_recall.oauth")
MAX_NAME = 80
WAIT_PATH = "/authorize/wait"
# Schemes a browser must never be sent to with a code: script, data and local files.
_REFUSED_SCHEMES = frozenset({"javascript", "data", "file", "vbscript", "about", "blob"})
# RFC 7636 §4.2: BASE64URL(SHA256(code_verifier)), without padding, is 43 characters.
_S256_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class Address:
    """One address the endpoint is reached by: the OAuth issuer and the MCP resource there."""

    issuer: str  # scheme://host[:port]
    resource: str  # issuer + /mcp

    @property
    def resource_metadata(self) -> str:
        return f"{self.issuer}/.well-known/oauth-protected-resource/mcp"


def _limiter() -> anyio.CapacityLimiter:
    return anyio.CapacityLimiter(8)


async def _run(function: partial[T], limiter: anyio.CapacityLimiter) -> T:
    return await anyio.to_thread.run_sync(function, limiter=limiter)


def app_name(info: OAuthClientInformationFull) -> str:
    """The name the person sees: the app's own, without control characters, at most 80 characters."""
    name = _CONTROL.sub("", (info.client_name or "").strip())
    return name[:MAX_NAME] or client_ids.UNNAMED


def check_redirect_uri(uri: str) -> str | None:
    """Why a redirect URI is refused, or None: https anywhere, plain http only to this computer
    (RFC 8252's loopback redirect), an app's own scheme (`cursor://…`); never script or files."""
    try:
        parts = urlsplit(uri)
        host = parts.hostname
    except ValueError:
        return f"{uri[:100]!r} is not a URL"
    scheme = parts.scheme.lower()
    if not scheme or scheme in _REFUSED_SCHEMES:
        return f"{uri[:100]!r} is no place to send an authorization code"
    if parts.fragment:
        return f"{uri[:100]!r} has a fragment, which a redirect URI must not have"
    if scheme == "http" and not (host and is_loopback(host)):
        return f"{uri[:100]!r} is plain http to another machine: use https, or http to 127.0.0.1 or localhost"
    return None


class RegisteredApp(OAuthClientInformationFull):
    """An app as the SDK's handlers see it, taking any scope it asks for: scopes grant nothing
    here (a grant's reach is its client id's exposure), and an app that asks for one it did not
    register (some connectors do) must not be turned away for it."""

    def validate_scope(self, requested_scope: str | None) -> list[str] | None:
        return None if requested_scope is None else requested_scope.split()

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        """A registered URI, as the SDK checks it — except that a loopback one may come with
        any port (RFC 8252 §7.3: a native app listens on whichever port is free when it asks)."""
        if redirect_uri is not None and any(
            loopback_but_port(str(redirect_uri), str(registered)) for registered in self.redirect_uris or ()
        ):
            return redirect_uri
        return super().validate_redirect_uri(redirect_uri)


def loopback_but_port(asked: str, registered: str) -> bool:
    """Whether `asked` is the loopback http URI `registered` but for its port."""
    try:
        one, two = urlsplit(asked), urlsplit(registered)
        if one.port == two.port:
            return False  # the same port: the SDK's own exact check decides
    except ValueError:  # a port that is no port
        return False
    host = one.hostname
    return (
        one.scheme.lower() == two.scheme.lower() == "http"
        and host is not None
        and host == two.hostname
        and is_loopback(host)
        and (one.path or "/", one.query, one.username, one.password)
        == (two.path or "/", two.query, two.username, two.password)
    )


class RecallOAuthProvider:
    """OAuthAuthorizationServerProvider for one address of the endpoint."""

    def __init__(
        self,
        address: Address,
        access_seconds: int = oauth_store.ACCESS_SECONDS,
        limiter: anyio.CapacityLimiter | None = None,
    ) -> None:
        self.address = address
        self.access_seconds = access_seconds
        self.limiter = limiter or _limiter()

    # -- registration --

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        app = await self.get_app(client_id)
        return None if app is None else RegisteredApp.model_validate_json(app.info)

    async def get_app(self, client_id: str) -> oauth_approvals.App | None:
        return await _run(partial(oauth_approvals.get_app, client_id), self.limiter)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        for uri in client_info.redirect_uris or []:
            problem = check_redirect_uri(str(uri))
            if problem is not None:
                raise RegistrationError("invalid_redirect_uri", problem)
        info = client_info.model_dump(mode="json", exclude={"client_secret"}, exclude_none=True)
        store = partial(
            oauth_approvals.register_app,
            client_info.client_id,
            app_name(client_info),
            json.dumps(info, sort_keys=True),
            client_info.client_secret,
        )
        await _run(store, self.limiter)

    # -- authorization: a request the person approves --

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        why = other_resource(params.resource, self.address.resource)
        if why is not None:
            raise AuthorizeError("invalid_target", why)
        if not _S256_CHALLENGE.fullmatch(params.code_challenge):  # the SDK takes any text
            raise AuthorizeError(
                "invalid_request",
                "code_challenge must be 43 characters of base64url, the SHA-256 of the code_verifier (RFC 7636 4.2)",
            )
        app = await self.get_app(client.client_id)
        if app is None:
            raise AuthorizeError("unauthorized_client", "this app is not registered here")
        opening = partial(
            oauth_approvals.open_request,
            app,
            redirect_uri=str(params.redirect_uri),
            redirect_explicit=params.redirect_uri_provided_explicitly,
            code_challenge=params.code_challenge,
            state=params.state,
            scopes=tuple(params.scopes or ()),
            resource=self.address.resource,
            issuer=self.address.issuer,
        )
        try:
            handle, request = await _run(opening, self.limiter)
        except ApprovalError as exc:
            raise AuthorizeError("temporarily_unavailable", str(exc)) from None
        events.info(
            "%r asks to recall your notes (code %s): vault-recall client approve %s [--as ID], or deny it",
            request.name,
            request.approval_code,
            request.approval_code,
        )
        return f"{self.address.issuer}{WAIT_PATH}?request={handle}"

    # -- codes and tokens --

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        # A used code is loaded too, so that its exchange sees the replay and revokes the grant.
        code = await _run(partial(oauth_tokens.load_code, authorization_code), self.limiter)
        if code is None or not same_resource(code.resource, self.address.resource):
            return None  # unknown, or asked for at another endpoint or address: not redeemed here
        return AuthorizationCode(
            code=authorization_code,
            scopes=list(code.scopes),
            expires_at=code.expires,
            client_id=code.client_id,
            code_challenge=code.code_challenge,
            redirect_uri=AnyUrl(code.redirect_uri),
            redirect_uri_provided_explicitly=code.redirect_explicit,
            resource=code.resource,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        try:
            exchange = partial(oauth_tokens.exchange_code, authorization_code.code, access_seconds=self.access_seconds)
            issued = await _run(exchange, self.limiter)
        except GrantGone as exc:
            events.info("refused an authorization code of %r: %s", client.client_name, exc)
            raise TokenError("invalid_grant", str(exc)) from None
        return _token(issued)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        token = await _run(partial(oauth_tokens.load_token, refresh_token), self.limiter)
        if token is None or token.kind != "refresh" or not same_resource(token.resource, self.address.resource):
            return None  # unknown, or issued at another endpoint or address: not refreshed here
        return RefreshToken(
            token=refresh_token,
            client_id=token.client_id,
            scopes=list(token.scopes),
            expires_at=int(token.expires),
            resource=token.resource,
        )

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        exchange = partial(
            oauth_tokens.exchange_refresh, refresh_token.token, tuple(scopes), access_seconds=self.access_seconds
        )
        try:
            issued = await _run(exchange, self.limiter)
        except GrantGone as exc:
            events.info("refused a refresh token of %r: %s", client.client_name, exc)
            raise TokenError("invalid_grant", str(exc)) from None
        return _token(issued)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = await _run(partial(oauth_tokens.load_token, token), self.limiter)
        if found is None or found.kind != "access" or found.revoked or found.expires < time.time():
            return None
        if not same_resource(found.resource, self.address.resource):
            return None
        return AccessToken(
            token=token,
            client_id=found.client_id,
            scopes=list(found.scopes),
            expires_at=int(found.expires),
            resource=found.resource,
        )

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        await _run(partial(oauth_tokens.revoke_token, token.token), self.limiter)

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: IdentityAssertionParams
    ) -> OAuthToken:
        # An enterprise identity provider's assertion would let an app in without the person's
        # approval here: never accepted (and not advertised in the metadata).
        raise TokenError("unsupported_grant_type", "this server grants access only through the person's approval")


def _token(issued: oauth_tokens.Issued) -> OAuthToken:
    return OAuthToken(
        access_token=issued.access_token,
        token_type="Bearer",
        expires_in=issued.expires_in,
        scope=" ".join(issued.scopes) or None,
        refresh_token=issued.refresh_token,
    )


class HashedClientAuthenticator(ClientAuthenticator):
    """The SDK's client authentication at /token and /revoke, against the hash of the app's
    secret (the store never keeps a secret itself).  Apps registered without a secret (public
    clients, which PKCE protects) need none."""

    def __init__(self, provider: RecallOAuthProvider) -> None:
        super().__init__(provider)
        self.recall_provider = provider

    async def authenticate_request(self, request: Request) -> OAuthClientInformationFull:
        try:
            form = await read_form(request)
        except FormRefused as exc:
            raise AuthenticationError(str(exc)) from None
        client_id = form.get("client_id")
        if not isinstance(client_id, str) or not client_id:
            raise AuthenticationError("Missing client_id")
        app = await self.recall_provider.get_app(client_id)
        if app is None:
            raise AuthenticationError("Invalid client_id: this app is not registered here (register it again)")
        client = RegisteredApp.model_validate_json(app.info)
        presented: str | None = None
        header = request.headers.get("authorization", "")
        if client.token_endpoint_auth_method == "client_secret_basic":
            presented = _basic_secret(header, client_id)
        elif client.token_endpoint_auth_method == "client_secret_post":
            value = form.get("client_secret")
            presented = value if isinstance(value, str) else None
        if app.secret_sha256 is not None and not oauth_approvals.secret_matches(app, presented):
            raise AuthenticationError("Invalid client_secret" if presented else "Client secret is required")
        return client


def _basic_secret(header: str, client_id: str) -> str:
    if not header.startswith("Basic "):
        raise AuthenticationError("Missing or invalid Basic authentication in Authorization header")
    try:
        decoded = base64.b64decode(header[6:], validate=True).decode("utf-8")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise AuthenticationError("Invalid Basic authentication header") from None
    name, sep, secret = decoded.partition(":")
    if not sep or unquote(name) != client_id:
        raise AuthenticationError("Client ID mismatch in Basic auth")
    return unquote(secret)
