"""Obsidian syntax tables: links, embeds, tags, headings, sections, block ids, URIs."""

from __future__ import annotations

import pytest

from server.syntax import block_span, lines_between, parse_headings, parse_inline_tags, parse_links, section_span
from server.uri import obsidian_uri


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
def test_link_syntax(text: str, expected: tuple[str, str | None, str | None, bool, str]) -> None:
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
def test_not_links(text: str) -> None:
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
def test_inline_tags(text: str, tags: tuple[str, ...]) -> None:
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
    assert lines_between(BODY, section_span(BODY, headings, index)) == text


def test_a_block_id_names_its_paragraph() -> None:
    body = "para one\ncontinues here ^abc\n\nother"
    span = block_span(body, "abc")
    assert span is not None
    assert lines_between(body, span) == "para one\ncontinues here ^abc\n"
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
