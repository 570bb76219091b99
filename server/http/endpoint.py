"""`vault-recall http`: one long-running process serving the six tools to many clients over MCP
Streamable HTTP (the SDK's own transport), each client named by its bearer token.

Everything a stdio server promises holds per call: the config is read on every request (the
token's client, its vault and exposure), the vault on every call, and one activity event is
recorded per call under the token's client.  What one process serving many needs besides:

- a guard in front (server/http/guard.py): Host and Origin against DNS rebinding, then the token;
- bounds: the request body (64 KiB, 413), open connections and sessions, each client's share of
  them (server/http/shares.py, 429 and 503), each request's arrival time (server/http/deadline.py, 408), and
  how many calls of one client run at once (the rest wait their turn), so one client cannot
  take every worker thread;
- tool functions run on worker threads (the SDK runs sync tools there), token checks and
  activity hand-offs too: a slow or vanished vault holds up only the calls reading it, never
  the event loop or another client's call.
"""

from __future__ import annotations

import gc
import logging
import socket
import sys
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
import uvicorn
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, InputRequiredResult
from starlette.types import ASGIApp

from vault_recall.server.activity.writer import Call, record_activity
from vault_recall.server.config.bearer_tokens import client_of_token
from vault_recall.server.config.call_scope import ServeOptions, current_scope
from vault_recall.server.config.config_file import load_config
from vault_recall.server.errors import ListenError
from vault_recall.server.http.address import PATH, Listen, PublicUrl, parse_listen, parse_public_url
from vault_recall.server.http.answer_delivery import HttpDelivery
from vault_recall.server.http.connections import EndpointProtocol
from vault_recall.server.http.deadline import REQUEST_SECONDS
from vault_recall.server.http.guard import LOOPBACK_NAMES, EndpointGuard, client_left_quietly
from vault_recall.server.http.share_keeper import ShareKeeper
from vault_recall.server.http.shares import MAX_SESSIONS, SESSION_IDLE_SECONDS, ConnectionShares
from vault_recall.server.http.stop import Stopper
from vault_recall.server.mcp.serve import close_worker_pool, open_worker_pool
from vault_recall.server.mcp.tools import RecallServer, build_server

MAX_BODY_BYTES = 64 * 1024  # a tools/call is a few hundred bytes; initialize a few KiB
CALLS_PER_CLIENT = 4
WORKER_THREADS = 64


def allowed_hosts(listen: Listen, extra: list[str], public: PublicUrl | None = None) -> frozenset[str]:
    """The names a request's Host (and an Origin) may carry: loopback, the listen address,
    --allow-host, and the --public-url's host (a proxy or tunnel passes it on)."""
    names = {*LOOPBACK_NAMES, *(name.strip().lower().strip("[]") for name in extra if name.strip())}
    if listen.host not in ("0.0.0.0", "::"):
        names.add(listen.host.lower())
    if public is not None:
        names.add(public.host)
    return frozenset(names)


class HttpRecallServer(RecallServer):
    """The tools as the HTTP endpoint serves them: each call for the client its request's token
    names, at most CALLS_PER_CLIENT of one client's calls at once, activity handed over on a
    worker thread (the config read it needs must not hold up the event loop)."""

    def __init__(self, options: ServeOptions, **kwargs: Any) -> None:
        super().__init__(options, **kwargs)
        self.delivery = HttpDelivery()
        self.running = 0  # calls being answered (or waiting their turn), for a stop to wait on
        self._per_client: dict[str, anyio.CapacityLimiter] = {}
        self._record_limiter: anyio.CapacityLimiter | None = None

    def options_for(self, context: Context[Any, Any] | None) -> ServeOptions:
        try:
            request = context.request_context.request if context is not None else None
        except ValueError:
            request = None
        user = request.scope.get("user") if request is not None else None
        if not isinstance(user, AuthenticatedUser):  # the guard lets no such request through
            raise ToolError("this request carries no client token")
        return ServeOptions(client=user.access_token.client_id)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        client = self.options_for(context).client
        limiter = self._per_client.setdefault(client, anyio.CapacityLimiter(CALLS_PER_CLIENT))
        self.running += 1
        try:
            async with limiter:
                return await super().call_tool(name, arguments, context)
        finally:
            self.running -= 1

    async def record(self, call: Call) -> None:
        if self._record_limiter is None:
            self._record_limiter = anyio.CapacityLimiter(4)
        with anyio.CancelScope(shield=True):  # a client gone mid-call still leaves its row
            await anyio.to_thread.run_sync(lambda: record_activity(self.activity, call), limiter=self._record_limiter)


def token_client(token: str) -> str | None:
    """The client a token names, by the config as it is now (raises ConfigError when broken)."""
    return client_of_token(load_config(), token)


def build_endpoint(
    listen: Listen,
    extra_hosts: list[str] | None = None,
    public: PublicUrl | None = None,
    oauth: bool = True,
    access_seconds: int = 3600,
    on_started: Callable[[], None] | None = None,
) -> tuple[ASGIApp, HttpRecallServer]:
    """The ASGI app (guard in front of the SDK's Streamable HTTP app and of the OAuth routes) and
    the MCP server behind it; `on_started` runs on the event loop as the app starts."""
    server = build_server(ServeOptions(client="http"), HttpRecallServer)
    assert isinstance(server, HttpRecallServer)
    hosts = allowed_hosts(listen, extra_hosts or [], public)
    # The SDK checks Host and Origin too, on the same names: a second lock on the same door.
    bracketed = [f"[{h}]" if ":" in h else h for h in sorted(hosts)]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[form for h in bracketed for form in (h, f"{h}:*")],
        allowed_origins=[form for h in bracketed for s in ("http", "https") for form in (f"{s}://{h}", f"{s}://{h}:*")],
    )
    inner = server.streamable_http_app(
        streamable_http_path=PATH,
        max_request_body_size=MAX_BODY_BYTES,
        session_idle_timeout=SESSION_IDLE_SECONDS,
        # The shares (server/http/shares.py) keep the sessions within MAX_SESSIONS, each client within
        # its own; the SDK's limit stays as a backstop, never reached before them.
        max_sessions=2 * MAX_SESSIONS,
        transport_security=security,
        host=listen.host,
        # Plain JSON answers, not an SSE stream per call: the tools send nothing before their
        # result, and a stream per POST costs a task and a round of framing (half the latency).
        json_response=True,
    )

    def on_startup() -> None:
        anyio.to_thread.current_default_thread_limiter().total_tokens = WORKER_THREADS
        if on_started is not None:
            on_started()

    kept = ShareKeeper(inner, path=PATH)
    oauth_routes = None
    if oauth:
        from vault_recall.server.http.oauth.routes import OAuthEndpoint

        oauth_routes = OAuthEndpoint(public, access_seconds)
    app = EndpointGuard(
        kept, allowed_hosts=hosts, path=PATH, client_of=token_client, on_startup=on_startup, oauth=oauth_routes
    )
    return app, server


def bind(listen: Listen) -> socket.socket:
    """The listening socket (raises OSError with the system's reason: port in use, no such address)."""
    family = socket.AF_INET6 if ":" in listen.host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and
    # without it a response's head and body wait on the peer's delayed ACK (40 ms a call).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((listen.host, listen.port))
        sock.listen(128)
    except BaseException:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def run_endpoint(
    listen_text: str,
    extra_hosts: list[str],
    request_seconds: float = REQUEST_SECONDS,
    public_url: str | None = None,
    oauth: bool = True,
    access_seconds: int = 3600,
) -> int:
    """Serve until SIGINT/SIGTERM (which end the process by the signal, server/http/stop.py); returns
    an exit code otherwise.  Prints the address once serving."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="vault-recall http: %(message)s")
    logging.getLogger("mcp.server.streamable_http").addFilter(client_left_quietly)
    logging.getLogger("vault_recall.oauth").setLevel(logging.INFO)  # who waits for approval, for the person
    try:
        listen = parse_listen(listen_text)
        public = parse_public_url(public_url) if public_url else None
    except ListenError as exc:
        sys.stderr.write(f"vault-recall http: {exc}\n")
        return 2
    try:
        sock = bind(listen)
    except OSError as exc:
        sys.stderr.write(f"vault-recall http: cannot listen on {listen_text}: {exc.strerror or exc}\n")
        return 1
    port = sock.getsockname()[1]
    warning = "" if listen.loopback else " — not loopback: put TLS or a private network in front (see docs/http.md)"
    outside = f"Reached from elsewhere at {public.url} (through your proxy or tunnel).\n" if public else ""
    how = (
        "Each client needs its token (vault-recall client token ID), or authorizes with OAuth and waits for your "
        "approval (vault-recall client approve CODE, or the tray)."
        if oauth
        else "Each client needs its token (vault-recall client token ID)."
    )

    def started() -> None:
        # On the event loop, once the app has started: from here a signal stops it our way.
        stopper.install()
        # For the person (and the tray, which reads the address from it): this stdout is no MCP wire.
        sys.stdout.write(f"Vault Recall endpoint: {listen.url(port)}{warning}\n{outside}{how} Ctrl-C stops it.\n")
        sys.stdout.flush()
        # Every call reads the config anew, so this is only how things stand now — but a person
        # who starts the endpoint before adding a vault (or while paused) should not learn it
        # from a client's `unavailable` first.
        now = current_scope(ServeOptions(client="http"))
        if now.vault is None and now.why:
            sys.stderr.write(f"vault-recall http: every client is answered 'unavailable' for now: {now.why}\n")
            sys.stderr.flush()

    app, server = build_endpoint(listen, extra_hosts, public, oauth, access_seconds, on_started=started)
    config = uvicorn.Config(
        app,
        http=type("Protocol", (EndpointProtocol,), {"request_seconds": request_seconds, "shares": ConnectionShares()}),
        lifespan="on",
        log_config=None,
        access_log=False,  # a request line holds nothing secret, but nothing is logged that need not be
        limit_concurrency=None,  # EndpointProtocol counts connections, and refuses in our format
        timeout_keep_alive=5,
        timeout_graceful_shutdown=3,
        server_header=False,
    )
    running = uvicorn.Server(config)
    gc.freeze()  # start-up's objects live as long as the process: as serve.py does
    open_worker_pool()
    # A stop of our own, quick and quiet, instead of uvicorn's graceful one (server/http/stop.py).
    stopper = Stopper(lambda: running.servers, lambda: server.running, server.activity)
    try:
        running.run(sockets=[sock])
    finally:
        server.activity.close()  # the last calls' events, before the process ends
        sock.close()
        close_worker_pool()
    return 0
