"""`vault-recall desktop install|uninstall` and `vault-recall doctor` on healthy and broken setups."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.paths import SAMPLE_VAULT
from vault_recall.app.cli.main import main
from vault_recall.app.desktop import launcher_entry
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import Config, VaultEntry, activity_path, config_path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A person's home of its own: the clients' config files and XDG folders live there."""
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "me/.config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "me/.local/share"))
    (tmp_path / "me").mkdir()
    return tmp_path / "me"


def test_the_launcher_installs_a_valid_entry_and_icons_and_uninstalls_cleanly(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["desktop", "install"]) == 0
    entry = home / ".local/share/applications/vault-recall.desktop"
    assert entry.is_file() and "Exec=" in entry.read_text(encoding="utf-8")
    assert " tray\n" in entry.read_text(encoding="utf-8")
    icons = sorted((home / ".local/share/icons/hicolor").glob("*/apps/vault-recall.png"))
    assert len(icons) == len(launcher_entry.ICON_SIZES)
    if shutil.which("desktop-file-validate"):
        done = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True, check=False)
        assert done.returncode == 0 and done.stdout == "", done.stdout
    assert main(["desktop", "uninstall"]) == 0
    assert not entry.exists() and not list((home / ".local/share/icons/hicolor").glob("*/apps/vault-recall.png"))
    assert "Added Vault Recall to the applications menu" in capsys.readouterr().out


def checks(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, str]]:
    code = main(["doctor"])
    lines = [line for line in capsys.readouterr().out.splitlines() if not line.startswith(" ")]
    return code, {
        line[6:].split()[0] + (" " + line[6:].split()[1] if line[6:].startswith("client") else ""): line[:4].strip()
        for line in lines
    }


def test_doctor_on_a_healthy_setup(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save_config(Config(vaults=(VaultEntry("Sample", str(SAMPLE_VAULT)),), active_vault="Sample"))
    assert main(["install", "cursor"]) == 0
    capsys.readouterr()
    _, found = checks(capsys)
    assert (found["config"], found["vault"], found["activity"], found["client cursor"]) == ("ok", "ok", "ok", "ok")


def test_doctor_names_each_broken_link(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save_config(Config(vaults=(VaultEntry("Gone", str(home / "missing")),), active_vault="Gone"))
    cursor = home / ".cursor/mcp.json"
    cursor.parent.mkdir(parents=True)
    cursor.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "vault-recall": {"command": "/nowhere/vault-recall", "args": ["serve", "--client", "cursor"]}
                }
            }
        )
    )
    activity_path().mkdir(parents=True)  # a folder where the store's file should be
    code, found = checks(capsys)
    assert code == 1
    assert (found["vault"], found["activity"], found["client cursor"]) == ("FAIL", "FAIL", "FAIL")
    config_path().write_text("{", encoding="utf-8")
    code, found = checks(capsys)
    assert code == 1 and found["config"] == "FAIL" and "vault" not in found


def test_doctor_says_when_the_tray_or_the_clipboard_cannot_work(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("vault_recall.app.cli.doctor.tray_problem", lambda: "the tray menu needs PyGObject with GTK 3")
    monkeypatch.setattr("vault_recall.app.cli.doctor.clipboard.copy_command", lambda: None)
    code = main(["doctor"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL  tray" in out and "PyGObject" in out
    assert "FAIL  clipboard" in out and "fix: install xclip (X11) or wl-clipboard (Wayland)" in out


def detail_of(capsys: pytest.CaptureFixture[str], what: str) -> tuple[str, str]:
    main(["doctor"])
    line = next(line for line in capsys.readouterr().out.splitlines() if line[6:].startswith(what + " "))
    return line[:4].strip(), line


def test_doctor_starts_each_entry_as_its_client_does_and_finds_this_config(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save_config(Config(vaults=(VaultEntry("Sample", str(SAMPLE_VAULT)),), active_vault="Sample"))
    assert main(["install", "codex"]) == 0
    assert main(["install", "claude-code"]) == 0
    capsys.readouterr()
    verdict, line = detail_of(capsys, "client codex")
    assert verdict == "ok", line
    assert "a cleared environment" in line and "vault 'sample-vault'" in line and "this activity store" in line
    verdict, line = detail_of(capsys, "client claude-code")
    assert verdict == "ok" and "its own environment" in line, line


def test_doctor_finds_an_entry_that_reaches_another_config(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An entry without the environment it needs (as older versions wrote): fine where the
    client passes its environment on, wrong in Codex, which clears it."""
    save_config(Config(vaults=(VaultEntry("Sample", str(SAMPLE_VAULT)),), active_vault="Sample"))
    assert main(["install", "codex"]) == 0
    codex = home / ".codex/config.toml"
    text = codex.read_text(encoding="utf-8")
    codex.write_text(text[: text.index("[mcp_servers.vault-recall.env]")], encoding="utf-8")
    capsys.readouterr()
    verdict, line = detail_of(capsys, "client codex")
    assert verdict == "FAIL", line
    assert "reads another config: it finds no vault, this config gives vault 'sample-vault'" in line
