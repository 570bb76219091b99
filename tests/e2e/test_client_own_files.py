"""The files each client's own `mcp add` writes are the files `vault-recall doctor`, `install` and
`uninstall` read and edit, run as processes as the person runs them: opencode's
`opencode.jsonc` (what opencode 1.18 makes in a new home), with the comments a person adds to a
JSONC file kept through an install and an uninstall; Claude Code's `.claude.json` under
`CLAUDE_CONFIG_DIR` and Gemini CLI's `settings.json` under `GEMINI_CLI_HOME`, where those
clients write them when told so."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.doctor import doctor_line
from tests.support.e2e import copy_sample_vault, vault_recall_command
from vault_recall.app.clients.catalogue import SERVER_NAME
from vault_recall.app.clients.json_edit import parse_object
from vault_recall.app.state.config_store import update_config
from vault_recall.server.config.config_file import Config, VaultEntry

pytestmark = pytest.mark.e2e

URL = "http://127.0.0.1:9/mcp"  # nothing listens there: doctor says so, and reads the file to say it
# opencode 1.18.33 in a new home: its first start writes the `$schema` file, `opencode mcp add`
# adds the server to it (byte for byte as it left them here); then a person's comments.
OPENCODE_JSONC = (
    "{\n"
    "  // my opencode settings\n"
    '  "$schema": "https://opencode.ai/config.json",\n'
    '  "theme": "dark", /* the one I like */\n'
    '  "mcp": {\n'
    '    "notes": {\n'
    '      "type": "remote",\n'
    '      "url": "https://notes.example/mcp",\n'
    "    },\n"
    "  },\n"
    "}"
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "me"
    home.mkdir()
    for variable in ("XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(home))
    vault = copy_sample_vault(tmp_path / "Notes")
    update_config(lambda c: Config(vaults=(VaultEntry("Notes", str(vault)),), active_vault="Notes"))
    return home


def vr(*words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*vault_recall_command(), *words],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
        check=False,
    )


def test_opencodes_jsonc_is_the_file_doctor_install_and_uninstall_use_keeping_its_comments(home: Path) -> None:
    folder = home / ".config/opencode"
    folder.mkdir(parents=True)
    jsonc = folder / "opencode.jsonc"
    jsonc.write_text(OPENCODE_JSONC, encoding="utf-8")

    dry = vr("install", "opencode", "--form", "http", "--url", URL, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert str(jsonc) in dry.stdout and re.search(r"opencode\.json(?!c)", dry.stdout) is None, dry.stdout
    assert sorted(p.name for p in folder.iterdir()) == ["opencode.jsonc"]  # no second file beside it

    installed = vr("install", "opencode")
    assert installed.returncode == 0, installed.stderr
    assert not (folder / "opencode.json").exists()
    text = jsonc.read_text(encoding="utf-8")
    for kept in ("// my opencode settings", "/* the one I like */", '"url": "https://notes.example/mcp",'):
        assert kept in text, text
    data = parse_object(text, str(jsonc), comments=True)
    assert data["theme"] == "dark" and set(data["mcp"]) == {"notes", SERVER_NAME}
    assert data["mcp"][SERVER_NAME]["type"] == "local"

    verdict, line, _ = doctor_line("opencode")
    assert str(jsonc) in line, line  # doctor found our entry there and started it
    assert verdict == "ok", line

    removed = vr("uninstall", "opencode")
    assert removed.returncode == 0, removed.stderr
    assert jsonc.read_text(encoding="utf-8") == OPENCODE_JSONC


def test_opencodes_json_is_used_where_it_is_the_file_opencode_writes(home: Path) -> None:
    folder = home / ".config/opencode"
    folder.mkdir(parents=True)
    (folder / "opencode.json").write_text('{"$schema": "https://opencode.ai/config.json"}\n', encoding="utf-8")
    (folder / "opencode.jsonc").write_text("{}", encoding="utf-8")
    installed = vr("install", "opencode")
    assert installed.returncode == 0, installed.stderr
    assert SERVER_NAME in json.loads((folder / "opencode.json").read_text(encoding="utf-8"))["mcp"]
    assert (folder / "opencode.jsonc").read_text(encoding="utf-8") == "{}"


def test_claude_codes_and_gemini_clis_own_homes_are_where_doctor_looks(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = tmp_path / "claude-config"
    gemini = tmp_path / "gemini-home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(gemini))
    (gemini / ".gemini").mkdir(parents=True)
    claude.mkdir()
    # As `claude mcp add --transport http -s user` and `gemini mcp add -s user -t http` write them there.
    entry = {"mcpServers": {SERVER_NAME: {"type": "http", "url": URL}}}
    (claude / ".claude.json").write_text(json.dumps(entry, indent=2), encoding="utf-8")
    (gemini / ".gemini/settings.json").write_text(json.dumps(entry, indent=2), encoding="utf-8")
    for client, path in (("claude-code", claude / ".claude.json"), ("gemini", gemini / ".gemini/settings.json")):
        verdict, line, fix = doctor_line(client)
        assert verdict == "FAIL" and f"{path}: by URL, {URL}: nothing listens there" in line, line
        assert "vault-recall http --listen 127.0.0.1:9" in fix
    assert not (home / ".claude.json").exists() and not (home / ".gemini").exists()
