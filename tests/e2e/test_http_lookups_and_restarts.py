"""What a real `vault-recall http` answers a client that is lost: one refused with 401 looking
for OAuth from an endpoint started with --no-oauth (opencode, and every client on the MCP
TypeScript SDK, asks for the OAuth metadata next and shows the person what the last of those
requests answered), and one holding a session of an endpoint process that has since been
restarted (404, so it starts a new one)."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator

import pytest

from tests.support.http_e2e import (
    INITIALIZE,
    JSON_HEADERS,
    Endpoint,
    parse_response,
    post,
    raw_request,
    running_endpoint,
)
from vault_recall.app.state.config_store import issue_token

pytestmark = [pytest.mark.e2e]

# The requests the MCP TypeScript SDK's client makes after a 401, in its order.
LOOKUPS = (
    ("GET", "/.well-known/oauth-protected-resource/mcp"),
    ("GET", "/.well-known/oauth-protected-resource"),
    ("GET", "/.well-known/oauth-authorization-server"),
    ("GET", "/.well-known/openid-configuration"),
    ("POST", "/register"),
    ("POST", "/revoke"),
)


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Endpoint]:
    """One endpoint for the lookups: none changes what it holds (it offers no OAuth to register
    with).  Its home is its own: a test's home is set only after this starts."""
    home = tmp_path_factory.mktemp("lookups-home")
    with running_endpoint("--no-oauth", env={**os.environ, "VAULT_RECALL_HOME": str(home)}) as running:
        yield running
    assert "Traceback" not in running.log(), running.log()


def request(port: int, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    body = b'{"client_name": "opencode", "redirect_uris": ["http://127.0.0.1:19876/mcp/oauth/callback"]}'
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close", "Accept: application/json"]
    if method == "POST":
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    data = ("\r\n".join([*lines, "", ""])).encode("latin-1") + (body if method == "POST" else b"")
    return parse_response(raw_request(port, data))


@pytest.mark.parametrize(("method", "path"), LOOKUPS)
def test_a_client_looking_for_oauth_is_told_how_this_endpoint_is_reached(
    endpoint: Endpoint, method: str, path: str
) -> None:
    status, headers, body = request(endpoint.port, method, path)
    said = json.loads(body)
    assert status == 404 and headers["content-type"] == "application/json"
    # The SDK's client shows `error_description` when `error` is a string: this is what a person reads.
    assert said["error"] == "oauth_not_offered"
    assert said["error_description"].startswith("this endpoint offers no OAuth")
    assert "vault-recall doctor" in said["error_description"]
    assert "--form http" in said["error_description"]


def test_any_other_path_is_still_told_where_the_endpoint_is(endpoint: Endpoint) -> None:
    status, _, body = request(endpoint.port, "GET", "/")
    assert status == 404 and json.loads(body)["error_description"] == "nothing here: the MCP endpoint is /mcp"
    status, _, body = request(endpoint.port, "GET", "/registered")  # not an OAuth path, only alike
    assert "nothing here" in json.loads(body)["error_description"]


def test_a_session_of_a_restarted_endpoint_answers_404_and_a_new_one_starts() -> None:
    """The spec's answer for a session the server no longer has: 404, on which a client starts
    over with `initialize` — the old process's sessions are not the new one's."""
    token = issue_token("cursor")[0]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    auth = {**JSON_HEADERS, "Authorization": f"Bearer {token}"}
    with running_endpoint("--listen", f"127.0.0.1:{port}"):
        status, headers, _ = post(port, INITIALIZE, auth)
        assert status == 200
        old = headers["mcp-session-id"]
    listing = b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
    with running_endpoint("--listen", f"127.0.0.1:{port}") as restarted:
        status, _, body = post(port, listing, {**auth, "Mcp-Session-Id": old, "MCP-Protocol-Version": "2025-11-25"})
        assert status == 404, body
        assert json.loads(body)["error"] == "unknown_session"  # the SDK's refusal, in our format
        status, headers, _ = post(port, INITIALIZE, auth)
        assert status == 200 and headers["mcp-session-id"] != old
        assert "Traceback" not in restarted.log()
