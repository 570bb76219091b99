"""`vault-recall doctor` starts each installed entry as its client would (real `serve`
processes) and says whether it reaches this config, this vault and this activity store."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest

from tests.support.doctor import checks, detail_of, own_home
from tests.support.e2e import vault_recall_command
from tests.support.paths import SAMPLE_VAULT
from vault_recall.app.cli.main import main
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import Config, VaultEntry, activity_path

pytestmark = [pytest.mark.e2e]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return own_home(tmp_path, monkeypatch)


def test_doctor_on_a_healthy_setup(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save_config(Config(vaults=(VaultEntry("Sample", str(SAMPLE_VAULT)),), active_vault="Sample"))
    assert main(["install", "cursor"]) == 0
    capsys.readouterr()
    _, found = checks(capsys)
    assert (found["config"], found["vault"], found["activity"], found["client cursor"]) == ("ok", "ok", "ok", "ok")
    # The probe's call was seen in the store, then taken out: it was not cursor's own call.
    with closing(sqlite3.connect(activity_path())) as store:
        assert store.execute("SELECT COUNT(*) FROM events").fetchone() == (0,)
    assert main(["client", "list"]) == 0
    listed = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("cursor"))
    assert listed.endswith("no calls yet"), listed


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


def test_a_local_scope_claude_code_entry_is_checked_too_and_told_how_to_go(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`claude mcp add` without --scope writes a local entry, which Claude Code uses in its
    project before the user entry `install` writes: doctor checks each, naming the project."""
    save_config(Config(vaults=(VaultEntry("Sample", str(SAMPLE_VAULT)),), active_vault="Sample"))
    assert main(["install", "claude-code"]) == 0
    path = home / ".claude.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    good = data["mcpServers"]["vault-recall"]
    stale = {**good, "command": "/opt/old/bin/vault-recall"}
    data["projects"] = {
        "/work/site": {"mcpServers": {"vault-recall": good}},
        "/work/old": {"mcpServers": {"vault-recall": stale}, "allowedTools": []},
        "/work/none": {"mcpServers": {"other": {"command": "x"}}},
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    main(["doctor"])
    lines = capsys.readouterr().out.splitlines()
    ours = [(i, line) for i, line in enumerate(lines) if line[6:].startswith("client claude-code ")]
    assert len(ours) == 3, lines  # the user entry, and the two local ones
    (_, user), (_, old), (_, site) = ours  # projects in name order: /work/old, /work/site
    assert user.startswith("ok") and "(local to" not in user, user
    assert old.startswith("FAIL") and "(local to /work/old) starts /opt/old/bin/vault-recall" in old, old
    assert site.startswith("ok") and "(local to /work/site)" in site, site
    fix = lines[ours[1][0] + 1].strip()
    assert fix == "fix: in /work/old: claude mcp remove vault-recall -s local (then the user entry is used there)"


@pytest.mark.parametrize("own_folder", [False, True])
def test_doctor_on_a_fresh_home_makes_nothing(tmp_path: Path, own_folder: bool) -> None:
    """A check only looks: run as a person runs it on a computer where Vault Recall never ran
    (XDG's folders, or VAULT_RECALL_HOME naming one not made yet), it leaves no file or folder."""
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("XDG_") and name not in ("VAULT_RECALL_HOME", "DISPLAY", "WAYLAND_DISPLAY")
    }
    env |= {"HOME": str(fresh), "XDG_CONFIG_HOME": str(fresh / ".config"), "XDG_STATE_HOME": str(fresh / ".state")}
    env |= {"XDG_DATA_HOME": str(fresh / ".share"), "XDG_CACHE_HOME": str(fresh / ".cache")}
    if own_folder:
        env["VAULT_RECALL_HOME"] = str(fresh / "vault-recall")
    done = subprocess.run(
        [*vault_recall_command(), "doctor"], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert "Traceback" not in done.stderr, done.stderr
    activity = next(line for line in done.stdout.splitlines() if line[6:].startswith("activity "))
    assert activity.startswith("ok") and "is not made yet: the first call makes it" in activity, done.stdout
    assert sorted(fresh.rglob("*")) == [], done.stdout
