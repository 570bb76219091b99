"""Vault access: what counts as a note, what is skipped, when the vault is unavailable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from server.errors import PathRejected, VaultUnavailable
from server.excluded import parse_excluded_files
from server.vault import NoteTooLarge, guard_note_path, list_notes, read_note_bytes
from tests.vaults import write_vault


def test_notes_are_md_files_outside_hidden_and_excluded_paths(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            "A.md": "a",
            "Deep/er/B.md": "b",
            ".obsidian/app.json": '{"userIgnoreFilters": ["Templates/", "/^Arch.*old/", "Scratch"]}',
            ".obsidian/snippets/C.md": "hidden",
            ".trash/D.md": "deleted",
            "Folder/.hidden.md": "dotfile",
            "Templates/T.md": "excluded",
            "Archive/old/E.md": "excluded by regex",
            "Archive/F.md": "kept",
            "Scratch pad.md": "excluded by prefix without slash",
            "picture.png": b"\x89PNG",
            "board.canvas": "{}",
            "Notes.MD.txt": "no",
        },
    )
    listing = list_notes(vault)
    assert [n.path for n in listing.notes] == ["A.md", "Archive/F.md", "Deep/er/B.md"]
    assert listing.name == "v"


def test_symlinks_are_skipped_and_reported(tmp_path: Path) -> None:
    outside = write_vault(tmp_path / "outside", {"Secret.md": "secret", "dir/S.md": "secret"})
    vault = write_vault(tmp_path / "v", {"Real.md": "real"})
    (vault / "Link.md").symlink_to(outside / "Secret.md")
    (vault / "LinkedDir").symlink_to(outside / "dir", target_is_directory=True)
    listing = list_notes(vault)
    assert [n.path for n in listing.notes] == ["Real.md"]
    assert listing.symlinks == ("Link.md", "LinkedDir")


def test_a_symlinked_app_json_is_not_read(tmp_path: Path) -> None:
    outside = write_vault(tmp_path / "o", {"app.json": '{"userIgnoreFilters": ["A"]}'})
    vault = write_vault(tmp_path / "v", {"A.md": "a"})
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian/app.json").symlink_to(outside / "app.json")
    assert [n.path for n in list_notes(vault).notes] == ["A.md"]


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"userIgnoreFilters": "Templates/"}', "\xff"])
def test_a_broken_app_json_excludes_nothing(tmp_path: Path, content: str) -> None:
    vault = write_vault(tmp_path / "v", {"Templates/T.md": "t", ".obsidian/app.json": content})
    assert [n.path for n in list_notes(vault).notes] == ["Templates/T.md"]


def test_a_bad_regex_entry_is_skipped_and_the_rest_apply() -> None:
    excluded = parse_excluded_files(["/([/", "Templates/", 3, ""])
    assert excluded.matches("Templates/x.md")
    assert not excluded.matches("Other/x.md")


def test_a_missing_folder_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(VaultUnavailable, match="does not exist"):
        list_notes(tmp_path / "nope")


def test_a_file_in_place_of_the_folder_is_unavailable(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(VaultUnavailable, match="is a file, not a folder"):
        list_notes(tmp_path / "file")


def test_too_many_notes_is_unavailable(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {f"N{i}.md": "x" for i in range(6)})
    with pytest.raises(VaultUnavailable, match="more than 5 notes"):
        list_notes(vault, max_notes=5)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads folders whatever their mode; covered end to end as nobody")
def test_an_unreadable_folder_is_unavailable(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {"A.md": "a"})
    vault.chmod(0)
    try:
        with pytest.raises(VaultUnavailable, match="permission denied"):
            list_notes(vault)
    finally:
        vault.chmod(0o755)


def test_reading_refuses_oversized_notes_and_symlinks(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {"Big.md": "x" * 101, "Ok.md": "fine"})
    (vault / "Link.md").symlink_to(vault / "Ok.md")
    with pytest.raises(NoteTooLarge) as raised:
        read_note_bytes(vault, "Big.md", limit=100)
    assert raised.value.size == 101
    with pytest.raises(FileNotFoundError):
        read_note_bytes(vault, "Link.md")
    assert read_note_bytes(vault, "Ok.md").data == b"fine"


@pytest.mark.parametrize(
    "candidate",
    [
        "",
        "../outside",
        "a/../../outside.md",
        "/etc/passwd",
        "~/notes",
        "C:/Windows/x",
        "c:notes",
        "Folder\\Note",
        "nul\x00byte",
        ".obsidian/app",
        "Folder/.hidden",
        "./A",
        "A//B",
        "Linked/Secret",
        "Link",
    ],
)
def test_the_path_guard_rejects_paths_that_leave_the_vault_or_hide(tmp_path: Path, candidate: str) -> None:
    outside = write_vault(tmp_path / "outside", {"Secret.md": "s"})
    vault = write_vault(tmp_path / "v", {"A.md": "a", "Folder/Note.md": "n"})
    (vault / "Linked").symlink_to(outside, target_is_directory=True)
    (vault / "Link.md").symlink_to(outside / "Secret.md")
    with pytest.raises(PathRejected, match="is not a note path inside the vault"):
        guard_note_path(vault, candidate)


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [("A", "A.md"), ("A.md", "A.md"), ("Folder/Note", "Folder/Note.md"), ("Folder/100% sure", "Folder/100% sure.md")],
)
def test_the_path_guard_accepts_vault_paths_with_or_without_md(tmp_path: Path, candidate: str, expected: str) -> None:
    vault = write_vault(tmp_path / "v", {"A.md": "a", "Folder/Note.md": "n"})
    assert guard_note_path(vault, candidate) == expected


@pytest.mark.parametrize(
    ("entries", "path", "excluded"),
    [
        (["Templates/"], "Templates/T.md", True),
        (["Templates/"], "Templates.md", False),
        (["Templates/"], "Sub/Templates/T.md", False),
        (["Templates"], "Templates.md", True),
        (["Templates"], "Templates old/x.md", True),
        (["/Templates/"], "Templates/T.md", True),  # "/…/" is a regular expression, found anywhere
        (["/Templates/"], "Sub/Templates/T.md", True),
        (["/^Archive/.*\\.md$/"], "Archive/2020/x.md", True),
        (["/^Archive/.*\\.md$/"], "Projects/Archive/x.md", False),
        (["/draft/"], "Ideas/my draft.md", True),
        (["Daily notes/2023"], "Daily notes/2023-01-01.md", True),
        (["Daily notes/2023"], "Daily notes/2024-01-01.md", False),
        ([], "Anything.md", False),
    ],
)
def test_excluded_files_prefixes_and_patterns(entries: list[str], path: str, excluded: bool) -> None:
    assert parse_excluded_files(entries).matches(path) is excluded


def test_a_renamed_config_folder_is_found(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            ".my-config/app.json": '{"userIgnoreFilters": ["Private/"]}',
            ".git/config": "[core]",
            "Private/P.md": "p",
            "Open.md": "o",
        },
    )
    assert [n.path for n in list_notes(vault).notes] == ["Open.md"]


def test_the_most_recently_saved_config_folder_wins(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            ".laptop/app.json": '{"userIgnoreFilters": ["A/"]}',
            ".desktop/app.json": '{"userIgnoreFilters": ["B/"]}',
            "A/a.md": "a",
            "B/b.md": "b",
        },
    )
    os.utime(vault / ".laptop/app.json", (1_000_000_000, 1_000_000_000))
    os.utime(vault / ".desktop/app.json", (2_000_000_000, 2_000_000_000))
    assert [n.path for n in list_notes(vault).notes] == ["A/a.md"]
