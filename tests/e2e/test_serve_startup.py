"""`serve` answers `initialize` before importing anything a call needs — before the MCP SDK
itself when the request is one it is certain to accept (server/mcp/early_initialize.py): clients
wait for it (and the entries of those that do not wait by themselves tell them to, as
tests/app/clients/test_entry_env.py checks)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.e2e import vault_recall_command
from tests.support.paths import SAMPLE_VAULT
from vault_recall.server import __version__

pytestmark = [pytest.mark.e2e]

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
# Needed by a call, never by `initialize`: the tools' logic, the config reader and YAML, the
# activity settings, the other commands and what they use.
NOT_BEFORE_A_CALL = (
    "vault_recall.server.recall.answers.recall_records",
    "vault_recall.server.recall.answers.search",
    "vault_recall.server.recall.answers.reading",
    "vault_recall.server.recall.answers.backlinks",
    "vault_recall.server.recall.results",
    "vault_recall.server.config.config_file",
    "vault_recall.server.obsidian.note",
    "yaml",
    "vault_recall.app.cli.client_commands",
    "vault_recall.app.cli.config_commands",
    "vault_recall.app.cli.report_commands",
    "vault_recall.app.clients.install",
    "tomlkit",
    "ruamel",
)


def test_serve_answers_initialize_without_importing_what_only_calls_need() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "vault_recall.app",
            "serve",
            "--client",
            "t",
            "--vault",
            str(SAMPLE_VAULT),
        ],
        input=json.dumps(INITIALIZE) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["result"]["serverInfo"]["name"] == "vault-recall"
    assert answer["result"]["serverInfo"]["version"] == __version__ != "0+unknown"  # git's, via _version.py
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "mcp.server.mcpserver" in imported  # the measurement works
    assert not imported & set(NOT_BEFORE_A_CALL), sorted(imported & set(NOT_BEFORE_A_CALL))


def exchange(lines: list[dict[str, object]], answers: int) -> list[dict[str, object]]:
    """The lines a real `serve` writes for `lines`: `answers` of them read with stdin open (at
    its end the SDK may stop before answering), then whatever else it writes until it stops."""
    server = subprocess.Popen(
        [*vault_recall_command(), "serve", "--client", "t", "--vault", str(SAMPLE_VAULT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write("".join(json.dumps(line) + "\n" for line in lines).encode())
        server.stdin.flush()
        written = [server.stdout.readline() for _ in range(answers)]
        server.stdin.close()
        written += server.stdout.read().splitlines()
    finally:
        server.wait(timeout=120)
        server.stdout.close()
    return [json.loads(line) for line in written if line.strip()]


def test_initialize_answered_before_the_sdk_loads_is_answered_once_and_as_the_sdk_answers() -> None:
    initialized: dict[str, object] = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    tools: dict[str, object] = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    early = exchange([INITIALIZE, initialized, tools], 2)
    assert [answer["id"] for answer in early] == [1, 2]  # the SDK's own answer to 1 is not written
    listed = early[1]["result"]
    assert isinstance(listed, dict) and "recall_context" in {tool["name"] for tool in listed["tools"]}
    # An initialize early_initialize.py leaves to the SDK (it carries `_meta`): the SDK's answer.
    params = {**INITIALIZE["params"], "_meta": {"progressToken": 7}}  # type: ignore[dict-item]
    by_the_sdk = exchange([{**INITIALIZE, "params": params}, initialized, tools], 2)
    assert [answer["id"] for answer in by_the_sdk] == [1, 2]
    assert early[0] == by_the_sdk[0]


# What `vault-recall http` and the tray need, never a stdio server, whatever it is asked; and
# rich, which the SDK's own logging set-up imports when installed, for logging serve configures
# itself (server/mcp/sdk_private.py): ~87 % of making the server.
SERVE = ("serve", "--client", "t", "--vault", str(SAMPLE_VAULT))
NEVER_IN_SERVE = ("vault_recall.server.http", "vault_recall.server.oauth", "vault_recall.app.tray", "rich")


def test_serve_answering_calls_never_imports_our_http_oauth_or_tray_code() -> None:
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    calls = [
        {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        for number, name, arguments in ((2, "recall_context", {"query": "bazel"}), (3, "read_note", {"note": "x"}))
    ]
    server = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "vault_recall.app", *SERVE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write("".join(json.dumps(line) + "\n" for line in [INITIALIZE, initialized, *calls]))
    server.stdin.flush()
    answered = {json.loads(server.stdout.readline()).get("id") for _ in range(3)}  # stdin open: all answered
    _, stderr = server.communicate(timeout=120)
    assert answered == {1, 2, 3}
    imported = {line.split("|")[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}
    assert "vault_recall.server.recall.answers.recall_records" in imported  # the calls were answered
    assert not {m for m in imported if m.startswith(NEVER_IN_SERVE)}
