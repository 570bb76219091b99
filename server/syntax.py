"""Obsidian syntax in a note's body, parsed once: links, embeds, inline tags, headings, block ids.

Pure functions over text.  Code blocks and inline code are not syntax (a `[[link]]` or
`#tag` inside backticks is just text), so every scanner works on the body with code masked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_MD_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+\"[^\"\n]*\")?\s*\)")
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_TAG = re.compile(r"(?:^|(?<=\s))#([\w/-]+)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)[ \t]*$")


@dataclass(frozen=True)
class Link:
    """One link as written: `target` is the note part ('' for a same-note `[[#Heading]]`)."""

    target: str
    subpath: str | None  # 'Heading', 'Heading#Sub' or '^block-id'
    display: str | None
    embed: bool
    style: str  # 'wiki' | 'markdown'
    line: int  # 1-based line of the body


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int  # 1-based line of the body


def masked_lines(body: str) -> list[str]:
    """The body's lines with code (fenced blocks and inline spans) blanked out, same lengths."""
    lines = body.split("\n")
    out: list[str] = []
    fence: str | None = None
    for line in lines:
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = None
            out.append(" " * len(line))
            continue
        if opener:
            fence = opener.group(1)
            out.append(" " * len(line))
            continue
        out.append(_INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line))
    return out


def parse_links(body: str) -> tuple[Link, ...]:
    """Every wikilink, embed and markdown link to a note, outside code, in order."""
    links: list[Link] = []
    for number, line in enumerate(masked_lines(body), start=1):
        for found in _WIKILINK.finditer(line):
            inner = found.group(2).replace("\\|", "|")
            target_part, _, display = inner.partition("|")
            target, _, subpath = target_part.partition("#")
            links.append(
                Link(
                    target=target.strip(),
                    subpath=subpath.strip() or None,
                    display=display.strip() or None,
                    embed=found.group(1) == "!",
                    style="wiki",
                    line=number,
                )
            )
        for found in _MD_LINK.finditer(line):
            url = found.group(3)
            if url.startswith("<") and url.endswith(">"):
                url = url[1:-1]
            if _URL_SCHEME.match(url):
                continue  # http:, obsidian:, mailto: … are not links to a note in this vault
            target, _, subpath = unquote(url).partition("#")
            links.append(
                Link(
                    target=target.strip(),
                    subpath=subpath.strip() or None,
                    display=found.group(2) or None,
                    embed=found.group(1) == "!",
                    style="markdown",
                    line=number,
                )
            )
    links.sort(key=lambda link: link.line)
    return tuple(links)


def parse_inline_tags(body: str) -> tuple[str, ...]:
    """Inline `#tags` outside code, without '#', in order of first use; a tag needs a non-digit."""
    found: dict[str, None] = {}
    for line in masked_lines(body):
        for match in _TAG.finditer(line):
            tag = match.group(1).strip("/")
            if any(not (c.isdigit() or c == "/") for c in tag):
                found.setdefault(tag, None)
    return tuple(found)


def parse_headings(body: str) -> tuple[Heading, ...]:
    """ATX headings outside code, in order."""
    headings: list[Heading] = []
    for number, line in enumerate(masked_lines(body), start=1):
        found = _HEADING.match(line)
        if found and found.group(2).strip():
            headings.append(Heading(level=len(found.group(1)), text=found.group(2).strip(), line=number))
    return tuple(headings)


def section_span(body: str, headings: tuple[Heading, ...], index: int) -> tuple[int, int]:
    """First and last body line (1-based, inclusive) of the section under headings[index]:
    up to the next heading of the same or a higher level."""
    start = headings[index].line
    level = headings[index].level
    end = len(body.split("\n"))
    for later in headings[index + 1 :]:
        if later.level <= level:
            end = later.line - 1
            break
    return start, end


def block_span(body: str, block_id: str) -> tuple[int, int] | None:
    """The paragraph (or list item) carrying `^block_id`, as a body line span, or None."""
    lines = masked_lines(body)
    for number, line in enumerate(lines, start=1):
        found = _BLOCK_ID.search(line)
        if not found or found.group(1) != block_id:
            continue
        start = number
        if not _LIST_ITEM.match(line):
            while start > 1:
                previous = lines[start - 2]
                if not previous.strip() or _HEADING.match(previous) or _LIST_ITEM.match(previous):
                    break
                start -= 1
        return start, number
    return None


def lines_between(body: str, span: tuple[int, int]) -> str:
    lines = body.split("\n")
    return "\n".join(lines[span[0] - 1 : span[1]]).rstrip("\n") + "\n"
