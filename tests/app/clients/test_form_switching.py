"""Switching a client between the two forms of our entry — started (`serve`) and by URL —
replaces our entry whole in every client's format, with the same guarded write: no key of the
old form stays behind, what a person set that means the same in both forms stays, and nothing
else in the file changes."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomlkit

from vault_recall.app.cli.main import main
from vault_recall.app.clients.catalogue import CLIENTS, SERVER_NAME, ClientSpec
from vault_recall.app.clients.entry_form import FORM_FREE_KEYS, STDIO_KEYS, URL_KEYS, form_of
from vault_recall.app.clients.install import apply, plan_install
from vault_recall.app.clients.launch import serve_argv
from vault_recall.server.config.config_file import load_config

URL_CLIENTS = [spec for spec in CLIENTS if spec.http is not None]
URL = "http://127.0.0.1:27183/mcp"
# Keys that only a URL entry has, in any client's format: none may survive a switch to stdio.
URL_ONLY_KEYS = frozenset(
    {*URL_KEYS, "headers", "bearer_token_env_var", "http_headers", "env_http_headers", "headersHelper", "oauth"}
)


def read(spec: ClientSpec, path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text) if spec.format == "toml" else json.loads(text)
    assert isinstance(data, dict)
    return data


def ours(spec: ClientSpec, path: Path) -> dict[str, Any]:
    entry = read(spec, path)[spec.container][SERVER_NAME]
    assert isinstance(entry, dict)
    return entry


def without_ours(spec: ClientSpec, path: Path) -> dict[str, Any]:
    data = read(spec, path)
    data[spec.container] = {k: v for k, v in data[spec.container].items() if k != SERVER_NAME}
    return data


def start_file(spec: ClientSpec, path: Path) -> None:
    """A file with the person's own settings and another server beside ours-to-be."""
    if spec.format == "toml":
        path.write_text(
            '# my codex settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other-server"\n', encoding="utf-8"
        )
    else:
        path.write_text(
            json.dumps({"theme": "dark", spec.container: {"other": {"command": "other-server"}}}, indent=2) + "\n",
            encoding="utf-8",
        )


def set_in_entry(spec: ClientSpec, path: Path, **keys: Any) -> None:
    """What a person adds to our entry by hand."""
    if spec.format == "toml":
        document = tomlkit.parse(path.read_text(encoding="utf-8"))
        table = document[spec.container][SERVER_NAME]  # type: ignore[index]
        for key, value in keys.items():
            table[key] = value  # type: ignore[index]
        path.write_text(tomlkit.dumps(document), encoding="utf-8")
    else:
        data = read(spec, path)
        data[spec.container][SERVER_NAME].update(keys)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def cli(*args: str) -> int:
    return main(list(args))


@pytest.mark.parametrize("spec", URL_CLIENTS, ids=lambda s: s.id)
def test_switching_to_the_url_and_back_replaces_our_entry_whole_and_keeps_the_rest(
    spec: ClientSpec, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / ("config.toml" if spec.format == "toml" else "settings.json")
    start_file(spec, path)
    assert cli("install", spec.id, "--config-file", str(path)) == 0
    rest = without_ours(spec, path)
    stdio = ours(spec, path)
    assert form_of(stdio) == "stdio"

    assert cli("install", spec.id, "--form", "http", "--config-file", str(path)) == 0
    by_url = ours(spec, path)
    assert form_of(by_url) == "url"
    assert not STDIO_KEYS & by_url.keys(), by_url
    # Exactly the URL entry a fresh install writes (its token aside), and what the old entry
    # had that means the same in both forms (Codex's `required`, Claude Code's `alwaysLoad`).
    assert by_url.keys() == spec.http(URL, "t").keys() | (stdio.keys() & FORM_FREE_KEYS)  # type: ignore[misc]
    assert without_ours(spec, path) == rest
    assert "Replaced the Vault Recall entry" in capsys.readouterr().out

    assert cli("install", spec.id, "--config-file", str(path)) == 0
    back = ours(spec, path)
    assert back == stdio  # the very entry of the first install: nothing of the URL form is left
    assert not URL_ONLY_KEYS & back.keys()
    assert without_ours(spec, path) == rest
    out = capsys.readouterr().out
    assert "Replaced the Vault Recall entry" in out
    # The token the URL entry held is sent by no entry now: revoked, so the backup's copy is dead too.
    assert f"Revoked {spec.id}'s token" in out
    client = load_config().client(spec.id)
    assert client is not None and client.token_sha256 is None


@pytest.mark.parametrize("spec", URL_CLIENTS, ids=lambda s: s.id)
def test_an_entry_holding_both_forms_is_made_whole_by_either_install(
    spec: ClientSpec, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What an older install's merge left: a command and a URL side by side (Codex refuses to
    start with it, Gemini keeps the URL)."""
    path = tmp_path / ("config.toml" if spec.format == "toml" else "settings.json")
    start_file(spec, path)
    assert cli("install", spec.id, "--config-file", str(path)) == 0
    set_in_entry(spec, path, **spec.http(URL, "vrt_left-behind"))  # type: ignore[misc]
    assert form_of(ours(spec, path)) == "both"
    assert cli("install", spec.id, "--config-file", str(path)) == 0
    assert form_of(ours(spec, path)) == "stdio" and not URL_ONLY_KEYS & ours(spec, path).keys()
    set_in_entry(spec, path, **spec.http(URL, "vrt_left-behind"))  # type: ignore[misc]
    assert cli("install", spec.id, "--form", "http", "--config-file", str(path)) == 0
    assert form_of(ours(spec, path)) == "url" and not STDIO_KEYS & ours(spec, path).keys()
    assert "vrt_left-behind" not in path.read_text(encoding="utf-8")


def test_what_a_person_set_that_means_the_same_in_both_forms_survives_the_switch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = next(s for s in URL_CLIENTS if s.id == "codex")
    path = tmp_path / "config.toml"
    start_file(spec, path)
    assert cli("install", "codex", "--config-file", str(path)) == 0
    set_in_entry(spec, path, required=False, startup_timeout_sec=45, tool_timeout_sec=90)
    with path.open("a", encoding="utf-8") as f:
        f.write('OWN = "mine"\n')  # into our entry's env table, the last table in the file
    assert ours(spec, path)["env"]["OWN"] == "mine"

    assert cli("install", "codex", "--form", "http", "--config-file", str(path)) == 0
    by_url = ours(spec, path)
    assert by_url["required"] is False  # the person's own value, not ours
    assert (by_url["startup_timeout_sec"], by_url["tool_timeout_sec"]) == (45, 90)
    assert "env" not in by_url  # Codex refuses `env` on a URL server: stdio-only keys go

    assert cli("install", "codex", "--config-file", str(path)) == 0
    back = ours(spec, path)
    assert (back["required"], back["startup_timeout_sec"], back["tool_timeout_sec"]) == (False, 45, 90)
    assert "url" not in back and "bearer_token_env_var" not in back


def test_codexs_url_entry_is_required_like_its_stdio_entry(tmp_path: Path) -> None:
    spec = next(s for s in URL_CLIENTS if s.id == "codex")
    path = tmp_path / "config.toml"
    assert cli("install", "codex", "--form", "http", "--config-file", str(path)) == 0
    assert ours(spec, path) == {"url": URL, "bearer_token_env_var": "VAULT_RECALL_TOKEN", "required": True}


def test_a_switch_is_one_guarded_write_with_one_backup(tmp_path: Path) -> None:
    """The old entry is not first removed and then the new one added: a client reading the file
    in between would find no entry of ours at all."""
    spec = next(s for s in URL_CLIENTS if s.id == "cursor")
    path = tmp_path / "mcp.json"
    start_file(spec, path)
    apply(plan_install(spec, serve_argv("cursor"), path))
    before = sorted(tmp_path.glob("*.vault-recall.bak"))
    assert cli("install", "cursor", "--form", "http", "--config-file", str(path)) == 0
    assert len(sorted(tmp_path.glob("*.vault-recall.bak"))) == len(before) + 1
