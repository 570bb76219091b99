"""Copying a client's URL entry from the tray (app/tray/menu/url_snippet.py), against the real config:
the token an installed entry sends is reused, a new one is said to be new and what it breaks,
and a client that reads its token from the environment gets it in the snippet too."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path

from vault_recall.app.clients.catalogue import client_spec
from vault_recall.app.state.config_store import issue_token
from vault_recall.app.tray.installed import installed_from
from vault_recall.app.tray.menu.url_snippet import copy_url_snippet
from vault_recall.server.config.bearer_tokens import client_of_token
from vault_recall.server.config.config_file import load_config

URL = "http://127.0.0.1:27183/mcp"


def copying() -> tuple[list[str], list[tuple[str, str]], Callable[[str], bool], Callable[[str, str], None]]:
    """What was copied, what was told, and the copy and notify that record them."""
    copied: list[str] = []
    told: list[tuple[str, str]] = []

    def copy(text: str) -> bool:
        copied.append(text)
        return True

    def notify(summary: str, body: str = "") -> None:
        told.append((summary, body))

    return copied, told, copy, notify


def test_an_installed_entrys_token_is_reused_and_nothing_changes(tmp_path: Path) -> None:
    token, _ = issue_token("cursor")
    before = load_config()
    path = tmp_path / "mcp.json"
    installed = installed_from(path, {"url": URL, "headers": {"Authorization": f"Bearer {token}"}})
    copied, told, copy, notify = copying()
    spec = client_spec("cursor")
    assert spec is not None
    copy_url_snippet(spec, installed, before.client("cursor"), URL, copy, notify)
    entry = json.loads(copied[-1])["mcpServers"]["vault-recall"]
    assert entry["headers"]["Authorization"] == f"Bearer {token}"
    now, then = load_config().client("cursor"), before.client("cursor")
    assert load_config() == before and now is not None and then is not None and now.token_sha256 == then.token_sha256
    assert told[-1] == ("Cursor URL snippet copied", f"With the token already in {path}: nothing changed.")


def test_a_new_token_says_the_installed_entry_stops_working_and_the_endpoint_is_stopped(tmp_path: Path) -> None:
    old, _ = issue_token("cursor")
    installed = installed_from(tmp_path / "mcp.json", {"url": URL, "headers": {"Authorization": "Bearer vrt_other"}})
    copied, told, copy, notify = copying()
    spec = client_spec("cursor")
    assert spec is not None
    copy_url_snippet(spec, installed, load_config().client("cursor"), None, copy, notify)
    token = json.loads(copied[-1])["mcpServers"]["vault-recall"]["headers"]["Authorization"].removeprefix("Bearer ")
    assert token != old and client_of_token(load_config(), token) == "cursor"
    summary, body = told[-1]
    assert summary == "Cursor URL snippet copied" and body.startswith("With a new token, in the snippet.")
    assert "still has the old one, which no longer works" in body and "The HTTP endpoint is not running" in body


def test_codex_gets_its_token_as_the_line_that_sets_its_environment() -> None:
    copied, told, copy, notify = copying()
    spec = client_spec("codex")
    assert spec is not None
    copy_url_snippet(spec, None, None, URL, copy, notify)
    text = copied[-1]
    table = tomllib.loads(text)["mcp_servers"]["vault-recall"]
    # Still valid TOML to paste, and `required` as install writes it (Codex then refuses to start
    # without the token instead of starting without our tools).
    assert table == {"url": URL, "bearer_token_env_var": "VAULT_RECALL_TOKEN", "required": True}
    token = text.rsplit("export VAULT_RECALL_TOKEN=", 1)[1].strip()
    assert client_of_token(load_config(), token) == "codex"
    assert "reads it from VAULT_RECALL_TOKEN: the snippet's last line sets it" in told[-1][1]


def test_when_nothing_can_copy_a_new_token_is_shown_rather_than_lost() -> None:
    _, told, _, notify = copying()
    spec = client_spec("cursor")
    assert spec is not None
    copy_url_snippet(spec, None, None, URL, lambda text: False, notify)
    token = told[-1][1].rsplit(" ", 1)[1]
    assert told[-1][0] == "Cursor URL snippet not copied" and client_of_token(load_config(), token) == "cursor"
