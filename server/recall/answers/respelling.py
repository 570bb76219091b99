"""A misspelt query word corrected without passing over the whole vault again (#49).

A query word no record holds in any form is taken for the nearest word the records hold
(ranking/spelling.py) — known only once the pass that ranks is over.  Gathering the records'
words, then measuring again with the correction, were two more passes over every note: a
misspelt query cost about three times its twin spelled right.

So the pass that ranks watches for what a correction needs (`Watch`): on the bytes it reads
anyway, it notes each note that could hold one of a word's spelling gates (spelling.gates:
every word a correction can be holds one) — only while no record has held the word, so a
query spelled right stops looking once its words are found.  For a word never found, the
notes noted are every note that could hold one of its gates, and only they are read again:
for the words a correction is taken from, and to measure the corrected query.  Every other
note holds no gate of the word, so none of a correction's either (each of the correction's
gates holds one of the word's: checked before the shortcut is taken): its counts, its place
among the records and whether its problem is told are what the first pass made of them
(`merged`, `merged_problems`).

Nothing outlives the call: what is noted is paths and places in the pass, dropped with it.
The passes are made as before when the pass was split among worker processes, a word is not
ASCII, a correction has a gate holding none of the word's gates, or a note read again is no
longer what the first pass measured.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from vault_recall.server.recall.finding.looking import Verdict
from vault_recall.server.recall.ranking.bm25 import Evidence
from vault_recall.server.recall.ranking.known_words import knows
from vault_recall.server.recall.ranking.query_terms import Term
from vault_recall.server.recall.ranking.relevance import MatchFields, Ranked
from vault_recall.server.recall.ranking.spelling import (
    allowed_distance,
    gates,
    nearest,
    relatable,
    related,
    spelt_otherwise,
)
from vault_recall.server.recall.ranking.words import fold_for_ranking
from vault_recall.server.recall.results import Problem

T = TypeVar("T")
# A record a ranked ordering keeps: its index among those measured, its Match fields, its counts.
Kept = tuple[int, MatchFields, Evidence]


def respellable(word: str) -> bool:
    """Whether a query word may be taken for another (spelling.py): long enough, letters only."""
    return bool(allowed_distance(word)) or relatable(word)


ANYTHING = -1  # a note's mask when it could hold any gate


@dataclass
class Watch:
    """What one pass notes for a correction: which notes could hold a spelling gate of a
    required word not yet found, and their places among the records the pass measured."""

    pieces: dict[int, tuple[bytes, ...]]  # required term → its word's spelling gates
    unfound: set[int]  # the terms no record measured so far holds
    noted: list[tuple[str, int]] = field(default_factory=list)  # (path, mask of terms), in the pass's order
    # A note noted and measured → (its index among the records listed, or -1 when it held no
    # term and was only counted; then its length): what the first pass made of it.
    places: dict[str, tuple[int, int]] = field(default_factory=dict)
    whole: bool = True  # False: the pass did not show it the notes (split in shares, or none looked at)
    _looked: str | None = None  # the note looked at last
    _holds: bool = False  # whether it was noted
    _listed: int = 0  # how many records the pass had listed, and the length of those it counted
    _counted_length: int = 0

    @classmethod
    def of(cls, ranked: Ranked) -> Watch | None:
        """A watch for the respellable required words of `ranked`'s query; None when there is
        none, or one is not ASCII (its gates are looked for in bytes)."""
        pieces: dict[int, tuple[bytes, ...]] = {}
        for i in ranked.query.required:
            word = ranked.query.terms[i].word
            if not respellable(word):
                continue
            if not word.isascii():
                return None
            pieces[i] = tuple(piece.encode("ascii") for piece in gates(word))
        return cls(pieces, set(pieces)) if pieces else None

    def watching(self, look: Callable[[str, bytes], Verdict[T]]) -> Callable[[str, bytes], Verdict[T]]:
        """`look`, noting first which words not yet found the note could hold a gate of."""

        def watched(path: str, data: bytes) -> Verdict[T]:
            self._looked = path
            mask = self._mask(path, data) if self.unfound else 0
            self._holds = bool(mask)
            if mask:
                self.noted.append((path, mask))
            return look(path, data)

        return watched

    def _mask(self, path: str, data: bytes) -> int:
        """The terms not yet found one of whose gates the note's title or text, folded as
        ranking folds them, could hold (bit i: term i)."""
        return self._in(data) | self._in(path.encode("utf-8", "surrogateescape"))

    def _in(self, data: bytes) -> int:
        # Folding lowers ASCII letters and leaves the rest of ASCII alone; a character that is
        # not ASCII could fold into a gate only if it folds to one of the gates' letters, or
        # to nothing (joining the letters around it), or combines with what is before it.
        if not data.isascii():
            letters = frozenset(chr(c) for i in self.unfound for piece in self.pieces[i] for c in piece)
            for character in set(_CHARACTER.findall(data.translate(None, _ASCII))):
                folded = _folded(character)
                if folded is None or not letters.isdisjoint(folded):
                    return ANYTHING
        lowered = data.lower()
        mask = 0
        for i in self.unfound:
            for piece in self.pieces[i]:
                if piece in lowered:
                    mask |= 1 << i
                    break
        return mask

    def counted(self, ranked: Ranked, path: str | None) -> None:
        """After `ranked` measured a note: `path` for a parsed record, None for one told from
        its bytes (the note looked at last)."""
        listed = len(ranked.every) > self._listed  # else it held no term: only counted
        length = ranked.holding_none[1] - self._counted_length
        self._listed, self._counted_length = len(ranked.every), ranked.holding_none[1]
        place = (len(ranked.every) - 1, 0) if listed else (-1, length)
        if path is not None and path != self._looked:
            self.noted.append((path, ANYTHING))  # measured without being looked at: could hold anything
            self.places[path] = place
        elif self._holds:
            self.places[self._looked or ""] = place
        if listed and self.unfound:
            evidence = ranked.every[-1]
            self.unfound = {i for i in self.unfound if not evidence.weighted(i) > 0}

    def noted_for(self, terms: Collection[int]) -> list[str]:
        """The notes noted that could hold a gate of one of `terms` (words never found: every
        note that could was noted), in the pass's order."""
        wanted = sum(1 << i for i in terms)
        return [path for path, mask in self.noted if mask & wanted]


# ASCII, taken out of a note's bytes before its other characters are read (a C-speed pass).
_ASCII = bytes(range(128))
# A character that is not ASCII, as UTF-8 (or a stray byte of none).
_CHARACTER = re.compile(rb"[\xc0-\xff][\x80-\xbf]*|[\x80-\xbf]")


@functools.cache
def _folded(encoded: bytes) -> str | None:
    """A character that is not ASCII (as UTF-8) as ranking folds it (fold_for_ranking) — None
    when it folds to nothing (it would join the letters around it), combines with what is
    before it, or is no UTF-8.  Kept for the process: it is Unicode's, not a note's."""
    try:
        character = encoded.decode("utf-8")
    except UnicodeDecodeError:
        return None
    folded = fold_for_ranking(character)
    if not folded or any(unicodedata.combining(c) for c in character):
        return None
    return folded


def term_gates(term: Term) -> list[str]:
    return [scan.gate for scan in term.scans] + [phrase.scan.gate for phrase in term.phrases]


def covers(ranked: Ranked, again: Ranked, corrected: Sequence[int]) -> bool:
    """Whether the notes a watch noted for `ranked` hold every record `again` (its query with
    the terms at `corrected` respelt) can count otherwise: each gate of a corrected term, as
    asked and as respelt, holds a spelling gate of the word asked — and the same terms are
    required, so a note holding neither counts and answers as before."""
    if again.query.required != ranked.query.required:
        return False
    for i in corrected:
        pieces = gates(ranked.query.terms[i].word)
        found = term_gates(ranked.query.terms[i]) + term_gates(again.query.terms[i])
        if not all(any(piece in gate for piece in pieces) for gate in found):
            return False
    return True


def merged(
    ranked: Ranked, again: Ranked, anew: Ranked, among: Sequence[str], watch: Watch, order: Mapping[str, int]
) -> Ranked | None:
    """`again` as a whole pass (its notes in `order`: path → place) would have measured it: `anew` measured the notes
    `among` (noted by `watch`), `ranked` (the first pass) every other.  None when the notes read
    again are not those the first pass measured (one changed in between)."""
    places = [watch.places[path] for path in among if path in watch.places]
    if anew.count != len(places):
        return None
    # The first pass's records, less those read again; then what the second reading made of them.
    dropped = {at for at, _ in places if at >= 0}
    every: list[Evidence] = []
    moved_to: dict[int, int] = {}
    for at, evidence in enumerate(ranked.every):
        if at not in dropped:
            moved_to[at] = len(every)
            every.append(evidence)
    offset = len(every)
    every.extend(anew.every)
    lengths = [length for at, length in places if at < 0]
    count, total = ranked.holding_none
    more, more_length = anew.holding_none

    def joined(first: list[Kept], later: list[Kept]) -> list[Kept]:
        kept = [(moved_to[at], found, evidence) for at, found, evidence in first if at in moved_to]
        moved = [(offset + at, found, evidence) for at, found, evidence in later]
        return sorted(kept + moved, key=lambda item: order[item[1][0]])  # the pass's order

    satisfying = joined(ranked.satisfying, anew.satisfying)
    if ranked.satisfying and not satisfying:
        return None  # a note that answered no longer does: it changed
    again.every = every
    again.holding_none = (count - len(lengths) + more, total - sum(lengths) + more_length)
    again.satisfying = satisfying
    again.closest = [] if satisfying else joined(ranked.closest, anew.closest)
    return again


def merged_problems(
    problems: list[Problem],
    shown: dict[str, Problem],
    anew: list[Problem],
    shown_anew: dict[str, Problem],
    flagged: Sequence[str],
    order: Mapping[str, int],
) -> None:
    """`problems` and `shown` as a whole pass would have told them: those of the notes read
    again (`flagged`) as the second reading told them, in the vault's order (what no note's
    path orders — an unreadable folder, a name that is not UTF-8 — first, as a pass tells it)."""
    noted = set(flagged)
    kept = [found for found in problems if found["path"] not in noted]
    problems[:] = sorted(kept + anew, key=lambda found: order.get(found["path"], -1))
    for path in noted:
        shown.pop(path, None)
    shown.update(shown_anew)


def corrected(ranked: Ranked, wanted: dict[int, str], vocabulary: Counter[str]) -> tuple[dict[int, str], set[int]]:
    """What each word `wanted` (term → word no record holds) is taken for among the records'
    words (spelling.near_words), and which of those are the word asked rather than a guess.

    A word the call's languages know is never taken for another word they know ('insurance'
    for 'instance'): only for the same word in its other English spelling, or — a guess — for
    a word they do not know ('platform' for the German note's 'plattform') or one of its family
    the stemmer parts."""
    query = ranked.query
    names = [lang.name for lang in query.languages]

    def unknown(found: str) -> bool:
        return not knows(names, [found])

    known = {i: knows(names, query.forms(word)) for i, word in wanted.items()}
    stems = ranked.memo.stems
    corrections: dict[int, str] = {}
    asked_forms: set[int] = set()  # corrections that are the word asked, not a guess at it
    for i, word in wanted.items():
        found = spelt_otherwise(word, vocabulary) if known[i] else nearest(word, vocabulary)
        if found is not None:
            asked_forms.add(i)  # a misspelling's correction, or the word in its other spelling
        elif known[i]:
            found = nearest(word, vocabulary, unknown) or related(word, vocabulary, stems)  # a guess
        elif (found := related(word, vocabulary, stems)) is not None:
            asked_forms.add(i)  # a word of its family the stemmer parts
        if found is not None:
            corrections[i] = found
    return corrections, asked_forms
