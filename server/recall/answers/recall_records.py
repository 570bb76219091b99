"""Fresh, scoped, bounded recall: the logic behind `recall_context` and `recall_activity`.

Every function reads the vault anew through scan.py and returns a result shaped as
docs/tools.md describes (`status` ok / degraded / unavailable, `untrusted: true`; results.py has
the types).  Bad arguments and requests outside the client's exposure raise; storage trouble
becomes a status.  How an answer is packed and what it says beside its records:
recall_answer.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import assert_never

from vault_recall.server.obsidian.note import InvalidNote, Note
from vault_recall.server.recall.answers.arguments import check_arguments, query_text
from vault_recall.server.recall.answers.recall_answer import (
    NO_RECORDS_HINT,
    Cutting,
    Passed,
    RecallShapes,
    finish,
    nothing_to_recall_hint,
    pack_recall,
)
from vault_recall.server.recall.answers.recall_shares import Share, measure_share
from vault_recall.server.recall.answers.respelling import (
    Watch,
    corrected,
    covers,
    merged,
    merged_problems,
    respellable,
)
from vault_recall.server.recall.answers.unheld import (
    Unheld,
    block_holds,
    could_hold_any,
    shown_anyway,
    unheld_look,
)
from vault_recall.server.recall.finding.looking import Looked
from vault_recall.server.recall.finding.pool import listing_shares, run_shares
from vault_recall.server.recall.finding.scan import each_looked_at, each_parsed, each_record
from vault_recall.server.recall.finding.view import answer_anew, could_be_about, problem
from vault_recall.server.recall.packing import Shaped
from vault_recall.server.recall.ranking.query_terms import parse_query
from vault_recall.server.recall.ranking.relevance import Match, Newest, Ordering, Ranked, Strict
from vault_recall.server.recall.ranking.spelling import gates, near_words
from vault_recall.server.recall.ranking.words import fold_for_ranking, query_words
from vault_recall.server.recall.records import (
    MemoryRecord,
    as_record,
    is_current,
    recalled,
    ruled_record,
)
from vault_recall.server.recall.results import Problem, RecallHead, RecallResult, Record
from vault_recall.server.recall.scope import Scope
from vault_recall.server.recall.tool_declarations import RECALL_ACTIVITY, RECALL_CONTEXT, MatchMode
from vault_recall.server.vault.listing import VaultListing, vault_name


def recall_context(
    scope: Scope,
    subject: str | None = None,
    query: str | None = None,
    budget: int = 4096,
    limit: int = 3,
    match: MatchMode = "any",
) -> RecallResult:
    """Current evidence for one subject — or, without one, across everything this client may
    see: active decision records (every current note, for a client that sees the whole vault),
    the best matches of the query first (no query: newest first)."""
    check_arguments(RECALL_CONTEXT, locals())
    text = query_text(query)
    if subject is not None:
        scope.exposure.require_subject(subject, scope.client)

    ordering = _ordering(text, match, scope, subject, dated=False)
    # No current record to look at: a subject rule would make some, unless the client sees the
    # whole vault and asks about no subject (then the vault has no note to recall).
    whole_vault = subject is None and scope.exposure.mode == "vault"
    nothing_here = NO_RECORDS_HINT if whole_vault else nothing_to_recall_hint(subject)
    return _answer(
        scope, subject, _current, ordering, budget=budget, limit=limit, unheld=True, nothing_here=nothing_here
    )


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
    check_arguments(RECALL_ACTIVITY, locals())
    text = query_text(query)
    scope.exposure.require_subject(subject, scope.client)

    ordering = _ordering(text, "any", scope, subject, dated=True)
    return _answer(scope, subject, _InHistory(on_or_after), ordering, budget=budget, limit=limit, dated=True)


# What a recall keeps of the records it is shown: module-level, so a worker process is
# handed it by name (finding/pool.py).
def _current(record: MemoryRecord) -> bool:
    return is_current(record.status, record.kind)


@dataclass(frozen=True)
class _InHistory:
    on_or_after: str | None

    def __call__(self, record: MemoryRecord) -> bool:
        if not recalled(record.status) or record.kind != "event":
            return False
        return self.on_or_after is None or (record.date or "") >= self.on_or_after


def _ordering(text: str | None, match: MatchMode, scope: Scope, subject: str | None, dated: bool) -> Ordering:
    if text is None:
        return Newest(dated=dated)
    match match:
        case "all":
            wanted = query_words(text)
            return Strict(wanted) if wanted else Newest(dated=dated)
        case "any":
            query = parse_query(text, scope.languages, subject or "")
            return Ranked(query, dated=dated) if query.terms else Newest(dated=dated)
        case _:
            assert_never(match)


def _answer(
    scope: Scope,
    subject: str | None,
    keep: Callable[[MemoryRecord], bool],
    ordering: Ordering,
    *,
    budget: int,
    limit: int,
    dated: bool = False,
    unheld: bool = False,
    nothing_here: str = NO_RECORDS_HINT,
) -> RecallResult:
    """One pass over the records in question (`subject`'s, or all this client sees):
    `ordering` measures those `keep` keeps (as numbers) and orders them, and the answer is
    packed reading again only the records it returns — starting over if one of those changed
    since it was matched.  `unheld`: `keep` keeps current records (active decisions), so a
    note told from its bytes to be one, holding no query word, is counted unparsed
    (answers/unheld.py)."""
    envelope: RecallHead = {"status": "ok", "untrusted": True, "vault": None, "subject": subject}
    if ordering.reports_weak:
        envelope["weak_match"] = False  # the longer value: the answer's own is set once packed
    vault = vault_name(scope.vault) if scope.vault is not None else ""
    shapes = RecallShapes(vault, dated, ordering)
    passed: list[Passed] = []  # the pass that answered: what the answer says beside its records

    def find_matches(listing: VaultListing) -> tuple[Shaped[Match, Record], list[Problem]]:
        problems: list[Problem] = []
        shown: dict[str, Problem] = {}
        fresh = ordering.fresh()
        measure = partial(_measure, scope=scope, listing=listing, subject=subject, keep=keep, unheld=unheld)
        watch = Watch.of(fresh) if unheld and isinstance(fresh, Ranked) else None
        measure(fresh, problems, shown, watch=watch)
        if isinstance(fresh, Ranked):
            fresh = _respelt(fresh, watch, scope, listing, subject, keep, unheld, problems, shown)
        ranked = fresh.rank()
        passed[:] = [Passed(ranked, listing.root, fresh.count)]
        shaped = Shaped(ranked, partial(shapes.whole, root=listing.root), at_least=shapes.least, size=shapes.size)
        return shaped, _returned_first(ranked[:limit], shown, problems)

    packer = partial(pack_recall, budget=budget, limit=limit, cutting=Cutting(shapes, passed))
    result = answer_anew(scope, envelope, _recall_result, find_matches, budget=budget, limit=limit, packer=packer)
    return finish(result, passed[0] if passed else None, shapes, budget=budget, limit=limit, nothing_here=nothing_here)


def _measure(
    fresh: Ordering,
    problems: list[Problem],
    shown: dict[str, Problem],
    *,
    scope: Scope,
    listing: VaultListing,
    subject: str | None,
    keep: Callable[[MemoryRecord], bool],
    unheld: bool,
    watch: Watch | None = None,
) -> None:
    """One pass: `fresh` measures every candidate `keep` keeps; broken notes go to `problems`,
    or to `shown` when they are ranked and matter only if returned (_every_note).  Over a
    large vault the pass is split in shares of its notes, taken by worker processes
    (finding/pool.py) and merged in their order: the same pass.  `watch` notes what a
    correction of a misspelt word needs (respelling.py) — in a pass not split only."""

    gates = _unheld_gates(fresh) if unheld else None

    def shares(count: int) -> list[Share]:
        parts = listing_shares(listing, count)
        watching = watch if gates is not None and count == 1 else None
        if watch is not None and watching is None:
            watch.whole = False  # it sees no note: nothing is noted
        # The first share is measured here, into `fresh` and the lists themselves.
        first = Share(_candidates, fresh, problems, shown, scope, parts[0], subject, keep, gates, watching)
        later = (Share(_candidates, fresh.fresh(), [], {}, scope, part, subject, keep, gates) for part in parts[1:])
        return [first, *later]

    done = run_shares(measure_share, len(listing.paths), shares)
    for measured, found, shown_later in done[1:]:
        fresh.absorb(measured)  # type: ignore[arg-type]  # the same kind: made by fresh.fresh()
        problems.extend(found)
        shown.update(shown_later)


def _unheld_gates(fresh: Ordering) -> tuple[str, ...] | None:
    """The query's gates, when a record holding none can be counted from its bytes: a ranked
    recall with meaningful words asked (a record holding none of them cannot answer: only its
    length counts)."""
    if isinstance(fresh, Ranked) and fresh.query.required:
        return fresh.query.gates
    return None


def _respelt(
    ranked: Ranked,
    watch: Watch | None,
    scope: Scope,
    listing: VaultListing,
    subject: str | None,
    keep: Callable[[MemoryRecord], bool],
    unheld: bool,
    problems: list[Problem],
    shown: dict[str, Problem],
) -> Ranked:
    """When a meaningful query word is held by no record in any form, the nearest word the
    records hold takes its place (spelling.py): their words gathered, and the query measured
    again — only then, so a query spelt right costs nothing more than what the first pass
    notes until its words are found.  With what `watch` noted on the first pass, only the notes
    that could hold a correction are read again (respelling.py); else one pass more to gather
    the words, and one to measure again.  The pass that answers
    says which broken notes could have been among its records: `problems` anew."""
    wanted = {i: ranked.query.terms[i].word for i in ranked.unmatched()}
    wanted = {i: word for i, word in wanted.items() if respellable(word)}
    if not wanted:
        return ranked
    # Only records holding what a correction must start or hold (spelling.gates) are read for
    # their words: the rest are told apart by their bytes, as the first pass tells them.
    looked_for = tuple(dict.fromkeys(gate for word in wanted.values() for gate in gates(word)))
    unused: list[Problem] = []  # the first pass reported them
    # What the first pass noted: every note that could hold one of those gates (no other can).
    among = listing
    if watch is not None and watch.whole and set(wanted) <= set(watch.pieces):
        among = replace(listing, paths=tuple(watch.noted_for(wanted)), unreadable_folders=(), undecodable=())
    texts = (
        fold_for_ranking(f"{record.note.title}\n{record.note.body}")
        for record in _candidates(scope, among, subject, unused, looked_for)
        if isinstance(record, MemoryRecord) and keep(record)
    )
    vocabulary = near_words(texts, wanted.values())
    corrections, asked_forms = corrected(ranked, wanted, vocabulary)
    if not corrections:
        return ranked
    again = ranked.respelt(corrections, frozenset(asked_forms))
    measure = partial(_measure, scope=scope, subject=subject, keep=keep, unheld=unheld)
    if watch is not None and among is not listing and covers(ranked, again, list(corrections)):
        anew = again.fresh()
        problems_anew: list[Problem] = []
        shown_anew: dict[str, Problem] = {}
        measure(anew, problems_anew, shown_anew, listing=among)
        order = {path: at for at, path in enumerate(listing.paths)}  # the pass's order
        whole = merged(ranked, again, anew, among.paths, watch, order)
        if whole is not None:
            merged_problems(problems, shown, problems_anew, shown_anew, among.paths, order)
            return whole
    problems.clear()
    shown.clear()
    measure(again, problems, shown, listing=listing)
    return again


def _returned_first(top: Sequence[Match], shown: dict[str, Problem], problems: list[Problem]) -> list[Problem]:
    """The problems of an answer whose best matches are `top`: first those of the broken notes
    it returns (ranked as Obsidian shows them), in their order, then the others met."""
    return [*(shown[match.path] for match in top if match.path in shown), *problems]


def _candidates(
    scope: Scope,
    listing: VaultListing,
    subject: str | None,
    problems: list[Problem],
    gates: tuple[str, ...] | None = None,
    asked: Callable[[str], bool] | None = None,
    shown: dict[str, Problem] | None = None,
    watch: Watch | None = None,
) -> Iterator[MemoryRecord | Unheld]:
    """The records a recall ranks — the subject's, or every one the client may see — and, in
    `problems`, the broken notes that could have been among them.  With a query's `gates`, a
    current record its bytes show to hold none is given as Unheld (unheld.py).  `asked`:
    whether a folded text holds a meaningful word of a ranked query, as a broken note across
    the whole vault must to have been among the answer (None: any broken note could have been).
    `watch` is shown each note's bytes first (respelling.py)."""
    exposure = scope.exposure
    if subject is None and exposure.mode == "vault":
        yield from _every_note(listing, scope, problems, gates, asked, shown, watch)
        return
    wanted = [subject] if subject is not None else None

    def taken(subjects: tuple[str, ...]) -> bool:
        return (subject is None or subject in subjects) and exposure.allows_record_subjects(subjects)

    look = unheld_look(gates, exposure.rules, records=taken) if gates is not None else None
    if look is not None and watch is not None:
        look = watch.watching(look)
    items = (
        each_record(listing.root, listing, subject, rules=exposure.rules)
        if look is None
        else each_record(listing.root, listing, subject, rules=exposure.rules, look=look)
    )
    for record in items:
        if isinstance(record, Looked):
            yield record.seen
        elif isinstance(record, InvalidNote):
            if could_be_about(record, wanted, exposure):
                problems.append(problem(record))
        elif taken(record.subjects):
            yield record


def _every_note(
    listing: VaultListing,
    scope: Scope,
    problems: list[Problem],
    gates: tuple[str, ...] | None = None,
    asked: Callable[[str], bool] | None = None,
    shown: dict[str, Problem] | None = None,
    watch: Watch | None = None,
) -> Iterator[MemoryRecord | Unheld]:
    """For a client that sees the whole vault, asking about no subject: every note, each the
    record its properties or a rule make it, or else a record of no subject — current unless
    its own properties say otherwise (records.ruled_record).  Templates are no records.  A
    broken note could be any record, so it is a problem of the answer — unless the query's
    meaningful words (`asked`) are nowhere in its text, properties block and file
    name included, so that it could not have been among the records whatever its properties
    say: as search_notes names a broken note only when it holds the phrase.  Every recall
    would otherwise be `degraded` by every broken note of a large real vault (15 of
    obsidian-hub's 6,571 notes, whatever was asked).  A note whose properties cannot be read
    is still ranked as Obsidian shows it (unheld.shown_anyway): all it lacks is its properties, so its
    problem goes to `shown` (told only if the answer returns it) — unless its properties block
    holds a word asked, which could have ranked it otherwise.  Else obsidian-hub's 12 people
    pages, whose `aliases: - @name` YAML refuses, listing the plugins and themes each made, were
    named by most recalls saying "plugin" or "theme".  With a query's `gates`, a current note
    its bytes show to hold none is given as Unheld (unheld.py)."""
    rules = scope.exposure.rules
    if gates is None:
        notes: Iterator[Note | InvalidNote | Looked[Unheld]] = each_parsed(listing.root, listing)
    else:
        look = unheld_look(gates, rules)
        notes = each_looked_at(listing.root, listing, look if watch is None else watch.watching(look))

    def tell(trouble: InvalidNote) -> None:
        if asked is None or could_hold_any(trouble, asked):
            problems.append(problem(trouble))

    for parsed in notes:
        if isinstance(parsed, Looked):
            yield parsed.seen
            continue
        # As scan.as_seen tells a note's problem, without making its record twice.
        if isinstance(parsed, InvalidNote):
            seen = shown_anyway(parsed)
            if seen is None:
                tell(parsed)
                continue
            if shown is None or (asked is not None and block_holds(seen, asked)):
                tell(parsed)
            else:
                shown[parsed.path] = problem(parsed)
            parsed = seen  # no properties: a record only as the rules make it, never a problem again
        record = as_record(parsed, rules)
        if isinstance(record, InvalidNote):
            tell(record)
        elif not parsed.template:
            yield record if record is not None else ruled_record(parsed, (), None)


def _recall_result(envelope: RecallHead, records: list[Record]) -> RecallResult:
    result: RecallResult = {**envelope, "records": records, "omitted": 0}  # type: ignore[typeddict-item]
    return result
