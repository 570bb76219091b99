"""Reaching a URL entry's endpoint the way its client would, to prove the entry works
(`vault-recall doctor`).

One MCP session over plain HTTP at the entry's URL with the token the entry makes its client
send: `initialize`, then one `list_subjects` call.  What comes back says whether anything
answers there, whether it is a Vault Recall endpoint at the right path, whether it takes the
token, and — from the activity row the call leaves, found by a one-off client version — which
client the endpoint took the token for and which activity store it writes.  The standard
library's HTTP client is enough: the probe is four requests.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vault_recall.app.clients.probe import DOCTOR_NAME
from vault_recall.server.activity.queries import client_of_call
from vault_recall.server.errors import VaultRecallError

Outcome = Literal[
    "ok",  # it answered the call; `client` and `vault` say for whom and from where
    "unreachable",  # nothing listens there (or the name does not resolve)
    "timeout",  # something listens but does not answer
    "not_ours",  # something answers, but not a Vault Recall endpoint
    "wrong_path",  # our endpoint, at another path (`path` says which)
    "no_token",  # our endpoint, and the request carried no token
    "token_refused",  # our endpoint refused the token: revoked, replaced or mistyped
    "host_refused",  # our endpoint refused the Host (a name it was not started with)
    "config_broken",  # our endpoint cannot read its config
    "no_answer",  # our endpoint took the token but did not answer the call
]
PROTOCOL = "2025-06-18"
_ACCEPT = "application/json, text/event-stream"


@dataclass(frozen=True)
class UrlProbe:
    outcome: Outcome
    detail: str  # what was found, as a phrase a sentence can hold
    client: str | None = None  # the client the endpoint recorded the call under (None: not in this store)
    vault: str | None = None  # the vault the answer names
    path: str | None = None  # wrong_path: the path the endpoint serves
    oauth: bool = False  # no_token: the endpoint offers OAuth (its 401 names where to start)


@dataclass(frozen=True)
class _Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict[str, Any]:
        """The JSON object of the body, or the last one of an event stream's data lines."""
        text = self.body.decode("utf-8", "replace")
        candidates = [text] + [line[5:].strip() for line in reversed(text.splitlines()) if line.startswith("data:")]
        for candidate in candidates:
            try:
                value = json.loads(candidate)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
        return {}


class _Unreachable(VaultRecallError):
    def __init__(self, outcome: Outcome, detail: str) -> None:
        super().__init__(detail)
        self.outcome = outcome
        self.detail = detail


def _post(url: str, message: dict[str, Any], headers: dict[str, str], timeout: float) -> _Reply:
    body = json.dumps(message).encode("utf-8")
    sent = {"Content-Type": "application/json", "Accept": _ACCEPT, **headers}
    return _request(urllib.request.Request(url, data=body, headers=sent, method="POST"), timeout)


def _request(request: urllib.request.Request, timeout: float) -> _Reply:
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return _Reply(response.status, {k.lower(): v for k, v in response.headers.items()}, response.read(1 << 20))
    except urllib.error.HTTPError as refused:
        with refused:
            body = refused.read(1 << 16)
        return _Reply(refused.code, {k.lower(): v for k, v in refused.headers.items()}, body)
    except TimeoutError:
        raise _Unreachable("timeout", f"nothing answered within {timeout:g} s") from None
    except urllib.error.URLError as failed:
        reason = failed.reason
        if isinstance(reason, TimeoutError):
            raise _Unreachable("timeout", f"nothing answered within {timeout:g} s") from None
        if isinstance(reason, ConnectionRefusedError):
            raise _Unreachable("unreachable", "nothing listens there") from None
        why = getattr(reason, "strerror", None) or str(reason)
        raise _Unreachable("unreachable", f"it cannot be reached ({why})") from None
    except (OSError, ValueError) as failed:
        raise _Unreachable("unreachable", f"it cannot be reached ({failed})") from None


def _refusal(reply: _Reply, token: str | None) -> UrlProbe | None:
    """What a refused request says, as an outcome; None when it was not refused."""
    if reply.status < 400:
        return None
    said = reply.json()
    error = said.get("error")
    description = str(said.get("error_description") or "")[:300]
    if reply.status == 401 and error in ("missing_token", "invalid_token"):
        if token is None or error == "missing_token":
            oauth = "resource_metadata=" in reply.headers.get("www-authenticate", "")
            return UrlProbe("no_token", "the endpoint there asks for a token and none was sent", oauth=oauth)
        return UrlProbe("token_refused", "the endpoint there refused the token")
    if reply.status == 403 and error in ("forbidden_host", "forbidden_origin"):
        return UrlProbe("host_refused", f"the endpoint there refused the request: {description}")
    if reply.status == 404 and error == "not_found" and "/" in description:
        found = "a Vault Recall endpoint answers there at another path"
        return UrlProbe("wrong_path", found, path=_path_in(description))
    if reply.status == 503 and error == "config_broken":
        return UrlProbe("config_broken", "the endpoint there cannot read its config")
    return UrlProbe("not_ours", f"something else answers there (HTTP {reply.status})")


def _path_in(description: str) -> str | None:
    """The endpoint's path as its 404 names it ('… the MCP endpoint is /mcp')."""
    words = [word.rstrip(".,;)") for word in description.split() if word.startswith("/")]
    return words[-1] if words else None


def probe_url(url: str, token: str | None, store: Path, timeout: float = 10, wait: float = 5) -> UrlProbe:
    """One session at `url` sending `token`; see the module's docstring."""
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    nonce = "probe-" + secrets.token_hex(6)  # finds this very call in the activity store
    hello = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": DOCTOR_NAME, "version": nonce}}
    try:
        reply = _post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}, auth, timeout)
        refused = _refusal(reply, token)
        if refused is not None:
            return refused
        server = (reply.json().get("result") or {}).get("serverInfo") or {}
        if server.get("name") != "vault-recall":
            named = f" ({server.get('name')!r})" if server.get("name") else ""
            return UrlProbe("not_ours", f"another server answers there{named}, not Vault Recall's endpoint")
        session = {**auth, "MCP-Protocol-Version": PROTOCOL}
        if reply.headers.get("mcp-session-id"):
            session["Mcp-Session-Id"] = reply.headers["mcp-session-id"]
        _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session, timeout)
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_subjects", "arguments": {}}}
        answer = _post(url, call, session, timeout)
        if "Mcp-Session-Id" in session:  # end the session: the endpoint frees it at once
            with contextlib.suppress(_Unreachable):
                _request(urllib.request.Request(url, headers=session, method="DELETE"), timeout)
    except _Unreachable as failed:
        return UrlProbe(failed.outcome, failed.detail)
    refused = _refusal(answer, token)
    if refused is not None:
        return refused
    content = (answer.json().get("result") or {}).get("structuredContent")
    if not isinstance(content, dict):
        return UrlProbe("no_answer", "the endpoint there took the token but did not answer list_subjects")
    vault = content.get("vault")
    client = _recorded_client(store, nonce, wait)
    return UrlProbe("ok", "the endpoint there answered", client=client, vault=vault if isinstance(vault, str) else None)


def _recorded_client(store: Path, nonce: str, wait: float) -> str | None:
    """The client the probe's call was recorded under in `store`, waiting up to `wait` seconds
    for the endpoint's writer (it stores events on its own thread, just after answering)."""
    deadline = time.monotonic() + wait
    while True:
        found = client_of_call(store, DOCTOR_NAME, nonce)
        if found is not None or time.monotonic() >= deadline:
            return found
        time.sleep(0.05)
