"""`serve` answers `initialize` before importing anything a call needs: clients wait for it
(and the entries of those that do not wait by themselves tell them to, as
tests/app/clients/test_entry_env.py checks)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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
# activity recorder, the other commands and what they use.
NOT_BEFORE_A_CALL = (
    "vault_recall.server.recall.answers.recall_records",
    "vault_recall.server.recall.answers.search",
    "vault_recall.server.recall.answers.reading",
    "vault_recall.server.recall.answers.backlinks",
    "vault_recall.server.recall.results",
    "vault_recall.server.config.config_file",
    "vault_recall.server.activity.recorder",
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
