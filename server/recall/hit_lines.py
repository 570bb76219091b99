"""How many lines of a text hold a phrase, and how long the shortest of them is — counted in
bulk, one C-speed search and one newline search per line that holds it.

A common word is on most lines of most notes, and `search_notes` must count every hit for
`omitted`; only the few hits it returns are cut out and shaped.  The shortest line bounds from
below the size of every hit of a note, so packing can pass over a note none of whose hits
could fit without reading it again.  A match never spans lines (the phrase holds no line
break), so counting the lines with a match is counting the lines `Phrase.lines_with_hits`
gives; tests/server/recall/test_hit_lines.py holds the two equal.
"""

from __future__ import annotations

from typing import NamedTuple

from vault_recall.server.recall.text_prefilter import Phrase


class HitLines(NamedTuple):
    number: int  # lines holding the phrase
    shortest: int  # characters of the shortest of them (0 when none)


NO_HITS = HitLines(0, 0)


def hit_lines(pattern: Phrase, text: str, start: int = 0, end: int | None = None) -> HitLines:
    """The lines of `text[start:end]` (whole lines: `start` at a line's start, `end` at one's
    end or the text's) holding the phrase as `Phrase.lines_with_hits` finds it."""
    stop = len(text) if end is None else end
    if pattern.ascii_lower is not None and text.isascii():
        return _count(text.lower(), pattern.ascii_lower, start, stop)
    count = 0
    shortest = 0
    position = start
    search = pattern.pattern.search
    while (found := search(text, position, stop)) is not None:
        hit = found.start()
        line_end = text.find("\n", found.end(), stop)
        line_end = stop if line_end < 0 else line_end
        length = line_end - max(text.rfind("\n", start, hit) + 1, start)
        shortest = length if count == 0 or length < shortest else shortest
        count += 1
        position = line_end + 1
    return HitLines(count, shortest)


def ascii_hit_lines(lowered: bytes, needle: bytes, start: int = 0, end: int | None = None) -> HitLines:
    """hit_lines for a note whose bytes are ASCII, lowered (and LF line endings), for a phrase
    that is ASCII, lowered: the bytes are then the characters."""
    return _count(lowered, needle, start, len(lowered) if end is None else end)


def _count(haystack: str | bytes, needle: str | bytes, start: int, stop: int) -> HitLines:
    count = 0
    shortest = 0
    position = start
    newline = "\n" if isinstance(haystack, str) else b"\n"
    size = len(needle)
    while (hit := haystack.find(needle, position, stop)) >= 0:  # type: ignore[arg-type]
        line_end = haystack.find(newline, hit + size, stop)  # type: ignore[arg-type]
        line_end = stop if line_end < 0 else line_end
        length = line_end - max(haystack.rfind(newline, start, hit) + 1, start)  # type: ignore[arg-type]
        shortest = length if count == 0 or length < shortest else shortest
        count += 1
        position = line_end + 1
    return HitLines(count, shortest)
