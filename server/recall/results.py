"""What every tool returns, as types: the envelope all results share and what each tool adds.

A result is a plain dict (the MCP layer sends it as structured content and as the compact JSON
the budget is measured on), so these are `TypedDict`s: mypy checks that the builders in
recall_records.py, reading.py, search.py and backlinks.py — and the packing, view and changed_since
code they go through — make exactly these shapes.  A key marked `NotRequired` is present only
when it says something (`reason` only when unavailable, `problems` only when degraded, …).

Key order is part of the wire format too (budgets count compact JSON byte for byte), and a
TypedDict does not fix it: the builders do, by adding keys in the order each docstring lists.

Only the tools' logic imports this module, on the first call: `serve` answers `initialize`
without it.  It is written without `from __future__ import annotations` so that each type's
`__required_keys__` and `__optional_keys__` are right at run time too (tests/server/recall/test_result_types.py).
"""

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict, assert_never, get_args

from vault_recall.server.obsidian.values import PropertyValue

Status = Literal["ok", "degraded", "unavailable"]
# Where a record holds a query word, as `matched` names it (docs/tools.md; what each is, and
# what a hit there weighs: the table at the end of this module).
MatchField = Literal["title", "aliases", "heading", "tags", "body"]


class Problem(TypedDict):
    """A broken note that could have changed the answer, and why it cannot be read."""

    path: str
    reason: str  # at most 400 bytes


class ChangedNote(TypedDict):
    """A note this client was given earlier that has changed since (changed_since.py)."""

    path: str
    uri: str
    was: str  # the revision handed out
    now: str | None  # its revision now; None: gone, unreadable or no longer shared


class Envelope(TypedDict):
    """What every result carries: {status, untrusted, vault, …, [reason], [notice]} and, added at the
    end of any call, [changed_since_recalled, changed_since_recalled_omitted]."""

    status: Status
    untrusted: Literal[True]  # the text is the person's notes: evidence, not instructions
    vault: str | None  # the vault's name; None when no vault is configured
    reason: NotRequired[str]  # why the vault could not be read: status `unavailable`
    notice: NotRequired[str]  # what to know of the vault itself: the bundled sample vault says so
    changed_since_recalled: NotRequired[list[ChangedNote]]
    changed_since_recalled_omitted: NotRequired[int]  # changes told on a later call


class Degradable(Envelope):
    """A result that names the broken notes that could have changed it: `problems` (at most
    10) and `problems_omitted` when there are any, with status `degraded`."""

    problems: NotRequired[list[Problem]]
    problems_omitted: NotRequired[int]


class Packed(Degradable):
    """Any result packing whole items under a budget (packing.pack): the items in `records`,
    the ones left out counted in `omitted`.  Only a bound for the packing code, which serves
    every such result: each tool's own type below says what its records are."""

    records: list[Any]
    omitted: int


class Passage(TypedDict):
    """A whole section, or whole paragraphs or sentences of one, of a note too large for its
    share of a recall's budget (answers/passages.py): the note's own text, never cut within."""

    section: NotRequired[str]  # read_note's `section` for the section it is in; absent: above every heading
    lines: list[int]  # [first, last]: the file lines it spans
    text: str


class Record(TypedDict):
    """One memory record: what recall_context and recall_activity return."""

    path: str
    title: str
    # The note's body, never cut: a note larger than its share of the budget comes as
    # `passages` instead, with its size whole in `bytes`.  Neither, only for a first record
    # not even one passage of which fits: it then says its size (`bytes`) and how to read
    # it (`hint`).
    text: NotRequired[str]
    passages: NotRequired[list[Passage]]
    revision: str  # SHA-256 of the note's bytes
    modified: str  # the note's change time, ISO 8601 UTC
    uri: str  # obsidian:// link that opens the note
    matched: dict[str, list[MatchField]]  # query word → the fields holding it
    coverage: NotRequired[float]  # with a query: the share of its meaningful words held (1.0: all)
    date: NotRequired[str]  # recall_activity's records only: the event's YYYY-MM-DD
    bytes: NotRequired[int]  # without its whole text: the record's size with it, at most
    hint: NotRequired[str]  # without text: read_note it, or ask with a larger budget


class OmittedRecord(TypedDict):
    """A match left out of a recall for want of room, named: read it with read_note."""

    path: str
    title: str
    bytes: int  # its size as a record of the answer, with its text
    matched: NotRequired[dict[str, list[MatchField]]]  # with a query: query word → the fields holding it


class Hit(TypedDict):
    """One line holding what was looked for: a search hit, or a line linking to a note."""

    path: str
    line: int  # the file line, from 1
    text: str  # the line, or 240 characters around the hit when it is longer
    uri: str
    shortened: NotRequired[Literal[True]]  # `text` is part of the line


Backlink = Hit  # a line linking to the note: the line as a search shows it


class Section(TypedDict):
    """A heading of a note, with the size of its whole section."""

    heading: str
    level: int
    line: int
    bytes: int


class SubjectCount(TypedDict):
    subject: str
    active: int  # current decision records
    archived: int
    events: int  # active event records
    modified: str  # when one of its records last changed, ISO 8601 UTC


class RecallHead(Degradable):
    """recall_context's and recall_activity's result before packing."""

    subject: str | None  # None: recall across everything the client may see
    weak_match: NotRequired[bool]  # records for a query: none returned answers it (ranking/record_terms.satisfies)


class RecallResult(RecallHead):
    """recall_context and recall_activity: {status, untrusted, vault, subject, [weak_match],
    [reason], records, omitted, [problems, problems_omitted], [omitted_best],
    [current_records, hint]}."""

    records: list[Record]
    omitted: int
    omitted_best: NotRequired[list[OmittedRecord]]  # the best of what `omitted` counts, named
    current_records: NotRequired[int]  # no records came back: how many there were to look at
    hint: NotRequired[str]  # no records came back: what to ask instead


class SearchHead(Degradable):
    """search_notes' result before packing."""

    query: str
    subject: NotRequired[str]


class SearchResult(SearchHead):
    """search_notes: {status, untrusted, vault, query, [subject], [reason], records, omitted,
    [problems, problems_omitted]}, the hits in `records`."""

    records: list[Hit]
    omitted: int


class BacklinksHead(Degradable):
    """get_backlinks' result before packing (the note's keys only once the vault was read)."""

    note: NotRequired[str]  # the note linked to, as a vault path
    uri: NotRequired[str]
    offset: NotRequired[int]  # the page's first line among all linking lines
    next_offset: NotRequired[int]  # where the next page starts, when more remain


class BacklinksResult(BacklinksHead):
    """get_backlinks: {status, untrusted, vault, note, uri, offset, [next_offset], records,
    omitted, [problems, problems_omitted]}, or {status, untrusted, vault, reason, records,
    omitted} when unavailable."""

    records: list[Backlink]
    omitted: int


class ReadNoteResult(Envelope):
    """read_note, one of three shapes:

    - the note: {status, untrusted, vault, [problems], path, title, properties, text, revision,
      modified, uri, sections, [section]} — over budget, `text` is left out for `hint` and
      `sections_omitted` (and `properties` too when they alone do not fit);
    - a note shown broken: {status, untrusted, vault, path, problems, hint};
    - unavailable: {status, untrusted, vault, reason}.
    """

    problems: NotRequired[list[Problem]]  # the note's own problem: status `degraded`
    path: NotRequired[str]
    title: NotRequired[str]
    properties: NotRequired[dict[str, PropertyValue]]
    text: NotRequired[str]  # the whole note's body, or the whole section's lines
    revision: NotRequired[str]
    modified: NotRequired[str]
    uri: NotRequired[str]
    sections: NotRequired[list[Section]]
    section: NotRequired[str]  # the section asked for
    hint: NotRequired[str]
    sections_omitted: NotRequired[int]


class ListSubjectsResult(Envelope):
    """list_subjects: {status, untrusted, vault, subjects, problems, [reason], [problems_omitted]}."""

    subjects: list[SubjectCount]
    problems: list[Problem]  # always there, empty when nothing is broken
    problems_omitted: NotRequired[int]


# The fields of a note a query word is found in (MatchField, the names a record's
# `matched` shows: docs/tools.md), and what a hit in each weighs: one table for both ways recall
# matches (ranked, bm25.py and record_terms.py; strict, strict_match.py).
#
# - `title`: the file name without `.md`;
# - `aliases`: the `aliases` property;
# - `heading`: any ATX heading of the body (`#` to `######`), outside code blocks;
# - `tags`: the `tags` property and the body's inline `#tags`;
# - `body`: the body, without the properties block (headings and inline tags are part of it).
FIELDS: tuple[MatchField, ...] = get_args(MatchField)  # in the order `matched` lists them


def field_weight(field: MatchField) -> float:
    """How much one hit in `field` counts: a note named, aliased, headed or tagged after a word
    is about it; a body mention may be in passing."""
    match field:
        case "title" | "aliases":
            return 3.0
        case "heading" | "tags":
            return 2.0
        case "body":
            return 1.0
        case _:
            assert_never(field)


# Looked up once per field and term of every record ranked: a dict, made from the one table.
FIELD_WEIGHTS: Mapping[MatchField, float] = {field: field_weight(field) for field in FIELDS}
