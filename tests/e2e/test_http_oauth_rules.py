"""Every rule the OAuth side of a real `vault-recall http` advertises, kept at its edges, over
real HTTP on 127.0.0.1 and real `vault-recall client` processes: forms too big to be OAuth
are refused in one sentence; an app waiting for approval survives a flood of registrations;
waiting requests count toward the limit only while they can be answered; every redirect from
/authorize names the issuer (RFC 9207), errors too; /token refuses tokens for another server
(RFC 8707); the state folder is the person's alone whoever makes it; listing makes nothing."""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx2
import pytest

from tests.support.e2e import use_sample_vault
from tests.support.http_e2e import Endpoint, running_endpoint
from tests.support.oauth_browser import (
    DESCRIBABLE,
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
    vault_recall,
)
from tests.support.posix import assert_mode
from vault_recall.server.oauth import approvals as oauth_approvals
from vault_recall.server.oauth import store as oauth_store

pytestmark = [pytest.mark.e2e]

FOREIGN = "https://mail.example.com/mcp"


def _base(endpoint: Endpoint) -> str:
    return f"http://127.0.0.1:{endpoint.port}"


def _exchange(base: str, client_id: str, code: str, verifier: str, **extra: str) -> httpx2.Response:
    return httpx2.post(f"{base}/token", data=code_form(client_id, code, verifier, **extra), timeout=30)


def _fill_waiting_requests(app: oauth_approvals.App, base: str, now: float | None = None) -> None:
    """As many requests waiting for the person's answer as the endpoint keeps, opened at `now`."""
    for _ in range(oauth_store.MAX_PENDING):
        oauth_approvals.open_request(
            app,
            redirect_uri=REDIRECT,
            redirect_explicit=True,
            code_challenge="c" * 43,
            state=None,
            scopes=(),
            resource=f"{base}/mcp",
            issuer=base,
            now=now,
        )


def _refused_in_one_sentence(answer: httpx2.Response) -> str:
    assert answer.status_code == 400, (answer.status_code, answer.text)
    body = answer.json()
    assert body["error"] == "invalid_request", body
    description: str = body["error_description"]
    assert description.count(". ") == 0 and "\n" not in description, description
    return description


def test_a_form_of_too_many_fields_is_refused_in_one_sentence_and_logs_nothing(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    with running_endpoint() as endpoint:
        base = _base(endpoint)
        client_id = register(base, "Flooding app")
        many = "&".join(f"f{i}=x" for i in range(1500))
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        for path in ("/token", "/revoke", "/authorize"):
            body = f"client_id={client_id}&grant_type=authorization_code&{many}"
            said = _refused_in_one_sentence(httpx2.post(f"{base}{path}", content=body, headers=headers, timeout=30))
            assert "fields" in said, said
        files = {f"file{i}": (f"f{i}.txt", b"x") for i in range(3)}
        said = _refused_in_one_sentence(
            httpx2.post(f"{base}/token", data={"client_id": client_id}, files=files, timeout=30)
        )
        assert "file" in said, said
        # The endpoint still answers, and wrote no traceback.
        assert httpx2.get(f"{base}/.well-known/oauth-authorization-server", timeout=30).status_code == 200
    assert "Traceback" not in endpoint.log() and "MultiPartException" not in endpoint.log(), endpoint.log()


def test_an_app_waiting_for_approval_survives_a_flood_of_registrations(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    with running_endpoint() as endpoint:
        base = _base(endpoint)
        client_id = register(base, "Patient app")
        verifier, challenge = pkce()
        waiting = open_authorization(authorization_url(base, authorize_params(client_id, challenge)))
        with httpx2.Client(timeout=30) as http:
            for i in range(oauth_store.MAX_REGISTRATIONS + 20):
                app = {"client_name": f"flood {i}", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}
                answer = http.post(f"{base}/register", json=app)
                assert answer.status_code == 201, answer.text
        approve(waiting)
        code = query_of(redirect_after_decision(waiting))["code"]
        tokens = _exchange(base, client_id, code, verifier)
        assert tokens.status_code == 200, tokens.text
        listed = vault_recall("client", "grants").stdout
        assert "Patient app" in listed


def test_an_app_evicted_while_waiting_is_not_approved_into_a_grant_nobody_can_use(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    with running_endpoint() as endpoint:
        base = _base(endpoint)
        client_id = register(base, "Evicted app")
        _, challenge = pkce()
        waiting = open_authorization(authorization_url(base, authorize_params(client_id, challenge)))
        with oauth_store.connect() as db:  # as a flood could once do it: the app gone, its request left
            db.execute("DELETE FROM apps WHERE client_id = ?", (client_id,))
        refused = vault_recall("client", "approve", waiting.approval_code)
        assert refused.returncode == 1 and "no longer registered" in refused.stderr, refused.stderr
        assert refused.stderr.count("\n") == 1
        assert "Evicted app" not in vault_recall("client", "grants").stdout


def test_expired_waiting_requests_do_not_count_toward_the_limit(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    with running_endpoint() as endpoint:
        base = _base(endpoint)
        client_id = register(base, "Late app")
        app = oauth_approvals.get_app(client_id)
        assert app is not None
        long_ago = time.time() - oauth_store.REQUEST_SECONDS - 60  # past the documented 15 minutes
        _fill_waiting_requests(app, base, now=long_ago)
        _, challenge = pkce()
        waiting = open_authorization(authorization_url(base, authorize_params(client_id, challenge)))
        assert waiting.approval_code in vault_recall("client", "grants").stdout


def test_every_redirect_from_authorize_names_the_issuer_errors_too(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    with running_endpoint() as endpoint:
        base = _base(endpoint)
        client_id = register(base, "Strict app")
        _, challenge = pkce()
        cases = {
            "invalid_target": authorize_params(client_id, challenge, resource=FOREIGN),
            "unsupported_response_type": authorize_params(client_id, challenge) | {"response_type": "token"},
            "invalid_request": authorize_params(client_id, None),
        }
        for error, params in cases.items():
            answer = httpx2.get(f"{base}/authorize", params=params, timeout=30)
            assert answer.status_code == 302, (error, answer.text)
            sent = query_of(answer.headers["location"])
            assert sent["error"] == error and sent["iss"] == base and sent["state"] == "st-1", (error, sent)
        told = query_of(httpx2.get(f"{base}/authorize", params=cases["invalid_target"], timeout=30).headers["location"])
        assert told["error_description"] == f"this server is {base}/mcp, not '{FOREIGN}'", told
        app = oauth_approvals.get_app(client_id)
        assert app is not None
        _fill_waiting_requests(app, base)  # the person has not answered any of these
        busy = httpx2.get(f"{base}/authorize", params=authorize_params(client_id, challenge), timeout=30)
        sent = query_of(busy.headers["location"])
        assert sent["error"] == "temporarily_unavailable" and sent["iss"] == base, sent


def test_a_token_for_another_server_is_refused_at_the_token_endpoint(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    with running_endpoint() as endpoint:
        base = _base(endpoint)
        client_id = register(base, "Confused app")
        verifier, challenge = pkce()
        code = approved_code(base, client_id, challenge)["code"]
        foreign = _exchange(base, client_id, code, verifier, resource=FOREIGN)
        assert foreign.status_code == 400 and foreign.json()["error"] == "invalid_target", foreign.text
        assert foreign.json()["error_description"] == f"this server is {base}/mcp, not '{FOREIGN}'"
        odd = _exchange(base, client_id, code, verifier, resource='https://bücher.example/"' + "x" * 400)
        told = odd.json()["error_description"]  # RFC 6749: printable ASCII but '"' and '\\'
        assert odd.status_code == 400 and told.isascii() and '"' not in told and told.endswith("..."), told
        own = _exchange(base, client_id, code, verifier, resource=f"{base}/mcp")  # the refusal used nothing up
        assert own.status_code == 200, own.text
        refresh = own.json()["refresh_token"]
        form = {"grant_type": "refresh_token", "refresh_token": refresh, "client_id": client_id}
        again = httpx2.post(f"{base}/token", data=form | {"resource": FOREIGN}, timeout=30)
        assert again.status_code == 400 and again.json()["error"] == "invalid_target", again.text
        fine = httpx2.post(f"{base}/token", data=form | {"resource": f"{base}/mcp/"}, timeout=30)
        assert fine.status_code == 200, fine.text


def test_listing_grants_makes_nothing_and_the_state_folder_oauth_makes_is_private(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    state = tmp_path / "state"  # the platform's state folder, not made yet
    env = {key: value for key, value in os.environ.items() if key != "VAULT_RECALL_HOME"}
    env |= {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(state)}
    listed = vault_recall("client", "grants", env=env)
    assert listed.returncode == 0 and "No app has authorized" in listed.stdout, listed.stderr
    assert not state.exists()
    old = os.umask(0o022)  # the endpoint as a desktop session starts it
    try:
        with running_endpoint(env=env) as endpoint:
            register(_base(endpoint), "First app")
    finally:
        os.umask(old)
    folder = state / "vault-recall"
    assert_mode(folder, 0o700)
    assert_mode(folder / oauth_store.STORE_FILE, 0o600)


def test_the_sdks_own_error_descriptions_keep_to_oauths_characters_too(tmp_path: Path) -> None:
    # The SDK's handlers quote what the app sent and join pydantic's messages with line breaks.
    use_sample_vault(tmp_path)
    with running_endpoint() as endpoint:
        base = _base(endpoint)
        client_id = register(base, "Sloppy app")
        _, challenge = pkce()
        unknown = authorize_params('nö"body', challenge)
        told = [httpx2.get(f"{base}/authorize", params=unknown, timeout=30).json()["error_description"]]
        plain = authorize_params(client_id, challenge) | {"code_challenge_method": "plain"}
        plain.pop("code_challenge")
        redirected = httpx2.get(f"{base}/authorize", params=plain, timeout=30)
        assert redirected.status_code == 302, redirected.text
        told.append(query_of(redirected.headers["location"])["error_description"])
        bare = httpx2.post(
            f"{base}/token", data={"grant_type": "authorization_code", "client_id": client_id}, timeout=30
        )
        assert bare.status_code in (400, 401), bare.text
        told.append(bare.json()["error_description"])
        for sentence in told:
            assert sentence and set(sentence) <= DESCRIBABLE, repr(sentence)
        assert told[0] == "Client ID 'n?'body' not found", told[0]  # the app's text, written within them
