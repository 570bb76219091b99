"""Snippets for every client parse with the format's real parser and carry our exact argv."""

from __future__ import annotations

import base64
import json
import shlex
import sys
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
import yaml

from tests.support.posix import linux_names
from vault_recall.app.app_errors import SnippetError
from vault_recall.app.cli.main import main
from vault_recall.app.clients.catalogue import CLIENTS, SERVER_NAME, ClientSpec, client_spec, config_location
from vault_recall.app.clients.launch import HOME_VARIABLES, SCRIPT, launcher, serve_argv, user_install_script
from vault_recall.app.clients.snippets import cli_snippet, file_snippet, link_snippet
from vault_recall.server.config.config_file import load_config

HOSTILE_BASES = [
    ["/opt/Vault Recall/bin/vault-recall"],
    ['/home/o\'brien/"quoted" dir/vault-recall'],
    ["C:\\Users\\Zoë Ünïcode\\AppData\\Local\\Programs\\Python\\python.exe", "-I", "-m", "vault_recall.app"],
    ["/home/日本語/.venv/bin/vault-recall"],
]
PINS = [None, Path("/home/me/My Notes/Vault #1"), Path("D:\\Obsidian\\Work vault")]


def parse(spec: ClientSpec, text: str) -> dict[str, Any]:
    if spec.format == "toml":
        return tomllib.loads(text)
    if spec.format == "yaml":
        loaded = yaml.safe_load(text)
        assert isinstance(loaded, dict)
        return loaded
    loaded = json.loads(text)
    assert isinstance(loaded, dict)
    return loaded


def argv_of(spec: ClientSpec, entry: dict[str, Any]) -> list[str]:
    if spec.id == "opencode":
        return list(entry["command"])
    command = entry["cmd"] if spec.id == "goose" else entry["command"]
    return [command, *entry["args"]]


@pytest.mark.parametrize("spec", CLIENTS, ids=[c.id for c in CLIENTS])
@pytest.mark.parametrize("base", HOSTILE_BASES, ids=["spaces", "quotes", "windows", "non-ascii"])
@pytest.mark.parametrize("pin", PINS, ids=["follow-config", "pinned", "pinned-windows"])
def test_every_file_snippet_parses_and_carries_the_exact_command(
    spec: ClientSpec, base: list[str], pin: Path | None
) -> None:
    argv = serve_argv(spec.id, pin, base=base)
    data = parse(spec, file_snippet(spec, argv))
    holder = data[spec.container]
    entry = next(i for i in holder if i["name"] == SERVER_NAME) if spec.is_list else holder[SERVER_NAME]
    assert argv_of(spec, entry) == argv
    assert argv[len(base) :][:3] == ["serve", "--client", spec.id]
    assert ("--vault" in argv) is (pin is not None)


@pytest.mark.parametrize("base", HOSTILE_BASES, ids=["spaces", "quotes", "windows", "non-ascii"])
def test_cli_forms_split_back_into_the_argv(base: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in HOME_VARIABLES:  # the default config folders: no environment to carry (nothing is written here)
        monkeypatch.delenv(name, raising=False)
    argv = serve_argv("x", Path("/My Notes"), base=base)
    claude = shlex.split(cli_snippet(client_spec("claude-code"), argv, windows=False))  # type: ignore[arg-type]
    assert claude[:6] == ["claude", "mcp", "add-json", "--scope", "user", SERVER_NAME]
    assert json.loads(claude[6]) == {"type": "stdio", "command": argv[0], "args": argv[1:], "alwaysLoad": True}
    codex = shlex.split(cli_snippet(client_spec("codex"), argv, windows=False))  # type: ignore[arg-type]
    assert codex == ["codex", "mcp", "add", SERVER_NAME, "--", *argv]
    gemini = shlex.split(cli_snippet(client_spec("gemini"), argv, windows=False))  # type: ignore[arg-type]
    assert gemini == ["gemini", "mcp", "add", "-s", "user", SERVER_NAME, argv[0], "--", *argv[1:]]
    code = shlex.split(cli_snippet(client_spec("vscode"), argv, windows=False))  # type: ignore[arg-type]
    assert code[:2] == ["code", "--add-mcp"]
    assert json.loads(code[2]) == {"name": SERVER_NAME, "command": argv[0], "args": argv[1:]}


@pytest.mark.parametrize("base", HOSTILE_BASES, ids=["spaces", "quotes", "windows", "non-ascii"])
def test_deep_links_decode_back_to_the_same_entry(base: list[str]) -> None:
    for client_id in ("cursor", "lm-studio"):
        spec = client_spec(client_id)
        assert spec is not None
        argv = serve_argv(client_id, None, base=base)
        link = urlsplit(link_snippet(spec, argv))
        query = parse_qs(link.query)
        assert query["name"] == [SERVER_NAME]
        assert json.loads(base64.b64decode(query["config"][0])) == spec.entry(argv)
    vscode = client_spec("vscode")
    assert vscode is not None
    argv = serve_argv("vscode", None, base=base)
    text = link_snippet(vscode, argv)
    assert text.startswith("vscode:mcp/install?")
    assert json.loads(unquote(text.split("?", 1)[1])) == {"name": SERVER_NAME, **vscode.entry(argv)}


def test_clients_without_a_form_say_which_forms_they_have() -> None:
    zed = client_spec("zed")
    assert zed is not None
    with pytest.raises(SnippetError, match="Zed has no command for adding servers; use --form file"):
        cli_snippet(zed, ["x"])
    with pytest.raises(SnippetError, match="Zed has no install link"):
        link_snippet(zed, ["x"])


def test_the_launcher_is_absolute_and_never_shadowed_by_the_working_folder() -> None:
    command = launcher()
    assert Path(command[0]).is_absolute()
    if len(command) > 1:
        assert command[1:] == ["-I", "-m", "vault_recall.app"]
    else:
        assert Path(command[0]).name.startswith("vault-recall")
        assert Path(command[0]).parent == Path(sys.executable).parent


def test_a_user_install_is_launched_by_its_script_in_the_user_base(tmp_path: Path) -> None:
    """`pip install --user`: the script is in ~/.local/bin, not beside the interpreter, and
    `python -I` would not see the user site the package is in."""
    user_site, scripts = tmp_path / "lib" / "site-packages", tmp_path / "bin"
    package = user_site / "vault_recall"
    package.mkdir(parents=True)
    scripts.mkdir()
    assert user_install_script(package, user_site, scripts) is None  # no script there
    (scripts / SCRIPT).write_text("#!/usr/bin/python3\n", encoding="utf-8")
    assert user_install_script(package, user_site, scripts) == scripts / SCRIPT
    elsewhere = tmp_path / "venv" / "site-packages" / "vault_recall"
    assert user_install_script(elsewhere, user_site, scripts) is None  # not a user install


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_every_client_but_jetbrains_has_a_config_file_on_every_platform(platform: str, tmp_path: Path) -> None:
    for spec in CLIENTS:
        location = config_location(spec.id, tmp_path, platform)
        assert (location is None) is (spec.id == "jetbrains"), spec.id


def test_snippet_list_names_every_client(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snippet", "--list"]) == 0
    out = capsys.readouterr().out
    assert len(CLIENTS) >= 15
    for spec in CLIENTS:
        assert f"{spec.id} " in out and spec.name in out


def test_printing_a_snippet_registers_the_client_and_says_so_beside_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snippet", "cursor"]) == 0
    printed = capsys.readouterr()
    # stdout is the snippet alone (to paste or pipe); what changed in our config is on stderr.
    assert json.loads(printed.out)["mcpServers"][SERVER_NAME]["args"] == ["serve", "--client", "cursor"]
    assert load_config().client("cursor") is not None
    assert printed.err == "Registered client 'cursor' in Vault Recall's config: its calls show under that name\n"
    # Printed again, nothing is added, and nothing said.
    assert main(["snippet", "cursor"]) == 0
    assert capsys.readouterr().err == ""


def test_an_unknown_client_lists_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snippet", "notepad"]) == 1
    assert "unknown client 'notepad'; known clients: claude-desktop, claude-code" in capsys.readouterr().err


def test_windows_cli_forms_are_powershell_literals() -> None:
    from vault_recall.app.clients.snippets import powershell_join

    argv = ["C:\\R&D\\%USERPROFILE%\\vault-recall.exe", "serve", "--client", "o'brien"]
    line = powershell_join(["codex", "mcp", "add", SERVER_NAME, "--", *argv])
    assert line == "codex mcp add vault-recall -- 'C:\\R&D\\%USERPROFILE%\\vault-recall.exe' serve --client 'o''brien'"
    assert powershell_join(["C:\\Program Files\\x.exe", "a"]) == "& 'C:\\Program Files\\x.exe' a"


@linux_names
def test_a_pinned_vault_path_that_is_not_utf8_is_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    folder = os.fsdecode(os.fsencode(tmp_path) + b"/v\xff")
    os.mkdir(folder)
    assert main(["snippet", "cursor", "--pin-vault", folder]) == 1
    assert "is not a UTF-8 path" in capsys.readouterr().err


def test_every_known_oauth_app_stands_for_a_client_of_the_catalogue() -> None:
    from vault_recall.app.clients.catalogue import client_spec
    from vault_recall.server.oauth.known_apps import KNOWN_APPS

    for client, _ in KNOWN_APPS:
        spec = client_spec(client)
        assert spec is not None and spec.http is not None and spec.oauth_login is not None, client
