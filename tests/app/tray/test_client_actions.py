"""What the menu's client items do, over real config files in a home of the test's own
(app/tray/actions/client_setup.py): *Connect* installs in one click and says which file changed and to
restart the client by its name; an entry by URL is left alone; a client kept in its settings
gets its entry copied; *Install by URL* writes the URL entry with a token and says where it went."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vault_recall.app.clients.catalogue import CLIENTS, TOKEN_ENV
from vault_recall.app.tray.actions.client_setup import client_action
from vault_recall.app.tray.installed import InstalledClients
from vault_recall.app.tray.menu.items import TrayState
from vault_recall.server.config.bearer_tokens import client_of_token
from vault_recall.server.config.config_file import Config, load_config


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "me"
    (home / ".config").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home


class Told:
    """The notifications and the clipboard, as a person would see them."""

    def __init__(self, can_copy: bool = True) -> None:
        self.notes: list[tuple[str, str]] = []
        self.copied: list[str] = []
        self.can_copy = can_copy

    def notify(self, summary: str, body: str = "") -> None:
        self.notes.append((summary, body))

    def copy(self, text: str) -> bool:
        if self.can_copy:
            self.copied.append(text)
        return self.can_copy


def run(action: tuple[str, ...], told: Told, **state: object) -> None:
    fields: dict[str, object] = {"config": Config(), "installed": InstalledClients().look(CLIENTS)} | state
    assert client_action(action, TrayState(**fields), told.notify, told.copy)  # type: ignore[arg-type]


def test_connect_installs_in_one_click_and_names_the_file_and_the_client_to_restart(home: Path) -> None:
    claude = home / ".claude.json"
    claude.write_text('{"numStartups": 4}\n', encoding="utf-8")
    told = Told()
    run(("connect", "claude-code"), told)
    entry = json.loads(claude.read_text(encoding="utf-8"))["mcpServers"]["vault-recall"]
    assert entry["type"] == "stdio" and entry["args"][:3] == ["serve", "--client", "claude-code"]
    ((summary, body),) = told.notes
    assert summary == "Added Vault Recall to Claude Code"
    assert body.startswith("Changed ~/.claude.json (the old file is kept beside it as .claude.json.")
    assert body.endswith(".vault-recall.bak). Restart Claude Code to use it.")
    assert [c.id for c in load_config().clients] == ["claude-code"]
    run(("connect", "claude-code"), told)  # again: nothing to change, and it says so
    assert told.notes[-1][0] == "Claude Code already starts Vault Recall"
    assert "Restart Claude Code if it does not show Vault Recall's tools" in told.notes[-1][1]


def test_connect_says_it_created_a_file_that_was_not_there(home: Path) -> None:
    told = Told()
    run(("connect", "claude-code"), told)
    assert (home / ".claude.json").exists()
    assert told.notes == [
        ("Added Vault Recall to Claude Code", "Created ~/.claude.json. Restart Claude Code to use it.")
    ]


def test_connect_leaves_an_entry_by_url_as_it_is(home: Path) -> None:
    cursor = home / ".cursor/mcp.json"
    cursor.parent.mkdir()
    text = '{"mcpServers": {"vault-recall": {"url": "http://127.0.0.1:27183/mcp"}}}\n'
    cursor.write_text(text, encoding="utf-8")
    told = Told()
    run(("connect", "cursor"), told)
    assert cursor.read_text(encoding="utf-8") == text
    assert told.notes == [
        (
            "Cursor is connected already, by URL",
            "Its entry in ~/.cursor/mcp.json reaches http://127.0.0.1:27183/mcp; nothing changed. Restart Cursor if "
            "it does not show Vault Recall's tools.",
        )
    ]


def test_connect_copies_the_entry_of_a_client_kept_in_its_settings(home: Path) -> None:
    told = Told()
    run(("connect", "jetbrains"), told)
    assert json.loads(told.copied[0])["mcpServers"]["vault-recall"]["args"][:3] == ["serve", "--client", "jetbrains"]
    assert told.notes[0][0] == "Vault Recall's entry for JetBrains AI Assistant is copied"
    assert told.notes[0][1].startswith("Paste it in Settings → Tools → AI Assistant")
    nothing = Told(can_copy=False)
    run(("connect", "jetbrains"), nothing)
    assert nothing.notes[0][0] == "Nothing here could copy JetBrains AI Assistant's entry"


def test_install_by_url_writes_the_entry_with_a_token_the_endpoint_takes(home: Path) -> None:
    told = Told()
    run(("install_http", "cursor"), told, endpoint_url="http://127.0.0.1:40123/mcp")
    entry = json.loads((home / ".cursor/mcp.json").read_text(encoding="utf-8"))["mcpServers"]["vault-recall"]
    assert entry["url"] == "http://127.0.0.1:40123/mcp"
    token = entry["headers"]["Authorization"].removeprefix("Bearer ")
    assert client_of_token(load_config(), token) == "cursor"
    ((summary, body),) = told.notes
    assert summary == "Added Vault Recall to Cursor, by URL"
    assert body == (
        "Created ~/.cursor/mcp.json: it reaches http://127.0.0.1:40123/mcp. Its token is new, in the file. "
        "Restart Cursor to use it."
    )
    assert token not in body
    # Again: the entry sends a valid token, which is kept.
    installed = InstalledClients().look(CLIENTS)
    run(("install_http", "cursor"), told, endpoint_url="http://127.0.0.1:40123/mcp", installed=installed)
    assert told.notes[-1][0] == "Cursor reaches Vault Recall by URL already"


def test_install_by_url_for_codex_copies_the_line_that_sets_its_token(home: Path) -> None:
    told = Told()
    run(("install_http", "codex"), told)
    config = (home / ".codex/config.toml").read_text(encoding="utf-8")
    assert f'bearer_token_env_var = "{TOKEN_ENV}"' in config and "vrt_" not in config
    (export,) = told.copied
    assert export.startswith(f"export {TOKEN_ENV}=vrt_")
    assert client_of_token(load_config(), export.split("=", 1)[1]) == "codex"
    summary, body = told.notes[0]
    assert summary == "Added Vault Recall to Codex CLI, by URL"
    assert "the line that sets it is copied" in body
    assert "The HTTP endpoint is not running: start it under HTTP endpoint." in body
    assert body.endswith("Restart Codex CLI to use it.")


def test_an_action_of_another_kind_is_not_a_client_action() -> None:
    told = Told()
    assert not client_action(("toggle", "paused"), TrayState(config=Config()), told.notify, told.copy)
    assert told.notes == []
