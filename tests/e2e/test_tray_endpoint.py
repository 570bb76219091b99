"""The tray's HTTP endpoint: a real `vault-recall http` child the tray starts, copies URL
snippets of, and stops — or says in one sentence why it could not start."""

from __future__ import annotations

import os
import re
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.e2e import vault_recall_command
from tests.support.http_e2e import INITIALIZE, JSON_HEADERS, post
from tests.support.oauth_browser import authorization_url, authorize_params, open_authorization, pkce, register
from tests.support.posix import assert_mode, kill_signal
from tests.support.url_entries import our_entry, token_of
from vault_recall.app.clients.catalogue import client_spec
from vault_recall.app.errors import EndpointError
from vault_recall.app.tray.endpoint import EndpointProcess, endpoint_action
from vault_recall.app.tray.endpoint_log import EndpointLog, log_path
from vault_recall.app.tray.url_snippet import copy_url_snippet
from vault_recall.server.config.config_file import load_config, state_dir
from vault_recall.server.config.tokens import client_of_token

pytestmark = [pytest.mark.e2e]


def test_the_trays_endpoint_starts_serves_copies_a_url_snippet_and_stops() -> None:
    endpoint = EndpointProcess(listen="127.0.0.1:0", command=vault_recall_command())
    notes: list[str] = []
    copied: list[str] = []

    def copy(text: str) -> bool:
        copied.append(text)
        return True

    def notify(summary: str, body: str = "") -> None:
        notes.append(f"{summary}: {body}")

    try:
        assert endpoint_action(("endpoint", "start"), endpoint, notify, copy) is True
        url = endpoint.url
        assert url is not None and url.startswith("http://127.0.0.1:") and url in notes[-1]
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        assert post(port, INITIALIZE, JSON_HEADERS)[0] == 401  # really serving, and guarded
        cursor = client_spec("cursor")
        assert cursor is not None
        copy_url_snippet(cursor, None, None, url, copy, notify)
        entry = our_entry("cursor", copied[-1])
        assert entry["url"] == url and client_of_token(load_config(), token_of(entry, "")) == "cursor"
        assert "With a new token" in notes[-1]
        endpoint_action(("copy_text", url), endpoint, notify, copy)
        assert copied[-1] == url
        assert endpoint_action(("open_vault",), endpoint, notify) is False  # not the endpoint's
    finally:
        endpoint_action(("endpoint", "stop"), endpoint, notify)
    assert endpoint.url is None and notes[-1].startswith("The HTTP endpoint is stopped")


def test_the_trays_endpoint_says_why_it_could_not_start() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        endpoint = EndpointProcess(listen=f"127.0.0.1:{port}", command=vault_recall_command())
        with pytest.raises(EndpointError, match=r"cannot listen on 127\.0\.0\.1"):
            endpoint.start()
    assert endpoint.url is None


def _wait(check: Callable[[], object], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _ask_for_approval(url: str) -> None:
    """An app asks to be approved: the endpoint writes a line about it on stderr."""
    base = url.removesuffix("/mcp")
    _, challenge = pkce()
    open_authorization(authorization_url(base, authorize_params(register(base, "Waiting app"), challenge)))


def _pids(log: Path) -> list[int]:
    return [int(found) for found in re.findall(r"started vault-recall http .* \(process (\d+)\)", _read(log))]


def _read(log: Path) -> str:
    return log.read_text(encoding="utf-8") if log.exists() else ""


def test_the_trays_endpoint_writes_its_log_to_a_private_rotated_file() -> None:
    log = EndpointLog(max_bytes=800, keep=2)
    endpoint = EndpointProcess(listen="127.0.0.1:0", command=vault_recall_command(), log=log)
    try:
        url = endpoint.start()
        for _ in range(12):
            _ask_for_approval(url)
        _wait(lambda: log.path.with_name("endpoint.log.2").exists(), "the log to rotate twice")
    finally:
        endpoint.stop()
    assert log.path == state_dir() / "logs" / "endpoint.log"
    files = sorted(log.path.parent.iterdir())
    assert [f.name for f in files] == ["endpoint.log", "endpoint.log.1", "endpoint.log.2"]  # no more than kept
    assert_mode(log.path.parent, 0o700)
    for file in files:
        assert_mode(file, 0o600)
        assert file.stat().st_size <= 800
    everything = "".join(_read(f) for f in files)
    assert "'Waiting app' asks to recall your notes" in everything
    assert "stopped ---" in _read(log.path)


def test_the_menus_open_its_log_opens_the_log_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened = tmp_path / "opened.txt"
    opener = tmp_path / "opener"
    opener.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{opened}"\n', encoding="utf-8")
    opener.chmod(0o755)
    monkeypatch.setenv("VAULT_RECALL_OPEN_COMMAND", str(opener))
    endpoint = EndpointProcess(listen="127.0.0.1:0", command=vault_recall_command())
    endpoint.start()
    endpoint.stop()
    told: list[tuple[str, str]] = []
    assert endpoint_action(("endpoint", "open_log"), endpoint, lambda s, b: told.append((s, b))) is True
    _wait(opened.exists, "the opener to be run")
    assert opened.read_text(encoding="utf-8") == str(log_path()) and log_path().exists() and told == []


def test_a_crashed_endpoint_is_told_how_it_ended_and_started_again() -> None:
    told: list[tuple[str, str]] = []
    seen: list[str | None] = []
    endpoint = EndpointProcess(
        listen="127.0.0.1:0", command=vault_recall_command(), notify=lambda s, b: told.append((s, b))
    )
    endpoint._on_change = lambda: seen.append(endpoint.shown().crashed)
    try:
        url = endpoint.start()
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        endpoint.listen = f"127.0.0.1:{port}"  # started again where clients find it
        _ask_for_approval(url)  # its last line on stderr is about an app waiting, not why it ends
        (first,) = _pids(endpoint.log.path)
        os.kill(first, kill_signal())
        _wait(lambda: any(summary == "The HTTP endpoint is back" for summary, _ in told), "the endpoint to be back")
        summary, body = told[0]
        assert summary == "The HTTP endpoint stopped unexpectedly", told
        assert body.startswith("It was stopped by SIGKILL; Vault Recall starts it again in 1 s"), body
        assert str(endpoint.log.path) in body and "asks to recall" not in body
        assert seen[0] == "it was stopped by SIGKILL"  # the menu said why meanwhile
        assert endpoint.url == url and post(port, INITIALIZE, JSON_HEADERS)[0] == 401
        assert len(set(_pids(endpoint.log.path))) == 2 and endpoint.shown().crashed is None
        assert "ended: it was stopped by SIGKILL" in _read(endpoint.log.path)
    finally:
        endpoint.stop()


# A stand-in for an endpoint that ends by an error of its own after serving, which a real one
# cannot be made to do on purpose: it prints the address line as `vault-recall http` does,
# then says why on stderr and exits 1.  Every start of it ends the same way.
DYING = (
    "import sys; print('Vault Recall endpoint: http://127.0.0.1:9/mcp', flush=True); "
    "sys.stderr.write('vault-recall http: the state folder is gone\\n'); sys.stderr.flush(); "
    "sys.stdin.read(); sys.exit(1)"
)


def test_an_endpoint_that_keeps_ending_is_told_once_in_its_own_words_and_started_again_until_stopped() -> None:
    told: list[tuple[str, str]] = []
    endpoint = EndpointProcess(command=[sys.executable, "-c", DYING], notify=lambda s, b: told.append((s, b)))
    try:
        endpoint.start()
        _wait(lambda: len(_pids(endpoint.log.path)) >= 4, "three starts again", timeout=90)
    finally:
        endpoint.stop()
    assert told == [
        (
            "The HTTP endpoint stopped unexpectedly",
            f"The state folder is gone (exit code 1); Vault Recall starts it again in 1 s (its log: "
            f"{endpoint.log.path}).",
        ),
        ("The HTTP endpoint is back", "Vault Recall serves clients at http://127.0.0.1:9/mcp again."),
    ]
    assert endpoint.crash is None and endpoint.url is None
    _wait(lambda: not any(t.name == "endpoint-watch" and t.is_alive() for t in threading.enumerate()), "the watch")
    started = len(_pids(endpoint.log.path))
    assert _read(endpoint.log.path).count("ended: the state folder is gone (exit code 1)") >= 3
    assert len(_pids(endpoint.log.path)) == started  # stopped: its watch is over, nothing starts it again


CHATTY = (
    "import sys; print('Vault Recall endpoint: http://127.0.0.1:9/mcp', flush=True)\n"
    "while True: sys.stderr.write('vault-recall http: a line of its log\\n'); sys.stderr.flush()"
)


READERS = ("endpoint-stdout", "endpoint-stderr")


def test_stopping_an_endpoint_in_mid_sentence_ends_its_readers_quietly() -> None:
    # Stop closes the pipes while the readers are reading: an error there would be a
    # thread's unhandled exception, which pytest reports as this test's failure.
    for _ in range(3):
        endpoint = EndpointProcess(command=[sys.executable, "-c", CHATTY])
        endpoint.start()

        def logged(e: EndpointProcess = endpoint) -> bool:
            return "a line of its log" in _read(e.log.path)

        _wait(logged, "its log lines")
        endpoint.stop()
        assert endpoint.url is None and endpoint.crash is None
        _wait(lambda: not any(t.name in READERS and t.is_alive() for t in threading.enumerate()), "its readers")


def test_an_endpoint_that_dies_at_once_is_told_in_its_own_words_never_the_last_ones() -> None:
    endpoint = EndpointProcess(listen="127.0.0.1:0", command=vault_recall_command())
    try:
        _ask_for_approval(endpoint.start())  # this process's last words: an app waiting
    finally:
        endpoint.stop()
    endpoint.command = [sys.executable, "-c", "import sys; sys.exit(3)"]  # ends at once, without a word
    with pytest.raises(EndpointError) as refused:
        endpoint.start()
    assert str(refused.value) == "the HTTP endpoint did not start: it ended with exit code 3 without a word"
