"""Memory-record rules on top of valid notes."""

from __future__ import annotations

import pytest

from vault_recall.server.obsidian.note import InvalidNote, Note, parse_note
from vault_recall.server.recall.records import MemoryRecord, as_record, ruled_record


def classify(props: str) -> MemoryRecord | InvalidNote | None:
    note = parse_note("R.md", f"---\n{props}\n---\nbody\n".encode(), 0)
    assert isinstance(note, Note)
    return as_record(note)


def test_a_note_without_subject_is_not_a_record() -> None:
    assert classify("tags: [a]") is None


def test_defaults_are_active_decision() -> None:
    found = classify("subject: build-system")
    assert isinstance(found, MemoryRecord)
    assert (found.subjects, found.status, found.kind, found.date) == (("build-system",), "active", "decision", None)


def test_a_list_of_subjects_is_kept_in_order_without_repeats() -> None:
    found = classify("subject: [b, a, b]")
    assert isinstance(found, MemoryRecord)
    assert found.subjects == ("b", "a")


def test_an_event_keeps_its_date() -> None:
    found = classify("subject: x\nkind: event\ndate: 2026-03-14")
    assert isinstance(found, MemoryRecord)
    assert found.date == "2026-03-14"


@pytest.mark.parametrize(
    ("props", "words", "subjects"),
    [
        ("subject: Build System", "'subject' must be a slug", None),
        ("subject: []", "'subject' must be a slug", None),
        ("subject: " + "a" * 65, "'subject' must be a slug", None),
        ('subject: "build\\n"', "'subject' must be a slug", None),
        ("subject: x\nstatus: done", "'status' must be 'active' or 'archived'", ("x",)),
        ("subject: x\nkind: note", "'kind' must be 'decision' or 'event'", ("x",)),
        ("subject: x\nkind: event", "'date' is required", ("x",)),
        ("subject: x\nkind: event\ndate: 2026-02-30", "real date", ("x",)),
        ("subject: x\ndate: 14/03/2026", "real date", ("x",)),
    ],
)
def test_broken_record_values_make_an_invalid_note(props: str, words: str, subjects: tuple[str, ...] | None) -> None:
    found = classify(props)
    assert isinstance(found, InvalidNote)
    assert found.reason.startswith("R.md, line ")
    assert words in found.reason
    assert found.mentions_subject
    assert found.subjects == subjects


def test_a_broken_record_value_names_its_line() -> None:
    missing = classify("title: x\nkind: event\nsubject: s")
    assert isinstance(missing, InvalidNote)
    # A missing property is to be added to the block that opens on line 1.
    assert missing.reason == "R.md, line 1: property 'date' is required when kind is 'event' (YYYY-MM-DD)"
    status = classify("title: x\n'status': done\nsubject: s")
    assert isinstance(status, InvalidNote)
    assert status.reason == "R.md, line 3: property 'status' must be 'active' or 'archived'"


@pytest.mark.parametrize(
    ("written", "status"),
    [
        ("", "active"),  # no `status`: the default
        ("status:", "active"),  # null, as if not written
        ("status: active", "active"),
        ("status: archived", "archived"),
        ("status: 'archived'", "archived"),  # quoted text is the same text
        ("status: Archived", None),  # exact words only: a note of its own subject is held to them
        ("status: ARCHIVED", None),
        ("status: draft", None),
        ("status: archived ", "archived"),  # YAML drops the blank
        ("status: [archived]", None),
        ("status: true", None),
        ("status: 1", None),
    ],
)
def test_a_record_of_its_own_subject_takes_only_the_exact_status_words(written: str, status: str | None) -> None:
    """None: the note is reported as broken, naming the rule, rather than counted as a record."""
    found = classify("subject: x" + (f"\n{written}" if written else ""))
    if status is None:
        assert isinstance(found, InvalidNote)
        assert "property 'status' must be 'active' or 'archived'" in found.reason
    else:
        assert isinstance(found, MemoryRecord)
        assert found.status == status


@pytest.mark.parametrize(
    ("written", "status"),
    [
        ("", "active"),
        ("status: archived", "archived"),
        ("status: Archived", "archived"),  # the person's own words, read loosely: case and blanks
        ("status: ' ARCHIVED '", "archived"),
        ("status: draft", "active"),  # a status of theirs, no claim about the record
        ("status: reading", "active"),
        ("status: [archived]", "active"),
        ("status: true", "active"),
    ],
)
def test_a_note_a_rule_takes_is_archived_only_when_it_says_so(written: str, status: str) -> None:
    note = parse_note("R.md", f"---\ntitle: t\n{written}\n---\nbody\n".encode(), 0)
    assert isinstance(note, Note)
    assert ruled_record(note, ("x",), None).status == status
