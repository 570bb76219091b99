"""A recall's answer around its records: how each is shaped and sized, how they are packed, and
what the answer says beside them — the best record when too large for the budget, the best
matches that did not fit, whether the match is weak, and how many records there were when none
matched.

Everything here counts against the budget, as the records do: the compact JSON of the whole
answer stays within it (packing.py measures it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from vault_recall.server.errors import NoteChanged
from vault_recall.server.obsidian.note import Note
from vault_recall.server.obsidian.resolve import obsidian_uri
from vault_recall.server.recall.answers.passages import Score, Scorer, choose_passages
from vault_recall.server.recall.finding.scan import read_again
from vault_recall.server.recall.packing import Shaped, answer, json_size
from vault_recall.server.recall.ranking.query_terms import StemMemo, term_counts
from vault_recall.server.recall.ranking.relevance import Match, Ordering, Ranked, Strict
from vault_recall.server.recall.ranking.words import fold_for_ranking, words
from vault_recall.server.recall.results import OmittedRecord, Problem, RecallResult, Record

# Said by a record that ranks first but is too large for the budget, given without its text.
TOO_LARGE_HINT = "too large for this budget: read it with read_note, or ask again with a budget above its bytes"
# Said by an answer with no records when there were records to look at.
NO_MATCH_HINT = (
    "no current record holds any meaningful word of the query: try other words, or ask without a query "
    "for the newest records"
)
NO_RECORDS_HINT = "there are no current records here"
# Said instead by a `match: "all"` answer with no records: it asked for every word as written.
NO_STRICT_MATCH_HINT = (
    'no current record holds every word of the query as written: ask with match "any" to rank the records '
    "holding some of them, or without a query for the newest records"
)


def nothing_to_recall_hint(subject: str | None) -> str:
    """Said by recall_context when there are no current records to look at — a client with the
    default exposure before any subject rule: what the person can do, which the model can pass on
    (the tray's first menu offers the same suggestions, one click each)."""
    slug = subject or "SUBJECT"
    return (
        f"{NO_RECORDS_HINT}. The person can make some without editing a note: the Vault Recall tray's menu "
        "and `vault-recall subject suggest` propose subjects from their folders, tags and properties, and "
        f"`vault-recall subject add {slug} --folder FOLDER` adds one"
    )


# The best matches left out are named, up to this many; this share of the budget is kept free
# for them when there is more to answer than fits (they may use the rest the records left too).
MAX_NAMED = 5
NAMED_SHARE = 8  # a budget's eighth: 512 bytes of the default 4,096
# The broken notes named beside the records take at most this share of the budget together (the
# first one aside, when it fits in half): one entry is ~180 bytes, obsidian-hub's 8 people pages
# took 1.5 KB of 4 KB and the best record came without its text.  The rest are counted.
PROBLEM_SHARE = 8


@dataclass(frozen=True)
class Passed:
    """The pass that answered: its matches in rank order, its vault's folder, and how many
    records it looked at."""

    ranked: Sequence[Match]
    root: Path
    considered: int


@dataclass(frozen=True)
class RecallShapes:
    """How one recall shapes and sizes its records."""

    vault: str
    dated: bool
    ordering: Ordering
    # (path, revision) of each record shaped that satisfies the query (record_terms.satisfies): what
    # `weak_match` is told from — a note changed since is shaped again under its new revision.
    satisfying: set[tuple[str, str]] = field(default_factory=set)

    def whole(self, found: Match, root: Path) -> Record:
        note = read_again(root, found.path, found.size, found.crc)
        return shape(found, self.vault, note.body, self.dated, self._together(found, note), note.revision)

    def _together(self, found: Match, note: Note) -> float | None:
        """The record's coverage, noting whether it satisfies the query."""
        held = self.ordering.coverage_of(found, note)
        if held is None:
            return None
        if held.satisfies:
            self.satisfying.add((found.path, note.revision))
        return held.share

    def size(self, found: Match) -> int:
        """The record's size in an answer, with its text: measured when it matched, so only
        returned records are read again.  Its coverage is worked out then too: sized here as its
        widest value (0.xx)."""
        widest = None if found.coverage() is None else 0.99
        return (
            json_size(shape(found, self.vault, "", self.dated, widest, ANY_REVISION)) - json_size("") + found.text_size
        )

    def in_passages(self, found: Match, root: Path, room: int) -> Record | None:
        """The record with its best passages (passages.py) in place of its text, and its size
        whole in `bytes`, its JSON at most `room` bytes — None when not one passage fits.
        Raises NoteChanged when the note changed since it matched."""
        note = read_again(root, found.path, found.size, found.crc)
        whole = shape(found, self.vault, "", self.dated, self._together(found, note), note.revision)
        shaped: Record = {}  # type: ignore[typeddict-item]  # keys added in the wire order
        for key, value in whole.items():
            if key == "text":
                shaped["passages"] = []
            else:
                shaped[key] = value  # type: ignore[literal-required]
        shaped["bytes"] = self.size(found)
        left = room - json_size(shaped) + len("[]")
        chosen = choose_passages(note, left, self._scorer(found)) if left > len("[]") else []
        if not chosen:
            return None
        shaped["passages"] = chosen
        return shaped

    def _scorer(self, found: Match) -> Scorer | None:
        """How well a text holds the query the record matched, leaving out the words its title
        holds: the title says the note is about them, its passages should hold the rest.  None
        when there is no query, or the title holds every word (the note's opening first)."""
        ordering = self.ordering
        if isinstance(ordering, Strict):
            titled = set(words(found.title))
            wanted = [word for word in ordering.wanted if word not in titled]
            if not wanted:
                return None

            def holds_words(text: str) -> Score:
                present = set(words(text))
                held = sum(1 for word in wanted if word in present)
                return held, held, held

            return holds_words
        query = found.query
        if not isinstance(ordering, Ranked) or query is None:
            return None
        memo = ordering.memo if ordering.memo.languages == query.languages else StemMemo(query.languages)
        in_title = term_counts(fold_for_ranking(found.title), query, memo)
        asked = [i for i in range(len(query.terms)) if not in_title[i]]
        required = [i for i in (query.counted or query.required) if not in_title[i]]
        if not asked:
            return None

        def holds_terms(text: str) -> Score:
            counts = term_counts(fold_for_ranking(text), query, memo)
            return sum(1 for i in required if counts[i]), sum(1 for i in asked if counts[i]), sum(counts)

        return holds_terms

    @staticmethod
    def least(found: Match) -> int:
        # The text and path are written whole (JSON escaping only adds), each character a byte at least.
        return found.text_size + len(found.path)

    def without_text(self, found: Match, root: Path) -> Record | None:
        """The record with no `text`, its size with it in `bytes` and how to read it in `hint`
        — None when it changed since it matched (the next call reads it as it is then)."""
        try:
            note = read_again(root, found.path, found.size, found.crc)
        except NoteChanged:
            return None
        shaped = shape(found, self.vault, "", self.dated, self._together(found, note), note.revision)
        del shaped["text"]
        shaped["bytes"] = self.size(found)
        shaped["hint"] = TOO_LARGE_HINT
        return shaped

    @staticmethod
    def reserve(budget: int) -> int:
        """The room kept for naming the best matches left out."""
        return budget // NAMED_SHARE


# Any SHA-256 hex digest: what sizing a record needs of its revision (its length), before the
# note is read again.
ANY_REVISION = "0" * 64


def shape(found: Match, vault: str, text: str, dated: bool, coverage: float | None, revision: str) -> Record:
    """The record of a match: `revision`, its note's as read again (or ANY_REVISION to size it)."""
    shaped: Record = {
        "path": found.path,
        "title": found.title,
        "text": text,
        "revision": revision,
        "modified": found.modified,
        "uri": obsidian_uri(vault, found.path),
        "matched": found.matched(),
    }
    if coverage is not None:
        shaped["coverage"] = round(coverage, 2)
    if dated and found.date is not None:  # an event's date: always there (records.as_record)
        shaped["date"] = found.date
    return shaped


@dataclass(frozen=True)
class Cutting:
    """What packing in shares asks of one recall's matches, by rank: the record as passages
    within a room (None when not one passage fits), and the size of its name among the best
    left out (`_name_left_out`)."""

    shapes: RecallShapes
    passed: list[Passed]  # the pass that answered, once there is one

    def passages(self, index: int, room: int) -> Record | None:
        return self.shapes.in_passages(self.passed[0].ranked[index], self.passed[0].root, room)

    def name_size(self, index: int) -> int:
        return json_size(_name(self.passed[0].ranked[index], self.shapes))


def pack_recall(
    result: RecallResult,
    candidates: Sequence[object],
    problems: Sequence[Problem],
    *,
    budget: int,
    limit: int,
    cutting: Cutting | None = None,
) -> RecallResult:
    """The first `limit` records in rank order, each whole when it fits its share of the budget
    and as its best passages otherwise, with room kept for naming what is left out — as few
    records as it takes for the first to carry text.  Without `cutting`, or when not even the
    first alone has a passage that fits, whole records only (`_whole_records`)."""
    if cutting is not None and isinstance(candidates, Shaped) and candidates:
        count = min(limit, len(candidates))
        while count:
            packed = _in_shares(result, candidates, problems, budget=budget, count=count, cutting=cutting)
            if packed is not None:
                return packed
            count = count - 1 if count <= 4 else count // 2  # recall_activity's limit goes to 50
    return _whole_records(result, candidates, problems, budget=budget, limit=limit)


def fair_shares(room: int, sizes: Sequence[int]) -> list[int]:
    """`room` shared among records of these sizes, none given more than its size, the rest
    evenly: the smallest first take what they need, the larger share what is left."""
    shares = [0] * len(sizes)
    left = room
    for taken, index in enumerate(sorted(range(len(sizes)), key=lambda i: sizes[i])):
        shares[index] = min(sizes[index], left // (len(sizes) - taken))
        left -= shares[index]
    return shares


def _in_shares(
    result: RecallResult,
    candidates: Shaped[Match, Record],
    problems: Sequence[Problem],
    *,
    budget: int,
    count: int,
    cutting: Cutting,
) -> RecallResult | None:
    """The first `count` records in their fair shares of the budget (what one leaves unused
    goes to the next); None when the first carries no text in its share.  With more records
    than that, the room kept for naming them holds one name at least."""
    reserve = 0
    if len(candidates) > count:
        reserve = max(RecallShapes.reserve(budget), cutting.name_size(count) + len(',"omitted_best":[]'))
    # The envelope and problems packed with no record (the count of records left out at its
    # largest: the final one has no more digits).
    packed = answer(result, candidates, budget=budget, limit=0, problems=problems, problem_share=PROBLEM_SHARE)
    room = budget - reserve - json_size(packed) - (count - 1)  # a comma between records
    shares = fair_shares(room, [candidates.size(i) for i in range(count)])
    records: list[Record] = []
    spare = 0
    for index in range(count):
        share = shares[index] + spare
        whole = candidates.size(index) <= share
        record = candidates[index] if whole else cutting.passages(index, share)
        size = json_size(record) if record is not None else 0
        if record is None or size > share:
            if index == 0:
                return None
            spare = share + 1  # nor its comma
            continue
        records.append(record)
        spare = share - size
    packed["records"] = records
    packed["omitted"] = len(candidates) - len(records)
    return packed


def _whole_records(
    result: RecallResult, candidates: Sequence[object], problems: Sequence[Problem], *, budget: int, limit: int
) -> RecallResult:
    """Whole records packed in rank order, with room kept for naming what is left out — unless
    keeping it would cost the best record its place: then packed in the whole budget."""
    room = budget - RecallShapes.reserve(budget)
    packed = answer(result, candidates, budget=room, limit=limit, problems=problems, problem_share=PROBLEM_SHARE)
    if not candidates or not packed["omitted"]:
        return packed
    first = candidates[0]
    assert isinstance(first, dict)
    if packed["records"] and packed["records"][0]["path"] == first["path"]:
        return packed
    whole = answer(result, candidates, budget=budget, limit=limit, problems=problems, problem_share=PROBLEM_SHARE)
    return whole if whole["records"] and whole["records"][0]["path"] == first["path"] else packed


def finish(
    result: RecallResult,
    passed: Passed | None,
    shapes: RecallShapes,
    *,
    budget: int,
    limit: int,
    nothing_here: str = NO_RECORDS_HINT,
) -> RecallResult:
    """What the answer says beside its packed records (the module's docstring).  `nothing_here`:
    the hint when there were no current records to look at."""
    reports_weak = shapes.ordering.reports_weak
    if passed is None or result["status"] == "unavailable":
        result.pop("weak_match", None)  # no vault read: nothing matched, weakly or not
        return result
    if passed.ranked and all(r["path"] != passed.ranked[0].path for r in result["records"]):
        stub = shapes.without_text(passed.ranked[0], passed.root)
        if stub is not None:
            # Room stays for naming what is left out (the stub's own record among the best
            # left out is no more than its stub); the whole budget only when it alone needs it.
            before = len(result["records"])
            _put_first(result, stub, budget=budget - RecallShapes.reserve(budget), limit=limit)
            if len(result["records"]) == before and all(r["path"] != stub["path"] for r in result["records"]):
                _put_first(result, stub, budget=budget, limit=limit)
    if reports_weak:
        # No record satisfying (record_terms.satisfies) — none at all included — is said so: an empty
        # answer to a query is marked too, so no answer to a question nobody decided goes unmarked.
        satisfying = shapes.satisfying
        result["weak_match"] = not any((r["path"], r["revision"]) in satisfying for r in result["records"])
    if result["omitted"]:
        _name_left_out(result, passed, shapes, budget)
    elif not result["records"]:
        result["current_records"] = passed.considered
        strict = isinstance(shapes.ordering, Strict)
        result["hint"] = (NO_STRICT_MATCH_HINT if strict else NO_MATCH_HINT) if passed.considered else nothing_here
    return result


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


def _name_left_out(result: RecallResult, passed: Passed, shapes: RecallShapes, budget: int) -> None:
    """Name the best matches that did not fit — path, title, size and what matched — so that
    a long record ranked first does not hide the one meant behind a count.  In rank order,
    at most MAX_NAMED, in all the budget the records left: packing kept its NAMED_SHARE free
    for them, and what the records did not fill besides is theirs too — at a small budget a
    name (a hundred bytes or so) is wider than the share alone, and a count with no name
    leaves the model nothing to read."""
    returned = {record["path"] for record in result["records"]}
    named: list[OmittedRecord] = []
    result["omitted_best"] = named
    start = json_size(result)
    room = budget - start
    used = 0
    for found in passed.ranked:
        if len(named) == MAX_NAMED:
            break
        if found.path in returned:
            continue
        entry = _name(found, shapes)
        extra = json_size(entry) + (1 if named else 0)
        if used + extra > room:
            break
        named.append(entry)
        used += extra
    if not named:
        del result["omitted_best"]


def _name(found: Match, shapes: RecallShapes) -> OmittedRecord:
    entry: OmittedRecord = {"path": found.path, "title": found.title, "bytes": shapes.size(found)}
    if shapes.ordering.reports_weak:
        entry["matched"] = found.matched()
    return entry
