"""Obsidian syntax tables: links, embeds, tags, headings, sections, block ids, URIs."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.paths import REPO_ROOT
from vault_recall.server.obsidian.resolve import obsidian_uri
from vault_recall.server.obsidian.syntax import (
    Heading,
    atx_heading,
    block_span,
    fenced,
    lines_between,
    parse_headings,
    parse_inline_tags,
    parse_links,
    section_span,
)


def one_link(text: str) -> tuple[str, str | None, str | None, bool, str]:
    links = parse_links(text)
    assert len(links) == 1, links
    link = links[0]
    return link.target, link.subpath, link.display, link.embed, link.style


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see [[Note]] here", ("Note", None, None, False, "wiki")),
        ("[[Note.md]]", ("Note.md", None, None, False, "wiki")),
        ("[[Folder/Sub/Note]]", ("Folder/Sub/Note", None, None, False, "wiki")),
        ("[[Note|shown text]]", ("Note", None, "shown text", False, "wiki")),
        ("[[Note#Heading]]", ("Note", "Heading", None, False, "wiki")),
        ("[[Note#Heading#Sub]]", ("Note", "Heading#Sub", None, False, "wiki")),
        ("[[Note#^block-1]]", ("Note", "^block-1", None, False, "wiki")),
        ("[[#Heading]]", ("", "Heading", None, False, "wiki")),
        ("[[Note#Heading|shown]]", ("Note", "Heading", "shown", False, "wiki")),
        ("| [[Note\\|shown]] | table |", ("Note", None, "shown", False, "wiki")),
        ("![[Note]]", ("Note", None, None, True, "wiki")),
        ("![[img.png|100]]", ("img.png", None, "100", True, "wiki")),
        ("[text](Folder/Note%20name.md#Heading)", ("Folder/Note name.md", "Heading", "text", False, "markdown")),
        ("[t](<Folder/Note name.md>)", ("Folder/Note name.md", None, "t", False, "markdown")),
        ('[t](Note.md "title")', ("Note.md", None, "t", False, "markdown")),
        ("![pic](image%20one.png)", ("image one.png", None, "pic", True, "markdown")),
        ("[café](Caf%C3%A9.md)", ("Café.md", None, "café", False, "markdown")),
    ],
)
def test_each_link_syntax_reads_as_obsidian_reads_it(
    text: str, expected: tuple[str, str | None, str | None, bool, str]
) -> None:
    assert one_link(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "`[[Not a link]]`",
        "``code with [[Link]] inside``",
        "```\n[[In fence]]\n```",
        "~~~md\n[[In tilde fence]]\n![[Embed]]\n~~~",
        "[site](https://example.com/Note.md)",
        "[open](obsidian://open?vault=v&file=Note)",
        "[mail](mailto:a@b.c)",
        "[[]]",
    ],
)
def test_text_that_only_looks_like_a_link_is_no_link(text: str) -> None:
    assert parse_links(text) == ()


def test_links_report_their_body_line() -> None:
    links = parse_links("first\n```\n[[skip]]\n```\nthen [[A]] and [b](B.md)\n[[C]]")
    assert [(link.target, link.line) for link in links] == [("A", 5), ("B.md", 5), ("C", 6)]


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("#tag and #a/b and #Ünïcode_tag-2", ("tag", "a/b", "Ünïcode_tag-2")),
        ("#2024 is a number, #y2024 is a tag", ("y2024",)),
        ("# Heading is not a tag\n## Sub #inside", ("inside",)),
        ("url https://x.org/#frag and a#b", ()),
        ("`#code` and\n```\n#fenced\n```\n#real", ("real",)),
        ("#dup #dup", ("dup",)),
    ],
)
def test_inline_tags_are_read_as_obsidian_reads_them(text: str, tags: tuple[str, ...]) -> None:
    assert parse_inline_tags(text) == tags


BODY = """# Title
intro
## Reasons
one
### Detail
deep
## Later
```
# not a heading
```
end ^block-1
"""


# Lines of the kinds that decide headings and fences: fences of backticks and tildes (opening
# with an info string, closing, too short), quoted and indented ones, headings, near misses.
_LINES = st.lists(
    st.sampled_from(
        [
            "# A",
            "## B ##",
            "### `c`",
            "#no",
            "    # indented",
            "> # quoted",
            "> ```",
            "```",
            "```md",
            "~~~",
            "~~~~",
            "``",
            "`` ` ``",
            "> ~~~",
            "  ```",
            "text",
            "",
            "- ```",
            "####### seven",
            "# ~~~",
            "> > ```",
        ]
    ),
    max_size=14,
)


def _headings_line_by_line(body: str) -> tuple[Heading, ...]:
    """parse_headings as it reads every line through fenced(): what its shortcut must equal."""
    found = []
    for number, (line, in_code) in enumerate(fenced(body.split("\n")), start=1):
        heading = None if in_code else atx_heading(line)
        if heading:
            found.append(Heading(level=heading[0], text=heading[1], line=number))
    return tuple(found)


@given(_LINES)
def test_headings_are_those_read_line_by_line_through_the_fences(lines: list[str]) -> None:
    body = "\n".join(lines)
    assert parse_headings(body) == _headings_line_by_line(body)


def test_headings_skip_code_fences() -> None:
    assert [(h.level, h.text, h.line) for h in parse_headings(BODY)] == [
        (1, "Title", 1),
        (2, "Reasons", 3),
        (3, "Detail", 5),
        (2, "Later", 7),
    ]


@pytest.mark.parametrize(
    ("index", "text"),
    [
        (1, "## Reasons\none\n### Detail\ndeep\n"),
        (2, "### Detail\ndeep\n"),
        (3, "## Later\n```\n# not a heading\n```\nend ^block-1\n"),
    ],
)
def test_a_section_runs_to_the_next_heading_of_its_level_or_higher(index: int, text: str) -> None:
    headings = parse_headings(BODY)
    lines = BODY.split("\n")
    assert lines_between(lines, section_span(len(lines), headings, index)) == text


def test_a_block_id_names_its_paragraph() -> None:
    body = "para one\ncontinues here ^abc\n\nother"
    span = block_span(body, "abc")
    assert span is not None
    assert lines_between(body.split("\n"), span) == "para one\ncontinues here ^abc\n"
    assert block_span(body, "missing") is None


@pytest.mark.parametrize(
    ("vault", "path", "uri"),
    [
        ("Work", "Note.md", "obsidian://open?vault=Work&file=Note"),
        ("My Vault", "Projects/Build decision.md", "obsidian://open?vault=My%20Vault&file=Projects%2FBuild%20decision"),
        ("v", "C# notes/Issue #12.md", "obsidian://open?vault=v&file=C%23%20notes%2FIssue%20%2312"),
        ("Vault é", "Über/Café ☕.md", "obsidian://open?vault=Vault%20%C3%A9&file=%C3%9Cber%2FCaf%C3%A9%20%E2%98%95"),
        ("v", "a&b=c?.md", "obsidian://open?vault=v&file=a%26b%3Dc%3F"),
    ],
)
def test_obsidian_uris_encode_every_component(vault: str, path: str, uri: str) -> None:
    assert obsidian_uri(vault, path) == uri


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[y](Note%20(draft).md)", ("Note (draft).md", None, "y", False, "markdown")),
        (
            "[x](C%23%20notes/Issue%20%2312.md#Head%20one)",
            ("C# notes/Issue #12.md", "Head one", "x", False, "markdown"),
        ),
        ("[[C# notes/Issue 12#Part]]", ("C", " notes/Issue 12#Part", None, False, "wiki")),
    ],
    ids=["parentheses", "encoded-hash", "wiki-hash-is-a-heading"],
)
def test_link_corner_cases_read_as_obsidian_reads_them(
    text: str, expected: tuple[str, str | None, str | None, bool, str]
) -> None:
    target, subpath, display, embed, style = one_link(text)
    assert (target.strip(), subpath.strip() if subpath else None, display, embed, style) == (
        expected[0].strip(),
        expected[1].strip() if expected[1] else None,
        *expected[2:],
    )


def test_a_fence_line_with_an_info_string_does_not_close_a_fence() -> None:
    assert parse_links("```\n```js\n[[Inside]]\n```\n[[Outside]]") == parse_links("\n\n\n\n[[Outside]]")


@pytest.mark.parametrize(
    ("body", "code"),
    [
        # Inside a fence opened outside any quote, quoted fence lines are text of the block.
        ("```\n> ```js\nx\n>```\n```\n[[L]]", [1, 2, 3, 4, 5]),
        ("```\n> ```\n[[In]]\n```\n[[L]]", [1, 2, 3, 4]),
        # Inside a fence in a quote, a line of a deeper quote is text; one of the same quote closes.
        ("> ```\n> > ```\n> [[In]]\n> ```\n[[L]]", [1, 2, 3, 4]),
        # The closing line: the fence's own character, at least as many, nothing after them.
        ("~~~\n```\n~~~~\n[[L]]", [1, 2, 3]),
        ("````\n```\n[[In]]\n````\n[[L]]", [1, 2, 3, 4]),
        ("```\n``` x\n[[In]]\n```  \n[[L]]", [1, 2, 3, 4]),
        # Indented at most three columns more than the fence was.
        ("```\n    ```\n[[In]]\n   ```\n[[L]]", [1, 2, 3, 4]),
        ("- item\n    ```\n    [[In]]\n    ```\n[[L]]", [2, 3, 4]),
        # A backtick fence's info string holds no backtick: '```x```' is inline code, no fence.
        ("```x```\n[[L]]", []),
        ("~~~x`y\n[[In]]\n~~~\n[[L]]", [1, 2, 3]),
        # The quote holding a fence ends it.
        ("> ```\n[[L]]", [1]),
    ],
)
def test_a_fence_closes_only_on_its_own_closing_line(body: str, code: list[int]) -> None:
    lines = body.split("\n")
    assert [number for number, (_, in_code) in enumerate(fenced(lines), start=1) if in_code] == code
    outside = [number for number, line in enumerate(lines, start=1) if number not in code and "[[" in line]
    assert [link.line for link in parse_links(body)] == outside


def test_links_know_where_they_are_written() -> None:
    (link,) = parse_links("see the [note](My%20Note.md) here")
    assert (link.column, link.length) == (8, 20)


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("## Issue #12", (2, "Issue #12")),
        ("## Closed ##", (2, "Closed")),
        ("# Tag#", (1, "Tag#")),
        ("   # Indented three", (1, "Indented three")),
        ("    # Indented four", None),
        ("#NoSpace", None),
        ("####### Seven", None),
        ("#", None),
    ],
)
def test_atx_headings_are_read_with_their_level_and_text(line: str, heading: tuple[int, str] | None) -> None:
    assert atx_heading(line) == heading


def test_a_block_id_on_its_own_line_names_the_block_above() -> None:
    body = "intro\n\n> quoted line one\n> quoted line two\n\n^q1\n\nafter"
    span = block_span(body, "q1")
    assert span is not None
    assert lines_between(body.split("\n"), span) == "> quoted line one\n> quoted line two\n\n^q1\n"


def test_pathological_lines_are_parsed_in_linear_time() -> None:
    # Regular expressions that backtrack took minutes on lines like these; run in a child
    # with a generous timeout so a regression fails instead of hanging the suite.
    probe = (
        "from vault_recall.server.obsidian.note import parse_note\n"
        "lines = ['[' * 200000, '[a](' * 50000, '# a' + ' ' * 200000 + 'b', '#' + '\\t' * 200000,\n"
        "         '[](' + '[](x)' * 40000, '` ' * 100000, '[[' * 100000]\n"
        "for line in lines:\n"
        "    note = parse_note('P.md', ('---\\nsubject: s\\n---\\n' + line + '\\n# h\\n' * 3000).encode(), 0)\n"
        "    note.links, note.headings, note.all_tags\n"
        "print('done')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True, cwd=REPO_ROOT
    )
    assert done.stdout.strip() == "done"
