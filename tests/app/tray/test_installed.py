"""Which clients have our entry in their config file (app/tray/installed.py), read from real files
written by the real install: the form, the URL and the token, read again only when a file changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from vault_recall.app.cli.main import main
from vault_recall.app.clients.catalogue import CLIENTS, client_spec
from vault_recall.app.tray.installed import InstalledClients
from vault_recall.server.config.config_file import load_config


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("XDG_CONFIG_HOME", "APPDATA"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_installed_clients_are_found_with_their_form_and_token(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clients = InstalledClients()
    assert clients.look(CLIENTS) == {}
    assert main(["install", "cursor"]) == 0
    assert main(["install", "zed", "--form", "http"]) == 0
    capsys.readouterr()
    found = clients.look(CLIENTS)
    assert set(found) == {"cursor", "zed"}
    assert found["cursor"].by_url is False and found["cursor"].path == home / ".cursor/mcp.json"
    zed = found["zed"]
    assert zed.by_url and zed.url == "http://127.0.0.1:27183/mcp"
    assert zed.token_sha256 == load_config().client("zed").token_sha256  # type: ignore[union-attr]
    assert main(["uninstall", "cursor"]) == 0
    assert set(clients.look(CLIENTS)) == {"zed"}


def test_a_file_that_does_not_parse_is_not_installed_and_is_read_again_once_fixed(home: Path) -> None:
    spec = client_spec("cursor")
    assert spec is not None
    path = spec.config_file()
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_text("{ not json", encoding="utf-8")
    clients = InstalledClients()
    assert clients.look([spec]) == {}
    path.write_text('{"mcpServers": {"vault-recall": {"command": "/x/vault-recall", "args": []}}}', encoding="utf-8")
    assert clients.look([spec])["cursor"].by_url is False
