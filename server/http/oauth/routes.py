"""The OAuth 2.1 side of `vault-recall http`, as the MCP authorization spec lays it out: protected
resource metadata (RFC 9728), authorization server metadata (RFC 8414), dynamic client
registration (RFC 7591), authorization code with PKCE, tokens with refresh, revocation (RFC
7009) — the SDK's handlers, over our provider (server/http/oauth/provider.py) — and the page a browser waits
on for the person's approval (server/http/oauth/page.py).

Every address the endpoint answers at gets its own issuer and resource, taken from the request's
Host header (already checked against the allow-list by the guard), so a client that connects to
http://127.0.0.1:27183/mcp and one that connects to http://localhost:27183/mcp each find
metadata naming the URL they use.  With --public-url, requests carrying its host get the public
address.  OAuth needs TLS between machines: an address that is neither loopback nor the https
--public-url gets no OAuth (its static tokens still work).
"""

from __future__ import annotations

import logging
import time
from functools import partial
from typing import assert_never

import anyio
import anyio.to_thread
from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.handlers.register import RegistrationHandler
from mcp.server.auth.handlers.token import TokenHandler
from mcp.server.auth.middleware.client_auth import AuthenticationError
from mcp.server.auth.routes import build_metadata
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.server.transport_security import RequestBodyLimitMiddleware
from mcp.shared.auth import OAuthClientMetadata, OAuthMetadata, ProtectedResourceMetadata
from pydantic import AnyHttpUrl, ValidationError
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route, Router, request_response
from starlette.types import ASGIApp, Receive, Scope, Send

from vault_recall.server.errors import ApprovalError, FormRefused, OAuthStoreError
from vault_recall.server.http.address import PATH, PublicUrl, is_loopback
from vault_recall.server.http.guard import host_name
from vault_recall.server.http.oauth import page as oauth_page
from vault_recall.server.http.oauth.forms import (
    NO_STORE,
    described,
    described_response,
    metadata_refusal,
    read_form,
    redirect_to,
    refused,
    token_response,
    verifier_refusal,
    with_issuer,
)
from vault_recall.server.http.oauth.provider import (
    WAIT_PATH,
    Address,
    HashedClientAuthenticator,
    RecallOAuthProvider,
    events,
)
from vault_recall.server.http.refusals import WrongMethod
from vault_recall.server.oauth import approvals as oauth_approvals
from vault_recall.server.oauth import store as oauth_store
from vault_recall.server.oauth import tokens as oauth_tokens
from vault_recall.server.oauth.resources import other_resource

log = logging.getLogger(__name__)

BODY_LIMIT = 64 * 1024
MAX_ADDRESSES = 32  # routers kept, one per address seen; a Host's port can be anything
RESOURCE_NAME = "Vault Recall"
PRM_PATHS = ("/.well-known/oauth-protected-resource" + PATH, "/.well-known/oauth-protected-resource")
AS_PATHS = ("/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server" + PATH)
OAUTH_PATHS = frozenset({*PRM_PATHS, *AS_PATHS, "/authorize", WAIT_PATH, "/token", "/register", "/revoke"})
# Asked for by some clients before the OAuth ones: not offered (no OpenID Connect), said so in JSON.
OPENID_PATHS = frozenset({"/.well-known/openid-configuration", "/.well-known/openid-configuration" + PATH})


def _cors(app: ASGIApp, methods: list[str]) -> ASGIApp:
    # Browser-based clients (the MCP Inspector) read metadata and exchange codes from a page.
    return CORSMiddleware(app, allow_origins="*", allow_methods=methods, allow_headers=["mcp-protocol-version"])


def _limited(app: ASGIApp) -> ASGIApp:
    return RequestBodyLimitMiddleware(app, BODY_LIMIT)


def build_router(address: Address, access_seconds: int = oauth_store.ACCESS_SECONDS) -> Router:
    """The OAuth routes for one address, each an SDK handler over our provider but the wait page."""
    provider = RecallOAuthProvider(address, access_seconds)
    issuer = AnyHttpUrl(address.issuer)
    registration = ClientRegistrationOptions(enabled=True)
    built = build_metadata(issuer, None, registration, RevocationOptions(enabled=True))
    methods = ["none", "client_secret_post", "client_secret_basic"]
    # The issuer exactly as `iss` carries it, without the slash a bare URL gains on parsing (RFC
    # 8414 compares it as a string); public clients (a secret on a laptop protects nothing PKCE
    # does not); RFC 9207's `iss` in every redirect.
    metadata = OAuthMetadata.model_validate(
        {
            **built.model_dump(mode="json", exclude_none=True),
            "issuer": address.issuer,
            "token_endpoint_auth_methods_supported": methods,
            "revocation_endpoint_auth_methods_supported": methods,
            "authorization_response_iss_parameter_supported": True,
        }
    )
    resource = ProtectedResourceMetadata.model_validate(
        {
            "resource": address.resource,
            "authorization_servers": [address.issuer],
            "resource_name": RESOURCE_NAME,
            "bearer_methods_supported": ["header"],
        }
    )
    authenticator = HashedClientAuthenticator(provider)
    resource_handler = ProtectedResourceMetadataHandler(resource).handle
    authorization = AuthorizationHandler(provider)
    tokens = TokenHandler(provider, authenticator)

    async def wait(request: Request) -> Response:
        return await _wait_page(provider.limiter, request)

    async def authorize(request: Request) -> Response:
        if request.method == "POST":
            try:
                await read_form(request)
            except FormRefused as exc:  # nothing in it can be trusted to redirect to
                return refused("invalid_request", str(exc))
        answer = await authorization.handle(request)
        return with_issuer(answer, address.issuer, f"{address.issuer}{WAIT_PATH}?")

    async def token(request: Request) -> Response:
        try:
            form = await read_form(request)
        except FormRefused as exc:
            return refused("invalid_request", str(exc))
        # The SDK's handler takes a `resource` and ignores it: a token is only ever for this server.
        asked = form.get("resource")
        why = other_resource(asked, address.resource) if isinstance(asked, str) else None
        if why is not None:
            return refused("invalid_target", why)
        # Nor does it look at a verifier's form (RFC 7636 §4.1): a 3-character one was taken.
        why = verifier_refusal(form)
        if why is not None:
            return refused("invalid_request", why)
        answer: Response = await tokens.handle(request)
        return token_response(answer)

    routes = [
        *(
            Route(
                path, endpoint=_cors(request_response(resource_handler), ["GET", "OPTIONS"]), methods=["GET", "OPTIONS"]
            )
            for path in PRM_PATHS
        ),
        *(
            Route(
                path,
                endpoint=_cors(request_response(MetadataHandler(metadata).handle), ["GET", "OPTIONS"]),
                methods=["GET", "OPTIONS"],
            )
            for path in AS_PATHS
        ),
        Route("/authorize", endpoint=_limited(request_response(authorize)), methods=["GET", "POST"]),
        Route(WAIT_PATH, endpoint=wait, methods=["GET"]),
        Route(
            "/token",
            endpoint=_cors(_limited(request_response(token)), ["POST", "OPTIONS"]),
            methods=["POST", "OPTIONS"],
        ),
        Route(
            "/register",
            endpoint=_cors(
                _limited(request_response(partial(_register, RegistrationHandler(provider, registration)))),
                ["POST", "OPTIONS"],
            ),
            methods=["POST", "OPTIONS"],
        ),
        Route(
            "/revoke",
            endpoint=_cors(
                _limited(request_response(partial(_revoke, provider, authenticator))),
                ["POST", "OPTIONS"],
            ),
            methods=["POST", "OPTIONS"],
        ),
    ]
    return Router(routes=routes)


async def _revoke(
    provider: RecallOAuthProvider, authenticator: HashedClientAuthenticator, request: Request
) -> Response:
    """RFC 7009 revocation.  Not the SDK's handler: that one requires a `client_secret` field,
    which a public client (most MCP apps) has none to send.  A token of another app is ignored
    (200 all the same, as the RFC says); one of the app's own ends its whole grant."""
    try:
        form = await read_form(request)
    except FormRefused as exc:
        return refused("invalid_request", str(exc))
    try:
        client = await authenticator.authenticate_request(request)
    except AuthenticationError as exc:
        return JSONResponse({"error": "invalid_client", "error_description": described(exc.message)}, status_code=401)
    token = form.get("token")
    if not isinstance(token, str) or not token:
        return JSONResponse({"error": "invalid_request", "error_description": "token is required"}, status_code=400)
    found = await anyio.to_thread.run_sync(oauth_tokens.load_token, token, limiter=provider.limiter)
    if found is not None and found.client_id == client.client_id:
        await anyio.to_thread.run_sync(oauth_tokens.revoke_token, token, limiter=provider.limiter)
    return Response(status_code=200, headers=NO_STORE)


async def _wait_page(limiter: anyio.CapacityLimiter, request: Request) -> Response:
    """Where /authorize sends the browser: waits for the person, then returns it to the app
    with the code (approved) or `access_denied` (denied, or not answered in time)."""
    handle = request.query_params.get("request", "")
    found = await anyio.to_thread.run_sync(oauth_approvals.request_by_handle, handle, limiter=limiter)
    if found is None:
        return oauth_page.unknown()
    if found.expired(time.time()):
        return _denied(found, "the request was not approved in time")
    match found.status:
        case "denied":
            return _denied(found, "the request was denied")
        case "pending":
            return oauth_page.waiting(found.name, found.approval_code, found.suggested_client)
        case "done":
            return oauth_page.answered(f"{found.name} was approved and has its code: you can close this page.")
        case "approved":
            pass  # its code goes to the browser now, below
        case _:
            assert_never(found.status)
    try:
        request_now, code = await anyio.to_thread.run_sync(oauth_approvals.hand_out_code, handle, limiter=limiter)
    except ApprovalError:
        return oauth_page.unknown()
    if code is None:  # answered meanwhile by another load of this page
        return oauth_page.answered(f"{found.name} was approved and has its code: you can close this page.")
    events.info("%r was approved (%s) and is sent back with its code", request_now.name, request_now.approval_code)
    target = redirect_to(request_now.redirect_uri, code=code, state=request_now.state, iss=request_now.issuer)
    return RedirectResponse(target, status_code=302, headers={"Cache-Control": "no-store"})


async def _register(handler: RegistrationHandler, request: Request) -> Response:
    """The SDK's registration, with metadata it would refuse refused first in one sentence of
    ours (it joins pydantic's messages, one line per field).  The body is read once: Starlette
    keeps it on the request for the handler."""
    try:
        OAuthClientMetadata.model_validate_json(await request.body())
    except ValidationError as exc:
        body = {"error": "invalid_client_metadata", "error_description": described(metadata_refusal(exc.errors()))}
        return JSONResponse(body, status_code=400, headers=NO_STORE)
    return described_response(await handler.handle(request))


def _denied(found: oauth_approvals.Request, why: str) -> Response:
    """The browser goes back to the app with `access_denied` and why."""
    target = redirect_to(
        found.redirect_uri, error="access_denied", error_description=described(why), state=found.state, iss=found.issuer
    )
    return RedirectResponse(target, status_code=302, headers={"Cache-Control": "no-store"})


class OAuthEndpoint:
    """The OAuth routes of every address the endpoint answers at, made on first use."""

    def __init__(self, public: PublicUrl | None, access_seconds: int = oauth_store.ACCESS_SECONDS) -> None:
        self.public = public
        self.access_seconds = access_seconds
        self._routers: dict[str, Router] = {}

    def address_for(self, host_header: str | None) -> Address | None:
        """The address a request reached us by (its Host, already checked by the guard), or None
        where OAuth is not offered: plain http to a name that is not loopback."""
        host = host_name(host_header)
        if host is None:
            return None
        if self.public is not None and host == self.public.host:
            return Address(issuer=self.public.base, resource=self.public.url)
        if not is_loopback(host):
            return None
        assert host_header is not None
        issuer = f"http://{host_header.strip().lower()}"
        return Address(issuer=issuer, resource=issuer + PATH)

    def handles(self, path: str) -> bool:
        return path in OAUTH_PATHS or path in OPENID_PATHS

    async def __call__(self, scope: Scope, receive: Receive, send: Send, host_header: str | None) -> None:
        path = scope["path"]
        address = self.address_for(host_header)
        if path in OPENID_PATHS or address is None:
            reason = (
                "this endpoint offers OAuth 2.1 without OpenID Connect: see /.well-known/oauth-authorization-server"
                if address is not None
                else "OAuth is offered only on this computer's loopback address or at the endpoint's https "
                "--public-url (tokens must not cross a network in the clear); use a client token here"
            )
            await JSONResponse({"error": "not_found", "error_description": described(reason)}, status_code=404)(
                scope, receive, send
            )
            return
        router = self._routers.get(address.issuer)
        if router is None:
            if len(self._routers) >= MAX_ADDRESSES:
                self._routers.clear()
            router = self._routers[address.issuer] = build_router(address, self.access_seconds)
        try:
            await router(scope, receive, WrongMethod(send, path).send)
        except ClientDisconnect:
            # The client hung up, or was cut off at the request deadline (its 408 is sent),
            # before its form or registration arrived whole: nobody is left to answer, and
            # nothing went wrong here — one line, as /mcp says it, never a traceback.
            log.warning(
                "a client hung up before its request to %s arrived whole; there was nobody left to answer", path
            )
        except OAuthStoreError as exc:
            log.warning("an OAuth request failed: %s", exc)
            await JSONResponse(
                {
                    "error": "server_error",
                    "error_description": "the OAuth store cannot be used; see the endpoint's log",
                },
                status_code=500,
            )(scope, receive, send)
