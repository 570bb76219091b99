"""Byte tests that rule a note out of a search or a backlinks answer before it is decoded or
parsed — each a proven superset of the exact test the tool then applies.

A search hit or problem needs the phrase in the note's text (case ignored as `re.IGNORECASE`
ignores it); a backlink or a backlinks problem needs the target's name in it (case and
Unicode form ignored as `resolve.fold` ignores them), as written or percent-encoded.  A note
whose bytes cannot hold that is skipped; every other note is read in full and judged exactly.
tests/server/recall/finding/test_text_prefilter.py holds the cases that make each rule necessary, and checks the
tools against the whole-vault readings.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import quote, unquote, unquote_to_bytes

from vault_recall.server.obsidian.note_bytes import REST_OF_LINE
from vault_recall.server.obsidian.resolve import fold

Worth = Callable[[bytes | bytearray], bool]


class HitLines(NamedTuple):
    """How many lines of a text hold a phrase, and how few characters, at the least, one of
    them holds from its first match to its end.  That least length bounds from below what
    every hit of a note shows (its whole line, or a window of the line as wide as the line
    allows), so packing can pass over a note none of whose hits could fit without reading it
    again."""

    number: int  # lines holding the phrase
    least: int  # the fewest characters from a line's first match to its end (0 when none)


NO_HITS = HitLines(0, 0)


@dataclass(frozen=True)
class Phrase:
    """What search_notes looks for: the phrase, ignoring case as `re.IGNORECASE` does.

    A phrase's lines are described once, by `on_a_line`: a match and the rest of its line.  A
    match never spans lines (the phrase holds no line break), so one search for it finds the
    first match on a line and steps on to the line's end: each line holding the phrase is found
    once, whether listed one by one (`lines_with_hits`) or counted in bulk (`hit_lines`: one
    C-speed `findall` per text, for `search_notes` must count every hit of a common word for
    `omitted` and shapes only the few it returns).
    """

    text: str
    pattern: re.Pattern[str]
    ascii_lower: str | None  # the phrase lowercased, when it is ASCII
    on_a_line: re.Pattern[str]  # the first match on a line, and the rest of that line
    on_a_lowered_line: re.Pattern[bytes] | None  # the same in lowered bytes, for an ASCII phrase

    @classmethod
    def of(cls, phrase: str) -> Phrase:
        escaped = re.escape(phrase)
        ascii_lower = phrase.lower() if phrase.isascii() else None
        return cls(
            phrase,
            re.compile(escaped, re.IGNORECASE),
            ascii_lower,
            re.compile(escaped + REST_OF_LINE, re.IGNORECASE),
            None if ascii_lower is None else re.compile(re.escape(ascii_lower.encode("ascii")) + REST_OF_LINE.encode()),
        )

    def lines_with_hits(self, text: str, first_line: int) -> Iterator[tuple[int, int, int, int, int]]:
        """(file line number, line start, line end, match start, match end) for the first match
        on each line of `text` holding one, in order; `text` starts on file line `first_line`.

        One pass over the whole text (a search per line would be a call per line, tens of
        thousands over a vault), one search per line holding the phrase (`on_a_line`): a phrase
        found a million times on one long line costs one search, not a million.  Each literal
        character of the phrase matches one character, so a match is as long as the phrase."""
        number = first_line
        counted = 0  # newlines before this position are counted in `number`
        size = len(self.text)
        for found in self.on_a_line.finditer(text):
            start = found.start()
            number += text.count("\n", counted, start)
            counted = start
            yield number, text.rfind("\n", 0, start) + 1, found.end(), start, start + size

    def hit_lines(self, text: str, start: int = 0, end: int | None = None) -> HitLines:
        """The lines of `text[start:end]` holding the phrase (`start` at a line's start, `end`
        at one's end or the text's): the lines `lines_with_hits` gives."""
        return _tally(self.on_a_line.findall(text, start, len(text) if end is None else end))

    def hit_lines_lowered(self, lowered: bytes, start: int = 0, end: int | None = None) -> HitLines:
        """The same for an ASCII phrase in a note's bytes as `AsciiView` shows them (lowered,
        the characters that compare as ASCII letters written as those), with LF line endings:
        the least is then counted in bytes, never fewer than the characters they write."""
        assert self.on_a_lowered_line is not None, "an ASCII phrase only"
        return _tally(self.on_a_lowered_line.findall(lowered, start, len(lowered) if end is None else end))

    def found_in(self, text: str) -> bool:
        if self.ascii_lower is not None and text.isascii():
            return self.ascii_lower in text.lower()
        return self.pattern.search(text) is not None


def _tally(found: list[str] | list[bytes]) -> HitLines:
    return HitLines(len(found), min(map(len, found))) if found else NO_HITS


# The only characters outside ASCII that `re.IGNORECASE` matches with ASCII ones: 'İ' and 'ı'
# with 'i', the Kelvin sign with 'k', the long s with 's' (the test checks every code point).
CASE_ESCAPES = {"\u0130": "i", "\u0131": "i", "\u212a": "k", "\u017f": "s"}
# The only characters outside ASCII whose `fold` (NFC, then casefold) holds ASCII characters
# (the test checks every code point): ligatures, sharp s, the Kelvin sign, a few singletons.
FOLD_ESCAPES = {
    char: unicodedata.normalize("NFC", char).casefold()
    for char in "\u00df\u0130\u0149\u017f\u01f0\u037e\u1e96\u1e97\u1e98\u1e99\u1e9a\u1e9e\u1fef\u212a"
    "\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06"
}


class AsciiView:
    """A note's bytes as runs of ASCII characters in its text compare: lowered, with the few
    characters outside ASCII that compare as ASCII ones written as those.  A run the comparison
    finds in the text is found in this view (UTF-8 never writes an ASCII byte inside another
    character, and lowering bytes lowers only ASCII letters) — the view may find more.
    """

    def __init__(self, escapes: dict[str, str], runs: list[bytes]) -> None:
        # Only escapes that can make up part of a run looked for matter (most names and
        # phrases need none); each is looked for only after a cheap look for its bytes.
        self._escapes = []
        for char, stands in escapes.items():
            written, standing = char.encode("utf-8"), stands.encode("utf-8")
            if any(_overlaps(standing, run) for run in runs):
                self._escapes.append((written, standing, tuple(written[i : i + 1] for i in range(len(written)))))

    @property
    def writes_ascii_for_other_characters(self) -> bool:
        """Does this view write some character outside ASCII as ASCII letters?"""
        return bool(self._escapes)

    def of(self, data: bytes | bytearray) -> bytes | bytearray:
        lowered = data.lower()
        if self._escapes and not data.isascii():
            for written, standing, each_byte in self._escapes:
                # One byte at a time is a memchr; a longer needle is a slow loop.
                if _all_in(each_byte, data) and written in data:
                    lowered = lowered.replace(written, standing)
        return lowered


def digits_in(run: bytes) -> bytes:
    """The longest stretch of three digits or more in `run` (b"" when none).  Digits are written
    in a note's view, its percent-encoded form and its folded text exactly as in its bytes (no
    character but a digit stands for one, and no case changes one), so a note whose bytes lack
    them lacks `run` in all of those: a search of the raw bytes, before any lowering."""
    return max(re.findall(rb"[0-9]{3,}", run), key=len, default=b"")


def _overlaps(standing: bytes, run: bytes) -> bool:
    """Can text that `standing` is part of hold `run` with some of its bytes from it?"""
    if standing in run or run in standing:
        return True
    ends = range(1, len(standing))
    return any(run.startswith(standing[k:]) for k in ends) or any(run.endswith(standing[:k]) for k in ends)


def _ascii_runs(text: str) -> list[bytes]:
    """The longest ASCII run of each word of `text` (lowered): what any text holding the word
    holds in its AsciiView."""
    runs = []
    for word in text.split(" "):
        pieces = [piece for piece in re.split(r"[^\x00-\x7f]+", word) if piece]
        if pieces:
            runs.append(max(pieces, key=len).lower().encode("ascii"))
    return sorted(runs, key=len, reverse=True)  # the longest first: the one most notes lack


def phrase_filter(pattern: Phrase) -> Worth:
    """Could a note with these bytes hold the phrase (as search_notes looks for it) on a line?"""
    phrase = pattern.text
    if "\ufffd" in phrase:
        # Bytes that are not UTF-8 read as U+FFFD: only the decoded text can tell.
        return lambda data: pattern.found_in(_text(data))
    if phrase.isascii():
        lowered = phrase.lower().encode("ascii")
        ascii_view = AsciiView(CASE_ESCAPES, [lowered])
        # Each character of the text that matches one of the phrase is an ASCII one or an
        # escape of it, so the phrase, lowered, is in the view of any text that holds it.
        return lambda data: lowered in ascii_view.of(data)
    # Its longest ASCII stretch must be in the view; the decoded text decides.
    stretches = [piece for piece in re.split(r"[^\x00-\x7f]+", phrase) if piece]
    runs = [max(stretches, key=len).lower().encode("ascii")] if stretches else []
    view = AsciiView(CASE_ESCAPES, runs)

    def worth(data: bytes | bytearray) -> bool:
        if runs and not _all_in(runs, view.of(data)):
            return False
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
    runs = _ascii_runs(" ".join(words))
    whole = all(word.isascii() for word in words)  # then the runs are the words
    ascii_quoted = quoted.encode("ascii")  # quote() writes ASCII only
    view = AsciiView(FOLD_ESCAPES, [*runs, ascii_quoted])
    escaped = _escapes_that_could_spell(runs, view) if whole else None

    # The run most notes lack is looked for first: it is learned from the notes as the pass goes.
    rarest_first = _RarestFirst(runs)
    # A number in the name rules out most notes on their raw bytes — unless an escape encodes a
    # digit ('%30'-'%39': no other byte sequence decodes to one, and no other character folds
    # to one), as a markdown link may write it.  Notes full of links hold many '%20'.
    digits = max((digits_in(run) for run in runs), key=len, default=b"")

    def worth(data: bytes | bytearray) -> bool:
        if digits and digits not in data and _DIGIT_ESCAPE.search(data) is None:
            return False
        seen = view.of(data)
        if rarest_first.all_in(seen) and (whole or _all_in(words, fold(_text(data)))):
            return True
        if ascii_quoted in seen and (data.isascii() or quoted in fold(_text(data))):
            return True
        if escaped is None and not _escapes_other_than_blanks(data):
            # No '%' or only encoded blanks: decoding them makes no word that was not there.
            return False
        if escaped is not None and escaped.search(seen) is None:
            return False  # no escape decodes to a byte any of the words could hold
        # A markdown link's target is read percent-decoded: the same tests on the decoded bytes.
        return _all_in(runs, view.of(unquote_to_bytes(bytes(data)))) and _all_in(words, fold(unquote(_text(data))))

    return worth


def line_filter(target: str) -> Callable[[str], bool] | None:
    """Could this line of a note's body (code blanked out) hold a link to the note at
    `target`?  None when every line could.

    A link is written on one line, and resolves to the target only if what it names folds to
    the target's name (or a path ending with it): then the line, folded, holds each ASCII run
    of the name's words — unless the link is a markdown one written percent-encoded.  A line
    is folded as `resolve.fold` folds a link's target (NFC, then casefold), lowered when it is
    ASCII: the target is set off by brackets, which compose with nothing.
    """
    name = fold(target.rsplit("/", 1)[-1].removesuffix(".md"))
    words = [word for word in name.split(" ") if word]
    if not words or any(_joins_what_precedes(word[0]) for word in words):
        return None
    runs = [run.decode("ascii") for run in _ascii_runs(" ".join(words))]
    if not runs:
        return None

    def wanted(line: str) -> bool:
        if "%" in line:
            return True
        seen = line.lower() if line.isascii() else fold(line)
        return _all_in(runs, seen)

    return wanted


def alias_filter(key: str) -> Worth:
    """Could a note with these bytes have an alias that folds (`resolve.fold`) to `key`?

    Its properties are YAML, where an alias's words stand in the bytes as written, each whole
    (a long value folded over lines is broken only between words), in any case and Unicode
    form — unless a backslash escape spells them, so a note with a backslash is always read.
    """
    words = [word for word in key.split(" ") if word]
    if not words or any(_joins_what_precedes(word[0]) for word in words):
        return lambda data: True  # as name_filter: no word to look for, or one that may fuse
    runs = _ascii_runs(" ".join(words))
    whole = all(word.isascii() for word in words)
    view = AsciiView(FOLD_ESCAPES, runs)
    rarest_first = _RarestFirst(runs)

    def worth(data: bytes | bytearray) -> bool:
        if b"\\" in data:
            return True
        return rarest_first.all_in(view.of(data)) and (whole or _all_in(words, fold(_text(data))))

    return worth


def _escapes_that_could_spell(runs: list[bytes], view: AsciiView) -> re.Pattern[bytes]:
    """The escapes, as an AsciiView shows them (lowered), that decode to a byte one of these
    ASCII `runs` could be made of: its letters in either case — or any byte of a character
    outside ASCII when the view writes some such character as ASCII letters.

    If a note holds none of them, a run found in the view of the decoded note is made of
    plain bytes only, side by side in the note as well (a decoded byte between them would be
    one the run does not hold), so the view of the note itself holds it: decoding cannot
    change the answer.  For names with letters outside ASCII, NFC can compose a plain letter
    with a decoded accent, so those keep the broader rule (any escape but %20).
    """
    held = {byte for run in runs for byte in run + run.upper()}
    alternatives = [f"{byte:02x}".encode() for byte in sorted(held)]
    if view.writes_ascii_for_other_characters:
        alternatives.append(rb"[89a-f][0-9a-f]")
    return re.compile(rb"%(?:" + b"|".join(alternatives) + rb")")


_OTHER_THAN_BLANK = re.compile(rb"%(?!20)")
_DIGIT_ESCAPE = re.compile(rb"%3[0-9]")


def _escapes_other_than_blanks(data: bytes | bytearray) -> bool:
    """Does a '%' in these bytes start anything but '%20'?  (One search in C, that skips to
    each '%': notes full of links hold many '%20'.)"""
    return _OTHER_THAN_BLANK.search(data) is not None


class _RarestFirst:
    """`_all_in` for one pass over many notes, asking first for the word the last note without
    them all lacked: a name's rare word (a number, a proper noun) is soon asked first, and most
    notes are then ruled out by one search instead of one per common word of the name."""

    def __init__(self, words: Sequence[bytes]) -> None:
        self._words = list(words)

    def all_in(self, text: bytes | bytearray) -> bool:
        words = self._words
        for index, word in enumerate(words):
            if word not in text:
                if index:
                    words.insert(0, words.pop(index))
                return False
        return True


def _text(data: bytes | bytearray) -> str:
    # As a note is read, a note whose text is not UTF-8 included; the BOM and line endings
    # only add characters the phrase or name would need to hold too.
    return data.decode("utf-8", errors="replace")


def _all_in(words: Sequence[str] | Sequence[bytes], text: str | bytes | bytearray) -> bool:
    for word in words:  # noqa: SIM110 - a loop, not all(): called for every note of the vault
        if word not in text:  # type: ignore[operator]
            return False
    return True


def _joins_what_precedes(char: str) -> bool:
    """Can this character compose, under NFC, with the character written before it (a
    combining mark, or a Hangul vowel or final jamo)?  Then its word, folded with the text
    around it, may not be found as folded alone."""
    return unicodedata.combining(char) != 0 or "\u1160" <= char <= "\u11ff" or unicodedata.category(char) == "Mn"
