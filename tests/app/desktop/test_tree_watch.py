"""Watching a vault's folders for what can change its health (app/desktop/tree_watch.py): on
Linux by the kernel (inotify), a note deep in a subfolder as soon as one at the root; elsewhere
by the folders' times."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from vault_recall.app.desktop import tree_watch
from vault_recall.app.desktop.tree_watch import TreeWatch


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    (root / "Projects/Build/Old").mkdir(parents=True)
    (root / ".obsidian").mkdir()
    (root / "Projects/Build/Old/Note.md").write_text("---\nsubject: build\n---\n", encoding="utf-8")
    return root


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
def test_the_kernel_tells_of_notes_and_folders_anywhere_and_of_nothing_else(vault: Path) -> None:
    watch = TreeWatch(vault)
    assert watch.by_kernel and watch.changed() is False
    (vault / "Projects/Build/Old/Note.md").write_text("---\nsubject: build\nsubject: x\n---\n", encoding="utf-8")
    assert watch.changed() is True and watch.changed() is False  # told once
    (vault / "Projects/Build/Old/diagram.png").write_bytes(b"\x89PNG")
    (vault / ".obsidian/workspace.json").write_text("{}", encoding="utf-8")  # Obsidian writes it on every click
    (vault / ".trash").mkdir()
    (vault / ".trash/Gone.md").write_text("x", encoding="utf-8")
    assert watch.changed() is False
    (vault / ".obsidian/app.json").write_text('{"userIgnoreFilters": ["Projects/"]}', encoding="utf-8")
    assert watch.changed() is True
    (vault / "New/Deeper").mkdir(parents=True)  # a new folder is watched as it comes
    assert watch.changed() is True
    (vault / "New/Deeper/Fresh.md").write_text("x", encoding="utf-8")
    assert watch.changed() is True
    os.rename(vault / "New/Deeper/Fresh.md", vault / "Projects/Fresh.md")
    assert watch.changed() is True
    watch.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
def test_a_folder_whose_permissions_change_is_told_at_once_anywhere_in_the_vault(vault: Path) -> None:
    watch = TreeWatch(vault)
    assert watch.changed() is False
    deep = vault / "Projects/Build/Old"
    try:
        deep.chmod(0)  # its notes are out of reach now: health must look again
        assert watch.changed() is True and watch.changed() is False
        deep.chmod(0o755)
        assert watch.changed() is True
        vault.chmod(0o500)  # the vault's own folder
        assert watch.changed() is True
    finally:
        vault.chmod(0o755)
        deep.chmod(0o755)
    (vault / "Projects/Build/Old/Later.md").write_text("x", encoding="utf-8")  # still watched
    assert watch.changed() is True
    watch.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
def test_a_vault_folder_moved_away_and_back_is_watched_again(vault: Path) -> None:
    watch = TreeWatch(vault)
    moved = vault.with_name("Moved")
    os.rename(vault, moved)
    assert watch.changed() is True and not watch.by_kernel
    (moved / "Elsewhere.md").write_text("x", encoding="utf-8")  # not the vault's folder any more
    os.rename(moved, vault)
    watch._next_poll = 0.0  # the next look by time is due now
    assert watch.changed() is True and watch.by_kernel
    (vault / "Projects/Back.md").write_text("x", encoding="utf-8")
    assert watch.changed() is True
    watch.close()


def test_without_inotify_folders_are_compared_by_time(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tree_watch, "kernel", lambda: None)  # macOS, Windows: no inotify
    monkeypatch.setattr(tree_watch, "POLL_SECONDS", 0.0)
    watch = TreeWatch(vault)
    assert not watch.by_kernel and watch.changed() is False
    (vault / "Projects/Build/Old/Second.md").write_text("x", encoding="utf-8")
    assert watch.changed() is True and watch.changed() is False
