"""How many lines of a text hold a phrase, and how few characters, at the least, one of them
holds from its first match to its end — counted in bulk, one C-speed `findall` per text.

A common word is on most lines of most notes, and `search_notes` must count every hit for
`omitted`; only the few hits it returns are cut out and shaped.  That least length bounds from
below what every hit of a note shows (its whole line, or a window of the line as wide as the
line allows), so packing can pass over a note none of whose hits could fit without reading it
again.  A match never spans lines (the phrase holds no line break), and each match found runs
on to the end of its line, so the next is found on a later line: one per line that holds the
phrase, the lines `Phrase.lines_with_hits` gives (tests/server/recall/finding/test_hit_lines.py).
"""

from __future__ import annotations

from typing import NamedTuple

from vault_recall.server.recall.finding.text_prefilter import Phrase


class HitLines(NamedTuple):
    number: int  # lines holding the phrase
    least: int  # the fewest characters from a line's first match to its end (0 when none)


NO_HITS = HitLines(0, 0)


class LineCounter:
    """Counts the lines holding one phrase (as `Phrase.lines_with_hits` finds it)."""

    def __init__(self, pattern: Phrase) -> None:
        # The match and the rest of its line: findall then steps on from the line's end.
        self._text = pattern.on_a_line
        self._lowered = pattern.on_a_lowered_line

    def in_text(self, text: str, start: int = 0, end: int | None = None) -> HitLines:
        """The lines of `text[start:end]` holding the phrase (`start` at a line's start, `end`
        at one's end or the text's)."""
        return _tally(self._text.findall(text, start, len(text) if end is None else end))

    def in_lowered(self, lowered: bytes, start: int = 0, end: int | None = None) -> HitLines:
        """The same for an ASCII phrase in a note's bytes as `text_prefilter.AsciiView` shows
        them (lowered, the characters that compare as ASCII letters written as those), with LF
        line endings: the least is then counted in bytes, never fewer than the characters
        they write."""
        assert self._lowered is not None, "an ASCII phrase only"
        return _tally(self._lowered.findall(lowered, start, len(lowered) if end is None else end))


def _tally(found: list[str] | list[bytes]) -> HitLines:
    return HitLines(len(found), min(map(len, found))) if found else NO_HITS
