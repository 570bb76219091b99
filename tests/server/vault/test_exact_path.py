"""`listed_as_note` tells from one path whether the listing would list it: every answer but
"unsure" must be the listing's own, on a vault full of what the listing leaves out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.posix import linux_names, make_fifo
from tests.support.vaults import write_vault
from vault_recall.server.vault.exact_path import Listed, listed_as_note
from vault_recall.server.vault.listing import MAX_DEPTH, list_notes
from vault_recall.server.vault.settings import read_excluded_files

NFC, NFD = "Caf\u00e9", "Cafe\u0301"
DEEP = "/".join(f"d{i}" for i in range(MAX_DEPTH + 1))


# Case twins, NFC and NFD twins, a backslash and a name that is not UTF-8.
pytestmark = linux_names


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("exact")
    root = write_vault(
        base / "v",
        {
            ".obsidian/app.json": '{"userIgnoreFilters": ["Archive/", "/secret/", "Scratch"]}',
            "Plan.md": "plan",
            "plan.md": "a case twin",
            "Notes/Deep/Note.md": "deep",
            f"Names/{NFC}.md": "nfc",
            f"Names/{NFD}.md": "nfd",
            f"{NFC}/Inside.md": "in a folder named in NFC",
            "Archive/Old.md": "excluded by prefix",
            "Notes/A secret note.md": "excluded by pattern",
            "Scratch pad.md": "excluded by a prefix without slash",
            ".trash/Gone.md": "hidden folder",
            "Notes/.hidden.md": "hidden note",
            "Folder.md/Inside.md": "a folder named like a note",
            "Not a note.txt": "text",
            "No suffix": "text",
            "Upper.MD": "suffix in capitals",
            "Spaced .md": "a blank before the suffix",
            " Lead.md": "a blank at the start",
            "Back\\slash.md": "a backslash is a plain character here",
            f"{DEEP}/Too deep.md": "deeper than the listing walks",
            f"{DEEP.rsplit('/', 1)[0]}/Deep enough.md": "as deep as the listing walks",
        },
    )
    outside = write_vault(base / "outside", {"Secret.md": "outside", "Dir/In.md": "outside"})
    os.symlink(outside / "Secret.md", root / "Linked.md")
    os.symlink(outside / "Dir", root / "Linked folder")
    make_fifo(root / "Pipe.md")
    (root / "Undecodable \udcff.md").write_bytes(b"not UTF-8 in its name")
    # A hard link under the other case answers as a file system that ignores case does: the
    # same file under both names.  The folder's own names then say which one is stored.
    os.makedirs(root / "Folded")
    (root / "Folded/Twin.md").write_text("twin", encoding="utf-8")
    os.link(root / "Folded/Twin.md", root / "Folded" / "Twin.md".swapcase())
    return root


def candidates(root: Path) -> list[str]:
    """Every path under the vault, as written and changed in the ways a caller might."""
    found: list[str] = []
    for folder, subfolders, files in os.walk(root):
        for name in files + subfolders:
            rel = (Path(folder) / name).relative_to(root).as_posix()
            found += [rel, rel.upper(), rel.lower(), rel.removesuffix(".md"), rel + ".md", "/" + rel, rel + "/"]
    return [
        *found,
        "Notes//Deep/Note.md",
        "Notes/./Deep/Note.md",
        "Notes/Deep/../Deep/Note.md",
        "Nowhere.md",
        "Nowhere/Note.md",
        "Pl\x00an.md",
        "Linked folder/In.md",
        "Pipe.md",
        f"{NFD}/Inside.md",
    ]


def test_what_is_said_listed_or_not_is_what_the_listing_says(vault: Path) -> None:
    listed = set(list_notes(vault).paths)
    excluded = read_excluded_files(vault)
    told = {path: listed_as_note(vault, path, excluded) for path in candidates(vault)}
    for path, answer in told.items():
        if answer is not Listed.UNSURE:
            assert (answer is Listed.YES) == (path in listed), path
    # Every listed note is found by its path alone.
    assert [path for path in listed if told[path] is not Listed.YES] == []


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("Plan.md", Listed.YES),
        ("plan.md", Listed.YES),
        ("PLAN.md", Listed.NO),
        (f"Names/{NFC}.md", Listed.YES),
        (f"Names/{NFD}.md", Listed.YES),
        (f"{NFD}/Inside.md", Listed.NO),
        ("Plan", Listed.NO),
        ("Archive/Old.md", Listed.NO),
        ("Notes/A secret note.md", Listed.NO),
        ("Scratch pad.md", Listed.NO),
        (".trash/Gone.md", Listed.NO),
        ("Notes/.hidden.md", Listed.NO),
        ("Linked.md", Listed.NO),
        ("Linked folder/In.md", Listed.NO),
        ("Pipe.md", Listed.NO),
        ("Folder.md", Listed.NO),
        ("Upper.MD", Listed.NO),
        ("Back\\slash.md", Listed.YES),
        ("Undecodable \udcff.md", Listed.UNSURE),
        ("Undecodable \ufffd.md", Listed.UNSURE),
        ("Folded/Twin.md", Listed.YES),
        ("Folded/twin.md", Listed.NO),
        (f"{DEEP}/Too deep.md", Listed.UNSURE),
        ("Pl\x00an.md", Listed.NO),
    ],
)
def test_each_rule_of_the_listing_is_applied_to_the_one_path(vault: Path, path: str, expected: Listed) -> None:
    assert listed_as_note(vault, path, read_excluded_files(vault)) is expected


def test_a_vault_that_cannot_be_opened_is_left_to_the_listing(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    for root in (tmp_path / "missing", tmp_path / "file"):
        assert listed_as_note(root, "Plan.md", read_excluded_files(root)) is Listed.UNSURE
