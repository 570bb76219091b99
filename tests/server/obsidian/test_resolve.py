"""Resolution tables: tool arguments among visible notes, links among all notes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.obsidian_links import obsidian_link_target
from tests.support.vaults import record, write_vault
from tests.support.whole_vault import VaultView, view_or_unavailable
from vault_recall.server.errors import InvalidArgument, NoteNotFound
from vault_recall.server.obsidian.resolve import MAX_NOTE_ARGUMENT, NameIndex, resolve_link
from vault_recall.server.obsidian.syntax import Link
from vault_recall.server.recall.scope import Exposure, Scope


@pytest.fixture
def view(tmp_path: Path) -> VaultView:
    vault = write_vault(
        tmp_path / "v",
        {
            "Projects/Build decision.md": record("build", "x", aliases="[Bazel choice]"),
            "Projects/Old/Build decision.md": record("build", "old"),
            "Team/Review.md": record("team", "r"),
            "Areas/Review.md": record("team", "r2"),
            "Unique note.md": record("team", "u", aliases="[Shared alias]"),
            "Other.md": record("team", "o", aliases="[Shared alias]"),
            "Private.md": "plain note, not a record\n",
            "Broken.md": "---\nsubject: team\nsubject: team\n---\n",
        },
    )
    index = view_or_unavailable(
        Scope(client="t", vault=vault, exposure=Exposure()), {"status": "ok", "untrusted": True, "vault": None}
    )
    assert index is not None
    return index


@pytest.mark.parametrize(
    ("argument", "path", "subpath"),
    [
        ("Projects/Build decision", "Projects/Build decision.md", None),
        ("Projects/Build decision.md", "Projects/Build decision.md", None),
        ("projects/build DECISION", "Projects/Build decision.md", None),
        ("Old/Build decision", "Projects/Old/Build decision.md", None),
        ("Unique note", "Unique note.md", None),
        ("unique NOTE.md", "Unique note.md", None),
        ("Bazel choice", "Projects/Build decision.md", None),
        ("Unique note#Some heading", "Unique note.md", "Some heading"),
        ("[[Unique note#^blk|shown]]", "Unique note.md", "^blk"),
        ("Team/Review", "Team/Review.md", None),
        ("Broken", "Broken.md", None),
    ],
)
def test_arguments_resolve_like_obsidian(view: VaultView, argument: str, path: str, subpath: str | None) -> None:
    assert view.resolve(argument) == (path, subpath)


@pytest.mark.parametrize(
    ("argument", "candidates"),
    [
        ("Build decision", "'Projects/Build decision', 'Projects/Old/Build decision'"),
        ("review", "'Areas/Review', 'Team/Review'"),
        ("Shared alias", "'Other', 'Unique note'"),
    ],
)
def test_an_ambiguous_name_lists_its_candidates(view: VaultView, argument: str, candidates: str) -> None:
    with pytest.raises(InvalidArgument, match="is ambiguous") as raised:
        view.resolve(argument)
    assert candidates in str(raised.value)


@pytest.mark.parametrize(
    "argument",
    ["Missing", "Private", "Private.md", "../v/Unique note", "/etc/passwd", ".obsidian/app", "#Heading only"],
)
def test_absent_hidden_and_unshared_notes_give_the_same_answer(view: VaultView, argument: str) -> None:
    with pytest.raises(NoteNotFound) as raised:
        view.resolve(argument)
    assert str(raised.value).startswith(f"no note {argument!r} that this client can read")


@pytest.mark.parametrize("argument", ["", "   ", "x" * (MAX_NOTE_ARGUMENT + 1)])
def test_an_empty_or_huge_argument_is_a_clear_error(view: VaultView, argument: str) -> None:
    with pytest.raises(InvalidArgument, match="note is"):
        view.resolve(argument)


INDEX = NameIndex.of(
    [
        ("A/Same.md", ()),
        ("B/Same.md", ()),
        ("B/Deeper/Same.md", ()),
        ("Top.md", ("Alias one",)),
        ("Folder/Note name.md", ()),
    ]
)


def link(target: str) -> Link:
    return Link(target=target, subpath=None, display=None, embed=False, style="wiki", line=1)


@pytest.mark.parametrize(
    ("target", "from_path", "expected"),
    [
        ("Same", "B/Linker.md", "B/Same.md"),  # same folder wins
        ("Same", "A/Linker.md", "A/Same.md"),
        ("Same", "C/Linker.md", "A/Same.md"),  # then the shortest path, then alphabetical
        ("Deeper/Same", "A/x.md", "B/Deeper/Same.md"),
        ("top", "x.md", "Top.md"),
        ("Top.md", "x.md", "Top.md"),
        ("alias ONE", "x.md", None),  # aliases are no link targets in Obsidian
        ("Folder/Note name.md", "x.md", "Folder/Note name.md"),
        ("", "Self.md", "Self.md"),
        ("Nothing", "x.md", None),
        ("img.png", "x.md", None),
    ],
)
def test_links_resolve_with_obsidians_tie_rules(target: str, from_path: str, expected: str | None) -> None:
    assert resolve_link(INDEX, link(target), from_path) == expected


@pytest.mark.parametrize(
    ("target", "from_path", "expected"),
    [
        ("../Folder/Note name.md", "Other/x.md", "Folder/Note name.md"),
        ("./Note name.md", "Folder/x.md", "Folder/Note name.md"),
        ("../../Top.md", "Folder/x.md", None),  # above the vault: no note
        ("./Same.md", "C/x.md", None),
    ],
)
def test_relative_markdown_links_resolve_from_the_linking_folder(
    target: str, from_path: str, expected: str | None
) -> None:
    assert resolve_link(INDEX, link(target), from_path) == expected


FOLDERS = ["", "a/", "a/b/", "ab/", "B/", "a/b/c/", "longfolder/", "x y/"]
NAMES_ = ["N", "n", "Note", "a", "Plan (draft)"]


@given(
    st.lists(st.tuples(st.sampled_from(FOLDERS), st.sampled_from(NAMES_)), min_size=1, max_size=8),
    st.sampled_from(FOLDERS),
    st.sampled_from(
        [
            "N",
            "n",
            "Note",
            "a/N",
            "b/N",
            "A/B/N",
            "/N",
            "N.md",
            "a/b/N.md",
            "./N",
            "../N",
            "../a/N",
            "Plan (draft)",
            "x y/Note",
            "c/N",
            "",
        ]
    ),
)
def test_link_resolution_agrees_with_a_reference_of_obsidians_rule(
    entries: list[tuple[str, str]], source_folder: str, link_text: str
) -> None:
    paths = sorted({f"{folder}{name}.md" for folder, name in entries})
    index = NameIndex.of([(path, ()) for path in paths])
    source = f"{source_folder}src.md"
    assert resolve_link(index, link(link_text), source) == obsidian_link_target(paths, link_text, source)
