"""Vault access: what counts as a note, what is skipped, when the vault is unavailable."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.parts import as_nobody_if_root
from tests.support.paths import REPO_ROOT
from tests.support.posix import IS_ROOT, linux_names, make_fifo
from tests.support.vaults import write_vault
from vault_recall.server.errors import NoteTooLarge, PathRejected, VaultUnavailable
from vault_recall.server.vault.listing import list_notes
from vault_recall.server.vault.note_files import read_note_bytes
from vault_recall.server.vault.paths import guard_note_path
from vault_recall.server.vault.settings import parse_excluded_files


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
    assert list(listing.paths) == ["A.md", "Archive/F.md", "Deep/er/B.md"]
    assert listing.name == "v"


def test_symlinks_are_skipped_and_reported(tmp_path: Path) -> None:
    outside = write_vault(tmp_path / "outside", {"Secret.md": "secret", "dir/S.md": "secret"})
    vault = write_vault(tmp_path / "v", {"Real.md": "real"})
    (vault / "Link.md").symlink_to(outside / "Secret.md")
    (vault / "LinkedDir").symlink_to(outside / "dir", target_is_directory=True)
    listing = list_notes(vault)
    assert list(listing.paths) == ["Real.md"]
    assert listing.symlinks == ("Link.md", "LinkedDir")


def test_a_symlinked_app_json_is_not_read(tmp_path: Path) -> None:
    outside = write_vault(tmp_path / "o", {"app.json": '{"userIgnoreFilters": ["A"]}'})
    vault = write_vault(tmp_path / "v", {"A.md": "a"})
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian/app.json").symlink_to(outside / "app.json")
    assert list(list_notes(vault).paths) == ["A.md"]


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"userIgnoreFilters": "Templates/"}', "\xff"])
def test_a_broken_app_json_excludes_nothing(tmp_path: Path, content: str) -> None:
    vault = write_vault(tmp_path / "v", {"Templates/T.md": "t", ".obsidian/app.json": content})
    assert list(list_notes(vault).paths) == ["Templates/T.md"]


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


@pytest.mark.skipif(
    sys.platform == "win32" or IS_ROOT,
    reason="root reads folders whatever their mode (covered end to end as nobody); Windows denies none by mode",
)
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
    assert list(list_notes(vault).paths) == ["Open.md"]


def test_with_several_config_folders_what_any_of_them_excludes_is_hidden(tmp_path: Path) -> None:
    # Which folder Obsidian was told to use is not written in the vault: whichever it is, what
    # it hides stays hidden.
    vault = write_vault(
        tmp_path / "v",
        {
            ".laptop/app.json": '{"userIgnoreFilters": ["A/"]}',
            ".desktop/app.json": '{"userIgnoreFilters": ["B/", "/^C/"]}',
            "A/a.md": "a",
            "B/b.md": "b",
            "C/c.md": "c",
            "D/d.md": "d",
        },
    )
    os.utime(vault / ".laptop/app.json", (1_000_000_000, 1_000_000_000))
    os.utime(vault / ".desktop/app.json", (2_000_000_000, 2_000_000_000))
    assert list(list_notes(vault).paths) == ["D/d.md"]


def test_a_leftover_obsidian_folder_does_not_unhide_a_renamed_config_folders_exclusions(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            ".obsidian/app.json": "{}",
            ".myconfig/app.json": '{"userIgnoreFilters": ["Private/"]}',
            "Private/Salary.md": "---\nsubject: hiring\n---\nsecret",
            "Open.md": "o",
        },
    )
    os.utime(vault / ".obsidian/app.json", (1_000_000_000, 1_000_000_000))  # the old one
    assert list(list_notes(vault).paths) == ["Open.md"]


def test_a_fifo_in_place_of_app_json_or_a_note_does_not_block(tmp_path: Path) -> None:
    # In a subprocess with a timeout: a regression would hang, and the test must still end.
    vault = write_vault(tmp_path / "v", {"A.md": "---\nsubject: s\n---\nword\n"})
    (vault / ".obsidian").mkdir()
    make_fifo(vault / ".obsidian/app.json")
    make_fifo(vault / "Pipe.md")
    probe = (
        "import sys; from pathlib import Path; from tests.support.whole_vault import scan_vault; "
        "s = scan_vault(Path(sys.argv[1])); print([n.path for n in s.notes])"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(vault)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
        cwd=REPO_ROOT,
    )
    assert done.stdout.strip() == "['A.md']"


@linux_names
def test_names_that_are_not_utf8_are_reported_not_a_crash(tmp_path: Path) -> None:
    from tests.support.whole_vault import scan_vault
    from vault_recall.server.recall.packing import compact_json

    vault = write_vault(tmp_path / "v", {"Good.md": "---\nsubject: s\n---\nword\n"})
    raw = os.fsencode(vault)
    (Path(os.fsdecode(raw + b"/Bad \xff.md"))).write_bytes(b"---\nsubject: s\n---\nword\n")
    os.mkdir(raw + b"/Dir \xfe")
    (Path(os.fsdecode(raw + b"/Dir \xfe/Inner.md"))).write_bytes(b"plain\n")
    scan = scan_vault(vault)
    assert [n.path for n in scan.notes] == ["Good.md"]
    reasons = {n.path: n.reason for n in scan.invalid}
    assert set(reasons) == {"Bad \ufffd.md", "Dir \ufffd/Inner.md"}
    assert "not valid UTF-8" in reasons["Bad \ufffd.md"]
    compact_json(reasons).encode("utf-8")  # sendable as it is


@linux_names
def test_a_vault_name_that_is_not_utf8_is_shown_with_a_replacement_character(tmp_path: Path) -> None:
    root = Path(os.fsdecode(os.fsencode(tmp_path) + b"/Vault \xff"))
    write_vault(root, {"A.md": "a"})
    assert list_notes(root).name == "Vault \ufffd"


def test_walking_too_many_entries_is_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vault_recall.server.vault import listing

    vault = write_vault(tmp_path / "v", {f"img{i}.png": b"x" for i in range(12)})
    monkeypatch.setattr(listing, "MAX_WALKED_ENTRIES", 10)
    with pytest.raises(VaultUnavailable, match="more than 10 files and folders"):
        list_notes(vault)


def test_a_folder_that_can_be_listed_but_not_entered_is_a_problem() -> None:
    # Root opens any file whatever a folder's mode, so as root the scan runs as 'nobody'.
    base = Path(tempfile.mkdtemp(prefix="vault-recall-test-"))
    try:
        base.chmod(0o755)
        vault = write_vault(base / "v", {"Sub/B.md": "b", "A.md": "a"})
        (vault / "Sub").chmod(0o644)
        prefix = as_nobody_if_root()
        probe = (
            "import sys; from pathlib import Path; from tests.support.whole_vault import scan_vault; "
            "s = scan_vault(Path(sys.argv[1])); print([n.path for n in s.notes], [n.path for n in s.invalid])"
        )
        done = subprocess.run(
            [*prefix, sys.executable, "-c", probe, str(vault)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            cwd=REPO_ROOT,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "['A.md'] ['Sub/']"
    finally:
        (base / "v" / "Sub").chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)
