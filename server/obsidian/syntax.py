"""Obsidian syntax in a note's body, parsed once: links, embeds, inline tags, headings, block ids.

Pure functions over text.  Code blocks and inline code are not syntax (a `[[link]]` or
`#tag` inside backticks is just text), so every scanner works on the body with code masked.

Every scanner runs in time linear in the line length: a note is untrusted input, and one
pathological line (sixty thousand '[' or spaces) must not stall every client's call.  Regular
expressions here have bounded repetitions or no backtracking across a line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})")
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]{1,1000}?)\]\]")
# Target: one level of balanced parentheses ('Note (draft).md'), no brackets (Obsidian allows
# none in note names).  Without brackets in text or target, no two match attempts scan the same
# characters, which keeps this linear on any line.
_MD_LINK = re.compile(
    r"(!?)\[([^\[\]\n]{0,500})\]\([ \t]{0,10}"
    r"(<[^<>\[\]\n]{1,2000}>|(?:[^()\s\[\]]|\([^()\s\[\]]{0,200}\)){1,2000})"
    r"(?:[ \t]{1,10}\"[^\"\n]{0,500}\")?[ \t]{0,10}\)"
)
_URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,30}:")
_TAG = re.compile(r"(?:^|(?<=\s))#([\w/-]{1,200})")
_LIST_ITEM = re.compile(r"^[ \t]{0,40}(?:[-*+]|\d{1,9}[.)])[ \t]")
_BLOCK_ID_AT_END = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]{1,200})$")


# How a link is written: `[[Note]]` or `[text](Note.md)`.
LinkStyle = Literal["wiki", "markdown"]


@dataclass(frozen=True)
class Link:
    """One link as written: `target` is the note part ('' for a same-note `[[#Heading]]`)."""

    target: str
    subpath: str | None  # 'Heading', 'Heading#Sub' or '^block-id'
    display: str | None
    embed: bool
    style: LinkStyle
    line: int  # 1-based line of the body (0: a link in the properties)
    column: int = 0  # where the link starts in its line
    length: int = 0  # how long it is as written


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int  # 1-based line of the body


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, text) when `line` is an ATX heading ('## Text ##'), else None.  Linear time."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith("#"):
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[level:]
    if level > 6 or (rest and rest[0] not in " \t"):
        return None
    text = rest.strip(" \t")
    closing = text.rstrip("#")
    if closing != text and (not closing or closing[-1] in " \t"):
        text = closing.rstrip(" \t")
    return (level, text) if text else None


def _mask_inline_code(line: str) -> str:
    """Blank out `code spans`: a run of n backticks up to the next run of exactly n."""
    if "`" not in line:
        return line
    runs = [(m.start(), m.end()) for m in re.finditer(r"`+", line)]
    next_same: list[int | None] = [None] * len(runs)
    last_seen: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        size = runs[index][1] - runs[index][0]
        next_same[index] = last_seen.get(size)
        last_seen[size] = index
    chars = list(line)
    index = 0
    while index < len(runs):
        closing = next_same[index]
        if closing is None:
            index += 1
            continue
        for position in range(runs[index][0], runs[closing][1]):
            chars[position] = " "
        index = closing + 1
    return "".join(chars)


# A line's container marks: blockquote and callout '>' (nested too, each with the one blank
# after it that belongs to the mark), written after the indentation of a list item or not; a
# fence written inside them is a fence all the same.
_QUOTE_MARKS = re.compile(r"(?:[ \t]{0,40}>[ \t]?)*")
_BLANKS = re.compile(r"[ \t]*")


def _width(blanks: str) -> int:
    """How many columns these blanks indent by (a tab to the next multiple of four)."""
    return len(blanks.expandtabs(4))


def fenced(lines: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """Each line with whether it belongs to a fenced code block (fence lines included) —
    also one written in a quote or callout (`> ```md`) or indented in a list, which ends with
    its closing fence or with the quote it is in.

    Inside a fence every line is text until the fence's own closing line: the same character,
    at least as many, nothing after them but blanks, indented at most three columns more than
    the fence was, and in the same quote (as many '>' marks) — a `> ```` line inside a fence
    opened outside any quote is text of the block, not a fence.
    """
    fence: str | None = None
    depth = 0  # how many '>' the open fence's lines start with
    indent = 0  # the columns the open fence is indented by, inside its quote
    for line in lines:
        marks = _QUOTE_MARKS.match(line)
        assert marks is not None  # it matches the empty string
        blanks = _BLANKS.match(line, marks.end())
        assert blanks is not None
        rest = line[blanks.end() :]
        level = marks.group(0).count(">")
        if fence is not None:
            if level < depth:
                fence = None  # the quote holding the fence ended: so did the fence
            else:
                if level == depth and _closes(fence, rest) and _width(blanks.group(0)) <= indent + 3:
                    fence = None
                yield line, True
                continue
        opener = _FENCE_OPEN.match(rest)
        if opener and not (opener.group(1)[0] == "`" and "`" in rest[opener.end() :]):
            fence = opener.group(1)
            depth = level
            indent = _width(blanks.group(0))
            yield line, True
            continue
        yield line, False


def _closes(fence: str, rest: str) -> bool:
    """Is `rest` (a line after its marks and indentation) a closing line for `fence`: only
    fence characters, at least as many (a closing fence has no info string)?"""
    stripped = rest.rstrip(" \t")
    return len(stripped) >= len(fence) and stripped.count(fence[0]) == len(stripped)


def masked_lines(body: str) -> list[str]:
    """The body's lines with code (fenced blocks and inline spans) blanked out, same lengths."""
    return [" " * len(line) if in_code else _mask_inline_code(line) for line, in_code in fenced(body.split("\n"))]


def wikilinks_in(text: str, line: int = 0) -> list[Link]:
    """Wikilinks and embeds in one line of text (also used for property values)."""
    links = []
    for found in _WIKILINK.finditer(text):
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
                line=line,
                column=found.start(),
                length=found.end() - found.start(),
            )
        )
    return links


def parse_links(body: str, wanted: Callable[[str], bool] | None = None) -> tuple[Link, ...]:
    """Every wikilink, embed and markdown link to a note, outside code, in order — with
    `wanted`, only those on the lines (code blanked out) it keeps."""
    links: list[Link] = []
    for number, (written, in_code) in enumerate(fenced(body.split("\n")), start=1):
        # Blanking code out only takes text away: a line `wanted` refuses as written it would
        # refuse with its code blanked out too.
        if in_code or "[" not in written or (wanted is not None and not wanted(written)):
            continue
        line = _mask_inline_code(written)
        if "[" not in line:
            continue
        links.extend(wikilinks_in(line, number))
        for found in _MD_LINK.finditer(line):
            url = found.group(3)
            if url.startswith("<") and url.endswith(">"):
                url = url[1:-1]
            if _URL_SCHEME.match(url):
                continue  # http:, obsidian:, mailto: … are not links to a note in this vault
            # '#' in the URL is the fragment mark; an encoded '%23' is part of the name.
            path_part, _, fragment = url.partition("#")
            links.append(
                Link(
                    target=unquote(path_part).strip(),
                    subpath=unquote(fragment).strip() or None,
                    display=found.group(2) or None,
                    embed=found.group(1) == "!",
                    style="markdown",
                    line=number,
                    column=found.start(),
                    length=found.end() - found.start(),
                )
            )
    links.sort(key=lambda link: (link.line, link.column))
    return tuple(links)


def parse_inline_tags(body: str) -> tuple[str, ...]:
    """Inline `#tags` outside code, without '#', in order of first use; a tag needs a non-digit."""
    found: dict[str, None] = {}
    for line in masked_lines(body):
        if "#" not in line:
            continue
        for match in _TAG.finditer(line):
            tag = match.group(1).strip("/")
            if any(not (c.isdigit() or c == "/") for c in tag):
                found.setdefault(tag, None)
    return tuple(found)


def parse_headings(body: str) -> tuple[Heading, ...]:
    """ATX headings outside code blocks, in order, with their text as written: inline code in a
    heading is part of it (`## Use `foo` here`, `### `date()``), as Obsidian lists it."""
    headings: list[Heading] = []
    lines = body.split("\n")
    # Without three backticks or tildes in a row no line opens a fence (fenced() finds none):
    # every line is outside code, and only the few starting with '#' need looking at.  Most
    # notes hold no fence, and every read_note lists their sections.
    marked = fenced(lines) if "```" in body or "~~~" in body else ((line, False) for line in lines)
    for number, (line, in_code) in enumerate(marked, start=1):
        if not in_code and "#" in line[:4]:
            found = atx_heading(line)
            if found:
                headings.append(Heading(level=found[0], text=found[1], line=number))
    return tuple(headings)


# What Obsidian's `stripHeading` turns into spaces before it compares a link's heading with a
# note's: punctuation and the characters a link cannot hold.
_HEADING_PUNCTUATION = re.compile(r"[!\"#$%&()*+,.:;<=>?@^`{|}~/\[\]\\]")


def strip_heading(text: str) -> str:
    """A heading as Obsidian compares it: those characters become spaces, runs of blanks one."""
    return " ".join(_HEADING_PUNCTUATION.sub(" ", text).split())


def section_span(line_count: int, headings: tuple[Heading, ...], index: int) -> tuple[int, int]:
    """First and last body line (1-based, inclusive) of the section under headings[index]:
    up to the next heading of the same or a higher level."""
    level = headings[index].level
    for later in headings[index + 1 :]:
        if later.level <= level:
            return headings[index].line, later.line - 1
    return headings[index].line, line_count


def block_span(body: str, block_id: str) -> tuple[int, int] | None:
    """The block carrying `^block_id`, as a body line span, or None.

    A paragraph or list item carries the id at its end; a quote, table or other block carries
    it on a line of its own after the block (with or without a blank line between).
    """
    lines = masked_lines(body)
    for number, line in enumerate(lines, start=1):
        found = _BLOCK_ID_AT_END.search(line.rstrip(" \t"))
        if not found or found.group(1) != block_id:
            continue
        if line.strip() == f"^{block_id}":
            end = number - 1
            while end >= 1 and not lines[end - 1].strip():
                end -= 1
            if end < 1:
                return number, number
            return _paragraph_start(lines, end), number
        if _LIST_ITEM.match(line):
            return number, number
        return _paragraph_start(lines, number), number
    return None


def _paragraph_start(lines: list[str], last: int) -> int:
    start = last
    while start > 1:
        previous = lines[start - 2]
        if not previous.strip() or atx_heading(previous) or (_LIST_ITEM.match(previous) and start != last):
            break
        start -= 1
    return start


def lines_between(lines: list[str], span: tuple[int, int]) -> str:
    """The text of body lines span[0]..span[1] (1-based, inclusive), ending with a newline."""
    return "\n".join(lines[span[0] - 1 : span[1]]).rstrip("\n") + "\n"
