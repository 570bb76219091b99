"""Tokens are the person's to manage, never a surprise: a snippet never rotates a token an
installed entry sends, installing again keeps a valid token, uninstalling revokes a token no
entry of ours sends any more, and every message says where the token is."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from vault_recall.app.cli.main import main
from vault_recall.app.clients.catalogue import SERVER_NAME, TOKEN_ENV
from vault_recall.server.config.bearer_tokens import client_of_token
from vault_recall.server.config.config_file import load_config

TOKEN = re.compile(r"vrt_[A-Za-z0-9_-]{43}")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A person's home of its own: every client's usual config file lives there."""
    home = tmp_path / "me"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    return home


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def header_token(path: Path, container: str = "mcpServers") -> str:
    entry: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))[container][SERVER_NAME]
    return str(entry["headers"]["Authorization"]).removeprefix("Bearer ")


def owner(token: str) -> str | None:
    return client_of_token(load_config(), token)


def test_a_snippet_never_rotates_the_token_an_installed_entry_sends(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "install", "cursor", "--form", "http")[0] == 0
    installed = header_token(home / ".cursor/mcp.json")
    code, out, err = run(capsys, "snippet", "cursor", "--form", "http")
    assert code == 1 and out == ""
    assert str(home / ".cursor/mcp.json") in err and "--new-token" in err
    assert owner(installed) == "cursor"  # the installed client goes on working

    code, out, err = run(capsys, "snippet", "cursor", "--form", "http", "--new-token")
    assert code == 0
    made = TOKEN.search(out)
    assert made is not None and owner(made.group(0)) == "cursor" and owner(installed) is None
    assert "old token stops working" in err and str(home / ".cursor/mcp.json") in err
    assert "in the entry above, in its Authorization header" in err


def test_a_snippet_for_a_client_with_no_installed_entry_makes_a_token_as_before(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "install", "cursor", "--form", "http")[0] == 0
    code, out, _ = run(capsys, "snippet", "zed", "--form", "http")
    found = TOKEN.search(out)
    assert code == 0 and found is not None and owner(found.group(0)) == "zed"
    assert owner(header_token(home / ".cursor/mcp.json")) == "cursor"


def test_installing_by_url_again_keeps_the_valid_token_and_changes_nothing(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = home / ".claude.json"
    code, out, _ = run(capsys, "install", "claude-code", "--form", "http")
    assert code == 0 and f"Authorization header of the entry in {path} (a new one" in out
    first = path.read_bytes()
    code, out, _ = run(capsys, "install", "claude-code", "--form", "http")
    assert code == 0 and path.read_bytes() == first
    assert "nothing changed" in out and "already in the Authorization header" in out and "kept" in out
    code, out, _ = run(capsys, "install", "claude-code", "--form", "http", "--new-token")
    assert code == 0 and path.read_bytes() != first
    assert owner(header_token(path)) == "claude-code" and "old token stops working" in out


def test_installing_by_url_over_a_revoked_token_writes_a_new_one(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = home / ".gemini/settings.json"
    assert run(capsys, "install", "gemini", "--form", "http")[0] == 0
    assert run(capsys, "client", "token", "gemini", "--revoke")[0] == 0
    assert owner(header_token(path)) is None
    assert run(capsys, "install", "gemini", "--form", "http")[0] == 0
    assert owner(header_token(path)) == "gemini"


def test_codex_keeps_the_token_its_shell_exports_and_is_told_where_a_new_one_goes(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(capsys, "install", "codex", "--form", "http")
    found = re.search(rf"export {TOKEN_ENV}=(\S+)", err)
    assert code == 0 and found is not None and owner(found.group(1)) == "codex"
    assert f"reads it from the environment, not from {home / '.codex/config.toml'}" in err
    assert found.group(1) not in (home / ".codex/config.toml").read_text(encoding="utf-8")
    monkeypatch.setenv(TOKEN_ENV, found.group(1))
    code, out, err = run(capsys, "install", "codex", "--form", "http")
    assert code == 0 and f"${TOKEN_ENV}, which this shell sets to codex's token: kept" in out
    assert owner(found.group(1)) == "codex" and "export" not in err


def test_uninstalling_a_url_entry_revokes_its_token_when_no_other_entry_sends_it(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = home / ".config/opencode/opencode.json"
    assert run(capsys, "install", "opencode", "--form", "http")[0] == 0
    token = header_token(path, "mcp")
    code, out, err = run(capsys, "uninstall", "opencode", "--dry-run")
    assert code == 0 and "would be revoked" in err and owner(token) == "opencode"
    code, out, _ = run(capsys, "uninstall", "opencode")
    assert code == 0 and "Revoked opencode's token" in out
    assert owner(token) is None
    backups = list(path.parent.glob("*.vault-recall.bak"))
    assert any(token in b.read_text(encoding="utf-8") for b in backups)  # still there, but dead


def test_uninstalling_keeps_a_token_another_entry_of_ours_still_sends(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cursor's entry pasted into Windsurf's file by hand: uninstalling Cursor leaves it working."""
    assert run(capsys, "install", "cursor", "--form", "http")[0] == 0
    token = header_token(home / ".cursor/mcp.json")
    windsurf = home / ".codeium/windsurf/mcp_config.json"
    windsurf.parent.mkdir(parents=True)
    windsurf.write_text(
        json.dumps(
            {
                "mcpServers": {
                    SERVER_NAME: {
                        "serverUrl": "http://127.0.0.1:27183/mcp",
                        "headers": {"Authorization": f"Bearer {token}"},
                    }
                }
            }
        ),
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "uninstall", "cursor")
    assert code == 0 and f"Kept cursor's token: the entry in {windsurf} still sends it" in out
    assert owner(token) == "cursor"


def test_uninstalling_a_stdio_entry_leaves_tokens_alone(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "client", "token", "cursor")
    token = out.strip()
    assert run(capsys, "install", "cursor")[0] == 0
    code, out, _ = run(capsys, "uninstall", "cursor")
    assert code == 0 and "token" not in out and owner(token) == "cursor"


def test_a_new_token_by_hand_names_the_installed_entry_it_cuts_off(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "install", "vscode", "--form", "http")[0] == 0
    path = home / ".config/Code/User/mcp.json"
    code, _, err = run(capsys, "client", "token", "vscode")
    assert code == 0 and f"The entry in {path} sent it and is refused from now on" in err
    assert "vault-recall install vscode --form http" in err
    code, out, _ = run(capsys, "client", "token", "vscode", "--revoke")
    assert code == 0 and "Revoked" in out


def test_a_dry_run_over_a_valid_entry_shows_the_token_kept_not_its_value(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "install", "cursor", "--form", "http", "--url", "http://127.0.0.1:1/mcp")[0] == 0
    token = header_token(home / ".cursor/mcp.json")
    code, out, err = run(capsys, "install", "cursor", "--form", "http", "--dry-run")
    assert code == 0 and token not in out and "<the token it sends now, kept>" in out
    assert "+" in out and "http://127.0.0.1:27183/mcp" in out and "new token" not in err


def test_a_codex_url_entry_parses_with_required(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "install", "codex", "--form", "http")[0] == 0
    entry = tomllib.loads((home / ".codex/config.toml").read_text(encoding="utf-8"))["mcp_servers"][SERVER_NAME]
    assert entry["required"] is True
