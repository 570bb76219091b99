"""How recall picks and orders a subject's records for a query: three orderings.

- `Newest`: no query — every record, newest first ("what do we know about X").
- `Ranked` (the default): BM25 over fields with stems (ranking.py); records holding none of
  the query's required words are left out — unless no record holds one: then the closest are
  those holding another meaningful word (the subject's own, a general word, a hyphenated
  word's part), marked weak.  When no record holds any meaningful word, the answer is empty: a
  model handed unrelated records would spend its context on them.
- `Strict` (`match="all"`): only records holding every query word as written.

Each sees the records of one pass one at a time (`measure` keeps numbers, never text), and
orders what it kept once the pass is over (`rank`): ranking needs every record's counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from zlib import crc32

from vault_recall.server.obsidian.note import Note, iso_utc
from vault_recall.server.recall.packing import json_text_size
from vault_recall.server.recall.ranking.bm25 import FRAMING_WEIGHT, Evidence, coverage, holding, scores
from vault_recall.server.recall.ranking.query_terms import Query, StemMemo, respelt
from vault_recall.server.recall.ranking.record_terms import Together, evidence_of, together
from vault_recall.server.recall.ranking.strict_match import strict_match
from vault_recall.server.recall.records import MemoryRecord
from vault_recall.server.recall.results import MatchField


@dataclass(frozen=True, slots=True)
class Match:
    """A record picked for an answer, as numbers and names: a large vault can have thousands,
    and the text of each would be most of a call's memory.  The few returned are read again,
    and only they are shaped (their time written out, what matched named)."""

    path: str
    title: str
    text_size: int  # the text's size as a JSON string
    # The length and CRC-32 of the note's bytes: enough to know the note read again for the
    # answer is the one matched — its SHA-256 revision is worked out for those few alone.
    size: int
    crc: int
    mtime_ns: int
    date: str | None
    score: float = 0.0
    evidence: Evidence | None = None  # ranked: the record's term counts
    query: Query | None = None  # ranked: what was asked
    strict: dict[str, list[MatchField]] | None = None  # match="all": query word → fields it is in

    @property
    def modified(self) -> str:
        return iso_utc(self.mtime_ns)

    @property
    def seconds(self) -> int:
        """The change time as `modified` shows it (whole seconds): what "newest" compares."""
        return self.mtime_ns // 1_000_000_000

    def matched(self) -> dict[str, list[MatchField]]:
        """Query word → the fields that hold it."""
        if self.strict is not None:
            return self.strict
        if self.evidence is None or self.query is None:
            return {}
        held = self.evidence.fields_holding
        return {term.word: held(i) for i, term in enumerate(self.query.terms) if self.evidence.weighted(i) > 0}

    def coverage(self) -> float | None:
        """The share of the query's meaningful words held anywhere in the record (None: no query)."""
        if self.strict is not None:
            return 1.0
        if self.evidence is None or self.query is None:
            return None
        counted = self.query.counted
        held = coverage(self.evidence, tuple(self.query.holdable))  # a share of the holdable ones
        return held * len(self.query.holdable) / len(counted) if counted else 1.0


# A Match's fields up to `date`, as a pass keeps them until the record is scored.
MatchFields = tuple[str, str, int, int, int, int, str | None]


def match_fields(record: MemoryRecord) -> MatchFields:
    """A record's Match fields up to `date`: what a match keeps of it until it is returned."""
    note = record.note
    data = note.data
    return (note.path, note.title, json_text_size(note.body), len(data), crc32(data), note.mtime_ns, record.date)


def slim(record: MemoryRecord, **found: Any) -> Match:
    return Match(*match_fields(record), **found)


def newest_first(matches: list[Match], dated: bool) -> None:
    """Newest date first (events), then newest change, then by path: stable sorts, last key first."""
    matches.sort(key=lambda m: m.path)
    matches.sort(key=lambda m: m.seconds, reverse=True)
    if dated:
        matches.sort(key=lambda m: m.date or "", reverse=True)


@dataclass
class Newest:
    """No query: every record the pass keeps, newest first."""

    dated: bool
    reports_weak: bool = False
    kept: list[Match] = field(default_factory=list)

    def fresh(self) -> Newest:
        return replace(self, kept=[])

    @property
    def count(self) -> int:
        """How many records it was shown."""
        return len(self.kept)

    def measure(self, record: MemoryRecord) -> None:
        self.kept.append(slim(record))

    def absorb(self, later: Newest) -> None:
        """What `later` measured of the records after this one's (a pass split in shares)."""
        self.kept.extend(later.kept)

    def rank(self) -> list[Match]:
        newest_first(self.kept, self.dated)
        return self.kept

    def coverage_of(self, found: Match, note: Note) -> Together | None:
        return None


@dataclass
class Strict:
    """`match="all"`: records holding every query word as written, best field hits first."""

    wanted: list[str]
    reports_weak: bool = True
    kept: list[Match] = field(default_factory=list)
    count: int = 0  # how many records it was shown

    def fresh(self) -> Strict:
        return replace(self, kept=[], count=0)

    def measure(self, record: MemoryRecord) -> None:
        self.count += 1
        found = strict_match(record, self.wanted)
        if found is not None:
            matched, score = found
            self.kept.append(slim(record, strict=matched, score=float(score)))

    def absorb(self, later: Strict) -> None:
        """What `later` measured of the records after this one's (a pass split in shares)."""
        self.kept.extend(later.kept)
        self.count += later.count

    def rank(self) -> list[Match]:
        newest_first(self.kept, dated=False)
        self.kept.sort(key=lambda m: m.score, reverse=True)
        return self.kept

    def coverage_of(self, found: Match, note: Note) -> Together | None:
        return Together(1.0, satisfies=True)  # every word, as written


@dataclass
class Ranked:
    """The default: BM25 over the records' fields, words matched by their stems.

    Every record's counts make the statistics (how many records hold a term, their average
    length); only a record that can satisfy the query is kept as a Match (sized, its revision hashed):
    most of a large vault's notes hold no word of a query."""

    query: Query
    dated: bool
    reports_weak: bool = True
    # Each record's counts, in the order shown — of those that hold a term or are kept; a
    # record holding none (most of a vault) is only counted, with its length: `holding_none`.
    every: list[Evidence] = field(default_factory=list)
    holding_none: tuple[int, int] = (0, 0)  # (how many records hold no term, their total length)
    # (index in `every`, the record as Match fields up to `date`, its counts): a Match is made
    # once scored — a vault of matches would otherwise make each one three times.
    satisfying: list[tuple[int, MatchFields, Evidence]] = field(default_factory=list)
    # The same for records holding a meaningful word that is not required, kept only while no
    # record holding a required word has been seen: the closest there are, when none does.
    closest: list[tuple[int, MatchFields, Evidence]] = field(default_factory=list)
    memo: StemMemo = field(init=False)

    def __post_init__(self) -> None:
        self.memo = StemMemo(self.query.languages)

    def __getstate__(self) -> dict[str, Any]:
        # Sent back by a worker process (finding/pool.py): numbers only.  What it stemmed stays there.
        return {name: value for name, value in self.__dict__.items() if name != "memo"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.memo = StemMemo(self.query.languages)

    def fresh(self) -> Ranked:
        return replace(
            self,
            every=[],
            holding_none=(0, 0),
            satisfying=[],
            closest=[],
            query=replace(self.query, common=frozenset(), held_by=()),
        )

    @property
    def count(self) -> int:
        """How many records it was shown."""
        return len(self.every) + self.holding_none[0]

    def measure(self, record: MemoryRecord) -> None:
        evidence = evidence_of(record.note, self.query, self.memo)
        kept = self.satisfying if self.satisfies(evidence) else self.closest if self.is_closest(evidence) else None
        if kept is not None:
            kept.append((len(self.every), match_fields(record), evidence))
            if kept is self.satisfying:
                self.closest.clear()  # never wanted now: a record holds a required word
        elif not any(evidence.weights):
            self.measure_unheld(evidence.length)
            return
        self.every.append(evidence)

    def measure_unheld(self, length: int) -> None:
        """A record holding no term (answers/unheld.py tells some from their bytes): counted,
        with its length — it cannot satisfy a query with required terms, the only kind it is
        told for, and no term's statistics count it."""
        count, total = self.holding_none
        self.holding_none = (count + 1, total + length)

    def absorb(self, later: Ranked) -> None:
        """What `later` measured of the records after this one's (a pass split in shares), as
        if this one had measured them: `later`'s indexes follow this one's records, and the
        closest are kept only while no record satisfies the query, over both."""
        offset = len(self.every)
        if later.satisfying:
            self.satisfying.extend((index + offset, found, evidence) for index, found, evidence in later.satisfying)
            self.closest.clear()
        elif not self.satisfying:
            self.closest.extend((index + offset, found, evidence) for index, found, evidence in later.closest)
        self.every.extend(later.every)
        self.holding_none = (self.holding_none[0] + later.holding_none[0], self.holding_none[1] + later.holding_none[1])

    def satisfies(self, evidence: Evidence) -> bool:
        required = self.query.required
        if required:
            # Only records holding a meaningful word satisfy it: one holding only a framing word
            # ("decision") is no closer to the question than any other.
            return any(evidence.weighted(i) > 0 for i in required)
        # Nothing asked beyond the subject itself (or framing words): every record satisfies it;
        # those holding the query's words first.
        return True

    def is_closest(self, evidence: Evidence) -> bool:
        """Whether a record that does not satisfy the query holds a meaningful word (Query.meaningful), while
        no record that satisfies it has been seen: the closest there may be."""
        return not self.satisfying and any(evidence.weighted(i) > 0 for i in self.query.meaningful)

    def rank(self) -> list[Match]:
        weights = [1.0 if term.required or term.general else FRAMING_WEIGHT for term in self.query.terms]
        # How many records hold each term, counted once: BM25's document frequencies, and what
        # the weak mark needs (record_terms.satisfies): which terms most hold, and how many hold each.
        held_by = holding(self.every, len(self.query.terms))
        found = scores(self.every, weights, held_by, self.holding_none)
        common = common_terms(held_by, self.count, self.query.required)
        self.query = replace(self.query, common=common, held_by=held_by)
        query = self.query
        # As slim() makes them, positionally: one Match per satisfying record.
        # No record holding a required word: the closest, holding another meaningful word
        # (their coverage is 0: they are marked weak).
        kept = self.satisfying or self.closest
        matches = [Match(*fields, found[index], evidence, query) for index, fields, evidence in kept]
        newest_first(matches, self.dated)
        matches.sort(key=lambda m: m.score, reverse=True)
        return matches

    def unmatched(self) -> list[int]:
        """The required terms no record measured holds in any form."""
        return [i for i in self.query.required if not any(e.weighted(i) > 0 for e in self.every)]

    def respelt(self, corrections: dict[int, str], asked_forms: frozenset[int] = frozenset()) -> Ranked:
        """A fresh ordering looking, at each index of `corrections`, for the word given instead
        (at an index in `asked_forms`, a form of the word asked: query_terms.respelt)."""
        return Ranked(respelt(self.query, corrections, self.memo, asked_forms), dated=self.dated)

    def coverage_of(self, found: Match, note: Note) -> Together | None:
        """For a record an answer returns: the share of the meaningful words it holds together
        (whole-note coverage is only an upper bound of it), and whether it satisfies the query."""
        whole = found.coverage()
        if not whole:
            return None if whole is None else Together(0.0, satisfies=False)
        # The match's own query: the pass that ranked it knows which of its words are common.
        return together(note, found.query or self.query, self.memo)


# A required word more than this share of the records ranked hold ('notes' in a vault of
# notes, 'sync' among the Sync pages) says little about which one is meant: a record without
# it is not a weaker answer.  Only among enough records for a share to mean something.
COMMON_SHARE = 1 / 2
COMMON_AMONG_AT_LEAST = 5


def common_terms(held_by: Sequence[int], records: int, required: tuple[int, ...]) -> frozenset[int]:
    """The required terms more than COMMON_SHARE of the `records` records hold (`held_by`: how
    many hold each term, bm25.holding)."""
    if records < COMMON_AMONG_AT_LEAST:
        return frozenset()
    return frozenset(i for i in required if held_by[i] > COMMON_SHARE * records)


Ordering = Newest | Strict | Ranked
