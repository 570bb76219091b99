"""OAuth 2.1 on a real `vault-recall http` process, over real HTTP on 127.0.0.1: the MCP SDK's own
OAuth client discovers, registers, authorizes with PKCE and refreshes; the person approves with
the real `vault-recall client approve` (tests/support/oauth_browser.py plays the browser); the
grant acts as one client id (its exposure, its activity); revocation and expiry are refused on
the next request with the reason in `WWW-Authenticate`.  And the hostile cases: an unapproved
registration, a code replayed, a redirect URI swapped, PKCE missing or wrong, a grant used as
another app, a resource of another server."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import socket
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import anyio.to_thread
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from mcp_types import Implementation
from pydantic import AnyUrl

from tests.support.e2e import call, use_sample_vault
from tests.support.http_e2e import Endpoint, mcp_http_client, running_endpoint
from tests.support.oauth_browser import (
    REDIRECT,
    approve,
    approved_code,
    authorization_url,
    authorize_params,
    code_form,
    open_authorization,
    pkce,
    query_of,
    redirect_after_decision,
    register,
    reload,
    vault_recall,
)
from vault_recall.server.config.config_file import activity_path
from vault_recall.server.oauth import approvals as oauth_approvals
from vault_recall.server.oauth import store as oauth_store
from vault_recall.server.oauth import tokens as oauth_tokens

pytestmark = [pytest.mark.e2e]


# ---- the SDK's OAuth client, with the person approving ----


@dataclasses.dataclass
class MemoryStorage:
    tokens: OAuthToken | None = None
    client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


@dataclasses.dataclass
class Person:
    """Approves every authorization the app asks for, as `as_client`; counts them."""

    as_client: str | None = None
    approvals: int = 0
    urls: list[str] = dataclasses.field(default_factory=list)

    async def redirect(self, url: str) -> None:
        self.urls.append(url)

    async def callback(self) -> AuthorizationCodeResult:
        waiting = await anyio.to_thread.run_sync(open_authorization, self.urls[-1])
        await anyio.to_thread.run_sync(lambda: approve(waiting, self.as_client))
        self.approvals += 1
        landed = await anyio.to_thread.run_sync(redirect_after_decision, waiting)
        query = query_of(landed)
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))


@asynccontextmanager
async def oauth_session(
    url: str, person: Person, storage: MemoryStorage, name: str = "SDK app"
) -> AsyncIterator[Client]:
    auth = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name=name,
            redirect_uris=[AnyUrl(REDIRECT)],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=person.redirect,
        callback_handler=person.callback,
    )
    async with mcp_http_client(auth=auth) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(
            transport, read_timeout_seconds=60, client_info=Implementation(name=name, version="1")
        ) as session:
            yield session


def activity_clients() -> list[str]:
    with sqlite3.connect(activity_path()) as db:
        return [row[0] for row in db.execute("SELECT client FROM events ORDER BY id")]


async def wait_for_activity(count: int) -> list[str]:
    with anyio.fail_after(20):
        while True:
            try:
                rows = activity_clients() if activity_path().exists() else []
            except sqlite3.OperationalError:
                rows = []
            if len(rows) >= count:
                return rows
            await anyio.sleep(0.05)


def mcp_post(endpoint: Endpoint, token: str, host: str | None = None) -> httpx2.Response:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    if host is not None:
        headers["Host"] = host
    return httpx2.post(endpoint.url, json=body, headers=headers, timeout=30)


@pytest.mark.anyio
async def test_an_app_authorizes_after_the_person_approves_it_and_recalls_as_that_client(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    person, storage = Person(as_client="work-laptop"), MemoryStorage()
    with running_endpoint() as endpoint:
        async with oauth_session(endpoint.url, person, storage) as session:
            subjects = await call(session, "list_subjects")
            recalled = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
        assert person.approvals == 1
        assert recalled["records"][0]["path"] == "Projects/Build/Build decision.md"
        assert {s["subject"] for s in subjects["subjects"]} >= {"build-system"}
        assert await wait_for_activity(2) == ["work-laptop", "work-laptop"]
        assert storage.tokens is not None and storage.tokens.access_token.startswith("vra_")
        assert storage.tokens.access_token not in endpoint.log()
        log = endpoint.log()  # the person running the endpoint in a terminal sees who waits, and what became of it
        assert "'SDK app' asks to recall your notes (code " in log and "vault-recall client approve " in log
        assert "'SDK app' was approved" in log
        listed = vault_recall("client", "grants")
        assert "work-laptop" in listed.stdout and "SDK app" in listed.stdout
        assert "work-laptop" in vault_recall("client", "list").stdout  # approved clients are registered


@pytest.mark.anyio
async def test_a_grant_sees_what_its_client_may_see_whatever_the_app_calls_itself(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    assert vault_recall("client", "expose", "phone", "release-process").returncode == 0
    person, storage = Person(as_client="phone"), MemoryStorage()
    with running_endpoint() as endpoint:
        async with oauth_session(endpoint.url, person, storage, name="cursor") as session:
            subjects = await call(session, "list_subjects")
            refused = await session.call_tool("recall_context", {"subject": "build-system"})
    assert [s["subject"] for s in subjects["subjects"]] == ["release-process"]
    assert refused.is_error
    assert await wait_for_activity(2) == ["phone", "phone"]


@pytest.mark.anyio
async def test_a_revoked_grant_is_refused_on_its_next_request_with_the_reason(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    person, storage = Person(), MemoryStorage()
    with running_endpoint() as endpoint:
        async with oauth_session(endpoint.url, person, storage) as session:
            await call(session, "list_subjects")
        assert storage.tokens is not None and storage.tokens.refresh_token is not None
        token = storage.tokens.access_token
        assert mcp_post(endpoint, token).status_code == 200
        revoked = vault_recall("client", "revoke", "sdk-app")
        assert revoked.returncode == 0, revoked.stderr
        assert "Revoked grant" in revoked.stdout
        refused = mcp_post(endpoint, token)
        assert refused.status_code == 401
        challenge = refused.headers["www-authenticate"]
        assert 'error="invalid_token"' in challenge and "revoked" in challenge
        assert f'resource_metadata="{endpoint.url.removesuffix("/mcp")}/.well-known/oauth-protected-resource/mcp"' in (
            challenge
        )
        assert "revoked" in refused.json()["error_description"]
        refresh = token_request(
            endpoint,
            grant_type="refresh_token",
            refresh_token=storage.tokens.refresh_token,
            client_id=_client_id(storage),
        )
        assert refresh.status_code == 400 and refresh.json()["error"] == "invalid_grant"
        again = vault_recall("client", "revoke", "sdk-app")
        assert again.returncode == 1 and "no live OAuth grant" in again.stderr


def _client_id(storage: MemoryStorage) -> str:
    assert storage.client_info is not None
    return storage.client_info.client_id


@pytest.mark.anyio
async def test_an_expired_access_token_is_refused_and_the_app_refreshes_it(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    person, storage = Person(), MemoryStorage()
    with running_endpoint("--access-token-seconds", "2") as endpoint:
        async with oauth_session(endpoint.url, person, storage) as session:
            await call(session, "list_subjects")
            assert storage.tokens is not None and storage.tokens.expires_in == 2
            first = storage.tokens
            assert first.refresh_token is not None
            with anyio.fail_after(20):  # the endpoint's clock, not ours, says when it has expired
                while (
                    answer := await anyio.to_thread.run_sync(mcp_post, endpoint, first.access_token)
                ).status_code == 200:
                    await anyio.sleep(0.1)
            assert answer.status_code == 401 and "expired" in answer.headers["www-authenticate"]
            await call(session, "list_subjects")  # the SDK refreshes before sending, with no new approval
            assert storage.tokens.access_token != first.access_token
            assert storage.tokens.refresh_token != first.refresh_token
        assert person.approvals == 1
        # The rotated refresh token, presented again at once, is the client refreshing twice (as
        # Gemini CLI does): a pair too, the grant kept.  Later it revokes the grant (the store's
        # tests move its clock for that).
        again = token_request(
            endpoint, grant_type="refresh_token", refresh_token=first.refresh_token, client_id=_client_id(storage)
        )
        assert again.status_code == 200, again.text
        assert mcp_post(endpoint, storage.tokens.access_token).status_code == 200


def test_each_address_gets_metadata_naming_the_url_the_client_used(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    with running_endpoint() as endpoint:
        for host in (f"127.0.0.1:{endpoint.port}", f"localhost:{endpoint.port}"):
            base = f"http://{host}"
            prm = httpx2.get(f"{base}/.well-known/oauth-protected-resource/mcp", timeout=30).json()
            assert prm["resource"] == f"{base}/mcp" and prm["authorization_servers"] == [base]
            meta = httpx2.get(f"{base}/.well-known/oauth-authorization-server", timeout=30).json()
            assert meta["issuer"] == base
            assert meta["code_challenge_methods_supported"] == ["S256"]
            assert meta["registration_endpoint"] == f"{base}/register"
            assert set(meta["grant_types_supported"]) == {"authorization_code", "refresh_token"}
            refused = httpx2.post(f"{base}/mcp", json={}, timeout=30)
            assert refused.status_code == 401
            assert refused.headers["www-authenticate"] == (
                f'Bearer realm="vault-recall", resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
            )
        openid = httpx2.get(f"http://127.0.0.1:{endpoint.port}/.well-known/openid-configuration", timeout=30)
        assert openid.status_code == 404 and "OpenID" in openid.json()["error_description"]


def test_with_a_public_url_metadata_carries_it_and_its_host_is_accepted(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    public = "https://desktop.tail1234.ts.net"
    with running_endpoint("--public-url", public) as endpoint:
        assert endpoint.url.startswith("http://127.0.0.1:")  # still listens on loopback only
        local = f"http://127.0.0.1:{endpoint.port}"
        headers = {"Host": "desktop.tail1234.ts.net"}
        prm = httpx2.get(f"{local}/.well-known/oauth-protected-resource/mcp", headers=headers, timeout=30).json()
        assert prm == {
            "resource": f"{public}/mcp",
            "authorization_servers": [public],
            "bearer_methods_supported": ["header"],
            "resource_name": "Vault Recall",
        }
        meta = httpx2.get(f"{local}/.well-known/oauth-authorization-server", headers=headers, timeout=30).json()
        assert meta["issuer"] == public and meta["token_endpoint"] == f"{public}/token"
        refused = httpx2.post(f"{local}/mcp", json={}, headers=headers, timeout=30)
        assert refused.status_code == 401  # the host is accepted; the request lacks only a token
        assert (
            f'resource_metadata="{public}/.well-known/oauth-protected-resource/mcp"'
            in refused.headers["www-authenticate"]
        )
        client_id = register(local, "Phone app", "https://claude.ai/api/mcp/auth_callback", headers=headers)
        _, challenge = pkce()
        at = httpx2.get(
            f"{local}/authorize",
            params=authorize_params(client_id, challenge, "https://claude.ai/api/mcp/auth_callback", f"{public}/mcp"),
            headers=headers,
            timeout=30,
        )
        assert at.status_code == 302 and at.headers["location"].startswith(f"{public}/authorize/wait?request=")
        other = httpx2.post(f"{local}/mcp", json={}, headers={"Host": "evil.example"}, timeout=30)
        assert other.status_code == 403
        plain = httpx2.get(f"{local}/.well-known/oauth-protected-resource/mcp", timeout=30).json()
        assert plain["resource"] == f"{local}/mcp"  # on this computer, the loopback address still


def test_a_public_url_must_be_https_and_end_at_the_host_or_the_endpoint(tmp_path: Path) -> None:
    for url, says in (
        ("http://desktop.example.net", "https://"),
        ("https://desktop.example.net/vault/mcp", "must end at the host"),
        ("https://user:pw@desktop.example.net", "no user"),
    ):
        done = vault_recall("http", "--listen", "127.0.0.1:0", "--public-url", url)
        assert done.returncode == 2 and says in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1


def test_without_oauth_nothing_of_it_is_offered(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    with running_endpoint("--no-oauth") as endpoint:
        base = f"http://127.0.0.1:{endpoint.port}"
        for answer in (
            httpx2.get(f"{base}/.well-known/oauth-protected-resource/mcp", timeout=30),
            httpx2.get(f"{base}/.well-known/oauth-authorization-server", timeout=30),
            httpx2.post(f"{base}/register", json={}, timeout=30),
        ):
            assert answer.status_code == 404
            assert "offers no OAuth" in answer.json()["error_description"]  # not "nothing here"
        refused = httpx2.post(f"{base}/mcp", json={}, timeout=30)
        assert refused.headers["www-authenticate"] == 'Bearer realm="vault-recall"'


def test_oauth_is_not_offered_over_plain_http_to_another_name(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    with running_endpoint("--allow-host", "desktop.lan") as endpoint:
        base = f"http://127.0.0.1:{endpoint.port}"
        answer = httpx2.get(
            f"{base}/.well-known/oauth-protected-resource/mcp", headers={"Host": "desktop.lan"}, timeout=30
        )
        assert answer.status_code == 404 and "https" in answer.json()["error_description"]
        refused = httpx2.post(f"{base}/mcp", json={}, headers={"Host": "desktop.lan"}, timeout=30)
        assert refused.headers["www-authenticate"] == 'Bearer realm="vault-recall"'


# ---- hostile: by hand, one request at a time ----


def token_request(endpoint: Endpoint, **form: str) -> httpx2.Response:
    return httpx2.post(f"http://127.0.0.1:{endpoint.port}/token", data=form, timeout=30)


def exchange(
    endpoint: Endpoint, code: str, client_id: str, verifier: str | None, redirect_uri: str = REDIRECT
) -> httpx2.Response:
    """The token request for an authorization code (without code_verifier when it is None)."""
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "client_id": client_id}
    if verifier is not None:
        form["code_verifier"] = verifier
    return token_request(endpoint, **form)


@contextmanager
def oauth_endpoint(tmp_path: Path) -> Iterator[tuple[Endpoint, str]]:
    use_sample_vault(tmp_path)
    with running_endpoint() as endpoint:
        yield endpoint, f"http://127.0.0.1:{endpoint.port}"


def approved_for_mcp(base: str, client_id: str, challenge: str, as_client: str | None = None) -> dict[str, str]:
    return approved_code(base, client_id, challenge, as_client, resource=f"{base}/mcp")


def pkce_of(verifier: str) -> str:
    """The S256 challenge of any verifier, well-formed or not."""
    digest = hashlib.sha256(verifier.encode("utf-8")).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def test_an_unapproved_registration_gets_nothing(tmp_path: Path) -> None:
    with oauth_endpoint(tmp_path) as (endpoint, base):
        client_id = register(base, "Eager app")
        verifier, challenge = pkce()
        waiting = open_authorization(authorization_url(base, authorize_params(client_id, challenge)))
        assert "Eager app" in waiting.text and waiting.approval_code in waiting.text
        for _ in range(3):  # reloading the page is no approval
            page = reload(waiting)
            assert page.status_code == 200 and "approve" in page.text
        guessed = exchange(endpoint, "vrc_" + "A" * 43, client_id, verifier)
        assert guessed.status_code == 400 and guessed.json()["error"] == "invalid_grant"
        assert oauth_tokens.grants() == []
        listed = vault_recall("client", "grants").stdout
        assert waiting.approval_code in listed and "Eager app" in listed
        denied = vault_recall("client", "deny", waiting.approval_code)
        assert denied.returncode == 0
        location = redirect_after_decision(waiting)
        # A space is %20, never '+': an app that decodes only percent-escapes (Codex) showed
        # `the+request+was+denied`.
        assert "error_description=the%20request%20was%20denied&" in location and "+" not in location, location
        sent_back = query_of(location)
        assert sent_back["error"] == "access_denied" and sent_back["state"] == "st-1"
        assert sent_back["iss"] == base
        assert vault_recall("client", "approve", waiting.approval_code).returncode == 1


def test_a_replayed_code_is_refused_and_revokes_what_it_gave(tmp_path: Path) -> None:
    with oauth_endpoint(tmp_path) as (endpoint, base):
        client_id = register(base, "Replayed app")
        verifier, challenge = pkce()
        landed = approved_for_mcp(base, client_id, challenge)
        assert landed["state"] == "st-1" and landed["iss"] == base
        form = dict(
            grant_type="authorization_code",
            code=landed["code"],
            redirect_uri=REDIRECT,
            client_id=client_id,
            code_verifier=verifier,
        )
        first = token_request(endpoint, **form)
        assert first.status_code == 200, first.text
        tokens = first.json()
        assert tokens["token_type"] == "Bearer" and tokens["expires_in"] == 3600 and "refresh_token" in tokens
        assert first.headers["cache-control"] == "no-store"
        assert mcp_post(endpoint, tokens["access_token"]).status_code == 200
        again = token_request(endpoint, **form)
        assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
        assert mcp_post(endpoint, tokens["access_token"]).status_code == 401


def test_a_swapped_redirect_uri_gets_no_code(tmp_path: Path) -> None:
    with oauth_endpoint(tmp_path) as (endpoint, base):
        client_id = register(base, "Honest app")
        verifier, challenge = pkce()
        elsewhere = httpx2.get(
            f"{base}/authorize",
            params=authorize_params(client_id, challenge, "http://127.0.0.1:9/attacker"),
            timeout=30,
        )
        assert elsewhere.status_code == 400 and "location" not in elsewhere.headers  # never sent anywhere
        assert "not registered" in elsewhere.json()["error_description"]
        landed = approved_for_mcp(base, client_id, challenge)
        swapped = exchange(endpoint, landed["code"], client_id, verifier, redirect_uri="http://127.0.0.1:9/attacker")
        # RFC 6749 §5.2: a redirection URI other than the authorization's is `invalid_grant`.
        assert swapped.status_code == 400 and swapped.json()["error"] == "invalid_grant", swapped.text
        assert swapped.json()["error_description"] == "redirect_uri is not the one the authorization was asked with"
        assert exchange(endpoint, landed["code"], client_id, verifier).status_code == 200  # not used up
        for uri in ("http://evil.example/callback", "javascript:alert(1)", "file:///etc/passwd"):
            refused = httpx2.post(f"{base}/register", json={"client_name": "x", "redirect_uris": [uri]}, timeout=30)
            assert refused.status_code == 400, uri
            assert refused.json()["error"] in ("invalid_redirect_uri", "invalid_client_metadata"), uri


def test_a_loopback_redirect_uri_may_come_with_any_port(tmp_path: Path) -> None:
    # RFC 8252 §7.3: a native app registers its loopback URI once and listens, each time it asks,
    # on whichever port is free then.
    with oauth_endpoint(tmp_path) as (endpoint, base):
        client_id = register(base, "Native app")  # http://127.0.0.1:9/callback
        verifier, challenge = pkce()
        today = "http://127.0.0.1:45678/callback"
        waiting = open_authorization(authorization_url(base, authorize_params(client_id, challenge, today)))
        approve(waiting)
        landed = redirect_after_decision(waiting)
        assert landed.startswith(today + "?"), landed
        tokens = exchange(endpoint, query_of(landed)["code"], client_id, verifier, redirect_uri=today)
        assert tokens.status_code == 200 and tokens.json()["access_token"], tokens.text
        # Only the port may differ: another path, host or scheme is still not the app's.
        for other in (
            "http://127.0.0.1:45678/elsewhere",
            "http://127.0.0.2:9/callback",
            "https://127.0.0.1:9/callback",
        ):
            refused = httpx2.get(f"{base}/authorize", params=authorize_params(client_id, challenge, other), timeout=30)
            assert refused.status_code == 400 and "location" not in refused.headers, other
            assert "not registered" in refused.json()["error_description"], other


def test_a_registration_refused_says_why_in_one_sentence(tmp_path: Path) -> None:
    with oauth_endpoint(tmp_path) as (_, base):
        cases = {
            '{"redirect_uris": ["notaurl"]}': "redirect_uris[0] must be an absolute URL (such as "
            "http://127.0.0.1:PORT/callback); got 'notaurl'",
            '{"redirect_uris": "x", "client_name": 5}': "client_name must be text (and 1 more problem)",
            "{}": "redirect_uris is required",
            "[1]": "the registration must be one JSON object of client metadata (RFC 7591)",
            "nonsense": "the registration must be one JSON object of client metadata (RFC 7591)",
        }
        for body, sentence in cases.items():
            refused = httpx2.post(
                f"{base}/register", content=body, headers={"Content-Type": "application/json"}, timeout=30
            )
            assert refused.status_code == 400, body
            assert refused.json() == {"error": "invalid_client_metadata", "error_description": sentence}, body
        # Metadata it takes still registers, through the SDK's own handler.
        assert register(base, "Fine app")


def test_pkce_missing_or_wrong_gets_no_token(tmp_path: Path) -> None:
    with oauth_endpoint(tmp_path) as (endpoint, base):
        client_id = register(base, "Careless app")
        missing = httpx2.get(f"{base}/authorize", params=authorize_params(client_id, None), timeout=30)
        assert missing.status_code == 302
        assert query_of(missing.headers["location"])["error"] == "invalid_request"
        plain = authorize_params(client_id, "x" * 43) | {"code_challenge_method": "plain"}
        assert query_of(httpx2.get(f"{base}/authorize", params=plain, timeout=30).headers["location"])["error"] == (
            "invalid_request"
        )
        # RFC 7636 §4.2: an S256 challenge is 43 characters of base64url.
        for challenge in ("abc", "x" * 44, "a+b/" * 11):
            odd = httpx2.get(f"{base}/authorize", params=authorize_params(client_id, challenge), timeout=30)
            assert odd.status_code == 302, challenge
            sent_back = query_of(odd.headers["location"])
            assert sent_back["error"] == "invalid_request" and "RFC 7636" in sent_back["error_description"], challenge
        assert oauth_approvals.pending_requests() == []  # nothing reached the person
        # RFC 7636 §4.1: a verifier is 43-128 unreserved characters, whatever challenge it made.
        for short in ("abc", "a" * 42, "a" * 129, "a b" * 20, "é" * 50):
            landed = approved_for_mcp(base, client_id, pkce_of(short))
            refused = exchange(endpoint, landed["code"], client_id, short)
            assert refused.status_code == 400 and refused.json()["error"] == "invalid_request", (short, refused.text)
            assert "code_verifier must be 43 to 128 characters" in refused.json()["error_description"], short
        for edge in ("a" * 43, "A-._~" * 25 + "abc"):  # 43 and 128: taken
            landed = approved_for_mcp(base, client_id, pkce_of(edge))
            assert exchange(endpoint, landed["code"], client_id, edge).status_code == 200, edge
        verifier, challenge = pkce()
        landed = approved_for_mcp(base, client_id, challenge)
        wrong = exchange(endpoint, landed["code"], client_id, pkce()[0])
        assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
        absent = exchange(endpoint, landed["code"], client_id, None)
        assert absent.status_code == 400 and absent.json()["error"] == "invalid_request"
        right = exchange(endpoint, landed["code"], client_id, verifier)
        assert right.status_code == 200  # the wrong tries did not use the code up


def test_a_grant_of_one_app_cannot_be_used_by_another(tmp_path: Path) -> None:
    with oauth_endpoint(tmp_path) as (endpoint, base):
        owner, thief = register(base, "Owner app"), register(base, "Thief app")
        verifier, challenge = pkce()
        landed = approved_for_mcp(base, owner, challenge, as_client="owner")
        stolen = exchange(endpoint, landed["code"], thief, verifier)
        assert stolen.status_code == 400 and stolen.json()["error"] == "invalid_grant"
        tokens = exchange(endpoint, landed["code"], owner, verifier).json()
        refresh = token_request(
            endpoint, grant_type="refresh_token", refresh_token=tokens["refresh_token"], client_id=thief
        )
        assert refresh.status_code == 400 and refresh.json()["error"] == "invalid_grant"
        revoke = httpx2.post(f"{base}/revoke", data={"token": tokens["access_token"], "client_id": thief}, timeout=30)
        assert revoke.status_code == 200  # RFC 7009 answers 200 whatever; the thief revoked nothing
        assert mcp_post(endpoint, tokens["access_token"]).status_code == 200
        own = httpx2.post(f"{base}/revoke", data={"token": tokens["refresh_token"], "client_id": owner}, timeout=30)
        assert own.status_code == 200
        assert mcp_post(endpoint, tokens["access_token"]).status_code == 401  # the whole grant went


def test_a_resource_of_another_server_is_refused_at_authorization(tmp_path: Path) -> None:
    with oauth_endpoint(tmp_path) as (_, base):
        client_id = register(base, "Confused app")
        _, challenge = pkce()
        answer = httpx2.get(
            f"{base}/authorize",
            params=authorize_params(client_id, challenge, resource="https://mail.example.com/mcp"),
            timeout=30,
        )
        assert answer.status_code == 302
        assert query_of(answer.headers["location"])["error"] == "invalid_target"
        assert oauth_approvals.pending_requests() == []


def test_a_page_shows_the_app_name_as_text_never_as_markup(tmp_path: Path) -> None:
    with oauth_endpoint(tmp_path) as (_, base):
        client_id = register(base, '<script>alert("x")</script>Evil')
        _, challenge = pkce()
        waiting = open_authorization(authorization_url(base, authorize_params(client_id, challenge)))
        assert "<script>" not in waiting.text and "&lt;script&gt;" in waiting.text
        page = reload(waiting)
        assert "default-src 'none'" in page.headers["content-security-policy"]


@pytest.mark.parametrize("method", ["client_secret_post", "client_secret_basic"])
def test_a_confidential_app_must_present_its_secret_which_is_kept_as_a_hash(tmp_path: Path, method: str) -> None:
    with oauth_endpoint(tmp_path) as (endpoint, base):
        registered = httpx2.post(
            f"{base}/register",
            json={
                "client_name": "Web connector",
                "redirect_uris": [REDIRECT],
                "token_endpoint_auth_method": method,
                "scope": "claudeai",
            },
            timeout=30,
        ).json()
        client_id, secret = registered["client_id"], registered["client_secret"]
        verifier, challenge = pkce()
        params = authorize_params(client_id, challenge, resource=f"{base}/mcp") | {"scope": "claudeai extra"}
        waiting = open_authorization(authorization_url(base, params))  # a scope it did not register: no matter
        approve(waiting, "web")
        landed = query_of(redirect_after_decision(waiting))
        form = code_form(client_id, landed["code"], verifier)

        def exchange(presented: str | None) -> httpx2.Response:
            if method == "client_secret_post":
                data = form | ({"client_secret": presented} if presented else {})
                return httpx2.post(f"{base}/token", data=data, timeout=30)
            auth = httpx2.BasicAuth(client_id, presented) if presented else None
            return httpx2.post(f"{base}/token", data=form, auth=auth, timeout=30)

        for wrong in (None, secret + "x", "A" * 500):
            refused = exchange(wrong)
            assert refused.status_code == 401 and refused.json()["error"] == "invalid_client", wrong
        granted = exchange(secret)
        assert granted.status_code == 200, granted.text
        assert mcp_post(endpoint, granted.json()["access_token"]).status_code == 200
        assert secret.encode() not in oauth_store.store_path().read_bytes()


def test_a_session_opened_with_one_clients_grant_is_not_continued_with_another_clients_token(tmp_path: Path) -> None:
    from vault_recall.app.state.config_store import issue_token

    with oauth_endpoint(tmp_path) as (endpoint, base):
        client_id = register(base, "Phone app")
        verifier, challenge = pkce()
        landed = approved_for_mcp(base, client_id, challenge, as_client="phone")
        tokens = exchange(endpoint, landed["code"], client_id, verifier).json()
        opened = mcp_post(endpoint, tokens["access_token"])
        assert opened.status_code == 200
        session_id = opened.headers["mcp-session-id"]
        other = issue_token("laptop")[0]
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        headers = {
            "Accept": "application/json, text/event-stream",
            "Mcp-Session-Id": session_id,
            "Mcp-Protocol-Version": "2025-11-25",
        }
        stolen = httpx2.post(
            endpoint.url, json=listing, headers=headers | {"Authorization": f"Bearer {other}"}, timeout=30
        )
        assert stolen.status_code in (403, 404), stolen.text
        own = httpx2.post(
            endpoint.url,
            json=listing,
            headers=headers | {"Authorization": f"Bearer {tokens['access_token']}"},
            timeout=30,
        )
        assert own.status_code == 200 and "recall_context" in own.text


def test_a_token_is_taken_only_by_the_endpoint_and_address_it_was_issued_for(tmp_path: Path) -> None:
    """RFC 8707 and the MCP spec's audience check: a second endpoint of this computer shares
    the OAuth store (another port), and took the first one's tokens before."""
    with oauth_endpoint(tmp_path) as (endpoint, base), running_endpoint() as other:
        client_id = register(base, "Audience app")
        verifier, challenge = pkce()
        landed = approved_for_mcp(base, client_id, challenge, as_client="laptop")
        tokens = exchange(endpoint, landed["code"], client_id, verifier).json()
        assert mcp_post(endpoint, tokens["access_token"]).status_code == 200
        elsewhere = f"http://127.0.0.1:{other.port}/mcp"
        refused = mcp_post(other, tokens["access_token"])
        assert refused.status_code == 401, refused.text
        assert refused.json()["error_description"] == (
            f"this access token was issued for {base}/mcp, not for {elsewhere}: authorize at this address to use it"
        )
        assert 'error="invalid_token"' in refused.headers["www-authenticate"]
        # The same endpoint by another of its names is another resource, too.
        by_name = mcp_post(endpoint, tokens["access_token"], host=f"localhost:{endpoint.port}")
        assert by_name.status_code == 401 and "not for http://localhost:" in by_name.json()["error_description"]
        # Nor is its refresh token redeemed there: the app is sent to authorize at that address.
        form = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": client_id}
        assert token_request(other, **form).status_code in (400, 401)
        assert token_request(endpoint, **form).status_code == 200  # still good where it was issued


def test_two_apps_whose_names_have_no_ascii_letters_are_never_approved_as_one_client(tmp_path: Path) -> None:
    # Each app's exposure, activity and changed-since memory is its client's: two unrelated
    # apps approved as one would share them, whatever script their names are written in.
    names = ("مساعد الملاحظات", "界界界", "界界")
    with oauth_endpoint(tmp_path) as (endpoint, base):
        waiting = []
        for name in names:
            _, challenge = pkce()
            params = authorize_params(register(base, name), challenge)
            waiting.append(open_authorization(authorization_url(base, params)))
        listed = vault_recall("client", "grants").stdout
        offered = [
            line.split("would be client ")[1].strip("'") for line in listed.splitlines() if "would be client" in line
        ]
        assert len(offered) == 3 and len(set(offered)) == 3 and "oauth-app" not in offered, listed
        for page in waiting:
            approved = approve(page)  # no --as: the id it was offered
            assert "shares that client" not in approved, approved
        clients = {grant.app_name: grant.client for grant in oauth_tokens.grants()}
        assert set(clients) == set(names) and sorted(clients.values()) == sorted(offered), clients
        # An app connecting again, under its own name, is its own client again.
        _, challenge = pkce()
        again = open_authorization(authorization_url(base, authorize_params(register(base, names[1]), challenge)))
        assert f"as client {clients[names[1]]!r}" in approve(again)
        # The person may join another app's client on purpose, and is told whose it is.
        _, challenge = pkce()
        joining = open_authorization(authorization_url(base, authorize_params(register(base, "Другое"), challenge)))
        told = approve(joining, clients[names[0]])
        assert f"It shares that client with {names[0]!r}, as you chose" in told, told
        assert endpoint.log().count("Traceback") == 0


HALF_SENT = {
    "/token": "application/x-www-form-urlencoded",
    "/register": "application/json",
    "/revoke": "application/x-www-form-urlencoded",
    "/authorize": "application/x-www-form-urlencoded",
}


def half_a_body(port: int, path: str, *, wait_for_answer: bool) -> bytes:
    """A POST promising 100 bytes that sends 11, then hangs up — or, waiting, is cut off at the
    request deadline; what the endpoint answered."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {HALF_SENT[path]}\r\n"
        "Content-Length: 100\r\n\r\ngrant_type="
    )
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head.encode("ascii"))
        return sock.recv(65536) if wait_for_answer else b""


def test_a_client_that_leaves_mid_body_is_one_line_in_the_log_never_a_traceback(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    with running_endpoint("--request-timeout", "0.5") as endpoint:
        for path in HALF_SENT:
            half_a_body(endpoint.port, path, wait_for_answer=False)  # hangs up mid-body
        for path in ("/token", "/register"):
            cut_off = half_a_body(endpoint.port, path, wait_for_answer=True)
            assert cut_off.startswith(b"HTTP/1.1 408"), cut_off
        # Each request ends in the log as one line, or (before this was fixed) as a traceback.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            log = endpoint.log()
            if log.count("hung up before its request") + log.count("ClientDisconnect") >= 6:
                break
            time.sleep(0.05)
        log = endpoint.log()
        assert "Traceback" not in log and "Exception in ASGI application" not in log, log
        for path in HALF_SENT:
            assert f"a client hung up before its request to {path} arrived whole" in log, log
        assert register(f"http://127.0.0.1:{endpoint.port}", "Next app")  # and it goes on answering
