"""The person's side of an OAuth authorization against a real `vault-recall http`: a browser
that opens the authorization URL an app printed, and `vault-recall client approve` run as the
person runs it.  The browser is plain HTTP without JavaScript (the page needs none): it follows
the endpoint's redirects to its waiting page, reads the code shown there, and after approval
loads the page again to be sent back to the app's redirect URI.  And the app's side up to that
page, by hand: registration, PKCE and the authorization URL."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import subprocess
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import httpx2

from tests.support.e2e import vault_recall_command

REDIRECT = "http://127.0.0.1:9/callback"  # nothing listens there: the browser's last hop is read, not followed
APPROVAL_CODE = re.compile(r"vault-recall client approve ([A-Z2-9]{4}-[A-Z2-9]{4})")
# What RFC 6749 allows in an error_description: %x20-21 / %x23-5B / %x5D-7E (no '"', no '\\').
DESCRIBABLE = frozenset(chr(c) for c in (0x20, 0x21, *range(0x23, 0x5C), *range(0x5D, 0x7F)))


@dataclass(frozen=True)
class Waiting:
    """The endpoint's waiting page, as a browser shows it."""

    url: str
    approval_code: str
    text: str


def open_authorization(authorization_url: str, timeout: float = 30.0) -> Waiting:
    """Load the authorization URL as a browser does: /authorize sends it to the waiting page."""
    with httpx2.Client(follow_redirects=False, timeout=timeout) as browser:
        first = browser.get(authorization_url)
        assert first.status_code == 302, (first.status_code, first.text)
        wait = first.headers["location"]
        assert "/authorize/wait?" in wait, wait
        page = browser.get(wait)
        assert page.status_code == 200, (page.status_code, page.text)
        found = APPROVAL_CODE.search(page.text)
        assert found is not None, page.text
        return Waiting(url=wait, approval_code=found.group(1), text=page.text)


def reload(waiting: Waiting, timeout: float = 30.0) -> httpx2.Response:
    with httpx2.Client(follow_redirects=False, timeout=timeout) as browser:
        return browser.get(waiting.url)


def redirect_after_decision(waiting: Waiting) -> str:
    """Where the browser is sent once the person answered (the app's redirect URI with a code
    or an error)."""
    answer = reload(waiting)
    assert answer.status_code == 302, (answer.status_code, answer.text)
    return answer.headers["location"]


def vault_recall(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*vault_recall_command(), *args], capture_output=True, text=True, timeout=60, env=env, check=False
    )


def approve(waiting: Waiting, as_client: str | None = None, env: dict[str, str] | None = None) -> str:
    """`vault-recall client approve CODE [--as ID]` as the person types it; its stdout."""
    extra = ["--as", as_client] if as_client else []
    done = vault_recall("client", "approve", waiting.approval_code, *extra, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def query_of(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def register(base: str, name: str, redirect: str = REDIRECT, headers: dict[str, str] | None = None) -> str:
    answer = httpx2.post(
        f"{base}/register",
        json={"client_name": name, "redirect_uris": [redirect], "token_endpoint_auth_method": "none"},
        headers=headers,
        timeout=30,
    )
    assert answer.status_code == 201, answer.text
    client_id: str = answer.json()["client_id"]
    return client_id


def authorize_params(
    client_id: str, challenge: str | None, redirect: str = REDIRECT, resource: str | None = None
) -> dict[str, str]:
    params = {"client_id": client_id, "response_type": "code", "redirect_uri": redirect, "state": "st-1"}
    if challenge is not None:
        params |= {"code_challenge": challenge, "code_challenge_method": "S256"}
    if resource is not None:
        params["resource"] = resource
    return params


def authorization_url(base: str, params: dict[str, str]) -> str:
    return str(httpx2.URL(f"{base}/authorize", params=params))


def approved_code(
    base: str, client_id: str, challenge: str, as_client: str | None = None, resource: str | None = None
) -> dict[str, str]:
    """The person approves the app's authorization (as `as_client`): the query its redirect URI
    is sent, with the code."""
    waiting = open_authorization(authorization_url(base, authorize_params(client_id, challenge, resource=resource)))
    approve(waiting, as_client)
    return query_of(redirect_after_decision(waiting))


def code_form(client_id: str, code: str, verifier: str, **extra: str) -> dict[str, str]:
    """The token request's form that exchanges an authorization code, with its PKCE verifier."""
    return {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT,
        "client_id": client_id,
        "code_verifier": verifier,
        **extra,
    }


def approved_app(base: str, name: str, as_client: str | None = None) -> tuple[str, dict[str, str]]:
    """An app registered, approved and given its code: (its client id, the code exchange's form)."""
    client_id = register(base, name)
    verifier, challenge = pkce()
    return client_id, code_form(client_id, approved_code(base, client_id, challenge, as_client)["code"], verifier)
