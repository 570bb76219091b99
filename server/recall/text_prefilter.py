"""Byte tests that rule a note out of a search or a backlinks answer before it is decoded or
parsed — each a proven superset of the exact test the tool then applies.

A search hit or problem needs the phrase in the note's text (case ignored as `re.IGNORECASE`
ignores it); a backlink or a backlinks problem needs the target's name in it (case and
Unicode form ignored as `resolve.fold` ignores them), as written or percent-encoded.  A note
whose bytes cannot hold that is skipped; every other note is read in full and judged exactly.
tests/test_text_prefilter.py holds the cases that make each rule necessary, and checks the
tools against the whole-vault readings.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import quote, unquote

from vault_recall.server.obsidian.resolve import fold

Worth = Callable[[bytes | bytearray], bool]


@dataclass(frozen=True)
class Phrase:
    """What search_notes looks for: the phrase, ignoring case as `re.IGNORECASE` does."""

    text: str
    pattern: re.Pattern[str]
    ascii_lower: str | None  # the phrase lowercased, when it is ASCII

    @classmethod
    def of(cls, phrase: str) -> Phrase:
        return cls(phrase, re.compile(re.escape(phrase), re.IGNORECASE), phrase.lower() if phrase.isascii() else None)

    def first_per_line(self, text: str) -> Iterator[tuple[int, int]]:
        """(start, end) of the first match on each line holding one, in order.  The search goes
        on from the end of a line once it has a match there: a phrase found a million times on
        one long line costs one find, not a million."""
        ascii_lower = self.ascii_lower is not None and text.isascii()
        haystack = text.lower() if ascii_lower else text
        position = 0
        while True:
            if ascii_lower:
                assert self.ascii_lower is not None
                start = haystack.find(self.ascii_lower, position)
                if start < 0:
                    return
                end = start + len(self.ascii_lower)
            else:
                found = self.pattern.search(text, position)
                if found is None:
                    return
                start, end = found.start(), found.end()
            yield start, end
            line_end = text.find("\n", end)
            if line_end < 0:
                return
            position = line_end + 1

    def found_in(self, text: str) -> bool:
        if self.ascii_lower is not None and text.isascii():
            return self.ascii_lower in text.lower()
        return self.pattern.search(text) is not None


# The only ASCII characters `re.IGNORECASE` matches with characters outside ASCII: 'i' and 'I'
# with 'İ' and 'ı', 'k' with the Kelvin sign, 's' with the long s.  (The test checks this
# against every code point.)  A phrase without them matches only ASCII characters for its
# ASCII ones, and UTF-8 never writes an ASCII byte inside another character.
CASE_ESCAPES_ASCII = frozenset("iIkKsS")


def phrase_filter(pattern: Phrase) -> Worth:
    """Could a note with these bytes hold the phrase (as search_notes looks for it) on a line?"""
    phrase = pattern.text
    if not phrase.isascii() or "\ufffd" in phrase:
        return lambda data: pattern.found_in(_text(data))
    lowered = phrase.lower().encode("ascii")
    bytes_tell = not CASE_ESCAPES_ASCII.intersection(phrase)

    def worth(data: bytes | bytearray) -> bool:
        if data.isascii() or bytes_tell:
            # ASCII text: lowering the bytes is lowering the text.  Otherwise the phrase's
            # characters can only match ASCII ones, which UTF-8 writes as themselves.
            return lowered in data.lower()
        return pattern.found_in(_text(data))

    return worth


def name_filter(target: str) -> Worth:
    """Could a note with these bytes link to the note at `target`, or be a broken note that
    get_backlinks names because its text names the target (`backlinks.could_link`)?

    A link resolves to the target only if what it names folds to the target's name — as
    written in a wikilink, percent-decoded in a markdown link, and with inline code blanked
    out (so the name's words may stand apart: each word is looked for on its own).
    """
    name = fold(target.rsplit("/", 1)[-1].removesuffix(".md"))
    words = [word for word in name.split(" ") if word]
    quoted = fold(quote(name))
    if not words or any(_joins_what_precedes(word[0]) for word in words):
        return lambda data: True  # no name to look for, or one whose first letter may fuse with the text before it
    words.sort(key=len, reverse=True)  # the longest first: the one most notes lack
    ascii_words = [word.encode("ascii") for word in words] if all(word.isascii() for word in words) else None
    ascii_quoted = quoted.encode("ascii") if quoted.isascii() else None

    def worth(data: bytes | bytearray) -> bool:
        if data.isascii():
            # ASCII text: folding is lowering.
            lowered = data.lower()
            if ascii_words is not None and _all_in(ascii_words, lowered):
                return True
            if ascii_quoted is not None and ascii_quoted in lowered:
                return True
            return b"%" in data and _all_in(words, fold(unquote(data.decode("ascii"))))
        text = _text(data)
        folded = fold(text)
        if _all_in(words, folded) or quoted in folded:
            return True
        return "%" in text and _all_in(words, fold(unquote(text)))

    return worth


def _text(data: bytes | bytearray) -> str:
    # As a note is read, a note whose text is not UTF-8 included; the BOM and line endings
    # only add characters the phrase or name would need to hold too.
    return data.decode("utf-8", errors="replace")


def _all_in(words: list[str] | list[bytes], text: str | bytes | bytearray) -> bool:
    for word in words:  # noqa: SIM110 - a loop, not all(): called for every note of the vault
        if word not in text:  # type: ignore[operator]
            return False
    return True


def _joins_what_precedes(char: str) -> bool:
    """Can this character compose, under NFC, with the character written before it (a
    combining mark, or a Hangul vowel or final jamo)?  Then its word, folded with the text
    around it, may not be found as folded alone."""
    return unicodedata.combining(char) != 0 or "\u1160" <= char <= "\u11ff" or unicodedata.category(char) == "Mn"
