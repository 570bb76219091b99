"""The tray's HTTP endpoint: a real `vault-recall http` child the tray starts, copies URL
snippets of, and stops — or says in one sentence why it could not start."""

from __future__ import annotations

import socket

import pytest

from tests.support.e2e import vault_recall_command
from tests.support.http_e2e import INITIALIZE, JSON_HEADERS, post
from tests.support.url_entries import our_entry, token_of
from vault_recall.app.tray.endpoint import EndpointError, EndpointProcess, endpoint_action
from vault_recall.server.config.config_file import load_config
from vault_recall.server.config.tokens import client_of_token

pytestmark = [pytest.mark.e2e]


def test_the_trays_endpoint_starts_serves_copies_a_url_snippet_and_stops() -> None:
    endpoint = EndpointProcess(listen="127.0.0.1:0", command=vault_recall_command())
    notes: list[str] = []
    copied: list[str] = []

    def copy(text: str) -> bool:
        copied.append(text)
        return True

    try:
        assert endpoint_action(("endpoint", "start"), endpoint, notes.append, copy) is True
        url = endpoint.url
        assert url is not None and url.startswith("http://127.0.0.1:") and url in notes[-1]
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        assert post(port, INITIALIZE, JSON_HEADERS)[0] == 401  # really serving, and guarded
        endpoint_action(("copy_http_snippet", "cursor"), endpoint, notes.append, copy)
        entry = our_entry("cursor", copied[-1])
        assert entry["url"] == url and client_of_token(load_config(), token_of(entry, "")) == "cursor"
        assert "with a new token" in notes[-1]
        endpoint_action(("copy_text", url), endpoint, notes.append, copy)
        assert copied[-1] == url
        assert endpoint_action(("open_vault",), endpoint, notes.append) is False  # not the endpoint's
    finally:
        endpoint_action(("endpoint", "stop"), endpoint, notes.append)
    assert endpoint.url is None and notes[-1] == "The HTTP endpoint is stopped"


def test_the_trays_endpoint_says_why_it_could_not_start() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        endpoint = EndpointProcess(listen=f"127.0.0.1:{port}", command=vault_recall_command())
        with pytest.raises(EndpointError, match=r"cannot listen on 127\.0\.0\.1"):
            endpoint.start()
    assert endpoint.url is None
