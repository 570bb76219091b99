"""How recall picks and orders a subject's records for a query: three orderings.

- `Newest`: no query — every record, newest first ("what do we know about X").
- `Ranked` (the default): BM25 over fields with stems (ranking.py); records holding no query
  term are left out, unless none holds any: then every record comes, newest first, as the
  closest there is, and the answer says the match is weak.
- `Strict` (`match="all"`): only records holding every query word as written.

Each sees the records of one pass one at a time (`measure` keeps numbers, never text), and
orders what it kept once the pass is over (`rank`): ranking needs every record's counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from vault_recall.server.recall.packing import json_text_size
from vault_recall.server.recall.query_terms import Query, StemMemo
from vault_recall.server.recall.ranking import FRAMING_WEIGHT, Evidence, coverage, scores
from vault_recall.server.recall.record_terms import evidence_of
from vault_recall.server.recall.records import MemoryRecord
from vault_recall.server.recall.strict_match import strict_match


@dataclass(frozen=True, slots=True)
class Match:
    """A record picked for an answer, as numbers and names: a large vault can have thousands,
    and the text of each would be most of a call's memory.  The few returned are read again."""

    path: str
    title: str
    text_size: int  # the text's size as a JSON string
    revision: str
    modified: str
    date: str | None
    matched: dict[str, list[str]] = field(default_factory=dict)  # query word → fields it is in
    coverage: float | None = None  # share of the query's meaningful words held (None: no query)
    score: float = 0.0


@dataclass(frozen=True, slots=True)
class _Seen:
    match: Match
    evidence: Evidence


def slim(
    record: MemoryRecord, matched: dict[str, list[str]] | None = None, coverage: float | None = None, score: float = 0.0
) -> Match:
    note = record.note
    return Match(
        path=note.path,
        title=note.title,
        text_size=json_text_size(note.body),
        revision=note.revision,
        modified=note.modified,
        date=record.date,
        matched=matched or {},
        coverage=coverage,
        score=score,
    )


def newest_first(matches: list[Match], dated: bool) -> None:
    """Newest date first (events), then newest change, then by path: stable sorts, last key first."""
    matches.sort(key=lambda m: m.path)
    matches.sort(key=lambda m: m.modified, reverse=True)
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

    def measure(self, record: MemoryRecord) -> None:
        self.kept.append(slim(record))

    def rank(self) -> list[Match]:
        newest_first(self.kept, self.dated)
        return self.kept


@dataclass
class Strict:
    """`match="all"`: records holding every query word as written, best field hits first."""

    wanted: list[str]
    reports_weak: bool = True
    kept: list[Match] = field(default_factory=list)

    def fresh(self) -> Strict:
        return replace(self, kept=[])

    def measure(self, record: MemoryRecord) -> None:
        found = strict_match(record, self.wanted)
        if found is not None:
            matched, score = found
            self.kept.append(slim(record, matched=matched, coverage=1.0, score=float(score)))

    def rank(self) -> list[Match]:
        newest_first(self.kept, dated=False)
        self.kept.sort(key=lambda m: m.score, reverse=True)
        return self.kept


@dataclass
class Ranked:
    """The default: BM25 over the records' fields, words matched by their stems."""

    query: Query
    dated: bool
    reports_weak: bool = True
    seen: list[_Seen] = field(default_factory=list)
    memo: StemMemo = field(init=False)

    def __post_init__(self) -> None:
        self.memo = StemMemo(self.query.languages)

    def fresh(self) -> Ranked:
        return replace(self, seen=[])

    def measure(self, record: MemoryRecord) -> None:
        self.seen.append(_Seen(slim(record), evidence_of(record.note, self.query, self.memo)))

    def rank(self) -> list[Match]:
        terms = self.query.terms
        weights = [1.0 if term.required else FRAMING_WEIGHT for term in terms]
        found = scores([seen.evidence for seen in self.seen], weights)
        words = [term.word for term in terms]
        required = self.query.required
        every = [_with_evidence(seen, score, words, required) for seen, score in zip(self.seen, found, strict=True)]
        matches = [match for match in every if match.score > 0]
        if not required:
            # Nothing asked beyond the subject itself: every record answers; those holding the
            # query's words first.
            matches += [match for match in every if match.score == 0]
        elif not matches:
            # Nothing holds any word: the closest there is is every record, newest first.
            matches = every
        newest_first(matches, self.dated)
        matches.sort(key=lambda m: m.score, reverse=True)
        return matches


def _with_evidence(seen: _Seen, score: float, terms_named: list[str], required: Sequence[int]) -> Match:
    evidence = seen.evidence
    matched = {word: evidence.fields_holding(i) for i, word in enumerate(terms_named) if evidence.weighted(i) > 0}
    share = coverage(evidence, required)
    base = seen.match
    return Match(
        path=base.path,
        title=base.title,
        text_size=base.text_size,
        revision=base.revision,
        modified=base.modified,
        date=base.date,
        matched=matched,
        coverage=round(share, 2),
        score=score,
    )


Ordering = Newest | Strict | Ranked
