"""Obsidian's reading rules, each on a generated vault: notes read, searched and linked the way
Obsidian reads, searches and links them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.vaults import record, write_vault
from vault_recall.server.recall.answers import backlinks, reading, recall_records, search
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope


def scope(vault: Path, mode: ExposureMode = "vault", subjects: frozenset[str] = frozenset()) -> Scope:
    return Scope(client="t", vault=vault, exposure=Exposure(mode=mode, subjects=subjects))


TEMPLATE = '---\ncategories:\n  - "[[Books]]"\ncreated: {{date}}\nauthor: []\n---\n## Notes\nsee [[Books]]\n'


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(
        tmp_path / "v",
        {
            "Templates/Book Template.md": TEMPLATE,
            "Books.md": "# Books\n",
            "Yes alias.md": "---\naliases:\n- Yes\n---\nbody\n",
            "On off.md": "---\naliases: [on, off]\ntags: [yes]\n---\nbody\n",
            "Law.md": "---\naliases:\n  - Laws\n  - LawList: Custom List Styles\n---\nbody\n",
            "Broken.md": "---\ntitle: a\ntitle: b\n---\nThe clippings of [[Books]] live on.\n",
            "Clipping.md": '---\nsource: clippings\nauthor:\n  - "[[Kevin Kelly]]"\n---\nbody\n',
            "Kevin Kelly.md": "# Kevin Kelly\n",
            "Records/Build.md": record("build", "Cache decision."),
            "Records/Broken build.md": "---\nsubject: build\nsubject: build\n---\nCache body.\n",
        },
    )


def test_notes_obsidian_reads_are_not_problems(vault: Path) -> None:
    found = search.search_notes(scope(vault), "body", limit=100)
    problems = {p["path"] for p in found.get("problems", [])}
    assert problems <= {"Broken.md", "Records/Broken build.md"}
    assert reading.read_note(scope(vault), "Templates/Book Template")["properties"]["created"] == {"{date}": None}
    assert reading.read_note(scope(vault), "Yes alias")["properties"]["aliases"] == ["Yes"]
    assert reading.read_note(scope(vault), "Yes")["path"] == "Yes alias.md"  # 'Yes' is text: an alias
    assert reading.read_note(scope(vault), "off")["path"] == "On off.md"
    assert reading.read_note(scope(vault), "Laws")["path"] == "Law.md"


def test_a_problem_names_the_property_and_line_in_plain_words(vault: Path) -> None:
    result = reading.read_note(scope(vault), "Broken")
    assert result["problems"] == [
        {"path": "Broken.md", "reason": "Broken.md, line 3: property 'title' is defined twice"}
    ]


def test_a_broken_block_does_not_hide_the_note_from_read_search_or_backlinks(vault: Path) -> None:
    result = reading.read_note(scope(vault), "Broken")
    assert result["status"] == "degraded" and result["text"] == "The clippings of [[Books]] live on.\n"
    found = search.search_notes(scope(vault), "clippings of")
    assert [(h["path"], h["line"]) for h in found["records"]] == [("Broken.md", 5)]
    assert [p["path"] for p in found["problems"]] == ["Broken.md"]
    linked = backlinks.get_backlinks(scope(vault), "Books")
    assert ("Broken.md", 5) in [(h["path"], h["line"]) for h in linked["records"]]


def test_a_record_whose_subject_cannot_be_read_is_reported_to_its_subject_and_stays_hidden(vault: Path) -> None:
    records = scope(vault, "records")
    recalled = recall_records.recall_context(records, "build", "cache")
    assert [r["path"] for r in recalled["records"]] == ["Records/Build.md"]
    assert [p["path"] for p in recalled["problems"]] == ["Records/Broken build.md"]
    assert search.search_notes(records, "Cache body")["records"] == []


def test_search_finds_properties_lines(vault: Path) -> None:
    found = search.search_notes(scope(vault), "[[Kevin Kelly]]")
    assert [(h["path"], h["line"], h["text"]) for h in found["records"]] == [
        ("Clipping.md", 4, '  - "[[Kevin Kelly]]"')
    ]
    assert [h["line"] for h in search.search_notes(scope(vault), "clippings")["records"] if h["path"] == "Clipping.md"]


def test_only_broken_notes_that_could_change_the_answer_are_named(vault: Path) -> None:
    assert "problems" not in search.search_notes(scope(vault), "Kevin Kelly")
    assert search.search_notes(scope(vault), "Kevin Kelly")["status"] == "ok"
    assert [p["path"] for p in search.search_notes(scope(vault), "live on")["problems"]] == ["Broken.md"]
    assert backlinks.get_backlinks(scope(vault), "Kevin Kelly")["status"] == "ok"
    assert [p["path"] for p in backlinks.get_backlinks(scope(vault), "Books")["problems"]] == ["Broken.md"]


def test_backlinks_from_properties_show_the_line_of_the_link(vault: Path) -> None:
    linked = backlinks.get_backlinks(scope(vault), "Books")["records"]
    template = [(h["line"], h["text"]) for h in linked if h["path"] == "Templates/Book Template.md"]
    assert template == [(3, '  - "[[Books]]"'), (8, "see [[Books]]")]


def test_backlinks_page_through_every_hit(tmp_path: Path) -> None:
    notes = {f"N{i:04}.md": f"[[Target]] number {i}\n" for i in range(300)}
    vault = write_vault(tmp_path / "v", {**notes, "Target.md": "target\n"})
    seen: list[str] = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        page = backlinks.get_backlinks(scope(vault), "Target", limit=200, budget=8192, offset=offset)
        assert json_size(page) <= 8192 and page["offset"] == offset
        seen += [h["path"] for h in page["records"]]
        assert page["omitted"] == 300 - len(seen)
        offset = page.get("next_offset")
        pages += 1
    assert seen == sorted(notes) and pages > 2


@pytest.mark.parametrize(
    ("notes", "source", "expected"),
    [
        # Shortest path in characters, not fewest folders.
        ({"a/b/N.md": "", "longfolder/N.md": ""}, "root.md", "a/b/N.md"),
        # Under the linking note's folder first.
        ({"x/deep/N.md": "", "y/N.md": ""}, "x/src.md", "x/deep/N.md"),
        # An exact vault path wins, even over a note beside the link.
        ({"N.md": "", "x/N.md": ""}, "x/src.md", "N.md"),
        # A name only one note has wins, wherever the link says it is.
        ({"elsewhere/N.md": ""}, "root.md", "elsewhere/N.md"),
    ],
)
def test_links_resolve_as_obsidian_resolves_them(
    tmp_path: Path, notes: dict[str, str], source: str, expected: str
) -> None:
    link = "[[other/N]]" if expected == "elsewhere/N.md" else "[[N]]"
    vault = write_vault(tmp_path / "v", {**notes, source: f"{link}\n"})
    for path in notes:
        found = [h["path"] for h in backlinks.get_backlinks(scope(vault), path)["records"]]
        assert found == ([source] if path == expected else []), path


def test_an_alias_is_no_link_target(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {"Note.md": "---\naliases: [Other name]\n---\n", "src.md": "[[Other name]]\n"})
    result = backlinks.get_backlinks(scope(vault), "Other name")  # as an argument, an alias names the note
    assert result["note"] == "Note.md" and result["records"] == []


@pytest.mark.parametrize(
    "body",
    [
        "> [!example]\n> ```md\n> [[Hidden]] #hidden\n> ```\n",
        "> ```\n> [[Hidden]] #hidden\n",  # the quote ends the fence: nothing below is code
        "- item\n    ```\n    [[Hidden]] #hidden\n    ```\n",
        "1. step\n   ~~~\n   [[Hidden]] #hidden\n   ~~~\n",
    ],
)
def test_code_in_callouts_quotes_and_lists_is_not_links(tmp_path: Path, body: str) -> None:
    vault = write_vault(tmp_path / "v", {"Hidden.md": "", "src.md": body + "after [[Visible]]\n", "Visible.md": ""})
    assert backlinks.get_backlinks(scope(vault), "Hidden")["records"] == []
    assert [h["path"] for h in backlinks.get_backlinks(scope(vault), "Visible")["records"]] == ["src.md"]


# Found in a public vault: an admonition fence holding a callout with a quoted dataviewjs fence.
# Inside the outer fence every line is text, the quoted fence lines too, so the fence closes
# on its own '```' line and the task below it is no code.
QUOTED_FENCE_IN_A_FENCE = """```ad-flex
> [!info]- x
> ```dataviewjs
const a=1;
>```
```
- [ ] t comment: [[2022-08-17#^wyfxv5]]
"""


def test_quoted_fence_lines_inside_an_open_fence_neither_open_nor_close_one(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {"2022-08-17.md": "- task ^wyfxv5\n", "src.md": QUOTED_FENCE_IN_A_FENCE})
    found = [(h["path"], h["line"]) for h in backlinks.get_backlinks(scope(vault), "2022-08-17")["records"]]
    assert found == [("src.md", 7)]


HEADINGS = """# Date type
## Fields
### `date()`
Dates.
### `hasTag()`
Tags.
## Use `foo` here
Foo.
## How large can each remote vault be?
Large.
### `Table`
Rows.
"""


@pytest.mark.parametrize(
    ("section", "first_line"),
    [
        ("Date type#Fields", "## Fields"),
        ("hasTag", "### `hasTag()`"),
        ("date()", "### `date()`"),
        ("Use `foo` here", "## Use `foo` here"),
        ("Use foo here", "## Use `foo` here"),
        ("How large can each remote vault be", "## How large can each remote vault be?"),
        ("Table", "### `Table`"),
    ],
)
def test_headings_written_with_code_are_headings_and_match_as_obsidian_matches(
    tmp_path: Path, section: str, first_line: str
) -> None:
    vault = write_vault(tmp_path / "v", {"Doc.md": HEADINGS})
    result = reading.read_note(scope(vault), "Doc", section=section)
    assert result["text"].split("\n")[0] == first_line
    assert "`date()`" in [s["heading"] for s in result["sections"]]
    fields = reading.read_note(scope(vault), "Doc", section="Date type#Fields")["text"]
    assert fields == "## Fields\n### `date()`\nDates.\n### `hasTag()`\nTags.\n"
