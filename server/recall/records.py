"""Memory records: valid notes with a `subject` property, checked against the record rules
(docs/vault.md)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from vault_recall.server.obsidian.note import InvalidNote, Note
from vault_recall.server.obsidian.values import PropertyValue

SUBJECT_PATTERN = re.compile(r"[a-z0-9-]{1,64}")  # always used with fullmatch
STATUSES = ("active", "archived")
KINDS = ("decision", "event")


@dataclass(frozen=True)
class MemoryRecord:
    note: Note
    subjects: tuple[str, ...]
    status: str  # active | archived
    kind: str  # decision | event
    date: str | None  # YYYY-MM-DD; required for events


def as_record(note: Note) -> MemoryRecord | InvalidNote | None:
    """The note as a memory record, an InvalidNote if its record properties break the rules,
    or None when it is an ordinary note (no `subject` property) or a template (its `subject:`
    is a placeholder for the notes made from it)."""
    props = note.properties
    if "subject" not in props or note.template:
        return None
    subjects = _subjects(props["subject"])
    if subjects is None:
        return _broken(note, "subject", "must be a slug (a-z, 0-9, '-', at most 64) or a list of them", None)
    status = props.get("status", "active")
    if status is None:
        status = "active"
    if status not in STATUSES:
        return _broken(note, "status", "must be 'active' or 'archived'", subjects)
    kind = props.get("kind", "decision")
    if kind is None:
        kind = "decision"
    if kind not in KINDS:
        return _broken(note, "kind", "must be 'decision' or 'event'", subjects)
    date = props.get("date")
    if date is not None and not is_calendar_date(date):
        return _broken(note, "date", "must be a real date written YYYY-MM-DD", subjects)
    if kind == "event" and date is None:
        return _broken(note, "date", "is required when kind is 'event' (YYYY-MM-DD)", subjects)
    assert isinstance(status, str) and isinstance(kind, str)
    return MemoryRecord(
        note=note,
        subjects=subjects,
        status=status,
        kind=kind,
        date=date if isinstance(date, str) else None,
    )


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
