"""The strict match (`match="all"`): a record must hold every query word, as written.

Words are compared as words.words makes them (NFKC, casefolded; no stems, no stop words):
the rule recall had before it ranked, kept for a caller who wants exactly these words.  A CJK
word of one letter is held wherever the letter is written, as ranked recall holds it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from vault_recall.server.obsidian.syntax import parse_inline_tags
from vault_recall.server.recall.ranking.record_terms import has_fence, heading_lines
from vault_recall.server.recall.ranking.words import words_held
from vault_recall.server.recall.records import MemoryRecord
from vault_recall.server.recall.results import FIELD_WEIGHTS, MatchField


def strict_match(record: MemoryRecord, wanted: list[str]) -> tuple[dict[str, list[MatchField]], float] | None:
    """(query word → fields it is in, score) when the record holds every wanted word, else None.
    The score adds up, word by word, the weight of the best field holding it (results.py)."""
    fields = fields_holding(record, wanted)
    matched: dict[str, list[MatchField]] = {}
    score = 0.0
    for word in wanted:
        where = [name for name, found in fields.items() if word in found]
        if not where:
            return None
        matched[word] = where
        score += max(FIELD_WEIGHTS[name] for name in where)
    return matched, score


def fields_holding(record: MemoryRecord, wanted: list[str]) -> dict[MatchField, set[str]]:
    """For each field (results.py), which of the wanted words it holds (as `words` splits the
    field).  A heading is a line of the body: only a word the body holds can be in one, and
    only then are the headings parsed.

    Every field but the body is a few words.  The body is the cost: in the common case of an
    ASCII body, NFKC is the identity and casefolding is lowercasing, so a wanted word is among
    its words exactly when it appears in the lowered body between non-word characters — a
    substring test and a regex, instead of splitting the whole body into words.
    """
    note = record.note
    body = note.body
    if body.isascii():
        lowered = body.lower()
        in_text = [word for word in wanted if word in lowered]
        in_body = {word for word in in_text if holds(lowered, word)}
        # An inline tag is '#' and a run of non-blank characters of the body: only a word found
        # in such a run can be in one, and only then are the tags worth parsing.
        tagged = bool(in_text) and any(word in run for run in _HASH_RUNS.findall(lowered) for word in in_text)
        inline = _all_words(parse_inline_tags(body)) if tagged else set()
    else:
        in_body = words_held(body).intersection(wanted)
        inline = _all_words(parse_inline_tags(body))
    headings: set[str] = set()
    if in_body and "#" in body:  # a heading's words are words of the body
        lines = [heading.text for heading in note.headings] if has_fence(body) else heading_lines(body)
        headings = _all_words(lines).intersection(in_body)
    return {
        "title": words_held(note.title).intersection(wanted),
        "aliases": _all_words(note.aliases).intersection(wanted),
        "heading": headings,
        "tags": _all_words(note.tags).union(inline).intersection(wanted),
        "body": in_body,
    }


# '#' and the non-blank characters after it: where an inline tag can be.  Found run by run
# (a pattern like '#\S*word' would backtrack over every long run, once per '#').
_HASH_RUNS = re.compile(r"#\S+")


# Places `find` tries before the regex takes over: a word found a million times inside other
# words of one note ('y' in a megabyte of 'yyyy') would otherwise cost a Python loop turn each.
_FIND_TRIES = 32


def holds(lowered_ascii: str, word: str) -> bool:
    """Is `word` one of the `\\w+` runs of this lowercased ASCII text?  (Found by `find` and a
    look at the characters on each side: a regex with lookbehinds scans every character, so it
    is used only past the first few places where the word sits inside a longer one.)"""
    size = len(word)
    start = lowered_ascii.find(word)
    tries = 0
    while start >= 0:
        end = start + size
        before = lowered_ascii[start - 1] if start else " "
        after = lowered_ascii[end] if end < len(lowered_ascii) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        tries += 1
        if tries == _FIND_TRIES:
            return _whole_word(word).search(lowered_ascii, start + 1) is not None
        start = lowered_ascii.find(word, start + 1)
    return False


@functools.lru_cache(maxsize=64)
def _whole_word(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![0-9a-z_]){re.escape(word)}(?![0-9a-z_])")


def _all_words(texts: Iterable[str]) -> set[str]:
    return {w for text in texts for w in words_held(text)}
