"""The tray's state snapshot (app/tray/menu/snapshot.py), gathered from real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vault_recall.app.tray.menu.snapshot import gather


def test_vaults_obsidian_remembers_whose_folders_are_gone_are_not_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    here, gone = tmp_path / "Notes", tmp_path / "Deleted"
    here.mkdir()
    listing = tmp_path / "config/obsidian/obsidian.json"
    listing.parent.mkdir(parents=True)
    listing.write_text(
        json.dumps({"vaults": {"a": {"path": str(here), "ts": 2}, "b": {"path": str(gone), "ts": 1}}}), encoding="utf-8"
    )
    state = gather(None)
    assert [vault.path for vault in state.known_vaults] == [here]
    assert state.version  # the menu shows it
