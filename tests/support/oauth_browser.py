"""The person's side of an OAuth authorization against a real `vault-recall http`: a browser
that opens the authorization URL an app printed, and `vault-recall client approve` run as the
person runs it.  The browser is plain HTTP without JavaScript (the page needs none): it follows
the endpoint's redirects to its waiting page, reads the code shown there, and after approval
loads the page again to be sent back to the app's redirect URI."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import httpx2

from tests.support.e2e import vault_recall_command

APPROVAL_CODE = re.compile(r"vault-recall client approve ([A-Z2-9]{4}-[A-Z2-9]{4})")


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


def redirect_after_answer(waiting: Waiting) -> str:
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
