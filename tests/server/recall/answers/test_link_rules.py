"""Two of Obsidian's link rules: a link into an Excluded-files folder resolves to that note
(Excluded files are hidden from search and recall, not from links), and a link to a heading or
block its note does not have still links to the note.  Checked on direct cases and on seeded
generated vaults against an independent reading of the rules."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from tests.support.obsidian_links import obsidian_link_target
from tests.support.vaults import record, write_vault
from tests.support.whole_vault import excluded_note_paths
from vault_recall.server.errors import NoteNotFound
from vault_recall.server.recall.answers.backlinks import get_backlinks
from vault_recall.server.recall.answers.reading import read_note
from vault_recall.server.recall.answers.search import search_notes
from vault_recall.server.recall.answers.subjects import list_subjects
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.vault import listing as listing_module
from vault_recall.server.vault.listing import excluded_notes, list_notes


def everything(root: Path) -> Scope:
    return Scope(client="t", vault=root, exposure=Exposure(mode="vault"))


def lines_linking(scope: Scope, note: str) -> list[tuple[str, int]]:
    answer = get_backlinks(scope, note, 200, 65536)
    assert answer["status"] == "ok" and answer["omitted"] == 0
    return [(hit["path"], hit["line"]) for hit in answer["records"]]


# -- links into Excluded files -------------------------------------------------------------------


@pytest.fixture
def excluding(tmp_path: Path) -> Path:
    return write_vault(
        tmp_path / "v",
        {
            ".obsidian/app.json": json.dumps({"userIgnoreFilters": ["Folder/Excluded/", "/^Drafts/.*secret/"]}),
            "README.md": record("docs", "# The vault's README"),
            "Folder/Excluded/README.md": record("docs", "# An excluded README\n\nhiddenword"),
            "Folder/Excluded/Deeper/Plan.md": "# An excluded plan\n\nhiddenword",
            "Drafts/Plan secret.md": "# Excluded by a pattern\n\nhiddenword",
            ".hidden/Ideas.md": "# Obsidian does not index hidden folders\n",
            "Ideas.md": "# Ideas\n",
            "Plan.md": "# The plan\n",
            "Plan secret.md": "# A visible plan secret\n",
            "Links.md": record(
                "docs",
                """
                [[Folder/Excluded/README]]
                [[README]]
                [x](Folder/Excluded/README.md)
                [[Excluded/README#Heading]]
                [[.hidden/Ideas]]
                [[Deeper/Plan]] and [[Folder/Excluded/Deeper/Plan]]
                [[Plan]]
                [[Drafts/Plan secret]]
                [[Plan secret]]
                """,
                related='"[[Folder/Excluded/README]]"',
            ),
        },
    )


def test_a_link_into_an_excluded_folder_is_no_link_to_the_visible_note_of_that_name(excluding: Path) -> None:
    scope = everything(excluding)
    # Lines 3, 5, 7 and 8 name the excluded README by its path, whole or partial; line 6 is
    # '[[README]]', the visible one's exact path.
    assert lines_linking(scope, "README") == [("Links.md", 6)]
    # Line 10 names the excluded plan; line 12 the note a pattern excludes.
    assert lines_linking(scope, "Plan") == [("Links.md", 11)]
    assert lines_linking(scope, "Plan secret") == [("Links.md", 13)]
    # Hidden folders are not indexed at all: the one note named Ideas is the visible one.
    assert lines_linking(scope, "Ideas") == [("Links.md", 9)]


def test_excluded_notes_stay_hidden_all_the_same(excluding: Path) -> None:
    scope = everything(excluding)
    for hidden in ("Folder/Excluded/README", "Folder/Excluded/Deeper/Plan", "Drafts/Plan secret"):
        with pytest.raises(NoteNotFound):
            get_backlinks(scope, hidden)
        with pytest.raises(NoteNotFound):
            read_note(scope, hidden)
    found = search_notes(scope, "hiddenword")
    assert found["records"] == [] and found["status"] == "ok"
    assert [s["active"] for s in list_subjects(scope)["subjects"]] == [2]
    answers = [get_backlinks(scope, note) for note in ("README", "Plan", "Plan secret", "Ideas", "Links")]
    assert {hit["path"] for answer in answers for hit in answer["records"]} == {"Links.md"}
    assert all(answer["status"] == "ok" and not answer.get("problems") for answer in answers)


def test_a_client_that_sees_records_only_resolves_among_the_records_it_sees(excluding: Path) -> None:
    # Unchanged: resolving against notes a client was not given would reveal them, so among the
    # records it may see, the one README is what '[[Folder/Excluded/README]]' names.
    records = Scope(client="t", vault=excluding, exposure=Exposure(mode="records"))
    assert [line for _, line in lines_linking(records, "README")] == [3, 5, 6, 7, 8]


def test_the_notes_excluded_files_hide_are_listed_only_when_asked(excluding: Path, tmp_path: Path) -> None:
    outside = write_vault(tmp_path / "outside", {"README.md": "x", "Sub/Plan.md": "x"})
    (excluding / "Folder/Excluded/Linked").symlink_to(outside, target_is_directory=True)
    (excluding / "Folder/Excluded/Linked note.md").symlink_to(outside / "README.md")
    write_vault(excluding / "Folder/Excluded", {".git/Note.md": "x", "Image.png": "x", "Deeper/.obsidian/X.md": "x"})
    listing = list_notes(excluding)
    assert listing.excluded_folders == ("Folder/Excluded",)  # not entered by the listing
    assert listing.excluded_notes == ("Drafts/Plan secret.md",)
    found = sorted(excluded_notes(listing))
    assert found == ["Drafts/Plan secret.md", "Folder/Excluded/Deeper/Plan.md", "Folder/Excluded/README.md"]
    assert found == excluded_note_paths(excluding)  # the tests' reference walk


def test_excluded_folders_too_large_to_walk_give_none_of_their_notes(
    excluding: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listing = list_notes(excluding)
    monkeypatch.setattr(listing_module, "MAX_WALKED_ENTRIES", listing.walked + 2)
    assert excluded_notes(listing) == ["Drafts/Plan secret.md"]
    monkeypatch.setattr(listing_module, "MAX_WALKED_ENTRIES", listing.walked + 4)
    assert len(excluded_notes(listing)) == 3


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads folders whatever their mode")
def test_an_excluded_folder_that_cannot_be_read_is_passed_over(excluding: Path) -> None:
    (excluding / "Folder/Excluded/Deeper").chmod(0)
    try:
        assert sorted(excluded_notes(list_notes(excluding))) == ["Drafts/Plan secret.md", "Folder/Excluded/README.md"]
    finally:
        (excluding / "Folder/Excluded/Deeper").chmod(0o755)


# -- links to headings and blocks that are not there --------------------------------------------


def test_a_link_to_a_heading_or_block_the_note_lacks_still_links_to_the_note(tmp_path: Path) -> None:
    root = write_vault(
        tmp_path / "v",
        {
            "Note.md": "# Note\n\n## Here\n\ntext ^here\n",
            "Road map.md": "# Road map\n",
            "Links.md": """
                ---
                related: "[[Note#gone]]"
                ---
                [[Note#^gone]]
                [[Note#No such heading]]
                ![[Note#gone]] embedded
                [[Note#gone|shown]]
                [[Note#Here#Not below it]]
                [x](Note.md#gone)
                [x](Note#gone)
                [x](<Note.md#No such heading>)
                [x](Note.md#%5Egone)
                [[Note#Here]] and [[Note#^here]]
                [x](Road%20map.md#gone) and [[Road map#^gone]]
                [[Note#]] and [[Nowhere#gone]]
                """,
        },
    )
    scope = everything(root)
    assert [line for _, line in lines_linking(scope, "Note")] == [2, *range(4, 14), 15]
    assert [line for _, line in lines_linking(scope, "Road map")] == [14]


# -- both rules on generated vaults, against an independent reading -----------------------------
# (tests/support/obsidian_links.py's plain statement of Obsidian's rule, over every note Obsidian indexes)

FOLDERS = ("", "A", "A/B", "C", "Archive", "Archive/Old", "Archive/Old/Deep", "Drafts", ".hidden")
NAMES = ("Plan", "README", "Ideas", "Road map", "Log")
EXCLUDABLE = ("Archive/", "A/B/", "C/", "Archive/Old/")


def generated_vault(root: Path, seed: int) -> tuple[list[str], dict[str, list[tuple[int, list[str]]]]]:
    """A vault of notes sharing a few names across folders, some excluded by prefix or pattern,
    some hidden, linking to each other in every form, often to headings and blocks that are not
    there.  Returns the visible notes and, per note, its file lines with the note parts of the
    links on each."""
    rng = random.Random(seed)
    prefixes = rng.sample(EXCLUDABLE, rng.randint(0, 2))
    filters: list[str] = [*prefixes, *(["/^Drafts/.*Plan/"] if rng.random() < 0.5 else [])]
    paths = sorted({f"{folder}/{name}.md".lstrip("/") for folder in FOLDERS for name in NAMES if rng.random() < 0.45})
    written: dict[str, str | bytes] = {".obsidian/app.json": json.dumps({"userIgnoreFilters": filters})}
    links: dict[str, list[tuple[int, list[str]]]] = {}
    for path in paths:
        lines: list[tuple[int, list[str]]] = []
        text = []
        if rng.random() < 0.3:
            target = link_target(rng, paths)
            text += ["---", f'related: "[[{target}#gone]]"', "---"]
            lines.append((2, [target]))
        text += ["# Heading", "", "text ^block"]
        for _ in range(rng.randint(1, 5)):
            targets = [link_target(rng, paths) for _ in range(rng.randint(1, 2))]
            text.append(" and ".join(link_as_written(rng, target) for target in targets))
            lines.append((len(text), targets))
        written[path] = "\n".join(text) + "\n"
        links[path] = lines
    write_vault(root, written)
    excluded = set(excluded_note_paths(root))
    visible = [p for p in paths if p not in excluded and not p.startswith(".")]
    return visible, links


def link_target(rng: random.Random, paths: list[str]) -> str:
    """A link's note part: a name, a whole vault path or a partial one — of a note or not."""
    shape = rng.random()
    if shape < 0.35:
        return rng.choice(NAMES)
    path = rng.choice(paths).removesuffix(".md") if shape < 0.8 else f"{rng.choice(FOLDERS[1:])}/{rng.choice(NAMES)}"
    if shape < 0.6 and "/" in path:
        path = path.split("/", 1)[1]  # partial
    return path.upper() if rng.random() < 0.1 else path


def link_as_written(rng: random.Random, target: str) -> str:
    """The link in one of its forms, often to a heading or block the note does not have."""
    subpath = rng.choice(("", "#Heading", "#^block", "#No such heading", "#^gone", "#Heading#Gone below"))
    form = rng.randrange(4)
    if form == 0:
        return f"[[{target}{subpath}]]"
    if form == 1:
        return f"![[{target}{subpath}|shown]]"
    url = target.replace(" ", "%20") + ".md" + subpath.replace(" ", "%20")
    return f"[x]({url})" if form == 2 else f"[x](<{target}.md{subpath}>)"


@pytest.mark.parametrize("seed", range(12))
def test_backlinks_follow_both_rules_on_generated_vaults(tmp_path: Path, seed: int) -> None:
    root = tmp_path / "v"
    visible, links = generated_vault(root, seed)
    indexed = visible + excluded_note_paths(root)  # hidden folders are not indexed at all
    scope = everything(root)
    checked = 0
    for target in visible:
        expected = [
            (source, line)
            for source in visible
            if source != target
            for line, targets in links[source]
            if any(obsidian_link_target(indexed, t, source) == target for t in targets)
        ]
        assert lines_linking(scope, target) == sorted(expected), target
        checked += len(expected)
    assert checked > 0
