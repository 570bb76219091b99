"""Which clients seem installed on this computer (`ClientSpec.found_here`): their config file,
or the folder of their own that holds it, exists — in a home folder of the test's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from vault_recall.app.clients.catalogue import CLIENTS, client_spec


def found(home: Path) -> set[str]:
    return {spec.id for spec in CLIENTS if spec.found_here(home, "linux")}


def test_a_client_is_found_by_its_config_folder_or_file_and_nothing_else_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "me"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    (home / ".config").mkdir(parents=True)
    assert found(home) == set()  # a home folder and ~/.config hold no client yet
    (home / ".cursor").mkdir()  # Cursor made its folder, without mcp.json yet
    (home / ".config/zed").mkdir()
    (home / ".codex").mkdir()
    (home / ".codex/config.toml").write_text("", encoding="utf-8")
    assert found(home) == {"cursor", "zed", "codex"}


@pytest.mark.parametrize("made", [".claude.json", ".claude"])
def test_claude_code_whose_file_is_in_the_home_folder_itself_is_found_by_it_or_its_folder(
    tmp_path: Path, made: str
) -> None:
    spec = client_spec("claude-code")
    assert spec is not None and not spec.found_here(tmp_path, "linux")
    if made.endswith(".json"):
        (tmp_path / made).write_text("{}", encoding="utf-8")
    else:
        (tmp_path / made).mkdir()
    assert spec.found_here(tmp_path, "linux")
