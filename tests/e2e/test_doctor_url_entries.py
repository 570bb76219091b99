"""`vault-recall doctor` checks an entry by URL for real, against a real `vault-recall http` on
127.0.0.1: the endpoint answers at the entry's URL, takes the token the entry makes its client
send (Codex: the variable it names, from the shell that starts Codex), as that client's, from
this config and into this activity store.  Each failure is one line and a fix that keeps the
client's form; the fix, when run, makes the check pass."""

from __future__ import annotations

import json
import shlex
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.doctor import doctor_line
from tests.support.e2e import copy_sample_vault
from tests.support.http_e2e import Endpoint, running_endpoint
from tests.support.oauth_browser import (
    Waiting,
    approve,
    authorization_url,
    authorize_params,
    open_authorization,
    pkce,
    register,
    vault_recall,
)
from vault_recall.app.cli.main import main
from vault_recall.app.clients.catalogue import SERVER_NAME, TOKEN_ENV
from vault_recall.app.state.config_store import update_config
from vault_recall.server.config.config_file import Config, VaultEntry

pytestmark = pytest.mark.e2e


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A person's home (the clients' files) and a vault of their own, active."""
    home = tmp_path / "me"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    vault = copy_sample_vault(tmp_path / "Notes")
    update_config(lambda c: Config(vaults=(VaultEntry("Notes", str(vault)),), active_vault="Notes"))
    return home


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    with running_endpoint() as running:
        yield running


def vr(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def doctor_says(capsys: pytest.CaptureFixture[str], client: str) -> tuple[str, str, str]:
    """(ok | FAIL, the client's line, its fix line or '')."""
    main(["doctor"])
    lines = capsys.readouterr().out.splitlines()
    index = next(i for i, line in enumerate(lines) if line[6:].startswith(f"client {client} "))
    fix = lines[index + 1].strip() if index + 1 < len(lines) and lines[index + 1].startswith(" ") else ""
    return lines[index][:4].strip(), lines[index], fix


def run_fix(capsys: pytest.CaptureFixture[str], fix: str, *, url: str) -> None:
    """Run the `vault-recall …` command a fix line names, as the person would."""
    command = fix.removeprefix("fix: ").split(" (")[0].split(",")[0]
    words = shlex.split(command)
    assert words[0] == "vault-recall", fix
    code, _, err = vr(capsys, *words[1:])
    assert code == 0, err


def install(capsys: pytest.CaptureFixture[str], client: str, url: str) -> None:
    code, _, err = vr(capsys, "install", client, "--form", "http", "--url", url)
    assert code == 0, err


def entry(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["mcpServers"][SERVER_NAME]
    return found


def test_a_working_url_entry_is_ok_and_names_the_client_the_vault_and_the_store(
    home: Path, endpoint: Endpoint, capsys: pytest.CaptureFixture[str]
) -> None:
    install(capsys, "claude-code", endpoint.url)
    verdict, line, _ = doctor_says(capsys, "claude-code")
    assert verdict == "ok", line
    assert f"by URL, {endpoint.url}" in line and "as 'claude-code''s" in line
    assert "vault 'Notes'" in line and "this activity store" in line


def test_a_revoked_token_fails_with_a_fix_that_keeps_the_url_and_works(
    home: Path, endpoint: Endpoint, capsys: pytest.CaptureFixture[str]
) -> None:
    install(capsys, "claude-code", endpoint.url)
    assert vr(capsys, "client", "token", "claude-code", "--revoke")[0] == 0
    verdict, line, fix = doctor_says(capsys, "claude-code")
    assert verdict == "FAIL" and "refused the token in the Authorization header of the entry" in line, line
    assert f"vault-recall install claude-code --form http --url {endpoint.url}" in fix
    run_fix(capsys, fix, url=endpoint.url)
    verdict, line, _ = doctor_says(capsys, "claude-code")
    assert verdict == "ok", line
    assert entry(home / ".claude.json")["type"] == "http"  # still by URL, as the person chose


def test_a_stopped_endpoint_fails_with_the_command_that_starts_it(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    install(capsys, "gemini", url)
    verdict, line, fix = doctor_says(capsys, "gemini")
    assert verdict == "FAIL" and f"by URL, {url}: nothing listens there" in line, line
    assert f"vault-recall http --listen 127.0.0.1:{port}" in fix


def test_a_mistyped_path_fails_with_the_right_url(
    home: Path, endpoint: Endpoint, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = endpoint.url.replace("/mcp", "/mpc")
    install(capsys, "cursor", wrong)
    verdict, line, fix = doctor_says(capsys, "cursor")
    assert verdict == "FAIL" and "answers there at another path (/mcp)" in line, line
    assert fix == f"fix: vault-recall install cursor --form http --url {endpoint.url}"
    run_fix(capsys, fix, url=endpoint.url)
    assert doctor_says(capsys, "cursor")[0] == "ok"


def test_a_mistyped_token_fails_and_another_clients_token_is_named(
    home: Path, endpoint: Endpoint, capsys: pytest.CaptureFixture[str]
) -> None:
    install(capsys, "cursor", endpoint.url)
    install(capsys, "windsurf", endpoint.url)
    path = home / ".cursor/mcp.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    good = data["mcpServers"][SERVER_NAME]["headers"]["Authorization"]
    data["mcpServers"][SERVER_NAME]["headers"]["Authorization"] = good[:-2] + "xx"
    path.write_text(json.dumps(data), encoding="utf-8")
    verdict, line, _ = doctor_says(capsys, "cursor")
    assert verdict == "FAIL" and "revoked, replaced by a newer one, or mistyped" in line, line

    windsurf = entry(home / ".codeium/windsurf/mcp_config.json")
    data["mcpServers"][SERVER_NAME]["headers"] = windsurf["headers"]  # Windsurf's token pasted into Cursor
    path.write_text(json.dumps(data), encoding="utf-8")
    verdict, line, fix = doctor_says(capsys, "cursor")
    assert verdict == "FAIL" and "as 'windsurf''s, not 'cursor''s" in line, line
    run_fix(capsys, fix, url=endpoint.url)
    assert doctor_says(capsys, "cursor")[0] == "ok"
    assert doctor_says(capsys, "windsurf")[0] == "ok"  # the fix took nothing from Windsurf


def test_codexs_token_is_looked_for_in_the_shell_that_starts_codex(
    home: Path, endpoint: Endpoint, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = vr(capsys, "install", "codex", "--form", "http", "--url", endpoint.url)
    assert code == 0
    token = err.split(f"export {TOKEN_ENV}=", 1)[1].split()[0]
    verdict, line, fix = doctor_says(capsys, "codex")
    assert verdict == "FAIL" and f"{TOKEN_ENV} is not set in the environment Codex CLI starts from" in line, line
    assert f"export {TOKEN_ENV}=" in fix
    monkeypatch.setenv(TOKEN_ENV, token)
    verdict, line, _ = doctor_says(capsys, "codex")
    assert verdict == "ok" and f"${TOKEN_ENV}" in line, line


def test_an_entry_holding_both_forms_is_named_and_either_fix_makes_it_whole(
    home: Path, endpoint: Endpoint, capsys: pytest.CaptureFixture[str]
) -> None:
    assert vr(capsys, "install", "codex")[0] == 0
    config = home / ".codex/config.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace("[mcp_servers.vault-recall]\n", f'[mcp_servers.vault-recall]\nurl = "{endpoint.url}"\n'),
        encoding="utf-8",
    )
    verdict, line, fix = doctor_says(capsys, "codex")
    assert verdict == "FAIL" and "both a command and a URL" in line and "refuses to start" in line, line
    run_fix(capsys, fix, url=endpoint.url)
    verdict, line, _ = doctor_says(capsys, "codex")
    assert verdict == "ok" and "a cleared environment" in line, line  # started as a process again


def test_a_pinned_stdio_entry_is_told_to_stay_pinned(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    vault = home.parent / "Notes"
    assert vr(capsys, "install", "cursor", "--pin-vault", str(vault))[0] == 0
    path = home / ".cursor/mcp.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["mcpServers"][SERVER_NAME]["command"] = "vault-recall"  # not an absolute path
    path.write_text(json.dumps(data), encoding="utf-8")
    verdict, _, fix = doctor_says(capsys, "cursor")
    assert verdict == "FAIL" and f"vault-recall install cursor --pin-vault {vault}" in fix


# Entries naming no token, as each client's own `mcp add` writes them to authorize with OAuth
# (Claude Code 2.1.332 `claude mcp add --transport http -s user`, Codex 0.171 `codex mcp add
# --url`, Gemini CLI 0.61 `gemini mcp add -s user -t http`, opencode 1.18.33 `opencode mcp add
# --url`, which writes `opencode.jsonc` in a new home): their files, byte for byte as they left
# them here, the URL aside.
OAUTH_ENTRIES = {
    "claude-code": (
        ".claude.json",
        '{\n  "mcpServers": {\n    "vault-recall": {\n      "type": "http",\n      "url": URL\n    }\n  }\n}',
    ),
    "codex": (".codex/config.toml", "[mcp_servers.vault-recall]\nurl = URL\n"),
    "gemini": (
        ".gemini/settings.json",
        '{\n  "mcpServers": {\n    "vault-recall": {\n      "url": URL,\n      "type": "http"\n    }\n  }\n}',
    ),
    "opencode": (
        ".config/opencode/opencode.jsonc",
        '{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {\n    "vault-recall": {\n'
        '      "type": "remote",\n      "url": URL\n    }\n  }\n}',
    ),
}


def write_oauth_entry(home: Path, client: str, url: str) -> Path:
    name, text = OAUTH_ENTRIES[client]
    path = home / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.replace("URL", json.dumps(url)), encoding="utf-8")
    return path


def start_authorization(endpoint: Endpoint, app: str) -> Waiting:
    """An app registers and sends the person's browser to authorize it, as a client does."""
    base = f"http://127.0.0.1:{endpoint.port}"
    _, challenge = pkce()
    params = authorize_params(register(base, app), challenge, resource=f"{base}/mcp")
    return open_authorization(authorization_url(base, params))


# What each client registers as (its `client_name`, from its own source: docs/clients.md).
APP_NAMES = {
    "claude-code": "Claude Code (vault-recall)",
    "codex": "Codex",
    "gemini": "Gemini CLI MCP Client",
    "opencode": "OpenCode",
}
LOGINS = {
    "claude-code": "claude mcp login vault-recall",
    "codex": "codex mcp login vault-recall",
    "gemini": "/mcp auth vault-recall",
    "opencode": "opencode mcp auth vault-recall",
}


@pytest.mark.parametrize("client", sorted(OAUTH_ENTRIES))
def test_an_entry_that_authorizes_with_oauth_is_told_to_log_in_never_to_reinstall(
    home: Path, endpoint: Endpoint, capsys: pytest.CaptureFixture[str], client: str
) -> None:
    write_oauth_entry(home, client, endpoint.url)
    verdict, line, fix = doctor_says(capsys, client)
    assert verdict == "FAIL" and "authorizes with OAuth, and " in line and "holds no grant here yet" in line, line
    assert fix.startswith(f"fix: {LOGINS[client]}"), fix
    assert "vault-recall client approve CODE" in fix
    assert "install" not in fix  # a URL entry with a token would be another setup than the person's


def test_an_oauth_entry_at_a_wrong_address_is_corrected_in_place_never_reinstalled(
    home: Path, endpoint: Endpoint, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    path = write_oauth_entry(home, "gemini", f"http://127.0.0.1:{port}/mcp")
    verdict, line, fix = doctor_says(capsys, "gemini")
    assert verdict == "FAIL" and "nothing listens there" in line, line
    assert f"vault-recall http --listen 127.0.0.1:{port}" in fix and f"correct the URL in {path}" in fix, fix
    assert "install" not in fix  # it would swap the person's OAuth for a token

    wrong = endpoint.url.replace("/mcp", "/mpc")
    write_oauth_entry(home, "gemini", wrong)
    verdict, line, fix = doctor_says(capsys, "gemini")
    assert verdict == "FAIL" and "answers there at another path (/mcp)" in line, line
    assert fix == f"fix: put {endpoint.url} as the URL in {path}"
    write_oauth_entry(home, "gemini", endpoint.url)  # the fix, done as the person would
    verdict, line, _ = doctor_says(capsys, "gemini")
    assert "authorizes with OAuth" in line, line


@pytest.mark.parametrize("client", sorted(OAUTH_ENTRIES))
@pytest.mark.parametrize("as_client", [None, "work-laptop"])
def test_an_oauth_entry_is_judged_by_the_grant_its_app_holds_whatever_id_it_was_approved_as(
    home: Path, endpoint: Endpoint, client: str, as_client: str | None
) -> None:
    write_oauth_entry(home, client, endpoint.url)
    waiting = start_authorization(endpoint, APP_NAMES[client])
    assert f"as the client <b>{client}</b>" in waiting.text  # the page suggests the catalogue's id
    verdict, line, fix = doctor_line(client)
    assert verdict == "FAIL" and f"{APP_NAMES[client]!r} (code {waiting.approval_code})" in line, line
    assert fix.startswith(f"fix: vault-recall client approve {waiting.approval_code} (it acts as {client};"), fix
    approved = approve(waiting, as_client)
    acting = as_client or client
    assert f"as client {acting!r}" in approved
    verdict, line, _ = doctor_line(client)
    assert verdict == "ok", line
    assert f"authorizes with OAuth; 1 grant acts as {acting!r} ({APP_NAMES[client]})" in line, line
    others = [other for other in OAUTH_ENTRIES if other != client]
    for other in others:  # another client's entry is not made ok by this app's grant
        write_oauth_entry(home, other, endpoint.url)
        verdict, line, _ = doctor_line(other)
        assert verdict == "FAIL" and "holds no grant here yet" in line, line
    assert vault_recall("client", "revoke", acting).returncode == 0
    verdict, line, _ = doctor_line(client)
    assert verdict == "FAIL" and "holds no grant here yet" in line, line


def test_an_unknown_app_is_named_never_offered_and_counts_once_approved_as_the_clients_id(
    home: Path, endpoint: Endpoint, capsys: pytest.CaptureFixture[str]
) -> None:
    write_oauth_entry(home, "claude-code", endpoint.url)
    write_oauth_entry(home, "gemini", endpoint.url)
    waiting = start_authorization(endpoint, "Some proxy")
    for client in ("claude-code", "gemini"):
        # Any program may register under any name: approving it as this client would give it
        # all the client may see, so the fix is the client's own login, and the app only named.
        verdict, line, fix = doctor_says(capsys, client)
        assert verdict == "FAIL" and "holds no grant here yet" in line, line
        assert f"'Some proxy' (code {waiting.approval_code})" in line, line
        assert fix.startswith(f"fix: {LOGINS[client]}") and "then vault-recall client approve CODE with" in fix, fix
        assert "only if it is " in fix and f"approve {waiting.approval_code} --as {client})" in fix, fix
    run_fix(capsys, f"fix: vault-recall client approve {waiting.approval_code} --as claude-code", url=endpoint.url)
    verdict, line, _ = doctor_says(capsys, "claude-code")
    assert verdict == "ok" and "1 grant acts as 'claude-code' (Some proxy)" in line, line
    verdict, line, _ = doctor_says(capsys, "gemini")
    assert verdict == "FAIL" and "Some proxy" not in line, line  # approved: waits no more


def test_without_oauth_an_entry_naming_no_token_is_told_to_carry_one(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with running_endpoint("--no-oauth") as plain:
        write_oauth_entry(home, "claude-code", plain.url)
        verdict, line, fix = doctor_says(capsys, "claude-code")
    assert verdict == "FAIL" and "sends no Authorization header" in line, line
    assert f"vault-recall install claude-code --form http --url {plain.url}" in fix


def test_an_oauth_entry_whose_grant_was_made_at_another_address_will_authorize_again(
    home: Path, endpoint: Endpoint, capsys: pytest.CaptureFixture[str]
) -> None:
    # A token is taken only at the address it was made at (audience by address): a grant made at
    # 127.0.0.1 serves no entry at localhost, though both reach this endpoint.
    by_name = f"http://localhost:{endpoint.port}/mcp"
    path = write_oauth_entry(home, "claude-code", by_name)
    approve(start_authorization(endpoint, APP_NAMES["claude-code"]))  # at 127.0.0.1
    verdict, line, fix = doctor_says(capsys, "claude-code")
    assert verdict == "FAIL", line
    assert f"its grant ('claude-code' (Claude Code (vault-recall))) was made at {endpoint.url}" in line, line
    assert f"will have to authorize again at {by_name}" in line, line
    assert fix.startswith(f"fix: {LOGINS['claude-code']}") and "then vault-recall client approve CODE" in fix, fix
    assert f"or put {endpoint.url} as the URL in {path}" in fix, fix
    write_oauth_entry(home, "claude-code", endpoint.url)  # the second fix, done as the person would
    verdict, line, _ = doctor_says(capsys, "claude-code")
    assert verdict == "ok" and "1 grant acts as 'claude-code'" in line, line
    # The first fix: the client authorizes again, at the entry's own address.
    write_oauth_entry(home, "claude-code", by_name)
    base = f"http://localhost:{endpoint.port}"
    _, challenge = pkce()
    params = authorize_params(register(base, APP_NAMES["claude-code"]), challenge, resource=by_name)
    approve(open_authorization(authorization_url(base, params)))
    verdict, line, _ = doctor_says(capsys, "claude-code")
    assert verdict == "ok" and "1 grant acts as 'claude-code'" in line, line
