"""How a term's words are found in a text: a `Scan` per stem and language, a gate to look for
and a pattern for the words there.

Finding a term's words without splitting every note into words: every word whose stem is a
term's stem starts with the stem less its last two letters (at least two kept).  Checked
against the whole of Debian's word lists for English, French, Spanish, Italian, Portuguese and
German (there after reading 'ae', 'oe', 'ue' as 'a', 'o', 'u', as the German stemmer does), with
one family of exceptions, English 'die'/'dying' and the like, found by a second start.  So a
text is searched for those starts (a C-speed substring search), and only the words found there
are stemmed: the same matches as stemming every word
(tests/server/recall/ranking/test_query_terms.py).  Dutch stemming also takes 'ge-' off the
middle of words (uit*ge*doofd), so for Dutch every word is looked at.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from vault_recall.server.recall.ranking.words import LETTER, is_cjk

Stem = tuple[str, str]  # (language, stem)

# Languages whose stems may not start a word's letters (see the module docstring).
_EVERY_WORD_LANGUAGES = frozenset({"dutch"})
# A word outside CJK: CJK letters are taken as bigrams (words.py), and are no part of one.
EVERY_WORD = re.compile(LETTER + "+")
_LETTERS_AFTER = LETTER + "*"
_ASCII_WORD = re.compile(r"\w+")
_GERMAN_E = re.compile(r"(?<=[aou])e")
_ENGLISH_YING = frozenset({"die", "lie", "tie", "vie", "hie"})  # 'dying' → 'die'


@dataclass(frozen=True)
class Scan:
    """One way of finding candidate words: `gate` must occur in a text for `pattern` to find
    anything, and `pattern` finds words (and tails of words: callers keep those at a word start)."""

    gate: str
    pattern: re.Pattern[str]
    # A CJK bigram or letter (words.py): found wherever it is written, inside a run of CJK
    # letters too, and counted there — its gate is all it is.
    inside: bool = False

    @cached_property
    def at_word_start(self) -> re.Pattern[str] | None:
        """`pattern` finding only what starts a word, when it finds within one word — else None.

        Such a pattern is its gate written out, then letters, 'e?' and '\\w*': all it matches
        is word characters.  Then `pattern` finds a word's first match and goes on after the
        word, and a match not at its word's start has a word character before it.  A look back
        after the gate ('ca(?<!\\wca)\\w*') rules out just those: the same matches at word
        starts, with the search still skipping to each place the gate is (a look back first
        would have it try every place), and no check in Python per match.  A phrase's pattern
        spans words, where that need not hold: it is searched as written.
        """
        gate = re.escape(self.gate)
        pattern = self.pattern.pattern
        if not _WORD_LETTERS.fullmatch(self.gate) or not pattern.startswith(gate):
            return None
        rest = pattern[len(gate) :]
        if not _ONE_WORD_REST.fullmatch(rest):
            return None
        return re.compile(f"{gate}(?<!{LETTER}{gate}){rest}")


# A gate of word characters, and what may follow it in a pattern that finds within one word.
_WORD_LETTERS = re.compile(r"\w+")
_ONE_WORD_REST = re.compile(r"(?:\w|e\?)*" + re.escape(_LETTERS_AFTER))


def common_start(texts: list[str]) -> str:
    shortest = min(texts, key=len)
    for at, character in enumerate(shortest):
        if any(text[at] != character for text in texts):
            return shortest[:at]
    return shortest


def scans_for(stems: frozenset[Stem]) -> tuple[Scan, ...]:
    scans: dict[str, Scan] = {}
    for language, stem in sorted(stems):
        for scan in _language_scans(language, stem):
            scans.setdefault(scan.pattern.pattern, scan)
    return tuple(scans.values())


def _language_scans(language: str, stem: str) -> list[Scan]:
    if is_cjk(stem):  # a bigram or letter, never stemmed: in every language, itself
        return [Scan(gate=stem, pattern=re.compile(re.escape(stem)), inside=True)]
    if language in _EVERY_WORD_LANGUAGES:
        return [Scan(gate="", pattern=EVERY_WORD)]
    if language == "german":
        start = stem_start(_GERMAN_E.sub("", stem))
        # Each a, o, u of the start may be written ae, oe, ue in the note.
        pattern = "".join(re.escape(c) + ("e?" if c in "aou" else "") for c in start)
        literal = re.split("[aou]", start, maxsplit=1)[0]
        gate = start[: len(literal) + 1]
        return [Scan(gate=gate, pattern=re.compile(pattern + _LETTERS_AFTER))]
    scans = [_literal_scan(stem_start(stem))]
    if language == "english" and stem in _ENGLISH_YING:
        scans.append(_literal_scan(stem[0] + "y"))
    return scans


@functools.cache
def _scans_of(language: str, stem: str) -> tuple[Scan, ...]:
    return tuple(_language_scans(language, stem))


def could_have_stem(folded_word: str, language: str, stem: str) -> bool:
    """Whether a word may have `stem` in `language`: it starts as a scan for it looks for."""
    return any(scan.pattern.match(folded_word) for scan in _scans_of(language, stem))


def stem_start(stem: str) -> str:
    """The letters every word with this stem starts with: the stem less two, at least two."""
    return stem[: max(min(2, len(stem)), len(stem) - 2)]


def _literal_scan(start: str) -> Scan:
    if not start:  # no stem at all: look at every word
        return Scan(gate="", pattern=EVERY_WORD)
    return Scan(gate=start, pattern=re.compile(re.escape(start) + _LETTERS_AFTER))


def words_found(text: str, scan: Scan) -> Counter[str]:
    """The words of `text` (folded) that `scan` finds, with how often each occurs."""
    if scan.gate not in text:
        return Counter()
    if scan.inside:
        return Counter({scan.gate: _times_written(text, scan.gate)})
    if scan.pattern is EVERY_WORD:
        # Every word starts a word: no look before each.  In ASCII text, where no CJK letter
        # can be, as `\w+` (quicker than a class that leaves them out).
        return Counter((_ASCII_WORD if text.isascii() else EVERY_WORD).findall(text))
    starts = scan.at_word_start
    if starts is not None:
        return Counter(starts.findall(text))
    # A word character is `\w`'s: alphanumeric or '_' — and a CJK letter is none of a word's.
    # Inline, not a function: this runs once for every place a term's start is found.
    return Counter(
        match.group()
        for match in scan.pattern.finditer(text)
        if not (
            (start := match.start()) and ((before := text[start - 1]).isalnum() or before == "_") and not is_cjk(before)
        )
    )


def _times_written(text: str, gate: str) -> int:
    """How many times `gate` is written in `text`, overlapping ones too: 'ははは' holds the
    bigram 'はは' twice, as its bigrams count it.  (Only a bigram of one letter twice can
    overlap itself.)"""
    if len(gate) == 2 and gate[0] == gate[1]:
        return len(re.findall(f"(?={re.escape(gate)})", text))
    return text.count(gate)
