"""Ranked recall the straightforward way, which the server's shortcuts are checked against:
every record measured in full and kept as a Match, every score worked out, the records that
answer picked from all of them — and, for a client that sees the whole vault, every note taken
as scan.each_note shows it.  Kept out of the server, which never needs them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from vault_recall.server.recall.finding.scan import as_seen, each_parsed
from vault_recall.server.recall.finding.view import problem
from vault_recall.server.recall.ranking.bm25 import FRAMING_WEIGHT, scores
from vault_recall.server.recall.ranking.query_terms import respelt
from vault_recall.server.recall.ranking.record_terms import evidence_of
from vault_recall.server.recall.ranking.relevance import Match, Ranked, common_terms, newest_first, slim
from vault_recall.server.recall.ranking.words import fold_for_ranking
from vault_recall.server.recall.records import MemoryRecord, as_record, ruled_record
from vault_recall.server.recall.results import Problem
from vault_recall.server.recall.scope import Scope
from vault_recall.server.vault.listing import VaultListing


@dataclass
class StraightRanked(Ranked):
    """Ranked, measuring and keeping every record whole and choosing only once all are in."""

    seen: list[Match] = field(default_factory=list)

    def fresh(self) -> StraightRanked:
        return replace(self, seen=[], query=replace(self.query, common=frozenset(), held_by=()))

    @property
    def count(self) -> int:
        return len(self.seen)

    def measure(self, record: MemoryRecord) -> None:
        evidence = evidence_of(record.note, self.query, self.memo)
        self.seen.append(slim(record, evidence=evidence, query=self.query))

    def rank(self) -> list[Match]:
        weights = [1.0 if term.required or term.general else FRAMING_WEIGHT for term in self.query.terms]
        found = scores([seen.evidence for seen in self.seen if seen.evidence is not None], weights)
        every = [replace(seen, score=score) for seen, score in zip(self.seen, found, strict=True)]
        required = self.query.required
        if required:
            matches = [m for m in every if m.evidence is not None and any(m.evidence.weighted(i) > 0 for i in required)]
        else:
            matches = every
        measured = [seen.evidence for seen in self.seen if seen.evidence is not None]
        held_by = tuple(len([e for e in measured if e.weighted(i) > 0]) for i in range(len(self.query.terms)))
        self.query = replace(self.query, common=common_terms(held_by, len(measured), required), held_by=held_by)
        matches = [replace(m, query=self.query) for m in matches]
        newest_first(matches, self.dated)
        matches.sort(key=lambda m: m.score, reverse=True)
        return matches

    def respelt(self, corrections: dict[int, str], family: frozenset[int] = frozenset()) -> StraightRanked:
        return StraightRanked(respelt(self.query, corrections, self.memo, family), dated=self.dated)

    def unmatched(self) -> list[int]:
        return [i for i in self.query.required if not any(s.evidence and s.evidence.weighted(i) > 0 for s in self.seen)]


def every_note(
    listing: VaultListing,
    scope: Scope,
    problems: list[Problem],
    gates: object = None,
    asked: Callable[[str], bool] | None = None,
    shown: dict[str, Problem] | None = None,
    watch: object = None,
) -> Iterator[MemoryRecord]:
    """recall_records._every_note as docs/tools.md states it: each note as scan.each_note shows it
    (every one parsed: `gates` and `watch` are passed over); a broken note is a problem when `asked` is None
    (no meaningful word asked) or its file, read again whole, holds a word asked, in its text or
    its file name; one whose properties cannot be read is also ranked as Obsidian shows it, no
    properties, unless its block names a subject, status or kind — and then its problem is told
    only if the answer returns it (`shown`), unless a value in its block holds a word asked."""
    rules = scope.exposure.rules
    for parsed in each_parsed(listing.root, listing):
        note, trouble = as_seen(parsed, rules)
        ranked = note is not None and not note.template and trouble is not None and trouble is parsed
        ranked = ranked and not (trouble.mentions_subject or trouble.mentions_state)  # type: ignore[union-attr]
        ranked = ranked and note is not None and "\x00" not in note.body
        if trouble is not None and ranked and shown is not None:
            if asked is not None and _values_hold(listing.root / trouble.path, asked):
                problems.append(problem(trouble))
            else:
                shown[trouble.path] = problem(trouble)
        elif trouble is not None and (asked is None or _holds(listing.root / trouble.path, asked)):
            problems.append(problem(trouble))
        if note is None or note.template:
            continue
        if trouble is not None and not ranked:
            continue  # a record whose fields are wrong, a block that may make one, or no text
        record = as_record(note, rules)
        yield record if isinstance(record, MemoryRecord) else ruled_record(note, (), None)


def _values_hold(file: Path, asked: Callable[[str], bool]) -> bool:
    """Whether the values of the file's properties block (no key's name) hold a word asked."""
    lines = file.read_bytes().decode("utf-8", errors="replace").replace("\r\n", "\n").split("\n")
    if lines[0].removeprefix("\ufeff") != "---" or "---" not in lines[1:]:
        return False
    block = lines[1 : lines.index("---", 1)]
    values = [line if line.lstrip().startswith("-") else line.partition(":")[2] for line in block]
    return asked(fold_for_ranking("\n".join(values)))


def _holds(file: Path, asked: Callable[[str], bool]) -> bool:
    try:
        text = file.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return True  # unread: it might hold anything
    return asked(fold_for_ranking(file.stem + "\n" + text.replace("\r\n", "\n")))
