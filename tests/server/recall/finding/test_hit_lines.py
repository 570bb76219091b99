"""Hit lines counted in bulk must be the lines `Phrase.lines_with_hits` gives, and the bound
packing passes a note over by must be no larger than any of its hits."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from vault_recall.server.obsidian.note import Note
from vault_recall.server.recall.answers.search import _HitRefs, _NoteHits, line_hits
from vault_recall.server.recall.finding.text_prefilter import Phrase
from vault_recall.server.recall.packing import json_size

KELVIN = "\u212a"
LINES = st.lists(
    st.text(alphabet=st.sampled_from(["a", "b", "A", " ", "k", KELVIN, "\u0130", "é", '"', "\\", "ß"]), max_size=300),
    max_size=6,
).map("\n".join)
PHRASES = st.sampled_from(["a", "ab", "b a", "k", KELVIN, "i", "\u0130", "é", "ss", '"', "zz"])


def expected(pattern: Phrase, text: str) -> tuple[int, int]:
    """(lines with a hit, the fewest characters from a line's first hit to its end)"""
    tails = [end - hit for _, _, end, hit, _ in pattern.lines_with_hits(text, 1)]
    return len(tails), min(tails, default=0)


@example("ab\nxx ab ab\n\nab", "ab", 1)
@example("k\nK\n" + KELVIN + "\n\u0130", "i", 7)
@given(LINES, PHRASES, st.integers(1, 9))
def test_a_phrase_s_lines_are_the_lines_a_search_of_each_line_finds_it_on(text: str, phrase: str, first: int) -> None:
    # The reference: each line searched on its own, as a person would read the phrase's rule.
    found = []
    offset = 0
    for number, line in enumerate(text.split("\n"), start=first):
        match = re.search(re.escape(phrase), line, re.IGNORECASE)
        if match:
            found.append((number, offset, offset + len(line), offset + match.start(), offset + match.end()))
        offset += len(line) + 1
    assert list(Phrase.of(phrase).lines_with_hits(text, first)) == found


@example("ab\nxx ab ab\n\nab", "ab")
@example("k\nK\n" + KELVIN, "k")
@given(LINES, PHRASES)
def test_hit_lines_are_the_lines_with_a_hit(text: str, phrase: str) -> None:
    pattern = Phrase.of(phrase)
    assert tuple(pattern.hit_lines(text)) == expected(pattern, text)
    if text.isascii() and phrase.isascii():
        lowered = text.lower().encode("ascii")
        assert tuple(pattern.hit_lines_lowered(lowered)) == expected(pattern, text)


@given(LINES, LINES, PHRASES)
def test_hit_lines_of_a_part_of_the_text_are_those_of_that_part_alone(head: str, tail: str, phrase: str) -> None:
    pattern = Phrase.of(phrase)
    text = f"{head}\n{tail}"
    start = len(head) + 1
    assert tuple(pattern.hit_lines(text, start)) == expected(pattern, tail)
    assert tuple(pattern.hit_lines(text, 0, len(head))) == expected(pattern, head)


@given(LINES, PHRASES, st.text(min_size=1, max_size=40).filter(lambda name: "\x00" not in name and "/" not in name))
def test_no_hit_of_a_note_is_smaller_than_the_bound_packing_skips_it_by(text: str, phrase: str, name: str) -> None:
    pattern = Phrase.of(phrase)
    path = f"Folder/{name}.md"
    note = Note(path=path, title=name, properties={}, aliases=(), tags=(), body=text, data=text.encode())
    hits = line_hits(note, pattern, "My vault")
    lines = pattern.hit_lines(text)
    assert len(hits) == lines.number
    if hits:
        refs = _HitRefs([_NoteHits(0, path, 0, 0, lines.number, lines.least)], "My vault")
        assert refs.at_least(refs[0]) <= min(json_size(hit) for hit in hits)
