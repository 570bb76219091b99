"""The config's `paused` flag and a vault's `sample` mark: kept, written only when set, refused
in any other form, and turned into each call's scope."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vault_recall.server.config.call_scope import PAUSED_REASON, SAMPLE_NOTICE, ServeOptions, current_scope
from vault_recall.server.config.config_file import Config, VaultEntry, load_config, parse_config
from vault_recall.server.errors import ConfigError


def write(path: Path, data: dict[str, object]) -> Path:
    path.write_text(json.dumps({"version": 1, **data}), encoding="utf-8")
    return path


def test_pause_and_the_sample_mark_are_written_only_when_set() -> None:
    plain = Config(vaults=(VaultEntry("Work", "/v/work"),), active_vault="Work")
    assert "paused" not in plain.to_json() and "sample" not in plain.to_json()["vaults"][0]
    marked = Config(vaults=(VaultEntry("S", "/v/s", sample=True),), active_vault="S", paused=True)
    data = marked.to_json()
    assert data["paused"] is True and data["vaults"][0]["sample"] is True
    assert parse_config(json.dumps(data).encode(), Path("c.json")) == marked


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"paused": "yes"}, "'paused' must be true or false"),
        ({"vaults": [{"name": "S", "path": "/v/s", "sample": 1}]}, "vault 'S' has 'sample' 1: use true or false"),
    ],
)
def test_a_pause_or_sample_mark_of_another_kind_is_one_sentence(
    tmp_path: Path, data: dict[str, object], problem: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        load_config(write(tmp_path / "config.json", data))
    assert refused.value.problem == problem


def test_a_paused_config_makes_every_scope_unavailable_pinned_or_not(tmp_path: Path, vault_recall_home: Path) -> None:
    write(
        vault_recall_home / "config.json",
        {"vaults": [{"name": "W", "path": str(tmp_path)}], "active_vault": "W", "paused": True},
    )
    for options in (ServeOptions("cursor"), ServeOptions("cursor", pinned_vault=tmp_path)):
        scope = current_scope(options)
        assert scope.vault is None and scope.why == PAUSED_REASON == "paused by the person"


def test_a_sample_vault_gives_its_notice_to_every_scope_and_another_vault_none(
    tmp_path: Path, vault_recall_home: Path
) -> None:
    config = vault_recall_home / "config.json"
    write(config, {"vaults": [{"name": "S", "path": str(tmp_path), "sample": True}], "active_vault": "S"})
    assert current_scope(ServeOptions("cursor")).notice == SAMPLE_NOTICE
    write(config, {"vaults": [{"name": "W", "path": str(tmp_path)}], "active_vault": "W"})
    assert current_scope(ServeOptions("cursor")).notice is None
