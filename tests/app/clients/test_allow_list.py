"""Our tools go on a client's allow list only on `install --allow-tools`, with the same safe edit."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from vault_recall.app.cli.main import main
from vault_recall.app.clients.allow_list import CLAUDE_RULES
from vault_recall.app.clients.catalogue import SERVER_NAME, TOOL_NAMES
from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.mcp.tools import build_server

SETTINGS = """{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(git status)"],
    "deny": ["Read(./.env)"]
  },
  "env": {"A": "1"}
}
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return tmp_path


def test_the_catalogue_names_every_tool_the_server_lists() -> None:
    tools = anyio.run(build_server(ServeOptions(client="x")).list_tools)
    assert sorted(TOOL_NAMES) == sorted(t.name for t in tools)


def test_claude_codes_allow_list_gets_our_tools_and_keeps_every_other_byte(home: Path) -> None:
    settings = home / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text(SETTINGS, encoding="utf-8")
    assert main(["install", "claude-code", "--allow-tools"]) == 0
    data = json.loads(settings.read_text(encoding="utf-8"))
    assert data["permissions"]["allow"] == ["Bash(git status)", *CLAUDE_RULES]
    assert CLAUDE_RULES[1] == f"mcp__{SERVER_NAME}__recall_context"
    assert {k: v for k, v in data.items() if k != "permissions"} == {"model": "opus", "env": {"A": "1"}}
    assert data["permissions"]["deny"] == ["Read(./.env)"]
    once = settings.read_bytes()
    assert main(["install", "claude-code", "--allow-tools"]) == 0
    assert settings.read_bytes() == once  # the second time changes nothing
    assert main(["uninstall", "claude-code"]) == 0
    assert settings.read_text(encoding="utf-8").replace(" ", "").replace("\n", "") == SETTINGS.replace(" ", "").replace(
        "\n", ""
    )
    assert json.loads(settings.read_text(encoding="utf-8")) == json.loads(SETTINGS)


def test_a_missing_settings_file_is_created_with_only_our_rules(home: Path) -> None:
    assert main(["install", "claude-code", "--allow-tools"]) == 0
    data = json.loads((home / ".claude/settings.json").read_text(encoding="utf-8"))
    assert data == {"permissions": {"allow": list(CLAUDE_RULES)}}


def test_without_the_flag_no_allow_list_is_touched(home: Path) -> None:
    assert main(["install", "claude-code"]) == 0
    assert not (home / ".claude/settings.json").exists()
    assert main(["install", "gemini"]) == 0
    entry = json.loads((home / ".gemini/settings.json").read_text(encoding="utf-8"))["mcpServers"][SERVER_NAME]
    assert "trust" not in entry


def test_gemini_and_cline_allow_our_tools_in_our_entry(home: Path, tmp_path: Path) -> None:
    assert main(["install", "gemini", "--allow-tools"]) == 0
    entry = json.loads((home / ".gemini/settings.json").read_text(encoding="utf-8"))["mcpServers"][SERVER_NAME]
    assert entry["trust"] is True
    cline = tmp_path / "cline_mcp_settings.json"
    assert main(["install", "cline", "--allow-tools", "--config-file", str(cline)]) == 0
    entry = json.loads(cline.read_text(encoding="utf-8"))["mcpServers"][SERVER_NAME]
    assert entry["autoApprove"] == list(TOOL_NAMES)


def test_a_client_without_an_allow_list_is_refused_in_one_sentence(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install", "cursor", "--allow-tools"]) == 1
    assert "Cursor keeps no allow list" in capsys.readouterr().err
    assert not (home / ".cursor/mcp.json").exists()


def test_an_allow_list_that_is_not_a_list_is_left_untouched(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = home / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": {"allow": "everything"}}', encoding="utf-8")
    assert main(["install", "claude-code", "--allow-tools"]) == 1
    assert "is not a list" in capsys.readouterr().err
    assert settings.read_text(encoding="utf-8") == '{"permissions": {"allow": "everything"}}'
