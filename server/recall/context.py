"""Fresh, scoped, bounded recall: the logic behind `recall_context` and `list_subjects`.

Every function reads the vault anew through scan.py and returns a result shaped as
docs/tools.md describes (`status` ok / degraded / unavailable, `untrusted: true`; results.py has
the types).  Bad arguments and requests outside the client's exposure raise; storage trouble
becomes a status.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from vault_recall.server.errors import InvalidArgument, show_value
from vault_recall.server.obsidian.note import InvalidNote, iso_utc
from vault_recall.server.obsidian.uri import obsidian_uri
from vault_recall.server.recall.arguments import check_choice, check_query, check_range, check_subject
from vault_recall.server.recall.packing import MAX_PROBLEMS, Shaped, json_size
from vault_recall.server.recall.query_terms import parse_query
from vault_recall.server.recall.records import MemoryRecord, is_calendar_date
from vault_recall.server.recall.relevance import Match, Newest, Ordering, Ranked, Strict
from vault_recall.server.recall.results import (
    ListSubjectsResult,
    Problem,
    RecallHead,
    RecallResult,
    Record,
    SubjectCount,
)
from vault_recall.server.recall.scan import NoteChanged, each_record, each_tally, read_again
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.recall.view import answer_anew, kept, listing_or_unavailable, problem
from vault_recall.server.recall.words import query_words
from vault_recall.server.vault.listing import VaultListing, vault_name

BUDGET_RANGE = (512, 65536)
LIMIT_RANGE = (1, 20)
ACTIVITY_LIMIT_RANGE = (1, 50)
MATCH_MODES = ("any", "all")
# Said by a record that ranks first but is too large for the budget, given without its text.
TOO_LARGE_HINT = "too large for this budget: read it with read_note, or ask again with a budget above its bytes"


def recall_context(
    scope: Scope,
    subject: str,
    query: str | None = None,
    budget: int = 4096,
    limit: int = 3,
    match: str = "any",
) -> RecallResult:
    """Current evidence for one subject: its active decision records, the best matches of the
    query first (no query: newest first)."""
    check_subject(subject)
    text = check_query(query)
    check_range("budget", budget, *BUDGET_RANGE)
    check_range("limit", limit, *LIMIT_RANGE)
    check_choice("match", match, MATCH_MODES)
    scope.exposure.require_subject(subject, scope.client)

    def current(record: MemoryRecord) -> bool:
        return record.status == "active" and record.kind == "decision"

    ordering = _ordering(text, match, scope, subject, dated=False)
    return _answer(scope, subject, current, ordering, budget=budget, limit=limit)


def recall_activity(
    scope: Scope,
    subject: str,
    on_or_after: str | None = None,
    query: str | None = None,
    budget: int = 4096,
    limit: int = 5,
) -> RecallResult:
    """History for one subject: active `kind: event` records, newest `date` first — with a
    query, the best matches first."""
    check_subject(subject)
    if on_or_after is not None and not is_calendar_date(on_or_after):
        raise InvalidArgument(f"on_or_after must be a real date written YYYY-MM-DD; got {show_value(on_or_after)}")
    text = check_query(query)
    check_range("budget", budget, *BUDGET_RANGE)
    check_range("limit", limit, *ACTIVITY_LIMIT_RANGE)
    scope.exposure.require_subject(subject, scope.client)

    def in_history(record: MemoryRecord) -> bool:
        if record.status != "active" or record.kind != "event":
            return False
        return on_or_after is None or (record.date or "") >= on_or_after

    ordering = _ordering(text, "any", scope, subject, dated=True)
    return _answer(scope, subject, in_history, ordering, budget=budget, limit=limit, dated=True)


def _ordering(text: str | None, match: str, scope: Scope, subject: str, dated: bool) -> Ordering:
    if text is None:
        return Newest(dated=dated)
    if match == "all":
        wanted = query_words(text)
        return Strict(wanted) if wanted else Newest(dated=dated)
    query = parse_query(text, scope.languages, subject)
    return Ranked(query, dated=dated) if query.terms else Newest(dated=dated)


def _answer(
    scope: Scope,
    subject: str,
    keep: Callable[[MemoryRecord], bool],
    ordering: Ordering,
    *,
    budget: int,
    limit: int,
    dated: bool = False,
) -> RecallResult:
    """One pass over the subject's records: `ordering` measures those `keep` keeps (as numbers)
    and orders them, and the answer is packed reading again only the records it returns —
    starting over if one of those changed since it was matched."""
    envelope: RecallHead = {"status": "ok", "untrusted": True, "vault": None, "subject": subject}
    if ordering.reports_weak:
        envelope["weak_match"] = False  # the longer value: the answer's own is set once packed
    vault = vault_name(scope.vault) if scope.vault is not None else ""

    def shape(found: Match, root: Path) -> Record:
        note = read_again(root, found.path, found.revision)
        return _shape(found, vault, note.body, dated, ordering.coverage_of(found, note))

    def size(found: Match) -> int:
        # The text's size was measured when it matched: only returned records are read again.
        # Their coverage is worked out then too: sized here as its widest value (0.xx).
        widest = None if found.coverage() is None else 0.99
        return json_size(_shape(found, vault, "", dated, widest)) - json_size("") + found.text_size

    def without_text(found: Match, root: Path) -> Record | None:
        try:
            note = read_again(root, found.path, found.revision)
        except NoteChanged:
            return None  # changed since it matched: the next call reads it as it is then
        shaped = _shape(found, vault, "", dated, ordering.coverage_of(found, note))
        del shaped["text"]
        shaped["bytes"] = size(found)
        shaped["hint"] = TOO_LARGE_HINT
        return shaped

    first: list[tuple[Match, Path]] = []  # the record ranked first by the pass that answered

    def find_matches(listing: VaultListing) -> tuple[Shaped[Match, Record], list[Problem]]:
        problems: list[Problem] = []
        fresh = ordering.fresh()
        for record in each_record(listing.root, listing, subject):
            if isinstance(record, InvalidNote):
                if _could_be_about(record, [subject], scope.exposure):
                    problems.append(problem(record))
            elif subject in record.subjects and keep(record):
                fresh.measure(record)
        ranked = fresh.rank()
        first[:] = [(found, listing.root) for found in ranked[:1]]
        return Shaped(ranked, partial(shape, root=listing.root), at_least=_least_size, size=size), problems

    result = answer_anew(scope, envelope, _recall_result, find_matches, budget=budget, limit=limit)
    if first and result["status"] != "unavailable" and all(r["path"] != first[0][0].path for r in result["records"]):
        stub = without_text(*first[0])
        if stub is not None:
            _put_first(result, stub, budget=budget, limit=limit)
    if ordering.reports_weak:
        result["weak_match"] = not any(record.get("coverage") == 1.0 for record in result["records"])
    return result


def _recall_result(envelope: RecallHead, records: list[Record]) -> RecallResult:
    return {**envelope, "records": records, "omitted": 0}


def _put_first(result: RecallResult, record: Record, *, budget: int, limit: int) -> None:
    """The record that ranks first was left out: it does not fit in the budget whole (it is
    never left out for the limit).  It goes first without its text — never cut, so not there at
    all — rather than leaving the smaller records that fit, or none, to pass for the best answer
    there is.  It counts against the budget and the limit like any record: the last records
    taken make room, and when even it alone does not fit, the answer stays as it was."""
    taken = result["records"]
    trial: RecallResult = {**result, "records": [record, *taken], "omitted": result["omitted"] - 1}
    while len(trial["records"]) > 1 and (len(trial["records"]) > limit or json_size(trial) > budget):
        trial["records"].pop()
        trial["omitted"] += 1
    if json_size(trial) <= budget:
        result["records"], result["omitted"] = trial["records"], trial["omitted"]


def list_subjects(scope: Scope) -> ListSubjectsResult:
    """The subjects this client may ask about, with record counts per subject."""
    result: ListSubjectsResult = {"status": "ok", "untrusted": True, "vault": None, "subjects": [], "problems": []}
    listing = listing_or_unavailable(scope, result)
    if listing is None:
        return result
    counts: dict[str, SubjectCount] = {}
    newest: dict[str, int] = {}
    invalid: list[InvalidNote] = []
    # Counted as the records go by: nothing of a note is kept once it is counted.
    for record in each_tally(listing.root, listing):
        if isinstance(record, InvalidNote):
            invalid.append(kept(record))
            continue
        for subject in record.subjects:
            if not scope.exposure.allows_subject(subject):
                continue
            # `modified` is written once every record is counted.
            entry = counts.setdefault(
                subject, {"subject": subject, "active": 0, "archived": 0, "events": 0, "modified": ""}
            )
            if record.status == "archived":
                entry["archived"] += 1
            elif record.kind == "event":
                entry["events"] += 1
            else:
                entry["active"] += 1
            newest[subject] = max(newest.get(subject, record.mtime_ns), record.mtime_ns)
    for subject, entry in counts.items():
        entry["modified"] = iso_utc(newest[subject])
    result["subjects"] = [counts[s] for s in sorted(counts)]
    exposed = sorted(scope.exposure.subjects) if scope.exposure.mode == "subjects" else None
    problems = [problem(p) for p in invalid if _could_be_about(p, exposed, scope.exposure)]
    result["problems"] = problems[:MAX_PROBLEMS]
    if len(problems) > MAX_PROBLEMS:
        result["problems_omitted"] = len(problems) - MAX_PROBLEMS
    if problems:
        result["status"] = "degraded"
    return result


def _could_be_about(note: InvalidNote, subjects: Sequence[str] | None, exposure: Exposure) -> bool:
    """An invalid note is in scope when it cannot be ruled out (`subjects` None: any subject).

    A client limited to some subjects is never shown a broken note whose subject cannot be
    read: it might belong to a subject the client was not given, and its path alone says too
    much.  The person still sees it in `vault-recall health` and the tray.
    """
    if note.unread:
        return exposure.mode == "vault"  # unreadable: it might be anything (see view.in_view)
    if not note.mentions_subject:
        return False
    if note.subjects is None:
        return exposure.mode != "subjects"
    if subjects is None:
        return True
    return any(s in note.subjects for s in subjects)


def _least_size(found: Match) -> int:
    # The text and path are written whole (JSON escaping only adds), each character a byte at least.
    return found.text_size + len(found.path)


def _shape(found: Match, vault: str, text: str, dated: bool, coverage: float | None) -> Record:
    shaped: Record = {
        "path": found.path,
        "title": found.title,
        "text": text,
        "revision": found.revision,
        "modified": found.modified,
        "uri": obsidian_uri(vault, found.path),
        "matched": found.matched(),
    }
    if coverage is not None:
        shaped["coverage"] = round(coverage, 2)
    if dated and found.date is not None:  # an event's date: always there (records.as_record)
        shaped["date"] = found.date
    return shaped
