"""Memory records: valid notes with a `subject` property, checked against the record rules
(docs/vault.md) — or taken by a subject rule of Vault Recall's config (subject_rules.py)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Literal, assert_never, get_args

from vault_recall.server.obsidian.note import InvalidNote, Note
from vault_recall.server.obsidian.note_bytes import SLUG_TEXT
from vault_recall.server.obsidian.values import PropertyValue
from vault_recall.server.recall.subject_rules import NO_RULES, SubjectRules

SUBJECT_PATTERN = SLUG_TEXT  # always used with fullmatch
# A record's status and kind: the words the record rules accept (docs/vault.md).  A note's
# own property is held to them exactly (`_status_of`); one a subject rule takes reads its own
# words loosely and never breaks (`ruled_record`).
RecordStatus = Literal["active", "archived"]
RecordKind = Literal["decision", "event"]
STATUSES: tuple[RecordStatus, ...] = get_args(RecordStatus)
KINDS: tuple[RecordKind, ...] = get_args(RecordKind)


@dataclass(frozen=True)
class MemoryRecord:
    note: Note
    subjects: tuple[str, ...]
    status: RecordStatus
    kind: RecordKind
    date: str | None  # YYYY-MM-DD; required for events


def as_record(note: Note, rules: SubjectRules = NO_RULES) -> MemoryRecord | InvalidNote | None:
    """The note as a memory record, an InvalidNote if its record properties break the rules,
    or None when it is an ordinary note (no `subject` property, and no subject rule takes it)
    or a template (its `subject:` is a placeholder for the notes made from it).

    A note that names its own `subject` is what its properties say, whatever the rules; one
    that does not is a record of the subjects `rules` give it, if any (`ruled_record`)."""
    props = note.properties
    if note.template:
        return None
    if "subject" not in props:
        if not rules:
            return None
        taken = rules.subjects_of(note)
        return ruled_record(note, taken, rules.daily_date(note.path)) if taken else None
    subjects = _subjects(props["subject"])
    if subjects is None:
        return _broken(note, "subject", "must be a slug (a-z, 0-9, '-', at most 64) or a list of them", None)
    status = _status_of(props.get("status"))
    if status is None:
        return _broken(note, "status", "must be 'active' or 'archived'", subjects)
    kind = _kind_of(props.get("kind"))
    if kind is None:
        return _broken(note, "kind", "must be 'decision' or 'event'", subjects)
    date = props.get("date")
    if date is not None and not is_calendar_date(date):
        return _broken(note, "date", "must be a real date written YYYY-MM-DD", subjects)
    if kind == "event" and date is None:
        return _broken(note, "date", "is required when kind is 'event' (YYYY-MM-DD)", subjects)
    return MemoryRecord(
        note=note,
        subjects=subjects,
        status=status,
        kind=kind,
        date=date if isinstance(date, str) else None,
    )


def ruled_record(note: Note, subjects: tuple[str, ...], daily: str | None) -> MemoryRecord:
    """A note a subject rule takes: an active decision, unless its own properties say
    otherwise — `status: archived`, `kind: event` with a `date` — or it is a daily note (`daily`:
    the date its name stands for), an event of that date unless it says `kind: decision`.

    Never invalid: the note was written for the person, not for these rules, and its `status`,
    `kind` or `date` may mean something else to them ("status: reading"); a value that is not
    one of ours is no claim about the record, so it is passed over rather than reported."""
    props = note.properties
    archived = _word(props.get("status")) == "archived"
    said = _word(props.get("kind"))
    date = _date_in(props.get("date")) or daily
    # Its own `kind` first; else a daily note is an event, anything else a decision.
    event = said == "event" if said in ("event", "decision") else daily is not None
    kind: RecordKind = "event" if event and date is not None else "decision"
    return MemoryRecord(note=note, subjects=subjects, status="archived" if archived else "active", kind=kind, date=date)


def recalled(status: RecordStatus) -> bool:
    """Whether a record of this status is recalled: an archived one is kept out of recall."""
    match status:
        case "active":
            return True
        case "archived":
            return False
        case _:
            assert_never(status)


def is_current(status: RecordStatus, kind: RecordKind) -> bool:
    """Whether a record of this status and kind is current, what recall_context recalls: an
    active decision (an event is history, recall_activity's)."""
    return recalled(status) and kind == "decision"


def _status_of(value: PropertyValue) -> RecordStatus | None:
    """A record's own `status` property, by the rules: none (or null) is active; any value but
    the two exact words is None, a broken record ('Archived', 'draft', a list, a number)."""
    match value:
        case None | "active":
            return "active"
        case "archived":
            return "archived"
        case _:
            return None


def _kind_of(value: PropertyValue) -> RecordKind | None:
    """A record's own `kind` property, as `_status_of` reads `status`: none is a decision."""
    match value:
        case None | "decision":
            return "decision"
        case "event":
            return "event"
        case _:
            return None


def _word(value: PropertyValue) -> str | None:
    return value.strip().casefold() if isinstance(value, str) else None


def _date_in(value: PropertyValue) -> str | None:
    """A `date` property's day, as Obsidian's date and date-and-time properties write it
    (`2026-03-02`, `2026-03-02T09:30`), or None."""
    if not isinstance(value, str):
        return None
    day = value.strip()[:10]
    rest = value.strip()[10:]
    if rest and rest[0] not in "T ":
        return None
    return day if is_calendar_date(day) else None


def is_calendar_date(value: PropertyValue) -> bool:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _subjects(value: PropertyValue) -> tuple[str, ...] | None:
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(i, str) and SUBJECT_PATTERN.fullmatch(i) for i in items):
        return None
    return tuple(dict.fromkeys(str(i) for i in items))


def _broken(note: Note, key: str, rule: str, subjects: tuple[str, ...] | None) -> InvalidNote:
    return InvalidNote(
        path=note.path,
        reason=f"{note.path}, line {note.property_lines.get(key, 1)}: property '{key}' {rule}",
        mentions_subject=True,
        subjects=subjects,
        readable=note,
    )
