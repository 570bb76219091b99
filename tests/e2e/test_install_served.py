"""End to end: what `vault-recall install` writes into a client's file starts a real server."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.support.e2e import call, paths
from vault_recall.app.cli.main import main
from vault_recall.app.clients.catalogue import SERVER_NAME
from vault_recall.server.activity.queries import recent_events
from vault_recall.server.config.config_file import activity_path

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def read_back(client_id: str, path: Path) -> tuple[list[str], dict[str, str]]:
    """The command, args and env the client would run, read the way the client reads its file."""
    if client_id == "codex":
        entry = tomllib.loads(path.read_text(encoding="utf-8"))["mcp_servers"][SERVER_NAME]
    else:
        container = "servers" if client_id == "vscode" else "mcpServers"
        entry = json.loads(path.read_text(encoding="utf-8"))[container][SERVER_NAME]
    return [entry["command"], *entry["args"]], entry.get("env", {})


@pytest.mark.parametrize(
    ("client_id", "file_name"),
    [
        ("claude-desktop", "claude_desktop_config.json"),
        ("cursor", "mcp.json"),
        ("windsurf", "mcp_config.json"),
        ("gemini", "settings.json"),
        ("amazon-q", "mcp.json"),
        ("vscode", "mcp.json"),
        ("codex", "config.toml"),
    ],
)
async def test_the_installed_command_serves_recall(
    client_id: str, file_name: str, tmp_path: Path, shared_sample: Path
) -> None:
    assert main(["vault", "add", str(shared_sample)]) == 0
    path = tmp_path / client_id / file_name
    assert main(["install", client_id, "--config-file", str(path)]) == 0
    argv, entry_env = read_back(client_id, path)
    assert Path(argv[0]).is_absolute()
    assert argv[-3:] == ["serve", "--client", client_id] or argv[-2:] == ["--client", client_id]
    # Started the way Codex starts it: a cleared environment (none of the installing shell's
    # variables, VAULT_RECALL_HOME included) plus the entry's own, in a working folder of its own.
    env = {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")} | entry_env
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=str(tmp_path))
    async with Client(params, read_timeout_seconds=30) as session:
        result = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
    assert result["status"] == "ok"  # the vault this test's config names
    assert "Projects/Build/Build decision.md" in paths(result)
    # ... and the call is in this test's activity store, under the client's id.
    rows = recent_events(activity_path(), client=client_id)
    assert [r.tool for r in rows] == ["recall_context"]
