"""Every entry carries what its server needs to reach this config and activity store, and
tells a client that does not wait for a late server by itself to wait."""

from __future__ import annotations

import json
import os
import shlex
import tomllib
from pathlib import Path

import pytest
import yaml

from vault_recall.app.clients.catalogue import CLIENTS, SERVER_NAME, ClientSpec, client_spec
from vault_recall.app.clients.install import apply, plan_install
from vault_recall.app.clients.launch import home_env
from vault_recall.app.clients.snippets import cli_snippet, file_snippet

ARGV = ["/opt/vault recall/bin/vault-recall", "serve", "--client", "x"]


def test_vault_recall_home_is_carried_as_an_absolute_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    env = home_env({"VAULT_RECALL_HOME": "portable", "XDG_CONFIG_HOME": "/elsewhere"}, "linux")
    assert env == {"VAULT_RECALL_HOME": str(tmp_path / "portable")}


def test_xdg_folders_are_carried_only_when_they_move_our_files() -> None:
    home = Path.home()
    assert home_env({}, "linux") == {}
    assert home_env({"XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".local/state")}) == {}
    assert home_env({"XDG_CONFIG_HOME": "/srv/cfg", "XDG_STATE_HOME": "/srv/state"}, "linux") == {
        "XDG_CONFIG_HOME": "/srv/cfg",
        "XDG_STATE_HOME": "/srv/state",
    }
    assert home_env({"XDG_CONFIG_HOME": "relative/cfg"}, "linux") == {}  # ignored by platformdirs too
    assert home_env({"XDG_CONFIG_HOME": "/srv/cfg"}, "win32") == {}


def _entry_in(spec: ClientSpec, text: str) -> dict[str, object]:
    data = (
        tomllib.loads(text)
        if spec.format == "toml"
        else yaml.safe_load(text)
        if spec.format == "yaml"
        else json.loads(text)
    )
    holder = data[spec.container]
    entry = next(i for i in holder if i["name"] == SERVER_NAME) if spec.is_list else holder[SERVER_NAME]
    assert isinstance(entry, dict)
    return entry


@pytest.mark.parametrize("spec", CLIENTS, ids=lambda s: s.id)
def test_each_clients_entry_carries_the_environment_in_its_own_key(spec: ClientSpec) -> None:
    entry = _entry_in(spec, file_snippet(spec, ARGV))
    assert entry[spec.env_key] == {"VAULT_RECALL_HOME": os.environ["VAULT_RECALL_HOME"]}


def test_the_cli_forms_carry_the_environment() -> None:
    home = os.environ["VAULT_RECALL_HOME"]
    claude = shlex.split(cli_snippet(client_spec("claude-code"), ARGV, windows=False))  # type: ignore[arg-type]
    assert claude[:6] == ["claude", "mcp", "add-json", "--scope", "user", SERVER_NAME]
    assert json.loads(claude[6])["env"] == {"VAULT_RECALL_HOME": home}
    codex = shlex.split(cli_snippet(client_spec("codex"), ARGV, windows=False))  # type: ignore[arg-type]
    assert codex[:5] == ["codex", "mcp", "add", "--env", f"VAULT_RECALL_HOME={home}"]
    gemini = shlex.split(cli_snippet(client_spec("gemini"), ARGV, windows=False))  # type: ignore[arg-type]
    assert gemini[5:7] == ["-e", f"VAULT_RECALL_HOME={home}"]
    code = shlex.split(cli_snippet(client_spec("vscode"), ARGV, windows=False))  # type: ignore[arg-type]
    assert json.loads(code[2])["env"] == {"VAULT_RECALL_HOME": home}


@pytest.mark.parametrize("client_id", ["cursor", "codex", "goose", "opencode", "continue"])
def test_reinstalling_elsewhere_moves_our_variables_and_keeps_the_persons(
    client_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = client_spec(client_id)
    assert spec is not None
    path = tmp_path / f"config.{spec.format}"
    apply(plan_install(spec, ARGV, path))
    text = path.read_text(encoding="utf-8")
    # The person adds a variable of their own to our entry.
    first = _entry_in(spec, text)
    patched = {**first, spec.env_key: {**first[spec.env_key], "MINE": "kept"}}  # type: ignore[dict-item]
    path.write_text(_with_entry(spec, path.read_text(encoding="utf-8"), patched), encoding="utf-8")
    # Installed again from a shell with other XDG folders and no VAULT_RECALL_HOME.
    monkeypatch.delenv("VAULT_RECALL_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", "/srv/cfg")
    monkeypatch.setenv("XDG_STATE_HOME", "/srv/state")
    apply(plan_install(spec, ARGV, path))
    again = _entry_in(spec, path.read_text(encoding="utf-8"))
    assert again[spec.env_key] == {"MINE": "kept", "XDG_CONFIG_HOME": "/srv/cfg", "XDG_STATE_HOME": "/srv/state"}


def _with_entry(spec: ClientSpec, text: str, entry: dict[str, object]) -> str:
    """The file with our entry replaced by `entry`, written as a person would."""
    if spec.format == "toml":
        import tomlkit

        document = tomlkit.parse(text)
        document[spec.container][SERVER_NAME] = entry  # type: ignore[index]
        return tomlkit.dumps(document)
    data = yaml.safe_load(text) if spec.format == "yaml" else json.loads(text)
    if spec.is_list:
        data[spec.container] = [entry if i["name"] == SERVER_NAME else i for i in data[spec.container]]
    else:
        data[spec.container][SERVER_NAME] = entry
    return yaml.safe_dump(data) if spec.format == "yaml" else json.dumps(data, indent=2)


def test_the_clients_that_start_without_a_late_server_are_told_to_wait() -> None:
    codex = client_spec("codex")
    claude = client_spec("claude-code")
    assert codex is not None and claude is not None
    codex_entry = codex.entry(["/bin/vault-recall", "serve", "--client", "codex"])
    assert codex_entry["required"] is True and codex_entry["startup_timeout_sec"] == 20
    assert claude.entry(["/bin/vault-recall", "serve", "--client", "claude-code"])["alwaysLoad"] is True
