"""Tokens for `vault-recall http` (only a hash in the config, strictly validated), and the URL
form of snippets and install for every client that connects by URL.  (The tray's endpoint
child runs a real `http` process: tests/e2e/test_tray_endpoint.py.)"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.support.posix import assert_mode, assert_private
from tests.support.url_entries import TOKEN, our_entry, token_of
from vault_recall.app.cli.main import main
from vault_recall.app.clients.catalogue import CLIENTS
from vault_recall.app.state.config_store import issue_token, revoke_token
from vault_recall.server.config.bearer_tokens import client_of_token, token_hash
from vault_recall.server.config.config_file import config_path, load_config, parse_config
from vault_recall.server.errors import ConfigError

URL = "http://127.0.0.1:27183/mcp"
URL_KEYS = {"url", "serverUrl", "httpUrl"}


# -- tokens in the config --------------------------------------------------------------------


def test_only_the_tokens_hash_is_kept_and_it_names_its_client(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["client", "token", "cursor"]) == 0
    out, err = capsys.readouterr()
    token = out.strip()
    assert TOKEN.fullmatch(token) and "shown only this once" in err
    text = config_path().read_text(encoding="utf-8")
    assert token not in text and token_hash(token) in text
    assert_mode(config_path(), 0o600)
    config = load_config()
    assert client_of_token(config, token) == "cursor"
    assert client_of_token(config, token[:-1] + ("A" if token[-1] != "A" else "B")) is None
    assert client_of_token(config, "") is None and client_of_token(config, token * 10) is None
    assert main(["client", "token", "cursor", "--revoke"]) == 0
    assert client_of_token(load_config(), token) is None
    assert main(["client", "token", "cursor", "--revoke"]) == 0
    assert "has no token" in capsys.readouterr().out


def test_a_new_token_replaces_the_old_one_and_other_clients_keep_theirs() -> None:
    first, replaced = issue_token("cursor")
    assert not replaced
    zed, _ = issue_token("zed")
    second, replaced = issue_token("cursor")
    config = load_config()
    assert replaced and client_of_token(config, first) is None and client_of_token(config, second) == "cursor"
    assert client_of_token(config, zed) == "zed"
    assert revoke_token("zed") and not revoke_token("zed")


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ('"abc"', "not a SHA-256 in hex"),
        ('"' + "A" * 64 + '"', "not a SHA-256 in hex"),
        ("42", "not a SHA-256 in hex"),
        ("[]", "not a SHA-256 in hex"),
        ('"' + "0" * 63 + 'g"', "not a SHA-256 in hex"),
    ],
)
def test_a_broken_token_hash_in_the_config_is_named_with_its_line(value: str, words: str) -> None:
    raw = f'{{"version": 1,\n "clients": [\n  {{"id": "cursor",\n   "token_sha256": {value}}}]}}'
    with pytest.raises(ConfigError) as caught:
        parse_config(raw.encode(), Path("config.json"))
    assert words in str(caught.value) and "line" in str(caught.value)


def test_two_clients_with_the_same_token_hash_are_refused_and_a_good_one_round_trips() -> None:
    digest = "a" * 64
    raw = {"version": 1, "clients": [{"id": "a", "token_sha256": digest}, {"id": "b", "token_sha256": digest}]}
    with pytest.raises(ConfigError, match="same token"):
        parse_config(json.dumps(raw).encode(), Path("config.json"))
    one = {"version": 1, "clients": [{"id": "a", "token_sha256": digest, "later": 1}]}
    config = parse_config(json.dumps(one).encode(), Path("config.json"))
    assert config.to_json()["clients"][0] == {
        "id": "a",
        "vault": "active",
        "exposure": "records",
        "token_sha256": digest,
        "later": 1,
    }


# -- snippets and install by URL ----------------------------------------------------------------


@pytest.mark.parametrize("spec", [c for c in CLIENTS if c.http], ids=lambda c: c.id)
def test_each_url_clients_snippet_parses_with_the_url_and_a_token_for_that_client(
    spec: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["snippet", spec.id, "--form", "http", "--url", URL]) == 0
    out, err = capsys.readouterr()
    entry = our_entry(spec.id, out)
    assert URL in {entry.get(key) for key in URL_KEYS}
    assert "command" not in entry and "args" not in entry
    token = token_of(entry, err)
    assert client_of_token(load_config(), token) == spec.id


def test_a_client_without_a_url_form_gets_a_sentence_and_no_token(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snippet", "cline", "--form", "http"]) == 1
    assert "Cline is not set up by URL here" in capsys.readouterr().err
    assert load_config().client("cline") is None


@pytest.mark.parametrize("client_id", ["cursor", "codex"])
def test_install_by_url_replaces_our_stdio_entry_keeps_the_rest_and_makes_the_file_private(
    client_id: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / ("config.toml" if client_id == "codex" else "mcp.json")
    assert main(["install", client_id, "--config-file", str(path)]) == 0  # the stdio entry first
    if client_id == "codex":
        path.write_text(path.read_text(encoding="utf-8") + '\n[mcp_servers.other]\ncommand = "x"\n', encoding="utf-8")
    else:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["mcpServers"]["other"] = {"command": "x"}
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    os.chmod(path, 0o644)
    capsys.readouterr()
    assert main(["install", client_id, "--form", "http", "--config-file", str(path)]) == 0
    out, err = capsys.readouterr()
    text = path.read_text(encoding="utf-8")
    entry = our_entry(client_id, text)
    assert "command" not in entry and "args" not in entry
    assert URL in {entry.get(key) for key in URL_KEYS}
    token = token_of(entry, err)
    assert client_of_token(load_config(), token) == client_id
    assert_mode(path, 0o600)
    assert "readable by you only" in out
    other = (
        tomllib.loads(text)["mcp_servers"]["other"] if client_id == "codex" else json.loads(text)["mcpServers"]["other"]
    )
    assert other == {"command": "x"}
    backups = list(tmp_path.glob("*.vault-recall.bak"))
    assert backups
    for backup in backups:
        if token in backup.read_text():
            assert_private(backup)


def test_a_dry_run_by_url_makes_no_token_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mcp.json"
    assert main(["install", "cursor", "--form", "http", "--dry-run", "--config-file", str(path)]) == 0
    assert "<new token>" in capsys.readouterr().out
    assert not path.exists() and load_config().client("cursor") is None
