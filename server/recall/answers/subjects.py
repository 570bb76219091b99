"""`list_subjects`: the subjects a client may ask about, from the notes' own properties and from
the vault's subject rules, with counts of their records — read fresh, keeping nothing."""

from __future__ import annotations

from typing import Literal, assert_never

from vault_recall.server.obsidian.note import InvalidNote, iso_utc
from vault_recall.server.recall.finding.pool import listing_shares, run_shares
from vault_recall.server.recall.finding.scan import each_tally
from vault_recall.server.recall.finding.view import could_be_about, listing_or_unavailable, problem
from vault_recall.server.recall.packing import MAX_PROBLEMS
from vault_recall.server.recall.records import RecordKind, RecordStatus
from vault_recall.server.recall.results import ListSubjectsResult, Problem, SubjectCount
from vault_recall.server.recall.scope import Scope
from vault_recall.server.vault.listing import VaultListing


def list_subjects(scope: Scope) -> ListSubjectsResult:
    """The subjects this client may ask about, with record counts per subject.  A subject a
    rule names is listed even while no note is taken by it (with zeros): the person made it."""
    result: ListSubjectsResult = {"status": "ok", "untrusted": True, "vault": None, "subjects": [], "problems": []}
    listing = listing_or_unavailable(scope, result)
    if listing is None:
        return result
    exposure = scope.exposure
    # Over a large vault, in shares of its notes taken by worker processes (finding/pool.py),
    # added up in their order: the same counts and problems.
    shares = run_shares(_count, len(listing.paths), lambda n: [(scope, part) for part in listing_shares(listing, n)])
    counts, newest, problems = shares[0]
    for later_counts, later_newest, later_problems in shares[1:]:
        for subject, later in later_counts.items():
            entry = counts.setdefault(subject, _zero(subject))
            entry["active"] += later["active"]
            entry["archived"] += later["archived"]
            entry["events"] += later["events"]
        for subject, mtime_ns in later_newest.items():
            newest[subject] = max(newest.get(subject, mtime_ns), mtime_ns)
        problems += later_problems
    for subject in exposure.rules.subjects:
        if exposure.allows_subject(subject):
            counts.setdefault(subject, _zero(subject))
    for subject, entry in counts.items():
        # `modified` is written once every record is counted ('' for a rule taking no note yet).
        entry["modified"] = iso_utc(newest[subject]) if subject in newest else ""
    result["subjects"] = [counts[s] for s in sorted(counts)]
    result["problems"] = problems[:MAX_PROBLEMS]
    if len(problems) > MAX_PROBLEMS:
        result["problems_omitted"] = len(problems) - MAX_PROBLEMS
    if problems:
        result["status"] = "degraded"
    return result


def _count(share: tuple[Scope, VaultListing]) -> tuple[dict[str, SubjectCount], dict[str, int], list[Problem]]:
    """One share's counts per subject, newest change per subject and problems."""
    scope, listing = share
    exposure = scope.exposure
    counts: dict[str, SubjectCount] = {}
    newest: dict[str, int] = {}
    problems: list[Problem] = []
    exposed = sorted(exposure.subjects) if exposure.mode == "subjects" else None
    # Counted as the records go by: nothing of a note is kept once it is counted.
    for record in each_tally(listing.root, listing, exposure.rules):
        if isinstance(record, InvalidNote):
            if could_be_about(record, exposed, exposure):
                problems.append(problem(record))
            continue
        for subject in record.subjects:
            if not exposure.allows_subject(subject):
                continue
            entry = counts.setdefault(subject, _zero(subject))
            entry[_counted_as(record.status, record.kind)] += 1
            newest[subject] = max(newest.get(subject, record.mtime_ns), record.mtime_ns)
    return counts, newest, problems


def _counted_as(status: RecordStatus, kind: RecordKind) -> Literal["active", "archived", "events"]:
    """The count a record adds to: every archived record in one, the active ones by kind."""
    match status, kind:
        case ("archived", _):
            return "archived"
        case ("active", "event"):
            return "events"
        case ("active", "decision"):
            return "active"
        case _:
            assert_never((status, kind))


def _zero(subject: str) -> SubjectCount:
    return {"subject": subject, "active": 0, "archived": 0, "events": 0, "modified": ""}
