"""Ranking records against a query: BM25 over fields, from numbers alone.

Each record comes as how often each query term occurs in each of its fields, and its length.
The statistics are those of the records one call read (no index): a term few records hold
weighs more than one most hold; a hit in a title, alias, heading or tag weighs more than one
in the body (results.py); and term frequency saturates and is divided by the record's length relative to
the others', so a long note does not win by length alone.  Plain functions over plain data:
tests/server/recall/ranking/test_bm25.py states the properties.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from vault_recall.server.recall.results import FIELD_WEIGHTS, FIELDS, MatchField

K1 = 1.2  # how fast repeating a term stops adding to the score
B = 0.75  # how much a record's length divides its term counts
FRAMING_WEIGHT = 0.5  # a framing word ("decide", "use") says less about a record than a topic word


@dataclass(frozen=True, slots=True)
class Evidence:
    """One record's term counts: `counts[field][i]` occurrences of term i in that field."""

    counts: Mapping[MatchField, Sequence[int]]
    length: int  # the record's size in characters (body and title)
    weights: tuple[float, ...] = ()  # per term, the counts weighed by field (worked out once)

    @classmethod
    def of(cls, counts: Mapping[MatchField, Sequence[int]], length: int) -> Evidence:
        terms = len(next(iter(counts.values()), ()))
        weighed = tuple(sum(FIELD_WEIGHTS[name] * found[t] for name, found in counts.items()) for t in range(terms))
        return cls(counts=counts, length=length, weights=weighed)

    def weighted(self, term: int) -> float:
        return self.weights[term]

    def __reduce__(self) -> tuple[type[Evidence], tuple[Mapping[MatchField, Sequence[int]], int, tuple[float, ...]]]:
        # Pickled as its three fields (a worker process's share of a pass sends thousands):
        # a tenth of the time of a slotted dataclass's own state functions.
        return Evidence, (self.counts, self.length, self.weights)

    def fields_holding(self, term: int) -> list[MatchField]:
        return [name for name in FIELDS if name in self.counts and self.counts[name][term] > 0]


def idf(records: int, holding: int) -> float:
    """Inverse document frequency, never negative (a term every record holds still counts a little)."""
    return math.log(1 + (records - holding + 0.5) / (holding + 0.5))


def holding(evidence: Sequence[Evidence], terms: int) -> tuple[int, ...]:
    """How many of the records hold each of the `terms` terms, in any field."""
    return tuple(sum(1 for record in evidence if record.weights[t] > 0) for t in range(terms))


def scores(
    evidence: Sequence[Evidence],
    weights: Sequence[float],
    held_by: Sequence[int] | None = None,
    holding_none: tuple[int, int] = (0, 0),
) -> list[float]:
    """Each record's BM25F score; `weights[i]` scales term i (1, or FRAMING_WEIGHT).  `held_by`:
    `holding(evidence, len(weights))` when the caller has counted it already.  `holding_none`:
    (how many, their total length) of further records holding no term, counted but not listed —
    all BM25 needs of a record that cannot score is that it is one more, and its length."""
    if not evidence:
        return []
    terms = range(len(weights))
    weighted = [record.weights for record in evidence]
    holding_ = held_by if held_by is not None else holding(evidence, len(weights))
    others, others_length = holding_none
    records = len(evidence) + others
    term_idf = [idf(records, holding_[t]) * weights[t] for t in terms]
    # Lengths are whole numbers: their sum is exact in any order, so the mean is the same float
    # whether a record is listed or only counted.
    average = (sum(record.length for record in evidence) + others_length) / records or 1.0
    found = []
    for record, row in zip(evidence, weighted, strict=True):
        norm = K1 * (1 - B + B * record.length / average)
        found.append(sum(term_idf[t] * row[t] * (K1 + 1) / (row[t] + norm) for t in terms if row[t] > 0))
    return found


def coverage(record: Evidence, required: Sequence[int]) -> float:
    """The share of the required terms the record holds somewhere (1.0: all of them)."""
    if not required:
        return 1.0
    return sum(1 for t in required if record.weighted(t) > 0) / len(required)
